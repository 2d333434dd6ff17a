"""`console.jaeger_ui_url`: read from the file or the environment, validated, trailing slash dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ConfigError, load_config


def test_jaeger_ui_url_from_file_and_env(tmp_path: Path) -> None:
    path = tmp_path / "o.yaml"
    path.write_text("console: {jaeger_ui_url: 'http://jaeger:16686/'}\n")
    assert load_config(str(path), env={}).console_jaeger_ui_url == "http://jaeger:16686"
    env = {"OUTRIDER_CONSOLE_JAEGER_UI_URL": "https://tracing.example/jaeger"}
    assert load_config(str(path), env=env).console_jaeger_ui_url == "https://tracing.example/jaeger"
    assert load_config(None, env={}).console_jaeger_ui_url is None


@pytest.mark.parametrize("value", ["javascript:alert(1)", "jaeger:16686", "https://"])
def test_jaeger_ui_url_must_be_http(tmp_path: Path, value: str) -> None:
    path = tmp_path / "o.yaml"
    path.write_text(f"console: {{jaeger_ui_url: '{value}'}}\n")
    with pytest.raises(ConfigError) as err:
        load_config(str(path), env={})
    assert str(err.value).startswith(f"{path}: console.jaeger_ui_url: must be an http:// or https:// URL")
