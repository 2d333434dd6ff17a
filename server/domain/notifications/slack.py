"""Slack's request signatures (`v0`) and the replay guard of the interactions endpoint.

Slack signs each request it sends with the app's signing secret: `X-Slack-Signature: v0=<hex>` where the
hex is HMAC-SHA256 over `v0:{X-Slack-Request-Timestamp}:{raw body}`. A request is accepted when its
timestamp is within five minutes of our clock, one configured secret gives the same signature (compared in
constant time), and that signature was not accepted before (a recorded request sent again).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from collections import OrderedDict
from collections.abc import Sequence

VERSION = "v0"
TOLERANCE = 300  # seconds between Slack's timestamp and our clock
MAX_BODY = 64 << 10  # an interaction payload is a few kilobytes


class Refusal(enum.StrEnum):
    UNSIGNED = "unsigned"  # a header is missing
    STALE = "stale_timestamp"
    BAD_SIGNATURE = "bad_signature"
    REPLAY = "replay"


def sign(secret: str, timestamp: int | str, body: bytes) -> str:
    base = f"{VERSION}:{timestamp}:".encode() + body
    return f"{VERSION}=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def verify(
    secrets: Sequence[str], timestamp: str, signature: str, body: bytes, now: float, tolerance: int = TOLERANCE
) -> int | Refusal:
    """The index of the secret that signed the request, or why it is refused. Every secret is tried (no
    early exit), so the time taken does not tell which of several channels came closest."""
    if not timestamp or not signature:
        return Refusal.UNSIGNED
    if not timestamp.isdigit() or abs(now - int(timestamp)) > tolerance:
        return Refusal.STALE
    found: int | Refusal = Refusal.BAD_SIGNATURE
    for i, secret in enumerate(secrets):
        if hmac.compare_digest(sign(secret, timestamp, body).encode(), signature.encode()) and not isinstance(
            found, int
        ):
            found = i
    return found


class ReplayGuard:
    """Signatures accepted within the tolerance window; a second request with one of them is a replay (an
    older one is already refused as stale). Bounded: past `max_entries`, the oldest are forgotten first,
    and those are the first to be stale anyway."""

    def __init__(self, window: float = TOLERANCE, max_entries: int = 100_000) -> None:
        self.window, self.max_entries = window, max_entries
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, signature: str, now: float) -> bool:
        """True (and remembered) when `signature` was not accepted in the window before `now`."""
        while self._seen:
            oldest, when = next(iter(self._seen.items()))
            if now - when <= 2 * self.window and len(self._seen) < self.max_entries:
                break
            del self._seen[oldest]
        if signature in self._seen:
            return False
        self._seen[signature] = now
        return True
