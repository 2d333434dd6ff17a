"""A channel that sends `authorization: Bearer <token>` on every call, as agents and operators do."""

from __future__ import annotations

import collections
from typing import Any

import grpc


class _Details(
    collections.namedtuple(
        "_Details", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")
    ),
    grpc.ClientCallDetails,
):
    pass


class BearerInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    def __init__(self, secret: str) -> None:
        self.pair = ("authorization", f"Bearer {secret}")

    def _with_token(self, d: Any) -> _Details:
        return _Details(
            d.method, d.timeout, [*(d.metadata or ()), self.pair], d.credentials, d.wait_for_ready, d.compression
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with_token(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with_token(details), requests)


def with_token(channel: grpc.Channel, secret: str) -> grpc.Channel:
    return grpc.intercept_channel(channel, BearerInterceptor(secret))
