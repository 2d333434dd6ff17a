"""The serving process freezes what it built at start-up out of the cyclic garbage collector's reach (issue 31:
full collections walked every module, class and service object, 100-400 ms each under load, and they stop
every thread). Object counts are asserted, never timings."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from server.sidecar import freeze_startup_heap


@pytest.fixture
def unfreeze_after() -> Iterator[None]:
    try:
        yield
    finally:
        gc.unfreeze()  # this pytest worker goes on collecting as before


def test_a_full_collection_no_longer_walks_what_start_up_left_alive(unfreeze_after: None) -> None:
    gc.collect()
    alive = len(gc.get_objects())  # what a full collection walks
    assert alive > 10_000  # a process with the sidecar's modules imported

    frozen = freeze_startup_heap()

    assert frozen >= alive * 0.9  # (nearly) every object alive at start-up: they stay alive
    walked = len(gc.get_objects())
    assert walked < alive // 10  # only what was allocated since


def test_objects_made_after_the_freeze_are_collected_as_before(unfreeze_after: None) -> None:
    freeze_startup_heap()

    class Node:
        def __init__(self) -> None:
            self.me = self  # a reference cycle: only the cyclic collector frees it

    cycles = [Node() for _ in range(1_000)]
    del cycles
    assert gc.collect() >= 1_000
