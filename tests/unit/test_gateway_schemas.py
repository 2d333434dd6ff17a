"""The gateway's argument conformer on its own: what is coerced, what is refused and how it is named."""

from __future__ import annotations

import math
from typing import Any

import pytest

from server.gateway.schemas import ArgumentsRefused, conform

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "cost": {"type": "number"},
        "n": {"type": ["integer", "null"]},
        "label": {"type": ["number", "string"]},
        "order": {
            "type": "object",
            "properties": {"qty": {"type": "integer"}, "lines": {"type": "array", "items": {"type": "number"}}},
            "required": ["qty"],
        },
    },
}


def test_numeric_strings_become_numbers_where_the_schema_says_number_or_integer() -> None:
    args = {"cost": "1000", "n": "-7", "label": "42", "order": {"qty": "3", "lines": ["1.5", "2e3"]}}
    assert conform(SCHEMA, args) == {
        "cost": 1000,
        "n": -7,
        "label": "42",  # a string is allowed there: meant as it is
        "order": {"qty": 3, "lines": [1.5, 2000.0]},
    }
    assert args["cost"] == "1000"  # the caller's dict is not changed


@pytest.mark.parametrize("text", ["NaN", "nan", "inf", "-Infinity", "1_000", "0x10", "1e999", "", " ", "+1"])
def test_what_is_not_a_plain_decimal_is_not_coerced_and_so_refused(text: str) -> None:
    with pytest.raises(ArgumentsRefused) as caught:
        conform(SCHEMA, {"cost": text})
    assert caught.value.argument == "cost"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused_wherever_they_are(value: float) -> None:
    with pytest.raises(ArgumentsRefused, match="not a finite number") as caught:
        conform({}, {"deep": {"list": [1, value]}})
    assert caught.value.argument == "deep.list[1]"


def test_a_nested_missing_property_is_named_by_its_path() -> None:
    with pytest.raises(ArgumentsRefused) as caught:
        conform(SCHEMA, {"order": {"lines": []}})
    assert caught.value.argument == "order.qty"


def test_too_deep_arguments_are_refused() -> None:
    deep: dict[str, Any] = {}
    cur = deep
    for _ in range(100):
        cur["x"] = {}
        cur = cur["x"]
    with pytest.raises(ArgumentsRefused, match="deeper than"):
        conform({}, deep)


def test_a_schema_that_is_not_a_schema_refuses_the_call() -> None:
    with pytest.raises(ArgumentsRefused, match="not a valid JSON Schema"):
        conform({"type": "frob"}, {})


def test_no_schema_means_any_object() -> None:
    assert conform(None, {"a": "1"}) == {"a": "1"}


def test_huge_arguments_are_refused_before_validation() -> None:
    with pytest.raises(ArgumentsRefused, match="bytes of JSON"):
        conform(
            {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a+)+$"}}}, {"a": "a" * (1 << 20)}
        )
