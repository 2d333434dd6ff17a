#!/usr/bin/env bash
# Open Policy Agent for the bench's comparison (bench/opa.py), built from the Go module proxy into
# .outrider-tools/bin/opa when missing or at another version, with a copy outside the work tree so a fresh
# clone on the same machine does not build it again. The first build takes a few minutes on 2 cores.
#   scripts/opa.sh          (prints nothing when the binary is in place)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.outrider-tools/bin"
version=v1.22.4
module=github.com/open-policy-agent/opa

[ -x "$bin/opa" ] && [ "$(cat "$bin/opa.version" 2>/dev/null)" = "$version" ] && exit 0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/outrider-tools/opa-$version"
mkdir -p "$bin"
if [ -x "$cache" ]; then
  cp "$cache" "$bin/opa.tmp" && mv "$bin/opa.tmp" "$bin/opa" && echo "$version" >"$bin/opa.version"
  exit 0
fi
command -v go >/dev/null || { echo "opa.sh: needs the Go toolchain (https://go.dev/doc/install)" >&2; exit 1; }
echo "opa.sh: go install $module@$version (a few minutes the first time)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GOBIN="$work" GOFLAGS=-mod=mod GOTOOLCHAIN=local go install "$module@$version"
mv "$work/opa" "$bin/opa"
echo "$version" >"$bin/opa.version"
mkdir -p "$(dirname "$cache")" && cp "$bin/opa" "$cache.tmp" && mv "$cache.tmp" "$cache"
