"""pacozero.Network and pacozero.analyze against the `pacozero analyze` command."""

import re

import numpy as np
import pytest

import pacozero
from pacozero import Network, Paco, Shako


def softmax_over(logits, legal):
    z = logits[legal]
    e = np.exp(z - z.max())
    return e / e.sum()


def cli_rows(text):
    """(turn, visits, prior %) of each table row of `pacozero analyze`."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*\d+\s+(\S+)\s+(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+([\d.]+)%$", line)
        if m:
            rows.append((m.group(1), int(m.group(2)), float(m.group(3))))
    return rows


def test_network_loads_and_evaluates(paco_run):
    net = Network.load(paco_run)  # the run's current model
    assert net.name == "m" and net.policy_size == 132 and net.input_shape == (41, 8, 8)
    assert net.uses_fastnet
    assert net.path.name == "m.pzmodel"
    same = Network.load(net.path)
    states = [Paco.start(), Paco.fischer_random(3), Paco.start().apply_turn("e2-e4")]
    logits, wdl = net.evaluate(states)
    assert logits.shape == (3, 132) and wdl.shape == (3, 3)
    assert np.allclose(wdl.sum(1), 1.0, atol=1e-5)
    x = np.stack([s.encode_input() for s in states])
    l2, w2 = same.evaluate(x)
    assert np.array_equal(l2, logits) and np.array_equal(w2, wdl)
    l1, w1 = net.evaluate(states[1])
    assert l1.shape == (132,) and np.allclose(l1, logits[1], atol=1e-5) and np.allclose(w1, wdl[1], atol=1e-6)
    actions, priors, w = net.priors(states[0])
    assert actions == states[0].playable_actions()
    assert np.allclose(priors, softmax_over(logits[0], actions), atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        net.evaluate(np.zeros((2, 40, 8, 8), np.float32))
    with pytest.raises(ValueError, match="shako"):
        net.evaluate([Shako.start()])


def test_network_priors_equal_the_cli_analyze(paco_run, run_cli):
    """The CLI's turn priors (product of the network's priors over the turn's
    decisions) from Python's network outputs, and Python's analyze equal to
    the CLI's."""
    net = Network.load(paco_run)
    for state in (Paco.start(), Paco.fischer_random(100).apply_turn("g2-g3")):
        out = run_cli("analyze", "--model", paco_run, "--fen", state.fen(), "--sims", "64", "--top", "100").stdout
        rows = cli_rows(out)
        assert rows, out
        res = pacozero.analyze(state, net, visits=64)
        assert [(t["turn"], t["visits"]) for t in res["turns"]] == [(n, v) for n, v, _ in rows]
        assert res["simulations"] == 64
        for t, (name, _, prior_pct) in zip(res["turns"], rows):
            assert f"{100 * t['prior']:.1f}" == f"{prior_pct:.1f}"
            # Recompute the prior from the network outputs, decision by decision.
            s, p = state, 1.0
            for a in t["actions"]:
                legal = s.playable_actions()
                logits, _ = net.evaluate(s)
                p *= softmax_over(logits, legal)[legal.index(a)]
                s = s.apply(a)
            assert abs(p - t["prior"]) < 1e-5, name
            assert abs(100 * p - prior_pct) <= 0.05 + 1e-4, name
            assert t["pv"][0] == name
        root = re.search(r"value ([+-][\d.]+)", out).group(1)
        assert f"{res['value']:+.3f}" == root


def test_analyze_shako_and_errors(shako_run, paco_run):
    z = Shako.start()
    res = pacozero.analyze(z, shako_run, visits=32, top=3)
    assert len(res["turns"]) == 3
    legal_names = {n for n, _ in z.legal_turns()}
    assert all(t["turn"] in legal_names for t in res["turns"])
    assert sum(t["visits"] for t in pacozero.analyze(z, shako_run, visits=32)["turns"]) == 32
    with pytest.raises(ValueError, match="paco"):
        pacozero.analyze(Paco.start(), shako_run, visits=8)
    with pytest.raises(ValueError):
        pacozero.analyze(Paco.start(), paco_run, visits=0)
    with pytest.raises(ValueError):
        Network.load(paco_run / "metrics.csv")
    with pytest.raises(ValueError):
        Network.load(paco_run / "missing.pzmodel")
