#!/usr/bin/env bash
# The real Jaeger that the telemetry tests export to: Jaeger v2 (an OpenTelemetry Collector with Jaeger's
# storage and query API), built from the Go module proxy into .outrider-tools/bin/jaeger when missing or at
# another version. The first build takes about 4-5 minutes on 2 cores; the Go caches make a rebuild quick.
# A binary built this way has no UI assets (the query API is complete); see docs/observability.md for the UI.
#   scripts/jaeger.sh          (prints nothing when the binary is in place)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.outrider-tools/bin"
# Jaeger v2 releases are tagged twice; the Go module keeps the v1.x numbering (v1.76.0 is Jaeger v2.13.0).
version=v1.76.0
module=github.com/jaegertracing/jaeger

[ -x "$bin/jaeger" ] && [ "$(cat "$bin/jaeger.version" 2>/dev/null)" = "$version" ] && exit 0
# A copy outside the work tree, so a fresh clone on the same machine (CI) does not build it again.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/outrider-tools/jaeger-$version"
mkdir -p "$bin"
if [ -x "$cache" ]; then
  cp "$cache" "$bin/jaeger.tmp" && mv "$bin/jaeger.tmp" "$bin/jaeger" && echo "$version" >"$bin/jaeger.version"
  exit 0
fi
command -v go >/dev/null || { echo "jaeger.sh: needs the Go toolchain (https://go.dev/doc/install)" >&2; exit 1; }
echo "jaeger.sh: building $module/cmd/jaeger@$version (a few minutes the first time)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export GOFLAGS=-mod=mod GOTOOLCHAIN=local
# `go install pkg@version` refuses a module whose go.mod has replace directives; build it from a
# throwaway module that requires it and repeats them.
modfile=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
[ -f "$modfile" ] || { echo "jaeger.sh: could not download $module@$version" >&2; exit 1; }
if grep -q '^replace[[:space:]]*($' "$modfile"; then
  echo "jaeger.sh: $module@$version has a replace block this script does not copy" >&2
  exit 1
fi
{
  printf 'module outrider.local/jaeger\n\ngo %s\n\n' "$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$modfile")"
  grep '^replace ' "$modfile" || true
} >go.mod
go get "$module/cmd/jaeger@$version" >/dev/null 2>&1 || go get "$module/cmd/jaeger@$version"
go build -trimpath -o "$bin/jaeger.tmp" "$module/cmd/jaeger"
mv "$bin/jaeger.tmp" "$bin/jaeger"
echo "$version" >"$bin/jaeger.version"
mkdir -p "$(dirname "$cache")" && cp "$bin/jaeger" "$cache.tmp" && mv "$cache.tmp" "$cache"
