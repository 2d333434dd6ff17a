"""Console reviewers on SQLite and the real PostgreSQL: accounts, argon2 hashes, sign-in and its throttle
on a hand-moved clock, the shared session secret, and the `outrider users` commands."""

from __future__ import annotations

import argparse
import hashlib
import io
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from server.__main__ import main
from server.config import DEFAULT_SENSITIVE_KEYS
from server.domain.access.users import Role
from server.domain.errors import AlreadyExists, FailedPrecondition, NotFound, ResourceExhausted, Unauthenticated
from server.services.access.users import UserService
from server.services.audit import AuditTrail
from server.storage.access.users import SqlSessionRepository, SqlSettingsRepository, SqlUserRepository
from server.storage.audit import SqlAuditRepository
from server.storage.db import create_db_engine
from tests.fakes import FakeClock

PW = "correct horse battery"


def service(engine: Engine, clock: FakeClock) -> UserService:
    audit = AuditTrail(SqlAuditRepository(engine), clock, DEFAULT_SENSITIVE_KEYS)
    return UserService(
        SqlUserRepository(engine), SqlSettingsRepository(engine), clock, audit, sessions=SqlSessionRepository(engine)
    )


def test_accounts_store_only_an_argon2_hash(engine: Engine) -> None:
    users = service(engine, FakeClock())
    ada = users.add("ada", "admin", "ops,sre", PW, "cli:root")
    assert (ada.role, ada.groups, ada.disabled, ada.label) == (Role.ADMIN, ("ops", "sre"), False, "reviewer:ada")
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT password_hash FROM users WHERE name = 'ada'")).scalar_one()
    assert stored.startswith("$argon2id$") and PW not in stored
    with pytest.raises(AlreadyExists):
        users.add("ada", "viewer", "", PW, "cli:root")
    assert [u.name for u in users.list()] == ["ada"]
    records = [(r.actor, r.action, r.subject) for r in SqlAuditRepository(engine).iter_all()]
    assert records == [("cli:root", "user.add", "ada")]
    assert all(PW not in str(r.details) for r in SqlAuditRepository(engine).iter_all())


def test_sign_in_sessions_and_their_end(engine: Engine) -> None:
    clock = FakeClock()
    users = service(engine, clock)
    users.add("alice", Role.APPROVER, "", PW, "test")
    user, sid = users.login("alice", PW, "10.0.0.1")
    assert user.name == "alice" and users.session_user(sid) == user
    assert users.session_user("0" * 43) is None
    assert users.session_user("") is None and users.session_user("x" * 10_000) is None
    with pytest.raises(Unauthenticated, match="wrong username or password"):
        users.login("alice", "nope", "10.0.0.1")
    with pytest.raises(Unauthenticated, match="wrong username or password"):
        users.login("nobody", PW, "10.0.0.1")
    users.set_password("alice", "a different password", "test")
    assert users.session_user(sid) is None  # the old session is over
    _, sid = users.login("alice", "a different password", "10.0.0.1")
    users.end_session(sid)
    assert users.session_user(sid) is None  # signed out
    _, sid = users.login("alice", "a different password", "10.0.0.1")
    users.set_disabled("alice", True, "test")
    assert users.session_user(sid) is None
    users.set_disabled("alice", False, "test")
    assert users.session_user(sid) is None  # enabling again does not bring old sessions back
    with pytest.raises(NotFound):
        users.set_role("nobody", "admin", "test")


def test_sessions_expire_after_twelve_hours(engine: Engine) -> None:
    clock = FakeClock()
    users = service(engine, clock)
    users.add("alice", Role.APPROVER, "", PW, "test")
    _, sid = users.login("alice", PW, "10.0.0.1")
    clock.advance(12 * 3600 - 1)
    assert users.session_user(sid) is not None
    clock.advance(1)
    assert users.session_user(sid) is None
    assert users.session_count("alice") == 0


def test_the_database_keeps_only_a_hash_of_the_session_id(engine: Engine) -> None:
    users = service(engine, FakeClock())
    users.add("alice", Role.APPROVER, "", PW, "test")
    _, sid = users.login("alice", PW, "10.0.0.1")
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT id_hash, user_name FROM console_sessions").all()
    assert rows == [(hashlib.sha256(sid.encode()).hexdigest(), "alice")]


def test_a_flood_from_one_address_never_locks_out_other_addresses(engine: Engine) -> None:
    clock = FakeClock()
    users = service(engine, clock)
    users.add("alice", "approver", "", PW, "test")
    users.add("bob", "approver", "", PW, "test")
    for name in ("alice", "bob", "alice", "alice", "bob"):
        with pytest.raises(Unauthenticated):
            users.login(name, "guess", "203.0.113.66")
    for name in ("alice", "bob"):  # the flooding address is locked out, for every name
        with pytest.raises(ResourceExhausted):
            users.login(name, PW, "203.0.113.66")
    users.login("alice", PW, "10.0.0.7")  # ... and nobody else is
    users.login("bob", PW, "10.0.0.8")


