"""`outrider mcp-gateway`: put Outrider in front of existing MCP servers (see docs/integrations/mcp-gateway.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from server.config import ConfigError


def add_gateway_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "mcp-gateway", help="serve MCP servers to MCP clients, checking every tool call with the sidecar"
    )
    p.add_argument("--config", required=True, help="the gateway's YAML file (upstreams, agent_id, sidecar)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="how clients connect")
    p.add_argument("--listen", default="127.0.0.1:8765", help="HOST:PORT for --transport http (port 0: any)")
    p.add_argument("--url-file", help="write the HTTP endpoint's URL here once serving (for scripts)")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning")


def run_gateway(args: argparse.Namespace) -> int:
    import logging

    try:
        from server.gateway.config import load_gateway_config
    except ImportError as exc:  # the `mcp` extra is not installed
        print(f"outrider: mcp-gateway needs the mcp extra (pip install 'outrider[mcp]'): {exc}", file=sys.stderr)
        return 2
    # Logs go to stderr: on stdio, stdout is the MCP channel.
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="%(levelname)s %(name)s %(message)s")
    try:
        config = load_gateway_config(args.config)
        if args.transport == "stdio" and not config.agent_id:
            raise ConfigError(args.config, "agent_id", "is required for --transport stdio")
    except ConfigError as exc:
        print(f"outrider: configuration error: {exc}", file=sys.stderr)
        return 2
    from server.gateway.serve import run

    try:
        return run(config, args.transport, args.listen, args.url_file)
    except KeyboardInterrupt:
        return 0
