"""The safeguards' rules: circuit breakers, token budgets, execution leases, episodic memory,
reversibility and plan validation."""
