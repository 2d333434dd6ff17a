"""One agent cannot fill storage with approval requests.

Before: 200 approvals with 1 MB contexts added 403 MB in 17 s: no cap per agent, and each context was
stored twice (the approval row and its audit record).
"""

from __future__ import annotations

from pathlib import Path

from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, guardrail


def _ask(s: RunningSidecar, agent: str, i: int, context: dict[str, object] | None = None) -> pb.CheckActionResponse:
    stubs = s.as_agent(agent)
    return stubs.stub.CheckAction(
        check(agent_id=agent, action="deploy", context=context, request_id=f"r{i}", wait_mode=pb.WAIT_MODE_NON_BLOCKING)
    )


def test_pending_approvals_are_capped_per_agent(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_pending_approvals_per_agent=3)) as s:
        s.stub.AddGuardrail(guardrail("ask", "hitl", patterns=["deploy"]))
        answers = [_ask(s, "greedy", i) for i in range(5)]
        assert [bool(a.approval.approval_id) for a in answers] == [True, True, True, False, False]
        refused = answers[3]
        assert not refused.allowed and "approvals.max_pending_per_agent: 3" in refused.reason
        assert len(s.services.approvals.pending()) == 3
        assert _ask(s, "other", 0).approval.approval_id  # another agent still gets its requests
        first = answers[0].approval.approval_id
        s.stub.CancelApproval(pb.CancelApprovalRequest(approval_id=first, reason="room"))
        assert _ask(s, "greedy", 9).approval.approval_id  # a slot came back


def test_a_context_is_stored_once(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("ask", "hitl", patterns=["deploy"]))
    blob = "z" * 50_000
    approval_id = _ask(sidecar, "agent-1", 0, {"blob": blob}).approval.approval_id
    records = [r for r in sidecar.services.audit.repo.iter_all() if r.action == "approval.create"]
    assert len(records) == 1 and records[0].subject == approval_id
    details = records[0].details
    assert blob not in str(details) and details["context_ref"] == f"approvals/{approval_id}" and details["digest"]
    stored = sidecar.stub.GetApproval(pb.GetApprovalRequest(approval_id=approval_id)).approval
    assert stored.context["blob"] == blob and stored.digest == details["digest"]
