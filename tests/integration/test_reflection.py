"""Server reflection under grpc.reflection.v1 and v1alpha, driven by real outside clients (grpcurl, ghz).

`scripts/grpc-tools.sh` installs both into .outrider-tools/bin (`make test` runs it and requires these tests);
a bare `pytest` without them skips the grpcurl and ghz tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2

from server.domain.access.principals import PrincipalKind

from .harness import RunningSidecar

BIN = Path(__file__).resolve().parents[2] / ".outrider-tools" / "bin"
REQUIRED = os.environ.get("OUTRIDER_REQUIRE_GRPC_TOOLS") == "1"


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        if REQUIRED:
            pytest.fail(f"{path} is missing: run scripts/grpc-tools.sh")
        pytest.skip(f"{name} not installed (scripts/grpc-tools.sh)")
    return str(path)


def reflect(channel: grpc.Channel, package: str, request: reflection_pb2.ServerReflectionRequest) -> list[str]:
    call = channel.stream_stream(
        f"/{package}.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    (response,) = list(call(iter([request]), timeout=5))
    assert not response.HasField("error_response"), response.error_response
    return [s.name for s in response.list_services_response.service]


@pytest.mark.parametrize("package", ["grpc.reflection.v1", "grpc.reflection.v1alpha"])
def test_both_reflection_versions_list_the_services(sidecar: RunningSidecar, package: str) -> None:
    names = reflect(sidecar.raw_channel, package, reflection_pb2.ServerReflectionRequest(list_services=""))
    assert {
        "outrider.v1.SupervisorService",
        "outrider.v1.SafeguardService",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    } <= set(names)


def test_grpcurl_lists_describes_and_calls_through_reflection_alone(sidecar: RunningSidecar) -> None:
    exe = tool("grpcurl")
    target = sidecar.sidecar.target
    listed = subprocess.run([exe, "-plaintext", target, "list"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert "outrider.v1.SupervisorService" in listed.stdout.split()
    assert "grpc.reflection.v1.ServerReflection" in listed.stdout.split()

    described = subprocess.run(
        [exe, "-plaintext", target, "describe", "grpc.reflection.v1.ServerReflection"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert described.returncode == 0, described.stderr
    assert "grpc.reflection.v1.ServerReflectionRequest" in described.stdout

    agent_token = sidecar.issue(PrincipalKind.AGENT, "refl-agent")
    body = json.dumps({"agentId": "refl-agent", "action": "read_file", "context": {"path": "/tmp/x"}})
    called = subprocess.run(
        [
            exe,
            "-plaintext",
            "-H",
            f"authorization: Bearer {agent_token}",
            "-d",
            body,
            target,
            "outrider.v1.SupervisorService/CheckAction",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert called.returncode == 0, called.stderr
    out = json.loads(called.stdout)
    assert out["allowed"] is True
    assert out["decision_id"], out  # grpcurl prints the proto field names


def test_ghz_load_tests_checkaction_through_reflection(sidecar: RunningSidecar, tmp_path: Path) -> None:
    token = sidecar.issue(PrincipalKind.AGENT, "ghz-agent")
    report = tmp_path / "ghz.json"
    run = subprocess.run(
        [
            tool("ghz"),
            "--insecure",
            "--call",
            "outrider.v1.SupervisorService/CheckAction",
            "--metadata",
            json.dumps({"authorization": f"Bearer {token}"}),
            "--data",
            json.dumps({"agent_id": "ghz-agent", "action": "read_file"}),
            "--total",
            "40",
            "--concurrency",
            "4",
            "--format",
            "json",
            "--output",
            str(report),
            sidecar.sidecar.target,
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert run.returncode == 0, run.stderr + run.stdout
    result = json.loads(report.read_text())
    assert result["count"] == 40
    assert result["statusCodeDistribution"] == {"OK": 40}, result.get("errorDistribution")
