"""`pacozero games export --format pgn`, re-played by pyffish (Fairy-Stockfish's
Python binding): every move of every exported Shako game (arena games with
their players' specs, and self-play games) is a legal move whose SAN is
pyffish's own, and each game's result is the one its final position gives."""

import re

import pyffish

TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def read_pgn(text):
    """The games of a PGN text: (tags, SAN moves) each."""
    games, tags, moves = [], {}, []
    for line in text.splitlines():
        m = TAG.match(line)
        if m:
            if moves:
                games.append((tags, moves))
                tags, moves = {}, []
            tags[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
        elif line.strip():
            for token in line.split():
                if re.fullmatch(r"\d+\.(\.\.)?", token) or token in RESULTS:
                    continue
                moves.append(token)
    if tags:
        games.append((tags, moves))
    return games


def replay(tags, sans):
    """Plays the SAN moves with pyffish; returns the UCI moves."""
    variant, start = tags["Variant"], tags["FEN"]
    assert pyffish.validate_fen(start, variant) == 1, start
    played = []
    for i, san in enumerate(sans):
        fen = pyffish.get_fen(variant, start, played)
        legal = pyffish.legal_moves(variant, start, played)
        matching = [m for m in legal if pyffish.get_san(variant, fen, m) == san]
        assert len(matching) == 1, f"game {tags['GameId']} move {i + 1} {san!r}: {len(matching)} legal moves have this SAN in {fen}"
        played.append(matching[0])
    return played


def check_result(tags, played):
    """The result tag is what the final position gives, by the reason recorded."""
    variant, start, result, reason = tags["Variant"], tags["FEN"], tags["Result"], tags["Reason"]
    no_moves = not pyffish.legal_moves(variant, start, played)
    claimable, _ = pyffish.is_optional_game_end(variant, start, played)
    # Side to move at the end: White when the number of moves after a White start is even.
    white_to_move = (start.split()[1] == "w") == (len(played) % 2 == 0)
    if reason == "checkmate":
        # No legal move, and the side to move has lost (pyffish: -mate).
        assert no_moves and pyffish.game_result(variant, start, played) < 0, tags
        assert result == ("0-1" if white_to_move else "1-0"), tags
    elif reason == "stalemate":
        assert no_moves and pyffish.game_result(variant, start, played) == 0 and result == "1/2-1/2", tags
    elif reason in ("repetition", "fifty_moves"):
        assert claimable and result == "1/2-1/2", tags
    else:
        # Cut or forfeited: the rules have not ended it.
        assert reason in ("max_length", "stuck", "illegal_move", "engine_crash", "engine_timeout"), tags
        assert not no_moves, tags


def test_shako_pgn_export_replays_in_pyffish(run_cli, shako_run, tmp_path):
    record = tmp_path / "games"
    run_cli("arena", "--game", "shako", "--players", "greedy", "rollout:8", "--games", "8", "--max-decisions", "400", "--quiet", "--record", record)
    pgn = tmp_path / "games.pgn"
    run_cli("games", "export", record, shako_run / "data", "--format", "pgn", "--out", pgn)
    games = read_pgn(pgn.read_text())
    assert len(games) == 8 + 4, len(games)
    reasons = set()
    for tags, sans in games:
        assert tags["Variant"] == "shako" and tags["SetUp"] == "1"
        played = replay(tags, sans)
        check_result(tags, played)
        reasons.add(tags["Reason"])
    # The arena's games carry the players' specs, each pair with colours swapped.
    arena = [t for t, _ in games if t["Event"] == "PacoZero match"]
    assert [(t["White"], t["Black"]) for t in arena[:2]] == [("greedy", "rollout:8"), ("rollout:8", "greedy")]
    assert all(t["White"].startswith("selfplay:") for t, _ in games if t["Event"] == "PacoZero self-play")
    # Decisive games were checked against pyffish's mate, cut ones as still running.
    assert "checkmate" in reasons and "max_length" in reasons, reasons


def test_paco_pgn_export_has_the_same_layout(run_cli, paco_run, tmp_path):
    pgn = tmp_path / "paco.pgn"
    run_cli("games", "export", paco_run / "data", "--out", pgn)
    games = read_pgn(pgn.read_text())
    assert len(games) == 4
    for tags, moves in games:
        assert tags["Variant"] == "paco" and tags["FEN"].endswith(" -")
        assert moves and all(" " not in m for m in moves)
