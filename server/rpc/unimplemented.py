"""Servicers for services whose RPCs are designed but not built yet: each answers UNIMPLEMENTED."""

from __future__ import annotations

from typing import Any

import grpc


def unimplemented_servicer(base: type, service: str) -> Any:
    """A subclass of the generated servicer whose every RPC aborts UNIMPLEMENTED with a clear message."""

    def make(name: str) -> Any:
        async def method(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            await context.abort(
                grpc.StatusCode.UNIMPLEMENTED, f"{service}.{name} is not available in this version of Outrider"
            )

        method.__name__ = name
        return method

    names = [n for n, v in vars(base).items() if callable(v) and not n.startswith("_")]
    return type(f"Unimplemented{base.__name__}", (base,), {n: make(n) for n in names})()
