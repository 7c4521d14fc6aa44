#!/usr/bin/env bash
# Checks docs/deploy/alerts.yml with promtool (Debian's prometheus package): the rules parse, and
# alerts.test.yml's cases fire as written. Installs the package when missing and apt works (CI
# runs as root); elsewhere it says it skipped.
set -euo pipefail
cd "$(dirname "$0")/../docs/deploy"
if ! command -v promtool >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get install -y -qq --no-install-recommends prometheus >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends prometheus >/dev/null; })
  else
    echo "promtool not found (Debian package prometheus): the alert rules are not checked" >&2
    exit 0
  fi
fi
promtool check rules alerts.yml
promtool test rules alerts.test.yml
