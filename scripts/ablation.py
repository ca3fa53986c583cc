#!/usr/bin/env python3
"""An ablation of the learning recipe at equal wall time (issue 17).

Two loops run at once, each pinned to one core (`taskset`), from the same
configuration except for the variant's overrides, under the same time budget
(`loop.max_minutes`); then the two final networks play a match at equal time
per decision from paired Fischer-random openings. The result goes to
`<out>/result.json` and one Markdown row is printed for `docs/ablations.md`.

    scripts/ablation.py --name mirror --minutes 30 --games 100 \\
        --variant train.mirror_augment=true [--both train.x=1 ...] [--out DIR]

Both arms get `loop.generations = 1000`, `loop.eval_every = 1000` (only the
first and the last generation play the loop's own matches: the same cost in
both arms), `loop.max_minutes`, `selfplay.threads = 1`, `train.threads = 1`
and `loop.overlap = false` (an arm has one core: its stages take turns on
it); `--both` adds overrides to both arms. `--games 0` skips the match.

With `--engine` (a `uci:` spec without a budget), each arm's final network
also climbs the outside yardstick, the two ladders at once on a core each:

    scripts/ablation.py --name shako-2x32 --minutes 60 --games 0 \\
        --base configs/quick-shako.toml --both net.precision='"auto"' \\
        --variant net.blocks=2 --variant net.channels=32 \\
        --engine 'uci:fairy-stockfish,UCI_Variant=shako' --nodes 10,100

The ladder plays the base configuration's game, cuts games at its
`loop.max_decisions` and never adjudicates them by material (a cut game is
a draw, as in docs/yardstick.md); its table goes to `<out>/<arm>/ladder.md`. Overrides are `section.key=value` with a TOML value
(`[selfplay.search]` keys: `selfplay.search.key=value`). Resumable: a finished
arm is not rerun, a finished match is not replayed.
"""

import argparse
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fail(msg):
    print(f"ablation.py: {msg}", file=sys.stderr)
    sys.exit(1)


