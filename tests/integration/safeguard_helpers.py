"""Small helpers shared by the SafeguardService integration tests."""

from __future__ import annotations

from typing import Any

from google.protobuf import duration_pb2, struct_pb2


def value(v: Any) -> struct_pb2.Value:
    s = struct_pb2.Struct()
    s.update({"v": v})
    out = struct_pb2.Value()
    out.CopyFrom(s.fields["v"])
    return out


def duration(seconds: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(round(seconds * 1e9))
    return d
