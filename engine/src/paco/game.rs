//! A game in progress: a position plus the repetition history, which decides
//! threefold-repetition draws; perft at both levels; and the [`Game`]
//! implementation search, self-play and tools use (every per-game hook of
//! Paco Ŝako is here).

use super::fullmove::FullMoveGen;
use super::{Action, IllegalAction, Position, Required, Status, Transition};
use crate::game::{ensure_running, parse_decision_names, BadNotation, Encode, Encoding, Fact, GameRules, Notation, Outcome, Tools};
use crate::types::Color;

/// Number of occurrences of a settled position that draws the game (the platform's default).
pub const DEFAULT_DRAW_AFTER_REPETITIONS: u8 = 3;

/// A position with the history needed for repetition draws.
#[derive(Clone, Debug)]
pub struct GameState {
    pos: Position,
    /// Keys of the positions recorded since the last progress (new union or promotion).
    history: Vec<u64>,
    draw_after: u8,
}

impl GameState {
    pub fn new(pos: Position) -> Self {
        GameState { pos, history: Vec::new(), draw_after: DEFAULT_DRAW_AFTER_REPETITIONS }
    }

    /// `n` occurrences draw; 0 switches repetition draws off.
    pub fn with_draw_after(mut self, n: u8) -> Self {
        self.draw_after = n;
        self
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn status(&self) -> Status {
        self.pos.status()
    }

    /// Keys of the positions recorded since the last progress.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// How often the current settled position occurred before (0 if new).
    pub fn repetitions(&self) -> usize {
        if !self.pos.is_settled() {
            return 0;
        }
        self.history.iter().filter(|&&h| h == self.pos.hash()).count().saturating_sub(1)
    }

    /// Plays a legal action (checked).
    pub fn play(&mut self, a: Action) -> Result<Transition, IllegalAction> {
        let t = self.pos.play(a)?;
        self.after(t);
        Ok(t)
    }

    /// Plays an action known to be legal.
    pub fn play_unchecked(&mut self, a: Action) -> Transition {
        let t = self.pos.play_unchecked(a);
        self.after(t);
        t
    }

    fn after(&mut self, t: Transition) {
        if t != Transition::Recorded {
            return;
        }
        // Progress (a new union or a promotion) resets the counter to 0 during the
        // turn; positions before progress can never come back.
        if self.pos.no_progress_half_moves() == 0 {
            self.history.clear();
        }
        if self.pos.status() != Status::Running || self.draw_after == 0 {
            return;
        }
        let key = self.pos.hash();
        let seen = self.history.iter().filter(|&&h| h == key).count();
        self.history.push(key);
        if seen + 1 >= self.draw_after as usize {
            self.pos.set_status(Status::RepetitionDraw);
        }
    }

    /// Every distinct full move with its trace, each result's status including
    /// repetition draws against this game's history. Each result is its
    /// trace played through [`GameState::play_unchecked`], so its history
    /// is the one a game playing those actions keeps (a promotion that
    /// opens the turn records the position before the lift, too).
    pub fn full_moves(&self, gen: &mut FullMoveGen) -> Vec<(GameState, Vec<Action>)> {
        let mut out = Vec::new();
        let _ = gen.for_each(&self.pos, |_, trace| {
            let mut g = self.clone();
            for &a in trace {
                g.play_unchecked(a);
            }
            out.push((g, trace.to_vec()));
        });
        out
    }

    /// Full-move perft: leaves after `depth` complete turns (distinct results per node).
    pub fn perft_full(&self, depth: u32) -> u64 {
        let mut gens: Vec<FullMoveGen> = (0..depth.max(1)).map(|_| FullMoveGen::new()).collect();
        let mut hist = self.history.clone();
        perft_full_rec(&self.pos, &mut hist, 0, self.draw_after, depth, &mut gens)
    }

    /// Atomic perft: number of action sequences of length `depth`. Exact
    /// without history for depth < 16 (a threefold repetition needs at least
    /// eight full moves of two actions each); positions from FENs have no history.
    pub fn perft_atomic(&self, depth: u32) -> u64 {
        perft_atomic(&self.pos, depth)
    }
}

fn perft_full_rec(pos: &Position, hist: &mut Vec<u64>, since: usize, draw_after: u8, depth: u32, gens: &mut [FullMoveGen]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (gen, rest) = gens.split_first_mut().expect("one generator per ply");
    if depth == 1 {
        return gen.count(pos);
    }
    // The generator keeps its children buffer between calls: perft visits
    // millions of nodes, most with a few dozen children.
    let mut children = std::mem::take(&mut gen.children);
    children.clear();
    // A promotion that opens the turn is progress, and the position it
    // leaves (the mover to lift) is recorded, as `GameState::play` records
    // it: its key goes before the result's.
    let opens_with_promotion = pos.required() == Required::PromoteThenLift;
    gen.for_each(pos, |p, trace| {
        let promoted = opens_with_promotion.then(|| {
            let mut q = *pos;
            q.play_unchecked(trace[0]);
            // A promotion neither wins nor repeats: it is progress.
            debug_assert_eq!(q.status(), Status::Running);
            q.hash()
        });
        children.push((*p, promoted));
    })
    .expect("full-move enumeration within limits");
    let mut total = 0;
    for &(child, promoted) in &children {
        let mut child = child;
        let mark = hist.len();
        let mut since2 = since;
        if let Some(key) = promoted {
            since2 = mark;
            // (Kept with repetition draws off too: the history is then never read.)
            hist.push(key);
        }
        if child.no_progress_half_moves() == 0 {
            since2 = hist.len();
        }
        if child.required() == Required::Lift && child.status() == Status::Running && draw_after > 0 {
            let key = child.hash();
            let seen = hist[since2..].iter().filter(|&&h| h == key).count();
            hist.push(key);
            if seen + 1 >= draw_after as usize {
                child.set_status(Status::RepetitionDraw);
            }
        }
        if !child.status().is_over() {
            total += perft_full_rec(&child, hist, since2, draw_after, depth - 1, rest);
        }
        hist.truncate(mark);
    }
    gen.children = children;
    total
}

/// Atomic perft from a position (see [`GameState::perft_atomic`]).
pub fn perft_atomic(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let set = pos.actions();
    if depth == 1 {
        return set.len() as u64;
    }
    let mut total = 0;
    for a in set {
        let mut child = *pos;
        child.play_unchecked(a);
        total += perft_atomic(&child, depth - 1);
    }
    total
}

impl GameRules for GameState {
    const NAME: &'static str = "paco";

