#!/usr/bin/env bash
# Mutation testing with cargo-mutants (crates.io; installed once when
# missing). Configuration: .cargo/mutants.toml (release profile, timeouts,
# the mutants recorded as equivalent). Scores: docs/testing.md.
#
#   scripts/mutants.sh crate <package> [cargo-mutants args, e.g. --shard 0/4]
#       every mutant of one package (with --shard k/n: every n-th, from the
#       k-th on), tested by that package's tests; the
#       outcome goes to $CARGO_TARGET_DIR/mutants/<package>[-shard-k-of-n]/
#       and one summary line (mutants, caught, missed, unviable, timeouts,
#       score over the viable ones) is printed. `--iterate` retests only what
#       was not caught last time (on whole-crate runs: with --shard it
#       re-shards what is left, a different set).
#   scripts/mutants.sh diff [base]
#       the mutants on the lines a change touches: `git diff <base>`, where
#       base defaults to the merge base with origin/main, or HEAD~1 on main
#       itself (CI: the last commit). At most MUTANTS_CAP (default 24) of
#       them are run, a fixed sample (round-robin shard) when there are more,
#       for at most MUTANTS_MINUTES (default 12). Fails when one is missed.
#       scripts/test.sh runs this.
#   scripts/mutants.sh resume <package> [cargo-mutants args]
#       a whole-crate run in pieces: every mutant of the package not yet
#       settled in its ledger, scripts/mutants/<package>.txt (kept in the
#       repository; format in scripts/mutants-ledger.py), which each piece
#       updates, stopped or not. MUTANTS_MINUTES caps a piece. Needs a clean
#       tree: the outcomes hold for the commit.
# The whole script is one block, read before it runs: bash reads a script as
# it goes, so a piece running for hours would otherwise go on reading a file
# edited meanwhile (seen: a syntax error after the ledger was written).
{
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${TMPDIR:-/tmp}/pacozero-target}"
export CARGO_TERM_COLOR=never
# cargo-mutants builds its mutated copy of the tree under the same artifact
# names as the checkout's own build (cargo names a workspace member's
# artifacts by its path relative to the workspace root), and cargo's
# freshness check compares the sources' times with the artifacts': after a
# run in the checkout's target directory, the next `cargo test` there can
# link the last mutant's library without rebuilding it (seen here: a test
# failed on a mutant's arithmetic after the run had ended). So the runs get a
# target directory of their own (built cold once, then reused).
MUTANTS_TARGET_DIR="${MUTANTS_TARGET_DIR:-$CARGO_TARGET_DIR/mutants-target}"

# The crates whose scores docs/testing.md reports (issue 36).
PACKAGES=(pacozero-engine pacozero-search pacozero-protocol pacozero-selfplay pacozero-data pacozero-nn pacozero-train pacozero-arena pacozero-run pacozero-store)
MUTANTS_VERSION=27.1.0
NEXTEST_VERSION=0.9.151

# test_packages <package>...: `--test-package` arguments for the tests that
# judge these packages' mutants: each package's own, and for the engine also
# the reference crate's (engine/reference: the engine against the rule
# text's slow reference, state by state). Its differential test is what
# tells the engine's move generation from a misreading of the rules: of 11
# mutants of make_move.rs that the engine's own tests let through, it
# caught 4 (docs/testing.md).
test_packages() {
    local p
    for p in "$@"; do
        echo "--test-package=$p"
        if [ "$p" = pacozero-engine ]; then echo "--test-package=pacozero-paco-reference"; fi
    done
}

# need_cargo_tool <subcommand> <crate> <version>: installed once when missing.
# timeout_args <package> <the caller's arguments>...: for the engine, a fixed
# `--timeout` unless the arguments give one; MUTANTS_TIMEOUT sets it.
# cargo-mutants times its baseline on the mutated
# package's tests alone (23 s here), so the timeout it derives (70 s) would
# stop a missed mutant while the reference's differential test (60 s on its
# own core) still runs, and report it as a timeout.
timeout_args() {
    local a
    for a in "${@:2}"; do
        case "$a" in --timeout | --timeout=*) return ;; esac
    done
    if [ "$1" = pacozero-engine ]; then echo "--timeout ${MUTANTS_TIMEOUT:-180}"; fi
}

need_cargo_tool() {
    if ! cargo "$1" --version >/dev/null 2>&1; then
        echo "installing $2 $3 (crates.io) ..."
        env -u CARGO_TARGET_DIR cargo install "$2" --locked --version "$3"
    fi
}
need_cargo_tool mutants cargo-mutants "$MUTANTS_VERSION"

