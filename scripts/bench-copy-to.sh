#!/usr/bin/env bash
# How long `leadhub copy-to` takes to move a SQLite deployment of a million leads to PostgreSQL
# (docs/performance.md "Moving to PostgreSQL"). The search bench writes its leads into a SQLite file and keeps it;
# the binary, built in the bench profile, copies them into a new database on TEST_DATABASE_URL's server. Prints
# the command's wall time, its rows a second and each table's rows; both databases are removed afterwards.
# Usage: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test scripts/bench-copy-to.sh   (COPY_BENCH_LEADS=N)
set -euo pipefail
: "${TEST_DATABASE_URL:?name a PostgreSQL server to copy into (TEST_DATABASE_URL)}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
leads=${COPY_BENCH_LEADS:-1000000}

echo "copy-to bench: writing $leads leads into SQLite (the search bench's data)" >&2
kept=$(SEARCH_BENCH_LEADS=$leads SEARCH_BENCH_BACKEND=sqlite SEARCH_BENCH_KEEP=1 \
  cargo bench -q -p leadhub-tests --bench search 2>/dev/null | sed -n 's/^kept, queries not run: //p')
[[ $kept == sqlite://* ]] || { echo "the search bench kept no SQLite database" >&2; exit 1; }
source_file=${kept#sqlite://}
cargo build -q --profile bench -p leadhub-web --bin leadhub

name=leadhub_copy_bench_$$
admin=$TEST_DATABASE_URL
target=${admin%/*}/$name
data=$(mktemp -d)
cleanup() {
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$data"
  # The search bench's own folder (lh_test_...), nothing else.
  case $(basename "$(dirname "$source_file")") in lh_test_*) rm -rf "$(dirname "$source_file")" ;; esac
}
trap cleanup EXIT
psql -q "$admin" -c "CREATE DATABASE $name"

start=$(date +%s.%N)
DATABASE_URL=$kept LEADHUB_DATA_DIR=$data RUST_LOG=warn target/release/leadhub copy-to "$target" > "$data/tables"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$leads" '
  { rows += $2; print }
  END { t = e - s; printf "copy-to: %d leads, %d rows in %.1f s: %.0f rows/s\n", n, rows, t, rows / t }
' "$data/tables"
