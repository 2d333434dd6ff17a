"""The benchmark's server process: the production `build_server` plus an empty gRPC echo, on 127.0.0.1:0.

Run by `bench/checkaction.py` as `python -m bench.sidecar --config FILE --data-dir DIR --agent ID`. It
prints `{"event": "ready", "port": N, "agent_token": ..., "operator_token": ...}` once serving (the tokens
are issued in-process, as `outrider tokens` would), then answers commands from stdin, one per line:
`stats`, `drain` (wait until the decision log has written everything queued), `profile start`,
`profile stop FILE`, `tracemalloc start`, `tracemalloc dump FILE` (a snapshot, after a garbage collection),
`trace start` (tracemalloc on, a baseline snapshot), `trace diff` (the Python allocations grown since the
baseline, by source line), `sql start` (time every SQL statement), `sql stats` (the statements that took the
most time since the last `sql stats`: count, mean and total), `sql statements` (every statement text run
since `sql start`, with its count), `types` (the live objects the garbage collector tracks, the types whose
count grew most since the last `types`, the collector's pauses and glibc's heap) and `quit` (stops the
sidecar, which drains the decision log, and reports the final decision-log figures).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import ctypes
import gc
import logging
import os
import sys
import threading
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from bench._proc import emit, self_usage
from server.config import load_config
from server.logs import setup_logging
from server.sidecar import Sidecar, build_server, freeze_startup_heap

ECHO_SERVICE = "outrider.bench.Echo"
ECHO_METHOD = f"/{ECHO_SERVICE}/Echo"
ECHO_STREAM_METHOD = f"/{ECHO_SERVICE}/EchoStream"


async def _echo(request: bytes, context: Any) -> bytes:
    return request


async def _echo_stream(requests: Any, context: Any) -> Any:
    async for request in requests:
        yield request


def echo_handler() -> grpc.GenericRpcHandler:
    """Raw bytes in, the same bytes out: no (de)serialization, no work. `EchoStream` does the same per
    message on one bidirectional stream (`bench/streaming.py`: what a stream saves per message)."""
    return grpc.method_handlers_generic_handler(
        ECHO_SERVICE,
        {
            "Echo": grpc.unary_unary_rpc_method_handler(_echo),
            "EchoStream": grpc.stream_stream_rpc_method_handler(_echo_stream),
        },
    )


def _serve_echo_like_any_rpc() -> None:
    """Give the echo an access rule (any authenticated caller), so the auth interceptor that wraps every
    RPC treats it like the others instead of refusing a method it has no rule for."""
    try:
        from server.domain.access.principals import Rule, Scope
        from server.rpc.access_rules import RULES
    except ImportError:  # a sidecar without access control
        return
    RULES[ECHO_METHOD] = Rule(Scope.ANY)
    RULES[ECHO_STREAM_METHOD] = Rule(Scope.ANY)


def _issue_tokens(sidecar: Sidecar, agent_id: str, others: list[str]) -> dict[str, Any]:
    access = getattr(sidecar.services, "access", None)
    if access is None or not getattr(sidecar.config, "auth_enabled", False):
        return {}
    from server.domain.access.principals import PrincipalKind

    agent, _ = access.issue(PrincipalKind.AGENT, agent_id, "benchmark agent", "bench")
    operator, _ = access.issue(PrincipalKind.OPERATOR, "bench-operator", "benchmark operator", "bench")
    more = {other: access.issue(PrincipalKind.AGENT, other, "benchmark agent", "bench")[0] for other in others}
    return {"agent_token": agent, "operator_token": operator, "other_tokens": more}


def _stats(sidecar: Sidecar) -> dict[str, Any]:
    dl = sidecar.services.decisions
    with dl.stats._lock:
        log = {"written": dl.stats.written, "dropped": dl.stats.dropped, "failed": dl.stats.failed}
    # Calls parked on a stored, pending approval request (what the approvals burst waits for).
    waiting = sidecar.services.approvals.waiting_count()
    # The decision log's lag as a time: how long ago the oldest decision still queued was answered.
    try:
        oldest = dl._buffer[0].create_time
    except IndexError:
        lag = 0.0
    else:
        lag = max(0.0, (datetime.now(UTC) - oldest).total_seconds())
    return {
        **log,
        "queued": dl.queued,
        "lag_s": lag,
        "approvals_waiting": waiting,
        "tasks": len(asyncio.all_tasks()),  # answered on the sidecar's event loop: its tasks
        "fds": len(os.listdir("/proc/self/fd")),
        **self_usage(),
    }


def _trace_diff(baseline: tracemalloc.Snapshot, top: int = 25) -> dict[str, Any]:
    """Python allocations alive now that were not at the baseline: the total and the biggest by line."""
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
    stats = snapshot.compare_to(baseline, "lineno")
    grown = sum(s.size_diff for s in stats)
    lines = [
        {
            "where": f"{s.traceback[0].filename.split('site-packages/')[-1]}:{s.traceback[0].lineno}",
            "kb": round(s.size_diff / 1024, 1),
            "count": s.count_diff,
        }
        for s in sorted(stats, key=lambda s: -s.size_diff)[:top]
    ]
    every = [
        {
            "where": f"{s.traceback[0].filename.split('site-packages/')[-1]}:{s.traceback[0].lineno}",
            "kb": round(s.size_diff / 1024, 3),
        }
        for s in stats
        if s.size_diff
    ]
    return {"grown_kb": round(grown / 1024, 1), "top": lines, "all": every, **self_usage()}


class SqlTimes:
    """Time spent per SQL statement text on every engine of the process (a diagnostic: a statement whose
    mean time grows as the soak runs reads a table that grows without an index)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._times: dict[str, list[float]] = {}  # statement -> [count, seconds]
        self._seen: dict[str, int] = {}  # every statement text since `start`, with its count
        self._started = threading.local()

    def start(self) -> None:
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        event.listen(Engine, "before_cursor_execute", self._before)
        event.listen(Engine, "after_cursor_execute", self._after)

    def _before(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self._started.t = time.perf_counter()

    def _after(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        spent = time.perf_counter() - getattr(self._started, "t", time.perf_counter())
        text = " ".join(statement.split())
        key = text[:300]
        with self._lock:
            entry = self._times.setdefault(key, [0, 0.0])
            entry[0] += 1
            entry[1] += spent
            self._seen[text] = self._seen.get(text, 0) + 1

    def statements(self) -> dict[str, Any]:
        """Every statement text run since `start`, with how often (for EXPLAIN QUERY PLAN)."""
        with self._lock:
            return {"statements": [{"statement": s, "count": n} for s, n in self._seen.items()]}

    def take(self, top: int = 12) -> dict[str, Any]:
        with self._lock:
            times, self._times = self._times, {}
        rows = sorted(times.items(), key=lambda kv: -kv[1][1])[:top]
        return {
            "sql": [
                {"count": int(n), "mean_ms": round(t / n * 1000, 3), "total_s": round(t, 2), "statement": stmt}
                for stmt, (n, t) in rows
            ]
        }


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ] + [("keepcost", ctypes.c_size_t)]


def malloc_usage() -> dict[str, float]:
    """glibc's heap in MB: bytes malloc'd and in use (C code: SQLite, grpc, ... and large Python objects), bytes
    free but kept in its arenas (fragmentation), bytes in mmapped chunks; SQLite's share; and Python's pymalloc
    blocks."""
    out: dict[str, float] = {"py_blocks": sys.getallocatedblocks()}
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return out
    mb = 1024 * 1024
    out |= {"in_use_mb": info.uordblks / mb, "free_mb": info.fordblks / mb, "mmap_mb": info.hblkhd / mb}
    try:  # SQLite's own allocations (page caches of every connection, statement caches): part of in_use
        sqlite = ctypes.CDLL("libsqlite3.so.0")
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        out["sqlite_mb"] = sqlite.sqlite3_memory_used() / mb
    except (OSError, AttributeError):
        pass
    return out


class TypeCounts:
    """Live objects by type name, and which types grew since the last look (a diagnostic for what a long run
    accumulates: a structure that grows shows as a type whose count only goes up)."""

    def __init__(self) -> None:
        self._last: collections.Counter[str] = collections.Counter()
        # The cyclic collector's pauses per generation since the last look: a growing heap makes the
        # full collections (generation 2) longer, and they stop every thread.
        self._gc = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
        self._gc_started = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            entry = self._gc[info["generation"]]
            entry[0] += 1
            entry[1] += time.perf_counter() - self._gc_started

    def take(self, top: int = 12) -> dict[str, Any]:
        pauses = {g: (int(n), round(t * 1000, 1)) for g, (n, t) in self._gc.items()}
        gc.collect()
        self._gc = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
        now = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
        grew = sorted(((n - self._last.get(t, 0), t) for t, n in now.items()), reverse=True)[:top]
        self._last = now
        return {
            "objects": sum(now.values()),
            "malloc": malloc_usage(),
            "gc": {f"gen{g}": {"collections": n, "ms": ms} for g, (n, ms) in pauses.items()},
            "grew": [{"type": t, "by": d, "now": now[t]} for d, t in grew if d > 0],
        }


def _stdin_lines(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str]) -> None:
    for line in sys.stdin:
        loop.call_soon_threadsafe(lines.put_nowait, line.strip())
    loop.call_soon_threadsafe(lines.put_nowait, "quit")


