"""Case 6 of issue 12 (last item): mTLS client certificates could not be revoked. `outrider certs revoke
--fingerprint SHA256` and AccessService.RevokeCertificate refuse one at once, in every process on the
database."""

from __future__ import annotations

import hashlib
import ssl
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import grpc
import pytest

from outrider.v1 import access_service_pb2 as apb
from outrider.v1 import access_service_pb2_grpc, supervisor_service_pb2_grpc
from server.config import Config
from server.domain.access.principals import PrincipalKind
from tests.fakes import FakeClock
from tests.integration.checkstream import CheckStream
from tests.integration.creds import with_token
from tests.integration.harness import RunningSidecar, make_config
from tests.integration.recovery_sim import eventually
from tests.integration.rpc import check

from .helpers import refused

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("ca")
    subprocess.run(
        ["bash", str(ROOT / "scripts/make-test-ca.sh"), str(d), "agent:w1", "agent:w2"], check=True, capture_output=True
    )
    return d


def fingerprint(pem: Path, colons: bool = False) -> str:
    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem.read_text())).hexdigest()
    return ":".join(digest[i : i + 2].upper() for i in range(0, 64, 2)) if colons else digest


def mtls_config(certs: Path, tmp_path: Path) -> Config:
    """A sidecar that serves TLS and asks every client for a certificate from the test CA."""
    return replace(
        make_config(tmp_path),
        tls_cert_file=certs / "server.pem",
        tls_key_file=certs / "server.key",
        tls_client_ca_file=certs / "ca.pem",
    )


def client_channel(certs: Path, name: str, port: int) -> grpc.Channel:
    """A channel that presents the test CA's certificate `name` (`agent_w1`, `agent_w2`)."""
    creds = grpc.ssl_channel_credentials(
        root_certificates=(certs / "ca.pem").read_bytes(),
        private_key=(certs / f"{name}.key").read_bytes(),
        certificate_chain=(certs / f"{name}.pem").read_bytes(),
    )
    return grpc.secure_channel(f"localhost:{port}", creds)


def test_a_revoked_client_certificate_is_refused(certs: Path, tmp_path: Path, clock: FakeClock) -> None:
    with RunningSidecar(mtls_config(certs, tmp_path), clock=clock, new_channel=None) as s:

        def stub(name: str, secret: str = "") -> access_service_pb2_grpc.AccessServiceStub:
            channel = client_channel(certs, name, s.sidecar.port)
            return access_service_pb2_grpc.AccessServiceStub(with_token(channel, secret) if secret else channel)

        w1, w2 = stub("agent_w1"), stub("agent_w2")
        assert w1.WhoAmI(apb.WhoAmIRequest()).subject == "w1"
        admin = stub("agent_w2", s.issue(PrincipalKind.OPERATOR, "root", admin=True))
        operator = stub("agent_w2", s.operator_secret)
        request = apb.RevokeCertificateRequest(fingerprint=fingerprint(certs / "agent_w1.pem", colons=True))
        assert refused(lambda: operator.RevokeCertificate(request)).reason == "ADMIN_REQUIRED"
        done = admin.RevokeCertificate(request)
        assert done.fingerprint == fingerprint(certs / "agent_w1.pem")
        info = refused(lambda: w1.WhoAmI(apb.WhoAmIRequest()), grpc.StatusCode.UNAUTHENTICATED)
        assert info.reason == "CERTIFICATE_REVOKED"
        # Even with a valid token on top: the channel's certificate is refused.
        w1_token = stub("agent_w1", s.issue(PrincipalKind.AGENT, "w1"))
        assert refused(lambda: w1_token.WhoAmI(apb.WhoAmIRequest()), grpc.StatusCode.UNAUTHENTICATED)
        assert w2.WhoAmI(apb.WhoAmIRequest()).subject == "w2"
        assert refused(lambda: admin.RevokeCertificate(request), grpc.StatusCode.FAILED_PRECONDITION).reason == (
            "ALREADY_REVOKED"
        )
        bad = apb.RevokeCertificateRequest(fingerprint="abc")
        assert refused(lambda: admin.RevokeCertificate(bad), grpc.StatusCode.INVALID_ARGUMENT).metadata == {
            "field": "fingerprint"
        }
        # The CLI writes the database; the running sidecar refuses the certificate within its poll interval.
        cli = subprocess.run(
            [sys.executable, "-m", "server", "certs", "revoke", "--fingerprint", fingerprint(certs / "agent_w2.pem"),
             "--db-url", s.config.database_url(), "--data-dir", str(s.config.data_dir)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert cli.returncode == 0, cli.stderr
        assert s.services.audit.verify().ok  # the CLI sealed its record with the sidecar's audit key

        def w2_refused() -> bool:
            try:
                w2.WhoAmI(apb.WhoAmIRequest())
            except grpc.RpcError as err:
                return err.code() == grpc.StatusCode.UNAUTHENTICATED
            return False

        eventually(w2_refused, what="the CLI's revocation reaching the sidecar")


def test_a_certificate_revoked_while_its_stream_is_open_ends_the_stream(
    certs: Path, tmp_path: Path, clock: FakeClock
) -> None:
    """A CheckActions stream opened with a client certificate looks its credential up again only after the
    credentials changed: a revocation after many requests still ends it at the next one."""
    with (
        RunningSidecar(mtls_config(certs, tmp_path), clock=clock, new_channel=None) as s,
        client_channel(certs, "agent_w1", s.sidecar.port) as channel,
    ):
        stream = CheckStream(supervisor_service_pb2_grpc.SupervisorServiceStub(channel))
        for i in range(1, 6):
            stream.send(i, check("w1", "read"))
        assert all(a.response.allowed for a in stream.wait(*range(1, 6)))
        s.services.access.revoke_certificate(fingerprint(certs / "agent_w1.pem"), "lost laptop", "test")
        stream.send(6, check("w1", "shell.exec"))
        err = stream.ended()
        assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
        assert 6 not in stream.answers
