#!/usr/bin/env bash
# Schemathesis against the running service's /openapi.json: every operation gets generated
# requests (valid and invalid), and every answer must be no 5xx and match the documented schema.
#
#   scripts/schemathesis.sh [path/to/leadhub]      (default: builds and uses target/debug/leadhub)
#
# SQLite in a temporary folder (or a fresh PostgreSQL database, below), rate limits off, no geocoder
# (no outside network), a platform administrator with an API key made by the CLI, sent as a Bearer
# token. Knobs:
#   SCHEMATHESIS_BACKEND   sqlite (default) or postgres: a database made for the run on the server of
#                          TEST_DATABASE_URL and dropped after it
#   SCHEMATHESIS_EXAMPLES  generated cases per operation (default 25)
#   SCHEMATHESIS_MAX_TIME  seconds for the whole run (default 600)
#   SCHEMATHESIS_ARGS      extra arguments for `schemathesis run`
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir=${CARGO_TARGET_DIR:-target}
bin=${1:-}
if [[ -z "$bin" ]]; then
  cargo build -p leadhub-web --bin leadhub
  bin="$target_dir/debug/leadhub"
fi
python3 -m pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt

work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
backend=${SCHEMATHESIS_BACKEND:-sqlite}
fuzz_db=""
case "$backend" in
  sqlite) export DATABASE_URL="sqlite://$work/leadhub.db" ;;
  postgres)
    server_url=${TEST_DATABASE_URL:?SCHEMATHESIS_BACKEND=postgres needs TEST_DATABASE_URL}
    fuzz_db="leadhub_schemathesis_$$"
    psql -q "$server_url" -c "CREATE DATABASE $fuzz_db"
    # The run's database on the same server, with the URL's parameters (sslmode=...) kept.
    base=${server_url%%\?*}
    params=""
    if [[ "$server_url" == *\?* ]]; then params="?${server_url#*\?}"; fi
    export DATABASE_URL="${base%/*}/$fuzz_db$params"
    ;;
  *) echo "SCHEMATHESIS_BACKEND is sqlite or postgres, not $backend" >&2; exit 2 ;;
esac
export LEADHUB_DATA_DIR="$work"
export LEADHUB_BIND="127.0.0.1:$port"
export LEADHUB_RATE_LIMIT_PER_KEY_HOUR=0
export LEADHUB_RATE_LIMIT_PER_IP_MINUTE=0
export LEADHUB_GEOCODER=none
export RUST_LOG=${RUST_LOG:-warn}

server=""
cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [[ -n "$fuzz_db" ]]; then psql -q "$server_url" -c "DROP DATABASE IF EXISTS $fuzz_db" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" migrate
"$bin" user add --email schemathesis@example.com --first-name Schema --last-name Thesis --admin >/dev/null
key=$("$bin" key create --email schemathesis@example.com --name schemathesis)

"$bin" serve 2>"$work/server.log" &
server=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null

# Run from the temporary folder: schemathesis keeps a `.schemathesis/` cache in its working directory.
cd "$work"
# One worker: with two, Hypothesis describes its filters with `ast.parse` on two threads at once,
# which Python 3.11's parser does not survive ("SystemError: AST constructor recursion depth
# mismatch", CPython gh-106905), failing runs whose every request had passed (docs/decisions.md).
run_schemathesis() {
  # shellcheck disable=SC2086
  schemathesis run "http://127.0.0.1:$port/openapi.json" \
    --checks not_a_server_error,response_schema_conformance \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-25}" \
    --max-time "${SCHEMATHESIS_MAX_TIME:-600}" \
    --header "Authorization: Bearer $key" \
    --seed "${SCHEMATHESIS_SEED:-1}" \
    --workers "${SCHEMATHESIS_WORKERS:-1}" \
    --request-timeout 30 \
    ${SCHEMATHESIS_ARGS:-} 2>&1 | tee "$work/run.log"
  return "${PIPESTATUS[0]}"
}

# Only schemathesis's own errors, and not one answer that failed a check: its summary lists
# "Runtime Error" and nothing else under Errors, and the output has no FAILURES section.
only_tool_errors() {
  ! grep -q ' FAILURES ' "$work/run.log" \
    && grep -q 'Runtime Error: ' "$work/run.log" \
    && ! sed -n '/^Errors:/,/^$/p' "$work/run.log" | grep -v -e '^Errors:' -e '^$' -e 'Runtime Error: ' | grep -q .
}

status=0
run_schemathesis || status=$?
if [[ $status -ne 0 ]] && only_tool_errors; then
  # Case generation itself crashed once in CI (a Hypothesis FlakyFailure inside schemathesis's
  # coverage phase, 2026-11-24) while every request sent had passed. Such a crash says nothing
  # about the service, so it gets one more run; a second crash, or any failed check, fails.
  echo "schemathesis failed inside its own case generation, with no failed check; running it once more" >&2
  status=0
  run_schemathesis || status=$?
fi

if [[ $status -ne 0 ]]; then
  echo "--- server log (errors) ---" >&2
  grep -iE "error|panic" "$work/server.log" | tail -n 50 >&2 || true
fi
exit $status
