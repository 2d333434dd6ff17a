"""`make bench`: CheckAction through a 5-guardrail chain versus an empty gRPC echo, then grpc.aio versus sync.

A real sidecar (the production `build_server`, SQLite, decision log on, console off) runs in its own
process (`bench/sidecar.py`) and serves, beside SupervisorService, an echo that returns its request
bytes. This process is the load generator: the same client code sends the same number of bytes to both
methods over loopback, so the ratios measure the sidecar's work and survive a noisy machine. It prints a
table and writes it, with the grpc.aio-versus-sync figures of `bench/waiting.py`, to `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import pstats
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # no INFO lines from grpc core in the report
if __package__ in (None, ""):  # run as `python bench/checkaction.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc
from google.protobuf import __version__ as protobuf_version
from google.protobuf import struct_pb2
from google.protobuf.internal import api_implementation

from bench import waiting
from bench._proc import Child
from bench.sidecar import ECHO_METHOD
from outrider.v1 import common_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc

CHECK_METHOD = "/outrider.v1.SupervisorService/CheckAction"
AGENT = "bench-agent-01"
GROUP = "analysts"
ACTION = "files.read"

# Five built-in guardrails; an allowed call runs all of them (trust_root first, then in order).
POLICY = r"""
log: {level: warning}
limits: {requests_per_second: 1000000, burst: 1000000, max_check_streams_per_agent: 64}  # no limit may trip
guardrails:
  - {name: root, kind: trust_root, blocked_patterns: ['(?i)rm\s+-rf', '(?i)DROP\s+TABLE']}
  - {name: cost-cap, kind: cost_cap, key: cost, max: 100}
  - {name: tools, kind: action_list, deny: ['shell.*', 'payments.refund_all']}
  - {name: pace, kind: rate_limit, max: 100000000, window: 60s, warn_at: 0.9}
  - {name: analysts, kind: action_list, allow: ['files.read', 'files.list', 'search.*'], groups: [analysts]}
"""
CHAIN_LENGTH = 5
LAST_GUARDRAIL = "analysts"

# A realistic context: a few keys, a nested map, lists; about 300 bytes serialized.
CONTEXT: dict[str, Any] = {
    "path": "/srv/reports/2024/q3/revenue-by-region.csv",
    "cost": 12.5,
    "user": {"id": "u-18342", "roles": ["analyst", "reader"]},
    "tags": ["finance", "quarterly", "csv"],
    "query": "SELECT region, SUM(amount) FROM revenue GROUP BY region",
    "limits": {"rows": 5000, "timeout_s": 30},
    "dry_run": False,
}

P50_TARGET = 1.3  # CheckAction p50 at most 1.3x the echo's
THROUGHPUT_TARGET = 0.70  # CheckAction throughput at least 70% of the echo's
AIO_WARMUP = 200


@dataclass
class Run:
    """One load run of one method at one concurrency."""

    calls: int
    seconds: float
    server_cpu_s: float
    client_cpu_s: float
    latencies_ns: list[int] = field(repr=False)

    @property
    def rate(self) -> float:
        return self.calls / self.seconds


@dataclass
class Settings:
    warmup: int = 500
    sequential: int = 2000
    blocks: int = 20
    concurrency: tuple[int, ...] = (1, 16, 64)
    duration: float = 2.0
    rounds: int = 3
    max_calls: int = 200_000


def request_bytes() -> bytes:
    ctx = struct_pb2.Struct()
    ctx.update(CONTEXT)
    req = pb.CheckActionRequest(agent_id=AGENT, action=ACTION, context=ctx)
    return req.SerializeToString()


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


Metadata = tuple[tuple[str, str], ...]


def bearer(token: str | None) -> Metadata:
    return (("authorization", f"Bearer {token}"),) if token else ()


def prepare(target: str, request: bytes, agent: Metadata, operator: Metadata) -> None:
    """Register the agent and check that the chain and the call are what the benchmark claims."""
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.SupervisorServiceStub(channel)
        agent_pb = common_pb2.Agent(agent_id=AGENT, group=GROUP)
        stub.RegisterAgent(
            pb.RegisterAgentRequest(agent=agent_pb), timeout=10, metadata=operator
        )  # agent.group is set by operators
        chain = stub.ListGuardrails(pb.ListGuardrailsRequest(), timeout=10, metadata=operator).guardrails
        assert len(chain) == CHAIN_LENGTH, f"expected {CHAIN_LENGTH} guardrails, got {len(chain)}"
        answer = stub.CheckAction(pb.CheckActionRequest.FromString(request), timeout=10, metadata=agent)
        assert answer.allowed and answer.guardrail == LAST_GUARDRAIL and not answer.warnings, answer
        echo = channel.unary_unary(ECHO_METHOD)(request, timeout=10, metadata=agent)
        assert echo == request


def sequential(target: str, request: bytes, md: Metadata, s: Settings) -> dict[str, list[int]]:
    """One call at a time on a blocking channel, in blocks alternating between the two methods."""
    out: dict[str, list[int]] = {"echo": [], "check": []}
    with grpc.insecure_channel(target) as channel:
        calls = {"echo": channel.unary_unary(ECHO_METHOD), "check": channel.unary_unary(CHECK_METHOD)}
        for call in calls.values():
            for _ in range(s.warmup):
                call(request, timeout=10, metadata=md)
        per_block = s.sequential // s.blocks
        clock = time.perf_counter_ns
        for _ in range(s.blocks):
            for name, call in calls.items():
                sink = out[name]
                for _ in range(per_block):
                    t0 = clock()
                    call(request, timeout=10, metadata=md)
                    sink.append(clock() - t0)
    return out


async def _load(
    call: grpc.aio.UnaryUnaryMultiCallable,
    request: bytes,
    md: Metadata,
    concurrency: int,
    s: Settings,
    server_cpu: Callable[[bool], float],
    drain: bool = False,
) -> Run:
    """`concurrency` tasks calling in a loop for `s.duration`; the server's CPU is read before and after (once
    the decision log has written this run's records, when `drain`)."""
    latencies: list[int] = []
    clock = time.perf_counter_ns
    cpu0, ccpu0 = await asyncio.to_thread(server_cpu, False), time.process_time()
    started = time.perf_counter()
    stop_at = started + s.duration

    async def worker() -> None:
        while time.perf_counter() < stop_at and len(latencies) < s.max_calls:
            t0 = clock()
            await call(request, timeout=10, metadata=md)
            latencies.append(clock() - t0)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    ccpu = time.process_time() - ccpu0
    cpu = await asyncio.to_thread(server_cpu, drain) - cpu0
    return Run(len(latencies), elapsed, cpu, ccpu, latencies)


