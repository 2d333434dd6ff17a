"""Episodic memory (the SupervisorAgent library), reversibility (the Agent Governance Toolkit's s. 8), plan
validation (the Agent Governance Toolkit's s. 5) and the
`safeguards:` / `reversibility:` configuration."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from server.config import ConfigError, from_file
from server.domain.errors import InvalidArgument
from server.domain.safeguards.breakers import Strategy
from server.domain.safeguards.budgets import Priority
from server.domain.safeguards.episodes import Episode, EpisodeLog
from server.domain.safeguards.plans import Step, ViolationType, validate
from server.domain.safeguards.reversibility import BUILTIN, Effectiveness, Level, assess, parse_rules, rules_in_effect
from server.services.safeguards.episodes import EpisodeService
from server.services.safeguards.settings import parse_safeguards
from tests.fakes import FakeClock
from tests.fakes.safeguards import MemorySafeguards

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def ep(i: int, task_type: str = "faq", outcome: str = "success", agent: str = "a1") -> Episode:
    return Episode(i, f"t{i}", agent, task_type, outcome, {}, NOW)


class TestEpisodes:
    def test_bounded_oldest_dropped_newest_first(self) -> None:
        log = EpisodeLog(3)
        dropped = [log.record(ep(i)) for i in range(1, 6)]
        assert [len(d) for d in dropped] == [0, 0, 0, 1, 1] and dropped[3][0].episode_id == 1
        assert [e.episode_id for e in log.similar("", 10)] == [5, 4, 3]
        assert [e.episode_id for e in log.similar("", 2)] == [5, 4]

    def test_matching_rules(self) -> None:
        log = EpisodeLog(10)
        for e in (
            ep(1, "FAQ-lookup", "Success"),
            ep(2, "billing", "success", "a2"),
            ep(3, "faq", "failure"),
            ep(4, "faq", "SUCCESS"),
        ):
            log.record(e)
        assert [e.episode_id for e in log.similar("faq", 10)] == [4, 3, 1]  # contains, ignoring case
        assert [e.episode_id for e in log.by_outcome("success", 10)] == [4, 2, 1]  # equals, ignoring case
        assert [e.episode_id for e in log.by_outcome("succ", 10)] == []
        assert [e.episode_id for e in log.by_agent("a2", 10)] == [2]
        assert [e.episode_id for e in log.by_agent("A2", 10)] == []
        assert [e.episode_id for e in log.similar("", 10, only_agent="a2")] == [2]

    def test_service_is_durable_and_keeps_ids_growing(self) -> None:
        repo, clock = MemorySafeguards(), FakeClock()
        svc = EpisodeService(repo, clock, 2)
        svc.load()
        for i in range(3):
            svc.record(f"t{i}", "a1", "faq", "success", {"i": i})
        again = EpisodeService(repo, clock, 2)
        again.load()
        assert [e.task_id for e in again.similar("", 0)] == ["t2", "t1"]
        episode, evicted = again.record("t3", "a1", "faq", "success", {})
        assert (episode.episode_id, evicted) == (4, 1)
        assert episode.episode_time == clock.utcnow()  # stamped when not given
        assert sorted(k for (kind, k) in repo.rows if kind == "episode") == ["3", "4"]

    def test_limits(self) -> None:
        svc = EpisodeService(MemorySafeguards(), FakeClock(), 2000)
        for i in range(1200):
            svc.record(f"t{i}", "a1", "faq", "ok", {})
        assert len(svc.similar("", 0)) == 100 and len(svc.similar("", 5000)) == 1000
        with pytest.raises(InvalidArgument):
            svc.similar("", -1)
        with pytest.raises(InvalidArgument):
            svc.record("t", "", "faq", "ok", {})


class TestReversibility:
    @pytest.mark.parametrize(
        ("action", "level", "approval"),
        [
            ("write_file", Level.FULLY_REVERSIBLE, False),
            ("create_file", Level.FULLY_REVERSIBLE, False),
            ("delete_file", Level.IRREVERSIBLE, True),
            ("database_write", Level.FULLY_REVERSIBLE, False),
            ("drop_table", Level.IRREVERSIBLE, True),
            ("send_email", Level.PARTIALLY_REVERSIBLE, False),
            ("deploy", Level.IRREVERSIBLE, True),
            ("execute_code", Level.IRREVERSIBLE, True),
            ("launch_rocket", Level.UNKNOWN, True),
        ],
    )
    def test_builtin_table(self, action: str, level: Level, approval: bool) -> None:
        a = assess(action, {}, (), NOW)
        assert (a.level, a.requires_extra_approval, a.source) == (
            level,
            approval,
            "" if level is Level.UNKNOWN else "builtin",
        )
        if level is not Level.UNKNOWN:
            assert a.reason

    def test_compensating_parameters_are_filled_from_the_action(self) -> None:
        a = assess("write_file", {"path": "/srv/x", "content": "..."}, (), NOW)
        (c,) = a.compensating
        assert (c.action, c.parameters, c.effectiveness) == (
            "restore_file_backup",
            {"path": "/srv/x"},
            Effectiveness.FULL,
        )
        email = assess("send_email", {}, (), NOW).compensating
        assert (email[0].action, email[0].time_window, email[0].parameters) == ("recall_email", 30.0, {})
        assert assess("database_write", {}, (), NOW).compensating[0].time_window is None

    def test_policy_extends_and_overrides(self) -> None:
        policy = parse_rules(
            [
                {
                    "action": "deploy*",
                    "level": "partially_reversible",
                    "reason": "blue/green",
                    "compensating": [
                        {
                            "description": "Switch back",
                            "action": "switch_traffic",
                            "effectiveness": "full",
                            "time_window": "30m",
                            "parameters": {"to": "{previous}"},
                        }
                    ],
                },
                {"action": "rm", "level": "fully_reversible", "requires_extra_approval": True},
            ]
        )
        a = assess("deploy_canary", {"previous": "blue"}, policy, NOW)
        assert (a.level, a.source, a.compensating[0].parameters, a.compensating[0].time_window) == (
            Level.PARTIALLY_REVERSIBLE,
            "policy",
            {"to": "blue"},
            1800.0,
        )
        assert assess("rm", {}, policy, NOW).requires_extra_approval
        listed = rules_in_effect(policy)
        assert [r.source for r in listed][:2] == ["policy", "policy"]
        assert len(listed) == 2 + len(BUILTIN)

    @pytest.mark.parametrize(
        ("raw", "where"),
        [
            ({"action": "x"}, "reversibility[0].level"),
            ([{"action": "x", "level": "sometimes"}], "reversibility[0].level"),
            ([{"level": "irreversible"}], "reversibility[0].action"),
            ([{"action": "x", "level": "irreversible", "colour": 1}], "reversibility[0].colour"),
            (
                [{"action": "x", "level": "irreversible", "compensating": [{"action": "y"}]}],
                "reversibility[0].compensating[0].description",
            ),
            (
                [
                    {
                        "action": "x",
                        "level": "irreversible",
                        "compensating": [{"action": "y", "description": "d", "effectiveness": "most"}],
                    }
                ],
                "reversibility[0].compensating[0].effectiveness",
            ),
        ],
    )
    def test_policy_errors_name_the_key(self, raw: Any, where: str) -> None:
        with pytest.raises(InvalidArgument) as err:
            parse_rules(raw if isinstance(raw, list) else [raw])
        assert err.value.field == where


class TestPlans:
    def test_a_valid_plan(self) -> None:
        steps = [Step("read", "db.read"), Step("write", "file.write", ("read",))]
        assert validate(steps, {"db.read", "file.write"}) == []

    def test_every_violation_in_step_order(self) -> None:
        steps = [
            Step("a", "db.read", ("c",)),
            Step("", "db.read"),
            Step("a", "shell.exec"),
            Step("b", "", ("ghost", "b")),
            Step("c", "db.read", ("a",)),
        ]
        found = [(v.type, v.step_index, v.related) for v in validate(steps, {"db.read"})]
        assert found == [
            (ViolationType.DEPENDENCY_CYCLE, 0, ("a", "c")),
            (ViolationType.MISSING_STEP_ID, 1, ()),
            (ViolationType.DUPLICATE_STEP_ID, 2, ("a",)),
            (ViolationType.ACTION_NOT_ALLOWED, 2, ("shell.exec",)),
            (ViolationType.MISSING_ACTION, 3, ()),
            (ViolationType.UNKNOWN_DEPENDENCY, 3, ("ghost",)),
            (ViolationType.DEPENDENCY_CYCLE, 3, ("b",)),
        ]

    def test_a_long_chain_and_a_long_cycle(self) -> None:
        n = 5000
        chain = [Step(f"s{i}", "x", (f"s{i - 1}",) if i else ()) for i in range(n)]
        assert validate(chain, {"x"}) == []
        ring = [Step(f"s{i}", "x", (f"s{(i + 1) % n}",)) for i in range(n)]
        (cycle,) = validate(ring, {"x"})
        assert cycle.type is ViolationType.DEPENDENCY_CYCLE and len(cycle.related) == n and cycle.related[0] == "s0"


class TestSettings:
    def test_defaults(self) -> None:
        s = parse_safeguards(None)
        assert (s.breakers.defaults.failure_threshold, s.max_episodes, s.leases.slots.default) == (3, 1000, 1)
        assert s.budgets.min_context[Priority.CRITICAL] == 4000

    def test_a_full_section(self) -> None:
        s = parse_safeguards(
            {
                "breakers": {
                    "failure_threshold": 5,
                    "strategy": "cached",
                    "keys": {"*:pay": {"strategy": "fail_fast"}},
                },
                "budgets": {"global": 500, "reservation_ttl": "5s", "min_context": {"low": 100}},
                "episodes": {"max_episodes": 10},
                "leases": {"slots": "noop", "ttl": "1m", "keys": {"global:": 2}},
            }
        )
        assert (s.breakers.defaults.failure_threshold, s.breakers.defaults.strategy) == (5, Strategy.CACHED)
        assert s.breakers.keys[0].override == {"strategy": "FAIL_FAST"}
        assert (s.budgets.global_total, s.budgets.reservation_ttl, s.budgets.min_context[Priority.LOW]) == (
            500,
            5.0,
            100,
        )
        assert (s.max_episodes, s.leases.slots.default, s.leases.ttl) == (10, None, 60.0)

    @pytest.mark.parametrize(
        ("text", "key"),
        [
            ("safeguards: {breakers: {failure_threshold: 0}}", "safeguards.breakers.failure_threshold"),
            ("safeguards: {budgets: {global: -5}}", "safeguards.budgets.global"),
            ("safeguards: {episodes: {max: 3}}", "safeguards.episodes.max"),
            ("safeguards: {leases: {slots: lots}}", "safeguards.leases.slots"),
            ("safeguards: {breakers: {keys: {'a:*': {strategy: nope}}}}", "safeguards.breakers.keys.a:*.strategy"),
            ("reversibility: [{action: x}]", "reversibility[0].level"),
        ],
    )
    def test_errors_name_file_and_key(self, tmp_path: Path, text: str, key: str) -> None:
        import yaml

        path = tmp_path / "o.yaml"
        with pytest.raises(ConfigError) as err:
            from_file(path, yaml.safe_load(text))
        assert (err.value.source, err.value.key) == (str(path), key)
