"""Decisions in the audit chain: one record per decision-log batch, and how each decision is proved by it.

The decision log writes its rows in batches; each batch gets ONE audit record (action `decision.batch`,
actor `system`) whose details are `{"count": n, "decisions": [[decision_id, leaf], ...], "root": root}`,
in the order the rows were written. A decision's `leaf` is the SHA-256 hex of the JSON (no spaces,
UTF-8 kept) of the list `[decision_id, agent_id, action, allowed, reason, severity (name), guardrail,
context_digest, warnings]`, in that order: the fields the older per-decision `decision` record carried
as details (its subject the decision id). A list, not an object: a fixed order needs no key sorting.
A decision with a shadow outcome or a captured context appends `[shadow_guardrail, shadow_reason,
shadow_needs_approval, captured_digest, context_truncated]` to that list, where `captured_digest` is the
SHA-256 hex of the captured (masked) context as JSON with sorted keys ("" when none was captured): what a
reviewer reads as "would have blocked" and what a replay re-runs are vouched for like the verdict.
Decisions without either keep the shorter list, so leaves written before this extension still verify.
`root` is a chained hash over the leaves in order: `h0 = 64 zeros`, `h_i = SHA-256(h_{i-1} || leaf_i)`
(hex strings concatenated), `root = h_n`.

The batch record is sealed into the keyed HMAC chain like every other record, so nobody without the
audit key can change a leaf, drop one or reorder them; the checkpoints vouch for it like for any record.
A decision row is then proved by recomputing its leaf and finding it at its place in its batch record.
Both forms — a batch record and a per-decision record — reduce to (decision id, leaf) pairs here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from server.domain.audit import GENESIS_HASH, AuditRecord

if TYPE_CHECKING:  # annotations only: the audit trail (and the CLI) need not import the guardrails
    from server.domain.guardrails.decisions import Decision

DECISION_BATCH = "decision.batch"  # one record per decision-log batch
DECISION = "decision"  # one record per decision (decision_log.audit_records: per_decision)
PRUNE_GRACE = timedelta(seconds=60)

AuditEvent = tuple[str, str, str, dict[str, Any]]


def captured_digest(context: Mapping[str, Any] | None) -> str:
    """The digest of a captured context ("" when none was captured)."""
    if context is None:
        return ""
    text = json.dumps(context, separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _extension(d: Decision) -> list[Any]:
    """The leaf's tail for a decision with a shadow outcome or a captured context; [] otherwise."""
    if not d.shadow_guardrail and d.context is None:
        return []
    return [
        d.shadow_guardrail,
        d.shadow_reason,
        d.shadow_needs_approval,
        captured_digest(d.context),
        d.context_truncated,
    ]


_EXTENSION_FIELDS = (
    "shadow_guardrail",
    "shadow_reason",
    "shadow_needs_approval",
    "captured_digest",
    "context_truncated",
)


def decision_details(d: Decision) -> dict[str, Any]:
    """The decision's audited fields (also the details of a per-decision record)."""
    extension = dict(zip(_EXTENSION_FIELDS, _extension(d), strict=False))
    return extension | {
        "agent_id": d.agent_id,
        "action": d.action,
        "allowed": d.allowed,
        "reason": d.reason,
        "severity": d.severity.name,
        "guardrail": d.guardrail,
        "context_digest": d.context_digest,
        "warnings": [list(w) for w in d.warnings],
    }


_LEAF_FIELDS = ("agent_id", "action", "allowed", "reason", "severity", "guardrail", "context_digest", "warnings")


