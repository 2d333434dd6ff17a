"""Finished spans straight to the bytes of an OTLP `ExportTraceServiceRequest`, for the batch exporter.

The SDK's encoder builds a protobuf object per span, per attribute and per attribute value, and hashes
each span's Resource (a JSON dump) to group them: most of what always-on tracing cost a sidecar. This
writes the wire format directly, field by field in field-number order as protobuf does, and keeps the
encoded bytes of attributes whose value repeats (guardrail names, kinds, verdicts, the agent, the action),
so a repeated attribute costs one dict lookup. The result decodes to what the SDK's `encode_spans` builds
(tests/unit/test_otlp_spans.py compares both, every attribute type, events, links, status, resource).
"""

from __future__ import annotations

import inspect
import logging
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, Status, StatusCode

log = logging.getLogger(__name__)

_fixed64 = struct.Struct("<Q").pack
_double = struct.Struct("<d").pack
_fixed32 = struct.Struct("<I").pack
_SMALL = [bytes((n,)) for n in range(128)]
_INT64 = 1 << 63
_KIND = {
    SpanKind.INTERNAL: 1,
    SpanKind.SERVER: 2,
    SpanKind.CLIENT: 3,
    SpanKind.PRODUCER: 4,
    SpanKind.CONSUMER: 5,
}
_KIND_FIELD = {kind: b"\x30" + _SMALL[n] for kind, n in _KIND.items()}
# Span.flags (and Link.flags): the SDK sets "has is_remote" on every span, "is remote" for a remote parent.
_HAS_IS_REMOTE = 0x100
_IS_REMOTE = 0x200

_LOCAL_PARENT = b"\x85\x01" + _fixed32(_HAS_IS_REMOTE)  # Span.flags (field 16, fixed32)
_REMOTE_PARENT = b"\x85\x01" + _fixed32(_HAS_IS_REMOTE | _IS_REMOTE)

# Attribute fields whose encoding is kept (see `_attributes`); cleared when full: unique values (decision
# ids) come and go, the repeated ones are re-encoded once.
_CACHE_MAX = 4096
_CACHED_STRING_MAX = 256  # longer values (reasons quoting a context) are encoded every time
_kv_cache: dict[Any, bytes] = {}
_key_cache: dict[str, bytes] = {}
_name_cache: dict[str, bytes] = {}  # Span.name fields (span names repeat: one per RPC method and guardrail)
# The SDK's UNSET status without a description, shared by every span that never set one (LightSpans too).
UNSET_STATUS: Status = inspect.signature(ReadableSpan.__init__).parameters["status"].default
assert UNSET_STATUS.status_code is StatusCode.UNSET and not UNSET_STATUS.description


def _varint(n: int) -> bytes:
    if n < 0x80:
        return _SMALL[n]
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(tag: bytes, body: bytes) -> bytes:
    """A length-delimited field: tag, length, body."""
    n = len(body)
    return tag + (_SMALL[n] if n < 0x80 else _varint(n)) + body


def _key(key: str) -> bytes:
    """KeyValue.key (field 1) as bytes."""
    found = _key_cache.get(key)
    if found is None:
        found = _field(b"\x0a", key.encode()) if key else b""
        if len(_key_cache) < _CACHE_MAX:
            _key_cache[key] = found
    return found


def _any_value(value: Any) -> bytes:
    """The body of an AnyValue (one field of its oneof; nothing for None)."""
    t = value.__class__
    if t is str:
        return _field(b"\x0a", value.encode())
    if t is bool:
        return b"\x10\x01" if value else b"\x10\x00"
    if t is int:
        if not -_INT64 <= value < _INT64:
            raise ValueError(f"{value} is out of the int64 range")
        return b"\x18" + _varint(value if value >= 0 else value + (1 << 64))
    if t is float:
        return b"\x21" + _double(value)
    if value is None:
        return b""
    # Subclasses and containers, as the SDK's _encode_value orders its checks.
    if isinstance(value, bool):
        return b"\x10\x01" if value else b"\x10\x00"
    if isinstance(value, str):
        return _field(b"\x0a", value.encode())
    if isinstance(value, int):
        return _any_value(int(value))
    if isinstance(value, float):
        return b"\x21" + _double(value)
    if isinstance(value, bytes):
        return _field(b"\x3a", value)
    if isinstance(value, Sequence):
        return _field(b"\x2a", b"".join([_field(b"\x0a", _any_value(v)) for v in value]))
    if isinstance(value, Mapping):
        pairs = b"".join([_field(b"\x0a", _key(str(k)) + _field(b"\x12", _any_value(v))) for k, v in value.items()])
        return _field(b"\x32", pairs)
    raise TypeError(f"invalid attribute type {t.__name__}")


def _key_value(key: str, value: Any) -> bytes:
    """A KeyValue message with its length prefix (the caller adds the field's tag)."""
    return _field(b"", _key(key) + _field(b"\x12", _any_value(value)))


