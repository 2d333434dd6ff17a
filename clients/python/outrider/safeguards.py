"""Helpers over SafeguardService, in one place: the SupervisorAgent library's FailureIsolator contract, leases
(the SandboxExecutionGuard contract), token budgets.

    isolator = Isolator(client)
    reply = isolator.execute("worker-1:llm", lambda: call_model(q), fallback=lambda: "try again later")

    with lease(client, "user", "u-42", agent_id="worker-1") as held:
        write(resource, fencing_token=held.fencing_token)

    with Budget(client, "worker-1").reserve(2_000) as r:
        r.actual = run_call()

Each has an asyncio twin over `AsyncClient`: AsyncIsolator, async_lease, AsyncBudget.
"""

from .budgets import AsyncBudget, Budget, Reservation, Signal, Usage, budget
from .isolator import AsyncIsolator, BreakerStatus, Isolator
from .leases import HeldLease, async_lease, lease

__all__ = [
    "AsyncBudget",
    "AsyncIsolator",
    "BreakerStatus",
    "Budget",
    "HeldLease",
    "Isolator",
    "Reservation",
    "Signal",
    "Usage",
    "async_lease",
    "budget",
    "lease",
]
