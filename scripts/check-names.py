#!/usr/bin/env python3
"""Fails when a name that one module owns is spelled somewhere else.

* The run directory's paths (`data`, `models`, `current`, `state.json`,
  `metrics.csv`, ...) are named in `data/src/run_dir.rs` only: everything
  else asks a `RunDir` (issue 35, "one module owns the run directory").
* A game is named (its module path `paco::`, its registry variant
  `GameKind::Paco`, its name as a string `"paco"`) only in its own
  directory `engine/src/<game>/`, in the registry `engine/src/registry.rs`,
  in the engine's `pub mod <game>;` lines, and in modules that exist for
  one game's platform, named for it (`platform_*.rs`); everything else goes
  through `Game` and `GameKind` (issue 35, "games only through the
  registry"). `engine/reference` (the slow Paco Ŝako reference generator)
  is test equipment and not checked.

Only library and binary code is checked (the `src/` folders, their
`#[cfg(test)]` modules and comments left out): tests and docs may spell
paths to check them.

Usage: scripts/check-names.py   (from anywhere; exit status 1 on a finding)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["engine", "data", "search", "book", "selfplay", "nn", "train", "arena", "store", "run", "cli", "python"]

RUN_LAYOUT_OWNER = "data/src/run_dir.rs"
RUN_LAYOUT = re.compile(
    r'join\("(data|models|plots|checkpoints|store-probe)"\)'
    r'|"(models/current|state\.json|generations\.jsonl|matches\.jsonl|ratings\.csv|ratings\.md|metrics\.csv|config\.toml|report\.html|latest\.pzckpt)"'
    r'|"(data|models)/'
)


GAMES = ["paco", "shako", "connect4"]
GAME_NAME = re.compile(
    r"\b(" + "|".join(GAMES) + r")::"
    + r"|GameKind::(" + "|".join(g.capitalize() for g in GAMES) + r")\b"
    + r'|"(' + "|".join(GAMES) + r')"'
)


# The auxiliary targets are the game's (Game::AUX_TARGETS); the column names of
# schema version 1, named after Paco Ŝako, are spelled once, for reading old files.
OLD_AUX_COLUMNS = re.compile(r"\bmover_(in_sako|can_paco)\b")
OLD_AUX_OWNER = "data/src/schema.rs"


def game_name_allowed(rel, line):
    if any(rel.startswith(f"engine/src/{g}/") for g in GAMES) or rel == "engine/src/registry.rs":
        return True
    if os.path.basename(rel).startswith("platform_"):
        return True
    return rel == "engine/src/lib.rs" and re.match(r"\s*pub mod \w+;", line) is not None


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
        with open(path, encoding="utf-8") as f:
            code = code_of(f.read())
        for n, line in enumerate(code.splitlines(), 1):
            if RUN_LAYOUT.search(line) and rel != RUN_LAYOUT_OWNER:
                findings.append(f"{rel}:{n}: a run-directory path spelled outside {RUN_LAYOUT_OWNER} (use pacozero_data::RunDir): {line.strip()}")
            if OLD_AUX_COLUMNS.search(line) and rel != OLD_AUX_OWNER and not game_name_allowed(rel, line):
                findings.append(f"{rel}:{n}: an auxiliary target named outside its game (Game::AUX_TARGETS) and {OLD_AUX_OWNER}: {line.strip()}")
            if GAME_NAME.search(line) and not game_name_allowed(rel, line):
                findings.append(f"{rel}:{n}: a game named outside its directory and the registry (go through Game/GameKind): {line.strip()}")
    for f in findings:
        print(f, file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
