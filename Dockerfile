# syntax=docker/dockerfile:1
#
# Outrider sidecar image.
#   build:  docker build -t outrider:dev .          (needs BuildKit: Docker 23+ has it on by default)
#   run:    docker run --rm -p 50051:50051 -p 8080:8080 -v outrider-data:/var/lib/outrider outrider:dev
#   config: mount your own file over /etc/outrider/outrider.yaml (read-only is fine; SIGHUP reloads the policy)
#   lint:   bash scripts/hadolint.sh
#
# Two stages: `builder` turns the repo into wheels (outrider, outrider-client and every
# dependency); `runtime` installs only those wheels, offline, into a venv on a clean slim
# base, so no source tree, build tool or pip cache ships in the final image.

############################ builder: build every wheel ############################
FROM python:3.11-slim-bookworm AS builder

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /src

# The client first: it changes less often than the server, and `outrider` pins
# outrider-client==0.1.0, which is not on any index, so pip must be handed the local
# directory in the same command (below) to resolve it.
COPY clients/python/ clients/python/
COPY pyproject.toml README.md ./
COPY server/ server/
COPY console/ console/

# PyICU (the Unicode TR39 confusable skeleton that refuses look-alike action names,
# server/domain/actions.py) is built here against Debian's ICU; the runtime installs that ICU's library.
# Not pinned: bookworm's security updates replace these versions, and a pin would then stop the build.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends g++ pkg-config libicu-dev \
    && rm -rf /var/lib/apt/lists/*

# One resolver run: ./clients/python satisfies outrider's `outrider-client==0.1.0`;
# every other dependency is a published manylinux wheel.
RUN pip wheel --no-cache-dir --wheel-dir /wheels ./clients/python .

############################ runtime: slim, non-root ###############################
FROM python:3.11-slim-bookworm AS runtime

ARG OUTRIDER_VERSION=0.1.0

LABEL org.opencontainers.image.title="outrider" \
      org.opencontainers.image.description="A sidecar control plane that keeps fleets of AI agents safe: guardrails, approvals, recovery, safeguards over gRPC." \
      org.opencontainers.image.version="${OUTRIDER_VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/python:3.11-slim-bookworm"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    OUTRIDER_CONFIG=/etc/outrider/outrider.yaml \
    OUTRIDER_DATA_DIR=/var/lib/outrider \
    OUTRIDER_LISTEN=0.0.0.0:50051 \
    OUTRIDER_CONSOLE_LISTEN=0.0.0.0:8080 \
    OUTRIDER_INSECURE=true

# OUTRIDER_INSECURE=true: a container must listen beyond loopback, and a sidecar usually talks to its
# agents inside one pod. Callers still need tokens (authentication stays on). To encrypt, mount a
# certificate and key and set OUTRIDER_TLS_CERT_FILE / OUTRIDER_TLS_KEY_FILE (and
# OUTRIDER_TLS_CLIENT_CA_FILE for mTLS), then drop OUTRIDER_INSECURE. See docs/security.md.

# ICU for PyICU (see the builder); unpinned as there.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libicu72 \
    && rm -rf /var/lib/apt/lists/*

# A fixed, numeric, unprivileged uid/gid (10001) so that Kubernetes' runAsNonRoot can
# verify it and host bind mounts can be chowned to it: `chown 10001:10001 DIR`.
# The data dir is created and chowned here, BEFORE the VOLUME line: Docker copies this
# ownership into a fresh named volume, while changes after VOLUME would be discarded.
RUN groupadd --system --gid 10001 outrider \
    && useradd --system --no-log-init --uid 10001 --gid outrider \
        --home-dir /var/lib/outrider --no-create-home --shell /usr/sbin/nologin outrider \
    && install -d -o outrider -g outrider -m 0750 /var/lib/outrider \
    && install -d -o root -g root -m 0755 /etc/outrider

# Install from the builder's wheels only (--no-index: nothing is fetched here). The
# wheels are bind-mounted, not copied, so they add no layer to the image.
RUN --mount=type=bind,from=builder,source=/wheels,target=/tmp/wheels \
    python -m venv "$VIRTUAL_ENV" \
    && pip install --no-cache-dir --no-index --find-links=/tmp/wheels /tmp/wheels/outrider-*.whl \
    && outrider --help >/dev/null

# The example config, root-owned and read-only for the service. Its relative
# storage.data_dir and 127.0.0.1 listen addresses are overridden by the OUTRIDER_*
# variables above (precedence: file < OUTRIDER_* env < flags).
COPY outrider.example.yaml /etc/outrider/outrider.yaml

WORKDIR /var/lib/outrider
USER 10001:10001

# The SQLite database (WAL) lives here; keep it on a volume so it survives the container.
VOLUME ["/var/lib/outrider"]

# 50051: gRPC (outrider.v1 services, grpc.health.v1.Health, reflection); 8080: web console.
EXPOSE 50051 8080

# outrider traps SIGTERM: health goes NOT_SERVING, in-flight RPCs drain for
# server.shutdown_grace (10s in the example config), the decision log is flushed.
# Give `docker stop` at least that long: `docker stop -t 15` / `--stop-timeout 15`,
# terminationGracePeriodSeconds in Kubernetes.
STOPSIGNAL SIGTERM

# Probe grpc.health.v1.Health/Check for the overall server ("") with grpcio's own stub:
# no extra binary. Follows OUTRIDER_LISTEN (0.0.0.0 -> 127.0.0.1, [::] -> [::1],
# unix:PATH as is). Exits 0 only on SERVING, 1 on anything else (errors raise -> 1).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os,sys,grpc;from grpc_health.v1 import health_pb2 as p,health_pb2_grpc as g;a=os.environ.get('OUTRIDER_LISTEN') or '127.0.0.1:50051';h,_,n=a.rpartition(':');t=a if a.startswith('unix:') else {'0.0.0.0':'127.0.0.1','[::]':'[::1]','':'127.0.0.1'}.get(h,h)+':'+n;r=g.HealthStub(grpc.insecure_channel(t)).Check(p.HealthCheckRequest(service=''),timeout=3);sys.exit(0 if r.status==p.HealthCheckResponse.SERVING else 1)"]

ENTRYPOINT ["outrider"]
CMD ["serve"]
