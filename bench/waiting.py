"""Why grpc.aio: hold many concurrently waiting calls on a grpc.aio server versus the sync `grpc.server`.

Each scenario starts a fresh server process (`python -m bench.waiting --serve ...`) whose only method
waits: on an event released by the parent (`hold`) or for a fixed sleep (`sleep:SECONDS`). The parent
fires N calls at once over loopback and samples the server's VmRSS and thread count from /proc while
they wait. Run it alone with `python bench/waiting.py`; `bench/checkaction.py` calls `run()`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

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


async def _serve_aio(hold: str) -> None:
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

    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"Wait": grpc.unary_unary_rpc_method_handler(wait)}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    emit({"event": "ready", "port": port, **counters.report()})
    await asyncio.to_thread(_control, counters, lambda: loop.call_soon_threadsafe(event.set))
    await server.stop(0)


def _serve_sync(hold: str, workers: int) -> None:
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

    server = grpc.server(ThreadPoolExecutor(max_workers=workers))
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
    hold: str
    idle_rss_kb: int = 0
    idle_threads: int = 0
    rss_kb: int = 0  # while the most calls were waiting
    threads: int = 0
    peak_waiting: int = 0  # most handlers waiting at once, counted in the server
    fill_s: float = 0.0  # until every call was waiting (or the peak was reached)
    total_s: float = 0.0  # from the first call sent to the last answer
    ok: int = 0


async def _scenario(mode: str, calls: int, hold: str, workers: int = 0, limit: float = 30.0) -> Scenario:
    args = ["--serve", mode, "--hold", hold, "--workers", str(workers)]
    label = "grpc.aio" if mode == "aio" else f"sync, max_workers={workers}"
    result = Scenario(label, calls, hold)
    with Child("bench.waiting", *args) as child:
        result.idle_rss_kb, result.idle_threads = child.ready["rss_kb"], child.ready["threads"]
        async with grpc.aio.insecure_channel(f"127.0.0.1:{child.ready['port']}") as channel:
            call = channel.unary_unary(METHOD)
            await channel.channel_ready()
            started = time.perf_counter()
            pending = [asyncio.ensure_future(call(b"", timeout=limit + 30)) for _ in range(calls)]
            target = calls if hold == "hold" else min(calls, workers or calls)
            while True:  # sample until the most calls that can wait are waiting
                stats = await asyncio.to_thread(child.ask, "stats")
                if stats["waiting"] >= result.peak_waiting:
                    result.rss_kb, result.threads = stats["rss_kb"], stats["threads"]
                result.peak_waiting = max(result.peak_waiting, stats["peak"])
                if stats["peak"] >= target or time.perf_counter() - started > limit:
                    break
                await asyncio.sleep(0.02)
            result.fill_s = time.perf_counter() - started
            if hold == "hold":
                await asyncio.to_thread(child.ask, "release")
            answers = await asyncio.gather(*pending, return_exceptions=True)
            result.total_s = time.perf_counter() - started
            result.ok = sum(1 for a in answers if not isinstance(a, BaseException))
            result.peak_waiting = max(result.peak_waiting, (await asyncio.to_thread(child.ask, "stats"))["peak"])
        child.close()
    return result


async def _run(many: int, few: int, few_workers: int, sleep: float) -> list[Scenario]:
    return [
        await _scenario("aio", many, "hold"),
        await _scenario("sync", many, "hold", workers=many),
        await _scenario("aio", few, f"sleep:{sleep:g}"),
        await _scenario("sync", few, f"sleep:{sleep:g}", workers=few_workers),
    ]


def run(many: int = 2000, few: int = 200, few_workers: int = 10, sleep: float = 0.25) -> list[dict[str, Any]]:
    """The four scenarios: N=`many` held calls on aio and on sync with a thread each; then `few` calls that
    each sleep `sleep` s on aio and on sync with `few_workers` threads (the rest queue)."""
    return [asdict(s) for s in asyncio.run(_run(many, few, few_workers, sleep))]


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| server | calls | handler | peak waiting at once | server RSS idle → waiting | threads idle → waiting "
        "| RSS per waiting call | time to all waiting | total time | ok |\n"
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    out = []
    for r in rows:
        per_call = (r["rss_kb"] - r["idle_rss_kb"]) / max(r["peak_waiting"], 1)
        handler = "awaits release" if r["hold"] == "hold" else f"sleeps {r['hold'].removeprefix('sleep:')} s"
        out.append(
            f"| {r['server']} | {r['calls']} | {handler} | {r['peak_waiting']} "
            f"| {r['idle_rss_kb'] / 1024:.1f} → {r['rss_kb'] / 1024:.1f} MiB | {r['idle_threads']} → {r['threads']} "
            f"| {per_call:.1f} KiB | {r['fill_s']:.2f} s | {r['total_s']:.2f} s | {r['ok']} |"
        )
    return head + "\n".join(out) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--serve", choices=("aio", "sync"), help="(internal) run a waiting server")
    p.add_argument("--hold", default="hold", help="hold | sleep:SECONDS")
    p.add_argument("--workers", type=int, default=0)
    args = p.parse_args()
    if args.serve == "aio":
        asyncio.run(_serve_aio(args.hold))
    elif args.serve == "sync":
        _serve_sync(args.hold, args.workers)
    else:
        print(table(run()))


if __name__ == "__main__":
    main()