    const NUM_ACTIONS: usize = super::NUM_ACTIONS;

    const BOARD_HEIGHT: usize = 8;

    const BOARD_WIDTH: usize = 8;

    fn to_move(&self) -> Color {
        self.position().side_to_move()
    }

    fn outcome(&self) -> Option<Outcome> {
        use super::Status;
        match self.status() {
            Status::Running => None,
            Status::PacoVictory(c) => Some(Outcome::Win(c)),
            Status::RepetitionDraw | Status::NoProgressDraw | Status::KingChainDraw => Some(Outcome::Draw),
        }
    }

    fn playable_actions(&self, out: &mut Vec<u16>) {
        out.clear();
        let pos = self.position();
        let mover = pos.side_to_move();
        SCRATCH.with(|g| {
            let set = g.borrow_mut().completable_actions(pos);
            out.extend(set.iter().map(|a| super::action_index(a, mover) as u16));
        });
        out.sort_unstable();
    }

    fn legal_actions(&self, out: &mut Vec<u16>) {
        out.clear();
        if self.outcome().is_some() {
            return;
        }
        let mover = self.position().side_to_move();
        out.extend(self.position().actions().iter().map(|a| super::action_index(a, mover) as u16));
        out.sort_unstable();
    }

    fn apply(&mut self, action: u16) {
        let mover = self.position().side_to_move();
        let a = super::action_from_index(action as usize, mover).expect("action index in range");
        self.play_unchecked(a);
    }

    fn hash(&self) -> u64 {
        self.position().hash()
    }

    fn repeats_earlier_position(&self) -> bool {
        self.repetitions() >= 1
    }

    fn repetitions(&self) -> usize {
        GameState::repetitions(self)
    }

    /// Exact under the official rules. With the optional vchess king-chain
    /// rule a threat may end in a draw instead, so nothing is claimed there.
    fn can_win_this_turn(&self) -> bool {
        let pos = self.position();
        self.status() == super::Status::Running && !pos.rules().king_chain_draw && super::can_unite_with_king(pos)
    }

    fn start() -> Self {
        GameState::new(super::Position::startpos())
    }

    fn random_start(n: u64) -> Self {
        GameState::new(super::fischer_random((n % 960) as u16, super::Rules::OFFICIAL))
    }

    fn end_reason(&self) -> &'static str {
        match self.status() {
            Status::Running => "running",
            Status::PacoVictory(_) => "paco",
            Status::RepetitionDraw => "repetition",
            Status::NoProgressDraw => "no_progress",
            // The optional rules' draw: a king chain ending on the other king.
            Status::KingChainDraw => "draw",
        }
    }

    fn without_history(&self) -> Self {
        GameState::new(*self.position())
    }

