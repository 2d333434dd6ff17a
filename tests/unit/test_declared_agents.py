"""The policy file's `agents.records` on in-memory repositories: parsing names the key, applying replaces the
declared records only, audits each change once, and never lifts a termination or a quarantine."""

from __future__ import annotations

from typing import Any

import pytest

from server.adapters.memory import MemoryAgents
from server.domain.agents import Standing, parse_agent_settings
from server.domain.errors import InvalidArgument
from server.domain.recovery.ladder import EJECTED_GROUP
from server.services.recovery.agents import AgentService


class Audit:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, str, dict[str, Any]]] = []

    def record(self, actor: str, action: str, subject: str, details: dict[str, Any]) -> None:
        self.records.append((actor, action, subject, details))


def settings(*records: dict[str, Any]) -> Any:
    return parse_agent_settings({"default_group": "pool", "records": list(records)})


def test_records_parse_with_defaults_and_name_the_bad_key() -> None:
    (a, b) = settings(
        {"id": "w1", "labels": {"owner": "alice", "tier": 2, "on": True}}, {"id": "w2", "group": "g"}
    ).records
    assert (a.group, dict(a.labels), a.capabilities) == ("pool", {"owner": "alice", "tier": "2", "on": "true"}, ())
    assert (b.agent_id, b.group) == ("w2", "g")
    for bad, field in (
        ({"records": {"id": "w1"}}, "agents.records"),
        ({"records": ["w1"]}, "agents.records[0]"),
        ({"records": [{"group": "g"}]}, "agents.records[0].id"),
        ({"records": [{"id": "a:b"}]}, "agents.records[0].id"),
        ({"records": [{"id": "w1", "group": "bad group"}]}, "agents.records[0].group"),
        ({"records": [{"id": "w1", "capabilities": "deploy"}]}, "agents.records[0].capabilities"),
        ({"records": [{"id": "w1", "labels": {"k": {"nested": 1}}}]}, "agents.records[0].labels"),
        ({"records": [{"id": "w1"}, {"id": "w1"}]}, "agents.records[1].id"),
    ):
        with pytest.raises(InvalidArgument) as err:
            parse_agent_settings(bad)
        assert err.value.field == field, (bad, err.value.field)


def test_applying_replaces_declared_records_once_and_keeps_standings() -> None:
    audit, repo = Audit(), MemoryAgents()
    agents = AgentService(repo, audit=audit)
    agents.load()
    agents.register("w1", "ops", ["deploy"], {"owner": "bob"}, actor="operator:ada")
    agents.register("other", "ops", [], {}, actor="operator:ada")
    agents.move("w1", EJECTED_GROUP)
    agents.quarantine("w1", "ejected")
    declared = settings({"id": "w1", "group": "interns", "labels": {"owner": "alice"}}).records
    assert agents.apply_declared(declared, source="outrider.yaml") == 1
    assert agents.apply_declared(declared, source="outrider.yaml") == 0  # unchanged: not audited again
    w1 = agents.get("w1")
    assert (w1.group, dict(w1.labels), w1.capabilities) == ("interns", {"owner": "alice"}, ())
    assert agents.group_of("w1") == "interns" and agents.owner_of("w1") == "alice"
    assert agents.get("other").group == "ops"  # not declared: left alone
    contained = agents.containment_of("w1")
    assert contained is not None and contained.standing is Standing.QUARANTINED  # the file frees nobody
    updates = [r for r in audit.records if r[1] == "agent.update" and r[0] == "policy"]
    assert len(updates) == 1 and updates[0][3]["source"] == "outrider.yaml"
    assert updates[0][3]["changed"] == ["capabilities", "group", "labels"]


def test_another_process_changes_reach_the_mirror() -> None:
    repo = MemoryAgents()
    sidecar, cli = AgentService(repo), AgentService(repo)
    sidecar.load()
    cli.change("w1", group="interns", labels={"owner": "alice"}, capabilities=["read"])
    assert sidecar.group_of("w1") is None  # not yet polled
    assert sidecar.refresh_records() and sidecar.group_of("w1") == "interns" and sidecar.owner_of("w1") == "alice"
    assert not sidecar.refresh_records()  # nothing changed since: one tiny read
    cli.change("w1", remove_labels=["owner"], capabilities=["deploy"], remove_capabilities=["read"])
    sidecar.refresh_records()
    assert sidecar.owner_of("w1") == "" and sidecar.get("w1").capabilities == ("deploy",)


def test_an_agent_registered_elsewhere_a_moment_ago_is_known_before_its_notification() -> None:
    """Attach, TriggerRecovery, health checks and substitutes on B right after RegisterAgent on A: B reads
    the database on a miss instead of answering NOT_FOUND until the notification arrives."""
    repo = MemoryAgents()
    a, b = AgentService(repo), AgentService(repo)
    b.load()
    a.register("fresh-1", "ops", [], {"owner": "alice"})
    assert b.group_of("fresh-1") is None  # the mirror has not heard of it yet
    assert b.known("fresh-1") and b.group_of("fresh-1") == "ops" and b.owner_of("fresh-1") == "alice"
    assert not b.known("never-registered")
