"""`make bench`: CheckAction, the CheckActions stream and Open Policy Agent on the same decision, in one run.

One bench sidecar (`bench/sidecar.py`: the production `build_server`, SQLite, decision log on) serves the
bench's five-guardrail chain (`bench/checkaction.py`'s POLICY); an OPA server (`scripts/opa.sh`, a pinned
version built from the Go module proxy) serves the same chain in Rego (`bench/opa_chain.rego`) over its
REST API. Both sides get Go load generators: ghz (`scripts/grpc-tools.sh`) for `CheckAction` and for
`CheckActions` (one bidirectional stream per caller, `--stream-messages` decisions each, pipelined), and
`bench/httpload` (keep-alive connections, one per caller) for OPA's `POST /v1/data/...`. Per concurrency
(1, 16, 64) the three run in turn for `--seconds` each, `--rounds` times; the best run of each is kept and
the ratios come from the same run. The gRPC rows count the decisions the sidecar's decision log wrote
during a run (ghz counts whole streams). The same ghz also calls `bench/grpc_ceiling.py`, a grpc.aio server
that answers CheckAction without doing anything, with one process and with two on one port
(`--ceiling-processes`): what grpcio alone allows on these cores, beside OPA. And `outrider serve --workers
N` (`--workers`, default 2) on one SQLite file, started as a user would (the same policy, authentication on,
decision log on), called by the same ghz: each call it answers is one decision.
Needs the Go toolchain; without it the section is skipped with one line.
Replaces the "CheckAction versus OPA" section of `--out`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import checkaction as ca
from bench._proc import ROOT, Child
from bench.report import replace_section

SECTION = "CheckAction versus OPA"
TOOLS = ROOT / ".outrider-tools" / "bin"
REGO = Path(__file__).resolve().parent / "opa_chain.rego"
OPA_PATH = "/v1/data/outrider/bench/decision"
UNARY_TARGET = 0.8  # issue 30: unary CheckAction at least 0.8x OPA at concurrency 16
STREAM_TARGET = 1.2  # and the CheckActions stream at least 1.2x
WORKERS_TARGET = 1.0  # and unary with `serve --workers 2` at least 1.0x


@dataclass
class Row:
    """One load run: decisions answered per second and the per-call latency (a stream's: per stream)."""

    rate: float
    p50_us: float
    p99_us: float
    errors: int


def install_tools() -> str | None:
    """ghz, OPA and bench/httpload in .outrider-tools/bin; the reason to skip when Go is missing."""
    if shutil.which("go") is None:
        return "needs the Go toolchain (https://go.dev/doc/install) for OPA, ghz and the HTTP load generator"
    subprocess.run(["bash", "scripts/grpc-tools.sh"], cwd=ROOT, check=True)
    subprocess.run(["bash", "scripts/opa.sh"], cwd=ROOT, check=True)
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
    subprocess.run(
        ["go", "build", "-trimpath", "-o", str(TOOLS / "httpload"), "."],
        cwd=ROOT / "bench" / "httpload",
        env=env,
        check=True,
    )
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_opa() -> tuple[subprocess.Popen[bytes], str]:
    """`opa run --server` on a free loopback port, once it answers its health check."""
    addr = f"127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [
            str(TOOLS / "opa"),
            "run",
            "--server",
            "--addr",
            addr,
            "--log-level",
            "error",
            "--skip-version-check",
            str(REGO),
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://{addr}/health", timeout=2) as answer:
                if answer.status == 200:
                    return proc, addr
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"OPA did not start on {addr} (exit {proc.poll()})") from None
            time.sleep(0.2)


def start_ceiling(processes: int) -> tuple[list[subprocess.Popen[str]], str]:
    """`processes` do-nothing grpc.aio servers (`bench/grpc_ceiling.py`) on one free loopback port."""
    port = free_port()
    procs: list[subprocess.Popen[str]] = []
    try:
        for _ in range(processes):
            proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve().parent / "grpc_ceiling.py"), "--port", str(port)],
                stdout=subprocess.PIPE,
                text=True,
            )
            procs.append(proc)
            line = proc.stdout.readline() if proc.stdout else ""
            if line.strip() != "ready":
                raise RuntimeError(f"bench/grpc_ceiling.py did not start on port {port} (exit {proc.poll()})")
    except BaseException:
        stop_all(procs)
        raise
    return procs, f"127.0.0.1:{port}"


