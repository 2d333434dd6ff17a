"""Authentication, authorization and per-credential rate limits for every RPC, as one interceptor.

The principal is found from `authorization: Bearer <token>` metadata or the mTLS client certificate,
checked against the RPC's rule (server.rpc.access_rules), and made available to servicers through
`current_principal()`.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import logging
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from server.domain.access.principals import ANONYMOUS_OPERATOR, Principal, Rule, authorize, principal_from_certificate
from server.domain.access.rate import TokenBucket
from server.domain.agents import Containment, Standing
from server.domain.errors import OutriderError, PermissionDenied, ResourceExhausted, Unauthenticated
from server.rpc.access_rules import OPEN_PREFIXES, RULES
from server.rpc.errors import abort
from server.rpc.wrapped import Wrapped
from server.services.access.credentials import AccessService

log = logging.getLogger(__name__)

_principal: contextvars.ContextVar[Principal] = contextvars.ContextVar("principal", default=ANONYMOUS_OPERATOR)


@functools.lru_cache(maxsize=4096)  # a connection's certificate is the same on every call
def certificate_fingerprint(pem: bytes | str) -> str:
    """SHA-256 of the certificate's DER encoding, as `openssl x509 -fingerprint -sha256` shows it."""
    text = pem.decode() if isinstance(pem, bytes) else pem
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(text)).hexdigest()


def current_principal() -> Principal:
    """The caller of the RPC being served (the anonymous operator when authentication is off)."""
    return _principal.get()


def _field(message: Any, path: str) -> str:
    for part in path.split(".")[:-1]:
        if not message.HasField(part):
            return ""
        message = getattr(message, part)
    return str(getattr(message, path.rsplit(".", 1)[-1]))


