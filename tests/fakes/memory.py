"""The in-memory repositories moved to server/adapters/memory (the policy CLI ships them); kept importable here."""

from server.adapters.memory import MemoryStore, memory_repositories

__all__ = ["MemoryStore", "memory_repositories"]
