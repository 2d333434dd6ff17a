"""The fleet's one policy: the policy document the database holds, who applied it, and which version each
sidecar runs (no I/O).

The policy document is the part of a config file that must be the same on every sidecar of a fleet: the
`guardrails:` chain (with `chain.mode` folded into its entries), `recovery.policies` and
`recovery.cascade`, the `reversibility:` rules and `agents.records` (each record with its group filled
in). Everything else in the file (listen addresses, TLS, limits, timeouts, the `fleet:` section) is the
host's own. Its digest is the SHA-256 of its canonical JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class PolicyDocument:
    """One read of a policy file: the fleet's policy document and its digest, and the chain part of it."""

    document: dict[str, Any]
    digest: str
    guardrails: Any  # the raw `guardrails:` list, `chain.mode` applied
    guardrails_digest: str  # what the stored chain records as the policy it was built from


@dataclass(frozen=True, slots=True)
class FleetPolicy:
    """The policy every sidecar on the database runs; version 0 is "none applied yet"."""

    version: int
    digest: str
    document: dict[str, Any]
    path: str  # the file it was applied from, on `host`
    host: str
    sidecar_id: str
    actor: str  # who applied it: an operator's principal, `SIGHUP`, or the start-up that adopted it
    apply_time: datetime


@dataclass(frozen=True, slots=True)
class AppliedPolicy:
    """The fleet policy version one sidecar last applied in process."""

    sidecar_id: str
    version: int
    digest: str
    apply_time: datetime


def short(digest: str) -> str:
    """The first 12 hex digits: enough to tell policies apart in messages and tables."""
    return digest[:12] if digest else "(none)"


def mismatch_message(path: str, file_digest: str, fleet: FleetPolicy) -> str:
    """Why a sidecar whose policy file differs from the fleet's refuses to start, and what to do."""
    return (
        f"the policy in {path} (digest {short(file_digest)}) differs from the fleet's policy "
        f"(digest {short(fleet.digest)}, version {fleet.version}, applied by {fleet.actor} from "
        f"{fleet.path or '(no file)'} on {fleet.host or '?'} at {fleet.apply_time.isoformat(timespec='seconds')}). "
        "Start with the fleet's policy file, or run `outrider serve --apply-policy` to make this file the "
        "fleet's policy (every sidecar applies it); `outrider policy status` shows the fleet's policy"
    )
