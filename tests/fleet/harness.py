"""Three (or more) real `outrider serve` processes on one fresh PostgreSQL database (or one SQLite file)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import grpc

from outrider.v1 import (
    access_service_pb2_grpc,
    recovery_service_pb2_grpc,
    safeguard_service_pb2_grpc,
    supervisor_service_pb2_grpc,
)
from outrider.v1 import supervisor_service_pb2 as spb
from server.storage.db import lock_sqlite_for_serving
from tests.integration.creds import with_token

ROOT = Path(__file__).resolve().parents[2]


def cli(tmp: Path, db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args, "--db-url", db_url],
        cwd=tmp,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=180,  # a loaded 2-core machine starts Python slowly
    )


def operator_token(tmp: Path, db_url: str) -> str:
    r = cli(tmp, db_url, "tokens", "issue", "--operator", "ops")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def wait_until(predicate: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll a condition the fleet reaches on its own (bounded)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached within {timeout}s")
        time.sleep(0.005)


class SidecarProc:
    """One sidecar process; `name` labels its log (serve-A.log ...)."""

    def __init__(self, tmp: Path, db_url: str, token: str, name: str, *args: str, config: Path | None = None) -> None:
        self.name, self.tmp = name, tmp
        self.port_file = tmp / f"port-{name}-{time.monotonic_ns()}"
        self.log_path = tmp / f"serve-{name}.log"
        cmd = [sys.executable, "-m", "server", "serve", "--listen", "127.0.0.1:0", "--no-console"]
        cmd += ["--db-url", db_url, "--port-file", str(self.port_file), *args]
        if config is not None:
            cmd += ["--config", str(config)]
        self.log = self.log_path.open("ab")
        self.p = subprocess.Popen(
            cmd, cwd=tmp, stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )
        self.token = token
        self.raw: grpc.Channel | None = None

    def wait_serving(self, timeout: float = 180) -> SidecarProc:
        deadline = time.monotonic() + timeout
        while not self.port_file.exists() or not self.port_file.read_text():
            if self.p.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"sidecar {self.name} did not start: {self.log_path.read_text()}")
            time.sleep(0.05)
        self.target = f"127.0.0.1:{self.port_file.read_text()}"
        self.raw = grpc.insecure_channel(self.target)
        self.channel = with_token(self.raw, self.token)
        self.supervisor = supervisor_service_pb2_grpc.SupervisorServiceStub(self.channel)
        self.recovery = recovery_service_pb2_grpc.RecoveryServiceStub(self.channel)
        self.safeguard = safeguard_service_pb2_grpc.SafeguardServiceStub(self.channel)
        return self

    def close(self, sig: int = signal.SIGTERM) -> int:
        if self.raw is not None:
            self.raw.close()
            self.raw = None
        if self.p.poll() is None:
            self.p.send_signal(sig)
        code = self.p.wait(30)
        self.log.close()
        return code


class Fleet:
    """On a SQLite URL the sidecars are workers sharing the file, as `outrider serve --workers N` runs them: this
    process holds the file's serve lock as that parent does, and starts each with `--worker I`."""

    def __init__(self, tmp: Path, db_url: str, count: int = 3, config: Path | None = None) -> None:
        self.tmp, self.db_url = tmp, db_url
        self.token = operator_token(tmp, db_url)
        self._release = lock_sqlite_for_serving(db_url)
        self._workers = 0
        # Started together, then waited for: the three start-ups (migrations, loading) overlap.
        procs = [self._proc(chr(ord("A") + i), config=config) for i in range(count)]
        try:
            self.sidecars = [p.wait_serving() for p in procs]
        except BaseException:  # one did not start: stop the others, or they outlive the test
            self.sidecars = procs
            self.close()
            raise

    def _proc(self, name: str, *args: str, config: Path | None = None) -> SidecarProc:
        if self.db_url.startswith("sqlite"):
            args = (*args, "--worker", str(self._workers))
            self._workers += 1
        return SidecarProc(self.tmp, self.db_url, self.token, name, *args, config=config)

    def __getitem__(self, i: int) -> SidecarProc:
        return self.sidecars[i]

    def start(self, name: str, *args: str, config: Path | None = None) -> SidecarProc:
        p = self._proc(name, *args, config=config).wait_serving()
        self.sidecars.append(p)
        return p

    def close(self) -> None:
        for p in self.sidecars:  # every one, also those a test killed: each holds its log file open
            p.close()
        self._release()


def admin_on(fleet: Fleet, s: SidecarProc, name: str) -> access_service_pb2_grpc.AccessServiceStub:
    """AccessService on `s` as a new admin operator `name` (its token issued by the CLI)."""
    made = cli(fleet.tmp, fleet.db_url, "tokens", "issue", "--admin", name)
    assert made.returncode == 0, made.stderr
    assert s.raw is not None
    return access_service_pb2_grpc.AccessServiceStub(with_token(s.raw, made.stdout.strip()))


def guardrail_names(s: SidecarProc) -> list[str]:
    """The chain `s` runs, by name."""
    return [g.name for g in s.supervisor.ListGuardrails(spb.ListGuardrailsRequest()).guardrails]


def wait_everywhere(fleet: Fleet, name: str) -> None:
    """Until every sidecar of `fleet` runs the guardrail `name`."""
    for s in fleet.sidecars:
        wait_until(lambda s=s: name in guardrail_names(s), f"{name} on {s.name}")
