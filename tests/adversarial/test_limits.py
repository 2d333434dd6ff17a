"""Resource limits that protect: unauthenticated floods are limited per peer address, one agent holds at
most `limits.max_inflight_per_agent` CheckActions, and large contexts are checked off the event loop.

Before: calls with no or a bogus credential were never rate-limited (~2,000 rps got through); one agent
could hold any number of calls; a 3 MB context blocked the event loop for 1.8 s.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.rpc import check, error_info, guardrail


def test_unauthenticated_calls_are_limited_per_peer(tmp_path: Path) -> None:
    config = make_config(tmp_path, unauthenticated_requests_per_second=1.0, unauthenticated_burst=5)
    with RunningSidecar(config) as s:
        anonymous = pb_grpc.SupervisorServiceStub(s.raw_channel)
        codes = []
        for i in range(20):
            metadata = (("authorization", f"Bearer bogus-{i}"),) if i % 2 else None
            with pytest.raises(grpc.RpcError) as err:
                anonymous.CheckAction(check(), metadata=metadata)
            codes.append(err.value.code())
        assert codes[:5] == [grpc.StatusCode.UNAUTHENTICATED] * 5
        assert codes[5:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 15
        # Callers with a credential from the same address are not held back by the flood.
        assert s.stub.CheckAction(check()).allowed


def test_one_agent_holds_at_most_its_in_flight_share(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, max_inflight_per_agent=2)) as s:
        s.stub.AddGuardrail(guardrail("ask", "hitl", patterns=["deploy"], timeout="30s"))
        greedy = s.as_agent("greedy")
        started = threading.Barrier(3)

        def hold() -> bool:
            started.wait()
            return greedy.stub.CheckAction(check(agent_id="greedy", action="deploy")).allowed

        with ThreadPoolExecutor(2) as pool:
            waiting = [pool.submit(hold) for _ in range(2)]
            started.wait()
            deadline = time.monotonic() + 10
            while len(s.services.approvals.pending()) < 2:
                assert time.monotonic() < deadline
                time.sleep(0.02)
            with pytest.raises(grpc.RpcError) as err:
                greedy.stub.CheckAction(check(agent_id="greedy"))
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_info(err.value).reason == "TOO_MANY_IN_FLIGHT"
            assert s.as_agent("other").stub.CheckAction(check(agent_id="other")).allowed
            for approval in s.services.approvals.pending():
                s.stub.CancelApproval(pb.CancelApprovalRequest(approval_id=approval.approval_id, reason="test"))
            assert [w.result(timeout=10) for w in waiting] == [False, False]
        assert greedy.stub.CheckAction(check(agent_id="greedy")).allowed  # the slots came back


def test_large_contexts_are_checked_on_the_chain_pool(tmp_path: Path) -> None:
    with RunningSidecar(make_config(tmp_path, offload_context_bytes=10_000)) as s:
        s.stub.AddGuardrail(guardrail("root", "trust_root", blocked_patterns=[r"DROP\s+TABLE"]))
        threads: set[str] = set()
        original = s.services.checks.offload

        async def spy(fn: object, *args: object) -> object:
            def run() -> object:
                threads.add(threading.current_thread().name)
                return fn(*args)  # type: ignore[operator]

            return await original(run)

        s.services.checks.offload = spy
        big = {"rows": ["x" * 100] * 200, "sql": "DROP TABLE users"}
        r = s.stub.CheckAction(check(context=big))
        assert not r.allowed and r.guardrail == "root"
        assert threads and all(name.startswith("chain") for name in threads)
        threads.clear()
        assert s.stub.CheckAction(check(context={"small": 1})).allowed and not threads
