#!/usr/bin/env python3
"""The ledger of a whole-crate mutation run that spans sessions.

A whole run of the largest crates takes longer than one sitting on a 2-core
machine (engine: about 3,400 mutants at 25-30 s each), so
`scripts/mutants.sh resume <package>` runs it in pieces, and this ledger,
kept in the repository (`scripts/mutants/<package>.txt`), carries each
mutant's last outcome from one piece to the next. cargo-mutants' own
`--iterate` does the skipping: the ledger's caught and unviable mutants are
handed to it as `previously_caught.txt`.

File format (text, one mutant a line):

| line | meaning |
|---|---|
| `# ...` | a comment (the header says what the file is) |
| `commit <sha>` | the commit the outcomes below hold for (the tree was clean) |
| `<outcome>\\t<name>` | outcome `caught`, `unviable`, `missed`, `timeout` or `loop`; the name as `cargo mutants --list` prints it (`file:line:column: description`) |

`loop` is a timeout judged by hand to be a real loop (a loop that never
ends, so the tests could never finish: caught). It is set by the `loop`
command below, with the reason in docs/testing.md, and carried like a
caught mutant; a plain timeout is not.

A mutant's name carries its line and column. When its file has changed
since the ledger's commit, the outcome follows the mutant to its new line
(`git diff` of the file) only while the function it sits in is untouched
(no changed line inside the function's span, which the list in
`cargo mutants --list --json` form gives) and the moved name is in the
list; otherwise it is dropped and the mutant tested again (a `loop` too).
Mutants no longer in the list (code gone, or an exclusion added to
`.cargo/mutants.toml`) are dropped by `record`. Missed mutants and
timeouts are always tested again.

Usage (scripts/mutants.sh calls these):
  mutants-ledger.py seed   <ledger> <output dir> <list file>
                                                    write <output dir>/mutants.out/previously_caught.txt
                                                    (and <output dir>/tested-commit, the tree tested)
  mutants-ledger.py record <ledger> <output dir> <list file>
                                                    fold the run's outcomes in; print the progress
  mutants-ledger.py report <ledger> <list file>     print the progress only
  mutants-ledger.py loop   <ledger> <list file> <name>...
                                                    mark these timeouts of the ledger as real loops
The list file is `cargo mutants --list --json` (or `--list`: names only,
and then an outcome in a changed file is dropped); for `record`, the list
at HEAD, where the outcomes are moved to.
"""
import json
import os
import re
import shutil
import subprocess
import sys

# The outcomes cargo-mutants writes (one file each), and the ledger's: those
# and `loop`, a timeout judged a real loop.
OUTCOMES = ("caught", "unviable", "missed", "timeout")
LEDGER_OUTCOMES = OUTCOMES + ("loop",)
# Carried from one piece to the next, not tested again.
SETTLED = ("caught", "unviable", "loop")
HEADER = (
    "# cargo-mutants ledger: each mutant's last outcome (scripts/mutants-ledger.py\n"
    "# has the format; scripts/mutants.sh resume <package> continues the run)\n"
)


