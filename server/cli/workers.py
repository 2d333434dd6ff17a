"""`outrider serve --workers N`: N sidecar processes on one host, one listen port, one database.

The parent reserves the listen port (a socket bound with SO_REUSEPORT that never listens, so it takes no
connections) and starts N children, each an ordinary `outrider serve` with `--worker I`: it binds the same
port with SO_REUSEPORT and the kernel spreads new connections over the children. Each child is a full
sidecar of the fleet (its own row in `sidecars`, its own listener); an agent's control channel may land on
any of them, and the fleet's routing (docs/fleet.md) makes that harmless.

- Worker 0 starts first (with `--apply-policy` when given, so one process applies the file), the others
  once it serves. Only worker 0 serves the console and the separate metrics address (one port each).
- A worker that exits while the parent runs is started again (after 1 s, doubling to 30 s while it keeps
  dying within a minute of its start); its kills and leases are taken over by the fleet's usual rules.
- SIGTERM / SIGINT: every worker gets SIGTERM and the parent waits for them (then SIGKILL after the
  shutdown grace plus 10 s). SIGHUP goes to worker 0: a reload applies fleet-wide.
- A child dies with its parent (PR_SET_PDEATHSIG), so a SIGKILLed parent leaves no workers behind.
- On SQLite the parent holds the database's serve lock for its workers (no other `outrider serve` may use the
  file), and the workers follow each other's changes through `fleet_change_feed`
  (server/storage/fleet/changes.py); they all read this host's one policy file, so its policy is not enforced
  against the stored one as a fleet's is. A unix socket address is refused.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from server.config import Config
from server.storage.db import DatabaseInUse, lock_sqlite_for_serving

log = logging.getLogger("outrider.workers")

MAX_WORKERS = 64
_START_TIMEOUT = 180.0  # a loaded machine starts Python slowly
_FAST_DEATH = 60.0  # a worker that dies sooner than this after its start backs off longer
_PR_SET_PDEATHSIG = 1


def refusal(config: Config, workers: int) -> str | None:
    """Why `--workers` cannot run with this configuration (None: it can)."""
    if workers < 1 or workers > MAX_WORKERS:
        return f"--workers must be between 1 and {MAX_WORKERS}, not {workers}"
    if config.listen.startswith("unix:"):
        return "--workers needs a TCP --listen address (HOST:PORT): processes share a port, not a unix socket"
    return None


def _die_with_parent() -> None:  # runs in the child between fork and exec
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def write_port_file(path: Path, port: int) -> None:
    """Announce readiness: the port appears whole or not at all (a reader never sees an empty or half
    file), written by a temporary file renamed over the path."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(str(port))
    os.replace(tmp, path)


