"""`plugin`: a team's own guardrail class, named by import path, run under a time limit.

The class has a `name` and `check(agent_id, action, context)`; it may return a GuardrailResult,
anything with `allowed`/`reason`/`severity` attributes, True/None (allow) or False (block).
Loading the class is the caller's business (it is I/O, and the host decides which modules may be loaded);
this module checks that what was loaded is such a class *before* calling anything of it, then adapts it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import (
    COMMON_OPTIONS,
    ActionCall,
    Guardrail,
    GuardrailResult,
    GuardrailSpec,
    Severity,
)
from server.domain.guardrails.options import Options
from server.domain.values import parse_duration

PluginLoader = Callable[[str], Any]

_SEVERITY_NAMES = {s.name: s for s in Severity}


def coerce_result(raw: Any, name: str) -> GuardrailResult:
    if isinstance(raw, GuardrailResult):
        return raw
    if raw is None or raw is True:
        return GuardrailResult.allow()
    if raw is False:
        return GuardrailResult.blocked(f"Blocked by plugin {name}")
    if hasattr(raw, "allowed"):
        allowed = bool(raw.allowed)
        reason = str(getattr(raw, "reason", "") or "")
        severity = getattr(raw, "severity", None)
        sev_name = getattr(severity, "name", severity)
        sev = _SEVERITY_NAMES.get(str(sev_name).upper()) if sev_name is not None else None
        if sev is None:
            sev = Severity.INFO if allowed else Severity.BLOCK
        if not allowed:
            sev = Severity.BLOCK
        return GuardrailResult(allowed, reason, sev)
    raise TypeError(f"plugin returned {type(raw).__name__}, expected a GuardrailResult or a bool")


CHECK_PARAMS = ("agent_id", "action", "context")


def check_plugin_class(obj: Any, path: str) -> None:
    """InvalidArgument unless `obj` is a plain class defining `check(agent_id, action, context)` as a Python
    function. Only looks (no call, no instantiation), so a refused object never runs: `subprocess:Popen`,
    `os:system`, `builtins:eval` and a module's functions or instances all fail here."""
    if not inspect.isclass(obj) or issubclass(obj, BaseException | type):
        raise InvalidArgument(f"{path!r} is not a guardrail class (it is a {type(obj).__name__})", field="class")
    check = inspect.getattr_static(obj, "check", None)
    if isinstance(check, staticmethod | classmethod):
        check = check.__func__
    if not inspect.isfunction(check):
        raise InvalidArgument(f"{path!r} has no check() method", field="class")
    try:
        inspect.signature(check).bind(None, *CHECK_PARAMS)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{path!r}: check() must take (agent_id, action, context): {exc}", field="class") from exc


class Plugin(Guardrail):
    kind = "plugin"
    needs_isolation = True

    def __init__(self, spec: GuardrailSpec, load: PluginLoader) -> None:
        super().__init__(spec)
        extra = {k for k in spec.options if k not in ("class", "timeout", *COMMON_OPTIONS)}
        opts = Options(spec, allowed={"class", "timeout", *extra})
        self.class_path = opts.string("class", default="")
        self.timeout = parse_duration(opts.get("timeout", 1.0), opts.where("timeout"))
        kwargs = {k: spec.options[k] for k in sorted(extra)}
        try:
            cls = load(self.class_path)
            check_plugin_class(cls, self.class_path)  # before anything of it runs
            self.instance = cls(**kwargs)
        except InvalidArgument as exc:
            raise InvalidArgument(
                f"{opts.where('class')}: {exc.message}", reason=exc.reason, field=exc.field or "class"
            ) from exc
        except Exception as exc:
            raise InvalidArgument(
                f"{opts.where('class')}: cannot load {self.class_path!r}: {type(exc).__name__}: {exc}",
                field="class",
            ) from exc

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        raw = self.instance.check(call.agent_id, call.action, dict(call.context))
        return coerce_result(raw, self.name)
