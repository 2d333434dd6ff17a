"""Who may call what: principals, tokens, and the scope rules every RPC is checked against.

Agents are untrusted: an agent credential may only act as its own agent_id. Operators may do
everything but mint credentials: issuing and revoking credentials needs an admin credential (issued on
the host), so one person cannot become two reviewers. Every operator credential speaks for one identity,
its subject. The rules are data (`Rule`); which RPC has which rule lives with the gRPC adapter.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from server.domain.errors import PermissionDenied

TOKEN_PREFIX = "otr_"


class PrincipalKind(enum.IntEnum):
    # Values match outrider.v1.PrincipalKind.
    AGENT = 1
    OPERATOR = 2


@dataclass(frozen=True, slots=True)
class Principal:
    kind: PrincipalKind
    subject: str
    via: str = "token"  # "token", "certificate" or "none" (authentication disabled)
    token_id: str = ""
    admin: bool = False  # an operator credential that may issue and revoke credentials

    @property
    def identity(self) -> str:
        """The person or agent behind the credential: two credentials of one subject are one identity."""
        return self.subject

    @property
    def label(self) -> str:
        return f"{self.kind.name.lower()}:{self.subject}"

    @property
    def is_operator(self) -> bool:
        return self.kind is PrincipalKind.OPERATOR


# Used when authentication is disabled (development mode): everything is allowed.
ANONYMOUS_OPERATOR = Principal(PrincipalKind.OPERATOR, "anonymous", via="none", admin=True)


@dataclass(frozen=True, slots=True)
class Token:
    token_id: str
    kind: PrincipalKind
    subject: str
    description: str
    created_by: str
    create_time: datetime
    revoke_time: datetime | None = None
    admin: bool = False

    def principal(self) -> Principal:
        return Principal(self.kind, self.subject, "token", self.token_id, admin=self.admin)


def hash_secret(secret: str) -> str:
    """Secrets are 256-bit random strings, so one SHA-256 is enough (no KDF needed to resist guessing)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def principal_from_certificate(common_name: str) -> Principal | None:
    """Client certificates name their principal in the subject CN: `agent:ID` or `operator:NAME`."""
    kind, sep, subject = common_name.partition(":")
    if not sep or not subject:
        return None
    if kind == "agent":
        if ":" in subject:  # agent ids never hold ':' (key ownership must be unambiguous)
            return None
        return Principal(PrincipalKind.AGENT, subject, "certificate")
    if kind == "operator":
        return Principal(PrincipalKind.OPERATOR, subject, "certificate")
    return None


class Scope(enum.Enum):
    OPERATOR = "operator"  # operators only
    ADMIN = "admin"  # admin operator credentials only (issuing and revoking credentials)
    ANY = "any"  # any authenticated principal
    AGENT_SELF = "agent_self"  # agents only with their own id in `fields`
    AGENT_KEY = "agent_key"  # agents only for keys "<own id>" or "<own id>:<dependency>"
    OWNED = "owned"  # agents allowed; the service checks the object (permit, lease, approval) is theirs


@dataclass(frozen=True, slots=True)
class Rule:
    scope: Scope
    fields: tuple[str, ...] = ()
    # AGENT_SELF: an empty value is allowed on a unary call too (the field is optional, e.g. ValidatePlan's
    # agent_id); a set value must still be the caller's own id.
    optional: bool = False


def authorize(principal: Principal, rule: Rule, method: str, values: Mapping[str, str], streaming: bool) -> None:
    """Raise PermissionDenied unless `principal` may call `method` with these field values.

    `values` maps each field of the rule to the request's value. On a stream, a message that does not
    carry the field (an empty value) is not checked; on a unary call an empty value is refused, so an
    agent cannot ask for "everything".
    """
    if rule.scope is Scope.ADMIN:
        if principal.is_operator and principal.admin:
            return
        raise PermissionDenied(
            f"{method} needs an admin credential (issued on the host: outrider tokens issue --admin NAME); "
            f"this call used {principal.label}",
            reason="ADMIN_REQUIRED",
        )
    if principal.is_operator or rule.scope in (Scope.ANY, Scope.OWNED):
        return
    if rule.scope is Scope.OPERATOR:
        raise PermissionDenied(
            f"{method} needs an operator credential; this call used agent credential {principal.subject!r}",
            reason="OPERATOR_REQUIRED",
        )
    for name in rule.fields:
        value = values.get(name, "")
        if not value and (streaming or rule.optional):
            continue
        owner = value.split(":", 1)[0] if rule.scope is Scope.AGENT_KEY else value
        if owner != principal.subject:
            shown = repr(value) if value else "empty"
            raise PermissionDenied(
                f"agent credential {principal.subject!r} may only act as itself: {name} is {shown}",
                reason="NOT_YOUR_AGENT",
                field=name,
            )
