"""The decision log's local journal: accepted decisions that storage could not take yet, in an append-only,
fsync'd file under the data dir, until the writer replays them (server/services/supervisor/decision_log.py).

Layout: `<data_dir>/decision-journal/journal-N.jsonl`, one JSON line per batch, and `journal-N.offset`, the
byte offset up to which batches are replayed. Each sidecar process holds slot N by an flock on
`journal-N.lock` (several sidecars may share a data dir); a restarted sidecar takes the first free slot and
so finds what its killed predecessor journaled. A torn last line (a crash in the middle of a write, before
its fsync) was never acknowledged as journaled and is skipped.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from server.domain.guardrails.base import Severity
from server.domain.guardrails.decisions import Decision

log = logging.getLogger(__name__)

DIR_NAME = "decision-journal"
MAX_SLOTS = 64


def to_record(d: Decision) -> dict[str, Any]:
    record = d.plain()
    record["create_time"] = d.create_time.isoformat()
    return record


def from_record(r: Mapping[str, Any]) -> Decision:
    return Decision(
        decision_id=r["decision_id"],
        agent_id=r["agent_id"],
        action=r["action"],
        context_digest=r["context_digest"],
        allowed=bool(r["allowed"]),
        reason=r["reason"],
        severity=Severity(int(r["severity"])),
        guardrail=r["guardrail"],
        warnings=tuple((str(a), str(b)) for a, b in r["warnings"]),
        latency_us=int(r["latency_us"]),
        create_time=datetime.fromisoformat(r["create_time"]),
        request_id=r["request_id"],
        trace_id=r["trace_id"],
        shadow_guardrail=r["shadow_guardrail"],
        shadow_reason=r["shadow_reason"],
        shadow_needs_approval=bool(r["shadow_needs_approval"]),
        context=r["context"],
        context_truncated=bool(r["context_truncated"]),
    )


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FileDecisionJournal:
    """One sidecar's journal slot. Not thread-safe: the decision-log writer thread is its only user."""

    def __init__(self, data_dir: Path, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        folder = data_dir / DIR_NAME
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock_fd = -1
        for slot in range(MAX_SLOTS):
            fd = os.open(folder / f"journal-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self._lock_fd = fd
            break
        else:
            raise OSError(f"all {MAX_SLOTS} decision journal slots under {folder} are held by running sidecars")
        self.path = folder / f"journal-{slot}.jsonl"
        self._offset_path = folder / f"journal-{slot}.offset"
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        _fsync_dir(folder)
        self._offset = self._read_offset()
        self._size = os.fstat(self._fd).st_size
        if self._offset > self._size:  # a crash between resetting the offset and truncating
            self._offset = 0

    def _read_offset(self) -> int:
        try:
            return int(self._offset_path.read_text().strip() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    def _write_offset(self, offset: int) -> None:
        tmp = self._offset_path.with_suffix(".offset.tmp")
        with open(tmp, "w") as f:
            f.write(str(offset))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._offset_path)
        self._offset = offset

    @property
    def pending_bytes(self) -> int:
        """Bytes journaled and not yet replayed (0: empty)."""
        return self._size - self._offset

    @property
    def size_bytes(self) -> int:
        return self._size

    def pending_records(self) -> int:
        """Decisions journaled and not replayed (reads the pending part; at start-up and after a repair)."""
        data = os.pread(self._fd, self.pending_bytes, self._offset) if self.pending_bytes else b""
        count = 0
        for line in data.split(b"\n"):
            try:
                count += len(json.loads(line)) if line else 0
            except ValueError:
                continue
        return count

    @staticmethod
    def _line(decisions: Sequence[Decision]) -> bytes:
        return (json.dumps([to_record(d) for d in decisions], separators=(",", ":")) + "\n").encode()

    def append(self, decisions: Sequence[Decision]) -> bool:
        """Append one batch and fsync it; False (nothing written) when it would pass `max_bytes`."""
        line = self._line(decisions)
        if self._size + len(line) > self.max_bytes:
            return False
        os.write(self._fd, line)
        os.fsync(self._fd)
        self._size += len(line)
        return True

    def head(self, limit: int = 1) -> tuple[list[Decision], int] | None:
        """The oldest batches not replayed yet, whole, until they hold `limit` decisions, and the offset just
        past them (None: nothing readable is pending; a torn tail is cut off)."""
        out: list[Decision] = []
        pos = self._offset
        while pos < self._size and len(out) < limit:
            end = self._line_end(pos)
            if end < 0:  # a torn last line: never fsync'd, never acknowledged as journaled
                if out:
                    break  # replay what comes before it first
                log.warning("decision journal: skipping a torn last line (%d bytes)", self._size - pos)
                self._truncate_tail(pos)
                self.replayed(pos)  # everything before it is replayed: the file starts over
                return None
            try:
                out += [from_record(r) for r in json.loads(os.pread(self._fd, end - pos, pos))]
            except (ValueError, KeyError, TypeError) as exc:
                log.error("decision journal: an unreadable batch at offset %d is skipped: %s", pos, exc)
            pos = end + 1
        if not out:
            if pos > self._offset:
                self.replayed(pos)
            return None
        return out, pos

    def _line_end(self, pos: int) -> int:
        """The offset of the newline that ends the line starting at `pos` (-1: the file ends first)."""
        at = pos
        while at < self._size:
            chunk = os.pread(self._fd, min(1 << 16, self._size - at), at)
            found = chunk.find(b"\n")
            if found >= 0:
                return at + found
            at += len(chunk)
        return -1

    def _truncate_tail(self, pos: int) -> None:
        os.ftruncate(self._fd, pos)
        self._size = pos
        os.fsync(self._fd)

    def replayed(self, offset: int) -> None:
        """The batch ending at `offset` is in storage; once everything is, the file starts over."""
        if offset >= self._size:
            self._write_offset(0)  # first: a crash before the truncate replays (deduplicated), never skips
            os.ftruncate(self._fd, 0)
            os.fsync(self._fd)
            self._size = 0
        else:
            self._write_offset(offset)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock_fd >= 0:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1
