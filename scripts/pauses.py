"""Run a command while its Python processes (pytest workers, the sidecars they start) are frozen now and then.

A busy CI host does not only run things slowly: now and then it stops a process for a second or more (the
scheduler's "run time was missed by 0:00:01" in a failed run's log). A test that holds only on a host that never
pauses fails here rather than on CI:

    python scripts/pauses.py make test          # or: make test-paused

Every 2-6 s one Python process under the command, chosen at random, gets SIGSTOP for 0.5-1.5 s, then SIGCONT.
PostgreSQL, Chromium and Jaeger are left alone: their pauses are the fault suite's subject, on purpose.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _stopped(pid: int) -> bool:
    """Stopped already (a test's own SIGSTOP, the fault suite's subject): leave it to the test, whose SIGCONT
    this script's would otherwise pre-empt."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) in ("T", "t")
    except OSError:
        return True


def _python_descendants(root: int) -> list[int]:
    tree, found, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        for child in tree.get(pid, []):
            todo.append(child)
            try:
                exe = os.readlink(f"/proc/{child}/exe")
            except OSError:
                continue
            if "python" in Path(exe).name and not _stopped(child):
                found.append(child)
    return found


def _pause_now_and_then(root: int, stop: threading.Event, rng: random.Random) -> None:
    while not stop.wait(rng.uniform(2.0, 6.0)):
        victims = _python_descendants(root)
        if not victims:
            continue
        pid = rng.choice(victims)
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            continue
        time.sleep(rng.uniform(0.5, 1.5))
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: pauses.py COMMAND...", file=sys.stderr)
        return 2
    seed = int(os.environ.get("PAUSES_SEED", time.time_ns() % 1_000_000))
    print(
        f"pauses.py: freezing a random Python process now and then (PAUSES_SEED={seed}) beside: {' '.join(argv)}",
        file=sys.stderr,
    )
    child = subprocess.Popen(argv)
    stop = threading.Event()
    pauser = threading.Thread(target=_pause_now_and_then, args=(child.pid, stop, random.Random(seed)), daemon=True)
    pauser.start()
    try:
        return child.wait()
    finally:
        stop.set()
        pauser.join()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
