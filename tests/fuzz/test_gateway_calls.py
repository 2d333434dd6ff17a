"""Fuzz what an agent sends the MCP gateway: tools/call's `name` and `arguments`, as raw JSON-RPC over streamable
HTTP (so wrong JSON types get through the client too), to a real `outrider mcp-gateway` process in front of a
real upstream, every call checked by a live sidecar. Tool names: the real ones, look-alikes of them, huge,
markup, wrong types. Arguments: numeric strings of every shape for number and integer properties, huge and
non-finite numbers, deep nesting, wrong types, against schemas with enums, patterns, nested objects, arrays
and a recursive `$ref`.

No input may answer INTERNAL_ERROR or a traceback: an unknown tool is INVALID_PARAMS, arguments that do not fit
are a refusal naming the argument (isError), and what reaches the upstream fits the tool's inputSchema. A call
that hangs fails (a per-call deadline). Afterwards the gateway lists its tools and its log has no traceback.
Seeded (crc32 of the test's name, or OUTRIDER_FUZZ_SEED): a failure names its seed and reproduces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import jsonschema
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from server.domain.access.principals import PrincipalKind
from tests.integration.gatewaykit import ROOT, gateway_command, write_config
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import guardrail

from .gateway_inputs import BACKTRACKS, SCHEMAS, TOOLS, arguments, tool_names

RAW = str(ROOT / "tests" / "integration" / "mcp_raw_upstream.py")
AGENT = "fuzz-gateway-agent"
EXAMPLES = int(os.environ.get("OUTRIDER_FUZZ_EXAMPLES", "8")) * 12
CALL_TIMEOUT = 15.0  # a call that takes longer hangs the gateway for every client (one event loop)
# INTERNAL_ERROR, and 0: what the MCP SDK answers when a handler raises (the exception's text as the message).
CRASHED = (-32603, 0)
LEAKS = ("Traceback", 'File "', "Exception:", "Error:")
SEEN: Counter[str] = Counter()

# ---- a raw JSON-RPC client of the gateway over streamable HTTP -----------------------------------------


@dataclass
class Answer:
    status: int
    body: dict[str, Any]


class RawClient:
    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.http = httpx2.Client(
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            },
            timeout=CALL_TIMEOUT,
        )
        self.next_id = 0
        self.session = ""
        init = self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
        )
        assert "result" in init.body, init
        self.notify("notifications/initialized")

    def _post(self, payload: bytes) -> httpx2.Response:
        headers = {"mcp-session-id": self.session} if self.session else {}
        response = self.http.post(self.url, content=payload, headers=headers)
        if "mcp-session-id" in response.headers:
            self.session = response.headers["mcp-session-id"]
        return response

    def notify(self, method: str) -> None:
        self._post(json.dumps({"jsonrpc": "2.0", "method": method}).encode())

    def request(self, method: str, params: Any) -> Answer:
        self.next_id += 1
        text = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.send(text.encode())

    def send(self, payload: bytes) -> Answer:
        response = self._post(payload)
        body = response.text
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            datas = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
            body = datas[-1] if datas else "{}"
        try:
            parsed = json.loads(body) if body else {}
        except ValueError:
            parsed = {"unparsed": body[:500]}
        return Answer(response.status_code, parsed if isinstance(parsed, dict) else {"unparsed": parsed})

    def close(self) -> None:
        self.http.close()


@dataclass
class Gateway:
    sidecar: RunningSidecar
    client: RawClient
    proc: subprocess.Popen[bytes]
    log: Path
    calls: Path


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    tmp = Path(tmp_path_factory.mktemp("fuzz-gateway"))
    with RunningSidecar(make_config(tmp)) as sidecar:
        sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", key="cost", max=100))
        sidecar.stub.AddGuardrail(guardrail("no-tree", "action_list", deny=["tree"]))
        (tmp / "tools.json").write_text(json.dumps(TOOLS))
        upstream = {
            "name": "tools",
            "command": sys.executable,
            "args": [RAW],
            "env": {"UPSTREAM_TOOLS": str(tmp / "tools.json"), "UPSTREAM_LOG": str(tmp / "calls.log")},
        }
        config = write_config(tmp, sidecar.sidecar.target, upstreams=[upstream])
        url_file, log = tmp / "gateway.url", tmp / "gateway.log"
        with log.open("wb") as err:
            proc = subprocess.Popen(
                gateway_command(config, "--transport", "http", "--listen", "127.0.0.1:0", "--url-file", str(url_file)),
                cwd=ROOT,
                env={**os.environ, "OUTRIDER_TOKEN": ""},
                stderr=err,
            )
        try:
            deadline = time.monotonic() + 60
            while not url_file.exists() or not url_file.read_text():
                assert proc.poll() is None, f"the gateway exited: {log.read_text()}"
                assert time.monotonic() < deadline, "the gateway did not start within 60 s"
                time.sleep(0.05)
            client = RawClient(url_file.read_text(), sidecar.issue(PrincipalKind.AGENT, AGENT))
            try:
                yield Gateway(sidecar, client, proc, log, tmp / "calls.log")
            finally:
                client.close()
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def _seed(name: str) -> int:
    return int(os.environ.get("OUTRIDER_FUZZ_SEED", "0")) or zlib.crc32(name.encode())


def _text(result: dict[str, Any]) -> str:
    return "".join(str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, dict))


def assert_clean(answer: Answer, what: str) -> None:
    """Never INTERNAL_ERROR or an exception's text (code 0), a server error or traceback text; a refusal is a
    result or INVALID_PARAMS."""
    assert answer.status < 500, f"{what}: HTTP {answer.status} {answer.body}"
    text = json.dumps(answer.body)
    leaked = [leak for leak in LEAKS if leak in text]
    assert not leaked, f"{what}: leaked {leaked} in {text[:1000]}"
    if "error" in answer.body:
        code = answer.body["error"].get("code")
        SEEN[f"error {code}"] += 1
        assert code not in CRASHED, f"{what}: the handler crashed: {text[:1000]}"
        # What the caller sent is not echoed whole (a 100 kB tool name was, before).
        assert len(str(answer.body["error"].get("message", ""))) <= 2000, f"{what}: {text[:1000]}"
    else:
        assert "result" in answer.body, f"{what}: neither a result nor an error: {text[:1000]}"
        SEEN["refused" if answer.body["result"].get("isError") else "ran"] += 1


def _call(gateway: Gateway, name: Any, args: Any) -> None:
    what = f"tools/call name={json.dumps(name)[:200]} arguments={json.dumps(args)[:400]}"
    try:
        answer = gateway.client.request("tools/call", {"name": name, "arguments": args})
    except httpx2.TimeoutException:
        pytest.fail(f"{what}: no answer within {CALL_TIMEOUT} s")
    assert_clean(answer, what)
    result = answer.body.get("result") or {}
    if "result" in answer.body and not result.get("isError"):
        # It ran: the name was a real tool's, the arguments fit its schema and the sidecar allowed them.
        assert name in SCHEMAS, what
        ran = json.loads(_text(result))
        assert ran["tool"] == name, what
        jsonschema.validate(ran["args"], SCHEMAS[name])
        assert "dev.outrider/check" in (result.get("_meta") or {}), what


def test_no_tool_name_crashes_the_gateway(gateway: Gateway) -> None:
    @seed(_seed("test_no_tool_name_crashes_the_gateway"))
    @settings(max_examples=EXAMPLES // 2, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(name=tool_names(), args=st.sampled_from([{"cost": 5}, {}, None]))
    def run(name: Any, args: Any) -> None:
        _call(gateway, name, args)

    run()


def test_no_arguments_crash_the_gateway(gateway: Gateway) -> None:
    @seed(_seed("test_no_arguments_crash_the_gateway"))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(name=st.sampled_from(sorted(SCHEMAS)), args=arguments())
    def run(name: str, args: Any) -> None:
        _call(gateway, name, args)

    run()


# JSON no generator produces: a nesting deeper than any parser's limit, numbers JSON has no room for, and
# documents that are not JSON-RPC.
RAW_BODIES = [
    b'{"jsonrpc":"2.0","id":9001,"method":"tools/call","params":{"name":"pay","arguments":'
    + b'{"cost":' * 5000
    + b"1"
    + b"}" * 5002,
    b'{"jsonrpc":"2.0","id":9002,"method":"tools/call","params":{"name":"pay","arguments":{"cost":'
    + b"[" * 100_000
    + b"]" * 100_000
    + b"}}}",
    b'{"jsonrpc":"2.0","id":9003,"method":"tools/call","params":{"name":"pay","arguments":{"cost":1e999}}}',
    b'{"jsonrpc":"2.0","id":9004,"method":"tools/call","params":{"name":"pay","arguments":{"cost":-1e999}}}',
    b'{"jsonrpc":"2.0","id":9005,"method":"tools/call","params":{"name":"pay","arguments":{"cost":NaN}}}',
    b'{"jsonrpc":"2.0","id":9006,"method":"tools/call","params":{"name":"pay","arguments":{"cost":'
    + b"9" * 5000
    + b"}}}",
    b'{"jsonrpc":"2.0","id":9013,"method":"tools/call","params":{"name":"search","arguments":{"q":"'
    + BACKTRACKS.encode()
    + b'"}}}',
    b'{"jsonrpc":"2.0","id":9007,"method":"tools/call","params":{"name":"pay","arguments":{"cost":"\\ud800"}}}',
    b'{"jsonrpc":"2.0","id":9008,"method":"tools/call","params":{"name":"pay","arguments":{"cost":1,"cost":500}}}',
    b'{"jsonrpc":"2.0","id":9009,"method":"tools/call","params":{"name":"pay"}}',
    b'{"jsonrpc":"2.0","id":9010,"method":"tools/call","params":null}',
    b'{"jsonrpc":"2.0","id":9011,"method":"tools/call"}',
    b'{"jsonrpc":"2.0","id":9012,"method":"tools/call","params":{"name":"pay","arguments":{"cost":5}',
    b"\xff\xfe{}",
]


@pytest.mark.parametrize("body", RAW_BODIES, ids=[f"raw{i}" for i in range(len(RAW_BODIES))])
def test_raw_json_no_generator_makes(gateway: Gateway, body: bytes) -> None:
    try:
        answer = gateway.client.send(body)
    except httpx2.TimeoutException:
        pytest.fail(f"{body[:200]!r}: no answer within {CALL_TIMEOUT} s")
    assert_clean(answer, repr(body[:200]))
    result = answer.body.get("result") or {}
    assert not ("result" in answer.body and not result.get("isError") and "1e999" in repr(body)), answer


def test_the_gateway_still_answers_and_logged_no_traceback(gateway: Gateway) -> None:
    # The fuzzing reached every outcome: tools that ran, refusals (arguments, the chain), unknown tools.
    assert SEEN["ran"] > 0 and SEEN["refused"] > EXAMPLES // 4 and SEEN["error -32602"] > 0, dict(SEEN)
    listed = gateway.client.request("tools/list", {})
    assert sorted(t["name"] for t in listed.body["result"]["tools"]) == sorted(SCHEMAS)
    ok = gateway.client.request("tools/call", {"name": "pay", "arguments": {"cost": "12.5", "currency": "EUR"}})
    assert not ok.body["result"].get("isError"), ok
    assert json.loads(_text(ok.body["result"]))["args"] == {"cost": 12.5, "currency": "EUR"}
    # Everything the upstream ran fits its tool's schema.
    for line in gateway.calls.read_text().splitlines():
        call = json.loads(line)
        jsonschema.validate(call["args"], SCHEMAS[call["tool"]])
    log = gateway.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-4000:]
