"""`make bench`, the fleet: three sidecar processes on one PostgreSQL database.

Measures, over loopback, with real `outrider serve` processes (console off, authentication on):

- cross-sidecar approval wake-up: a CheckAction parked on B for a `hitl` guardrail, DecideApproval on C;
  the time from the decision's answer to the waiting call's answer (NOTIFY; the 250 ms poll is the fallback);
- Consume throughput on one sidecar and on three (every Consume is one transaction of deltas, so the
  database serialises them on the agent's and the global budget's rows);
- CheckAction throughput on one sidecar and on three (an allow-everything `action_list` guardrail; the
  hot path reads only in-process caches, so sidecars add up until the machine's cores run out);
- CheckAction throughput with a `breaker` guardrail on one sidecar and on three (a CLOSED breaker's permit
  comes from the cache: no database round trip);
- ForceOpen propagation: ForceOpen on A until B refuses a permit (NOTIFY invalidation of B's cache);
- lease hand-over across sidecars: a waiter on B for a 1-slot key held on A, released on C; from the
  release's answer to B's AcquireLease answer;
- kill-to-ack latency: Kill on A for an agent attached to B (the KILL routed through `fleet_commands`,
  the ack written back) beside the same for an agent attached to A (the in-memory path);
- audit-lock waits under three writers: while the three sidecars serve CheckActions (each writes its
  decision log's batches into the one audit chain, under one transaction-level advisory lock), a probe
  connection takes that lock every 20 ms and times how long it waited, and a sampler counts the backends
  waiting on it in `pg_stat_activity`;
- event fan-out to a watcher on another sidecar: a WatchRecoveryEvents stream open on C, ForceOpen on A
  of a fresh key; from ForceOpen's answer to the watcher receiving its BREAKER_STATE_CHANGE event (the
  event counter's NOTIFY wakes C, which reads the rows after its last sequence);
- idle database commits per second per sidecar (heartbeats, change-counter polls, the schedulers' reads);
- CheckAction throughput of `outrider serve --workers 1` and `--workers 2` (clients on their own
  connections, so the kernel spreads them over the workers) with each worker's CPU share: on a 2-core
  machine shared with PostgreSQL and the load generator expect little; the per-process CPU shows what a
  bigger host would give;
- a 10 s database outage under CheckAction and Consume load (bench/outage.py, on a PostgreSQL of its own
  that it stops and starts): decisions lost (the journal replays them), the errors callers saw, and the
  time from the restart to the first Consume answered and to the last accepted decision stored.

Needs `--db-url` (a PostgreSQL database it may fill) or `OUTRIDER_BENCH_PG_URL`; `make bench` starts a
throwaway server with scripts/postgres.sh. Writes the "Fleet" section of `--out`. Bounded: about two minutes.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/fleet.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc
import psycopg
from google.protobuf.duration_pb2 import Duration

from bench import outage
from bench.checkaction import bearer, percentile
from bench.safeguards import machine
from outrider.v1 import common_pb2, recovery_pb2
from outrider.v1 import recovery_service_pb2 as rpb
from outrider.v1 import recovery_service_pb2_grpc as rc_grpc
from outrider.v1 import safeguard_pb2 as sg
from outrider.v1 import safeguard_service_pb2 as sgpb
from outrider.v1 import safeguard_service_pb2_grpc as sg_grpc
from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as sv_grpc
from server.storage.audit import _AUDIT_LOCK as AUDIT_LOCK

ROOT = Path(__file__).resolve().parent.parent
SECTION_START = "<!-- fleet-bench:start -->"
SECTION_END = "<!-- fleet-bench:end -->"
WORKERS = 24
POLICY = """
log: {level: warning}
limits: {requests_per_second: 1000000, burst: 1000000}
guardrails:
  - {name: allow, kind: action_list, deny: [never-this-action]}
  - {name: approve-deploys, kind: hitl, patterns: [deploy]}
  - {name: circuit, kind: breaker, actions: [guarded]}
