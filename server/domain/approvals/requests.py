"""Human approval requests (the SupervisorAgent library's "Human approval", and beyond it: durable, timed,
multi-reviewer).

A request moves PENDING -> APPROVED | REJECTED | EXPIRED | CANCELLED exactly once; the first decision
stands. Every rule here is pure: storage, waiting and notification live in services/approvals.py.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from server.domain.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from server.domain.values import digest

SYSTEM = "system"


class ApprovalState(enum.IntEnum):
    # Values match outrider.v1.ApprovalState.
    PENDING = 1
    APPROVED = 2
    REJECTED = 3
    EXPIRED = 4
    CANCELLED = 5


@dataclass(frozen=True, slots=True)
class Vote:
    reviewer: str
    approve: bool
    comment: str
    decide_time: datetime


@dataclass(frozen=True, slots=True)
class Reviewer:
    """Someone deciding: a console user or an operator over gRPC. Roles: viewer < approver < admin."""

    name: str
    role: str
    groups: frozenset[str] = frozenset()

    @property
    def may_decide(self) -> bool:
        return self.role in ("approver", "admin")


@dataclass(frozen=True, slots=True)
class ApprovalPolicy:
    """The hitl guardrail's options that travel with each request it creates."""

    approvers: tuple[str, ...] = ()  # names and group:NAME; empty = any reviewer with the approver role
    timeout: float | None = None  # seconds; None = wait for ever (the source's semantics)
    on_timeout: str = "deny"  # "deny" or "escalate"
    escalate_to: tuple[str, ...] = ()
    escalate_timeout: float | None = None  # the escalation's own timeout (default: `timeout`)
    min_approvals: int = 1
    prevent_self_review: bool = False
    edits_require_approval: bool = False
    on_reuse: str = "block"  # an identical request after the approval was used: "block" or "ask_again"
    notify: tuple[str, ...] = ()  # notification channels that hear of this guardrail's requests


@dataclass(frozen=True, slots=True)
class Approval:
    approval_id: str
    agent_id: str
    action: str
    context: Mapping[str, Any]  # as stored: sensitive keys masked
    guardrail: str
    request_id: str
    trace_id: str
    digest: str
    state: ApprovalState
    create_time: datetime
    policy: ApprovalPolicy
    owner: str = ""  # the requesting agent's `owner` label (for prevent_self_review)
    approvers: tuple[str, ...] = ()  # who may decide now (the escalation replaces them)
    stage: int = 0  # 1 once escalated
    expire_time: datetime | None = None
    decide_time: datetime | None = None
    decided_by: str = ""
    comment: str = ""
    votes: tuple[Vote, ...] = ()
    warnings: tuple[tuple[str, str], ...] = ()
    edited_context: Mapping[str, Any] | None = None
    version: int = 0  # bumped on every change (optimistic concurrency)
    consume_time: datetime | None = None  # when its one allowed answer was delivered
    attempt: int = 0  # 1, 2, ... for the requests `on_reuse: ask_again` opened after this one was used
    # When the last call waiting on it went away while it was pending (None: someone waits, or nobody ever
    # did: a non-blocking check). See `abandoned_cancel`.
    abandoned_at: datetime | None = None

    @property
    def used(self) -> bool:
        return self.consume_time is not None

    @property
    def closed(self) -> bool:
        return self.state is not ApprovalState.PENDING


@dataclass(frozen=True, slots=True)
class ApprovalFilter:
    agent_id: str = ""
    action: str = ""
    state: ApprovalState | None = None
    reviewer: str = ""
    start_time: datetime | None = None
    end_time: datetime | None = None
    closed_only: bool = False  # decided, expired or cancelled (the history)


def approval_digest(action: str, context: Mapping[str, Any]) -> str:
    """What a reviewer approves: SHA-256 of the canonical JSON of the action and its context."""
    return digest({"action": action, "context": dict(context)})


def new_approval(
    approval_id: str,
    agent_id: str,
    action: str,
    context: Mapping[str, Any],
    stored_context: Mapping[str, Any],
    guardrail: str,
    request_id: str,
    trace_id: str,
    policy: ApprovalPolicy,
    owner: str,
    warnings: tuple[tuple[str, str], ...],
    now: datetime,
    attempt: int = 0,
    digest: str = "",
) -> Approval:
    """`digest`: `approval_digest(action, context)` when the caller has it already (computed once per request)."""
    expire = now + timedelta(seconds=policy.timeout) if policy.timeout else None
    return Approval(
        approval_id=approval_id,
        agent_id=agent_id,
        action=action,
        context=dict(stored_context),
        guardrail=guardrail,
        request_id=request_id,
        trace_id=trace_id,
        digest=digest or approval_digest(action, context),
        state=ApprovalState.PENDING,
        create_time=now,
        policy=policy,
        owner=owner,
        approvers=policy.approvers,
        expire_time=expire,
        warnings=warnings,
        attempt=attempt,
    )