async def throughput(
    target: str, request: bytes, md: Metadata, s: Settings, server_cpu: Callable[[bool], float]
) -> dict[tuple[str, int], list[Run]]:
    """For each concurrency, N tasks on one grpc.aio channel for `duration`; the methods alternate, `rounds`
    runs each. After a CheckAction run the decision log drains, so its writes never land in an echo run."""
    results: dict[tuple[str, int], list[Run]] = {}
    async with grpc.aio.insecure_channel(target) as channel:
        calls = {"echo": channel.unary_unary(ECHO_METHOD), "check": channel.unary_unary(CHECK_METHOD)}
        for call in calls.values():  # warm the aio path too
            await asyncio.gather(*(call(request, timeout=10, metadata=md) for _ in range(AIO_WARMUP)))
        for concurrency in s.concurrency:
            for _ in range(s.rounds):
                for name, call in calls.items():
                    run = await _load(call, request, md, concurrency, s, server_cpu, drain=name == "check")
                    results.setdefault((name, concurrency), []).append(run)
    return results


def merge(runs: list[Run]) -> Run:
    return Run(
        sum(r.calls for r in runs),
        sum(r.seconds for r in runs),
        sum(r.server_cpu_s for r in runs),
        sum(r.client_cpu_s for r in runs),
        [x for r in runs for x in r.latencies_ns],
    )


def profile(child: Child, target: str, request: bytes, md: Metadata, s: Settings, path: Path) -> tuple[str, int]:
    """cProfile the server's event loop thread during one CheckAction run at concurrency 16."""
    child.ask("profile start")

    async def go() -> Run:
        async with grpc.aio.insecure_channel(target) as channel:
            return await _load(channel.unary_unary(CHECK_METHOD), request, md, 16, s, lambda _drain: 0.0)

    run = asyncio.run(go())
    child.ask(f"profile stop {path}")
    stats = pstats.Stats(str(path))
    lines = [f"cProfile of the server loop thread, {run.calls} CheckAction calls at concurrency 16:"]
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
    lines.append(f"{'tottime µs/call':>16} {'cumtime µs/call':>16}  function")
    for (file, line, func), (_cc, _nc, tt, ct, _callers) in rows[:30]:
        where = f"{Path(file).name}:{line}({func})" if line else func
        lines.append(f"{tt / run.calls * 1e6:16.1f} {ct / run.calls * 1e6:16.1f}  {where}")
    lines.append(f"total profiled: {total / run.calls * 1e6:.1f} µs per call")
    return "\n".join(lines), run.calls


