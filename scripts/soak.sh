#!/usr/bin/env bash
# Soak test: mixed API traffic (wrk + a Lua mix) against one `leadhub serve`, on SQLite and on PostgreSQL, in
# consecutive slices; after each slice it records throughput, p50/p99 latency, responses by status class, the
# server's anonymous resident memory (RssAnon: its heap; SQLite's memory-mapped database file is
# file-backed and left out), open file descriptors, database size and lead count. At the end it prints a
# markdown section (tables per backend, status counts per request kind, mean latency per route in the first and last
# slices from the server's /metrics, a verdict) ready for docs/performance.md.
#
# Usage: scripts/soak.sh [path/to/leadhub]     (default ${CARGO_TARGET_DIR:-target}/release/leadhub, built when missing)
#   SOAK_SECONDS      load time per backend, seconds (default 240); the run takes about twice that with both backends
#   SOAK_SLICE        seconds per measurement slice (default 15); SOAK_SECONDS / SOAK_SLICE slices
#   SOAK_CONNECTIONS  wrk connections (default 16); SOAK_THREADS wrk threads (default 2)
#   SOAK_BACKENDS     "sqlite postgres" (default); postgres needs pg_isready to succeed on SOAK_PG_URL and is
#                     skipped with a notice otherwise; it runs in a fresh database (leadhub_soak_<pid>), dropped at the end
#   SOAK_PG_URL       server URL without a database (default postgres://postgres@127.0.0.1:5432)
#   SOAK_MIX          growing (default: most submissions are new properties, so the leads table grows) or steady
#                     (every submission lands on one of 2,000 properties, so after warm-up the tables stop growing
#                     but for the submissions log: memory can then be judged apart from data growth)
#   SOAK_RATE_LIMITS  high (default: both limits on but far above the load, so the limiter's store is exercised)
#                     or off (0 = off, as config.rs reads it)
#   SOAK_RUST_LOG     the server's RUST_LOG (default info: one line per request, as in production)
#   SOAK_REPORT       also write the markdown section to this file
#   SOAK_KEEP=1       keep the work directory (server logs, wrk output) instead of removing it
# Exit status: 0 when no request was answered 5xx and the server stayed up on every backend run; 1 when one was,
# or when a backend could not be set up (migrate, user, key, readiness); 2 for a usage problem.
# Only 127.0.0.1 is ever a target; the geocoder is off (no outside traffic).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${SOAK_SECONDS:-240}
slice=${SOAK_SLICE:-15}
pg_vacuum_between=0
connections=${SOAK_CONNECTIONS:-16}
threads=${SOAK_THREADS:-2}
backends=${SOAK_BACKENDS:-sqlite postgres}
pg_base=${SOAK_PG_URL:-postgres://postgres@127.0.0.1:5432}
rate_limits=${SOAK_RATE_LIMITS:-high}
mix=${SOAK_MIX:-growing}
[[ $mix == growing || $mix == steady ]] || { printf 'soak: SOAK_MIX must be growing or steady\n' >&2; exit 2; }
server_log_filter=${SOAK_RUST_LOG:-info}

say() { printf 'soak: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

for n in seconds slice connections threads; do
  [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "SOAK_${n^^} must be a positive whole number (got '${!n}')"
done
((connections >= threads)) || die "SOAK_CONNECTIONS ($connections) must be at least SOAK_THREADS ($threads)"
slices=$((seconds / slice))
((slices >= 1)) || slices=1
case $rate_limits in
  high) limit_hour=4000000000 limit_minute=4000000000 ;;
  off) limit_hour=0 limit_minute=0 ;;
  *) die "SOAK_RATE_LIMITS must be high or off" ;;
esac