"""


class Sidecar:
    def __init__(self, tmp: Path, db_url: str, name: str, token: str, *extra: str) -> None:
        self.port_file = tmp / f"port-{name}"
        self.log = (tmp / f"serve-{name}.log").open("ab")
        cmd = [sys.executable, "-m", "server", "serve", "--listen", "127.0.0.1:0", "--no-console", *extra]
        cmd += ["--db-url", db_url, "--port-file", str(self.port_file), "--config", str(tmp / "outrider.yaml")]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.p = subprocess.Popen(cmd, cwd=tmp, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.token = token

    def ready(self) -> Sidecar:
        deadline = time.monotonic() + 90
        while not self.port_file.exists() or not self.port_file.read_text():
            if self.p.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"a sidecar did not start (see {self.log.name})")
            time.sleep(0.05)
        self.target = f"127.0.0.1:{self.port_file.read_text()}"
        self.channel = grpc.insecure_channel(self.target)
        self.md = bearer(self.token)
        self.sv = sv_grpc.SupervisorServiceStub(self.channel)
        self.sg = sg_grpc.SafeguardServiceStub(self.channel)
        self.rc = rc_grpc.RecoveryServiceStub(self.channel)
        return self

    def stop(self) -> None:
        self.p.terminate()
        self.p.wait(30)
        self.log.close()


def throughput(call: Callable[[int], object], workers: int, seconds: float) -> float:
    stop = time.monotonic() + seconds
    counts = [0] * workers

    def loop(n: int) -> None:
        while time.monotonic() < stop:
            call(n)
            counts[n] += 1

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(loop, range(workers)))
    return sum(counts) / seconds


def wake_latency(b: Sidecar, c: Sidecar, agent: str) -> float:
    woke: dict[str, float] = {}

    def wait() -> None:
        b.sv.CheckAction(pb.CheckActionRequest(agent_id=agent, action="deploy"), timeout=30, metadata=b.md)
        woke["t"] = time.monotonic()

    t = threading.Thread(target=wait)
    t.start()
    while not (listed := c.sv.ListApprovals(pb.ListApprovalsRequest(agent_id=agent), metadata=c.md).approvals):
        time.sleep(0.005)
    time.sleep(0.03)
    c.sv.DecideApproval(pb.DecideApprovalRequest(approval_id=listed[0].approval_id, approve=True), metadata=c.md)
    decided = time.monotonic()
    t.join(30)
    return woke["t"] - decided


def force_open_latency(a: Sidecar, b: Sidecar, key: str) -> float:
    """ForceOpen on A; the time from its answer until B refuses a permit for the key (capped at 5 s)."""
    assert b.sg.AcquirePermit(sgpb.AcquirePermitRequest(key=key), metadata=b.md).permitted
    a.sg.ForceOpen(sgpb.ForceOpenRequest(key=key, reason="bench"), metadata=a.md)
    opened = time.monotonic()
    while b.sg.AcquirePermit(sgpb.AcquirePermitRequest(key=key), metadata=b.md).permitted:
        if time.monotonic() - opened > 5:
            print(f"bench: B still granted permits for {key!r} 5 s after ForceOpen on A", file=sys.stderr)
            break
    return time.monotonic() - opened


def event_fanout(a: Sidecar, c: Sidecar, rounds: int) -> list[float]:
    """ForceOpen on A, `rounds` times; the time from each answer until a watcher on C has the event."""
    seen: dict[str, float] = {}
    cond = threading.Condition()
    call = c.rc.WatchRecoveryEvents(rpb.WatchRecoveryEventsRequest(), metadata=c.md)

    def read() -> None:
        try:
            for r in call:
                with cond:
                    seen[r.event.breaker_state_change.key] = time.monotonic()
                    cond.notify_all()
        except grpc.RpcError:
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.5)  # the watcher is subscribed
    out: list[float] = []
    try:
        for i in range(rounds):
            key = f"fanout-{i}:db"
            a.sg.ForceOpen(sgpb.ForceOpenRequest(key=key, reason="bench"), metadata=a.md)
            opened = time.monotonic()
            with cond:
                if cond.wait_for(lambda key=key: key in seen, 5):
                    out.append(seen[key] - opened)
                else:
                    print(f"bench: the watcher on C did not get {key!r} within 5 s", file=sys.stderr)
    finally:
        call.cancel()
        reader.join(5)
    return out


def lease_handover(a: Sidecar, b: Sidecar, c: Sidecar, name: str) -> float:
    """A 1-slot key held on A, a waiter on B, the release on C: release answer → B's grant."""
    key = sg.IsolationKey(scope=sg.ISOLATION_SCOPE_SESSION, id=name)
    held = a.sg.AcquireLease(sgpb.AcquireLeaseRequest(isolation_key=key, agent_id="holder"), metadata=a.md)
    granted: dict[str, float] = {}

    def wait() -> None:
        req = sgpb.AcquireLeaseRequest(isolation_key=key, agent_id="waiter")
        got = b.sg.AcquireLease(req, timeout=30, metadata=b.md)
        granted["t"] = time.monotonic()
        b.sg.ReleaseLease(sgpb.ReleaseLeaseRequest(lease_id=got.lease.lease_id), metadata=b.md)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.05)  # B's call is queued
    c.sg.ReleaseLease(sgpb.ReleaseLeaseRequest(lease_id=held.lease.lease_id), metadata=c.md)
    released = time.monotonic()
    t.join(30)
    return granted["t"] - released