class LedgerError(Exception):
    pass


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def read_ledger(path):
    """(commit or None, {name: outcome}); a missing file is an empty ledger."""
    if not os.path.exists(path):
        return None, {}
    commit, entries = None, {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line.startswith("commit "):
                commit = line.split(" ", 1)[1].strip()
                continue
            outcome, sep, name = line.partition("\t")
            if not sep or outcome not in LEDGER_OUTCOMES or not name:
                raise LedgerError(
                    f"{path}, line {number}: expected `<outcome><TAB><mutant name>` with outcome one of "
                    f"{', '.join(LEDGER_OUTCOMES)}, found {line!r}"
                )
            entries[name] = outcome
    if entries and commit is None:
        raise LedgerError(f"{path}: outcomes without a `commit <sha>` line")
    return commit, entries


def write_ledger(path, commit, entries):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(HEADER)
        f.write(f"commit {commit}\n")
        for name in sorted(entries, key=sort_key):
            f.write(f"{entries[name]}\t{name}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def sort_key(name):
    """File, then line and column as numbers, then the description."""
    file, _, rest = name.partition(":")
    line, _, rest = rest.partition(":")
    column, _, description = rest.partition(":")
    try:
        return (file, int(line), int(column), description)
    except ValueError:
        return (file, 0, 0, name)


def still_valid(commit, entries, listed):
    """The entries that still hold at HEAD, under their names at HEAD.

    `listed` is the list at HEAD (name -> the span of the function the
    mutant is in, or None); an entry holds only for a listed name. One of a
    file unchanged since `commit` holds as it is; one of a changed file,
    moved to its new line, when no changed line falls in its function.
    """
    if commit is None or not entries:
        return {}
    try:
        git("cat-file", "-e", f"{commit}^{{commit}}")
    except subprocess.CalledProcessError:
        raise LedgerError(f"the ledger's commit {commit} is not in this clone (shallow?); fetch it or start afresh")
    changed = set(git("diff", "--name-only", commit, "HEAD").split())
    hunks = {}
    kept = {}
    for name, outcome in entries.items():
        file = name.split(":", 1)[0]
        if file not in changed:
            if name in listed:
                kept[name] = outcome
            continue
        if file not in hunks:
            hunks[file] = diff_hunks(commit, file)
        moved = move(name, hunks[file])
        if moved is None or moved not in listed:
            continue
        span = listed[moved]
        if span is None or any(touches(h, span) for h in hunks[file]):
            continue
        kept[moved] = outcome
    return kept


def diff_hunks(commit, file):
    """[(old start, old count, new start, new count)] of `git diff -U0`."""
    hunks = []
    for line in git("diff", "-U0", commit, "HEAD", "--", file).splitlines():
        m = HUNK.match(line)
        if m:
            a, b, c, d = m.groups()
            hunks.append((int(a), int(b or 1), int(c), int(d or 1)))
    return hunks


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def move(name, hunks):
    """The name at its line after the hunks, or None if its line changed."""
    file, line, rest = name.split(":", 2)
    old = int(line)
    shift = 0
    for a, b, _, d in hunks:
        if b == 0:  # lines inserted after old line a
            if old > a:
                shift += d
        elif a <= old < a + b:
            return None
        elif old >= a + b:
            shift += d - b
    return f"{file}:{old + shift}:{rest}"


def touches(hunk, span):
    """Whether a hunk changes a line of the function span (start, end) at HEAD."""
    _, _, c, d = hunk
    start, end = span
    if d == 0:  # lines deleted after new line c
        return start <= c < end
    return c <= end and start <= c + d - 1


def read_names(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def read_list(path):
    """{name: (first line, last line) of its function, or None} from a list file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.lstrip().startswith("["):
        return {name: None for name in text.splitlines() if name.strip()}
    listed = {}
    for m in json.loads(text):
        function = m.get("function")
        span = (function["span"]["start"]["line"], function["span"]["end"]["line"]) if function else None
        listed[m["name"]] = span
    return listed


def seed(ledger, out_dir, list_file):
    commit, entries = read_ledger(ledger)
    kept = still_valid(commit, entries, read_list(list_file))
    mutants_out = os.path.join(out_dir, "mutants.out")
    # --iterate reads caught.txt, previously_caught.txt and unviable.txt of
    # the last run here; only the ledger's word counts.
    shutil.rmtree(mutants_out, ignore_errors=True)
    shutil.rmtree(mutants_out + ".old", ignore_errors=True)
    os.makedirs(mutants_out)
    # The tree the piece tests: `record` keeps only the outcomes of files
    # unchanged from it to the commit it records (a commit made meanwhile).
    with open(os.path.join(out_dir, "tested-commit"), "w", encoding="utf-8") as f:
        f.write(git("rev-parse", "HEAD"))
    settled = sorted((n for n, o in kept.items() if o in SETTLED), key=sort_key)
    with open(os.path.join(mutants_out, "previously_caught.txt"), "w", encoding="utf-8") as f:
        f.writelines(n + "\n" for n in settled)
    dropped = len(entries) - len(kept)
    print(f"ledger {ledger}: {len(settled)} mutants settled (caught, unviable or real loops) carried over"
          + (f"; {dropped} outcomes dropped (their functions changed since {commit[:9]}, or they left the list)" if dropped else ""))


def record(ledger, out_dir, list_file):
    listed = read_list(list_file)
    commit, entries = read_ledger(ledger)
    kept = still_valid(commit, entries, listed)
    mutants_out = os.path.join(out_dir, "mutants.out")
    piece = {}
    for outcome in OUTCOMES:
        for name in read_names(os.path.join(mutants_out, f"{outcome}.txt")):
            piece[name] = outcome
    tested = os.path.join(out_dir, "tested-commit")
    if os.path.exists(tested):
        with open(tested, encoding="utf-8") as f:
            piece = still_valid(f.read().strip(), piece, listed)
    else:
        piece = {n: o for n, o in piece.items() if n in listed}
    kept.update(piece)
    write_ledger(ledger, git("rev-parse", "HEAD").strip(), kept)
    report_entries(ledger, kept, listed)


def report(ledger, list_file):
    listed = read_list(list_file)
    commit, entries = read_ledger(ledger)
    report_entries(ledger, still_valid(commit, entries, listed), listed)


def mark_loops(ledger, list_file, names):
    """Marks timeouts of the ledger (at HEAD) as real loops."""
    listed = read_list(list_file)
    commit, entries = read_ledger(ledger)
    kept = still_valid(commit, entries, listed)
    for name in names:
        if kept.get(name) not in ("timeout", "loop"):
            found = kept.get(name, "not in the ledger at HEAD")
            raise LedgerError(f"{ledger}: {name!r} is no timeout ({found}); only a timeout can be judged a loop")
        kept[name] = "loop"
    write_ledger(ledger, git("rev-parse", "HEAD").strip(), kept)
    report_entries(ledger, kept, listed)


def report_entries(ledger, entries, listed):
    counts = {o: sum(1 for v in entries.values() if v == o) for o in LEDGER_OUTCOMES}
    viable = counts["caught"] + counts["missed"] + counts["timeout"] + counts["loop"]
    score = f"{100 * counts['caught'] / viable:.1f}%" if viable else "-"
    if counts["loop"]:
        score += f" ({100 * (counts['caught'] + counts['loop']) / viable:.1f}% with the real loops)"
    untested = len(listed) - len(entries)
    print(f"{ledger}: {len(listed)} mutants; {counts['caught']} caught, {counts['missed']} missed, "
          f"{counts['unviable']} unviable, {counts['timeout']} timeouts, {counts['loop']} real loops, "
          f"{untested} not tested yet; caught {score} of the viable tested")
    for name in sorted((n for n, o in entries.items() if o in ("missed", "timeout", "loop")), key=sort_key):
        print(f"  {entries[name]}: {name}")


def main(argv):
    try:
        if len(argv) == 4 and argv[0] == "seed":
            seed(argv[1], argv[2], argv[3])
        elif len(argv) == 4 and argv[0] == "record":
            record(argv[1], argv[2], argv[3])
        elif len(argv) == 3 and argv[0] == "report":
            report(argv[1], argv[2])
        elif len(argv) >= 4 and argv[0] == "loop":
            mark_loops(argv[1], argv[2], argv[3:])
        else:
            print(__doc__.split("Usage")[1], file=sys.stderr)
            return 2
    except LedgerError as e:
        print(f"mutants ledger: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
