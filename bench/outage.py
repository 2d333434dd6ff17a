"""A 10 s database outage under load, for `bench/fleet.py`: decisions lost and the time to recover.

One `outrider serve` on a PostgreSQL of its own (scripts/postgres.sh in a fresh directory: the bench stops
and starts it, so it never touches a server anyone else uses). CheckAction and Consume callers run
throughout; PostgreSQL is stopped for `OUTAGE` seconds and started again on the same port. Measured: the
decisions CheckAction accepted and how many of them are missing from the decision log at the end (the
journal replays them), the errors callers saw (all should be UNAVAILABLE "storage unavailable, retry"),
and from the restart: the first Consume answered and the last accepted decision stored.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import psycopg

from outrider.v1 import safeguard_service_pb2 as sgpb
from outrider.v1 import supervisor_service_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
OUTAGE = 10.0
FIXED = "storage unavailable, retry"


class _Postgres:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="outage-bench-pg-"))
        os.chmod(self.dir, 0o755)  # as root, postgres.sh runs the server as `postgres`
        self.port = ""

    def _run(self, command: str) -> None:
        env = {k: v for k, v in os.environ.items() if k != "OUTRIDER_TEST_PG_PORT"}
        if self.port:
            env["OUTRIDER_TEST_PG_PORT"] = self.port  # a restart keeps the port the sidecar knows
        subprocess.run(["bash", str(ROOT / "scripts/postgres.sh"), command, str(self.dir)], env=env, check=True)

    def start(self) -> None:
        self._run("start")
        self.port = (self.dir / "port").read_text().strip()

    def stop(self) -> None:
        self._run("stop")

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclass
class OutageResult:
    accepted: int  # CheckAction answers during the whole run
    accepted_during: int  # of them, while PostgreSQL was stopped
    lost: int  # accepted decisions missing from the decision log at the end
    errors: Counter[str]  # "CODE: details" -> count
    consume_back: float  # seconds from the restart to the first Consume answered
    replayed: float  # seconds from the restart to the last accepted decision stored


def measure(sidecar_factory: Any, token_for: Any) -> OutageResult:
    """`sidecar_factory(tmp, db_url, name, token)` starts a ready sidecar (bench/fleet.py's `Sidecar`);
    `token_for(db_url, tmp)` issues an operator token."""
    pg = _Postgres()
    pg.start()
    tmp = Path(tempfile.mkdtemp(prefix="outage-bench-"))
    (tmp / "outrider.yaml").write_text("log: {level: warning}\nlimits: {requests_per_second: 1000000}\n")
    base = f"postgresql+psycopg://outrider@127.0.0.1:{pg.port}/outrider"
    try:
        token = token_for(base, tmp)
        s = sidecar_factory(tmp, base, "outage", token).ready()
        try:
            return _run(pg, s, base)
        finally:
            s.stop()
    finally:
        pg.close()
        shutil.rmtree(tmp, ignore_errors=True)


def _run(pg: _Postgres, s: Any, db_url: str) -> OutageResult:
    sv, sg, md = s.sv, s.sg, s.md
    sg.SetGlobalBudget(sgpb.SetGlobalBudgetRequest(tokens=10**15), metadata=md)
    sg.Allocate(sgpb.AllocateRequest(agent_id="outage", tokens=10**14), metadata=md)
    accepted: list[str] = []
    consumed: list[float] = []
    errors: Counter[str] = Counter()
    stop = threading.Event()
    state = {"down": False}
    during = [0]
    lock = threading.Lock()

    def checks() -> None:
        req = pb.CheckActionRequest(agent_id="outage", action="read")
        while not stop.is_set():
            try:
                r = sv.CheckAction(req, metadata=md, timeout=5)
            except grpc.RpcError as err:
                with lock:
                    errors[f"{err.code().name}: {err.details()}"] += 1
                time.sleep(0.05)
                continue
            with lock:
                accepted.append(r.decision_id)
                during[0] += state["down"]
            time.sleep(0.005)

    def consumes() -> None:
        while not stop.is_set():
            req = sgpb.ConsumeRequest(agent_id="outage", tokens=1, request_id=uuid.uuid4().hex)
            try:
                sg.Consume(req, metadata=md, timeout=5)
            except grpc.RpcError as err:
                with lock:
                    errors[f"{err.code().name}: {err.details()}"] += 1
                time.sleep(0.05)
                continue
            with lock:
                consumed.append(time.monotonic())
            time.sleep(0.005)

    threads = [threading.Thread(target=checks) for _ in range(4)] + [threading.Thread(target=consumes)]
    for t in threads:
        t.start()
    dsn = db_url.replace("postgresql+psycopg://", "postgresql://")
    try:
        time.sleep(3)
        pg.stop()
        state["down"] = True
        time.sleep(OUTAGE)
        pg.start()
        state["down"] = False
        back = time.monotonic()
        with lock:
            before = set(accepted)  # accepted up to the restart: what the journal has to replay
        consume_back = replayed = float("nan")
        deadline = back + 120
        while (math.isnan(consume_back) or math.isnan(replayed)) and time.monotonic() < deadline:
            if math.isnan(consume_back) and any(t > back for t in consumed):
                consume_back = min(t for t in consumed if t > back) - back
            if math.isnan(replayed) and not before - _stored(dsn, before):
                replayed = time.monotonic() - back
            time.sleep(0.02)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    ids = set(accepted)
    missing = ids - _stored(dsn, ids)
    while missing and time.monotonic() < deadline:
        time.sleep(0.1)
        missing = ids - _stored(dsn, ids)
    return OutageResult(len(ids), during[0], len(missing), errors, consume_back, replayed)


def _stored(dsn: str, ids: set[str]) -> set[str]:
    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            rows = conn.execute("SELECT decision_id FROM decisions WHERE decision_id = ANY(%s)", (list(ids),))
            return {r[0] for r in rows}
    except psycopg.OperationalError:
        return set()


def rows(r: OutageResult) -> list[str]:
    others = {k: v for k, v in r.errors.items() if k != f"UNAVAILABLE: {FIXED}"}
    return [
        f"| {OUTAGE:g} s database outage under load: decisions accepted (during the outage) / lost "
        f"| {r.accepted:,} ({r.accepted_during:,}) / {r.lost} |",
        f"| errors callers saw: UNAVAILABLE `{FIXED}` / any other "
        f"| {r.errors.get(f'UNAVAILABLE: {FIXED}', 0):,} / {sum(others.values())}"
        f"{' (' + '; '.join(f'{k} x{v}' for k, v in others.items()) + ')' if others else ''} |",
        f"| recovery after the database is back: first Consume answered / every accepted decision stored "
        f"| {r.consume_back * 1000:,.0f} ms / {r.replayed:.1f} s |",
    ]
