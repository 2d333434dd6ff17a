"""The policy file (the config file's `guardrails:` section), re-read on SIGHUP and ReloadPolicy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.config import ConfigError, read_yaml
from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ENFORCE, SHADOW
from server.domain.values import digest


class FilePolicySource:
    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self._file = path

    def read(self) -> tuple[Any, str]:
        try:
            data = read_yaml(self._file)
        except ConfigError as exc:
            raise InvalidArgument(str(exc), field="policy") from exc
        raw = apply_chain_mode(data.get("guardrails") or [], data.get("chain"), self.path)
        try:
            return raw, digest(raw)
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(f"{self.path}: guardrails: values must be plain YAML data: {exc}") from exc


def apply_chain_mode(raw: Any, chain: Any, path: str) -> Any:
    """`chain: {mode: shadow}` puts every guardrail in shadow mode: the same as `mode: shadow` on each entry,
    written into the entries so the stored chain (and every sidecar reading it) carries it, and so a change of
    mode changes the policy digest like any other edit (applied and audited as `policy.reload`)."""
    if chain is None:
        return raw
    if not isinstance(chain, dict) or set(chain) - {"mode"}:
        raise InvalidArgument(f"{path}: chain: must be a mapping with the one key `mode`", field="chain")
    mode = chain.get("mode", ENFORCE)
    if mode not in (ENFORCE, SHADOW):
        raise InvalidArgument(f"{path}: chain.mode: must be 'enforce' or 'shadow', got {mode!r}", field="chain.mode")
    if mode == ENFORCE or not isinstance(raw, list):
        return raw
    return [{**entry, "mode": SHADOW} if isinstance(entry, dict) else entry for entry in raw]
