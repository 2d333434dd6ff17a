"""SQL storage of the recovery feature: policies, agent state, history, checks, events, kills."""
