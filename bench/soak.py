"""A soak benchmark: mixed traffic at 85 % of the capacity of that mix, measured in the same run, for
`--minutes` (default 10), against a real sidecar process (SQLite, decision log on, auth on) on 127.0.0.1.

Not part of `make test` (nor of `make bench`: run it with `make soak MINUTES=60` or `python bench/soak.py`).
The mix, open loop: CheckActions that every guardrail allows (most of the traffic), AcquirePermit +
ReportOutcome pairs on the agent's breaker (5 % of outcomes fail, so the breaker opens and recovers now and
then), Consume on the agent's token budget, CheckActions that need approval (non-blocking) which an
operator decides a moment later, and once a minute an operator Kill of a real attached agent (the Python
client's `AsyncAgent`, which acknowledges the KILL, so the kill completes with `terminated=true`).

First a ramp to the knee: the same mix in short steps (`--step-seconds`), each 25 % faster than the last,
until a step misses its rate (operations skipped at the in-flight cap, errors, fewer than 95 % done), its
CheckAction p99 blows up (over 5x the lowest of the steps so far, and over 50 ms) or the decision log lags (its oldest
queued decision older than 1 s at the end of the step); the knee is the last step that passed. A step is short
and starts from empty queues, so the knee is then confirmed (`--confirm-seconds`, 180 by default): the soak's rate
held for that long with a kill and the sidecar busy at most `--confirm-cpu` (0.9) cores, the knee lowered by 10 %
while it does not hold (see `Soak.confirm`). Then the mix
runs at `--load` (85 %) of the knee. Each minute it records the sidecar's RSS, open file descriptors,
asyncio tasks and threads (the sidecar reports them), the p50/p99 of the plain CheckActions sent in that
minute, errors, and the decision log's lag as a time (the age of its oldest queued decision, sampled every
2 s) and as a queue length, and the sidecar's CPU per operation beside a yardstick: a fixed pure-Python loop timed in
a fresh process (on a shared host the machine's own speed varies; a slowdown is the sidecar's only where the
yardstick stays flat). Goals (issue 31): RSS growth after minute 5 (minute 1 in a run shorter than 10
minutes) < 5 %, a least-squares RSS slope
over the last half under 0.1 MB/min, 0 errors, decision-log lag under 2 s, fds and tasks flat.

With `--db-stats` it also prints, each minute, the row count of every table of the SQLite database that
holds more than a few rows and the size of its WAL file (what grows in storage as the soak runs), and the SQL
statements the sidecar spent most time on in that minute (count, mean time): a statement whose mean time
grows as its table grows lacks an index; and the live Python objects of the sidecar, with the types whose
count grew most in that minute. At the end it lists the statements run whose query plan scans a table.

With `--profile` it profiles the sidecar's event loop (cProfile) in the first and the last minute and prints
the functions whose own time per operation grew most between them.

With `--tracemalloc` the sidecar traces its allocations from the start (slower: the knee is lower) and the
report lists the allocation sites that grew most between minute 5 (minute 1 in a run shorter than 10 minutes)
and the end.

Appends (or replaces) the "Soak" section of `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench._proc import ROOT, Child
from bench.report import replace_section
from outrider import AsyncAgent, AsyncClient
from outrider.v1 import common_pb2, recovery_pb2, safeguard_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import recovery_service_pb2_grpc as rpb_grpc
from outrider.v1 import safeguard_service_pb2 as spb
from outrider.v1 import safeguard_service_pb2_grpc as spb_grpc
from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc

AGENT = "soak-agent"
SECTION = "Soak"
POLICY = """
log: {level: warning}
limits: {requests_per_second: 1000000, burst: 1000000, max_inflight_per_agent: 100000}
approvals: {max_pending_per_agent: 100000}
safeguards:
  breakers: {failure_threshold: 5}
guardrails:
  - {name: root, kind: trust_root, blocked_patterns: ['(?i)rm\\s+-rf']}
  - {name: cap, kind: cost_cap, max: 1000000}
  - {name: approval, kind: hitl, patterns: [deploy]}
"""
# Shares of the mixed traffic (operations, not calls: a breaker pair is two calls).
MIX = {"check": 0.80, "breaker": 0.08, "consume": 0.08, "approval": 0.04}
MAX_INFLIGHT = 256  # open-loop sender: operations beyond this many in flight are skipped (and counted)
CONFIRM_TRIES = 4  # spans at the soak's rate, each 10 % lower than the last, before the run (Soak.confirm)


def victim_of(index: int) -> str:
    """The agent a minute (or a confirmation span) kills: one per span, each with its own token."""
    return f"soak-victim-{index}"


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x (nan for fewer than two points)."""
    if len(points) < 2:
        return float("nan")
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else float("nan")


