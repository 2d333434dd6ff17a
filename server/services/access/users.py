"""Console reviewers: accounts (argon2id password hashes), sign-in with a throttle, sessions, the cookie secret.

Sign-in failures are throttled per client address and per username, separately (5 a minute each by default).
A username counts the *addresses* that failed for it, so a flood from one address locks out that address and
never the user signing in from elsewhere, while guesses spread over many addresses still lock the username.
Sessions live in the database (only the SHA-256 of their id): signing out, a password change, disabling the
account and "sign out everywhere" delete them, which ends them at once in every console on the database.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import threading
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from server.domain.access.users import FailureThrottle, Role, User, parse_groups, validate_name, validate_password
from server.domain.errors import FailedPrecondition, NotFound, ResourceExhausted, Unauthenticated
from server.services.ports import AuditSink, Clock

log = logging.getLogger(__name__)

SESSION_SECRET_KEY = "console.session_secret"
# argon2id with OWASP's recommended parameters (19 MiB, 2 passes, 1 lane): strong against guessing,
# and light enough that a burst of sign-in attempts cannot exhaust memory (at most 2 hash at once).
ARGON2_TIME_COST, ARGON2_MEMORY_KIB, ARGON2_LANES = 2, 19 * 1024, 1
MAX_CONCURRENT_HASHES = 2
BAD_LOGIN = "wrong username or password"


class UserRepository(Protocol):
    """storage/users_repository.py SqlUserRepository."""

    def insert(self, user: User, password_hash: str) -> None: ...

    def get(self, name: str) -> tuple[User, str] | None: ...

    def list(self) -> list[User]: ...

    def update(
        self, name: str, *, role: Role | None = None, disabled: bool | None = None, password_hash: str | None = None
    ) -> tuple[User, User] | None: ...


class SessionRepository(Protocol):
    """storage/access/users.py SqlSessionRepository: sessions by the SHA-256 of their id."""

    def insert(self, id_hash: str, user: str, create_time: datetime, expire_time: datetime, client: str) -> None: ...

    def get(self, id_hash: str) -> tuple[str, datetime] | None: ...

    def delete(self, id_hash: str) -> bool: ...

    def delete_user(self, user: str) -> int: ...

    def count_user(self, user: str, now: datetime) -> int: ...

    def purge_expired(self, now: datetime) -> int: ...


SESSION_LIFETIME = timedelta(hours=12)


def session_key(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class SettingsRepository(Protocol):
    def get_or_create(self, key: str, make: Callable[[], str]) -> str: ...


class UserService:
    def __init__(
        self,
        repo: UserRepository,
        settings: SettingsRepository,
        clock: Clock,
        audit: AuditSink,
        *,
        sessions: SessionRepository,
        hasher: PasswordHasher | None = None,
        failures_per_minute: int = 5,
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.sessions = sessions
        self.clock = clock
        self.audit = audit
        self.hasher = hasher or PasswordHasher(ARGON2_TIME_COST, ARGON2_MEMORY_KIB, ARGON2_LANES)
        self._hashing = threading.BoundedSemaphore(MAX_CONCURRENT_HASHES)
        self._throttle = FailureThrottle(limit=failures_per_minute, window=60.0)
        # Has this address already failed for this username in the window? Then it adds nothing to the username.
        self._pairs = FailureThrottle(limit=1, window=60.0)
        self._lock = threading.Lock()
        self._dummy_hash: str | None = None

    # ---- accounts ----------------------------------------------------------------------------

    def add(self, name: str, role: Role | str, groups: str | Iterable[str], password: str, actor: str) -> User:
        validate_name(name)
        role = Role.parse(role) if isinstance(role, str) else role
        user = User(name=name, role=role, groups=parse_groups(groups), create_time=self.clock.utcnow())
        self.repo.insert(user, self._hash(validate_password(password)))
        self.audit.record(actor, "user.add", name, {"role": role.value, "groups": list(user.groups)})
        log.info("console user added", extra={"user": name, "role": role.value, "actor": actor})
        return user

    def get(self, name: str) -> User | None:
        found = self.repo.get(name)
        return found[0] if found else None

    def list(self) -> list[User]:
        return self.repo.list()

    def set_role(self, name: str, role: Role | str, actor: str) -> User:
        role = Role.parse(role) if isinstance(role, str) else role
        if role is not Role.ADMIN:
            self._keep_an_admin(name)
        before, after = self._update(name, role=role)
        self.audit.record(actor, "user.role", name, {"from": before.role.value, "to": role.value})
        return after

    def set_disabled(self, name: str, disabled: bool, actor: str) -> User:
        if disabled:
            self._keep_an_admin(name)
        _, after = self._update(name, disabled=disabled)
        ended = self.sessions.delete_user(name) if disabled else 0
        details = {"sessions_ended": ended} if disabled else {}
        self.audit.record(actor, "user.disable" if disabled else "user.enable", name, details)
        log.info("console user %s", "disabled" if disabled else "enabled", extra={"user": name, "actor": actor})
        return after

    def set_password(self, name: str, password: str, actor: str) -> User:
        _, after = self._update(name, password_hash=self._hash(validate_password(password)))
        ended = self.sessions.delete_user(name)
        self.audit.record(actor, "user.password", name, {"sessions_ended": ended})
        return after

    def end_sessions(self, name: str, actor: str) -> int:
        """ "Sign out everywhere": every session of `name`, in every console process, ends now."""
        if self.repo.get(name) is None:
            raise NotFound(f"no user is named {name!r}", field="name")
        ended = self.sessions.delete_user(name)
        self.audit.record(actor, "user.sign_out_everywhere", name, {"sessions_ended": ended})
        log.info("console sessions ended", extra={"user": name, "actor": actor, "sessions": ended})
        return ended

    def session_count(self, name: str) -> int:
        return self.sessions.count_user(name, self.clock.utcnow())

    def _update(
        self, name: str, *, role: Role | None = None, disabled: bool | None = None, password_hash: str | None = None
    ) -> tuple[User, User]:
        changed = self.repo.update(name, role=role, disabled=disabled, password_hash=password_hash)
        if changed is None:
            raise NotFound(f"no user is named {name!r}", field="name")
        return changed

    def _keep_an_admin(self, name: str) -> None:
        """Refuse to demote or disable the last enabled admin: nobody could manage the console then."""
        admins = [u for u in self.repo.list() if u.is_admin and not u.disabled]
        if [u.name for u in admins] == [name]:
            raise FailedPrecondition(f"{name!r} is the last enabled admin", reason="LAST_ADMIN")

    # ---- signing in --------------------------------------------------------------------------

    def login(self, name: str, password: str, client: str) -> tuple[User, str]:
        """The user and the id of their new session; ResourceExhausted while throttled, else Unauthenticated."""
        now = self.clock.monotonic()
        user_key, client_key, pair_key = f"user:{name.lower()}", f"client:{client}", f"{name.lower()}|{client}"
        with self._lock:
            wait = max(self._throttle.retry_after(k, now) for k in (user_key, client_key))
            counts_for_user = False
            if wait <= 0:
                # Counted as failed until proven otherwise, so parallel guesses cannot slip past the limit.
                self._throttle.fail(client_key, now)
                counts_for_user = self._pairs.retry_after(pair_key, now) <= 0
                if counts_for_user:
                    self._throttle.fail(user_key, now)
                self._pairs.fail(pair_key, now)
        if wait > 0:
            raise ResourceExhausted(
                f"too many failed sign-ins; try again in {math.ceil(wait)} s", reason="LOGIN_THROTTLED"
            )
        found = self.repo.get(name) if name and len(name) <= 256 else None
        ok = self._verify(found[1] if found else None, password)
        if not ok or found is None or found[0].disabled:
            log.warning("console sign-in refused", extra={"user": name[:64], "client": client})
            raise Unauthenticated(BAD_LOGIN, reason="BAD_CREDENTIALS")
        user, stored = found
        with self._lock:
            self._throttle.reset(user_key)
            self._pairs.reset(pair_key)
            self._throttle.forgive(client_key, now)
        if self.hasher.check_needs_rehash(stored):
            self.repo.update(name, password_hash=self._hash(password))
        log.info("console sign-in", extra={"user": name, "client": client})
        return user, self._start_session(user, client)

    def _start_session(self, user: User, client: str) -> str:
        session_id = secrets.token_urlsafe(32)
        now = self.clock.utcnow()
        self.sessions.purge_expired(now)
        self.sessions.insert(session_key(session_id), user.name, now, now + SESSION_LIFETIME, client)
        return session_id

    def session_user(self, session_id: str) -> User | None:
        """The signed-in user behind a session id, or None when it ended, expired, or the user is disabled."""
        if not session_id or len(session_id) > 128:
            return None
        found = self.sessions.get(session_key(session_id))
        if found is None or found[1] <= self.clock.utcnow():
            return None
        user = self.repo.get(found[0])
        if user is None or user[0].disabled:
            return None
        return user[0]

    def end_session(self, session_id: str) -> None:
        """Signing out: the session is deleted, so a copy of its cookie is worth nothing anywhere."""
        if session_id and len(session_id) <= 128:
            self.sessions.delete(session_key(session_id))

    def _verify(self, stored: str | None, password: str) -> bool:
        if stored is None:
            # Same work for an unknown name as for a wrong password: timing does not tell names apart.
            if self._dummy_hash is None:
                self._dummy_hash = self._hash(secrets.token_hex(16))
            self._check(self._dummy_hash, password)
            return False
        return self._check(stored, password)

    def _hash(self, password: str) -> str:
        with self._hashing:
            return str(self.hasher.hash(password))

    def _check(self, stored: str, password: str) -> bool:
        with self._hashing:
            try:
                return bool(self.hasher.verify(stored, password))
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

    # ---- shared settings ---------------------------------------------------------------------

    def session_secret(self) -> str:
        """The console's cookie-signing key, shared by every process on this database."""
        return self.settings.get_or_create(SESSION_SECRET_KEY, lambda: secrets.token_hex(32))
