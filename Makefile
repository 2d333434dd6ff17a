# The one entry point: CI runs exactly what a developer runs.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
PROTO_OUT := clients/python
PG_DIR ?= /tmp/outrider-test-pg
# pytest-xdist workers: one per core plus one, since a test spends much of its time waiting on a sidecar
# thread, a subprocess or the database. Each module stays on one worker (its module-scoped sidecars start once).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
PYTEST = $(PY) -m pytest -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: help venv lock run test test-fast test-loaded test-paused test-unit test-integration proto proto-check lint format bench soak docker clean pg-start pg-stop clients conformance docs

help:
	@echo "make run          start Outrider (embedded SQLite, console on http://127.0.0.1:8080); PROFILE=production: auth on, a worker per CPU"
	@echo "make test         install and start everything the tests need, then run them all"
	@echo "make test-fast    the inner loop: unit and in-process tests (no browser, PostgreSQL, processes), in parallel"
	@echo "make test-loaded  make test with a CPU hog on every core: the suite must not depend on an idle machine"
	@echo "make test-paused  make test while random test and sidecar processes freeze now and then (SIGSTOP)"
	@echo "make lock         re-pin requirements.lock after a dependency change in pyproject.toml"
	@echo "make proto        regenerate the Python, TypeScript, Go and Java code and docs/reference/api.md from proto/"
	@echo "make conformance  build the clients, run tests/conformance in Python, TypeScript, Go, Java"
	@echo "make proto-check  fail when generated code is stale or buf lint / buf breaking fail"
	@echo "make lint         ruff, mypy, import-linter"
	@echo "make docs         build the docs site strictly (mkdocs.yml, docs/) into site/"
	@echo "make bench        benchmark CheckAction against a gRPC echo and OPA; writes docs/benchmarks.md"
	@echo "make soak         ramp the mix to its knee, then 85% of it for 10 minutes (MINUTES=N); writes docs/benchmarks.md"
	@echo "make docker       build the container image (needs a Docker engine)"

