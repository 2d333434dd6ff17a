"""What one waiting approval request costs the sidecar: memory (RSS and Python allocations by source line,
split into grpc's own and ours) and CPU seconds per request, for N CheckActions needing approval sent at once
to a real sidecar process (the `bench/approvals.py` policy, SQLite, decision log on).

`python -m bench.approval_memory --waiting 1000 [--trace]`: `--trace` turns tracemalloc on in the sidecar
(slow: for the per-line split only, not for the CPU figure). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench._proc import Child
from bench.approvals import AGENT, OTHER, POLICY
from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc


def _owner(where: str) -> str:
    if where.startswith(("grpc/", "grpc_")) or "/grpc/" in where:
        return "grpc"
    if "/server/" in where or where.startswith("server/"):
        return "ours"
    return "other"


async def burst(child: Child, n: int, trace: bool, limit: float, profile: str = "") -> dict[str, Any]:
    target = f"127.0.0.1:{child.ready['port']}"
    md = [("authorization", f"Bearer {child.ready['agent_token']}")]
    xmd = [("authorization", f"Bearer {child.ready['other_tokens'][OTHER]}")]
    channels = [grpc.aio.insecure_channel(target) for _ in range(max(1, n // 1000))]
    channels.append(grpc.aio.insecure_channel(target))  # the other agent's own connection
    stubs = [pb_grpc.SupervisorServiceStub(c) for c in channels[:-1]]
    other = pb_grpc.SupervisorServiceStub(channels[-1])
    try:
        # Warm both paths: one approval asked and cancelled, one plain check.
        await stubs[0].CheckAction(pb.CheckActionRequest(agent_id=OTHER, action="read"), metadata=xmd, timeout=60)
        if trace:
            child.ask("trace start")
        if profile:
            child.ask("profile start")
        before = child.ask("stats")
        started = time.monotonic()
        calls = [
            stubs[i % len(stubs)].CheckAction(
                pb.CheckActionRequest(agent_id=AGENT, action="deploy", request_id=f"m-{i}"), metadata=md, timeout=900
            )
            for i in range(n)
        ]
        done = asyncio.Event()
        other_ms: list[float] = []

        async def other_agent() -> None:  # another agent's CheckAction (no approval), one at a time
            while not done.is_set():
                t0 = time.perf_counter()
                await other.CheckAction(pb.CheckActionRequest(agent_id=OTHER, action="read"), metadata=xmd, timeout=120)
                other_ms.append((time.perf_counter() - t0) * 1000)
                await asyncio.sleep(0.02)

        probe = asyncio.create_task(other_agent())
        waiting = 0
        while time.monotonic() - started < limit:
            await asyncio.sleep(0.25)
            waiting = int((await asyncio.to_thread(child.ask, "stats"))["approvals_waiting"])
            if waiting >= n:
                break
        seconds = time.monotonic() - started
        done.set()
        await probe
        after = child.ask("stats", timeout=120)
        if profile:
            child.ask(f"profile stop {profile}", timeout=120)
        out: dict[str, Any] = {
            "waiting": waiting,
            "seconds": round(seconds, 2),
            "rss_before_mb": round(before["rss_kb"] / 1024, 1),
            "rss_after_mb": round(after["rss_kb"] / 1024, 1),
            "rss_kb_per_waiting": round((after["rss_kb"] - before["rss_kb"]) / max(1, waiting), 1),
            "cpu_ms_per_request": round((after["cpu_s"] - before["cpu_s"]) * 1000 / max(1, waiting), 2),
            "other_agent_ms": {
                "calls": len(other_ms),
                "p50": round(sorted(other_ms)[len(other_ms) // 2], 1),
                "max": round(max(other_ms), 1),
            },
        }
        if trace:
            diff = child.ask("trace diff", timeout=300)
            split: dict[str, float] = {}
            for line in diff["all"]:
                split[_owner(line["where"])] = split.get(_owner(line["where"]), 0.0) + line["kb"]
            out["traced_kb_per_waiting"] = {k: round(v / max(1, waiting), 2) for k, v in sorted(split.items())}
            out["top"] = diff["top"]
        for call in calls:
            call.cancel()
        await asyncio.gather(*calls, return_exceptions=True)
        return out
    finally:
        for c in channels:
            await c.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--waiting", type=int, default=1000)
    p.add_argument("--trace", action="store_true")
    p.add_argument("--limit", type=float, default=300.0)
    p.add_argument("--profile", default="", help="cProfile the sidecar's event loop thread into this file")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "outrider.yaml"
        cfg.write_text(POLICY)
        args_ = ["--config", str(cfg), "--data-dir", tmp, "--agent", AGENT, "--other-agent", OTHER]
        with Child("bench.sidecar", *args_) as child:
            result = asyncio.run(burst(child, args.waiting, args.trace, args.limit, args.profile))
            child.close(timeout=120)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
