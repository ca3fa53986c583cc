"""pacozero.data against the engine: every row of a self-play run decodes
to what replaying its game gives."""

import json

import numpy as np
import pytest

import pacozero
from pacozero import Paco, Shako, data


def all_rows(run):
    """Every row of the run's data, by (game_id, ply)."""
    it = data.open(run, shuffle=False, batch_size=1 << 16, window=1 << 30)
    rows = {}
    for b in it:
        for k in range(len(b["game_id"])):
            rows[(int(b["game_id"][k]), int(b["ply"][k]))] = {key: v[k] for key, v in b.items()}
    assert len(rows) == it.rows
    return rows


@pytest.mark.parametrize("game", ["paco", "shako"])
def test_encode_equals_the_trainer_decoding(game, paco_run, shako_run):
    run = paco_run if game == "paco" else shako_run
    cls = Paco if game == "paco" else Shako
    rows = all_rows(run)
    games = data.games(run)
    assert len(games) == 4 and sum(g["num_decisions"] for g in games) == len(rows)
    checked = 0
    for g in games:
        s = cls.from_fen(g["start_fen"])
        for ply, name in enumerate(g["actions"].split()):
            r = rows[(g["game_id"], ply)]
            planes, scalars = s.encode()
            assert np.array_equal(s.encode_input(), r["x"]), (g["game_id"], ply)
            assert np.array_equal(planes, r["planes"]) and np.array_equal(scalars, r["scalars"])
            legal = s.playable_actions()
            assert np.flatnonzero(r["legal"]).tolist() == legal
            assert abs(float(r["policy"].sum()) - 1.0) < 1e-4
            assert np.all(r["mask"][r["legal"]] == 0.0) and np.all(r["mask"][~r["legal"]] < -1e8)
            a = s.parse_action(name)
            assert a in legal
            s.push(a)
            checked += 1
    assert checked == len(rows)


def test_window_and_sampling_options(paco_run):
    full = data.open(paco_run, shuffle=False, window=1 << 30, batch_size=1 << 16)
    n = full.rows
    assert full.spec == {
        "game": "paco",
        "board_height": 8,
        "board_width": 8,
        "bit_planes": 31,
        "scalars": 10,
        "policy_size": 132,
        "aux_targets": ["mover_in_sako", "mover_can_paco"],
    }
    assert len(full.chunks) == 2
    # The trainer's pass: a permutation of the window in whole batches.
    it = data.open(paco_run, batch_size=8, seed=5)
    assert len(it) == n // 8
    seen = []
    for b in it:
        assert b["x"].shape == (8, 41, 8, 8) and b["policy"].shape == (8, 132)
        assert b["aux"].shape == (8, 2) and b["sako"] is b["aux"] and set(np.unique(b["aux"])) <= {0.0, 1.0}
        seen += list(zip(b["game_id"].tolist(), b["ply"].tolist()))
    assert len(seen) == len(set(seen)) == (n // 8) * 8
    again = [tuple(x) for b in data.open(paco_run, batch_size=8, seed=5) for x in zip(b["game_id"].tolist(), b["ply"].tolist())]
    assert again == seen
    other = [tuple(x) for b in data.open(paco_run, batch_size=8, seed=6) for x in zip(b["game_id"].tolist(), b["ply"].tolist())]
    assert other != seen
    # Two passes, the newest 10 rows, q-mix.
    assert sum(len(b["ply"]) for b in data.open(paco_run, batch_size=8, passes=2)) == 2 * (n // 8) * 8
    w = data.open(paco_run, window=10, shuffle=False, batch_size=4)
    assert w.rows == 10 and [len(b["ply"]) for b in w] == [4, 4, 2]
    mixed = next(iter(data.open(paco_run, shuffle=False, batch_size=n, value_q_mix=1.0)))
    plain = next(iter(data.open(paco_run, shuffle=False, batch_size=n)))
    assert np.allclose(plain["wdl"].sum(1), 1.0) and not np.array_equal(mixed["wdl"], plain["wdl"])
    assert set(np.unique(plain["wdl"])) <= {0.0, 1.0}
    # A configuration file's [train] table is read (window_c = 16 rows).
    cfg = paco_run.parent / "small-window.toml"
    cfg.write_text("[loop]\nignored = 1\n[train]\nwindow_c = 16\nwindow_max = 16\nbatch_size = 4\n")
    c = data.open(paco_run, config=cfg)
    assert c.rows == 16 and c.batch_size == 4


def test_data_errors(tmp_path, paco_run):
    with pytest.raises(FileNotFoundError):
        data.open(tmp_path / "missing")
    with pytest.raises(ValueError, match="no positions"):
        data.open(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text("[train]\nbatch_size = 0\n")
    with pytest.raises(ValueError, match="batch_size"):
        data.open(paco_run, config=bad)
    (tmp_path / "x.games.parquet").write_bytes(b"not parquet")
    (tmp_path / "x.positions.parquet").write_bytes(b"not parquet")
    with pytest.raises(ValueError, match="x.positions.parquet"):
        data.open(tmp_path)


def checkpoint_header(run):
    raw = (run / "checkpoints" / "latest.pzckpt").read_bytes()
    assert raw[:8] == b"PZCKPT\n\0"
    n = int.from_bytes(raw[12:20], "little")
    return json.loads(raw[20 : 20 + n])


def test_the_trainers_window_and_order(paco_run):
    """With the run's training configuration, open() reads the trainer's
    window and visits it in the trainer's order: the checkpoint of the
    fixture's two training steps records the same chunks, window size and
    permutation seed."""
    pos = checkpoint_header(paco_run)["data"]
    it = data.open(paco_run, config=paco_run.parent / "train.toml")
    assert it.chunks == pos["chunks"] and it.rows == pos["window_rows"]
    assert it.perm_seed == pos["perm_seed"] and it.batch_size == 8
    assert data.open(paco_run, shuffle=False).perm_seed is None


def test_torch_dataset_with_a_stand_in_torch(paco_run, monkeypatch):
    """The dataset's logic (conversion, worker split): a minimal stand-in
    module plays torch (the three names the dataset uses), whether or not
    PyTorch is installed, so the test never depends on a 700 MB wheel."""
    import sys
    import types

    worker = {"info": None}
    torch = types.ModuleType("torch")
    torch.from_numpy = lambda a: ("tensor", a)
    utils = types.ModuleType("torch.utils")
    tdata = types.ModuleType("torch.utils.data")
    tdata.IterableDataset = type("IterableDataset", (), {})
    tdata.get_worker_info = lambda: worker["info"]
    torch.utils, utils.data = utils, tdata
    for name, mod in (("torch", torch), ("torch.utils", utils), ("torch.utils.data", tdata)):
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.setattr(data, "_cache", {})
    ds = data.torch_dataset(paco_run, batch_size=8, seed=1)
    whole = list(ds)
    assert len(whole) == len(data.open(paco_run, batch_size=8))
    assert all(v[0] == "tensor" for v in whole[0].values())
    worker["info"] = types.SimpleNamespace(num_workers=2, id=1)
    odd = list(ds)
    assert len(odd) == len(whole) // 2
    assert [b["ply"][1].tolist() for b in odd] == [b["ply"][1].tolist() for b in whole[1::2]]
