#!/usr/bin/env python3
"""Fails on a sentence over N words (default 40) in the user's chapters of the book.

Usage: scripts/check-sentences.py [--max N] [FILE.md ...]

Without files it checks README.md and every chapter docs/SUMMARY.md lists before its
`# For contributors` part, except docs/commands.md (generated from the
command line's definitions). Only prose counts: fenced code blocks, tables,
headings, HTML and link reference definitions are skipped. Inline code
counts as one word, a link as its text (its target is dropped), and each
list item starts a new sentence. A sentence ends at `.`, `!` or `?`
followed by a space and a capital, a digit or an opening mark; `e.g.`,
`i.e.`, `et al.` and the like do not end one.

Prints file:line, the word count and the sentence's first words for every
sentence over the limit, and exits with status 1 if there is one.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
CONTRIBUTORS = "# For contributors"
GENERATED = {"commands.md"}

FENCE = re.compile(r"^\s*(```|~~~)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
LINK_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
REF_LINK = re.compile(r"\[([^\]]*)\]\[[^\]]*\]")
# a sentence end: . ! ? (closing marks after it), a space, and a new
# sentence's first character (a capital, a digit or an opening mark)
END = re.compile(r"[.!?][)\]\"'”’*_]*\s+(?=[A-Z0-9\"'“‘(*\[_`ŜĈĜĤĴŬ])")
ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "cf.", "vs.", "etc.", "Fig.", "No.", "approx.", "resp.")


def chapters():
    """The README, then the Markdown files of the user's parts of the book, in SUMMARY.md's order."""
    files = []
    with open(os.path.join(DOCS, "SUMMARY.md"), encoding="utf-8") as f:
        for line in f:
            if line.strip() == CONTRIBUTORS:
                break
            for target in re.findall(r"\]\(([^)#]+\.md)\)", line):
                if target not in GENERATED and target not in files:
                    files.append(target)
    return [os.path.join(os.path.dirname(DOCS), "README.md")] + [os.path.join(DOCS, t) for t in files]


def paragraphs(lines):
    """(first line number, text) of each run of prose; a list item starts a new run."""
    chunk, start = [], 0
    fence = None
    in_html_comment = False

    def flush():
        nonlocal chunk
        if chunk:
            yield start, " ".join(chunk)
        chunk = []

    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        stripped = line.strip()
        m = FENCE.match(line)
        if fence:
            if m and m.group(1) == fence:
                fence = None
            continue
        if m:
            yield from flush()
            fence = m.group(1)
            continue
        if in_html_comment:
            if "-->" in line:
                in_html_comment = False
            continue
        if stripped.startswith("<!--"):
            yield from flush()
            in_html_comment = "-->" not in stripped
            continue
        while stripped.startswith(">"):  # a block quote is prose too
            stripped = stripped[1:].strip()
        if (
            not stripped
            or stripped.startswith("#")
            or stripped.startswith("|")
            or stripped.startswith("<")
            or stripped.startswith("{{")
            or LINK_DEF.match(stripped)
        ):
            yield from flush()
            continue
        if LIST_ITEM.match(line):
            yield from flush()
            stripped = LIST_ITEM.sub("", stripped, count=1)
        if not chunk:
            start = number
        chunk.append(stripped)
    yield from flush()


def sentences(text):
    """The sentences of one paragraph of Markdown prose, code and links reduced."""
    text = INLINE_CODE.sub(lambda m: "`" + "·".join(m.group(2).split()) + "`", text)
    text = LINK.sub(r"\1", text)
    text = REF_LINK.sub(r"\1", text)
    pieces, begin = [], 0
    for m in END.finditer(text):
        before = text[begin : m.start() + 1]
        if before.rstrip().endswith(ABBREVIATIONS):
            continue
        pieces.append(before)
        begin = m.end()
    pieces.append(text[begin:])
    return [p.strip() for p in pieces if p.strip()]


def shown(path):
    """A path as the report prints it: relative to the repository when inside it."""
    full = os.path.abspath(path)
    return os.path.relpath(full, ROOT) if full.startswith(ROOT + os.sep) else path


def words(sentence):
    return [w for w in sentence.split() if re.search(r"\w", w)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=40, help="most words a sentence may have (default 40)")
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md and the user's chapters of docs/SUMMARY.md)")
    args = parser.parse_args()
    files = args.files or chapters()
    long = []
    total = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        for line, text in paragraphs(lines):
            for sentence in sentences(text):
                total += 1
                n = len(words(sentence))
                if n > args.max:
                    long.append((shown(path), line, n, " ".join(sentence.split()[:10])))
    if long:
        print(f"{len(long)} of {total} sentences over {args.max} words:", file=sys.stderr)
        for path, line, n, start in long:
            print(f"  {path}:{line}: {n} words: {start} ...", file=sys.stderr)
        sys.exit(1)
    print(f"sentences: {total} in {len(files)} chapters, none over {args.max} words")


if __name__ == "__main__":
    main()
