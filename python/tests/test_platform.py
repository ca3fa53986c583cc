"""The platform contract (Paco Ŝako, `net.encoding = "platform"`): the file
`pacozero export --format platform` writes reads the platform's 30 planes
and answers OUTPUT [1, 133] (the value, then the probabilities of the 132
actions) as the network does inside PacoZero.

The planes are built here from each position's FEN by a second, plain
implementation of the platform's input (it shares no code with the engine's
encoder), checked plane by plane against the engine's `encode(encoding=
"platform")`, and fed to the exported file in ONNX Runtime. Its value must be
the network's (`Network.evaluate`: win - loss) and its probabilities,
renormalised over the legal decisions, the priors that `pacozero analysis`
(the JSON form of `pacozero analyze`) reports for the network."""

import json
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from pacozero import Network, Paco, Shako

# --- A plain implementation of the platform's input, from a FEN -----------

KINDS = "prnbqk"  # plane order: pawn, rook, knight, bishop, queen, king
# Union letters: (first kind, second kind); lower case: the first is Black's.
UNIONS = {
    "a": "pp", "c": "pr", "d": "pn", "e": "pb", "f": "pq", "g": "pk", "h": "rr", "i": "rn",
    "j": "rb", "l": "rq", "m": "rk", "o": "nn", "s": "nb", "t": "nq", "u": "nk", "v": "bb",
    "w": "bq", "x": "bk", "y": "qq", "z": "qk", "_": "kk",
}


def square_of(name):
    """`e4` -> (rank 3, file 4)."""
    return int(name[1:]) - 1, ord(name[0]) - ord("a")


def letter_pieces(ch):
    """A board letter -> (white kind or None, black kind or None)."""
    if ch.lower() in KINDS:
        return (ch.lower(), None) if ch.isupper() else (None, ch)
    first, second = UNIONS[ch.lower()]
    return (first, second) if ch.isupper() else (second, first)


def platform_planes(fen):
    """The platform's [30, 8, 8] input (planes x rank x file) of a FEN."""
    fields = fen.split()
    board, lifted = (fields[0].split("^") + [None])[:2]
    side, half_moves, castling, ep = fields[1], int(fields[2]), fields[3], fields[4]
    white = {}  # (rank, file) -> kind
    black = {}
    for i, row in enumerate(board.split("/")):
        rank, file = 7 - i, 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            w, b = letter_pieces(ch)
            if w:
                white[(rank, file)] = w
            if b:
                black[(rank, file)] = b
            file += 1
    mover_black = side == "b"
    mine, theirs = (black, white) if mover_black else (white, black)

    def view(rank, file):  # the mover's frame: Black sees the board flipped vertically
        return (7 - rank if mover_black else rank), file

    x = np.zeros((30, 8, 8), np.float32)
    for plane0, pieces in ((0, mine), (6, theirs)):
        for (rank, file), kind in pieces.items():
            x[(plane0 + KINDS.index(kind),) + view(rank, file)] = 1
    if lifted:
        where, what = lifted[:2], lifted[2:]
        if len(what) == 2:  # the mover's piece, then its partner
            mover_kind, partner = what[0].lower(), what[1].lower()
        elif what.lower() in KINDS:
            mover_kind, partner = what.lower(), None
        else:
            w, b = letter_pieces(what)
            mover_kind, partner = (b, w) if mover_black else (w, b)
        at = view(*square_of(where))
        x[(12 + KINDS.index(mover_kind),) + at] = 1
        if partner:
            x[(18 + KINDS.index(partner),) + at] = 1
    if ep != "-":
        x[(24,) + view(*square_of(ep))] = 1
    # Castling: X-FEN rook files (upper case White); a right is on the queen
    # side when its rook's file is left of its king's.
    def king_file(pieces):
        return next(f for (r, f), k in pieces.items() if k == "k")

    rights = {"w": [False, False], "b": [False, False]}
    if castling != "-":
        for ch in castling:
            color = "w" if ch.isupper() else "b"
            pieces = white if color == "w" else black
            if ch.lower() in "kq":  # KQkq
                side_index = 1 if ch.lower() == "k" else 0
            else:
                side_index = 0 if ord(ch.lower()) - ord("a") < king_file(pieces) else 1
            rights[color][side_index] = True
    me, them = ("b", "w") if mover_black else ("w", "b")
    for i, on in enumerate(rights[me] + rights[them]):
        x[25 + i] = 1.0 if on else 0.0
    x[29] = half_moves / 100.0
    return x


# --- The positions ---------------------------------------------------------

LINES = {
    "start": "",
    "black to move, en passant": "Le2 Pe4",
    "a lifted single piece": "Le2",
    "a lifted union (pawn and pawn), Black": "Le2 Pe4 Ld7 Pd5 Le4 Pd5 Ld5",
    "a lifted union (pawn and knight), Black": "Lb1 Pc3 Ld7 Pd5 Lc3 Pd5 Ld5",
    "castling rights lost on one side, Black": "Lh2 Ph4 La7 Pa5 Lh1 Ph3",
    "castling rights, White to move": "Lh2 Ph4 La7 Pa5 Lh1 Ph3 La8 Pa6",
    "a union on the board, half-moves": "Lb1 Pc3 Lb8 Pc6 Lg1 Pf3 Lg8 Pf6 Lc3 Pd5 Lc6 Pd4",
}


def state_of(line):
    g = Paco.start()
    for name in line.split():
        g = g.apply(g.parse_action(name))
    return g


