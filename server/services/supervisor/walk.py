"""The one walk of the chain: CheckAction and CheckActions (services/supervisor/check.py), shadow mode,
ExplainAction and `policy explain` (explain.py), `policy test` (through CheckAction) and `policy replay`
(replay.py) all go through `walk`, so a guardrail applies, asks, fails and combines the same way in each.

In evaluation order (trust roots first), each guardrail:
1. is passed over when an earlier one decided (a block, or a matching hitl guardrail that ends the walk),
   when it is in shadow and the shadow outcome is already known, or when the walk does not evaluate its kind
   (`Walker.skips`: replay leaves out the kinds that need live state);
2. has its `when:` asked first (chain.gate): when false it allows at INFO ("Not applied: …"), when it cannot be
   evaluated it is the chain's error block (or skipped with `on_error: skip`);
3. asks a human when it is a hitl guardrail that matches the call (`Walker.ask`: CheckAction asks and may
   wait; explain and replay say "would ask a human" and end the walk); a shadow hitl guardrail never asks;
4. otherwise answers through `Walker.answer` (CheckAction: `check`; shadow: `shadow_check`; explain and
   replay: their side-effect-free previews);
5. is combined by the seed's rules (ChainRun): the first block ends the walk, a warning goes on, an
   exception is a block `Guardrail error: …` (except a hitl guardrail's StorageUnavailable: its request could
   not be stored, so the call fails UNAVAILABLE); a shadow guardrail's result only becomes the shadow outcome.

What differs between the uses (side effects, timing, spans, what is recorded per step) is the `Walker`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from server.domain.errors import StorageUnavailable
from server.domain.guardrails import ActionCall, ChainRun, Guardrail, GuardrailResult
from server.domain.guardrails.hitl import Hitl, would_ask_reason

T = TypeVar("T")
LevelOf = Callable[[str, dict[str, Any]], str | None]


class Walker(Protocol):
    """What one use of the walk does at each guardrail."""

    def skips(self, guardrail: Guardrail) -> bool:
        """True: this walk does not evaluate the guardrail at all (it neither allows nor blocks)."""
        ...

    async def condition(self, guardrail: Guardrail, call: ActionCall) -> GuardrailResult | None:
        """The guardrail's `when:` (chain.gate), wherever this walk runs it."""
        ...

    def begin(self, guardrail: Guardrail) -> Any:
        """The guardrail is about to be evaluated (after its condition held); the token goes to `end`."""
        ...

    async def ask(self, hitl: Hitl, call: ActionCall, run: ChainRun, token: Any) -> tuple[GuardrailResult | None, bool]:
        """An enforcing hitl guardrail matched the call: its result, and True when the walk ends here."""
        ...

    async def answer(self, guardrail: Guardrail, call: ActionCall, now: float) -> GuardrailResult:
        """Any other evaluation, enforcing or in shadow (`guardrail.shadow`)."""
        ...

    def end(self, token: Any, guardrail: Guardrail, result: GuardrailResult | None, error: str, asks: bool) -> None:
        """The guardrail was evaluated (`result` None: the walk ended at it without one, see `ask`)."""
        ...

    def cancelled(self, token: Any) -> None:
        """The call was cancelled during the guardrail's evaluation (the exception propagates)."""
        ...

    def passed_over(self, guardrail: Guardrail) -> None:
        """The guardrail was not evaluated (an earlier one decided, or its shadow outcome was known)."""
        ...


@dataclass(slots=True)
class Walked:
    run: ChainRun
    # The enforcing hitl guardrail that ended the walk, with the result it ended it with (None when it ended
    # without one: a pending request, an edit to re-run).
    halted_by: Guardrail | None = None
    halt_result: GuardrailResult | None = None


def matches(hitl: Hitl, call: ActionCall, assess_level: LevelOf) -> bool:
    """Whether a hitl guardrail asks about this call (its reversibility levels come from SafeguardService)."""
    level = assess_level(call.action, dict(call.context)) if hitl.reversibility else None
    return hitl.matches(call.action, level)


async def walk(
    order: Sequence[Guardrail], call: ActionCall, now: float, walker: Walker, assess_level: LevelOf
) -> Walked:
    walked = Walked(ChainRun())
    run = walked.run
    for guardrail in order:
        shadow = guardrail.shadow
        if run.stopped or walked.halted_by is not None or (shadow and run.skips(guardrail)):
            walker.passed_over(guardrail)
            continue
        if walker.skips(guardrail):
            continue
        token = None
        asks = False
        error = ""
        result: GuardrailResult | None
        try:
            result = await walker.condition(guardrail, call) if guardrail.condition is not None else None
            if result is None:
                token = walker.begin(guardrail)
                if guardrail.needs_approval and matches(cast(Hitl, guardrail), call, assess_level):
                    asks = True
                    if shadow:
                        result = GuardrailResult.blocked(would_ask_reason(guardrail.name))
                    else:
                        result, halts = await walker.ask(cast(Hitl, guardrail), call, run, token)
                        if halts:
                            walked.halted_by, walked.halt_result = guardrail, result
                else:
                    result = await walker.answer(guardrail, call, now)
        except Exception as exc:
            if asks and isinstance(exc, StorageUnavailable):
                # A human could not be asked (the request cannot be stored, or its answer not delivered):
                # the sidecar cannot answer the call (UNAVAILABLE, retry), which is no policy outcome.
                walker.cancelled(token)
                raise
            error = str(exc) or type(exc).__name__
            result = GuardrailResult.blocked(f"Guardrail error: {error}")
        except BaseException:  # cancelled: the agent went away
            walker.cancelled(token)
            raise
        walker.end(token, guardrail, result, error, asks)
        if result is None:
            continue  # halted without a result
        if shadow:
            run.record_shadow(guardrail.name, result, needs_approval=asks)
        elif walked.halted_by is None:
            run.record(guardrail.name, result)
    return walked


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Drive a walk whose walker never waits for anything (replay) to its end, without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    coroutine.close()
    raise RuntimeError("the walk waited for something; run it on an event loop")


async def isolated(
    executor: Executor,
    fn: Callable[[ActionCall, float], GuardrailResult],
    guardrail: Guardrail,
    call: ActionCall,
    now: float,
) -> GuardrailResult:
    """User code (a plugin guardrail) on a worker thread under the guardrail's time limit."""
    timeout: float = getattr(guardrail, "timeout", 1.0)
    future = asyncio.get_running_loop().run_in_executor(executor, fn, call, now)
    try:
        return await asyncio.wait_for(future, timeout)
    except TimeoutError:
        raise TimeoutError(f"{guardrail.name} did not answer within {timeout:g}s") from None
