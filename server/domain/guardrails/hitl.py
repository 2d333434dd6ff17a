"""`hitl`: human approval (the SupervisorAgent library's "Human approval").

An action matches when it *contains* any pattern, ignoring case (`deploy` matches `redeploy-cache`;
both sides NFKC-normalised and case-folded, or only normalised with `case_sensitive: true`), or, with
`match: glob` or `match: exact`, when a pattern matches the whole name; non-matching actions are allowed.
A matching action waits for a reviewer: the waiting itself is the supervisor service's business; this class
only says whether a call needs approval and with what policy.
"""

from __future__ import annotations

from collections.abc import Callable

from server.domain.approvals.requests import ApprovalPolicy
from server.domain.errors import InvalidArgument
from server.domain.guardrails.base import ActionCall, Guardrail, GuardrailResult, GuardrailSpec
from server.domain.guardrails.options import Options
from server.domain.guardrails.patterns import NameSet, match_mode
from server.domain.values import is_number, parse_duration

DEFAULT_NAME = "hitl-approval"
# Levels from the reversibility assessment that require approval when `reversibility: true`.
NEEDS_APPROVAL_LEVELS = frozenset({"IRREVERSIBLE", "UNKNOWN"})

ReversibilityLevel = Callable[[str, dict[str, object]], str]


# The options of the approval itself: `hitl`'s, and those of a `rule` with `effect: ask`.
APPROVAL_OPTIONS = frozenset(
    {
        "approvers",
        "timeout",
        "on_timeout",
        "escalate_to",
        "escalate_timeout",
        "min_approvals",
        "prevent_self_review",
        "edits_require_approval",
        "on_reuse",
        "notify",
    }
)


def approval_policy(opts: Options) -> ApprovalPolicy:
    """Who decides, by when, and what happens then, from a guardrail's options (errors name the option)."""
    timeout = opts.get("timeout")
    on_timeout = opts.get("on_timeout", "deny")
    if on_timeout not in ("deny", "escalate"):
        raise InvalidArgument(
            f"{opts.where('on_timeout')}: must be 'deny' or 'escalate' (auto-approval is not offered), "
            f"got {on_timeout!r}",
            field="on_timeout",
        )
    escalate_to = opts.strings("escalate_to")
    if on_timeout == "escalate" and not escalate_to:
        raise InvalidArgument(
            f"{opts.where('escalate_to')}: on_timeout: escalate needs escalate_to", field="escalate_to"
        )
    if on_timeout == "escalate" and timeout is None:
        raise InvalidArgument(f"{opts.where('timeout')}: on_timeout: escalate needs a timeout", field="timeout")
    min_approvals = opts.get("min_approvals", 1)
    if not is_number(min_approvals) or min_approvals < 1 or not float(min_approvals).is_integer():
        raise InvalidArgument(f"{opts.where('min_approvals')}: must be a whole number >= 1", field="min_approvals")
    esc_timeout = opts.get("escalate_timeout")
    # An approval grants one action: what a later identical request (same request id, action, context) gets.
    on_reuse = opts.get("on_reuse", "block")
    if on_reuse not in ("block", "ask_again"):
        raise InvalidArgument(
            f"{opts.where('on_reuse')}: must be 'block' or 'ask_again', got {on_reuse!r}", field="on_reuse"
        )
    return ApprovalPolicy(
        approvers=opts.strings("approvers"),
        timeout=parse_duration(timeout, opts.where("timeout")) if timeout is not None else None,
        on_timeout=str(on_timeout),
        escalate_to=escalate_to,
        escalate_timeout=parse_duration(esc_timeout, opts.where("escalate_timeout")) if esc_timeout else None,
        min_approvals=int(min_approvals),
        prevent_self_review=bool(opts.get("prevent_self_review", False)),
        edits_require_approval=bool(opts.get("edits_require_approval", False)),
        on_reuse=on_reuse,
        notify=opts.strings("notify"),
    )


class Hitl(Guardrail):
    kind = "hitl"
    needs_approval = True

    def __init__(self, spec: GuardrailSpec) -> None:
        super().__init__(spec)
        opts = Options(spec, allowed={"patterns", "match", "reversibility", "case_sensitive", *APPROVAL_OPTIONS})
        self.patterns = opts.strings("patterns")
        self.case_sensitive = opts.boolean("case_sensitive", False)
        # `contains` is the SupervisorAgent library's rule (and the default); `glob` and `exact` say what they mean.
        self.names = NameSet(
            self.patterns, match_mode(opts.get("match"), "contains", opts.where("match")), self.case_sensitive
        )
        self.reversibility = bool(opts.get("reversibility", False))
        if not self.patterns and not self.reversibility:
            raise InvalidArgument(f"{opts.where('patterns')}: give patterns, or reversibility: true", field="patterns")
        self.policy = approval_policy(opts)

    def matches(self, action: str, level: str | None = None) -> bool:
        if self.names.matches(action):
            return True
        return self.reversibility and level is not None and level in NEEDS_APPROVAL_LEVELS

    def check(self, call: ActionCall, now: float) -> GuardrailResult:
        # Reached only for calls that need no approval.
        return GuardrailResult.allow()

    def note(self, call: ActionCall) -> tuple[tuple[str, str], ...]:
        """What the approval request shows the reviewer besides the chain's warnings (a rule's reason)."""
        return ()

    def with_patterns(self, patterns: tuple[str, ...]) -> Hitl:
        options = {**self.spec.options, "patterns": list(patterns)}
        return Hitl(GuardrailSpec(self.spec.name, self.kind, options, self.spec.source))


def would_ask_reason(guardrail: str) -> str:
    """The reason given where a hitl guardrail matched but nobody is asked (explain, shadow mode, replay)."""
    return f"Would ask a human: guardrail {guardrail!r} requires approval"
