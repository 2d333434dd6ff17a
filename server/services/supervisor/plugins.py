"""Loads plugin guardrail classes by import path, only from the modules the host allows.

The policy file's `plugins: {allowed_modules: [...]}` names the importable modules; an RPC or the console can
name a class, never a module. Nothing from the path runs before the module is known to be allowed, and the
attribute is read from the module's namespace (no `__getattr__` hook, no dotted walk into imported modules).
Then `check_plugin_class` (the domain rule) must accept it before `Plugin` instantiates it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from typing import Any

from server.domain.errors import InvalidArgument
from server.domain.guardrails.plugin import check_plugin_class

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
NOT_ALLOWED = "PLUGIN_NOT_ALLOWED"


def split_path(path: str) -> tuple[str, str]:
    """`pkg.module:Class` or `pkg.module.Class` as (module, attribute)."""
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not _DOTTED.match(module_name) or not attr.isidentifier():
        raise InvalidArgument(f"{path!r} is not an import path like 'my_pkg.guards:NoFridays'", field="class")
    return module_name, attr


def check_module_name(name: str) -> str:
    if not isinstance(name, str) or not _DOTTED.match(name):
        raise InvalidArgument(f"{name!r} is not a module name like my_company.guards")
    return name


class PluginModules:
    """The `PluginLoader` of the sidecar: a class from an allowed module, else INVALID_ARGUMENT."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(check_module_name(m) for m in allowed)

    def __call__(self, path: str) -> Any:
        module_name, attr = split_path(path)
        if module_name not in self.allowed:
            listed = ", ".join(sorted(self.allowed)) or "none"
            raise InvalidArgument(
                f"module {module_name!r} is not in the policy file's plugins.allowed_modules (allowed: {listed})",
                field="class",
                reason=NOT_ALLOWED,
            )
        module = importlib.import_module(module_name)
        obj = vars(module).get(attr)
        if obj is None:
            raise InvalidArgument(f"module {module_name!r} has no attribute {attr!r}", field="class")
        check_plugin_class(obj, path)
        return obj
