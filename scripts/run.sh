#!/usr/bin/env bash
# The main job: builds PacoZero and runs the quick self-play -> train ->
# evaluate loop on the CPU in runs/quick (running it again resumes the run).
# Extra arguments go to `pacozero loop` (e.g. --generations 3, --run DIR, --config F).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
# --workspace: the same feature set as the test command, so the two share one build.
cargo build --release --workspace
exec "$CARGO_TARGET_DIR/release/pacozero" loop "$@"
