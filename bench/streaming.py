"""`make bench`: what a bidirectional `CheckActions` stream saves per decision against unary CheckAction.

Twice: on the transport alone, the bench sidecar's empty echo (`outrider.bench.Echo/Echo`, unary) against
its streaming twin (`EchoStream`: each message answered on one bidirectional stream), both behind the
production interceptors (authentication, hygiene) on one grpc.aio server, with the bench's 350-byte
CheckActionRequest as the message; and for real decisions, `CheckAction` against `CheckActions` through the
bench's five-guardrail chain (decision log on). A stream pays the interceptors and the call set-up once
instead of per message. Rows: one caller sending one message at a
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
from collections.abc import Awaitable, Callable
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
from outrider.v1 import supervisor_service_pb2 as pb

CHECK_ACTION = "/outrider.v1.SupervisorService/CheckAction"
CHECK_ACTIONS = "/outrider.v1.SupervisorService/CheckActions"

SECTION = "Streaming CheckActions"


Step = Callable[[], Awaitable[None]]
Opener = Callable[[], Awaitable[tuple[Step, Step]]]


async def timed(opener: Opener, seconds: float, tasks: int) -> tuple[int, list[float]]:
    """`tasks` callers, each opening its caller (`step` one message, `finish` at the end) and stepping until
    `seconds` are over; the messages answered and their latencies."""
    end = time.monotonic() + seconds
    lat: list[float] = []

    async def loop() -> None:
        step, finish = await opener()
        while time.monotonic() < end:
            t0 = time.perf_counter()
            await step()
            lat.append(time.perf_counter() - t0)
        await finish()

    await asyncio.gather(*(loop() for _ in range(tasks)))
    return len(lat), lat


def unary(channel: grpc.aio.Channel, method: str, md: Any, request: bytes, seconds: float) -> Opener:
    call = channel.unary_unary(method)

    async def opener() -> tuple[Step, Step]:
        async def step() -> None:
            await call(request, metadata=md, timeout=30)

        async def finish() -> None:
            return None

        return step, finish

    return opener


def streamed(channel: grpc.aio.Channel, method: str, md: Any, request: bytes, seconds: float) -> Opener:
    """One stream per caller: write a message, read its answer (one in flight, so a fixed id is unique)."""
    open_stream = channel.stream_stream(method)

    async def opener() -> tuple[Step, Step]:
        stream = open_stream(metadata=md, timeout=seconds + 30)

        async def step() -> None:
            await stream.write(request)
            await stream.read()

        async def finish() -> None:
            await stream.done_writing()
            await stream.read()  # the end of the stream

        return step, finish

    return opener


# (label, unary method, its streaming twin, the message each one sends)
def _pairs() -> list[tuple[str, str, str, bytes, bytes]]:
    check = ca.request_bytes()
    many = pb.CheckActionsRequest(id=1, check=pb.CheckActionRequest.FromString(check)).SerializeToString()
    return [
        ("echo", ECHO_METHOD, ECHO_STREAM_METHOD, check, check),
        ("check", CHECK_ACTION, CHECK_ACTIONS, check, many),
    ]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


async def measure(
    target: str, md: Any, child: Child, seconds: float, rounds: int
) -> dict[tuple[str, str, int], dict[str, float]]:
    best: dict[tuple[str, str, int], dict[str, float]] = {}
    async with grpc.aio.insecure_channel(target) as channel:
        for _label, one, many, one_req, many_req in _pairs():  # warm every path
            await timed(unary(channel, one, md, one_req, 0.5), 0.5, 4)
            await timed(streamed(channel, many, md, many_req, 0.5), 0.5, 4)
        for _ in range(rounds):
            for label, one, many, one_req, many_req in _pairs():
                for tasks in (1, 16):
                    for name, opener in (
                        ("unary", unary(channel, one, md, one_req, seconds)),
                        ("stream", streamed(channel, many, md, many_req, seconds)),
                    ):
                        cpu0 = (await asyncio.to_thread(child.ask, "stats"))["cpu_s"]
                        t0 = time.monotonic()
                        count, lat = await timed(opener, seconds, tasks)
                        elapsed = time.monotonic() - t0
                        cpu = (await asyncio.to_thread(child.ask, "stats"))["cpu_s"] - cpu0
                        await asyncio.sleep(0.3)  # the decision log writes the run's tail before the next one
                        row = {
                            "rate": count / elapsed,
                            "p50_us": pct(lat, 0.5) * 1e6,
                            "cpu_us": cpu / max(count, 1) * 1e6,
                        }
                        if row["rate"] > best.get((label, name, tasks), {"rate": -1.0})["rate"]:
                            best[(label, name, tasks)] = row
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
    names = {
        "echo": ("empty echo", "`Echo` / `EchoStream`"),
        "check": ("CheckAction", "`CheckAction` / `CheckActions`"),
    }
    for label in ("echo", "check"):
        for tasks in (1, 16):
            u, s = best[(label, "unary", tasks)], best[(label, "stream", tasks)]
            rows.append(
                f"| {names[label][1]} | {tasks} | {u['rate']:,.0f} | {s['rate']:,.0f} | {s['rate'] / u['rate']:.2f}x "
                f"| {u['p50_us']:.0f} µs | {s['p50_us']:.0f} µs | {u['cpu_us']:.0f} µs | {s['cpu_us']:.0f} µs |"
            )
    saved = {label: best[(label, "unary", 16)]["cpu_us"] - best[(label, "stream", 16)]["cpu_us"] for label in names}
    text = "\n".join(
        [
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/streaming.py` (see its docstring "
            f"for the method); load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end (2 cores shared "
            "with other work). Best of "
            f"{args.rounds} alternating runs of {args.seconds:g} s.",
            "",
            "| unary / stream | callers | unary, msgs/s | stream, msgs/s | stream / unary | unary p50 | stream p50 "
            "| server CPU per message, unary | stream |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"At 16 callers a stream saves {saved['echo']:.0f} µs of server CPU per message on the empty echo and "
            f"{saved['check']:.0f} µs per decision on CheckAction (the bench's five-guardrail chain, decision log "
            "on): what an agent that checks at a high rate gains by keeping one `CheckActions` stream open.",
        ]
    )
    print(text)
    replace_section(args.out, SECTION, text)


if __name__ == "__main__":
    main()
