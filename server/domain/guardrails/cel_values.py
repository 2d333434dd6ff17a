"""The call's values as native conditions (cel_native.py) read them: the ones CEL is given (conditions.Scope.variables),
each checked to be a value the native path reads exactly as cel-expr-python converts it, else Fallback.
"""

from __future__ import annotations

import re
from typing import Any

from server.domain.guardrails.cel_native import Fallback

_SURROGATE = re.compile("[\ud800-\udfff]")  # not UTF-8: cel-expr-python cannot take such a string
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def plain(value: Any) -> bool:
    """Is it a value the native path reads exactly as cel-expr-python converts it? None, bool, str, an int64, float,
    and lists and string-keyed dicts of them. Anything else (bytes, a tuple, an int beyond int64, which
    cel-expr-python makes a uint or refuses, a non-string key, a string that is not UTF-8) is left to cel-cpp."""
    try:
        return _plain(value)
    except RecursionError:
        return False


def _plain(value: Any) -> bool:
    t = type(value)
    if t is str:
        return bool(value.isascii()) or _SURROGATE.search(value) is None
    if t is float or t is bool or value is None:
        return True
    if t is int:
        return bool(_INT64_MIN <= value <= _INT64_MAX)
    if t is dict:
        for k, x in value.items():
            if type(k) is not str or not (k.isascii() or _SURROGATE.search(k) is None):
                return False
            tx = type(x)
            if not (tx is float or tx is bool or (tx is str and x.isascii()) or _plain(x)):
                return False
        return True
    if t is list:
        for x in value:
            tx = type(x)
            if not (tx is float or tx is bool or (tx is str and x.isascii()) or _plain(x)):
                return False
        return True
    return False


class Values:
    """A call's values as native conditions read them (the ones CEL is given, conditions.Scope.variables), checked
    `plain` once per call for the variables and context keys some conditions read (`ready`)."""

    __slots__ = ("_agent", "_checked", "_fields", "action", "context")

    def __init__(
        self,
        action: str,
        agent_fields: tuple[str, str | None, Any, Any],
        context: Any,
    ) -> None:
        self.action = action
        self._fields = agent_fields
        self._agent: dict[str, Any] | None = None
        self.context = context if type(context) is dict else dict(context)
        self._checked: dict[Any, bool] = {}  # by the Needs of a condition: may it be answered natively?

    @property
    def agent(self) -> dict[str, Any]:
        if self._agent is None:
            agent_id, group, labels, capabilities = self._fields
            self._agent = {
                "id": agent_id,
                "group": group or "",
                "labels": dict(labels),
                "capabilities": list(capabilities),
            }
        return self._agent

    def ready(self, needs: Any) -> Values:
        """These values, if every one that CEL would be given for `needs` (conditions.Needs) is plain; else
        Fallback (CEL may refuse it, or read it otherwise)."""
        ok = self._checked.get(needs)
        if ok is None:
            try:
                ok = self._check(needs.names, needs.context_keys)
            except Exception:  # labels that are no mapping, say: CEL reports it
                ok = False
            self._checked[needs] = ok
        if not ok:
            raise Fallback
        return self

    def _check(self, names: frozenset[str], context_keys: frozenset[str] | None) -> bool:
        if "action" in names and not plain(self.action):
            return False
        if "agent" in names and not plain(self.agent):
            return False
        if "context" in names:
            context = self.context
            if context_keys is None:
                return plain(context)
            for key in context_keys:  # identifiers, as Needs read them from the text
                if key in context and not plain(context[key]):
                    return False
        return True
