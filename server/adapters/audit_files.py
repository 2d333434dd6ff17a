"""The audit key file and the checkpoint directory: the parts of the audit trail kept outside the database."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from server.adapters.audit_keys import AuditKeys
from server.config import Config
from server.domain.audit_checkpoints import KEY_BYTES, Checkpoint, from_json, to_json
from server.domain.errors import FailedPrecondition
from server.domain.values import canonical_json
from server.services.audit import AuditRepository, AuditTrail, CheckpointSettings
from server.services.ports import Clock

log = logging.getLogger(__name__)
PUBLIC_KEY_FILE = "audit-checkpoint.pub"


def read_key(path: Path) -> bytes:
    """The audit key in `path` (hex); FailedPrecondition naming the file when it is missing or unusable."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise FailedPrecondition(f"audit.key_file {path} does not exist", reason="AUDIT_KEY_MISSING") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FailedPrecondition(f"cannot read audit.key_file {path}: {exc}", reason="AUDIT_KEY_UNREADABLE") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise FailedPrecondition(
            f"audit.key_file {path} does not hold a {KEY_BYTES}-byte key in hex", reason="AUDIT_KEY_UNREADABLE"
        )
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("audit.key_file is readable by others; chmod 600 it", extra={"path": str(path)})
    return key


def load_or_create_key(path: Path) -> bytes:
    """The key in `path`, or a new random one written there first (mode 0600, never overwritten)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return read_key(path)  # another process created it first
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(os.urandom(KEY_BYTES).hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
        log.warning("created a new audit key; back it up and keep it off the database host", extra={"path": str(path)})
    return read_key(path)


class FileCheckpointStore:
    """Checkpoints as one JSON file each in a directory (`checkpoint-<seq>-<head prefix>.json`)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def write(self, cp: Checkpoint) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"checkpoint-{cp.seq:012d}-{cp.head[:16]}.json"
        target = self.directory / name
        tmp = self.directory / f".{name}.tmp"
        tmp.write_text(canonical_json(to_json(cp)) + "\n", encoding="utf-8")
        os.replace(tmp, target)  # a reader never sees half a file
        return target

    def write_public_key(self, public_key: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / PUBLIC_KEY_FILE
        if not path.exists() or path.read_text().strip() != public_key:
            path.write_text(public_key + "\n", encoding="ascii")

    def read_all(self) -> Iterator[tuple[str, Checkpoint | str]]:
        """(file name, checkpoint) or (file name, why it is unreadable), in name (= seq) order."""
        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.glob("checkpoint-*.json")):
            try:
                yield path.name, from_json(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                yield path.name, f"not a checkpoint: {exc}"


def load_audit_keys(config: Config) -> AuditKeys:
    """The keys from audit.key_file, created on first start (0600)."""
    return AuditKeys(load_or_create_key(config.audit_key_path()))


def open_audit_trail(config: Config, repo: AuditRepository, clock: Clock, keys: AuditKeys | None) -> AuditTrail:
    """The audit trail every writer uses (the sidecar, `outrider console`, the CLI), started: with keys, the
    chain is sealed with them from here on and checkpoints go to audit.checkpoint_dir. FailedPrecondition
    when the chain is sealed with another key."""
    trail = AuditTrail(
        repo,
        clock,
        config.sensitive_keys,
        keys=keys,
        checkpoints=FileCheckpointStore(config.audit_checkpoint_path()) if keys else None,
        settings=CheckpointSettings(config.audit_checkpoint_every, config.audit_checkpoint_interval),
    )
    trail.start()
    return trail
