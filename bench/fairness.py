"""`make bench`, fairness: a victim agent's CheckAction latency alone, and beside three attackers in
their own processes: one sending max-size contexts, one sending ReDoS-shaped input to a `^(a+)+$` trust
root, and an unauthenticated flood. Against a real sidecar process on 127.0.0.1 (SQLite, decision log on).

Appends (or replaces) the "Fairness under attack" section of `--out`.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc
from google.protobuf import struct_pb2

from bench._proc import Child
from bench.report import replace_section
from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc

VICTIM = "bench-victim"
MAX_CONTEXT = 1 << 20
POLICY = """
log: {level: error}
server: {max_context_bytes: 1048576}
guardrails:
  - {name: root, kind: trust_root, blocked_patterns: ['(?i)rm\\s+-rf', '^(a+)+$', '(?i)DROP\\s+TABLE']}
  - {name: cost-cap, kind: cost_cap, key: cost, max: 100}
  - {name: tools, kind: action_list, deny: ['shell.*']}
"""
SECTION = "Fairness under attack"
ATTACKER_THREADS = 4


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def _struct(d: dict[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(d)
    return s


def victim(target: str, token: str, n: int) -> list[float]:
    """Milliseconds per CheckAction, one call at a time, with a small everyday context."""
    md = [("authorization", f"Bearer {token}")]
    req = pb.CheckActionRequest(agent_id=VICTIM, action="files.read", context=_struct({"path": "/tmp/x", "cost": 3}))
    with grpc.insecure_channel(target) as ch:
        stub = pb_grpc.SupervisorServiceStub(ch)
        for _ in range(50):
            stub.CheckAction(req, metadata=md, timeout=30)
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            stub.CheckAction(req, metadata=md, timeout=30)
            out.append((time.perf_counter() - t0) * 1000)
        return out


def _attack(kind: str, target: str, token: str, stop: Any, counts: Any) -> None:
    """An attacker process: ATTACKER_THREADS threads sending `kind` until `stop` is set."""
    if kind == "max-size":
        # Just under the limit, and full of strings the trust root must scan.
        blob = ["x" * 1000] * ((MAX_CONTEXT - 4096) // 1006)
        req = pb.CheckActionRequest(agent_id="bench-attacker", action="files.write", context=_struct({"rows": blob}))
        md: list[tuple[str, str]] | None = [("authorization", f"Bearer {token}")]
    elif kind == "redos":
        evil = "a" * 28 + "!"
        req = pb.CheckActionRequest(
            agent_id="bench-attacker", action=evil, context=_struct({"p": "a" * 100_000 + "!", "q": [evil] * 50})
        )
        md = [("authorization", f"Bearer {token}")]
    else:  # an unauthenticated flood: no credential at all
        req = pb.CheckActionRequest(agent_id="bench-attacker", action="files.read")
        md = None

    def loop() -> None:
        with grpc.insecure_channel(target) as ch:
            stub = pb_grpc.SupervisorServiceStub(ch)
            sent = refused = 0
            while not stop.is_set():
                try:
                    stub.CheckAction(req, metadata=md, timeout=30)
                except grpc.RpcError:
                    refused += 1
                sent += 1
            with counts.get_lock():
                counts[0] += sent
                counts[1] += refused

    threads = [threading.Thread(target=loop) for _ in range(ATTACKER_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def beside(kind: str, target: str, victim_token: str, attacker_token: str, n: int) -> tuple[list[float], int, int]:
    ctx = mp.get_context("spawn")
    stop, counts = ctx.Event(), ctx.Array("l", [0, 0])
    proc = ctx.Process(target=_attack, args=(kind, target, attacker_token, stop, counts))
    proc.start()
    time.sleep(2.0)  # let the attack reach its pace
    try:
        lat = victim(target, victim_token, n)
    finally:
        stop.set()
        proc.join(60)
    return lat, int(counts[0]), int(counts[1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    p.add_argument("--calls", type=int, default=400)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "outrider.yaml"
        cfg.write_text(POLICY)
        with Child("bench.sidecar", "--config", str(cfg), "--data-dir", tmp, "--agent", VICTIM) as child:
            target = f"127.0.0.1:{child.ready['port']}"
            agent, operator = child.ready["agent_token"], child.ready["operator_token"]
            alone = victim(target, agent, args.calls)
            rows.append(("alone", alone, 0, 0))
            for kind, label in (
                ("max-size", "beside max-size contexts (1 MiB, 4 threads)"),
                ("redos", "beside ReDoS-shaped input (4 threads)"),
                ("flood", "beside an unauthenticated flood (4 threads)"),
            ):
                lat, sent, refused = beside(kind, target, agent, operator, args.calls)
                rows.append((label, lat, sent, refused))
            child.close()
    base99 = pct(alone, 0.99)
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} by `bench/fairness.py` against a real sidecar process (SQLite, "
        "decision log on) on 127.0.0.1; the victim and each attacker run in their own processes. The victim "
        f"sends {args.calls} CheckActions one at a time with a small context; each attacker runs "
        f"{ATTACKER_THREADS} threads. Targets: the victim's p99 at most 2x its alone figure and at most 50 ms.",
        "",
        "**The machine is shared** (2 cores, several other engineers' builds and tests running at the same "
        "time): the absolute figures are noisy and high; compare the rows with each other, and rerun "
        "`make bench` on a quiet host before sizing anything from them.",
        "",
        "| victim | p50 | p99 | p99 / alone | attacker calls (refused) | target |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, lat, sent, refused in rows:
        ratio = pct(lat, 0.99) / base99 if base99 else 0.0
        attack = f"{sent} ({refused})" if sent else "-"
        met = "-" if not sent else ("met" if ratio <= 2.0 and pct(lat, 0.99) <= 50 else "**not met**")
        lines.append(
            f"| {label} | {pct(lat, 0.5):.2f} ms | {pct(lat, 0.99):.2f} ms | {ratio:.1f}x | {attack} | {met} |"
        )
    lines += [
        "",
        "What keeps the victim's share: contexts of `limits.offload_context_bytes` (64 KiB) or more are "
        "converted and checked on the chain pool (`limits.chain_workers`, 2 threads) instead of the event "
        "loop; the trust root's patterns run under RE2 (linear time, so `^(a+)+$` costs what any pattern "
        "costs); calls with no credential are refused per peer address after "
        "`limits.unauthenticated_burst` at `limits.unauthenticated_requests_per_second`; one agent holds at "
        "most `limits.max_inflight_per_agent` calls. On two cores a Python process still shares one GIL: "
        "the pool frees the event loop between guardrails, it does not add CPU. Where a row is not met, what "
        "is left on the event loop is the protobuf parse of each 1 MiB request (grpcio deserialises on the "
        "loop thread) and the GIL the pool threads hold in 5 ms slices; next steps are a lower "
        "`sys.setswitchinterval` in the sidecar and a per-credential byte budget for large contexts.",
    ]
    replace_section(args.out, SECTION, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
