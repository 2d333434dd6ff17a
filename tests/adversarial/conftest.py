"""The integration fixtures (a real sidecar over real gRPC on port 0), shared with the attacks."""

from tests.integration.conftest import clock, s, sidecar, sidecar_any_db  # noqa: F401
