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
cargo test --release --workspace "$@"
