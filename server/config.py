"""Configuration: one YAML file (`outrider.yaml`), overridden by OUTRIDER_* variables, then by flags.

A bad value stops start-up with a message that names the file, the key and the problem.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from server.domain.agents import AgentSettings, parse_agent_settings
from server.domain.capture import MODES as CAPTURE_MODES
from server.domain.errors import InvalidArgument
from server.domain.safeguards.reversibility import Rule as ReversibilityRule
from server.domain.safeguards.reversibility import parse_rules as parse_reversibility_rules
from server.domain.values import parse_duration
from server.services.fleet.settings import FleetSettings, parse_fleet
from server.services.notifications.settings import NotificationSettings, parse_notifications
from server.services.recovery.settings import RecoverySettings, parse_recovery_settings
from server.services.safeguards.settings import SafeguardSettings, parse_safeguards
from server.services.supervisor.settings import ON_JOURNAL_FULL, DecisionLogSettings
from server.telemetry.settings import KEYS as TELEMETRY_KEYS
from server.telemetry.settings import TelemetrySettings, apply_env, from_section

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_CONSOLE_LISTEN = "127.0.0.1:8080"
DEFAULT_DATA_DIR = ".outrider"
DEFAULT_CONFIG = "outrider.yaml"

# Top-level sections; later features add theirs here.
_SECTIONS = {"server", "console", "storage", "log", "decision_log", "guardrails", "auth", "tls", "limits", "audit"}
_SECTIONS |= {"telemetry"}
_SECTIONS |= {"recovery"}
_SECTIONS |= {"safeguards", "reversibility"}
_SECTIONS |= {"fleet"}
_SECTIONS |= {"actions", "approvals"}
_SECTIONS |= {"plugins"}
_SECTIONS |= {"agents"}
_SECTIONS |= {"notifications"}
_SECTIONS |= {"chain"}  # `chain.mode`: enforce or shadow (server/adapters/policy_file.py)
_SECTIONS |= {"explain"}  # `explain.agents`: may agents call ExplainAction
DEFAULT_SENSITIVE_KEYS = ("authorization", "password", "token", "secret", "api_key")


class ConfigError(Exception):
    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(f"{source}: {key}: {problem}" if key else f"{source}: {problem}")
        self.source, self.key, self.problem = source, key, problem


@dataclass(frozen=True)
class Config:
    config_path: Path | None = None
    listen: str = DEFAULT_LISTEN
    console_enabled: bool = True
    console_listen: str = DEFAULT_CONSOLE_LISTEN
    db_url: str | None = None
    data_dir: Path = Path(DEFAULT_DATA_DIR)
    log_format: str = "text"
    log_level: str = "info"
    max_context_bytes: int = 1 << 20
    max_context_depth: int = 32  # levels of nesting in any Struct a caller sends (server/rpc/convert.py)
    max_string_length: int = 1 << 20  # characters in any one string or key of such a Struct
    max_pending_approvals_per_agent: int = 100  # `approvals.max_pending_per_agent`
    # `approvals.abandoned_after`: a pending request nobody waits on any more is cancelled after this long.
    approvals_abandoned_after: float = 60.0
    action_charset: str = "printable"  # `actions.charset`: printable or strict (server/domain/actions.py)
    # `actions.allowed_scripts`: scripts whose letters may look like ASCII in an action (e.g. Cyrillic).
    action_scripts: frozenset[str] = frozenset()
    explain_agents: bool = True  # `explain.agents: false`: ExplainAction is for operators only
    shutdown_grace: float = 10.0
    decision_log: DecisionLogSettings = field(default_factory=DecisionLogSettings)
    # Security (see docs/security.md).
    auth_enabled: bool = True
    insecure: bool = False  # allow a non-loopback listen address without TLS
    # `outrider serve --apply-policy`: this host's policy file becomes the fleet's (a flag, not a file key).
    apply_policy: bool = False
    # `outrider serve --worker I` (set by `--workers N` for its children): share the listen port with the
    # other workers (SO_REUSEPORT; off otherwise, so a second sidecar on a taken port fails loudly).
    reuse_port: bool = False
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    tls_client_ca_file: Path | None = None
    # Per credential: a quarter of the capacity `make bench` measured on 2 cores (~1,000 CheckActions/s), so
    # one runaway credential cannot take the sidecar; size it as capacity / agents that may burst at once
    # (docs/hardening.md).
    requests_per_second: float = 250.0
    # The event loop stays free (docs/benchmarks.md has the figures these defaults come from).
    max_inflight_per_agent: int = 16  # concurrent CheckActions per agent; RESOURCE_EXHAUSTED beyond
    max_check_streams_per_agent: int = 4  # open CheckActions streams per agent; RESOURCE_EXHAUSTED beyond
    offload_context_bytes: int = 64 * 1024  # contexts this large are checked on the chain pool
    chain_workers: int = 2  # threads of that pool
    max_offloaded: int = 64  # large-context calls waiting for it at most; RESOURCE_EXHAUSTED beyond
    burst: int = 500
    # Calls with no or a failed credential, per peer address (host, without the port).
    unauthenticated_requests_per_second: float = 20.0
    unauthenticated_burst: int = 40
    max_message_bytes: int = 4 << 20
    sensitive_keys: tuple[str, ...] = DEFAULT_SENSITIVE_KEYS
    recovery: RecoverySettings = field(default_factory=RecoverySettings)
    safeguards: SafeguardSettings = field(default_factory=SafeguardSettings)
    reversibility: tuple[ReversibilityRule, ...] = ()  # the policy's rules, over the built-in map
    console_jaeger_ui_url: str | None = None  # trace ids on the console link to {url}/trace/{id}
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)  # see server/telemetry/sdk.py
    fleet: FleetSettings = field(default_factory=FleetSettings)  # see docs/fleet.md
    # `plugins.allowed_modules`: the only modules a `plugin` guardrail may load a class from (docs/security.md).
    plugin_modules: tuple[str, ...] = ()
    # The audit trail's files outside the database (docs/security.md); None: inside data_dir.
    audit_key_file: Path | None = None
    audit_checkpoint_dir: Path | None = None
    audit_checkpoint_every: int = 1000  # records
    audit_checkpoint_interval: float = 60.0  # seconds
    # `console.trusted_proxies`: reverse proxies whose X-Forwarded-For/-Proto the console believes.
    console_trusted_proxies: tuple[str, ...] = ()
    # Who owns agent records (self_registration, default_group, require_registration); docs/agent-threat-model.md.
    agents: AgentSettings = field(default_factory=AgentSettings)
    # How long the first answer to a mutating RPC's request_id is kept (server.idempotency_retention).
    idempotency_retention: float = 24 * 3600.0
    notifications: NotificationSettings = field(default_factory=NotificationSettings)
    console_public_url: str | None = None  # where reviewers reach the console (links in notifications)

    def audit_key_path(self) -> Path:
        return self.audit_key_file or self.data_dir / "audit.key"

    def audit_checkpoint_path(self) -> Path:
        return self.audit_checkpoint_dir or self.data_dir / "audit-checkpoints"

    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        return f"sqlite:///{(self.data_dir / 'outrider.db').resolve()}"


def read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), "", f"cannot read the file: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(str(path), "", f"not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(str(path), "", "the top level must be a mapping of sections")
    unknown = sorted(set(data) - _SECTIONS)
    if unknown:
        raise ConfigError(str(path), unknown[0], f"unknown section; known sections: {', '.join(sorted(_SECTIONS))}")
    return data


class _Reader:
    """Typed access to one section, with errors naming `section.key` in `source`."""

    def __init__(self, source: str, data: Mapping[str, Any], section: str, known: set[str]) -> None:
        self.source, self.section = source, section
        raw = data.get(section) or {}
        if not isinstance(raw, Mapping):
            raise ConfigError(source, section, "must be a mapping")
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ConfigError(source, f"{section}.{unknown[0]}", f"unknown key; known keys: {', '.join(sorted(known))}")
        self.raw = raw

    def get(self, key: str, conv: Callable[[Any, str], Any], default: Any) -> Any:
        if key not in self.raw or self.raw[key] is None:
            return default
        name = f"{self.section}.{key}"
        try:
            return conv(self.raw[key], name)
        except InvalidArgument as exc:
            raise ConfigError(self.source, name, exc.message.removeprefix(f"{name}: ")) from exc


def _str(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"must be a non-empty string, got {value!r}")
    return value


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no", "on", "off"):
        return value.lower() in ("true", "1", "yes", "on")
    raise InvalidArgument(f"must be true or false, got {value!r}")


def _positive_int(value: Any, name: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if isinstance(value, bool) or number <= 0 or (isinstance(value, float) and not value.is_integer()):
        raise InvalidArgument(f"must be a whole number above 0, got {value!r}")
    return number


def _positive_float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise InvalidArgument(f"must be a number above 0, got {value!r}")
    return float(value)


def _http_url(value: Any, name: str) -> str:
    url = _str(value, name).rstrip("/")
    if not url.startswith(("http://", "https://")) or len(url) <= len("https://"):
        raise InvalidArgument(f"must be an http:// or https:// URL, got {value!r}")
    return url


def _recovery(src: str, data: Mapping[str, Any]) -> RecoverySettings:
    """The `recovery:` section: per-group recovery policies, the cascade policy, kill and command timeouts."""
    try:
        return parse_recovery_settings(data.get("recovery"))
    except InvalidArgument as exc:
        key = exc.field or "recovery"
        raise ConfigError(src, key, exc.message.removeprefix(f"{key}: ")) from exc


def _parsed(src: str, data: Mapping[str, Any], section: str, parse: Callable[[Any], Any]) -> Any:
    """A section read by its feature's parser, whose InvalidArgument names the dotted key in `field`."""
    try:
        return parse(data.get(section))
    except InvalidArgument as exc:
        key = exc.field or section
        raise ConfigError(src, key, exc.message.removeprefix(f"{key}: ")) from exc


