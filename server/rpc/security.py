"""Transport security of the gRPC listener: TLS / mTLS credentials from the configuration, and the rule that
a sidecar reachable beyond loopback without TLS needs an explicit --insecure."""

from __future__ import annotations

import logging
from pathlib import Path

import grpc

from server.config import Config, ConfigError

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


def server_credentials(config: Config) -> grpc.ServerCredentials | None:
    """TLS when a certificate is configured; mTLS when a client CA is too."""
    if config.tls_cert_file is None and config.tls_key_file is None:
        if config.tls_client_ca_file is not None:
            raise ConfigError("configuration", "tls.client_ca_file", "mTLS needs tls.cert_file and tls.key_file too")
        return None
    if config.tls_cert_file is None or config.tls_key_file is None:
        raise ConfigError("configuration", "tls", "give both tls.cert_file and tls.key_file")

    def read(path: Path, key: str) -> bytes:
        try:
            return path.read_bytes()
        except OSError as exc:
            raise ConfigError("configuration", key, f"cannot read {path}: {exc.strerror or exc}") from exc

    cert, key = read(config.tls_cert_file, "tls.cert_file"), read(config.tls_key_file, "tls.key_file")
    ca = read(config.tls_client_ca_file, "tls.client_ca_file") if config.tls_client_ca_file else None
    return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca, require_client_auth=ca is not None)


def check_exposure(config: Config) -> None:
    """Binding beyond loopback without TLS needs --insecure; authentication off is loud."""
    host = config.listen.rpartition(":")[0]
    exposed = not config.listen.startswith("unix:") and host not in LOOPBACK_HOSTS
    if exposed and config.tls_cert_file is None:
        if not config.insecure:
            raise ConfigError(
                "configuration",
                "server.listen",
                f"{config.listen} is not a loopback address and TLS is off: configure tls.cert_file/tls.key_file, "
                "or pass --insecure (server.insecure: true) to accept plaintext credentials on the network",
            )
        log.warning("INSECURE: serving plaintext gRPC on a non-loopback address", extra={"listen": config.listen})
    if not config.auth_enabled:
        log.warning(
            "AUTHENTICATION IS DISABLED: every caller is treated as an operator. Development only; "
            "never expose this sidecar",
            extra={"auth_enabled": False},
        )
