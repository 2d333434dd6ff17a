"""Durable idempotency for every mutating unary RPC with a `request_id` (issue 12): one interceptor, inside
authentication, so the caller is known. CheckAction and IssueToken are left out (see _EXCLUDED).

Where the storage write takes part (services/idempotency.py `Guard`; docs/operations.md lists the calls),
the record is written in the change's own transaction, so a call applied but not answered (a crash, a lost
connection after the commit) is not applied again by its retry, and the call answers what its record says.
Elsewhere it is stored right after the call: where the change carries its own request id (AcquireLease,
Kill, TriggerRecovery, RegisterSubstitute), is no database change (AcquirePermit, ReportOutcome and
ReleasePermit on a permit in memory), or is not one transaction (RunHealthChecks, whose recovery attempts
carry request ids derived from its own; a ReportFailure that completes a cascade)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor

from outrider.v1 import access_service_pb2, recovery_service_pb2, safeguard_service_pb2, supervisor_service_pb2
from server.domain.errors import OutriderError
from server.rpc.auth import current_principal
from server.rpc.errors import abort, wait_for_storage
from server.rpc.wrapped import Wrapped
from server.services.idempotency import AlreadyRemembered, IdempotencyService, guarding

# Not remembered: CheckAction (the request id re-attaches to an approval, whose answer is delivered once) and
# IssueToken (its answer holds the secret, which is never stored).
_EXCLUDED = {"/outrider.v1.SupervisorService/CheckAction", "/outrider.v1.AccessService/IssueToken"}


def _methods() -> dict[str, MethodDescriptor]:
    """Every unary-unary RPC whose request carries a `request_id`: the mutating ones, by the house style."""
    found = {}
    for module in (supervisor_service_pb2, recovery_service_pb2, safeguard_service_pb2, access_service_pb2):
        for service in module.DESCRIPTOR.services_by_name.values():
            for m in service.methods:
                if m.client_streaming or m.server_streaming or "request_id" not in m.input_type.fields_by_name:
                    continue
                name = f"/{service.full_name}/{m.name}"
                if name not in _EXCLUDED:
                    found[name] = m
    return found


REMEMBERED = _methods()


class IdempotencyInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, service: IdempotencyService) -> None:
        self.service = service
        self._inflight: dict[tuple[str, str, str], asyncio.Lock] = {}
        self._wrapped = Wrapped()  # once per method: the interceptors outside it memoize on this handler

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        handler = await continuation(details)
        method = REMEMBERED.get(details.method)
        if handler is None or method is None or not handler.unary_unary:
            return handler
        return self._wrapped.get(
            (details.method, handler),
            lambda: handler._replace(unary_unary=self._wrap(handler.unary_unary, details.method, method)),
        )

    def _wrap(self, fn: Any, name: str, method: MethodDescriptor) -> Any:
        response_class = message_factory.GetMessageClass(method.output_type)

        async def behavior(request: Any, context: Any) -> Any:
            if not request.request_id:
                return await fn(request, context)
            caller, raw = current_principal().label, request.SerializeToString(deterministic=True)
            key = (name, caller, request.request_id)
            lock = self._inflight.setdefault(key, asyncio.Lock())
            try:
                async with lock:  # a retry racing the first call waits for its answer
                    try:
                        stored = await wait_for_storage(
                            lambda: asyncio.to_thread(self.service.recall, name, caller, request.request_id, raw),
                            context,
                        )
                    except OutriderError as exc:
                        await abort(context, exc)
                    if stored is not None:
                        return response_class.FromString(stored)
                    guard = self.service.guard(name, caller, request.request_id, raw)
                    try:
                        with guarding(guard):
                            response = await fn(request, context)
                    except AlreadyRemembered:  # an earlier attempt's change committed: its answer stands
                        try:  # storage may have gone again since: the same wait, the same fixed answer
                            stored = await wait_for_storage(
                                lambda: asyncio.to_thread(self.service.recall, name, caller, request.request_id, raw),
                                context,
                            )
                        except OutriderError as exc:
                            await abort(context, exc)
                        assert stored is not None
                        return response_class.FromString(stored)
                    if response is None:  # aborted
                        return response
                    if guard.written and guard.answer is not None:
                        # Remembered with the change: answer what the record says, byte for byte what a
                        # retry gets (a field the service fills after the commit cannot differ).
                        return response_class.FromString(guard.answer)
                    try:
                        kept = await asyncio.to_thread(
                            self.service.remember, name, caller, request.request_id, raw, response.SerializeToString()
                        )
                    except OutriderError as exc:
                        await abort(context, exc)
                    return response_class.FromString(kept)
            finally:
                if not lock.locked():
                    self._inflight.pop(key, None)

        return behavior
