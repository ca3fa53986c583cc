"""The games from Python against the engine's figures and reference data."""

import json

import numpy as np
import pytest

import pacozero
from pacozero import Connect4, Paco, Shako

from conftest import REPO

VECTORS = REPO / "engine" / "tests" / "data" / "vectors.jsonl"
SHAKO_POSITIONS = REPO / "engine" / "tests" / "data" / "shako" / "positions.jsonl"


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def replay(cls, start_fen, actions):
    s = cls.from_fen(start_fen)
    for name in actions.split():
        s.push(s.parse_action(name))
    return s


def test_start_perft_matches_the_engine_figures():
    s = Paco.start()
    # engine/tests/data/README.md: full-move and atomic perft of the start.
    assert [s.perft(d) for d in (1, 2, 3)] == [20, 400, 8902]
    assert [s.perft(d, atomic=True) for d in range(1, 7)] == [10, 20, 200, 400, 4472, 8902]
    z = Shako.start()
    assert [z.perft(d) for d in (1, 2, 3)] == [58, 3364, 185938]


def test_perft_matches_the_cli(run_cli):
    records = [r for r in load_jsonl(VECTORS) if r["fen_exact"]][:6]
    for r in records:
        s = Paco.from_fen(r["fen"])
        for atomic in (False, True):
            args = ["perft", "--fen", r["fen"], "--depth", "2"] + (["--atomic"] if atomic else [])
            leaves = int(run_cli(*args).stdout.strip().splitlines()[-1].split()[-1].replace(",", ""))
            assert s.perft(2, atomic=atomic) == leaves, (r["fen"], atomic)
        if r.get("perft2_full") is not None:
            assert s.perft(2) == r["perft2_full"]


def test_reference_vectors_legal_actions():
    records = load_jsonl(VECTORS)
    assert len(records) == 150
    for r in records:
        if r["fen_exact"]:
            s = Paco.from_fen(r["fen"])
        else:
            src = r["source"]
            s = replay(Paco, src["start_fen"], src["actions_from_start"])
        assert s.to_move == {"w": "white", "b": "black"}[r["side_to_move"]]
        got = sorted(s.action_name(a) for a in s.legal_actions(include_dead_ends=True))
        assert got == sorted(r["legal_actions"]), r["id"]
        assert len(got) == r["num_legal_actions"]
        # What search may take is a subset (no dead-end chains), and the default list is the full one.
        assert set(s.playable_actions()) <= set(s.legal_actions()) and s.legal_actions() == s.legal_actions(include_dead_ends=True)
        assert s.legal_actions(include_dead_ends=False) == s.playable_actions()
        if r["num_full_moves"] <= 20000:
            turns = s.legal_turns()
            assert len(turns) == r["num_full_moves"], r["id"]
        if r.get("perft2_full") is not None and r["perft2_full"] <= 20000:
            assert s.perft(2) == r["perft2_full"], r["id"]


def test_platform_checks_list_dead_end_actions():
    """The two positions the platform found ``legal_actions`` short in
    (issue 31): the full list has the action into a dead-end chain, the
    playable list leaves exactly that one out."""
    for r in load_jsonl(VECTORS.parent / "platform_checks.jsonl"):
        s = Paco.from_fen(r["fen"])
        assert sorted(s.action_name(a) for a in s.legal_actions()) == r["legal_actions"]
        playable = sorted(s.action_name(a) for a in s.playable_actions())
        assert playable == [a for a in r["legal_actions"] if a not in r["dead_end_actions"]]
        assert len(s.legal_turns()) == r["num_full_moves"]


def test_shako_reference_positions():
    for r in load_jsonl(SHAKO_POSITIONS)[:40]:
        s = Shako.from_fen(r["fen"])
        assert sorted(s.action_name(a) for a in s.legal_actions()) == sorted(r["moves"]), r["id"]
        assert s.perft(1) == r["perft1"] and s.perft(2) == r["perft2"]


def test_turns_chain_notation_and_apply_semantics():
    s = Paco.start()
    t = s.parse_turn("e2-e4")
    assert [s.action_name(a) for a in t] == ["Le2", "Pe4"]
    assert s.turn_name(t) == "e2-e4"
    names = [n for n, _ in s.legal_turns()]
    assert len(names) == 20 and "Nb1-c3" in names
    # apply returns a new state and leaves the old one as it was.
    fen0 = s.fen()
    s2 = s.apply(t[0])
    assert s.fen() == fen0 and s2.fen() != fen0
    s3 = s2.apply(t[1])
    assert s3.to_move == "black" and s.to_move == "white"
    assert s3 == s.apply_turn("e2-e4")
    # push plays in place.
    s.push_turn("e2-e4")
    assert s == s3 and s.hash == s3.hash
    c = s.copy()
    c.push_turn("e7-e5")
    assert s == s3 and c != s
    assert s.outcome() is None and s.status == "running"


def test_fischer_random_and_random_starts():
    assert Paco.fischer_random(518).fen() == Paco.start().fen()
    assert Paco.fischer_random(0).fen() != Paco.start().fen()
    assert Paco.random_start(960 + 7).fen() == Paco.fischer_random(7).fen()
    z = Shako.random_start(5)
    assert z.fen() != Shako.start().fen() and z.to_move == "white"
    with pytest.raises(ValueError, match="0..960"):
        Paco.fischer_random(960)
    with pytest.raises(ValueError, match="Fischer-random"):
        Shako.fischer_random(1)


