#!/usr/bin/env bash
# One short, prepared check of the GPU path (LibTorch CUDA through burn's tch
# backend), for a machine with an NVIDIA GPU:
#   1. builds pacozero with `--features tch` (LIBTORCH: an existing libtorch
#      folder, or one prepared by scripts/setup-libtorch.sh cuda, ~4 GB);
#   2. `bench net` of the configs/gpu.toml network (10x128) on the GPU, next
#      to the CPU's flex backend: inference positions/s by batch, training
#      samples/s;
#   3. a few hundred training steps of that network on freshly played games;
#   4. a short loop (2 generations of a scaled-down configs/gpu.toml).
# Everything it prints also goes to $OUT/gpu-check.log (OUT defaults to
# ./gpu-check-out), with metrics.csv and the loop's generations.jsonl.
# Usage: scripts/gpu-check.sh [DEVICE]     DEVICE defaults to tch-cuda:0;
#        `flex` runs every stage on the CPU without LibTorch (a dry run).
# Environment: LIBTORCH (skip the download), STEPS (training steps, 300),
#              LOOP_GAMES (games per generation of the short loop, 512),
#              LOOP_GENERATIONS (its generations, 2; 0 checks its configuration only),
#              CARGO_TARGET_DIR (default /tmp/pacozero-target).
set -euo pipefail
cd "$(dirname "$0")/.."
DEVICE="${1:-tch-cuda:0}"
OUT="${OUT:-$PWD/gpu-check-out}"
STEPS="${STEPS:-300}"
LOOP_GAMES="${LOOP_GAMES:-512}"
LOOP_GENERATIONS="${LOOP_GENERATIONS:-2}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-check.log") 2>&1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
t0=$(date +%s)
stage() { echo; echo "== $1 ($(( $(date +%s) - t0 )) s since start)"; }

stage "machine"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || echo "no nvidia-smi"
nproc

if [[ "$DEVICE" == tch* ]]; then
  stage "libtorch"
  if [ -z "${LIBTORCH:-}" ]; then
    [ -d ./libtorch-cuda/lib ] || scripts/setup-libtorch.sh cuda ./libtorch-cuda
    LIBTORCH="$PWD/libtorch-cuda"
  fi
  export LIBTORCH LD_LIBRARY_PATH="$LIBTORCH/lib:${LD_LIBRARY_PATH:-}"
  echo "LIBTORCH=$LIBTORCH"
  stage "build (--features tch)"
  cargo build --release -p pacozero --features tch
else
  stage "build (CPU only: device $DEVICE)"
  # --workspace: the feature set of scripts/test.sh and run.sh (one build).
  cargo build --release --workspace
fi
PZ="$CARGO_TARGET_DIR/release/pacozero"

# The [net] and [train] tables of configs/gpu.toml, for `bench net` and `train`.
NET_TRAIN="$OUT/gpu-train.toml"
awk '/^\[/{keep = ($0 == "[net]" || $0 == "[train]")} keep' configs/gpu.toml > "$NET_TRAIN"

stage "bench net on $DEVICE (10x128)"
PACOZERO_BACKEND="$DEVICE" "$PZ" bench net --blocks 10 --channels 128 --seconds 3
stage "bench net on the CPU (flex), for the ratio"
PACOZERO_BACKEND=flex "$PZ" bench net --blocks 10 --channels 128 --seconds 3

stage "$STEPS training steps on $DEVICE"
RUN="$OUT/train-run"
rm -rf "$RUN"
"$PZ" selfplay --games 256 --evaluator uniform --out "$RUN/data" --quiet
PACOZERO_BACKEND="$DEVICE" "$PZ" train --run "$RUN" --config "$NET_TRAIN" --steps "$STEPS"
cp "$RUN/metrics.csv" "$OUT/metrics.csv"
# Mean of the samples_per_sec column over the second half of the steps (after warm-up).
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples_per_sec") c = i; next }
         { v[NR] = $c } END { n = 0; s = 0; for (i = int(NR / 2) + 1; i <= NR; i++) { s += v[i]; n++ }
         if (n) printf "training: %.0f samples/s (mean of the last %d steps)\n", s / n, n }' "$OUT/metrics.csv"

stage "a short loop on $DEVICE (2 generations of a scaled-down configs/gpu.toml)"
LOOP_CFG="$OUT/gpu-short.toml"
sed -e "s/^games_per_generation = .*/games_per_generation = $LOOP_GAMES/" \
    -e 's/^train_steps_per_generation = .*/train_steps_per_generation = 100/' \
    -e 's/^gating_games = .*/gating_games = 2/' -e 's/^anchor_games = .*/anchor_games = 2/' \
    -e 's/^baseline_games = .*/baseline_games = 2/' -e 's/^games_per_thread = .*/games_per_thread = 64/' \
    configs/gpu.toml > "$LOOP_CFG"
rm -rf "$OUT/loop-run"
PACOZERO_BACKEND="$DEVICE" "$PZ" loop --config "$LOOP_CFG" --run "$OUT/loop-run" --generations "$LOOP_GENERATIONS"
cp "$OUT/loop-run/generations.jsonl" "$OUT/generations.jsonl" 2>/dev/null || true

stage "done"
