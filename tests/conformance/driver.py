"""The Python conformance driver: runs tests/conformance/scenarios.json against a live sidecar through
the generated `outrider.v1` stubs. The TypeScript, Go and Java drivers follow the same rules
(tests/conformance/README.md); run.sh runs all four against one sidecar.

    OUTRIDER_CONFORMANCE_ADDRESS=127.0.0.1:50051 OUTRIDER_CONFORMANCE_TOKEN_OPERATOR=... \
    OUTRIDER_CONFORMANCE_TOKEN_AGENT=... python -m tests.conformance.driver
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

SCENARIOS = Path(__file__).with_name("scenarios.json")
SERVICE_MODULES = ("supervisor_service", "recovery_service", "safeguard_service", "access_service")
TIMEOUT = 10.0
_VAR = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
_ABSENT = object()


class StepFailure(Exception):
    pass


@dataclass
class Outcome:
    passed: int = 0
    failed: int = 0
    lines: list[str] = field(default_factory=list)


def _services() -> dict[str, tuple[ServiceDescriptor, type]]:
    found: dict[str, tuple[ServiceDescriptor, type]] = {}
    for name in SERVICE_MODULES:
        pb2 = importlib.import_module(f"outrider.v1.{name}_pb2")
        grpc_mod = importlib.import_module(f"outrider.v1.{name}_pb2_grpc")
        for svc in pb2.DESCRIPTOR.services_by_name.values():
            found[svc.name] = (svc, getattr(grpc_mod, f"{svc.name}Stub"))
    return found


def env_tokens(names: list[str], env: Mapping[str, str] = os.environ) -> dict[str, str]:
    return {n: env.get(f"OUTRIDER_CONFORMANCE_TOKEN_{n.upper()}", "") for n in names}


# ---- the matching rules (identical in every driver) -----------------------------------------


def substitute(value: Any, variables: Mapping[str, str]) -> Any:
    """Replace ${name} in every string of `value` with a captured variable."""
    if isinstance(value, str):

        def one(m: re.Match[str]) -> str:
            if m.group(1) not in variables:
                raise StepFailure(f"unknown variable ${{{m.group(1)}}}")
            return variables[m.group(1)]

        return _VAR.sub(one, value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def match(expected: Any, actual: Any, path: str) -> list[str]:
    """Mismatches of `actual` (proto JSON) against `expected`; an absent field is its zero value."""
    if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)).startswith("$"):
        op, arg = next(iter(expected.items()))
        text = "" if actual is _ABSENT else actual
        if not isinstance(text, str):
            return [f"{path}: expected a string for {op}, got {json.dumps(text)}"]
        if op == "$contains":
            ok = arg in text
        elif op == "$matches":
            ok = re.search(arg, text) is not None
        else:
            return [f"{path}: unknown matcher {op}"]
        return [] if ok else [f"{path}: expected {op} {json.dumps(arg)}, got {json.dumps(text)}"]
    if isinstance(expected, dict):
        if actual is _ABSENT:
            actual = {}
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {json.dumps(actual)}"]
        out: list[str] = []
        for key, want in expected.items():
            out += match(want, actual.get(key, _ABSENT), f"{path}.{key}")
        return out
    if isinstance(expected, list):
        if actual is _ABSENT:
            actual = []
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {len(expected)} items, got {json.dumps(actual)}"]
        out = []
        for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
            out += match(want, got, f"{path}[{i}]")
        return out
    if actual is _ABSENT:
        if expected is None or expected is False or expected == "" or (_is_number(expected) and expected == 0):
            return []
        return [f"{path}: expected {json.dumps(expected)}, got nothing"]
    if ((_is_number(expected) and _is_number(actual)) or type(expected) is type(actual)) and expected == actual:
        return []
    return [f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)}"]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def lookup(document: Any, dotted: str) -> str:
    value = document
    for part in dotted.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise StepFailure(f"capture: the response has no {dotted}")
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise StepFailure(f"capture: {dotted} is not a string or number")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ---- running ------------------------------------------------------------------------------------


class Driver:
    def __init__(self, channel: grpc.Channel, tokens: Mapping[str, str]) -> None:
        self.channel = channel
        self.tokens = dict(tokens)
        self.services = _services()

    def _metadata(self, who: Any, variables: Mapping[str, str]) -> list[tuple[str, str]]:
        if isinstance(who, dict):
            return [("authorization", f"Bearer {substitute(who['bearer'], variables)}")]
        if who == "anonymous":
            return []
        if not self.tokens.get(who):
            raise StepFailure(f"no token for credential {who!r}")
        return [("authorization", f"Bearer {self.tokens[who]}")]

    def call(self, name: str, request: Any, metadata: list[tuple[str, str]]) -> tuple[Any, Any]:
        """(response JSON, None) or (None, error JSON)."""
        service, _, method = name.partition(".")
        if service not in self.services:
            raise StepFailure(f"unknown service {service!r}")
        descriptor, stub_cls = self.services[service]
        if method not in descriptor.methods_by_name:
            raise StepFailure(f"unknown method {name!r}")
        mdesc = descriptor.methods_by_name[method]
        req: Message = message_factory.GetMessageClass(mdesc.input_type)()
        json_format.ParseDict(request, req)
        rpc: Callable[..., Message] = getattr(stub_cls(self.channel), method)
        try:
            resp = rpc(req, metadata=metadata, timeout=TIMEOUT)
        except grpc.RpcError as err:
            return None, error_json(err)
        return json_format.MessageToDict(resp), None

    def stream(self, name: str, requests: list[Any], metadata: list[tuple[str, str]]) -> tuple[list[Any], Any]:
        """A bidirectional stream: every request sent in order, then half-close; (the responses received,
        sorted by numeric `id`, None) when it ends OK, (the same, error JSON) when it ends with a status."""
        service, _, method = name.partition(".")
        if service not in self.services:
            raise StepFailure(f"unknown service {service!r}")
        descriptor, stub_cls = self.services[service]
        mdesc = descriptor.methods_by_name.get(method)
        if mdesc is None or not (mdesc.client_streaming and mdesc.server_streaming):
            raise StepFailure(f"unknown or not a bidirectional streaming method {name!r}")
        cls = message_factory.GetMessageClass(mdesc.input_type)
        messages = [json_format.ParseDict(r, cls()) for r in requests]
        rpc: Callable[..., Any] = getattr(stub_cls(self.channel), method)
        responses: list[Any] = []
        error = None
        try:
            for resp in rpc(iter(messages), metadata=metadata, timeout=TIMEOUT):
                responses.append(json_format.MessageToDict(resp))
        except grpc.RpcError as err:
            error = error_json(err)
        return sorted(responses, key=lambda r: int(r.get("id", 0))), error

    def step(self, defaults: Mapping[str, Any], step: Mapping[str, Any], variables: dict[str, str]) -> None:
        metadata = self._metadata(step.get("as", defaults.get("as", "operator")), variables)
        if "stream" in step:
            self.stream_step(step, metadata, variables)
            return
        request = substitute(step.get("request", {}), variables)
        response, error = self.call(step["call"], request, metadata)
        expect = substitute(step.get("expect", {}), variables)
        if "error" in expect:
            if error is None:
                raise StepFailure(f"expected error {expect['error'].get('code')}, got response {json.dumps(response)}")
            problems = match(expect["error"], error, "error")
        else:
            if error is not None:
                raise StepFailure(f"unexpected error {error['code']}: {error['message']}")
            problems = match(expect.get("response", {}), response, "response")
        if problems:
            raise StepFailure("; ".join(problems))
        for var, dotted in step.get("capture", {}).items():
            variables[var] = lookup(response, dotted)

    def stream_step(self, step: Mapping[str, Any], metadata: list[tuple[str, str]], variables: dict[str, str]) -> None:
        if "capture" in step:
            raise StepFailure("capture is not supported on a stream step")
        requests = substitute(step.get("requests", []), variables)
        responses, error = self.stream(step["stream"], requests, metadata)
        expect = substitute(step.get("expect", {}), variables)
        problems: list[str] = []
        if "error" in expect:
            if error is None:
                raise StepFailure(f"expected the stream to end with {expect['error'].get('code')}, it ended OK")
            problems += match(expect["error"], error, "error")
        elif error is not None:
            raise StepFailure(f"the stream ended with {error['code']}: {error['message']}")
        if "responses" in expect:
            problems += match(expect["responses"], responses, "responses")
        if problems:
            raise StepFailure("; ".join(problems))

    def run(self, suite: Mapping[str, Any]) -> Outcome:
        outcome = Outcome()
        defaults = suite.get("defaults", {})
        for scenario in suite["scenarios"]:
            variables = {"run": uuid.uuid4().hex[:12]}  # fresh per scenario run: unique request ids, keys
            steps = [("before_each", i, s) for i, s in enumerate(suite.get("before_each", []))]
            steps += [("step", i, s) for i, s in enumerate(scenario["steps"])]
            try:
                for kind, i, step in steps:
                    try:
                        self.step(defaults, step, variables)
                    except StepFailure as exc:
                        what = step.get("call") or step.get("stream")
                        raise StepFailure(f"{kind} {i + 1} ({what}): {exc}") from None
            except StepFailure as exc:
                outcome.failed += 1
                outcome.lines.append(f"FAIL {scenario['name']}\n     {exc}")
            else:
                outcome.passed += 1
                outcome.lines.append(f"ok   {scenario['name']}")
        return outcome


def error_json(err: grpc.RpcError) -> dict[str, str]:
    out = {"code": err.code().name, "message": err.details() or "", "reason": "", "domain": "", "field": ""}
    status = rpc_status.from_call(err)
    for detail in status.details if status else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            out.update(reason=info.reason, domain=info.domain, field=info.metadata.get("field", ""))
    return out


def load(path: Path | None = None) -> dict[str, Any]:
    """The scenario file: OUTRIDER_CONFORMANCE_SCENARIOS, or the one beside this module."""
    path = path or Path(os.environ.get("OUTRIDER_CONFORMANCE_SCENARIOS") or SCENARIOS)
    suite: dict[str, Any] = json.loads(path.read_text())
    if suite.get("format") != "outrider-conformance/1":
        raise ValueError(f"{path}: unknown format {suite.get('format')!r}")
    return suite


def run(address: str, tokens: Mapping[str, str], path: Path | None = None) -> Outcome:
    with grpc.insecure_channel(address) as channel:
        return Driver(channel, tokens).run(load(path))


def main() -> int:
    address = os.environ.get("OUTRIDER_CONFORMANCE_ADDRESS", "127.0.0.1:50051")
    suite = load()
    outcome = run(address, env_tokens(list(suite["credentials"])))
    print("\n".join(outcome.lines))
    print(f"conformance python: {outcome.passed} passed, {outcome.failed} failed")
    return 1 if outcome.failed else 0


if __name__ == "__main__":
    sys.exit(main())
