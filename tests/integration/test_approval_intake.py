"""Approval intake, group-committed (`ApprovalService.request_async`), on SQLite and PostgreSQL: a burst of
requests is written in one transaction, identical requests stay one, the per-agent cap holds inside a
batch, and a duplicate in a batch (the unique index) costs only that request."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import Engine

from server.domain.approvals.requests import Reviewer
from server.domain.errors import ResourceExhausted, StorageUnavailable
from server.domain.guardrails.base import ActionCall, GuardrailSpec
from server.domain.guardrails.hitl import Hitl
from server.services.approvals.requests import ApprovalService
from server.services.audit import AuditTrail
from server.services.recovery.agents import AgentService
from server.storage.approvals.repository import SqlApprovalRepository
from server.storage.audit import SqlAuditRepository
from server.storage.supervisor.repository import SqlAgentRepository
from tests.fakes import FakeClock

HITL = Hitl(GuardrailSpec("deploys", "hitl", {"patterns": ["deploy"]}))


def service(engine: Engine, max_pending: int = 100) -> tuple[ApprovalService, AuditTrail]:
    audit = AuditTrail(SqlAuditRepository(engine), FakeClock(), ["password"])
    agents = AgentService(SqlAgentRepository(engine))
    agents.load()
    repo = SqlApprovalRepository(engine)
    return ApprovalService(repo, FakeClock(), audit, agents, ["password"], max_pending_per_agent=max_pending), audit


def call(agent: str, i: int) -> ActionCall:
    return ActionCall(agent, "deploy", {"i": i, "password": "hunter2"})


async def burst(svc: ApprovalService, asks: list[tuple[ActionCall, str]]) -> list[object]:
    return list(
        await asyncio.gather(*(svc.request_async(c, HITL, rid, "", ()) for c, rid in asks), return_exceptions=True)
    )


def test_a_burst_is_one_transaction(engine: Engine) -> None:
    svc, audit = service(engine)
    before = svc.version()
    results = asyncio.run(burst(svc, [(call(f"agent-{i % 5}", i), f"r-{i}") for i in range(50)]))
    ids = {r.approval_id for r in results}  # type: ignore[attr-defined]
    assert len(ids) == 50 and len(svc.pending()) == 50
    assert svc.version() == before + 1  # the approvals counter moved once: one transaction
    created = [r for r in audit.repo.iter_all() if r.action == "approval.create"]
    assert sorted(r.subject for r in created) == sorted(ids)
    assert all("hunter2" not in str(a.context) for a in svc.pending())  # masked as before


def test_identical_requests_in_one_batch_are_one(engine: Engine) -> None:
    svc, _ = service(engine)
    same = call("agent-1", 7)
    results = asyncio.run(burst(svc, [(same, "r-7"), (same, "r-7"), (call("agent-1", 8), "r-8"), (same, "r-7")]))
    ids = [r.approval_id for r in results]  # type: ignore[attr-defined]
    assert ids[0] == ids[1] == ids[3] != ids[2]
    assert len(svc.pending()) == 2
    # ... and a retry later attaches to the stored one.
    again = asyncio.run(burst(svc, [(same, "r-7")]))
    assert again[0].approval_id == ids[0]  # type: ignore[attr-defined]


def test_the_per_agent_cap_holds_inside_a_batch(engine: Engine) -> None:
    svc, _ = service(engine, max_pending=3)
    results = asyncio.run(burst(svc, [(call("agent-1", i), f"r-{i}") for i in range(5)] + [(call("agent-2", 0), "x")]))
    refused = [r for r in results if isinstance(r, ResourceExhausted)]
    assert len(refused) == 2 and all(r.reason == "TOO_MANY_PENDING_APPROVALS" for r in refused)
    assert len(svc.pending()) == 4  # 3 for agent-1, 1 for agent-2


def test_a_duplicate_in_a_batch_costs_only_itself(engine: Engine) -> None:
    svc, _ = service(engine)
    first = svc.request(call("agent-1", 1), HITL, "r-1", "", ())
    repo = svc.repo
    from server.domain.approvals import requests as rules

    def fresh(i: int, rid: str) -> object:
        c = call("agent-1", i)
        return rules.new_approval(
            approval_id=f"apr_dup{i}",
            agent_id=c.agent_id,
            action=c.action,
            context=c.context,
            stored_context={},
            guardrail=HITL.name,
            request_id=rid,
            trace_id="",
            policy=HITL.policy,
            owner="",
            warnings=(),
            now=FakeClock().utcnow(),
            attempt=0,
        )

    # The second is identical to the stored one (a race another sidecar won): only it answers False.
    inserted = repo.insert_many([(fresh(2, "r-2"), ()), (fresh(1, "r-1"), ()), (fresh(3, "r-3"), ())])  # type: ignore[list-item]
    assert inserted == [True, False, True]
    assert {a.request_id for a in svc.pending()} == {"r-1", "r-2", "r-3"}
    assert svc.get(first.approval_id).request_id == "r-1"


def test_the_attach_lookup_searches_the_index(engine: Engine) -> None:
    """A retry's lookup is an index search, not a scan of every request stored (with only `request_id = ?`
    the partial unique index looked unusable to SQLite, and each lookup read the whole table)."""
    if engine.dialect.name != "sqlite":
        pytest.skip("EXPLAIN QUERY PLAN is SQLite's")
    svc, _ = service(engine)
    asyncio.run(burst(svc, [(call("agent-1", i), f"r-{i}") for i in range(20)]))
    statements: list[str] = []

    def capture(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM approvals" in statement:
            statements.append(statement)

    from sqlalchemy import event

    event.listen(engine, "before_cursor_execute", capture)
    try:
        again = asyncio.run(burst(svc, [(call("agent-1", 3), "r-3"), (call("agent-1", 99), "r-99")]))
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    assert again[0].approval_id in {a.approval_id for a in svc.pending()}  # type: ignore[attr-defined]
    lookups = [s for s in statements if "request_id IN" in s]
    assert lookups, statements
    with engine.connect() as conn:
        for sql in lookups:
            params = ["agent-1"] + [f"r-{i}" for i in range(sql.count("?") - 1)]
            plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, tuple(params)))
            assert "uq_approvals_attach" in plan and "SCAN approvals" not in plan, plan


def test_find_attach_many_is_find_attach_for_each_key(engine: Engine) -> None:
    svc, _ = service(engine)
    made = asyncio.run(burst(svc, [(call(f"agent-{i % 2}", i), f"r-{i}") for i in range(6)]))
    repo = svc.repo
    keys = [(a.agent_id, a.request_id, a.digest) for a in made]  # type: ignore[attr-defined]
    keys += [("agent-0", "r-1", made[1].digest), ("agent-9", "r-0", made[0].digest), ("agent-0", "", "x")]  # type: ignore[attr-defined]
    found = repo.find_attach_many(keys)
    assert found == {k: a for k in keys if (a := repo.find_attach(*k)) is not None}
    assert len(found) == 6


def test_new_requests_do_not_wake_waiting_calls(engine: Engine) -> None:
    """The poll (changes made by other processes) reads and wakes only requests that changed: a burst of new
    requests elsewhere used to read and wake every waiting call on each batch."""
    here, _ = service(engine)
    there, _ = service(engine)  # another process on the same database
    woken: list[int] = []

    async def scenario() -> None:
        mine = await here.request_async(call("agent-1", 0), HITL, "r-0", "", ())
        here.subscribe(lambda: woken.append(1))  # called for each request `here` wakes its waiters for
        waiting = asyncio.create_task(here.wait(mine.approval_id, mine))
        await asyncio.sleep(0)
        here.poll()  # reads the row it did not read itself: unchanged, so nobody is woken
        await burst(there, [(call("agent-2", i), f"x-{i}") for i in range(30)])
        here.poll()
        await asyncio.sleep(0)
        assert not woken and not waiting.done()
        reviewer = Reviewer("rev", "approver")
        there.decide(mine.approval_id, reviewer, True, "ok")
        here.poll()
        decided = await waiting
        assert decided.state.name == "APPROVED" and len(woken) == 1

    asyncio.run(scenario())


def test_a_change_just_before_a_waiter_registers_is_seen(engine: Engine) -> None:
    """A waiter that registers on the request it just created (no read after registering) still wakes when
    the request was decided in between, even when the poll had already seen that change counter."""
    here, _ = service(engine)
    there, _ = service(engine)

    async def scenario() -> None:
        other = await here.request_async(call("agent-1", 1), HITL, "r-1", "", ())
        watcher = asyncio.create_task(here.wait(other.approval_id, other))
        mine = await here.request_async(call("agent-1", 2), HITL, "r-2", "", ())
        there.decide(mine.approval_id, Reviewer("rev", "approver"), False, "no")
        here.poll()  # sees the new counter while only `other` is watched
        waiting = asyncio.create_task(here.wait(mine.approval_id, mine))  # `mine` is stale: still PENDING
        await asyncio.sleep(0)
        here.poll()  # the counter did not move again, but the new waiter's row is read
        decided = await waiting
        assert decided.state.name == "REJECTED"
        assert not watcher.done()
        watcher.cancel()

    asyncio.run(scenario())


def _approved_with_a_lossy_commit(svc: ApprovalService, i: int) -> tuple[str, Any, Any]:
    """An approved request, the repository's real consumption write, and one whose commit answer is lost."""
    [approval] = asyncio.run(burst(svc, [(call("consumer", i), f"consume-{i}")]))
    approval_id = approval.approval_id  # type: ignore[attr-defined]
    svc.decide(approval_id, Reviewer("rev", "approver"), True, "ok")
    commit = svc.repo.mark_consumed

    def committed_then_lost(approval_id: str, when: object) -> bool:
        assert commit(approval_id, when)
        raise StorageUnavailable()

    return approval_id, commit, committed_then_lost


