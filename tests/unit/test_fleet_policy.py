"""The fleet's one policy on in-memory repositories: the start-up rule (same digest runs, a different one
refuses unless `--apply-policy`, none stored adopts, no file follows), reloads that store a new version and
reach another "sidecar" on the same store through `follow`, all or nothing, audited once, and the
errors naming file, field and line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from server.adapters.memory.fleet import MemoryFleetPolicy
from server.adapters.policy_file import FilePolicySource
from server.bootstrap import build_services
from server.config import Config, load_config
from server.container import Services
from server.domain.errors import FailedPrecondition, InvalidArgument
from server.domain.fleet.policy import FleetPolicy
from server.domain.safeguards.reversibility import Level
from server.services.fleet.policy import start_policy
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore


def _policy(tag: str, retries: int) -> str:
    return (
        "guardrails:\n"
        f"  - {{name: deny-{tag}, kind: action_list, deny: ['{tag}.*']}}\n"
        "recovery:\n"
        f"  policies:\n    - {{group: pol, max_retries: {retries}}}\n"
        "  callback_timeout: 5s\n"
        "reversibility:\n"
        f"  - {{action: 'rv_{tag}_*', level: irreversible, reason: 'policy {tag}'}}\n"
    )


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _build(store: MemoryStore, path: Path | None, clock: FakeClock, **kw: object) -> Services:
    base = load_config(str(path), env={}) if path else Config()
    config = replace(base, console_enabled=False, data_dir=path.parent if path else Path("."), **kw)  # type: ignore[arg-type]
    return build_services(config, repos=store.repositories(), clock=clock)


def _runs(services: Services, tag: str, retries: int) -> bool:
    names = [g.name for g in services.chain.list_guardrails()]
    return (
        f"deny-{tag}" in names
        and services.recovery.recovery.policy_for("pol").max_retries == retries
        and services.reversibility.assess(f"rv_{tag}_x", {}).level is Level.IRREVERSIBLE
    )


def _audited(store: MemoryStore, action: str) -> list[dict[str, object]]:
    return [r.details for r in store.audit.records if r.action == action]


# ---- the start-up rule -------------------------------------------------------------------------


def test_a_file_that_differs_from_the_fleet_refuses_to_start_naming_both_digests(tmp_path: Path) -> None:
    repo = MemoryFleetPolicy()
    first = FilePolicySource(_write(tmp_path / "a.yaml", _policy("one", 2)))
    adopt = start_policy(repo, first, apply=False, enforce=True)
    assert adopt.apply and adopt.fleet is None  # nothing stored: the first file becomes the fleet's
    assert adopt.file is not None
    repo.apply(_fleet(adopt.file.digest, adopt.file.document), lambda: None)

    same = start_policy(
        repo, FilePolicySource(_write(tmp_path / "b.yaml", _policy("one", 2))), apply=False, enforce=True
    )
    assert not same.apply  # another host's copy of the same policy runs the fleet's

    other = FilePolicySource(_write(tmp_path / "c.yaml", _policy("two", 2)))
    with pytest.raises(FailedPrecondition) as err:
        start_policy(repo, other, apply=False, enforce=True)
    assert err.value.reason == "POLICY_MISMATCH"
    message = err.value.message
    assert str(tmp_path / "c.yaml") in message and "--apply-policy" in message
    assert other.read_document().digest[:12] in message and adopt.file.digest[:12] in message

    assert start_policy(repo, other, apply=True, enforce=True).apply  # told to: it applies
    assert start_policy(repo, other, apply=False, enforce=False).apply  # SQLite: applied, as before
    with pytest.raises(FailedPrecondition, match="--config FILE"):
        start_policy(repo, None, apply=True, enforce=True)  # nothing to apply: said, not ignored
    follow = start_policy(repo, None, apply=False, enforce=True)
    assert not follow.apply and follow.document == adopt.file.document  # no file: the fleet's policy


def test_host_settings_do_not_change_the_digest_but_every_policy_section_does(tmp_path: Path) -> None:
    base = FilePolicySource(_write(tmp_path / "a.yaml", _policy("one", 2))).read_document().digest
    host = (
        _policy("one", 2).replace("callback_timeout: 5s", "callback_timeout: 9s") + "fleet: {heartbeat_interval: 2s}\n"
    )
    assert FilePolicySource(_write(tmp_path / "b.yaml", host)).read_document().digest == base
    for changed in (
        _policy("one", 3),  # recovery.policies
        _policy("one", 2).replace("level: irreversible", "level: partially_reversible"),  # reversibility
        _policy("one", 2) + "chain: {mode: shadow}\n",  # the chain's mode
        _policy("one", 2) + "agents:\n  records:\n    - {id: bot-1, group: ops}\n",  # agents.records
    ):
        assert FilePolicySource(_write(tmp_path / "c.yaml", changed)).read_document().digest != base, changed
    # A record without a group is in default_group: the same record written either way is the same policy.
    implicit = _policy("one", 2) + "agents:\n  default_group: ops\n  records:\n    - {id: bot-1}\n"
    explicit = _policy("one", 2) + "agents:\n  records:\n    - {id: bot-1, group: ops}\n"
    assert (
        FilePolicySource(_write(tmp_path / "i.yaml", implicit)).read_document().digest
        == FilePolicySource(_write(tmp_path / "e.yaml", explicit)).read_document().digest
    )


# ---- reloads and followers -------------------------------------------------------------------------


def test_a_reload_stores_a_new_version_and_another_sidecar_follows_every_section(tmp_path: Path) -> None:
    store, clock = MemoryStore(), FakeClock()
    a_file = _write(tmp_path / "a.yaml", _policy("one", 2))
    b_file = _write(tmp_path / "b.yaml", _policy("one", 2))
    a, b = _build(store, a_file, clock), _build(store, b_file, clock)
    try:
        assert store.fleet_policy.policy is not None and store.fleet_policy.policy.version == 1
        assert _runs(a, "one", 2) and _runs(b, "one", 2)
        _write(a_file, _policy("two", 5))
        assert a.policy.reload("operator:ops") == (1, str(a_file))
        assert store.fleet_policy.policy.version == 2 and store.fleet_policy.policy.actor == "operator:ops"
        assert _runs(a, "two", 5)
        assert b.reversibility.assess("rv_two_x", {}).level is not Level.IRREVERSIBLE  # not followed yet
        b.policy.follow()  # what the `policy` topic (or its counter poll) calls on B
        assert _runs(b, "two", 5)
        assert b.policy.applied_version == 2
        assert {x.sidecar_id: x.version for x in store.fleet_policy.applied()} == {
            a.fleet.sidecar_id: 2,
            b.fleet.sidecar_id: 2,
        }
        reloads = _audited(store, "policy.reload")
        assert len(reloads) == 1  # once, by the sidecar that applied it; following is not a change
        assert reloads[0]["digest"] == store.fleet_policy.policy.digest and reloads[0]["version"] == 2
    finally:
        a.close()
        b.close()


def test_an_invalid_policy_changes_nothing_and_names_file_field_and_line(tmp_path: Path) -> None:
    store, clock = MemoryStore(), FakeClock()
    path = _write(tmp_path / "a.yaml", _policy("one", 2))
    services = _build(store, path, clock)
    try:
        before = store.fleet_policy.policy
        # The chain is valid; the recovery section is not: the chain must not change either.
        _write(path, _policy("two", 5).replace("max_retries: 5", "max_retries: lots"))
        with pytest.raises(InvalidArgument) as err:
            services.policy.reload("operator:ops")
        assert str(path) in err.value.message and err.value.field == "recovery.policies[0].max_retries"
        assert "(line 5)" in err.value.message, err.value.message
        _write(path, _policy("two", 5).replace("level: irreversible", "level: sort_of"))
        with pytest.raises(InvalidArgument) as err:
            services.policy.reload("operator:ops")
        assert str(path) in err.value.message and (err.value.field or "").startswith("reversibility")
        _write(path, _policy("two", 5).replace("kind: action_list", "kind: nope"))
        with pytest.raises(InvalidArgument) as err:
            services.policy.reload("operator:ops")
        assert str(path) in err.value.message and "(line 2)" in err.value.message, err.value.message
        assert store.fleet_policy.policy == before
        assert _runs(services, "one", 2) and not [g for g in services.chain.list_guardrails() if g.name == "deny-two"]
        assert _audited(store, "policy.reload") == []
    finally:
        services.close()


def test_a_restart_with_another_file_applies_it_on_one_sidecar_and_with_the_flag_records_who(tmp_path: Path) -> None:
    store, clock = MemoryStore(), FakeClock()
    path = _write(tmp_path / "a.yaml", _policy("one", 2))
    _build(store, path, clock).close()
    assert len(_audited(store, "policy.apply")) == 1
    _build(store, path, clock).close()  # the same file again: nothing to apply, nothing audited
    assert len(_audited(store, "policy.apply")) == 1
    _write(path, _policy("two", 4))
    services = _build(store, path, clock, apply_policy=True)
    try:
        assert _runs(services, "two", 4)
        fleet = store.fleet_policy.policy
        assert fleet is not None and fleet.version == 2 and "(--apply-policy)" in fleet.actor
        applied = _audited(store, "policy.apply")
        assert len(applied) == 2 and applied[-1]["digest"] == fleet.digest
        assert applied[-1]["previous_digest"] == applied[0]["digest"]
    finally:
        services.close()


def test_a_sidecar_without_a_policy_file_runs_the_fleets_sections(tmp_path: Path) -> None:
    store, clock = MemoryStore(), FakeClock()
    _build(store, _write(tmp_path / "a.yaml", _policy("one", 3)), clock).close()
    services = _build(store, None, clock)
    try:
        assert _runs(services, "one", 3)
        with pytest.raises(FailedPrecondition):
            services.policy.reload("operator:ops")  # nothing of its own to apply
    finally:
        services.close()


def _fleet(digest: str, document: dict[str, object]) -> FleetPolicy:
    from datetime import UTC, datetime

    return FleetPolicy(0, digest, dict(document), "x", "h", "sc-1", "system", datetime.now(UTC))


class _StaleOnce(MemoryFleetPolicy):
    """Answers one `get` as if nothing were stored: another sidecar's first apply landed in between."""

    stale = False

    def get(self) -> FleetPolicy | None:
        if self.stale:
            self.stale = False
            return None
        return super().get()


def test_two_first_starts_with_the_same_file_store_one_version_and_one_apply(tmp_path: Path) -> None:
    repo = _StaleOnce()
    store, clock = MemoryStore(fleet_policy=repo), FakeClock()
    _build(store, _write(tmp_path / "a.yaml", _policy("one", 2)), clock).close()
    repo.stale = True  # B decided "nothing stored, adopt mine" before A's apply was committed
    b = _build(store, _write(tmp_path / "b.yaml", _policy("one", 2)), clock)
    try:
        assert repo.policy is not None and repo.policy.version == 1  # B found A's and followed it
        assert len(_audited(store, "policy.apply")) == 1
        assert b.policy.applied_version == 1 and _runs(b, "one", 2)
    finally:
        b.close()
