"""The gateway's argument conformer fuzzed in process (fast, many examples): whatever an agent sends as a tool's
arguments, `conform` returns arguments that fit the tool's inputSchema and that the sidecar can check as they
are, or refuses them with ArgumentsRefused; never another exception. What it returns goes through the Python
client's CheckActionRequest and the sidecar's own context conversion (server/rpc/convert.py) unchanged.

The cases the gateway fuzz (test_gateway_calls.py) found, each pinned below: a numeric string of more than
4300 digits (int() raised ValueError), an integer beyond a double (the client's Struct raised OverflowError, as
did a `multipleOf`), arguments nested deeper than a protobuf Struct holds (upb raised DecodeError), and a
schema that refers to itself without end (RecursionError). Seeded, so a failure reproduces.
"""

from __future__ import annotations

import os
import zlib
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, seed, settings

from outrider._common import check_request
from server.domain.errors import InvalidArgument
from server.gateway.schemas import MAX_DEPTH, ArgumentsRefused, conform
from server.rpc.convert import struct_to_dict

from .gateway_inputs import SCHEMAS, arguments

EXAMPLES = int(os.environ.get("OUTRIDER_FUZZ_EXAMPLES", "8")) * 50
NUMBER = {"type": "object", "properties": {"cost": {"type": "number"}, "n": {"type": "integer"}}}


def checked(args: dict[str, Any]) -> dict[str, Any]:
    """The context the gateway sends (its arguments plus {mcp: ...}) as the sidecar reads it."""
    request = check_request("agent", "tool", {**args, "mcp": {"server": "s", "tool": "t"}}, "rid", False, None)
    return struct_to_dict(request.context)


def nested(levels: int) -> dict[str, Any]:
    """An arguments object `levels` objects deep, itself the first."""
    inner: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        inner = {"n": inner}
    return inner


@pytest.mark.parametrize(
    ("schema", "args", "argument"),
    [
        (NUMBER, {"n": "9" * 5000}, "n"),  # was ValueError: int() refuses more than 4300 digits
        (NUMBER, {"cost": "9" * 5000}, "cost"),
        (NUMBER, {"n": "1" + "0" * 400}, "n"),  # an integer no double holds
        (NUMBER, {"cost": 10**400}, "cost"),  # was accepted, then OverflowError in the client's Struct
        (NUMBER, {"n": 2**53 + 1}, "n"),  # checked as 2**53, run as 2**53 + 1
        (NUMBER, {"n": "-9007199254740993"}, "n"),
        ({"properties": {"a": {"type": "integer", "multipleOf": 0.5}}}, {"a": 10**309}, "a"),  # was OverflowError
        ({}, {"list": [1, [2, 10**30]]}, "list[1][1]"),
    ],
)
def test_numbers_the_sidecar_cannot_check_exactly_are_refused_naming_the_argument(
    schema: dict[str, Any], args: dict[str, Any], argument: str
) -> None:
    with pytest.raises(ArgumentsRefused) as caught:
        conform(schema, args)
    assert caught.value.argument == argument, caught.value.message


def test_exact_integers_and_plain_numbers_still_pass() -> None:
    assert conform(NUMBER, {"n": 2**53, "cost": "-9007199254740992"}) == {"n": 2**53, "cost": -(2**53)}
    assert conform(NUMBER, {"cost": 1e308}) == {"cost": 1e308}


def test_as_deep_as_the_sidecar_takes_and_no_deeper() -> None:
    # Was 64: arguments 33 to 64 levels deep passed and the client's Struct raised DecodeError (upb's depth).
    deepest = conform({}, nested(MAX_DEPTH))
    assert checked(deepest) == {**deepest, "mcp": {"server": "s", "tool": "t"}}
    with pytest.raises(ArgumentsRefused, match=f"deeper than {MAX_DEPTH} levels"):
        conform({}, nested(MAX_DEPTH + 1))
    with pytest.raises(ArgumentsRefused, match="deeper than"):
        conform({}, {"l": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})


@pytest.mark.parametrize(
    "schema",
    [{"$ref": "#"}, {"allOf": [{"$ref": "#"}]}, {"properties": {"a": {"$ref": "#/properties/a"}}}],
    ids=["root", "allOf", "property"],
)
def test_a_schema_that_refers_to_itself_without_end_refuses_the_call(schema: dict[str, Any]) -> None:
    # Was RecursionError out of the validator: the MCP SDK answered the caller with code 0 and its text.
    with pytest.raises(ArgumentsRefused, match="cannot check these arguments"):
        conform(schema, {"a": 1})


EVIL = {"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}}}


def test_a_backtracking_pattern_runs_in_linear_time() -> None:
    # Python's re takes about 2**n steps on n a's and a "!" here: at 40, hours with the gateway's one event
    # loop (every client's) frozen; pytest's timeout ended this test before RE2 ran the patterns.
    with pytest.raises(ArgumentsRefused, match="does not match") as caught:
        conform(EVIL, {"q": "a" * 40 + "!"})
    assert caught.value.argument == "q"
    assert conform(EVIL, {"q": "aaa"}) == {"q": "aaa"}
    keys = {"type": "object", "patternProperties": {"^(x+)+$": {"type": "integer"}}}
    assert conform(keys, {"x" * 40 + "!": "not checked", "xx": 1}) == {"x" * 40 + "!": "not checked", "xx": 1}
    with pytest.raises(ArgumentsRefused) as caught:
        conform(keys, {"xx": "s"})
    assert caught.value.argument == "xx"


@pytest.mark.parametrize("pattern", ["^(?=.*[A-Z]).+$", "(a)\\1", "(?<!x)y"])
def test_a_pattern_re2_cannot_run_refuses_the_call(pattern: str) -> None:
    with pytest.raises(ArgumentsRefused, match="cannot run in linear time"):
        conform({"properties": {"q": {"type": "string", "pattern": pattern}}}, {"q": "Ab"})


@pytest.mark.parametrize("tool", sorted(SCHEMAS))
def test_conform_refuses_or_returns_what_fits_and_converts(tool: str) -> None:
    schema = SCHEMAS[tool]

    @seed(int(os.environ.get("OUTRIDER_FUZZ_SEED", "0")) or zlib.crc32(f"conform {tool}".encode()))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(args=arguments())
    def run(args: Any) -> None:
        if not isinstance(args, dict):
            return  # the MCP layer refuses arguments that are not an object before the gateway sees them
        try:
            out = conform(schema, args)
        except ArgumentsRefused as exc:
            assert exc.message and "Traceback" not in exc.message
            return
        jsonschema.validate(out, schema)
        try:
            assert checked(out)["mcp"] == {"server": "s", "tool": "t"}
        except InvalidArgument as exc:
            # The sidecar's own limits (a string longer than max_string_length) are its refusal to make.
            assert "over the limit" in str(exc), exc

    run()
