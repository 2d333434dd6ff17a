"""Fuzz every RPC of every service, as an agent and as an operator: Hypothesis messages generated from
the descriptors, then raw byte mutations of them. No input may answer INTERNAL or UNKNOWN or carry
traceback text; afterwards the sidecar is SERVING and the decision log still writes.

Seeded per RPC (crc32 of its name, or OUTRIDER_FUZZ_SEED): a failure names its seed and reproduces.
Bounded: a few examples per RPC keep the whole suite near a minute in `make test`.
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from outrider.v1 import (
    access_service_pb2,
    common_pb2,
    recovery_service_pb2,
    safeguard_service_pb2,
    supervisor_service_pb2,
)
from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.access.principals import PrincipalKind
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check

from . import strategies

SERVICES = [
    m.DESCRIPTOR.services_by_name[name]
    for m, name in (
        (supervisor_service_pb2, "SupervisorService"),
        (recovery_service_pb2, "RecoveryService"),
        (safeguard_service_pb2, "SafeguardService"),
        (access_service_pb2, "AccessService"),
    )
]
METHODS = [method for service in SERVICES for method in service.methods]
EXAMPLES = int(os.environ.get("OUTRIDER_FUZZ_EXAMPLES", "8"))
STREAM_EXAMPLES = 3
FORBIDDEN = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
LEAKS = ("Traceback", 'File "', "Exception:", "Error:")
SEEN: Counter[str] = Counter()  # status codes answered, for the closing check (and a reader's curiosity)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(Path(tmp_path_factory.mktemp("fuzz")))) as s:
        s.stub.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id="agent-1", group="g")))
        yield s


def _token(s: RunningSidecar, who: str) -> str:
    if who == "operator":
        return s.operator_secret
    return s.issue(PrincipalKind.AGENT, "agent-1")


def _seed(method: Any) -> int:
    return int(os.environ.get("OUTRIDER_FUZZ_SEED", "0")) or zlib.crc32(method.full_name.encode())


def _call(channel: grpc.Channel, method: Any, payload: bytes, token: str) -> None:
    path = f"/{method.containing_service.full_name}/{method.name}"
    metadata = (("authorization", f"Bearer {token}"),)
    timeout = 0.3 if method.server_streaming else 3.0
    SEEN["OK"] += 1  # taken back below when the call fails
    try:
        if method.client_streaming and method.server_streaming:
            responses = channel.stream_stream(path)(iter([payload]), metadata=metadata, timeout=timeout)
            for _ in zip(range(3), responses, strict=False):
                pass
        elif method.client_streaming:
            channel.stream_unary(path)(iter([payload, payload]), metadata=metadata, timeout=timeout)
        elif method.server_streaming:
            for _ in zip(
                range(3), channel.unary_stream(path)(payload, metadata=metadata, timeout=timeout), strict=False
            ):
                pass
        else:
            channel.unary_unary(path)(payload, metadata=metadata, timeout=timeout)
    except grpc.RpcError as err:
        code, details = err.code(), err.details() or ""
        SEEN["OK"] -= 1
        SEEN[code.name] += 1
        assert code not in FORBIDDEN, f"{path} answered {code.name}: {details!r} (payload {payload.hex()[:400]})"
        leaked = [leak for leak in LEAKS if leak in details]
        assert not leaked, f"{path} leaked {leaked} in {details!r}"
        if code == grpc.StatusCode.DEADLINE_EXCEEDED and not method.server_streaming:
            pytest.fail(f"{path} did not answer within {timeout}s (payload {payload.hex()[:400]})")


@pytest.mark.parametrize("who", ["agent", "operator"])
@pytest.mark.parametrize("method", METHODS, ids=[f"{m.containing_service.name}.{m.name}" for m in METHODS])
def test_no_input_crashes_the_rpc(fuzzed: RunningSidecar, method: Any, who: str) -> None:
    token = _token(fuzzed, who)
    channel = fuzzed.raw_channel
    request = strategies.message(method.input_type)
    examples = STREAM_EXAMPLES if method.server_streaming else EXAMPLES

    @seed(_seed(method))
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        message = data.draw(request, label="request")
        payload = message.SerializeToString()
        _call(channel, method, payload, token)
        _call(channel, method, data.draw(strategies.mutated(payload), label="mutated"), token)

    run()


def test_the_sidecar_is_serving_and_logging_afterwards(fuzzed: RunningSidecar) -> None:
    # The fuzzing reached the servicers: some calls succeeded, many were refused as invalid.
    assert SEEN["OK"] > 50 and SEEN["INVALID_ARGUMENT"] > 100, dict(SEEN)
    health = health_pb2_grpc.HealthStub(fuzzed.raw_channel)
    for service in ("", "outrider.decision_log"):
        status = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status
        assert status == health_pb2.HealthCheckResponse.SERVING, service
    log = fuzzed.services.decisions
    written = log.stats.written
    decision = fuzzed.stub.CheckAction(check(agent_id="after-fuzz")).decision_id
    assert log.flush(10)
    assert log.stats.written > written and log.stats.up
    listed = fuzzed.stub.ListDecisions(pb.ListDecisionsRequest(agent_id="after-fuzz")).decisions
    assert [d.decision_id for d in listed] == [decision]
