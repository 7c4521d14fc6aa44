#!/usr/bin/env bash
# Schemathesis against the running service's /openapi.json: every operation gets generated
# requests (valid and invalid), and every answer must be no 5xx and match the documented schema.
#
#   scripts/schemathesis.sh [path/to/leadhub]      (default: builds and uses target/debug/leadhub)
#
# SQLite in a temporary folder, rate limits off, no geocoder (no outside network), a platform
# administrator with an API key made by the CLI, sent as a Bearer token. Knobs:
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
command -v schemathesis >/dev/null \
  || python3 -m pip install --quiet --disable-pip-version-check schemathesis

work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export DATABASE_URL="sqlite://$work/leadhub.db"
export LEADHUB_DATA_DIR="$work"
export LEADHUB_BIND="127.0.0.1:$port"
export LEADHUB_RATE_LIMIT_PER_KEY_HOUR=0
export LEADHUB_RATE_LIMIT_PER_IP_MINUTE=0
export LEADHUB_GEOCODER=none
export RUST_LOG=${RUST_LOG:-warn}

server=""
cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
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

status=0
# Run from the temporary folder: schemathesis keeps a `.schemathesis/` cache in its working directory.
cd "$work"
# shellcheck disable=SC2086
schemathesis run "http://127.0.0.1:$port/openapi.json" \
  --checks not_a_server_error,response_schema_conformance \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-25}" \
  --max-time "${SCHEMATHESIS_MAX_TIME:-600}" \
  --header "Authorization: Bearer $key" \
  --seed "${SCHEMATHESIS_SEED:-1}" \
  --workers 2 \
  --request-timeout 30 \
  ${SCHEMATHESIS_ARGS:-} || status=$?

if [[ $status -ne 0 ]]; then
  echo "--- server log (errors) ---" >&2
  grep -iE "error|panic" "$work/server.log" | tail -n 50 >&2 || true
fi
exit $status
