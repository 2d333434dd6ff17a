#!/usr/bin/env bash
# Run a command while every core is kept busy by a CPU hog (nice 0, like a neighbour's build), so a test that
# only passes on an idle machine fails here rather than on CI.   scripts/cpu-hog.sh COMMAND...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: cpu-hog.sh COMMAND..." >&2; exit 2; }
pids=()
for _ in $(seq "$(nproc)"); do
  ( while :; do :; done ) &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
echo "cpu-hog.sh: $(nproc) busy loops running beside: $*" >&2
"$@"
