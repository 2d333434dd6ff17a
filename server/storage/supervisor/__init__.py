"""SQL storage of agents, the guardrail chain and the decision log."""
