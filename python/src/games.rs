//! `pacozero._native.State`: a game state of any game of the engine's
//! registry ([`GameKind`]), over its [`Game`] implementation. Nothing here
//! names a game: the Python package makes one subclass of `State` per name
//! in `games()` (`pacozero.Paco`, `pacozero.Shako`, ..., the name
//! capitalised), whose class attribute `GAME` says which game its
//! constructors make. A game added to the registry appears in Python with
//! no change here.
//!
//! The state is an [`AnyState`], the engine's enum of the registered
//! games' states, and every method runs the game's own code through
//! [`with_state!`](pacozero_engine::with_state): the same dispatch as the
//! rest of the pipeline, with no second copy of the game traits.
//!
//! `apply(a)` returns a new state and leaves this one as it was (search
//! trees, replays and data pipelines keep every state they saw); `push(a)`
//! changes this state in place, for loops that only go forward. Both take
//! decisions through the engine's check ([`Notation::try_apply`]).

use std::cell::Cell;

use numpy::ndarray::Array;
use numpy::{IntoPyArray, PyArray1, PyArray3};
use pacozero_data::{decode_into, game_spec, game_spec_as, spec_of, GameSpec};
use pacozero_engine::prelude::*;
use pacozero_engine::{encoding_index, with_state, AnyState, GameKind, Outcome, DEFAULT_ENCODING};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};

/// A ValueError carrying the engine's message.
pub fn value_error(msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(msg.to_string())
}

/// The notation of `actions` played from `g`, after checking that they
/// are legal and stay within one turn.
fn turn_name<G: Game>(g: &G, actions: &[u16]) -> Result<String, String> {
    let mover = g.to_move();
    let mut after = g.clone();
    for (i, &a) in actions.iter().enumerate() {
        if i > 0 && (after.outcome().is_some() || after.to_move() != mover) {
            return Err(format!("decision {} ({a}) comes after the turn has ended", i + 1));
        }
        after.try_apply(a).map_err(|e| format!("decision {} ({a}): {e}", i + 1))?;
    }
    Ok(g.turn_notation(actions))
}

/// Every legal turn from `g` with its notation (none once the game is over).
fn named_turns<G: Game>(g: &G) -> Vec<(String, Vec<u16>)> {
    if g.outcome().is_some() {
        return Vec::new();
    }
    g.legal_turns().into_iter().map(|t| (g.turn_notation(&t), t)).collect()
}

/// The data spec of `G`'s input encoding `encoding` (a name of
/// `Encode::ENCODINGS`); the error names the game's encodings.
pub fn spec_as<G: Game>(_: &G, encoding: &str) -> Result<GameSpec, String> {
    Ok(game_spec_as::<G>(encoding_index::<G>(encoding)?))
}

/// The packed encoding of `g` in input encoding `encoding`: `(planes
/// words, scalars)`.
fn encode_packed_as<G: Game>(g: &G, encoding: &str) -> Result<(Vec<u64>, Vec<f32>), String> {
    let e = encoding_index::<G>(encoding)?;
    let spec = game_spec_as::<G>(e);
    let mut planes = vec![0u64; spec.plane_words()];
    let mut scalars = vec![0f32; spec.scalars as usize];
    g.encode_as(e, &mut planes, &mut scalars);
    Ok((planes, scalars))
}

/// The policy size of `g`'s game.
fn num_actions<G: Game>(_: &G) -> usize {
    G::NUM_ACTIONS
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
/// in the encoding of `spec`, decoded by the data crate's decoder (as the
/// trainer and the workers do).
pub fn encode_dense_into(spec: &GameSpec, st: &AnyState, out: &mut [f32]) -> Result<(), String> {
    let (planes, scalars) = with_state!(st, g => encode_packed_as(g, &spec.encoding))?;
    decode_into(spec, &planes, &scalars, out);
    Ok(())
}

pub fn outcome_name(o: Option<Outcome>) -> Option<&'static str> {
    o.map(|o| match o {
        Outcome::Win(c) => c.name(),
        Outcome::Draw => "draw",
    })
}

