"""Plan validation (the Agent Governance Toolkit, section 5, face/hands): a reasoning agent's plan against an executor's
capabilities. Every step has a unique id and an action in the capability set, every dependency names a
step of the plan, and the dependencies form no cycle. Every violation is reported, in step order.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field


class ViolationType(enum.IntEnum):
    # Values match outrider.v1.PlanViolationType.
    MISSING_STEP_ID = 1
    DUPLICATE_STEP_ID = 2
    MISSING_ACTION = 3
    ACTION_NOT_ALLOWED = 4
    UNKNOWN_DEPENDENCY = 5
    DEPENDENCY_CYCLE = 6


@dataclass(frozen=True, slots=True)
class Step:
    step_id: str
    action: str
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Violation:
    type: ViolationType
    step_index: int
    step_id: str
    message: str
    related: tuple[str, ...] = field(default_factory=tuple)


def validate(steps: Sequence[Step], capabilities: Collection[str]) -> list[Violation]:
    allowed = set(capabilities)
    found: list[Violation] = []
    first_index: dict[str, int] = {}
    for i, step in enumerate(steps):
        name = f"step {i}" + (f" ({step.step_id!r})" if step.step_id else "")
        if not step.step_id:
            found.append(Violation(ViolationType.MISSING_STEP_ID, i, "", f"{name} has no step_id"))
        elif step.step_id in first_index:
            found.append(
                Violation(
                    ViolationType.DUPLICATE_STEP_ID,
                    i,
                    step.step_id,
                    f"{name} reuses the step_id of step {first_index[step.step_id]}",
                    (step.step_id,),
                )
            )
        else:
            first_index[step.step_id] = i
        if not step.action:
            found.append(Violation(ViolationType.MISSING_ACTION, i, step.step_id, f"{name} has no action"))
        elif step.action not in allowed:
            found.append(
                Violation(
                    ViolationType.ACTION_NOT_ALLOWED,
                    i,
                    step.step_id,
                    f"{name}: action {step.action!r} is not in the capability set",
                    (step.action,),
                )
            )
    for i, step in enumerate(steps):
        for dep in dict.fromkeys(step.depends_on):
            if dep not in first_index:
                found.append(
                    Violation(
                        ViolationType.UNKNOWN_DEPENDENCY,
                        i,
                        step.step_id,
                        f"step {i} ({step.step_id!r}) depends on {dep!r}, which is no step of the plan",
                        (dep,),
                    )
                )
    found += _cycles(steps, first_index)
    return sorted(found, key=lambda v: (v.step_index, v.type))


def _cycles(steps: Sequence[Step], index: dict[str, int]) -> list[Violation]:
    """One violation per strongly connected group that loops (a self-dependency included), on its first step."""
    graph = {sid: [d for d in dict.fromkeys(steps[i].depends_on) if d in index] for sid, i in index.items()}
    order, low, on_stack, stack, groups = {}, {}, set(), [], []
    counter = 0

    # Iterative Tarjan: plans may be long, recursion depth must not limit them.
    for root in graph:
        if root in order:
            continue
        work = [(root, iter(graph[root]))]
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in order:
                    order[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], order[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(group)

    out = []
    for group in groups:
        members = set(group)
        if len(group) == 1 and group[0] not in graph[group[0]]:
            continue
        start = min(group, key=lambda s: index[s])
        path = _loop(start, graph, members)
        i = index[start]
        out.append(
            Violation(
                ViolationType.DEPENDENCY_CYCLE,
                i,
                start,
                f"step {i} ({start!r}) is in a dependency cycle: {' -> '.join([*path, start])}",
                tuple(path),
            )
        )
    return out


def _loop(start: str, graph: dict[str, list[str]], members: set[str]) -> list[str]:
    """A path start -> ... that returns to start, inside one strongly connected group (breadth-first)."""
    parent: dict[str, str] = {}
    queue = [start]
    seen = {start}
    while queue:
        node = queue.pop(0)
        for nxt in graph[node]:
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return list(reversed(path))
            if nxt in members and nxt not in seen:
                seen.add(nxt)
                parent[nxt] = node
                queue.append(nxt)
    return [start]
