"""The combination rules of the SupervisorAgent library's "Supervisor guardrails", on the pure ChainRun."""

from __future__ import annotations

from server.domain.guardrails import ChainRun, GuardrailResult, Severity


def run(*results: tuple[str, GuardrailResult]) -> tuple[ChainRun, int]:
    chain = ChainRun()
    ran = 0
    for name, result in results:
        ran += 1
        if chain.record(name, result):
            break
    return chain, ran


def test_no_guardrails_allows() -> None:
    v = ChainRun().verdict()
    assert (v.allowed, v.severity, v.guardrail, v.warnings) == (True, Severity.INFO, "", ())


def test_first_block_returned_and_later_not_run() -> None:
    chain, ran = run(
        ("a", GuardrailResult.allow()),
        ("b", GuardrailResult.blocked("no")),
        ("c", GuardrailResult.blocked("never reached")),
    )
    v = chain.verdict()
    assert ran == 2
    assert (v.allowed, v.reason, v.severity, v.guardrail) == (False, "no", Severity.BLOCK, "b")


def test_all_allow_returns_last_result_and_keeps_earlier_warning_only_in_warnings() -> None:
    chain, _ = run(("a", GuardrailResult.warning("careful")), ("b", GuardrailResult.allow("fine")))
    v = chain.verdict()
    assert (v.allowed, v.reason, v.severity, v.guardrail) == (True, "fine", Severity.INFO, "b")
    assert v.warnings == (("a", "careful"),)


def test_last_warning_is_the_result_and_in_warnings() -> None:
    chain, _ = run(("a", GuardrailResult.allow()), ("b", GuardrailResult.warning("hm")))
    v = chain.verdict()
    assert (v.severity, v.reason, v.guardrail) == (Severity.WARNING, "hm", "b")
    assert v.warnings == (("b", "hm"),)


def test_warning_then_block_keeps_the_warning() -> None:
    chain, _ = run(("a", GuardrailResult.warning("w")), ("b", GuardrailResult.blocked("x")))
    v = chain.verdict()
    assert not v.allowed and v.warnings == (("a", "w"),)


def test_error_is_a_block_with_guardrail_error_reason() -> None:
    chain = ChainRun()
    assert chain.record_error("boom", "division by zero")
    v = chain.verdict()
    assert (v.allowed, v.reason, v.severity, v.guardrail) == (
        False,
        "Guardrail error: division by zero",
        Severity.BLOCK,
        "boom",
    )
