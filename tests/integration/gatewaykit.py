"""Running `outrider mcp-gateway` for tests: a real process in front of the real upstream in mcp_upstream.py,
reached by the SDK's own ClientSession over stdio or streamable HTTP."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import yaml
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

UPSTREAM = str(Path(__file__).with_name("mcp_upstream.py"))
ROOT = Path(__file__).resolve().parents[2]


def write_config(tmp_path: Path, target: str, **top: Any) -> Path:
    upstreams = top.pop("upstreams", None) or [
        {
            "name": "tools",
            "command": sys.executable,
            "args": [UPSTREAM],
            "env": {"UPSTREAM_LOG": str(upstream_log(tmp_path))},
        }
    ]
    config = {"sidecar": {"target": target}, "approval_wait": "1s", "upstreams": upstreams, **top}
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def upstream_log(tmp_path: Path) -> Path:
    return tmp_path / "upstream.log"


def upstream_calls(tmp_path: Path) -> list[str]:
    log = upstream_log(tmp_path)
    return log.read_text().splitlines() if log.exists() else []


def gateway_command(config: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "server", "mcp-gateway", "--config", str(config), *extra]


@contextlib.asynccontextmanager
async def stdio_session(config: Path, token: str) -> AsyncIterator[ClientSession]:
    cmd = gateway_command(config)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env={"OUTRIDER_TOKEN": token}, cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def start_http_gateway(config: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    """The gateway over streamable HTTP on a free port, as its own process; returns it and its URL."""
    url_file = tmp_path / "gateway.url"
    url_file.unlink(missing_ok=True)
    proc = subprocess.Popen(
        gateway_command(config, "--transport", "http", "--listen", "127.0.0.1:0", "--url-file", str(url_file)),
        cwd=ROOT,
        env={**os.environ, "OUTRIDER_TOKEN": ""},
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not url_file.exists() or not url_file.read_text():
        if proc.poll() is not None:
            raise AssertionError(f"the gateway exited: {proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() > deadline:
            stop_gateway(proc, kill=True)
            raise AssertionError("the gateway did not start within 30 s")
        time.sleep(0.05)
    return proc, url_file.read_text()


def stop_gateway(proc: subprocess.Popen[str], *, kill: bool = False) -> None:
    """SIGTERM (or SIGKILL: no chance to clean up) and wait."""
    if kill:
        proc.kill()
    else:
        proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    if proc.stderr:
        proc.stderr.close()


@contextlib.contextmanager
def http_gateway(config: Path, tmp_path: Path) -> Iterator[str]:
    """The gateway over streamable HTTP on a free port; yields its URL."""
    proc, url = start_http_gateway(config, tmp_path)
    try:
        yield url
    finally:
        stop_gateway(proc)


@contextlib.asynccontextmanager
async def http_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)
