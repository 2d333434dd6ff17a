"""Fuzz CheckActions with whole sequences on one stream, as an agent: ids reused or not, another agent's id,
empty and oversized actions, non-finite numbers, deep contexts, waits for a human. Whatever the sequence,
no answer and no end of the stream is INTERNAL or UNKNOWN, every id is answered at most once per time it
was sent, and a stream that ends with an error ends for a reason the contract names.

Seeded (OUTRIDER_FUZZ_SEED overrides): a failure names its seed and reproduces."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import code_pb2
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc
from server.domain.access.principals import PrincipalKind
from tests.integration.creds import with_token
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, guardrail, struct

# How a stream may end with an error, by contract (proto/outrider/v1/supervisor_service.proto).
STREAM_ENDS = {grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT}
ANSWER_CODES = {code_pb2.INVALID_ARGUMENT, code_pb2.RESOURCE_EXHAUSTED}


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(Path(tmp_path_factory.mktemp("stream-fuzz")), max_context_depth=6)) as s:
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        s.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"]))
        s.stub.AddGuardrail(guardrail("ask", "hitl", patterns=["deploy"]))
        yield s


_CONTEXTS = st.one_of(
    st.just({}),
    st.builds(lambda c: {"cost": c}, st.floats(allow_nan=True, allow_infinity=True)),
    st.just({"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}),
    st.dictionaries(st.text(max_size=5), st.text(max_size=20), max_size=3),
)
_REQUESTS = st.builds(
    lambda i, agent, action, ctx, wait: pb.CheckActionsRequest(
        id=i,
        check=pb.CheckActionRequest(
            agent_id=agent, action=action, context=struct(ctx), request_id=f"r{i}", wait_mode=wait
        ),
    ),
    st.integers(min_value=0, max_value=5),
    st.sampled_from(["agent-1", "agent-1", "agent-1", "", "agent-2"]),
    st.sampled_from(["read", "shell.exec", "deploy", "", "x" * 2000, "files.list"]),
    _CONTEXTS,
    st.sampled_from([pb.WAIT_MODE_NON_BLOCKING, pb.WAIT_MODE_NON_BLOCKING, pb.WAIT_MODE_BLOCKING]),
)


@seed(int(os.environ.get("OUTRIDER_FUZZ_SEED", "0")) or 20261201)
@settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(requests=st.lists(_REQUESTS, min_size=1, max_size=12))
def test_no_sequence_crashes_the_stream(fuzzed: RunningSidecar, requests: list[pb.CheckActionsRequest]) -> None:
    channel = with_token(fuzzed.raw_channel, fuzzed.issue(PrincipalKind.AGENT, "agent-1"))
    stub: Any = supervisor_service_pb2_grpc.SupervisorServiceStub(channel)
    answers: list[pb.CheckActionsResponse] = []
    ended: grpc.RpcError | None = None
    try:
        # A request waiting for a human is never decided here: the deadline ends the stream.
        for answer in stub.CheckActions(iter(requests), timeout=2):
            answers.append(answer)
    except grpc.RpcError as err:
        ended = err
    for a in answers:
        if a.HasField("error"):
            assert a.error.code in ANSWER_CODES, a
            assert "Traceback" not in a.error.message and a.error.reason != "INTERNAL", a
    sent = Counter(r.id for r in requests)
    assert all(n <= sent[i] for i, n in Counter(a.id for a in answers).items())
    if ended is not None:
        assert ended.code() in STREAM_ENDS | {grpc.StatusCode.DEADLINE_EXCEEDED}, ended
        assert "Traceback" not in (ended.details() or "")


def test_the_sidecar_still_decides_afterwards(fuzzed: RunningSidecar) -> None:
    assert fuzzed.as_agent("agent-1").stub.CheckAction(check(context={"cost": 1})).allowed
