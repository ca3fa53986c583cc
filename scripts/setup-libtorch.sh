#!/usr/bin/env bash
# Prepare a libtorch folder for the opt-in LibTorch backend
# (`cargo build --release -p pacozero --features tch`) from PyPI's `torch`
# wheel, since PyPI is the registry we can rely on (no libtorch zip needed).
#
# Usage: scripts/setup-libtorch.sh [cpu|cuda] [DEST]
#   cpu   (default) a CPU-only folder. PyPI's Linux wheel is built with CUDA:
#         libtorch.so needs libtorch_cuda.so and the whole CUDA stack, and
#         libtorch_cpu.so itself needs libcudart and libcupti (for the
#         profiler). So we keep libtorch_cpu/libc10, replace libtorch.so by an
#         empty stub (every symbol we call lives in libtorch_cpu.so), and add
#         only the two small NVIDIA runtime wheels. About 1 GB.
#   cuda  every library of the wheel plus all NVIDIA wheels it depends on
#         (cuDNN, cuBLAS, NCCL, ...), for a machine with an NVIDIA driver. ~4 GB.
#   DEST  folder to create (default: ./libtorch-<mode>)
# Environment: TORCH_VERSION (default 2.9.0, the version tch 0.22 expects),
#              PYTHON (default python3), PIP_INDEX_URL as usual for pip.
#
# Afterwards (the script prints these lines):
#   export LIBTORCH=$DEST LD_LIBRARY_PATH=$DEST/lib:$LD_LIBRARY_PATH
#   cargo build --release -p pacozero --features tch
#   PACOZERO_BACKEND=tch-cpu pacozero bench net        # or tch-cuda:0
set -euo pipefail
MODE="${1:-cpu}"
case "$MODE" in cpu|cuda) ;; *) echo "error: mode must be cpu or cuda, not '$MODE'" >&2; exit 2 ;; esac
DEST="${2:-./libtorch-$MODE}"
VERSION="${TORCH_VERSION:-2.9.0}"
PY="${PYTHON:-python3}"

mkdir -p "$DEST/wheels"
DEST="$(cd "$DEST" && pwd)"
WHEELS="$DEST/wheels"

echo "downloading torch==$VERSION ..."
"$PY" -m pip download --quiet --no-deps --only-binary=:all: --dest "$WHEELS" "torch==$VERSION"
TORCH_WHEEL="$(ls -1 "$WHEELS"/torch-"$VERSION"-*.whl | head -n1)"

# The NVIDIA wheels the torch wheel pins (exact versions from its metadata).
NVIDIA_REQS="$("$PY" - "$TORCH_WHEEL" "$MODE" <<'PYEOF'
import re, sys, zipfile
wheel, mode = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    text = z.read(meta).decode()
reqs = re.findall(r"^Requires-Dist: (nvidia-[\w-]+==[\w.]+)", text, re.M)
if mode == "cpu":
    # libtorch_cpu.so needs only these two at load time.
    reqs = [r for r in reqs if r.startswith(("nvidia-cuda-runtime-", "nvidia-cuda-cupti-"))]
print(" ".join(reqs))
PYEOF
)"
echo "downloading $NVIDIA_REQS ..."
# shellcheck disable=SC2086
"$PY" -m pip download --quiet --no-deps --only-binary=:all: --dest "$WHEELS" $NVIDIA_REQS

echo "unpacking ..."
"$PY" - "$DEST" "$MODE" "$WHEELS"/*.whl <<'PYEOF'
import os, shutil, sys, zipfile
dest, mode, wheels = sys.argv[1], sys.argv[2], sys.argv[3:]
lib = os.path.join(dest, "lib")
os.makedirs(lib, exist_ok=True)
cuda_only = ("libtorch_cuda", "libc10_cuda", "libcaffe2_nvrtc", "libtorch_nvshmem", "libtorch_python")
for wheel in wheels:
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            base = os.path.basename(name)
            if os.path.basename(wheel).startswith("torch-"):
                if name.startswith(("torch/include/", "torch/share/")):
                    z.extract(name, dest + "/.unpack")
                    continue
                if not name.startswith("torch/lib/") or ".so" not in base:
                    continue
                if mode == "cpu" and base.startswith(cuda_only):
                    continue
            elif "/lib/" not in name or ".so" not in base:
                continue
            with z.open(name) as src, open(os.path.join(lib, base), "wb") as out:
                shutil.copyfileobj(src, out)
for sub in ("include", "share"):
    target = os.path.join(dest, sub)
    shutil.rmtree(target, ignore_errors=True)
    shutil.move(os.path.join(dest, ".unpack", "torch", sub), target)
shutil.rmtree(os.path.join(dest, ".unpack"))
PYEOF

if [ "$MODE" = cpu ]; then
    # torch-sys links `-ltorch`; the stub satisfies that without pulling in CUDA.
    rm -f "$DEST/lib/libtorch.so"
    echo "" | ${CC:-cc} -shared -x c - -o "$DEST/lib/libtorch.so"
fi
rm -rf "$WHEELS"
for d in lib include; do
    [ -d "$DEST/$d" ] || { echo "error: $DEST lacks $d/" >&2; exit 1; }
done
echo
echo "done ($MODE). Now run:"
echo "  export LIBTORCH=$DEST"
echo "  export LD_LIBRARY_PATH=$DEST/lib:\${LD_LIBRARY_PATH:-}"
echo "  cargo build --release -p pacozero --features tch"
