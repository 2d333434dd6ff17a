"""`console.trusted_proxies`: which address is the client's, with Werkzeug ProxyFix's semantics."""

from __future__ import annotations

from typing import Any

import pytest

from console.proxies import TrustedProxies, parse_networks
from server.config import ConfigError, from_file


def seen(networks: list[str], remote: str, xff: str | None = None, proto: str | None = None) -> tuple[str, str]:
    got: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        got.update(environ)
        return []

    environ: dict[str, Any] = {"REMOTE_ADDR": remote, "wsgi.url_scheme": "http"}
    if xff is not None:
        environ["HTTP_X_FORWARDED_FOR"] = xff
    if proto is not None:
        environ["HTTP_X_FORWARDED_PROTO"] = proto
    TrustedProxies(app, parse_networks(networks))(environ, lambda *a: None)
    return got["REMOTE_ADDR"], got["wsgi.url_scheme"]


def test_one_trusted_proxy() -> None:
    assert seen(["127.0.0.1"], "127.0.0.1", "198.51.100.7", "https") == ("198.51.100.7", "https")


def test_a_peer_that_is_not_a_proxy_cannot_choose_its_address() -> None:
    assert seen(["127.0.0.1"], "203.0.113.9", "198.51.100.7", "https") == ("203.0.113.9", "http")
    assert seen([], "127.0.0.1", "198.51.100.7") == ("127.0.0.1", "http")  # no list: headers ignored


def test_values_left_of_the_first_untrusted_hop_are_the_clients_own_words() -> None:
    # The client sent "X-Forwarded-For: 6.6.6.6"; the proxy appended the real peer.
    assert seen(["10.0.0.0/8"], "10.0.0.1", "6.6.6.6, 198.51.100.7") == ("198.51.100.7", "http")
    # Two trusted proxies in a row, then the client.
    assert seen(["10.0.0.0/8"], "10.0.0.1", "6.6.6.6, 198.51.100.7, 10.1.2.3", "http, https") == (
        "198.51.100.7",
        "http",
    )


def test_garbage_and_ports_and_ipv6() -> None:
    assert seen(["127.0.0.1"], "127.0.0.1", "not-an-address") == ("127.0.0.1", "http")
    assert seen(["127.0.0.1"], "127.0.0.1", "198.51.100.7:5555") == ("198.51.100.7", "http")
    assert seen(["::1"], "::1", "[2001:db8::5]:443") == ("2001:db8::5", "http")
    assert seen(["127.0.0.1"], "::ffff:127.0.0.1", "198.51.100.7") == ("198.51.100.7", "http")
    assert seen(["127.0.0.1"], "127.0.0.1", "198.51.100.7", "gopher") == ("198.51.100.7", "http")


def test_config_key() -> None:
    cfg = from_file(None, {"console": {"trusted_proxies": ["127.0.0.1", "10.0.0.0/8", "::1"]}})
    assert cfg.console_trusted_proxies == ("127.0.0.1", "10.0.0.0/8", "::1")
    for bad in ("127.0.0.1", ["10.0.0.300"], [5]):
        with pytest.raises(ConfigError, match=r"console\.trusted_proxies"):
            from_file(None, {"console": {"trusted_proxies": bad}})
