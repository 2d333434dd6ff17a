"""`FakeSidecar`: a sidecar for your own tests, in process, over real gRPC on 127.0.0.1 (a free port).

    from outrider.testing import FakeSidecar

    def test_my_agent_stops_at_a_blocked_deploy() -> None:
        with FakeSidecar() as sidecar:
            sidecar.block("deploy*", reason="frozen")
            with sidecar.client() as client:          # or sidecar.async_client(), or Client(channel=...)
                assert not client.check_action("bot", "deploy_prod").allowed
            assert [c.action for c in sidecar.calls] == ["deploy_prod"]

It answers CheckAction from the rules you give (first match wins, by fnmatch pattern on the action; no
rule: allowed) and WatchApproval for the approvals it opened; everything else is UNIMPLEMENTED. An approval
behaves as the real sidecar's does from the client's side: the same request id re-attaches to it, `wait=True`
holds the call until you `approve` or `reject` it, an approval with `edited=` answers with the edited context
as `effective_context`. It checks no token and runs no guardrail: test your policy with `outrider policy
test`, and your code's handling of the answers with this.
"""

from __future__ import annotations

import fnmatch
import threading
import uuid
from collections.abc import Iterator, Mapping
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any, Literal

import grpc

from ._common import from_struct, to_struct
from .aio import AsyncClient
from .client import Client
from .v1 import common_pb2, supervisor_pb2, supervisor_service_pb2, supervisor_service_pb2_grpc

Answer = Literal["allow", "block", "approval"]


@dataclass(frozen=True)
class Call:
    """One CheckAction the fake received."""

    agent_id: str
    action: str
    context: dict[str, Any]
    request_id: str
    wait: bool


@dataclass
class FakeApproval:
    approval_id: str
    agent_id: str
    action: str
    context: dict[str, Any]
    request_id: str
    guardrail: str
    state: int = supervisor_pb2.APPROVAL_STATE_PENDING
    edited: dict[str, Any] | None = None
    comment: str = ""
    decided_by: str = ""

    def message(self) -> supervisor_pb2.Approval:
        a = supervisor_pb2.Approval(
            approval_id=self.approval_id,
            agent_id=self.agent_id,
            action=self.action,
            context=to_struct(self.context),
            guardrail=self.guardrail,
            request_id=self.request_id,
            state=self.state,  # type: ignore[arg-type]
            comment=self.comment,
            decided_by=self.decided_by,
        )
        if self.edited is not None:
            a.edited_context.CopyFrom(to_struct(self.edited))
        return a


@dataclass(frozen=True)
class _Rule:
    pattern: str
    answer: Answer
    reason: str
    guardrail: str


@dataclass
class _State:
    rules: list[_Rule] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    approvals: dict[str, FakeApproval] = field(default_factory=dict)
    by_request: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, request id) -> approval


