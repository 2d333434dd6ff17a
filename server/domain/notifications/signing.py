"""Webhook signatures as Standard Webhooks specifies them (the scheme Stripe's resembles).

Headers `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64>`, where the
signature is HMAC-SHA256 over `{id}.{timestamp}.{body}`. A secret written `whsec_<base64>` is the
base64-decoded key, as Standard Webhooks libraries expect; any other secret is used as its UTF-8 bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping

SECRET_PREFIX = "whsec_"
TOLERANCE = 300  # seconds a receiver should accept between the timestamp and its clock


def key_of(secret: str) -> bytes:
    if secret.startswith(SECRET_PREFIX):
        try:
            return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
        except binascii.Error as exc:
            raise ValueError("a whsec_ secret must be base64 after the prefix") from exc
    return secret.encode()


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(key_of(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secret: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, msg_id, timestamp, body),
    }


def verify(secret: str, got: Mapping[str, str], body: bytes, now: int, tolerance: int = TOLERANCE) -> bool:
    """What a receiver checks: a fresh timestamp and one matching `v1,` signature (constant time)."""
    lowered = {k.lower(): v for k, v in got.items()}
    msg_id, stamp = lowered.get("webhook-id", ""), lowered.get("webhook-timestamp", "")
    if not msg_id or not stamp.isdigit() or abs(now - int(stamp)) > tolerance:
        return False
    expected = sign(secret, msg_id, int(stamp), body)
    return any(hmac.compare_digest(expected, s) for s in lowered.get("webhook-signature", "").split())
