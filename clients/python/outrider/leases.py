"""`lease`: hold an execution slot of an isolation key for a block (the SandboxExecutionGuard contract).

    with lease(client, "user", "u-42", agent_id="worker-1") as held:
        write(resource, fencing_token=held.fencing_token)

Acquiring waits, first come first served, until a slot of the key is free (`timeout` bounds the wait:
DeadlineExceededError). While the block runs the lease is renewed every third of its TTL, so a long block
keeps its slot; if the sidecar takes it away anyway (expired while unreachable, or the agent was killed)
`held.lost` becomes true and `held.lost_reason` says why. The slot is always given back on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from ._common import duration, seconds
from .aio import AsyncClient
from .client import Client
from .enums import Scope
from .errors import FailedPreconditionError, NotFoundError, OutriderError
from .v1 import safeguard_pb2 as spb
from .v1 import safeguard_service_pb2 as pb

SCOPES = {
    "user": spb.ISOLATION_SCOPE_USER,
    "agent": spb.ISOLATION_SCOPE_AGENT,
    "session": spb.ISOLATION_SCOPE_SESSION,
    "global": spb.ISOLATION_SCOPE_GLOBAL,
}
DEFAULT_WAIT = 3600.0  # seconds an acquire may wait for a slot when no timeout is given


@dataclass
class HeldLease:
    lease_id: str
    fencing_token: int  # grows per key: a guarded resource rejects writes carrying a lower one
    scope: Scope
    key_id: str
    waited: float  # seconds spent waiting for the slot
    ttl: float  # seconds; renewed every third of it
    lost: bool = False
    lost_reason: str = ""


def _acquire_request(scope: Scope | str, key_id: str, agent_id: str, ttl: float | None) -> pb.AcquireLeaseRequest:
    try:
        s = SCOPES[scope.lower()]
    except KeyError:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}") from None
    return pb.AcquireLeaseRequest(
        isolation_key=spb.IsolationKey(scope=s, id=key_id),
        agent_id=agent_id,
        ttl=duration(ttl) if ttl is not None else None,
        request_id=uuid.uuid4().hex,
    )


def _held(r: pb.AcquireLeaseResponse, scope: Scope | str, key_id: str) -> HeldLease:
    waited = seconds(r, "wait_duration") or 0.0
    return HeldLease(
        r.lease.lease_id, r.lease.fencing_token, Scope(scope.lower()), key_id, waited, seconds(r.lease, "ttl") or 30.0
    )


def _lose(held: HeldLease, err: OutriderError) -> None:
    held.lost, held.lost_reason = True, err.message


def _released(held: HeldLease, r: pb.ReleaseLeaseResponse) -> None:
    if r.lease.state != spb.LEASE_STATE_RELEASED and not held.lost:
        held.lost = True
        held.lost_reason = f"lease ended as {spb.LeaseState.Name(r.lease.state).removeprefix('LEASE_STATE_')}"


@contextlib.contextmanager
def lease(
    client: Client,
    scope: Scope | str,
    key_id: str,
    *,
    agent_id: str,
    ttl: float | None = None,
    timeout: float | None = None,
    renew: bool = True,
) -> Iterator[HeldLease]:
    """Hold one slot of the isolation key (`scope`: "user", "agent", "session" or "global") for the block.

    `ttl`: seconds (default: the sidecar's, 30 s unless configured); `timeout`: how long to wait for a slot
    (default an hour); `renew=False` leaves expiry to the TTL."""
    request = _acquire_request(scope, key_id, agent_id, ttl)
    answer = client.call(client.safeguard.AcquireLease, request, timeout=timeout or DEFAULT_WAIT)
    held = _held(answer, scope, key_id)
    stop = threading.Event()
    renewer = threading.Thread(
        target=_renew_loop, args=(client, held, stop), name=f"outrider-lease-{held.lease_id}", daemon=True
    )
    if renew:
        renewer.start()
    try:
        yield held
    finally:
        stop.set()
        if renew:
            renewer.join()
        _released(held, client.call(client.safeguard.ReleaseLease, pb.ReleaseLeaseRequest(lease_id=held.lease_id)))


def _renew_loop(client: Client, held: HeldLease, stop: threading.Event) -> None:
    request = pb.RenewLeaseRequest(lease_id=held.lease_id, ttl=duration(held.ttl))
    while not stop.wait(held.ttl / 3):
        try:
            client.call(client.safeguard.RenewLease, request, timeout=max(1.0, held.ttl / 3))
        except (FailedPreconditionError, NotFoundError) as err:  # the slot is gone: say so, stop renewing
            _lose(held, err)
            return
        except OutriderError:
            continue  # unreachable for now: the next tick tries again, well within the TTL


@contextlib.asynccontextmanager
async def async_lease(
    client: AsyncClient,
    scope: Scope | str,
    key_id: str,
    *,
    agent_id: str,
    ttl: float | None = None,
    timeout: float | None = None,
    renew: bool = True,
) -> AsyncIterator[HeldLease]:
    """`lease` for asyncio: ``async with async_lease(client, "user", "u-42", agent_id="w1") as held:``."""
    request = _acquire_request(scope, key_id, agent_id, ttl)
    answer = await client.call(client.safeguard.AcquireLease, request, timeout=timeout or DEFAULT_WAIT)
    held = _held(answer, scope, key_id)
    renewer = asyncio.create_task(_renew_task(client, held)) if renew else None
    try:
        yield held
    finally:
        if renewer is not None:
            renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewer
        answer = await client.call(client.safeguard.ReleaseLease, pb.ReleaseLeaseRequest(lease_id=held.lease_id))
        _released(held, answer)


async def _renew_task(client: AsyncClient, held: HeldLease) -> None:
    request = pb.RenewLeaseRequest(lease_id=held.lease_id, ttl=duration(held.ttl))
    while True:
        await asyncio.sleep(held.ttl / 3)
        try:
            await client.call(client.safeguard.RenewLease, request, timeout=max(1.0, held.ttl / 3))
        except (FailedPreconditionError, NotFoundError) as err:
            _lose(held, err)
            return
        except OutriderError:
            continue