class Workers:
    """`outrider serve --workers N` on a fresh SQLite data dir, with an operator and the agent's token."""

    def __init__(self, n: int, config: Path, tmp: Path) -> None:
        self.n = n
        data = tmp / f"workers-{n}"
        base = [sys.executable, "-m", "server"]
        flags = ["--config", str(config), "--data-dir", str(data)]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OUTRIDER_DB_URL": ""}

        def issue(*who: str) -> str:
            out = subprocess.run(
                [*base, "tokens", "issue", *who, *flags], env=env, cwd=tmp, check=True, text=True, capture_output=True
            )
            return out.stdout.strip()

        operator, self.token = issue("--operator", "bench-ops"), issue("--agent", ca.AGENT)
        port_file = tmp / f"workers-{n}.port"
        self.proc = subprocess.Popen(
            [
                *base,
                "serve",
                "--workers",
                str(n),
                "--listen",
                "127.0.0.1:0",
                "--port-file",
                str(port_file),
                "--no-console",
                *flags,
            ],
            env=env,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 300
        while not port_file.exists() or not port_file.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"`serve --workers {n}` did not start (exit {self.proc.poll()})")
            time.sleep(0.2)
        self.target = f"127.0.0.1:{port_file.read_text()}"
        import grpc

        from outrider.v1 import common_pb2
        from outrider.v1 import supervisor_service_pb2 as pb
        from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc

        with grpc.insecure_channel(self.target) as channel:
            pb_grpc.SupervisorServiceStub(channel).RegisterAgent(
                pb.RegisterAgentRequest(agent=common_pb2.Agent(agent_id=ca.AGENT, group=ca.GROUP)),
                timeout=30,
                metadata=ca.bearer(operator),
            )
        time.sleep(1.0)  # the other workers learn the agent's group from the change feed (50 ms; generous)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def stop_all(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def opa_body() -> bytes:
    return json.dumps(
        {"input": {"agent_id": ca.AGENT, "action": ca.ACTION, "context": ca.CONTEXT, "calls_in_window": 1}}
    ).encode()


# Calls each guardrail of the chain decides, with the guardrail that must answer (the rate limit is left out:
# OPA is given the count). `same_decisions` asks both sides before measuring, so the Rego cannot drift.
PROBES: list[tuple[str, dict[str, Any], bool, str]] = [
    (ca.ACTION, ca.CONTEXT, True, "analysts"),
    (ca.ACTION, {**ca.CONTEXT, "note": "then rm  -rf /srv"}, False, "root"),
    ("search.web", {"deep": [{"q": "x; drop table users"}]}, False, "root"),
    (ca.ACTION, {**ca.CONTEXT, "cost": 250}, False, "cost-cap"),
    ("Shell.exec", {}, False, "tools"),
    ("payments.refund_all", {}, False, "tools"),
    ("files.delete", {}, False, "analysts"),
    (ca.ACTION, ca.CONTEXT, True, "analysts"),  # still allowed after the blocks: what the runs send
]


