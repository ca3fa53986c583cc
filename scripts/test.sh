#!/usr/bin/env bash
# Runs every test of the workspace in release mode (debug builds are far too
# slow for perft and training). The cargo target directory lives outside the
# checkout so repeated runs reuse the build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
export CARGO_TERM_COLOR=never

# Lint gates first (they fail in seconds, the tests take minutes): one
# format (rustfmt.toml), no clippy warning, documentation that builds without
# a warning. The Python package and the fuzz targets are workspaces of their
# own: their formatting is checked too.
cargo fmt --all --check
cargo fmt --check --manifest-path python/Cargo.toml
cargo fmt --check --manifest-path engine/fuzz/Cargo.toml
cargo fmt --check --manifest-path fuzz/Cargo.toml
cargo clippy --release --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --release --workspace --no-deps
# The ledger that carries whole-crate mutation runs across sessions
# (scripts/mutants.sh resume).
python3 scripts/test_mutants_ledger.py
# One build for the test and the run command: no crate of the normal build
# may get other features when the test command adds the dev-dependencies
# (cli/Cargo.toml asks for those features; see the comment there).
features() { cargo tree --workspace --offline -e "$1" -f "{p} {f}" --prefix none | sort -u; }
if split=$(diff <(features normal,build) <(features normal,build,dev) | grep '^<'); then
    echo "the test command would build these crates with other features than cargo build (add them to cli/Cargo.toml):" >&2
    echo "$split" >&2
    exit 1
fi
# The book (docs/, mdBook) builds into the target directory, never into the
# checkout, and none of its relative links (files, #anchors) is broken.
# mdbook is installed once from crates.io when it is not on PATH.
MDBOOK=mdbook
if ! command -v mdbook >/dev/null 2>&1; then
    MDBOOK="${CARGO_HOME:-$HOME/.cargo}/bin/mdbook"
    if [ ! -x "$MDBOOK" ]; then
        echo "installing mdbook (crates.io) for the book ..."
        env -u CARGO_TARGET_DIR cargo install mdbook --locked --version 0.4.52 --no-default-features --features search
    fi
fi
rm -rf "$CARGO_TARGET_DIR/book"
"$MDBOOK" build docs -d "$CARGO_TARGET_DIR/book"
python3 scripts/check-book-links.py "$CARGO_TARGET_DIR/book"
# No sentence of the user's chapters (SUMMARY.md's parts before "For
# contributors", the generated command reference left out) runs over 40 words.
python3 scripts/check-sentences.py

# Programs some tests drive, installed from Debian when missing (as root);
# the variable names another binary instead.
#   need_debian_tool <command> <variable> <what needs it>
need_debian_tool() {
    if [ -z "${!2:-}" ] && ! command -v "$1" >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "installing $1 (Debian package) for $3 ..."
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
        else
            echo "warning: $1 not found; install it or set $2=/path/to/$1, or $3 fails" >&2
        fi
    fi
}
# The report test opens report.html in headless Chromium.
need_debian_tool chromium CHROMIUM "the report test"
# The durability test (cli/tests/durability.rs) traces the writers with strace.
need_debian_tool strace STRACE "the durability test"
# The external-engine tests (cli/tests/uci_arena.rs, the PGN replay of
# python/tests) play Fairy-Stockfish, which Debian installs in /usr/games:
# not always on PATH, so it is added (the arena looks there for a bare name too).
export PATH="$PATH:/usr/games"
need_debian_tool fairy-stockfish FAIRY_STOCKFISH "the external-engine tests"
# The object-store tests (cli/tests/object_store.rs) run against a real
# S3-compatible server that scripts/with-s3.sh starts around the tests; the
# scale-out test (cli/tests/slurm.rs) submits the documented Slurm jobs to a
# single-node cluster that scripts/test-scaleout.sh starts around them
# (installing Slurm and MUNGE once). Both stop what they started on exit.
scripts/with-s3.sh scripts/test-scaleout.sh cargo test --release --workspace "$@"

# The engine, self-play (search) and data tests once more with their debug
# assertions on (profile `checked`: release optimisation, debug_assert!s
# kept), and the fuzz targets compiled (their own workspace, engine/fuzz),
# so that neither rots unseen; so are the fuzz targets of the readers of
# outside input (fuzz/, run with scripts/fuzz-readers.sh).
cargo test --profile checked -p pacozero-engine -p pacozero-search -p pacozero-selfplay -p pacozero-data "$@"
cargo check --manifest-path engine/fuzz/Cargo.toml --bins
cargo check --manifest-path fuzz/Cargo.toml --bins

# --- Python package (python/) -------------------------------------------
# Builds `pacozero` with `pip install ./python` (PyO3 + maturin) into a
# virtual environment in the target directory and runs its pytest suite
# against the binary built above; a missing Python toolchain is an error
# with a message. See scripts/test-python.sh.
scripts/test-python.sh
# --- end Python package --------------------------------------------------

# --- Mutants of the change -----------------------------------------------
# The mutants on the lines the last change touched (against the merge base
# with origin/main on a branch, the last commit on main), tested by their
# package's tests: a change whose new code the suite cannot tell from a
# mutant fails here. At most 24 of them (a fixed sample when there are more)
# and 12 minutes; docs/testing.md has the whole-crate scores.
scripts/mutants.sh diff