# A fixed amount of pure-Python work, timed (process CPU) in a fresh process once a minute: the host's own speed. On a
# VM whose host is shared, the same code can take more CPU time at one hour than at another without any steal being
# reported; a soak's slowdown is the sidecar's only where this stays flat.
_YARDSTICK = (
    "import time\nt = time.process_time()\nx = 0\nfor i in range(2_000_000):\n    x += i * i % 7\n"
    "print(time.process_time() - t)"
)


def yardstick() -> float:
    """Milliseconds of CPU the fixed loop took (about 200 ms on a 2-core machine of 2026)."""
    done = subprocess.run([sys.executable, "-c", _YARDSTICK], capture_output=True, text=True, check=True, timeout=120)
    return float(done.stdout) * 1000


@dataclass
class Minute:
    """One span of traffic: a minute of the soak, or a step of the ramp."""

    index: int
    check_ms: list[float] = field(default_factory=list)
    ops: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    sent: int = 0
    lag_max: int = 0  # the decision log's queue, max sampled
    lag_s_max: float = 0.0  # the age of its oldest queued decision, max sampled
    rss_mb: float = 0.0
    fds: int = 0
    tasks: int = 0  # at the end of the minute: the calls in flight included
    tasks_floor: int = 0  # the fewest sampled in the minute: a leak shows as a rising floor
    threads: int = 0
    kills_terminated: int = 0
    offered: float = 0.0  # the rate sent (operations per second)
    cpu_s: float = 0.0  # the sidecar's CPU seconds (user + system) spent in this minute
    yardstick_ms: float = 0.0  # CPU a fixed loop took in a fresh process at the end of the minute (the host's speed)

    def sample(self, stats: dict[str, Any]) -> None:
        self.lag_max = max(self.lag_max, int(stats["queued"]))
        self.lag_s_max = max(self.lag_s_max, float(stats["lag_s"]))
        tasks = int(stats["tasks"])
        self.tasks_floor = tasks if not self.tasks_floor else min(self.tasks_floor, tasks)


