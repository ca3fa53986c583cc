//! `pacozero.Paco` and `pacozero.Shako`: game states over the engine's
//! [`Game`] implementations. One macro writes both classes; what differs
//! between the games is the [`PyGame`] trait.
//!
//! `apply(a)` returns a new state and leaves this one as it was (search
//! trees, replays and data pipelines keep every state they saw); `push(a)`
//! changes this state in place, for loops that only go forward.

use numpy::ndarray::Array;
use numpy::{IntoPyArray, PyArray1, PyArray3};
use pacozero_data::game_spec;
use pacozero_data::{decode_into, GameSpec};
use pacozero_engine::paco::{self, Action, Position, Rules};
use pacozero_engine::{shako, Game, Outcome};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A ValueError carrying the engine's message.
pub fn value_error(msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(msg.to_string())
}

/// What the Python classes need beyond [`Game`].
pub trait PyGame: Game {
    /// Reads a position (`rules`: the Paco Ŝako optional rules; Shako has none).
    fn parse(fen: &str, rules: Rules) -> Result<Self, String>;
    /// Plays a decision after checking that the engine accepts it.
    fn play_checked(&mut self, action: u16) -> Result<(), String>;
    /// One decision from its name (Paco `Le2`, `=Q`; Shako a UCI move).
    fn action_from_name(&self, name: &str) -> Result<u16, String>;
    /// The name of a turn given as decisions from this state.
    fn turn_name(&self, actions: &[u16]) -> Result<String, String>;
    /// Fischer-random setup `n` (Paco Ŝako only).
    fn fischer_random(n: i64, rules: Rules) -> Result<Self, String>;
}

fn paco_action(g: &paco::GameState, index: u16) -> Result<Action, String> {
    paco::action_from_index(index as usize, g.position().side_to_move()).ok_or_else(|| format!("action index {index} is out of range 0..{}", paco::NUM_ACTIONS))
}

fn game_over<G: Game>(g: &G) -> Option<String> {
    g.outcome().map(|_| format!("the game is over ({}): no action is legal in {}", g.end_reason(), g.notation()))
}

impl PyGame for paco::GameState {
    fn parse(fen: &str, rules: Rules) -> Result<Self, String> {
        Position::from_fen(fen.trim(), rules).map(paco::GameState::new).map_err(|e| e.to_string())
    }

    fn play_checked(&mut self, action: u16) -> Result<(), String> {
        if let Some(e) = game_over(self) {
            return Err(e);
        }
        let a = paco_action(self, action)?;
        self.play(a).map(|_| ()).map_err(|e| format!("{e} in {}", self.position().fen()))
    }

    fn action_from_name(&self, name: &str) -> Result<u16, String> {
        let a: Action = name.trim().parse().map_err(|e: paco::ActionParseError| e.to_string())?;
        Ok(paco::action_index(a, self.position().side_to_move()) as u16)
    }

    fn turn_name(&self, actions: &[u16]) -> Result<String, String> {
        for &i in actions {
            paco_action(self, i)?;
        }
        Ok(self.turn_notation(actions))
    }

    fn fischer_random(n: i64, rules: Rules) -> Result<Self, String> {
        if !(0..960).contains(&n) {
            return Err(format!("Fischer-random setups are numbered 0..960, got {n}"));
        }
        Ok(paco::GameState::new(paco::fischer_random(n as u16, rules)))
    }
}

fn shako_move(g: &shako::GameState, index: u16) -> Result<shako::Move, String> {
    shako::move_from_action(g.position(), index as usize)
        .ok_or_else(|| format!("action index {index} is no move in {} (policy slots 0..{})", g.position().fen(), shako::NUM_ACTIONS))
}

impl PyGame for shako::GameState {
    fn parse(fen: &str, rules: Rules) -> Result<Self, String> {
        if rules != Rules::OFFICIAL {
            return Err("the optional rules are Paco Ŝako rules; Shako has none".into());
        }
        shako::GameState::from_fen(fen.trim()).map_err(|e| e.to_string())
    }

    fn play_checked(&mut self, action: u16) -> Result<(), String> {
        if let Some(e) = game_over(self) {
            return Err(e);
        }
        let m = shako_move(self, action)?;
        self.play(m).map_err(|e| e.to_string())
    }

