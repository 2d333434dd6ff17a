"""SafeguardService use cases: breakers, budgets, leases, episodes, reversibility, their events and
settings."""
