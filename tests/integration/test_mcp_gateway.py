"""`outrider mcp-gateway` end to end: the SDK's ClientSession -> the gateway process -> a real upstream MCP
server, with every tools/call checked by a live sidecar."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind
from server.telemetry.settings import TelemetrySettings

from .gatewaykit import (
    UPSTREAM,
    http_gateway,
    http_session,
    start_http_gateway,
    stdio_session,
    stop_gateway,
    text_of,
    upstream_calls,
    write_config,
)
from .harness import RunningSidecar, make_config
from .rpc import guardrail, struct

AGENT = "gw-agent"
META = "dev.outrider/check"


def run(fn: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(fn)


def over_stdio(sidecar: RunningSidecar, tmp_path: Path, **config: Any) -> Any:
    token = sidecar.issue(PrincipalKind.AGENT, AGENT)
    path = write_config(tmp_path, sidecar.sidecar.target, agent_id=AGENT, **config)
    return stdio_session(path, token)


def test_allowed_call_reaches_the_upstream_and_returns_its_result(sidecar: RunningSidecar, tmp_path: Path) -> None:
    async def go() -> None:
        async with over_stdio(sidecar, tmp_path) as s:
            result = await s.call_tool("read_file", {"path": "/srv/a.txt"})
            assert not result.is_error
            assert json.loads(text_of(result)) == {"tool": "read_file", "args": {"path": "/srv/a.txt"}}
            assert result.meta is not None and result.meta[META]["outcome"] == "allowed"

    run(go)
    decisions = sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id=AGENT)).decisions
    assert [d.action for d in decisions] == ["read_file"]


def test_blocked_call_returns_the_reason_and_never_reaches_the_upstream(
    sidecar: RunningSidecar, tmp_path: Path
) -> None:
    sidecar.stub.AddGuardrail(guardrail("no-wipe", "action_list", deny=["delete_all"]))

    async def go() -> None:
        async with over_stdio(sidecar, tmp_path) as s:
            result = await s.call_tool("delete_all", {})
            assert result.is_error
            assert "Blocked by Outrider (no-wipe)" in text_of(result)
            assert "delete_all" in text_of(result)

    run(go)
    assert upstream_calls(tmp_path) == []


def test_trust_root_sees_a_nested_argument(sidecar: RunningSidecar, tmp_path: Path) -> None:
    sidecar.stub.AddGuardrail(guardrail("root-like", "trust_root", blocked_patterns=[r"rm\s+-rf"]))

    async def go() -> None:
        async with over_stdio(sidecar, tmp_path) as s:
            bad = {"name": "cleanup", "spec": {"steps": [{"shell": "cd /; rm  -rf *"}]}}
            result = await s.call_tool("run_job", bad)
            assert result.is_error and "root-like" in text_of(result)
            ok = await s.call_tool("run_job", {"name": "cleanup", "spec": {"steps": [{"shell": "ls"}]}})
            assert not ok.is_error

    run(go)
    assert [json.loads(c)["args"]["spec"]["steps"][0]["shell"] for c in upstream_calls(tmp_path)] == ["ls"]


def test_an_argument_named_mcp_is_refused(sidecar: RunningSidecar, tmp_path: Path) -> None:
    """The checked context carries {mcp: {server, tool}}: an argument of that name would hide what runs."""

    async def go() -> None:
        async with over_stdio(sidecar, tmp_path) as s:
            result = await s.call_tool("run_job", {"name": "x", "spec": {}, "mcp": {"server": "x"}})
            assert result.is_error and "reserved" in text_of(result)

    run(go)
    assert upstream_calls(tmp_path) == []


def pending_approvals(sidecar: RunningSidecar) -> list[Any]:
    return list(sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT, state=1)).approvals)


def test_approval_waits_then_the_identical_call_reattaches_with_the_edited_arguments(
    sidecar: RunningSidecar, tmp_path: Path
) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))

    async def go() -> None:
        async with over_stdio(sidecar, tmp_path, approval_wait="0.5s") as s:
            args = {"env": "prod", "version": "1.2"}
            first = await s.call_tool("deploy", args)
            assert first.is_error
            m = re.search(r"waiting for human approval (apr_[0-9a-f]+); call again to continue", text_of(first))
            assert m, text_of(first)
            again = await s.call_tool("deploy", args)  # still pending: the same request, not a second one
            assert m.group(1) in text_of(again)
            (approval,) = pending_approvals(sidecar)
            assert approval.approval_id == m.group(1)
            assert dict(approval.context.fields["mcp"].struct_value.fields)["tool"].string_value == "deploy"
            edited = {"env": "staging", "version": "1.2", "mcp": {"server": "tools", "tool": "deploy"}}
            await anyio.to_thread.run_sync(
                lambda: sidecar.stub.DecideApproval(
                    pb.DecideApprovalRequest(approval_id=m.group(1), approve=True, edited_context=struct(edited))
                )
            )
            done = await s.call_tool("deploy", args)
            assert not done.is_error, text_of(done)
            assert json.loads(text_of(done))["args"] == {"env": "staging", "version": "1.2"}
            assert done.meta is not None and done.meta[META]["edited"] is True

    run(go)
    assert [json.loads(c)["args"]["env"] for c in upstream_calls(tmp_path)] == ["staging"]


def test_rejection_with_a_comment_reaches_the_model(sidecar: RunningSidecar, tmp_path: Path) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))

    async def go() -> None:
        async with over_stdio(sidecar, tmp_path, approval_wait="0.3s") as s:
            first = await s.call_tool("deploy", {"env": "prod", "version": "9"})
            aid = re.search(r"apr_[0-9a-f]+", text_of(first))
            assert aid
            await anyio.to_thread.run_sync(
                lambda: sidecar.stub.DecideApproval(
                    pb.DecideApprovalRequest(approval_id=aid.group(0), approve=False, comment="not on a Friday")
                )
            )
            second = await s.call_tool("deploy", {"env": "prod", "version": "9"})
            assert second.is_error and "not on a Friday" in text_of(second)

    run(go)
    assert upstream_calls(tmp_path) == []


def test_upstream_crash_is_an_mcp_error_and_the_gateway_reconnects(sidecar: RunningSidecar, tmp_path: Path) -> None:
    async def go() -> None:
        async with over_stdio(sidecar, tmp_path) as s:
            with pytest.raises(MCPError, match="upstream 'tools' failed"):
                await s.call_tool("crash", {})
            result = await s.call_tool("read_file", {"path": "after"})  # a fresh upstream process
            assert not result.is_error and "after" in text_of(result)

    run(go)


def test_tools_resources_and_prompts_are_proxied_with_a_prefix(sidecar: RunningSidecar, tmp_path: Path) -> None:
    upstreams = [{"name": "files", "command": sys.executable, "args": [UPSTREAM], "prefix": "files."}]

    async def go() -> None:
        async with over_stdio(sidecar, tmp_path, upstreams=upstreams, action="upstream.tool") as s:
            names = {t.name for t in (await s.list_tools()).tools}
            assert {"files.read_file", "files.deploy", "files.crash"} <= names
            assert "read_file" not in names
            resources = (await s.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["memo://notes"]
            contents = (await s.read_resource("memo://notes")).contents
            assert contents[0].text == "the notes"
            prompts = [p.name for p in (await s.list_prompts()).prompts]
            assert prompts == ["files.greet"]
            prompt = await s.get_prompt("files.greet", {"name": "Ada"})
            assert "Hello, Ada!" in prompt.messages[0].content.text
            result = await s.call_tool("files.read_file", {"path": "p"})
            assert not result.is_error

    run(go)
    (decision,) = sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id=AGENT)).decisions
    assert decision.action == "files.read_file"  # action: upstream.tool


def test_hide_denied_tools_hides_only_what_the_chain_always_denies(sidecar: RunningSidecar, tmp_path: Path) -> None:
    sidecar.stub.AddGuardrail(guardrail("no-wipe", "action_list", deny=["delete_all", "crash"]))
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    sidecar.stub.AddGuardrail(guardrail("slow", "rate_limit", max=1, window="1h"))

    async def go() -> None:
        async with over_stdio(sidecar, tmp_path, hide_denied_tools=True) as s:
            for _ in range(3):  # listing is side-effect free: no rate count, no approval
                names = {t.name for t in (await s.list_tools()).tools}
                assert names == {"read_file", "deploy", "run_job"}
            first = await s.call_tool("read_file", {"path": "x"})
            assert not first.is_error, text_of(first)

    run(go)
    assert pending_approvals(sidecar) == []
    assert [d.action for d in sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id=AGENT)).decisions] == [
        "read_file"
    ]


def test_http_clients_are_the_agent_of_their_bearer_token(sidecar: RunningSidecar, tmp_path: Path) -> None:
    sidecar.stub.AddGuardrail(guardrail("only-a", "action_list", deny=["deploy"], agents=["agent-a"]))
    config = write_config(tmp_path, sidecar.sidecar.target)
    token_a = sidecar.issue(PrincipalKind.AGENT, "agent-a")
    token_b = sidecar.issue(PrincipalKind.AGENT, "agent-b")

    async def call(url: str, token: str | None) -> Any:
        async with http_session(url, token) as s:
            return await s.call_tool("deploy", {"env": "prod", "version": "1"})

    async def refused(url: str, token: str | None) -> tuple[int, str, str]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with httpx2.AsyncClient() as http:
            r = await http.post(url, json=body, headers={**headers, "Accept": "application/json, text/event-stream"})
        return r.status_code, r.headers.get("www-authenticate", ""), r.json()["error"]["message"]

    with http_gateway(config, tmp_path) as url:
        a = run(lambda: call(url, token_a))
        b = run(lambda: call(url, token_b))
        with pytest.raises(BaseException):  # noqa: B017 - the SDK wraps the 401 in its task group's error
            run(lambda: call(url, None))
        assert run(lambda: refused(url, None)) == (
            401,
            'Bearer realm="outrider"',
            "send your Outrider agent token as 'Authorization: Bearer otr_...'",
        )
        assert run(lambda: refused(url, "otr_forged"))[2] == "the Outrider token was refused"
        assert run(lambda: refused(url, sidecar.operator_secret))[2].startswith("an agent token is required")
    assert a.is_error and "only-a" in text_of(a)
    assert not b.is_error
    decisions = sidecar.stub.ListDecisions(pb.ListDecisionsRequest()).decisions
    assert sorted(d.agent_id for d in decisions) == ["agent-a", "agent-b"]


def test_http_upstream_and_the_clients_trace_continues_into_the_sidecar(tmp_path: Path) -> None:
    """A traceparent in the MCP request's _meta reaches the sidecar's decision (its tracing on, no exporter)."""
    with RunningSidecar(make_config(tmp_path, telemetry=TelemetrySettings(enabled=True))) as sidecar:
        _http_upstream_with_trace(sidecar, tmp_path)


def _http_upstream_with_trace(sidecar: RunningSidecar, tmp_path: Path) -> None:
    url_file = tmp_path / "upstream.url"
    upstream = subprocess.Popen([sys.executable, UPSTREAM, "--http", str(url_file)])
    try:
        for _ in range(600):
            if url_file.exists() and url_file.read_text():
                break
            anyio.run(anyio.sleep, 0.05)
        upstreams = [{"name": "remote", "url": url_file.read_text()}]
        config = write_config(tmp_path, sidecar.sidecar.target, upstreams=upstreams)
        token = sidecar.issue(PrincipalKind.AGENT, AGENT)
        trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
        meta = {"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}

        async def go(url: str) -> Any:
            async with http_session(url, token) as s:
                return await s.call_tool("read_file", {"path": "remote"}, meta=meta)

        with http_gateway(config, tmp_path) as url:
            result = run(lambda: go(url))
        assert not result.is_error and "remote" in text_of(result)
    finally:
        upstream.terminate()
        upstream.wait(10)
    (decision,) = sidecar.stub.ListDecisions(pb.ListDecisionsRequest(agent_id=AGENT)).decisions
    assert decision.trace_id == trace_id


@pytest.mark.timeout(300)  # three gateway processes start, each a cold Python start on a shared machine
def test_a_restarted_gateway_reattaches_to_the_pending_approval(sidecar: RunningSidecar, tmp_path: Path) -> None:
    """The request id is derived from the call, not kept in the gateway: kill -9 the gateway, start a new one,
    and the same tools/call finds the same approval; once its one answer is used, the next identical call is
    a new request, which a further restart finds again."""
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    config = write_config(tmp_path, sidecar.sidecar.target, approval_wait="0.2s")
    token = sidecar.issue(PrincipalKind.AGENT, AGENT)
    args = {"env": "prod", "version": "7"}

    def gateway_process(*between: Callable[[], None]) -> list[Any]:
        """One gateway process (killed with SIGKILL afterwards): the call, then each step and the call again."""
        proc, url = start_http_gateway(config, tmp_path)
        try:

            async def go() -> list[Any]:
                async with http_session(url, token) as s:
                    results = [await s.call_tool("deploy", args)]
                    for step in between:
                        await anyio.to_thread.run_sync(step)
                        results.append(await s.call_tool("deploy", args))
                    return results

            results: list[Any] = run(go)
            return results
        finally:
            stop_gateway(proc, kill=True)

    def waiting_for(result: Any) -> str:
        m = re.search(r"waiting for human approval (apr_[0-9a-f]+)", text_of(result))
        assert result.is_error and m, text_of(result)
        return m.group(1)

    (before,) = gateway_process()
    first = waiting_for(before)
    (approval,) = pending_approvals(sidecar)
    assert approval.approval_id == first and approval.request_id.startswith("mcp-")

    def approve() -> None:
        sidecar.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=first, approve=True))

    after_restart, approved, next_one = gateway_process(approve, lambda: None)
    assert waiting_for(after_restart) == first  # a new gateway process: the same request, not a second one
    assert not approved.is_error, text_of(approved)
    assert approved.meta is not None and approved.meta[META]["approval_id"] == first
    second = waiting_for(next_one)  # the approval granted one call: the next identical one asks anew
    assert second != first

    (again,) = gateway_process()
    assert waiting_for(again) == second  # a cold gateway finds that one, past the used approval
    approvals = sidecar.stub.ListApprovals(pb.ListApprovalsRequest(agent_id=AGENT)).approvals
    assert sorted(a.approval_id for a in approvals) == sorted([first, second])
    assert len(upstream_calls(tmp_path)) == 1