    fn action_from_name(&self, name: &str) -> Result<u16, String> {
        let m = self.position().parse_uci(name.trim()).map_err(|e| e.to_string())?;
        Ok(shako::action_index(m, self.position().side_to_move()) as u16)
    }

    fn turn_name(&self, actions: &[u16]) -> Result<String, String> {
        match actions {
            [a] => Ok(shako_move(self, *a)?.to_string()),
            _ => Err(format!("a Shako turn is one move, got {} actions", actions.len())),
        }
    }

    fn fischer_random(_n: i64, _rules: Rules) -> Result<Self, String> {
        Err("Shako has no Fischer-random setups; Shako.random_start(n) plays a few random plies from the start".into())
    }
}

/// The packed encoding of a state: `(planes words, scalars)`.
pub fn encode_packed<G: Game>(g: &G) -> (Vec<u64>, Vec<f32>) {
    let spec = game_spec::<G>();
    let mut planes = vec![0u64; spec.plane_words()];
    let mut scalars = vec![0f32; G::NUM_SCALARS];
    g.encode(&mut planes, &mut scalars);
    (planes, scalars)
}

/// The network input of a state, `[bit_planes + scalars, H, W]` flattened,
/// decoded by the data crate's decoder (as the trainer and the workers do).
pub fn encode_dense_into<G: Game>(spec: &GameSpec, g: &G, out: &mut [f32]) {
    let (planes, scalars) = encode_packed(g);
    decode_into(spec, &planes, &scalars, out);
}

pub fn outcome_name(o: Option<Outcome>) -> Option<&'static str> {
    o.map(|o| match o {
        Outcome::Win(c) => c.name(),
        Outcome::Draw => "draw",
    })
}

fn rules_of(no_union_undo: bool, one_double_step_per_file: bool, king_chain_draw: bool) -> Rules {
    Rules { no_union_undo, one_double_step_per_file, king_chain_draw }
}