async def serve(
    config_path: str, data_dir: Path, agent_id: str, console: bool = False, others: list[str] | None = None
) -> None:
    overrides: dict[str, Any] = {"listen": "127.0.0.1:0", "console_enabled": console, "data_dir": data_dir}
    if console:
        overrides["console_listen"] = "127.0.0.1:0"
    config = load_config(config_path, overrides, env={})
    setup_logging(config.log_format, config.log_level)
    # Under full load the scheduler's sub-second jobs skip runs and say so each time: noise here.
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
    _serve_echo_like_any_rpc()
    sidecar = await build_server(config, extra_handlers=[echo_handler()], with_console=console)
    tokens = await asyncio.to_thread(_issue_tokens, sidecar, agent_id, others or [])
    freeze_startup_heap()  # as `outrider serve` does
    extra: dict[str, Any] = {}
    if console:
        password = "bench-password-" + os.urandom(6).hex()
        await asyncio.to_thread(sidecar.services.users.add, "bench-reviewer", "approver", "", password, "bench")
        extra = {
            "console_url": sidecar.services.health["console_url"],
            "reviewer": "bench-reviewer",
            "password": password,
        }
    emit({"event": "ready", "port": sidecar.port, "pid": os.getpid(), **tokens, **extra})

    lines: asyncio.Queue[str] = asyncio.Queue()
    threading.Thread(target=_stdin_lines, args=(asyncio.get_running_loop(), lines), daemon=True).start()
    profiler: cProfile.Profile | None = None
    baseline: tracemalloc.Snapshot | None = None
    sql = SqlTimes()
    types = TypeCounts()
    while True:
        command, _, arg = (await lines.get()).partition(" ")
        if command == "stats":
            emit(_stats(sidecar))
        elif command == "drain":
            drained = await asyncio.to_thread(sidecar.services.decisions.flush, 60.0)
            emit({"drained": drained, **_stats(sidecar)})
        elif command == "profile" and arg == "start":
            # Enabled here, on the event loop thread, where the handlers run.
            profiler = cProfile.Profile()
            profiler.enable()
            emit({"profiling": True})
        elif command == "profile" and arg.startswith("stop ") and profiler is not None:
            profiler.disable()
            profiler.dump_stats(arg.removeprefix("stop "))
            profiler = None
            emit({"profiling": False})
        elif command == "tracemalloc" and arg == "start":
            tracemalloc.start(8)
            emit({"tracemalloc": True})
        elif command == "tracemalloc" and arg.startswith("dump "):
            gc.collect()
            tracemalloc.take_snapshot().dump(arg.removeprefix("dump "))
            emit({"dumped": True, "traced_kb": tracemalloc.get_traced_memory()[0] // 1024})
        elif command == "trace" and arg == "start":
            tracemalloc.start(8)
            baseline = tracemalloc.take_snapshot()
            emit({"tracing": True})
        elif command == "trace" and arg == "diff" and baseline is not None:
            emit(_trace_diff(baseline))
        elif command == "sql" and arg == "start":
            sql.start()
            emit({"sql": True})
        elif command == "sql" and arg == "stats":
            emit(sql.take())
        elif command == "sql" and arg == "statements":
            emit(sql.statements())
        elif command == "types":
            emit(types.take())
        elif command == "quit":
            await sidecar.stop(1.0)
            emit({"event": "stopped", **_stats(sidecar)})
            return
        else:
            emit({"error": f"unknown command {command!r}"})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", required=True)
    p.add_argument("--data-dir", required=True, type=Path)
    p.add_argument("--agent", required=True, help="the agent id to issue a token for")
    p.add_argument("--console", action="store_true", help="serve the console too, with a reviewer account")
    p.add_argument("--other-agent", action="append", default=[], help="one more agent id to issue a token for")
    args = p.parse_args()
    asyncio.run(serve(args.config, args.data_dir, args.agent, args.console, args.other_agent))


if __name__ == "__main__":
    main()
