"""The Traces page is paged (50 a page, most recently active first), filters kept across pages."""

from __future__ import annotations

import re
from pathlib import Path

from console import create_app
from server.telemetry.settings import TelemetrySettings

from .consolekit import add_reviewers, sign_in
from .harness import RunningSidecar, make_config
from .rpc import check


def test_traces_are_paged_and_keep_their_filters(tmp_path: Path) -> None:
    config = make_config(tmp_path, telemetry=TelemetrySettings(enabled=True, recent_traces=200))
    with RunningSidecar(config) as s:
        add_reviewers(s, ("alice",))
        stub = s.as_agent("agent-p").stub
        for _ in range(120):
            stub.CheckAction(check(agent_id="agent-p"))
        c = create_app(s.services).test_client()
        sign_in(c, "alice")

        def page(query: str) -> tuple[list[str], str]:
            html = c.get(f"/traces?{query}").text
            return re.findall(r'href="/traces/([0-9a-f]{32})"', html), html

        first, html = page("agent=agent-p")
        assert len(first) == 50 and 'rel="next"' in html and 'rel="prev"' not in html
        assert 'href="/traces?page=1&amp;agent=agent-p"' in html or 'href="/traces?agent=agent-p&amp;page=1"' in html
        second, html = page("agent=agent-p&page=1")
        third, html = page("agent=agent-p&page=2")
        assert len(second) == 50 and len(third) == 20 and 'rel="next"' not in html and 'rel="prev"' in html
        assert len(set(first) | set(second) | set(third)) == 120
        assert page("agent=agent-p&page=3")[0] == []
        assert page("agent=nobody")[0] == [] and 'rel="next"' not in page("agent=nobody")[1]
        assert c.get("/traces?page=-4").status_code == 200 and c.get("/traces?page=x").status_code == 200
