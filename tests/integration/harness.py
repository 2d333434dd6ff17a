"""A real sidecar for tests: the production `build_server` on 127.0.0.1:0, on its own event loop thread."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc

from outrider.v1 import (
    recovery_service_pb2_grpc,
    safeguard_service_pb2_grpc,
    supervisor_service_pb2_grpc,
)
from server.bootstrap import Sidecar, build_server
from server.config import Config


def make_config(tmp_path: Path, db_url: str | None = None, config_path: Path | None = None, **kw: Any) -> Config:
    cfg = Config(
        config_path=config_path,
        listen="127.0.0.1:0",
        console_enabled=False,
        data_dir=tmp_path / "data",
        db_url=db_url,
        shutdown_grace=1.0,
    )
    return replace(cfg, **kw)


class RunningSidecar:
    """Starts a sidecar in a background loop; `stub` talks to it over real gRPC on loopback."""

    def __init__(self, config: Config, **build_kw: Any) -> None:
        self.config = config
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sidecar-loop", daemon=True)
        self.thread.start()
        fut = asyncio.run_coroutine_threadsafe(build_server(config, **build_kw), self.loop)
        self.sidecar: Sidecar = fut.result(60)
        self.channel = grpc.insecure_channel(self.sidecar.target)
        self.stub = supervisor_service_pb2_grpc.SupervisorServiceStub(self.channel)
        self.recovery = recovery_service_pb2_grpc.RecoveryServiceStub(self.channel)
        self.safeguard = safeguard_service_pb2_grpc.SafeguardServiceStub(self.channel)

    @property
    def services(self) -> Any:
        return self.sidecar.services

    def stop(self) -> None:
        self.channel.close()
        asyncio.run_coroutine_threadsafe(self.sidecar.stop(0.5), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    def __enter__(self) -> RunningSidecar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
