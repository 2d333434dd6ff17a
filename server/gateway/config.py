"""The gateway's YAML file: which sidecar, which agent, which upstream MCP servers, how to name actions.

    sidecar: {target: 127.0.0.1:50051, token_env: OUTRIDER_TOKEN}   # token: or token_env:, tls: {ca_file: ...}
    agent_id: support-bot        # stdio: every call is this agent's (HTTP: the client's bearer token says)
    action: tool                 # tool (the name the client sees) or upstream.tool
    approval_wait: 50s           # below common MCP client timeouts (60 s)
    hide_denied_tools: false
    tool_collisions: refuse      # two upstreams' tools of one name: refuse (exit 2 at start-up) or namespace
    pins: {database: "postgresql://...", notify: [ops]}   # the sidecars' database; channels told of a change
    upstreams:
      - {name: files, command: python, args: [-m, files_server], env: {ROOT: /srv}, prefix: "files."}
      - {name: crm, url: "http://127.0.0.1:9000/mcp", headers: {Authorization: "Bearer ..."}}

A bad value stops start-up with a message naming the file and the key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from server.config import ConfigError
from server.domain.errors import InvalidArgument
from server.domain.values import parse_duration

DEFAULT_APPROVAL_WAIT = 50.0
ACTION_FORMATS = ("tool", "upstream.tool")
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_KEYS = {"sidecar", "agent_id", "action", "approval_wait", "hide_denied_tools", "tool_collisions", "pins", "upstreams"}
_PINS_KEYS = {"database", "notify"}
COLLISION_MODES = ("refuse", "namespace")
_SIDECAR_KEYS = {"target", "token", "token_env", "tls", "timeout"}
_UPSTREAM_KEYS = {"name", "command", "args", "env", "cwd", "url", "headers", "prefix"}


@dataclass(frozen=True)
class UpstreamConfig:
    name: str
    command: str = ""  # stdio: the program to start
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""  # streamable HTTP
    headers: Mapping[str, str] = field(default_factory=dict)
    prefix: str = ""  # prepended to its tool and prompt names as the client sees them


@dataclass(frozen=True)
class SidecarConfig:
    target: str = "127.0.0.1:50051"
    token: str | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    timeout: float = 10.0


@dataclass(frozen=True)
class PinsConfig:
    database: str = ""  # a SQLAlchemy URL: the sidecars' storage.db_url ("": pins in memory)
    notify: tuple[str, ...] = ()  # notification channels (the sidecars' notifications.channels)


@dataclass(frozen=True)
class GatewayConfig:
    upstreams: tuple[UpstreamConfig, ...]
    sidecar: SidecarConfig = field(default_factory=SidecarConfig)
    agent_id: str = ""
    action: str = "tool"
    approval_wait: float = DEFAULT_APPROVAL_WAIT
    hide_denied_tools: bool = False
    tool_collisions: str = "refuse"
    pins: PinsConfig = field(default_factory=PinsConfig)


def load_gateway_config(path: str | Path) -> GatewayConfig:
    source = str(path)
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(source, "", f"cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(source, "", f"not valid YAML: {exc}") from None
    return parse_gateway_config(raw, source)


def parse_gateway_config(raw: Any, source: str = "gateway config") -> GatewayConfig:
    top = _mapping(raw, source, "")
    _known(top, _KEYS, source, "")
    sidecar = _sidecar(top.get("sidecar") or {}, source)
    upstreams = top.get("upstreams")
    if not isinstance(upstreams, list) or not upstreams:
        raise ConfigError(source, "upstreams", "a list of at least one upstream MCP server is required")
    parsed = tuple(_upstream(u, source, f"upstreams[{i}]") for i, u in enumerate(upstreams))
    names = [u.name for u in parsed]
    if len(set(names)) != len(names):
        raise ConfigError(source, "upstreams", "upstream names must be unique")
    action = str(top.get("action", "tool"))
    if action not in ACTION_FORMATS:
        raise ConfigError(source, "action", f"must be one of {', '.join(ACTION_FORMATS)}")
    try:
        wait = parse_duration(top.get("approval_wait", DEFAULT_APPROVAL_WAIT), "approval_wait")
    except InvalidArgument as exc:
        raise ConfigError(source, "approval_wait", exc.message) from None
    if wait > 3600:
        raise ConfigError(source, "approval_wait", "must be at most 3600 seconds")
    hide = top.get("hide_denied_tools", False)
    if not isinstance(hide, bool):
        raise ConfigError(source, "hide_denied_tools", "must be true or false")
    collisions = top.get("tool_collisions", "refuse")
    if collisions not in COLLISION_MODES:
        raise ConfigError(source, "tool_collisions", f"must be one of {', '.join(COLLISION_MODES)}")
    agent_id = top.get("agent_id", "")
    if not isinstance(agent_id, str):
        raise ConfigError(source, "agent_id", "must be a string")
    return GatewayConfig(
        parsed, sidecar, agent_id, action, wait, hide, collisions, _pins(top.get("pins") or {}, source)
    )


def _pins(raw: Any, source: str) -> PinsConfig:
    m = _mapping(raw, source, "pins")
    _known(m, _PINS_KEYS, source, "pins")
    database = m.get("database") or ""
    if not isinstance(database, str):
        raise ConfigError(source, "pins.database", "must be a database URL (the sidecars' storage.db_url)")
    notify = m.get("notify") or []
    if not isinstance(notify, list) or not all(isinstance(c, str) and c for c in notify):
        raise ConfigError(source, "pins.notify", "must be a list of notification channel names")
    if notify and not database:
        raise ConfigError(source, "pins.notify", "needs pins.database (the sidecars deliver from its outbox)")
    return PinsConfig(database, tuple(notify))


def _sidecar(raw: Any, source: str) -> SidecarConfig:
    m = _mapping(raw, source, "sidecar")
    _known(m, _SIDECAR_KEYS, source, "sidecar")
    token = m.get("token")
    if token is None:
        token = os.environ.get(str(m.get("token_env", "OUTRIDER_TOKEN")))
    tls = _mapping(m.get("tls") or {}, source, "sidecar.tls")
    try:
        timeout = parse_duration(m.get("timeout", 10.0), "sidecar.timeout") or 10.0
    except InvalidArgument as exc:
        raise ConfigError(source, "sidecar.timeout", exc.message) from None
    return SidecarConfig(
        target=str(m.get("target") or os.environ.get("OUTRIDER_TARGET", "127.0.0.1:50051")),
        token=str(token) if token else None,
        ca_file=tls.get("ca_file"),
        cert_file=tls.get("cert_file"),
        key_file=tls.get("key_file"),
        timeout=timeout,
    )


def _upstream(raw: Any, source: str, key: str) -> UpstreamConfig:
    m = _mapping(raw, source, key)
    _known(m, _UPSTREAM_KEYS, source, key)
    name = m.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(source, f"{key}.name", "1-64 letters, digits, '_' or '-' are required")
    command, url = m.get("command"), m.get("url")
    if bool(command) == bool(url):
        raise ConfigError(source, key, "exactly one of command (stdio) or url (streamable HTTP) is required")
    if url and not str(url).startswith(("http://", "https://")):
        raise ConfigError(source, f"{key}.url", "must be an http:// or https:// URL")
    args = m.get("args") or []
    if not isinstance(args, list):
        raise ConfigError(source, f"{key}.args", "must be a list of strings")
    return UpstreamConfig(
        name=name,
        command=str(command or ""),
        args=tuple(str(a) for a in args),
        env={str(k): str(v) for k, v in _mapping(m.get("env") or {}, source, f"{key}.env").items()},
        cwd=str(m["cwd"]) if m.get("cwd") else None,
        url=str(url or ""),
        headers={str(k): str(v) for k, v in _mapping(m.get("headers") or {}, source, f"{key}.headers").items()},
        prefix=str(m.get("prefix") or ""),
    )


def _mapping(raw: Any, source: str, key: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(source, key, "must be a mapping")
    return raw


def _known(m: Mapping[str, Any], keys: set[str], source: str, key: str) -> None:
    unknown = sorted(set(map(str, m)) - keys)
    if unknown:
        where = f"{key}.{unknown[0]}" if key else unknown[0]
        raise ConfigError(source, where, f"unknown key (known: {', '.join(sorted(keys))})")
