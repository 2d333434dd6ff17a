"""The gateway's YAML keys for tool names and pins: defaults, and a bad value names the key."""

from __future__ import annotations

from typing import Any

import pytest

from server.config import ConfigError
from server.gateway.config import PinsConfig, parse_gateway_config

UPSTREAMS = [{"name": "a", "command": "x"}]


def test_defaults_refuse_collisions_and_keep_pins_in_memory() -> None:
    config = parse_gateway_config({"upstreams": UPSTREAMS})
    assert config.tool_collisions == "refuse" and config.pins == PinsConfig()


def test_namespace_and_a_pins_database() -> None:
    config = parse_gateway_config(
        {
            "upstreams": UPSTREAMS,
            "tool_collisions": "namespace",
            "pins": {"database": "sqlite:///x.db", "notify": ["ops"]},
        }
    )
    assert config.tool_collisions == "namespace" and config.pins == PinsConfig("sqlite:///x.db", ("ops",))


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ({"tool_collisions": "shadow"}, "tool_collisions"),
        ({"pins": {"notify": ["ops"]}}, "pins.notify"),
        ({"pins": {"notify": "ops", "database": "sqlite://"}}, "pins.notify"),
        ({"pins": {"database": 3}}, "pins.database"),
        ({"pins": {"url": "x"}}, "pins.url"),
        ({"pins": ["x"]}, "pins"),
    ],
)
def test_a_bad_value_names_the_key(extra: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_gateway_config({"upstreams": UPSTREAMS, **extra})
    assert f"{key}:" in str(caught.value)
