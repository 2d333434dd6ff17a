"""The fleet's policy in real storage, through the production `build_server`: on SQLite (one sidecar) a
changed file is applied at start as before and only the digest and version are new; on PostgreSQL the same
restart is refused unless `--apply-policy` (`Config.apply_policy`), and nothing is changed by the refusal."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from outrider.v1 import supervisor_service_pb2 as pb
from server.__main__ import main
from server.bootstrap import build_services
from server.domain.errors import FailedPrecondition
from server.storage.db import create_db_engine
from server.storage.fleet.policy import SqlFleetPolicyRepository

from .harness import RunningSidecar, make_config
from .rpc import guardrail


def _policy(tag: str) -> str:
    return f"guardrails:\n  - {{name: deny-{tag}, kind: action_list, deny: ['{tag}.*']}}\n"


def _stored(db: str) -> tuple[int, str]:
    engine = create_db_engine(db)
    try:
        fleet = SqlFleetPolicyRepository(engine).get()
        assert fleet is not None
        return fleet.version, fleet.digest
    finally:
        engine.dispose()


def _names(s: RunningSidecar) -> list[str]:
    return [g.name for g in s.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails]


def test_a_restart_with_a_changed_file(tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "outrider.yaml"
    path.write_text(_policy("one"))
    config = make_config(tmp_path, db_url=db_url, config_path=path)
    with RunningSidecar(config) as s:
        assert _names(s) == ["deny-one"]
        s.stub.AddGuardrail(guardrail("runtime", "cost_cap", max=10))
    first = _stored(db_url)
    assert first[0] == 1
    assert main(["policy", "status", "--db-url", db_url, "--data-dir", str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out
    assert f"version 1  digest {first[1]}" in out and str(path) in out and "0 alive sidecar(s) not on version 1" in out
    with RunningSidecar(config) as s:  # the same file: the stored chain (with its runtime change) runs
        assert _names(s) == ["deny-one", "runtime"]
    assert _stored(db_url) == first

    path.write_text(_policy("two"))
    if db_url.startswith("sqlite"):
        with RunningSidecar(config) as s:  # one sidecar: applied, as before
            assert _names(s) == ["deny-two"]
        assert _stored(db_url)[0] == 2 and _stored(db_url)[1] != first[1]
        return
    with pytest.raises(FailedPrecondition) as err:
        build_services(config)  # what `outrider serve` builds first: refused before anything is written
    assert "--apply-policy" in err.value.message and first[1][:12] in err.value.message
    assert _stored(db_url) == first
    with RunningSidecar(replace(config, apply_policy=True)) as s:
        assert _names(s) == ["deny-two"]
    assert _stored(db_url)[0] == 2
