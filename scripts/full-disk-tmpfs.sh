#!/usr/bin/env bash
# A real full disk (issue 61): the loop on a tmpfs too small for it. The
# test suite fills the disk through a write hook (PACOZERO_ENOSPC_AT,
# cli/tests/full_disk.rs), which needs no privilege; this script checks the
# same promises on a real filesystem, where the machine lets it mount one
# (root, or CAP_SYS_ADMIN). It:
#   1. runs a two-generation loop on the normal disk (the reference);
#   2. runs the same loop on a tmpfs of SIZE (default 768k), until the disk
#      fills: the run must stop with one `error:` line naming a file of the
#      run and "No space left on device", and leave no `*.tmp` file;
#   3. grows the tmpfs (remount, 64m) and resumes the run;
#   4. compares it with the reference: the same games (PGN), the same
#      metrics but for the timing column, the same state.json but for paths.
# Usage: scripts/full-disk-tmpfs.sh [SIZE]   (PACOZERO_BIN: the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${PACOZERO_BIN:-${CARGO_TARGET_DIR:-/tmp/pacozero-target}/release/pacozero}"
SIZE="${1:-768k}"
work="$(mktemp -d)"
disk="$work/disk"
mkdir -p "$disk"
if ! mount -t tmpfs -o "size=$SIZE" pacozero-full "$disk" 2>"$work/mount.err"; then
    echo "error: cannot mount a tmpfs here ($(cat "$work/mount.err")); the hook-based tests (cargo test --test full_disk) cover a full disk without one" >&2
    rm -rf "$work"
    exit 1
fi
trap 'umount "$disk" 2>/dev/null || true; rm -rf "$work"' EXIT

cat >"$work/loop.toml" <<'TOML'
[loop]
generations = 2
games_per_generation = 4
train_steps_per_generation = 6
gating_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
max_decisions = 40
seed = 3

[selfplay]
threads = 1
games_per_thread = 2
games_per_chunk = 1
max_decisions = 40
start_positions = "fischer_random"

[selfplay.search]
full_simulations = 8
cheap_simulations = 4

[net]
blocks = 1
channels = 8
policy_channels = 4
value_channels = 2
value_hidden = 16

[train]
batch_size = 16
warmup_steps = 1
min_positions = 1
checkpoint_every = 2
plot_every = 0
threads = 1
progress = false
TOML
export RAYON_NUM_THREADS=1

"$BIN" loop --config "$work/loop.toml" --run "$work/clean" >/dev/null 2>&1
echo "reference run: $(du -sk "$work/clean" | cut -f1) KiB"

run="$disk/run"
if "$BIN" loop --config "$work/loop.toml" --run "$run" >"$work/full.out" 2>"$work/full.err"; then
    echo "error: the run fit in $SIZE; give a smaller size" >&2
    exit 1
fi
errors="$(grep -c '^error:' "$work/full.err" || true)"
line="$(grep '^error:' "$work/full.err" || true)"
echo "stopped at $(du -sk "$disk" | cut -f1) KiB of $SIZE: $line"
[ "$errors" = 1 ] || { echo "FAIL: $errors error lines"; cat "$work/full.err"; exit 1; }
case "$line" in
    *"$disk"*"No space left on device"*) ;;
    *) echo "FAIL: the error names no file of the run or no full disk"; exit 1 ;;
esac
if grep -q panicked "$work/full.err"; then echo "FAIL: a panic"; exit 1; fi
left="$(find "$disk" -name '*.tmp' | wc -l)"
[ "$left" = 0 ] || { echo "FAIL: $left temporary files left"; find "$disk" -name '*.tmp'; exit 1; }

mount -o remount,size=64m "$disk"
"$BIN" loop --config "$work/loop.toml" --run "$run" >/dev/null 2>&1

same() {
    if ! cmp -s "$1" "$2"; then echo "FAIL: $3 differ"; diff "$1" "$2" | head -20; exit 1; fi
}
"$BIN" games export "$work/clean/data" --out "$work/clean.pgn" >/dev/null
"$BIN" games export "$run/data" --out "$work/run.pgn" >/dev/null
same "$work/clean.pgn" "$work/run.pgn" "the games"
untimed() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples_per_sec") t = i } { out = ""; for (i = 1; i <= NF; i++) if (i != t) out = out $i ","; print out }' "$1"
}
untimed "$work/clean/metrics.csv" >"$work/clean.metrics"
untimed "$run/metrics.csv" >"$work/run.metrics"
same "$work/clean.metrics" "$work/run.metrics" "the metrics"
sed "s#$work/clean#RUN#g" "$work/clean/state.json" >"$work/clean.state"
sed "s#$run#RUN#g" "$run/state.json" >"$work/run.state"
same "$work/clean.state" "$work/run.state" "the state files"
echo "full disk on a tmpfs of $SIZE: one error line, no partial file, resumed to the same games ($(grep -c '^\[Event' "$work/run.pgn") games), metrics and state"
