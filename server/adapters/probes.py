"""The outbound health probes of the `grpc` and `http` check kinds: grpc.health.v1 Check and an HTTP GET."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


class NetworkProbes:
    """The real grpc.health.v1 and HTTP probes (proxies from the environment are not used)."""

    async def grpc(self, target: str, service: str, timeout: float) -> tuple[bool, str]:
        async with grpc.aio.insecure_channel(target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            try:
                resp = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
            except grpc.aio.AioRpcError as exc:
                return False, f"grpc {exc.code().name}: {exc.details() or ''}".rstrip(": ")
        if resp.status == health_pb2.HealthCheckResponse.SERVING:
            return True, ""
        return False, f"grpc health {health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status)}"

    async def http(self, url: str, timeout: float) -> tuple[bool, str]:
        status = await asyncio.to_thread(_http_get, url, timeout)
        return (True, "") if 200 <= status < 300 else (False, f"HTTP {status}")


def _http_get(url: str, timeout: float) -> int:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(url, method="GET", headers={"User-Agent": "outrider-health-check/1"})
    try:
        with opener.open(request, timeout=timeout) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