def kill_to_ack(issuer: Sidecar, holder: Sidecar, agent_id: str) -> float:
    """An agent attached to `holder` that acks every command; Kill on `issuer`: call → answer (terminated)."""
    # Registered where it attaches (the issuer learns of it through NOTIFY; the kill needs no registration).
    holder.sv.RegisterAgent(pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=agent_id)), metadata=holder.md)
    out: queue.Queue[rpb.AttachRequest | None] = queue.Queue()
    out.put(rpb.AttachRequest(hello=recovery_pb2.AttachHello(agent_id=agent_id, instance_id="bench")))
    accepted = threading.Event()

    def requests() -> Iterator[rpb.AttachRequest]:
        while (item := out.get()) is not None:
            yield item

    call = holder.rc.Attach(requests(), metadata=holder.md)

    def serve() -> None:
        try:
            for response in call:
                if response.HasField("accepted"):
                    accepted.set()
                elif response.HasField("command"):
                    ack = recovery_pb2.CommandAck(
                        command_id=response.command.command_id, outcome=recovery_pb2.COMMAND_OUTCOME_SUCCESS
                    )
                    out.put(rpb.AttachRequest(ack=ack))
        except grpc.RpcError as err:
            failed.append(err)  # after the kill: ABORTED AGENT_KILLED
            accepted.set()

    failed: list[grpc.RpcError] = []
    reader = threading.Thread(target=serve, daemon=True)
    reader.start()
    if not accepted.wait(30) or failed:
        raise SystemExit(f"{agent_id} was not accepted: {failed}")
    req = rpb.KillRequest(agent_id=agent_id, reason=recovery_pb2.KILL_REASON_MANUAL)
    start = time.monotonic()
    result = issuer.rc.Kill(req, timeout=30, metadata=issuer.md).result
    took = time.monotonic() - start
    out.put(None)
    reader.join(10)
    if not result.terminated:
        raise SystemExit(f"the kill of {agent_id} was not acked: {result.detail}")
    return took