class Soak:
    def __init__(self, target: str, tokens: dict[str, Any], child: Child) -> None:
        self.target = target
        self.child = child
        self.amd = [("authorization", f"Bearer {tokens['agent_token']}")]
        self.omd = [("authorization", f"Bearer {tokens['operator_token']}")]
        self.channel = grpc.aio.insecure_channel(target)
        self.sv = pb_grpc.SupervisorServiceStub(self.channel)
        self.sg = spb_grpc.SafeguardServiceStub(self.channel)
        self.rc = rpb_grpc.RecoveryServiceStub(self.channel)
        self.rng = random.Random(17)
        self.seq = 0
        self.inflight = 0
        self.breaker = {"permitted": 0, "refused": 0, "failures_reported": 0}
        self.approvals = {"created": 0, "decided": 0}
        self.kills = 0
        self.kills_terminated = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.victim_tokens: dict[str, str] = tokens.get("other_tokens", {})

    def check_request(self) -> pb.CheckActionRequest:
        req = pb.CheckActionRequest(agent_id=AGENT, action="read_file")
        req.context.update({"path": f"/data/{self.rng.randrange(1000)}.txt", "cost": 3, "tags": ["a", "b"]})
        return req

    async def capacity(self, seconds: float, concurrency: int = 16) -> float:
        calls = 0
        end = time.monotonic() + seconds

        async def worker() -> None:
            nonlocal calls
            while time.monotonic() < end:
                await self.sv.CheckAction(self.check_request(), metadata=self.amd, timeout=30)
                calls += 1

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return calls / (time.monotonic() - started)

    async def op(self, kind: str, minute: Minute) -> None:
        self.inflight += 1
        try:
            if kind == "check":
                t0 = time.perf_counter()
                await self.sv.CheckAction(self.check_request(), metadata=self.amd, timeout=30)
                minute.check_ms.append((time.perf_counter() - t0) * 1000)
            elif kind == "breaker":
                permit = await self.sg.AcquirePermit(spb.AcquirePermitRequest(key=AGENT), metadata=self.amd, timeout=30)
                if not permit.permitted:
                    self.breaker["refused"] += 1
                    return
                self.breaker["permitted"] += 1
                failed = self.rng.random() < 0.05
                self.breaker["failures_reported"] += failed
                outcome = safeguard_pb2.CALL_OUTCOME_FAILURE if failed else safeguard_pb2.CALL_OUTCOME_SUCCESS
                await self.sg.ReportOutcome(
                    spb.ReportOutcomeRequest(permit_id=permit.permit_id, outcome=outcome), metadata=self.amd, timeout=30
                )
            elif kind == "consume":
                await self.sg.Consume(spb.ConsumeRequest(agent_id=AGENT, tokens=1), metadata=self.amd, timeout=30)
            elif kind == "approval":
                self.seq += 1
                req = pb.CheckActionRequest(
                    agent_id=AGENT, action="deploy", request_id=f"soak-{self.seq}", wait_mode=pb.WAIT_MODE_NON_BLOCKING
                )
                r = await self.sv.CheckAction(req, metadata=self.amd, timeout=30)
                self.approvals["created"] += 1
                await asyncio.sleep(0.5)  # a reviewer answers a moment later
                await self.sv.DecideApproval(
                    pb.DecideApprovalRequest(
                        approval_id=r.approval.approval_id, approve=self.rng.random() < 0.5, comment="soak"
                    ),
                    metadata=self.omd,
                    timeout=30,
                )
                self.approvals["decided"] += 1
            minute.ops[kind] = minute.ops.get(kind, 0) + 1
        except grpc.aio.AioRpcError as exc:
            key = f"{kind}: {exc.code().name}"
            minute.errors[key] = minute.errors.get(key, 0) + 1
        finally:
            self.inflight -= 1

    async def kill_one(self, minute: Minute) -> None:
        """Kill a real attached agent (it acknowledges the KILL), then reinstate it."""
        victim = victim_of(minute.index)
        acked = asyncio.Event()

        async def on_kill(_command: Any) -> None:
            acked.set()  # the agent stops its work here; returning acks the KILL as terminated

        try:
            await self.sv.RegisterAgent(
                pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=victim)), metadata=self.omd, timeout=30
            )
            async with (
                AsyncClient(self.target, self.victim_tokens[victim], timeout=30) as client,
                AsyncAgent(client, victim, on_kill=on_kill) as agent,
            ):
                answer = await self.rc.Kill(
                    rpb.KillRequest(
                        agent_id=victim,
                        reason=recovery_pb2.KILL_REASON_BEHAVIORAL_DRIFT,
                        details="soak",
                        request_id=f"kill-{minute.index}",
                    ),
                    metadata=self.omd,
                    timeout=60,
                )
                await agent.wait(30)
            await self.rc.ReinstateAgent(
                rpb.ReinstateAgentRequest(agent_id=victim, reason="soak", request_id=f"back-{minute.index}"),
                metadata=self.omd,
                timeout=60,
            )
            self.kills += 1
            minute.ops["kill"] = minute.ops.get("kill", 0) + 1
            if answer.result.terminated and acked.is_set():
                self.kills_terminated += 1
                minute.kills_terminated += 1
            else:
                minute.errors["kill: not terminated"] = minute.errors.get("kill: not terminated", 0) + 1
        except grpc.aio.AioRpcError as exc:
            minute.errors[f"kill: {exc.code().name}"] = minute.errors.get(f"kill: {exc.code().name}", 0) + 1

    async def drive(self, rate: float, seconds: float, span: Minute) -> None:
        """Send the mix open loop at `rate` operations per second for `seconds`; sample the decision log's lag
        every 2 s."""
        kinds, weights = list(MIX), list(MIX.values())
        start = time.monotonic()
        sent = 0.0
        next_sample = start
        while (now := time.monotonic()) - start < seconds:
            due = rate * (now - start) - sent
            while due >= 1:
                due -= 1
                sent += 1
                span.sent += 1
                if self.inflight >= MAX_INFLIGHT:
                    span.skipped += 1
                    continue
                task = asyncio.create_task(self.op(self.rng.choices(kinds, weights)[0], span))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
            if now >= next_sample:
                span.sample(await asyncio.to_thread(self.child.ask, "stats"))
                next_sample = now + 2
            await asyncio.sleep(0.01)

    async def settle(self, deadline: float = 60.0) -> None:
        """Wait for the operations in flight (and the sidecar's decision log) to finish."""
        end = time.monotonic() + deadline
        while self.inflight and time.monotonic() < end:
            await asyncio.sleep(0.05)
        await asyncio.to_thread(self.child.ask, "drain", 120)

    async def knee(self, start: float, step_seconds: float, max_steps: int = 16) -> tuple[float, list[Minute]]:
        """Raise the mix's rate by 25 % a step until a step fails (see the module docstring); the last rate
        that passed."""
        rate, best, calm_p99 = start, 0.0, None
        steps: list[Minute] = []
        for index in range(max_steps):
            step = Minute(index + 1)
            step.offered = rate
            await self.drive(rate, step_seconds, step)
            end = await asyncio.to_thread(self.child.ask, "stats")
            step.sample(end)
            await self.settle()
            steps.append(step)
            p99 = pct(step.check_ms, 0.99)
            calm_p99 = p99 if calm_p99 is None else min(calm_p99, p99)
            done = sum(step.ops.values())
            passed = (
                not step.skipped
                and not step.errors
                and done >= 0.95 * step.sent
                and (p99 <= 50 or p99 <= 5 * calm_p99)
                and float(end["lag_s"]) < 1.0
            )
            print(
                f"ramp {rate:,.0f} ops/s: {done:,} of {step.sent:,} done, p99 {p99:.1f} ms, skipped "
                f"{step.skipped}, log lag {step.lag_s_max:.2f} s, errors {step.errors} -> "
                f"{'pass' if passed else 'knee'}",
                flush=True,
            )
            if not passed:
                break
            best = rate
            rate *= 1.25
        return best, steps

    async def confirm(
        self, knee: float, load: float, seconds: float, first_index: int, max_cpu: float
    ) -> tuple[float, list[Minute]]:
        """Hold the soak's rate (`load` x the knee) for `seconds`, with a kill, as a minute of the soak would; while
        it does not hold (anything skipped at the in-flight cap, errors, fewer than 95 % done, the decision log
        ever 1 s behind, the sidecar busier than `max_cpu` cores on average), lower the knee by 10 % and hold
        again, at most CONFIRM_TRIES times. A ramp step is short and starts from empty queues: it misses what
        only a longer span brings (a kill, the scheduler's jobs, a backlog that grows by a few decisions a
        second), so a knee from the ramp alone can be an overload. The CPU bound is there because the sidecar's
        Python work runs under one GIL: a sidecar that already needs most of a core for the soak's rate falls
        behind at the first slower minute (a retention prune, the host itself slower), and a backlog once
        formed costs more CPU per operation, not less (an hour at 921 ops/s after a 60 s span that held at
        0.94 cores fell behind in its fourth minute and never caught up)."""
        spans: list[Minute] = []
        for attempt in range(CONFIRM_TRIES):
            span = Minute(first_index + attempt)
            span.offered = knee * load
            cpu = float((await asyncio.to_thread(self.child.ask, "stats"))["cpu_s"])
            killer = asyncio.create_task(self.kill_one(span))
            await self.drive(span.offered, seconds, span)
            stats = await asyncio.to_thread(self.child.ask, "stats")
            span.sample(stats)
            span.cpu_s = float(stats["cpu_s"]) - cpu
            await killer
            await self.settle()
            spans.append(span)
            done = sum(span.ops.values())
            busy = span.cpu_s / seconds
            held = (
                not span.skipped
                and not span.errors
                and done >= 0.95 * span.sent
                and span.lag_s_max < 1.0
                and busy <= max_cpu
            )
            print(
                f"confirm {span.offered:,.0f} ops/s for {seconds:g} s: {done:,} of {span.sent:,} done, p99 "
                f"{pct(span.check_ms, 0.99):.1f} ms, skipped {span.skipped}, log lag max {span.lag_s_max:.2f} s, "
                f"sidecar CPU {busy:.2f} cores, errors {span.errors} -> {'held' if held else 'lower the knee by 10 %'}",
                flush=True,
            )
            if held:
                return knee, spans
            knee *= 0.9
        return knee, spans

    async def run(
        self,
        rate: float,
        minutes: int,
        snapshots: Path | None = None,
        db: Path | None = None,
        profiles: Path | None = None,
    ) -> list[Minute]:
        out: list[Minute] = []
        first = 5 if minutes >= 10 else 1
        cpu = float((await asyncio.to_thread(self.child.ask, "stats"))["cpu_s"])
        for index in range(minutes):
            minute = Minute(index + 1)
            profiled = profiles is not None and minute.index in (1, minutes)
            if profiled:
                await asyncio.to_thread(self.child.ask, "profile start")
            killer = asyncio.create_task(self.kill_one(minute))
            self.tasks.add(killer)
            killer.add_done_callback(self.tasks.discard)
            await self.drive(rate, 60, minute)
            stats = await asyncio.to_thread(self.child.ask, "stats")
            if profiled:
                assert profiles is not None
                await asyncio.to_thread(self.child.ask, f"profile stop {profiles / f'minute-{minute.index}'}", 120)
            minute.sample(stats)
            minute.rss_mb = stats["rss_kb"] / 1024
            minute.cpu_s, cpu = float(stats["cpu_s"]) - cpu, float(stats["cpu_s"])
            minute.fds, minute.tasks, minute.threads = stats["fds"], stats["tasks"], stats["threads"]
            minute.yardstick_ms = await asyncio.to_thread(yardstick)
            out.append(minute)
            if snapshots is not None and minute.index in (first, minutes):
                name = "first" if minute.index == first and minute.index != minutes else "last"
                await asyncio.to_thread(self.child.ask, f"tracemalloc dump {snapshots / name}", 120)
            print(
                f"minute {minute.index}: {sum(minute.ops.values()):,} ops, CheckAction p50 "
                f"{pct(minute.check_ms, 0.5):.1f} ms p99 {pct(minute.check_ms, 0.99):.1f} ms, RSS "
                f"{minute.rss_mb:.1f} MB, sidecar CPU {minute.cpu_s / max(1, sum(minute.ops.values())) * 1e3:.2f} "
                f"ms/op, fds {minute.fds}, tasks {minute.tasks}, threads {minute.threads}, log "
                f"lag max {minute.lag_s_max:.2f} s ({minute.lag_max} queued), errors {minute.errors}, yardstick "
                f"{minute.yardstick_ms:.0f} ms",
                flush=True,
            )
            if db is not None:
                print(f"minute {minute.index} storage: {await asyncio.to_thread(db_stats, db)}", flush=True)
                for row in (await asyncio.to_thread(self.child.ask, "sql stats"))["sql"]:
                    print(
                        f"  {row['total_s']:7.2f} s {row['count']:8,} x {row['mean_ms']:8.3f} ms  {row['statement']}",
                        flush=True,
                    )
                types = await asyncio.to_thread(self.child.ask, "types", 120)
                grew = ", ".join(f"{g['type']} +{g['by']:,} ({g['now']:,})" for g in types["grew"])
                pauses = ", ".join(f"{g} {v['collections']} x = {v['ms']:.0f} ms" for g, v in types["gc"].items())
                heap = ", ".join(f"{k} {v:,.1f}" for k, v in types["malloc"].items())
                print(f"  objects {types['objects']:,}; heap {heap}; gc {pauses}; grew: {grew}", flush=True)
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if db is not None:
            statements = (await asyncio.to_thread(self.child.ask, "sql statements", 60))["statements"]
            print("statements that scan a table (SQLite EXPLAIN QUERY PLAN):", flush=True)
            for line in await asyncio.to_thread(full_scans, db, statements):
                print(f"  {line}", flush=True)
        return out


