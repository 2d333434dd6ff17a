"""Console reviewer rules: roles, names, the sign-in throttle (on a hand-moved clock)."""

from __future__ import annotations

import pytest

from server.domain.access.users import FailureThrottle, Role, parse_groups, validate_name, validate_password
from server.domain.errors import InvalidArgument


def test_roles_are_ordered() -> None:
    assert Role.ADMIN.at_least(Role.APPROVER) and Role.APPROVER.at_least(Role.VIEWER)
    assert not Role.VIEWER.at_least(Role.APPROVER) and not Role.APPROVER.at_least(Role.ADMIN)
    assert Role.parse("approver") is Role.APPROVER
    with pytest.raises(InvalidArgument, match="viewer, approver, admin"):
        Role.parse("root")


def test_names_groups_and_passwords_are_validated() -> None:
    assert validate_name("ada.l@example-1") == "ada.l@example-1"
    for bad in ("", "-x", "a b", "x" * 65, "<script>"):
        with pytest.raises(InvalidArgument):
            validate_name(bad)
    assert parse_groups(" ops, sre ,ops,, ") == ("ops", "sre")
    assert parse_groups(["a", "b"]) == ("a", "b")
    with pytest.raises(InvalidArgument):
        parse_groups("ops, bad group")
    with pytest.raises(InvalidArgument, match="at least 8"):
        validate_password("short")
    assert validate_password("long enough") == "long enough"


def test_throttle_refuses_after_the_limit_until_the_window_passes() -> None:
    t = FailureThrottle(limit=5, window=60.0)
    for i in range(5):
        assert t.retry_after("alice", 100.0 + i) == 0.0
        t.fail("alice", 100.0 + i)
    assert t.retry_after("alice", 105.0) == pytest.approx(55.0)
    assert t.retry_after("bob", 105.0) == 0.0  # per key
    assert t.retry_after("alice", 159.9) > 0
    assert t.retry_after("alice", 160.0) == 0.0  # the first failure left the window


def test_throttle_reset_forgive_and_bounded_memory() -> None:
    t = FailureThrottle(limit=2, window=60.0, max_keys=3)
    t.fail("a", 1.0)
    t.fail("a", 2.0)
    assert t.retry_after("a", 3.0) > 0
    t.forgive("a", 2.0)
    assert t.retry_after("a", 3.0) == 0.0
    t.reset("a")
    for key in ("k1", "k2", "k3", "k4"):
        t.fail(key, 10.0)
        t.fail(key, 11.0)
    assert t.retry_after("k1", 12.0) == 0.0  # the oldest key was forgotten
    assert t.retry_after("k4", 12.0) > 0
