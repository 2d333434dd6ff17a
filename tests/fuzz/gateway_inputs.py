"""What an agent sends the MCP gateway, as Hypothesis strategies, and the tools it sends it to: tool names (the
real ones, look-alikes of them, huge, markup, wrong JSON types) and arguments (numeric strings of every shape,
huge and non-finite numbers, deep nesting, wrong types) against schemas with enums, patterns (one that Python's
re backtracks on), nested objects, arrays and a recursive `$ref`."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from . import strategies

TOOLS: list[dict[str, Any]] = [
    {
        "name": "pay",
        "description": "Pay an invoice.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "cost": {"type": "number", "minimum": 0, "multipleOf": 0.01},
                "count": {"type": "integer", "maximum": 1000},
                "currency": {"type": "string", "enum": ["EUR", "USD"]},
                "memo": {"type": "string", "maxLength": 200, "pattern": "^[A-Za-z0-9 .,-]*$"},
            },
            "required": ["cost"],
            "additionalProperties": False,
        },
    },
    {
        "name": "order",
        "description": "Order items.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "lines": {
                    "type": "array",
                    "maxItems": 50,
                    "items": {
                        "type": "object",
                        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
                        "required": ["sku", "qty"],
                    },
                },
                "note": {"type": ["string", "null"]},
                "rush": {"type": "boolean"},
            },
        },
    },
    {
        "name": "tree",
        "description": "A recursive input.",
        "inputSchema": {
            "type": "object",
            "$defs": {
                "node": {"type": "object", "properties": {"n": {"$ref": "#/$defs/node"}, "v": {"type": "number"}}}
            },
            "properties": {"root": {"$ref": "#/$defs/node"}},
        },
    },
    {"name": "anything", "description": "No declared properties.", "inputSchema": {"type": "object"}},
    {
        "name": "search",
        "description": "A pattern Python's re backtracks on.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}}},
    },
]
SCHEMAS = {t["name"]: t["inputSchema"] for t in TOOLS}
PROPERTIES = sorted({"cost", "count", "currency", "memo", "lines", "sku", "qty", "note", "rush", "root", "n", "v", "q"})
BACKTRACKS = "a" * 40 + "!"  # hours for Python's re against ^(a+)+$


# ---- what an agent sends -------------------------------------------------------------------------------


def _look_alikes(name: str) -> list[str]:
    return [
        name.upper(),
        name + " ",
        " " + name,
        name + "\u200b",
        name.replace("a", "\u0430"),  # Cyrillic a
        "".join(chr(ord(c) + 0xFEE0) for c in name),  # fullwidth
        "tools." + name,
        name + "\x00",
        name[:-1],
    ]


def tool_names() -> st.SearchStrategy[Any]:
    real = [t["name"] for t in TOOLS]
    return st.one_of(
        st.sampled_from(real),
        st.sampled_from([alike for n in real for alike in _look_alikes(n)]),
        st.sampled_from(strategies.STRINGS),
        st.text(max_size=40),
        st.sampled_from(["x" * 100_000, 0, -1, 1e308, None, True, [], ["pay"], {"name": "pay"}]),
    )


NUMERIC_TEXT = [
    "0",
    "-0",
    "12.5",
    "1000",
    " 12 ",
    "12\n",
    "+1",
    "1e2",
    "1E-400",
    "1e400",
    "-1e309",
    "NaN",
    "nan",
    "Infinity",
    "-inf",
    "0x10",
    "1_000",
    "\uff11\uff12",  # fullwidth digits
    "\u0661\u0662",  # Arabic-Indic digits
    "12\u200b",
    "9" * 4300,
    "9" * 4301,
    "9" * 20_000,
    "1" + "0" * 400,
    "0." + "0" * 5000 + "1",
    "1" * 300 + "." + "1" * 300,
    "9007199254740993",
    "-9223372036854775809",
    "",
]
NUMBERS = [
    0,
    -0.0,
    0.005,
    1e-320,
    1e308,
    -1e308,
    2**53 + 1,
    -(2**63) - 1,
    2**64,
    10**30,
    10**308,
    10**400,
    math.nan,
    math.inf,
    -math.inf,
]


def _deep(levels: int, key: str) -> Any:
    inner: Any = 1
    for _ in range(levels):
        inner = {key: inner} if key else [inner]
    return inner


def values(depth: int) -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.sampled_from(NUMBERS),
        st.integers(),
        st.floats(),
        st.sampled_from(NUMERIC_TEXT),
        st.sampled_from(strategies.STRINGS),
        st.sampled_from(["EUR", "USD", "eur", "EUR\u200b", "\u0415UR"]),  # the enum, and look-alikes of it
        st.sampled_from(["aaa", BACKTRACKS]),
        st.text(max_size=20),
    )
    if depth <= 0:
        return leaf
    return st.one_of(
        leaf,
        st.lists(values(depth - 1), max_size=4),
        st.dictionaries(st.sampled_from(PROPERTIES), values(depth - 1), max_size=4),
        st.sampled_from([_deep(60, "n"), _deep(70, "n"), _deep(500, "n"), _deep(70, ""), _deep(500, "")]),
    )


def arguments() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.dictionaries(st.sampled_from([*PROPERTIES, "mcp", "MCP", "", "x" * 300]), values(2), max_size=5),
        st.dictionaries(st.sampled_from(PROPERTIES), values(1), max_size=3),
        st.fixed_dictionaries({"cost": st.one_of(st.sampled_from(NUMERIC_TEXT), st.sampled_from(NUMBERS))}),
        st.fixed_dictionaries({"root": st.sampled_from([_deep(k, "n") for k in (29, 30, 31, 32, 33, 48, 64, 300)])}),
        st.fixed_dictionaries({"q": st.sampled_from(["aaa", BACKTRACKS, "a" * 100_000 + "!"])}),
        # Not an object at all.
        st.sampled_from([None, [], [1, 2], "cost=5", 5, True, {"a": [[[[[[]]]]]]}]),
    )
