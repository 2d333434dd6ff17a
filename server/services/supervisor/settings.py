"""The config file's `decision_log:` section (its own module: the config loader, and so every CLI command,
reads it without importing the decision log and the guardrails)."""

from __future__ import annotations

from dataclasses import dataclass

from server.domain.capture import DEFAULT_MAX_BYTES, NONE


@dataclass(frozen=True, slots=True)
class DecisionLogSettings:
    queue_size: int = 10_000
    batch_size: int = 500
    flush_interval: float = 0.2
    max_rows: int | None = 1_000_000
    max_age: float | None = 7 * 86400.0
    # "per_batch": one audit record per written batch, vouching for each of its decisions
    # (server/domain/audit_batches.py); "per_decision": one audit record per decision, as before.
    audit_records: str = "per_batch"
    # Context capture for replay: "none" (only the digest) or "masked" (server/domain/capture.py).
    capture: str = NONE
    capture_max_bytes: int = DEFAULT_MAX_BYTES
    # The local journal of decisions storage could not take yet: its bound, and what CheckAction does when
    # it is full ("block": refuse, UNAVAILABLE DECISION_LOG_FULL; "allow": answer, decisions kept in memory).
    journal_max_bytes: int = 64 << 20
    on_journal_full: str = "block"


ON_JOURNAL_FULL = ("block", "allow")
