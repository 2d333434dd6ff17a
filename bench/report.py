"""Writes one `## Section` of docs/benchmarks.md, keeping the sections other scripts wrote."""

from __future__ import annotations

import re
from pathlib import Path


def replace_section(path: Path, title: str, body: str) -> None:
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    block = f"## {title}\n\n{body.strip()}\n"
    # Up to the next section, or the start marker of a section another script writes (bench/fleet.py's).
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |^<!-- [a-z-]+:start -->|\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: block + "\n", text).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + block
    path.write_text(text)
