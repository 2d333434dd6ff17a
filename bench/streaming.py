"""`make bench`: would a bidirectional `CheckActions` stream be cheaper per decision than unary CheckAction?

Measured on the transport alone, since the decision's work is the same either way: the bench sidecar's
empty echo (`outrider.bench.Echo/Echo`, unary) against its streaming twin (`EchoStream`: each message
answered on one bidirectional stream), both behind the production interceptors (authentication, hygiene)
on one grpc.aio server, with the bench's 350-byte CheckActionRequest as the message. A stream pays the
interceptors and the call set-up once instead of per message. Rows: one caller sending one message at a
time (latency), and 16 concurrent callers (a unary loop each, or a stream each), for `--seconds` per run,
the two alternating for `--rounds` runs; the best run of each. The sidecar's CPU per message comes from its
process CPU time. Appends (or replaces) the "Streaming CheckActions" section of `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench import checkaction as ca
from bench._proc import Child
from bench.report import replace_section
from bench.sidecar import ECHO_METHOD, ECHO_STREAM_METHOD

SECTION = "Streaming CheckActions"


async def unary(
    channel: grpc.aio.Channel, md: Any, request: bytes, seconds: float, tasks: int
) -> tuple[int, list[float]]:
    call = channel.unary_unary(ECHO_METHOD)
    end = time.monotonic() + seconds
    lat: list[float] = []
    count = 0

    async def loop() -> None:
        nonlocal count
        while time.monotonic() < end:
            t0 = time.perf_counter()
            await call(request, metadata=md, timeout=30)
            lat.append(time.perf_counter() - t0)
            count += 1

    await asyncio.gather(*(loop() for _ in range(tasks)))
    return count, lat


async def streamed(
    channel: grpc.aio.Channel, md: Any, request: bytes, seconds: float, tasks: int
) -> tuple[int, list[float]]:
    method = channel.stream_stream(ECHO_STREAM_METHOD)
    end = time.monotonic() + seconds
    lat: list[float] = []
    count = 0

    async def loop() -> None:
        nonlocal count
        stream = method(metadata=md, timeout=seconds + 30)
        while time.monotonic() < end:
            t0 = time.perf_counter()
            await stream.write(request)
            await stream.read()
            lat.append(time.perf_counter() - t0)
            count += 1
        await stream.done_writing()
        await stream.read()  # the end of the stream

    await asyncio.gather(*(loop() for _ in range(tasks)))
    return count, lat


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


async def measure(
    target: str, md: Any, child: Child, seconds: float, rounds: int
) -> dict[tuple[str, int], dict[str, float]]:
    request = ca.request_bytes()
    best: dict[tuple[str, int], dict[str, float]] = {}
    async with grpc.aio.insecure_channel(target) as channel:
        await unary(channel, md, request, 0.5, 4)  # warm both paths
        await streamed(channel, md, request, 0.5, 4)
        for _ in range(rounds):
            for tasks in (1, 16):
                for name, fn in (("unary", unary), ("stream", streamed)):
                    cpu0 = (await asyncio.to_thread(child.ask, "stats"))["cpu_s"]
                    t0 = time.monotonic()
                    count, lat = await fn(channel, md, request, seconds, tasks)
                    elapsed = time.monotonic() - t0
                    cpu = (await asyncio.to_thread(child.ask, "stats"))["cpu_s"] - cpu0
                    row = {
                        "rate": count / elapsed,
                        "p50_us": pct(lat, 0.5) * 1e6,
                        "cpu_us": cpu / max(count, 1) * 1e6,
                    }
                    if row["rate"] > best.get((name, tasks), {"rate": -1.0})["rate"]:
                        best[(name, tasks)] = row
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "outrider.yaml"
        cfg.write_text(ca.POLICY)
        with Child("bench.sidecar", "--config", str(cfg), "--data-dir", tmp, "--agent", ca.AGENT) as child:
            md = ca.bearer(child.ready.get("agent_token"))
            best = asyncio.run(measure(f"127.0.0.1:{child.ready['port']}", md, child, args.seconds, args.rounds))
            child.close(timeout=120)
    load = os.getloadavg()
    rows = []
    for tasks in (1, 16):
        u, s = best[("unary", tasks)], best[("stream", tasks)]
        rows.append(
            f"| {tasks} | {u['rate']:,.0f} | {s['rate']:,.0f} | {s['rate'] / u['rate']:.2f}x | {u['p50_us']:.0f} µs "
            f"| {s['p50_us']:.0f} µs | {u['cpu_us']:.0f} µs | {s['cpu_us']:.0f} µs |"
        )
    saved = best[("unary", 16)]["cpu_us"] - best[("stream", 16)]["cpu_us"]
    text = "\n".join(
        [
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/streaming.py` (see its docstring "
            f"for the method); load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end (2 cores shared "
            "with other work). Best of "
            f"{args.rounds} alternating runs of {args.seconds:g} s.",
            "",
            "| callers | unary echo, msgs/s | stream echo, msgs/s | stream / unary | unary p50 | stream p50 "
            "| server CPU per message, unary | stream |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"At 16 callers a stream saves {saved:.0f} µs of server CPU per message against a unary call.",
        ]
    )
    print(text)
    replace_section(args.out, SECTION, text)


if __name__ == "__main__":
    main()
