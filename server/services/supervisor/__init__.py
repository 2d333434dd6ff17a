"""SupervisorService use cases: the guardrail chain, CheckAction and the decision log."""
