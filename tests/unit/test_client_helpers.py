"""The Python client's pure helpers: retry timings (seeded; the toolkit's defaults, jitter off, on_retry), sandboxed
execution, the control channel's rules, values read back from protobuf, a check stream's error answers."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import grpc
import pytest

from outrider import (
    InternalError,
    InvalidArgumentError,
    OutriderError,
    ResourceExhaustedError,
    SidecarTimeoutError,
    retry,
    sandboxed,
)
from outrider.errors import from_stream_error
from outrider.retry import backoff_delay
from outrider.v1 import supervisor_service_pb2 as spb


def test_backoff_is_exponential_with_jitter_in_half_to_one_and_a_half() -> None:
    rng = random.Random(42)
    for attempt in range(1, 8):
        d = backoff_delay(attempt, 0.1, None, rng)
        assert 0.1 * 2 ** (attempt - 1) * 0.5 <= d < 0.1 * 2 ** (attempt - 1) * 1.5
    assert backoff_delay(10, 1.0, 5.0, rng) == 5.0


def test_retry_sleeps_the_seeded_delays_then_reraises() -> None:
    slept: list[float] = []
    calls = []

    @retry(max_attempts=4, base=0.2, rng=random.Random(7), sleep=slept.append)
    def flaky() -> None:
        calls.append(1)
        raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        flaky()
    expected_rng = random.Random(7)
    assert len(calls) == 4
    assert slept == [0.2 * 2 ** (n - 1) * expected_rng.uniform(0.5, 1.5) for n in (1, 2, 3)]


def test_retry_returns_on_success_and_only_retries_listed_errors() -> None:
    attempts = iter([ValueError(), 42])

    @retry(max_attempts=3, base=0, retry_on=(ValueError,), sleep=lambda _: None)
    def sometimes() -> int:
        value = next(attempts)
        if isinstance(value, Exception):
            raise value
        return value

    assert sometimes() == 42

    @retry(max_attempts=5, retry_on=(ValueError,), sleep=lambda _: None)
    def wrong() -> None:
        raise KeyError("not retried")

    with pytest.raises(KeyError):
        wrong()


def test_retry_async_and_max_delay() -> None:
    slept: list[float] = []

    async def fake_sleep(d: float) -> None:
        slept.append(d)

    @retry(max_attempts=3, base=10, max_delay=1.5, rng=random.Random(1), sleep=fake_sleep)
    async def down() -> None:
        raise TimeoutError

    with pytest.raises(TimeoutError):
        asyncio.run(down())
    assert slept == [1.5, 1.5]


def test_retry_defaults_to_the_toolkit_base_of_one_second_and_jitter_can_be_switched_off() -> None:
    """The Agent Governance Toolkit: base 1.0 s, the n-th retry waits base * 2**(n-1); jitter=False gives
    exactly that, jitter (the default) multiplies it by a factor in [0.5, 1.5)."""
    slept: list[float] = []

    @retry(max_attempts=4, jitter=False, sleep=slept.append)
    def down() -> None:
        raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        down()
    assert slept == [1.0, 2.0, 4.0]

    jittered: list[float] = []

    @retry(max_attempts=4, sleep=jittered.append)
    def also_down() -> None:
        raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        also_down()
    assert [0.5 * 2 ** (n - 1) <= d < 1.5 * 2 ** (n - 1) for n, d in enumerate(jittered, 1)] == [True] * 3
    assert backoff_delay(3, 1.0, None, jitter=False) == 4.0 and backoff_delay(3, 1.0, 3.0, jitter=False) == 3.0


def test_on_retry_sees_each_failed_attempt_before_its_wait_and_not_the_last() -> None:
    events: list[tuple[object, object]] = []
    errors = iter([ConnectionError("1"), ConnectionError("2"), ConnectionError("3")])
    raised: list[BaseException] = []

    @retry(
        max_attempts=3,
        base=0.1,
        jitter=False,
        sleep=lambda d: events.append(("sleep", d)),
        on_retry=lambda n, exc: events.append((n, exc)),
    )
    def flaky() -> None:
        raised.append(next(errors))
        raise raised[-1]

    with pytest.raises(ConnectionError) as last:
        flaky()
    assert last.value is raised[2]
    assert events == [(1, raised[0]), ("sleep", 0.1), (2, raised[1]), ("sleep", 0.2)]

    seen: list[int] = []

    async def no_sleep(_: float) -> None:
        return None

    @retry(max_attempts=3, jitter=False, sleep=no_sleep, on_retry=lambda n, _: seen.append(n))
    async def async_flaky() -> int:
        if len(seen) < 2:
            raise TimeoutError
        return 7

    assert asyncio.run(async_flaky()) == 7 and seen == [1, 2]

    class Stop(Exception): ...

    def refuse(n: int, exc: BaseException) -> None:
        raise Stop from exc

    @retry(max_attempts=5, sleep=lambda _: pytest.fail("no wait after on_retry refused"), on_retry=refuse)
    def gives_up() -> None:
        raise ConnectionError

    with pytest.raises(Stop):
        gives_up()


def test_retry_rejects_max_attempts_below_one_at_decoration_time() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        retry(max_attempts=0)


def test_sandboxed_never_raises() -> None:
    ok = sandboxed(lambda t: t.upper(), "plan the release", timeout=5, read_only=True)
    assert (ok.completed, ok.result, ok.error) == (True, "[READ-ONLY MODE] PLAN THE RELEASE", None)
    boom = sandboxed(lambda: 1 / 0, timeout=5)
    assert not boom.completed and boom.error == "ZeroDivisionError: division by zero"
    gate = threading.Event()
    try:  # the function blocks until the test opens the gate: returning first proves the timeout cut it off
        slow = sandboxed(lambda: gate.wait(600), timeout=0.1)
        assert not gate.is_set()
    finally:
        gate.set()
    assert not slow.completed and slow.error == "timed out after 0.1s"
    assert slow.duration >= 0.1


def test_how_the_agent_helper_treats_a_stream_end() -> None:
    from outrider._control import FATAL, KILLED, REPLACED, RETRY, end_of

    def err(code: grpc.StatusCode, reason: str = "") -> OutriderError:
        return OutriderError("x", code=code, reason=reason)

    assert end_of(None) == RETRY  # the sidecar ended it normally
    assert end_of(err(grpc.StatusCode.ABORTED, "AGENT_KILLED")) == KILLED
    assert end_of(err(grpc.StatusCode.ABORTED, "STREAM_REPLACED")) == REPLACED
    assert end_of(err(grpc.StatusCode.ABORTED, "SHUTTING_DOWN")) == RETRY
    for code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.CANCELLED):
        assert end_of(err(code)) == RETRY
    for code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        assert end_of(err(code)) == FATAL


def test_reconnect_backoff_grows_and_restarts_after_an_accepted_stream() -> None:
    from outrider._control import Backoff

    b, expected = Backoff(0.5, 4.0, random.Random(5)), random.Random(5)
    delays = [b.next(False), b.next(False), b.next(False), b.next(True), b.next(False)]
    attempts = [1, 2, 3, 1, 2]
    assert delays == [min(0.5 * 2 ** (n - 1) * expected.uniform(0.5, 1.5), 4.0) for n in attempts]


def test_callbacks_answers_and_duplicates() -> None:
    from outrider._control import REJECTED, SUCCESS, Callbacks, Command, CommandRejected, Tracker, Work, ack_of

    ping, restart = Command("c1", "PING", ""), Command("c2", "RESTART", "why")
    assert Callbacks().work_for(ping) == (SUCCESS, "pong")
    assert Callbacks().work_for(restart) == (REJECTED, "RESTART is not handled by this agent")
    assert Callbacks().work_for(Command("c3", "KILL", "")) == (SUCCESS, "terminating")
    work = Callbacks(on_restart=lambda c: c.reason == "why").work_for(restart)
    assert isinstance(work, Work) and ack_of(work()) == (SUCCESS, "")
    assert ack_of(False)[0] != SUCCESS
    from outrider._control import ack_of_error

    assert ack_of_error(CommandRejected("busy")) == (REJECTED, "busy")
    t = Tracker()
    assert t.admit("c2") is True and t.admit("c2") is False  # running: the ack goes out when done
    t.finish("c2", (SUCCESS, ""))
    assert t.admit("c2") == (SUCCESS, "")  # re-sent after a reconnect: the same ack again


def test_values_come_back_as_json_would_parse_them() -> None:
    from outrider._common import from_value, to_value

    data = {"n": 3, "x": 0.5, "s": "a", "l": [1, None, True], "big": 2.0**60}
    value = to_value(data)
    assert value is not None and from_value(value) == data
    assert type(from_value(value)["n"]) is int and type(from_value(value)["big"]) is float
    assert to_value(object()) is None and to_value(float("nan")) is None


def test_every_proto_value_has_its_enum_member_and_unknown_numbers_do_not_fail() -> None:
    """Walks the generated enums, so a value added to a proto without its client member fails here."""
    from outrider import enums
    from outrider.enums import from_proto
    from outrider.v1 import common_pb2, recovery_pb2, safeguard_pb2, supervisor_pb2

    pairs: list[tuple[type[enums.StrEnum], Any]] = [
        (enums.Severity, common_pb2.Severity),
        (enums.ApprovalState, supervisor_pb2.ApprovalState),
        (enums.BreakerState, safeguard_pb2.BreakerState),
        (enums.DegradationStrategy, safeguard_pb2.DegradationStrategy),
        (enums.CommandType, recovery_pb2.ControlCommandType),
        (enums.KillReason, recovery_pb2.KillReason),
        (enums.SignalType, safeguard_pb2.BudgetSignalType),
        (enums.Priority, safeguard_pb2.ContextPriority),
    ]
    for cls, proto in pairs:
        for value in proto.DESCRIPTOR.values:
            member = from_proto(cls, proto, value.number, fallback=None)
            assert value.name.endswith(member.name) and member == member.name, (cls, value.name)
        assert from_proto(cls, proto, 999) == "UNSPECIFIED"
    assert from_proto(enums.CommandType, recovery_pb2.ControlCommandType, 999, enums.CommandType.UNKNOWN) == "UNKNOWN"
    assert {s.value for s in enums.Scope} == {
        v.name.removeprefix("ISOLATION_SCOPE_").lower() for v in safeguard_pb2.IsolationScope.DESCRIPTOR.values[1:]
    }
    assert enums.Severity.BLOCK == "BLOCK" and f"{enums.Severity.BLOCK}" == "BLOCK" and enums.ApprovalState.NONE == ""
    assert not enums.StopReason.NONE and enums.StopReason.KILLED == "killed" and not enums.ApprovalState.NONE


def test_the_check_action_re_attach_plan_on_a_hand_moved_clock() -> None:
    """The loop both clients drive: each attempt gets min(attach_interval, time left); a failed attempt
    pauses and goes again until approval_timeout, then the "no decision" DeadlineExceededError when the
    last attempt ran out of time, the real error otherwise; wait=False never re-sends."""
    from outrider import DeadlineExceededError, SidecarTimeoutError, SidecarUnreachableError
    from outrider._base import REATTACH_PAUSE, Reattach
    from outrider.v1 import supervisor_service_pb2 as pb

    now = [100.0]
    request = pb.CheckActionRequest(request_id="r-1")
    plan = Reattach(request, True, 10.0, 4.0, clock=lambda: now[0])
    timeouts = []
    while True:
        try:
            timeouts.append(plan.next_timeout())
        except DeadlineExceededError as exc:
            assert str(exc) == "no decision within 10s; request r-1 stays pending"
            break
        now[0] += timeouts[-1]
        if now[0] < 110:
            assert plan.pause_after(SidecarTimeoutError("Deadline Exceeded")) == REATTACH_PAUSE
            now[0] += REATTACH_PAUSE
        else:
            with pytest.raises(DeadlineExceededError, match="no decision") as ran_out:
                plan.pause_after(SidecarTimeoutError("Deadline Exceeded"))
            assert not isinstance(ran_out.value, SidecarTimeoutError)
            break
    assert timeouts == [4.0, 4.0, pytest.approx(1.6)]
    unreachable = SidecarUnreachableError("connection refused")
    with pytest.raises(SidecarUnreachableError):
        plan.pause_after(unreachable)  # time is up, and the reason was not a deadline: say what it was
    assert Reattach(request, True, None, 4.0, clock=lambda: 1e9).pause_after(unreachable) == REATTACH_PAUSE
    with pytest.raises(SidecarUnreachableError):
        Reattach(request, False, None, 4.0).pause_after(unreachable)


class _Status(grpc.RpcError):
    """What grpc raises for a failed call, with no server details (as a refused connection gives)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[()]:
        return ()