/// How a new state is made, for [`new_state`].
enum Make<'a> {
    Start,
    RandomStart(u64),
    FischerRandom(u64, &'a [&'a str]),
    Notation(&'a str, &'a [&'a str]),
}

/// A new state of game `G`, made as `how` says.
fn new_state<G: Game>(how: Make<'_>) -> Result<AnyState, String>
where
    AnyState: From<G>,
{
    Ok(AnyState::from(match how {
        Make::Start => G::start(),
        Make::RandomStart(n) => G::random_start(n),
        Make::FischerRandom(n, rules) => G::fischer_random(n, rules)?,
        Make::Notation(s, rules) => G::from_notation_with_rules(s, rules).map_err(|e| e.message)?,
    }))
}

/// The Python class names of the registered games.
fn class_names() -> String {
    GameKind::ALL.iter().map(|k| capitalised(k.name())).collect::<Vec<_>>().join(", ")
}

fn capitalised(name: &str) -> String {
    let mut c = name.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// The game a class makes: its `GAME` attribute.
fn kind_of(cls: &Bound<'_, PyType>) -> PyResult<GameKind> {
    let no_game = || {
        value_error(format!(
            "{} names no game (class attribute GAME): use a game's class ({})",
            cls.name().map(|n| n.to_string()).unwrap_or_default(),
            class_names()
        ))
    };
    let name: String = cls.getattr("GAME").map_err(|_| no_game())?.extract().map_err(|_| no_game())?;
    name.parse().map_err(value_error)
}

/// The optional rules turned on by keyword arguments (`name=True`); the
/// game refuses a name it does not have ([`Notation::from_notation_with_rules`]).
fn rules_on(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<String>> {
    let mut on = Vec::new();
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            if v.is_truthy()? {
                on.push(k.extract::<String>()?);
            }
        }
    }
    Ok(on)
}

fn action_arg(a: i64) -> PyResult<u16> {
    u16::try_from(a).map_err(|_| value_error(format!("action index {a} is out of range")))
}

thread_local! {
    /// The state that the next `State.__new__` on this thread takes instead
    /// of making a start position: how Rust makes an instance of a Python
    /// subclass holding a given state ([`instance`]).
    static ADOPT: Cell<Option<AnyState>> = const { Cell::new(None) };
}

/// A new instance of `cls` (`State` or a subclass) holding `st`: the
/// class is called with `ADOPT` set, and its `__new__` takes the state.
/// The game classes leave `__new__` to `State`.
fn instance<'py>(cls: &Bound<'py, PyType>, st: AnyState) -> PyResult<Bound<'py, PyAny>> {
    ADOPT.with(|c| c.set(Some(st)));
    let r = cls.call0();
    drop(ADOPT.with(|c| c.take()));
    r
}

/// A game state (position and repetition history) of one of the engine's
/// games. Not made directly: `pacozero` makes one subclass per game
/// (`pacozero.Paco`, ...), whose `GAME` names the game. A decision is one
/// policy index in the mover's frame.
#[pyclass(module = "pacozero._native", name = "State", subclass)]
pub struct State {
    pub st: AnyState,
}

impl State {
    fn with<'py>(cls: &Bound<'py, PyType>, make: Make<'_>) -> PyResult<Bound<'py, PyAny>> {
        let kind = kind_of(cls)?;
        let st = pacozero_engine::with_game!(kind, G => new_state::<G>(make)).map_err(value_error)?;
        instance(cls, st)
    }

    fn played<'py>(slf: &Bound<'py, Self>, actions: impl IntoIterator<Item = u16>) -> PyResult<Bound<'py, PyAny>> {
        let mut st = slf.borrow().st.clone();
        for a in actions {
            with_state!(&mut st, g => g.try_apply(a)).map_err(value_error)?;
        }
        instance(&slf.get_type(), st)
    }
}

#[pymethods]
impl State {
    /// The standard start position of the class's game.
    #[new]
    #[classmethod]
    fn new(cls: &Bound<'_, PyType>) -> PyResult<Self> {
        if let Some(st) = ADOPT.with(|c| c.take()) {
            return Ok(State { st });
        }
        let kind = kind_of(cls)?;
        let st = pacozero_engine::with_game!(kind, G => new_state::<G>(Make::Start)).map_err(value_error)?;
        Ok(State { st })
    }

