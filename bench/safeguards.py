"""`make bench`, SafeguardService: a guarded call's round trips, and lease throughput under contention.

A real sidecar (the production `build_server`, SQLite, `bench/sidecar.py`) runs in its own process with a
one-guardrail policy: `breaker`. This process measures, over loopback:

- the two-call path: AcquirePermit, then ReportOutcome (unary) — what `isolator.execute` does;
- the one-call path: CheckAction (the `breaker` guardrail takes the permit inside the decision), with the
  outcome written on a ReportOutcomes client stream that the caller never waits for;
- execution leases: 16 concurrent clients on 4 keys of one slot each, each looping AcquireLease then
  ReleaseLease (every grant and release is committed to SQLite before it is answered).

It prints a table and writes it as the "Safeguards" section of `--out` (replacing that section, keeping
the rest of the page). Bounded: well under a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/safeguards.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench._proc import Child
from bench.checkaction import Metadata, bearer, percentile
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as pb
from outrider.v1 import safeguard_service_pb2_grpc as sg_grpc
from outrider.v1 import supervisor_service_pb2 as spb
from outrider.v1 import supervisor_service_pb2_grpc as spb_grpc

AGENT = "bench-agent-01"
KEY = AGENT  # the breaker guardrail's key for this agent (no dependency)
POLICY = """
log: {level: warning}
limits: {requests_per_second: 1000000, burst: 1000000}  # the per-credential limit must not trip
safeguards:
  breakers: {failure_threshold: 1000000000}             # every call succeeds; keep it CLOSED regardless
  leases: {slots: 1, ttl: 30s}
guardrails:
  - {name: cb, kind: breaker}
"""
SECTION_START = "<!-- safeguards-bench:start -->"
SECTION_END = "<!-- safeguards-bench:end -->"


@dataclass
class Settings:
    warmup: int = 300
    sequential: int = 1500
    concurrency: int = 16
    duration: float = 3.0
    lease_clients: int = 16
    lease_keys: int = 4
    lease_duration: float = 4.0


@dataclass
class Result:
    calls: int
    seconds: float
    latencies_ns: list[int]

    @property
    def rate(self) -> float:
        return self.calls / self.seconds

    def p(self, q: float) -> float:
        return percentile(self.latencies_ns, q) / 1000


# ---- the two paths -----------------------------------------------------------------------------


def sequential(target: str, md: Metadata, s: Settings) -> dict[str, Result]:
    """One guarded call at a time on a blocking channel; the paths alternate in blocks."""
    out = {"two": Result(0, 0.0, []), "one": Result(0, 0.0, [])}
    with grpc.insecure_channel(target) as channel:
        st, sv = sg_grpc.SafeguardServiceStub(channel), spb_grpc.SupervisorServiceStub(channel)
        acquire = pb.AcquirePermitRequest(key=KEY)
        check = spb.CheckActionRequest(agent_id=AGENT, action="call")
        queue: list[pb.ReportOutcomesRequest] = []

        def two() -> None:
            permit = st.AcquirePermit(acquire, timeout=10, metadata=md)
            answer = st.ReportOutcome(
                pb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=sg.CALL_OUTCOME_SUCCESS),
                timeout=10,
                metadata=md,
            )
            assert permit.permitted and answer.counted

        def one() -> None:
            decision = sv.CheckAction(check, timeout=10, metadata=md)
            assert decision.allowed and decision.permit_id
            queue.append(pb.ReportOutcomesRequest(permit_id=decision.permit_id, outcome=sg.CALL_OUTCOME_SUCCESS))

        for fn in (two, one):
            for _ in range(s.warmup):
                fn()
        blocks, clock = 10, time.perf_counter_ns
        for _ in range(blocks):
            for name, fn in (("two", two), ("one", one)):
                r = out[name]
                for _ in range(s.sequential // blocks):
                    t0 = clock()
                    fn()
                    r.latencies_ns.append(clock() - t0)
                    r.calls += 1
        # The one-call path's outcomes go out on one stream, as a client would send them in the background.
        sent = st.ReportOutcomes(iter(queue), timeout=60, metadata=md)
        assert sent.counted_count == len(queue), sent
    return out


async def concurrent_two(target: str, md: Metadata, s: Settings) -> Result:
    async with grpc.aio.insecure_channel(target) as channel:
        st = sg_grpc.SafeguardServiceStub(channel)
        lat: list[int] = []
        stop = time.perf_counter() + s.duration

        async def worker() -> None:
            while time.perf_counter() < stop:
                t0 = time.perf_counter_ns()
                permit = await st.AcquirePermit(pb.AcquirePermitRequest(key=KEY), timeout=10, metadata=md)
                await st.ReportOutcome(
                    pb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=sg.CALL_OUTCOME_SUCCESS),
                    timeout=10,
                    metadata=md,
                )
                lat.append(time.perf_counter_ns() - t0)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(s.concurrency)))
        return Result(len(lat), time.perf_counter() - started, lat)


async def concurrent_one(target: str, md: Metadata, s: Settings) -> tuple[Result, list[int]]:
    """Each worker keeps its own ReportOutcomes stream open and writes each outcome without waiting.
    Returns the run and the streams' summed (received, counted, ignored, not found) counts."""
    async with grpc.aio.insecure_channel(target) as channel:
        st, sv = sg_grpc.SafeguardServiceStub(channel), spb_grpc.SupervisorServiceStub(channel)
        lat: list[int] = []
        totals = [0, 0, 0, 0]
        stop = time.perf_counter() + s.duration
        check = spb.CheckActionRequest(agent_id=AGENT, action="call")

        async def worker() -> None:
            stream = st.ReportOutcomes(timeout=60, metadata=md)
            while time.perf_counter() < stop:
                t0 = time.perf_counter_ns()
                decision = await sv.CheckAction(check, timeout=10, metadata=md)
                lat.append(time.perf_counter_ns() - t0)
                assert decision.allowed and decision.permit_id, decision
                await stream.write(
                    pb.ReportOutcomesRequest(permit_id=decision.permit_id, outcome=sg.CALL_OUTCOME_SUCCESS)
                )
            await stream.done_writing()
            got = await stream
            for i, n in enumerate((got.received_count, got.counted_count, got.ignored_count, got.not_found_count)):
                totals[i] += n

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(s.concurrency)))
        return Result(len(lat), time.perf_counter() - started, lat), totals


