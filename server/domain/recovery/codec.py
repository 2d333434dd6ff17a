"""JSON form of the recovery records (frozen dataclasses) for storage: enums by name, times in ISO 8601.

`from_json(cls, to_json(x)) == x` for every record type of the recovery feature.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from typing import Any


def to_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_json(tp: Any, data: Any) -> Any:
    """Rebuild a value of type `tp` (a dataclass, enum, datetime, tuple, optional, plain) from `to_json`'s form."""
    if tp is Any:
        return data
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if data is None:
            return None
        return from_json(args[0], data)
    if origin is tuple:
        (item, *_) = typing.get_args(tp)
        return tuple(from_json(item, v) for v in data)
    if origin in (Mapping, dict) or tp in (dict, Mapping):
        return dict(data)
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            hints = _hints(tp)
            kwargs = {f.name: from_json(hints[f.name], data[f.name]) for f in dataclasses.fields(tp) if f.name in data}
            return tp(**kwargs)
        if issubclass(tp, enum.Enum):
            return tp[data]
        if tp is datetime:
            return datetime.fromisoformat(data)
        if tp is float and isinstance(data, int):
            return float(data)
    return data
