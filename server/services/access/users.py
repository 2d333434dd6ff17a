"""Console reviewers: accounts (argon2id password hashes), sign-in with a throttle, the session secret.

Sign-in failures are throttled per username and per client address (5 a minute each by default), so
guessing is slow even across many usernames. A session stays valid only while the account is enabled
and its password unchanged: `session_user` checks a stamp derived from the stored hash.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import threading
from collections.abc import Callable, Iterable
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


class SettingsRepository(Protocol):
    def get_or_create(self, key: str, make: Callable[[], str]) -> str: ...


def session_stamp(password_hash: str) -> str:
    """Changes whenever the password does, so older sessions stop working."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:16]


class UserService:
    def __init__(
        self,
        repo: UserRepository,
        settings: SettingsRepository,
        clock: Clock,
        audit: AuditSink,
        *,
        hasher: PasswordHasher | None = None,
        failures_per_minute: int = 5,
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.clock = clock
        self.audit = audit
        self.hasher = hasher or PasswordHasher(ARGON2_TIME_COST, ARGON2_MEMORY_KIB, ARGON2_LANES)
        self._hashing = threading.BoundedSemaphore(MAX_CONCURRENT_HASHES)
        self._throttle = FailureThrottle(limit=failures_per_minute, window=60.0)
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
        self.audit.record(actor, "user.disable" if disabled else "user.enable", name, {})
        log.info("console user %s", "disabled" if disabled else "enabled", extra={"user": name, "actor": actor})
        return after

    def set_password(self, name: str, password: str, actor: str) -> User:
        _, after = self._update(name, password_hash=self._hash(validate_password(password)))
        self.audit.record(actor, "user.password", name, {})
        return after

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
        """The user and their session stamp; ResourceExhausted while throttled, else Unauthenticated."""
        now = self.clock.monotonic()
        keys = (f"user:{name.lower()}", f"client:{client}")
        with self._lock:
            wait = max(self._throttle.retry_after(k, now) for k in keys)
            if wait <= 0:
                # Counted as failed until proven otherwise, so parallel guesses cannot slip past the limit.
                for key in keys:
                    self._throttle.fail(key, now)
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
            self._throttle.reset(keys[0])
            self._throttle.forgive(keys[1], now)
        if self.hasher.check_needs_rehash(stored):
            stored = self._hash(password)
            self.repo.update(name, password_hash=stored)
        log.info("console sign-in", extra={"user": name, "client": client})
        return user, session_stamp(stored)

    def session_user(self, name: str, stamp: str) -> User | None:
        """The signed-in user behind a session, or None when disabled, deleted or the password changed."""
        found = self.repo.get(name)
        if found is None or found[0].disabled or not secrets.compare_digest(session_stamp(found[1]), stamp):
            return None
        return found[0]

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
