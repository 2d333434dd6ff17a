"""The checked AST cel-cpp makes of a condition, read for cel_native.py: cel-expr-python's `Expression.serialize()` is
an Any holding a `cel.expr.CheckedExpr` (cel-spec's checked.proto and syntax.proto), decoded here from its protobuf
encoding into a few small node types. Only the node kinds of the native subset are read; any other is NotNative.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any


class NotNative(Exception):
    """The expression is outside the native subset."""


@dataclass(frozen=True, slots=True)
class Const:
    value: Any  # None, bool, int (int64), float or str


@dataclass(frozen=True, slots=True)
class Ident:
    name: str


@dataclass(frozen=True, slots=True)
class Select:
    operand: Node
    field: str
    test_only: bool  # has(operand.field)


@dataclass(frozen=True, slots=True)
class Call:
    function: str  # as cel-cpp names it: `_==_`, `_&&_`, `@in`, `_[_]`, `size`, `startsWith`, ...
    target: Node | None  # the receiver of a method call
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class ListOf:
    elements: tuple[Node, ...]


Node = Const | Ident | Select | Call | ListOf

# Field numbers of cel.expr messages.
_ANY_TYPE_URL, _ANY_VALUE = 1, 2  # google.protobuf.Any
_CHECKED_TYPE_URL = b"type.googleapis.com/cel.expr.CheckedExpr"
_CHECKED_EXPR = 4  # CheckedExpr.expr
_CONST, _IDENT, _SELECT, _CALL, _LIST = 3, 4, 5, 6, 7  # Expr's kinds read here (8 struct, 9 comprehension are not)
_MAX_DEPTH = 200  # cel-cpp's parser refuses expressions nested much less deep


def parse_checked(serialized: bytes) -> Node:
    wrapped = _fields(serialized)
    if _one(wrapped, _ANY_TYPE_URL) != _CHECKED_TYPE_URL:  # another binding's encoding: read nothing into it
        raise NotNative("not a cel.expr.CheckedExpr")
    checked = _fields(_one(wrapped, _ANY_VALUE, b""))
    expr = _one(checked, _CHECKED_EXPR)
    if expr is None:
        raise NotNative("no expression")
    return _node(expr, 0)


def _node(buf: bytes, depth: int) -> Node:
    if depth > _MAX_DEPTH:
        raise NotNative("nested too deep")
    fields = _fields(buf)
    if _CONST in fields:
        return Const(_constant(_fields(fields[_CONST][-1])))
    if _IDENT in fields:
        return Ident(_one(_fields(fields[_IDENT][-1]), 1, b"").decode())
    if _SELECT in fields:
        s = _fields(fields[_SELECT][-1])
        return Select(_node(_one(s, 1, b""), depth + 1), _one(s, 2, b"").decode(), bool(_one(s, 3, 0)))
    if _CALL in fields:
        c = _fields(fields[_CALL][-1])
        target = _one(c, 1)
        return Call(
            _one(c, 2, b"").decode(),
            _node(target, depth + 1) if target is not None else None,
            tuple(_node(a, depth + 1) for a in c.get(3, [])),
        )
    if _LIST in fields:
        items = _fields(fields[_LIST][-1])
        if 2 in items:  # optional elements (`[?x]`)
            raise NotNative("optional list elements")
        return ListOf(tuple(_node(e, depth + 1) for e in items.get(1, [])))
    raise NotNative("a map or message literal, or a comprehension")


def _constant(c: dict[int, list[Any]]) -> Any:
    # Constant's oneof: 1 null, 2 bool, 3 int64, 4 uint64, 5 double, 6 string, 7 bytes, 8/9 duration/timestamp.
    if 1 in c:
        return None
    if 2 in c:
        return bool(c[2][-1])
    if 3 in c:
        value = c[3][-1]
        return value - (1 << 64) if value >= 1 << 63 else value
    if 5 in c:
        return struct.unpack("<d", c[5][-1])[0]
    if 6 in c:
        return c[6][-1].decode()
    raise NotNative("a uint, bytes, duration or timestamp literal")


def _fields(buf: bytes) -> dict[int, list[Any]]:
    """One protobuf message: its fields by number, each a list of its values (varints as ints, others as bytes)."""
    out: dict[int, list[Any]] = {}
    i, end = 0, len(buf)
    while i < end:
        key, i = _varint(buf, i)
        wire = key & 7
        value: int | bytes
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i : i + 8], i + 8
        elif wire == 2:
            size, i = _varint(buf, i)
            value, i = buf[i : i + size], i + size
        elif wire == 5:
            value, i = buf[i : i + 4], i + 4
        else:
            raise NotNative(f"protobuf wire type {wire}")
        out.setdefault(key >> 3, []).append(value)
    return out


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def _one(fields: dict[int, list[Any]], number: int, default: Any = None) -> Any:
    values = fields.get(number)
    return values[-1] if values else default
