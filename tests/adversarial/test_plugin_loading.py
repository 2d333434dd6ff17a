"""A `plugin` guardrail loads only a class from the policy file's plugins.allowed_modules, and nothing of the
named object runs before it passed the class-with-check() test: over gRPC, through the console form and in
the policy file. Each attack names a callable that would leave a marker file if it were ever called."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from flask import Flask

from console import create_app
from server.config import ConfigError, from_file
from tests.integration.consolekit import add_reviewers, htmx_post, sign_in
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import error_info, guardrail


def attacks(marker: Path) -> list[tuple[str, dict[str, Any]]]:
    """(class path, constructor options): each would create `marker` if instantiated or called."""
    return [
        ("subprocess:Popen", {"args": ["touch", str(marker)]}),
        ("os:system", {"command": f"touch {marker}"}),
        ("builtins:eval", {"source": f"open({str(marker)!r}, 'w')"}),
        ("tests.plugins:touch_marker", {"path": str(marker)}),  # an allowed module's function
        ("tests.plugins:MARKER_OBJECT", {}),  # an allowed module's instance
        ("tests.plugins:os", {}),  # a module imported there, not defined there
        ("tests.plugins.Recorder.check", {}),  # dotted walk past the class
    ]


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path)) as s:
        yield s


def test_grpc_refuses_each_attack_with_no_side_effect(sidecar: RunningSidecar, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for path, options in attacks(marker):
        with pytest.raises(grpc.RpcError) as err:
            sidecar.stub.AddGuardrail(guardrail("evil", "plugin", **{"class": path, **options}))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, path
        assert error_info(err.value).metadata["field"] == "class", path
        assert not marker.exists(), f"{path} ran before it was refused"
    assert [g.name for g in sidecar.stub.ListGuardrails(_list()).guardrails] == []


def test_modules_outside_the_list_are_not_even_imported(sidecar: RunningSidecar) -> None:
    sys.modules.pop("tests.plugin_import_marker", None)
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.AddGuardrail(guardrail("evil", "plugin", **{"class": "tests.plugin_import_marker:Guard"}))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "PLUGIN_NOT_ALLOWED"
    assert "plugins.allowed_modules" in (err.value.details() or "")
    assert "tests.plugin_import_marker" not in sys.modules


def test_an_allowed_class_still_loads(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("ok", "plugin", **{"class": "tests.plugins:Recorder", "label": "x"}))
    assert [g.name for g in sidecar.stub.ListGuardrails(_list()).guardrails] == ["ok"]


def test_console_form_refuses_each_attack_with_no_side_effect(sidecar: RunningSidecar, tmp_path: Path) -> None:
    add_reviewers(sidecar, ("ada",))
    app: Flask = create_app(sidecar.services)
    app.testing = True
    c = app.test_client()
    token = sign_in(c, "ada")
    marker = tmp_path / "pwned"
    for path, options in attacks(marker):
        r = htmx_post(
            c, "/guardrails", token, name="evil", kind="plugin", options=json.dumps({"class": path, **options})
        )
        assert r.status_code == 400, (path, r.text[:300])
        assert not marker.exists(), f"{path} ran before it was refused"
    assert sidecar.services.chain.list_guardrails() == []


def _check_config(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    policy = tmp_path / "outrider.yaml"
    policy.write_text(body)
    return subprocess.run(
        [sys.executable, "-m", "server", "check-config", "--config", str(policy)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_policy_file_plugins_need_the_allow_list(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    r = _check_config(
        tmp_path,
        "plugins: {allowed_modules: [tests.plugins]}\n"
        f"guardrails:\n  - {{name: evil, kind: plugin, class: 'subprocess:Popen', args: [touch, '{marker}']}}\n",
    )
    assert r.returncode == 2 and "plugins.allowed_modules" in r.stderr, r.stderr
    assert not marker.exists()
    # Without the list, not even the tests' own module loads.
    r = _check_config(tmp_path, "guardrails:\n  - {name: ok, kind: plugin, class: 'tests.plugins:Recorder'}\n")
    assert r.returncode == 2 and "plugins.allowed_modules" in r.stderr, r.stderr
    r = _check_config(
        tmp_path,
        "plugins: {allowed_modules: [tests.plugins]}\n"
        "guardrails:\n  - {name: ok, kind: plugin, class: 'tests.plugins:Recorder'}\n",
    )
    assert r.returncode == 0, r.stderr


def test_allowed_modules_config_is_checked() -> None:
    assert from_file(None, {"plugins": {"allowed_modules": ["my_company.guards"]}}).plugin_modules == (
        "my_company.guards",
    )
    for bad in ("my_company.guards", ["not a module"], [1]):
        with pytest.raises(ConfigError, match=r"plugins\.allowed_modules"):
            from_file(None, {"plugins": {"allowed_modules": bad}})


def _list() -> Any:
    from outrider.v1 import supervisor_service_pb2 as pb

    return pb.ListGuardrailsRequest()
