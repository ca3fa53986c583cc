#!/usr/bin/env bash
# Prepare a libtorch folder for `cargo build -p pacozero-train --features tch`
# from PyTorch's Python wheel (no separate libtorch zip needed).
#
# Usage: scripts/setup-libtorch.sh [DEST] [TORCH_VERSION]
#   DEST           folder to create (default: ./libtorch-wheel)
#   TORCH_VERSION  must match burn-tch's tch crate (tch 0.22 -> torch 2.9.0)
# Environment:
#   TORCH_INDEX_URL  pip index to download from. Default: PyTorch's CPU index
#                    (https://download.pytorch.org/whl/cpu); set it to
#                    https://pypi.org/simple for PyPI's (CUDA-enabled) wheel.
#
# Afterwards:
#   export LIBTORCH=$DEST/torch            # has lib/ and include/
#   export LD_LIBRARY_PATH=$LIBTORCH/lib:$LD_LIBRARY_PATH
#   export LIBTORCH_BYPASS_VERSION_CHECK=1 # only if you chose another version
#   CARGO_TARGET_DIR=... cargo build --release -p pacozero-train --features tch
# and select the device with PACOZERO_BACKEND=tch-cpu or tch-cuda:0
# (see train/src/backend.rs).
set -euo pipefail
DEST="${1:-./libtorch-wheel}"
VERSION="${2:-2.9.0}"
INDEX="${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}"
PY="${PYTHON:-python3}"

mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"
echo "downloading torch==$VERSION from $INDEX into $DEST ..."
if ! "$PY" -m pip download --no-deps --only-binary=:all: --dest "$DEST" \
        --index-url "$INDEX" "torch==$VERSION"; then
    echo "download from $INDEX failed; trying PyPI" >&2
    "$PY" -m pip download --no-deps --only-binary=:all: --dest "$DEST" "torch==$VERSION"
fi
WHEEL="$(ls -1 "$DEST"/torch-"$VERSION"*.whl | head -n1)"
echo "unpacking $WHEEL ..."
"$PY" - "$WHEEL" "$DEST" <<'PYEOF'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    members = [m for m in z.namelist() if m.startswith(("torch/lib/", "torch/include/", "torch/share/"))]
    z.extractall(dest, members)
PYEOF
if [ ! -d "$DEST/torch/lib" ] || [ ! -d "$DEST/torch/include" ]; then
    echo "error: $DEST/torch lacks lib/ or include/" >&2
    exit 1
fi
echo
echo "done. Now run:"
echo "  export LIBTORCH=$DEST/torch"
echo "  export LD_LIBRARY_PATH=\$LIBTORCH/lib:\${LD_LIBRARY_PATH:-}"
