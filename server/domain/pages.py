"""Page sizes and opaque page tokens (base64 of a JSON cursor, so clients cannot depend on their shape): the one
encoding every list RPC uses, whether storage or memory serves the page."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from server.domain.errors import InvalidArgument

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def page_size(requested: int) -> int:
    if requested < 0:
        raise InvalidArgument("page_size must not be negative", field="page_size")
    return min(requested or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def encode(cursor: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(cursor).encode()).decode().rstrip("=")


def decode(token: str) -> Any:
    if not token:
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise InvalidArgument("page_token is not a token this server issued", field="page_token") from exc