def test_a_finished_game():
    # The white queen can unite with Black's king: some turn wins.
    s = Paco.from_fen("4k3/8/8/8/8/8/8/4QK2 w 0 - - -")
    wins = []
    for name, actions in s.legal_turns():
        t = s
        for a in actions:
            t = t.apply(a)
        if t.outcome() == "white":
            wins.append((name, t))
    assert wins
    name, win = wins[0]
    assert s.apply_turn(name) == win
    assert win.status == "paco"
    assert win.legal_actions() == [] and win.legal_turns() == []
    with pytest.raises(ValueError, match="over"):
        win.apply(0)


def test_encode_shapes_and_values():
    for cls, p, s_, h in ((Paco, 31, 10, 8), (Shako, 19, 4, 10)):
        st = cls.start()
        planes, scalars = st.encode()
        assert planes.shape == (p, h, h) and planes.dtype == np.float32
        assert scalars.shape == (s_,) and scalars.dtype == np.float32
        assert set(np.unique(planes)) <= {0.0, 1.0}
        x = st.encode_input()
        assert x.shape == cls.input_shape == (p + s_, h, h)
        assert np.array_equal(x[:p], planes)
        for i in range(s_):
            assert np.all(x[p + i] == scalars[i])
        words, sc = st.encode_packed()
        bits = np.unpackbits(words.view(np.uint8), bitorder="little").reshape(p, -1)[:, : h * h]
        assert np.array_equal(bits.reshape(p, h, h).astype(np.float32), planes)
        assert np.array_equal(sc, scalars)


def test_bad_input_raises_value_error():
    for fen in ["", "8/8/8/8 w", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x 0 AHah - -", "not a fen"]:
        with pytest.raises(ValueError):
            Paco.from_fen(fen)
    with pytest.raises(ValueError):
        Shako.from_fen("c8c/ernbqkbnre/pppppppppp/10/10 w KQkq - 0 1")
    s = Paco.start()
    with pytest.raises(ValueError, match="not legal"):
        s.apply(s.parse_action("Le4"))  # nothing to lift on e4
    with pytest.raises(ValueError, match="out of range"):
        s.apply(132)
    with pytest.raises(ValueError):
        s.apply(-1)
    with pytest.raises(ValueError):
        s.action_name(1000)
    with pytest.raises(ValueError):
        s.parse_action("Xz9")
    with pytest.raises(ValueError):
        s.parse_turn("e2-e5")
    with pytest.raises(ValueError):
        s.push_turn("Nb1-b3")
    assert s == Paco.start()  # a refused turn changes nothing
    z = Shako.start()
    with pytest.raises(ValueError):
        z.parse_action("a3a9")
    with pytest.raises(ValueError):
        z.apply(3655 + 1)
    legal = set(z.legal_actions())
    illegal = next(a for a in range(Shako.NUM_ACTIONS) if a not in legal and not z.action_name(a).startswith("#"))
    with pytest.raises(ValueError):
        z.apply(illegal)
    with pytest.raises(ValueError):
        Paco.from_fen(Paco.start().fen(), no_union_undo=True).apply(999)


def test_version_and_exports():
    assert pacozero.__version__
    assert Paco.GAME == "paco" and Shako.GAME == "shako"
    assert Paco.NUM_ACTIONS == 132 and Shako.NUM_ACTIONS == 3656


def test_mangled_fens_raise_value_errors_not_panics():
    """Random edits of valid positions either read or raise ValueError; the
    engine never panics (a PanicException is not a ValueError)."""
    import random

    rng = random.Random(19)
    seeds = [(Paco, r["fen"]) for r in load_jsonl(VECTORS)[:30] if r["fen_exact"]]
    seeds += [(Shako, r["fen"]) for r in load_jsonl(SHAKO_POSITIONS)[:30]]
    alphabet = "pnbrqkPNBRQKcCeEaAzZ_^/0123456789 wb-"
    for _ in range(3000):
        cls, fen = rng.choice(seeds)
        chars = list(fen)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars) + 1)
            op = rng.randrange(3)
            if op == 0:
                chars.insert(i, rng.choice(alphabet))
            elif op == 1 and i < len(chars):
                del chars[i]
            elif i < len(chars):
                chars[i] = rng.choice(alphabet)
        text = "".join(chars)
        try:
            s = cls.from_fen(text)
        except ValueError:
            continue
        # A position that reads is usable.
        s.legal_actions()
        s.encode()
        assert cls.from_fen(s.fen()).fen() == s.fen()


def test_connect4_is_a_game_of_the_package():
    # The registry's third game comes with no Python code of its own.
    assert Connect4.GAME == "connect4" and Connect4.NUM_ACTIONS == 7
    assert Connect4.input_shape == (5 + 3, 6, 7)
    assert "connect4" in pacozero.GAMES
    s = Connect4.start()
    assert s.fen() == "-" and s.legal_actions() == list(range(7))
    # Published perft of Connect Four from the empty board.
    assert [s.perft(d) for d in (1, 4, 7)] == [7, 2401, 823536]
    # Four in a column wins; the position is the columns played.
    for a in (0, 1, 0, 1, 0, 1):
        s = s.apply(a)
    assert s.fen() == "121212" and s.to_move == "white"
    won = s.apply(s.parse_action("1"))
    assert won.outcome() == "white" and won.status == "four_in_a_row"
    planes, scalars = s.encode()
    assert planes.shape == (5, 6, 7) and scalars.shape == (3,)
    assert planes[3, 3, 0] == 1.0  # a4 completes the mover's four
    with pytest.raises(ValueError):
        Connect4.from_fen("1111111")  # column 1 holds six
