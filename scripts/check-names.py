#!/usr/bin/env python3
"""Fails when a name that one module owns is spelled somewhere else.

* The run directory's paths (`data`, `models`, `current`, `state.json`,
  `metrics.csv`, ...) are named in `data/src/run_dir.rs` only: everything
  else asks a `RunDir` (issue 35, "one module owns the run directory").

Only library and binary code is checked (the `src/` folders, their
`#[cfg(test)]` modules and comments left out): tests and docs may spell
paths to check them.

Usage: scripts/check-names.py   (from anywhere; exit status 1 on a finding)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["engine", "engine/reference", "data", "search", "book", "selfplay", "nn", "train", "arena", "store", "run", "cli", "python"]

RUN_LAYOUT_OWNER = "data/src/run_dir.rs"
RUN_LAYOUT = re.compile(
    r'join\("(data|models|plots|checkpoints|store-probe)"\)'
    r'|"(models/current|state\.json|generations\.jsonl|matches\.jsonl|ratings\.csv|ratings\.md|metrics\.csv|config\.toml|report\.html|latest\.pzckpt)"'
    r'|"(data|models)/'
)


def code_of(text):
    text = re.sub(r"#\[cfg\(test\)\]\s*(#\[[^\]]*\]\s*)*mod \w+ \{.*", "", text, flags=re.S)
    return re.sub(r"//.*", "", text)


def sources():
    for crate in CRATES:
        src = os.path.join(ROOT, crate, "src")
        for dirpath, _, files in os.walk(src):
            for f in sorted(files):
                if f.endswith(".rs"):
                    path = os.path.join(dirpath, f)
                    yield os.path.relpath(path, ROOT), path


def main():
    findings = []
    for rel, path in sources():
        if rel == RUN_LAYOUT_OWNER:
            continue
        with open(path, encoding="utf-8") as f:
            code = code_of(f.read())
        for n, line in enumerate(code.splitlines(), 1):
            if RUN_LAYOUT.search(line):
                findings.append(f"{rel}:{n}: a run-directory path spelled outside {RUN_LAYOUT_OWNER} (use pacozero_data::RunDir): {line.strip()}")
    for f in findings:
        print(f, file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
