"""`make bench`: what CheckAction's parts cost, one process, no gRPC: every variant measured in turns in one run.

The gRPC benchmark (`bench/checkaction.py`) says what a caller sees; this one says where the sidecar's CPU
goes, with the variants of each part side by side so that the ratios survive a loaded machine:

- *decision log writer*: `DecisionLog._write` on batches of 500 real records (the bench context) into
  SQLite with a keyed audit trail, `audit_records: per_batch` versus `per_decision`: CPU of the writer
  thread per decision (row insert + audit record, the work that shares the server's GIL);
- *metrics*: `Metrics.decision` per call, metrics off, and the OpenTelemetry options behind it;
- *conversions*: the context Struct to Python values (the hand-written walk with its validation,
  `json_format.MessageToDict`, protobuf's well-known-type accessors) and the response build;
- *conditions*: a guardrail's `when:` of 5 comparisons over a 10-key context (the budget is 20 µs), with the
  call's CEL scope built (the first condition a call meets) and already built (every later one; the result a call
  keeps per expression text is cleared, so each row is a real evaluation).

Each variant is timed in `--rounds` alternating rounds; a row is its best round (other load on the machine
only ever slows a round down). Times are CPU time of the measuring thread (`time.thread_time`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/inprocess.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from google.protobuf import json_format, struct_pb2

from bench.checkaction import CONTEXT
from bench.report import replace_section
from outrider.v1 import supervisor_service_pb2 as pb
from server.adapters.audit_files import load_or_create_key
from server.adapters.audit_keys import AuditKeys
from server.config import DEFAULT_SENSITIVE_KEYS
from server.domain.guardrails import ActionCall, GuardrailSpec, Severity, Verdict, build_guardrail, gate
from server.domain.guardrails.conditions import scope_of
from server.rpc import convert
from server.services.audit import AuditTrail
from server.services.clock import SystemClock
from server.services.supervisor.decision_log import DecisionLog, DecisionLogSettings, _Pending
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine, migrate
from server.storage.supervisor.repository import SqlDecisionRepository

TITLE = "CheckAction's parts, in one process"


def best_of(rounds: int, variants: dict[str, Callable[[], tuple[float, int]]]) -> dict[str, float]:
    """Run each variant once per round, in turns; keep each one's best seconds per unit."""
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(rounds):
        for name, run in variants.items():
            seconds, units = run()
            best[name] = min(best[name], seconds / units)
    return best


def timed(fn: Callable[[], Any], n: int) -> Callable[[], tuple[float, int]]:
    def run() -> tuple[float, int]:
        t = time.thread_time()
        for _ in range(n):
            fn()
        return time.thread_time() - t, n

    return run


# ---- decision log writer -----------------------------------------------------------------------