# ---- leases ------------------------------------------------------------------------------------


async def leases(target: str, md: Metadata, s: Settings) -> tuple[Result, Result, int]:
    """(acquire+release pairs with their round-trip latency, acquire waits, fencing violations)."""
    async with grpc.aio.insecure_channel(target) as channel:
        st = sg_grpc.SafeguardServiceStub(channel)
        pairs: list[int] = []
        waits: list[int] = []
        tokens: dict[str, list[int]] = defaultdict(list)
        stop = time.perf_counter() + s.lease_duration

        async def worker(n: int) -> None:
            key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_SESSION, id=f"k{n % s.lease_keys}")
            while time.perf_counter() < stop:
                t0 = time.perf_counter_ns()
                got = await st.AcquireLease(
                    pb.AcquireLeaseRequest(isolation_key=key, agent_id=AGENT), timeout=30, metadata=md
                )
                waits.append(time.perf_counter_ns() - t0)
                tokens[key.id].append(got.lease.fencing_token)  # in grant order: we hold the only slot
                await st.ReleaseLease(pb.ReleaseLeaseRequest(lease_id=got.lease.lease_id), timeout=30, metadata=md)
                pairs.append(time.perf_counter_ns() - t0)

        started = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(s.lease_clients)))
        elapsed = time.perf_counter() - started
        bad = sum(1 for seq in tokens.values() for a, b in itertools.pairwise(seq) if b <= a)
        return Result(len(pairs), elapsed, pairs), Result(len(waits), elapsed, waits), bad


# ---- report ------------------------------------------------------------------------------------


def machine() -> list[str]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines() if ln.startswith("model name")), "?")
    return [
        f"- CPUs (`nproc`): {len(os.sched_getaffinity(0))} ({model})",
        f"- {platform.system()} {platform.release()}, Python {platform.python_version()}, grpcio {grpc.__version__}",
    ]


