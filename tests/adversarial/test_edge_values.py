"""Values an agent sends that JSON and the rules cannot hold: refused at the edge, naming the path.

Before the one converter, a NaN in a context was answered (and killed the decision-log writer), NaN
slipped past `cost_cap`, -Inf past `budget`, a context nested 33+ levels answered UNKNOWN, and
`binary_context` was not counted against the context limit.
"""

from __future__ import annotations

import math
from pathlib import Path

import grpc
import pytest
from google.protobuf import struct_pb2

from outrider.v1 import safeguard_pb2
from outrider.v1 import safeguard_service_pb2 as sg
from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, error_info, guardrail


def _check_with(context: struct_pb2.Struct, **kw: object) -> pb.CheckActionRequest:
    return pb.CheckActionRequest(agent_id="agent-1", action="act", context=context, **kw)  # type: ignore[arg-type]


def _refused(call: object, request: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as err:
        call(request)  # type: ignore[operator]
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    return err.value


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused_naming_the_path(sidecar: RunningSidecar, number: float) -> None:
    ctx = struct_pb2.Struct()
    ctx.update({"steps": [{"cost": 1}, {"cost": 2}, {"cost": 0}]})
    ctx["steps"][2]["cost"] = number
    err = _refused(sidecar.stub.CheckAction, _check_with(ctx))
    assert "context.steps[2].cost" in (err.details() or "")
    assert error_info(err).metadata["field"] == "context.steps[2].cost"


def test_nan_does_not_pass_cost_cap_and_minus_inf_does_not_pass_budget(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("cap", "cost_cap", key="cost", max=100))
    sidecar.stub.AddGuardrail(guardrail("tokens", "budget"))
    sidecar.safeguard.Allocate(sg.AllocateRequest(agent_id="agent-1", tokens=10))
    for key, number in (("cost", math.nan), ("tokens", -math.inf), ("tokens", math.inf)):
        ctx = struct_pb2.Struct()
        ctx[key] = number
        err = _refused(sidecar.stub.CheckAction, _check_with(ctx))
        assert f"context.{key}" in (err.details() or "")


def test_nesting_deeper_than_the_limit_is_invalid_argument(sidecar: RunningSidecar) -> None:
    def nested(levels: int) -> struct_pb2.Struct:
        inner: dict[str, object] = {"leaf": 1}
        for _ in range(levels - 1):
            inner = {"n": inner}
        s = struct_pb2.Struct()
        s.update(inner)
        return s

    assert sidecar.stub.CheckAction(_check_with(nested(32))).allowed
    # Each JSON level is three protobuf levels (Struct, map entry, Value): protobuf's own limit of 100
    # refuses the message itself beyond 33 (tests/adversarial/test_error_hygiene.py sends those raw).
    for levels in (33,):
        err = _refused(sidecar.stub.CheckAction, _check_with(nested(levels)))
        assert "nested deeper than 32 levels" in (err.details() or "")
        assert (err.details() or "").startswith("context.n.n.")


def test_the_depth_limit_is_configurable(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_context_depth=3)) as s:
        assert s.stub.CheckAction(check(context={"a": {"b": {"c": 1}}})).allowed
        err = _refused(s.stub.CheckAction, check(context={"a": {"b": {"c": {"d": 1}}}}))
        assert (err.details() or "").startswith("context.a.b.c: nested deeper than 3 levels")
        err = _refused(s.stub.CheckAction, check(context={"a": {"b": [[1]]}}))
        assert (err.details() or "").startswith("context.a.b[0]: nested deeper than 3 levels")


def test_oversized_strings_are_refused_in_any_struct(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_string_length=100)) as s:
        err = _refused(s.stub.CheckAction, check(context={"note": "x" * 101}))
        assert "context.note" in (err.details() or "")
        err = _refused(s.stub.AddGuardrail, guardrail("a", "action_list", deny=["y" * 101]))
        assert "guardrail.options.deny[0]" in (err.details() or "")


def test_binary_context_counts_against_the_context_limit(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_context_bytes=1000)) as s:
        assert s.stub.CheckAction(check(binary_context={"blob": b"x" * 500})).allowed
        err = _refused(s.stub.CheckAction, check(context={"note": "x" * 500}, binary_context={"blob": b"x" * 600}))
        assert "over the limit of 1000" in (err.details() or "")


def test_every_accepted_struct_is_checked(sidecar: RunningSidecar) -> None:
    """Episode metadata, breaker results and reversibility parameters go through the same converter."""
    meta = struct_pb2.Struct()
    meta["deep"] = {"x": math.nan}
    err = _refused(
        sidecar.safeguard.RecordEpisode,
        sg.RecordEpisodeRequest(
            episode=safeguard_pb2.Episode(task_id="t1", agent_id="agent-1", task_type="k", outcome="ok", metadata=meta)
        ),
    )
    assert "episode.metadata" in (err.details() or "")
    params = struct_pb2.Struct()
    params["p"] = [1, math.inf]
    err = _refused(sidecar.safeguard.AssessReversibility, sg.AssessReversibilityRequest(action="x", parameters=params))
    assert "parameters.p[1]" in (err.details() or "")