def _double_prefix(tag: bytes, key: str) -> bytes:
    """Everything of a field `tag` holding KeyValue(key, double) but the double's 8 bytes."""
    found = _kv_cache.get((tag, key, float))
    if found is None:
        k = _key(key)
        found = tag + _varint(len(k) + 11) + k + b"\x12\x09\x21"
        _remember((tag, key, float), found)
    return found


def _remember(cache_key: Any, encoded: bytes) -> None:
    if len(_kv_cache) >= _CACHE_MAX:
        _kv_cache.clear()
    _kv_cache[cache_key] = encoded


def _items(attributes: Any) -> Iterable[tuple[str, Any]]:
    """An attributes mapping's items; for the SDK's BoundedAttributes (immutable once a span ended) its
    plain dict, sparing the Mapping protocol's lock and copy per read."""
    if not attributes:
        return ()
    if attributes.__class__ is dict:  # a LightSpan's (server/telemetry/child_spans.py)
        return attributes.items()
    inner = getattr(attributes, "_dict", None)
    return inner.items() if isinstance(inner, dict) else attributes.items()


def _attributes(tag: bytes, attributes: Any, out: list[bytes]) -> None:
    """Each attribute as a field `tag` holding a KeyValue. A str, bool or int value's field is kept whole
    (`(tag, key, value)`: the tag tells span from event attributes, the type tells True from 1); a
    float's field differs in its last 8 bytes only."""
    cache = _kv_cache
    for key, value in _items(attributes):
        t = value.__class__
        if t is float:
            out.append(_double_prefix(tag, key) + _double(value))
            continue
        cache_key: Any = None
        if t is str:
            if len(value) <= _CACHED_STRING_MAX:
                cache_key = (tag, key, value)
        elif t is bool or t is int:
            cache_key = (tag, key, t, value)
        if cache_key is not None:
            found = cache.get(cache_key)
            if found is not None:
                out.append(found)
                continue
        try:
            encoded = tag + _key_value(key, value)
        except Exception as exc:  # as the SDK: an attribute that cannot be encoded is left out and logged
            log.exception("Failed to encode key %s: %s", key, exc)
            continue
        if cache_key is not None:
            _remember(cache_key, encoded)
        out.append(encoded)


def _scope(scope: Any) -> bytes:
    """InstrumentationScope (name 1, version 2, attributes 3)."""
    if scope is None:
        return b""
    out: list[bytes] = []
    if scope.name:
        out.append(_field(b"\x0a", scope.name.encode()))
    if scope.version:
        out.append(_field(b"\x12", scope.version.encode()))
    _attributes(b"\x1a", scope.attributes, out)
    return b"".join(out)


def _resource(resource: Any) -> bytes:
    """Resource (attributes 1)."""
    out: list[bytes] = []
    _attributes(b"\x0a", resource.attributes, out)
    return b"".join(out)


def _flags(context: Any) -> bytes:
    flags = _HAS_IS_REMOTE | _IS_REMOTE if context is not None and context.is_remote else _HAS_IS_REMOTE
    return _fixed32(flags)


def _trace_state(state: Any) -> bytes:
    if not state:
        return b""
    return ",".join([f"{k}={v}" for k, v in state.items()]).encode()


