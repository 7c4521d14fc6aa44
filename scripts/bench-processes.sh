#!/usr/bin/env bash
# Several `leadhub serve` processes on one PostgreSQL database, loaded together. For each process count it prints
# single submissions per second (every one a new property), p99 latency, and the server CPU time per submission;
# then it sends the same 200 addresses to every process at once and checks that each became exactly one lead.
# One wrk per process, the connections split evenly; all on this machine (the load generator shares its cores).
# Usage: scripts/bench-processes.sh [path/to/leadhub]   (default ${CARGO_TARGET_DIR:-target}/release/leadhub)
#   BENCH_COUNTS       process counts (default "sqlite 1 2 3"; "sqlite" is one process on a SQLite database)
#   BENCH_SECONDS      load time per count (default 20)
#   BENCH_CONNECTIONS  total wrk connections (default 16)
#   BENCH_GEOCODER     the servers' LEADHUB_GEOCODER (default none; zip is offline)
#   BENCH_PG_URL       an admin URL (default postgres://postgres@127.0.0.1:5432/test); each count runs in a fresh
#                      database, dropped afterwards
# Servers run with RUST_LOG=warn, rate limits off and no geocoder unless BENCH_GEOCODER names one (only 127.0.0.1
# is ever a target).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "${1:-${CARGO_TARGET_DIR:-$root/target}/release/leadhub}")
counts=${BENCH_COUNTS:-sqlite 1 2 3}
seconds=${BENCH_SECONDS:-20}
connections=${BENCH_CONNECTIONS:-16}
admin_url=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/test}
if ! command -v wrk >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null && apt-get install -y -qq wrk </dev/null >/dev/null 2>&1
fi
work=$(mktemp -d)
pids=()
db=""
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  [[ -n $db ]] && psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
}
trap 'stop_all; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

cat >"$work/single.lua" <<'LUA'
-- Each request a new property: the street names the wrk instance and thread, the number counts up.
local made = 0
function setup(thread)
  made = made + 1
  thread:set("tnum", made)
end
function init(args)
  key = args[1]
  street = string.format("Proc%s T%d Way", args[2], tnum)
  n = 0
end
function request()
  n = n + 1
  local body = string.format(
    '{"address":"%d %s","city":"Austin","state":"TX","zip_code":"78701","first_name":"Load","source":"web_form"}',
    n, street)
  return wrk.format("POST", "/api/v1/submissions/single",
    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end
LUA

cat >"$work/same_addresses.py" <<'PY'
# The same 200 addresses to every process at once; prints the statuses seen.
import collections, concurrent.futures, json, sys, urllib.request
key, bases = sys.argv[1], sys.argv[2:]
def send(job):
    base, n = job
    body = json.dumps({"address": f"{n} Shared Ave", "city": "Austin", "state": "TX", "zip_code": "78701"}).encode()
    request = urllib.request.Request(f"{base}/api/v1/submissions/single", body,
                                     {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code
jobs = [(base, n) for n in range(1, 201) for base in bases]
with concurrent.futures.ThreadPoolExecutor(32) as pool:
    statuses = collections.Counter(pool.map(send, jobs))
print(" ".join(f"{s}x{c}" for s, c in sorted(statuses.items())))
PY

printf '| processes | submissions/s | p99 (worst process) | server CPU per submission | same 200 addresses x processes |\n'
printf '|---:|---:|---:|---:|---|\n'
# sql QUERY: one value from the database under test
sql() {
  if [[ $DATABASE_URL == sqlite://* ]]; then
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
      "${DATABASE_URL#sqlite://}" "$1"
  else
    psql -tA "$DATABASE_URL" -c "$1"
  fi
}
for label in $counts; do
  rm -rf "$work/data"
  if [[ $label == sqlite ]]; then
    count=1
    export DATABASE_URL="sqlite://$work/data/leadhub.db"
  else
    count=$label
    db="lh_bench_procs_$$_$count"
    psql -q "$admin_url" -c "CREATE DATABASE $db" >/dev/null
    export DATABASE_URL="${admin_url%/*}/$db"
  fi
  export LEADHUB_DATA_DIR="$work/data" LEADHUB_GEOCODER="${BENCH_GEOCODER:-none}" RUST_LOG=warn
  export LEADHUB_RATE_LIMIT_PER_KEY_HOUR=0 LEADHUB_RATE_LIMIT_PER_IP_MINUTE=0
  "$bin" migrate >/dev/null 2>&1
  "$bin" user add --email bench@example.com --first-name Bench --last-name Mark >/dev/null 2>&1
  key=$("$bin" key create --email bench@example.com 2>/dev/null)
  bases=()
  for i in $(seq 1 "$count"); do
    port=$(free_port)
    LEADHUB_BIND="127.0.0.1:$port" "$bin" serve >>"$work/serve-$count-$i.log" 2>&1 &
    pids+=($!)
    bases+=("http://127.0.0.1:$port")
    for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
  done
  before=0
  for pid in "${pids[@]}"; do before=$((before + $(cpu_ticks "$pid"))); done
  per=$(( (connections + count - 1) / count ))
  loads=()
  for i in $(seq 1 "$count"); do
    wrk -t1 -c"$per" -d"${seconds}s" --timeout 10s --latency -s "$work/single.lua" "${bases[$((i - 1))]}" \
      -- "$key" "$i" >"$work/wrk-$count-$i.txt" 2>&1 &
    loads+=($!)
  done
  wait "${loads[@]}"
  after=0
  for pid in "${pids[@]}"; do after=$((after + $(cpu_ticks "$pid"))); done
  rate=0 requests=0 p99=0 errors=0
  for i in $(seq 1 "$count"); do
    out="$work/wrk-$count-$i.txt"
    rate=$(awk -v r="$rate" '/^Requests\/sec/ { print r + $2 }' "$out")
    requests=$((requests + $(awk '/requests in/ { print $1 }' "$out")))
    errors=$((errors + $(awk '/Non-2xx/ { n += $NF } /Socket errors/ { n += 1 } END { print n + 0 }' "$out")))
    p=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else { sub(/s/, "", v); v *= 1000 } print v }' "$out")
    p99=$(awk -v a="$p99" -v b="$p" 'BEGIN { print (b > a) ? b : a }')
  done
  hz=$(getconf CLK_TCK)
  cpu_us=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')
  same=$(python3 "$work/same_addresses.py" "$key" "${bases[@]}")
  leads=$(sql "SELECT count(*) FROM leads WHERE address LIKE '% Shared Ave'")
  twice=$(sql "SELECT count(*) FROM (SELECT address_key FROM leads WHERE address_key IS NOT NULL GROUP BY dedupe_scope, address_key HAVING count(*) > 1) t")
  verdict="answers $same; $leads leads, $twice properties with two"
  [[ $errors -gt 0 ]] && verdict="$verdict; $errors non-2xx/socket errors under load"
  printf '| %s | %.0f | %.1f ms | %d us | %s |\n' "$label" "$rate" "$p99" "$cpu_us" "$verdict"
  if [[ $leads != 200 || $twice != 0 ]]; then echo "FAILED: a property got two leads or one went missing" >&2; exit 1; fi
  stop_all
  db=""
done
