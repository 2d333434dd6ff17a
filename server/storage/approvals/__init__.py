"""SQL storage of approval requests."""