class AuditLockProbe:
    """While it runs: a probe connection takes the audit chain's lock every 20 ms and times the wait (the
    same `pg_advisory_xact_lock` every writer takes), and a second connection samples `pg_stat_activity`
    every 5 ms for backends waiting on an advisory lock; counts the audit records appended meanwhile."""

    def __init__(self, admin: str) -> None:
        self.admin = admin
        self.waits: list[float] = []  # seconds
        self.samples = 0
        self.waiting = 0  # samples with at least one backend waiting
        self.waiters = 0  # sum of waiting backends over the samples
        self.records = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._probe), threading.Thread(target=self._sample)]

    def _count(self) -> int:
        with psycopg.connect(self.admin, autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FROM audit_log").fetchone()
        return int(row[0]) if row else 0

    def _probe(self) -> None:
        with psycopg.connect(self.admin) as conn:
            while not self._stop.wait(0.02):
                started = time.perf_counter()
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (AUDIT_LOCK,))
                self.waits.append(time.perf_counter() - started)
                conn.commit()

    def _sample(self) -> None:
        query = (
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' "
            "AND datname = current_database()"
        )
        with psycopg.connect(self.admin, autocommit=True) as conn:
            while not self._stop.wait(0.005):
                row = conn.execute(query).fetchone()
                n = int(row[0]) if row else 0
                self.samples += 1
                self.waiting += n > 0
                self.waiters += n

    def __enter__(self) -> AuditLockProbe:
        self._first = self._count()
        self._started = time.monotonic()
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
        self.elapsed = time.monotonic() - self._started
        self.records = self._count() - self._first


def operator_token(db_url: str, cwd: Path) -> str:
    issued = subprocess.run(
        [sys.executable, "-m", "server", "tokens", "issue", "--operator", "bench", "--db-url", db_url],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=cwd,
        check=True,
    )
    return issued.stdout.strip()