    /// The standard start position.
    #[classmethod]
    fn start<'py>(cls: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
        Self::with(cls, Make::Start)
    }

    /// Randomised start `n`, as self-play's `start_positions =
    /// "fischer_random"` draws it (Paco Ŝako: Fischer-random setup
    /// `n % 960`; Shako: 2, 4 or 6 random plies from the start).
    #[classmethod]
    fn random_start<'py>(cls: &Bound<'py, PyType>, n: u64) -> PyResult<Bound<'py, PyAny>> {
        Self::with(cls, Make::RandomStart(n))
    }

    /// Fischer-random setup `n` for games that number such setups (Paco
    /// Ŝako: 0..960, Scharnagl numbering, 518 the standard start), with the
    /// optional rules given as keywords (`no_union_undo=True`, see
    /// `RULE_OPTIONS`); ValueError for a game without them.
    #[classmethod]
    #[pyo3(signature = (n, **rules))]
    fn fischer_random<'py>(cls: &Bound<'py, PyType>, n: i64, rules: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyAny>> {
        let n = u64::try_from(n).map_err(|_| value_error(format!("Fischer-random setups are numbered from 0, got {n}")))?;
        let rules = rules_on(rules)?;
        let rules: Vec<&str> = rules.iter().map(String::as_str).collect();
        Self::with(cls, Make::FischerRandom(n, &rules))
    }

    /// A position in the game's notation (Paco Ŝako: the platform's
    /// extended X-FEN; Shako: FEN), with the optional rules given as
    /// keywords (`no_union_undo=True`, see `RULE_OPTIONS`). Raises
    /// ValueError with the engine's message for a bad one.
    #[classmethod]
    #[pyo3(signature = (fen, **rules))]
    fn from_fen<'py>(cls: &Bound<'py, PyType>, fen: &str, rules: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyAny>> {
        let rules = rules_on(rules)?;
        let rules: Vec<&str> = rules.iter().map(String::as_str).collect();
        Self::with(cls, Make::Notation(fen, &rules))
    }

    /// The position in the game's notation.
    fn fen(&self) -> String {
        with_state!(&self.st, g => g.notation())
    }

    /// `"white"` or `"black"`: who takes the next decision.
    #[getter]
    fn to_move(&self) -> &'static str {
        with_state!(&self.st, g => g.to_move()).name()
    }

    /// `None` while the game runs, else `"white"`, `"black"` (the
    /// winner) or `"draw"`.
    fn outcome(&self) -> Option<&'static str> {
        outcome_name(with_state!(&self.st, g => g.outcome()))
    }

    /// `"running"`, or why the game ended, as in the games table's
    /// `reason` column (Paco Ŝako: `paco`, `repetition`, `no_progress`;
    /// Shako: `checkmate`, `stalemate`, `repetition`, `fifty_moves`).
    #[getter]
    fn status(&self) -> &'static str {
        with_state!(&self.st, g => g.end_reason())
    }

    /// Zobrist hash of the position (64 bits).
    #[getter]
    fn hash(&self) -> u64 {
        with_state!(&self.st, g => g.hash())
    }

    /// Every decision the rules allow, as policy indices (mover's frame),
    /// ascending: for Paco Ŝako the platform's list, which also has the
    /// actions that can only lead into a dead-end chain (`pacozero legal`
    /// gives the same list). With `include_dead_ends=False`, the playable
    /// decisions instead (the same as `playable_actions()`).
    #[pyo3(signature = (include_dead_ends=true))]
    fn legal_actions(&self, include_dead_ends: bool) -> Vec<u16> {
        let mut v = Vec::new();
        if include_dead_ends {
            with_state!(&self.st, g => g.legal_actions(&mut v));
        } else {
            with_state!(&self.st, g => g.playable_actions(&mut v));
        }
        v
    }

    /// The legal decisions after which the turn can still be completed,
    /// ascending: what search and the network's players choose from (no
    /// dead-end chains).
    fn playable_actions(&self) -> Vec<u16> {
        let mut v = Vec::new();
        with_state!(&self.st, g => g.playable_actions(&mut v));
        v
    }

    /// The name of a decision here (`Le2`, `Pe4`, `=Q`; Shako: `e3e5`).
    fn action_name(&self, a: i64) -> PyResult<String> {
        let a = action_arg(a)?;
        let n = with_state!(&self.st, g => num_actions(g));
        if a as usize >= n {
            return Err(value_error(format!("action index {a} is out of range 0..{n}")));
        }
        Ok(with_state!(&self.st, g => g.action_name(a)))
    }

    /// The policy index of a decision given by its name (`Le2`; Shako: a
    /// UCI move); whether it is legal here is checked when it is taken.
    fn parse_action(&self, name: &str) -> PyResult<u16> {
        with_state!(&self.st, g => g.read_action(name)).map_err(value_error)
    }

    /// The decisions (policy indices) of a whole turn in chain notation
    /// (`e2-e4`, `Bf3xe4>c3>c6`, `0-0`, `=Q Nb1-c3`; Shako: a UCI move).
    /// Raises ValueError if it is not a legal turn here.
    fn parse_turn(&self, text: &str) -> PyResult<Vec<u16>> {
        with_state!(&self.st, g => g.parse_turn(text)).map_err(value_error)
    }

    /// The chain notation of a turn given as decisions from this state.
    fn turn_name(&self, actions: Vec<u16>) -> PyResult<String> {
        with_state!(&self.st, g => turn_name(g, &actions)).map_err(value_error)
    }

    /// Every legal turn as `(name, [actions])`, names in chain notation
    /// (Shako: UCI moves).
    fn legal_turns(&self, py: Python<'_>) -> Vec<(String, Vec<u16>)> {
        let st = &self.st;
        py.detach(|| with_state!(st, g => named_turns(g)))
    }

    /// A new state after decision `a`; this one is left as it was.
    /// Raises ValueError (the engine's message) for an illegal action.
    fn apply<'py>(slf: &Bound<'py, Self>, a: i64) -> PyResult<Bound<'py, PyAny>> {
        Self::played(slf, [action_arg(a)?])
    }

    /// Plays decision `a` on this state (in place).
    fn push(&mut self, a: i64) -> PyResult<()> {
        let a = action_arg(a)?;
        with_state!(&mut self.st, g => g.try_apply(a)).map_err(value_error)
    }

    /// A new state after a whole turn in chain notation.
    fn apply_turn<'py>(slf: &Bound<'py, Self>, text: &str) -> PyResult<Bound<'py, PyAny>> {
        let turn = with_state!(&slf.borrow().st, g => g.parse_turn(text)).map_err(value_error)?;
        Self::played(slf, turn)
    }

    /// Plays a whole turn in chain notation on this state (in place); a
    /// refused turn changes nothing.
    fn push_turn(&mut self, text: &str) -> PyResult<()> {
        let mut st = self.st.clone();
        for a in with_state!(&self.st, g => g.parse_turn(text)).map_err(value_error)? {
            with_state!(&mut st, g => g.try_apply(a)).map_err(value_error)?;
        }
        self.st = st;
        Ok(())
    }

    /// Perft: leaf count after `depth` turns (`atomic=True`: after `depth`
    /// decisions; the same for games whose turn is one decision).
    #[pyo3(signature = (depth, atomic=false))]
    fn perft(&self, py: Python<'_>, depth: u32, atomic: bool) -> u64 {
        let st = &self.st;
        py.detach(|| with_state!(st, g => g.fast_perft(depth, !atomic)))
    }

    /// The network input: `(planes, scalars)`, planes a float32 array of
    /// shape `(bit_planes, H, W)` (0 or 1, mover's frame, rank `r`, file
    /// `f` at `[p, r, f]`) and scalars a float32 array, exactly as the
    /// trainer decodes a data row. `encoding`: one of the game's input
    /// encodings (`"pacozero"`, or for Paco Ŝako `"platform"`).
    #[pyo3(signature = (encoding=DEFAULT_ENCODING))]
    #[allow(clippy::type_complexity)] // pyo3's bound arrays, written out once
    fn encode<'py>(&self, py: Python<'py>, encoding: &str) -> PyResult<(Bound<'py, PyArray3<f32>>, Bound<'py, PyArray1<f32>>)> {
        let spec = with_state!(&self.st, g => spec_as(g, encoding)).map_err(value_error)?;
        let (h, w, p) = (spec.board_height as usize, spec.board_width as usize, spec.bit_planes as usize);
        let mut x = vec![0f32; spec.input_len()];
        let (planes, scalars) = with_state!(&self.st, g => encode_packed_as(g, encoding)).map_err(value_error)?;
        decode_into(&spec, &planes, &scalars, &mut x);
        x.truncate(p * h * w);
        let planes = Array::from_shape_vec((p, h, w), x).expect("shape").into_pyarray(py);
        Ok((planes, scalars.into_pyarray(py)))
    }

    /// The whole network input, shape `(bit_planes + scalars, H, W)`,
    /// scalars broadcast to constant planes (one row of the trainer's
    /// batch), in input encoding `encoding` (see `encode`).
    #[pyo3(signature = (encoding=DEFAULT_ENCODING))]
    fn encode_input<'py>(&self, py: Python<'py>, encoding: &str) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let spec = with_state!(&self.st, g => spec_as(g, encoding)).map_err(value_error)?;
        let mut x = vec![0f32; spec.input_len()];
        encode_dense_into(&spec, &self.st, &mut x).map_err(value_error)?;
        let shape = (spec.input_channels(), spec.board_height as usize, spec.board_width as usize);
        Ok(Array::from_shape_vec(shape, x).expect("shape").into_pyarray(py))
    }

    /// The packed encoding as stored in the data files: `(planes,
    /// scalars)`, planes uint64 words (`bit_planes × ceil(H·W/64)`).
    fn encode_packed<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<f32>>) {
        let (planes, scalars) = with_state!(&self.st, g => encode_packed(g));
        (planes.into_pyarray(py), scalars.into_pyarray(py))
    }

    fn copy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::played(slf, [])
    }

    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::played(slf, [])
    }

    fn __deepcopy__<'py>(slf: &Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Self::played(slf, [])
    }

    /// Same game, position and history (what decides repetitions).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<State>() {
            Ok(o) => {
                let o = &o.borrow().st;
                let s = &self.st;
                let key = |st: &AnyState| with_state!(st, g => (g.notation(), g.hash(), g.repetitions()));
                s.kind() == o.kind() && key(s) == key(o)
            }
            Err(_) => false,
        }
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("{}.from_fen({:?})", slf.get_type().name()?, with_state!(&slf.borrow().st, g => g.notation())))
    }

    fn __str__(&self) -> String {
        with_state!(&self.st, g => g.notation())
    }
}