@pytest.fixture(scope="module")
def platform_run(tmp_path_factory, run_cli):
    """A Paco Ŝako run whose data and network use the platform's input."""
    d = tmp_path_factory.mktemp("platform")
    (d / "selfplay.toml").write_text('seed = 4\nthreads = 1\ngames_per_thread = 4\nmax_decisions = 60\nstart_positions = "fischer_random"\n'
                                     'encoding = "platform"\n[search]\nfull_simulations = 4\ncheap_simulations = 2\n')
    (d / "train.toml").write_text('[net]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 2\nvalue_hidden = 16\nencoding = "platform"\n'
                                  "[train]\nbatch_size = 16\nwarmup_steps = 1\nmin_positions = 1\nprogress = false\nplot_every = 0\n")
    run = d / "run"
    run_cli("selfplay", "--game", "paco", "--config", d / "selfplay.toml", "--run", run, "--games", "6", "--evaluator", "uniform", "--quiet")
    run_cli("train", "--run", run, "--config", d / "train.toml", "--steps", "6", "--export", "m")
    return run


def analysis_priors(binary, model, fens):
    """The network's priors of each position's decisions, from `pacozero analysis`."""
    lines = "".join(json.dumps({"id": i, "fen": f, "max_visits": 1, "include_policy": True}) + "\n" for i, f in enumerate(fens))
    p = subprocess.run([binary, "analysis", "--model", str(model)], input=lines, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    answers = {a["id"]: a for a in map(json.loads, p.stdout.splitlines())}
    return [{d["action"]: d["prior"] for d in answers[i]["policy"]} for i in range(len(fens))]


def test_plain_planes_equal_the_engines(tmp_path):
    for what, line in LINES.items():
        g = state_of(line)
        want = g.encode_input(encoding="platform")
        got = platform_planes(g.fen())
        for p in range(30):
            assert np.array_equal(got[p], want[p]), f"{what} ({g.fen()}): plane {p}\nplain:\n{got[p]}\nengine:\n{want[p]}"
    # The positions cover what the contract names.
    fens = [state_of(line).fen() for line in LINES.values()]
    assert any("^" in f and " b " in f for f in fens) and any("^" in f and " w " in f for f in fens)
    assert any(f.split()[4] != "-" for f in fens) and any(f.split()[3] not in ("-", "AHah") for f in fens)


def test_platform_export_runs_as_the_network(platform_run, run_cli, pacozero_bin, tmp_path):
    net = Network.load(platform_run)
    assert net.config["encoding"] == "platform" and net.input_shape == (30, 8, 8)
    out = tmp_path / "bot.onnx"
    run_cli("export", "--format", "platform", "--model", platform_run, "--out", out)
    py = tmp_path / "py.onnx"
    net.export_onnx(py, format="platform")
    assert out.read_bytes() == py.read_bytes()
    m = onnx.load(str(out))
    onnx.checker.check_model(m, full_check=True)
    [inp], [outp] = m.graph.input, m.graph.output
    assert [d.dim_value for d in inp.type.tensor_type.shape.dim] == [1, 30, 8, 8]
    assert outp.name == "OUTPUT" and [d.dim_value for d in outp.type.tensor_type.shape.dim] == [1, 133]
    meta = {p.key: p.value for p in m.metadata_props}
    assert meta["pacozero.format"] == "platform" and meta["encoding"] == "platform" and meta["game"] == "paco"
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    in_name = sess.get_inputs()[0].name

    states = [state_of(line) for line in LINES.values()]
    priors = analysis_priors(pacozero_bin, platform_run, [s.fen() for s in states])
    for what, g, cli in zip(LINES, states, priors):
        y = sess.run(["OUTPUT"], {in_name: platform_planes(g.fen())[None]})[0][0]
        assert y.shape == (133,)
        value, probs = y[0], y[1:]
        assert -1 <= value <= 1 and abs(probs.sum() - 1) < 1e-5 and (probs >= 0).all()
        _, wdl = net.evaluate(g)
        assert abs(value - (wdl[0] - wdl[2])) < 1e-5, f"{what}: value {value} != {wdl[0] - wdl[2]}"
        legal = g.playable_actions()
        assert sorted(g.parse_action(a) for a in cli) == legal, what
        p = probs[legal] / probs[legal].sum()  # index a + 1 is action a
        for a, pa in zip(legal, p):
            assert abs(pa - cli[g.action_name(a)]) < 2e-6, f"{what}: {g.action_name(a)} {pa} != {cli[g.action_name(a)]}"
        # The same through the Python binding.
        actions, pri, _ = net.priors(g)
        assert actions == legal and np.allclose(pri, p, atol=1e-6)
        # Output index i + 1 is the network's policy slot i, over all 132 slots.
        logits, _ = net.evaluate(g)
        e = np.exp(logits - logits.max())
        assert np.abs(probs - e / e.sum()).max() < 1e-6, what


def test_platform_refusals(paco_run, platform_run, run_cli, tmp_path):
    p = run_cli("export", "--format", "platform", "--model", paco_run, "--out", tmp_path / "x.onnx", check=False)
    assert p.returncode != 0 and 'net.encoding = "platform"' in p.stderr and not (tmp_path / "x.onnx").exists()
    with pytest.raises(ValueError, match="shako has no input encoding"):
        Shako.start().encode_input(encoding="platform")
    # Platform data and the default encoding do not mix.
    p = run_cli("selfplay", "--game", "paco", "--run", platform_run, "--games", "1", "--evaluator", "uniform", "--quiet", check=False)
    assert p.returncode != 0 and "encoding=platform" in p.stderr
    train = tmp_path / "train.toml"
    train.write_text("[net]\nblocks = 1\nchannels = 8\n[train]\nmin_positions = 1\nprogress = false\n")
    p = run_cli("train", "--run", platform_run, "--config", train, "--steps", "1", check=False)
    assert p.returncode != 0 and 'encoding = "pacozero"' in p.stderr and '"platform"' in p.stderr
