#!/usr/bin/env bash
# The Slurm job array's throughput (games per minute with 1, 2 and 4 array
# tasks) on this machine, against a local S3 server and a single-node Slurm
# cluster started for the run (cli/examples/slurm_throughput.rs).
# Usage: [PACOZERO_SLURM_BENCH_GAMES=16] scripts/bench-scaleout.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
cargo build --release -p pacozero --example slurm_throughput
exec scripts/with-s3.sh scripts/test-scaleout.sh "$CARGO_TARGET_DIR/release/examples/slurm_throughput"