# ---- report -------------------------------------------------------------------------------------


def load_average() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def machine(load_before: str) -> list[str]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines() if ln.startswith("model name")), "?")
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else "MemTotal: 0 kB"
    mem_kb = int(meminfo.split("MemTotal:")[1].split()[0])
    return [
        f"- CPUs (`nproc`): {len(os.sched_getaffinity(0))} ({model}), {mem_kb / 1024 / 1024:.1f} GiB RAM",
        f"- {platform.system()} {platform.release()}, Python {platform.python_version()}",
        f"- grpcio {grpc.__version__}, protobuf {protobuf_version} ({api_implementation.Type()} backend)",
        f"- load average (1 / 5 / 15 min) {load_before} at the start, {load_average()} at the end: other work"
        " shares this machine, which is why only the ratios are meant to be compared",
    ]


def _us(ns: float) -> str:
    return f"{ns / 1000:.0f} µs"


def _met(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


def report(
    seq: dict[str, list[int]],
    load: dict[tuple[str, int], Run],
    s: Settings,
    dlog: dict[str, Any],
    checks_sent: int,
    wait_rows: list[dict[str, Any]],
    request_size: int,
    auth: str,
    load_before: str,
) -> tuple[str, str]:
    """(the console table, the whole Markdown page)."""
    e50, c50 = percentile(seq["echo"], 0.5), percentile(seq["check"], 0.5)
    e99, c99 = percentile(seq["echo"], 0.99), percentile(seq["check"], 0.99)
    p50_ok = c50 / e50 <= P50_TARGET
    rows = [
        "| measure | empty echo | CheckAction | CheckAction / echo | target | |",
        "|---|---:|---:|---:|---|---|",
        f"| sequential p50 latency | {_us(e50)} | {_us(c50)} | {c50 / e50:.2f}x | ≤ {P50_TARGET}x | {_met(p50_ok)} |",
        f"| sequential p99 latency | {_us(e99)} | {_us(c99)} | {c99 / e99:.2f}x | | |",
    ]
    all_tp_ok = True
    for c in s.concurrency:
        e, k = load[("echo", c)], load[("check", c)]
        ok = k.rate / e.rate >= THROUGHPUT_TARGET
        all_tp_ok &= ok
        rows.append(
            f"| throughput, concurrency {c} | {e.rate:,.0f} calls/s | {k.rate:,.0f} calls/s "
            f"| {100 * k.rate / e.rate:.0f}% | ≥ {THROUGHPUT_TARGET:.0%} | {_met(ok)} |"
        )
    table = "\n".join(rows) + "\n"

    detail = [
        "| method | concurrency | calls | calls/s | p50 under load | p99 under load "
        "| server CPU per call | client CPU per call |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in s.concurrency:
        for name, label in (("echo", "empty echo"), ("check", "CheckAction")):
            r = load[(name, c)]
            detail.append(
                f"| {label} | {c} | {r.calls:,} | {r.rate:,.0f} | {_us(percentile(r.latencies_ns, 0.5))} "
                f"| {_us(percentile(r.latencies_ns, 0.99))} | {r.server_cpu_s / r.calls * 1e6:.0f} µs "
                f"| {r.client_cpu_s / r.calls * 1e6:.0f} µs |"
            )
    extra_cpu = [
        load[("check", c)].server_cpu_s / load[("check", c)].calls
        - load[("echo", c)].server_cpu_s / load[("echo", c)].calls
        for c in s.concurrency
    ]

    held = {r["server"]: r for r in wait_rows if r["hold"] == "hold" and r["wave"]}
    aio, sync = held.get("grpc.aio"), next((r for k, r in held.items() if k.startswith("sync")), None)
    few = [r for r in wait_rows if r["hold"] != "hold"]
    burst = [r for r in wait_rows if not r["wave"] and r["hold"] == "hold"]
    conclusion = _conclusion(aio, sync, few, burst)

    verdict = (
        "Both targets are met."
        if p50_ok and all_tp_ok
        else "Targets not met: "
        + ", ".join(x for x, ok in (("p50 latency", p50_ok), ("throughput at every concurrency", all_tp_ok)) if not ok)
        + "."
    )
    page = f"""# Benchmarks

Measured by `make bench` (`bench/checkaction.py`) on {datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}.

{chr(10).join(machine(load_before))}

## CheckAction versus an empty gRPC echo

**Method.** One sidecar process runs the production `build_server` on 127.0.0.1:0 (SQLite in a temporary
directory, decision log on, console off) with a five-guardrail policy: `trust_root` (2 regexes, scanning
every string leaf), `cost_cap`, `action_list` (deny), `rate_limit` (`max` high enough never to trip) and
`action_list` (allow, limited to the agent's group). Every call is allowed, so all five run.
Authentication is {auth}; the per-credential request limit is raised so that it never trips. The same
server also serves `outrider.bench.Echo/Echo`, a handler that returns its request bytes unparsed. The load
generator is a separate process (its own GIL and core); it sends both methods the same {request_size}-byte
serialized `CheckActionRequest` (a context with {len(CONTEXT)} keys, a nested map and lists) and does not parse the
answers, so the only difference between the two is the sidecar's work. The echo passes through the same
server interceptor (authentication, rate limit, access rule) as CheckAction.

- *Sequential latency*: a blocking `grpc` channel, {s.warmup} warm-up calls per method, then
  {s.sequential} calls per method in {s.blocks} alternating blocks.
- *Throughput*: one `grpc.aio` channel with N tasks each calling in a loop for {s.duration:g} s; the two
  methods alternate, {s.rounds} runs each per concurrency, figures summed over the runs. After each
  CheckAction run the bench waits (untimed) until the decision log has written that run's records, so no
  write lands in an echo run; the writes of a run's last moments (the log flushes every 0.2 s) fall after
  its timed window, but their CPU is counted in the detail table below.

Targets (issue 2, section 7): CheckAction p50 within {P50_TARGET}x of the echo round trip, throughput at
least {THROUGHPUT_TARGET:.0%} of the echo's.

{table}
{verdict}

Decision log: {checks_sent:,} CheckAction calls were answered during the run; the log wrote
{dlog["written"]:,} decisions, dropped {dlog["dropped"]:,} (queue full) and failed {dlog["failed"]:,}
(read from the sidecar's `DecisionLog.stats` after a graceful stop, which drains the queue).

### Detail

{chr(10).join(detail)}

CPU is process CPU time (user + system) over a run divided by the calls it answered; the server figure
includes gRPC's own threads and the decision-log writer thread. CheckAction costs about
{statistics.mean(extra_cpu) * 1e6:.0f} µs more server CPU per call than the echo: parsing and building the
messages, the chain, the decision id, and the decision log's SQLite inserts and audit records, which share
the server's GIL. On a 2-core machine the client and the server each have about one core, so at concurrency
16 and 64 the busier of the two sets the pace.

## Why grpc.aio

Human approvals park a CheckAction until someone answers, so the sidecar must hold thousands of waiting
calls without a thread each. `bench/waiting.py` starts a fresh server process per row whose one method either awaits a
release (`asyncio.Event` on grpc.aio, `threading.Event` on the sync `grpc.server` with a
`ThreadPoolExecutor`) or sleeps, fires the calls over loopback, and samples the server process's
`VmRSS` and `Threads` from `/proc/<pid>/status` while they wait.

{waiting.table(wait_rows)}
{conclusion}
"""
    return table, page


def other_sections(path: Path, page: str) -> str:
    """What an existing report holds beyond this page's header and `## ` sections: the sections other bench
    scripts wrote (with any `<!-- ... -->` markers they keep around them), to be kept after this page."""
    if not path.exists():
        return ""
    text = path.read_text(encoding="utf-8")
    boundary = r"(?=^## |^<!-- |\Z)"
    for title in re.findall(r"^## (.+)$", page, re.M):
        text = re.sub(rf"^## {re.escape(title)}\n.*?{boundary}", "", text, flags=re.S | re.M)
    first = re.search(r"^(## |<!-- )", text, re.M)
    rest = text[first.start() :].strip() if first else ""
    return f"\n{rest}\n" if rest else ""


def _conclusion(
    aio: dict[str, Any] | None, sync: dict[str, Any] | None, few: list[dict[str, Any]], burst: list[dict[str, Any]]
) -> str:
    if aio is None or sync is None:
        return ""
    few_sync = next((r for r in few if r["server"].startswith("sync")), None)
    few_aio = next((r for r in few if r["server"] == "grpc.aio"), None)
    parts = [
        f"**Conclusion.** On grpc.aio, {aio['peak_waiting']:,} waiting calls cost "
        f"{(aio['rss_kb'] - aio['idle_rss_kb']) / 1024:.0f} MiB of RSS and no thread "
        f"({aio['idle_threads']} → {aio['threads']} threads in the process); the sync server needs one thread "
        f"per waiting call — {sync['threads']:,} threads and "
        f"{(sync['rss_kb'] - sync['idle_rss_kb']) / 1024:.0f} MiB for the same {sync['peak_waiting']:,} calls — "
        "and its capacity is fixed by `max_workers`:"
    ]
    if few_sync and few_aio:
        parts.append(
            f" with {few_sync['server'].split('=')[1]} workers, only {few_sync['peak_waiting']} of "
            f"{few_sync['calls']} calls ran at once and the rest queued, so the batch took "
            f"{few_sync['total_s']:.1f} s instead of {few_aio['total_s']:.2f} s on grpc.aio."
        )
    parts.append(
        " A thread per call also means thousands of OS threads competing for the GIL and a hard ceiling to "
        "choose up front, while a coroutine costs only its memory. Outrider therefore serves on grpc.aio, and "
        "does its blocking work (storage, plugin guardrails) on bounded thread pools."
    )
    if len(burst) == 2:
        b, raised = burst
        parts.append(
            f" One caveat, whichever server: grpc core answers CANCELLED to calls at random once more than "
            "`grpc.server.max_pending_requests` of them (default 1000; all beyond the hard limit, default 3000) "
            "have arrived but are not yet taken up by the server; how many depends on how fast the server takes "
            f"calls up. In this run {b['calls'] - b['ok']:,} of {b['calls']:,} calls sent in one burst were "
            f"refused so; with the option raised to {raised['backlog']:,}, {raised['calls'] - raised['ok']:,} "
            "were. A sidecar expecting bursts of waiting calls should raise it."
        )
    return "".join(parts)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="write the Markdown report here (e.g. docs/benchmarks.md)")
    p.add_argument("--duration", type=float, default=Settings.duration, help="seconds per throughput run")
    p.add_argument("--rounds", type=int, default=Settings.rounds, help="throughput runs per method and concurrency")
    p.add_argument("--profile", type=Path, help="also cProfile the server during a CheckAction run; pstats file")
    p.add_argument("--skip-waiting", action="store_true", help="leave out the grpc.aio-versus-sync section")
    p.add_argument(
        "--audit-records",
        choices=("per_batch", "per_decision"),
        default="per_batch",
        help="the sidecar's decision_log.audit_records (compare the two in turns)",
    )
    args = p.parse_args()
    s = Settings(duration=args.duration, rounds=args.rounds)
    request = request_bytes()
    started, load_before = time.perf_counter(), load_average()

    with tempfile.TemporaryDirectory(prefix="outrider-bench-") as tmp:
        config = Path(tmp) / "outrider.yaml"
        config.write_text(POLICY + f"decision_log: {{audit_records: {args.audit_records}}}\n")
        data = str(Path(tmp) / "data")
        with Child("bench.sidecar", "--config", str(config), "--data-dir", data, "--agent", AGENT) as child:
            target = f"127.0.0.1:{child.ready['port']}"
            md = bearer(child.ready.get("agent_token"))
            prepare(target, request, md, bearer(child.ready.get("operator_token")))
            auth = "on (agent bearer token)" if md else "off"
            print(f"sidecar pid {child.pid} on {target}; request {len(request)} bytes; auth {auth}", flush=True)
            seq = sequential(target, request, md, s)
            print("sequential done; throughput runs ...", flush=True)

            def server_cpu(drain: bool) -> float:
                return float(child.ask("drain" if drain else "stats", timeout=90)["cpu_s"])

            runs = asyncio.run(throughput(target, request, md, s, server_cpu))
            load = {key: merge(v) for key, v in runs.items()}
            profile_text, profiled_calls = ("", 0)
            if args.profile:
                profile_text, profiled_calls = profile(child, target, request, md, s, args.profile)
            dlog = child.close()
    checks_sent = (
        1  # prepare()
        + s.warmup
        + len(seq["check"])
        + AIO_WARMUP
        + sum(r.calls for (name, _c), r in load.items() if name == "check")
        + profiled_calls
    )
    print("measuring waiting calls (grpc.aio versus sync) ...", flush=True)
    wait_rows = [] if args.skip_waiting else waiting.run()

    table, page = report(seq, load, s, dlog, checks_sent, wait_rows, len(request), auth, load_before)
    print()
    print(table)
    print(
        f"decision log: {checks_sent:,} checks, {dlog['written']:,} written, {dlog['dropped']:,} dropped, "
        f"{dlog['failed']:,} failed"
    )
    if wait_rows:
        print()
        print(waiting.table(wait_rows))
    if profile_text:
        print(profile_text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(page + other_sections(args.out, page), encoding="utf-8")
        print(f"wrote {args.out}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
