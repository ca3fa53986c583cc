#!/usr/bin/env bash
# Runs every test of the workspace in release mode (debug builds are far too
# slow for perft and training). The cargo target directory lives outside the
# checkout so repeated runs reuse the build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
export CARGO_TERM_COLOR=never

# The report test opens report.html in headless Chromium.
if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing chromium (Debian package) for the report test ..."
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "warning: chromium not found; install it or set CHROMIUM=/path/to/chromium, or the report test fails" >&2
    fi
fi
# The object-store tests (cli/tests/object_store.rs) run against a real
# S3-compatible server: moto's, from PyPI, installed once into a virtual
# environment in the target directory and started on a free local port for
# this run only (stopped on exit).
MOTO_VENV="$CARGO_TARGET_DIR/moto-venv"
if [ ! -x "$MOTO_VENV/bin/moto_server" ]; then
    echo "installing moto[server] (PyPI) into $MOTO_VENV for the object-store tests ..."
    rm -rf "$MOTO_VENV"
    if ! python3 -m venv "$MOTO_VENV"; then
        # Debian splits venv out of python3.
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
            rm -rf "$MOTO_VENV"
            python3 -m venv "$MOTO_VENV"
        else
            echo "error: python3 -m venv failed; install python3-venv (Debian) for the object-store tests" >&2
            exit 1
        fi
    fi
    "$MOTO_VENV/bin/pip" install -q "moto[server]==5.2.5"
fi
MOTO_PORT=$("$MOTO_VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
MOTO_LOG="$CARGO_TARGET_DIR/moto-server.log"
"$MOTO_VENV/bin/moto_server" -H 127.0.0.1 -p "$MOTO_PORT" >"$MOTO_LOG" 2>&1 &
MOTO_PID=$!
trap 'kill "$MOTO_PID" 2>/dev/null || true' EXIT
if ! "$MOTO_VENV/bin/python" - "$MOTO_PORT" <<'PY'
import sys, time, urllib.error, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/", timeout=1)
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)  # it answers
    except Exception:
        time.sleep(0.1)
sys.exit(1)
PY
then
    echo "error: the S3 test server (moto_server) did not start; its log, $MOTO_LOG:" >&2
    cat "$MOTO_LOG" >&2
    exit 1
fi
export PACOZERO_TEST_S3_ENDPOINT="http://127.0.0.1:$MOTO_PORT"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1

# The scale-out test (cli/tests/slurm.rs) submits the documented Slurm jobs
# to a single-node cluster that scripts/test-scaleout.sh starts around the
# tests (installing Slurm and MUNGE once) and stops after.
scripts/test-scaleout.sh cargo test --release --workspace "$@"

# --- Python package (python/) -------------------------------------------
# Builds `pacozero` with `pip install ./python` (PyO3 + maturin) into a
# virtual environment in the target directory and runs its pytest suite
# against the binary built above; a missing Python toolchain is an error
# with a message. See scripts/test-python.sh.
scripts/test-python.sh
# --- end Python package --------------------------------------------------
