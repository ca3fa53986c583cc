"""The self-play training data as the trainer sees it.

``open(run_or_dir)`` reads the trainer's window of the newest positions and
yields batches as dicts of NumPy arrays, built by the trainer's own batch
function (``pacozero_batch::Batch::build``):

==================  =============  ===========================================
key                 shape, dtype   meaning
==================  =============  ===========================================
``x``               (B,C,H,W) f32  network input: bit planes, then scalars
                                   broadcast to planes (C = planes + scalars)
``planes``          (B,P,H,W) f32  the bit planes (a view of ``x``)
``scalars``         (B,S) f32      the scalar features
``legal``           (B,A) bool     legal policy slots
``mask``            (B,A) f32      0 on legal slots, -1e9 elsewhere (as the trainer adds it)
``policy``          (B,A) f32      search policy target (0 off the legal slots)
``policy_weight``   (B,) f32       row weight where the row trains the policy (full search), else 0
``wdl``             (B,3) f32      value target: one-hot result mixed with the root WDL by ``value_q_mix``
                                   (a game cut at its length cap: its root WDL in the result's place)
``weight``          (B,) f32       row weight
``moves_left``      (B,) f32       ln(1 + decisions left)
``moves_left_weight`` (B,) f32     row weight where the row trains moves left, else 0 (a game
                                   cut at its length cap: no end to count to)
``aux``             (B,T) f32      the game's auxiliary targets, 0 or 1, in the order of
                                   ``spec["aux_targets"]`` (their names; Paco Ŝako:
                                   mover_in_sako, mover_can_paco; Shako: mover_in_check,
                                   mover_can_check)
``sako``            (B,T) f32      the same array (the key of earlier versions)
``result``          (B,) i8        game result for the mover
``game_id``, ``ply``  (B,)         which row it is
==================  =============  ===========================================
"""

import os

from . import _native

__all__ = ["open", "games", "Batches", "torch_dataset", "PositionDataset"]


def _check_path(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such run or data directory")
    return path


class Batches:
    """Iterator over the batches of a window (see ``open``)."""

    def __init__(self, native):
        self._it = native
        self._planes = native.spec["bit_planes"]

    def __iter__(self):
        return self

    def __next__(self):
        b = next(self._it)
        b["planes"] = b["x"][:, : self._planes]
        return b

    def __len__(self):
        return len(self._it)

    @property
    def rows(self):
        """Rows in the window."""
        return self._it.rows

    @property
    def spec(self):
        """Game, board size, bit planes, scalars and policy size of the data."""
        return self._it.spec

    @property
    def chunks(self):
        """Stems of the chunks of the window, oldest first."""
        return self._it.chunks

    @property
    def batch_size(self):
        return self._it.batch_size

    @property
    def perm_seed(self):
        """Seed of the current pass's permutation (the trainer's checkpoint
        records its own as ``data.perm_seed``); ``None`` without shuffling."""
        return self._it.perm_seed


def open(run_or_dir, *, config=None, batch_size=None, window=None, shuffle=True, seed=None,
         value_q_mix=None, passes=1, drop_last=None):
    """Batches of position rows from a run directory (its ``data/``) or a data directory.

    The options are the trainer's, from the ``[train]`` table of ``config``
    (a TOML file such as ``configs/train.toml``; the trainer's defaults
    without one), each overridable here:

    * the window: the newest ``train.window_size(N)`` positions of the ``N``
      in complete chunks (KataGo's formula with ``window_c``,
      ``window_alpha``, ``window_beta``, ``window_max``); ``window=n`` takes
      the newest ``n`` rows instead;
    * ``batch_size`` (``train.batch_size``) and ``value_q_mix``;
    * the order: with ``shuffle`` (default) each pass is the trainer's
      permutation of the window, its seed drawn from ChaCha8 seeded with
      ``seed`` (``train.seed``), and a pass ends where the trainer's does
      (the last partial batch is dropped); ``shuffle=False`` reads the rows in
      file order, the last partial batch included.

    ``passes`` passes over the window (read once, at open).
    """
    path = _check_path(run_or_dir)
    if config is not None:
        config = os.fspath(config)
    it = _native.open_data(path, config=config, batch_size=batch_size, window=window, shuffle=shuffle,
                           seed=seed, value_q_mix=value_q_mix, passes=passes, drop_last=drop_last)
    return Batches(it)


def games(run_or_dir):
    """The games table of every complete chunk, oldest chunk first: a list of
    dicts (``game_id``, ``start_fen``, ``actions`` — space-separated
    decisions —, ``num_decisions``, ``result``, ``reason``, ``network_id``,
    ``seed``, ``white``, ``black`` — the players: ``selfplay:<network>`` or
    a match's player specs —, ``chunk``)."""
    return _native.read_games(_check_path(run_or_dir))


def _make_dataset_class():
    try:
        import torch
        from torch.utils.data import IterableDataset, get_worker_info
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("pacozero.data.PositionDataset needs PyTorch (pip install torch)") from e

    class PositionDataset(IterableDataset):
        """The batches of ``open(run_or_dir, **options)`` as dicts of torch
        tensors. Already batched: use ``DataLoader(ds, batch_size=None)``.
        With several loader workers each takes every n-th batch."""

        def __init__(self, run_or_dir, **options):
            super().__init__()
            self.path = _check_path(run_or_dir)
            self.options = options

        def __iter__(self):
            info = get_worker_info()
            for i, b in enumerate(open(self.path, **self.options)):
                if info is not None and i % info.num_workers != info.id:
                    continue
                yield {k: torch.from_numpy(v) for k, v in b.items()}

    return PositionDataset


def torch_dataset(run_or_dir, **options):
    """A ``torch.utils.data.IterableDataset`` over ``open(run_or_dir, **options)``."""
    return __getattr__("PositionDataset")(run_or_dir, **options)


_cache = {}


def __getattr__(name):
    if name == "PositionDataset":
        if name not in _cache:
            _cache[name] = _make_dataset_class()
        return _cache[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

