"""Why grpc.aio: hold many concurrently waiting calls on a grpc.aio server versus the sync `grpc.server`.

Each scenario starts a fresh server process (`python -m bench.waiting --serve ...`) whose only method
waits: on an event released by the parent (`hold`) or for a fixed sleep (`sleep:SECONDS`). The parent
fires N calls at once over loopback and samples the server's VmRSS and thread count from /proc while
they wait. Run it alone with `python bench/waiting.py`; `bench/checkaction.py` calls `run()`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # no INFO lines from grpc core in the report
if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench._proc import Child, emit, self_usage

SERVICE = "outrider.bench.Wait"
METHOD = f"/{SERVICE}/Wait"


# ---- server side (child process) ----------------------------------------------------------------


class _Counters:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting = self.peak = self.done = 0

    def enter(self) -> None:
        with self.lock:
            self.waiting += 1
            self.peak = max(self.peak, self.waiting)

    def leave(self) -> None:
        with self.lock:
            self.waiting -= 1
            self.done += 1

    def report(self) -> dict[str, Any]:
        with self.lock:
            return {"waiting": self.waiting, "peak": self.peak, "done": self.done, **self_usage()}


def _control(counters: _Counters, release: Any) -> None:
    """Answer `stats` / `release` / `quit` from stdin until `quit` or EOF."""
    for line in sys.stdin:
        command = line.strip()
        if command == "release":
            release()
            emit({"released": True})
        elif command == "stats":
            emit(counters.report())
        elif command == "quit":
            emit(counters.report())
            return


def _options(backlog: int) -> list[tuple[str, int]]:
    """grpc core answers CANCELLED at random once more than 1000 (surely above 3000) calls have arrived but
    were not yet taken up by the server (`grpc.server.max_pending_requests[_hard_limit]`)."""
    if not backlog:
        return []
    return [("grpc.server.max_pending_requests", backlog), ("grpc.server.max_pending_requests_hard_limit", 2 * backlog)]


async def _serve_aio(hold: str, backlog: int) -> None:
    counters = _Counters()
    event = asyncio.Event()
    loop = asyncio.get_running_loop()
    sleep = float(hold.removeprefix("sleep:")) if hold.startswith("sleep:") else None

    async def wait(request: bytes, context: Any) -> bytes:
        counters.enter()
        try:
            await (asyncio.sleep(sleep) if sleep is not None else event.wait())
        finally:
            counters.leave()
        return b""

    server = grpc.aio.server(options=_options(backlog))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"Wait": grpc.unary_unary_rpc_method_handler(wait)}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    emit({"event": "ready", "port": port, **counters.report()})
    await asyncio.to_thread(_control, counters, lambda: loop.call_soon_threadsafe(event.set))
    await server.stop(0)


def _serve_sync(hold: str, workers: int, backlog: int) -> None:
    counters = _Counters()
    event = threading.Event()
    sleep = float(hold.removeprefix("sleep:")) if hold.startswith("sleep:") else None

    def wait(request: bytes, context: Any) -> bytes:
        counters.enter()
        try:
            if sleep is not None:
                time.sleep(sleep)
            else:
                event.wait()
        finally:
            counters.leave()
        return b""

    server = grpc.server(ThreadPoolExecutor(max_workers=workers), options=_options(backlog))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"Wait": grpc.unary_unary_rpc_method_handler(wait)}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    emit({"event": "ready", "port": port, **counters.report()})
    _control(counters, event.set)
    server.stop(0)


# ---- client side (the parent) -------------------------------------------------------------------


@dataclass
class Scenario:
    server: str  # "grpc.aio" or "sync, max_workers=W"
    calls: int
    hold: str  # "hold" (await a release) or "sleep:SECONDS"
    wave: int  # calls sent at once; the next wave goes when they are all waiting (0: all in one burst)
    backlog: int  # grpc.server.max_pending_requests (0: the default, 1000)
    idle_rss_kb: int = 0
    idle_threads: int = 0
    rss_kb: int = 0  # while the most calls were waiting
    threads: int = 0
    peak_waiting: int = 0  # most handlers waiting at once, counted in the server
    fill_s: float = 0.0  # until every call was waiting (or the most that can)
    total_s: float = 0.0  # from the first call sent to the last answer
    ok: int = 0
    errors: str = ""


async def _scenario(
    mode: str, calls: int, hold: str, workers: int = 0, wave: int = 0, backlog: int = 0, limit: float = 20.0
) -> Scenario:
    args = ["--serve", mode, "--hold", hold, "--workers", str(workers), "--backlog", str(backlog)]
    label = "grpc.aio" if mode == "aio" else f"sync, max_workers={workers}"
    result = Scenario(label, calls, hold, wave, backlog)
    with Child("bench.waiting", *args) as child:
        result.idle_rss_kb, result.idle_threads = child.ready["rss_kb"], child.ready["threads"]
        async with grpc.aio.insecure_channel(f"127.0.0.1:{child.ready['port']}") as channel:
            call = channel.unary_unary(METHOD)
            await channel.channel_ready()
            pending: list[asyncio.Future[bytes]] = []
            started = time.perf_counter()
            capacity = calls if mode == "aio" else min(calls, workers)
            while len(pending) < calls:
                batch = min(wave or calls, calls - len(pending))
                pending += [asyncio.ensure_future(call(b"", timeout=limit + 30)) for _ in range(batch)]
                target = min(len(pending), capacity)
                while True:  # sample until the calls sent so far wait (as many as can), or a call failed
                    stats = await asyncio.to_thread(child.ask, "stats")
                    if stats["waiting"] >= result.peak_waiting:
                        result.rss_kb, result.threads = stats["rss_kb"], stats["threads"]
                    result.peak_waiting = max(result.peak_waiting, stats["peak"])
                    failed = sum(1 for f in pending if f.done() and f.exception() is not None)
                    if stats["peak"] + failed >= target or time.perf_counter() - started > limit:
                        break
                    await asyncio.sleep(0.01)
            result.fill_s = time.perf_counter() - started
            if hold == "hold":
                await asyncio.to_thread(child.ask, "release")
            answers = await asyncio.gather(*pending, return_exceptions=True)
            result.total_s = time.perf_counter() - started
        final = child.close()
    result.peak_waiting = max(result.peak_waiting, final["peak"])
    result.ok = sum(1 for a in answers if not isinstance(a, BaseException))
    codes = Counter(a.code().name if isinstance(a, grpc.aio.AioRpcError) else type(a).__name__ for a in answers)
    result.errors = ", ".join(f"{n} {code}" for code, n in codes.items() if code != "bytes")
    return result


async def _run(many: int, few: int, few_workers: int, sleep: float, wave: int, burst: int) -> list[Scenario]:
    return [
        await _scenario("aio", many, "hold", wave=wave),
        await _scenario("sync", many, "hold", workers=many, wave=wave),
        await _scenario("aio", few, f"sleep:{sleep:g}"),
        await _scenario("sync", few, f"sleep:{sleep:g}", workers=few_workers),
        await _scenario("aio", burst, "hold"),
        await _scenario("aio", burst, "hold", backlog=4 * burst),
    ]


def run(
    many: int = 2000, few: int = 200, few_workers: int = 10, sleep: float = 0.25, wave: int = 250, burst: int = 3000
) -> list[dict[str, Any]]:
    """Six scenarios, each in a fresh server process:
    1-2. `many` calls held until released, sent in waves of `wave`: grpc.aio, then sync with a thread per call;
    3-4. `few` calls that each sleep `sleep` s, sent at once: grpc.aio, then sync with `few_workers` threads;
    5-6. `burst` held calls sent at once on grpc.aio: grpc's default backlog, then a raised one."""
    return [asdict(s) for s in asyncio.run(_run(many, few, few_workers, sleep, wave, burst))]


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| server | calls | arrival | handler | waiting at once (peak) | RSS idle → waiting "
        "| threads idle → waiting | RSS per waiting call | until all waiting | until all answered | answered |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        per_call = (r["rss_kb"] - r["idle_rss_kb"]) / max(r["peak_waiting"], 1)
        per_call_text = f"{per_call:.1f} KiB" if r["peak_waiting"] >= 100 else "—"
        handler = "awaits release" if r["hold"] == "hold" else f"sleeps {r['hold'].removeprefix('sleep:')} s"
        arrival = f"waves of {r['wave']}" if r["wave"] else "one burst"
        if r["backlog"]:
            arrival += f", max_pending_requests={r['backlog']}"
        answered = f"{r['ok']}" + (f" ({r['errors']})" if r["errors"] else "")
        lines.append(
            f"| {r['server']} | {r['calls']} | {arrival} | {handler} | {r['peak_waiting']} "
            f"| {r['idle_rss_kb'] / 1024:.1f} → {r['rss_kb'] / 1024:.1f} MiB | {r['idle_threads']} → {r['threads']} "
            f"| {per_call_text} | {r['fill_s']:.2f} s | {r['total_s']:.2f} s | {answered} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--serve", choices=("aio", "sync"), help="(internal) run a waiting server")
    p.add_argument("--hold", default="hold", help="hold | sleep:SECONDS")
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--backlog", type=int, default=0)
    args = p.parse_args()
    if args.serve == "aio":
        asyncio.run(_serve_aio(args.hold, args.backlog))
    elif args.serve == "sync":
        _serve_sync(args.hold, args.workers, args.backlog)
    else:
        print(table(run()))


if __name__ == "__main__":
    main()