def _span(s: ReadableSpan) -> bytes:
    """A Span message's body, fields in number order (the order protobuf writes them). Reads the
    ReadableSpan's fields, not its properties: those copy the events and links and wrap the attributes."""
    ctx = s._context
    assert ctx is not None
    out = [b"\x0a\x10", ctx.trace_id.to_bytes(16, "big"), b"\x12\x08", ctx.span_id.to_bytes(8, "big")]
    state = _trace_state(ctx.trace_state)
    if state:
        out.append(_field(b"\x1a", state))
    parent = s._parent
    if parent is not None:
        out.append(b"\x22\x08")
        out.append(parent.span_id.to_bytes(8, "big"))
    name = s._name
    if name:
        found = _name_cache.get(name)
        if found is None:
            found = _field(b"\x2a", name.encode())
            if len(_name_cache) >= _CACHE_MAX:
                _name_cache.clear()
            _name_cache[name] = found
        out.append(found)
    out.append(_KIND_FIELD[s._kind])
    if s._start_time:
        out.append(b"\x39")
        out.append(_fixed64(s._start_time))
    if s._end_time:
        out.append(b"\x41")
        out.append(_fixed64(s._end_time))
    attributes = s._attributes
    if attributes:
        _attributes(b"\x4a", attributes, out)
        dropped = 0 if attributes.__class__ is dict else getattr(attributes, "dropped", 0)
        if dropped:
            out.append(b"\x50" + _varint(dropped))
    events = s._events
    if events:
        for e in events:
            body = [b"\x09", _fixed64(e.timestamp)] if e.timestamp else []
            if e.name:
                body.append(_field(b"\x12", e.name.encode()))
            _attributes(b"\x1a", e.attributes, body)
            if e.dropped_attributes:
                body.append(b"\x20" + _varint(e.dropped_attributes))
            out.append(_field(b"\x5a", b"".join(body)))
        dropped = getattr(events, "dropped", 0)
        if dropped:
            out.append(b"\x60" + _varint(dropped))
    links = s._links
    if links:
        for link in links:
            lc = link.context
            body = [b"\x0a\x10", lc.trace_id.to_bytes(16, "big"), b"\x12\x08", lc.span_id.to_bytes(8, "big")]
            _attributes(b"\x22", link.attributes, body)
            if link.dropped_attributes:
                body.append(b"\x28" + _varint(link.dropped_attributes))
            body.append(b"\x35" + _flags(lc))
            out.append(_field(b"\x6a", b"".join(body)))
        dropped = getattr(links, "dropped", 0)
        if dropped:
            out.append(b"\x70" + _varint(dropped))
    status = s._status
    if status is UNSET_STATUS:
        out.append(b"\x7a\x00")
    elif status is not None:
        code = status.status_code.value
        if code or status.description:
            body = []
            if status.description:
                body.append(_field(b"\x12", status.description.encode()))
            if code:
                body.append(b"\x18" + _varint(code))
            out.append(_field(b"\x7a", b"".join(body)))
        else:
            out.append(b"\x7a\x00")
    out.append(_LOCAL_PARENT if parent is None or not parent.is_remote else _REMOTE_PARENT)
    return b"".join(out)


class _Cached:
    """An encoding per object, held with the object so a recycled id() never finds a stale one."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Any, Any]] = {}

    def get(self, obj: Any, encode: Any) -> Any:
        found = self._by_id.get(id(obj))
        if found is not None and found[0] is obj:
            return found[1]
        encoded = encode(obj)
        if len(self._by_id) >= 64:
            self._by_id.clear()
        self._by_id[id(obj)] = (obj, encoded)
        return encoded


_resources = _Cached()
_scopes = _Cached()
Group = tuple[tuple[bytes, str], tuple[bytes, str]]  # (resource body, schema), (scope body, schema)
_last_group: tuple[Any, Any, Group] = (None, None, ((b"", ""), (b"", "")))


def _group(resource: Any, scope: Any) -> Group:
    """Where a span goes in the request: its resource's and scope's encodings (the spans of one tracer
    share both, so the last pair answers most spans)."""
    global _last_group
    last = _last_group
    if last[0] is resource and last[1] is scope:
        return last[2]
    group = (
        (_resources.get(resource, _resource), resource.schema_url or ""),
        (_scopes.get(scope, _scope), (scope.schema_url or "") if scope is not None else ""),
    )
    _last_group = (resource, scope, group)
    return group


def encode_span(s: ReadableSpan) -> tuple[Group, bytes]:
    """One finished span's part of a request: where it goes, and its `Span` message as a field of
    `ScopeSpans`. `encode_spans` takes these in place of spans: the batch exporter's queue holds bytes, not
    span objects, and joins them."""
    return _group(s.resource, s.instrumentation_scope or None), _field(b"\x12", _span(s))


def encode_spans(spans: Sequence[ReadableSpan | tuple[Group, bytes]]) -> bytes:
    """The serialized `ExportTraceServiceRequest` for `spans` (finished spans, or what `encode_span` made of
    them): grouped by resource, then by instrumentation scope, in order of first appearance (as the SDK's
    encoder groups them)."""
    groups: dict[tuple[bytes, str], dict[tuple[bytes, str], list[bytes]]] = {}
    last: Any = None
    encoded: list[bytes] = []
    for item in spans:
        group, encoded_span = item if isinstance(item, tuple) else encode_span(item)
        if group is not last:  # runs of spans of one tracer share the group object
            last = group
            rkey, skey = group
            by_scope = groups.get(rkey)
            if by_scope is None:
                by_scope = groups[rkey] = {}
            found = by_scope.get(skey)
            if found is None:
                found = by_scope[skey] = []
            encoded = found
        encoded.append(encoded_span)
    request: list[bytes] = []
    for (resource_body, resource_schema), by_scope in groups.items():
        body = [_field(b"\x0a", resource_body)]
        for (scope_body, scope_schema), encoded in by_scope.items():
            scope_spans = [_field(b"\x0a", scope_body), *encoded]
            if scope_schema:
                scope_spans.append(_field(b"\x1a", scope_schema.encode()))
            body.append(_field(b"\x12", b"".join(scope_spans)))
        if resource_schema:
            body.append(_field(b"\x1a", resource_schema.encode()))
        request.append(_field(b"\x0a", b"".join(body)))
    return b"".join(request)
