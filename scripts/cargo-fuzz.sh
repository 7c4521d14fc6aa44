#!/usr/bin/env bash
# Coverage-guided fuzzing (docs/fuzzing.md): the cargo fuzz (libFuzzer) targets under fuzz/, each
# run for a bounded time. Needs no nightly toolchain: RUSTC_BOOTSTRAP=1 lets the stable rustc take
# the -Z flags cargo fuzz passes (sanitizer, coverage instrumentation).
#
#   scripts/cargo-fuzz.sh                        every target, 120 s each
#   FUZZ_SECONDS=1800 scripts/cargo-fuzz.sh json_body
#   FUZZ_SANITIZER=none scripts/cargo-fuzz.sh    without AddressSanitizer (faster, catches less)
#
# Each target starts from fuzz/corpus/<target> (the seed-* files are in git, what libFuzzer adds
# there is not) and writes a crashing input to fuzz/artifacts/<target>/. Replay one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run <target> fuzz/artifacts/<target>/<file>
# The exit status is non-zero when a target crashed (a panic, a failed assertion, a sanitizer
# report, a slow input beyond FUZZ_TIMEOUT seconds) or could not be run.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-120}
sanitizer=${FUZZ_SANITIZER:-address}
per_input=${FUZZ_TIMEOUT:-10}
target_dir=${CARGO_TARGET_DIR:-$PWD/fuzz/target}
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

flags=(--sanitizer "$sanitizer" --target-dir "$target_dir")

# Build first so the time bound applies to running, not compiling (`cargo fuzz run` then finds
# everything up to date).
if [[ $# -gt 0 ]]; then
  targets=("$@")
  for target in "${targets[@]}"; do
    cargo fuzz build "${flags[@]}" "$target"
  done
else
  mapfile -t targets < <(cargo fuzz list)
  cargo fuzz build "${flags[@]}"
fi

status=0
summary=()
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for target in "${targets[@]}"; do
  echo "=== $target (${seconds}s, sanitizer: $sanitizer)"
  log="$logs/$target.log"
  mkdir -p "fuzz/corpus/$target"
  code=0
  cargo fuzz run "${flags[@]}" "$target" -- \
    -max_total_time="$seconds" -timeout="$per_input" -print_final_stats=1 2>&1 | tee "$log" \
    || code=$?
  # libFuzzer's last status line ("#N DONE cov: ... ft: ... corp: ...") and run count.
  figures=$(grep -E '^#[0-9]+[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED)' "$log" | tail -n 1 | tr '\t' ' ' || true)
  runs=$(grep -Eo '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)
  if [[ $code -eq 0 ]]; then
    summary+=("$target: passed ($runs; ${figures:-no figures})")
  else
    artifact=$(grep -Eo 'Test unit written to [^ ]+' "$log" | tail -n 1 | sed 's/^Test unit written to //' || true)
    if [[ -n $artifact ]]; then
      summary+=("$target: CRASHED, input saved as $artifact (${figures:-no figures})")
    else
      summary+=("$target: FAILED (exit $code, no crash input saved; see the output above)")
    fi
    status=1
  fi
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
exit $status
