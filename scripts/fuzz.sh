#!/usr/bin/env bash
# Runs the engine's fuzz targets (cargo-fuzz / libFuzzer), each for a time or
# a number of inputs, growing the committed corpus in engine/fuzz/corpus/.
# Usage: scripts/fuzz.sh [seconds per target, default 60] [targets ...]
#        FUZZ_RUNS=10000000 scripts/fuzz.sh 0 play   # a number of inputs instead
# Exits non-zero as soon as a target finds a crash (the input is saved under
# engine/fuzz/artifacts/<target>/ and the libFuzzer report is printed). The
# per-target summary (inputs run, coverage, corpus size) goes to
# engine/fuzz/logs/<target>.log. `cargo test` replays the committed corpus
# through the same checks (engine/tests/fuzz_corpus.rs).
# Safe Rust needs no AddressSanitizer: the default sanitizer is none (3x the
# inputs per second); FUZZ_SANITIZER=address turns it on.
# cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain accept them.
set -euo pipefail
cd "$(dirname "$0")/../engine/fuzz"
secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fen notation play shako connect4)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p logs
for t in "${targets[@]}"; do
  limit=(-max_total_time="$secs")
  if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); fi
  echo "== fuzz target $t (${limit[*]})"
  status=0
  RUSTC_BOOTSTRAP=1 cargo fuzz run -O -s "${FUZZ_SANITIZER:-none}" "$t" "corpus/$t" -- "${limit[@]}" -max_len=512 -print_final_stats=1 \
    >"logs/$t.log" 2>&1 || status=$?
  grep -E "^(#[0-9]+.*DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY)" "logs/$t.log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz target $t FAILED (exit $status); the end of logs/$t.log:" >&2
    tail -n 60 "logs/$t.log" >&2
    exit "$status"
  fi
done
