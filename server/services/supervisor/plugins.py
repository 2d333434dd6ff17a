"""Loads plugin guardrail classes by import path: `package.module:Class` or `package.module.Class`."""

from __future__ import annotations

import importlib
from typing import Any


def load_plugin_class(path: str) -> Any:
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise ValueError(f"{path!r} is not an import path like 'my_pkg.guards:NoFridays'")
    module = importlib.import_module(module_name)
    obj = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj
