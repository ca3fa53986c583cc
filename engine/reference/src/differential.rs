//! The fast engine (`pacozero-engine`) against this reference, state by
//! state: the FEN, the kind of action due, the status, the legal actions
//! (both the position's list and the `Game` trait's, which `pacozero legal`
//! and the Python package report), and, where asked, the playable actions,
//! every result of the turn and whether the mover can win this turn.
//!
//! Games are driven in lock step: one action, chosen by a seeded generator,
//! is played in both, then both are compared again.

use crate::board::Kind;
use crate::moves::Action;
use crate::state::{Rules, State, Status};
use crate::turn::RefGame;
use pacozero_engine::paco::{self as fast, action_to_string, FullMoveGen, FullMoveLimits, GameState, Position};
use pacozero_engine::prelude::*;
use std::collections::BTreeMap;

/// The engine's rule options as the reference's.
pub fn rules_of(r: fast::Rules) -> Rules {
    Rules { no_union_undo: r.no_union_undo, one_double_step_per_file: r.one_double_step_per_file, king_chain_draw: r.king_chain_draw }
}

/// Every combination of the optional rules, the official game first.
pub fn every_rule_option() -> Vec<fast::Rules> {
    (0..8u8).map(|m| fast::Rules { no_union_undo: m & 1 != 0, one_double_step_per_file: m & 2 != 0, king_chain_draw: m & 4 != 0 }).collect()
}

/// How much to compare at one state.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Depth {
    /// FEN, action due, status, legal actions (both lists).
    Actions,
    /// Also the playable actions, every distinct result of the turn in
    /// progress and whether the mover can win this turn.
    Turns,
}

/// What a run compared.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// States compared (every state of every game, mid-turn ones included).
    pub states: u64,
    /// States whose turns were compared too ([`Depth::Turns`]).
    pub turn_states: u64,
    /// Turn results compared.
    pub results: u64,
    /// States whose turns were not compared: the engine walked more than
    /// [`TURN_STATE_CAP`] states of the turn (many unions let chains permute).
    pub turns_skipped: u64,
    /// States by source (`random official`, `fischer-random`, …).
    pub by_source: BTreeMap<String, u64>,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.states += other.states;
        self.turn_states += other.turn_states;
        self.results += other.results;
        self.turns_skipped += other.turns_skipped;
        for (k, v) in &other.by_source {
            *self.by_source.entry(k.clone()).or_default() += v;
        }
    }
}

/// The turns of a state are compared only where the engine's walk of the
/// turn stays within this many states: among many unions the chains can
/// permute into millions of states, which the reference (whole states in
/// hash sets) would take minutes and gigabytes over.
pub const TURN_STATE_CAP: usize = 20_000;

/// The legal actions as the engine's `Game` trait lists them, by name.
pub type GameActions = fn(&GameState, &mut Vec<u16>);

/// The engine hooks compared; tests swap one for a faulty one to check that
/// the comparison catches it.
#[derive(Copy, Clone)]
pub struct Hooks {
    /// `GameRules::legal_actions`.
    pub legal: GameActions,
    /// `GameRules::playable_actions`.
    pub playable: GameActions,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks { legal: |g, out| g.legal_actions(out), playable: |g, out| g.playable_actions(out) }
    }
}

fn names(g: &GameState, actions: &[u16]) -> Vec<String> {
    actions.iter().map(|&a| g.action_name(a)).collect()
}

fn ref_names(actions: &[Action]) -> Vec<String> {
    actions.iter().map(|a| a.to_string()).collect()
}

/// What one result of a turn looks like from outside: its FEN, the action
/// due next and the status.
fn fast_result(p: &Position) -> String {
    format!("{} {} {}", p.fen(), p.required().name(), p.status())
}

fn ref_result(s: &State) -> String {
    format!("{} {} {}", s.fen(), s.required.name(), s.status)
}

