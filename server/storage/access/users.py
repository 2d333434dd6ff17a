"""SQL storage of console reviewers (argon2 hashes only), their sessions and the shared settings."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Engine, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from server.domain.access.users import Role, User
from server.domain.errors import AlreadyExists
from server.storage.access.tables import ConsoleSessionRow, SettingRow, UserRow
from server.storage.supervisor.repository import utc


def _user(row: UserRow) -> User:
    return User(
        name=row.name,
        role=Role(row.role),
        groups=tuple(row.groups),
        create_time=utc(row.create_time),
        disabled=row.disabled,
    )


class SqlUserRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def insert(self, user: User, password_hash: str) -> None:
        try:
            with Session(self.engine) as s, s.begin():
                s.add(
                    UserRow(
                        name=user.name,
                        role=user.role.value,
                        groups=list(user.groups),
                        password_hash=password_hash,
                        create_time=user.create_time,
                        disabled=user.disabled,
                    )
                )
        except IntegrityError as exc:
            raise AlreadyExists(f"a user named {user.name!r} already exists", field="name") from exc

    def get(self, name: str) -> tuple[User, str] | None:
        """The user and their password hash."""
        with Session(self.engine) as s:
            row = s.get(UserRow, name)
            return (_user(row), row.password_hash) if row else None

    def list(self) -> list[User]:
        with Session(self.engine) as s:
            return [_user(r) for r in s.execute(select(UserRow).order_by(col(UserRow.name))).scalars()]

    def update(
        self,
        name: str,
        *,
        role: Role | None = None,
        disabled: bool | None = None,
        password_hash: str | None = None,
    ) -> tuple[User, User] | None:
        """Change the given fields in one transaction; returns (before, after), None when unknown."""
        with Session(self.engine) as s, s.begin():
            row = s.get(UserRow, name, with_for_update=True)
            if row is None:
                return None
            before = _user(row)
            if role is not None:
                row.role = role.value
            if disabled is not None:
                row.disabled = disabled
            if password_hash is not None:
                row.password_hash = password_hash
            s.add(row)
            s.flush()
            return before, _user(row)


class SqlSettingsRepository:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get_or_create(self, key: str, make: Callable[[], str]) -> str:
        """The stored value; the first process to ask stores `make()` (a concurrent creator loses and reads)."""
        with Session(self.engine) as s:
            row = s.get(SettingRow, key)
            if row is not None:
                return row.value
        try:
            with Session(self.engine) as s, s.begin():
                s.add(SettingRow(key=key, value=make()))
        except IntegrityError:
            pass
        with Session(self.engine) as s:
            row = s.get(SettingRow, key)
            assert row is not None
            return row.value


class SqlSessionRepository:
    """Console sessions by the SHA-256 of their id (storage of the `SessionRepository` port)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def insert(self, id_hash: str, user: str, create_time: datetime, expire_time: datetime, client: str) -> None:
        with Session(self.engine) as s, s.begin():
            s.add(
                ConsoleSessionRow(
                    id_hash=id_hash,
                    user_name=user,
                    create_time=create_time,
                    expire_time=expire_time,
                    client=client[:64],
                )
            )

    def get(self, id_hash: str) -> tuple[str, datetime] | None:
        """(user name, expire time) of a live row."""
        with Session(self.engine) as s:
            row = s.get(ConsoleSessionRow, id_hash)
            return (row.user_name, utc(row.expire_time)) if row else None

    def delete(self, id_hash: str) -> bool:
        with Session(self.engine) as s, s.begin():
            result = s.execute(delete(ConsoleSessionRow).where(col(ConsoleSessionRow.id_hash) == id_hash))
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def delete_user(self, user: str) -> int:
        with Session(self.engine) as s, s.begin():
            result = s.execute(delete(ConsoleSessionRow).where(col(ConsoleSessionRow.user_name) == user))
            return int(result.rowcount)  # type: ignore[attr-defined]

    def count_user(self, user: str, now: datetime) -> int:
        stmt = (
            select(func.count())
            .select_from(ConsoleSessionRow)
            .where(col(ConsoleSessionRow.user_name) == user, col(ConsoleSessionRow.expire_time) > now)
        )
        with Session(self.engine) as s:
            return int(s.execute(stmt).scalar_one())

    def purge_expired(self, now: datetime) -> int:
        with Session(self.engine) as s, s.begin():
            result = s.execute(delete(ConsoleSessionRow).where(col(ConsoleSessionRow.expire_time) <= now))
            return int(result.rowcount)  # type: ignore[attr-defined]
