#!/usr/bin/env bash
# Run the official MCP conformance suite against toolweave's fixture server, for both spec versions.
#
#   bash tests/conformance/run.sh     # PYTHON=... picks the interpreter (default: .venv/bin/python, else python3)
#
# Installs Node 22 and the pinned suite into .cache/ when needed (tests/node_tools.sh), starts
# tests/conformance/fixture_server.py on 127.0.0.1:<free port>, runs
# `conformance server --suite all --spec-version V --expected-failures baseline-V.yml` for each V,
# and exits non-zero on any unexpected failure or stale baseline entry. The output ends with the
# suite's `Total: N passed, M failed` line of each spec version (M counts baseline entries too), then
# `conformance: P passed, U failed, E skipped` (U: unexpected failures, E: expected ones).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-}"
if [[ -z "$PYTHON" ]]; then
    if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
SPECS=(2025-11-25 2026-07-28)
OUT="${CONFORMANCE_OUT:-$ROOT/.cache/conformance-results}"

tools="$(bash "$ROOT/tests/node_tools.sh" conformance)" || {
    code=$?
    [[ $code -eq 3 ]] && echo "conformance: the npm registry is unreachable and the suite is not cached" >&2
    exit "$code"
}
NODE_BIN="$(sed -n 's/^NODE_BIN=//p' <<<"$tools")"
CONFORMANCE="$(sed -n 's/^CONFORMANCE=//p' <<<"$tools")"
export PATH="$NODE_BIN:$PATH" NO_COLOR=1

PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URL="http://127.0.0.1:$PORT/mcp"
rm -rf "$OUT" && mkdir -p "$OUT"

(cd "$ROOT" && PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" exec "$PYTHON" -m tests.conformance.fixture_server "$PORT") \
    >"$OUT/fixture_server.log" 2>&1 &
SERVER_PID=$!
stop_server() { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }
trap stop_server EXIT

for _ in $(seq 1 100); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "conformance: the fixture server exited early:" >&2
        cat "$OUT/fixture_server.log" >&2
        exit 1
    fi
    (: >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.1
done

status=0
totals=()
passed=0 unexpected=0 expected=0
for spec in "${SPECS[@]}"; do
    echo "== conformance server --suite all --spec-version $spec ($URL)"
    log="$OUT/$spec.log"
    set +e
    "$CONFORMANCE" server --url "$URL" --suite all --spec-version "$spec" \
        --expected-failures "$HERE/baseline-$spec.yml" -o "$OUT/$spec" >"$log" 2>&1
    code=$?
    set -e
    sed -i 's/\x1b\[[0-9;]*m//g' "$log"                 # the suite colours its verdict lines
    # Scenario lines that failed, then the baseline verdict; the full log stays in $OUT.
    grep -E '^(✗ |  [✓✗] |Stale|Unexpected|Baseline)' "$log" || true
    total="$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)"
    if [[ $code -ne 0 || -z "$total" ]]; then
        echo "conformance $spec: FAILED (exit $code); full log: $log"
        [[ -z "$total" ]] && tail -n 40 "$log"
        status=1
    fi
    totals+=("${total:-Total: no result for $spec}")
    ok="$(sed -n 's/^Total: \([0-9]*\) passed.*/\1/p' <<<"$total")"
    bad="$(grep -c '^  [✓✗] ' "$log" || true)"          # unexpected failures and stale entries
    if [[ $code -ne 0 && $bad -eq 0 ]]; then bad=1; fi
    passed=$((passed + ${ok:-0})) unexpected=$((unexpected + bad))
    expected=$((expected + $(grep -c '^  ~ ' "$log" || true)))
done

echo "== conformance totals (${SPECS[*]})"
printf '%s\n' "${totals[@]}"
# One closing line in the plain `N passed, N failed` form: checks passed over both spec versions,
# unexpected failures (or stale baseline entries), and baseline (expected) failures as skipped.
echo "conformance: $passed passed, $unexpected failed, $expected skipped"
exit "$status"
