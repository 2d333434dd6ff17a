"""A decision's write (`SqlApprovalRepository.update`) writes only the columns a decision can change. That is
safe only while no transition of the domain changes the others: every transition here keeps them."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime, timedelta

import pytest

from server.domain.approvals.requests import (
    Approval,
    ApprovalPolicy,
    Reviewer,
    cancel,
    decide,
    expire_or_escalate,
    new_approval,
)
from server.storage.approvals.repository import _changing_values, _values

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
ALICE, BOB = Reviewer("alice", "approver"), Reviewer("bob", "approver")
# Written by their own single-column statements, never by `update`.
APART = {"approval_id", "consume_time", "abandoned_at"}


def _request(**policy: object) -> Approval:
    return new_approval(
        "a-1",
        "agent-1",
        "deploy",
        {"env": "prod", "password": "***"},
        {"env": "prod", "password": "***"},
        "deploys",
        "r-1",
        "t-1",
        ApprovalPolicy(approvers=("alice", "bob"), **policy),  # type: ignore[arg-type]
        "team-a",
        (("w", "a warning"),),
        NOW,
        attempt=2,
    )


ESCALATING = {"timeout": 5, "on_timeout": "escalate", "escalate_to": ("carol",)}
LATER = NOW + timedelta(seconds=6)
TRANSITIONS = {  # name: (the request's policy, the transition)
    "one vote of two": ({"min_approvals": 2}, lambda a: decide(a, ALICE, True, "ok", None, NOW)),
    "approved, context edited": ({}, lambda a: decide(a, ALICE, True, "ok", {"env": "staging"}, NOW)),
    "rejected": ({}, lambda a: decide(a, BOB, False, "no", None, NOW)),
    "escalated": (ESCALATING, lambda a: expire_or_escalate(a, LATER)),
    "expired": ({"timeout": 5}, lambda a: expire_or_escalate(a, LATER)),
    "cancelled": ({}, lambda a: cancel(a, "operator", "not needed", NOW)),
}


@pytest.mark.parametrize("name", sorted(TRANSITIONS))
def test_no_transition_changes_a_column_update_leaves_alone(name: str) -> None:
    policy, transition = TRANSITIONS[name]
    before = _request(**policy)
    after = transition(before)
    assert after is not None
    fixed = set(_values(before)) - set(_changing_values(before))
    assert fixed >= {"context", "policy", "agent_id", "action", "digest"}
    for field in fixed:
        assert getattr(after, field) == getattr(before, field), field
    assert after.version == before.version + 1  # and it is a change: the compare-and-set sees it


def test_every_column_is_written_at_insert_and_each_by_one_path() -> None:
    """Insert writes every column but the separately written ones; a new field of Approval must be placed."""
    a = _request()
    assert set(_values(a)) == {f.name for f in fields(Approval)} - APART
    assert set(_changing_values(a)) < set(_values(a))