$(STAMP): pyproject.toml clients/python/pyproject.toml requirements.lock
	@command -v $(PYTHON) >/dev/null || { echo "needs $(PYTHON) (Debian: apt-get install python3)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	bash scripts/icu.sh
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	touch $@

# requirements.lock pins every package of the server, the client, their extras and the dev group
# (requirements.in, pyproject.toml [dependency-groups]); rerun after changing a dependency.
lock:
	test -x $(BIN)/uv || $(MAKE) --no-print-directory venv
	$(BIN)/uv pip compile requirements.in --group dev --python-version 3.11.7 -o requirements.lock -q

venv: $(STAMP)

proto/node_modules/.bin/buf: proto/package.json proto/package-lock.json
	cd proto && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# `make run PROFILE=production`: authentication on and one sidecar worker per CPU (`serve --workers auto`), on
# the same SQLite file and ports.
PROFILE ?= demo
run: venv
ifeq ($(PROFILE),production)
	@echo "make run PROFILE=production: authentication on, one worker per CPU. Credentials: $(BIN)/outrider tokens issue --help"
	$(BIN)/outrider serve --config outrider.example.yaml --workers auto
else
	@echo "make run: DEMO MODE, authentication disabled (OUTRIDER_AUTH_ENABLED=false). Never expose it."
	OUTRIDER_AUTH_ENABLED=false $(BIN)/outrider serve --config outrider.example.yaml
endif

proto: venv proto/node_modules/.bin/buf
	rm -rf $(PROTO_OUT)/outrider/v1 && mkdir -p $(PROTO_OUT)/outrider/v1
	cd proto && ../$(PY) -m grpc_tools.protoc -I . \
	  --python_out=../$(PROTO_OUT) --pyi_out=../$(PROTO_OUT) \
	  --grpc_python_out=../$(PROTO_OUT) --mypy_grpc_out=../$(PROTO_OUT) \
	  outrider/v1/*.proto
	printf '"""Generated from proto/outrider/v1 by `make proto`; do not edit."""\n' > $(PROTO_OUT)/outrider/v1/__init__.py
	bash scripts/buf-generate.sh
	$(PY) scripts/proto_docs.py --out docs/reference/api.md

proto-check: venv proto/node_modules/.bin/buf
	cd proto && npx --no-install buf lint
	@if git rev-parse --verify -q main >/dev/null && git cat-file -e main:proto/buf.yaml 2>/dev/null; then \
	  cd proto && npx --no-install buf breaking --against '../.git#branch=main,subdir=proto'; \
	else echo "buf breaking: no released proto on main yet"; fi
	$(PY) -m pytest -q -p no:cacheprovider tests/unit/test_generated_code.py
	bash scripts/check-generated.sh

lint: venv
	$(BIN)/ruff check server console tests bench clients/python
	$(BIN)/ruff format --check server console tests bench clients/python
	$(BIN)/mypy
	$(BIN)/lint-imports
	bash scripts/hadolint.sh

format: venv
	$(BIN)/ruff format server console tests bench clients/python
	$(BIN)/ruff check --fix server console tests bench clients/python

# The docs site, strictly: a broken link or anchor, or a page left out of the nav, fails the build
# (no --quiet: it hides warnings from --strict's count, and the gate could not fail).
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

pg-start:
	bash scripts/postgres.sh start "$(PG_DIR)"

pg-stop:
	bash scripts/postgres.sh stop "$(PG_DIR)"

test: venv proto/node_modules/.bin/buf
	$(MAKE) --no-print-directory proto-check
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory docs
	bash scripts/chromium.sh
	bash scripts/jaeger.sh
	bash scripts/grpc-tools.sh
	bash scripts/postgres.sh start "$(PG_DIR)"
	set -o pipefail; export OUTRIDER_TEST_PG_URL="$$(bash scripts/postgres.sh url "$(PG_DIR)")" OUTRIDER_REQUIRE_PG=1 OUTRIDER_REQUIRE_BROWSER=1 OUTRIDER_REQUIRE_JAEGER=1 OUTRIDER_REQUIRE_GRPC_TOOLS=1; \
	  $(PYTEST) tests --durations=25; rc=$$?; \
	  bash scripts/postgres.sh stop "$(PG_DIR)"; exit $$rc
	$(MAKE) --no-print-directory conformance

# The TypeScript, Go and Java clients, each from its own registry (npm, the Go module proxy, Maven Central).
TS_CLIENT := clients/typescript
$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# venv: the AI SDK guard's tests start a real sidecar (.venv/bin/outrider), as tests/conformance/run.sh does.
clients: venv $(TS_CLIENT)/node_modules/.installed
	cd $(TS_CLIENT) && npx --no-install tsc -p tsconfig.json && node --test dist/test/
	cd clients/go && go mod download && go vet ./... && go test ./...
	cd clients/java && mvn -q -B test dependency:build-classpath -Dmdep.outputFile=target/classpath.txt

conformance: venv clients
	bash tests/conformance/run.sh

# The inner loop: no browser, no PostgreSQL, no sidecar processes, nothing on the real clock for seconds.
test-fast: venv
	$(PYTEST) tests -q -m "not slow and not postgres" --durations=10

# make test with a CPU hog on every core (scripts/cpu-hog.sh): proves no test depends on an idle machine.
test-loaded:
	bash scripts/cpu-hog.sh $(MAKE) --no-print-directory test

# make test while a random Python process (a pytest worker, a sidecar) is frozen for 0.5-1.5 s every few seconds
# (scripts/pauses.py): proves no test depends on a host that never stalls.
test-paused: venv
	$(PY) scripts/pauses.py $(MAKE) --no-print-directory test

test-unit: venv
	$(PYTEST) tests/unit -q

bench: venv
	$(PY) bench/checkaction.py --out docs/benchmarks.md
	$(PY) bench/inprocess.py --out docs/benchmarks.md
	$(PY) bench/conditions.py --out docs/benchmarks.md
	$(PY) bench/streaming.py --out docs/benchmarks.md
	$(PY) bench/opa.py --out docs/benchmarks.md  # skips itself (one line) without the Go toolchain
	$(PY) bench/approvals.py --out docs/benchmarks.md
	$(PY) bench/safeguards.py --out docs/benchmarks.md
	$(PY) bench/tracing.py --out docs/benchmarks.md
	$(PY) bench/fairness.py --out docs/benchmarks.md
	$(PY) bench/cli.py --out docs/benchmarks.md
	bash scripts/postgres.sh start "$(PG_DIR)"
	export OUTRIDER_BENCH_PG_URL="$$(bash scripts/postgres.sh url "$(PG_DIR)")"; \
	  $(PY) bench/fleet.py --out docs/benchmarks.md; rc=$$?; bash scripts/postgres.sh stop "$(PG_DIR)"; exit $$rc

# Not part of `make test` or `make bench`: bounded, 10 minutes by default.
MINUTES ?= 10
SOAK_OUT ?= docs/benchmarks.md
soak: venv
	$(PY) bench/soak.py --minutes $(MINUTES) --out $(SOAK_OUT)

docker:
	bash scripts/hadolint.sh
	docker build -t outrider:dev .

clean:
	rm -rf $(VENV) .outrider .outrider-test proto/node_modules .outrider-tools site
	rm -rf $(TS_CLIENT)/node_modules $(TS_CLIENT)/dist clients/java/target