def child_argv(argv: Sequence[str], listen: str, index: int, port_file: Path) -> list[str]:
    """The worker's `outrider serve` arguments: the parent's, without its own flags, on the reserved port."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in ("--workers", "--port-file", "--listen", "--apply-policy"):
            skip = "=" not in arg and name != "--apply-policy"
            continue
        out.append(arg)
    out += ["--listen", listen, "--worker", str(index), "--port-file", str(port_file)]
    if index == 0 and "--apply-policy" in argv:
        out.append("--apply-policy")
    return out


@dataclass
class _Worker:
    index: int
    port_file: Path
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    backoff: float = 1.0
    restart_at: float = 0.0
    restarts: int = 0
    pids: list[int] = field(default_factory=list)


class Supervisor:
    def __init__(self, argv: Sequence[str], config: Config, workers: int, port_file: str | None) -> None:
        self.argv = list(argv)
        self.config = config
        self.count = workers
        self.port_file = Path(port_file) if port_file else None
        self.stopping = False
        self.workers: list[_Worker] = []
        self.reserved: socket.socket | None = None
        self.listen = config.listen

    def _reserve(self) -> None:
        host, _, port = self.config.listen.rpartition(":")
        host = host.strip("[]")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind((host, int(port)))  # never listens: it only keeps the port for the workers
        self.reserved = s
        bound = s.getsockname()[1]
        self.listen = f"[{host}]:{bound}" if family == socket.AF_INET6 else f"{host}:{bound}"

    def _spawn(self, w: _Worker) -> None:
        with contextlib.suppress(FileNotFoundError):
            w.port_file.unlink()
        cmd = [sys.executable, "-m", "server", *child_argv(self.argv, self.listen, w.index, w.port_file)]
        w.process = subprocess.Popen(cmd, preexec_fn=_die_with_parent)
        w.started = time.monotonic()
        w.pids.append(w.process.pid)
        log.info("worker started", extra={"worker": w.index, "pid": w.process.pid, "listen": self.listen})

    def _wait_serving(self, w: _Worker) -> bool:
        deadline = time.monotonic() + _START_TIMEOUT
        while not self.stopping and time.monotonic() < deadline:
            if w.port_file.exists():  # written whole (write_port_file)
                return True
            if w.process is not None and w.process.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        if signum == signal.SIGHUP:
            first = self.workers[0].process if self.workers else None
            if first is not None and first.poll() is None:
                first.send_signal(signal.SIGHUP)  # one reload applies fleet-wide
            return
        self.stopping = True

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_signal)
        self._reserve()
        run_dir = Path(self.config.data_dir) if self.config.data_dir else Path(".outrider")
        run_dir.mkdir(parents=True, exist_ok=True)
        self.workers = [_Worker(i, run_dir / f"worker-{os.getpid()}-{i}.port") for i in range(self.count)]
        try:
            self._spawn(self.workers[0])
            if not self._wait_serving(self.workers[0]):
                if not self.stopping:
                    print("outrider: cannot start: worker 0 did not start (see its log lines above)", file=sys.stderr)
                    return 2
                return 0
            for w in self.workers[1:]:
                self._spawn(w)
            for w in self.workers[1:]:
                self._wait_serving(w)
            if self.port_file is not None:
                write_port_file(self.port_file, int(self.listen.rpartition(":")[2]))
            log.info("workers serving", extra={"workers": self.count, "listen": self.listen})
            while not self.stopping:
                self._supervise()
                time.sleep(0.2)
            return 0
        finally:
            self._stop_all()

    def _supervise(self) -> None:
        now = time.monotonic()
        for w in self.workers:
            p = w.process
            if p is not None and p.poll() is not None:
                lived = now - w.started
                w.backoff = min(30.0, w.backoff * 2) if lived < _FAST_DEATH else 1.0
                w.restart_at = now + w.backoff
                log.warning(
                    "worker exited; starting it again",
                    extra={"worker": w.index, "pid": p.pid, "code": p.returncode, "in_seconds": w.backoff},
                )
                w.process = None
            if w.process is None and now >= w.restart_at and not self.stopping:
                w.restarts += 1
                self._spawn(w)

    def _stop_all(self) -> None:
        alive = [w.process for w in self.workers if w.process is not None and w.process.poll() is None]
        for p in alive:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.config.shutdown_grace + 10
        for p in alive:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.error("worker did not stop; killing it", extra={"pid": p.pid})
                p.kill()
                p.wait(10)
        for w in self.workers:
            with contextlib.suppress(FileNotFoundError):
                w.port_file.unlink()
        if self.reserved is not None:
            self.reserved.close()


def run_workers(argv: Sequence[str], config: Config, workers: int, port_file: str | None) -> int:
    problem = refusal(config, workers)
    if problem is not None:
        print(f"outrider: cannot start: {problem}", file=sys.stderr)
        return 2
    if config.db_url is None:
        config.data_dir.mkdir(parents=True, exist_ok=True)
    try:  # on SQLite the parent holds the database for its workers (server/storage/db.py)
        release = lock_sqlite_for_serving(config.database_url())
    except DatabaseInUse as exc:
        print(f"outrider: cannot start: {exc}", file=sys.stderr)
        return 2
    try:
        return Supervisor(argv, config, workers, port_file).run()
    finally:
        release()
