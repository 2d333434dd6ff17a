#!/usr/bin/env bash
# Starts one sidecar (SQLite in a temporary data dir, no console), issues the credentials that
# scenarios.json names, runs the conformance drivers one after another against it, then runs each
# language's example, and stops the sidecar. `make conformance` builds the clients first.
#   tests/conformance/run.sh [python] [typescript] [go] [java]      (default: all four)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
here=tests/conformance
outrider=${OUTRIDER_BIN:-$root/.venv/bin/outrider}
py=${PYTHON_BIN:-$root/.venv/bin/python}
langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(python typescript go java)

scenarios=${OUTRIDER_CONFORMANCE_SCENARIOS:-$root/$here/scenarios.json}
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

flags=(--config "$here/sidecar.yaml" --data-dir "$tmp/data" --no-console --log-level warning)
# One token per credential of the scenario file, issued on the database before the sidecar starts.
while read -r name kind subject; do
  secret=$("$outrider" tokens issue "--$kind" "$subject" --description conformance "${flags[@]}" 2>/dev/null)
  export "OUTRIDER_CONFORMANCE_TOKEN_${name^^}=$secret"
  [ "$name" = agent ] && agent_subject=$subject && agent_secret=$secret
done < <("$py" -c 'import json, sys
for n, c in json.load(open(sys.argv[1]))["credentials"].items(): print(n, c["kind"], c["subject"])' "$scenarios")

# Port 0 + --port-file: the kernel picks a free port, so two runs never race for one.
"$outrider" serve "${flags[@]}" --listen 127.0.0.1:0 --port-file "$tmp/port" >"$tmp/sidecar.log" 2>&1 &
pid=$!
for _ in $(seq 300); do
  [ -s "$tmp/port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/sidecar.log" >&2; echo "run.sh: the sidecar did not start" >&2; exit 1; }
  sleep 0.1
done
[ -s "$tmp/port" ] || { cat "$tmp/sidecar.log" >&2; echo "run.sh: no port after 30 s" >&2; exit 1; }
address=127.0.0.1:$(cat "$tmp/port")
export OUTRIDER_CONFORMANCE_ADDRESS=$address
export OUTRIDER_CONFORMANCE_SCENARIOS=$scenarios
echo "conformance: sidecar on $address"

java_cp() { echo "$root/clients/java/target/classes:$root/clients/java/target/test-classes:$(cat "$root/clients/java/target/classpath.txt")"; }

driver() {
  case $1 in
    python) "$py" -m pytest -q -s -p no:cacheprovider "$here/test_conformance.py" ;;
    typescript) (cd clients/typescript && node dist/conformance/driver.js) ;;
    go) (cd clients/go && go run ./conformance) ;;
    java) java -cp "$(java_cp)" dev.outrider.conformance.Driver ;;
    *) echo "run.sh: unknown language $1" >&2; return 2 ;;
  esac
}

# The examples ask as the conformance agent, over the state the last scenario left (an empty chain).
example() {
  export OUTRIDER_ADDRESS=$address OUTRIDER_TOKEN=$agent_secret OUTRIDER_AGENT=$agent_subject
  case $1 in
    python) ;;
    typescript) (cd clients/typescript && node dist/examples/check-action.js) ;;
    go) (cd clients/go && go run ./examples/checkaction) ;;
    java) java -cp "$(java_cp)" "$root/clients/java/examples/CheckAction.java" ;;
  esac
}

failed=()
passed_total=0
failed_total=0
for lang in "${langs[@]}"; do
  echo "--- conformance: $lang"
  driver "$lang" 2>&1 | tee "$tmp/$lang.out" || failed+=("$lang")
  # Each driver closes with "conformance LANG: N passed, M failed"; no such line counts as one failure.
  line=$(grep -E "^conformance $lang: [0-9]+ passed, [0-9]+ failed$" "$tmp/$lang.out" | tail -n1 || true)
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed_total=$((passed_total + BASH_REMATCH[1]))
    failed_total=$((failed_total + BASH_REMATCH[2]))
  else
    failed_total=$((failed_total + 1))
  fi
done
for lang in "${langs[@]}"; do
  [ "$lang" = python ] && continue
  echo "--- example: $lang"
  example "$lang" || failed+=("$lang example")
done
if ! kill -0 "$pid" 2>/dev/null; then
  cat "$tmp/sidecar.log" >&2
  echo "run.sh: the sidecar died during the run" >&2
  failed+=(sidecar)
fi
[ ${#failed[@]} -eq 0 ] || echo "conformance: FAILED: ${failed[*]}" >&2
echo "conformance: ${passed_total} passed, ${failed_total} failed"
[ ${#failed[@]} -eq 0 ] && [ "$failed_total" = 0 ]
