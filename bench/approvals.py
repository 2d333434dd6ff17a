"""`make bench`, approvals: decision-to-return latency over 200 waiting agents, and memory with 10,000
requests waiting at once, against a real sidecar process on 127.0.0.1 (SQLite, decision log on).

Appends (or replaces) the "Human approvals" section of `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import http.cookiejar
import os
import random
import re
import socket
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from bench._proc import Child
from bench.report import replace_section
from outrider.v1 import supervisor_pb2
from outrider.v1 import supervisor_service_pb2 as pb
from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc

AGENT = "bench-approver-agent"
OTHER = "bench-other-agent"  # another agent, checking actions that need no approval while the burst arrives
POLICY = """
log: {level: warning}
# One bench agent stands for a fleet of them: the per-agent caps (16 CheckActions in flight, 100 pending
# approvals) would otherwise refuse all but the first few of the waiting calls, and the burst never ends.
limits: {requests_per_second: 1000000, burst: 1000000, max_inflight_per_agent: 100000}
approvals: {max_pending_per_agent: 100000}
server: {max_context_bytes: 1048576}
guardrails:
  - {name: root, kind: trust_root, blocked_patterns: ['(?i)rm\\s+-rf']}
  - {name: approval, kind: hitl, patterns: [deploy]}
"""
PENDING = supervisor_pb2.APPROVAL_STATE_PENDING
SECTION = "Human approvals"


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


PAGE_DEADLINE = 120.0  # seconds for one ListApprovals page while a burst arrives (the target is 1 s)


async def count_pending(
    stub: pb_grpc.SupervisorServiceStub, md: list[tuple[str, str]], page_times: list[float] | None = None
) -> list[pb.Approval]:
    items: list[pb.Approval] = []
    token = ""
    while True:
        t0 = time.perf_counter()
        page = await stub.ListApprovals(
            pb.ListApprovalsRequest(state=PENDING, page_size=1000, page_token=token),
            metadata=md,
            timeout=PAGE_DEADLINE,
        )
        if page_times is not None:
            page_times.append(time.perf_counter() - t0)
        items += page.approvals
        token = page.next_page_token
        if not token:
            return items


async def decision_latency(target: str, agent: str, operator: str, n: int) -> list[float]:
    """Milliseconds from sending DecideApproval to the waiting CheckAction's return."""
    amd, omd = [("authorization", f"Bearer {agent}")], [("authorization", f"Bearer {operator}")]
    async with grpc.aio.insecure_channel(target) as ch:
        stub = pb_grpc.SupervisorServiceStub(ch)
        done: dict[str, float] = {}

        async def wait(i: int) -> None:
            req = pb.CheckActionRequest(agent_id=AGENT, action="deploy", request_id=f"lat-{i}")
            await stub.CheckAction(req, metadata=amd, timeout=300)
            done[f"lat-{i}"] = time.perf_counter()

        tasks = [asyncio.create_task(wait(i)) for i in range(n)]
        while len(pending := await count_pending(stub, omd)) < n:
            await asyncio.sleep(0.1)
        random.Random(1).shuffle(pending)
        latencies = []
        for a in pending:
            t0 = time.perf_counter()
            await stub.DecideApproval(
                pb.DecideApprovalRequest(approval_id=a.approval_id, approve=True), metadata=omd, timeout=30
            )
            while a.request_id not in done:
                await asyncio.sleep(0.0005)
            latencies.append((done[a.request_id] - t0) * 1000)
        await asyncio.gather(*tasks)
        return latencies


