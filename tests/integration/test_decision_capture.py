"""Context capture for replay (`decision_log.capture: masked`) on SQLite and PostgreSQL: off by default; masked by
the audit trail's rules; bounded by `decision_log.capture_max_bytes` (over it: truncated and marked); pruned with
its decision by the decision log's retention."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.config import ConfigError, load_config
from server.domain.capture import capture
from server.domain.guardrails.decisions import Decision, DecisionFilter
from server.services.supervisor.decision_log import DecisionLogSettings
from tests.fakes import FakeClock

from .harness import RunningSidecar, make_config
from .rpc import check


def stored(s: RunningSidecar) -> list[Decision]:
    s.services.decisions.flush()
    return list(reversed(s.services.decisions.list(DecisionFilter(), 100, "").items))


def test_capture_is_off_by_default(sidecar_any_db: RunningSidecar) -> None:
    sidecar_any_db.stub.CheckAction(check(context={"path": "/tmp/x"}))
    (d,) = stored(sidecar_any_db)
    assert d.context is None and not d.context_truncated


def test_masked_capture_is_masked_bounded_and_pruned(tmp_path: Path, db_url: str) -> None:
    clock = FakeClock()
    settings = DecisionLogSettings(capture="masked", capture_max_bytes=200, max_age=3600.0, flush_interval=0.01)
    config = make_config(tmp_path, db_url=db_url, decision_log=settings)
    with RunningSidecar(config, clock=clock, with_scheduler=False) as s:
        small = {"path": "/srv/app", "api_key": "sk-live-123", "nested": {"db_password": "hunter2", "n": 3}}
        s.stub.CheckAction(check(action="read", context=small))
        big = {"a_small": 1, "b_huge": "x" * 500, "c_token": "t" * 300, "d_also": "kept"}
        s.stub.CheckAction(check(action="write", context=big))
        first, second = stored(s)
        assert first.context == {"path": "/srv/app", "api_key": "***", "nested": {"db_password": "***", "n": 3}}
        assert not first.context_truncated
        # Over the cap: the entries that fit are kept (masked first: c_token is "***"), the marker says so.
        assert second.context == {"a_small": 1, "c_token": "***", "d_also": "kept"}
        assert second.context_truncated
        assert second.context_digest != first.context_digest

        clock.advance(3601)
        s.stub.CheckAction(check(action="later", context={"k": "v"}))
        s.services.decisions.flush()
        assert s.services.decisions.prune() == 2  # retention removes the old rows, captured contexts with them
        (kept,) = stored(s)
        assert kept.action == "later" and kept.context == {"k": "v"}


@pytest.mark.parametrize("cap", [2, 10, 100, 1000, 5000])
def test_the_cap_is_never_exceeded(cap: int) -> None:
    context = {f"k{i}": "v" * i for i in range(200)}
    kept, truncated = capture(context, ("token",), cap)
    assert truncated
    assert len(json.dumps(kept, sort_keys=True, separators=(",", ":")).encode()) <= cap


def test_the_config_keys(tmp_path: Path) -> None:
    path = tmp_path / "outrider.yaml"
    path.write_text("decision_log: {capture: masked, capture_max_bytes: 4096}\n")
    cfg = load_config(str(path))
    assert (cfg.decision_log.capture, cfg.decision_log.capture_max_bytes) == ("masked", 4096)
    path.write_text("decision_log: {}\n")
    assert (load_config(str(path)).decision_log.capture, load_config(str(path)).decision_log.capture_max_bytes) == (
        "none",
        16384,
    )
    path.write_text("decision_log: {capture: everything}\n")
    with pytest.raises(ConfigError) as err:
        load_config(str(path))
    assert err.value.key == "decision_log.capture"