def test_a_consumption_whose_commit_answer_was_lost_is_delivered_to_the_resent_call(engine: Engine) -> None:
    """Storage went away while the approved call consumed its approval: the write committed but the call failed
    (the agent was told to retry). The re-sent call on this sidecar gets the allowed answer the first never
    delivered; any other call, here or on another sidecar, is told it was used."""
    svc, _audit = service(engine)
    other, _ = service(engine)  # another sidecar on the same database
    approval_id, commit, committed_then_lost = _approved_with_a_lossy_commit(svc, 1)
    svc.repo.mark_consumed = committed_then_lost  # type: ignore[method-assign]
    with pytest.raises(StorageUnavailable):
        svc.mark_consumed(approval_id)
    svc.repo.mark_consumed = commit  # type: ignore[method-assign]
    assert other.mark_consumed(approval_id) is False  # another sidecar: it was used
    assert svc.mark_consumed(approval_id) is True  # the re-sent call here: the answer that was lost
    assert svc.mark_consumed(approval_id) is False  # delivered once


def test_a_lost_consumption_is_found_though_a_retry_of_it_failed_too(engine: Engine) -> None:
    """The call retries its consumption through the outage: the first attempt committed (answer lost), the
    second failed outright. The re-sent call still gets the allowed answer: before, the second attempt's time
    replaced the first's, and the agent was told its own approval "was already used" (found by the fault
    suite's approval traffic through a 10 s PostgreSQL stop)."""
    svc, _audit = service(engine)
    approval_id, commit, committed_then_lost = _approved_with_a_lossy_commit(svc, 2)

    def unreachable(approval_id: str, when: object) -> bool:
        raise StorageUnavailable()

    for attempt in (committed_then_lost, unreachable):
        svc.repo.mark_consumed = attempt  # type: ignore[method-assign]
        with pytest.raises(StorageUnavailable):
            svc.mark_consumed(approval_id)
        svc.clock.advance(0.05)  # type: ignore[attr-defined]  # the retry comes later: another time
    svc.repo.mark_consumed = commit  # type: ignore[method-assign]
    assert svc.mark_consumed(approval_id) is True
    assert svc.mark_consumed(approval_id) is False  # delivered once


