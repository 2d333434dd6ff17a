"""server/logs.py: the sidecar's log handler writes to the stderr of the moment (a test's capture that was
closed, or a replaced stream, never turns later records into `--- Logging error ---`)."""

from __future__ import annotations

import io
import logging
import sys

import pytest

from server.logs import setup_logging


def test_records_go_to_the_current_stderr_even_after_the_first_one_was_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    try:
        setup_logging("text", "info")
        logging.getLogger("outrider.test").info("one")
        first.close()  # what pytest does to a test's capture when the test ends
        second = io.StringIO()
        monkeypatch.setattr(sys, "stderr", second)
        logging.getLogger("outrider.test").info("two")
        out = second.getvalue()
        assert "Logging error" not in out and out.rstrip().endswith("outrider.test: two"), out
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
