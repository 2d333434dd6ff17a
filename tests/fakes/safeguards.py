"""The in-memory safeguard storage moved to server/adapters/memory/safeguards.py; kept importable here."""

from server.adapters.memory.safeguards import MemoryAudit, MemorySafeguards

__all__ = ["MemoryAudit", "MemorySafeguards"]