/// Compares one state of both engines; the error says what differs.
pub fn compare(fast: &GameState, reference: &RefGame, depth: Depth, hooks: &Hooks, tally: &mut Tally) -> Result<(), String> {
    let pos = fast.position();
    let r = &reference.state;
    let fen = pos.fen();
    if fen != r.fen() {
        return Err(format!("FEN: engine {fen}, reference {}", r.fen()));
    }
    if pos.required().name() != r.required.name() {
        return Err(format!("in {fen}: action due: engine {}, reference {}", pos.required().name(), r.required.name()));
    }
    if fast.status().to_string() != reference.status().to_string() {
        return Err(format!("in {fen}: status: engine {}, reference {}", fast.status(), reference.status()));
    }
    let legal = r.legal_actions();
    let want = ref_names(&legal);
    let got: Vec<String> = pos.actions().iter().map(action_to_string).collect();
    if got != want {
        return Err(format!("in {fen}: legal actions: engine {got:?}, reference {want:?}"));
    }
    let mut buf = Vec::new();
    (hooks.legal)(fast, &mut buf);
    let mut got = names(fast, &buf);
    got.sort();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    if got != want_sorted {
        return Err(format!("in {fen}: GameRules::legal_actions: engine {got:?}, reference {want_sorted:?}"));
    }
    tally.states += 1;
    if depth == Depth::Actions {
        return Ok(());
    }
    // The turns: every result, the playable actions, a win this turn.
    let mut fast_results = Vec::new();
    let mut gen = FullMoveGen::with_limits(FullMoveLimits { max_states: TURN_STATE_CAP });
    if gen.for_each(pos, |p, _| fast_results.push(fast_result(p))).is_err() {
        tally.turns_skipped += 1;
        return Ok(());
    }
    (hooks.playable)(fast, &mut buf);
    let mut got = names(fast, &buf);
    got.sort();
    let mut want = ref_names(&r.playable_actions());
    want.sort();
    if got != want {
        return Err(format!("in {fen}: playable actions: engine {got:?}, reference {want:?}"));
    }
    let ref_results = r.turn_results();
    let mut want: Vec<String> = ref_results.iter().map(ref_result).collect();
    fast_results.sort();
    want.sort();
    if fast_results != want {
        let only_fast: Vec<&String> = fast_results.iter().filter(|x| !want.contains(x)).take(5).collect();
        let only_ref: Vec<&String> = want.iter().filter(|x| !fast_results.contains(x)).take(5).collect();
        return Err(format!(
            "in {fen}: turn results: engine {}, reference {}; only the engine's: {only_fast:?}; only the reference's: {only_ref:?}",
            fast_results.len(),
            want.len()
        ));
    }
    if r.rules == Rules::default() && r.status == Status::Running {
        let me = r.side;
        let wins = ref_results.iter().any(|s| s.status == Status::PacoVictory(me));
        if fast.can_win_this_turn() != wins {
            return Err(format!("in {fen}: can win this turn: engine {}, reference {wins}", fast.can_win_this_turn()));
        }
    }
    tally.turn_states += 1;
    tally.results += want.len() as u64;
    Ok(())
}

/// A small seeded generator (SplitMix64): every choice of a run follows from its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// How a playout chooses its actions.
#[derive(Copy, Clone, Debug)]
pub struct Playout {
    /// At most this many actions.
    pub max_actions: usize,
    /// Percent of the choices that go into unions and chains where one is
    /// legal (0: uniform over the legal actions).
    pub union_bias: u64,
    /// Percent of the choices taken among the playable actions only (the
    /// rest may walk into a dead end, which ends the playout there).
    pub avoid_dead_ends: u64,
    /// Compare the turns ([`Depth::Turns`]) at every n-th state (0: never).
    pub turns_every: u64,
}