/// The names of the engine's games (`GameKind::ALL`), the default first.
#[pyfunction]
pub fn games() -> Vec<&'static str> {
    GameKind::ALL.iter().map(|k| k.name()).collect()
}

/// The game of files and commands that do not say (`GameKind::default()`).
#[pyfunction]
pub fn default_game() -> &'static str {
    GameKind::default().name()
}

/// What the Python class of game `name` states as class attributes:
/// `num_actions` (policy slots), `input_shape` (`(bit_planes + scalars, H,
/// W)`), `bit_planes`, `scalars`, `board` (`(H, W)`) and `rule_options`.
#[pyfunction]
pub fn game_info<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let kind: GameKind = name.parse().map_err(value_error)?;
    let spec = spec_of(kind);
    let (h, w) = (spec.board_height as usize, spec.board_width as usize);
    let d = PyDict::new(py);
    d.set_item("name", kind.name())?;
    d.set_item("num_actions", spec.policy_size as usize)?;
    d.set_item("input_shape", (spec.input_channels(), h, w))?;
    d.set_item("bit_planes", spec.bit_planes as usize)?;
    d.set_item("scalars", spec.scalars as usize)?;
    d.set_item("board", (h, w))?;
    d.set_item("rule_options", pacozero_engine::with_game!(kind, G => G::RULE_OPTIONS).to_vec())?;
    Ok(d)
}
