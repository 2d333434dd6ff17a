"""The guardrail chain: verdicts, the kinds of guardrail, and the rules that combine them."""

from .base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec, Severity
from .chain import ChainRun, Verdict, evaluation_order
from .factory import KINDS, build_guardrail

__all__ = [
    "KINDS",
    "ActionCall",
    "ChainRun",
    "Guardrail",
    "GuardrailResult",
    "GuardrailSpec",
    "Severity",
    "Verdict",
    "build_guardrail",
    "evaluation_order",
]
