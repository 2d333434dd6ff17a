"""Masking sensitive keys out of JSON-like values."""

from __future__ import annotations

import copy

import pytest

from server.config import DEFAULT_SENSITIVE_KEYS
from server.domain.masking import MASK, is_sensitive, mask, normalise_key

KEYS = DEFAULT_SENSITIVE_KEYS


@pytest.mark.parametrize(
    "key",
    [
        "authorization",
        "Authorization",
        "X-Api-Key",
        "apiKey",
        "api_key",
        "API-KEY",
        "db_password",
        "PASSWORD",
        "refresh_token",
        "tokens",
        "client_secret",
        "secretName",
        "proxy-authorization",
    ],
)
def test_keys_named_like_a_sensitive_key_match(key: str) -> None:
    assert is_sensitive(key, KEYS)


@pytest.mark.parametrize("key", ["user", "cost", "api", "key", "pass", "auth", "tok", "description", ""])
def test_other_keys_do_not(key: str) -> None:
    assert not is_sensitive(key, KEYS)


def test_normalise_drops_everything_but_lowercase_letters_and_digits() -> None:
    assert normalise_key("X-Api_Key 2!") == "xapikey2"
    assert normalise_key("Ünïcode") == "ncode"


def test_patterns_are_normalised_too_and_empty_ones_ignored() -> None:
    assert is_sensitive("sessionid", ["Session-ID"])
    assert not is_sensitive("anything", ["", "--"])
    assert mask({"a": "x"}, ["-"]) == {"a": "x"}


def test_strings_and_containers_are_masked_numbers_bools_none_kept() -> None:
    value = {
        "password": "hunter2",
        "api_key": {"id": 1, "value": "k"},
        "Authorization": ["Bearer", "abc"],
        "secret_bytes": b"raw",
        "tokens": 1500,
        "max_tokens": 2.5,
        "has_token": True,
        "token": None,
        "user": "ann",
    }
    assert mask(value, KEYS) == {
        "password": MASK,
        "api_key": MASK,
        "Authorization": MASK,
        "secret_bytes": MASK,
        "tokens": 1500,
        "max_tokens": 2.5,
        "has_token": True,
        "token": None,
        "user": "ann",
    }


def test_nested_dicts_and_lists_are_walked() -> None:
    value = {
        "request": {"headers": {"X-Api-Key": "k1", "Accept": "json"}, "body": [{"db_password": "p", "n": 1}]},
        "list": [[{"refresh_token": "r"}], "plain"],
        "tuple": ({"secret": "s"},),
    }
    assert mask(value, KEYS) == {
        "request": {"headers": {"X-Api-Key": MASK, "Accept": "json"}, "body": [{"db_password": MASK, "n": 1}]},
        "list": [[{"refresh_token": MASK}], "plain"],
        "tuple": ({"secret": MASK},),
    }


def test_input_is_not_modified_and_output_shares_no_containers() -> None:
    value = {"a": {"password": "p", "list": [1, {"b": 2}]}}
    before = copy.deepcopy(value)
    out = mask(value, KEYS)
    assert value == before
    out["a"]["list"][1]["b"] = 3
    assert value == before


def test_scalars_and_lists_at_the_top() -> None:
    assert mask("password", KEYS) == "password"  # a value is never a key
    assert mask(7, KEYS) == 7
    assert mask([{"token": "t"}], KEYS) == [{"token": MASK}]


def test_custom_keys_replace_the_defaults() -> None:
    assert mask({"ssn": "123", "password": "p"}, ["ssn"]) == {"ssn": MASK, "password": "p"}
    assert mask({"password": "p"}, []) == {"password": "p"}


def test_long_keys_are_masked_and_not_cached() -> None:
    """The per-key verdict is cached for short keys only: an agent's long made-up keys are still masked,
    and never kept in memory by the cache."""
    from server.domain import masking

    long_key = "x" * 200 + "_password"
    masking._named_like_cached.cache_clear()
    assert mask({long_key: "s", "apiKey": "k", 7: "seven"}, ["password", "api_key"]) == {
        long_key: "***",
        "apiKey": "***",
        7: "seven",
    }
    assert masking._named_like_cached.cache_info().currsize == 2  # "apiKey" and "7", not the long key
    assert masking._named_like_cached.cache_info().maxsize == 4096