async def soak(target: str, tokens: dict[str, Any], child: Child, args: argparse.Namespace) -> dict[str, Any]:
    s = Soak(target, tokens, child)
    try:
        await s.sg.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=10**15), metadata=s.omd, timeout=30)
        await s.sg.Allocate(spb.AllocateRequest(agent_id=AGENT, tokens=10**14), metadata=s.omd, timeout=30)
        if args.tracemalloc:
            await asyncio.to_thread(child.ask, "tracemalloc start")
        if args.db_stats:
            await asyncio.to_thread(child.ask, "sql start")
            await asyncio.to_thread(child.ask, "types", 120)
        await s.capacity(2.0)  # warm
        # CheckAction alone, closed loop: where the ramp of the (heavier) mix starts, at a quarter of it.
        check_only = await s.capacity(args.capacity_seconds)
        await asyncio.to_thread(child.ask, "drain", 120)
        steps: list[Minute] = []
        if args.rate:  # a given rate: no ramp (diagnostic runs on a busy machine)
            knee = args.rate / args.load
        else:
            knee, steps = await s.knee(check_only / 4, args.step_seconds)
        below = knee == 0
        if below:
            knee = steps[0].offered  # even the first step failed: run at 85 % of it, and say so
        ramp_knee, confirmed = knee, []
        if not args.rate and args.confirm_seconds > 0:
            knee, confirmed = await s.confirm(knee, args.load, args.confirm_seconds, args.minutes + 1, args.confirm_cpu)
        rate = knee * args.load
        s.kills = s.kills_terminated = 0
        minutes = await s.run(rate, args.minutes, args.snapshots, args.db if args.db_stats else None, args.profiles)
        if args.profiles is not None and len(minutes) > 1:
            print("event loop functions whose time per operation grew most (cProfile, first to last minute):")
            print("\n".join(profile_growth(args.profiles, minutes[0], minutes[-1])), flush=True)
        return {
            "check_only": check_only,
            "knee": knee,
            "ramp_knee": ramp_knee,
            "confirmed": confirmed,
            "below": below,
            "steps": steps,
            "rate": rate,
            "minutes": minutes,
            "breaker": s.breaker,
            "approvals": s.approvals,
            "kills": s.kills,
            "kills_terminated": s.kills_terminated,
            "growth_sites": growth_sites(args.snapshots) if args.snapshots else [],
        }
    finally:
        await s.channel.close()


