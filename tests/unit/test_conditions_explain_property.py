"""ExplainAction answers what CheckAction answers, conditions included: a property over generated actions, contexts
and agents, through the composition root on the in-memory adapters."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.bootstrap import build_services
from server.config import Config
from server.container import Services
from server.telemetry.settings import TelemetrySettings
from tests.fakes import FakeClock
from tests.fakes.memory import MemoryStore

CHAIN: list[tuple[str, str, dict[str, Any]]] = [
    (
        "big-refund",
        "rule",
        {
            "effect": "deny",
            "when": 'action == "payments.refund" && has(context.amount) && context.amount > 1000 '
            '&& agent.group != "finance"',
            "reason": "refund of {context.amount}",
        },
    ),
    ("flagged", "rule", {"effect": "deny", "when": "has(context.flag) && context.flag"}),  # a non-bool flag errors
    ("cap", "cost_cap", {"key": "cost", "max": 100, "strings": "parse", "when": 'agent.group != "finance"'}),
    (
        "etc",
        "action_list",
        {"deny": ["files.delete"], "match": "exact", "when": 'has(context.path) && context.path.startsWith("/etc")'},
    ),
    ("skip-me", "rule", {"effect": "deny", "when": "context.amount > 1000000", "on_error": "skip"}),
    ("mass", "rule", {"effect": "warn", "when": "has(context.to) && size(context.to) > 2"}),
    (
        "prod",
        "hitl",
        {"patterns": ["deploy.*"], "match": "glob", "when": 'has(context.env) && context.env == "production"'},
    ),
    ("tail", "cost_cap", {"key": "cost", "max": 1000}),
]
AGENTS = ["prop-fin", "prop-sup", "prop-anon"]
_requests = itertools.count()

scalars = st.one_of(
    st.integers(-5000, 5000),
    st.floats(-5000, 5000, allow_nan=False),
    st.booleans(),
    st.sampled_from(["1000", "50", "x", "/etc/passwd", "/tmp/a", "production", "staging"]),
)
contexts = st.dictionaries(
    st.sampled_from(["amount", "flag", "cost", "path", "to", "env", "other"]),
    st.one_of(scalars, st.lists(scalars, max_size=4)),
    max_size=5,
)
actions = st.one_of(
    st.sampled_from(["payments.refund", "files.delete", "deploy.web", "deploy", "get_deployment_status", "search"]),
    st.text(st.characters(min_codepoint=97, max_codepoint=122) | st.sampled_from("._"), min_size=1, max_size=16),
)


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    config = Config(
        data_dir=tmp_path_factory.mktemp("never-used"),
        console_enabled=False,
        telemetry=TelemetrySettings(enabled=False, metrics=False),
        max_pending_approvals_per_agent=10_000,
    )
    s = build_services(config, repos=MemoryStore().repositories(), clock=FakeClock())
    s.agents.register("prop-fin", "finance", [], {})
    s.agents.register("prop-sup", "support", [], {"team": "x"})
    for name, kind, options in CHAIN:
        s.chain.add_guardrail(name, kind, options)
    yield s
    s.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=actions, context=contexts, agent=st.sampled_from(AGENTS))
def test_explain_answers_what_check_answers(
    services: Services, action: str, context: dict[str, Any], agent: str
) -> None:
    explained = asyncio.run(services.explain.explain(agent, action, context, {}))
    checked = asyncio.run(
        services.checks.check_action(agent, action, context, {}, f"prop-{next(_requests)}", wait=False)
    )
    e, c = explained.verdict, checked.verdict
    assert (e.allowed, e.guardrail, e.severity, e.warnings) == (c.allowed, c.guardrail, c.severity, c.warnings)
    asked = checked.approval is not None
    assert explained.needs_approval == asked
    if not asked:  # a request that waits for a person is worded differently ("Would ask a human")
        assert e.reason == c.reason
