"""The safeguards wired to the recovery feature in the running sidecar: a kill revokes the agent's
leases; a breaker opening is reported to the cascade detector, whose OPEN_BREAKERS action trips
breakers back; the `hitl` guardrail's reversibility lookup."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from outrider.v1 import common_pb2, recovery_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2 as spb

from .harness import RunningSidecar, make_config
from .safeguard_helpers import duration


def test_killing_an_agent_revokes_its_leases_and_hands_the_slot_on(sidecar: RunningSidecar) -> None:
    s = sidecar
    s.stub.RegisterAgent(spb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="victim")))
    key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_USER, id="u1")
    held = s.safeguard.AcquireLease(pb.AcquireLeaseRequest(isolation_key=key, agent_id="victim"), timeout=10).lease
    with ThreadPoolExecutor(1) as pool:
        nxt = pool.submit(
            s.safeguard.AcquireLease, pb.AcquireLeaseRequest(isolation_key=key, agent_id="next"), timeout=30
        )
        deadline = time.monotonic() + 30
        while s.services.leases.waiting(s.services.leases.get(held.lease_id).key) == 0:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        result = s.recovery.Kill(
            rpb.KillRequest(agent_id="victim", reason=recovery_pb2.KILL_REASON_MANUAL, callback_timeout=duration(0.2)),
            timeout=30,
        ).result
        assert result.revoked_lease_count == 1
        assert nxt.result(10).lease.fencing_token == 2
    assert s.safeguard.GetLease(pb.GetLeaseRequest(lease_id=held.lease_id)).lease.state == sg.LEASE_STATE_REVOKED


def test_an_opening_reaches_the_cascade_detector(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path)) as s:
        st = s.safeguard
        st.SetBreakerConfig(
            pb.SetBreakerConfigRequest(key="orchestrator:search", config=sg.BreakerConfig(failure_threshold=1))
        )
        permit = st.AcquirePermit(pb.AcquirePermitRequest(key="orchestrator:search"))
        st.ReportOutcome(pb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=sg.CALL_OUTCOME_FAILURE))
        assert s.services.breakers.events.flush(10)
        assert s.services.recovery.cascade.window_size() == 1


def test_the_cascade_detector_opens_the_failing_agents_breakers(sidecar: RunningSidecar) -> None:
    s = sidecar
    policy = recovery_pb2.CascadePolicy(threshold=3, action=recovery_pb2.CASCADE_ACTION_OPEN_BREAKERS)
    s.recovery.SetCascadePolicy(rpb.SetCascadePolicyRequest(policy=policy))
    for upstream, downstream in (("db", "api"), ("api", "web"), ("web", "edge")):
        got = s.recovery.ReportFailure(rpb.ReportFailureRequest(from_agent=upstream, to_agent=downstream))
    assert sorted(got.cascade.opened_breakers) == ["api", "db", "web"]
    b = s.safeguard.GetBreaker(pb.GetBreakerRequest(key="db")).breaker
    assert (b.state, b.forced, b.HasField("half_open_time")) == (sg.BREAKER_STATE_OPEN, False, True)


def test_hitl_sees_the_reversibility_level(sidecar: RunningSidecar) -> None:
    level = sidecar.services.checks.assess_level
    assert level("drop_table", {}) == "IRREVERSIBLE" and level("write_file", {}) == "FULLY_REVERSIBLE"
    assert level("teleport", {}) == "UNKNOWN"
