//! [`Encode`]: what a network sees of a game (its input encodings and
//! policy layout) and learns beside the policy and the value (its auxiliary
//! targets and the symmetry of its training data).

use super::GameRules;

/// A network input encoding of a game: its name and version and the names
/// of its inputs, for files that describe the network they hold (the ONNX
/// export's metadata). A network reads the bit planes as `0`/`1` planes,
/// then each scalar broadcast to a constant plane, in the order named here.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Encoding {
    /// The encoding's name (`pacozero` for each game's own).
    pub name: &'static str,
    /// Raised whenever a plane's meaning changes, so a network trained on
    /// the old meaning is not fed the new one unnoticed.
    pub version: u32,
    /// Names of the bit planes, in order (snake_case).
    pub bit_planes: &'static [&'static str],
    /// Names of the scalars, in order (snake_case).
    pub scalars: &'static [&'static str],
}

impl Encoding {
    /// Bit planes of the encoding.
    pub fn num_bit_planes(&self) -> usize {
        self.bit_planes.len()
    }
    /// Scalars of the encoding.
    pub fn num_scalars(&self) -> usize {
        self.scalars.len()
    }
}

/// Where a convolutional policy head reads each action's logit
/// ([`Encode::policy_planes`]): the head writes `planes` planes over the
/// board, and an action is one square of one plane (in chess, AlphaZero's
/// 73 planes of moves by their from-square), or a whole plane for an
/// action that belongs to no square (its logit is the plane's mean).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyPlanes {
    /// Planes the head writes.
    pub planes: usize,
    /// For each action index, in order: its plane and its square (the bit
    /// planes' square index, `rank * W + file` of the mover's frame), or
    /// `None` for a plane's mean over the board. No two actions share one.
    pub slots: Vec<(u16, Option<u16>)>,
}

/// The name of each game's own encoding, its first ([`Encode::ENCODINGS`]):
/// what files that name none hold.
pub const DEFAULT_ENCODING: &str = "pacozero";

/// The index in [`Encode::ENCODINGS`] of the encoding `name`; the error names
/// the game's encodings.
pub fn encoding_index<G: Encode>(name: &str) -> Result<usize, String> {
    G::ENCODINGS.iter().position(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = G::ENCODINGS.iter().map(|e| e.name).collect();
        format!("{} has no input encoding {name:?} (it has: {})", G::NAME, names.join(", "))
    })
}

/// A game as a network reads it: the encodings of its positions, where the
/// policy's actions lie, its auxiliary targets and the mirror symmetry used
/// to augment training data.
pub trait Encode: GameRules {
    /// Bit planes of the encoding (each `ceil(H*W/64)` words) and scalars.
    const NUM_BIT_PLANES: usize;
    const NUM_SCALARS: usize;
    /// The `u64` words of one bit plane: a bit per square, `ceil(H*W/64)`.
    const WORDS_PER_PLANE: usize = (Self::BOARD_HEIGHT * Self::BOARD_WIDTH).div_ceil(64);
    /// Writes the network input (see the game's encoding table).
    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]);
    /// The network input encodings of the game; the first, named
    /// [`DEFAULT_ENCODING`], is the one [`Encode::encode`] writes
    /// ([`Encode::NUM_BIT_PLANES`] bit planes, [`Encode::NUM_SCALARS`] scalars,
    /// named there). A run chooses one (`net.encoding`); its data and
    /// networks record it.
    const ENCODINGS: &'static [Encoding];
    /// Writes the input in encoding `ENCODINGS[encoding]` into `planes`
    /// (its bit planes, each `ceil(H*W/64)` words) and `scalars`. The
    /// default, for games with one encoding, is [`Encode::encode`].
    fn encode_as(&self, encoding: usize, planes: &mut [u64], scalars: &mut [f32]) {
        assert_eq!(encoding, 0, "{} has one input encoding", Self::NAME);
        self.encode(planes, scalars)
    }
    /// The policy's action indices in words: which decision each slot is and
    /// in which frame (for files that describe the network they hold).
    const ACTION_LAYOUT: &'static str;
    /// The action indices as planes over the board, for a convolutional
    /// policy head (`net.policy_head = "conv"`); `None` for a game without
    /// such a layout (the default), whose networks keep the fully connected
    /// head.
    fn policy_planes() -> Option<PolicyPlanes> {
        None
    }
    /// Names of the game's auxiliary training targets: yes/no facts about a
    /// settled position (the start of a turn) that the network learns to
    /// predict beside the policy and the value, and that search never reads.
    /// The data files store their values as one column in this order, and
    /// these names in their metadata (`aux_targets`); the network's
    /// auxiliary head has one logit each. Names are distinct snake_case
    /// words (the conformance test checks them).
    const AUX_TARGETS: &'static [&'static str];
    /// The values of [`Encode::AUX_TARGETS`] for this position: clears `out`
    /// and pushes one value per name, in order, and returns `true`; in the
    /// middle of a turn (no settled position) leaves `out` empty and returns
    /// `false`. Self-play reuses `out`, so no call allocates once it has
    /// grown.
    fn aux_targets(&self, out: &mut Vec<bool>) -> bool;
    /// Mirrors an encoded position ([`Encode::encode`]'s planes) in place by a
    /// symmetry of the rules, for training-data augmentation; `false`, the
    /// planes untouched, where the position has none. Paco Ŝako: the a ↔ h
    /// file mirror, for positions without a castling right. Default: none.
    fn mirror_planes(_planes: &mut [u64]) -> bool {
        false
    }
    /// [`Encode::mirror_planes`] for the bit planes of encoding
    /// `ENCODINGS[encoding]` (the same symmetry; a game with one encoding
    /// needs nothing more than `mirror_planes`).
    fn mirror_planes_as(encoding: usize, planes: &mut [u64]) -> bool {
        encoding == 0 && Self::mirror_planes(planes)
    }
    /// The action index that [`Encode::mirror_planes`]'s symmetry maps action
    /// index `a` to.
    fn mirror_action_index(a: usize) -> usize {
        a
    }
}
