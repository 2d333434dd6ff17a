"""Case 6 of issue 12: budget `request_id` de-duplication lived in memory, so a Consume retried after a
restart was counted twice. Every mutating RPC with a request id now remembers its first answer durably
(default 24 h): a retry after a restart returns it and changes nothing."""

from __future__ import annotations

from pathlib import Path

import grpc

from outrider.v1 import safeguard_service_pb2 as spb
from tests.fakes import FakeClock
from tests.integration.harness import RunningSidecar, make_config

from .helpers import agent, refused


def test_a_retry_after_a_restart_changes_nothing(tmp_path: Path, db_url: str, clock: FakeClock) -> None:
    config = make_config(tmp_path, db_url=db_url)
    consume = spb.ConsumeRequest(agent_id="w1", tokens=40, request_id="c-1")
    with RunningSidecar(config, clock=clock) as s:
        s.stub.RegisterAgent(agent("w1"))
        s.safeguard.Allocate(spb.AllocateRequest(agent_id="w1", tokens=100, request_id="a-1"))
        first = s.as_agent("w1").safeguard.Consume(consume)
        assert first.allocation.used == 40
    with RunningSidecar(config, clock=clock) as s:  # a restart: in-memory de-duplication is gone
        me = s.as_agent("w1")
        again = me.safeguard.Consume(consume)
        assert again == first
        assert s.safeguard.GetAllocation(spb.GetAllocationRequest(agent_id="w1")).allocation.used == 40
        # An Allocate retried after the restart does not reset what was used either.
        s.safeguard.Allocate(spb.AllocateRequest(agent_id="w1", tokens=100, request_id="a-1"))
        assert s.safeguard.GetAllocation(spb.GetAllocationRequest(agent_id="w1")).allocation.used == 40
        # The same request id with a different request is a mistake, not a retry.
        other = spb.ConsumeRequest(agent_id="w1", tokens=1, request_id="c-1")
        info = refused(lambda: me.safeguard.Consume(other), grpc.StatusCode.INVALID_ARGUMENT)
        assert (info.reason, info.metadata["field"]) == ("REQUEST_ID_REUSED", "request_id")


def test_request_ids_are_per_caller(s: RunningSidecar) -> None:
    for who in ("a", "b"):
        s.stub.RegisterAgent(agent(who))
        s.safeguard.Allocate(spb.AllocateRequest(agent_id=who, tokens=100))
    used = [
        s.as_agent(who).safeguard.Consume(spb.ConsumeRequest(agent_id=who, tokens=10, request_id="same"))
        for who in ("a", "b")
    ]
    assert [u.allocation.agent_id for u in used] == ["a", "b"]  # b never gets a's answer


def test_a_token_secret_is_never_remembered(s: RunningSidecar) -> None:
    from outrider.v1 import access_pb2
    from outrider.v1 import access_service_pb2 as apb

    root = s.as_operator("root", admin=True)
    issued = root.access.IssueToken(
        apb.IssueTokenRequest(kind=access_pb2.PRINCIPAL_KIND_AGENT, subject="w1", request_id="t-1")
    )
    db = Path(s.config.database_url().removeprefix("sqlite:///"))
    assert issued.secret.encode() not in db.read_bytes()
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or issued.secret.encode() not in wal.read_bytes()


def test_every_mutating_rpc_the_issue_names_is_remembered() -> None:
    from server.rpc.idempotency import REMEMBERED

    named = {
        "SafeguardService": ("Consume", "Allocate", "Reserve", "Settle", "AcquireLease"),
        "RecoveryService": ("Kill",),
        "SupervisorService": ("RegisterAgent", "DecideApproval"),
    }
    missing = [f"{svc}/{m}" for svc, ms in named.items() for m in ms if f"/outrider.v1.{svc}/{m}" not in REMEMBERED]
    assert not missing, f"these RPCs lost their durable request_id: {missing}"


def test_answers_are_kept_for_the_configured_retention(tmp_path: Path, clock: FakeClock) -> None:
    with RunningSidecar(make_config(tmp_path, idempotency_retention=60.0), clock=clock) as s:
        s.stub.RegisterAgent(agent("w1"))
        s.safeguard.Allocate(spb.AllocateRequest(agent_id="w1", tokens=100))
        me = s.as_agent("w1")
        consume = spb.ConsumeRequest(agent_id="w1", tokens=40, request_id="c-1")
        me.safeguard.Consume(consume)
        clock.advance(59)
        assert s.services.idempotency.prune() == 0
        assert me.safeguard.Consume(consume).allocation.used == 40  # still a retry
        clock.advance(2)
        assert s.services.idempotency.prune() == 1  # past the retention: forgotten (budgets keep their own)
