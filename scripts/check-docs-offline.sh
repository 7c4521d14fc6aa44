#!/usr/bin/env bash
# Proves that /docs renders in headless Chromium with the network OFF (contract section 9: "/docs loads no asset
# from outside the binary"). The server and the browser both run inside a fresh network namespace that holds only
# loopback, so any asset fetched from a CDN would fail and the checks below would not pass.
# Usage: scripts/check-docs-offline.sh [path/to/leadhub]   (default target/debug/leadhub; run as root, e.g. in CI)
set -euo pipefail

if [[ "${LEADHUB_DOCS_IN_NETNS:-}" != 1 ]]; then
  # ---- Outside the namespace: tools, paths, then re-run this same script inside a loopback-only namespace. ----
  bin=$(realpath "${1:-target/debug/leadhub}")
  self=$(realpath "${BASH_SOURCE[0]}")
  root=$(cd "$(dirname "$self")/.." && pwd)
  [[ -x "$bin" ]] || { echo "docs-offline: FAIL: no executable leadhub binary at $bin (cargo build -p leadhub-web)" >&2; exit 1; }
  # Only Debian's own packages: the mirrors are the one network we have, so never download a browser otherwise.
  missing=()
  [[ -x /usr/bin/chromium ]] || missing+=(chromium)
  command -v ip >/dev/null || missing+=(iproute2)
  command -v unshare >/dev/null || missing+=(util-linux)
  command -v curl >/dev/null || missing+=(curl)
  command -v python3 >/dev/null || missing+=(python3)
  if ((${#missing[@]})); then
    echo "docs-offline: installing ${missing[*]} from Debian"
    export DEBIAN_FRONTEND=noninteractive    # CI: no TTY, no stdin, no prompts
    apt-get update -qq </dev/null
    apt-get install -y -qq "${missing[@]}" </dev/null >/dev/null
  fi
  # A plain network namespace needs CAP_SYS_ADMIN (root); in a restricted container fall back to a user namespace.
  ns=(unshare --net)
  "${ns[@]}" true 2>/dev/null || ns=(unshare --user --map-root-user --net)
  "${ns[@]}" true 2>/dev/null || { echo "docs-offline: FAIL: cannot create a network namespace (unshare --net)" >&2; exit 1; }
  echo "docs-offline: network OFF: server and Chromium run in a new network namespace with loopback only"
  cd "$root"
  exec "${ns[@]}" env LEADHUB_DOCS_IN_NETNS=1 bash "$self" "$bin" </dev/null
fi

# ---- Inside the namespace (cwd = repository root, $1 = absolute binary path). ----
bin=$1
port=18089                      # any port is free: this namespace is brand new and nothing else listens in it
base="http://127.0.0.1:$port"
art=tests/artifacts
shot="$PWD/$art/docs.png"
dom="$art/docs-dom.html"
fail() { echo "docs-offline: FAIL: $*" >&2; exit 1; }

ip link set lo up
# The proof that the network is off: only `lo` exists, no default route, an outside address has no route at all.
[[ "$(ip -o link show | awk -F': ' '{print $2}')" == lo ]] || fail "namespace has interfaces other than lo"
[[ -z "$(ip route show default; ip -6 route show default)" ]] || fail "namespace has a default route"
if ip route get 1.1.1.1 >/dev/null 2>&1; then fail "1.1.1.1 is routable inside the namespace"; fi
echo "docs-offline: verified inside the namespace: only lo, no default route, 1.1.1.1 unreachable"

tmp=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$art" "$tmp/data"
rm -f "$shot" "$dom"

DATABASE_URL="sqlite://$tmp/data/leadhub.db" LEADHUB_DATA_DIR="$tmp/data" LEADHUB_BIND="127.0.0.1:$port" \
  "$bin" serve >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 150); do       # up to ~30 s: migrations run before the server listens
  curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/server.log" >&2; fail "leadhub exited before /healthz answered"; }
  sleep 0.2
done
curl -fsS -o /dev/null "$base/healthz" || { cat "$tmp/server.log" >&2; fail "/healthz did not answer within 30 s"; }
curl -fsS "$base/openapi.json" -o "$tmp/openapi.json" || fail "GET /openapi.json failed"

# Fresh profile per run, no background traffic; the virtual-time budget lets Swagger UI fetch the spec and render.
chrome() {
  timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-quic --disable-dev-shm-usage \
    --user-data-dir="$(mktemp -d -p "$tmp")" --virtual-time-budget=15000 "$@" "$base/docs" 2>>"$tmp/chromium.log"
}
chrome --dump-dom >"$dom" || { tail -20 "$tmp/chromium.log" >&2; fail "chromium --dump-dom failed"; }
chrome --screenshot="$shot" --window-size=1280,2000 >/dev/null \
  || { tail -20 "$tmp/chromium.log" >&2; fail "chromium --screenshot failed"; }

# Swagger UI renders each operation as <div class="opblock opblock-METHOD" id="operations-TAG-OPERATIONID"> holding
# <span class="opblock-summary-path" data-path="PATH"><span>/seg<wbr>/seg</span></span> (no link inside: deepLinking
# is off, see web-assets/docs/init.js): check all three
# (method, operationId, path as attribute and as visible text) for every operation in the spec.
n=$(python3 - "$tmp/openapi.json" "$dom" <<'PY'
import html, json, re, sys
spec = json.load(open(sys.argv[1]))
dom = open(sys.argv[2], encoding="utf-8").read()
blocks = dom.split('<div class="opblock opblock-')[1:]
if not blocks:
    sys.exit("docs-offline: FAIL: no rendered operation blocks (class opblock) in the DOM")
rendered = []
for b in blocks:
    m, i, p = re.match(r"\w+", b), re.search(r'id="operations-([^"]*)"', b), re.search(r'data-path="([^"]*)"', b)
    if m and i and p:
        rendered.append((m.group(0), i.group(1), html.unescape(p.group(1)), html.unescape(b.replace("<wbr>", ""))))
methods = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
ops = [(m, path, op.get("operationId")) for path, item in spec["paths"].items() for m, op in item.items() if m in methods]
missing = [f"{m.upper()} {path} ({oid})" for m, path, oid in ops
           if not oid or not any(rm == m and rp == path and rid.endswith("-" + oid) and f">{path}<" in text
                                 for rm, rid, rp, text in rendered)]
if not ops or missing:
    sys.exit("docs-offline: FAIL: operations not rendered in /docs (or without operationId): "
             + (", ".join(missing) or "the spec has no operations"))
print(len(ops))
PY
) || exit 1

size=$(stat -c %s "$shot" 2>/dev/null || echo 0)
((size > 20480)) || fail "screenshot $shot is missing or too small ($size bytes)"
echo "docs-offline: $n operations rendered, screenshot $art/docs.png ($((size / 1024)) KB), DOM $dom"
