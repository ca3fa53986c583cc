"""PacoZero from Python: the Paco Ŝako and Shako engines, the self-play
training data and the networks, through the project's own Rust crates.

* ``Paco`` / ``Shako``: game states (``from_fen``, ``start``,
  ``fischer_random``, ``random_start``, ``legal_actions``, ``apply``,
  ``push``, ``parse_turn``, ``perft``, ``encode`` ...). Actions are policy
  indices in the mover's frame. ``apply(a)`` returns a new state and leaves
  the old one as it was; ``push(a)`` plays on the state itself.
* ``pacozero.data.open(run_or_dir)``: the trainer's batches as NumPy arrays.
* ``Network.load(path)``: a ``.pzmodel`` (or a run's current model) on the
  workers' fast CPU inference.
* ``analyze(state, model, visits)``: the search of ``pacozero analyze``.

Errors in input (a bad FEN, an illegal action, a broken file) raise
``ValueError`` with the engine's message.
"""

from ._native import Network, Paco, Shako, __version__
from ._native import analyze as _analyze
from . import data

__all__ = ["Paco", "Shako", "Network", "analyze", "data", "__version__"]


def analyze(state, model, visits=800, top=None, pv_turns=8):
    """Search ``state`` with a network and return its most visited turns.

    The search is the one of ``pacozero analyze``: PUCT without noise,
    ``visits`` simulations over atomic decisions, batch size 1. ``model`` is a
    ``Network`` or a path (``.pzmodel`` file or run directory).

    Returns a dict: ``fen``, ``to_move``, ``simulations``, ``value`` (root Q
    for the mover, in [-1, 1]), ``wdl``, ``network`` and ``turns``, the turns
    completed inside the tree, most visited first (at most ``top``), each a
    dict with ``turn`` (chain notation; Shako: UCI), ``actions`` (policy
    indices), ``visits``, ``q``, ``wdl`` (for the player making the turn),
    ``prior`` (product of the priors of its decisions) and ``pv`` (the turn
    and the principal variation after it, at most ``pv_turns`` more turns).
    """
    return _analyze(state, model, visits, top, pv_turns)
