#!/usr/bin/env python3
"""The peer beside PacoZero's Connect Four hour: OpenSpiel's AlphaZero
(PyPI `open-spiel`, its JAX/flax implementation), trained on `connect_four`
for the same wall time on the same machine, and its checkpoints judged on
the same solved suite with the same judge as `pacozero solved`.

    scripts/peer-openspiel.py train --minutes 60 --out runs/peer-openspiel
    scripts/peer-openspiel.py judge --out runs/peer-openspiel [--visits 0,64,800]

`train` installs, once, a virtual environment with open-spiel and the
libraries its AlphaZero imports but the wheel does not require (jax, flax,
chex, optax), then runs `open_spiel.python.algorithms.alpha_zero` with the
defaults of OpenSpiel's own example (`examples/alpha_zero.py`) scaled to 2
cores: two actor processes, one a core, beside the learner (which waits
for their states between its updates), no evaluator process (its MCTS
matches would take a core from the actors), a replay buffer a quarter of
the example's (two actors with 40 simulations a move in Python fill it
slowly), a numbered checkpoint at every learner step (OpenSpiel keeps only
`checkpoint--1` between numbered ones) so that the curve has points, and
stops it after `--minutes`.

`judge` scores every checkpoint on `engine/tests/data/connect4-solved.jsonl`:
the share of positions whose move is optimal (the solver's best score) for
the policy alone (the most likely legal action) and for OpenSpiel's own MCTS
with the AlphaZero evaluator at each visit budget, and the value's accuracy.
It writes `judged.jsonl` in `--out`, one line per checkpoint with its wall
time since the start of training, for the plot beside PacoZero's curve.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE = Path(os.environ.get("PEER_SUITE", ROOT / "engine" / "tests" / "data" / "connect4-solved.jsonl"))
VENV = Path(os.environ.get("PEER_VENV", "/tmp/pacozero-peer-venv"))
PACKAGES = ["open-spiel==2.0.2", "jax", "flax", "chex", "optax"]

# OpenSpiel's examples/alpha_zero.py defaults, scaled to 2 cores (see above).
CONFIG = dict(
    game="connect_four",
    uct_c=1.41,
    max_simulations=40,
    train_batch_size=2**7,
    # The example's 2**14 states with reuse 3 train first after 5,461 new
    # states: on 2 cores one actor plays about 10 games (220 states) a
    # minute, so the learner waited 25 minutes. A quarter of the buffer
    # trains every 1,365 states, every 3 minutes or so with two actors.
    replay_buffer_size=2**12,
    replay_buffer_reuse=3,
    learning_rate=1e-3,
    weight_decay=1e-4,
    decouple_weight_decay=False,
    policy_epsilon=0.25,
    policy_alpha=1.0,
    temperature=1.0,
    temperature_drop=10,
    nn_model="resnet",
    nn_width=2**8,
    nn_depth=2,
    checkpoint_freq=1,
    actors=2,
    evaluators=0,
    evaluation_window=100,
    eval_levels=7,
    max_steps=0,
    quiet=True,
    verbose=False,
)


def python():
    """The virtual environment's interpreter, made on first use."""
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", *PACKAGES], check=True)
    return str(py)


TRAIN = r"""
import json, sys
from open_spiel.python.algorithms.alpha_zero import alpha_zero
from open_spiel.python.utils import spawn
cfg = json.loads(sys.argv[1])
config = alpha_zero.Config(path=sys.argv[2], observation_shape=None, output_size=None, **cfg)
with spawn.main_handler():
    alpha_zero.alpha_zero(config)
"""


def train(args):
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "started").write_text(f"{time.time()}\n")
    child = subprocess.Popen([python(), "-c", TRAIN, json.dumps(CONFIG), str(out)], start_new_session=True)
    try:
        child.wait(timeout=args.minutes * 60)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGINT)
        try:
            child.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
    print(f"trained for {args.minutes} minutes into {out}")


JUDGE = r"""
import glob, json, os, sys
import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib
from open_spiel.python.algorithms.alpha_zero import utils

out, suite_path, visits = sys.argv[1], sys.argv[2], [int(v) for v in sys.argv[3].split(",")]
cfg = json.load(open(os.path.join(out, "config.json")))
game = pyspiel.load_game("connect_four")
suite = [json.loads(l) for l in open(suite_path) if l.strip()]
started = float(open(os.path.join(out, "started")).read())

def state_of(position):
    s = game.new_initial_state()
    for ch in ("" if position == "-" else position):
        s.apply_action(int(ch) - 1)
    return s

Model = utils.api_selector(cfg.get("nn_api_version", "nnx")).Model
args = dict(model_type=cfg["nn_model"], input_shape=cfg["observation_shape"], output_size=cfg["output_size"],
            nn_width=cfg["nn_width"], nn_depth=cfg["nn_depth"], weight_decay=cfg["weight_decay"],
            learning_rate=cfg["learning_rate"], path=out)
# Checkpoints are directories `checkpoint-<step>` (orbax). The model is
# built from the run's config and loads each step (OpenSpiel 2.0.2's own
# `Model.from_checkpoint` calls `load_checkpoint` without its step).
steps = sorted(int(p.rsplit("-", 1)[1]) for p in glob.glob(os.path.join(out, "checkpoint-*")) if p.rsplit("-", 1)[1].isdigit())
model = Model.build_model(**args)
for step in steps:
    ckpt = os.path.join(out, f"checkpoint-{step}")
    model.load_checkpoint(step)
    ev = evaluator_lib.AlphaZeroEvaluator(game, model)
    line = {"checkpoint": os.path.basename(ckpt), "step": step, "seconds": os.path.getmtime(ckpt) - started}
    right = 0
    for v in visits:
        optimal = 0
        for t in suite:
            s = state_of(t["position"])
            if v == 0:
                prior = ev.prior(s)
                action = max(prior, key=lambda p: p[1])[0]
            else:
                bot = mcts.MCTSBot(game, cfg["uct_c"], v, ev, solve=True, dirichlet_noise=None, child_selection_fn=mcts.SearchNode.puct_value)
                action = bot.step(s)
            optimal += str(action + 1) in t["optimal"]
        line[f"optimal_{v}"] = 100.0 * optimal / len(suite)
    for t in suite:
        value = ev.evaluate(state_of(t["position"]))[0]
        guess = 1 if value > 1 / 3 else (-1 if value < -1 / 3 else 0)
        right += guess == t["value"]
    line["value"] = 100.0 * right / len(suite)
    print(json.dumps(line), flush=True)
"""


def judge(args):
    out = Path(args.out).resolve()
    result = subprocess.run([python(), "-c", JUDGE, str(out), str(SUITE), args.visits], check=True, stdout=subprocess.PIPE, text=True)
    tmp = out / "judged.jsonl.tmp"
    tmp.write_text(result.stdout)
    tmp.rename(out / "judged.jsonl")
    sys.stdout.write(result.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("train")
    t.add_argument("--minutes", type=float, default=60)
    t.add_argument("--out", required=True)
    j = sub.add_parser("judge")
    j.add_argument("--out", required=True)
    j.add_argument("--visits", default="0,64,800")
    args = ap.parse_args()
    {"train": train, "judge": judge}[args.what](args)


if __name__ == "__main__":
    main()
