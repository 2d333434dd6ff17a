"""Signed checkpoints of the audit chain, like a transparency log's signed tree head.

A checkpoint is the pair (last sequence number, head hash) at a moment, signed with Ed25519. Kept outside
the database (files, the log, wherever they are shipped), checkpoints let a verifier notice what the keyed
chain alone cannot: deleted newest records and a database restored from an older copy.

One secret, the audit key (32 random bytes), gives both the chain key (HMAC-SHA256) and the checkpoint
signing key, each derived with HMAC-SHA256 under its own label, so one file is enough to seal and to sign;
the signing key's public half is what a checkpoint reader needs. The Ed25519 arithmetic itself is in
`server/adapters/audit_keys.py` (the domain is the standard library only).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from server.domain.audit import format_time, parse_time
from server.domain.values import canonical_json

KEY_BYTES = 32
_CHAIN_LABEL = b"outrider audit chain v2"
_SIGNING_LABEL = b"outrider audit checkpoint v1"
_SIGNED_PREFIX = b"outrider audit checkpoint\n"
VERSION = 1


@dataclass(frozen=True, slots=True)
class Checkpoint:
    seq: int
    head: str
    time: datetime
    public_key: str  # hex of the Ed25519 public key that signed it
    signature: str  # hex


def signed_bytes(seq: int, head: str, time: datetime, public_key: str) -> bytes:
    body = {"v": VERSION, "seq": seq, "head": head, "time": format_time(time), "public_key": public_key}
    return _SIGNED_PREFIX + canonical_json(body).encode()


def derive_keys(master: bytes) -> tuple[bytes, bytes]:
    """(chain key, Ed25519 signing seed) from the audit key, each under its own label."""
    if len(master) != KEY_BYTES:
        raise ValueError(f"an audit key is {KEY_BYTES} bytes, got {len(master)}")
    chain_key = hmac.new(master, _CHAIN_LABEL, hashlib.sha256).digest()
    return chain_key, hmac.new(master, _SIGNING_LABEL, hashlib.sha256).digest()


def to_json(cp: Checkpoint) -> dict[str, Any]:
    return {
        "v": VERSION,
        "seq": cp.seq,
        "head": cp.head,
        "time": format_time(cp.time),
        "public_key": cp.public_key,
        "signature": cp.signature,
    }


def from_json(obj: Mapping[str, Any]) -> Checkpoint:
    """KeyError/ValueError/TypeError when `obj` is not a checkpoint."""
    if obj.get("v") != VERSION:
        raise ValueError(f"unknown checkpoint version {obj.get('v')!r}")
    seq = obj["seq"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise ValueError(f"seq must be a whole number, got {seq!r}")
    return Checkpoint(
        seq, str(obj["head"]), parse_time(str(obj["time"])), str(obj["public_key"]), str(obj["signature"])
    )


@dataclass(frozen=True, slots=True)
class CheckedCheckpoints:
    heads: dict[int, set[str]]  # seq -> head hashes vouched for there, from good signatures
    bad: list[str]  # what was wrong with each checkpoint that could not be trusted


def check_all(
    checkpoints: Iterable[tuple[str, Checkpoint | str]], signature_ok: Callable[[Checkpoint], bool], public_key: str
) -> CheckedCheckpoints:
    """Sort good from bad: (name, checkpoint or the reason it could not be read) -> heads and problems."""
    heads: dict[int, set[str]] = {}
    bad: list[str] = []
    for name, cp in checkpoints:
        if isinstance(cp, str):
            bad.append(f"{name}: {cp}")
        elif not signature_ok(cp):
            bad.append(f"{name}: the signature does not match (seq {cp.seq}) under public key {public_key[:16]}...")
        else:
            heads.setdefault(cp.seq, set()).add(cp.head)
    return CheckedCheckpoints(heads, bad)