def test_the_re_attach_loops_decisions_shared_by_both_agent_helpers(caplog: pytest.LogCaptureFixture) -> None:
    from outrider import SidecarTimeoutError, SidecarUnreachableError, StopReason
    from outrider._control import BaseAgent, Callbacks

    agent = BaseAgent("a1", Callbacks(), "host:1", 0.5, 4.0, random.Random(2))
    expected = random.Random(2)
    down = _Status(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses")
    assert agent._stream_ended(down, False) == 0.5 * expected.uniform(0.5, 1.5)
    assert isinstance(agent.error, SidecarUnreachableError)
    assert agent._stream_ended(_Status(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"), False) == (
        1.0 * expected.uniform(0.5, 1.5)
    )
    assert isinstance(agent.error, SidecarTimeoutError)
    assert agent._stream_ended(None, True) == 0.5 * expected.uniform(0.5, 1.5)  # accepted: the backoff restarts
    assert agent.error is None
    with caplog.at_level("ERROR", logger="outrider"):
        assert agent._stream_ended(KeyError("ours"), False) is not None  # a bug of ours: keep trying
    assert agent.error is not None and agent.error.message == "KeyError: 'ours'" and caplog.records
    assert agent._stream_ended(_Status(grpc.StatusCode.UNAUTHENTICATED, "bad token"), False) is None
    assert agent._outcome is StopReason.FATAL and agent.error.message == "bad token"


def test_a_check_streams_error_answer_becomes_the_unary_calls_typed_error() -> None:
    err = from_stream_error(
        spb.CheckActionsError(code=3, message="action is required", reason="INVALID_FIELD", field="check.action")
    )
    assert type(err) is InvalidArgumentError and err.code == grpc.StatusCode.INVALID_ARGUMENT
    assert (err.message, err.reason, err.field, err.metadata) == (
        "action is required",
        "INVALID_FIELD",
        "action",
        {"field": "action"},
    )
    busy = from_stream_error(spb.CheckActionsError(code=8, message="too many", reason="TOO_MANY_IN_FLIGHT"))
    assert type(busy) is ResourceExhaustedError and (busy.field, busy.metadata) == ("", {})
    # A sidecar's answer, never a TransportError; an unknown number or INTERNAL is an InternalError.
    late = from_stream_error(spb.CheckActionsError(code=4, message="slow"))
    assert not isinstance(late, SidecarTimeoutError) and late.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert type(from_stream_error(spb.CheckActionsError(code=99))) is InternalError
    assert type(from_stream_error(spb.CheckActionsError(code=13, message="boom"))) is InternalError
    assert from_stream_error(spb.CheckActionsError(code=3, field="other.x")).field == "other.x"
