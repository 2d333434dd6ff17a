"""The Sidecars page: the sidecars sharing the database, this one marked, with their health."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask

from console import create_app
from server.domain.fleet.sidecars import Sidecar

from .consolekit import add_reviewers, sign_in
from .harness import RunningSidecar, make_config


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path)) as s:
        add_reviewers(s)
        yield s


def test_the_sidecars_page_lists_this_sidecar_alive_and_a_silent_one_gone(sidecar: RunningSidecar) -> None:
    fleet = sidecar.services.fleet
    old = fleet.clock.utcnow() - timedelta(minutes=5)
    fleet.repo.register(Sidecar("sc-silent", "elsewhere", 4242, "0.1.0", "10.0.0.9:50051", old, old))
    app: Flask = create_app(sidecar.services)
    app.testing = True
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    sign_in(c, "victor")  # a viewer may look
    page = c.get("/sidecars").text
    assert f"{fleet.sidecar_id}</code> (this one)" in page
    assert str(os.getpid()) in page
    assert "sc-silent" in page and ">gone<" in page and ">alive<" in page
    partial = c.get("/sidecars", headers={"HX-Request": "true"}).text
    assert partial.startswith('<div id="sidecars"')