macro_rules! game_class {
    ($class:ident, $name:literal, $state:ty, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "pacozero._native", name = $name)]
        pub struct $class {
            pub g: $state,
        }

        impl $class {
            fn wrap(g: $state) -> Self {
                $class { g }
            }
        }

        #[pymethods]
        impl $class {
            /// The standard start position.
            #[new]
            fn new() -> Self {
                Self::wrap(<$state as pacozero_engine::Game>::start())
            }

            /// The standard start position.
            #[staticmethod]
            fn start() -> Self {
                Self::new()
            }

            /// Randomised start `n`, as self-play's `start_positions =
            /// "fischer_random"` draws it (Paco Ŝako: Fischer-random setup
            /// `n % 960`; Shako: 2, 4 or 6 random plies from the start).
            #[staticmethod]
            fn random_start(n: u64) -> Self {
                Self::wrap(<$state as Game>::random_start(n))
            }

            /// Paco Ŝako: Fischer-random setup `n` (0..960, Scharnagl
            /// numbering; 518 is the standard start).
            #[staticmethod]
            #[pyo3(signature = (n, *, no_union_undo=false, one_double_step_per_file=false, king_chain_draw=false))]
            fn fischer_random(n: i64, no_union_undo: bool, one_double_step_per_file: bool, king_chain_draw: bool) -> PyResult<Self> {
                let rules = rules_of(no_union_undo, one_double_step_per_file, king_chain_draw);
                <$state as PyGame>::fischer_random(n, rules).map(Self::wrap).map_err(value_error)
            }

            /// A position in the game's notation (Paco Ŝako: the platform's
            /// extended X-FEN; Shako: FEN). Raises ValueError with the
            /// engine's message for a bad one.
            #[staticmethod]
            #[pyo3(signature = (fen, *, no_union_undo=false, one_double_step_per_file=false, king_chain_draw=false))]
            fn from_fen(fen: &str, no_union_undo: bool, one_double_step_per_file: bool, king_chain_draw: bool) -> PyResult<Self> {
                let rules = rules_of(no_union_undo, one_double_step_per_file, king_chain_draw);
                <$state as PyGame>::parse(fen, rules).map(Self::wrap).map_err(value_error)
            }

            /// The position in the game's notation.
            fn fen(&self) -> String {
                self.g.notation()
            }

            /// `"white"` or `"black"`: who takes the next decision.
            #[getter]
            fn to_move(&self) -> &'static str {
                self.g.to_move().name()
            }

            /// `None` while the game runs, else `"white"`, `"black"` (the
            /// winner) or `"draw"`.
            fn outcome(&self) -> Option<&'static str> {
                outcome_name(self.g.outcome())
            }

            /// `"running"`, or why the game ended, as in the games table's
            /// `reason` column (Paco Ŝako: `paco`, `repetition`,
            /// `no_progress`; Shako: `checkmate`, `stalemate`, `repetition`,
            /// `fifty_moves`).
            #[getter]
            fn status(&self) -> &'static str {
                self.g.end_reason()
            }

            /// Zobrist hash of the position (64 bits).
            #[getter]
            fn hash(&self) -> u64 {
                Game::hash(&self.g)
            }

            /// Every decision the rules allow, as policy indices (mover's
            /// frame), ascending: for Paco Ŝako the platform's list, which
            /// also has the actions that can only lead into a dead-end chain
            /// (`pacozero legal` gives the same list). With
            /// `include_dead_ends=False`, the playable decisions instead
            /// (the same as `playable_actions()`).
            #[pyo3(signature = (include_dead_ends=true))]
            fn legal_actions(&self, include_dead_ends: bool) -> Vec<u16> {
                let mut v = Vec::new();
                if include_dead_ends {
                    Game::legal_actions(&self.g, &mut v);
                } else {
                    self.g.playable_actions(&mut v);
                }
                v
            }

            /// The legal decisions after which the turn can still be
            /// completed, ascending: what search and the network's players
            /// choose from (no dead-end chains).
            fn playable_actions(&self) -> Vec<u16> {
                let mut v = Vec::new();
                self.g.playable_actions(&mut v);
                v
            }

            /// The name of a decision here (`Le2`, `Pe4`, `=Q`; Shako: `e3e5`).
            fn action_name(&self, a: i64) -> PyResult<String> {
                let a = u16::try_from(a).map_err(|_| value_error(format!("action index {a} is out of range")))?;
                if a as usize >= <$state as Game>::NUM_ACTIONS {
                    return Err(value_error(format!("action index {a} is out of range 0..{}", <$state as Game>::NUM_ACTIONS)));
                }
                Ok(self.g.action_name(a))
            }

            /// The policy index of a decision given by its name (`Le2`; Shako: a UCI move).
            fn parse_action(&self, name: &str) -> PyResult<u16> {
                PyGame::action_from_name(&self.g, name).map_err(value_error)
            }

            /// The decisions (policy indices) of a whole turn in chain
            /// notation (`e2-e4`, `Bf3xe4>c3>c6`, `0-0`, `=Q Nb1-c3`; Shako: a
            /// UCI move). Raises ValueError if it is not a legal turn here.
            fn parse_turn(&self, text: &str) -> PyResult<Vec<u16>> {
                Game::parse_turn(&self.g, text).map_err(value_error)
            }

            /// The chain notation of a turn given as decisions from this state.
            fn turn_name(&self, actions: Vec<u16>) -> PyResult<String> {
                self.g.turn_name(&actions).map_err(value_error)
            }

            /// Every legal turn as `(name, [actions])`, names in chain
            /// notation (Shako: UCI moves).
            fn legal_turns(&self, py: Python<'_>) -> Vec<(String, Vec<u16>)> {
                let g = &self.g;
                py.detach(|| if g.outcome().is_some() { Vec::new() } else { g.legal_turns().into_iter().map(|t| (g.turn_notation(&t), t)).collect() })
            }

            /// A new state after decision `a`; this one is left as it was.
            /// Raises ValueError (the engine's message) for an illegal action.
            fn apply(&self, a: i64) -> PyResult<Self> {
                let mut g = self.g.clone();
                let a = u16::try_from(a).map_err(|_| value_error(format!("action index {a} is out of range")))?;
                g.play_checked(a).map_err(value_error)?;
                Ok(Self::wrap(g))
            }

            /// Plays decision `a` on this state (in place).
            fn push(&mut self, a: i64) -> PyResult<()> {
                let a = u16::try_from(a).map_err(|_| value_error(format!("action index {a} is out of range")))?;
                self.g.play_checked(a).map_err(value_error)
            }

            /// A new state after a whole turn in chain notation.
            fn apply_turn(&self, text: &str) -> PyResult<Self> {
                let mut g = self.g.clone();
                for a in Game::parse_turn(&self.g, text).map_err(value_error)? {
                    g.play_checked(a).map_err(value_error)?;
                }
                Ok(Self::wrap(g))
            }

            /// Plays a whole turn in chain notation on this state (in place).
            fn push_turn(&mut self, text: &str) -> PyResult<()> {
                let mut g = self.g.clone();
                for a in Game::parse_turn(&self.g, text).map_err(value_error)? {
                    g.play_checked(a).map_err(value_error)?;
                }
                self.g = g;
                Ok(())
            }

            /// Perft: leaf count after `depth` turns (`atomic=True`: after
            /// `depth` decisions; the same for Shako, where a turn is one decision).
            #[pyo3(signature = (depth, atomic=false))]
            fn perft(&self, py: Python<'_>, depth: u32, atomic: bool) -> u64 {
                let g = &self.g;
                py.detach(|| g.fast_perft(depth, !atomic))
            }

            /// The network input: `(planes, scalars)`, planes a float32 array
            /// of shape `(bit_planes, H, W)` (0 or 1, mover's frame, rank
            /// `r`, file `f` at `[p, r, f]`) and scalars a float32 array,
            /// exactly as the trainer decodes a data row.
            fn encode<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray3<f32>>, Bound<'py, PyArray1<f32>>) {
                let spec = game_spec::<$state>();
                let (h, w, p) = (spec.board_height as usize, spec.board_width as usize, spec.bit_planes as usize);
                let mut x = vec![0f32; spec.input_len()];
                let (planes, scalars) = encode_packed(&self.g);
                decode_into(&spec, &planes, &scalars, &mut x);
                x.truncate(p * h * w);
                let planes = Array::from_shape_vec((p, h, w), x).expect("shape").into_pyarray(py);
                (planes, scalars.into_pyarray(py))
            }

            /// The whole network input, shape `(bit_planes + scalars, H, W)`,
            /// scalars broadcast to constant planes (one row of the trainer's batch).
            fn encode_input<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f32>> {
                let spec = game_spec::<$state>();
                let mut x = vec![0f32; spec.input_len()];
                encode_dense_into(&spec, &self.g, &mut x);
                let shape = (spec.input_channels(), spec.board_height as usize, spec.board_width as usize);
                Array::from_shape_vec(shape, x).expect("shape").into_pyarray(py)
            }

            /// The packed encoding as stored in the data files:
            /// `(planes, scalars)`, planes uint64 words (`bit_planes ×
            /// ceil(H·W/64)`).
            fn encode_packed<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<f32>>) {
                let (planes, scalars) = encode_packed(&self.g);
                (planes.into_pyarray(py), scalars.into_pyarray(py))
            }

            /// Game name as in the data files (`paco`, `shako`).
            #[classattr]
            const GAME: &'static str = <$state as Game>::NAME;
            /// Policy slots.
            #[classattr]
            const NUM_ACTIONS: usize = <$state as Game>::NUM_ACTIONS;
            /// Network input shape `(bit_planes + scalars, H, W)`.
            #[classattr]
            fn input_shape() -> (usize, usize, usize) {
                let spec = game_spec::<$state>();
                (spec.input_channels(), spec.board_height as usize, spec.board_width as usize)
            }

            fn copy(&self) -> Self {
                Self::wrap(self.g.clone())
            }

            fn __copy__(&self) -> Self {
                self.copy()
            }

            fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
                self.copy()
            }

            /// Same position and history (what decides repetitions).
            fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                match other.cast::<$class>() {
                    Ok(o) => {
                        let o = o.borrow();
                        self.g.notation() == o.g.notation() && Game::hash(&self.g) == Game::hash(&o.g) && self.g.repetitions() == o.g.repetitions()
                    }
                    Err(_) => false,
                }
            }

            fn __repr__(&self) -> String {
                format!("{}.from_fen({:?})", $name, self.g.notation())
            }

            fn __str__(&self) -> String {
                self.g.notation()
            }
        }
    };
}

game_class!(
    Paco,
    "Paco",
    paco::GameState,
    "A Paco Ŝako game state (position and repetition history). A decision is one atomic action: lift, place or promote."
);
game_class!(Shako, "Shako", shako::GameState, "A Shako (10x10) game state (position and repetition history). A decision is one move.");