async def hold_waiting(
    target: str, agent: str, operator: str, other: str, n: int, child: Child, limit: float
) -> dict[str, Any]:
    """Open n waiting CheckActions at once; report how long until all are stored and pending (the sidecar's
    count of calls parked on a stored pending request, then checked with ListApprovals), the server's RSS
    and threads then, and, while the burst arrives, the latency of another agent's CheckActions (one at a
    time, an action no guardrail stops) and of single ListApprovals(page_size=1000) pages."""
    amd, omd = [("authorization", f"Bearer {agent}")], [("authorization", f"Bearer {operator}")]
    xmd = [("authorization", f"Bearer {other}")]
    before = child.ask("stats")
    channels = [grpc.aio.insecure_channel(target) for _ in range(max(1, n // 1000))]
    probe_channel = grpc.aio.insecure_channel(target)
    try:
        stubs = [pb_grpc.SupervisorServiceStub(c) for c in channels]
        probe = pb_grpc.SupervisorServiceStub(probe_channel)
        await probe.CheckAction(pb.CheckActionRequest(agent_id=OTHER, action="read"), metadata=xmd, timeout=60)
        await count_pending(probe, omd)  # both paths warm before the burst
        ours = False  # set once this function cancels the calls: a CANCELLED before that is a refusal
        failed: dict[str, int] = {}

        async def outcome(call: Any) -> None:
            try:
                await call
            except grpc.aio.AioRpcError as exc:  # a refused call never becomes pending: say why
                if not (ours and exc.code() == grpc.StatusCode.CANCELLED):
                    failed[exc.code().name] = failed.get(exc.code().name, 0) + 1
            except asyncio.CancelledError:
                pass

        started = time.monotonic()
        calls = [
            stubs[i % len(stubs)].CheckAction(
                pb.CheckActionRequest(agent_id=AGENT, action="deploy", request_id=f"mem-{i}"), metadata=amd, timeout=900
            )
            for i in range(n)
        ]
        watchers = [asyncio.create_task(outcome(c)) for c in calls]
        burst = asyncio.Event()
        check_ms: list[float] = []
        page_times: list[float] = []
        late_pages = 0

        async def other_agent() -> None:
            while not burst.is_set():
                t0 = time.perf_counter()
                await probe.CheckAction(pb.CheckActionRequest(agent_id=OTHER, action="read"), metadata=xmd, timeout=60)
                check_ms.append((time.perf_counter() - t0) * 1000)
                await asyncio.sleep(0.02)

        async def pages() -> None:
            nonlocal late_pages
            while not burst.is_set():
                t0 = time.perf_counter()
                try:
                    await probe.ListApprovals(
                        pb.ListApprovalsRequest(state=PENDING, page_size=1000), metadata=omd, timeout=PAGE_DEADLINE
                    )
                    page_times.append(time.perf_counter() - t0)
                except grpc.aio.AioRpcError as exc:  # a page past its deadline: counted, the burst goes on
                    if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                        raise
                    late_pages += 1
                await asyncio.sleep(1.0)

        probes = [asyncio.create_task(other_agent()), asyncio.create_task(pages())]
        waiting = 0
        while True:
            await asyncio.sleep(0.25)
            waiting = int(child.ask("stats")["approvals_waiting"])
            if waiting + sum(failed.values()) >= n or time.monotonic() - started > limit:
                break
        seconds = time.monotonic() - started
        burst.set()
        await asyncio.gather(*probes)
        after = child.ask("stats", timeout=120)
        pending = len(await count_pending(probe, omd))  # the API agrees: stored and PENDING
        ours = True
        for call in calls:
            call.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
        return {
            "rss_before_mb": before["rss_kb"] / 1024,
            "rss_mb": after["rss_kb"] / 1024,
            "threads": after["threads"],
            "seconds_to_all_pending": seconds,
            "all_pending": float(waiting >= n and pending >= n),
            "pending": float(pending),
            "page_p99_s": pct(page_times, 0.99) if page_times else float("nan"),
            "page_max_s": max(page_times, default=float("nan")),
            "pages": float(len(page_times)),
            "late_pages": float(late_pages),
            "check_p50_ms": pct(check_ms, 0.5) if check_ms else float("nan"),
            "check_p99_ms": pct(check_ms, 0.99) if check_ms else float("nan"),
            "checks": float(len(check_ms)),
            "failed": ", ".join(f"{k} {v}" for k, v in sorted(failed.items())) or "none",
        }
    finally:
        for c in [*channels, probe_channel]:
            await c.close()


def _login(console_url: str, user: str, password: str) -> str:
    """Sign in like a browser; returns the Cookie header for the session."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{console_url}/login", timeout=30).read().decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token, "no CSRF token on the login page"
    form = urllib.parse.urlencode(
        {"csrf_token": token.group(1), "username": user, "password": password, "next": "/"}
    ).encode()
    opener.open(f"{console_url}/login", data=form, timeout=30).read()
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def sse_latency(
    console_url: str, user: str, password: str, target: str, agent: str, operator: str, n: int
) -> list[float]:
    """Milliseconds from sending a CheckAction that needs approval to its row arriving on an open
    /events/pending stream (the page a reviewer keeps open)."""
    cookie = _login(console_url, user, password)
    host, port = urllib.parse.urlsplit(console_url).netloc.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    conn.request("GET", "/events/pending", headers={"Cookie": cookie, "Accept": "text/event-stream"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.status
    seen: dict[str, float] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def read() -> None:
        data: list[str] = []
        while not stop.is_set():
            try:
                line = resp.readline()
            except (OSError, http.client.HTTPException):  # the socket shut down at the end: done
                return
            if not line:
                return
            text = line.decode(errors="replace").rstrip("\n")
            if text.startswith("data:"):
                data.append(text)
            elif text == "" and data:
                now = time.perf_counter()
                blob = "".join(data)
                data = []
                with lock:
                    for found in re.findall(r"deploy-sse-(\d+)", blob):
                        seen.setdefault(found, now)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    amd, omd = [("authorization", f"Bearer {agent}")], [("authorization", f"Bearer {operator}")]
    latencies = []
    with grpc.insecure_channel(target) as ch:
        stub = pb_grpc.SupervisorServiceStub(ch)
        time.sleep(0.5)  # the stream's first render
        for i in range(n):
            t0 = time.perf_counter()
            r = stub.CheckAction(
                pb.CheckActionRequest(agent_id=AGENT, action=f"deploy-sse-{i}", wait_mode=pb.WAIT_MODE_NON_BLOCKING),
                metadata=amd,
                timeout=30,
            )
            deadline = t0 + 10
            while time.perf_counter() < deadline:
                with lock:
                    if str(i) in seen:
                        break
                time.sleep(0.0005)
            with lock:
                latencies.append((seen.get(str(i), float("inf")) - t0) * 1000)
            # Keep the pending list short, as reviewers do.
            stub.CancelApproval(
                pb.CancelApprovalRequest(approval_id=r.approval.approval_id, reason="bench"), metadata=omd, timeout=30
            )
    # Stop the reader before closing: closing the response under a blocked readline() left it reading a
    # released buffer (the old crash, `'NoneType' object has no attribute 'peek'`). Shutting the socket
    # down ends that readline; only then is the connection closed.
    stop.set()
    if conn.sock is not None:
        with contextlib.suppress(OSError):
            conn.sock.shutdown(socket.SHUT_RDWR)
    reader.join(30)
    conn.close()
    return latencies


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    p.add_argument("--decisions", type=int, default=200)
    p.add_argument("--waiting", type=int, default=10_000)
    p.add_argument("--limit", type=float, default=900.0, help="seconds to wait for the burst to be stored")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "outrider.yaml"
        cfg.write_text(POLICY)
        with Child(
            "bench.sidecar",
            "--config",
            str(cfg),
            "--data-dir",
            tmp,
            "--agent",
            AGENT,
            "--other-agent",
            OTHER,
            "--console",
        ) as child:
            target = f"127.0.0.1:{child.ready['port']}"
            agent, operator = child.ready["agent_token"], child.ready["operator_token"]
            sse = sse_latency(
                child.ready["console_url"],
                child.ready["reviewer"],
                child.ready["password"],
                target,
                agent,
                operator,
                args.decisions,
            )
            lat = asyncio.run(decision_latency(target, agent, operator, args.decisions))
            other = child.ready["other_tokens"][OTHER]
            mem = asyncio.run(hold_waiting(target, agent, operator, other, args.waiting, child, args.limit))
            child.close(timeout=300)
    p50, p99 = pct(lat, 0.5), pct(lat, 0.99)
    s50, s99 = pct(sse, 0.5), pct(sse, 0.99)
    met = {
        "all": bool(mem["all_pending"]) and mem["seconds_to_all_pending"] < 10,
        "check": mem["check_p99_ms"] < 50,
        "page": mem["page_p99_s"] < 1 and not mem["late_pages"],
        "rss": mem["rss_mb"] <= 300,
        "decision": p99 < 50,
    }

    def verdict(ok: bool) -> str:
        return "met" if ok else "**NOT met**"

    load = os.getloadavg()
    lines = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/approvals.py` against a real "
        "sidecar process (SQLite, decision log on), client in a separate process, on 127.0.0.1; load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end (2 cores shared with other work).",
        "",
        "| measure | value | target |",
        "| --- | --- | --- |",
        f"| CheckAction → its row on an open SSE stream, p50 ({len(sse)} requests) | {s50:.2f} ms | < 100 ms p99 |",
        f"| CheckAction → its row on an open SSE stream, p99 | {s99:.2f} ms | {verdict(s99 < 100)} |",
        f"| decision → waiting agent's return, p50 ({len(lat)} requests, random order) | {p50:.2f} ms | < 50 ms p99 |",
        f"| decision → waiting agent's return, p99 | {p99:.2f} ms | {verdict(met['decision'])} |",
        f"| time until all {args.waiting:,} CheckActions sent at once were stored and PENDING | "
        + (
            f"{mem['seconds_to_all_pending']:.1f} s"
            if mem["all_pending"]
            else f"not all after {mem['seconds_to_all_pending']:.0f} s ({mem['pending']:,.0f} pending)"
        )
        + f" | < 10 s: {verdict(met['all'])} |",
        f"| waiting calls refused during the burst (by status) | {mem['failed']} | none |",
        f"| another agent's CheckAction during the burst, p50 / p99 ({mem['checks']:.0f} calls, one at a time) | "
        f"{mem['check_p50_ms']:.1f} ms / {mem['check_p99_ms']:.1f} ms | p99 < 50 ms: {verdict(met['check'])} |",
        f"| ListApprovals(page_size=1000) during the burst, p99 / max ({mem['pages']:.0f} pages) | "
        f"{mem['page_p99_s']:.2f} s / {mem['page_max_s']:.2f} s ({mem['late_pages']:.0f} past the "
        f"{PAGE_DEADLINE:.0f} s deadline) | < 1 s: {verdict(met['page'])} |",
        f"| server RSS with {args.waiting:,} requests waiting | {mem['rss_mb']:.0f} MB (before the burst: "
        f"{mem['rss_before_mb']:.0f} MB) | ≤ 300 MB: {verdict(met['rss'])} |",
        f"| server threads with {args.waiting:,} waiting | {mem['threads']:.0f} | no thread per call |",
        "",
        "The decision latency is the DecideApproval round trip plus the wake-up of the waiting call (an asyncio "
        "future resolved in-process); a decision from a separate console process is seen by the 250 ms poll "
        'instead. "Stored and PENDING" is the sidecar\'s count of calls parked on a stored, pending request, '
        "confirmed at the end by paging through ListApprovals(state=PENDING).",
    ]
    names = {
        "all": "all stored within 10 s",
        "check": "other agents' p99",
        "page": "ListApprovals pages",
        "rss": "RSS",
        "decision": "decision → agent p99",
    }
    missed = [names[k] for k, ok in met.items() if not ok]
    if missed:
        left = ' (what the profile shows is left: "The burst\'s stall, found" below).'
        lines += ["", "Targets not met: " + ", ".join(missed) + left]
    text = "\n".join(lines)
    print(text)
    replace_section(args.out, SECTION, text)


if __name__ == "__main__":
    main()
