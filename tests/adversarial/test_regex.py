"""Operator regular expressions over real gRPC: RE2 keeps the event loop free, and what RE2 cannot mean is
refused at add time (INVALID_ARGUMENT) and at start-up (naming file, key and pattern).

Before: `^(a+)+$` in a trust root froze every agent for a second at 24 characters, doubling with each
one; a back-reference pattern was accepted, and beside another pattern in the joined fast scan it let
matching input through.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from server.config import load_config
from server.domain.errors import InvalidArgument
from server.sidecar import build_server
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, guardrail


def test_redos_shaped_input_does_not_stall_other_agents(sidecar: RunningSidecar) -> None:
    sidecar.stub.AddGuardrail(guardrail("root", "trust_root", blocked_patterns=[r"^(a+)+$"]))
    sidecar.stub.CheckAction(check())  # warm
    # No stopwatch: under a backtracking engine each attack would take ~2**64 steps (centuries), holding its
    # worker (and the event loop) for good. The victim answering within its deadline while three of them run,
    # and the attacks themselves answering, prove nothing stalls behind them.
    evil = check(action="a" * 64 + "!", context={"p": "a" * 100_000 + "!"})
    with ThreadPoolExecutor(4) as pool:
        attacks = [pool.submit(sidecar.stub.CheckAction, evil, timeout=60) for _ in range(3)]
        assert sidecar.stub.CheckAction(check(agent_id="victim"), timeout=30).allowed
        assert all(a.result(timeout=60).allowed for a in attacks)


def test_a_back_reference_is_invalid_argument_at_add_time(sidecar: RunningSidecar) -> None:
    with pytest.raises(grpc.RpcError) as err:
        sidecar.stub.AddGuardrail(
            guardrail("root", "trust_root", blocked_patterns=[r"(DROP|TRUNCATE)\s+TABLE", r"(\w)\1{3,}"])
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "RE2" in (err.value.details() or "") and r"\\1{3,}" in (err.value.details() or "")


def test_a_back_reference_in_the_policy_file_stops_start_up(tmp_path: Path) -> None:
    policy = tmp_path / "outrider.yaml"
    policy.write_text(
        "guardrails:\n"
        "  - {name: root, kind: trust_root, blocked_patterns: ['(DROP|TRUNCATE)\\s+TABLE', '(\\w)\\1{3,}']}\n"
    )
    config = make_config(tmp_path, config_path=policy)
    assert load_config(str(policy), env={}).config_path == policy
    import asyncio

    with pytest.raises(InvalidArgument) as err:
        asyncio.run(build_server(config, with_scheduler=False))
    message = err.value.message
    assert str(policy) in message and "blocked_patterns" in message and r"\\1{3,}" in message
