"""Reversibility assessment (the Agent Governance Toolkit, section 8): how far an action can be undone, and how.

A built-in map covers the common actions; the policy file's `reversibility:` list extends it and
overrides it (its rules match first, by exact name or glob). An action in neither is UNKNOWN. IRREVERSIBLE
and UNKNOWN actions require extra approval. Compensating-action parameters are templates: a string value
`"{name}"` is replaced by the assessed action's parameter `name` (and left out when it has none).
"""

from __future__ import annotations

import enum
import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.values import parse_duration

MAX_ACTION = 1024


class Level(enum.IntEnum):
    # Values match outrider.v1.ReversibilityLevel.
    FULLY_REVERSIBLE = 1
    PARTIALLY_REVERSIBLE = 2
    IRREVERSIBLE = 3
    UNKNOWN = 4


class Effectiveness(enum.IntEnum):
    # Values match outrider.v1.CompensationEffectiveness.
    FULL = 1
    PARTIAL = 2
    MITIGATION_ONLY = 3


@dataclass(frozen=True, slots=True)
class CompensatingAction:
    description: str
    action: str
    effectiveness: Effectiveness
    parameters: Mapping[str, Any] = field(default_factory=dict)
    time_window: float | None = None  # seconds; None when not bounded by a fixed time


@dataclass(frozen=True, slots=True)
class Rule:
    action: str  # a name or a glob
    level: Level
    reason: str
    compensating: tuple[CompensatingAction, ...] = ()
    extra_approval: bool = False  # asked for explicitly (IRREVERSIBLE and UNKNOWN always require it)
    source: str = "builtin"

    @property
    def requires_extra_approval(self) -> bool:
        return self.extra_approval or self.level in (Level.IRREVERSIBLE, Level.UNKNOWN)


@dataclass(frozen=True, slots=True)
class Assessment:
    action: str
    level: Level
    reason: str
    compensating: tuple[CompensatingAction, ...]
    requires_extra_approval: bool
    assess_time: datetime
    source: str  # "builtin", "policy", or "" for UNKNOWN


def _c(
    description: str, action: str, effectiveness: Effectiveness, window: float | None = None, **params: str
) -> CompensatingAction:
    return CompensatingAction(description, action, effectiveness, params, window)


_F, _P, _M = Effectiveness.FULL, Effectiveness.PARTIAL, Effectiveness.MITIGATION_ONLY

BUILTIN: tuple[Rule, ...] = (
    Rule(
        "write_file",
        Level.FULLY_REVERSIBLE,
        "File writes can be reverted by restoring the previous version",
        (_c("Restore the previous file version", "restore_file_backup", _F, path="{path}"),),
    ),
    Rule(
        "create_file",
        Level.FULLY_REVERSIBLE,
        "A created file can be deleted again",
        (_c("Delete the created file", "delete_file", _F, path="{path}"),),
    ),
    # IRREVERSIBLE with extra approval, as the Agent Governance Toolkit's reference implementation rates
    # it: the sidecar cannot know that a backup or trash copy exists, and "partially reversible" made an
    # agent's retry-and-compensate path look safe where the data may simply be gone. A fleet whose files
    # are versioned overrides it in the policy file's `reversibility:` list. The restore stays listed as
    # a mitigation for when a copy does exist.
    Rule(
        "delete_file",
        Level.IRREVERSIBLE,
        "A deleted file is gone unless a backup or trash copy exists, and changes since that copy are lost",
        (_c("Restore the file from a backup or trash copy, if one exists", "restore_file_backup", _M, path="{path}"),),
        extra_approval=True,
    ),
    Rule(
        "database_write",
        Level.FULLY_REVERSIBLE,
        "Database writes can be rolled back within the transaction",
        (_c("Roll back the transaction (within transaction scope)", "rollback_transaction", _F),),
    ),
    Rule(
        "drop_table",
        Level.IRREVERSIBLE,
        "Dropping a table destroys its data; only a backup gives back an earlier copy",
        (_c("Restore the table from the latest backup", "restore_table_backup", _M, table="{table}"),),
    ),
    Rule(
        "send_email",
        Level.PARTIALLY_REVERSIBLE,
        "A sent email can only be recalled briefly, where the mail system supports it",
        (
            _c("Recall the message", "recall_email", _P, 30.0, message_id="{message_id}"),
            _c("Send a correction to the recipients", "send_correction_email", _M, to="{to}"),
        ),
    ),
    Rule(
        "send_email_external",
        Level.IRREVERSIBLE,
        "Mail to outside recipients cannot be recalled",
        (_c("Send a correction to the recipients", "send_correction_email", _M, to="{to}"),),
    ),
    Rule(
        "deploy",
        Level.IRREVERSIBLE,
        "A deployment serves traffic at once; rolling back does not undo what the release did meanwhile",
        (
            _c(
                "Roll back to the previous release",
                "rollback_deployment",
                _M,
                service="{service}",
                version="{previous_version}",
            ),
        ),
    ),
    Rule(
        "deploy_production",
        Level.IRREVERSIBLE,
        "A production deployment serves users at once; rolling back does not undo what it did meanwhile",
        (_c("Roll back to the previous release", "rollback_deployment", _M, service="{service}"),),
    ),
    Rule(
        "execute_code",
        Level.IRREVERSIBLE,
        "Arbitrary code may have any side effect; none can be assumed undoable",
    ),
)

