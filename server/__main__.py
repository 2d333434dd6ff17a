"""The `outrider` command: `outrider serve` runs the sidecar; `outrider check-config` validates a config.

Start-up is kept short (`--help`, `--version`, `tokens issue`): only the chosen command's module is imported,
and heavy packages (the storage layer, OpenTelemetry, gRPC) only by the code that runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.config import Config

# The global options: accepted before the command (`outrider --config x tokens list`) or after it.
_VALUED = ("--config", "--listen", "--console-listen", "--db-url", "--data-dir", "--log-format", "--log-level")

# Commands whose parser lives in its own module: (name, help, module, builder). The help is repeated here so
# `outrider --help` lists them without importing the modules (tests/unit/test_cli_startup.py keeps it true).
_MODULE_COMMANDS: tuple[tuple[str, str, str, str], ...] = (
    ("agents", "agent records and standing (works on the database directly)", "agents", "add_agents_parser"),
    ("audit", "verify or export the tamper-evident audit trail", "audit", "add_audit_parser"),
    ("users", "console reviewers: add, list, disable (works on the database)", "users", "add_users_parser"),
    (
        "mcp-gateway",
        "serve MCP servers to MCP clients, checking every tool call with the sidecar",
        "gateway",
        "add_gateway_parser",
    ),
    (
        "gateway",
        "the MCP gateway's pinned tools: list changes, accept them (works on the database)",
        "gateway_tools",
        "add_gateway_tools_parser",
    ),
    ("fleet", "the sidecars sharing this database", "fleet", "add_fleet_parser"),
    (
        "notifications",
        "list reviewer notifications and their delivery, retry one",
        "notifications",
        "add_notifications_parser",
    ),
    (
        "policy",
        "test, explain and lint a policy file (in process, no sidecar); the fleet's policy status",
        "policy",
        "add_policy_parser",
    ),
)


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("outrider")
    except PackageNotFoundError:  # run from a checkout that was not installed
        return "unknown"


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kw: Any) -> None:
        print(f"outrider {version()}")
        parser.exit()


def command_of(argv: Sequence[str]) -> str:
    """The command named in `argv` ("" when none), skipping the global options and their values."""
    names = {"serve", "check-config", "tokens", "certs", "console", *(c[0] for c in _MODULE_COMMANDS)}
    it = iter(argv)
    for arg in it:
        if arg in _VALUED:
            next(it, None)
        elif not arg.startswith("-"):
            return arg if arg in names else ""
    return ""


def _workers(value: str) -> int:
    """`--workers`: a number, or `auto` (the CPUs this process may run on)."""
    if value == "auto":
        import os

        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or `auto`, not {value!r}") from None


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only`, the other module commands are listed but not built (their
    modules are not imported). `only=""` builds none of them: enough for `outrider --help`."""
    p = argparse.ArgumentParser(prog="outrider", description="Outrider: a sidecar control plane for AI agents.")
    p.add_argument("--version", action=_VersionAction)
    _config_flags(p, global_=True)
    sub = p.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the sidecar (gRPC + console)")
    _config_flags(serve)
    serve.add_argument("--port-file", help="write the bound gRPC port here once serving (for scripts)")
    serve.add_argument(
        "--apply-policy",
        action="store_true",
        help="make this config file's policy the fleet's (audited); without it a sidecar whose policy differs "
        "from the fleet's stored one refuses to start (docs/fleet.md)",
    )
    serve.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="run N sidecar processes sharing the listen port (SO_REUSEPORT) and the database (PostgreSQL, or "
        "the SQLite file), supervised by this process, which starts a dead worker again; `auto`: one per CPU "
        "this process may run on",
    )
    serve.add_argument(
        "--worker",
        type=int,
        metavar="I",
        help="(set by --workers for its children) serve as worker I on the shared port; only worker 0 serves "
        "the console and telemetry.metrics_listen",
    )

    check = sub.add_parser("check-config", help="validate the config and policy, then exit")
    _config_flags(check)

    tokens = sub.add_parser("tokens", help="issue, revoke and list API tokens (works on the database directly)")
    tsub = tokens.add_subparsers(dest="tokens_command", required=True)
    issue = tsub.add_parser("issue", help="issue a token; prints the secret once")
    who = issue.add_mutually_exclusive_group(required=True)
    who.add_argument("--agent", metavar="ID", help="a token that may only act as this agent")
    who.add_argument("--operator", metavar="NAME", help="an operator token (guardrails, policy, kills, approvals)")
    who.add_argument(
        "--admin", metavar="NAME", help="an admin operator token: may also issue and revoke credentials over gRPC"
    )
    issue.add_argument("--description", default="", help="what the token is for")
    _config_flags(issue)
    revoke = tsub.add_parser("revoke", help="revoke a token by id (refused by running sidecars within 250 ms)")
    revoke.add_argument("token_id")
    _config_flags(revoke)
    listing = tsub.add_parser("list", help="list tokens (never their secrets)")
    listing.add_argument("--all", action="store_true", help="include revoked tokens")
    _config_flags(listing)

    certs = sub.add_parser("certs", help="mTLS client certificates (works on the database directly)")
    csub = certs.add_subparsers(dest="certs_command", required=True)
    crevoke = csub.add_parser("revoke", help="refuse a client certificate (running sidecars within 250 ms)")
    crevoke.add_argument("--fingerprint", required=True, metavar="SHA256", help="SHA-256 of the DER certificate")
    crevoke.add_argument("--reason", default="", help="why (audited)")
    _config_flags(crevoke)

    for name, help_, module, builder in _MODULE_COMMANDS:
        if only is None or only == name:
            _module_parser(module, builder)(sub)
        else:
            sub.add_parser(name, help=help_)

    console = sub.add_parser("console", help="serve the reviewer console alone, on the sidecar's database (no gRPC)")
    _config_flags(console)
    console.add_argument("--url-file", help="write the console's URL here once serving (for scripts)")
    return p