def same_decisions(target: str, token: str | None, opa_addr: str) -> None:
    """Each probe answered alike by CheckAction and by OPA (allowed, deciding guardrail), or an error."""
    import grpc
    from google.protobuf import struct_pb2

    from outrider.v1 import supervisor_service_pb2 as pb
    from outrider.v1 import supervisor_service_pb2_grpc as pb_grpc

    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.SupervisorServiceStub(channel)
        for action, context, allowed, guardrail in PROBES:
            ctx = struct_pb2.Struct()
            ctx.update(context)
            ours = stub.CheckAction(
                pb.CheckActionRequest(agent_id=ca.AGENT, action=action, context=ctx),
                timeout=10,
                metadata=ca.bearer(token),
            )
            body = {"input": {"agent_id": ca.AGENT, "action": action, "context": context, "calls_in_window": 1}}
            request = urllib.request.Request(
                f"http://{opa_addr}{OPA_PATH}", json.dumps(body).encode(), {"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                theirs = json.loads(answer.read())["result"]
            got = {"outrider": (ours.allowed, ours.guardrail), "opa": (theirs["allowed"], theirs["guardrail"])}
            if set(got.values()) != {(allowed, guardrail)}:
                raise AssertionError(f"{action} {context}: expected {(allowed, guardrail)}, got {got}")


def check_json() -> dict[str, Any]:
    return {"agent_id": ca.AGENT, "action": ca.ACTION, "context": ca.CONTEXT}


def ghz(target: str, token: str | None, method: str, data: Any, concurrency: int, seconds: float, *extra: str) -> Any:
    md = json.dumps({"authorization": f"Bearer {token}"}) if token else "{}"
    cmd = [
        str(TOOLS / "ghz"),
        "--insecure",
        "--call",
        f"outrider.v1.SupervisorService.{method}",
        "-d",
        json.dumps(data),
        "-m",
        md,
        "-c",
        str(concurrency),
        "-z",
        f"{seconds}s",
        "-O",
        "json",
        *extra,
        target,
    ]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# How ghz ends a run at its deadline: the calls (streams) in flight then fail so; their decisions were made.
_END_OF_RUN = ("transport is closing", "client connection is closing")


def _ghz_row(report: Any, decided: int) -> Row:
    """`decided`: the decisions the sidecar's decision log wrote during the run (a stream that ghz cancels
    at its deadline has answered part of its messages: counting whole streams would miss those)."""
    seconds = report["total"] / 1e9
    lat = {int(d["percentage"]): d["latency"] / 1e3 for d in report.get("latencyDistribution") or []}
    failed = {text: n for text, n in (report.get("errorDistribution") or {}).items() if not text.endswith(_END_OF_RUN)}
    for text, n in failed.items():
        print(f"  failed {n}x: {text}", file=sys.stderr)
    return Row(decided / seconds, lat.get(50, 0.0), lat.get(99, 0.0), sum(failed.values()))


def _written(child: Child) -> int:
    """Decisions written so far, once the decision log has written everything queued."""
    return int(child.ask("drain", timeout=120)["written"])


def run_unary(target: str, token: str | None, child: Child, concurrency: int, seconds: float) -> Row:
    before = _written(child)
    report = ghz(target, token, "CheckAction", check_json(), concurrency, seconds)
    return _ghz_row(report, _written(child) - before)


def run_stream(target: str, token: str | None, child: Child, concurrency: int, seconds: float, messages: int) -> Row:
    data = [{"id": i + 1, "check": check_json()} for i in range(messages)]
    before = _written(child)
    report = ghz(target, token, "CheckActions", data, concurrency, seconds, "--stream-call-count", str(messages))
    return _ghz_row(report, _written(child) - before)


def run_ceiling(target: str, concurrency: int, seconds: float) -> Row:
    """ghz against the do-nothing servers: every call answered counts (there is no decision log)."""
    report = ghz(target, None, "CheckAction", check_json(), concurrency, seconds)
    row = _ghz_row(report, 0)
    return Row(float(report["rps"]), row.p50_us, row.p99_us, row.errors)


def run_ceiling_stream(target: str, concurrency: int, seconds: float, messages: int) -> Row:
    """The same on CheckActions streams: every stream ghz started counts as `messages` answers, those its
    deadline cut short too (at most one per caller), so the figure errs high, never low."""
    data = [{"id": i + 1, "check": check_json()} for i in range(messages)]
    report = ghz(target, None, "CheckActions", data, concurrency, seconds, "--stream-call-count", str(messages))
    row = _ghz_row(report, 0)
    return Row(float(report["rps"]) * messages, row.p50_us, row.p99_us, row.errors)


def run_workers(w: Workers, concurrency: int, seconds: float) -> Row:
    """ghz against `serve --workers N`: every CheckAction answered is one decision (ghz's own count)."""
    report = ghz(w.target, w.token, "CheckAction", check_json(), concurrency, seconds)
    row = _ghz_row(report, 0)
    return Row(float(report["rps"]), row.p50_us, row.p99_us, row.errors)


def run_opa(addr: str, body: Path, concurrency: int, seconds: float) -> Row:
    cmd = [
        str(TOOLS / "httpload"),
        "-url",
        f"http://{addr}{OPA_PATH}",
        "-body",
        str(body),
        "-c",
        str(concurrency),
        "-z",
        f"{seconds}s",
        "-expect",
        '"guardrail":"analysts"',
    ]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return Row(out["rps"], out["p50_us"], out["p99_us"], out["errors"])


def measure(
    target: str,
    token: str | None,
    opa: str,
    body: Path,
    child: Child,
    ceilings: dict[int, str],
    workers: list[Workers],
    args: argparse.Namespace,
) -> dict[tuple[str, int], Row]:
    best: dict[tuple[str, int], Row] = {}
    run_unary(target, token, child, 4, 1.0)  # warm every server's path, untimed
    run_stream(target, token, child, 4, 1.0, args.stream_messages)
    run_opa(opa, body, 4, 1.0)
    for ceiling in ceilings.values():
        run_ceiling(ceiling, 4, 1.0)
        run_ceiling_stream(ceiling, 4, 1.0, args.stream_messages)
    for w in workers:
        run_workers(w, 4, 1.0)
    for concurrency in args.concurrency:
        for _ in range(args.rounds):
            # Each gRPC run drains the decision log after itself: its writes never land in the next run.
            rows = {
                "unary": run_unary(target, token, child, concurrency, args.seconds),
                "stream": run_stream(target, token, child, concurrency, args.seconds, args.stream_messages),
            }
            rows["opa"] = run_opa(opa, body, concurrency, args.seconds)
            for w in workers:
                rows[f"workers{w.n}"] = run_workers(w, concurrency, args.seconds)
            for processes, ceiling in ceilings.items():
                rows[f"ceiling{processes}"] = run_ceiling(ceiling, concurrency, args.seconds)
                rows[f"ceiling{processes}-stream"] = run_ceiling_stream(
                    ceiling, concurrency, args.seconds, args.stream_messages
                )
            for name, row in rows.items():
                print(f"c{concurrency} {name}: {row.rate:,.0f}/s p50 {row.p50_us:.0f} µs", flush=True)
                if row.rate > best.get((name, concurrency), Row(-1.0, 0.0, 0.0, 0)).rate:
                    best[(name, concurrency)] = row
    return best


def render(best: dict[tuple[str, int], Row], args: argparse.Namespace, load_before: str) -> str:
    rows = []
    for c in args.concurrency:
        u, s, o = best[("unary", c)], best[("stream", c)], best[("opa", c)]
        rows.append(
            f"| {c} | {u.rate:,.0f} | {s.rate:,.0f} | {o.rate:,.0f} | {u.rate / o.rate:.2f}x | {s.rate / o.rate:.2f}x "
            f"| {u.p50_us:.0f} µs | {o.p50_us:.0f} µs |"
        )
    u16, s16, o16 = (best.get((n, 16)) for n in ("unary", "stream", "opa"))
    verdict = ""
    if u16 and s16 and o16:
        verdict = (
            f"At concurrency 16: unary CheckAction {u16.rate / o16.rate:.2f}x OPA (target ≥ {UNARY_TARGET}x, "
            f"{ca._met(u16.rate / o16.rate >= UNARY_TARGET)}); CheckActions {s16.rate / o16.rate:.2f}x OPA "
            f"(target ≥ {STREAM_TARGET}x, {ca._met(s16.rate / o16.rate >= STREAM_TARGET)})."
        )
    errors = sum(r.errors for r in best.values())
    return "\n".join(
        [
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/opa.py` (see its docstring "
            f"for the method); load average {load_before} at the start, {ca.load_average()} at the end (2 cores "
            f"shared with other work: compare the ratios, which come from one run). Best of {args.rounds} "
            f"run(s) of {args.seconds:g} s per row; OPA {opa_version()}, ghz for gRPC, `bench/httpload` for HTTP.",
            "",
            "| callers | CheckAction, decisions/s | CheckActions stream, decisions/s | OPA REST, decisions/s "
            "| CheckAction / OPA | CheckActions / OPA | CheckAction p50 | OPA p50 |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            verdict,
            "",
            "The same decision on both sides: the trust root's two regexes over the action and every string of the "
            "context, a cost cap, a deny list, a rate limit and a group allow list, every call allowed by the last "
            "guardrail. The sides differ in what they do besides: Outrider authenticates the agent's bearer token, "
            "counts the call for the rate limit itself, looks the agent's group up in its registry and writes every "
            "decision to its decision log (SQLite); OPA is given the group as data and the rate-limit count as "
            "input, and logs nothing. OPA's Go server uses both cores; the sidecar's Python uses about one. "
            f"A stream carries {args.stream_messages} pipelined decisions; its p50 is not per decision and is not "
            f"shown. Failed calls in the kept runs: {errors}.",
            *render_workers(best, args),
            *render_ceiling(best, args),
        ]
    )


def render_workers(best: dict[tuple[str, int], Row], args: argparse.Namespace) -> list[str]:
    """Unary CheckAction on `serve --workers N` (SQLite), beside OPA."""
    if not args.workers:
        return []
    head = " | ".join(f"`--workers {n}`, decisions/s | p50" for n in args.workers)
    ratios = " | ".join(f"`--workers {n}` / OPA" for n in args.workers)
    rows = []
    for c in args.concurrency:
        o = best[("opa", c)]
        ws = [best[(f"workers{n}", c)] for n in args.workers]
        rows.append(
            f"| {c} | "
            + " | ".join(f"{w.rate:,.0f} | {w.p50_us:.0f} µs" for w in ws)
            + f" | {o.rate:,.0f} | "
            + " | ".join(f"{w.rate / o.rate:.2f}x" for w in ws)
            + " |"
        )
    lines = [
        "",
        "**More processes.** Unary CheckAction on `outrider serve --workers N` on one SQLite file (the same policy, "
        "authentication and decision log, the workers sharing the port and following each other's changes), "
        "called by the same ghz; the load generator shares the host's cores with the workers and with OPA's "
        "idle server.",
        "",
        f"| callers | {head} | OPA REST, decisions/s | {ratios} |",
        "|---:|" + "---:|" * (3 * len(args.workers) + 1),
        *rows,
    ]
    o16, w16 = best.get(("opa", 16)), best.get(("workers2", 16))
    if o16 and w16:
        ratio = w16.rate / o16.rate
        lines += [
            "",
            f"At concurrency 16, unary CheckAction with `--workers 2`: {ratio:.2f}x OPA (target ≥ {WORKERS_TARGET}x, "
            f"{ca._met(ratio >= WORKERS_TARGET)}).",
        ]
    return lines


def render_ceiling(best: dict[tuple[str, int], Row], args: argparse.Namespace) -> list[str]:
    """The do-nothing grpc.aio server beside OPA: the most any CheckAction on grpcio can reach here."""
    procs = args.ceiling_processes
    if not procs:
        return []

    def name(n: int) -> str:
        return f"{n} process{'es' if n > 1 else ''}"

    head = " | ".join(f"{kind}, {name(n)}, /s" for n in procs for kind in ("unary", "stream"))
    ratios = " | ".join(f"{kind}, {name(n)} / OPA" for n in procs for kind in ("unary", "stream"))
    rows = []
    for c in args.concurrency:
        o = best[("opa", c)]
        rates = [best[(f"ceiling{n}{kind}", c)].rate for n in procs for kind in ("", "-stream")]
        rows.append(
            f"| {c} | "
            + " | ".join(f"{r:,.0f}" for r in rates)
            + f" | {o.rate:,.0f} | "
            + " | ".join(f"{r / o.rate:.2f}x" for r in rates)
            + " |"
        )
    lines = [
        "",
        "**The ceiling.** `bench/grpc_ceiling.py` answers the same calls (the same bytes, sent by the same ghz, "
        "`CheckAction` and `CheckActions` streams) with handlers that do nothing: no parsing, no guardrail, no "
        "authentication, no log; one serialized answer made at start-up. With two processes they share the "
        "port as `serve --workers 2` would. What a CheckAction does comes on top of this, so no CheckAction "
        "served by grpcio (the design card's server) passes these ratios on this host.",
        "",
        f"| callers | do-nothing grpc.aio: {head} | OPA REST, decisions/s | {ratios} |",
        "|---:|" + "---:|" * (4 * len(procs) + 1),
        *rows,
    ]
    verdicts = []
    o16 = best.get(("opa", 16))
    for n, kind, target, what in (
        (1, "", UNARY_TARGET, "of unary CheckAction"),
        (1, "-stream", STREAM_TARGET, "of the CheckActions stream"),
        (2, "", WORKERS_TARGET, "of unary CheckAction with `--workers 2`"),
    ):
        row = best.get((f"ceiling{n}{kind}", 16))
        if o16 and row:
            ratio = row.rate / o16.rate
            verdicts.append(
                f"{'unary' if not kind else 'stream'} with {name(n)} {ratio:.2f}x OPA, "
                f"{'above' if ratio >= target else '**below**'} the {target}x asked {what}"
            )
    if verdicts:
        lines += ["", "The do-nothing server at concurrency 16: " + "; ".join(verdicts) + "."]
    return lines


def opa_version() -> str:
    try:
        return (TOOLS / "opa.version").read_text().strip()
    except OSError:
        return "?"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="write the section into this Markdown report (docs/benchmarks.md)")
    p.add_argument("--seconds", type=float, default=8.0, help="seconds per run")
    p.add_argument("--rounds", type=int, default=2, help="runs per method and concurrency (the best is kept)")
    p.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    p.add_argument("--stream-messages", type=int, default=100, help="decisions per CheckActions stream")
    p.add_argument(
        "--ceiling-processes",
        type=int,
        nargs="*",
        default=[1, 2],
        help="also measure bench/grpc_ceiling.py (a do-nothing grpc.aio server) with this many processes on one port",
    )
    p.add_argument(
        "--workers",
        type=int,
        nargs="*",
        default=[2],
        help="also measure unary CheckAction on `outrider serve --workers N` (SQLite) for each N",
    )
    args = p.parse_args()
    skip = install_tools()
    if skip:
        print(f"bench/opa.py: skipped: {skip}")
        return
    load_before = ca.load_average()
    with tempfile.TemporaryDirectory(prefix="outrider-bench-opa-") as tmp:
        config = Path(tmp) / "outrider.yaml"
        config.write_text(ca.POLICY)
        body = Path(tmp) / "opa-input.json"
        body.write_bytes(opa_body())
        opa, opa_addr = start_opa()
        started: list[subprocess.Popen[str]] = []
        workers: list[Workers] = []
        try:
            ceilings: dict[int, str] = {}
            for processes in args.ceiling_processes:
                procs, ceilings[processes] = start_ceiling(processes)
                started += procs
            for n in args.workers:
                workers.append(Workers(n, config, Path(tmp)))
                same_decisions(workers[-1].target, workers[-1].token, opa_addr)
            with Child("bench.sidecar", "--config", str(config), "--data-dir", tmp, "--agent", ca.AGENT) as child:
                target = f"127.0.0.1:{child.ready['port']}"
                token = child.ready.get("agent_token")
                ca.prepare(target, ca.request_bytes(), ca.bearer(token), ca.bearer(child.ready.get("operator_token")))
                same_decisions(target, token, opa_addr)
                best = measure(target, token, opa_addr, body, child, ceilings, workers, args)
                child.close(timeout=120)
        finally:
            for w in workers:
                w.close()
            stop_all(started)
            opa.terminate()
            opa.wait(10)
    text = render(best, args, load_before)
    print(text)
    if args.out:
        replace_section(args.out, SECTION, text)


if __name__ == "__main__":
    main()
