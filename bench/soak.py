"""A soak benchmark: mixed traffic at ~85 % of the capacity measured in the same run, for `--minutes`
(default 10), against a real sidecar process (SQLite, decision log on, auth on) on 127.0.0.1.

Not part of `make test` (nor of `make bench`: run it with `make soak` or `python bench/soak.py`). First it
measures capacity: CheckActions from 16 concurrent tasks for `--capacity-seconds`. Then it sends, open
loop, 85 % of that rate as a mix: CheckActions that every guardrail allows (most of the traffic),
AcquirePermit + ReportOutcome pairs on the agent's breaker (5 % of outcomes fail, so the breaker opens and
recovers now and then), Consume on the agent's token budget, CheckActions that need approval (non-blocking)
which an operator decides a moment later, and once a minute an operator Kill of a separate agent id
(reinstated at once). Each minute it records the sidecar's RSS and open file descriptors (from /proc), the
p50/p99 of the plain CheckActions sent in that minute, and the decision log's lag (decisions answered but
not yet written). Goal (issue 17): RSS growth < 5 % after the first (warm-up) minute, p99 flat.

Appends (or replaces) the "Soak" section of `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench._proc import Child
from bench.report import replace_section
from outrider.v1 import recovery_pb2, safeguard_pb2
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


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class Minute:
    index: int
    check_ms: list[float] = field(default_factory=list)
    ops: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    lag_max: int = 0
    rss_mb: float = 0.0
    fds: int = 0


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
        victim = f"soak-victim-{minute.index}"
        try:
            await self.rc.Kill(
                rpb.KillRequest(
                    agent_id=victim,
                    reason=recovery_pb2.KILL_REASON_BEHAVIORAL_DRIFT,
                    details="soak",
                    request_id=f"kill-{minute.index}",
                ),
                metadata=self.omd,
                timeout=60,
            )
            await self.rc.ReinstateAgent(
                rpb.ReinstateAgentRequest(agent_id=victim, reason="soak", request_id=f"back-{minute.index}"),
                metadata=self.omd,
                timeout=60,
            )
            self.kills += 1
            minute.ops["kill"] = minute.ops.get("kill", 0) + 1
        except grpc.aio.AioRpcError as exc:
            minute.errors[f"kill: {exc.code().name}"] = minute.errors.get(f"kill: {exc.code().name}", 0) + 1

    async def run(self, rate: float, minutes: int) -> list[Minute]:
        kinds, weights = list(MIX), list(MIX.values())
        tasks: set[asyncio.Task[None]] = set()
        out: list[Minute] = []
        tick = 0.01
        for index in range(minutes):
            minute = Minute(index + 1)
            tasks.add(asyncio.create_task(self.kill_one(minute)))
            start = time.monotonic()
            sent = 0.0
            next_sample = start
            while (now := time.monotonic()) - start < 60:
                due = rate * (now - start) - sent
                while due >= 1:
                    due -= 1
                    sent += 1
                    if self.inflight >= MAX_INFLIGHT:
                        minute.skipped += 1
                        continue
                    task = asyncio.create_task(self.op(self.rng.choices(kinds, weights)[0], minute))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                if now >= next_sample:  # the decision log's lag, sampled every 2 s
                    stats = await asyncio.to_thread(self.child.ask, "stats")
                    minute.lag_max = max(minute.lag_max, int(stats["queued"]))
                    next_sample = now + 2
                await asyncio.sleep(tick)
            stats = await asyncio.to_thread(self.child.ask, "stats")
            minute.rss_mb = stats["rss_kb"] / 1024
            minute.fds = open_fds(self.child.pid)
            out.append(minute)
            print(
                f"minute {minute.index}: {sum(minute.ops.values()):,} ops, CheckAction p50 "
                f"{pct(minute.check_ms, 0.5):.1f} ms p99 {pct(minute.check_ms, 0.99):.1f} ms, RSS "
                f"{minute.rss_mb:.0f} MB, fds {minute.fds}, log lag max {minute.lag_max}, errors {minute.errors}",
                flush=True,
            )
        await asyncio.gather(*tasks, return_exceptions=True)
        return out


async def soak(target: str, tokens: dict[str, Any], child: Child, args: argparse.Namespace) -> dict[str, Any]:
    s = Soak(target, tokens, child)
    try:
        await s.sg.SetGlobalBudget(spb.SetGlobalBudgetRequest(tokens=10**15), metadata=s.omd, timeout=30)
        await s.sg.Allocate(spb.AllocateRequest(agent_id=AGENT, tokens=10**14), metadata=s.omd, timeout=30)
        await s.capacity(2.0)  # warm
        capacity = await s.capacity(args.capacity_seconds)
        await asyncio.to_thread(child.ask, "drain", 120)
        rate = capacity * args.load / (1 + MIX["breaker"])  # a breaker operation is two calls
        minutes = await s.run(rate, args.minutes)
        return {
            "capacity": capacity,
            "rate": rate,
            "minutes": minutes,
            "breaker": s.breaker,
            "approvals": s.approvals,
            "kills": s.kills,
        }
    finally:
        await s.channel.close()


def report(result: dict[str, Any], args: argparse.Namespace) -> str:
    minutes: list[Minute] = result["minutes"]
    load = os.getloadavg()
    rows = [
        f"| {m.index} | {sum(m.ops.values()):,} | {pct(m.check_ms, 0.5):.1f} ms | {pct(m.check_ms, 0.99):.1f} ms "
        f"| {m.rss_mb:.0f} MB | {m.fds} | {m.lag_max} | {m.skipped} | "
        + (", ".join(f"{k} {v}" for k, v in sorted(m.errors.items())) or "none")
        + " |"
        for m in minutes
    ]
    base = minutes[0] if minutes else None
    last = minutes[-1] if minutes else None
    growth = (last.rss_mb - base.rss_mb) / base.rss_mb * 100 if base and last and len(minutes) > 1 else float("nan")
    p99s = [pct(m.check_ms, 0.99) for m in minutes[1:]] or [float("nan")]
    flat = max(p99s) <= 2 * min(p99s) if len(p99s) > 1 else False
    return "\n".join(
        [
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/soak.py --minutes "
            f"{args.minutes}` (the default is 10) against a real sidecar process (SQLite, decision log on, auth "
            f"on), the load generator in a separate process, on 127.0.0.1; load average {load[0]:.1f} / "
            f"{load[1]:.1f} / {load[2]:.1f} at the end (2 cores shared with other work).",
            "",
            f"Capacity measured first in the same run: {result['capacity']:,.0f} CheckActions per second (16 "
            f"concurrent tasks, {args.capacity_seconds:g} s). Then, open loop, {result['rate']:,.0f} operations "
            f"per second ({args.load:.0%} of it, a breaker pair counted as two calls): "
            + ", ".join(f"{int(v * 100)} % {k}" for k, v in MIX.items())
            + f", and one Kill (+ ReinstateAgent) per minute. Totals: {result['kills']} kills; breaker permits "
            f"{result['breaker']['permitted']:,} granted, {result['breaker']['refused']:,} refused (OPEN), "
            f"{result['breaker']['failures_reported']:,} failures reported; approvals "
            f"{result['approvals']['created']:,} created, {result['approvals']['decided']:,} decided.",
            "",
            "| minute | operations | CheckAction p50 | p99 | RSS | open fds | decision-log lag (max queued) "
            "| skipped (in-flight cap) | errors |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
            *rows,
            "",
            f"RSS growth after the warm-up minute (minute 1 → {last.index if last else 0}): {growth:+.1f} % "
            f"(goal < 5 %: {'met' if growth < 5 else '**NOT met**'}); CheckAction p99 after warm-up "
            f"{min(p99s):.1f} to {max(p99s):.1f} ms ({'flat: within 2x' if flat else '**not flat**'}).",
            *(
                [
                    "",
                    f"{skipped:,} operations were skipped at the in-flight cap ({MAX_INFLIGHT}): the sidecar did not "
                    "keep up with the rate, so the capacity measured at the start was not there throughout (other "
                    "load on the machine) and the latencies above are mostly queueing; RSS, file descriptors and "
                    "the decision log's lag still show whether anything accumulates.",
                ]
                if (skipped := sum(m.skipped for m in minutes))
                else []
            ),
        ]
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    p.add_argument("--minutes", type=int, default=10, help="how long the mixed traffic runs (default 10)")
    p.add_argument("--load", type=float, default=0.85, help="share of the measured capacity to send")
    p.add_argument("--capacity-seconds", type=float, default=10.0)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "outrider.yaml"
        cfg.write_text(POLICY)
        with Child("bench.sidecar", "--config", str(cfg), "--data-dir", tmp, "--agent", AGENT) as child:
            target = f"127.0.0.1:{child.ready['port']}"
            result = asyncio.run(soak(target, child.ready, child, args))
            child.close(timeout=300)
    text = report(result, args)
    print(text)
    replace_section(args.out, SECTION, text)


if __name__ == "__main__":
    main()
