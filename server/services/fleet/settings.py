"""The `fleet:` section of the configuration: how sidecars sharing one PostgreSQL database keep in touch.

```yaml
fleet:
  heartbeat_interval: 5s   # each sidecar stamps its row in `sidecars` this often
  sidecar_timeout: 15s     # a sidecar silent this long is gone (its kills may be resumed elsewhere)
  resync_interval: 500ms   # change counters are compared this often: the staleness bound without NOTIFY
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.values import parse_duration


@dataclass(frozen=True)
class FleetSettings:
    heartbeat_interval: float = 5.0
    sidecar_timeout: float = 15.0
    resync_interval: float = 0.5


def parse_fleet(raw: Any, where: str = "fleet") -> FleetSettings:
    if raw is None:
        return FleetSettings()
    known = set(FleetSettings.__dataclass_fields__)
    if not isinstance(raw, Mapping):
        raise InvalidArgument(f"{where}: must be a mapping", field=where)
    unknown = sorted(set(raw) - known)
    if unknown:
        key = f"{where}.{unknown[0]}"
        raise InvalidArgument(f"{key}: unknown key; known keys: {', '.join(sorted(known))}", field=key)
    d = FleetSettings()
    values = {
        name: parse_duration(raw[name], f"{where}.{name}") if raw.get(name) is not None else getattr(d, name)
        for name in known
    }
    settings = FleetSettings(**values)
    if settings.sidecar_timeout < 2 * settings.heartbeat_interval:
        key = f"{where}.sidecar_timeout"
        raise InvalidArgument(
            f"{key}: must be at least twice fleet.heartbeat_interval, or a busy sidecar looks gone", field=key
        )
    if settings.resync_interval > 1.0:
        key = f"{where}.resync_interval"
        raise InvalidArgument(f"{key}: must be at most 1s (the fleet's staleness bound without NOTIFY)", field=key)
    return settings
