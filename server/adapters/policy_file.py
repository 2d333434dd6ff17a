"""The policy file (the config file's `guardrails:` section), re-read on SIGHUP and ReloadPolicy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.config import ConfigError, read_yaml
from server.domain.errors import InvalidArgument
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
        raw = data.get("guardrails") or []
        try:
            return raw, digest(raw)
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(f"{self.path}: guardrails: values must be plain YAML data: {exc}") from exc