# ---------------------------------------------------------------------------------------------------------------
# The binary (built when the default path is missing) and the tools.
if [[ $# -ge 1 ]]; then
  bin=$1
  [[ -x $bin ]] || die "$bin is not an executable"
else
  target_dir=${CARGO_TARGET_DIR:-target}
  [[ $target_dir = /* ]] || target_dir=$root/$target_dir
  bin=$target_dir/release/leadhub
  if [[ ! -x $bin ]]; then
    say "building $bin (cargo build --release -p leadhub-web)"
    (cd "$root" && cargo build --release -p leadhub-web) >&2
  fi
fi
bin=$(realpath "$bin")
command -v curl >/dev/null || die "needs curl"
if ! command -v wrk >/dev/null; then
  say "installing wrk from the distribution (apt-get install -y wrk)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq wrk </dev/null >/dev/null 2>&1; then
    apt-get update -qq </dev/null >/dev/null
    apt-get install -y -qq wrk </dev/null >/dev/null
  fi
  command -v wrk >/dev/null || die "wrk could not be installed"
fi

# Nothing of the caller's configuration leaks into the server (a .env is read from the working directory, so the
# server runs in the work directory too).
unset DATABASE_URL
while read -r v; do unset "$v"; done < <(compgen -e | grep '^LEADHUB_' || true)

work=$(mktemp -d "${TMPDIR:-/tmp}/leadhub-soak.XXXXXX")
server_pid=
pg_db=
failed=0

stop_server() {
  [[ -n $server_pid ]] || return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}
drop_pg_db() {
  [[ -n $pg_db ]] || return 0
  PGCONNECT_TIMEOUT=5 timeout 60 dropdb --if-exists --force --maintenance-db="$pg_base/postgres" "$pg_db" >/dev/null 2>&1 ||
    PGCONNECT_TIMEOUT=5 timeout 60 dropdb --if-exists --maintenance-db="$pg_base/postgres" "$pg_db" >/dev/null 2>&1 ||
    say "could not drop database $pg_db"
  pg_db=
}
cleanup() {
  stop_server
  drop_pg_db
  if [[ ${SOAK_KEEP:-0} = 1 ]]; then say "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------------------------
# The request mix. wrk runs one Lua state per thread; request() picks a kind by weight and tags the request with an
# X-Request-Id naming the kind, which the server echoes, so response() can count statuses per kind (and a 5xx can
# be found in the server log by that id). done() aggregates the threads' counters.
# Arguments after `--`: API key, highest lead id, highest submission id, slice number.
cat >"$work/mix.lua" <<'LUA'
threads = {}
local kinds = { "single", "batch", "list", "get", "status", "biz", "health", "unknown" }
local classes = { "2xx", "404", "4xx", "5xx", "other" }
local streets = { "Oak", "Maple", "Cedar", "Pine", "Elm", "Walnut", "Birch", "Willow", "Hickory", "Magnolia", "Pecan", "Sycamore" }
local suffixes = { "Street", "Avenue", "Drive", "Lane", "Road", "Court", "Boulevard", "Way", "Place", "Trail" }
local cities = { { "Austin", "TX", "Travis" }, { "Dallas", "TX", "Dallas" }, { "Denver", "CO", "Denver" },
  { "Phoenix", "AZ", "Maricopa" }, { "Tampa", "FL", "Hillsborough" }, { "Portland", "OR", "Multnomah" } }
local permit_states = { "Pending", "Approved", "In-Review", "Issued", "Final" }
local work_types = { "Roof replacement", "HVAC install", "Pool", "Solar panels", "Kitchen remodel", "New construction" }
local list_filters = { "", "&state=TX", "&city=Austin", "&zip_code=1", "&property_type=residential", "&q=Oak",
  "&source=soak", "&permit_status=Approved", "&created_after=2020-01-01", "&offset=40" }
local biz_filters = { "", "&industry=plumbing", "&state=TX", "&relationship_type=lead_buyer", "&status=prospect" }

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  key = args[1]
  max_lead = tonumber(args[2]) or 1
  max_sub = tonumber(args[3]) or 1
  slice = tonumber(args[4]) or 0
  steady = args[5] == "steady"
  math.randomseed(tid * 7919 + slice * 104729 + os.time())
  auth = "Bearer " .. key
  seq = 0       -- fresh properties made by this thread in this slice
  counter = 0   -- requests made by this thread
  samples = 0
  for _, k in ipairs(kinds) do
    for _, c in ipairs(classes) do _G["n_" .. k .. "_" .. c] = 0 end
  end
  -- this thread's ZIP in this slice: every fresh property of (slice, thread) is new to the database
  zip = string.format("%05d", 10000 + (slice * 64 + tid) % 89999)
  if steady then zip = "77001" end
end

-- In the steady mix every property comes from one pool of 2,000 shared by all threads and slices.
local POOL = 2000
local function known()
  if steady then return math.random(POOL) end
  return math.random(seq)
end

-- One lead as JSON. n picks the property (house number, street, city); zp its ZIP; v varies the mergeable fields.
local function lead(n, zp, v)
  local city = cities[n % #cities + 1]
  local phone = string.format("512555%04d", (n * 7 + v) % 10000)
  return string.format('{"address":"%d %s %s","city":"%s","state":"%s","zip_code":"%s","county":"%s",' ..
    '"first_name":"Owner","last_name":"Soak%d","primary_phone":"(%s) %s-%s","primary_phone_type":"mobile",' ..
    '"email_1":"owner%d.%s@example.com","project_number":"SOAK-%s-%d","permit_date":"01/05/2025",' ..
    '"permit_status":"%s","work_type":"%s","property_type":"residential","lot_size":"0.25 acres","bedrooms":%d,' ..
    '"project_description":"Soak test lead","source":"soak","source_identifier":"soak-%s-%d-%d"}',
    n, streets[n % #streets + 1], suffixes[n % #suffixes + 1], city[1], city[2], zp, city[3],
    n, phone:sub(1, 3), phone:sub(4, 6), phone:sub(7, 10), n, zp, zp, n,
    permit_states[v % #permit_states + 1], work_types[n % #work_types + 1], n % 6 + 1, zp, n, v)
end

local function fresh()
  seq = seq + 1
  if steady then return lead(math.random(POOL), zip, 0) end
  return lead(seq, zip, 0)
end

-- A single submission: mostly new properties, some repeats (merged: skipped when identical, updated when a field
-- changed), some on a small pool shared by every thread (concurrent merges of one property), some with an
-- Idempotency-Key (replayed after the first).
local function single()
  local r = math.random(100)
  if r <= 75 or seq < 5 then
    return fresh(), nil
  elseif r <= 85 then
    return lead(known(), zip, 0), nil                               -- identical repeat: skipped
  elseif r <= 92 then
    return lead(known(), zip, math.random(1, 50)), nil              -- changed permit status/phone: updated
  elseif r <= 96 then
    return lead(math.random(25), "99001", math.random(0, 1000)), nil -- shared hot pool
  else
    local k = math.random(20)
    return lead(5000 + k, string.format("%05d", 98000 + tid), k), string.format("soak-idem-t%d-k%d", tid, k)
  end
end

local function batch()
  local parts = {}
  local first = fresh()
  parts[1] = first
  for i = 2, 18 do parts[i] = fresh() end
  parts[19] = lead(known(), zip, math.random(1, 50))                -- an earlier property
  parts[20] = first                                                 -- the same property twice in one batch
  local deferred = math.random(4) == 1
  return '{"process_immediately":' .. (deferred and "false" or "true") .. ',"leads":[' .. table.concat(parts, ",") .. "]}"
end

function request()
  counter = counter + 1
  local r = math.random(100)
  local kind, method, path, body, idem
  if r <= 40 then
    kind, method, path = "single", "POST", "/api/v1/submissions/single"
    body, idem = single()
  elseif r <= 45 then
    kind, method, path, body = "batch", "POST", "/api/v1/submissions/batch", batch()
  elseif r <= 70 then
    kind, method = "list", "GET"
    path = "/api/v1/leads?limit=" .. (math.random(5) == 1 and "50" or "20") .. list_filters[math.random(#list_filters)]
  elseif r <= 80 then
    -- ids up to about 10% past the highest one known before the slice: mostly found, some 404 by design
    kind, method = "get", "GET"
    path = "/api/v1/leads/" .. math.random(math.floor(max_lead * 1.1) + 5)
  elseif r <= 90 then
    kind, method = "status", "GET"
    path = "/api/v1/submissions/status/" .. math.random(max_sub)
  elseif r <= 95 then
    kind, method = "biz", "GET"
    path = "/api/v1/lead-sources/businesses?limit=20" .. biz_filters[math.random(#biz_filters)]
  else
    kind, method, path = "health", "GET", "/healthz"
  end
  local headers = { ["X-Request-Id"] = string.format("soak-%s-s%d-t%d-%d", kind, slice, tid, counter) }
  if kind ~= "health" then headers["Authorization"] = auth end
  if body then headers["Content-Type"] = "application/json" end
  if idem then headers["Idempotency-Key"] = idem end
  return wrk.format(method, path, headers, body)
end

function response(status, headers, body)
  local rid = headers["x-request-id"] or headers["X-Request-Id"] or ""
  local kind = rid:match("^soak%-(%a+)%-") or "unknown"
  local class
  if status >= 200 and status < 300 then class = "2xx"
  elseif status == 404 then class = "404"
  elseif status >= 400 and status < 500 then class = "4xx"
  elseif status >= 500 then class = "5xx"
  else class = "other" end
  local name = "n_" .. kind .. "_" .. class
  if _G[name] == nil then name = "n_unknown_" .. class end
  _G[name] = _G[name] + 1
  if class ~= "2xx" and not (class == "404" and (kind == "get" or kind == "status")) and samples < 5 then
    samples = samples + 1
    local text = (body or ""):sub(1, 300):gsub("%s+", " ")
    _G["sample_" .. samples] = status .. " " .. (rid ~= "" and rid or "-") .. " " .. text
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("SOAK requests=%d duration_us=%d p50_us=%.0f p90_us=%.0f p99_us=%.0f max_us=%.0f " ..
    "connect=%d read=%d write=%d timeout=%d\n", summary.requests, summary.duration, latency:percentile(50),
    latency:percentile(90), latency:percentile(99), latency.max, e.connect, e.read, e.write, e.timeout))
  for _, k in ipairs(kinds) do
    local line = "SOAKKIND " .. k
    for _, c in ipairs(classes) do
      local sum = 0
      for _, t in ipairs(threads) do sum = sum + (t:get("n_" .. k .. "_" .. c) or 0) end
      line = line .. " " .. sum
    end
    io.write(line .. "\n")
  end
  for _, t in ipairs(threads) do
    for i = 1, 5 do
      local s = t:get("sample_" .. i)
      if s then io.write("SOAKSAMPLE " .. s .. "\n") end
    end
  end
end
LUA

# ---------------------------------------------------------------------------------------------------------------
# Helpers.
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}
# First number of a JSON field in stdin (the bodies here are flat enough for that).
json_num() { grep -o "\"$1\": *[0-9]*" | head -n 1 | grep -o '[0-9]*$' || true; }
api() { curl -sS --max-time 30 -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$@"; }
rss_kb() { awk '/^RssAnon:/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo 0; }
fd_count() { find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
mb() { awk -v k="$1" -v d="${2:-1024}" 'BEGIN {printf "%.1f", k/d}'; }
# Sum of leadhub_http_requests_total in a /metrics scrape: `metric_sum FILE all` or `metric_sum FILE 5xx`.
metric_sum() {
  awk -v want="$2" '/^leadhub_http_requests_total\{/ {
      if (want == "all" || $0 ~ /status="5[0-9][0-9]"/) s += $NF } END {printf "%d", s}' "$1"
}
# Requests and mean latency per route between two scrapes: "METHOD ROUTE<TAB>count<TAB>mean ms" lines.
route_means() {
  awk '/^leadhub_http_request_duration_seconds_(sum|count)\{/ {
      match($0, /method="[^"]*"/); m = substr($0, RSTART + 8, RLENGTH - 9)
      match($0, /route="[^"]*"/); r = substr($0, RSTART + 7, RLENGTH - 8)
      k = m " " r; keys[k] = 1
      v[(FILENAME == ARGV[1]) ? "b" : "a", ($0 ~ /_sum\{/) ? "s" : "c", k] = $NF }
    END { for (k in keys) { c = v["a", "c", k] - v["b", "c", k]
      if (c > 0 && k !~ / \/metrics$/) printf "%s\t%d\t%.1f\n", k, c, 1000 * (v["a", "s", k] - v["b", "s", k]) / c } }' "$1" "$2" | sort
}
scrape() { curl -sS --max-time 10 "$base/metrics" >"$1" 2>/dev/null || : >"$1"; }
db_bytes() {
  case $backend in
    sqlite) local s=0 f; for f in "$data/leadhub.db" "$data/leadhub.db-wal"; do [[ -f $f ]] && s=$((s + $(stat -c %s "$f"))); done; echo "$s" ;;
    postgres) PGCONNECT_TIMEOUT=5 timeout 20 psql -X -q -t -A -d "$db_url" -c 'select pg_database_size(current_database())' 2>/dev/null || echo 0 ;;
  esac
}
strip_ansi() { sed 's/\x1b\[[0-9;]*m//g'; }

# One backend: prepare the database, start the server, run the slices, write "$work/$backend.md".
run_backend() {
  backend=$1
  local dir=$work/$backend
  data=$dir/data
  mkdir -p "$data"
  log=$dir/server.log
  case $backend in
    sqlite) db_url=sqlite://$data/leadhub.db ;;
    postgres)
      if ! PGCONNECT_TIMEOUT=5 timeout 20 pg_isready -q -d "$pg_base/postgres"; then
        say "PostgreSQL: pg_isready -d $pg_base/postgres failed; the PostgreSQL soak is SKIPPED"
        printf '#### PostgreSQL\n\nSkipped: no PostgreSQL answered at %s.\n\n' "$pg_base" >"$work/$backend.md"
        return 0
      fi
      pg_db=leadhub_soak_$$
      PGCONNECT_TIMEOUT=5 timeout 60 createdb --maintenance-db="$pg_base/postgres" "$pg_db" ||
        { say "PostgreSQL: createdb $pg_db failed"; failed=1; pg_db=; return 0; }
      db_url=$pg_base/$pg_db
      # A server with autovacuum off (some test machines run so) lets every updated lead and
      # counter leave a dead row behind for good, and throughput falls with them: stand in for
      # it with a VACUUM between slices, outside the measured time. Production keeps it on.
      if [[ $(PGCONNECT_TIMEOUT=5 timeout 20 psql -X -q -t -A -d "$db_url" -c 'show autovacuum' 2>/dev/null) == off ]]; then
        pg_vacuum_between=1
        say "PostgreSQL: this server runs with autovacuum off; VACUUM (ANALYZE) runs after every slice in its place"
      fi
      ;;
    *) die "unknown backend '$backend' in SOAK_BACKENDS (sqlite, postgres)" ;;
  esac
  local port
  port=$(free_port) || die "no free port on 127.0.0.1"
  base=http://127.0.0.1:$port
  export DATABASE_URL=$db_url LEADHUB_BIND=127.0.0.1:$port LEADHUB_DATA_DIR=$data LEADHUB_GEOCODER=none
  export LEADHUB_RATE_LIMIT_PER_KEY_HOUR=$limit_hour LEADHUB_RATE_LIMIT_PER_IP_MINUTE=$limit_minute
  export RUST_LOG=$server_log_filter NO_COLOR=1
  cd "$dir"
  timeout 120 "$bin" migrate >>"$log" 2>&1 || { say "$backend: leadhub migrate failed (log: $log)"; tail -n 20 "$log" >&2; failed=1; return 0; }
  timeout 60 "$bin" user add --email soak@example.com --first-name Soak --last-name Runner --admin >/dev/null 2>>"$log" ||
    { say "$backend: leadhub user add failed (log: $log)"; tail -n 5 "$log" >&2; failed=1; return 0; }
  key=$(timeout 60 "$bin" key create --email soak@example.com --name soak 2>>"$log" | tail -n 1)
  [[ $key == lhk_* ]] || { say "$backend: key create printed no key (log: $log)"; failed=1; return 0; }
  "$bin" serve >>"$log" 2>&1 &
  server_pid=$!
  local ready=0
  for _ in $(seq 600); do
    if curl -fsS --max-time 2 "$base/readyz" >/dev/null 2>&1; then ready=1; break; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ((!ready)); then
    say "$backend: the server did not become ready within 60 s (log: $log)"; tail -n 20 "$log" >&2
    failed=1; stop_server; return 0
  fi
  say "$backend: server pid $server_pid on $base, $slices slice(s) of ${slice}s, $connections connections"

  # Seed: businesses for the business list, a first batch of leads so ids exist.
  local biz=() i
  local industries=(plumbing hvac roofing electrical solar landscaping)
  local states=(TX CO AZ FL OR)
  for i in $(seq 1 40); do
    biz+=("{\"name\":\"Soak Supply $i\",\"phone\":\"(303) 555-$(printf '%04d' "$i")\",\"website\":\"https://soak$i.example.com\",\"city\":\"Austin\",\"state\":\"${states[i % 5]}\",\"zip_code\":\"78701\",\"industry\":\"${industries[i % 6]}\",\"rating\":4.5,\"review_count\":$i}")
  done
  local ids
  ids=$(IFS=,; api -X POST "$base/api/v1/lead-sources/import" \
    -d "{\"relationship_type\":\"lead_buyer\",\"businesses\":[${biz[*]}]}" | json_num imported_count) || true
  [[ ${ids:-0} -gt 0 ]] || say "$backend: seeding businesses imported nothing"
  local leads=()
  for i in $(seq 1 20); do
    leads+=("{\"address\":\"$i Seed Street\",\"city\":\"Austin\",\"state\":\"TX\",\"zip_code\":\"78701\",\"first_name\":\"Seed\",\"last_name\":\"Owner$i\",\"source\":\"soak\"}")
  done
  (IFS=,; api -X POST "$base/api/v1/submissions/batch" -d "{\"leads\":[${leads[*]}]}" >/dev/null) ||
    say "$backend: seeding leads failed"

  scrape "$dir/metrics.before"
  local table=$dir/table.md kinds=$dir/kinds.txt samples=$dir/samples.txt
  : >"$table"; : >"$kinds"; : >"$samples"
  local started=$SECONDS total_req=0 total_5xx=0 total_non2xx=0 total_404=0 total_sock=0 total_us=0
  local rss_first=0 rss_last=0 rss_max=0 died=0 s last=0
  local probe='{"address":"1 Probe Plaza","city":"Austin","state":"TX","zip_code":"78701","source":"soak-probe"}'
  for ((s = 0; s < slices; s++)); do
    # The highest lead and submission ids so far, for the GETs of this slice.
    local max_lead max_sub lead_total answer
    answer=$(api "$base/api/v1/leads?limit=1" 2>/dev/null || true)
    lead_total=$(json_num total <<<"$answer")
    max_lead=$(json_num id <<<"$answer")
    max_lead=$(( ${max_lead:-1} > ${lead_total:-1} ? ${max_lead:-1} : ${lead_total:-1} ))
    max_sub=$(api -X POST "$base/api/v1/submissions/single" -d "$probe" 2>/dev/null | json_num id || true)
    scrape "$dir/metrics.s$s.before"
    local out=$dir/wrk.s$s.txt
    timeout $((slice + 60)) wrk -t"$threads" -c"$connections" -d"${slice}s" --timeout 10s --latency \
      -s "$work/mix.lua" "$base" -- "$key" "$max_lead" "${max_sub:-1}" "$s" "$mix" >"$out" 2>&1 || true
    scrape "$dir/metrics.s$s.after"
    local alive=1
    kill -0 "$server_pid" 2>/dev/null || alive=0
    local line req dur p50 p99 sock rps k2 k404 k4 k5 ko m5xx rss fds dbb
    line=$(grep '^SOAK ' "$out" || true)
    if [[ -z $line ]]; then
      say "$backend: slice $s: wrk printed no summary:"; tail -n 5 "$out" >&2
      line="SOAK requests=0 duration_us=1 p50_us=0 p90_us=0 p99_us=0 max_us=0 connect=0 read=0 write=0 timeout=0"
    fi
    val() { grep -o " $1=[0-9]*" <<<"$line" | cut -d= -f2; }
    req=$(val requests); dur=$(val duration_us); p50=$(val p50_us); p99=$(val p99_us)
    sock=$(( $(val connect) + $(val read) + $(val write) + $(val timeout) ))
    rps=$(awk -v r="$req" -v d="$dur" 'BEGIN {printf "%.0f", (d > 0 ? r / (d / 1e6) : 0)}')
    read -r k2 k404 k4 k5 ko < <(awk '/^SOAKKIND/ {a+=$3; b+=$4; c+=$5; d+=$6; e+=$7} END {print a+0, b+0, c+0, d+0, e+0}' "$out")
    grep '^SOAKKIND' "$out" >>"$kinds" || true
    grep '^SOAKSAMPLE' "$out" | sed "s/^SOAKSAMPLE /slice $((s + 1)): /" >>"$samples" || true
    m5xx=$(( $(metric_sum "$dir/metrics.s$s.after" 5xx) - $(metric_sum "$dir/metrics.s$s.before" 5xx) ))
    [[ -s $dir/metrics.s$s.after ]] || m5xx=-
    if ((alive)); then
      rss=$(rss_kb); fds=$(fd_count)
    else
      rss=0; fds=0; died=1
    fi
    dbb=$(db_bytes)
    lead_total=$(api "$base/api/v1/leads?limit=1" 2>/dev/null | json_num total || true)
    ((s == 0)) && rss_first=$rss
    last=$s
    rss_last=$rss
    ((rss > rss_max)) && rss_max=$rss
    total_req=$((total_req + req)); total_us=$((total_us + dur)); total_5xx=$((total_5xx + k5))
    total_non2xx=$((total_non2xx + k404 + k4 + k5 + ko)); total_404=$((total_404 + k404)); total_sock=$((total_sock + sock))
    printf '| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
      $((SECONDS - started)) "$rps" "$(mb "$p50" 1000)" "$(mb "$p99" 1000)" "$req" "$k2" "$((k404 + k4)) ($k404)" \
      "$k5" "$m5xx" "$sock" "$(mb "$rss")" "$fds" "$(mb "$dbb" 1048576)" "${lead_total:--}" >>"$table"
    say "$backend: slice $((s + 1))/$slices: $rps req/s, p50 $(mb "$p50" 1000) ms, p99 $(mb "$p99" 1000) ms, $req requests: 2xx $k2, 4xx $((k404 + k4)) (404: $k404), 5xx $k5 (metrics $m5xx), socket errors $sock, anon RSS $(mb "$rss") MB"
    if [[ $backend == postgres ]] && ((pg_vacuum_between)); then
      PGCONNECT_TIMEOUT=5 timeout 600 psql -X -q -d "$db_url" -c 'VACUUM (ANALYZE)' >/dev/null 2>&1 ||
        say "$backend: VACUUM after slice $((s + 1)) failed"
    fi
    if ((!alive)); then
      say "$backend: THE SERVER DIED during slice $((s + 1))/$slices; its last log lines other than finished requests:"
      strip_ansi <"$log" | grep -v 'request finished' | tail -n 15 >&2 || true
      say "$backend: and the very last lines:"; strip_ansi <"$log" | tail -n 3 >&2
      break
    fi
  done
  scrape "$dir/metrics.after"
  local hwm
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo 0)
  local m_all m_5xx m_text
  m_all=$(( $(metric_sum "$dir/metrics.after" all) - $(metric_sum "$dir/metrics.before" all) ))
  m_5xx=$(( $(metric_sum "$dir/metrics.after" 5xx) - $(metric_sum "$dir/metrics.before" 5xx) ))
  if [[ -s $dir/metrics.after ]]; then m_text="server /metrics: $m_5xx of $m_all requests counted"
  else m_text="server /metrics unavailable at the end"; m_5xx=0; fi
  stop_server

  # Server log: errors and warnings (text format: the level is the second field).
  local n_error n_warn n_panic
  n_error=$(strip_ansi <"$log" | grep -c '^[^ ]* *ERROR ' || true)
  n_warn=$(strip_ansi <"$log" | grep -c '^[^ ]* *WARN ' || true)
  n_panic=$(strip_ansi <"$log" | grep -c 'panicked' || true)
  if ((n_panic > 0)); then
    say "$backend: server log has $n_panic panic(s):"
    strip_ansi <"$log" | grep -A 3 'panicked' | head -n 20 >&2 || true
  fi
  local level count
  for level in ERROR WARN; do
    count=$([[ $level == ERROR ]] && echo "$n_error" || echo "$n_warn")
    ((count > 0)) || continue
    say "$backend: server log has $count $level line(s); the most common (numbers after = replaced by N):"
    strip_ansi <"$log" | grep "^[^ ]* *$level " |
      sed -E "s/^[^ ]+ +$level +//; s/request_id=[0-9a-z-]+ ?//; s/=[0-9]+(\.[0-9]+)?/=N/g" |
      sort | uniq -c | sort -rn | head -n 8 >&2 || true
  done
  if [[ -s $samples ]]; then
    say "$backend: unexpected answers (status, X-Request-Id, body), and their server log lines:"
    head -n 20 "$samples" >&2
    local rid
    while read -r rid; do
      strip_ansi <"$log" | grep -F -- "$rid" | grep -v 'request finished' | head -n 5 >&2 || true
    done < <(grep -o 'soak-[a-z]*-s[0-9]*-t[0-9]*-[0-9]*' "$samples" | head -n 10)
  fi

  # The markdown for this backend.
  local name verdict elapsed rps_all
  case $backend in sqlite) name=SQLite ;; postgres) name=PostgreSQL ;; esac
  elapsed=$(awk -v u="$total_us" 'BEGIN {printf "%.0f", u / 1e6}')
  rps_all=$(awk -v r="$total_req" -v u="$total_us" 'BEGIN {printf "%.0f", (u > 0 ? r / (u / 1e6) : 0)}')
  if ((died)); then verdict="FAIL (the server died)"
  elif ((total_5xx > 0 || m_5xx > 0)); then verdict="FAIL (5xx answers)"
  elif ((total_req == 0)); then verdict="FAIL (no requests completed)"
  else verdict="pass"; fi
  [[ $verdict == pass ]] || failed=1
  {
    printf '#### %s\n\n' "$name"
    printf '| t (s) | req/s | p50 ms | p99 ms | requests | 2xx | 4xx (404) | 5xx | 5xx (/metrics) | socket errors | anon RSS MB | open fds | DB MB | leads |\n'
    printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
    cat "$table"
    printf '\nResponses by request kind over the whole run:\n\n'
    printf '| request | share | 2xx | 404 | other 4xx | 5xx |\n|---|---:|---:|---:|---:|---:|\n'
    awk -v total="$total_req" '$1 == "SOAKKIND" {n[$2] += $3 + $4 + $5 + $6 + $7; a[$2] += $3; b[$2] += $4; c[$2] += $5; d[$2] += $6}
      END {
        split("single batch list get status biz health unknown", order, " ")
        split("POST /api/v1/submissions/single|POST /api/v1/submissions/batch (20 leads)|GET /api/v1/leads?limit=20 (filters)|GET /api/v1/leads/{id}|GET /api/v1/submissions/status/{id}|GET /api/v1/lead-sources/businesses|GET /healthz|(untagged)", label, "|")
        for (i = 1; i <= 8; i++) { k = order[i]; if (n[k] == 0 && k == "unknown") continue
          printf "| %s | %.1f%% | %d | %d | %d | %d |\n", label[i], (total > 0 ? 100 * n[k] / total : 0), a[k], b[k], c[k], d[k] }
      }' "$kinds"
    printf '\nMean latency per route (server `/metrics`), first slice and last slice:\n\n'
    printf '| route | first slice | last slice |\n|---|---:|---:|\n'
    route_means "$dir/metrics.s0.before" "$dir/metrics.s0.after" >"$dir/routes.first"
    route_means "$dir/metrics.s$last.before" "$dir/metrics.s$last.after" >"$dir/routes.last"
    awk -F'\t' 'NR == FNR {f[$1] = $2 " req, " $3 " ms"; next}
      {printf "| `%s` | %s | %s req, %s ms |\n", $1, ($1 in f) ? f[$1] : "-", $2, $3}' "$dir/routes.first" "$dir/routes.last"
    printf '\n**%s verdict: %s.** %s requests in %s s of load (%s req/s); 5xx: %d (%s); ' \
      "$name" "$verdict" "$total_req" "$elapsed" "$rps_all" "$total_5xx" "$m_text"
    printf 'non-2xx: %d, of which 404: %d; socket errors: %d; anon RSS %s MB after the first slice, %s MB after the last, max %s MB (peak VmHWM %s MB); ' \
      "$total_non2xx" "$total_404" "$total_sock" "$(mb "$rss_first")" "$(mb "$rss_last")" "$(mb "$rss_max")" "$(mb "${hwm:-0}")"
    printf 'server log: %d ERROR, %d WARN line(s), %d panic(s).\n\n' "$n_error" "$n_warn" "$n_panic"
  } >"$work/$backend.md"
  cd "$work"
  [[ $backend != postgres ]] || drop_pg_db
}

for backend in $backends; do
  run_backend "$backend"
done

# ---------------------------------------------------------------------------------------------------------------
# The markdown section.
{
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  [[ -z $(git -C "$root" status --porcelain -- crates migrations Cargo.toml Cargo.lock 2>/dev/null) ]] || commit="$commit (with local changes)"
  case $bin in */release/*) profile=release ;; */debug/*) profile="debug (**not** a release build)" ;; *) profile=unknown ;; esac
  printf '### Soak run of %s\n\n' "$(date -u +%Y-%m-%d)"
  printf '`scripts/soak.sh`: %s binary at commit %s, %d slice(s) of %d s per backend, wrk %d threads x %d connections, ' \
    "$profile" "$commit" "$slices" "$slice" "$threads" "$connections"
  printf 'geocoder off, rate limits %s, `RUST_LOG=%s`; load average at the end %s (%d cores). ' \
    "$([[ $rate_limits == high ]] && echo 'on but far above the load' || echo off)" "$server_log_filter" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
  if ((pg_vacuum_between)); then
    printf 'The PostgreSQL server runs with autovacuum off, so `VACUUM (ANALYZE)` ran after every slice in its place. '
  fi
  printf 'Mix: 40%% single submissions (75%% new properties, 17%% repeats merged as skipped or updated, 4%% on a pool of 25 properties shared by all connections, 4%% with an Idempotency-Key), '
  printf '5%% batches of 20 (one in four deferred to the job queue), 25%% lead lists with filters, 10%% lead by id (ids up to 10%% past the highest: some 404 by design), '
  printf '10%% submission status, 5%% business list, 5%% `/healthz`. Each row is one slice: figures from wrk (statuses counted per response in its Lua script), 5xx also from the server'"'"'s `/metrics`, memory and descriptors of the server process after the slice.\n\n'
  for backend in $backends; do
    [[ -f $work/$backend.md ]] && cat "$work/$backend.md"
  done
} >"$work/report.md"
cat "$work/report.md"
if [[ -n ${SOAK_REPORT:-} ]]; then cp "$work/report.md" "$SOAK_REPORT"; fi
if ((failed)); then say "FAILED (5xx, a dead server or a set-up problem; see above)"; exit 1; fi
say "passed"
