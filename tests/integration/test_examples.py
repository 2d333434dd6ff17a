"""The Python client's examples, each run as its own process against a demo sidecar (authentication
disabled, as under `make run`), as a user would run them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.v1 import supervisor_service_pb2 as pb

from .harness import RunningSidecar, make_config

EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples"


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[RunningSidecar]:
    with RunningSidecar(make_config(tmp_path, auth_enabled=False)) as s:
        yield s


def run(demo: RunningSidecar, name: str) -> list[str]:
    env = {**os.environ, "OUTRIDER_TARGET": demo.sidecar.target}
    env.pop("OUTRIDER_TOKEN", None)
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout.splitlines()


def test_check_action_waits_for_the_approval(demo: RunningSidecar) -> None:
    assert run(demo, "check_action.py") == [
        "deploy: allowed=True approval=APPROVED reason='Approved by anonymous'",
        "read_docs: allowed=True severity=INFO",
    ]
    assert list(demo.stub.ListGuardrails(pb.ListGuardrailsRequest()).guardrails) == []  # it cleaned up


def test_isolator(demo: RunningSidecar) -> None:
    degraded = 'degraded to "sunny (yesterday\'s forecast)" [OPEN]'
    assert run(demo, "isolator.py") == [
        "call 1: raised weather API down [CLOSED]",
        f"call 2: {degraded}",
        f"call 3: {degraded}",
        "probe: 'rain' [CLOSED]",
    ]


def test_lease(demo: RunningSidecar) -> None:
    first, second, last = run(demo, "lease.py")
    assert first == "worker-1 holds the slot (waited 0.0s)"
    assert re.fullmatch(r"worker-2 holds the slot \(waited 0\.[2-9]s\)", second), second
    assert last == "fencing tokens grow: True"


def test_budget(demo: RunningSidecar) -> None:
    assert run(demo, "budget.py") == [
        "after the call: 350 of 1000 left",
        "reserve 500: refused (agent budget: 350 of 1000 left)",
        "consume 260: warnings=['example-agent at 91% of its 1000-token allocation'] signals=['SIGWARN']",
        "can consume 100 more: False",
        "consume 100: over_budget=True signals=['SIGSTOP']",
    ]


def test_agent(demo: RunningSidecar) -> None:
    assert run(demo, "agent.py") == [
        "agent: connected=True",
        "operator: healthy=[True]",
        "agent: restart requested (demo)",
        "agent: killed (MANUAL: demo over), stopping",
        "operator: terminated=True; agent stopped because killed",
    ]