class _Supervisor(supervisor_service_pb2_grpc.SupervisorServiceServicer):
    def __init__(self, state: _State, changed: threading.Condition) -> None:
        self.state, self.changed = state, changed

    def CheckAction(
        self, request: supervisor_service_pb2.CheckActionRequest, context: grpc.ServicerContext
    ) -> supervisor_service_pb2.CheckActionResponse:
        if not request.agent_id or not request.action:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "agent_id and action are required")
        args = from_struct(request.context)
        rid = request.request_id or uuid.uuid4().hex
        wait = request.wait_mode != supervisor_service_pb2.WAIT_MODE_NON_BLOCKING  # unset: blocking, as the sidecar
        with self.changed:
            self.state.calls.append(Call(request.agent_id, request.action, args, rid, wait))
            approval_id = self.state.by_request.get((request.agent_id, rid))
            if approval_id is None:
                rule = next((r for r in self.state.rules if fnmatch.fnmatchcase(request.action, r.pattern)), None)
                if rule is None or rule.answer == "allow":
                    return _answer(True, "", "", args)
                if rule.answer == "block":
                    return _answer(False, rule.reason, rule.guardrail, args)
                approval_id = f"apr_{uuid.uuid4().hex[:16]}"
                self.state.approvals[approval_id] = FakeApproval(
                    approval_id, request.agent_id, request.action, args, rid, rule.guardrail
                )
                self.state.by_request[(request.agent_id, rid)] = approval_id
                self.changed.notify_all()  # wake `wait_for_approval`
            approval = self.state.approvals[approval_id]
            if wait:
                left = context.time_remaining()
                self.changed.wait_for(
                    lambda: approval.state != supervisor_pb2.APPROVAL_STATE_PENDING,
                    timeout=None if left is None else max(0.0, left - 0.05),
                )
                if approval.state == supervisor_pb2.APPROVAL_STATE_PENDING:
                    context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "still waiting for a reviewer")
            return _decided(approval)

    def WatchApproval(
        self, request: supervisor_service_pb2.WatchApprovalRequest, context: grpc.ServicerContext
    ) -> Iterator[supervisor_service_pb2.WatchApprovalResponse]:
        with self.changed:
            found = self.state.approvals.get(request.approval_id)
            if found is None:
                context.abort(grpc.StatusCode.NOT_FOUND, f"no approval {request.approval_id!r}")
            approval: FakeApproval = found  # abort() raises
            first = approval.message()
        yield supervisor_service_pb2.WatchApprovalResponse(approval=first)
        while context.is_active():
            with self.changed:
                decided = self.changed.wait_for(
                    lambda: approval.state != supervisor_pb2.APPROVAL_STATE_PENDING, timeout=0.5
                )
                message = approval.message()
            if decided:
                yield supervisor_service_pb2.WatchApprovalResponse(approval=message)
                return


def _answer(
    allowed: bool, reason: str, guardrail: str, effective: Mapping[str, Any], approval: FakeApproval | None = None
) -> supervisor_service_pb2.CheckActionResponse:
    r = supervisor_service_pb2.CheckActionResponse(
        allowed=allowed,
        reason=reason,
        guardrail=guardrail,
        severity=common_pb2.SEVERITY_INFO if allowed else common_pb2.SEVERITY_BLOCK,
        decision_id=f"dec_{uuid.uuid4().hex[:16]}",
        effective_context=to_struct(dict(effective)),
    )
    if approval is not None:
        r.approval.CopyFrom(approval.message())
    return r


def _decided(a: FakeApproval) -> supervisor_service_pb2.CheckActionResponse:
    if a.state == supervisor_pb2.APPROVAL_STATE_PENDING:
        return _answer(False, f"Waiting for a human decision ({a.guardrail})", a.guardrail, a.context, a)
    if a.state == supervisor_pb2.APPROVAL_STATE_APPROVED:
        return _answer(True, "", "", a.edited if a.edited is not None else a.context, a)
    return _answer(False, f"Rejected by {a.decided_by}: {a.comment}", a.guardrail, a.context, a)


