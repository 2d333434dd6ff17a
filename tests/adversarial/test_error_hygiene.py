"""Errors a client can act on: malformed messages, out-of-range Timestamps and Durations and unknown enum
values answer INVALID_ARGUMENT naming the field, with no exception text and no traceback in the log.

Before: malformed protobuf (even with no credential) answered UNKNOWN with Python exception text and
logged a traceback per call; out-of-range times and unknown enums answered INTERNAL (on agent-callable
RPCs too); contexts nested deeper than 33 levels answered UNKNOWN.
"""

from __future__ import annotations

import logging
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2, timestamp_pb2

from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import safeguard_service_pb2 as sg
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.harness import RunningSidecar
from tests.integration.rpc import error_info

CHECK = "/outrider.v1.SupervisorService/CheckAction"


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _len_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _nested_struct(levels: int) -> bytes:
    """A Struct {"n": {"n": ... {}}} `levels` deep, encoded by hand (protobuf refuses to build it)."""
    body = b""
    for _ in range(levels - 1):
        value = _len_field(5, body)  # Value.struct_value
        entry = _len_field(1, b"n") + _len_field(2, value)  # map entry: key, value
        body = _len_field(1, entry)  # Struct.fields
    return body


def _raw(sidecar: RunningSidecar, method: str, payload: bytes, token: str | None) -> grpc.RpcError:
    call = sidecar.raw_channel.unary_unary(method, request_serializer=None, response_deserializer=None)
    metadata = (("authorization", f"Bearer {token}"),) if token else None
    with pytest.raises(grpc.RpcError) as err:
        call(payload, metadata=metadata, timeout=10)
    return err.value


def _assert_clean(err: grpc.RpcError, field: str | None = None) -> None:
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (err.code(), err.details())
    details = err.details() or ""
    for leak in ("Traceback", "Error parsing", "DecodeError", "Exception", 'File "'):
        assert leak not in details, details
    if field is not None:
        assert error_info(err).metadata["field"] == field, details


@pytest.mark.parametrize("with_credential", [False, True])
def test_malformed_protobuf_is_invalid_argument_without_exception_text(
    sidecar: RunningSidecar, caplog: pytest.LogCaptureFixture, with_credential: bool
) -> None:
    token = sidecar.operator_secret if with_credential else None
    with caplog.at_level(logging.INFO):
        for junk in (b"\xff\xff\xff", b"\x0a\xff\x01abc", b"\x12\x02\xc3\x28"):  # bad tag, short, bad UTF-8
            err = _raw(sidecar, CHECK, junk, token)
            _assert_clean(err)
            assert error_info(err).reason == "MALFORMED_REQUEST"
    assert not [r for r in caplog.records if r.exc_info], "a malformed request logged a traceback"
    assert len([r for r in caplog.records if r.getMessage() == "malformed request refused"]) <= 1


def test_a_context_nested_past_protobufs_limit_is_invalid_argument(sidecar: RunningSidecar) -> None:
    request = _len_field(1, b"agent-1") + _len_field(2, b"act") + _len_field(3, _nested_struct(40))
    _assert_clean(_raw(sidecar, CHECK, request, sidecar.operator_secret))


def _ts(seconds: int) -> timestamp_pb2.Timestamp:
    return timestamp_pb2.Timestamp(seconds=seconds)


@pytest.mark.parametrize(
    "stub_name, method, request_, field",
    [
        ("stub", "ListDecisions", pb.ListDecisionsRequest(start_time=_ts(10**12)), "start_time"),
        ("stub", "ListDecisions", pb.ListDecisionsRequest(end_time=_ts(-(10**12))), "end_time"),
        ("stub", "ListApprovals", pb.ListApprovalsRequest(start_time=_ts(10**12)), "start_time"),
        ("stub", "ListApprovals", pb.ListApprovalsRequest(state=99), "state"),  # type: ignore[arg-type]
        ("stub", "CheckAction", pb.CheckActionRequest(agent_id="agent-1", action="a", wait_mode=7), "wait_mode"),  # type: ignore[arg-type]
        ("recovery", "GetRecoveryHistory", rpb.GetRecoveryHistoryRequest(agent_id="agent-1", trigger=42), "trigger"),  # type: ignore[arg-type]
        ("recovery", "GetRecoveryHistory", rpb.GetRecoveryHistoryRequest(start_time=_ts(10**13)), "start_time"),
        (
            "safeguard",
            "Reserve",
            sg.ReserveRequest(agent_id="agent-1", estimate=1, ttl=duration_pb2.Duration(seconds=10**12)),
            "ttl",
        ),
        (
            "safeguard",
            "Reserve",
            sg.ReserveRequest(agent_id="agent-1", estimate=1, ttl=duration_pb2.Duration(seconds=5, nanos=-1)),
            "ttl",
        ),
    ],
)
def test_out_of_range_values_name_the_field_for_agents_too(
    sidecar: RunningSidecar, stub_name: str, method: str, request_: Any, field: str
) -> None:
    agent = sidecar.as_agent("agent-1")
    for stubs in (sidecar, agent):
        with pytest.raises(grpc.RpcError) as err:
            getattr(getattr(stubs, stub_name), method)(request_)
        _assert_clean(err.value, field)
        assert field in (err.value.details() or "")


def test_nested_out_of_range_values_name_the_path(sidecar: RunningSidecar) -> None:
    from outrider.v1 import safeguard_pb2

    episode = safeguard_pb2.Episode(task_id="t", agent_id="agent-1", task_type="k", outcome="ok")
    episode.episode_time.seconds = 10**12
    with pytest.raises(grpc.RpcError) as err:
        sidecar.safeguard.RecordEpisode(sg.RecordEpisodeRequest(episode=episode))
    _assert_clean(err.value, "episode.episode_time")
