"""The Python client's test kit and knobs: `outrider.testing.FakeSidecar` (real gRPC, in process) for users'
own tests, an injected channel, and `retry` retrying transport errors only by default."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import grpc
import pytest

from outrider import Client, retry
from outrider.errors import InvalidArgumentError, UnavailableError
from outrider.testing import FakeSidecar


def test_rules_answer_in_order_and_calls_are_recorded() -> None:
    with FakeSidecar() as fake:
        fake.allow("deploy_staging")
        fake.block("deploy*", reason="frozen until Monday", guardrail="freeze")
        with fake.client() as client:
            assert client.check_action("bot-1", "deploy_staging", {"v": 1}).allowed
            blocked = client.check_action("bot-1", "deploy_prod", {"v": 2}, request_id="r-2")
            assert not blocked.allowed and blocked.reason == "frozen until Monday" and blocked.guardrail == "freeze"
            assert client.check_action("bot-1", "read").allowed  # no rule: allowed
        assert [(c.action, c.context) for c in fake.calls] == [
            ("deploy_staging", {"v": 1}),
            ("deploy_prod", {"v": 2}),
            ("read", {}),
        ]
        assert fake.calls[1].request_id == "r-2"


def test_an_approval_pauses_then_re_attaches_with_the_edit() -> None:
    with FakeSidecar() as fake:
        fake.require_approval("deploy")
        channel = grpc.insecure_channel(fake.target)  # an injected channel: the client uses it as it is
        client = Client(channel=channel)
        first = client.check_action("bot-1", "deploy", {"env": "prod"}, request_id="c-1", wait=False)
        assert first.pending and first.approval_id.startswith("apr_")
        fake.approve(first.approval_id, edited={"env": "staging"})
        again = client.check_action("bot-1", "deploy", {"env": "prod"}, request_id="c-1", wait=False)
        assert again.allowed and again.effective_context == {"env": "staging"}
        assert len(fake.approvals) == 1
        client.close()  # leaves the caller's channel open
        assert Client(channel=channel).check_action("bot-1", "read").allowed
        channel.close()


def test_a_waiting_call_is_held_until_rejected() -> None:
    with FakeSidecar() as fake, fake.client() as client:
        fake.require_approval("deploy")
        answers: list[Any] = []
        waiting = threading.Thread(target=lambda: answers.append(client.check_action("bot-1", "deploy", {})))
        waiting.start()
        approval = fake.wait_for_approval(timeout=30)
        fake.reject(approval.approval_id, comment="not today", by="ana")
        waiting.join(30)
        (answer,) = answers
        assert not answer.allowed and answer.reason == "Rejected by ana: not today"


def test_the_async_client_and_the_langchain_guard_run_on_the_fake() -> None:
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import tool
    from langgraph.graph import START, MessagesState, StateGraph

    from outrider.integrations.langchain import OutriderMiddleware

    @tool
    def wipe(path: str) -> str:
        """Delete a path."""
        raise AssertionError("a blocked tool must not run")

    async def go() -> None:
        with FakeSidecar() as fake:
            fake.block("wipe", reason="never", guardrail="keep")
            async with fake.async_client() as client:
                assert not (await client.check_action("bot-1", "wipe", {"path": "/"})).allowed
                g = StateGraph(MessagesState)
                g.add_node("tools", OutriderMiddleware(client, "bot-1").tool_node([wipe]))
                g.add_edge(START, "tools")
                call = {"name": "wipe", "args": {"path": "/"}, "id": "t-1", "type": "tool_call"}
                out = await g.compile().ainvoke({"messages": [_ai(call)]})
                (msg,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
                assert msg.status == "error" and "Blocked by Outrider (keep): never" in str(msg.content)

    anyio.run(go)


def _ai(call: dict[str, Any]) -> Any:
    from langchain_core.messages import AIMessage

    return AIMessage(content="", tool_calls=[call])


def test_retry_retries_transport_errors_only_by_default() -> None:
    tries: list[str] = []

    @retry(max_attempts=3, base=0, sleep=lambda _: None)
    def bad_input() -> None:
        tries.append("bad")
        raise InvalidArgumentError("context is too big", field="context")

    with pytest.raises(InvalidArgumentError):
        bad_input()
    assert tries == ["bad"]  # the same request fails the same way: not retried

    fake = FakeSidecar().start()
    target = fake.target
    fake.stop()  # nobody listens there any more: UNAVAILABLE, a transport error

    @retry(max_attempts=3, base=0, sleep=lambda _: None)
    def unreachable() -> None:
        tries.append("down")
        with Client(target, "t", timeout=5) as client:
            client.check_action("bot-1", "read", wait=False)

    with pytest.raises(UnavailableError):
        unreachable()
    assert tries == ["bad", "down", "down", "down"]
