"""The chain store on in-memory repositories: refreshing from storage never undoes a change this process made
while the refresh was reading."""

from __future__ import annotations

from collections.abc import Sequence

from server.domain.guardrails import GuardrailSpec
from server.domain.guardrails.deps import GuardrailDeps
from server.services.supervisor.chain import ChainStore
from server.services.supervisor.plugins import PluginModules
from tests.fakes.memory import Counters, MemoryGuardrails
from tests.fakes.safeguards import MemoryAudit

load_plugin_class = PluginModules(["tests.plugins"])


class _RacingRepo(MemoryGuardrails):
    """Runs `during_load` once, between the refresh's version read and its chain read."""

    def __init__(self) -> None:
        super().__init__(Counters())
        self.during_load: list[object] = []

    def load(self) -> tuple[list[GuardrailSpec], str | None]:
        loaded = super().load()
        while self.during_load:
            step = self.during_load.pop()
            assert callable(step)
            step()
        return loaded


def _store(repo: MemoryGuardrails) -> ChainStore:
    return ChainStore(repo, None, MemoryAudit(), load_plugin_class, GuardrailDeps())


def _names(specs: Sequence[GuardrailSpec]) -> list[str]:
    return [s.name for s in specs]


def test_a_refresh_picks_up_another_process_change() -> None:
    repo = _RacingRepo()
    mine, other = _store(repo), _store(repo)
    mine.load()
    other.load()
    other.add_guardrail("cap", "cost_cap", {"max": 1})
    assert mine.refresh() is True
    assert _names(mine.list_guardrails()) == ["cap"]
    assert mine.refresh() is False


def test_a_refresh_racing_a_local_add_keeps_the_add() -> None:
    repo = _RacingRepo()
    mine, other = _store(repo), _store(repo)
    mine.load()
    other.add_guardrail("first", "cost_cap", {"max": 1})  # makes mine stale, so refresh reads
    repo.during_load.append(lambda: mine.add_guardrail("second", "cost_cap", {"max": 2}))
    mine.refresh()
    # What this process runs is what it stored (not the older chain the refresh had read), and the add's
    # compare-and-set kept "first", which another process stored meanwhile.
    assert _names(mine.list_guardrails()) == _names(repo.load()[0]) == ["first", "second"]


def test_a_change_from_a_stale_store_keeps_the_other_process_change() -> None:
    repo = _RacingRepo()
    mine, other = _store(repo), _store(repo)
    mine.load()
    other.load()
    mine.add_guardrail("a", "cost_cap", {"max": 1})
    other.add_guardrail("b", "cost_cap", {"max": 2})  # other has not seen "a": its compare-and-set re-reads
    mine.remove_guardrail("b")  # mine has not seen "b" yet: found after the re-read, removed once
    assert _names(repo.load()[0]) == ["a"]
    other.refresh()
    assert _names(other.list_guardrails()) == ["a"]


def test_a_refresh_keeps_the_running_guardrails_whose_spec_did_not_change() -> None:
    repo = _RacingRepo()
    mine, other = _store(repo), _store(repo)
    mine.add_guardrail("window", "cost_cap", {"max": 1})
    running = mine.order[0]
    other.load()
    other.add_guardrail("unrelated", "cost_cap", {"max": 2})
    assert mine.refresh() is True
    assert mine.order[0] is running  # the same object: its state (e.g. a rate window) survives
    assert _names(mine.list_guardrails()) == ["window", "unrelated"]