class FakeSidecar:
    """A SupervisorService on 127.0.0.1:<free port> answering from rules; see the module's docstring."""

    def __init__(self) -> None:
        self._state = _State()
        self._changed = threading.Condition()
        self._server: grpc.Server | None = None
        self.port = 0

    # --- life -----------------------------------------------------------------------------------------

    def start(self) -> FakeSidecar:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        supervisor_service_pb2_grpc.add_SupervisorServiceServicer_to_server(
            _Supervisor(self._state, self._changed),  # type: ignore[abstract]  # the rest answers UNIMPLEMENTED
            server,
        )
        self.port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        self._server = server
        return self

    def stop(self) -> None:
        if self._server is not None:
            with self._changed:  # wake held calls: they answer DEADLINE_EXCEEDED or their decision
                self._changed.notify_all()
            self._server.stop(grace=None)
            self._server = None

    def __enter__(self) -> FakeSidecar:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def target(self) -> str:
        if self._server is None:
            raise RuntimeError("the FakeSidecar is not started (use `with FakeSidecar() as sidecar:`)")
        return f"127.0.0.1:{self.port}"

    def client(self, **kw: Any) -> Client:
        """A `Client` on this fake (close it, or use `with`)."""
        return Client(self.target, kw.pop("token", "fake"), **kw)

    def async_client(self, **kw: Any) -> AsyncClient:
        """An `AsyncClient` on this fake; create it inside your event loop."""
        return AsyncClient(self.target, kw.pop("token", "fake"), **kw)

    # --- rules ----------------------------------------------------------------------------------------

    def _rule(self, pattern: str, answer: Answer, reason: str, guardrail: str) -> None:
        with self._changed:
            self._state.rules.append(_Rule(pattern, answer, reason, guardrail))

    def allow(self, pattern: str = "*") -> None:
        """Actions matching `pattern` are allowed (a rule before a broader block)."""
        self._rule(pattern, "allow", "", "")

    def block(self, pattern: str = "*", reason: str = "blocked by the fake sidecar", guardrail: str = "fake") -> None:
        """Actions matching `pattern` are blocked with `reason`, by `guardrail`."""
        self._rule(pattern, "block", reason, guardrail)

    def require_approval(self, pattern: str = "*", guardrail: str = "review") -> None:
        """Actions matching `pattern` wait for `approve` or `reject` (pending until then)."""
        self._rule(pattern, "approval", f"Waiting for a human decision ({guardrail})", guardrail)

    def clear(self) -> None:
        """Forget the rules, the calls and the approvals."""
        with self._changed:
            self._state.rules.clear()
            self._state.calls.clear()
            self._state.approvals.clear()
            self._state.by_request.clear()

    # --- what happened, and a reviewer's part ---------------------------------------------------------

    @property
    def calls(self) -> list[Call]:
        """Every CheckAction received, oldest first."""
        with self._changed:
            return list(self._state.calls)

    @property
    def approvals(self) -> list[FakeApproval]:
        with self._changed:
            return list(self._state.approvals.values())

    def wait_for_approval(self, timeout: float = 10.0) -> FakeApproval:
        """The first pending approval, waiting up to `timeout` seconds for one (TimeoutError)."""
        with self._changed:

            def pending() -> FakeApproval | None:
                return next(
                    (a for a in self._state.approvals.values() if a.state == supervisor_pb2.APPROVAL_STATE_PENDING),
                    None,
                )

            if not self._changed.wait_for(lambda: pending() is not None, timeout=timeout):
                raise TimeoutError(f"no approval was requested within {timeout:g}s")
            found = pending()
            assert found is not None
            return found

    def approve(self, approval_id: str, edited: Mapping[str, Any] | None = None, by: str = "reviewer") -> None:
        """Approve (with `edited` arguments, when given): held and later calls with its request id answer
        allowed, `effective_context` being the edit."""
        self._decide(approval_id, supervisor_pb2.APPROVAL_STATE_APPROVED, dict(edited) if edited else None, "", by)

    def reject(self, approval_id: str, comment: str = "", by: str = "reviewer") -> None:
        """Reject: the calls answer blocked with "Rejected by BY: COMMENT"."""
        self._decide(approval_id, supervisor_pb2.APPROVAL_STATE_REJECTED, None, comment, by)

    def _decide(self, approval_id: str, state: int, edited: dict[str, Any] | None, comment: str, by: str) -> None:
        with self._changed:
            a = self._state.approvals.get(approval_id)
            if a is None:
                raise KeyError(f"no approval {approval_id!r}")
            if a.state != supervisor_pb2.APPROVAL_STATE_PENDING:
                raise ValueError(f"approval {approval_id} is already decided")
            a.state, a.edited, a.comment, a.decided_by = state, edited, comment, by
            self._changed.notify_all()


__all__ = ["Call", "FakeApproval", "FakeSidecar"]
