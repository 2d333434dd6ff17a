"""The `notifications:` section of the configuration file. Errors name the key
(`notifications.channels[1].url: ...`).

```yaml
notifications:
  channels:
    - {name: slack-deploys, kind: slack, url_env: SLACK_DEPLOYS_URL}
    - {name: hooks, kind: webhook, url: "https://hooks.example.com/outrider", secret_file: /run/secrets/whsec}
    - name: email-oncall
      kind: email
      host: smtp.example.com
      port: 587
      security: starttls          # starttls (default), tls, or none (a relay on localhost only)
      username: outrider
      password_env: SMTP_PASSWORD
      from: outrider@example.com
      to: [oncall@example.com]
  routes:                         # event kind -> channels (approvals also use each hitl guardrail's notify:)
    kill.completed: [hooks]
    approval.decided: [hooks]
  groups: {oncall: [email-oncall]}  # approvals whose approvers include group:oncall
  owners: {team-a: [slack-deploys]} # a decision also goes to the requesting agent's owner's channels
  expiry_lead_time: 10m           # "approval.expiring" this long before a timed request expires
  context_keys: [env, service]    # the only context keys a message may carry (default: all, masked)
  retry_for: 24h                  # a failing delivery is retried with backoff this long, then FAILED
  poll_interval: 2s               # how often the worker looks for due rows
  claim_timeout: 60s              # a claimed row is claimed again after this (a worker that died mid-send)
  retention: 30d                  # delivered/failed rows (pending ones always) and Slack message ids are kept this long
```
A Slack channel may instead post through the Web API and take decisions (docs/notifications.md):
```yaml
    - name: slack-approvals
      kind: slack
      bot_token_env: SLACK_BOT_TOKEN       # chat.postMessage, chat.update, views.open
      channel: C0123456789
      signing_secret_env: SLACK_SIGNING_SECRET   # Approve / Reject buttons, POST /slack/interactions
      users: {U0123ABC: alice, U0456DEF: bob}    # Slack user id -> console user
```
A secret (`secret`, `password`, `signing_secret`, `bot_token`, and `url` for Slack, whose URL is the
credential) can be given inline, as `<key>_file` (read once at start) or `<key>_env` (an environment
variable).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.notifications import signing
from server.domain.notifications.delivery import RetryPolicy
from server.domain.notifications.events import EventKind
from server.domain.notifications.routing import Routes
from server.domain.values import is_number, parse_duration

KINDS = ("webhook", "slack", "email")
SECURITY = ("starttls", "tls", "none")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_KEYS = {
    "channels",
    "routes",
    "groups",
    "owners",
    "expiry_lead_time",
    "context_keys",
    "retry_for",
    "poll_interval",
    "claim_timeout",
    "retention",
}
_CHANNEL_KEYS = {
    "webhook": {"url", "secret", "timeout"},
    "slack": {"url", "timeout", "signing_secret", "users", "bot_token", "channel", "api_base_url"},
    "email": {"host", "port", "security", "username", "password", "from", "to", "timeout", "ca_file"},
}
_SECRETS = {"secret", "password", "url", "signing_secret", "bot_token"}
SLACK_API = "https://slack.com/api"


@dataclass(frozen=True)
class ChannelSettings:
    name: str
    kind: str
    url: str = field(default="", repr=False)  # a Slack webhook URL is itself the credential
    secret: str = field(default="", repr=False)  # webhook signing secret
    timeout: float = 10.0
    host: str = ""
    port: int = 0
    security: str = "starttls"
    username: str = ""
    password: str = field(default="", repr=False)
    sender: str = ""
    to: tuple[str, ...] = ()
    ca_file: str = ""  # email: trust this CA instead of the system's (a private relay)
    # Slack with interactive approvals: requests to /slack/interactions are verified with `signing_secret`
    # and a Slack user decides as the console user `users` maps it to.
    signing_secret: str = field(default="", repr=False)
    users: Mapping[str, str] = field(default_factory=dict)
    # Slack's Web API: with a bot token and a channel, messages are posted with chat.postMessage and
    # updated in place with chat.update (and Reject opens its modal with views.open).
    bot_token: str = field(default="", repr=False)
    slack_channel: str = ""
    api_base_url: str = SLACK_API

    @property
    def interactive(self) -> bool:
        """Approval messages carry Approve and Reject buttons."""
        return self.kind == "slack" and bool(self.signing_secret)

    @property
    def updates_in_place(self) -> bool:
        """Messages are posted through the Web API, so a decision taken anywhere updates them."""
        return self.kind == "slack" and bool(self.bot_token and self.slack_channel)


@dataclass(frozen=True)
class NotificationSettings:
    channels: tuple[ChannelSettings, ...] = ()
    routes: Routes = field(default_factory=Routes)
    expiry_lead_time: float | None = None
    context_keys: tuple[str, ...] | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    poll_interval: float = 2.0
    claim_timeout: float = 60.0
    retention: float = 30 * 86400.0

    @property
    def enabled(self) -> bool:
        return bool(self.channels)

    def channel(self, name: str) -> ChannelSettings | None:
        return next((c for c in self.channels if c.name == name), None)


def _bad(key: str, problem: str) -> InvalidArgument:
    return InvalidArgument(f"{key}: {problem}", field=key)


def _mapping(raw: Any, key: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise _bad(key, "must be a mapping")
    return raw


def _names(raw: Any, key: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, str) and v for v in raw):
        raise _bad(key, "must be a list of channel names")
    return tuple(dict.fromkeys(raw))


def _text(raw: Any, key: str) -> str:
    if not isinstance(raw, str) or not raw:
        raise _bad(key, f"must be a non-empty string, got {raw!r}")
    return raw


def _secret(raw: Mapping[str, Any], name: str, key: str, env: Mapping[str, str]) -> str:
    given = [k for k in (name, f"{name}_file", f"{name}_env") if raw.get(k) is not None]
    if len(given) > 1:
        raise _bad(f"{key}.{given[1]}", f"give one of {name}, {name}_file, {name}_env")
    if not given:
        return ""
    which = given[0]
    value = _text(raw[which], f"{key}.{which}")
    if which.endswith("_file"):
        try:
            return Path(value).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise _bad(f"{key}.{which}", f"cannot read {value}: {exc.strerror or exc}") from exc
    if which.endswith("_env"):
        if not env.get(value):
            raise _bad(f"{key}.{which}", f"the environment variable {value} is not set")
        return env[value]
    return value


def _url(value: str, key: str) -> str:
    if not value.startswith(("http://", "https://")) or len(value) <= len("https://"):
        raise _bad(key, "must be an http:// or https:// URL")
    return value


def _channel(raw: Any, key: str, env: Mapping[str, str]) -> ChannelSettings:
    raw = _mapping(raw, key)
    name = _text(raw.get("name"), f"{key}.name")
    if not _NAME.match(name):
        raise _bad(f"{key}.name", "letters, digits, '_', '.', '-', at most 64, starting with a letter or digit")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise _bad(f"{key}.kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    allowed = {"name", "kind"} | _CHANNEL_KEYS[kind]
    allowed |= {f"{k}{suffix}" for k in _SECRETS & allowed for suffix in ("_file", "_env")}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise _bad(f"{key}.{unknown[0]}", f"unknown key for a {kind} channel; known keys: {', '.join(sorted(allowed))}")
    timeout = raw.get("timeout")
    out = ChannelSettings(
        name=name, kind=kind, timeout=parse_duration(timeout, f"{key}.timeout") if timeout is not None else 10.0
    )
    if kind == "slack":
        return _slack(raw, key, env, out)
    if kind == "webhook":
        url = _secret(raw, "url", key, env)
        if not url:
            raise _bad(f"{key}.url", f"a {kind} channel needs url (or url_file, url_env)")
        secret = _secret(raw, "secret", key, env)
        if not secret:
            raise _bad(f"{key}.secret", "a webhook channel needs a signing secret (secret, _file or _env)")
        try:
            signing.key_of(secret)
        except ValueError as exc:
            raise _bad(f"{key}.secret", str(exc)) from exc
        return ChannelSettings(name=name, kind=kind, timeout=out.timeout, url=_url(url, f"{key}.url"), secret=secret)
    security = raw.get("security", "starttls")
    if security not in SECURITY:
        raise _bad(f"{key}.security", f"must be one of {', '.join(SECURITY)}, got {security!r}")
    port = raw.get("port", {"starttls": 587, "tls": 465, "none": 25}[security])
    if not is_number(port) or isinstance(port, float) or not 0 < int(port) < 65536:
        raise _bad(f"{key}.port", f"must be a port number, got {port!r}")
    to = raw.get("to")
    if not isinstance(to, list) or not to or not all(isinstance(a, str) and "@" in a for a in to):
        raise _bad(f"{key}.to", "must be a list of one or more email addresses")
    sender = _text(raw.get("from"), f"{key}.from")
    if "@" not in sender:
        raise _bad(f"{key}.from", "must be an email address")
    username = raw.get("username")
    password = _secret(raw, "password", key, env)
    if password and not username:
        raise _bad(f"{key}.username", "a password needs a username")
    if password and security == "none":
        raise _bad(f"{key}.security", "a password would cross the network in clear: use starttls or tls")
    return ChannelSettings(
        name=name,
        kind=kind,
        timeout=out.timeout,
        host=_text(raw.get("host"), f"{key}.host"),
        port=int(port),
        security=str(security),
        username=_text(username, f"{key}.username") if username is not None else "",
        password=password,
        sender=sender,
        to=tuple(to),
        ca_file=_text(raw["ca_file"], f"{key}.ca_file") if raw.get("ca_file") is not None else "",
    )


def _slack(raw: Mapping[str, Any], key: str, env: Mapping[str, str], base: ChannelSettings) -> ChannelSettings:
    """An incoming webhook (`url`) or the Web API (`bot_token` and `channel`); with `signing_secret`,
    interactive approvals by the Slack users that `users` maps to console users."""
    url = _secret(raw, "url", key, env)
    bot_token = _secret(raw, "bot_token", key, env)
    channel = raw.get("channel")
    if channel is not None:
        channel = _text(channel, f"{key}.channel")
    if bool(bot_token) != bool(channel):
        missing = "channel" if bot_token else "bot_token"
        raise _bad(f"{key}.{missing}", "bot_token and channel go together (the Web API posts to that channel)")
    if not url and not bot_token:
        raise _bad(f"{key}.url", "a slack channel needs url (or url_file, url_env), or bot_token and channel")
    signing_secret = _secret(raw, "signing_secret", key, env)
    users_raw = raw.get("users")
    users: dict[str, str] = {}
    if users_raw is not None:
        for slack_id, name in _mapping(users_raw, f"{key}.users").items():
            if not isinstance(slack_id, str) or not slack_id or not isinstance(name, str) or not name:
                raise _bad(f"{key}.users", "maps Slack user ids to console user names ({U0123ABC: alice})")
            users[slack_id] = name
    if users and not signing_secret:
        raise _bad(f"{key}.signing_secret", "users decide in Slack only with a signing_secret to verify Slack")
    api = raw.get("api_base_url")
    return replace(
        base,
        url=_url(url, f"{key}.url") if url else "",
        signing_secret=signing_secret,
        users=users,
        bot_token=bot_token,
        slack_channel=channel or "",
        api_base_url=_url(_text(api, f"{key}.api_base_url"), f"{key}.api_base_url").rstrip("/") if api else SLACK_API,
    )


def parse_notifications(raw: Any, env: Mapping[str, str] | None = None) -> NotificationSettings:
    """Raises InvalidArgument whose `field` is the dotted key."""
    if raw is None:
        return NotificationSettings()
    env = os.environ if env is None else env
    raw = _mapping(raw, "notifications")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise _bad(f"notifications.{unknown[0]}", f"unknown key; known keys: {', '.join(sorted(_KEYS))}")
    chans = raw.get("channels") or []
    if not isinstance(chans, list):
        raise _bad("notifications.channels", "must be a list of channels")
    channels = tuple(_channel(c, f"notifications.channels[{i}]", env) for i, c in enumerate(chans))
    names = [c.name for c in channels]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise _bad(f"notifications.channels[{i}].name", f"{name!r} is used by an earlier channel")

    def known(values: tuple[str, ...], key: str) -> tuple[str, ...]:
        for v in values:
            if v not in names:
                raise _bad(key, f"no channel is named {v!r}; channels: {', '.join(names) or '(none)'}")
        return values

    routes_raw = _mapping(raw.get("routes") or {}, "notifications.routes")
    events: dict[EventKind, tuple[str, ...]] = {}
    for kind_name, targets in routes_raw.items():
        key = f"notifications.routes.{kind_name}"
        try:
            kind = EventKind(kind_name)
        except ValueError:
            raise _bad(key, f"unknown event kind; kinds: {', '.join(k.value for k in EventKind)}") from None
        events[kind] = known(_names(targets, key), key)
    groups = {
        str(g): known(_names(t, f"notifications.groups.{g}"), f"notifications.groups.{g}")
        for g, t in _mapping(raw.get("groups") or {}, "notifications.groups").items()
    }
    owners = {
        str(o): known(_names(t, f"notifications.owners.{o}"), f"notifications.owners.{o}")
        for o, t in _mapping(raw.get("owners") or {}, "notifications.owners").items()
    }
    lead = raw.get("expiry_lead_time")
    keys = raw.get("context_keys")
    if keys is not None and (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)):
        raise _bad("notifications.context_keys", "must be a list of context key names")
    retry_for = raw.get("retry_for")
    poll = raw.get("poll_interval")
    claim = raw.get("claim_timeout")
    keep = raw.get("retention")
    return NotificationSettings(
        channels=channels,
        routes=Routes(events=events, groups=groups, owners=owners),
        expiry_lead_time=parse_duration(lead, "notifications.expiry_lead_time") if lead is not None else None,
        context_keys=tuple(keys) if keys is not None else None,
        retry=RetryPolicy(
            give_up_after=parse_duration(retry_for, "notifications.retry_for") if retry_for is not None else 86400.0
        ),
        poll_interval=parse_duration(poll, "notifications.poll_interval") if poll is not None else 2.0,
        claim_timeout=parse_duration(claim, "notifications.claim_timeout") if claim is not None else 60.0,
        retention=parse_duration(keep, "notifications.retention") if keep is not None else 30 * 86400.0,
    )
