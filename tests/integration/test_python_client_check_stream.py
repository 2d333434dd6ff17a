"""The Python client's check stream (`client.check_stream()`) against a real sidecar, in both flavours:
many threads (tasks) on one CheckActions stream answered as the unary call answers, a check's own error
raised as the unary call raises it, a broken stream failing every waiting check and never reused, a
per-check timeout, and close() waiting for the answers still due."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest

from outrider import (
    AsyncClient,
    CheckResult,
    Client,
    DeadlineExceededError,
    InternalError,
    InvalidArgumentError,
    OutriderError,
    PermissionDeniedError,
    ResourceExhaustedError,
    SidecarUnreachableError,
    UnauthenticatedError,
)
from outrider.v1 import access_service_pb2 as apb
from server.domain.access.principals import PrincipalKind

from .harness import RunningSidecar
from .rpc import guardrail
from .test_approvals import decide, hitl, pending
from .test_check_actions_stream import stored
from .test_python_client_core import free_port

CALLS = [("read", {"cost": 1}), ("shell.exec", {}), ("write", {"cost": 140})]


def chain(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
    s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))


def agent_client(s: RunningSidecar, agent_id: str = "worker-1") -> Client:
    return Client(s.sidecar.target, s.issue(PrincipalKind.AGENT, agent_id), timeout=5)


def verdict(r: CheckResult) -> tuple[Any, ...]:
    return (r.allowed, r.reason, r.severity, r.guardrail, r.approval_state)


def raised(call: Any) -> OutriderError:
    with pytest.raises(OutriderError) as info:
        call()
    return info.value


def same_error(a: OutriderError, b: OutriderError) -> None:
    assert (type(a), a.code, a.reason, a.field, a.message) == (type(b), b.code, b.reason, b.field, b.message)


def test_many_threads_share_one_stream_and_get_the_unary_answers(sidecar: RunningSidecar) -> None:
    chain(sidecar)
    with agent_client(sidecar) as c, c.check_stream() as stream:
        unary = [verdict(c.check_action("worker-1", a, ctx)) for a, ctx in CALLS]
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda i: stream.check("worker-1", *CALLS[i % 3]), range(60)))
        assert [verdict(r) for r in got] == [unary[i % 3] for i in range(60)]
        assert len({r.decision_id for r in got}) == 60
        first = stream._session
        assert first is not None and not first.ended
        # A check's own failure raises what the unary call raises, and the stream goes on.
        for bad in (lambda s: s("worker-1", ""), lambda s: s("worker-1", "x" * 2000), lambda s: s("worker-1", "a\x00")):
            same_error(raised(lambda: bad(stream.check)), raised(lambda: bad(c.check_action)))  # noqa: B023
        err = raised(lambda: stream.check("worker-1", ""))
        assert isinstance(err, InvalidArgumentError) and (err.field, err.reason) == ("action", "INVALID_FIELD")
        assert err.metadata == {"field": "action"}
        assert stream.check("worker-1", "read").allowed
        assert stream._session is first  # one stream all along
        # A check's traceparent is its decision's trace (stored with the decision).
        r = stream.check("worker-1", "read", traceparent=f"00-{'ab' * 16}-{'cd' * 8}-01")
    assert {d.decision_id: d.trace_id for d in stored(sidecar, "worker-1")}[r.decision_id] == "ab" * 16


def test_another_agents_check_breaks_the_stream_for_every_waiting_check_and_the_next_opens_a_new_one(
    sidecar: RunningSidecar,
) -> None:
    hitl(sidecar)
    with agent_client(sidecar) as c, c.check_stream() as stream:
        waiting: dict[str, OutriderError] = {}

        def deploy() -> None:
            waiting["err"] = raised(lambda: stream.check("worker-1", "deploy", request_id="job-1"))

        t = threading.Thread(target=deploy)
        t.start()
        pending(sidecar, 1)  # the deploy waits for a person on the stream
        broken = stream._session
        denied = raised(lambda: stream.check("someone-else", "read"))
        t.join(10)
        unary = raised(lambda: c.check_action("someone-else", "read"))
        assert (type(denied), denied.code, denied.reason) == (type(unary), unary.code, unary.reason)
        # The stream's own status, as the sidecar sent it: the field is one of the stream's request.
        assert isinstance(denied, PermissionDeniedError) and denied.reason == "NOT_YOUR_AGENT"
        assert denied.field == "check.agent_id"
        # The waiting check fails with the stream's error; its approval stays pending.
        same_error(waiting["err"], denied)
        assert broken is not None and broken.ended
        # The next check opens a new stream, and re-attaches to the approval by its request id.
        r = stream.check("worker-1", "deploy", request_id="job-1", wait=False)
        assert r.pending and stream._session is not broken
        [a] = pending(sidecar, 1)
        assert r.approval_id == a.approval_id


def test_streams_breaking_under_many_threads_leave_no_check_hanging(sidecar: RunningSidecar) -> None:
    with agent_client(sidecar) as c, c.check_stream() as stream:

        def worker(n: int) -> list[str]:
            out = []
            for i in range(15):
                agent = "someone-else" if (n + i) % 11 == 10 else "worker-1"  # breaks the stream now and then
                try:
                    out.append("ok" if stream.check(agent, "read", timeout=10).allowed else "blocked")
                except PermissionDeniedError as err:
                    assert err.reason == "NOT_YOUR_AGENT"
                    out.append("denied")
            return out

        with ThreadPoolExecutor(12) as pool:
            outcomes = [o for f in [pool.submit(worker, n) for n in range(12)] for o in f.result(30)]
        assert len(outcomes) == 180 and "blocked" not in outcomes
        intruders = sum(1 for n in range(12) for i in range(15) if (n + i) % 11 == 10)
        assert outcomes.count("denied") >= intruders  # every other-agent check, and those caught in a break
        assert stream.check("worker-1", "read").allowed  # a fresh stream after the last break


def test_a_check_waiting_for_a_person_holds_up_no_other_and_close_waits_for_it(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    results: list[CheckResult] = []
    with Client(sidecar.sidecar.target, sidecar.operator_secret, timeout=5) as c:
        stream = c.check_stream()
        t = threading.Thread(target=lambda: results.append(stream.check("worker-1", "deploy", {"v": 1})))
        t.start()
        [a] = pending(sidecar, 1)
        assert [stream.check(f"agent-{i}", "read").allowed for i in range(5)] == [True] * 5  # an operator: any agent
        assert results == []
        closer = threading.Thread(target=stream.close)
        closer.start()  # half-closes; returns once the deploy is answered
        closer.join(0.3)
        assert closer.is_alive() and results == []
        decide(sidecar, a.approval_id, True, "ship it")
        closer.join(10)
        t.join(10)
        assert not closer.is_alive()
        [r] = results
        assert (r.allowed, r.approval_state, r.approval_id) == (True, "APPROVED", a.approval_id)
        with pytest.raises(ValueError, match="closed"):
            stream.check("worker-1", "read")


def test_a_timeout_gives_up_on_one_check_and_the_stream_goes_on(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    with agent_client(sidecar) as c, c.check_stream() as stream:
        err = raised(lambda: stream.check("worker-1", "deploy", request_id="job-9", timeout=0.3))
        assert type(err) is DeadlineExceededError and "job-9" in err.message
        assert stream.check("worker-1", "read").allowed
        [a] = pending(sidecar, 1)
        decide(sidecar, a.approval_id, False, "no")  # its late answer is dropped
        assert stream.check("worker-1", "deploy", request_id="job-9").reason.startswith("Rejected")
        # close() does not wait for a check whose caller gave up.
        raised(lambda: stream.check("worker-1", "deploy", request_id="job-10", timeout=0.2))
        closer = threading.Thread(target=stream.close)
        closer.start()
        closer.join(5)
        assert not closer.is_alive()


def test_closing_the_client_fails_the_waiting_checks_in_both_flavours(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    c = Client(sidecar.sidecar.target, sidecar.operator_secret, timeout=5)
    stream = c.check_stream()
    errors: list[OutriderError] = []
    t = threading.Thread(target=lambda: errors.append(raised(lambda: stream.check("w", "deploy"))))
    t.start()
    pending(sidecar, 1)
    c.close()
    t.join(5)
    assert not t.is_alive() and [e.code for e in errors] == [grpc.StatusCode.CANCELLED]

    async def go() -> OutriderError:
        ac = AsyncClient(sidecar.sidecar.target, sidecar.operator_secret, timeout=5)
        s = ac.check_stream()
        waiting = asyncio.ensure_future(s.check("w", "deploy"))
        await asyncio.to_thread(pending, sidecar, 2)
        await ac.close()
        with pytest.raises(OutriderError) as err:
            await asyncio.wait_for(waiting, 30)
        return err.value

    assert asyncio.run(go()).code == grpc.StatusCode.CANCELLED


def test_a_revoked_credential_ends_the_stream_with_unauthenticated(sidecar: RunningSidecar) -> None:
    secret, token = sidecar.services.access.issue(PrincipalKind.AGENT, "worker-1", "t", "test")
    with Client(sidecar.sidecar.target, secret, timeout=5) as c, c.check_stream() as stream:
        assert stream.check("worker-1", "read").allowed
        sidecar.as_operator("root", admin=True).access.RevokeToken(apb.RevokeTokenRequest(token_id=token.token_id))
        with pytest.raises(UnauthenticatedError):
            stream.check("worker-1", "read")
        with pytest.raises(UnauthenticatedError):  # a new stream, refused too
            stream.check("worker-1", "read")


def test_the_in_flight_cap_answers_one_check_with_its_error(sidecar: RunningSidecar) -> None:
    hitl(sidecar)
    cap = sidecar.services.checks.max_inflight_per_agent
    with agent_client(sidecar) as c, c.check_stream() as stream, ThreadPoolExecutor(cap) as pool:
        # Unary calls waiting for a person hold every slot of the agent (streams and unary calls count together).
        waiting = [pool.submit(c.check_action, "worker-1", "deploy", request_id=f"j{i}") for i in range(cap)]
        pending(sidecar, cap)
        err = raised(lambda: stream.check("worker-1", "read"))
        assert isinstance(err, ResourceExhaustedError) and err.reason == "TOO_MANY_IN_FLIGHT"
        same_error(err, raised(lambda: c.check_action("worker-1", "read")))
        for a in pending(sidecar, cap):
            decide(sidecar, a.approval_id, True, "ok")
        assert all(f.result(10).allowed for f in waiting)
        assert stream.check("worker-1", "read").allowed


def test_an_unreachable_sidecar_is_a_transport_error() -> None:
    with (
        Client(f"127.0.0.1:{free_port()}", "otr_x", timeout=2) as c,
        c.check_stream() as stream,
        pytest.raises(SidecarUnreachableError),
    ):
        stream.check("worker-1", "read")


def test_the_async_stream(sidecar: RunningSidecar) -> None:
    chain(sidecar)
    hitl(sidecar)
    secret = sidecar.issue(PrincipalKind.AGENT, "worker-1")

    async def go() -> None:
        async with AsyncClient(sidecar.sidecar.target, secret, timeout=5) as c:
            unary = [verdict(await c.check_action("worker-1", a, ctx)) for a, ctx in CALLS]
            async with c.check_stream() as stream:
                got = await asyncio.gather(*(stream.check("worker-1", *CALLS[i % 3]) for i in range(30)))
                assert [verdict(r) for r in got] == [unary[i % 3] for i in range(30)]
                with pytest.raises(InvalidArgumentError) as bad:
                    await stream.check("worker-1", "")
                assert (bad.value.field, bad.value.reason) == ("action", "INVALID_FIELD")
                with pytest.raises(DeadlineExceededError):
                    await stream.check("worker-1", "deploy", request_id="a-1", timeout=0.2)
                # A check waiting for a person fails with the stream's error when another agent's check
                # breaks it; the next check opens a new stream.
                waiting = asyncio.ensure_future(stream.check("worker-1", "deploy", request_id="a-2"))
                await asyncio.to_thread(pending, sidecar, 2)
                first = stream._session
                with pytest.raises(PermissionDeniedError) as denied:
                    await stream.check("someone-else", "read")
                assert denied.value.reason == "NOT_YOUR_AGENT"
                with pytest.raises(PermissionDeniedError):
                    await waiting
                assert (await stream.check("worker-1", "read")).allowed and stream._session is not first
                # Cancelling a waiting check leaves the stream usable.
                cancelled = asyncio.ensure_future(stream.check("worker-1", "deploy", request_id="a-3"))
                await asyncio.to_thread(pending, sidecar, 3)
                cancelled.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await cancelled
                assert (await stream.check("worker-1", "read")).allowed
                # close() half-closes and waits for the answer still due.
                last = asyncio.ensure_future(stream.check("worker-1", "deploy", request_id="a-4"))
                [a4] = [a for a in await asyncio.to_thread(pending, sidecar, 4) if a.request_id == "a-4"]
                closing = asyncio.ensure_future(stream.close())
                await asyncio.sleep(0.3)
                assert not closing.done() and not last.done()
                await asyncio.to_thread(decide, sidecar, a4.approval_id, True, "ok")
                await asyncio.wait_for(closing, 10)
                assert last.done() and last.result().allowed
                with pytest.raises(ValueError, match="closed"):
                    await stream.check("worker-1", "read")

    asyncio.run(go())


def test_async_streams_breaking_under_many_tasks_leave_no_check_hanging(sidecar: RunningSidecar) -> None:
    secret = sidecar.issue(PrincipalKind.AGENT, "worker-1")

    async def worker(stream: Any, n: int) -> list[str]:
        out = []
        for i in range(6):
            try:
                r = await stream.check("someone-else" if (n + i) % 13 == 12 else "worker-1", "read")
                out.append("ok" if r.allowed else "blocked")
            except PermissionDeniedError:
                out.append("denied")
            except InternalError as exc:
                # grpc.aio: a request written just as the sidecar ended the stream fails in grpc core, and
                # grpc.aio then reports the call as INTERNAL "Internal error from Core" instead of the
                # sidecar's status (grpc/aio/_call.py, `_write`). Still an answer, never a hang.
                assert "Internal error from Core" in exc.message, exc
                out.append("broken")
        return out

    async def go() -> list[str]:
        async with AsyncClient(sidecar.sidecar.target, secret, timeout=5) as c, c.check_stream() as stream:
            done = await asyncio.wait_for(asyncio.gather(*(worker(stream, n) for n in range(20))), 30)
            assert (await stream.check("worker-1", "read")).allowed
            return [o for out in done for o in out]

    outcomes = asyncio.run(go())
    intruders = sum(1 for n in range(20) for i in range(6) if (n + i) % 13 == 12)
    assert len(outcomes) == 120 and "blocked" not in outcomes
    assert outcomes.count("denied") + outcomes.count("broken") >= intruders
    assert "ok" in outcomes
