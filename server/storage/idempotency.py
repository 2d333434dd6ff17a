"""SQL storage of remembered answers to mutating RPCs (migration 0012)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.services.idempotency import Remembered
from server.storage.supervisor.tables import IdempotencyRow


class SqlIdempotencyRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, key: str) -> Remembered | None:
        with Session(self.engine) as s:
            row = s.get(IdempotencyRow, key)
            return Remembered(row.request_digest, bytes(row.response)) if row else None

    def put(self, key: str, method: str, caller: str, remembered: Remembered, when: datetime) -> bool:
        try:
            with Session(self.engine) as s, s.begin():
                s.add(
                    IdempotencyRow(
                        key=key,
                        method=method[:160],
                        caller=caller[:160],
                        request_digest=remembered.request_digest,
                        response=remembered.response,
                        create_time=when,
                    )
                )
        except IntegrityError:
            return False
        return True

    def prune(self, older_than: datetime) -> int:
        with Session(self.engine) as s, s.begin():
            result = s.execute(delete(IdempotencyRow).where(col(IdempotencyRow.create_time) < older_than))
            return int(result.rowcount)  # type: ignore[attr-defined]
