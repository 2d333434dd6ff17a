"""Credentials: issue, revoke, list, and authenticate API tokens without storage I/O on each call.

Valid tokens are mirrored in memory by secret hash. A revoke through this process updates the mirror
before it answers; a revoke by another process (the CLI, another sidecar) bumps a counter and announces
itself on the change feed (`access` topic), which runs `refresh()` at once (~100 ms); `refresh()` is
also polled several times a second, the fallback when notifications do not flow.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
from datetime import datetime

from server.domain.access.principals import TOKEN_PREFIX, PrincipalKind, Token, hash_secret
from server.domain.agents import validate_agent_id, validate_id
from server.domain.errors import FailedPrecondition, InvalidArgument, NotFound
from server.services.fleet.ports import ACCESS_TOPIC, ChangeFeed
from server.services.ports import AuditSink, Clock, Page, TokenRepository

log = logging.getLogger(__name__)

_FINGERPRINT = re.compile(r"^[0-9a-f]{64}$")


def normalize_fingerprint(value: str) -> str:
    """`AB:CD:...` or `abcd...` (SHA-256, 64 hex digits) -> 64 lowercase hex digits."""
    normal = value.strip().replace(":", "").lower()
    if normal.startswith("sha256="):
        normal = normal.removeprefix("sha256=")
    if not _FINGERPRINT.match(normal):
        raise InvalidArgument("fingerprint must be the SHA-256 of the certificate: 64 hex digits", field="fingerprint")
    return normal


class AccessService:
    def __init__(
        self, repo: TokenRepository, clock: Clock, audit: AuditSink, changes: ChangeFeed | None = None
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.audit = audit
        self._lock = threading.Lock()
        self._by_hash: dict[str, Token] = {}
        self._revoked_certificates: frozenset[str] = frozenset()
        self._version = -1
        # Moved after every change to the mirror (under the lock, once the change is in place): a holder of an
        # authenticated principal (a long stream) checks the credential again only when this moved.
        self.generation = 0
        if changes is not None:
            changes.subscribe(ACCESS_TOPIC, lambda _key: self.refresh(), self.refresh)

    def load(self) -> None:
        with self._lock:
            self._version = self.repo.version()
            self._by_hash = self.repo.active()
            self._revoked_certificates = frozenset(self.repo.revoked_certificates())
            self.generation += 1

    def refresh(self) -> None:
        """Pick up changes made by other processes (one tiny read when nothing changed)."""
        if self.repo.version() == self._version:
            return
        # Under the lock that issue() and revoke() hold: a change they make meanwhile is never overwritten
        # by an older read.
        with self._lock:
            self._version = self.repo.version()
            self._by_hash = self.repo.active()
            self._revoked_certificates = frozenset(self.repo.revoked_certificates())
            self.generation += 1

    def certificate_revoked(self, fingerprint: str) -> bool:
        return fingerprint in self._revoked_certificates

    def revoke_certificate(self, fingerprint: str, reason: str, actor: str) -> tuple[str, datetime]:
        """Refuse a client certificate from now on: at once in this process, within the refresh interval in
        every other process on the database."""
        normal = normalize_fingerprint(fingerprint)
        now = self.clock.utcnow()
        with self._lock:
            if not self.repo.revoke_certificate(normal, reason, actor, now):
                raise FailedPrecondition(f"certificate {normal} was already revoked", reason="ALREADY_REVOKED")
            self._revoked_certificates = self._revoked_certificates | {normal}
            self.generation += 1
        self.audit.record(actor, "certificate.revoke", normal, {"reason": reason})
        log.info("client certificate revoked", extra={"fingerprint": normal, "actor": actor})
        return normal, now

    def authenticate(self, secret: str) -> Token | None:
        if not secret.startswith(TOKEN_PREFIX):
            return None
        return self._by_hash.get(hash_secret(secret))

    def issue(
        self, kind: PrincipalKind, subject: str, description: str, actor: str, *, admin: bool = False
    ) -> tuple[str, Token]:
        """`admin` tokens (operators that may mint credentials) are issued on the host only: the gRPC
        adapter never passes it."""
        if kind not in (PrincipalKind.AGENT, PrincipalKind.OPERATOR):
            raise InvalidArgument("kind must be AGENT or OPERATOR", field="kind")
        if admin and kind is not PrincipalKind.OPERATOR:
            raise InvalidArgument("only an operator token can be an admin token", field="admin")
        if kind is PrincipalKind.AGENT:
            validate_agent_id(subject, "subject")
        validate_id(subject, "subject")
        if len(description) > 512:
            raise InvalidArgument("description must be at most 512 characters", field="description")
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = Token(
            token_id="tok_" + secrets.token_hex(6),
            kind=kind,
            subject=subject,
            description=description,
            created_by=actor,
            create_time=self.clock.utcnow(),
            admin=admin,
        )
        with self._lock:
            self.repo.insert(token, hash_secret(secret))
            self._by_hash[hash_secret(secret)] = token
            self.generation += 1
        self.audit.record(
            actor,
            "token.issue",
            token.token_id,
            {"kind": kind.name, "subject": subject, "description": description, "admin": admin},
        )
        log.info(
            "token issued",
            extra={"token_id": token.token_id, "principal": f"{kind.name.lower()}:{subject}", "actor": actor},
        )
        return secret, token

    def revoke(self, token_id: str, actor: str) -> Token:
        if not token_id:
            raise InvalidArgument("token_id is required", field="token_id")
        now = self.clock.utcnow()
        with self._lock:
            before = self.repo.revoke(token_id, now)
            if before is None:
                raise NotFound(f"no token has id {token_id!r}", field="token_id")
            if before.revoke_time is not None:
                raise FailedPrecondition(f"token {token_id!r} was already revoked", reason="ALREADY_REVOKED")
            # Refused from this instant on, before the answer goes out.
            self._by_hash = {h: t for h, t in self._by_hash.items() if t.token_id != token_id}
            self.generation += 1
        self.audit.record(actor, "token.revoke", token_id, {"subject": before.subject, "kind": before.kind.name})
        log.info("token revoked", extra={"token_id": token_id, "actor": actor})
        return Token(
            before.token_id,
            before.kind,
            before.subject,
            before.description,
            before.created_by,
            before.create_time,
            now,
            before.admin,
        )

    def list(self, subject: str, include_revoked: bool, page_size: int, page_token: str) -> Page[Token]:
        return self.repo.list(subject, include_revoked, page_size, page_token)
