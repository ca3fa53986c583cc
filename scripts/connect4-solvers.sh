#!/usr/bin/env bash
# Builds tools/connect4-solvers (perfect Connect Four play from two published
# solvers, outside the workspace) and runs it with the arguments given:
#   scripts/connect4-solvers.sh generate N SEED > suite.jsonl
#   scripts/connect4-solvers.sh check suite.jsonl MIN_STONES
#   scripts/connect4-solvers.sh path      # prints the built binary's path
# The binary also speaks UCI (`uci`), for `pacozero arena`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${CONNECT4_SOLVERS_TARGET:-${CARGO_TARGET_DIR:-$root/target}/connect4-solvers}"
cargo build --quiet --release --locked --manifest-path "$root/tools/connect4-solvers/Cargo.toml" --target-dir "$target"
bin="$target/release/connect4-solvers"
if [ "${1:-}" = path ]; then
  echo "$bin"
else
  exec "$bin" "$@"
fi
