"""Bounds on what an agent names (issue 31), over real gRPC: an agent spraying breaker keys is refused with
RESOURCE_EXHAUSTED naming the field once it holds safeguards.breakers.max_keys_per_agent of them."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from outrider.v1 import safeguard_service_pb2 as pb
from server.services.safeguards.settings import parse_safeguards

from .harness import RunningSidecar, make_config
from .rpc import error_info


def test_an_agent_spraying_breaker_keys_is_refused_beyond_its_bound(tmp_path: Path) -> None:
    config = make_config(tmp_path, safeguards=parse_safeguards({"breakers": {"max_keys_per_agent": 3}}))
    with RunningSidecar(config) as s:
        agent = s.as_agent("spray-agent").safeguard
        for i in range(3):
            assert agent.AcquirePermit(pb.AcquirePermitRequest(key=f"spray-agent:dep-{i}")).permitted
        with pytest.raises(grpc.RpcError) as err:
            agent.AcquirePermit(pb.AcquirePermitRequest(key="spray-agent:dep-3"))
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        info = error_info(err.value)
        assert (info.reason, info.metadata["field"]) == ("BREAKER_KEYS_EXHAUSTED", "key")
        assert agent.AcquirePermit(pb.AcquirePermitRequest(key="spray-agent:dep-0")).permitted  # its own, known
        other = s.as_agent("calm-agent").safeguard
        assert other.AcquirePermit(pb.AcquirePermitRequest(key="calm-agent:db")).permitted