def _module_parser(module: str, builder: str) -> Callable[[Any], None]:
    import importlib

    add = getattr(importlib.import_module(f"server.cli.{module}"), builder)
    if module == "gateway":  # its own --config (the gateway's file), no sidecar config flags
        return add  # type: ignore[no-any-return]
    return lambda sub: add(sub, _config_flags)


def _config_flags(p: argparse.ArgumentParser, global_: bool = False) -> None:
    """The config flags. On the top-level parser (`global_`) they have their defaults; on a command's parser
    they default to "not given", so a flag given before the command is not reset by the command's parser."""

    def d(value: Any) -> Any:
        return value if global_ else argparse.SUPPRESS

    p.add_argument(
        "--config", default=d(None), help="config file (default: ./outrider.yaml if present; env OUTRIDER_CONFIG)"
    )
    p.add_argument("--listen", default=d(None), help="gRPC address HOST:PORT or unix:PATH (default 127.0.0.1:50051)")
    p.add_argument("--console-listen", default=d(None), help="console address HOST:PORT (default 127.0.0.1:8080)")
    p.add_argument("--no-console", action="store_true", default=d(False), help="do not serve the web console")
    p.add_argument(
        "--db-url", default=d(None), help="database URL, e.g. postgresql+psycopg://user@host/db (default SQLite)"
    )
    p.add_argument("--data-dir", default=d(None), help="directory for the SQLite database (default ./.outrider)")
    p.add_argument("--log-format", default=d(None), choices=("text", "json"), help="log line format (default text)")
    p.add_argument("--log-level", default=d(None), choices=("debug", "info", "warning", "error"))
    p.add_argument(
        "--insecure",
        action="store_true",
        default=d(False),
        help="allow a non-loopback --listen address without TLS (plaintext credentials!)",
    )


# Commands that read the `notifications` section (its channels may name secrets in environment variables);
# the others leave it unread.
_NOTIFYING = ("serve", "console", "notifications", "check-config")


def _config(args: argparse.Namespace) -> Config:
    from dataclasses import replace
    from pathlib import Path

    from server.config import load_config

    overrides: dict[str, Any] = {
        "listen": args.listen,
        "console_listen": args.console_listen,
        "db_url": args.db_url,
        "data_dir": Path(args.data_dir) if args.data_dir else None,
        "log_format": args.log_format,
        "log_level": args.log_level,
        "console_enabled": False if args.no_console else None,
        "insecure": True if args.insecure else None,
        "apply_policy": True if getattr(args, "apply_policy", False) else None,
    }
    worker = getattr(args, "worker", None)
    if worker is not None:  # a child of `serve --workers N`: one port for all, one console and metrics port
        overrides["reuse_port"] = True
        if worker > 0:
            overrides["console_enabled"] = False
    unused = () if getattr(args, "command", "serve") in _NOTIFYING else ("notifications",)
    config = load_config(args.config, overrides, unused=unused)
    if worker is not None and worker > 0:
        config = replace(config, telemetry=replace(config.telemetry, metrics_listen=None))
    return config


def main(argv: list[str] | None = None) -> int:
    args = _parser(command_of(sys.argv[1:] if argv is None else argv)).parse_args(argv)
    if args.command == "mcp-gateway":  # its own config file (upstreams), not the sidecar's
        from server.cli.gateway import run_gateway

        return run_gateway(args)
    if args.command == "policy" and args.policy_command != "status":  # a policy file alone: no config, no database
        import logging

        from server.cli.policy import run_policy

        logging.basicConfig(level=logging.WARNING)
        return run_policy(args)
    from server.config import ConfigError

    try:
        config = _config(args)
    except ConfigError as exc:
        print(f"outrider: configuration error: {exc}", file=sys.stderr)
        return 2
    from server.logs import setup_logging

    setup_logging(config.log_format, config.log_level)
    from server.domain.errors import StorageUnavailable

    try:
        return _run(args, config, argv)
    except StorageUnavailable as exc:  # one line, as the commands print their own errors; the driver's
        print(f"outrider: {exc.message}", file=sys.stderr)  # text (host, port) is in the log line above
        return 1


