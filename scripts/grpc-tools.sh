#!/usr/bin/env bash
# The outside gRPC clients the reflection tests drive: grpcurl and ghz, installed from the Go module proxy
# into .outrider-tools/bin at pinned versions (fetched again only when a version changes).
#   scripts/grpc-tools.sh          (prints nothing when both are in place)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.outrider-tools/bin"
mkdir -p "$bin"
command -v go >/dev/null || { echo "grpc-tools.sh: needs the Go toolchain (https://go.dev/doc/install)" >&2; exit 1; }

tool() { # name package version
  [ -x "$bin/$1" ] && [ "$(cat "$bin/$1.version" 2>/dev/null)" = "$3" ] && return 0
  echo "grpc-tools.sh: go install $2@$3" >&2
  GOBIN="$bin" GOFLAGS=-mod=mod GOTOOLCHAIN=local go install "$2@$3"
  echo "$3" >"$bin/$1.version"
}

tool grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl v1.9.4
tool ghz github.com/bojand/ghz/cmd/ghz v0.93.0
