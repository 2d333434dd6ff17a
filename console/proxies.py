"""The client's address behind reverse proxies: `console.trusted_proxies`, with Werkzeug's ProxyFix semantics.

ProxyFix trusts a fixed number of `X-Forwarded-*` values from the right. Here the number is found from the
addresses: when the peer is a trusted proxy, `X-Forwarded-For` is read from the right, past every trusted
proxy, and the first address that is not one is the client (every value left of it may be forged by the
client). `X-Forwarded-Proto` is taken from the same hop, so a TLS-terminating proxy makes cookies Secure.
A peer that is not a trusted proxy has its `X-Forwarded-*` headers ignored. The original values are kept
in `environ["werkzeug.proxy_fix.orig"]`, as ProxyFix does.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or networks (`10.0.0.5`, `10.0.0.0/8`, `::1`); ValueError names a bad one."""
    out: list[Network] = []
    for value in values:
        try:
            out.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"{value!r} is not an IP address or network: {exc}") from None
    return tuple(out)


def _address(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    value = value.strip()
    if value.startswith("[") and "]" in value:  # [v6]:port
        value = value[1 : value.index("]")]
    elif value.count(":") == 1:  # v4:port
        value = value.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class TrustedProxies:
    """WSGI middleware: REMOTE_ADDR and wsgi.url_scheme as the first untrusted hop saw them."""

    def __init__(self, app: Any, networks: Iterable[Network]) -> None:
        self.app = app
        self.networks = tuple(networks)

    def trusted(self, value: str) -> bool:
        address = _address(value)
        return address is not None and any(address in net for net in self.networks)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        remote = str(environ.get("REMOTE_ADDR", ""))
        if self.networks and self.trusted(remote):
            self._fix(environ, remote)
        return self.app(environ, start_response)

    def _fix(self, environ: dict[str, Any], remote: str) -> None:
        environ.setdefault(
            "werkzeug.proxy_fix.orig",
            {
                "REMOTE_ADDR": remote,
                "wsgi.url_scheme": environ.get("wsgi.url_scheme"),
                "HTTP_X_FORWARDED_FOR": environ.get("HTTP_X_FORWARDED_FOR"),
                "HTTP_X_FORWARDED_PROTO": environ.get("HTTP_X_FORWARDED_PROTO"),
            },
        )
        hops = [h.strip() for h in str(environ.get("HTTP_X_FORWARDED_FOR", "")).split(",") if h.strip()]
        client, depth = remote, 0
        for hop in reversed(hops):
            address = _address(hop)
            if address is None:
                break  # garbage: stop at the last proxy we trust rather than believe it
            client, depth = str(address), depth + 1
            if not self.trusted(hop):
                break
        if depth == 0:
            return
        environ["REMOTE_ADDR"] = client
        protos = [p.strip().lower() for p in str(environ.get("HTTP_X_FORWARDED_PROTO", "")).split(",") if p.strip()]
        if len(protos) >= depth and protos[-depth] in ("http", "https"):
            environ["wsgi.url_scheme"] = protos[-depth]
