"""What a new user finds first: the README and the docs home name the MCP gateway and every framework guard
in one table, linked to their pages, and the demo policy carries the guardrails those pages' examples use."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["mcp-gateway", "langchain", "openai-agents", "pydantic-ai", "vercel-ai-sdk"]


def table_rows(text: str) -> list[str]:
    """The rows of the first table under "## Drop it into your agents"."""
    section = text.split("## Drop it into your agents", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ")]


@pytest.mark.parametrize(("doc", "prefix"), [("README.md", "docs/integrations/"), ("docs/index.md", "integrations/")])
def test_one_table_links_the_gateway_and_every_guard(doc: str, prefix: str) -> None:
    rows = "\n".join(table_rows((ROOT / doc).read_text(encoding="utf-8")))
    missing = [page for page in PAGES if f"]({prefix}{page}.md)" not in rows]
    assert not missing, f"{doc}: the integrations table lacks {missing}"
    for page in PAGES:
        assert (ROOT / "docs" / "integrations" / f"{page}.md").is_file()


def test_the_demo_policy_has_what_the_examples_need() -> None:
    chain = {g["name"]: g for g in yaml.safe_load((ROOT / "outrider.example.yaml").read_text())["guardrails"]}
    assert chain["keep-notes"]["kind"] == "action_list" and "delete_note" in chain["keep-notes"]["deny"]
    assert chain["release-review"]["kind"] == "hitl"
    assert any("deploy_production" in p for p in chain["release-review"]["patterns"])
    for example in (ROOT / "examples").glob("*/agent.py"):
        tools = set(re.findall(r"^def (\w+)\(", example.read_text(encoding="utf-8"), re.M))
        assert {"delete_note", "deploy_production"} <= tools, example
