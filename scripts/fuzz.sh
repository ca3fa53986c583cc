#!/usr/bin/env bash
# Runs the engine's fuzz targets (cargo-fuzz / libFuzzer) for a while each.
# Usage: scripts/fuzz.sh [seconds per target, default 60]
# cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain accept them.
set -euo pipefail
cd "$(dirname "$0")/../engine/fuzz"
secs="${1:-60}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
for t in fen notation play shako; do
  echo "== fuzz target $t for ${secs}s"
  RUSTC_BOOTSTRAP=1 cargo fuzz run -O "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=512 2>&1 | grep -E "^(#[0-9]+.*DONE|Done|==|SUMMARY|.*panicked)" || true
done