def _children(pid: int) -> list[int]:
    out = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if int((proc / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    out.append(int(proc.name))
            except OSError:
                continue
    return sorted(out)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def workers_throughput(server_url: str, workers: int, seconds: float) -> tuple[float, list[float]]:
    """`outrider serve --workers N` on a fresh database: CheckAction per second from WORKERS clients, each on
    its own connection (the kernel spreads connections over the workers), and each worker's CPU share."""
    db_url = _fresh_database(server_url)
    tmp = Path(tempfile.mkdtemp(prefix=f"workers-{workers}-"))
    (tmp / "outrider.yaml").write_text(POLICY)
    token = operator_token(db_url, tmp)
    s = Sidecar(tmp, db_url, f"W{workers}", token, "--workers", str(workers)).ready()
    try:
        pids = _children(s.p.pid) if workers > 1 else [s.p.pid]
        # A local subchannel pool per channel: grpc would otherwise share one connection between them.
        channels = [
            grpc.insecure_channel(s.target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(WORKERS)
        ]
        stubs = [sv_grpc.SupervisorServiceStub(c) for c in channels]
        check = pb.CheckActionRequest(agent_id="bench", action="read")
        for stub in stubs:
            stub.CheckAction(check, metadata=s.md)  # connected before the clock starts
        before = [_cpu_seconds(p) for p in pids]
        rate = throughput(lambda n: stubs[n].CheckAction(check, metadata=s.md), WORKERS, seconds)
        cpu = [(_cpu_seconds(p) - b) / seconds for p, b in zip(pids, before, strict=True)]
        for c in channels:
            c.close()
        return rate, cpu
    finally:
        s.stop()


def commits(admin: str, db: str) -> int:
    with psycopg.connect(admin, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", (db,)).fetchone()
    return int(row[0]) if row else 0


def run(db_url: str, seconds: float, rounds: int) -> str:
    tmp = Path(tempfile.mkdtemp(prefix="fleet-bench-"))
    (tmp / "outrider.yaml").write_text(POLICY)
    token = operator_token(db_url, tmp)
    fleet = [Sidecar(tmp, db_url, n, token) for n in "ABC"]
    fleet = [s.ready() for s in fleet]
    try:
        a, b, c = fleet
        a.sg.SetGlobalBudget(sgpb.SetGlobalBudgetRequest(tokens=10**15), metadata=a.md)
        a.sg.Allocate(sgpb.AllocateRequest(agent_id="bench", tokens=10**14), metadata=a.md)
        check = pb.CheckActionRequest(agent_id="bench", action="read")
        results: dict[str, float] = {}
        consume = sgpb.ConsumeRequest(agent_id="bench", tokens=1)

        def one(n: int) -> Sidecar:
            return a

        def spread(n: int) -> Sidecar:
            return fleet[n % 3]

        results["consume_1"] = throughput(lambda n: one(n).sg.Consume(consume, metadata=a.md), WORKERS, seconds)
        results["consume_3"] = throughput(lambda n: spread(n).sg.Consume(consume, metadata=a.md), WORKERS, seconds)
        results["check_1"] = throughput(lambda n: one(n).sv.CheckAction(check, metadata=a.md), WORKERS, seconds)
        admin = db_url.replace("postgresql+psycopg://", "postgresql://")
        with AuditLockProbe(admin) as audit_lock:
            results["check_3"] = throughput(lambda n: spread(n).sv.CheckAction(check, metadata=a.md), WORKERS, seconds)
        # The breaker guardrail's key is the agent id; a long permit TTL keeps the unreported permits from
        # expiring (as failures) during the run.
        ttl = sg.BreakerConfig(permit_ttl=Duration(seconds=3600))
        a.sg.SetBreakerConfig(sgpb.SetBreakerConfigRequest(key="bench", config=ttl), metadata=a.md)
        guarded = pb.CheckActionRequest(agent_id="bench", action="guarded")
        results["breaker_1"] = throughput(lambda n: one(n).sv.CheckAction(guarded, metadata=a.md), WORKERS, seconds)
        results["breaker_3"] = throughput(lambda n: spread(n).sv.CheckAction(guarded, metadata=a.md), WORKERS, seconds)
        latencies = [wake_latency(b, c, f"waiter-{i}") for i in range(rounds)]
        opens = sorted(round(force_open_latency(a, b, f"open-{i}") * 1_000_000) for i in range(rounds))
        handovers = sorted(round(lease_handover(a, b, c, f"lease-{i}") * 1_000_000) for i in range(rounds))
        routed = sorted(round(kill_to_ack(a, b, f"kill-routed-{i}") * 1_000_000) for i in range(rounds))
        local = sorted(round(kill_to_ack(a, a, f"kill-local-{i}") * 1_000_000) for i in range(rounds))
        fanout = sorted(round(x * 1_000_000) for x in event_fanout(a, c, rounds)) or [0]
        name = admin.rpartition("/")[2]
        time.sleep(2)  # let the schedulers settle after the load
        before, start = commits(admin, name), time.monotonic()
        time.sleep(10)
        idle = (commits(admin, name) - before - 1) / (time.monotonic() - start) / 3
    finally:
        for s in fleet:
            s.stop()
    w1, cpu1 = workers_throughput(db_url, 1, seconds)
    w2, cpu2 = workers_throughput(db_url, 2, seconds)
    down = outage.measure(Sidecar, operator_token)
    ms = sorted(round(x * 1_000_000) for x in latencies)  # microseconds
    lock_us = sorted(round(x * 1_000_000) for x in audit_lock.waits) or [0]
    rows = [
        "| measure | value |",
        "|---|---:|",
        f"| approval wake-up across sidecars (decide on C, wait on B), p50 / p99 of {rounds} "
        f"| {percentile(ms, 0.5) / 1000:.1f} ms / {percentile(ms, 0.99) / 1000:.1f} ms |",
        f"| Consume per second, one sidecar ({WORKERS} clients) | {results['consume_1']:,.0f} |",
        f"| Consume per second, three sidecars ({WORKERS} clients spread over A, B, C) | {results['consume_3']:,.0f} |",
        f"| CheckAction per second, one sidecar ({WORKERS} clients) | {results['check_1']:,.0f} |",
        f"| CheckAction per second, three sidecars ({WORKERS} clients spread over A, B, C) "
        f"| {results['check_3']:,.0f} |",
        f"| CheckAction per second with a `breaker` guardrail, one sidecar ({WORKERS} clients) "
        f"| {results['breaker_1']:,.0f} |",
        f"| CheckAction per second with a `breaker` guardrail, three sidecars | {results['breaker_3']:,.0f} |",
        f"| ForceOpen on A until B refuses, p50 / p99 / max of {rounds} "
        f"| {percentile(opens, 0.5) / 1000:.1f} ms / {percentile(opens, 0.99) / 1000:.1f} ms "
        f"/ {opens[-1] / 1000:.1f} ms |",
        f"| lease hand-over across sidecars (held on A, released on C, granted on B), p50 / p99 of {rounds} "
        f"| {percentile(handovers, 0.5) / 1000:.1f} ms / {percentile(handovers, 0.99) / 1000:.1f} ms |",
        f"| kill-to-ack, agent attached to another sidecar (Kill on A, agent on B), p50 / p99 of {rounds} "
        f"| {percentile(routed, 0.5) / 1000:.1f} ms / {percentile(routed, 0.99) / 1000:.1f} ms |",
        f"| kill-to-ack, agent attached to the issuing sidecar (Kill and agent on A), p50 / p99 of {rounds} "
        f"| {percentile(local, 0.5) / 1000:.1f} ms / {percentile(local, 0.99) / 1000:.1f} ms |",
        f"| event fan-out to a watcher on another sidecar (ForceOpen on A, watched on C), p50 / p99 of "
        f"{len(fanout)} | {percentile(fanout, 0.5) / 1000:.1f} ms / {percentile(fanout, 0.99) / 1000:.1f} ms |",
        f"| audit records appended per second, three writers (during the three-sidecar CheckAction run) "
        f"| {audit_lock.records / audit_lock.elapsed:,.0f} |",
        f"| audit-lock wait of a fourth writer (probe every 20 ms), p50 / p99 / max of {len(lock_us)} "
        f"| {percentile(lock_us, 0.5) / 1000:.2f} ms / {percentile(lock_us, 0.99) / 1000:.2f} ms "
        f"/ {lock_us[-1] / 1000:.2f} ms |",
        f"| share of 5 ms samples with a backend waiting on the audit lock (mean waiters) "
        f"| {audit_lock.waiting / max(audit_lock.samples, 1):.1%} "
        f"({audit_lock.waiters / max(audit_lock.samples, 1):.2f}) |",
        f"| idle database commits per second, per sidecar | {idle:.1f} |",
        f"| CheckAction per second, `serve --workers 1` ({WORKERS} clients, one connection each) "
        f"| {w1:,.0f} (CPU {' + '.join(f'{c:.0%}' for c in cpu1)}) |",
        f"| CheckAction per second, `serve --workers 2` ({WORKERS} clients, one connection each) "
        f"| {w2:,.0f} (CPU {' + '.join(f'{c:.0%}' for c in cpu2)}; {w2 / max(w1, 1):.2f}x) |",
        *outage.rows(down),
    ]
    return f"""{SECTION_START}
## Fleet: three sidecars on one PostgreSQL

Measured by `make bench` (`bench/fleet.py`) on {datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}.

{chr(10).join(machine())}
- PostgreSQL from `scripts/postgres.sh` (`fsync=off`: the numbers show the protocol, not a disk)

**Method.** Three `outrider serve` processes (A, B, C) on one fresh database, console off, authentication
on, policy: an `action_list` guardrail, a `hitl` guardrail for `deploy` and a `breaker` guardrail for
`guarded` (its CLOSED permit comes from the sidecar's cache). The load generator is one
more process on loopback with {WORKERS} blocking clients for {seconds:g} s per run. Every process shares the
machine's cores with PostgreSQL, so "three sidecars" here shows what sharing the database costs, not
what three hosts would give. Approval wake-up: {rounds} rounds of one CheckAction parked on B while C
decides; measured from DecideApproval's answer to CheckAction's answer (median of the poll alone would
be ~125 ms). Idle commits: `pg_stat_database.xact_commit` over 10 s with the three sidecars idle.
Audit lock: every sidecar appends to the one audit chain under one transaction-level advisory lock, and the
record time is read inside it; during the three-sidecar CheckAction run (each decision-log batch is one
audit record) a probe takes the same lock every 20 ms and times its wait, and `pg_stat_activity` is
sampled every 5 ms for backends waiting on it. Sampling the lock's holder the same way (pg_locks joined
with pg_stat_activity) finds it almost always "idle in transaction": between its four statements the
holding sidecar's writer thread waits for its own process's CPU and GIL (six busy processes on two cores),
so the wait measures this machine's contention more than PostgreSQL's lock. Outage: one more sidecar on a
PostgreSQL of its own, 4 CheckAction and 1 Consume callers (5 s deadlines), the server stopped for
{outage.OUTAGE:g} s and started again on its port (bench/outage.py).

{chr(10).join(rows)}

Median wake-up {statistics.median(ms) / 1000:.1f} ms; slowest {ms[-1] / 1000:.1f} ms.
{SECTION_END}
"""


def write_section(path: Path, section: str) -> None:
    page = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(SECTION_START) + r".*?" + re.escape(SECTION_END) + r"\n?", re.S)
    found = pattern.search(page)
    page = pattern.sub(lambda _m: section, page) if found else page.rstrip("\n") + "\n\n" + section
    path.write_text(page, encoding="utf-8")


def _cpu_by_pid(pids: list[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        try:
            out[pid] = _cpu_seconds(pid)
        except OSError:  # ended meanwhile
            continue
    return out


def _budget_changes(dsn: str) -> int:
    """The `budgets` change counter: one per transaction that changed an agent's budget (a Consume group counts
    once per agent in it)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT version FROM fleet_changes WHERE topic = 'budgets'").fetchone()
    return int(row[0]) if row else 0


# Per run of a Consume row: calls/s, sidecars' CPU s per call, PostgreSQL's, budget transactions per call, and
# the machine's busy share.
ConsumeRuns = dict[str, list[tuple[float, float, float, float, float]]]


def _machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of every core since boot (/proc/stat), to tell a CPU-bound run."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return float(sum(fields) - idle), float(sum(fields))


def _postgres_pids(admin: str) -> list[int]:
    """The PostgreSQL server's processes (its postmaster and every child: backends, WAL writer, ...), for a
    server on this machine."""
    with psycopg.connect(admin, autocommit=True) as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        postmaster = int(Path(f"/proc/{row[0]}/stat").read_text().rpartition(")")[2].split()[1])
    return [postmaster, *_children(postmaster)]


def consume_runs(server_url: str, seconds: float, rounds: int) -> ConsumeRuns:
    """The two Consume rows alone (`--only consume`): three sidecars on a fresh database, `rounds` runs of each
    of one sidecar and three, in turns. Each run: (Consume per second, the three sidecars' CPU seconds per
    Consume, PostgreSQL's CPU seconds per Consume, budget transactions per Consume (1 / the mean group
    size), the share of the machine's CPU busy). A, B and C are all counted in the one-sidecar run too: the
    other two read each change back when its notification arrives."""
    db_url = _fresh_database(server_url)
    admin = server_url.replace("postgresql+psycopg://", "postgresql://")
    tmp = Path(tempfile.mkdtemp(prefix="fleet-consume-"))
    (tmp / "outrider.yaml").write_text(POLICY)
    token = operator_token(db_url, tmp)
    fleet = [s.ready() for s in [Sidecar(tmp, db_url, n, token) for n in "ABC"]]
    runs: ConsumeRuns = {"one": [], "three": []}
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    try:
        a = fleet[0]
        a.sg.SetGlobalBudget(sgpb.SetGlobalBudgetRequest(tokens=10**15), metadata=a.md)
        a.sg.Allocate(sgpb.AllocateRequest(agent_id="bench", tokens=10**14), metadata=a.md)
        consume = sgpb.ConsumeRequest(agent_id="bench", tokens=1)
        for s in fleet:
            s.sg.Consume(consume, metadata=a.md)  # connected before the clock starts
        picks: dict[str, Callable[[int], Sidecar]] = {"one": lambda n: a, "three": lambda n: fleet[n % 3]}
        for r in range(rounds):
            for label in ("one", "three") if r % 2 == 0 else ("three", "one"):

                def call(n: int, pick: Callable[[int], Sidecar] = picks[label]) -> object:
                    return pick(n).sg.Consume(consume, metadata=a.md)

                pg_pids = _postgres_pids(admin)
                sidecars0, pg0 = _cpu_by_pid([s.p.pid for s in fleet]), _cpu_by_pid(pg_pids)
                changes0, busy0 = _budget_changes(dsn), _machine_busy()
                rate = throughput(call, WORKERS, seconds)
                changes1, busy1 = _budget_changes(dsn), _machine_busy()
                sidecars1, pg1 = _cpu_by_pid([s.p.pid for s in fleet]), _cpu_by_pid(_postgres_pids(admin))
                calls = max(rate * seconds, 1.0)
                sidecar_cpu = sum(t - sidecars0.get(p, 0.0) for p, t in sidecars1.items())
                pg_cpu = sum(t - pg0.get(p, 0.0) for p, t in pg1.items())
                busy = (busy1[0] - busy0[0]) / max(busy1[1] - busy0[1], 1.0)
                runs[label].append((rate, sidecar_cpu / calls, pg_cpu / calls, (changes1 - changes0) / calls, busy))
    finally:
        for s in fleet:
            s.stop()
    return runs


def consume_table(runs: ConsumeRuns) -> str:
    def med(label: str, i: int) -> float:
        return statistics.median(r[i] for r in runs[label])

    n = len(runs["one"])
    return "\n".join(
        [
            f"| Consume, {WORKERS} clients (median of {n} runs each) | one sidecar | three sidecars |",
            "|---|---:|---:|",
            f"| Consume per second | {med('one', 0):,.0f} | {med('three', 0):,.0f} |",
            f"| sidecars' CPU per Consume (A + B + C) | {med('one', 1) * 1000:.2f} ms "
            f"| {med('three', 1) * 1000:.2f} ms |",
            f"| PostgreSQL's CPU per Consume | {med('one', 2) * 1000:.2f} ms | {med('three', 2) * 1000:.2f} ms |",
            f"| budget transactions per Consume (1 / mean group size) | {med('one', 3):.2f} | {med('three', 3):.2f} |",
            f"| the machine's CPU busy (every process on it) | {med('one', 4):.0%} | {med('three', 4):.0%} |",
            f"| runs (Consume per second) | {' / '.join(f'{r[0]:,.0f}' for r in runs['one'])} "
            f"| {' / '.join(f'{r[0]:,.0f}' for r in runs['three'])} |",
        ]
    )


def _fresh_database(server_url: str) -> str:
    admin = server_url.replace("postgresql+psycopg://", "postgresql://")
    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url.rpartition('/')[0]}/{name}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db-url", default=os.environ.get("OUTRIDER_BENCH_PG_URL", ""), help="a PostgreSQL server URL")
    p.add_argument("--out", type=Path, help="write the section into this Markdown page (e.g. docs/benchmarks.md)")
    p.add_argument("--duration", type=float, default=4.0, help="seconds per throughput run")
    p.add_argument("--rounds", type=int, default=50, help="approval wake-up rounds")
    p.add_argument(
        "--only",
        choices=["consume"],
        help="measure only this (printed, never written to --out): consume = the two Consume rows, in turns, "
        "with the sidecars' and PostgreSQL's CPU per Consume (PostgreSQL on this machine)",
    )
    p.add_argument("--consume-runs", type=int, default=3, help="runs of each Consume row with --only consume")
    args = p.parse_args()
    if not args.db_url:
        raise SystemExit("bench/fleet.py needs --db-url or OUTRIDER_BENCH_PG_URL (a PostgreSQL server)")
    if args.only == "consume":
        print(consume_table(consume_runs(args.db_url, args.duration, args.consume_runs)))
        return
    section = run(_fresh_database(args.db_url), args.duration, args.rounds)
    print(section)
    if args.out:
        write_section(args.out, section)
        print(f"wrote the fleet section of {args.out}")


if __name__ == "__main__":
    main()
