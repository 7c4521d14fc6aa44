#!/usr/bin/env bash
# Two `leadhub serve` processes on one PostgreSQL database behind nginx, configured with the documented
# example (docs/deploy/nginx.conf): requests reach both processes, rate limits key on the real client IP
# (not the proxy's, and not one a client writes into X-Forwarded-For), and a rolling restart (SIGTERM one
# process, start it again, then the other) fails no request. Installs nginx-light from Debian if missing.
# Usage: scripts/proxy-test.sh [path/to/leadhub]; needs TEST_DATABASE_URL (a PostgreSQL admin URL).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "${1:-$root/target/debug/leadhub}")
admin_url=${TEST_DATABASE_URL:?set TEST_DATABASE_URL to a PostgreSQL URL}
nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [[ ! -x $nginx ]]; then
  echo "proxy: installing nginx-light from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null
  apt-get install -y -qq nginx-light </dev/null >/dev/null
  # The package starts a system nginx on port 80; this test runs its own.
  "$nginx" -s stop 2>/dev/null || true
fi

tmp=$(mktemp -d)
db="lh_proxy_$$"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "proxy: FAILED: $*"; tail -n 20 "$tmp"/*.log 2>/dev/null || true; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

psql -q "$admin_url" -c "CREATE DATABASE $db" >/dev/null
export DATABASE_URL="${admin_url%/*}/$db" LEADHUB_DATA_DIR="$tmp/data" LEADHUB_GEOCODER=none RUST_LOG=warn
export LEADHUB_TRUSTED_PROXIES=127.0.0.1 LEADHUB_RATE_LIMIT_PER_IP_MINUTE=20 LEADHUB_DB_POOL_SIZE=4
"$bin" migrate
"$bin" user add --email proxy@example.com --first-name Proxy --last-name Test >/dev/null
key=$("$bin" key create --email proxy@example.com)

port_a=$(free_port) port_b=$(free_port) port_proxy=$(free_port)
declare -A pid_of
start() {
  LEADHUB_BIND="127.0.0.1:$1" "$bin" serve >>"$tmp/serve-$1.log" 2>&1 &
  pid_of[$1]=$!
  pids+=($!)
  for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$1/readyz" >/dev/null && return 0
    sleep 0.1
  done
  fail "process on port $1 not ready"
}
start "$port_a"
start "$port_b"

sed -e "s/127.0.0.1:8081/127.0.0.1:$port_a/; s/127.0.0.1:8082/127.0.0.1:$port_b/" \
    -e "s/listen 127.0.0.1:8080;/listen 127.0.0.1:$port_proxy;/" "$root/docs/deploy/nginx.conf" >"$tmp/leadhub.conf"
grep -q "127.0.0.1:$port_proxy" "$tmp/leadhub.conf" || fail "the example's listen line changed: update this script"
cat >"$tmp/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 256; }
http {
  access_log $tmp/nginx-access.log;
  client_body_temp_path $tmp/body;
  proxy_temp_path $tmp/proxy;
  fastcgi_temp_path $tmp/fastcgi;
  uwsgi_temp_path $tmp/uwsgi;
  scgi_temp_path $tmp/scgi;
  include $tmp/leadhub.conf;
}
CONF
"$nginx" -t -q -c "$tmp/nginx.conf" -p "$tmp" || fail "nginx -t"
"$nginx" -c "$tmp/nginx.conf" -p "$tmp" &
pids+=($!)
proxy="http://127.0.0.1:$port_proxy"
for _ in $(seq 1 50); do curl -fs "$proxy/readyz" >/dev/null && break; sleep 0.1; done

# status of GET /api/keys through the proxy from source address $1 (extra curl arguments after it)
status_from() {
  local source=$1
  shift
  curl -s -o /dev/null -w '%{http_code}' --interface "$source" -H "Authorization: Bearer $key" "$@" "$proxy/api/keys"
}
served_by() { curl -fs "http://127.0.0.1:$1/metrics" | awk '/route="\/api\/keys",status="200"/ { n += $2 } END { print n + 0 }'; }

echo "proxy: both processes serve"
for i in $(seq 1 10); do [[ $(status_from "127.0.2.$i") == 200 ]] || fail "request $i through the proxy"; done
a=$(served_by "$port_a") b=$(served_by "$port_b")
((a > 0 && b > 0)) || fail "requests did not reach both processes (A $a, B $b)"
echo "proxy: A served $a, B served $b"

echo "proxy: the rate limit keys on the real client IP"
# Fixed one-minute windows: start early in a window so all 21 requests fall in one.
(( 10#$(date +%S) > 40 )) && sleep $(( 61 - 10#$(date +%S) ))
for i in $(seq 1 20); do
  code=$(status_from 127.0.0.2 -H "X-Forwarded-For: 198.51.100.$i")
  [[ $code == 200 ]] || fail "request $i of 20 from 127.0.0.2 answered $code"
done
code=$(status_from 127.0.0.2 -H "X-Forwarded-For: 198.51.100.99")
[[ $code == 429 ]] || fail "the 21st request from 127.0.0.2 answered $code, not 429 (a spoofed X-Forwarded-For chose the bucket?)"
code=$(status_from 127.0.0.3)
[[ $code == 200 ]] || fail "another client (127.0.0.3) answered $code: the limit was keyed on the proxy's address"
echo "proxy: 20 x 200 then 429 for 127.0.0.2 (both processes counting together), 200 for 127.0.0.3"

echo "proxy: rolling restart fails no request"
: >"$tmp/codes"
(
  i=0
  until [[ -f $tmp/restarted ]]; do
    i=$((i + 1))
    status_from "127.0.3.$((i % 250 + 1))" >>"$tmp/codes"
    echo >>"$tmp/codes"
    sleep 0.01
  done
) &
load=$!
# One at a time, as docs/deploy.md says: the next process stops only once nginx takes the restarted one
# back (its refused connections mark it down for fail_timeout, 2 s in the example).
for port in "$port_a" "$port_b"; do
  sleep 0.5
  kill -TERM "${pid_of[$port]}"
  wait "${pid_of[$port]}" || fail "process on $port did not stop cleanly on SIGTERM"
  start "$port"
  sleep 3
done
touch "$tmp/restarted"
wait "$load"
total=$(grep -c . "$tmp/codes")
bad=$(grep -vc '^200$' "$tmp/codes" || true)
((bad == 0)) || fail "$bad of $total requests failed during the rolling restart: $(sort "$tmp/codes" | uniq -c | tr '\n' ' ')"
echo "proxy: $total requests during two restarts, all 200"
echo "proxy: passed"
