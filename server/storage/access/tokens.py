"""SQL storage of API tokens (hashes only) and the change counter other processes poll."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import Engine, select
from sqlmodel import Session, col

from server.domain import pages as pagination
from server.domain.access.principals import PrincipalKind, Token
from server.domain.errors import InvalidArgument
from server.services.fleet.ports import ACCESS_TOPIC
from server.services.ports import Page
from server.storage.access.credential_tables import RevokedCertificateRow, TokenRow
from server.storage.columns import utc
from server.storage.fleet.changes import ChangeLog
from server.storage.rows import bump_counter
from server.storage.shared_tables import CounterRow

_COUNTER = "tokens"


def _token(row: TokenRow) -> Token:
    return Token(
        token_id=row.token_id,
        kind=PrincipalKind[row.kind.upper()],
        subject=row.subject,
        description=row.description,
        created_by=row.created_by,
        create_time=utc(row.create_time),
        revoke_time=utc(row.revoke_time) if row.revoke_time else None,
        admin=bool(row.admin),
    )


class SqlTokenRepository:
    def __init__(self, engine: Engine, changes: ChangeLog | None = None) -> None:
        self.engine = engine
        self.changes = changes  # an issued or revoked credential reaches the other sidecars at once

    def _announce(self, s: Session, key: str) -> None:
        if self.changes is not None:
            self.changes.bump(s.connection(), ACCESS_TOPIC, key)

    def insert(self, token: Token, secret_hash: str) -> None:
        with Session(self.engine) as s, s.begin():
            s.add(
                TokenRow(
                    token_id=token.token_id,
                    kind=token.kind.name.lower(),
                    subject=token.subject,
                    secret_hash=secret_hash,
                    description=token.description,
                    created_by=token.created_by,
                    create_time=token.create_time,
                    admin=token.admin,
                )
            )
            self._bump(s)
            self._announce(s, token.token_id)

    def revoke(self, token_id: str, when: datetime) -> Token | None:
        """Marks the token revoked; returns it as it was before (None when unknown)."""
        with Session(self.engine) as s, s.begin():
            row = s.get(TokenRow, token_id, with_for_update=True)
            if row is None:
                return None
            before = _token(row)
            if row.revoke_time is None:
                row.revoke_time = when
                s.add(row)
                self._bump(s)
                self._announce(s, token_id)
                # A retried RevokeToken gets this answer (not ALREADY_REVOKED). (Imported here: `tokens issue`
                # loads no table it does not use; tests/unit/test_cli_startup.py.)
                from server.storage.idempotency import remember_in_transaction

                remember_in_transaction(s.connection(), replace(before, revoke_time=when), "RevokeToken")
            return before

    def get(self, token_id: str) -> Token | None:
        with Session(self.engine) as s:
            row = s.get(TokenRow, token_id)
            return _token(row) if row else None

    def active(self) -> dict[str, Token]:
        """Every unrevoked token by secret hash."""
        with Session(self.engine) as s:
            rows = s.execute(select(TokenRow).where(col(TokenRow.revoke_time).is_(None))).scalars()
            return {r.secret_hash: _token(r) for r in rows}

    def revoke_certificate(self, fingerprint: str, reason: str, actor: str, when: datetime) -> bool:
        """False when it was revoked before. Bumps the counter every process polls."""
        with Session(self.engine) as s, s.begin():
            if s.get(RevokedCertificateRow, fingerprint) is not None:
                return False
            s.add(RevokedCertificateRow(fingerprint=fingerprint, reason=reason[:512], actor=actor, revoke_time=when))
            self._bump(s)
            self._announce(s, fingerprint)
            # A retried RevokeCertificate gets this answer (not ALREADY_REVOKED).
            from server.storage.idempotency import remember_in_transaction

            remember_in_transaction(s.connection(), (fingerprint, when), "RevokeCertificate")
            return True

    def revoked_certificates(self) -> set[str]:
        with Session(self.engine) as s:
            return set(s.execute(select(col(RevokedCertificateRow.fingerprint))).scalars())

    def version(self) -> int:
        with Session(self.engine) as s:
            row = s.get(CounterRow, _COUNTER)
            return row.value if row else 0

    def list(self, subject: str, include_revoked: bool, page_size: int, page_token: str) -> Page[Token]:
        size = pagination.page_size(page_size)
        after = pagination.decode(page_token)
        if after is not None and not (isinstance(after, list) and len(after) == 2):
            raise InvalidArgument("page_token is not a token this server issued", field="page_token")
        stmt = select(TokenRow).order_by(col(TokenRow.create_time).desc(), col(TokenRow.token_id).desc())
        if subject:
            stmt = stmt.where(col(TokenRow.subject) == subject)
        if not include_revoked:
            stmt = stmt.where(col(TokenRow.revoke_time).is_(None))
        if after:
            when, tid = datetime.fromisoformat(after[0]), after[1]
            stmt = stmt.where(
                (col(TokenRow.create_time) < when)
                | ((col(TokenRow.create_time) == when) & (col(TokenRow.token_id) < tid))
            )
        with Session(self.engine) as s:
            rows = list(s.execute(stmt.limit(size + 1)).scalars())
        more = len(rows) > size
        items = [_token(r) for r in rows[:size]]
        token = pagination.encode([rows[size - 1].create_time.isoformat(), rows[size - 1].token_id]) if more else ""
        return Page(items, token)

    @staticmethod
    def _bump(s: Session) -> None:
        bump_counter(s, _COUNTER)  # one statement: two first-ever bumps cannot collide
