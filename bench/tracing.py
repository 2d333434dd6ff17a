"""`make bench`, second part: what tracing costs CheckAction. Off, on (always_on, every span exported over
OTLP/gRPC to a local receiver) and sampled at 1% (parentbased_traceidratio 0.01), same sidecar, same chain.

Reuses `bench/checkaction.py`: the five-guardrail policy, the sidecar process, the load generator and the
echo baseline. Appends (or replaces) the "Tracing overhead" section of `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/tracing.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import checkaction as ca
from bench._proc import Child

SECTION = "## Tracing overhead"
IN_PROCESS_CALLS = 2000
IN_PROCESS_ROUNDS = 8
MODES: list[tuple[str, str]] = [
    ("off", "telemetry: {enabled: false}"),
    (
        "on, always_on",
        "telemetry: {enabled: true, endpoint: 'http://127.0.0.1:SINK', sampler: always_on}",
    ),
    (
        "on, 1% sampled",
        "telemetry: {enabled: true, endpoint: 'http://127.0.0.1:SINK', sampler: parentbased_traceidratio, "
        "sampler_arg: 0.01}",
    ),
]


@dataclass
class Result:
    mode: str
    p50_us: float
    p99_us: float
    echo_p50_us: float
    rate: float
    echo_rate: float
    cpu_us: float  # server CPU per CheckAction under load
    checks: int
    spans: int = 0  # what the receiver got from this sidecar


def measure(mode: str, telemetry: str, sink_port: int, s: ca.Settings, request: bytes) -> Result:
    with tempfile.TemporaryDirectory(prefix="outrider-bench-tracing-") as tmp:
        config = Path(tmp) / "outrider.yaml"
        config.write_text(ca.POLICY + telemetry.replace("SINK", str(sink_port)) + "\n")
        data = str(Path(tmp) / "data")
        with Child("bench.sidecar", "--config", str(config), "--data-dir", data, "--agent", ca.AGENT) as child:
            target = f"127.0.0.1:{child.ready['port']}"
            md = ca.bearer(child.ready.get("agent_token"))
            ca.prepare(target, request, md, ca.bearer(child.ready.get("operator_token")))
            seq = ca.sequential(target, request, md, s)

            def server_cpu(drain: bool) -> float:  # as checkaction.main: CPU once the decision log has written
                return float(child.ask("drain" if drain else "stats", timeout=90)["cpu_s"])

            runs = asyncio.run(ca.throughput(target, request, md, s, server_cpu))
            child.close()  # a graceful stop: the sidecar flushes its last spans
    load = {key: ca.merge(v) for key, v in runs.items()}
    check, echo = load[("check", s.concurrency[0])], load[("echo", s.concurrency[0])]
    checks = 1 + s.warmup + len(seq["check"]) + ca.AIO_WARMUP + check.calls
    return Result(
        mode,
        ca.percentile(seq["check"], 0.5) / 1000,
        ca.percentile(seq["check"], 0.99) / 1000,
        ca.percentile(seq["echo"], 0.5) / 1000,
        check.rate,
        echo.rate,
        check.server_cpu_s / check.calls * 1e6,
        checks,
    )


class _Context:
    """What the tracing interceptor reads of a grpc.aio servicer context, for the in-process measure."""

    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.metadata = metadata

    def code(self) -> int:
        return 0

    def trailing_metadata(self) -> tuple[()]:
        return ()

    def details(self) -> str:
        return ""


def in_process(sink_port: int, calls: int, rounds: int) -> dict[str, float]:
    """µs per CheckAction through the real tracing interceptor and service, no gRPC: one service stack per
    mode in this process, measured in turns, the best round of each. Isolates what tracing itself costs
    from the network stack and from other load on the machine."""
    from server.bootstrap import build_services
    from server.config import load_config
    from server.rpc.tracing import TracingInterceptor

    ctx = _Context((("authorization", "Bearer " + "x" * 40), ("user-agent", "grpc-python")))
    attrs = {"rpc.system": "grpc", "rpc.service": "outrider.v1.SupervisorService", "rpc.method": "CheckAction"}
    behaviors: dict[str, Any] = {}
    closers: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="outrider-bench-tracing-") as tmp:
        try:
            # In process only: what the metrics themselves cost (they are on in every other row).
            metrics_off = ("off, metrics off too", "telemetry: {enabled: false, metrics: false}")
            for i, (mode, telemetry) in enumerate([*MODES, metrics_off]):
                path = Path(tmp) / f"outrider-{i}.yaml"
                path.write_text(ca.POLICY + telemetry.replace("SINK", str(sink_port)) + "\n")
                overrides = {"data_dir": Path(tmp) / f"data-{i}", "console_enabled": False}
                services = build_services(load_config(str(path), overrides, env={}))
                closers.append(services.close)
                services.agents.register(ca.AGENT, ca.GROUP, [], {})

                async def handler(request: object, c: object, checks: Any = services.checks) -> object:
                    return await checks.check_action(ca.AGENT, ca.ACTION, ca.CONTEXT, {}, "")

                behavior: Any = handler
                if services.telemetry.tracing:  # the wrapper every RPC runs through
                    tracer = services.telemetry.tracer
                    behavior = TracingInterceptor(tracer)._unary(
                        handler, ("outrider.v1.SupervisorService/CheckAction", None, attrs)
                    )
                behaviors[mode] = (behavior, services)

            async def run(behavior: Any, n: int) -> float:
                started = time.perf_counter()
                for _ in range(n):
                    await behavior(None, ctx)
                return (time.perf_counter() - started) / n * 1e6

            best: dict[str, float] = {}
            for round_ in range(rounds + 1):
                for mode, (behavior, services) in behaviors.items():
                    us = asyncio.run(run(behavior, calls))
                    # Its background work (decision-log writer, span export) stays out of the next round.
                    services.decisions.flush(60)
                    services.telemetry.flush(60)
                    if round_:  # the first is a warm-up
                        best[mode] = min(us, best.get(mode, us))
            return best
        finally:
            for close in reversed(closers):
                close()


def report(results: list[Result], s: ca.Settings, passes: int, inproc: dict[str, float]) -> str:
    base = next(r for r in results if r.mode == "off")
    rows = [
        "| tracing | CheckAction p50 | p99 | p50 over echo | p50 vs off | throughput (c=16) | vs off "
        "| server CPU per call | vs off | spans exported |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        rows.append(
            f"| {r.mode} | {r.p50_us:.0f} µs | {r.p99_us:.0f} µs | +{r.p50_us - r.echo_p50_us:.0f} µs "
            f"| {r.p50_us - base.p50_us:+.0f} µs | {r.rate:,.0f} calls/s | {100 * (r.rate / base.rate - 1):+.1f}% "
            f"| {r.cpu_us:.0f} µs | {r.cpu_us - base.cpu_us:+.0f} µs | {r.spans:,} |"
        )
    return f"""{SECTION}