def _leaf(values: list[Any]) -> str:
    text = json.dumps(values, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def leaf_of(decision_id: str, details: Mapping[str, Any]) -> str:
    """The leaf of a decision given as a per-decision record's details (KeyError when one is missing)."""
    tail = [details[k] for k in _EXTENSION_FIELDS] if "captured_digest" in details else []
    return _leaf([decision_id, *(details[k] for k in _LEAF_FIELDS), *tail])


def decision_leaf(d: Decision) -> str:
    warnings = [list(w) for w in d.warnings]
    return _leaf(
        [
            d.decision_id,
            d.agent_id,
            d.action,
            d.allowed,
            d.reason,
            d.severity.name,
            d.guardrail,
            d.context_digest,
            warnings,
            *_extension(d),
        ]
    )


def batch_root(leaves: Iterable[str]) -> str:
    h = GENESIS_HASH
    for leaf in leaves:
        h = hashlib.sha256((h + leaf).encode("ascii")).hexdigest()
    return h


def per_decision_event(d: Decision) -> AuditEvent:
    # The context itself stays out: its digest already binds the record to it.
    return (f"agent:{d.agent_id}", DECISION, d.decision_id, decision_details(d))


def batch_event(decisions: Sequence[Decision]) -> AuditEvent:
    pairs = [[d.decision_id, decision_leaf(d)] for d in decisions]
    details = {"count": len(pairs), "decisions": pairs, "root": batch_root(p[1] for p in pairs)}
    return ("system", DECISION_BATCH, decisions[0].decision_id, details)


def covered(record: AuditRecord) -> list[tuple[str, str]] | None:
    """The (decision id, leaf) pairs an audit record vouches for, in order; None for any other record.
    A batch record whose `root` or `count` does not match its own list is malformed: ValueError."""
    if record.action == DECISION:
        return [(record.subject, leaf_of(record.subject, record.details))]
    if record.action != DECISION_BATCH:
        return None
    d = record.details
    pairs = [(str(p[0]), str(p[1])) for p in d.get("decisions", [])]
    if d.get("count") != len(pairs) or d.get("root") != batch_root(p[1] for p in pairs):
        raise ValueError(f"decision batch record {record.seq}: its root or count does not match its decisions")
    return pairs


@dataclass
class DecisionsVerdict:
    """What the decision rows look like against the audit records that vouch for them.

    Retention deletes the oldest rows, so a vouched-for decision without a row is `pruned` when its
    audit record is no newer than the oldest row still in the log plus `grace` (the writer's batching,
    a backlog, several sidecars interleaving their batches); otherwise it is `missing` (deleted). A row
    whose leaf differs is `edited`. `first_problem` names the first problem found."""

    checked: int = 0  # rows whose leaf matched
    pruned: int = 0
    edited: int = 0
    missing: int = 0
    batches: int = 0  # audit records that vouch for decisions
    first_problem: str = ""
    first_decision: str = ""  # its decision id
    first_seq: int | None = None  # the audit record that vouches for it
    oldest_row: datetime | None = None  # create_time of the oldest decision row (None: the log is empty)
    grace: timedelta = PRUNE_GRACE

    @property
    def ok(self) -> bool:
        return self.edited == 0 and self.missing == 0

    def _problem(self, text: str, decision_id: str, seq: int) -> None:
        if not self.first_problem:
            self.first_problem, self.first_decision, self.first_seq = text, decision_id, seq

    def check(self, record: AuditRecord, pairs: Sequence[tuple[str, str]], rows: Mapping[str, Decision | None]) -> None:
        """Check one vouching record's decisions against the rows found for them."""
        self.batches += 1
        for position, (decision_id, leaf) in enumerate(pairs, 1):
            row = rows.get(decision_id)
            if row is None and decision_id not in rows:
                if self.oldest_row is None or record.record_time <= self.oldest_row + self.grace:
                    self.pruned += 1
                    continue
                self.missing += 1
                self._problem(
                    f"decision {decision_id} (#{position} of audit record {record.seq}) has no row in the "
                    "decision log, although older decisions still have theirs (deleted)",
                    decision_id,
                    record.seq,
                )
                continue
            if row is None or decision_leaf(row) != leaf:
                self.edited += 1
                self._problem(
                    f"decision {decision_id} (#{position} of audit record {record.seq}) does not match what "
                    "the audit record vouches for (the row was edited)",
                    decision_id,
                    record.seq,
                )
            else:
                self.checked += 1


class DecisionLookup(Protocol):
    """Reads decision rows for verification (the decision log's repository)."""

    def by_ids(self, decision_ids: Sequence[str]) -> Mapping[str, Decision | None]:
        """The rows found, by id; None for a row that cannot be read back as a decision."""
        ...

    def oldest_time(self) -> datetime | None: ...


def checking(
    records: Iterable[AuditRecord],
    lookup: DecisionLookup,
    verdict: DecisionsVerdict,
    on_pairs: Callable[[AuditRecord, list[tuple[str, str]]], None] | None = None,
) -> Iterator[AuditRecord]:
    """Pass `records` through unchanged, checking the decisions each vouching record covers on the way
    (so the chain and the decisions are verified in one streaming pass). A malformed batch record
    counts all its decisions as edited."""
    for record in records:
        try:
            pairs = covered(record)
        except (ValueError, TypeError, IndexError, AttributeError, KeyError) as exc:
            verdict.batches += 1
            count = record.details.get("count")
            verdict.edited += max(1, count) if isinstance(count, int) else 1
            verdict._problem(str(exc), "", record.seq)
            yield record
            continue
        if pairs is not None:
            verdict.check(record, pairs, lookup.by_ids([p[0] for p in pairs]))
            if on_pairs is not None:
                on_pairs(record, pairs)
        yield record
