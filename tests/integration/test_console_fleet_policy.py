"""The Sidecars page shows the fleet's policy (version, digest, who applied it) and the version each sidecar runs."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from console import create_app

from .consolekit import add_reviewers, sign_in
from .harness import RunningSidecar, make_config


def test_the_sidecars_page_shows_the_fleet_policy_and_each_sidecars_version(tmp_path: Path) -> None:
    path = tmp_path / "outrider.yaml"
    path.write_text("guardrails:\n  - {name: deny-x, kind: action_list, deny: ['x.*']}\n")
    with RunningSidecar(make_config(tmp_path, config_path=path)) as s:
        add_reviewers(s)
        app: Flask = create_app(s.services)
        app.testing = True
        c = app.test_client()
        c.environ_base["REMOTE_ADDR"] = "127.0.0.1"
        sign_in(c, "victor")
        fleet, _ = s.services.policy.status()
        page = c.get("/sidecars", headers={"HX-Request": "true"}).text
        assert f"Fleet policy: version 1, digest <code>{fleet.digest[:12]}</code>" in page
        assert f"from <code>{path}</code>" in page
        assert f'class="policy-current">v1 <code>{fleet.digest[:12]}</code>' in page