def _path(value: Any, name: str) -> Path:
    return Path(_str(value, name))


def _key_list(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidArgument("must be a list of key names")
    return tuple(value)


def _script_list(value: Any, name: str) -> frozenset[str]:
    if not isinstance(value, list):
        raise InvalidArgument("must be a list of Unicode script names, e.g. [Cyrillic, Greek]")
    from server.domain.actions import script_names  # ICU: loaded only by a config that names scripts

    return script_names(value)


def _module_list(value: Any, name: str) -> tuple[str, ...]:
    from server.services.supervisor.plugins import check_module_name

    if not isinstance(value, list):
        raise InvalidArgument("must be a list of module names, e.g. [my_company.guards]")
    return tuple(check_module_name(v) for v in value)


def _network_list(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidArgument("must be a list of addresses or networks, e.g. [127.0.0.1, 10.0.0.0/8]")
    for v in value:
        try:
            ipaddress.ip_network(v.strip(), strict=False)
        except ValueError:
            raise InvalidArgument(f"{v!r} is not an IP address or network") from None
    return tuple(v.strip() for v in value)


def _duration(value: Any, name: str) -> float:
    return parse_duration(value, name)


def _choice(*choices: str) -> Callable[[Any, str], str]:
    def conv(value: Any, name: str) -> str:
        if value not in choices:
            raise InvalidArgument(f"must be one of {', '.join(choices)}, got {value!r}")
        return str(value)

    return conv


def check_listen(value: str, source: str, key: str) -> str:
    if value.startswith("unix:"):
        if len(value) <= len("unix:"):
            raise ConfigError(source, key, "a unix socket address needs a path, e.g. unix:/run/outrider.sock")
        return value
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(source, key, f"{value!r} is not HOST:PORT (e.g. 127.0.0.1:50051) or unix:PATH")
    return value


def from_file(path: Path | None, data: Mapping[str, Any]) -> Config:
    src = str(path) if path else "defaults"
    srv = _Reader(
        src,
        data,
        "server",
        {
            "listen",
            "shutdown_grace",
            "max_context_bytes",
            "max_context_depth",
            "max_string_length",
            "insecure",
            "max_message_bytes",
            "idempotency_retention",
        },
    )
    auth = _Reader(src, data, "auth", {"enabled"})
    tls = _Reader(src, data, "tls", {"cert_file", "key_file", "client_ca_file"})
    lim = _Reader(
        src,
        data,
        "limits",
        {
            "requests_per_second",
            "burst",
            "max_inflight_per_agent",
            "max_check_streams_per_agent",
            "offload_context_bytes",
            "chain_workers",
            "max_offloaded",
            "unauthenticated_requests_per_second",
            "unauthenticated_burst",
        },
    )
    aud = _Reader(
        src,
        data,
        "audit",
        {"sensitive_keys", "key_file", "checkpoint_dir", "checkpoint_every", "checkpoint_interval"},
    )
    act = _Reader(src, data, "actions", {"charset", "allowed_scripts"})
    exp = _Reader(src, data, "explain", {"agents"})
    apr = _Reader(src, data, "approvals", {"max_pending_per_agent", "abandoned_after"})
    con = _Reader(src, data, "console", {"enabled", "listen", "jaeger_ui_url", "trusted_proxies", "public_url"})
    plugins = _Reader(src, data, "plugins", {"allowed_modules"})
    telemetry = from_section(_Reader(src, data, "telemetry", TELEMETRY_KEYS).get)
    sto = _Reader(src, data, "storage", {"db_url", "data_dir"})
    lg = _Reader(src, data, "log", {"format", "level"})
    dl = _Reader(
        src,
        data,
        "decision_log",
        {
            "queue_size",
            "batch_size",
            "flush_interval",
            "retention",
            "capture",
            "capture_max_bytes",
            "audit_records",
            "journal_max_bytes",
            "on_journal_full",
        },
    )
    ret_raw = dl.raw.get("retention") or {}
    ret = _Reader(src, {"decision_log.retention": ret_raw}, "decision_log.retention", {"max_rows", "max_age"})
    defaults = DecisionLogSettings()
    cfg = Config(
        config_path=path,
        listen=srv.get("listen", _str, DEFAULT_LISTEN),
        shutdown_grace=srv.get("shutdown_grace", _duration, 10.0),
        max_context_bytes=srv.get("max_context_bytes", _positive_int, 1 << 20),
        console_enabled=con.get("enabled", _bool, True),
        console_listen=con.get("listen", _str, DEFAULT_CONSOLE_LISTEN),
        db_url=sto.get("db_url", _str, None),
        data_dir=Path(sto.get("data_dir", _str, DEFAULT_DATA_DIR)),
        log_format=lg.get("format", _choice("text", "json"), "text"),
        log_level=lg.get("level", _choice("debug", "info", "warning", "error"), "info"),
        decision_log=DecisionLogSettings(
            queue_size=dl.get("queue_size", _positive_int, defaults.queue_size),
            batch_size=dl.get("batch_size", _positive_int, defaults.batch_size),
            flush_interval=dl.get("flush_interval", _duration, defaults.flush_interval),
            max_rows=ret.get("max_rows", _positive_int, defaults.max_rows),
            max_age=ret.get("max_age", _duration, defaults.max_age),
            audit_records=dl.get("audit_records", _choice("per_batch", "per_decision"), defaults.audit_records),
            capture=dl.get("capture", _choice(*CAPTURE_MODES), defaults.capture),
            capture_max_bytes=dl.get("capture_max_bytes", _positive_int, defaults.capture_max_bytes),
            journal_max_bytes=dl.get("journal_max_bytes", _positive_int, defaults.journal_max_bytes),
            on_journal_full=dl.get("on_journal_full", _choice(*ON_JOURNAL_FULL), defaults.on_journal_full),
        ),
    )
    cfg = replace(
        cfg,
        insecure=srv.get("insecure", _bool, False),
        max_message_bytes=srv.get("max_message_bytes", _positive_int, 4 << 20),
        max_context_depth=srv.get("max_context_depth", _positive_int, 32),
        max_string_length=srv.get("max_string_length", _positive_int, 1 << 20),
        action_charset=act.get("charset", _choice("printable", "strict"), "printable"),
        action_scripts=act.get("allowed_scripts", _script_list, frozenset()),
        explain_agents=exp.get("agents", _bool, True),
        max_pending_approvals_per_agent=apr.get("max_pending_per_agent", _positive_int, 100),
        approvals_abandoned_after=apr.get("abandoned_after", _duration, 60.0),
        auth_enabled=auth.get("enabled", _bool, True),
        tls_cert_file=tls.get("cert_file", _path, None),
        tls_key_file=tls.get("key_file", _path, None),
        tls_client_ca_file=tls.get("client_ca_file", _path, None),
        requests_per_second=lim.get("requests_per_second", _positive_float, 250.0),
        max_inflight_per_agent=lim.get("max_inflight_per_agent", _positive_int, 16),
        max_check_streams_per_agent=lim.get("max_check_streams_per_agent", _positive_int, 4),
        offload_context_bytes=lim.get("offload_context_bytes", _positive_int, 64 * 1024),
        chain_workers=lim.get("chain_workers", _positive_int, 2),
        max_offloaded=lim.get("max_offloaded", _positive_int, 64),
        unauthenticated_requests_per_second=lim.get("unauthenticated_requests_per_second", _positive_float, 20.0),
        unauthenticated_burst=lim.get("unauthenticated_burst", _positive_int, 40),
        burst=lim.get("burst", _positive_int, 500),
        sensitive_keys=aud.get("sensitive_keys", _key_list, DEFAULT_SENSITIVE_KEYS),
        audit_key_file=aud.get("key_file", _path, None),
        audit_checkpoint_dir=aud.get("checkpoint_dir", _path, None),
        audit_checkpoint_every=aud.get("checkpoint_every", _positive_int, 1000),
        audit_checkpoint_interval=aud.get("checkpoint_interval", _duration, 60.0),
        recovery=_recovery(src, data),
        safeguards=_parsed(src, data, "safeguards", parse_safeguards),
        reversibility=_parsed(src, data, "reversibility", parse_reversibility_rules),
        console_jaeger_ui_url=con.get("jaeger_ui_url", _http_url, None) or telemetry.jaeger_ui_url,
        telemetry=telemetry,
        fleet=_parsed(src, data, "fleet", parse_fleet),
        plugin_modules=plugins.get("allowed_modules", _module_list, ()),
        console_trusted_proxies=con.get("trusted_proxies", _network_list, ()),
        agents=_parsed(src, data, "agents", parse_agent_settings),
        idempotency_retention=srv.get("idempotency_retention", _duration, 24 * 3600.0),
        notifications=_parsed(src, data, "notifications", parse_notifications),
        console_public_url=con.get("public_url", _http_url, None),
    )
    check_listen(cfg.listen, src, "server.listen")
    check_listen(cfg.console_listen, src, "console.listen")
    return cfg


# (env var, Config field, converter)
_ENV: list[tuple[str, str, Callable[[Any, str], Any]]] = [
    ("OUTRIDER_LISTEN", "listen", _str),
    ("OUTRIDER_CONSOLE_LISTEN", "console_listen", _str),
    ("OUTRIDER_CONSOLE_ENABLED", "console_enabled", _bool),
    ("OUTRIDER_DB_URL", "db_url", _str),
    ("OUTRIDER_DATA_DIR", "data_dir", lambda v, n: Path(_str(v, n))),
    ("OUTRIDER_LOG_FORMAT", "log_format", _choice("text", "json")),
    ("OUTRIDER_LOG_LEVEL", "log_level", _choice("debug", "info", "warning", "error")),
    ("OUTRIDER_MAX_CONTEXT_BYTES", "max_context_bytes", _positive_int),
    ("OUTRIDER_SHUTDOWN_GRACE", "shutdown_grace", _duration),
    ("OUTRIDER_AUTH_ENABLED", "auth_enabled", _bool),
    ("OUTRIDER_INSECURE", "insecure", _bool),
    ("OUTRIDER_TLS_CERT_FILE", "tls_cert_file", _path),
    ("OUTRIDER_TLS_KEY_FILE", "tls_key_file", _path),
    ("OUTRIDER_TLS_CLIENT_CA_FILE", "tls_client_ca_file", _path),
    ("OUTRIDER_CONSOLE_JAEGER_UI_URL", "console_jaeger_ui_url", _http_url),
    ("OUTRIDER_AUDIT_KEY_FILE", "audit_key_file", _path),
    ("OUTRIDER_AUDIT_CHECKPOINT_DIR", "audit_checkpoint_dir", _path),
    ("OUTRIDER_CONSOLE_PUBLIC_URL", "console_public_url", _http_url),
]


def load_config(
    config_path: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    unused: tuple[str, ...] = (),
) -> Config:
    """Defaults < file < OUTRIDER_* env < flags (`overrides`, by Config field name).

    `unused`: top-level sections the caller does not use, left at their defaults unread, so a command is
    not refused over a setting it never needs (`tokens issue` and a notification channel's unset variable)."""
    env = os.environ if env is None else env
    explicit = config_path or env.get("OUTRIDER_CONFIG")
    path: Path | None = Path(explicit) if explicit else None
    if path is None and Path(DEFAULT_CONFIG).is_file():
        path = Path(DEFAULT_CONFIG)
    data = read_yaml(path) if path else {}
    cfg = from_file(path, {k: v for k, v in data.items() if k not in unused})
    for var, name, conv in _ENV:
        if env.get(var):
            try:
                cfg = replace(cfg, **{name: conv(env[var], var)})
            except InvalidArgument as exc:
                raise ConfigError("environment", var, exc.message) from exc
    try:
        cfg = replace(cfg, telemetry=apply_env(cfg.telemetry, env))
    except InvalidArgument as exc:
        raise ConfigError("environment", exc.field or "OTEL_*", exc.message) from exc
    cfg = replace(cfg, **{k: v for k, v in (overrides or {}).items() if v is not None})
    check_listen(cfg.listen, "flags/environment", "listen")
    check_listen(cfg.console_listen, "flags/environment", "console-listen")
    return cfg
