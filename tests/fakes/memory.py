"""The in-memory repositories moved to server/adapters/memory (the policy CLI ships them); kept importable here."""

from server.adapters.memory import (
    Counters,
    MemoryAgents,
    MemoryApprovals,
    MemoryAuditLog,
    MemoryDecisions,
    MemoryGuardrails,
    MemoryKills,
    MemoryRecovery,
    MemoryRecoveryEvents,
    MemorySessions,
    MemorySettings,
    MemoryStore,
    MemoryTokens,
    MemoryUsers,
    memory_repositories,
)

__all__ = [
    "Counters",
    "MemoryAgents",
    "MemoryApprovals",
    "MemoryAuditLog",
    "MemoryDecisions",
    "MemoryGuardrails",
    "MemoryKills",
    "MemoryRecovery",
    "MemoryRecoveryEvents",
    "MemorySessions",
    "MemorySettings",
    "MemoryStore",
    "MemoryTokens",
    "MemoryUsers",
    "memory_repositories",
]