class RateLimiter:
    # Buckets kept at most: beyond, the idle ones are forgotten (a full bucket is a new bucket), so a
    # flood from many addresses or made-up keys cannot grow memory without bound.
    MAX_BUCKETS = 10_000

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, TokenBucket] = {}

    def check(self, key: str, label: str) -> None:
        now = time.monotonic()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.MAX_BUCKETS:
                self._forget_idle(now)
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
        wait = bucket.take(now)
        if wait:
            raise ResourceExhausted(
                f"rate limit of {self.rate:g} requests/s for {label} exceeded; retry in {wait * 1000:.0f} ms",
                reason="RATE_LIMITED",
            )

    def _forget_idle(self, now: float) -> None:
        refill = self.burst / self.rate
        idle = [k for k, b in self._buckets.items() if now - b.stamp >= refill]
        for k in idle or list(self._buckets)[: len(self._buckets) // 2]:
            del self._buckets[k]


def peer_host(peer: str) -> str:
    """`ipv4:127.0.0.1:5000` -> `ipv4:127.0.0.1`; `ipv6:[::1]:5000` -> `ipv6:[::1]`; others as they are."""
    if peer.startswith(("ipv4:", "ipv6:")):
        return peer.rpartition(":")[0]
    return peer


# CheckAction from a killed agent is answered (BLOCK by the `kill-switch` guardrail), not refused: the
# agent learns why it may not act.
# The agent's control channel: after a kill it still carries the agent's ack of the KILL command (the
# kill ends the channel itself), so an open one is not refused message by message.
_CONTROL_CHANNEL = "/outrider.v1.RecoveryService/Attach"
_ANSWERED_WHEN_TERMINATED = {
    "/outrider.v1.SupervisorService/CheckAction",
    "/outrider.v1.SupervisorService/CheckActions",
}


class AuthInterceptor(grpc.aio.ServerInterceptor):
    def __init__(
        self,
        access: AccessService,
        limiter: RateLimiter,
        enabled: bool,
        mtls: bool,
        peer_limiter: RateLimiter | None = None,
        containment_of: Callable[[str], Containment | None] | None = None,
    ) -> None:
        self.access = access
        self.limiter = limiter
        # Calls with no or a failed credential, per peer address: refused cheaply once over the limit.
        self.peer_limiter = peer_limiter or RateLimiter(20.0, 40)
        self.enabled = enabled
        self.mtls = mtls
        # An agent id's TERMINATED or QUARANTINED standing (in memory, no I/O).
        self.containment_of = containment_of
        self._wrapped = Wrapped()

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        handler = await continuation(details)
        method: str = details.method
        if handler is None or method.startswith(OPEN_PREFIXES):
            return handler
        rule = RULES.get(method)
        return self._wrapped.get((method, handler, rule), lambda: self._wrap(handler, method, rule))

    def _wrap(self, handler: Any, method: str, rule: Rule | None) -> Any:
        if handler.unary_unary:
            return handler._replace(unary_unary=self._unary(handler.unary_unary, method, rule))
        if handler.unary_stream:
            return handler._replace(unary_stream=self._unary_stream(handler.unary_stream, method, rule))
        if handler.stream_unary:
            return handler._replace(stream_unary=self._unary(handler.stream_unary, method, rule, streaming=True))
        return handler._replace(stream_stream=self._unary_stream(handler.stream_stream, method, rule, streaming=True))

    # ---- wrappers --------------------------------------------------------------------------

    def _unary(self, fn: Any, method: str, rule: Rule | None, streaming: bool = False) -> Any:
        async def behavior(request: Any, context: Any) -> Any:
            try:
                request = self._admit(request, context, method, rule, streaming)
            except OutriderError as exc:
                await abort(context, exc)
            return await fn(request, context)

        return behavior

    def _unary_stream(self, fn: Any, method: str, rule: Rule | None, streaming: bool = False) -> Any:
        async def behavior(request: Any, context: Any) -> AsyncIterator[Any]:
            try:
                request = self._admit(request, context, method, rule, streaming)
            except OutriderError as exc:
                await abort(context, exc)
            result = fn(request, context)
            if hasattr(result, "__aiter__"):
                async for item in result:
                    yield item
            else:  # a coroutine that writes with context.write()
                await result

        return behavior

    # ---- the checks ------------------------------------------------------------------------

    def _admit(self, request: Any, context: Any, method: str, rule: Rule | None, streaming: bool) -> Any:
        try:
            principal = self._authenticate(context)
        except Unauthenticated:
            self.peer_limiter.check(peer_host(context.peer()), "unauthenticated calls from this address")
            raise
        self.limiter.check(principal.label if self.enabled else context.peer(), principal.label)
        if rule is None:
            raise PermissionDenied(f"{method} has no access rule and is refused", reason="NO_RULE")
        self._refuse_killed(principal, method)
        _principal.set(principal)
        if not streaming:
            authorize(principal, rule, method, {f: _field(request, f) for f in rule.fields}, streaming=False)
            return request
        return self._checked_stream(request, context, principal, rule, method)

    def _refuse_killed(self, principal: Principal, method: str) -> None:
        if principal.is_operator or self.containment_of is None or method in _ANSWERED_WHEN_TERMINATED:
            return
        contained = self.containment_of(principal.subject)
        if contained is not None and contained.standing is Standing.TERMINATED:
            raise PermissionDenied(
                f"agent {principal.subject!r} was killed ({contained.kill_id}); its credentials are refused "
                "until an operator reinstates it",
                reason="AGENT_TERMINATED",
            )

    async def _checked_stream(self, requests: Any, context: Any, principal: Principal, rule: Rule, method: str) -> Any:
        """Every message is authorized; from the second on, the credential is checked again (in memory), so
        a stream opened before a revocation or a kill does not outlive it. The credential is looked up again
        for the second message and then whenever the credentials' mirror changed (`AccessService.generation`,
        read before the lookup: a change during it is seen at the next message); the stream's metadata and
        certificate are those it opened with."""
        first = True
        checked_at: int | None = None  # the mirror's generation when the credential was last looked up
        fields = rule.fields
        for_control = method == _CONTROL_CHANNEL
        async for message in requests:
            if not first:
                generation = self.access.generation
                if generation != checked_at:
                    if self._authenticate(context) != principal:
                        raise Unauthenticated("the stream's credential changed", reason="BAD_CREDENTIAL")
                    checked_at = generation
                if not for_control:
                    self._refuse_killed(principal, method)
            first = False
            authorize(principal, rule, method, {f: _field(message, f) for f in fields}, streaming=True)
            yield message

    def charge(self, context: Any) -> None:
        """One more request against the caller's rate limit (a stream's messages after the call itself)."""
        principal = current_principal()
        self.limiter.check(principal.label if self.enabled else context.peer(), principal.label)

    def _authenticate(self, context: Any) -> Principal:
        if not self.enabled:
            return ANONYMOUS_OPERATOR
        auth = (context.auth_context() or {}) if self.mtls else {}
        # A revoked certificate is refused whatever else the call carries (a token on top included).
        for pem in auth.get("x509_pem_cert") or ():
            if self.access.certificate_revoked(certificate_fingerprint(pem)):
                raise Unauthenticated("this client certificate was revoked", reason="CERTIFICATE_REVOKED")
        for key, value in context.invocation_metadata() or ():
            if key != "authorization":
                continue
            scheme, _, secret = str(value).partition(" ")
            if scheme.lower() != "bearer" or not secret.strip():
                raise Unauthenticated("the authorization metadata must be 'Bearer <token>'", reason="BAD_CREDENTIAL")
            token = self.access.authenticate(secret.strip())
            if token is None:
                raise Unauthenticated("unknown or revoked token", reason="BAD_CREDENTIAL")
            return token.principal()
        if self.mtls:
            names = auth.get("x509_common_name") or []
            for name in names:
                principal = principal_from_certificate(name.decode() if isinstance(name, bytes) else str(name))
                if principal:
                    return principal
            raise Unauthenticated(
                "the client certificate's CN must be 'agent:ID' or 'operator:NAME'", reason="BAD_CREDENTIAL"
            )
        raise Unauthenticated(
            "no credential: send 'authorization: Bearer <token>' metadata", reason="MISSING_CREDENTIAL"
        )
