#!/usr/bin/env bash
# Runs every test of the workspace in release mode (debug builds are far too
# slow for perft and training). The cargo target directory lives outside the
# checkout so repeated runs reuse the build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
export CARGO_TERM_COLOR=never
cargo test --release --workspace "$@"
