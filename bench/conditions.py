"""`make bench`: what `when:` costs over gRPC: the bench's five-guardrail chain, and the same chain with a CEL
condition on every guardrail, served by two sidecars side by side and loaded in turns in one run; and the same two
chains in one process, without gRPC (`CheckActionService.check_action` through the production composition root,
thread CPU time per call, alternating rounds, the best round of each), which says what the conditions cost the
sidecar's CPU without the noise of a shared machine's transport.

Each condition holds for the bench's call (so every guardrail still runs) and reads the context, the agent and the
action, as a team's conditions do; the two sidecars are otherwise identical (`bench/sidecar.py`: the production
`build_server`, SQLite, decision log on). The issue's target: the chain with conditions keeps at least 90% of the
plain chain's throughput.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/conditions.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench._proc import Child
from bench.checkaction import (
    ACTION,
    AGENT,
    CHECK_METHOD,
    CONTEXT,
    GROUP,
    LAST_GUARDRAIL,
    POLICY,
    Run,
    Settings,
    _load,
    bearer,
    load_average,
    merge,
    percentile,
    prepare,
    request_bytes,
)
from bench.report import replace_section

TITLE = "Conditions (`when:`) over gRPC"
TARGET = 0.90  # throughput with a condition on every guardrail, as a share of the plain chain's
IN_PROCESS_ROUNDS = 6
ROUNDS = 7  # runs per sidecar and concurrency, in turns
IN_PROCESS_CALLS = 2000

# One condition per guardrail, in chain order; each holds for the bench's call.
WHEN = (
    'action != "shell.exec"',
    "!has(context.dry_run) || context.dry_run == false",
    'agent.group == "analysts" || context.cost < 50',
    'glob(action, "files.*") && size(context.tags) <= 10',
    'context.user.id.startsWith("u-") && context.limits.rows <= 100000',
)


def with_conditions(policy: str) -> str:
    """The bench policy with `when:` added to each of its five guardrails (flow-style YAML maps)."""
    lines = policy.splitlines()
    out, i = [], 0
    for line in lines:
        if line.lstrip().startswith("- {name:"):
            cel = WHEN[i].replace("'", "''")
            line = line.rstrip().removesuffix("}") + f", when: '{cel}'}}"
            i += 1
        out.append(line)
    assert i == len(WHEN), f"expected {len(WHEN)} guardrails in the bench policy, found {i}"
    return "\n".join(out) + "\n"


def in_process(rounds: int, calls: int) -> dict[str, float]:
    """µs of CPU per CheckAction for each chain, in one process: `rounds` alternating rounds, the best of each."""
    from server.bootstrap import build_services
    from server.config import load_config

    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="outrider-bench-cel-inproc-") as tmp:
        stacks = {}
        try:
            for name, policy in (("plain", POLICY), ("when", with_conditions(POLICY))):
                path = Path(tmp) / f"{name}.yaml"
                path.write_text(policy + "telemetry: {enabled: false}\n")
                overrides = {"data_dir": Path(tmp) / f"data-{name}", "console_enabled": False}
                services = build_services(load_config(str(path), overrides, env={}))
                stacks[name] = services
                services.agents.register(AGENT, GROUP, [], {})

            async def run(checks: Any, n: int) -> float:
                started = time.thread_time()
                for _ in range(n):
                    checked = await checks.check_action(AGENT, ACTION, CONTEXT, {}, "")
                assert checked.verdict.allowed and checked.verdict.guardrail == LAST_GUARDRAIL, checked.verdict
                return (time.thread_time() - started) / n * 1e6

            for round_ in range(rounds + 1):
                for name, services in stacks.items():
                    us = asyncio.run(run(services.checks, calls))
                    services.decisions.flush(60)  # the writer's work stays out of the next round
                    if round_:  # the first is a warm-up
                        best[name] = min(us, best.get(name, us))
        finally:
            for services in stacks.values():
                services.close()
    return best


async def alternate(
    targets: dict[str, tuple[str, tuple[tuple[str, str], ...]]],
    children: dict[str, Child],
    request: bytes,
    s: Settings,
    concurrency: int,
) -> dict[str, list[Run]]:
    """`s.rounds` runs on each sidecar in turns, so drift in the machine's load falls on both. Each run ends when
    its sidecar's decision log has written the run's decisions: the writing is part of the run (its time and the
    sidecar's CPU), never left to run beside the other sidecar's next run."""
    out: dict[str, list[Run]] = {name: [] for name in targets}
    channels = {name: grpc.aio.insecure_channel(t) for name, (t, _md) in targets.items()}
    try:
        calls = {name: ch.unary_unary(CHECK_METHOD) for name, ch in channels.items()}
        for name, call in calls.items():  # warm both
            md = targets[name][1]
            await asyncio.gather(*(call(request, timeout=10, metadata=md) for _ in range(200)))
            await asyncio.to_thread(children[name].ask, "drain", 90)
        for _ in range(s.rounds):
            for name, call in calls.items():
                child = children[name]

                def server_cpu(drain: bool, child: Child = child) -> float:
                    return float(child.ask("drain" if drain else "stats", timeout=90)["cpu_s"])

                started = time.perf_counter()
                run = await _load(call, request, targets[name][1], concurrency, s, server_cpu, drain=True)
                run.seconds = time.perf_counter() - started  # until the decision log had written the run
                out[name].append(run)
    finally:
        for ch in channels.values():
            await ch.close()
    return out


def paired_ratio(runs: dict[str, list[Run]]) -> float:
    """The median of each round's `when` rate over the plain rate of the same round: a round the machine's other
    work slowed counts once, not by how many calls it lost."""
    ratios = sorted(w.rate / p.rate for p, w in zip(runs["plain"], runs["when"], strict=True))
    mid = len(ratios) // 2
    return ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="write the section into this Markdown file (docs/benchmarks.md)")
    p.add_argument("--duration", type=float, default=Settings.duration, help="seconds per run")
    p.add_argument("--rounds", type=int, default=ROUNDS, help="runs per sidecar and concurrency")
    p.add_argument("--in-process-only", action="store_true", help="only the in-process measure, printed")
    p.add_argument("--in-process-rounds", type=int, default=IN_PROCESS_ROUNDS)
    p.add_argument("--in-process-calls", type=int, default=IN_PROCESS_CALLS, help="calls per round")
    args = p.parse_args()
    inproc = in_process(args.in_process_rounds, args.in_process_calls)
    inproc_rows = [
        "| in process | plain chain | `when` on every guardrail | difference | plain / `when` |",
        "|---|---:|---:|---:|---:|",
        f"| CPU per CheckAction | {inproc['plain']:.1f} µs | {inproc['when']:.1f} µs "
        f"| {inproc['when'] - inproc['plain']:+.1f} µs | {inproc['plain'] / inproc['when']:.2f} |",
    ]
    print("\n".join(inproc_rows))
    if args.in_process_only:
        return
    s = Settings(duration=args.duration, rounds=args.rounds)
    request = request_bytes()
    load_before = load_average()
    results: dict[int, dict[str, Run]] = {}
    ratios: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="outrider-bench-cel-") as tmp:
        children: dict[str, Child] = {}
        try:
            for name, policy in (("plain", POLICY), ("when", with_conditions(POLICY))):
                d = Path(tmp) / name
                d.mkdir()
                (d / "outrider.yaml").write_text(policy)
                child = Child(
                    "bench.sidecar",
                    "--config",
                    str(d / "outrider.yaml"),
                    "--data-dir",
                    str(d / "data"),
                    "--agent",
                    AGENT,
                )
                children[name] = child.__enter__()
            targets = {}
            for name, child in children.items():
                target = f"127.0.0.1:{child.ready['port']}"
                md = bearer(child.ready.get("agent_token"))
                prepare(target, request, md, bearer(child.ready.get("operator_token")))
                targets[name] = (target, md)
            for c in (1, 16):
                runs = asyncio.run(alternate(targets, children, request, s, c))
                results[c] = {name: merge(r) for name, r in runs.items()}
                ratios[c] = paired_ratio(runs)
                print(f"concurrency {c}: " + ", ".join(f"{n} {r.rate:,.0f}/s" for n, r in results[c].items()))
        finally:
            for child in children.values():
                child.__exit__(None, None, None)
    rows = [
        "| concurrency | plain chain | `when` on every guardrail | ratio (median of rounds) | sidecar CPU per call, "
        "plain | with `when` | p50 plain | p50 with `when` | target |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c, r in results.items():
        ratio = ratios[c]
        cpu = {name: run.server_cpu_s / run.calls * 1e6 for name, run in r.items()}
        rows.append(
            f"| {c} | {r['plain'].rate:,.0f} calls/s | {r['when'].rate:,.0f} calls/s | {ratio:.2f} "
            f"| {cpu['plain']:.0f} µs | {cpu['when']:.0f} µs "
            f"| {percentile(r['plain'].latencies_ns, 0.5) / 1000:.0f} µs "
            f"| {percentile(r['when'].latencies_ns, 0.5) / 1000:.0f} µs "
            f"| ≥ {TARGET:.2f}: {'**met**' if ratio >= TARGET else '**not met**'} |"
        )
    body = (
        f"Measured by `bench/conditions.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
        f"{load_before} at the start, {load_average()} at the end. Two sidecars (the bench's five-guardrail chain; "
        "the same chain with a CEL `when:` on every guardrail, each holding for the call so every guardrail still "
        f"runs) loaded in turns, {s.rounds} runs of {s.duration:g} s each per concurrency, one `grpc.aio` channel. "
        "A run lasts until its sidecar's decision log has written the run's decisions (that time and CPU count); "
        "calls/s are over all runs, the ratio is the median of the rounds' ratios, and a sidecar's CPU per call is its "
        "process's CPU time (every thread) over the run.\n\n"
        "The conditions:\n\n" + "\n".join(f"- `{w}`" for w in WHEN) + "\n\n" + "\n".join(rows) + "\n\n"
        "The same two chains in one process, without gRPC (`check_action` through the production composition root, "
        f"decision log and metrics on, tracing off): CPU time of the calling thread per call, best of "
        f"{args.in_process_rounds} alternating rounds of {args.in_process_calls:,} calls.\n\n"
        + "\n".join(inproc_rows)
        + "\n"
    )
    print(body)
    if args.out:
        replace_section(args.out, TITLE, body)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
