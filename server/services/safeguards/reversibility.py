"""Reversibility assessment and plan validation (the Agent Governance Toolkit, section 5 and 8): pure rules,
configured from
the policy file's `reversibility:` list, plus the agent registry for an executor's capabilities."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.domain.agents import Agent
from server.domain.errors import InvalidArgument
from server.domain.safeguards import plans
from server.domain.safeguards import reversibility as rules
from server.domain.safeguards.reversibility import Assessment, Rule
from server.services.pages import page_at
from server.services.ports import Clock, Page

MAX_STEPS = 10_000


class ReversibilityService:
    def __init__(
        self, clock: Clock, policy: Sequence[Rule] = (), get_agent: Callable[[str], Agent] | None = None
    ) -> None:
        self.clock = clock
        self.get_agent = get_agent
        self._lock = threading.Lock()
        self._policy: tuple[Rule, ...] = tuple(policy)

    def set_policy(self, policy: Sequence[Rule]) -> None:
        """Replace the policy file's rules (at start-up, and when the file is reloaded)."""
        with self._lock:
            self._policy = tuple(policy)

    def assess(self, action: str, parameters: Mapping[str, Any]) -> Assessment:
        return rules.assess(action, parameters, self._policy, self.clock.utcnow())

    def level_of(self, action: str, parameters: dict[str, Any]) -> str:
        """The level's name (e.g. "IRREVERSIBLE"), for the `hitl` guardrail's `reversibility: true`."""
        return rules.assess(action, parameters, self._policy, self.clock.utcnow()).level.name

    def list_rules(self, page_size: int, page_token: str) -> Page[Rule]:
        items, token = page_at(rules.rules_in_effect(self._policy), page_size, page_token)
        return Page(items, token)

    def validate_plan(
        self, steps: Sequence[plans.Step], capabilities: Sequence[str], agent_id: str = ""
    ) -> list[plans.Violation]:
        """Every violation of the plan; without `capabilities`, the registered agent's are used."""
        if len(steps) > MAX_STEPS:
            raise InvalidArgument(f"plan has {len(steps)} steps, over the limit of {MAX_STEPS}", field="plan.steps")
        allowed: Sequence[str] = capabilities
        if not capabilities and agent_id and self.get_agent is not None:
            allowed = self.get_agent(agent_id).capabilities
        return plans.validate(steps, allowed)
