"""CLI start-up: the CPU time (user + sys, median of N runs) of `outrider --help`, `outrider --version`
and `outrider tokens issue` (on a database that exists, and on a new one, which creates the schema), with
and without a bytecode cache, printed as a markdown table; with `--out`, also written as the "CLI start-up"
section of that file. Each run is its own process, measured from its rusage.

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
    base = {k: v for k, v in os.environ.items() if not k.startswith("OUTRIDER_") and k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="outrider-bench-cli-") as tmp:
        # As installed: bytecode compiled once (into a cache of this run's own, the checkout stays clean).
        # Without: every module compiled from source on every run (PYTHONDONTWRITEBYTECODE, as some CI has).
        envs = {
            "cached": {**base, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")},
            "compiled": {**base, "PYTHONDONTWRITEBYTECODE": "1"},
        }
        config = Path(tmp) / "outrider.yaml"
        config.write_text("guardrails: []\n", encoding="utf-8")
        flags = ["--config", str(config)]

        def issue(data_dir: Path, i: int) -> list[str]:
            return [exe, "tokens", "issue", "--agent", f"bench-{i}", *flags, "--data-dir", str(data_dir)]

        existing = Path(tmp) / "existing"
        for warm_up in (issue(existing, -1), [exe, "--help"]):  # the schema, once; the bytecode cache
            subprocess.run(warm_up, env=envs["cached"], capture_output=True, check=True)

        def fresh(i: int) -> list[str]:
            data = Path(tmp) / f"new-{i}"
            shutil.rmtree(data, ignore_errors=True)
            return issue(data, i)

        commands: list[tuple[str, Callable[[int], Sequence[str]]]] = [
            ("`outrider --help`", lambda i: [exe, "--help"]),
            ("`outrider --version`", lambda i: [exe, "--version"]),
            ("`outrider tokens issue` (existing database)", lambda i: issue(existing, i)),
            ("`outrider tokens issue` (new database: creates the schema)", fresh),
        ]
        rows = [
            (name, median_cpu(args.runs, make, envs["cached"]), median_cpu(args.runs, make, envs["compiled"]))
            for name, make in commands
        ]
    load = os.getloadavg()
    lines = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/cli.py`: CPU seconds (user + "
        f"sys) of each command as its own process, median of {args.runs} runs, Python {sys.version.split()[0]}, "
        f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end ({os.cpu_count()} cores shared "
        "with other work). Target: under 0.5 s for `--help`, `--version` and `tokens issue`, with the bytecode "
        "cache an installed package has; the last column compiles every module from source on every run.",
        "",
        "| command | CPU (s) | under 0.5 s | CPU (s), no bytecode cache |",
        "| --- | ---: | --- | ---: |",
        *(
            f"| {name} | {cached:.2f} | {'yes' if cached < TARGET else 'no'} | {compiled:.2f} |"
            for name, cached, compiled in rows
        ),
    ]
    print("\n".join(lines))
    if args.out is not None:
        replace_section(args.out, "CLI start-up", "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