def test_throttle_per_user_and_per_client_on_the_clock(engine: Engine) -> None:
    clock = FakeClock()
    users = service(engine, clock)
    users.add("alice", "approver", "", PW, "test")
    for i in range(5):
        with pytest.raises(Unauthenticated):
            users.login("alice", "guess", f"10.0.0.{i}")
    with pytest.raises(ResourceExhausted, match="try again in 60 s"):
        users.login("alice", PW, "10.0.1.1")
    clock.advance(59)
    with pytest.raises(ResourceExhausted, match="try again in 1 s"):
        users.login("Alice", PW, "10.0.1.1")  # names are throttled case-insensitively
    clock.advance(1)
    users.login("alice", PW, "10.0.1.1")
    # Successful sign-ins do not count against a shared address.
    for _ in range(8):
        users.login("alice", PW, "10.0.2.2")


def test_parallel_guesses_cannot_slip_past_the_limit(engine: Engine) -> None:
    users = service(engine, FakeClock())
    users.add("alice", "approver", "", PW, "test")
    outcomes: list[str] = []
    lock = threading.Lock()

    def guess() -> None:
        try:
            users.login("alice", "guess", "10.0.0.1")
        except ResourceExhausted:
            kind = "throttled"
        except Unauthenticated:
            kind = "refused"
        with lock:
            outcomes.append(kind)

    threads = [threading.Thread(target=guess) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes).count("refused") == 5 and len(outcomes) == 12


def test_the_last_admin_stays(engine: Engine) -> None:
    users = service(engine, FakeClock())
    users.add("ada", "admin", "", PW, "test")
    with pytest.raises(FailedPrecondition, match="last enabled admin"):
        users.set_disabled("ada", True, "test")
    with pytest.raises(FailedPrecondition):
        users.set_role("ada", "approver", "test")
    users.add("grace", "admin", "", PW, "test")
    users.set_role("ada", "approver", "test")
    assert users.get("ada") is not None and users.get("ada").role is Role.APPROVER  # type: ignore[union-attr]


def test_session_secret_is_created_once_and_shared(engine: Engine) -> None:
    a, b = service(engine, FakeClock()), service(engine, FakeClock())
    secrets = set()
    lock = threading.Lock()

    def read(s: UserService) -> None:
        value = s.session_secret()
        with lock:
            secrets.add(value)

    threads = [threading.Thread(target=read, args=(s,)) for s in (a, b, a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(secrets) == 1 and len(secrets.pop()) == 64


def test_users_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--data-dir", str(tmp_path / "data")]
    monkeypatch.setattr("sys.stdin", io.StringIO(PW + "\n"))
    assert main(["users", "add", "ada", "--role", "admin", "--groups", "ops,sre", "--password-stdin", *flags]) == 0
    assert "added ada (admin in ops, sre)" in capsys.readouterr().out
    prompts = iter(["long password 1", "long password 1"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(prompts))
    assert main(["users", "add", "bob", "--role", "viewer", *flags]) == 0
    prompts = iter(["long password 1", "typo password 1"])
    assert main(["users", "add", "eve", "--role", "viewer", *flags]) == 1
    assert "the passwords differ" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["users", "add", "carl", "--role", "viewer", "--password-stdin", *flags]) == 1
    assert "at least 8" in capsys.readouterr().err
    assert main(["users", "disable", "bob", *flags]) == 0
    assert main(["users", "list", *flags]) == 0
    out = capsys.readouterr().out
    assert "ada" in out and "ops,sre" in out and "bob" in out and "disabled" in out and "eve" not in out
    assert main(["users", "disable", "nobody", *flags]) == 1
    assert main(["users", "disable", "ada", *flags]) == 1  # the last admin
    monkeypatch.setattr("sys.stdin", io.StringIO("the new password\n"))
    assert main(["users", "passwd", "ada", "--password-stdin", *flags]) == 0
    engine = create_db_engine(f"sqlite:///{tmp_path / 'data' / 'outrider.db'}")
    try:
        users = service(engine, FakeClock())
        users.login("ada", "the new password", "cli")
        records = list(SqlAuditRepository(engine).iter_all())
        assert (records[0].actor, records[0].action) == ("system", "audit.keyed")  # the first command's key
        assert {r.actor.split(":")[0] for r in records[1:]} == {"cli"}
    finally:
        engine.dispose()


def test_users_parser_needs_a_role() -> None:
    from server.cli.users import add_users_parser

    parser = argparse.ArgumentParser()
    add_users_parser(parser.add_subparsers(dest="command"), lambda p: None)
    with pytest.raises(SystemExit):
        parser.parse_args(["users", "add", "x", "--role", "root"])