def test_a_consumption_whose_audit_record_failed_is_delivered_to_the_retry(engine: Engine) -> None:
    """Storage went away just after the consumption committed, before its audit record: the call failed, and its
    retry (CheckAction retries the consumption within its deadline, the agent re-sends after) must get the allowed
    answer. Before, the retry found the approval consumed with no lost attempt remembered and told the agent its
    own approval "was already used" (the fault suite's approval traffic through a 10 s PostgreSQL stop)."""
    svc, audit = service(engine)
    [approval] = asyncio.run(burst(svc, [(call("consumer", 3), "consume-3")]))
    approval_id = approval.approval_id  # type: ignore[attr-defined]
    svc.decide(approval_id, Reviewer("rev", "approver"), True, "ok")
    record = audit.record
    failures = iter([StorageUnavailable(), StorageUnavailable()])

    def lost_once(*args: Any, **kwargs: Any) -> Any:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return record(*args, **kwargs)

    audit.record = lost_once  # type: ignore[method-assign]
    with pytest.raises(StorageUnavailable):
        svc.mark_consumed(approval_id)  # committed, then the audit record failed
    svc.clock.advance(0.05)  # type: ignore[attr-defined]
    with pytest.raises(StorageUnavailable):
        svc.mark_consumed(approval_id)  # the retry finds it, and its audit record fails too: still to deliver
    svc.clock.advance(0.05)  # type: ignore[attr-defined]
    assert svc.mark_consumed(approval_id) is True  # the allowed answer, delivered to the next retry
    assert svc.mark_consumed(approval_id) is False  # once
    consumed = [r.subject for r in audit.repo.iter_all() if r.action == "approval.consume"]
    assert consumed == [approval_id]  # one audit record, for the delivery that was answered
