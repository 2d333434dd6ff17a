"""the SandboxExecutionGuard contract's execution guard: one slot per user; a second worker waits its turn; fencing
tokens grow.

.venv/bin/python clients/python/examples/lease.py     # against `make run`
"""

import threading
import time

from outrider import Client, lease

tokens: list[int] = []
first_holds = threading.Event()


def worker(client: Client, name: str) -> None:
    with lease(client, "user", "example-user", agent_id=name, ttl=10) as held:
        print(f"{name} holds the slot (waited {held.waited:.1f}s)")
        tokens.append(held.fencing_token)
        first_holds.set()
        time.sleep(0.3)  # the work; a write to the guarded resource carries held.fencing_token


with Client() as client:
    workers = [threading.Thread(target=worker, args=(client, f"worker-{n}")) for n in (1, 2)]
    workers[0].start()
    first_holds.wait(10)
    workers[1].start()  # waits until worker-1 gives the slot back
    for w in workers:
        w.join()
    print(f"fencing tokens grow: {tokens[1] > tokens[0]}")
