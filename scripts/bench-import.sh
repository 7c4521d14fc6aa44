#!/usr/bin/env bash
# Import throughput and memory of `leadhub import leads`: generates a lead CSV (crates/web/examples/make_leads_csv.rs),
# imports it into a fresh SQLite database (or DATABASE_URL, e.g. a scratch PostgreSQL database) under
# `/usr/bin/time -v`, and prints rows/s and the peak resident set size. Run it for two sizes to see that memory stays
# flat while the row count grows (the file is streamed and processed in chunks of 500).
# Usage: scripts/bench-import.sh [ROWS...]        (default: 10000 100000)
#   CARGO_PROFILE=release|bench (default bench: optimised, no LTO), CARGO_TARGET_DIR as usual.
#   BENCH_IMPORT_SEARCH=after: the search's indexes and trigger are dropped before the import and built once after it
#   (scripts/import-search-after.py, SQLite only): the fastest an import can keep this search; rows/s counts both.
#   BENCH_IMPORT_NOTES=1: the CSV gets a `notes` column, a different note on every row (docs/imports.md: each
#   becomes a note on its lead).
#   BENCH_IMPORT_WORK=1: the CSV gets `lead_status` and `follow_up_on` columns, set on every row (docs/imports.md:
#   the working state of each lead the file creates, one bulk change a chunk).
# Two builds: scripts/bench-import.sh --ab PAIRS BIN_A BIN_B [ROWS] imports the same CSV with each in ABBA order under
#   `chrt -f 10` (run as root), a fresh SQLite database a run, and prints each run, then B/A's rows/s per pair
#   (median and range) and each build's max RSS.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
profile=${CARGO_PROFILE:-bench}
target=${CARGO_TARGET_DIR:-$root/target}
[[ -x /usr/bin/time ]] || { echo "bench-import: needs GNU time (apt-get install time)" >&2; exit 1; }
[[ ${1:-} != --ab || $# -ge 4 ]] || { echo "usage: bench-import.sh --ab PAIRS BIN_A BIN_B [ROWS]" >&2; exit 2; }

(cd "$root" && cargo build --profile "$profile" -p leadhub-web --bin leadhub --example make_leads_csv) >&2
case $profile in dev | test) dir_name=debug ;; bench | release) dir_name=release ;; *) dir_name=$profile ;; esac
bin=$target/$dir_name/leadhub
gen=$target/$dir_name/examples/make_leads_csv

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A lead CSV of ROWS rows at FILE: leads_csv ROWS FILE (with a notes column under BENCH_IMPORT_NOTES=1, working
# state columns under BENCH_IMPORT_WORK=1).
leads_csv() {
  "$gen" "$1" "$2"
  if [[ -n ${BENCH_IMPORT_NOTES:-} ]]; then
    awk 'NR == 1 {print $0 ",notes"; next} {print $0 ",\"Called " NR ", no answer. Try after 5.\""}' "$2" >"$2.notes"
    mv "$2.notes" "$2"
  fi
  if [[ -n ${BENCH_IMPORT_WORK:-} ]]; then
    awk 'BEGIN {split("contacted qualified won lost", s, " ")}
         NR == 1 {print $0 ",lead_status,follow_up_on"; next}
         {printf "%s,%s,2027-%02d-%02d\n", $0, s[NR % 4 + 1], NR % 12 + 1, NR % 28 + 1}' "$2" >"$2.work"
    mv "$2.work" "$2"
  fi
}

# A fresh database in DIR holding the bench's admin, written by BIN: fresh_data DIR BIN.
fresh_data() {
  export LEADHUB_DATA_DIR=$1 LEADHUB_GEOCODER=none RUST_LOG=warn
  rm -rf "$LEADHUB_DATA_DIR"
  "$2" user add --email bench@example.com --admin >/dev/null
}

if [[ ${1:-} == --ab ]]; then
  pairs=$2 bins=("$3" "$4") rows=${5:-100000}
  leads_csv "$rows" "$work/leads.csv"
  for ((i = 0; i < pairs; i++)); do
    order=(0 1)
    ((i % 2 == 0)) || order=(1 0)
    for b in "${order[@]}"; do
      fresh_data "$work/data" "${bins[b]}"
      /usr/bin/time -f "%e %M" -o "$work/time.txt" chrt -f 10 "${bins[b]}" import leads "$work/leads.csv" >/dev/null 2>&1
      read -r secs rss <"$work/time.txt"
      echo "pair $i build $(tr 01 AB <<<"$b") ${secs}s $((rss / 1024)) MB"
      echo "$i $b $secs $rss" >>"$work/runs.txt"
    done
  done
  python3 - "$work/runs.txt" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
secs = {(int(p), int(b)): float(s) for p, b, s, _ in runs}
ratios = sorted(secs[(p, 0)] / secs[(p, 1)] for p in {int(r[0]) for r in runs})
print(f"B/A rows/s: median {statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x)")
for b in (0, 1):
    rss = [int(r[3]) // 1024 for r in runs if int(r[1]) == b]
    print(f"{'AB'[b]} max RSS {min(rss)}-{max(rss)} MB")
PY
  exit 0
fi

sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(10000 100000)
printf '%-8s %-10s %-10s %-10s %-12s %s\n' rows seconds rows/s max_rss_mb csv_mb summary
for rows in "${sizes[@]}"; do
  run=$work/$rows
  mkdir -p "$run"
  leads_csv "$rows" "$run/leads.csv"
  fresh_data "$run/data" "$bin"
  [[ ${BENCH_IMPORT_SEARCH:-} != after ]] || python3 "$root/scripts/import-search-after.py" drop "$run/data/leadhub.db"
  /usr/bin/time -v -o "$run/time.txt" "$bin" import leads "$run/leads.csv" >"$run/summary.txt" 2>"$run/stderr.txt"
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$run/time.txt")
  if [[ ${BENCH_IMPORT_SEARCH:-} == after ]]; then
    build=$(python3 "$root/scripts/import-search-after.py" build "$run/data/leadhub.db")
    echo "$rows rows: import ${secs}s, $build" >&2
    secs=$(awk -v a="$secs" -v b="${build%% *}" 'BEGIN {sub(/.*=/, "", b); printf "%.2f", a + b}')
  fi
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$run/time.txt")
  csv_mb=$(awk -v b="$(stat -c %s "$run/leads.csv")" 'BEGIN {printf "%.1f", b/1048576}')
  printf '%-8s %-10s %-10s %-10s %-12s %s\n' "$rows" "$secs" \
    "$(awk -v r="$rows" -v s="$secs" 'BEGIN {printf "%.0f", r/s}')" \
    "$(awk -v k="$rss_kb" 'BEGIN {printf "%.1f", k/1024}')" "$csv_mb" \
    "$(grep -E '^(created|updated|skipped|rejected|failed|notes|work):' "$run/summary.txt" | tr '\n' ' ')"
done
