"""Fixtures of the Python package's tests: the `pacozero` binary (to make
self-play data and a model, and to compare with its output) and a small run
directory per game, made once per session."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

TINY_SELFPLAY = """
seed = 3
threads = 1
games_per_thread = 2
games_per_chunk = 2
max_decisions = 40
start_positions = "fischer_random"

[search]
full_simulations = 4
cheap_simulations = 2
"""

TINY_TRAIN = """
[net]
blocks = 1
channels = 8
policy_channels = 4
value_channels = 2
value_hidden = 16

[train]
batch_size = 8
warmup_steps = 1
min_positions = 1
progress = false
plot_every = 0
"""


def find_binary():
    exe = os.environ.get("PACOZERO_BIN")
    if exe:
        return exe
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(os.environ.get("TMPDIR", "/tmp"), "pacozero-target")
    return os.path.join(target, "release", "pacozero")


@pytest.fixture(scope="session")
def pacozero_bin():
    exe = find_binary()
    if not os.path.isfile(exe):
        pytest.fail(f"the pacozero binary is not at {exe}: build it (cargo build --release) or set PACOZERO_BIN")
    return exe


@pytest.fixture(scope="session")
def run_cli(pacozero_bin):
    def run(*args, check=True):
        p = subprocess.run([pacozero_bin, *map(str, args)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if check and p.returncode != 0:
            raise AssertionError(f"pacozero {' '.join(map(str, args))} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
        return p

    return run


def _make_run(tmp_path_factory, run_cli, game):
    d = tmp_path_factory.mktemp(f"run-{game}")
    (d / "selfplay.toml").write_text(TINY_SELFPLAY)
    (d / "train.toml").write_text(TINY_TRAIN)
    run = d / "run"
    run_cli("selfplay", "--game", game, "--config", d / "selfplay.toml", "--run", run, "--games", "4", "--evaluator", "uniform", "--quiet")
    run_cli("train", "--run", run, "--config", d / "train.toml", "--steps", "2", "--export", "m")
    return run


@pytest.fixture(scope="session")
def paco_run(tmp_path_factory, run_cli):
    """A Paco Ŝako run: two chunks of self-play data and a current model `m`."""
    return _make_run(tmp_path_factory, run_cli, "paco")


@pytest.fixture(scope="session")
def shako_run(tmp_path_factory, run_cli):
    """A Shako run: two chunks of self-play data and a current model `m`."""
    return _make_run(tmp_path_factory, run_cli, "shako")
