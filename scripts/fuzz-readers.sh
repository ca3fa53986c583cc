#!/usr/bin/env bash
# Runs the fuzz targets of the readers of outside input (fuzz/, issue 61:
# model files, checkpoints, chunks, books, the platform's book JSON, loop
# configurations with --set, state.json, matches.jsonl, league.jsonl, UCI
# and analysis lines), each for a time or a number of inputs, growing the
# committed corpus in fuzz/corpus/. The engine's targets: scripts/fuzz.sh.
# Usage: scripts/fuzz-readers.sh [seconds per target, default 60] [targets ...]
#        FUZZ_RUNS=1000000 scripts/fuzz-readers.sh 0 state   # a number of inputs instead
# Every target runs under libFuzzer's limits: 2 GiB of memory in all and for
# one allocation (an allocation past it is a finding, as is a crash), and
# 10 s per input. Exits non-zero as soon as a target finds something (the
# input is saved under fuzz/artifacts/<target>/ and the libFuzzer report is
# printed). The per-target summary (inputs run, coverage, corpus size) goes
# to fuzz/logs/<target>.log. `cargo test` replays the committed corpus
# through the same checks (run/tests/fuzz_corpus.rs).
# The build has a target directory of its own (PACOZERO_FUZZ_TARGET_DIR):
# its flags differ from the main build's, which would otherwise be rebuilt.
# cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain accept them.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
export CARGO_TARGET_DIR="${PACOZERO_FUZZ_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-fuzz-target}"
secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(model checkpoint chunk book platform_book config state matches league uci analysis)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p logs
for t in "${targets[@]}"; do
  limit=(-max_total_time="$secs")
  if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); fi
  echo "== fuzz target $t (${limit[*]})"
  status=0
  RUSTC_BOOTSTRAP=1 cargo fuzz run -O -s "${FUZZ_SANITIZER:-none}" "$t" "corpus/$t" -- "${limit[@]}" \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 >"logs/$t.log" 2>&1 || status=$?
  grep -E "^(#[0-9]+.*DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|SUMMARY)" "logs/$t.log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz target $t FAILED (exit $status); the end of logs/$t.log:" >&2
    tail -n 60 "logs/$t.log" >&2
    exit "$status"
  fi
done
