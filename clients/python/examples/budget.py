"""the SupervisorAgent library's token budget: reserve, settle with what was used, warnings from 90%, usage beyond
the budget.

.venv/bin/python clients/python/examples/budget.py     # against `make run`
"""

from outrider import Budget, BudgetExhaustedError, Client

with Client() as client:
    budget = Budget(client, "example-agent")
    budget.allocate(1000)  # operator; allocating again restarts the count
    with budget.reserve(800) as r:  # set aside while the model call runs
        r.actual = 650  # what it really used
    print(f"after the call: {budget.remaining()} of 1000 left")
    try:
        with budget.reserve(500):
            pass
    except BudgetExhaustedError as err:
        print(f"reserve 500: refused ({err.why})")
    used = budget.consume(260)  # 910: past 90%
    print(f"consume 260: warnings={list(used.warnings)} signals={[str(s.type) for s in used.signals]}")
    print(f"can consume 100 more: {budget.can_consume(100)}")
    used = budget.consume(100)  # never refused: usage beyond the budget is recorded
    print(f"consume 100: over_budget={used.over_budget} signals={[str(s.type) for s in used.signals]}")
