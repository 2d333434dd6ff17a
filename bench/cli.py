"""CLI start-up: the CPU time (user + sys, median of N runs) of `outrider --help`, `outrider --version` and
`outrider tokens issue` (on a database that exists, and on a new one, which creates the schema), printed as
a markdown table; with `--out`, also written as the "CLI start-up" section of that file. Each run is its
own process, measured from its rusage.

    python bench/cli.py [--runs 5] [--outrider .venv/bin/outrider] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.report import replace_section

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.5  # seconds of CPU (issue 28)


def cpu_seconds(argv: Sequence[str], env: dict[str, str]) -> float:
    """User + sys CPU of one run of `argv` (which must succeed), from the children's rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_cpu(runs: int, make_argv: Callable[[int], Sequence[str]], env: dict[str, str]) -> float:
    return statistics.median(cpu_seconds(make_argv(i), env) for i in range(runs))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--outrider", default=str(ROOT / ".venv" / "bin" / "outrider"))
    p.add_argument("--out", type=Path, help="also write the table as this markdown file's CLI start-up section")
    args = p.parse_args(argv)
    exe = args.outrider
    # No variable of the caller's changes what is measured (OUTRIDER_* would pick another database).
    env = {k: v for k, v in os.environ.items() if not k.startswith("OUTRIDER_")}
    with tempfile.TemporaryDirectory(prefix="outrider-bench-cli-") as tmp:
        config = Path(tmp) / "outrider.yaml"
        config.write_text("guardrails: []\n", encoding="utf-8")
        flags = ["--config", str(config)]

        def issue(data_dir: Path, i: int) -> list[str]:
            return [exe, "tokens", "issue", "--agent", f"bench-{i}", *flags, "--data-dir", str(data_dir)]

        existing = Path(tmp) / "existing"
        subprocess.run(issue(existing, -1), env=env, capture_output=True, check=True)  # the schema, once

        def fresh(i: int) -> list[str]:
            data = Path(tmp) / f"new-{i}"
            shutil.rmtree(data, ignore_errors=True)
            return issue(data, i)

        rows = [
            ("`outrider --help`", median_cpu(args.runs, lambda i: [exe, "--help"], env)),
            ("`outrider --version`", median_cpu(args.runs, lambda i: [exe, "--version"], env)),
            ("`outrider tokens issue` (existing database)", median_cpu(args.runs, lambda i: issue(existing, i), env)),
            ("`outrider tokens issue` (new database: creates the schema)", median_cpu(args.runs, fresh, env)),
        ]
    load = os.getloadavg()
    lines = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/cli.py`: CPU seconds (user + "
        f"sys) of each command as its own process, median of {args.runs} runs, Python {sys.version.split()[0]}, "
        f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end ({os.cpu_count()} cores shared "
        "with other work). Target: under 0.5 s for `--help`, `--version` and `tokens issue`.",
        "",
        "| command | CPU (s) | under 0.5 s |",
        "| --- | ---: | --- |",
        *(f"| {name} | {seconds:.2f} | {'yes' if seconds < TARGET else 'no'} |" for name, seconds in rows),
    ]
    print("\n".join(lines))
    if args.out is not None:
        replace_section(args.out, "CLI start-up", "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
