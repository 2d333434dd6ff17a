"""A real sidecar for tests: the production `build_server` on 127.0.0.1:0, on its own event loop thread."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc

from outrider.v1 import (
    access_service_pb2_grpc,
    recovery_service_pb2_grpc,
    safeguard_service_pb2_grpc,
    supervisor_service_pb2_grpc,
)
from server.config import Config
from server.domain.access.principals import PrincipalKind
from server.sidecar import Sidecar, build_server
from tests.conftest import copy_sqlite_template

from .creds import with_token


def make_config(tmp_path: Path, db_url: str | None = None, config_path: Path | None = None, **kw: Any) -> Config:
    cfg = Config(
        config_path=config_path,
        listen="127.0.0.1:0",
        console_enabled=False,
        data_dir=tmp_path / "data",
        db_url=db_url,
        shutdown_grace=1.0,
        plugin_modules=("tests.plugins",),  # the tests' own plugin guardrails
    )
    cfg = replace(cfg, **kw)
    if cfg.db_url is None:
        copy_sqlite_template(cfg.data_dir)  # migrated once per worker, not per sidecar
    return cfg


class RunningSidecar:
    """Starts a sidecar in a background loop; `stub` talks to it over real gRPC on loopback.

    Authentication is on, as in production: the stubs carry an operator token issued at start;
    `as_agent(id)` gives stubs that carry that agent's own token.
    """

    def __init__(self, config: Config, new_channel: Any = None, **build_kw: Any) -> None:
        self.config = config
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sidecar-loop", daemon=True)
        self.thread.start()
        fut = asyncio.run_coroutine_threadsafe(build_server(config, **build_kw), self.loop)
        self.sidecar: Sidecar = fut.result(60)
        self.raw_channel = self.new_channel()
        self._channels = [self.raw_channel]
        self.operator_secret = self.issue(PrincipalKind.OPERATOR, "test-operator")
        self.channel = with_token(self.raw_channel, self.operator_secret)
        self.stub = supervisor_service_pb2_grpc.SupervisorServiceStub(self.channel)
        self.recovery = recovery_service_pb2_grpc.RecoveryServiceStub(self.channel)
        self.safeguard = safeguard_service_pb2_grpc.SafeguardServiceStub(self.channel)
        self.access = access_service_pb2_grpc.AccessServiceStub(self.channel)

    def new_channel(self) -> grpc.Channel:
        return grpc.insecure_channel(self.sidecar.target)

    def issue(self, kind: PrincipalKind, subject: str, *, admin: bool = False) -> str:
        secret, _ = self.services.access.issue(kind, subject, "test", "test-harness", admin=admin)
        return secret

    def as_agent(self, agent_id: str) -> Any:
        """Stubs speaking with a fresh token of `agent_id`."""
        channel = with_token(self.raw_channel, self.issue(PrincipalKind.AGENT, agent_id))
        return _Stubs(channel)

    def as_operator(self, name: str, *, admin: bool = False) -> Any:
        """Stubs speaking with a fresh operator (or admin) token of identity `name`."""
        return _Stubs(with_token(self.raw_channel, self.issue(PrincipalKind.OPERATOR, name, admin=admin)))

    @property
    def services(self) -> Any:
        return self.sidecar.services

    def stop(self) -> None:
        for channel in self._channels:
            channel.close()
        asyncio.run_coroutine_threadsafe(self.sidecar.stop(0.5), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    def __enter__(self) -> RunningSidecar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Stubs:
    def __init__(self, channel: grpc.Channel) -> None:
        self.channel = channel
        self.stub = supervisor_service_pb2_grpc.SupervisorServiceStub(channel)
        self.recovery = recovery_service_pb2_grpc.RecoveryServiceStub(channel)
        self.safeguard = safeguard_service_pb2_grpc.SafeguardServiceStub(channel)
        self.access = access_service_pb2_grpc.AccessServiceStub(channel)