    /// Nothing in hand: a lift, or a pending promotion that opens the turn
    /// (`PromoteThenLift`, a pawn the opponent carried home) or is all that is
    /// left of it (`PromoteThenFinish`, a pawn that ended its owner's move on
    /// the last rank). These are the positions a FEN without `^` writes, so
    /// the platform's book keys; from a `PromoteThenFinish` position the
    /// turn is the promotion alone (`=Q`).
    fn is_turn_start(&self) -> bool {
        matches!(self.position().required(), Required::Lift | Required::PromoteThenLift | Required::PromoteThenFinish)
    }

    /// One turn per distinct result (the full-move generator's), dead-end
    /// chains left out.
    fn legal_turns(&self) -> Vec<Vec<u16>> {
        let mover = self.position().side_to_move();
        let mut turns = Vec::new();
        SCRATCH.with(|g| {
            let _ = g.borrow_mut().for_each(self.position(), |_, trace| turns.push(trace.iter().map(|&a| super::action_index(a, mover) as u16).collect()));
        });
        turns
    }
}

impl Encode for GameState {
    /// `mover_in_sako`: the opponent could unite with the mover's king on
    /// its next turn (the mover is in Ŝako); `mover_can_paco`: the mover can
    /// unite with the opponent's king this turn.
    const AUX_TARGETS: &'static [&'static str] = &["mover_in_sako", "mover_can_paco"];

    const NUM_BIT_PLANES: usize = super::NUM_BIT_PLANES;

    const NUM_SCALARS: usize = super::NUM_SCALARS;

    /// `pacozero` ([`Encode::encode`]) and `platform`, the platform's own input.
    const ENCODINGS: &'static [Encoding] = &[super::ENCODING, super::PLATFORM_ENCODING];

    const ACTION_LAYOUT: &'static str = super::ACTION_LAYOUT;

    /// Lifts and places on their squares, promotions whole
    /// (`paco::action`'s `policy_planes`).
    fn policy_planes() -> Option<crate::game::PolicyPlanes> {
        Some(super::action::policy_planes())
    }

    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]) {
        self.position().encode(self.repetitions(), planes, scalars);
    }

    fn encode_as(&self, encoding: usize, planes: &mut [u64], scalars: &mut [f32]) {
        match encoding {
            0 => self.encode(planes, scalars),
            1 => self.position().encode_platform(planes, scalars),
            _ => panic!("Paco Ŝako has no input encoding {encoding}"),
        }
    }

    fn mirror_planes(planes: &mut [u64]) -> bool {
        super::mirror_encoded_planes(planes)
    }

    fn mirror_planes_as(encoding: usize, planes: &mut [u64]) -> bool {
        match encoding {
            0 => super::mirror_encoded_planes(planes),
            1 => super::mirror_platform_planes(planes),
            _ => false,
        }
    }

    fn mirror_action_index(a: usize) -> usize {
        super::mirror_action_index(a)
    }

    fn aux_targets(&self, out: &mut Vec<bool>) -> bool {
        out.clear();
        let pos = self.position();
        if !pos.is_settled() {
            return false;
        }
        let me = pos.side_to_move();
        out.extend([super::in_sako(pos, me), super::in_sako(pos, me.other())]);
        true
    }
}

impl Notation for GameState {
    /// The platform's check ([`GameState::play`]), so a decision into a
    /// dead-end chain is taken too.
    fn try_apply(&mut self, action: u16) -> Result<(), String> {
        ensure_running(self)?;
        let mover = self.position().side_to_move();
        let a = super::action_from_index(action as usize, mover).ok_or_else(|| format!("action index {action} is out of range 0..{}", super::NUM_ACTIONS))?;
        self.play(a).map(|_| ()).map_err(|e| format!("{e} in {}", self.position().fen()))
    }

    fn action_name(&self, action: u16) -> String {
        super::action_from_index(action as usize, self.position().side_to_move()).map_or_else(|| format!("#{action}"), |a| a.to_string())
    }

    fn notation(&self) -> String {
        self.position().fen()
    }

    fn from_notation(s: &str) -> Result<Self, BadNotation> {
        s.trim().parse::<super::Position>().map(super::GameState::new).map_err(|e| BadNotation::new(s, e))
    }

    fn notation_is_complete(&self) -> bool {
        let pos = self.position();
        !pos.required().is_promote() && pos.rules() == super::Rules::OFFICIAL
    }

    fn parse_action(&self, name: &str) -> Option<u16> {
        let a: super::Action = name.parse().ok()?;
        let pos = self.position();
        pos.actions().contains(a).then(|| super::action_index(a, pos.side_to_move()) as u16)
    }

    /// Any action of the notation (`Le2`, `Pe4`, `=Q`), legal here or not.
    fn read_action(&self, name: &str) -> Result<u16, String> {
        let a: Action = name.trim().parse().map_err(|e: super::ActionParseError| e.to_string())?;
        Ok(super::action_index(a, self.position().side_to_move()) as u16)
    }

