"""Who an operator is as a reviewer: an operator deciding over gRPC reviews as the console user of the same
name (its role and groups, so `group:NAME` approvers work over gRPC too); an operator with no such user
reviews as an approver, and a disabled user as a viewer."""

from __future__ import annotations

from collections.abc import Callable

from server.domain.approvals.requests import Reviewer
from server.services.access.users import UserService


def reviewer_for(users: UserService) -> Callable[[str], Reviewer]:
    def lookup(name: str) -> Reviewer:
        user = users.get(name)
        if user is None:
            return Reviewer(name, "approver")
        if user.disabled:
            return Reviewer(name, "viewer")
        return Reviewer(name, str(user.role.value), frozenset(user.groups))

    return lookup
