#!/usr/bin/env bash
# Fails when the committed TypeScript, Go or Java client code, or the API reference page, is not exactly
# what `make proto` makes from proto/ now (the Python code is checked by tests/unit/test_generated_code.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/scripts/buf-generate.sh" "$tmp"
stale=0
for d in clients/typescript/src/gen clients/go/outrider/v1 clients/java/src/main/java/dev/outrider/v1; do
  if ! diff -r -q "$root/$d" "$tmp/$d" >"$tmp/diff.txt" 2>&1; then
    echo "check-generated.sh: $d is stale:" >&2
    sed 's/^/  /' "$tmp/diff.txt" | head -n 20 >&2
    stale=1
  fi
done
"${PYTHON:-$root/.venv/bin/python}" "$root/scripts/proto_docs.py" --out "$tmp/api.md"
if ! diff -q "$root/docs/reference/api.md" "$tmp/api.md" >/dev/null 2>&1; then
  echo "check-generated.sh: docs/reference/api.md is stale (or missing)" >&2
  stale=1
fi
[ "$stale" = 0 ] || { echo "check-generated.sh: run 'make proto' and commit the result" >&2; exit 1; }
# The TypeScript package exports every generated file (a new .proto needs a line in src/index.ts).
for f in "$root"/clients/typescript/src/gen/outrider/v1/*_pb.ts; do
  name=$(basename "$f" .ts)
  grep -q "\"./gen/outrider/v1/$name.js\"" "$root/clients/typescript/src/index.ts" || {
    echo "check-generated.sh: clients/typescript/src/index.ts does not export ./gen/outrider/v1/$name.js" >&2
    exit 1
  }
done
echo "generated TypeScript, Go and Java clients and the API reference are fresh"