def full_scans(db: Path, statements: list[dict[str, Any]]) -> list[str]:
    """The statements the sidecar ran whose SQLite plan scans a table (no index), most frequent first: on a
    table that grows, each such call costs more as the sidecar runs."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    found = []
    try:
        for row in statements:
            text = row["statement"]
            if text.split(" ", 1)[0].upper() not in ("SELECT", "UPDATE", "DELETE", "WITH"):
                continue
            try:
                plan = conn.execute(f"EXPLAIN QUERY PLAN {text}", [None] * text.count("?")).fetchall()
            except sqlite3.Error:
                continue
            scans = [str(p[-1]) for p in plan if str(p[-1]).startswith("SCAN ") and "USING" not in str(p[-1])]
            ordered = "ORDER BY" in text and "LIMIT" in text and not any("TEMP B-TREE" in str(p[-1]) for p in plan)
            if scans and not ordered:  # (a scan in rowid order that stops at its LIMIT reads a few rows)
                found.append((int(row["count"]), f"{row['count']:,} x {'; '.join(scans)}: {text[:200]}"))
    finally:
        conn.close()
    return [line for _, line in sorted(found, reverse=True)]


def db_stats(db: Path, floor: int = 20) -> str:
    """The SQLite WAL's size and the row count of every table holding more than `floor` rows (read-only)."""
    wal = db.with_name(db.name + "-wal")
    size = wal.stat().st_size / 2**20 if wal.exists() else 0.0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()
    rows = ", ".join(f"{t} {n:,}" for t, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n > floor)
    return f"WAL {size:.1f} MB; rows: {rows}"