def write_atomic(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def parse_overrides(items, what):
    out = []
    for item in items:
        if "=" not in item:
            fail(f"{what} `{item}` must be section.key=value")
        k, v = item.split("=", 1)
        out.append((k.strip(), v.strip()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True)
    ap.add_argument("--minutes", type=float, required=True)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--movetime-ms", type=int, default=50)
    ap.add_argument("--variant", action="append", default=[], help="override of arm B")
    ap.add_argument("--both", action="append", default=[], help="override of both arms")
    ap.add_argument("--base", default=str(ROOT / "configs/quick.toml"))
    ap.add_argument("--out")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--bin", default=os.environ.get("PACOZERO_BIN", "pacozero"))
    ap.add_argument("--engine", help="outside yardstick: a uci: spec without a budget (each arm is laddered against it)")
    ap.add_argument("--nodes", default="10,100", help="the ladder's node budgets (with --engine)")
    ap.add_argument("--ladder-games", type=int, default=100, help="games per rung (with --engine)")
    ap.add_argument("--ladder-movetime-ms", type=int, default=100, help="the networks' time per decision in the ladder")
    ap.add_argument("--precision", default="auto", help="the networks' arithmetic in the match and the ladder (both arms alike)")
    a = ap.parse_args()
    if not a.variant:
        fail("give at least one --variant override (what arm B changes)")
    if a.games < 0 or a.games % 2:
        fail(f"--games {a.games}: must be even (each opening is played with both colours), 0 for no match")
    if a.games == 0 and not a.engine:
        fail("--games 0 and no --engine: the arms would be measured by nothing")
    out = Path(a.out or ROOT / "runs" / f"ablation-{a.name}")
    out.mkdir(parents=True, exist_ok=True)
    common = [("loop.generations", "1000"), ("loop.eval_every", "1000"), ("loop.max_minutes", repr(a.minutes)), ("selfplay.threads", "1"), ("train.threads", "1"), ("loop.overlap", "false")]
    common += parse_overrides(a.both, "--both")
    variant = parse_overrides(a.variant, "--variant")
    arms = {"a": common, "b": common + variant}
    # The ladder's game and cut: the base file's, unless --both sets them.
    base = tomllib.loads(Path(a.base).read_text()).get("loop", {})
    both = dict(common)
    game = both.get("loop.game", '"%s"' % base.get("game", "paco")).strip('"')
    max_decisions = int(both.get("loop.max_decisions", base.get("max_decisions", 600)))
    cores = os.sched_getaffinity(0)
    if len(cores) < 2:
        fail("needs two cores, one per arm")
    procs = {}
    for (arm, overrides), core in zip(arms.items(), sorted(cores)):
        run = out / arm
        state = run / "state.json"
        if state.exists() and (run / "done").exists():
            print(f"arm {arm}: finished before, kept ({run})")
            continue
        log = open(out / f"{arm}.log", "a")
        # The overrides go through `loop --set`, checked like the file and
        # saved in the run's config.toml; a started arm resumes from that
        # copy (a resumed run takes no --set).
        cmd = ["taskset", "-c", str(core), a.bin, "loop", "--run", str(run)]
        if not (run / "config.toml").exists():
            cmd += ["--config", a.base] + [f"--set={k}={v}" for k, v in overrides]
        print(f"arm {arm} on core {core}: {' '.join(cmd)}")
        procs[arm] = (subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), run)
    for arm, (p, run) in procs.items():
        if p.wait() != 0:
            fail(f"arm {arm} failed (exit {p.returncode}); see {out / (arm + '.log')}")
        (run / "done").write_text("")
    finals = {}
    for arm in arms:
        # The best model is the one models/current names.
        model = out / arm / "models" / (out / arm / "models" / "current").read_text().strip()
        if not model.exists():
            fail(f"arm {arm}: no final model {model}")
        gens = [json.loads(l) for l in (out / arm / "generations.jsonl").read_text().splitlines() if l.strip()]
        # Stage `fresh`: the previous network's losses on this generation's new games.
        fresh_rows = [g for g in gens if g["stage"] == "fresh" and g.get("value_loss") is not None]
        fresh = [g["value_loss"] for g in fresh_rows]
        # What a constant prediction of those rows' result shares would score
        # (loops of older runs lack it): an arm whose self-play draws more has
        # a higher floor, so compare each loss with its own base rate.
        base5 = [g["base_rate_loss"] for g in fresh_rows[-5:] if g.get("base_rate_loss") is not None]
        secs = sum(v for g in gens if g["stage"] == "time" for k, v in g.items() if k.endswith("_seconds") and v is not None)
        last5 = fresh[-5:]
        finals[arm] = {
            "model": str(model),
            "generations": model.stem,
            "seconds": round(secs),
            "fresh_value_loss": fresh[-1] if fresh else None,
            # One generation's 4,096 fresh rows are noisy: the mean of the last five.
            "fresh_value_loss_last5": sum(last5) / len(last5) if last5 else None,
            "fresh_base_rate_last5": sum(base5) / len(base5) if base5 else None,
        }
    ladders = run_ladders(a, out, finals, game, max_decisions, sorted(cores)) if a.engine else {}
    match = out / "match.json"
    if a.games == 0:
        result = {"name": a.name, "minutes": a.minutes, "variant": a.variant, "both": a.both, "arms": finals, "ladders": ladders}
        write_atomic(out / "result.json", json.dumps(result, indent=2) + "\n")
        print_ladder_rows(a, out, finals, ladders)
        return
    if not match.exists():
        players = [f"net:{finals['b']['model']}:{a.movetime_ms}ms", f"net:{finals['a']['model']}:{a.movetime_ms}ms"]
        cmd = [a.bin, "--precision", a.precision, "arena", "--players", *players, "--games", str(a.games), "--openings", "fischer-random", "--seed", str(a.seed), "--out", str(match)]
        print("match:", " ".join(cmd))
        subprocess.run(cmd, check=True)
    m = json.loads(match.read_text())
    result = {"name": a.name, "minutes": a.minutes, "variant": a.variant, "both": a.both, "arms": finals, "match": m, "ladders": ladders}
    write_atomic(out / "result.json", json.dumps(result, indent=2) + "\n")
    def loss_of(f):
        if f["fresh_value_loss_last5"] is None:
            return "-"
        base = f" (base {f['fresh_base_rate_last5']:.3f})" if f["fresh_base_rate_last5"] is not None else ""
        return f"{f['fresh_value_loss_last5']:.3f}{base}"

    loss = " / ".join(loss_of(finals[k]) for k in ("a", "b"))
    print(
        f"| {a.name} | {', '.join(a.variant)} | {', '.join(a.both) or '-'} | {a.minutes:g} min | {finals['a']['generations']} / {finals['b']['generations']} "
        f"| {loss} | {m['wins']}/{m['draws']}/{m['losses']} | {100 * m['score']:.1f}% | {m['elo']:+.0f} ± {m['elo_ci95']:.0f} |"
    )
    print_ladder_rows(a, out, finals, ladders)


def run_ladders(a, out, finals, game, max_decisions, cores):
    """Each arm's final network against the outside engine, both at once on a
    core each; a ladder already written (`<arm>/ladder.json`) is kept."""
    procs = {}
    for arm, core in zip(("a", "b"), cores):
        run = out / arm
        if (run / "ladder.json").exists():
            print(f"arm {arm}: ladder played before, kept ({run / 'ladder.md'})")
            continue
        player = f"net:{finals[arm]['model']}:{a.ladder_movetime_ms}ms"
        cmd = ["taskset", "-c", str(core), a.bin, "--precision", a.precision, "ladder", "--game", game,
               "--players", player, "--engine", a.engine, "--nodes", a.nodes, "--games", str(a.ladder_games),
               "--max-decisions", str(max_decisions), "--adjudicate-material", "0", "--seed", str(a.seed),
               "--run", str(run), "--quiet"]
        print(f"ladder {arm}: {' '.join(cmd)}")
        procs[arm] = subprocess.Popen(cmd, stdout=open(out / f"ladder-{arm}.log", "a"), stderr=subprocess.STDOUT)
    for arm, p in procs.items():
        if p.wait() != 0:
            fail(f"ladder of arm {arm} failed (exit {p.returncode}); see {out / ('ladder-' + arm + '.log')}")
    return {arm: json.loads((out / arm / "ladder.json").read_text()) for arm in ("a", "b")}


def print_ladder_rows(a, out, finals, ladders):
    """Each arm's ladder table (the one `ladder --run` writes), for docs/ablations.md."""
    for arm in ("a", "b"):
        if arm in ladders:
            change = "base" if arm == "a" else ", ".join(a.variant)
            print(f"arm {arm} ({change}, {finals[arm]['generations']}):")
            print((out / arm / "ladder.md").read_text())


if __name__ == "__main__":
    main()
