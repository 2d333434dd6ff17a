"""Case 5 of issue 12: the two-person rule by one person. With `min_approvals: 2`, one operator approved,
used its operator token to issue a second operator token under another name, and approved again. Minting
credentials now needs an admin credential (issued on the host); votes count identities, not credentials."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import grpc

from outrider.v1 import access_pb2, supervisor_pb2
from outrider.v1 import access_service_pb2 as apb
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind
from tests.integration.creds import with_token
from tests.integration.harness import RunningSidecar
from tests.integration.recovery_sim import eventually
from tests.integration.rpc import check, guardrail

from .helpers import refused

PENDING = supervisor_pb2.APPROVAL_STATE_PENDING


def _pending(s: RunningSidecar) -> Any:
    def listed() -> list[Any]:
        return list(s.stub.ListApprovals(pb.ListApprovalsRequest(state=PENDING)).approvals)

    eventually(lambda: bool(listed()), what="the approval request")
    return listed()[0]


def _vote(who: Any, approval_id: str) -> pb.DecideApprovalResponse:
    return who.stub.DecideApproval(pb.DecideApprovalRequest(approval_id=approval_id, approve=True, comment="ok"))


def test_one_operator_cannot_be_two_reviewers(s: RunningSidecar) -> None:
    s.stub.AddGuardrail(guardrail("h", "hitl", patterns=["deploy"], min_approvals=2))
    waiting = s.as_agent("w1").stub.CheckAction.future(check("w1", "deploy"), timeout=30)
    approval = _pending(s)
    alice = s.as_operator("alice")
    assert _vote(alice, approval.approval_id).approval.state == PENDING
    # Her operator token cannot mint a credential for anyone, herself included.
    for subject, kind in (("bob", access_pb2.PRINCIPAL_KIND_OPERATOR), ("w1", access_pb2.PRINCIPAL_KIND_AGENT)):
        info = refused(
            lambda subject=subject, kind=kind: alice.access.IssueToken(
                apb.IssueTokenRequest(kind=kind, subject=subject)
            )
        )
        assert info.reason == "ADMIN_REQUIRED"
    listed = s.stub.ListApprovals(pb.ListApprovalsRequest()).approvals  # an operator may still read
    assert listed
    token_id = alice.access.WhoAmI(apb.WhoAmIRequest()).token_id
    assert refused(lambda: alice.access.RevokeToken(apb.RevokeTokenRequest(token_id=token_id))).reason == (
        "ADMIN_REQUIRED"
    )
    # A second credential of the same identity votes as the same person: once.
    alice_again = s.as_operator("alice")
    info = refused(lambda: _vote(alice_again, approval.approval_id), grpc.StatusCode.FAILED_PRECONDITION)
    assert info.reason == "ALREADY_VOTED"
    assert not waiting.done()
    done = _vote(s.as_operator("bob"), approval.approval_id).approval
    assert done.state == supervisor_pb2.APPROVAL_STATE_APPROVED and done.decided_by == "alice, bob"
    assert waiting.result(10).allowed


def test_admin_credentials_come_from_the_host(s: RunningSidecar) -> None:
    cli = subprocess.run(
        [sys.executable, "-m", "server", "tokens", "issue", "--admin", "root", "--db-url", s.config.database_url(),
         "--data-dir", str(s.config.data_dir)],  # the sidecar's data dir: the same audit key
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    secret = cli.stdout.strip()
    # The sidecar polls the token counter every 250 ms.
    eventually(lambda: s.services.access.authenticate(secret) is not None, what="the CLI's admin token")
    root = s.access.__class__(with_token(s.raw_channel, secret))
    me = root.WhoAmI(apb.WhoAmIRequest())
    assert (me.subject, me.admin) == ("root", True)
    issued = root.IssueToken(apb.IssueTokenRequest(kind=access_pb2.PRINCIPAL_KIND_OPERATOR, subject="carol"))
    assert not issued.token.admin  # an admin over gRPC mints ordinary credentials only
    assert not s.services.access.authenticate(issued.secret).admin
    assert s.services.access.authenticate(s.issue(PrincipalKind.OPERATOR, "x")) is not None


def test_a_token_and_a_console_session_of_one_identity_vote_once(s: RunningSidecar) -> None:
    from console import create_app
    from tests.integration.consolekit import add_reviewers, htmx_post, sign_in

    add_reviewers(s)
    s.stub.AddGuardrail(guardrail("h", "hitl", patterns=["deploy"], min_approvals=2))
    waiting = s.as_agent("w1").stub.CheckAction.future(check("w1", "deploy"), timeout=30)
    approval = _pending(s)
    assert _vote(s.as_operator("alice"), approval.approval_id).approval.state == PENDING
    app = create_app(s.services)
    app.testing = True
    c = app.test_client()
    token = sign_in(c, "alice")  # the console user alice: the same person as the operator token alice
    r = htmx_post(c, f"/approvals/{approval.approval_id}/decide", token, decision="approve")
    assert r.status_code == 409 and "already voted" in r.text, (r.status_code, r.text[:300])
    assert s.stub.GetApproval(pb.GetApprovalRequest(approval_id=approval.approval_id)).approval.state == PENDING
    assert not waiting.done()
    c = app.test_client()
    token = sign_in(c, "bob")
    assert htmx_post(c, f"/approvals/{approval.approval_id}/decide", token, decision="approve").status_code == 200
    assert waiting.result(10).allowed
