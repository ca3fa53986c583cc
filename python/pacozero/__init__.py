"""PacoZero from Python: the Paco Ŝako, Shako and Connect Four engines, the self-play
training data and the networks, through the project's own Rust crates.

* ``Paco`` / ``Shako`` / ``Connect4``: game states, one class per game of the engine's
  registry (``GAMES``, all subclasses of ``State``; ``from_fen``, ``start``,
  ``fischer_random``, ``random_start``, ``legal_actions``, ``apply``,
  ``push``, ``parse_turn``, ``perft``, ``encode`` ...). Actions are policy
  indices in the mover's frame. ``apply(a)`` returns a new state and leaves
  the old one as it was; ``push(a)`` plays on the state itself.
* ``pacozero.data.open(run_or_dir)``: the trainer's batches as NumPy arrays.
* ``Network.load(path)``: a ``.pzmodel`` (or a run's current model) on the
  workers' fast CPU inference; ``export_onnx(path)`` writes it as ONNX
  (``format="platform"``: the game's platform's bot file).
* ``analyze(state, model, visits)``: the search of ``pacozero analyze``.

Errors in input (a bad FEN, an illegal action, a broken file) raise
``ValueError`` with the engine's message.
"""

from . import _native
from ._native import Network, State, __version__
from ._native import analyze as _analyze
from . import data


def _game_class(name):
    """The class of game ``name``: a ``State`` subclass named after the game
    (capitalised) whose constructors make that game's states."""
    info = _native.game_info(name)
    cls_name = name.capitalize()
    doc = (
        f"A {name} game state (position and repetition history); the methods are "
        f"``pacozero.State``'s. ``{cls_name}()`` and ``{cls_name}.start()`` give the "
        "standard start; a decision is one policy index in the mover's frame."
    )
    return type(cls_name, (State,), {
        "__slots__": (),
        "__module__": __name__,
        "__doc__": doc,
        "GAME": name,  # the game's name in the data files
        "NUM_ACTIONS": info["num_actions"],  # policy slots
        "input_shape": info["input_shape"],  # network input (bit_planes + scalars, H, W)
        "RULE_OPTIONS": tuple(info["rule_options"]),  # keywords of from_fen and fischer_random
    })


#: The class of each of the engine's games, by name (``"paco"``: ``Paco`` ...),
#: the default game first.
GAMES = {_name: _game_class(_name) for _name in _native.games()}
globals().update({cls.__name__: cls for cls in GAMES.values()})
DEFAULT_GAME = _native.default_game()

__all__ = [cls.__name__ for cls in GAMES.values()] + ["GAMES", "DEFAULT_GAME", "State", "Network", "analyze", "data", "__version__"]


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
