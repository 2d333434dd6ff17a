"""The fastest a Python gRPC server answers CheckAction on this host: a grpc.aio server that does nothing.

`bench/opa.py` runs one or two of these processes on one port (SO_REUSEPORT, as `serve --workers` does) and
sends them exactly what it sends the sidecar. `/outrider.v1.SupervisorService/CheckAction` is a generic
handler that neither parses the request nor builds the answer: it returns one serialized
`CheckActionResponse` made at start-up; `CheckActions` answers each message of a stream with one fixed
`CheckActionsResponse` the same way. Server reflection is on, so ghz finds the method as it finds the
sidecar's. What is left is grpcio's own cost per call (HTTP/2 framing, the C core, asyncio and the Python
handler call): no guardrail, no authentication, no decision log, no conversion. Whatever a sidecar does
for a decision comes on top of this, so its ratio to OPA bounds what any CheckAction built on grpcio (the
design card's server) can reach on the same cores.

Prints `ready` once serving; stops on SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from outrider.v1 import supervisor_service_pb2 as pb
from server.rpc.reflection import enable_reflection

SERVICE = "outrider.v1.SupervisorService"


def answer() -> pb.CheckActionResponse:
    """What the sidecar answers the bench's call (allowed by the group's allow list)."""
    return pb.CheckActionResponse(allowed=True, guardrail="analysts", reason="allowed", decision_id="0" * 32)


def handler() -> grpc.GenericRpcHandler:
    unary = answer().SerializeToString()
    streamed = pb.CheckActionsResponse(id=1, response=answer()).SerializeToString()

    async def check(request: bytes, context: Any) -> bytes:
        return unary

    async def checks(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        async for _ in requests:  # one fixed answer per message, in order, nothing parsed
            yield streamed

    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "CheckAction": grpc.unary_unary_rpc_method_handler(check),
            "CheckActions": grpc.stream_stream_rpc_method_handler(checks),
        },
    )


async def serve(port: int) -> None:
    server = grpc.aio.server(options=[("grpc.so_reuseport", 1)])
    server.add_generic_rpc_handlers((handler(),))
    enable_reflection((SERVICE,), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print("ready", flush=True)
    await stop.wait()
    await server.stop(1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    asyncio.run(serve(p.parse_args().port))


if __name__ == "__main__":
    main()
