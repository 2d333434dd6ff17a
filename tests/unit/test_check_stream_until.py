"""`answer_stream`'s `until` watcher (server/rpc/check_stream.py): what a killed agent's CheckActions stream
relies on. When the watcher raises, the answers already decided are delivered first and then the stream
ends with the watcher's error; a watcher that never raises changes nothing; the watcher ends with the stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from outrider.v1 import supervisor_service_pb2 as pb
from server.domain.errors import PermissionDenied
from server.rpc.check_stream import answer_stream


async def _requests(ids: list[int], more: asyncio.Event) -> AsyncIterator[pb.CheckActionsRequest]:
    for i in ids:
        yield pb.CheckActionsRequest(id=i, check=pb.CheckActionRequest(agent_id="a", action="read"))
    await more.wait()  # the client keeps its side open


async def _allow(message: pb.CheckActionsRequest, answer: pb.CheckActionResponse) -> None:
    answer.allowed, answer.guardrail = True, "g"


def test_a_raising_watcher_ends_the_stream_after_the_answers_already_decided() -> None:
    async def go() -> tuple[list[int], BaseException | None]:
        decided = asyncio.Event()
        seen: list[int] = []

        async def until() -> None:
            await decided.wait()
            raise PermissionDenied("killed", reason="AGENT_TERMINATED")

        stream = answer_stream(_requests([1, 2, 3], asyncio.Event()), _allow, 16, until)
        try:
            async for answer in stream:
                seen.append(answer.id)
                decided.set()  # the watcher raises while answers 2 and 3 may still be queued
        except PermissionDenied as exc:
            return seen, exc
        return seen, None

    seen, error = asyncio.run(go())
    assert sorted(seen) == [1, 2, 3]
    assert isinstance(error, PermissionDenied) and error.reason == "AGENT_TERMINATED"


def test_a_watcher_that_does_not_raise_leaves_the_stream_alone_and_ends_with_it() -> None:
    async def go() -> tuple[list[int], bool]:
        started = asyncio.Event()
        cancelled = asyncio.Event()

        async def until() -> None:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise

        more = asyncio.Event()
        more.set()  # the client half-closes after its requests
        seen = [answer.id async for answer in answer_stream(_requests([1, 2], more), _allow, 16, until)]
        await asyncio.wait_for(cancelled.wait(), timeout=30)
        return sorted(seen), started.is_set()

    seen, started = asyncio.run(go())
    assert seen == [1, 2] and started


@pytest.mark.parametrize("window", [1, 4])
def test_without_a_watcher_every_request_is_answered(window: int) -> None:
    async def go() -> list[int]:
        more = asyncio.Event()
        more.set()
        return sorted([a.id async for a in answer_stream(_requests(list(range(1, 9)), more), _allow, window)])

    assert asyncio.run(go()) == list(range(1, 9))
