"""Ed25519 for the audit checkpoints (the `cryptography` package): the keys derived from the audit key."""

from __future__ import annotations

import hmac
from datetime import datetime

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from server.domain.audit_checkpoints import Checkpoint, derive_keys, signed_bytes


class AuditKeys:
    """The chain key and the checkpoint signing key, both from the one audit key (the `AuditKeyring` port)."""

    def __init__(self, master: bytes) -> None:
        self.chain_key, seed = derive_keys(master)
        self._signing = Ed25519PrivateKey.from_private_bytes(seed)
        self.public_key = self._signing.public_key().public_bytes_raw().hex()

    def sign(self, seq: int, head: str, time: datetime) -> Checkpoint:
        signature = self._signing.sign(signed_bytes(seq, head, time, self.public_key)).hex()
        return Checkpoint(seq, head, time, self.public_key, signature)

    def signature_ok(self, cp: Checkpoint) -> bool:
        return signature_ok(cp, self.public_key)


def signature_ok(cp: Checkpoint, public_key: str) -> bool:
    """True when `cp` was signed by the holder of `public_key` (hex) and is unchanged."""
    if not hmac.compare_digest(cp.public_key, public_key):
        return False
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key))
        key.verify(bytes.fromhex(cp.signature), signed_bytes(cp.seq, cp.head, cp.time, cp.public_key))
    except (InvalidSignature, ValueError):
        return False
    return True