# summary <outcomes.json>: one line of counts; exit 1 when a mutant was missed.
summary() {
    python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
viable = d["caught"] + d["missed"] + d["timeout"]
# Timeouts count as caught only once their logs show a loop (listed below),
# so the score is given both ways.
score = (f"{100 * d['caught'] / viable:.1f}% ({100 * (d['caught'] + d['timeout']) / viable:.1f}% with the timeouts)"
         if viable else "-")
print(f"{d['total_mutants']} mutants: {d['caught']} caught, {d['missed']} missed, {d['unviable']} unviable, "
      f"{d['timeout']} timeouts; caught {score} of the viable")
for o in d["outcomes"]:
    kind = {"MissedMutant": "missed", "Timeout": "timeout"}.get(o["summary"])
    if kind:
        print(f"  {kind}:", o["scenario"]["Mutant"]["name"])
sys.exit(1 if d["missed"] else 0)
EOF
}

cmd="${1:-}"
shift || true
case "$cmd" in
crate)
    pkg="${1:?give a package, one of: ${PACKAGES[*]}}"
    shift
    tag="$pkg"
    args=("$@")
    sharded=false
    for ((i = 0; i < ${#args[@]}; i++)); do
        case "${args[$i]}" in
        --shard) tag="$tag-shard-${args[$((i + 1))]/\//-of-}"; sharded=true ;;
        --shard=*) s="${args[$i]#--shard=}"; tag="$tag-shard-${s/\//-of-}"; sharded=true ;;
        --sharding | --sharding=*) sharded=given ;;
        esac
    done
    # A shard is a sample of the whole crate: every k-th mutant (cargo-mutants'
    # own default, `slice`, would test one run of neighbouring mutants, often
    # a single file).
    if [ "$sharded" = true ]; then
        set -- "$@" --sharding round-robin
    fi
    out="$CARGO_TARGET_DIR/mutants/$tag"
    mkdir -p "$out"
    start=$(date +%s)
    # Exit codes: 2 = missed mutants, 3 = timeouts; the summary decides.
    CARGO_TARGET_DIR="$MUTANTS_TARGET_DIR" cargo mutants -p "$pkg" $(test_packages "$pkg") $(timeout_args "$pkg" "$@") -o "$out" "$@" || true
    echo "$tag: $(($(date +%s) - start)) s wall"
    summary "$out/mutants.out/outcomes.json"
    ;;
diff)
    base="${1:-}"
    if [ -z "$base" ]; then
        if git rev-parse -q --verify origin/main >/dev/null && [ "$(git merge-base HEAD origin/main)" != "$(git rev-parse HEAD)" ]; then
            base=$(git merge-base HEAD origin/main)
        else
            base=HEAD~1
        fi
    fi
    if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
        # A shallow clone has no parent to compare with.
        echo "mutants: no commit $base in this clone (shallow?); no change to test"
        exit 0
    fi
    cap="${MUTANTS_CAP:-24}"
    out="$CARGO_TARGET_DIR/mutants/diff"
    mkdir -p "$out"
    diff_file="$out/change.diff"
    git diff "$base" -- $(printf '%s ' engine search protocol selfplay data nn train arena run store) >"$diff_file"
    pkg_args=()
    for p in "${PACKAGES[@]}"; do pkg_args+=(-p "$p"); done
    cargo mutants --list --in-diff "$diff_file" "${pkg_args[@]}" >"$out/list.txt"
    n=$(grep -c . "$out/list.txt" || true)
    # The tests of the packages with a mutant here (the first directory of
    # each mutant's file names its package), for every mutant: cargo-mutants
    # takes one test set per run.
    mapfile -t mutated < <(cut -d/ -f1 "$out/list.txt" | sort -u | sed 's/^/pacozero-/')
    if [ "$n" = 0 ]; then
        echo "mutants: no mutant on the lines changed since $base"
        exit 0
    fi
    shard=()
    if [ "$n" -gt "$cap" ]; then
        shards=$(((n + cap - 1) / cap))
        # Which sample: from the commit, so a rerun tests the same mutants.
        k=$(($(git rev-parse HEAD | cut -c1-6 | sed 's/^/0x/') % shards))
        shard=(--shard "$k/$shards" --sharding round-robin)
        echo "mutants: $n on the lines changed since $base; testing sample $k of $shards (round-robin)"
    else
        echo "mutants: $n on the lines changed since $base"
    fi
    # The suite has just passed (scripts/test.sh runs this after it), so no
    # baseline run: a fixed timeout instead of one scaled from the baseline.
    # The whole run stops after MUTANTS_MINUTES (default 12); the mutants
    # tested by then are judged (cargo-mutants records each as it ends).
    rm -rf "$out/mutants.out"
    status=0
    timeout --signal=INT "$((${MUTANTS_MINUTES:-12} * 60))" \
        env CARGO_TARGET_DIR="$MUTANTS_TARGET_DIR" cargo mutants --in-diff "$diff_file" "${pkg_args[@]}" $(test_packages "${mutated[@]}") "${shard[@]}" -o "$out" \
        --baseline skip --timeout "${MUTANTS_TIMEOUT:-300}" --build-timeout 600 || status=$?
    if [ "$status" = 124 ]; then
        echo "mutants: stopped after ${MUTANTS_MINUTES:-12} min; judging the mutants tested by then"
    fi
    judged=0
    if [ -f "$out/mutants.out/outcomes.json" ]; then
        judged=$(python3 -c 'import json, sys; print(sum(1 for o in json.load(open(sys.argv[1]))["outcomes"] if o["scenario"] != "Baseline"))' "$out/mutants.out/outcomes.json")
    fi
    if [ "$judged" = 0 ]; then
        if [ "$status" = 124 ]; then
            # The cap ran out during the first mutant's build: a cold target
            # directory and a heavy crate (run's first build: 14 min). The
            # time cap is CI's limit, not a finding; the next run is warm.
            echo "mutants: WARNING: stopped after ${MUTANTS_MINUTES:-12} min before the first mutant was judged (a cold build); none tested this time" >&2
            exit 0
        fi
        echo "mutants: no outcome recorded (cargo mutants exit $status)" >&2
        exit 1
    fi
    summary "$out/mutants.out/outcomes.json"
    ;;