def report(
    seq: dict[str, Result],
    two: Result,
    one: Result,
    streamed: list[int],
    lease: Result,
    waits: Result,
    bad: int,
    s: Settings,
) -> str:
    two_seq, one_seq = seq["two"], seq["one"]
    rows = [
        "| path | round trips per guarded call | sequential p50 | sequential p99 "
        f"| calls/s at concurrency {s.concurrency} | p50 under load | p99 under load |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| AcquirePermit + ReportOutcome | 2 | {two_seq.p(0.5):.0f} µs | {two_seq.p(0.99):.0f} µs "
        f"| {two.rate:,.0f} | {two.p(0.5):.0f} µs | {two.p(0.99):.0f} µs |",
        f"| CheckAction (`breaker` guardrail) + ReportOutcomes stream | 1 | {one_seq.p(0.5):.0f} µs "
        f"| {one_seq.p(0.99):.0f} µs | {one.rate:,.0f} | {one.p(0.5):.0f} µs | {one.p(0.99):.0f} µs |",
    ]
    lease_rows = [
        "| measure | value |",
        "|---|---:|",
        f"| acquire + release pairs per second ({s.lease_clients} clients, {s.lease_keys} keys, 1 slot each) "
        f"| {lease.rate:,.0f} |",
        f"| acquire + release round trip, p50 / p99 | {lease.p(0.5) / 1000:.1f} ms / {lease.p(0.99) / 1000:.1f} ms |",
        f"| AcquireLease (including the wait for the slot), p50 / p99 "
        f"| {waits.p(0.5) / 1000:.1f} ms / {waits.p(0.99) / 1000:.1f} ms |",
        f"| fencing tokens out of order | {bad} |",
    ]
    return f"""{SECTION_START}
## Safeguards: a guarded call's round trips, and leases under contention

Measured by `make bench` (`bench/safeguards.py`) on {datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}.

{chr(10).join(machine())}

**Method.** One sidecar process (the production `build_server`, SQLite in a temporary directory,
console off, authentication on with an agent token) with a one-guardrail policy, `breaker`; the load
generator is a separate process on loopback. A *guarded call* is what `isolator.execute(key, fn)` costs
the caller besides `fn`: the two-call path waits for AcquirePermit and then for ReportOutcome; the
one-call path waits for CheckAction only (the `breaker` guardrail takes the permit inside the decision,
which is also logged) and writes the outcome on a ReportOutcomes client stream it never waits for.
Every call succeeds, so the breaker stays CLOSED and no outcome touches storage. Sequential: a blocking
channel, {s.warmup} warm-up calls per path, then {s.sequential} per path in alternating blocks.
Concurrent: one `grpc.aio` channel, {s.concurrency} tasks for {s.duration:g} s per path.

{chr(10).join(rows)}

Outcomes streamed by the concurrent one-call run: {streamed[0]:,} received by the sidecar for {one.calls:,}
decisions; {streamed[1]:,} counted, {streamed[2]:,} ignored, {streamed[3]:,} for unknown permits.

**Leases.** {s.lease_clients} `grpc.aio` tasks on one channel, each on one of {s.lease_keys} SESSION keys
with one slot, looping AcquireLease then ReleaseLease for {s.lease_duration:g} s: at any time 4 hold a slot
and 12 wait in FIFO order on the server (a coroutine each, no thread). Every grant and release is
committed to SQLite (`synchronous=FULL`) before it is answered, so the storage commit sets the pace;
concurrent commits are grouped into one transaction.

{chr(10).join(lease_rows)}
{SECTION_END}
"""


def write_section(path: Path, section: str) -> None:
    """Replace this benchmark's section of the page (or append it), keeping the others' sections."""
    page = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(SECTION_START) + r".*?" + re.escape(SECTION_END) + r"\n?", re.S)
    found = pattern.search(page)
    page = pattern.sub(lambda _m: section, page) if found else page.rstrip("\n") + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="write the section into this Markdown page (e.g. docs/benchmarks.md)")
    p.add_argument("--duration", type=float, default=Settings.duration, help="seconds per concurrent run")
    args = p.parse_args()
    s = Settings(duration=args.duration)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="outrider-bench-sg-") as tmp:
        config = Path(tmp) / "outrider.yaml"
        config.write_text(POLICY)
        data = str(Path(tmp) / "data")
        with Child("bench.sidecar", "--config", str(config), "--data-dir", data, "--agent", AGENT) as child:
            target = f"127.0.0.1:{child.ready['port']}"
            md = bearer(child.ready.get("agent_token"))
            print(f"sidecar pid {child.pid} on {target}", flush=True)
            seq = sequential(target, md, s)
            print("sequential done; concurrent runs ...", flush=True)
            two = asyncio.run(concurrent_two(target, md, s))
            one, streamed = asyncio.run(concurrent_one(target, md, s))
            print("leases ...", flush=True)
            lease, waits, bad = asyncio.run(leases(target, md, s))
            child.close()
    section = report(seq, two, one, streamed, lease, waits, bad, s)
    print(section)
    if args.out:
        write_section(args.out, section)
        print(f"wrote the safeguards section of {args.out}")
    print(f"total {time.perf_counter() - started:.0f} s")
    if bad:
        raise SystemExit(f"{bad} fencing tokens out of order")


if __name__ == "__main__":
    main()