def writer_variants(tmp: Path, per_round: int) -> dict[str, Callable[[], tuple[float, int]]]:
    clock = SystemClock()
    keys = AuditKeys(load_or_create_key(tmp / "audit.key"))
    verdict = Verdict(True, "allowed", Severity.INFO, "analysts", ())
    counter = iter(range(10**9))
    out: dict[str, Callable[[], tuple[float, int]]] = {}
    for mode in ("per_decision", "per_batch"):
        engine = create_db_engine(f"sqlite:///{tmp / mode}.db")
        migrate(engine)
        trail = AuditTrail(SqlAuditRepository(engine), clock, DEFAULT_SENSITIVE_KEYS, keys=keys)
        trail.start()
        settings = DecisionLogSettings(audit_records=mode)
        dlog = DecisionLog(SqlDecisionRepository(engine), clock, settings, trail)

        def run(dlog: DecisionLog = dlog) -> tuple[float, int]:
            now = datetime.now(UTC)
            batches = [
                [
                    _Pending(f"d-{next(counter)}", "bench-agent-01", "files.read", CONTEXT, verdict, 80, now, "", "")
                    for _ in range(500)
                ]
                for _ in range(per_round // 500)
            ]
            t = time.thread_time()
            for batch in batches:
                dlog._write(batch)
            return time.thread_time() - t, 500 * len(batches)

        out[mode] = run
    return out


# ---- metrics -----------------------------------------------------------------------------------


def metrics_variants(n: int) -> dict[str, Callable[[], tuple[float, int]]]:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from server.telemetry.metrics import LATENCY_BUCKETS, Metrics

    provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    meter = provider.get_meter("bench")
    on, off = Metrics(meter), Metrics()
    hist = meter.create_histogram("bench.h", "s", explicit_bucket_boundaries_advisory=LATENCY_BUCKETS)
    counter = meter.create_counter("bench.c")
    attrs = {"outcome": "allowed"}
    return {
        "`Metrics.decision`, metrics off": timed(lambda: off.decision("allowed", "analysts", 0.0004), n),
        "`Metrics.decision`, metrics on": timed(lambda: on.decision("allowed", "analysts", 0.0004), n),
        "OTel histogram `record` with one attribute": timed(lambda: hist.record(0.0004, attrs), n),
        "OTel histogram `record` without attributes": timed(lambda: hist.record(0.0004), n),
        "OTel counter `add` with one attribute": timed(lambda: counter.add(1, attrs), n),
    }


# ---- conversions -------------------------------------------------------------------------------


def conversion_variants(n: int) -> dict[str, Callable[[], tuple[float, int]]]:
    ctx = struct_pb2.Struct()
    ctx.update(CONTEXT)
    request = pb.CheckActionRequest(agent_id="bench-agent-01", action="files.read", context=ctx)
    request = pb.CheckActionRequest.FromString(request.SerializeToString())  # as the server holds it
    limits = convert.DEFAULT_LIMITS

    def response() -> Any:
        return pb.CheckActionResponse(
            allowed=True,
            reason="allowed",
            severity=1,  # type: ignore[arg-type]
            guardrail="analysts",
            decision_id="0123456789abcdef0123456789abcdef",
            warnings=convert.warnings_to_pb(()),
            approval=None,
            effective_context=request.context,
            permit_id="",
        ).SerializeToString()

    def wkt(value: Any) -> Any:
        # protobuf's well-known-type accessors (`Struct.items()`, iterating a `ListValue`) give scalars as
        # Python values and nested ones as messages: a walk is still needed, it only moves the `kind` switch.
        if isinstance(value, struct_pb2.Struct):
            return {k: wkt(v) for k, v in value.items()}
        if isinstance(value, struct_pb2.ListValue):
            return [wkt(v) for v in value]
        return value

    walked = convert.struct_to_dict(request.context, "context", limits)
    # Every option must give the same values (JSON numbers are floats in a Struct).
    assert wkt(request.context) == walked == json_format.MessageToDict(request.context), "conversions disagree"
    return {
        "context: `struct_to_dict` (hand-written walk, validating)": timed(
            lambda: convert.struct_to_dict(request.context, "context", limits), n
        ),
        "context: `json_format.MessageToDict` (no validation)": timed(
            lambda: json_format.MessageToDict(request.context), n
        ),
        "context: well-known-type accessors (`Struct.items()`, no validation)": timed(lambda: wkt(request.context), n),
        "response: build and serialize": timed(response, n),
    }


# ---- conditions -------------------------------------------------------------------------------

# The yardstick: 5 comparisons over a 10-key context (a Struct's numbers arrive as doubles).
CONDITION = (
    'action == "payments.refund" && context.amount > 1000 && context.currency == "EUR" '
    '&& size(context.recipients) <= 50 && agent.group != "finance"'
)
CONDITION_CONTEXT: dict[str, Any] = {
    "amount": 5000.0,
    "currency": "EUR",
    "recipients": ["a@example.com", "b@example.com"],
    "order": "ord-1234",
    "customer": "cust-42",
    "reason": "damaged",
    "channel": "email",
    "priority": 2.0,
    "refundable": True,
    "note": "customer called twice",
}


def condition_variants(n: int) -> dict[str, Callable[[], tuple[float, int]]]:
    rule = build_guardrail(GuardrailSpec("refunds", "rule", {"effect": "deny", "when": CONDITION}), _no_plugins)
    glob = build_guardrail(
        GuardrailSpec("g", "rule", {"effect": "deny", "when": 'glob(action, "payments.*")'}), _no_plugins
    )
    now = datetime.now(UTC)

    def fresh() -> ActionCall:
        return ActionCall("bench-agent-01", "payments.refund", CONDITION_CONTEXT, group="support", time=now)

    shared = fresh()
    assert gate(rule, shared) is None and gate(glob, shared) is None, "the bench condition must hold"
    results = scope_of(shared).results  # a condition's result is kept per call: forget it to evaluate again

    def again(g: Any) -> Any:
        results.clear()
        return gate(g, shared)

    return {
        "condition per call: the call's CEL scope built + 5 comparisons": timed(lambda: gate(rule, fresh()), n),
        "condition, scope already built (another condition on the same call)": timed(lambda: again(rule), n),
        "condition `glob(action, ...)` (a Python helper), scope built": timed(lambda: again(glob), n),
    }


def _no_plugins(path: str) -> Any:
    raise AssertionError("no plugin in the bench")


# ---- report ------------------------------------------------------------------------------------


def table(title: str, best: dict[str, float], base: str | None = None) -> list[str]:
    lines = [f"| {title} | µs per unit | |", "|---|---:|---:|"]
    for name, s in best.items():
        rel = f"{s / best[base]:.2f}x" if base and best[base] > 0 else ""
        lines.append(f"| {name} | {s * 1e6:.2f} | {rel} |")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--out", type=Path, help="write the section into this Markdown page (e.g. docs/benchmarks.md)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--decisions", type=int, default=2000, help="decisions per writer round (multiple of 500)")
    p.add_argument("--calls", type=int, default=20_000, help="calls per round for metrics and conversions")
    args = p.parse_args()
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="outrider-inprocess-") as tmp:
        writer = best_of(args.rounds, writer_variants(Path(tmp), args.decisions))
    metrics = best_of(args.rounds, metrics_variants(args.calls))
    conversions = best_of(args.rounds, conversion_variants(args.calls))
    conditions = best_of(args.rounds, condition_variants(args.calls // 4))
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        f"Measured by `make bench` (`bench/inprocess.py`) on {now}; load average {load} at the start.",
        "Best of "
        f"{args.rounds} alternating rounds per variant; CPU time of the measuring thread. See the script's"
        " docstring for the method.",
        "",
        *table("decision log writer, per decision (row + audit)", writer, "per_decision"),
        "",
        *table("metrics, per call", metrics, "`Metrics.decision`, metrics off"),
        "",
        *table("conversions, per call", conversions),
        "",
        *table("conditions (`when:`, CEL), per evaluation", conditions),
    ]
    text = "\n".join(body)
    print(text)
    if args.out:
        replace_section(args.out, TITLE, text)


if __name__ == "__main__":
    main()
