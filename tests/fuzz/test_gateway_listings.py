"""What an upstream lists, fuzzed in process: tool names of any shape get unique exposed names (look-alikes
collide; `namespace` exposes `upstream.tool`), and any inputSchema the MCP SDK parses gets a pin digest. Before,
a schema with NaN or Infinity in it (the SDK's JSON parser takes both) raised ValueError in the digest, so
one upstream's tool broke every client's tools/list. Seeded, so a failure reproduces."""

from __future__ import annotations

import math
import os
import zlib
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from server.domain.actions import look_alike_key
from server.gateway.names import ToolCollision, ToolNames
from server.gateway.pins import MemoryPins, schema_digest

from . import strategies

EXAMPLES = int(os.environ.get("OUTRIDER_FUZZ_EXAMPLES", "8")) * 25


def _seed(name: str) -> int:
    return int(os.environ.get("OUTRIDER_FUZZ_SEED", "0")) or zlib.crc32(name.encode())


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_a_schema_with_a_non_finite_number_is_pinned_not_a_crash(bad: float) -> None:
    schema = {"type": "object", "properties": {"cost": {"type": "number", "maximum": bad}}}
    tool = types.Tool.model_validate_json(
        '{"name": "pay", "inputSchema": {"type": "object", "properties": {"cost": {"type": "number", "maximum": '
        + {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[str(bad)]
        + "}}}}"
    )
    assert tool.input_schema == schema or math.isnan(bad)  # what the SDK parses off the wire
    assert schema_digest(schema) == schema_digest(tool.input_schema)
    assert schema_digest(schema) != schema_digest({**schema, "title": "other"})
    pins = MemoryPins()
    assert anyio.run(pins.compare, "up", [tool]) == set()
    assert anyio.run(pins.compare, "up", [tool]) == set()  # the same listing again: unchanged, still callable


def test_any_upstream_names_get_unique_exposed_names() -> None:
    names = st.one_of(st.sampled_from(strategies.STRINGS), st.text(max_size=12))

    @seed(_seed("test_any_upstream_names_get_unique_exposed_names"))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(
        mode=st.sampled_from(["refuse", "namespace"]),
        listed=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), names), max_size=8),
    )
    def run(mode: str, listed: list[tuple[str, str]]) -> None:
        assigned = ToolNames(mode).assign((up, "", tool) for up, tool in listed)
        owners: dict[str, str] = {}
        for (up, _tool), exposed in assigned.items():
            # One upstream per look-alike key: no tool shadows another upstream's.
            assert owners.setdefault(look_alike_key(exposed), up) == up, (listed, assigned)
        try:
            ToolNames(mode).assign(((up, "", tool) for up, tool in listed), startup=True)
        except ToolCollision as exc:
            assert mode == "refuse" and "collides" in str(exc)

    run()


def test_any_schema_gets_a_digest() -> None:
    leaves = st.one_of(st.none(), st.booleans(), st.floats(), st.integers(), st.text(max_size=8))
    schemas: Any = st.recursive(
        leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    )

    @seed(_seed("test_any_schema_gets_a_digest"))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(schema=st.dictionaries(st.text(max_size=5), schemas, max_size=4))
    def run(schema: dict[str, Any]) -> None:
        digest = schema_digest(schema)
        assert len(digest) == 64 and digest == schema_digest(schema)

    run()