Measured by `make bench` (`bench/tracing.py`) on {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, same machine
and method as above (five guardrails, every call allowed, auth on, sidecar and load generator in separate
processes): one sidecar per row, started with its `telemetry:` section as shown, metrics on in every row.
*On* exports every span (one server span and five guardrail spans per call) through the batch span
processor over OTLP/gRPC to `bench/otlp_sink.py`, a receiver in a third process that counts and drops them.
*1% sampled* is `parentbased_traceidratio` at 0.01: the calls carry no traceparent, so the sidecar samples
1% of them and the rest cost one non-recording span each. Sequential latency: {s.sequential} calls per row in
{s.blocks} blocks alternating with the echo; throughput: concurrency {s.concurrency[0]}, {s.rounds} runs of
{s.duration:g} s. Every mode was measured {passes} times, interleaved; each row is its best pass (highest
throughput), since other load on the machine only ever slows a run down.

{chr(10).join(rows)}

"p50 over echo" is CheckAction's p50 minus the empty echo's in the same row (what the sidecar's work costs
a caller); the "vs off" columns compare with the first row. Server CPU is process CPU time per CheckAction
under load (its share of the SDK's export thread included).

Over gRPC the figures move by tens of µs from run to run on a shared 2-core machine. The same chain in one
process, without gRPC (the real tracing interceptor wrapping `SupervisorService.check_action`, the decision
log and metrics on; the three modes side by side in one process, measured in turns, best of {IN_PROCESS_ROUNDS}
rounds of {IN_PROCESS_CALLS:,} calls each), isolates what tracing itself costs:

| tracing | µs per CheckAction, in process | vs off |
|---|---:|---:|
{chr(10).join(f"| {m} | {v:.1f} µs | {v - inproc['off']:+.1f} µs |" for m, v in inproc.items())}

{conclusion(results, inproc)}
"""


def targets(results: list[Result], inproc: dict[str, float]) -> str:
    """Issue 17's targets: 1% sampling costs < 5% of throughput, always-on < 25%; over gRPC (c=16) and, as a
    steadier second view, in process (µs per call)."""
    off, on, sampled = (next(r for r in results if r.mode == m) for m, _ in MODES)
    lines = ["| target | over gRPC, throughput lost at c=16 | in process, cost per call | |", "|---|---:|---:|---|"]
    for name, r, mode, limit in (
        ("1% sampled < 5%", sampled, "on, 1% sampled", 5),
        ("always_on < 25%", on, "on, always_on", 25),
    ):
        lost = 100 * (1 - r.rate / off.rate)
        extra = 100 * (inproc[mode] / inproc["off"] - 1)
        ok = lost < limit and extra < limit
        lines.append(f"| {name} | {lost:.1f}% | {extra:+.0f}% | {'met' if ok else '**not met**'} |")
    return "\n".join(lines)


def conclusion(results: list[Result], inproc: dict[str, float]) -> str:
    off, on, _ = (next(r for r in results if r.mode == m) for m, _ in MODES)
    metrics = inproc["off"] - inproc["off, metrics off too"]
    return (
        targets(results, inproc)
        + "\n\n"
        + (
            f"**Conclusion.** Recording and exporting every span (six per call) costs "
            f"{inproc['on, always_on'] - inproc['off']:.0f} µs per CheckAction in process; over gRPC it added "
            f"{on.p50_us - off.p50_us:.0f} µs to the p50 and {on.cpu_us - off.cpu_us:.0f} µs of server CPU per call "
            f"({100 * (1 - on.rate / off.rate):.0f}% less throughput at concurrency 16, the export thread competing "
            f"for the same core). Sampled at 1%, tracing costs {inproc['on, 1% sampled'] - inproc['off']:.0f} µs per "
            "call in process: an unsampled call pays for one non-recording span and the sampling decision only. "
            "Production fleets "
            "should sample (`parentbased_traceidratio`); an agent that sends a sampled traceparent still gets its "
            "whole trace, since the parent's decision wins. When export falls behind, the batch processor drops "
            "spans from its full queue (2,048) rather than slow a call down. The metrics (a counter and a histogram "
            f"per call, through the OTel SDK) cost {metrics:.0f} µs per call; `telemetry.metrics: false` saves it."
        )
    )


def write_section(path: Path, section: str) -> None:
    page = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    if SECTION in page:
        before, _, after = page.partition(SECTION)
        rest = after.split("\n## ", 1)
        page = before + section + ("\n## " + rest[1] if len(rest) > 1 else "")
    else:
        page = page.rstrip("\n") + "\n\n" + section
    path.write_text(page, encoding="utf-8")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="append (or replace) the section in this Markdown file")
    p.add_argument("--duration", type=float, default=0.5, help="seconds per throughput run")
    p.add_argument("--rounds", type=int, default=6, help="throughput runs per method")
    p.add_argument("--passes", type=int, default=2, help="measure every mode this many times; keep the best")
    args = p.parse_args()
    s = ca.Settings(concurrency=(16,), duration=args.duration, rounds=args.rounds)
    request = ca.request_bytes()
    started = time.perf_counter()
    passes: dict[str, list[Result]] = {}
    with Child("bench.otlp_sink") as sink:
        port = int(sink.ready["port"])
        for n in range(args.passes):  # the modes interleave, so a noisy minute hurts all of them alike
            for mode, telemetry in MODES:
                before = int(sink.ask("stats")["spans"])
                print(f"pass {n + 1}: tracing {mode} ...", flush=True)
                result = measure(mode, telemetry, port, s, request)
                result.spans = int(sink.ask("stats")["spans"]) - before
                passes.setdefault(mode, []).append(result)
        # Each mode's best pass (highest throughput): other load on the machine only ever slows a run down.
        results = [max(passes[mode], key=lambda r: r.rate) for mode, _ in MODES]
        print("in process ...", flush=True)
        inproc = in_process(port, IN_PROCESS_CALLS, IN_PROCESS_ROUNDS)
        sink.close()
    on = next(r for r in results if r.mode == "on, always_on")
    expected = on.checks * (1 + ca.CHAIN_LENGTH)
    if on.spans < expected:
        print(f"warning: {on.spans} spans exported, {expected} expected", flush=True)
    section = report(results, s, args.passes, inproc)
    print()
    print(section)
    if args.out:
        write_section(args.out, section)
        print(f"wrote the section to {args.out}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
