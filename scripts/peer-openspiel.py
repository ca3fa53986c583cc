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

`judge` scores checkpoints on `engine/tests/data/connect4-solved.jsonl`:
the share of positions whose move is optimal (the solver's best score) for
the policy alone (the most likely legal action) and for OpenSpiel's own MCTS
with the AlphaZero evaluator at each visit budget, and the value's accuracy.
With `--every-minutes M` it takes, as `pacozero solved --run` does for a
PacoZero run, the first checkpoint, the newest at each step of M minutes
and the last one; without, every checkpoint. It merges into `judged.jsonl` in `--out`
(a checkpoint judged again keeps the visit budgets of both runs), one
line per checkpoint in the format of `pacozero_run::solved_curve` (`network`,
`seconds` since training started, `optimal` by visits, `value`,
`implementation`), for `pacozero solved --run <run> --peer <out>/judged.jsonl`.
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

out, suite_path, visits, every = sys.argv[1], sys.argv[2], [int(v) for v in sys.argv[3].split(",")], float(sys.argv[4])
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
age = {s: os.path.getmtime(os.path.join(out, f"checkpoint-{s}")) - started for s in steps}
if every > 0 and steps:
    # The first checkpoint, the newest at each step of `every` seconds, and the last.
    picked, t = [steps[0]], every
    while True:
        before = [s for s in steps if age[s] <= t]
        if before and (not picked or picked[-1] != before[-1]):
            picked.append(before[-1])
        if t >= age[steps[-1]]:
            break
        t += every
    if picked[-1] != steps[-1]:
        picked.append(steps[-1])
    steps = picked
model = Model.build_model(**args)
nnx_inference = model.inference


# The model's own inference (merge, eval mode, masked softmax) under
# jax.jit: the same outputs, without re-tracing every call (the eager
# version takes some 8 ms a position, 800 visits of 300 positions half an
# hour). The learner's actors keep OpenSpiel's own.
def jitted(model):
    import jax
    import jax.numpy as jnp
    from flax import nnx

    graphdef = model._state.graphdef

    @jax.jit
    def run(params, batch_stats, observation, legals_mask):
        net = nnx.merge(graphdef, params, batch_stats)
        net.eval()
        logits, value = net(jnp.asarray(observation, dtype=jnp.float32))
        logits = jnp.where(legals_mask, logits, jnp.full_like(logits, jnp.finfo(jnp.float32).min))
        return value, nnx.softmax(logits)

    return lambda observation, legals_mask: run(model._state.params, model._state.batch_stats, observation, jnp.asarray(legals_mask, dtype=jnp.bool))


for step in steps:
    model.load_checkpoint(step)
    model.inference = jitted(model) if os.environ.get("PEER_EAGER") != "1" else nnx_inference
    ev = evaluator_lib.AlphaZeroEvaluator(game, model)
    line = {"network": f"checkpoint-{step}", "seconds": age[step], "optimal": {}, "implementation": sys.argv[5]}
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
        line["optimal"][str(v)] = 100.0 * optimal / len(suite)
    for t in suite:
        value = ev.evaluate(state_of(t["position"]))[0]
        guess = 1 if value > 1 / 3 else (-1 if value < -1 / 3 else 0)
        right += guess == t["value"]
    line["value"] = 100.0 * right / len(suite)
    print(json.dumps(line), flush=True)
"""


def judge(args):
    out = Path(args.out).resolve()
    implementation = f"OpenSpiel {PACKAGES[0].split('==')[1]} AlphaZero"
    result = subprocess.run([python(), "-c", JUDGE, str(out), str(SUITE), args.visits, str(args.every_minutes * 60), implementation], check=True, stdout=subprocess.PIPE, text=True)
    # Merged into the checkpoints judged before (by network: the visit
    # budgets of both), so that a costly budget can be judged on fewer
    # checkpoints in a second run.
    path = out / "judged.jsonl"
    merged = {}
    for text in (path.read_text() if path.exists() else "", result.stdout):
        for line in filter(str.strip, text.splitlines()):
            point = json.loads(line)
            known = merged.setdefault(point["network"], point)
            known["optimal"].update(point["optimal"])
    tmp = out / "judged.jsonl.tmp"
    tmp.write_text("".join(json.dumps(p) + "\n" for p in sorted(merged.values(), key=lambda p: p["seconds"])))
    tmp.rename(path)
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
    j.add_argument("--every-minutes", type=float, default=0, help="judge the newest checkpoint at each step of this many minutes, and the last (0: every checkpoint)")
    args = ap.parse_args()
    {"train": train, "judge": judge}[args.what](args)


if __name__ == "__main__":
    main()
