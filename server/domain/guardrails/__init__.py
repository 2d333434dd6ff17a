"""The guardrail chain: verdicts, the kinds of guardrail, and the rules that combine them."""

from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec, Severity
from server.domain.guardrails.chain import ChainRun, ShadowOutcome, Verdict, evaluation_order, gate, running_order
from server.domain.guardrails.factory import KINDS, build_guardrail

__all__ = [
    "KINDS",
    "ActionCall",
    "ChainRun",
    "Guardrail",
    "GuardrailResult",
    "GuardrailSpec",
    "Severity",
    "ShadowOutcome",
    "Verdict",
    "build_guardrail",
    "evaluation_order",
    "gate",
    "running_order",
]
