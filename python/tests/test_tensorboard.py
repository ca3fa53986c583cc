"""The TensorBoard event files of a run, read back by TensorBoard's own event
reader (the `tensorboard` package from PyPI, not our code): the trainer's
scalars by step and the loop's by generation, with the expected tags."""

import pytest
from conftest import TINY_SELFPLAY, TINY_TRAIN
from tensorboard.backend.event_processing import event_accumulator  # scripts/test-python.sh installs it

# The session fixtures' tiny self-play and training settings, as a loop's tables.
TINY_LOOP = f"""
[loop]
generations = 2
games_per_generation = 4
train_steps_per_generation = 4
gating_games = 2
eval_simulations = 4
promotion = "always"
baseline_games = 2
baseline_simulations = 4
max_decisions = 40
seed = 7

[selfplay]
{TINY_SELFPLAY.replace("[search]", "[selfplay.search]")}
{TINY_TRAIN}
metrics_every = 1
"""


def scalars(folder):
    acc = event_accumulator.EventAccumulator(str(folder))
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def test_a_loops_event_files_read_back_in_tensorboard(tmp_path, run_cli):
    cfg = tmp_path / "loop.toml"
    cfg.write_text(TINY_LOOP)
    run = tmp_path / "runs" / "a"
    run_cli("loop", "--config", cfg, "--run", run)

    train = scalars(run / "tensorboard" / "train")
    for tag in ["trainer/loss", "trainer/policy_loss", "trainer/value_loss", "trainer/moves_left_loss", "trainer/sako_loss", "trainer/lr", "trainer/samples_per_sec"]:
        assert tag in train, sorted(train)
    # Two generations of four steps, one row each (metrics_every = 1), as metrics.csv.
    assert [s for s, _ in train["trainer/loss"]] == list(range(1, 9)), train["trainer/loss"]
    csv = (run / "metrics.csv").read_text().splitlines()
    header = csv[0].split(",")
    last = dict(zip(header, csv[-1].split(",")))
    assert train["trainer/loss"][-1][1] == pytest.approx(float(last["loss"]), rel=1e-6)

    loop = scalars(run / "tensorboard" / "loop")
    for tag in ["selfplay/avg_length", "selfplay/sims_per_sec", "selfplay/draw_rate", "fresh/value_loss", "fresh/base_rate_loss", "time/selfplay_seconds", "time/train_seconds", "eval/elo"]:
        assert tag in loop, sorted(loop)
    assert [s for s, _ in loop["selfplay/avg_length"]] == [1, 2], loop["selfplay/avg_length"]
    # The fresh-data loss exists from generation 2 on (generation 1 has no network before its games).
    assert [s for s, _ in loop["fresh/value_loss"]] == [2], loop["fresh/value_loss"]
