"""Child processes that speak JSON lines: the child prints one object per line, the parent writes commands.

Server and load generator run in separate processes so they do not share a GIL (or a core, on 2 cores).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent


def emit(obj: dict[str, Any]) -> None:
    """Child side: one JSON object on stdout (the protocol channel; logs go to stderr)."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def self_usage() -> dict[str, Any]:
    """Child side: resident memory, thread count and CPU seconds of this process."""
    status = Path("/proc/self/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    times = os.times()
    return {
        "rss_kb": int(fields["VmRSS"].split()[0]),
        "threads": int(fields["Threads"].strip()),
        "cpu_s": times.user + times.system,
    }


class Child:
    """Parent side: a `python -m module ...` child started from the repo root; its first line says it is ready."""

    def __init__(self, module: str, *args: str, ready_timeout: float = 90.0, cwd: Path = ROOT) -> None:
        """`cwd`: the checkout whose `module` runs (its own `server` package comes first on the path)."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()
        try:
            self.ready = self.read(ready_timeout)
        except Exception:
            self.kill()
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def read(self, timeout: float = 30.0) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"child {self.pid} did not answer within {timeout:g}s") from None
        if line is None:
            raise RuntimeError(f"child {self.pid} exited (code {self.proc.wait()}); see its stderr above")
        result: dict[str, Any] = json.loads(line)
        return result

    def ask(self, command: str, timeout: float = 30.0) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.read(timeout)

    def close(self, timeout: float = 30.0) -> dict[str, Any]:
        """Ask the child to quit; returns its last report."""
        try:
            last = self.ask("quit", timeout)
            self.proc.wait(timeout)
            return last
        finally:
            self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