resume)
    pkg="${1:?give a package, one of: ${PACKAGES[*]}}"
    shift
    ledger="scripts/mutants/$pkg.txt"
    if ! git diff --quiet HEAD; then
        echo "mutants resume: the tree has uncommitted changes; commit them first (the ledger's outcomes hold for a commit)" >&2
        exit 1
    fi
    out="$CARGO_TARGET_DIR/mutants/$pkg-resume"
    # The list with each mutant's function: an outcome follows its mutant to
    # a new line while that function is unchanged.
    list="$out/list.json"
    mkdir -p "$out"
    cargo mutants --list --json -p "$pkg" >"$list"
    python3 scripts/mutants-ledger.py seed "$ledger" "$out" "$list"
    # The engine's mutants are tested under cargo-nextest (.config/nextest.toml,
    # profile `mutants`: the first failing test ends the run, the running ones
    # killed; cargo test finishes each test binary first). The same tests (the
    # engine has no doc tests); measured on 6 mutants and the whole suite, 40%
    # and 25% less time (docs/testing.md).
    how_tested=()
    if [ "$pkg" = pacozero-engine ]; then
        need_cargo_tool nextest cargo-nextest "$NEXTEST_VERSION"
        how_tested=(--test-tool nextest)
        export NEXTEST_PROFILE=mutants
    fi
    # The run crate's tests are all unit tests (no tests/ directory, no doc
    # test: its one fenced block is `text`). `--tests` leaves out the doc-test
    # pass, which builds the library a second time and runs rustdoc over it:
    # 9.5 s instead of 12 s for a mutant whose tests pass, measured here.
    if [ "$pkg" = pacozero-run ]; then
        how_tested=(--cargo-test-arg=--tests)
    fi
    cap=()
    if [ -n "${MUTANTS_MINUTES:-}" ]; then
        cap=(timeout --signal=INT "$((MUTANTS_MINUTES * 60))")
    fi
    # Ctrl-C stops cargo-mutants (it gets the signal too); the outcomes so
    # far still go into the ledger below.
    trap 'echo "mutants resume: interrupted; recording what was tested"' INT
    start=$(date +%s)
    status=0
    "${cap[@]}" env CARGO_TARGET_DIR="$MUTANTS_TARGET_DIR" cargo mutants -p "$pkg" $(test_packages "$pkg") -o "$out" --iterate "${how_tested[@]}" $(timeout_args "$pkg" "$@") "$@" || status=$?
    trap - INT
    echo "$pkg: $(($(date +%s) - start)) s wall (cargo mutants exit $status)"
    # Recorded against the list at HEAD, where the outcomes are moved to: a
    # commit made while the piece ran moves lines (seen: the list of the
    # piece's start dropped a whole file's outcomes). From a worktree of
    # HEAD, so that edits not committed yet do not count.
    head_tree="$(mktemp -d)"
    git worktree add -q --detach "$head_tree" HEAD
    (cd "$head_tree" && cargo mutants --list --json -p "$pkg") >"$out/list-head.json"
    git worktree remove --force "$head_tree"
    python3 scripts/mutants-ledger.py record "$ledger" "$out" "$out/list-head.json"
    ;;
*)
    sed -n '2,/^# The whole script is one block/p' "$0" | sed '$d' >&2
    exit 2
    ;;
esac
exit
}