def check_reviewer(approval: Approval, reviewer: Reviewer) -> None:
    if not reviewer.may_decide:
        raise PermissionDenied(
            f"{reviewer.name!r} has the {reviewer.role} role; deciding needs approver or admin",
            reason="NOT_AN_APPROVER",
        )
    if approval.approvers:
        allowed = reviewer.name in approval.approvers or any(
            f"group:{g}" in approval.approvers for g in reviewer.groups
        )
        if not allowed:
            raise PermissionDenied(
                f"{reviewer.name!r} is not among the approvers of this request ({', '.join(approval.approvers)})",
                reason="NOT_AN_APPROVER",
            )
    if approval.policy.prevent_self_review and approval.owner and reviewer.name == approval.owner:
        raise PermissionDenied(
            f"{reviewer.name!r} owns agent {approval.agent_id!r} and may not review its requests", reason="SELF_REVIEW"
        )


def decide(
    approval: Approval,
    reviewer: Reviewer,
    approve: bool,
    comment: str,
    edited_context: Mapping[str, Any] | None,
    now: datetime,
) -> Approval:
    """One reviewer's decision. Closes the request on a rejection or on the N-th distinct approval."""
    if approval.closed:
        by = f" by {approval.decided_by}" if approval.decided_by else ""
        raise FailedPrecondition(
            f"approval {approval.approval_id} is already {approval.state.name}{by}; the first decision stands",
            reason="ALREADY_DECIDED",
        )
    check_reviewer(approval, reviewer)
    comment = comment.strip()
    if not approve and not comment:
        raise InvalidArgument("a comment is required to reject", field="comment")
    if not approve and edited_context is not None:
        raise InvalidArgument("an edited context goes with an approval, not a rejection", field="edited_context")
    if any(v.reviewer == reviewer.name for v in approval.votes):
        raise FailedPrecondition(f"{reviewer.name!r} has already voted on this request", reason="ALREADY_VOTED")
    votes = (*approval.votes, Vote(reviewer.name, approve, comment, now))
    edited = edited_context if edited_context is not None else approval.edited_context
    changed = replace(approval, votes=votes, edited_context=edited, version=approval.version + 1)
    if not approve:
        return replace(
            changed, state=ApprovalState.REJECTED, decided_by=reviewer.name, comment=comment, decide_time=now
        )
    if sum(v.approve for v in votes) >= approval.policy.min_approvals:
        by = ", ".join(v.reviewer for v in votes if v.approve)
        return replace(changed, state=ApprovalState.APPROVED, decided_by=by, comment=comment, decide_time=now)
    return changed


def expire_or_escalate(approval: Approval, now: datetime) -> Approval | None:
    """The change due at `now` for a timed request, if any."""
    if approval.closed or approval.expire_time is None or now < approval.expire_time:
        return None
    p = approval.policy
    if p.on_timeout == "escalate" and approval.stage == 0 and p.escalate_to:
        seconds = p.escalate_timeout or p.timeout
        return replace(
            approval,
            stage=1,
            approvers=p.escalate_to,
            expire_time=now + timedelta(seconds=seconds) if seconds else None,
            version=approval.version + 1,
        )
    return replace(
        approval,
        state=ApprovalState.EXPIRED,
        decided_by=SYSTEM,
        comment="approval timed out",
        decide_time=now,
        version=approval.version + 1,
    )


def cancel(approval: Approval, actor: str, reason: str, now: datetime) -> Approval:
    if approval.closed:
        raise FailedPrecondition(
            f"approval {approval.approval_id} is already {approval.state.name}", reason="ALREADY_DECIDED"
        )
    return replace(
        approval,
        state=ApprovalState.CANCELLED,
        decided_by=actor,
        comment=reason or "cancelled",
        decide_time=now,
        version=approval.version + 1,
    )


ABANDONED = "nobody waits for it any more"  # the reason of a request cancelled as abandoned


def abandoned_cancel(approval: Approval, now: datetime, abandoned_after: float) -> Approval | None:
    """The cancellation due at `now` for a request nobody has waited on for `abandoned_after` seconds (its
    last waiting call went away and none re-attached), if any: CANCELLED by the system."""
    if approval.closed or approval.abandoned_at is None:
        return None
    if now - approval.abandoned_at < timedelta(seconds=abandoned_after):
        return None
    return cancel(approval, SYSTEM, ABANDONED, now)


def block_reason(approval: Approval) -> str:
    """What the waiting agent is told when the request did not end APPROVED, or was already used."""
    if approval.state is ApprovalState.APPROVED and approval.used:
        return f"approval {approval.approval_id} was already used: an approval grants one action"
    if approval.state is ApprovalState.REJECTED:
        return f"Rejected by {approval.decided_by}: {approval.comment}"
    if approval.state is ApprovalState.EXPIRED:
        return "approval timed out"
    if approval.state is ApprovalState.CANCELLED:
        return f"Approval cancelled by {approval.decided_by}: {approval.comment}"
    return f"Waiting for approval {approval.approval_id}"


def merge_masked(edited: Mapping[str, Any], original: Mapping[str, Any], mask: str) -> dict[str, Any]:
    """Reviewers see secrets masked; where an edited value is still the mask, keep the agent's original."""
    out: dict[str, Any] = {}
    for key, value in edited.items():
        if value == mask and key in original:
            out[key] = original[key]
        elif isinstance(value, Mapping) and isinstance(original.get(key), Mapping):
            out[key] = merge_masked(value, original[key], mask)
        else:
            out[key] = value
    return out