def profile_growth(folder: Path, first: Minute, last: Minute, top: int = 15) -> list[str]:
    """The functions of the event loop thread whose own time per operation grew most from the first minute to
    the last (cProfile): what a call pays more for as the sidecar runs."""
    import pstats

    def per_op(m: Minute) -> dict[str, tuple[float, float]]:
        ops = max(1, sum(m.ops.values()))
        raw: dict[Any, Any] = pstats.Stats(str(folder / f"minute-{m.index}")).stats  # type: ignore[attr-defined]
        return {
            f"{os.path.relpath(f, ROOT) if f.startswith(str(ROOT)) else f}:{line}({name})": (
                tt / ops * 1e6,
                nc / ops,
            )
            for (f, line, name), (_cc, nc, tt, _ct, _callers) in raw.items()
        }

    a, b = per_op(first), per_op(last)
    grown = sorted(((b[k][0] - a.get(k, (0.0, 0.0))[0], k) for k in b), reverse=True)[:top]
    return [
        f"{d:+8.1f} us/op ({a.get(k, (0.0, 0.0))[0]:7.1f} -> {b[k][0]:7.1f}; calls/op {a.get(k, (0.0, 0.0))[1]:.2f} "
        f"-> {b[k][1]:.2f})  {k}"
        for d, k in grown
    ]


def growth_sites(folder: Path, top: int = 10) -> list[str]:
    """The allocation sites (innermost frames in the sidecar's own code where it has one) that grew most
    between the two snapshots."""
    first, last = folder / "first", folder / "last"
    if not (first.exists() and last.exists()):
        return []
    ignore = [
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
    ]
    a = tracemalloc.Snapshot.load(str(first)).filter_traces(ignore)
    b = tracemalloc.Snapshot.load(str(last)).filter_traces(ignore)
    rows = []
    for stat in b.compare_to(a, "traceback")[:top]:
        frames = list(stat.traceback)
        site = ([f for f in frames if "/server/" in f.filename] or frames)[-1]  # the innermost of our own
        name = os.path.relpath(site.filename, ROOT) if site.filename.startswith(str(ROOT)) else site.filename
        where = f"{name}:{site.lineno}"
        rows.append(f"| `{where}` | {stat.size_diff / 1024:+,.0f} KiB | {stat.count_diff:+,} |")
    return rows


