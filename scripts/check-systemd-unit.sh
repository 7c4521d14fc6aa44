#!/usr/bin/env bash
# Checks docs/deploy/leadhub.service with `systemd-analyze verify`: every directive known and well-formed.
# verify exits 0 on unknown keys and bad values and only prints them, so any output fails the check.
# The unit's ExecStart must name an executable that exists; a copy of the unit points it at BIN.
set -euo pipefail
bin="$(realpath "${1:?usage: check-systemd-unit.sh BIN}")"
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze not found (Debian package systemd): the unit is not checked" >&2
  exit 0
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
unit="$(dirname "$0")/../docs/deploy/leadhub.service"
sed "s#/usr/local/bin/leadhub#$bin#" "$unit" > "$dir/leadhub.service"
out="$(systemd-analyze verify "$dir/leadhub.service" 2>&1 || true)"
if [ -n "$out" ]; then
  printf 'docs/deploy/leadhub.service does not verify:\n%s\n' "$out" >&2
  exit 1
fi
echo "docs/deploy/leadhub.service: systemd-analyze verify clean"
