"""What a CheckAction waiting for a person keeps in memory, and where the approval intake writes: a burst
parks thousands of such calls at once (issue 30's approval-burst row), so each must hold no more than it
needs. Real sidecar, real gRPC; no timing assertions."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

import grpc

from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.approvals.requests import Approval
from server.rpc.auth import AuthInterceptor, RateLimiter
from server.rpc.hygiene import HygieneInterceptor
from server.rpc.idempotency import REMEMBERED, IdempotencyInterceptor
from server.rpc.wrapped import LIMIT, Wrapped
from server.services.approvals.requests import INTAKE_THREAD

from .harness import RunningSidecar, make_config
from .rpc import check, guardrail

PENDING = supervisor_pb2.APPROVAL_STATE_PENDING


class _Details(NamedTuple):
    method: str
    invocation_metadata: tuple[tuple[str, str], ...]


def _waiting(s: RunningSidecar, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while s.services.approvals.waiting_count() < n:
        assert time.monotonic() < deadline, f"{s.services.approvals.waiting_count()} waiting, expected {n}"
        time.sleep(0.02)


def _objects(kind: type) -> list[Any]:
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, kind)]


def test_a_waiting_call_holds_no_copy_of_its_request(tmp_path: Path) -> None:
    """Once its request is stored, a waiting CheckAction keeps the request's id and version, not the
    request: no Approval and no masked copy of its context stays in memory while it waits."""
    marker = "burst-marker-" + tmp_path.name
    with RunningSidecar(make_config(tmp_path)) as s:
        s.stub.AddGuardrail(guardrail("ask", "hitl", patterns=["deploy"]))
        agent = s.as_agent("burst-agent-1")
        calls = [
            agent.stub.CheckAction.future(
                check("burst-agent-1", "deploy", {"marker": marker, "i": i, "password": "hunter2"}, request_id=f"r{i}")
            )
            for i in range(5)
        ]
        _waiting(s, 5)
        stored = list(s.stub.ListApprovals(pb.ListApprovalsRequest(state=PENDING, page_size=100)).approvals)
        assert len(stored) == 5
        ids = {a.approval_id for a in stored}
        held = [a for a in _objects(Approval) if a.approval_id in ids]
        masked = [
            d
            for d in _objects(dict)
            if d.get("marker") == marker and d.get("password") == "***"  # the stored (masked) form
        ]
        assert held == [] and masked == []
        for a in stored:  # and the calls still get their answer
            s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=a.approval_id, approve=True))
        assert all(c.result(60).allowed for c in calls)


def test_the_intake_writes_on_its_own_thread(tmp_path: Path) -> None:
    """New requests are written by the intake's own thread, not the event loop's default executor (which
    every other RPC's storage work shares)."""
    with RunningSidecar(make_config(tmp_path)) as s:
        s.stub.AddGuardrail(guardrail("ask", "hitl", patterns=["deploy"]))
        approvals = s.services.approvals
        seen: list[str] = []
        original = approvals._request_many

        def spy(asks: Any) -> None:
            seen.append(threading.current_thread().name)
            original(asks)

        approvals._request_many = spy
        agent = s.as_agent("burst-agent-2")
        call = agent.stub.CheckAction.future(check("burst-agent-2", "deploy", request_id="r1"))
        _waiting(s, 1)
        assert seen and all(name.startswith(INTAKE_THREAD) for name in seen), seen
        [a] = s.stub.ListApprovals(pb.ListApprovalsRequest(state=PENDING)).approvals
        s.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=a.approval_id, approve=False, comment="no"))
        assert not call.result(60).allowed


def test_interceptors_wrap_a_method_once_not_per_call() -> None:
    """Calls of the same method share one wrapped handler per interceptor (each waiting call used to keep
    its own namedtuple and closures)."""

    async def echo(request: Any, context: Any) -> Any:
        return request

    handler = grpc.unary_unary_rpc_method_handler(echo, request_deserializer=bytes, response_serializer=bytes)
    details = _Details("/outrider.v1.SupervisorService/CheckAction", ())

    async def continuation(_: Any) -> Any:
        return handler

    async def twice(interceptor: Any) -> tuple[Any, Any]:
        return (
            await interceptor.intercept_service(continuation, details),
            await interceptor.intercept_service(continuation, details),
        )

    auth = AuthInterceptor(access=None, limiter=RateLimiter(1.0, 1), enabled=True, mtls=False)  # type: ignore[arg-type]
    for interceptor in (HygieneInterceptor(), auth):
        first, second = asyncio.run(twice(interceptor))
        assert first is second and first is not handler and first.unary_unary is not echo
    details = _Details(next(iter(REMEMBERED)), ())  # a method the idempotency layer wraps
    first, second = asyncio.run(twice(IdempotencyInterceptor(None)))  # type: ignore[arg-type]
    assert first is second and first.unary_unary is not echo


def test_the_wrapped_handlers_are_bounded() -> None:
    """A handler factory returning a new handler per call cannot grow the cache without bound."""
    wrapped = Wrapped()
    assert wrapped.get(("m", "h"), list) is wrapped.get(("m", "h"), list)
    built = [wrapped.get(("m", object()), object) for _ in range(LIMIT + 50)]
    assert len(wrapped) == LIMIT and len({id(b) for b in built}) == LIMIT + 50
    assert wrapped.get(("m", []), lambda: "built per call") == "built per call"  # unhashable: not cached
