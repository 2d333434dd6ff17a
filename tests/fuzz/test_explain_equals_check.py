"""ExplainAction accepts and refuses exactly what CheckAction does (issue 27): for generated actions (look-alikes,
invisible characters, whitespace, other scripts) and contexts (deep, long strings, odd spellings), both refuse
with the same code and field, or both answer with the same verdict. Before, Explain skipped the action's
canonicalisation and used the default limits, so it called valid what CheckAction refused.

Seeded (OUTRIDER_FUZZ_SEED overrides): a failure names its seed and reproduces."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from outrider.v1 import supervisor_service_pb2 as pb
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, error_info, guardrail, struct


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSidecar]:
    config = make_config(Path(tmp_path_factory.mktemp("explain-fuzz")), max_context_depth=4, max_string_length=40)
    with RunningSidecar(config) as s:
        s.stub.AddGuardrail(guardrail("root", "trust_root", blocked_patterns=[r"rm\s+-rf"]))
        s.stub.AddGuardrail(guardrail("tools", "action_list", deny=["shell.*"], separators=[".", "/"]))
        s.stub.AddGuardrail(guardrail("cap", "cost_cap", max=100))
        yield s


_PIECES = ["shell", ".", "/", "exec", "files", "read", " ", "\u00a0", "\u200b", "\u200d", "\u0455", "\ua731"]
_PIECES += ["\uff53", "\u043e\u0442\u0447\u0451\u0442", "caf\u00e9", "\u2215", "\t", "deploy", "-", "\u3000"]
_ACTIONS = st.one_of(
    st.lists(st.sampled_from(_PIECES), min_size=0, max_size=5).map("".join),
    st.text(max_size=12),
)
_CONTEXTS = st.one_of(
    st.just({}),
    st.builds(lambda c: {"cost": c}, st.integers(min_value=0, max_value=200)),
    st.just({"a": {"b": {"c": {"d": {"e": 1}}}}}),  # deeper than the configured 4 levels
    st.builds(
        lambda t: {"cmd": t},
        st.lists(st.sampled_from(["rm", " ", "-rf", "\u200b", "\u0433m", "x" * 30]), max_size=4).map("".join),
    ),
)


def _outcome(call: Any) -> tuple[Any, ...]:
    try:
        r = call()
    except grpc.RpcError as err:
        return ("error", err.code(), error_info(err).metadata.get("field", ""))
    return ("answer", r.allowed, r.reason, r.severity, r.guardrail)


@seed(int(os.environ.get("OUTRIDER_FUZZ_SEED", "0")) or 20261204)
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(action=_ACTIONS, context=_CONTEXTS)
def test_explain_answers_as_check_does(both: RunningSidecar, action: str, context: dict[str, Any]) -> None:
    explained = _outcome(
        lambda: both.stub.ExplainAction(
            pb.ExplainActionRequest(agent_id="agent-1", action=action, context=struct(context))
        )
    )
    checked = _outcome(lambda: both.stub.CheckAction(check(action=action, context=context)))
    assert explained == checked, (action, context)
    assert checked[:2] != ("error", grpc.StatusCode.INTERNAL) and checked[:2] != ("error", grpc.StatusCode.UNKNOWN)
