"""The Python client's shared core against a real sidecar, in both flavours: answers as enums that still
equal the old strings, integers read back as integers, `watch` on a server stream, and the TransportError
branch for a sidecar that gives no answer (unreachable, or silent past the deadline) kept apart from the
sidecar's own answers, also in the Agent helper's re-attach loop."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from outrider import (
    Agent,
    ApprovalState,
    AsyncAgent,
    AsyncClient,
    Client,
    DeadlineExceededError,
    InvalidArgumentError,
    NotFoundError,
    Severity,
    SidecarTimeoutError,
    SidecarUnreachableError,
    StopReason,
    TransportError,
    UnauthenticatedError,
    UnavailableError,
)
from outrider._base import BaseClient
from outrider.v1 import supervisor_pb2 as spb
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind
from server.domain.approvals.requests import Reviewer

from .harness import RunningSidecar, make_config
from .recovery_sim import eventually
from .rpc import guardrail


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def nowhere() -> str:
    return f"127.0.0.1:{free_port()}"


@pytest.fixture
def op(sidecar: RunningSidecar) -> Iterator[Client]:
    with Client(sidecar.sidecar.target, sidecar.operator_secret, timeout=5) as c:
        yield c


CONTEXT = {"n": 3, "neg": -7, "x": 0.5, "nested": {"k": [1, 2.5, {"deep": 40}]}, "big": 2.0**60, "s": "a"}


def assert_json_like(got: dict[str, Any]) -> None:
    assert got == CONTEXT
    assert type(got["n"]) is int and type(got["neg"]) is int and type(got["nested"]["k"][2]["deep"]) is int
    assert type(got["x"]) is float and type(got["big"]) is float  # beyond 2**53 a double is not an exact integer


def test_both_flavours_answer_with_enums_equal_to_the_old_strings(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
    sidecar.stub.AddGuardrail(guardrail("w", "action_list", deny=["noisy"], mode="warn"))
    assert issubclass(Client, BaseClient) and issubclass(AsyncClient, BaseClient)
    with Client(sidecar.sidecar.target, sidecar.operator_secret) as c:
        blocked = c.check_action("a1", "pay", {"cost": 140})
        warned = c.check_action("a1", "noisy", {"cost": 1})
        fine = c.check_action("a1", "read", CONTEXT)

    async def async_answers() -> list[Any]:
        async with AsyncClient(sidecar.sidecar.target, sidecar.operator_secret) as ac:
            return [await ac.check_action("a1", "pay", {"cost": 140}), await ac.check_action("a1", "read", CONTEXT)]

    async_blocked, async_fine = asyncio.run(async_answers())
    for r in (blocked, async_blocked):
        assert r.severity is Severity.BLOCK and r.severity == "BLOCK" and f"{r.severity}" == "BLOCK"
        assert r.approval_state is ApprovalState.NONE and r.approval_state == "" and not r.approval_state
    assert warned.severity is Severity.WARNING and warned.allowed
    for r in (fine, async_fine):
        assert r.severity is Severity.INFO and r.allowed
        assert_json_like(r.effective_context)


def test_an_approvers_edited_context_and_the_state_come_back_typed(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    approvals = sidecar.services.approvals

    def approve_with_edits() -> None:
        eventually(lambda: bool(approvals.pending()), what="the approval request")
        approvals.decide(approvals.pending()[0].approval_id, Reviewer("alice", "approver"), True, "ok", CONTEXT)

    t = threading.Thread(target=approve_with_edits)
    t.start()
    with Client(sidecar.sidecar.target, sidecar.operator_secret) as c:
        r = c.check_action("a1", "deploy", {"v": 1}, attach_interval=0.5)
    t.join()
    assert r.approval_state is ApprovalState.APPROVED and r.approval_state == "APPROVED" and r.allowed
    assert_json_like(r.effective_context)


def pending_approval(c: Client, request_id: str) -> str:
    r = c.check_action("a1", "deploy", {"v": 1}, request_id=request_id, wait=False)
    assert r.pending and r.approval_state is ApprovalState.PENDING
    return r.approval_id


def test_watch_in_both_flavours_follows_an_approval_until_it_closes(sidecar: RunningSidecar, op: Client) -> None:
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    approvals = sidecar.services.approvals
    first, second = pending_approval(op, "r-1"), pending_approval(op, "r-2")

    states: list[int] = []
    for message in op.watch(op.supervisor.WatchApproval, pb.WatchApprovalRequest(approval_id=first), timeout=10):
        states.append(message.approval.state)
        if len(states) == 1:
            approvals.decide(first, Reviewer("alice", "approver"), False, "no")
    assert states == [spb.APPROVAL_STATE_PENDING, spb.APPROVAL_STATE_REJECTED]  # and the stream ended

    async def watch_async() -> list[int]:
        seen: list[int] = []
        async with AsyncClient(sidecar.sidecar.target, sidecar.operator_secret) as ac:
            request = pb.WatchApprovalRequest(approval_id=second)
            async for message in ac.watch(ac.supervisor.WatchApproval, request, timeout=10):
                seen.append(message.approval.state)
                if len(seen) == 1:
                    await asyncio.to_thread(approvals.decide, second, Reviewer("bob", "approver"), True, "yes")
            with pytest.raises(NotFoundError):
                async for _ in ac.watch(ac.supervisor.WatchApproval, pb.WatchApprovalRequest(approval_id="nope")):
                    pass
        return seen

    assert asyncio.run(watch_async()) == [spb.APPROVAL_STATE_PENDING, spb.APPROVAL_STATE_APPROVED]
    with pytest.raises(NotFoundError):
        list(op.watch(op.supervisor.WatchApproval, pb.WatchApprovalRequest(approval_id="nope")))


def test_leaving_a_watch_early_cancels_the_stream(sidecar: RunningSidecar, op: Client) -> None:
    """The approval stays pending, so the sidecar's stream would wait for a change for ever: leaving the
    loop ends the call (watch cancels it), which the sidecar sees as its waiter going away."""
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    approvals = sidecar.services.approvals
    approval_id = pending_approval(op, "r-1")
    before = approvals.waiting_count()
    stream = op.watch(op.supervisor.WatchApproval, pb.WatchApprovalRequest(approval_id=approval_id))
    assert next(stream).approval.state == spb.APPROVAL_STATE_PENDING
    eventually(lambda: approvals.waiting_count() == before + 1, what="the sidecar waiting for a change")
    stream.close()
    eventually(lambda: approvals.waiting_count() == before, what="the stream cancelled", timeout=30)
    assert op.check_action("a1", "deploy", request_id="r-1", wait=False).pending  # the channel is still good


def test_an_unreachable_sidecar_is_a_transport_error_in_both_flavours(nowhere: str) -> None:
    request = pb.ListGuardrailsRequest()
    with Client(nowhere, "otr_x", timeout=5) as c:
        with pytest.raises(SidecarUnreachableError) as err:
            c.call(c.supervisor.ListGuardrails, request)
        with pytest.raises(SidecarUnreachableError):
            c.check_action("a1", "pay", wait=False)
        with pytest.raises(SidecarUnreachableError):
            list(c.watch(c.supervisor.WatchApproval, pb.WatchApprovalRequest(approval_id="x")))
    e = err.value
    assert isinstance(e, TransportError) and isinstance(e, UnavailableError)  # `except UnavailableError` still works
    assert (e.reason, e.field) == ("", "") and "connect" in e.message

    async def go() -> list[BaseException]:
        async with AsyncClient(nowhere, "otr_x", timeout=5) as ac:
            errors: list[BaseException] = []
            for attempt in (
                ac.call(ac.supervisor.ListGuardrails, request),
                ac.check_action("a1", "pay", wait=False),
            ):
                try:
                    await attempt
                except Exception as exc:
                    errors.append(exc)
            try:
                async for _ in ac.watch(ac.supervisor.WatchApproval, pb.WatchApprovalRequest(approval_id="x")):
                    pass
            except Exception as exc:
                errors.append(exc)
            return errors

    assert [type(x) for x in asyncio.run(go())] == [SidecarUnreachableError] * 3


def test_the_sidecars_own_answers_are_not_transport_errors(sidecar: RunningSidecar, op: Client) -> None:
    with pytest.raises(InvalidArgumentError) as bad:
        op.check_action("a1", "")
    with Client(sidecar.sidecar.target, "otr_wrong") as c, pytest.raises(UnauthenticatedError) as unauth:
        c.check_action("a1", "pay")
    for e in (bad.value, unauth.value):
        assert not isinstance(e, TransportError) and e.reason


def test_no_answer_before_the_deadline_is_a_timeout_not_the_approval_timeout(sidecar: RunningSidecar) -> None:
    """A blocking CheckAction the sidecar holds (a person must decide) past the call's deadline: the sidecar
    never answered, so SidecarTimeoutError (still a DeadlineExceededError). check_action's own
    `approval_timeout` is a DeadlineExceededError raised by the client: not a transport error."""
    sidecar.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
    blocking = pb.CheckActionRequest(agent_id="a1", action="deploy", request_id="r-1", wait_mode=pb.WAIT_MODE_BLOCKING)
    with Client(sidecar.sidecar.target, sidecar.operator_secret) as c:
        with pytest.raises(SidecarTimeoutError) as silent:
            c.call(c.supervisor.CheckAction, blocking, timeout=0.3)
        assert isinstance(silent.value, DeadlineExceededError) and isinstance(silent.value, TransportError)
        with pytest.raises(DeadlineExceededError) as waited:
            c.check_action("a1", "deploy", request_id="r-1", approval_timeout=0.5, attach_interval=0.2)
        assert not isinstance(waited.value, TransportError) and "stays pending" in waited.value.message

    async def go() -> BaseException:
        async with AsyncClient(sidecar.sidecar.target, sidecar.operator_secret) as ac:
            try:
                await ac.call(ac.supervisor.CheckAction, blocking, timeout=0.3)
            except Exception as exc:
                return exc
        raise AssertionError("the call returned")

    assert type(asyncio.run(go())) is SidecarTimeoutError


def test_the_agent_helpers_keep_re_attaching_to_an_unreachable_sidecar(nowhere: str) -> None:
    """The re-attach loop (written once, in BaseAgent) treats "no answer" as passing: it keeps trying
    with backoff and records the transport error, in both flavours."""
    with Client(nowhere, "otr_x") as c:
        agent = Agent(c, "a1", reconnect_base=0.01, reconnect_max=0.05).start()  # no wait: it never connects
        try:
            eventually(lambda: agent.backoff.failures >= 3, what="three attempts")
            assert isinstance(agent.error, SidecarUnreachableError)
            assert not agent.stopped_because and agent.connects == 0 and not agent.connected
        finally:
            agent.close()
        assert agent.stopped_because is StopReason.CLOSED

    async def go() -> tuple[Any, ...]:
        async with AsyncClient(nowhere, "otr_x") as ac:
            aagent = await AsyncAgent(ac, "a1", reconnect_base=0.01, reconnect_max=0.05).start()
            try:
                for _ in range(500):
                    if aagent.backoff.failures >= 3:
                        break
                    await asyncio.sleep(0.01)
                return aagent.error, aagent.stopped_because, aagent.backoff.failures
            finally:
                await aagent.close()

    error, stopped, failures = asyncio.run(go())
    assert isinstance(error, SidecarUnreachableError) and stopped is StopReason.NONE and failures >= 3


def test_a_sidecar_stopping_under_an_open_watch_is_a_transport_error(tmp_path: Path) -> None:
    s = RunningSidecar(make_config(tmp_path))
    running = True
    try:
        s.stub.AddGuardrail(guardrail("", "hitl", patterns=["deploy"]))
        with Client(s.sidecar.target, s.operator_secret) as c:
            approval_id = pending_approval(c, "r-1")
            stream = c.watch(c.supervisor.WatchApproval, pb.WatchApprovalRequest(approval_id=approval_id))
            assert next(stream).approval.state == spb.APPROVAL_STATE_PENDING
            s.stop()
            running = False
            with pytest.raises(TransportError):
                next(stream)
    finally:
        if running:
            s.stop()


def test_an_agent_whose_stream_the_sidecar_ends_with_unavailable_saw_an_answer(sidecar: RunningSidecar) -> None:
    from server.domain.errors import Unavailable

    from .recovery_sim import register

    register(sidecar, "a1")
    hub = sidecar.services.recovery.hub
    with (
        Client(sidecar.sidecar.target, sidecar.issue(PrincipalKind.AGENT, "a1")) as c,
        Agent(c, "a1", reconnect_base=1.0) as agent,
    ):
        sidecar.loop.call_soon_threadsafe(hub.end_stream, "a1", Unavailable("dropped by the test"))
        eventually(lambda: agent.error is not None, what="the stream end")
        assert isinstance(agent.error, UnavailableError) and not isinstance(agent.error, TransportError)
