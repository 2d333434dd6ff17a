"""Hypothesis strategies for any protobuf message, built from its descriptor (so a new RPC or field is
fuzzed the day it is added), and raw byte mutations of what they produce."""

from __future__ import annotations

import math
from typing import Any

from google.protobuf import message_factory, struct_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from hypothesis import strategies as st

F = FieldDescriptor
_INT_RANGES = {
    F.TYPE_INT32: (-(2**31), 2**31 - 1),
    F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    F.TYPE_INT64: (-(2**63), 2**63 - 1),
    F.TYPE_SINT64: (-(2**63), 2**63 - 1),
    F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1),
    F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1),
    F.TYPE_FIXED64: (0, 2**64 - 1),
}
# Strings an attacker tries first: ids of things that exist, look-alikes, markup, paths, huge ones.
_STRINGS = [
    "",
    "agent-1",
    "fuzz-agent",
    "test-operator",
    "operator:test-operator",
    "deploy",
    # Plain names that pass validation, so generated calls also reach the rules behind it.
    "read",
    "files.delete",
    "payments.refund",
    "db",
    "shell.exec",
    "Shell.exec",
    "shell\u200b.exec",
    "\u0455hell.exec",
    "*",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "'; DROP TABLE agents; --",
    "a" * 129,
    "x" * 5000,
    "\x00",
    "\r\nevent: evil",
    "100",
    "-1",
    "NaN",
    "1e309",
    "(a+)+$",
    "(\\w)\\1{3,}",
    "kill:00000000",
    "a1:db",
]
STRINGS = tuple(_STRINGS)


def _int(f: Any) -> st.SearchStrategy[int]:
    lo, hi = _INT_RANGES[f.type]
    return st.one_of(
        st.sampled_from([0, 1, -1, lo, hi, 2**31 - 1, 10**12]).filter(lambda v: lo <= v <= hi), st.integers(lo, hi)
    )


def _json(depth: int) -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([math.nan, math.inf, -math.inf, 0.0, 1e308]),
        st.sampled_from(_STRINGS),
        st.text(max_size=20),
    )
    if depth <= 0:
        return leaf
    return st.one_of(
        leaf,
        st.lists(_json(depth - 1), max_size=3),
        st.dictionaries(st.sampled_from(["cost", "tokens", "path", "k", "", "x" * 300]), _json(depth - 1), max_size=3),
    )


def _deep(levels: int) -> dict[str, Any]:
    inner: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        inner = {"n": inner}
    return inner


def _struct() -> st.SearchStrategy[struct_pb2.Struct]:
    def build(d: dict[str, Any]) -> struct_pb2.Struct:
        s = struct_pb2.Struct()
        s.update(d)
        return s

    return st.one_of(
        st.dictionaries(st.sampled_from(["cost", "tokens", "path", "cmd", "table"]), _json(2), max_size=4),
        st.integers(28, 31).map(_deep),
    ).map(build)


def _value() -> st.SearchStrategy[struct_pb2.Value]:
    def build(v: Any) -> struct_pb2.Value:
        out = struct_pb2.Value()
        holder = struct_pb2.Struct()
        holder.update({"v": v})
        out.CopyFrom(holder.fields["v"])
        return out

    return _json(2).map(build)


def _time_fields() -> st.SearchStrategy[dict[str, int]]:
    seconds = st.one_of(
        st.integers(0, 4_000_000_000),
        st.sampled_from([-62_135_596_801, 253_402_300_800, 10**12, -(10**12), 2**63 - 1, -(2**63)]),
        st.integers(-(2**63), 2**63 - 1),
    )
    nanos = st.one_of(st.just(0), st.integers(-(2**31), 2**31 - 1))
    return st.fixed_dictionaries({"seconds": seconds, "nanos": nanos})


def message(desc: Descriptor, depth: int = 0) -> st.SearchStrategy[Any]:
    """Any message of type `desc`: each field absent or drawn from its type's strategy."""
    cls = message_factory.GetMessageClass(desc)
    name = desc.full_name
    if name == "google.protobuf.Struct":
        return _struct()
    if name == "google.protobuf.Value":
        return _value()
    if name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
        return _time_fields().map(lambda kw: cls(**kw))
    if depth > 3:
        return st.just(cls())
    optional = {f.name: _field(f, depth) for f in desc.fields}
    return st.fixed_dictionaries({}, optional=optional).map(lambda values: _build(cls, desc, values))


def _build(cls: Any, desc: Any, values: dict[str, Any]) -> Any:
    m = cls()
    for name, value in values.items():
        f = desc.fields_by_name[name]
        target = getattr(m, name)
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            vf = f.message_type.fields_by_name["value"]
            for k, v in value.items():
                if vf.type == F.TYPE_MESSAGE:
                    target[k].CopyFrom(v)
                else:
                    target[k] = v
        elif f.is_repeated:
            if f.type == F.TYPE_MESSAGE:
                for v in value:
                    target.add().CopyFrom(v)
            else:
                target.extend(value)
        elif f.type == F.TYPE_MESSAGE:
            target.CopyFrom(value)
        else:
            setattr(m, name, value)
    return m


def _scalar(f: Any, depth: int) -> st.SearchStrategy[Any]:
    t = f.type
    if t in _INT_RANGES:
        return _int(f)
    if t == F.TYPE_BOOL:
        return st.booleans()
    if t == F.TYPE_DOUBLE:
        return st.floats(allow_nan=True, allow_infinity=True)
    if t == F.TYPE_FLOAT:
        return st.floats(width=32, allow_nan=True, allow_infinity=True)
    if t == F.TYPE_STRING:
        return st.one_of(st.sampled_from(_STRINGS), st.text(max_size=30))
    if t == F.TYPE_BYTES:
        return st.one_of(st.binary(max_size=64), st.just(b"\xff\xfe rm -rf /"))
    if t == F.TYPE_ENUM:
        known = sorted(f.enum_type.values_by_number)
        return st.one_of(st.sampled_from(known), st.integers(-3, 200))
    return message(f.message_type, depth + 1)


def _field(f: Any, depth: int) -> st.SearchStrategy[Any]:
    if f.message_type is not None and f.message_type.GetOptions().map_entry:
        kf, vf = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
        return st.dictionaries(_scalar(kf, depth), _scalar(vf, depth), max_size=3)
    if f.is_repeated:
        return st.lists(_scalar(f, depth), max_size=3)
    return _scalar(f, depth)


def mutated(data: bytes) -> st.SearchStrategy[bytes]:
    """Raw byte mutations of a serialised message: flips, truncations, insertions, junk."""

    def apply(edits: list[tuple[int, int, int]]) -> bytes:
        out = bytearray(data)
        for kind, pos, value in edits:
            i = pos % (len(out) + 1)
            if kind == 0 and out:
                out[i % len(out)] ^= value or 0x80
            elif kind == 1:
                del out[i:]
            elif kind == 2:
                out[i:i] = bytes([value])
            else:
                out += bytes([value, 0xFF, 0xFF, 0xFF, 0x0F])
        return bytes(out)

    edit = st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 255))
    return st.lists(edit, min_size=1, max_size=4).map(apply)
