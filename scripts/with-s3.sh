#!/usr/bin/env bash
# A local S3-compatible server for the object-store tests:
#
#   scripts/with-s3.sh COMMAND [ARGS...]
#
# installs moto's server (PyPI, `moto[server]`) once into a virtual
# environment in the cargo target directory, starts it on a free local port,
# exports PACOZERO_TEST_S3_ENDPOINT and test credentials (AWS_*), runs
# COMMAND, and stops the server when it exits. scripts/test.sh runs the tests
# through it; so does the scale-out benchmark (scripts/bench-scaleout.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]  (runs COMMAND with a local S3 server up)" >&2
    exit 2
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
mkdir -p "$CARGO_TARGET_DIR"
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

status=0
"$@" || status=$?
exit "$status"
