"""Two versions of the sidecar side by side: which one decides more, per second and per CPU second.

For changes smaller than this machine's noise. On a shared 2-core host the same run varies by ±15-30% from one
minute to the next, so runs of version A and then version B (even alternating) cannot see a 5% change. Here
both run at once: one bench sidecar (`bench/sidecar.py`, the bench's five-guardrail chain, SQLite, decision log
on) from each checkout, each loaded by its own ghz with the same calls, for `--rounds` rounds. A slow minute
slows both; each round's ratios (B over A: decisions per second, sidecar CPU per decision) are what count, and
their median is the answer. The decisions are those each sidecar's decision log wrote during the round.

    .venv/bin/python bench/ab.py --base ../outrider-main            # A: that checkout; B: this one
    .venv/bin/python bench/ab.py --base HEAD~1 --mode unary          # A: a git revision (a worktree is made)

Both sides import the generated protobuf code installed in this environment: compare versions with the same
protos. Not part of `make bench` (it compares code, not features); needs ghz (`scripts/grpc-tools.sh`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import checkaction as ca
from bench import opa
from bench._proc import ROOT, Child


@dataclass
class Side:
    name: str
    child: Child
    target: str
    token: str | None


@dataclass
class Round:
    rate: float  # decisions per second
    cpu_us: float  # the sidecar's CPU (every thread) per decision


def checkout(base: str, tmp: Path) -> Path:
    """`base` as a directory: a path to a checkout, or a git revision checked out in a worktree under `tmp`."""
    if Path(base).is_dir():
        return Path(base).resolve()
    tree = tmp / "base"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), base], cwd=ROOT, check=True, capture_output=True)
    return tree


def start(name: str, root: Path, tmp: Path) -> Side:
    data = tmp / name
    data.mkdir()
    config = data / "outrider.yaml"
    config.write_text(ca.POLICY)
    child = Child("bench.sidecar", "--config", str(config), "--data-dir", str(data), "--agent", ca.AGENT, cwd=root)
    target = f"127.0.0.1:{child.ready['port']}"
    token = child.ready.get("agent_token")
    ca.prepare(target, ca.request_bytes(), ca.bearer(token), ca.bearer(child.ready.get("operator_token")))
    return Side(name, child, target, token)


def load(side: Side, mode: str, callers: int, seconds: float, out: dict[str, Round]) -> None:
    cpu = float(side.child.ask("stats")["cpu_s"])  # the sidecar's own CPU, every thread (bench/sidecar.py)
    if mode == "stream":
        row = opa.run_stream(side.target, side.token, side.child, callers, seconds, 100)
    else:
        row = opa.run_unary(side.target, side.token, side.child, callers, seconds)
    decided = max(row.rate * seconds, 1.0)
    out[side.name] = Round(row.rate, (float(side.child.ask("stats")["cpu_s"]) - cpu) / decided * 1e6)


def together(sides: list[Side], mode: str, callers: int, seconds: float) -> dict[str, Round]:
    out: dict[str, Round] = {}
    threads = [threading.Thread(target=load, args=(s, mode, callers, seconds, out)) for s in sides]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", required=True, help="version A: a checkout's directory or a git revision")
    p.add_argument("--mode", choices=["stream", "unary"], default="stream")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--seconds", type=float, default=5.0, help="seconds per round")
    p.add_argument("--callers", type=int, default=8, help="ghz callers per side (streams, in stream mode)")
    args = p.parse_args()
    if not (opa.TOOLS / "ghz").exists():
        subprocess.run(["bash", "scripts/grpc-tools.sh"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory(prefix="outrider-ab-") as name:
        tmp = Path(name)
        base = checkout(args.base, tmp)
        sides: list[Side] = []
        try:
            sides = [start("A", base, tmp), start("B", ROOT, tmp)]
            together(sides, args.mode, args.callers, 1.0)  # warm both paths, untimed
            rates, cpus = [], []
            for n in range(args.rounds):
                r = together(sides, args.mode, args.callers, args.seconds)
                a, b = r["A"], r["B"]
                rates.append(b.rate / a.rate)
                cpus.append(b.cpu_us / a.cpu_us)
                print(
                    f"round {n + 1}: A {a.rate:,.0f}/s {a.cpu_us:.0f} µs/decision, B {b.rate:,.0f}/s "
                    f"{b.cpu_us:.0f} µs/decision; B/A {rates[-1]:.3f}x decisions/s, {cpus[-1]:.3f}x CPU per decision",
                    flush=True,
                )
            print(
                f"{args.mode}, median of {args.rounds} rounds: B/A {statistics.median(rates):.3f}x decisions per "
                f"second (from {min(rates):.3f} to {max(rates):.3f}), {statistics.median(cpus):.3f}x sidecar CPU "
                "per decision"
            )
        finally:
            for s in sides:
                s.child.close(timeout=120)
            if base.parent == tmp:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
                shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