def _run(args: argparse.Namespace, config: Config, argv: list[str] | None) -> int:
    if args.command == "check-config":
        return _check_config(config)
    if args.command == "tokens":
        from server.cli.tokens import run_tokens

        return run_tokens(args, config)
    if args.command == "agents":
        from server.cli.agents import run_agents

        return run_agents(args, config)
    if args.command == "certs":
        from server.cli.certs import run_certs

        return run_certs(args, config)
    if args.command == "audit":
        from server.cli.audit import run_audit

        return run_audit(args, config)
    if args.command == "users":
        from server.cli.users import run_users

        return run_users(args, config)
    if args.command == "policy":
        from server.cli.policy_status import run_status

        return run_status(args, config)
    if args.command == "gateway":
        from server.cli.gateway_tools import run_gateway_tools

        return run_gateway_tools(args, config)
    if args.command == "fleet":
        from server.cli.fleet import run_fleet

        return run_fleet(args, config)
    if args.command == "notifications":
        from server.cli.notifications import run_notifications

        return run_notifications(args, config)
    if args.command == "console":
        from server.cli.console import run_console

        return run_console(config, args.url_file)
    if args.workers != 1 and args.worker is None:
        from server.cli.workers import run_workers

        return run_workers(sys.argv[1:] if argv is None else argv, config, args.workers, args.port_file)
    import asyncio

    return asyncio.run(_serve(config, args.port_file))


def _check_config(config: Config) -> int:
    from server.adapters.policy_file import FilePolicySource
    from server.domain.errors import OutriderError
    from server.domain.guardrails.policy import parse_guardrails
    from server.services.supervisor.plugins import PluginModules

    if config.config_path is None:
        print("outrider: no config file; the defaults are valid")
        return 0
    try:
        raw, _ = FilePolicySource(config.config_path).read()
        chain = parse_guardrails(raw, PluginModules(config.plugin_modules))
    except OutriderError as exc:
        print(f"outrider: configuration error: {config.config_path}: {exc.message}", file=sys.stderr)
        return 2
    print(f"outrider: {config.config_path} is valid ({len(chain)} guardrails)")
    return 0


def _port_in_use(config: Config) -> str:
    """Why the gRPC address cannot be bound ("" when it can, or when it cannot be told here): gRPC's own
    failure is a C-core log line and a traceback."""
    import socket

    listen = config.listen
    if listen.startswith("unix:") or config.reuse_port:
        return ""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    if not port.isdigit() or int(port) == 0:
        return ""
    try:
        infos = socket.getaddrinfo(host or None, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return ""  # gRPC reports what it cannot resolve
    for family, kind, proto, _name, addr in infos[:1]:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC does: TIME_WAIT is no obstacle
            try:
                probe.bind(addr)
            except OSError as exc:
                return f"cannot listen on {listen}: {exc.strerror or exc}"
    return ""


async def _serve(config: Config, port_file: str | None) -> int:
    import asyncio
    import logging
    import signal
    from pathlib import Path

    from server.cli.workers import write_port_file
    from server.config import ConfigError
    from server.domain.errors import OutriderError
    from server.sidecar import build_server, freeze_startup_heap

    log = logging.getLogger("outrider")
    if busy := _port_in_use(config):
        print(f"outrider: cannot start: {busy}", file=sys.stderr)
        return 2
    try:
        sidecar = await build_server(config)
    except OutriderError as exc:
        log.error("cannot start: %s", exc.message)
        print(f"outrider: cannot start: {exc.message}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(f"outrider: configuration error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"outrider: cannot start: {exc}", file=sys.stderr)
        return 2
    sidecar.services.telemetry.install_global()  # one sidecar per process: plugins' own spans join its traces
    freeze_startup_heap()  # after start-up, before the traffic: full collections skip what lives forever

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    reloads: set[asyncio.Task[None]] = set()

    def _reload() -> None:
        async def run() -> None:
            try:
                count, path = await asyncio.to_thread(sidecar.services.policy.reload, "SIGHUP")
            except OutriderError as exc:
                log.error("policy reload failed; the fleet's policy stays", extra={"error": exc.message})
            else:
                log.info("policy reloaded on SIGHUP (fleet-wide)", extra={"path": path, "guardrails": count})

        task = loop.create_task(run())
        reloads.add(task)
        task.add_done_callback(reloads.discard)

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, _reload)
    if port_file:  # "ready" only once the signals are handled: a supervisor may signal at once
        write_port_file(Path(port_file), sidecar.port)
    await stop.wait()
    log.info("shutting down", extra={"grace_seconds": config.shutdown_grace})
    await sidecar.stop()
    logging.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
