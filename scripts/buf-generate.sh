#!/usr/bin/env bash
# `buf generate` for the TypeScript, Go and Java clients (proto/buf.gen.yaml), with local plugins only.
#   scripts/buf-generate.sh          regenerate the committed code in clients/
#   scripts/buf-generate.sh DIR      generate into DIR/clients/... instead (scripts/check-generated.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Every directory here holds generated code only: it is emptied before generating.
GENERATED=(clients/typescript/src/gen clients/go/outrider/v1 clients/java/src/main/java/dev/outrider/v1)

bash "$root/scripts/codegen-tools.sh"
base=${1:-$root}
for d in "${GENERATED[@]}"; do rm -rf "${base:?}/$d"; done
mkdir -p "$base/proto"
cd "$root/proto"
# buf prepends --output to the template's `out` paths (../clients/...), hence DIR/proto.
npx --no-install buf generate --output "$base/proto"
rmdir "$base/proto" 2>/dev/null || true
