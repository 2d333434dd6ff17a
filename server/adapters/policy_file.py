"""The policy file (the config file's `guardrails:` section and the rest of the fleet's policy document,
server/domain/fleet/policy.py), re-read on SIGHUP and ReloadPolicy."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from server.config import ConfigError, read_yaml
from server.domain.errors import InvalidArgument
from server.domain.fleet.policy import PolicyDocument
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

    def line_of(self, field: str) -> int | None:
        """Where `field` is written in the file (for error messages); None when it cannot be told."""
        try:
            return _line_of(self._file.read_text(encoding="utf-8"), field)
        except (OSError, UnicodeDecodeError):
            return None

    def read_document(self) -> PolicyDocument:
        """The file's policy document, read once (the chain and the other sections from the same bytes)."""
        try:
            data = read_yaml(self._file)
        except ConfigError as exc:
            raise InvalidArgument(str(exc), field="policy") from exc
        raw = apply_chain_mode(data.get("guardrails") or [], data.get("chain"), self.path)
        document = policy_document(data, raw)
        try:
            return PolicyDocument(document, digest(document), raw, digest(raw))
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(f"{self.path}: the policy's values must be plain YAML data: {exc}") from exc


def _line_of(text: str, field: str) -> int | None:
    """The 1-based line where a dotted field (`recovery.policies[0].max_retries`) is written, if found."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = None
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", field):
        if isinstance(node, yaml.MappingNode):
            hit = next(((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part), None)
            if hit is None:
                break
            line, node = hit[0].start_mark.line + 1, hit[1]
        elif isinstance(node, yaml.SequenceNode) and part.startswith("["):
            index = int(part[1:-1])
            if index >= len(node.value):
                break
            node = node.value[index]
            line = node.start_mark.line + 1
        else:
            break
    return line


def policy_document(data: Mapping[str, Any], guardrails: Any) -> dict[str, Any]:
    """The sections of a config file that are the fleet's policy (server/domain/fleet/policy.py), in the
    shape `server.config.from_file` reads back. A record without a group gets `agents.default_group`, so
    two files that declare the same records the same way have the same digest."""
    document: dict[str, Any] = {"guardrails": guardrails}
    recovery = data.get("recovery")
    if isinstance(recovery, Mapping):
        part = {k: recovery[k] for k in ("policies", "cascade") if recovery.get(k) is not None}
        if part:
            document["recovery"] = part
    elif recovery is not None:
        document["recovery"] = recovery  # not a mapping: parsing it reports the error
    if data.get("reversibility") is not None:
        document["reversibility"] = data["reversibility"]
    agents = data.get("agents")
    if isinstance(agents, Mapping) and agents.get("records") is not None:
        records = agents["records"]
        group = agents.get("default_group")
        if isinstance(records, list) and isinstance(group, str) and group:
            records = [{**r, "group": r.get("group") or group} if isinstance(r, Mapping) else r for r in records]
        document["agents"] = {"records": records}
    elif agents is not None and not isinstance(agents, Mapping):
        document["agents"] = agents
    return document


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
