"""SQL storage of the notification outbox (migration 0060, on its own branch from 0002)."""
