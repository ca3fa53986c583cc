#!/usr/bin/env bash
# The Python package's tests (python/, `pacozero` on PyO3 + maturin): installs
# the package with `pip install ./python` (the maturin build backend, from
# PyPI) into a virtual environment in the cargo target directory, then runs
# its pytest suite. The tests drive the `pacozero` binary of the workspace
# build (PACOZERO_BIN, default $CARGO_TARGET_DIR/release/pacozero). Run by
# scripts/test.sh after the Rust tests; arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
export CARGO_TERM_COLOR=never

PY="${PYTHON:-python3}"
if ! command -v "$PY" >/dev/null 2>&1 || ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    echo "error: the Python package's tests need Python 3.9 or newer with venv and pip ('$PY' is missing or older):" >&2
    echo "       install python3 and python3-venv (Debian: apt-get install python3 python3-venv), or set PYTHON=/path/to/python3" >&2
    exit 1
fi

VENV="$CARGO_TARGET_DIR/py-venv"
if [ ! -x "$VENV/bin/pytest" ] || [ ! -x "$VENV/bin/maturin" ]; then
    echo "creating $VENV with maturin, numpy and pytest (PyPI) for the Python package's tests ..."
    rm -rf "$VENV"
    if ! "$PY" -m venv "$VENV"; then
        # Debian splits venv out of python3.
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
            rm -rf "$VENV"
            "$PY" -m venv "$VENV"
        else
            echo "error: $PY -m venv failed; install python3-venv (Debian) for the Python package's tests" >&2
            exit 1
        fi
    fi
    "$VENV/bin/pip" install -q "maturin>=1.9,<2" numpy pytest
fi
# TensorBoard's own event reader checks the runs' event files (tests/test_tensorboard.py).
if ! "$VENV/bin/python" -c "import tensorboard" 2>/dev/null; then
    echo "installing tensorboard (PyPI) into $VENV for the event-file test ..."
    "$VENV/bin/pip" install -q tensorboard
fi

# The ONNX export's checker and a second runtime (tests/test_onnx.py).
if ! "$VENV/bin/python" -c "import onnx, onnxruntime" 2>/dev/null; then
    echo "installing onnx and onnxruntime (PyPI) into $VENV for the ONNX export test ..."
    "$VENV/bin/pip" install -q onnx onnxruntime
fi
# pyffish (Fairy-Stockfish's Python binding) re-plays the PGN export (tests/test_pgn.py).
if ! "$VENV/bin/python" -c "import pyffish" 2>/dev/null; then
    echo "installing pyffish (PyPI) into $VENV for the PGN replay test ..."
    "$VENV/bin/pip" install -q pyffish
fi

export PACOZERO_BIN="${PACOZERO_BIN:-$CARGO_TARGET_DIR/release/pacozero}"
if [ ! -x "$PACOZERO_BIN" ]; then
    echo "building the pacozero binary for the Python package's tests ..."
    cargo build --release --workspace
fi

echo "building and installing the Python package (pip install ./python) ..."
"$VENV/bin/pip" install -q --force-reinstall --no-deps ./python

status=0
# pytest itself, not `python -m pytest`: the source folder python/pacozero
# (without the built extension) must not shadow the installed package.
"$VENV/bin/pytest" -q -p no:cacheprovider python/tests "$@" || status=$?
if [ "$status" = 5 ]; then
    echo "error: pytest collected no tests in python/tests" >&2
    exit 1
fi
exit "$status"