def report(result: dict[str, Any], args: argparse.Namespace) -> str:
    minutes: list[Minute] = result["minutes"]
    steps: list[Minute] = result["steps"]
    load = os.getloadavg()
    rows = [
        f"| {m.index} | {sum(m.ops.values()):,} | {pct(m.check_ms, 0.5):.1f} ms | {pct(m.check_ms, 0.99):.1f} ms "
        f"| {m.rss_mb:.1f} MB | {m.fds} | {m.tasks_floor} / {m.tasks} | {m.threads} "
        f"| {m.lag_s_max:.2f} s ({m.lag_max}) | {m.skipped} | "
        + (", ".join(f"{k} {v}" for k, v in sorted(m.errors.items())) or "none")
        + f" | {m.cpu_s / max(1, sum(m.ops.values())) * 1e3:.2f} ms | {m.yardstick_ms:.0f} ms |"
        for m in minutes
    ]
    ramp = [
        f"| {st.offered:,.0f} | {sum(st.ops.values()):,} of {st.sent:,} | {pct(st.check_ms, 0.99):.1f} ms "
        f"| {st.skipped} | {st.lag_s_max:.2f} s | "
        + (", ".join(f"{k} {v}" for k, v in sorted(st.errors.items())) or "none")
        + " |"
        for st in steps
    ]
    # Growth after minute 5 (the warm-up), or after minute 1 in a run shorter than 10 minutes.
    base = minutes[4 if len(minutes) >= 10 else 0] if minutes else None
    last = minutes[-1] if minutes else None
    growth = (last.rss_mb - base.rss_mb) / base.rss_mb * 100 if base and last and last is not base else float("nan")
    half = minutes[len(minutes) // 2 :]
    rss_slope = slope([(m.index, m.rss_mb) for m in half]) if len(half) >= 3 else float("nan")
    fd_range = (min(m.fds for m in minutes), max(m.fds for m in minutes)) if minutes else (0, 0)
    task_range = (min(m.tasks_floor for m in minutes), max(m.tasks_floor for m in minutes)) if minutes else (0, 0)
    sticks = [m.yardstick_ms for m in minutes] or [0.0]
    errors = sum(sum(m.errors.values()) for m in minutes)
    lag = max((m.lag_s_max for m in minutes), default=float("nan"))
    p99s = [pct(m.check_ms, 0.99) for m in minutes[1:]] or [float("nan")]

    def met(ok: bool) -> str:
        return "met" if ok else "**NOT met**"

    return "\n".join(
        [
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/soak.py --minutes "
            f"{args.minutes}` (`make soak MINUTES={args.minutes}`) against a real sidecar process (SQLite, "
            f"decision log on, auth on), the load generator in a separate process, on 127.0.0.1; load average "
            f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end (2 cores; other work on the machine makes "
            "the latencies and the knee noisy).",
            "",
            (
                f"No ramp: the rate was given (`--rate {args.rate:g}`), not measured."
                if args.rate
                else f"Capacity of the mix, measured first in the same run by a ramp ({args.step_seconds:g} s steps, "
                f"+25 % each, from a quarter of the {result['check_only']:,.0f} CheckActions per second that "
                f"CheckAction alone reaches closed loop): the knee is **{result['knee']:,.0f} operations per "
                "second**, the last step with nothing skipped at the in-flight cap, no errors, 95 % of its "
                "operations done, its p99 within 5x the lowest step's (or under 50 ms) and the decision log under "
                "1 s behind."
            ),
            "",
            *(
                ["**Even the first step failed (a busy machine?): the run used its rate as the knee.**", ""]
                if result["below"]
                else []
            ),
            "| offered ops/s | done | CheckAction p99 | skipped | decision-log lag | errors |",
            "| ---: | ---: | ---: | ---: | ---: | --- |",
            *ramp,
            "",
            *(
                [
                    f"The ramp's knee ({result['ramp_knee']:,.0f} ops/s) was then confirmed: its {args.load:.0%} held "
                    f"for {args.confirm_seconds:g} s with a kill, as a minute of the soak runs (nothing skipped, no "
                    "errors, 95 % done, the decision log never 1 s behind, the sidecar busy at most "
                    f"{args.confirm_cpu:g} cores on average: its Python work shares one GIL), the knee lowered by 10 % "
                    f"after each span that did not hold; the knee used is **{result['knee']:,.0f} operations per "
                    "second**.",
                    "",
                    "| offered ops/s | done | CheckAction p99 | skipped | decision-log lag | sidecar CPU | errors |",
                    "| ---: | ---: | ---: | ---: | ---: | ---: | --- |",
                    *(
                        f"| {c.offered:,.0f} | {sum(c.ops.values()):,} of {c.sent:,} | {pct(c.check_ms, 0.99):.1f} ms "
                        f"| {c.skipped} | {c.lag_s_max:.2f} s | {c.cpu_s / args.confirm_seconds:.2f} cores | "
                        + (", ".join(f"{k} {v}" for k, v in sorted(c.errors.items())) or "none")
                        + " |"
                        for c in result["confirmed"]
                    ),
                    "",
                ]
                if result["confirmed"]
                else []
            ),
            f"Then, open loop, {result['rate']:,.0f} operations per second ({args.load:.0%} of the knee): "
            + ", ".join(f"{int(v * 100)} % {k}" for k, v in MIX.items())
            + f", and one Kill (+ ReinstateAgent) per minute of a real attached agent that acknowledges it: "
            f"{result['kills_terminated']} of {result['kills']} kills terminated. Breaker permits "
            f"{result['breaker']['permitted']:,} granted, {result['breaker']['refused']:,} refused (OPEN), "
            f"{result['breaker']['failures_reported']:,} failures reported; approvals "
            f"{result['approvals']['created']:,} created, {result['approvals']['decided']:,} decided.",
            "",
            "| minute | operations | CheckAction p50 | p99 | RSS | open fds "
            "| asyncio tasks (fewest sampled / at the end) | threads "
            "| decision-log lag (oldest queued, max; queued) | skipped (in-flight cap) | errors "
            "| sidecar CPU per operation | yardstick (the host's speed) |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
            *rows,
            "",
            f"- RSS growth after minute {base.index if base else 0} (to minute {last.index if last else 0}): "
            f"{growth:+.1f} % (goal < 5 %: {met(growth < 5)}).",
            f"- RSS slope over the last half (minutes {half[0].index if half else 0}-{last.index if last else 0}, "
            f"least squares): {rss_slope:+.3f} MB/min (goal < 0.1: {met(rss_slope < 0.1)}).",
            f"- Errors: {errors} (goal 0: {met(errors == 0)}); decision-log lag at most {lag:.2f} s (goal < 2 s: "
            f"{met(lag < 2)}).",
            f"- Open fds {fd_range[0]}-{fd_range[1]}; asyncio tasks at the quietest sample of each minute "
            f"{task_range[0]}-{task_range[1]}; "
            f"CheckAction p99 after minute 1: {min(p99s):.1f} to {max(p99s):.1f} ms.",
            f"- Yardstick (a fixed pure-Python loop in a fresh process, CPU ms, each minute): {min(sticks):.0f} to "
            f"{max(sticks):.0f} ms; where it rose, the host was slower, not only the sidecar.",
            *(
                [
                    f"- {skipped:,} operations were skipped at the in-flight cap ({MAX_INFLIGHT}) in "
                    f"{sum(1 for m in minutes if m.skipped)} of {len(minutes)} minutes: the sidecar did not keep up "
                    f"with {args.load:.0%} of the knee in those (compare the yardstick: a slower host, or a slower "
                    "sidecar).",
                ]
                if (skipped := sum(m.skipped for m in minutes))
                else []
            ),
            *(
                [
                    "",
                    f"Allocation sites that grew most (tracemalloc, minute {base.index if base else 1} to the end):",
                    "",
                    "| site | grew | blocks |",
                    "| --- | ---: | ---: |",
                    *result["growth_sites"],
                ]
                if result["growth_sites"]
                else []
            ),
        ]
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    p.add_argument("--minutes", type=int, default=10, help="how long the mixed traffic runs (default 10)")
    p.add_argument("--load", type=float, default=0.85, help="share of the measured knee to send")
    p.add_argument("--capacity-seconds", type=float, default=5.0, help="CheckAction alone: where the ramp starts")
    p.add_argument(
        "--tracemalloc", action="store_true", help="trace the sidecar's allocations; report the sites that grew"
    )
    p.add_argument(
        "--db-stats",
        action="store_true",
        help="print each minute the tables' row counts, the WAL's size and the slowest SQL statements",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="cProfile the sidecar's event loop in the first and the last minute; print what grew per operation",
    )
    p.add_argument("--rate", type=float, default=0.0, help="send this many ops/s: no ramp (diagnostics)")
    p.add_argument("--step-seconds", type=float, default=8.0, help="length of each step of the ramp")
    p.add_argument(
        "--confirm-seconds",
        type=float,
        default=180.0,
        help="after the ramp, hold the soak's rate this long (lowering the knee 10 %% while it does not hold); 0: no",
    )
    p.add_argument(
        "--confirm-cpu",
        type=float,
        default=0.9,
        help="a confirmation span holds only if the sidecar was busy at most this many cores on average over it",
    )
    p.add_argument(
        "--decision-rows",
        type=int,
        default=0,
        help="decision_log.retention.max_rows for the sidecar (default: the sidecar's, 1,000,000): a small value "
        "reaches, within minutes, the regime a long run reaches once the decision log is full and retention "
        "deletes as fast as decisions are written",
    )
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        args.snapshots = Path(tmp) if args.tracemalloc else None
        args.db = Path(tmp) / "outrider.db"
        args.profiles = Path(tmp) if args.profile else None
        cfg = Path(tmp) / "outrider.yaml"
        retention = f"decision_log: {{retention: {{max_rows: {args.decision_rows}}}}}\n" if args.decision_rows else ""
        cfg.write_text(POLICY + retention)
        victims = [a for i in range(args.minutes + CONFIRM_TRIES) for a in ("--other-agent", victim_of(i + 1))]
        with Child("bench.sidecar", "--config", str(cfg), "--data-dir", tmp, "--agent", AGENT, *victims) as child:
            target = f"127.0.0.1:{child.ready['port']}"
            result = asyncio.run(soak(target, child.ready, child, args))
            child.close(timeout=300)
            text = report(result, args)
    print(text)
    replace_section(args.out, SECTION, text)


if __name__ == "__main__":
    main()
