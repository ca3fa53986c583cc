"""Python-side throughput as a ratio to the same work in Rust.

    python -m pacozero.bench [--data RUN_OR_DIR] [--game GAME] [--decisions N] [--states N]

* ``playable_actions + apply``: playouts from the start (the choice among the
  legal actions is a fixed function of the decision count, the same in both
  languages, so both play the same games); Python with ``apply`` (a new
  state per decision) and with ``push`` (in place), Rust with the engine's
  ``GameRules::playable_actions`` + ``GameRules::apply``;
* ``encode``: the states of those playouts to (planes, scalars) arrays;
* ``data``: one shuffled pass over a data directory in batches of 256
  (``pacozero.data.open`` against ``Batch::build`` on the same window; the
  window is read before the clock starts).

Each figure is the best of ``--repeat`` rounds, Python and Rust taking
turns in each round (the same load for both on a busy machine).
"""

import argparse
import time

from . import DEFAULT_GAME, GAMES, data
from ._native import bench_rust


def _pick(k, n):
    return ((k * 2654435761) & 0xFFFFFFFF) % n


def playout(cls, n, inplace):
    start = cls.start()
    g = start.copy()
    k = 0
    t = time.perf_counter()
    while k < n:
        legal = g.playable_actions()
        if not legal:
            g = start.copy()
            continue
        a = legal[_pick(k, len(legal))]
        if inplace:
            g.push(a)
        else:
            g = g.apply(a)
        k += 1
    return time.perf_counter() - t


def encode(cls, n):
    start = cls.start()
    g = start.copy()
    states = []
    k = 0
    while len(states) < n:
        legal = g.playable_actions()
        if not legal:
            g = start.copy()
            continue
        states.append(g)
        g = g.apply(legal[_pick(k, len(legal))])
        k += 1
    t = time.perf_counter()
    for s in states:
        s.encode()
    return time.perf_counter() - t


def data_pass(path, batch_size):
    batches = data.open(path, batch_size=batch_size)  # reads the window (untimed)
    t = time.perf_counter()
    rows = 0
    for b in batches:
        rows += len(b["game_id"])
    return rows, time.perf_counter() - t


def _best(pairs, repeat):
    """Best (least) time of each function over `repeat` rounds, the
    functions taking turns in each round so that both meet the same load."""
    best = [float("inf")] * len(pairs)
    for _ in range(repeat):
        for i, f in enumerate(pairs):
            best[i] = min(best[i], f())
    return best


def run(game=DEFAULT_GAME, decisions=100_000, states=5_000, data_path=None, batch_size=256, repeat=5):
    """Returns rows of (what, python per second, rust per second)."""
    cls = GAMES[game]
    out = []
    apply_s, push_s, rust_s = _best([
        lambda: playout(cls, decisions, False),
        lambda: playout(cls, decisions, True),
        lambda: bench_rust("playout", game, decisions)[1],
    ], repeat)
    out.append((f"{game} playable_actions + apply (decisions)", decisions / apply_s, decisions / rust_s))
    out.append((f"{game} playable_actions + push (decisions)", decisions / push_s, decisions / rust_s))
    py_s, rs_s = _best([lambda: encode(cls, states), lambda: bench_rust("encode", game, states)[1]], repeat)
    out.append((f"{game} encode (states)", states / py_s, states / rs_s))
    if data_path is not None:
        rows = data_pass(data_path, batch_size)[0]
        assert rows == bench_rust("data", game, 0, data_path, batch_size)[0]
        py_s, rs_s = _best([lambda: data_pass(data_path, batch_size)[1], lambda: bench_rust("data", game, 0, data_path, batch_size)[1]], repeat)
        out.append((f"data iterator (rows, batch {batch_size})", rows / py_s, rows / rs_s))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default=DEFAULT_GAME, choices=list(GAMES))
    ap.add_argument("--decisions", type=int, default=100_000)
    ap.add_argument("--states", type=int, default=5_000, help="states to encode (a Paco Ŝako encoding runs the threat search: about 0.5 ms)")
    ap.add_argument("--data", help="run or data directory for the data-iterator benchmark")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(argv)
    rows = run(a.game, a.decisions, a.states, a.data, a.batch_size, a.repeat)
    print(f"{'work':<44} {'python/s':>12} {'rust/s':>12} {'python/rust':>12}")
    for what, py, rs in rows:
        print(f"{what:<44} {py:>12,.0f} {rs:>12,.0f} {py / rs:>12.2f}")


if __name__ == "__main__":
    main()
