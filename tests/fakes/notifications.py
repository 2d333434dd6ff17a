"""The in-memory notification outbox moved to server/adapters/memory/notifications.py; kept importable here."""

from server.adapters.memory.notifications import MemoryNotifications

__all__ = ["MemoryNotifications"]