/// Plays one seeded game from `start` in both engines, comparing every
/// state. Returns what was compared; the error names the start, the seed,
/// the actions played and what differs.
pub fn playout(start: &str, rules: fast::Rules, draw_after: u8, seed: u64, how: Playout, hooks: &Hooks) -> Result<Tally, String> {
    let mut rng = Rng::new(seed);
    let pos = Position::from_fen(start, rules).map_err(|e| format!("{start}: {e}"))?;
    let mut fast = GameState::new(pos).with_draw_after(draw_after);
    let state = State::from_fen(start, rules_of(rules)).map_err(|e| format!("reference: {start}: {e}"))?;
    let mut reference = RefGame::new(state, draw_after as usize);
    let mut tally = Tally::default();
    let mut played: Vec<String> = Vec::new();
    let fail = |played: &[String], e: String| format!("{e}\n  start {start} ({rules:?}, draw after {draw_after}), seed {seed}, after {:?}", played.join(" "));
    for step in 0..=how.max_actions {
        let depth = if how.turns_every > 0 && (step as u64).is_multiple_of(how.turns_every) { Depth::Turns } else { Depth::Actions };
        compare(&fast, &reference, depth, hooks, &mut tally).map_err(|e| fail(&played, e))?;
        if step == how.max_actions {
            break;
        }
        let legal = reference.state.legal_actions();
        if legal.is_empty() {
            break;
        }
        let mut choices = legal.clone();
        if rng.chance(how.avoid_dead_ends) {
            let mut playable = Vec::new();
            fast.playable_actions(&mut playable);
            let playable: Vec<String> = names(&fast, &playable);
            choices.retain(|a| playable.contains(&a.to_string()));
        }
        if rng.chance(how.union_bias) {
            let into_unions: Vec<Action> = choices.iter().copied().filter(|a| matches!(a, Action::Place(t) if !reference.state.board.is_empty(*t))).collect();
            if !into_unions.is_empty() {
                choices = into_unions;
            }
        }
        if choices.is_empty() {
            choices = legal;
        }
        let a = choices[rng.below(choices.len())];
        let name = a.to_string();
        let fa: fast::Action = name.parse().map_err(|e| fail(&played, format!("engine cannot read {name}: {e:?}")))?;
        fast.play(fa).map_err(|e| fail(&played, format!("engine refuses {name}: {e}")))?;
        reference.play(a).map_err(|e| fail(&played, e))?;
        played.push(name);
    }
    Ok(tally)
}

/// The play fuzz target's game, in both engines: the first byte picks the
/// start (under 200: the standard start; else a Fischer-random setup), each
/// further byte an action (its index, or if that is not legal, the legal
/// action at its value modulo their number), as `paco::invariants::play` does.
/// Every state is compared; the turns at every `turns_every`-th state
/// (0: never) while at most `turn_unions` unions stand (chains among many
/// unions can take the reference seconds).
pub fn play_bytes(data: &[u8], turns_every: usize, turn_unions: usize) -> Result<Tally, String> {
    let Some((&first, rest)) = data.split_first() else { return Ok(Tally::default()) };
    let start = if first < 200 { Position::startpos() } else { fast::fischer_random(first as u16 * 17 % 960, fast::Rules::OFFICIAL) };
    let start_fen = start.fen();
    let mut fast = GameState::new(start);
    let mut reference = RefGame::new(State::from_fen(&start_fen, Rules::default())?, fast::DEFAULT_DRAW_AFTER_REPETITIONS as usize);
    let hooks = Hooks::default();
    let mut tally = Tally::default();
    let mut played: Vec<String> = Vec::new();
    let fail = |played: &[String], e: String| format!("{e}\n  start {start_fen}, after {:?}", played.join(" "));
    for i in 0..=rest.len() {
        let unions = fast.position().unions().len() as usize;
        let depth = if turns_every > 0 && i.is_multiple_of(turns_every) && unions <= turn_unions { Depth::Turns } else { Depth::Actions };
        compare(&fast, &reference, depth, &hooks, &mut tally).map_err(|e| fail(&played, e))?;
        if i == rest.len() {
            break;
        }
        let legal = reference.state.legal_actions();
        if legal.is_empty() {
            break;
        }
        let b = rest[i];
        let wanted = action_of_byte(b);
        let a = if legal.contains(&wanted) { wanted } else { legal[b as usize % legal.len()] };
        let name = a.to_string();
        fast.play(name.parse().expect("an action name")).map_err(|e| fail(&played, format!("engine refuses {name}: {e}")))?;
        reference.play(a).map_err(|e| fail(&played, e))?;
        played.push(name);
    }
    Ok(tally)
}

/// The action a fuzz byte names (the policy layout: 64 lifts, 64 places, 4 promotions).
fn action_of_byte(b: u8) -> Action {
    let square = |i: u8| crate::board::Square::all().nth(i as usize).expect("a square");
    match b % 132 {
        i @ 0..=63 => Action::Lift(square(i)),
        i @ 64..=127 => Action::Place(square(i - 64)),
        i => Action::Promote(Kind::PROMOTIONS[(i - 128) as usize]),
    }
}
