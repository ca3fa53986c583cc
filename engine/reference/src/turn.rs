//! Whole turns: every way a turn can go on from a state (its results, the
//! threats castling must avoid, whether a turn can still be completed), and
//! a game with its repetition history.
//!
//! Chains can come back to a state they were in (a piece may re-enter a
//! union it left), so each walk keeps the set of states it has seen; it
//! never stops before it has seen them all.

use crate::board::{Color, Kind, Square};
use crate::moves::{Action, After};
use crate::state::{Hand, Required, State, Status};
use std::collections::HashSet;

impl State {
    /// Every distinct state in which the turn in progress has ended (the
    /// opponent is to act, or the game is over), over every sequence of
    /// legal actions from here ([`RefGame::turn_results`] without a
    /// history). Chains into dead ends end nowhere.
    pub fn turn_results(&self) -> HashSet<State> {
        RefGame::new(self.clone(), 0).turn_results().into_iter().map(|g| g.state).collect()
    }

    /// Can the turn in progress still be completed from here?
    pub fn turn_can_end(&self) -> bool {
        if self.status != Status::Running {
            return true;
        }
        !self.turn_results().is_empty()
    }

    /// The legal actions after which the turn can still be completed (what
    /// a player who never runs into a dead end chooses from).
    pub fn playable_actions(&self) -> Vec<Action> {
        self.legal_actions()
            .into_iter()
            .filter(|&a| {
                let mut n = self.clone();
                n.play(a).expect("a legal action");
                n.side != self.side || n.turn_can_end()
            })
            .collect()
    }

    /// Could the opponent of the mover, were it their turn on this board
    /// (the piece in hand off the board), dance onto one of `squares`, that
    /// is unite with a piece of the mover standing there, directly or at the
    /// end of a chain? Every lone piece of theirs but the king is lifted in
    /// turn, every chain it can start followed (through promotions and en
    /// passant too), and each piece in hand on the way asked whether it
    /// could move onto each square if an enemy piece stood there.
    pub fn opponent_threatens_any(&self, squares: &[Square]) -> bool {
        let mut theirs = self.clone();
        theirs.hand = Hand::Empty;
        theirs.side = self.side.other();
        theirs.required = Required::Lift;
        theirs.promotion = None;
        // The en-passant square is the mover's to use, not theirs.
        theirs.en_passant = None;
        let them = theirs.side;
        let mut stack: Vec<State> = Vec::new();
        for sq in Square::all() {
            if theirs.board.is_lone(sq, them) && theirs.board.get(sq, them) != Some(Kind::King) {
                let mut lifted = theirs.clone();
                lifted.lift(sq);
                stack.push(lifted);
            }
        }
        let mut seen: HashSet<State> = stack.iter().cloned().collect();
        while let Some(s) = stack.pop() {
            if let Hand::Single { kind, from } = s.hand {
                if squares.iter().any(|&t| s.could_unite_onto(kind, from, t)) {
                    return true;
                }
            }
            for a in s.legal_actions() {
                let mut n = s.clone();
                n.play(a).expect("a legal action");
                let goes_on = n.side == them && n.status == Status::Running && n.hand != Hand::Empty;
                if goes_on && seen.insert(n.clone()) {
                    stack.push(n);
                }
            }
        }
        false
    }

    /// Could a lone `kind` of the mover held above `from` move onto `t` if
    /// an opponent's piece stood there (whatever stands there now)? Pawns
    /// unite diagonally forward, sliders need the squares between empty,
    /// kings never unite.
    pub fn could_unite_onto(&self, kind: Kind, from: Square, t: Square) -> bool {
        let (df, dr) = (t.file - from.file, t.rank - from.rank);
        match kind {
            Kind::Pawn => dr == self.side.forward() && df.abs() == 1,
            Kind::Knight => kind.steps().contains(&(df, dr)),
            Kind::King => false,
            _ => kind.rays().iter().any(|&(sf, sr)| {
                let mut s = from;
                while let Some(n) = s.offset(sf, sr) {
                    if n == t {
                        return true;
                    }
                    if !self.board.is_empty(n) {
                        return false;
                    }
                    s = n;
                }
                false
            }),
        }
    }
}

/// A game: a state and the positions recorded since the last progress,
/// which decide threefold repetition.
#[derive(Clone, Debug)]
pub struct RefGame {
    pub state: State,
    history: Vec<State>,
    draw_after: usize,
}

impl RefGame {
    /// `draw_after`: the occurrences of a position that draw (0: never).
    pub fn new(state: State, draw_after: usize) -> RefGame {
        RefGame { state, history: Vec::new(), draw_after }
    }

    /// Plays a legal action. A position a player starts a turn from is
    /// recorded; progress (a new union or a promotion, which reset the
    /// half-move counter) clears what was recorded before; its
    /// `draw_after`-th occurrence draws.
    pub fn play(&mut self, a: Action) -> Result<(), String> {
        if self.state.play(a)? != After::Settled {
            return Ok(());
        }
        if self.state.no_progress == 0 {
            self.history.clear();
        }
        if self.state.status != Status::Running || self.draw_after == 0 {
            return Ok(());
        }
        let key = self.state.repetition_key();
        let before = self.history.iter().filter(|&k| *k == key).count();
        self.history.push(key);
        if before + 1 >= self.draw_after {
            self.state.status = Status::RepetitionDraw;
        }
        Ok(())
    }

    pub fn status(&self) -> Status {
        self.state.status
    }

    /// Every distinct way the turn in progress can end, each with this
    /// game's history carried on (so a result can be a repetition draw).
    pub fn turn_results(&self) -> Vec<RefGame> {
        let mut results = Vec::new();
        if self.state.status != Status::Running {
            return results;
        }
        let mover = self.state.side;
        let mut seen = HashSet::new();
        let mut stack = vec![self.clone()];
        while let Some(g) = stack.pop() {
            for a in g.state.legal_actions() {
                let mut n = g.clone();
                n.play(a).expect("a legal action");
                if !seen.insert(n.state.clone()) {
                    continue;
                }
                if n.state.side != mover || n.state.status != Status::Running {
                    results.push(n);
                } else {
                    stack.push(n);
                }
            }
        }
        results
    }

    /// The winner, if a player won.
    pub fn winner(&self) -> Option<Color> {
        match self.state.status {
            Status::PacoVictory(c) => Some(c),
            _ => None,
        }
    }
}
