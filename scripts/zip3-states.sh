#!/usr/bin/env bash
# Derives crates/domain/src/parse/zip3_states.csv (ZIP prefix -> states, compiled into the binary for the
# zip_state_mismatch check and the leading-zero repair) from the full ZIP table.
# Usage: scripts/zip3-states.sh [path/to/zip_states.csv]   (default ../shared/data/zip_states.csv)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${1:-$root/../shared/data/zip_states.csv}
out=$root/crates/domain/src/parse/zip3_states.csv
{
  echo "# prefix,states: the states whose ZIP codes start with these three digits (space-separated)."
  echo "# Derived from shared/data/zip_states.csv by scripts/zip3-states.sh; do not edit by hand."
  awk -F, 'NR > 1 { p = substr($1, 1, 3); if (!((p, $2) in seen)) { seen[p, $2] = 1; s[p] = (p in s) ? s[p] " " $2 : $2 } }
           END { for (p in s) print p "," s[p] }' "$src" | LC_ALL=C sort
} >"$out"
echo "wrote $out ($(grep -vc '^#' "$out") prefixes)" >&2
