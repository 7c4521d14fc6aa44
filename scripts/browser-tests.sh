#!/usr/bin/env bash
# The page tests in real headless Chromium (tests/browser/pages.test.mjs, playwright-core driving Debian's
# /usr/bin/chromium; no browser download). Installs what is missing from Debian and npm, then runs the test
# against the given binary. Screenshots: tests/artifacts/pages/.
# Usage: scripts/browser-tests.sh [path/to/leadhub]   (default target/debug/leadhub)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "${1:-$root/target/debug/leadhub}")
missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  echo "browser: installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null
  apt-get install -y -qq "${missing[@]}" </dev/null >/dev/null
fi
cd "$root/tests/browser"
# playwright-core only (no browser download); the lock file pins it.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
exec node pages.test.mjs "$bin"
