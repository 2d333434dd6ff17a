"""Human approval requests: states, decisions, expiry and escalation rules, without I/O."""