    const RULE_OPTIONS: &'static [&'static str] = &["no_union_undo", "one_double_step_per_file", "king_chain_draw"];

    fn from_notation_with_rules(s: &str, rules: &[&str]) -> Result<Self, BadNotation> {
        let r = rules_named(rules).map_err(|e| BadNotation::new(s, e))?;
        super::Position::from_fen(s.trim(), r).map(super::GameState::new).map_err(|e| BadNotation::new(s, e))
    }

    /// Chain notation from the start of a turn (nothing in hand); the rest of
    /// a turn, begun elsewhere, as its atomic actions.
    fn turn_notation(&self, decisions: &[u16]) -> String {
        let pos = self.position();
        let mover = pos.side_to_move();
        let actions: Vec<super::Action> = decisions.iter().map(|&d| super::action_from_index(d as usize, mover).expect("policy index in range")).collect();
        if self.is_turn_start() {
            super::turn_to_string(pos, &actions)
        } else {
            actions.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ")
        }
    }

    /// Chain notation (`Bf3xe4>c3`, `0-0`, `=Q Nb1-c3`) from the start of a
    /// turn; elsewhere (in the middle of a turn) atomic actions (`Pe4`).
    fn parse_turn(&self, text: &str) -> Result<Vec<u16>, BadNotation> {
        let pos = self.position();
        let mover = pos.side_to_move();
        if !self.is_turn_start() {
            return parse_decision_names(self, text);
        }
        let actions = super::parse_turn(pos, text).map_err(|e| BadNotation::new(text, e))?;
        Ok(actions.iter().map(|&a| super::action_index(a, mover) as u16).collect())
    }

    /// The whole line is read first, so a misspelt action is named by its
    /// place in the text (`'Le2 Pe9' at character 6: expected a square
    /// a1..h8`); then each action is played, and an illegal one is named by
    /// its number with the engine's reason.
    fn parse_decisions(&self, text: &str) -> Result<Vec<u16>, BadNotation> {
        let actions = super::parse_actions(text).map_err(|e| BadNotation::new(text, e))?;
        let mut g = self.clone();
        let mut out = Vec::with_capacity(actions.len());
        for (i, a) in actions.into_iter().enumerate() {
            let mover = g.position().side_to_move();
            g.play(a).map_err(|e| BadNotation::new(text, format!("action {} ({a}): {e}", i + 1)))?;
            out.push(super::action_index(a, mover) as u16);
        }
        Ok(out)
    }

    fn status_text(&self) -> String {
        self.status().to_string()
    }
}

impl Tools for GameState {
    fn recomputed_hash(&self) -> u64 {
        self.position().compute_hash()
    }

    fn fischer_random(n: u64, rules: &[&str]) -> Result<Self, String> {
        if n >= 960 {
            return Err(format!("Fischer-random setups are numbered 0..960, got {n}"));
        }
        Ok(GameState::new(super::fischer_random(n as u16, rules_named(rules)?)))
    }

    fn diagram(&self) -> String {
        super::diagram::diagram(self.position())
    }

    fn board_cells(&self) -> String {
        let mut s = String::with_capacity(2 * 64);
        for rank in (0..8).rev() {
            for file in 0..8 {
                let (w, b) = self.position().at(crate::Square::from_file_rank(file, rank));
                s.push(w.map_or('.', |k| k.letter()));
                s.push(b.map_or('.', |k| k.letter().to_ascii_lowercase()));
            }
        }
        s
    }

    fn fast_perft(&self, depth: u32, whole_turns: bool) -> u64 {
        if whole_turns {
            self.perft_full(depth)
        } else {
            self.perft_atomic(depth)
        }
    }

    fn facts(&self) -> Vec<(&'static str, Fact)> {
        let pos = self.position();
        let num_full_moves = SCRATCH.with(|g| g.borrow_mut().count(pos));
        vec![("required", Fact::Text(pos.required().name().to_string())), ("num_full_moves", Fact::Count(num_full_moves))]
    }
}

/// The optional rules named in `names` ([`Notation::RULE_OPTIONS`]) turned on.
fn rules_named(names: &[&str]) -> Result<super::Rules, String> {
    let mut r = super::Rules::OFFICIAL;
    for &name in names {
        let flag = match name {
            "no_union_undo" => &mut r.no_union_undo,
            "one_double_step_per_file" => &mut r.one_double_step_per_file,
            "king_chain_draw" => &mut r.king_chain_draw,
            _ => return Err(format!("paco has no optional rule `{name}` (it has {})", <GameState as Notation>::RULE_OPTIONS.join(", "))),
        };
        *flag = true;
    }
    Ok(r)
}

thread_local! {
    static SCRATCH: std::cell::RefCell<super::FullMoveGen> = std::cell::RefCell::new(super::FullMoveGen::new());
}