_TEMPLATE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_.-]*)\}$")


def _fill(template: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in template.items():
        m = _TEMPLATE.match(value) if isinstance(value, str) else None
        if m is None:
            out[key] = value
        elif m.group(1) in params:
            out[key] = params[m.group(1)]
    return out


def validate_action(action: str) -> str:
    if not action:
        raise InvalidArgument("action is required", field="action")
    if len(action) > MAX_ACTION:
        raise InvalidArgument(f"action must be at most {MAX_ACTION} characters", field="action")
    return action


def match(action: str, policy: Sequence[Rule]) -> Rule | None:
    """The first policy rule matching (exact name or glob), else the built-in of that name."""
    for rule in policy:
        if rule.action == action or fnmatch.fnmatchcase(action, rule.action):
            return rule
    for rule in BUILTIN:
        if rule.action == action:
            return rule
    return None


def assess(action: str, parameters: Mapping[str, Any], policy: Sequence[Rule], now: datetime) -> Assessment:
    rule = match(validate_action(action), policy)
    if rule is None:
        return Assessment(
            action,
            Level.UNKNOWN,
            f"{action!r} is not in the reversibility map; treat it as irreversible until assessed",
            (),
            True,
            now,
            "",
        )
    compensating = tuple(
        CompensatingAction(c.description, c.action, c.effectiveness, _fill(c.parameters, parameters), c.time_window)
        for c in rule.compensating
    )
    return Assessment(action, rule.level, rule.reason, compensating, rule.requires_extra_approval, now, rule.source)


def rules_in_effect(policy: Sequence[Rule]) -> list[Rule]:
    """Policy rules, then the built-ins no policy rule of the same name replaces; each group by action."""
    named = {r.action for r in policy}
    return sorted(policy, key=lambda r: r.action) + sorted(
        (r for r in BUILTIN if r.action not in named), key=lambda r: r.action
    )


# ---- the policy file's `reversibility:` list ------------------------------------------------------

_LEVELS = {lv.name.lower(): lv for lv in Level if lv is not Level.UNKNOWN}
_EFFECT = {"full": _F, "partial": _P, "mitigation-only": _M, "mitigation_only": _M}


def parse_rules(raw: Any, where: str = "reversibility") -> tuple[Rule, ...]:
    """`[{action, level, reason, requires_extra_approval, compensating: [{description, action, parameters,
    effectiveness, time_window}]}]`; errors name the entry and the key."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidArgument(f"{where}: must be a list of rules", field=where)
    return tuple(_rule(entry, f"{where}[{i}]") for i, entry in enumerate(raw))


def _known(entry: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(entry) - known)
    if unknown:
        raise InvalidArgument(
            f"{where}.{unknown[0]}: unknown key; known keys: {', '.join(sorted(known))}", field=f"{where}.{unknown[0]}"
        )


def _text(entry: Mapping[str, Any], key: str, where: str, required: bool) -> str:
    value = entry.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{where}.{key}: must be a non-empty string, got {value!r}", field=f"{where}.{key}")
    return value


def _rule(entry: Any, where: str) -> Rule:
    if not isinstance(entry, Mapping):
        raise InvalidArgument(f"{where}: must be a mapping with action and level", field=where)
    _known(entry, {"action", "level", "reason", "requires_extra_approval", "compensating"}, where)
    action = _text(entry, "action", where, True)
    level_text = _text(entry, "level", where, True).lower()
    if level_text not in _LEVELS:
        raise InvalidArgument(
            f"{where}.level: must be one of {', '.join(_LEVELS)}, got {entry['level']!r}", field=f"{where}.level"
        )
    approval = entry.get("requires_extra_approval", False)
    if not isinstance(approval, bool):
        raise InvalidArgument(
            f"{where}.requires_extra_approval: must be true or false", field=f"{where}.requires_extra_approval"
        )
    comp = entry.get("compensating") or []
    if not isinstance(comp, list):
        raise InvalidArgument(f"{where}.compensating: must be a list", field=f"{where}.compensating")
    return Rule(
        action,
        _LEVELS[level_text],
        _text(entry, "reason", where, False),
        tuple(_compensating(c, f"{where}.compensating[{j}]") for j, c in enumerate(comp)),
        approval,
        "policy",
    )


def _compensating(entry: Any, where: str) -> CompensatingAction:
    if not isinstance(entry, Mapping):
        raise InvalidArgument(f"{where}: must be a mapping with description and action", field=where)
    _known(entry, {"description", "action", "parameters", "effectiveness", "time_window"}, where)
    effect = str(entry.get("effectiveness", "full")).lower()
    if effect not in _EFFECT:
        raise InvalidArgument(
            f"{where}.effectiveness: must be full, partial or mitigation-only, got {entry.get('effectiveness')!r}",
            field=f"{where}.effectiveness",
        )
    params = entry.get("parameters") or {}
    if not isinstance(params, Mapping):
        raise InvalidArgument(f"{where}.parameters: must be a mapping", field=f"{where}.parameters")
    window = entry.get("time_window")
    return CompensatingAction(
        _text(entry, "description", where, True),
        _text(entry, "action", where, True),
        _EFFECT[effect],
        dict(params),
        None if window is None else parse_duration(window, f"{where}.time_window"),
    )
