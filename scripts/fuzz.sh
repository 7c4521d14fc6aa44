#!/usr/bin/env bash
# Property-based "fuzzing" (docs/fuzzing.md): the proptest suites of the address normaliser, the
# field parsers and the JSON request path, with many more cases than the everyday test run, each
# suite bounded in time.
#
#   scripts/fuzz.sh                 PROPTEST_CASES=20000, 300 s per suite
#   FUZZ_CASES=100000 FUZZ_SECONDS=1800 scripts/fuzz.sh
#
# A failure prints the shrunk input; proptest also records its seed under
# proptest-regressions/ next to the test, so the case is replayed first from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
export PROPTEST_CASES=${FUZZ_CASES:-20000}
seconds=${FUZZ_SECONDS:-300}
# Shrinking a failure can take long with many cases; bound it too.
export PROPTEST_MAX_SHRINK_ITERS=${PROPTEST_MAX_SHRINK_ITERS:-10000}

# Build first so the time bound applies to running, not compiling.
cargo test --release -p leadhub-domain --features mock --lib --no-run
cargo test --release -p leadhub-web --test fuzz_bodies --no-run

status=0
run() {
  local name=$1; shift
  echo "=== $name (PROPTEST_CASES=$PROPTEST_CASES, at most ${seconds}s)"
  local started=$SECONDS
  if timeout --signal=INT --kill-after=10 "$seconds" "$@"; then
    echo "--- $name: passed in $((SECONDS - started))s"
  else
    local code=$?
    if [[ $code -eq 124 ]]; then
      echo "--- $name: time bound reached after ${seconds}s with no failure so far"
    else
      echo "--- $name: FAILED (exit $code)"
      status=1
    fi
  fi
}

run "address normalisation" \
  cargo test --release -q -p leadhub-domain --features mock --lib -- address::
run "field parsers (phone, e-mail, ZIP, date, URL, text, lot size) and merge" \
  cargo test --release -q -p leadhub-domain --features mock --lib -- parse:: lead::merge
run "JSON extractor and body readers" \
  cargo test --release -q -p leadhub-web --test fuzz_bodies

exit $status
