//! Where a piece may go, the legal actions, and what each action does: the
//! rule text, one rule at a time.

use crate::board::{Color, Kind, Square};
use crate::state::{Hand, Required, State, Status};
use std::fmt;

/// One atomic action, written as the platform writes it: `Le2`, `Pe4`, `=Q`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Lift(Square),
    Place(Square),
    Promote(Kind),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Lift(s) => write!(f, "L{s}"),
            Action::Place(s) => write!(f, "P{s}"),
            Action::Promote(k) => write!(f, "={}", k.letter()),
        }
    }
}

impl std::str::FromStr for Action {
    type Err = String;
    fn from_str(s: &str) -> Result<Action, String> {
        let bad = || format!("'{s}' is not an action");
        match s.get(..1) {
            Some("L") => Square::parse(&s[1..]).map(Action::Lift).ok_or_else(bad),
            Some("P") => Square::parse(&s[1..]).map(Action::Place).ok_or_else(bad),
            Some("=") => {
                Kind::from_letter(s[1..].chars().next().ok_or_else(bad)?).filter(|k| Kind::PROMOTIONS.contains(k)).map(Action::Promote).ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }
}

/// How an action left the game, for the repetition history.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum After {
    /// The same player acts again.
    SamePlayer,
    /// The turn passed to the opponent (or the game ended), or the opponent's
    /// owed promotion is done: a position a player starts a turn from.
    Settled,
    /// The turn passed to the opponent, who must first promote.
    OwedPromotion,
}

impl State {
    /// The legal actions, in the platform's order (by square a1..h8, then
    /// promotions R, N, B, Q). Actions that can only lead into a dead-end
    /// chain are legal: the platform lists them.
    pub fn legal_actions(&self) -> Vec<Action> {
        if self.status != Status::Running {
            return Vec::new();
        }
        match self.required {
            Required::Lift => Square::all().filter(|&s| self.may_lift(s)).map(Action::Lift).collect(),
            Required::Place => self.place_targets().into_iter().map(Action::Place).collect(),
            _ => Kind::PROMOTIONS.into_iter().map(Action::Promote).collect(),
        }
    }

    /// A piece (or union) of the mover may be lifted when, lifted, it has
    /// somewhere to go.
    fn may_lift(&self, sq: Square) -> bool {
        if self.board.get(sq, self.side).is_none() {
            return false;
        }
        let mut lifted = self.clone();
        lifted.lift(sq);
        !lifted.place_targets().is_empty()
    }

    /// Where the piece or union in hand may be placed, a1..h8.
    pub fn place_targets(&self) -> Vec<Square> {
        let mut out: Vec<Square> = match self.hand {
            Hand::Empty => Vec::new(),
            Hand::Single { kind, from } => {
                let mut t = self.lone_piece_targets(kind, from);
                if kind == Kind::King {
                    t.extend(self.castling_targets(from));
                }
                t
            }
            Hand::Pair { kind, from, .. } => self.union_targets(kind, from),
        };
        out.sort_by_key(|s| s.index());
        out.dedup();
        out
    }

    /// A lone piece moves as in chess onto an empty square or onto any
    /// square holding an opponent's piece (alone: a new union; in a union
    /// with one of the mover's pieces: that piece is released). Pawns go
    /// diagonally only onto an opponent's piece or the en-passant square.
    /// Kings go only to empty squares (under the vchess king rule also into
    /// unions, to take them over).
    pub fn lone_piece_targets(&self, kind: Kind, from: Square) -> Vec<Square> {
        let me = self.side;
        let open = |s: Square| !self.board.is_lone(s, me);
        let mut out = Vec::new();
        match kind {
            Kind::Pawn => {
                out.extend(self.pawn_pushes(from));
                for df in [-1, 1] {
                    if let Some(d) = from.offset(df, me.forward()) {
                        if self.board.get(d, me.other()).is_some() || self.en_passant == Some(d) {
                            out.push(d);
                        }
                    }
                }
            }
            Kind::Knight => out.extend(kind.steps().iter().filter_map(|&(df, dr)| from.offset(df, dr)).filter(|&s| open(s))),
            Kind::King => out.extend(
                kind.steps()
                    .iter()
                    .filter_map(|&(df, dr)| from.offset(df, dr))
                    .filter(|&s| self.board.is_empty(s) || (self.rules.king_chain_draw && self.board.is_union(s))),
            ),
            _ => {
                for &(df, dr) in kind.rays() {
                    let mut s = from;
                    while let Some(n) = s.offset(df, dr) {
                        if open(n) {
                            out.push(n);
                        }
                        if !self.board.is_empty(n) {
                            break;
                        }
                        s = n;
                    }
                }
            }
        }
        out
    }

    /// A union moves by the mover's piece in it, to empty squares only; one
    /// led by a pawn moves straight forward only.
    fn union_targets(&self, kind: Kind, from: Square) -> Vec<Square> {
        let mut out = Vec::new();
        match kind {
            Kind::Pawn => out.extend(self.pawn_pushes(from)),
            Kind::Knight | Kind::King => out.extend(kind.steps().iter().filter_map(|&(df, dr)| from.offset(df, dr)).filter(|&s| self.board.is_empty(s))),
            _ => {
                for &(df, dr) in kind.rays() {
                    let mut s = from;
                    while let Some(n) = s.offset(df, dr) {
                        if !self.board.is_empty(n) {
                            break;
                        }
                        out.push(n);
                        s = n;
                    }
                }
            }
        }
        if let Some((a, b)) = self.last_pair_move {
            // Optional rule: the union just moved may not go straight back.
            if b == from {
                out.retain(|&s| s != a);
            }
        }
        out
    }

    /// A pawn steps one square forward onto an empty square; from its own
    /// first two ranks (a pawn carried back to its first rank too) it may
    /// step two, both squares empty.
    fn pawn_pushes(&self, from: Square) -> Vec<Square> {
        let me = self.side;
        let mut out = Vec::new();
        let Some(one) = from.offset(0, me.forward()).filter(|&s| self.board.is_empty(s)) else { return out };
        out.push(one);
        let near_home = (from.rank - me.home_rank()).abs() <= 1;
        let file_unused = !self.rules.one_double_step_per_file || !self.double_steps[me.index()][from.file as usize];
        if near_home && file_unused {
            if let Some(two) = from.offset(0, 2 * me.forward()).filter(|&s| self.board.is_empty(s)) {
                out.push(two);
            }
        }
        out
    }

    /// The castling option of the mover's king held above `from` on side
    /// `side` (0: towards file a), if it has the right: (king's destination,
    /// rook's square, rook's destination, the square the king is placed on
    /// to castle). The king goes to file c or g and the rook to d or f; the
    /// king is placed on its destination, or where that is its own square or
    /// next to it (Fischer-random setups), on its rook.
    pub fn castling_option(&self, from: Square, side: usize) -> Option<(Square, Square, Square, Square)> {
        let me = self.side;
        let rook_file = self.castling[me.index()][side]?;
        let rank = me.home_rank();
        if from.rank != rank {
            return None;
        }
        let (king_file, rook_to_file) = if side == 0 { (2, 3) } else { (6, 5) };
        let king_to = Square { file: king_file, rank };
        let rook = Square { file: rook_file, rank };
        let target = if (from.file - king_file).abs() >= 2 { king_to } else { rook };
        Some((king_to, rook, Square { file: rook_to_file, rank }, target))
    }

    /// Castling places for the king held above `from`: the right held, the
    /// rook on its square (alone or in a union, which moves with it), every
    /// square the king or the rook passes over or lands on empty (their own
    /// squares aside), and no square from the king's start to its
    /// destination threatened by the opponent, chains included.
    fn castling_targets(&self, from: Square) -> Vec<Square> {
        let me = self.side;
        let mut out = Vec::new();
        for side in 0..2 {
            let Some((king_to, rook, rook_to, target)) = self.castling_option(from, side) else { continue };
            if self.board.get(rook, me) != Some(Kind::Rook) {
                continue;
            }
            let span = |a: i8, b: i8| (a.min(b)..=a.max(b)).map(|f| Square { file: f, rank: from.rank });
            let clear = span(from.file, king_to.file).chain(span(rook.file, rook_to.file)).filter(|&s| s != from && s != rook).all(|s| self.board.is_empty(s));
            if !clear {
                continue;
            }
            let path: Vec<Square> = span(from.file, king_to.file).collect();
            if self.opponent_threatens_any(&path) {
                continue;
            }
            out.push(target);
        }
        out
    }

    /// Plays a legal action; an illegal one is refused and changes nothing.
    pub fn play(&mut self, a: Action) -> Result<After, String> {
        if !self.legal_actions().contains(&a) {
            return Err(format!("{a} is not legal in {}", self.fen()));
        }
        Ok(match a {
            Action::Lift(s) => {
                self.lift(s);
                After::SamePlayer
            }
            Action::Place(s) => self.place(s),
            Action::Promote(k) => self.promote(k),
        })
    }

    /// Lifting a piece, or a union with the opponent's partner. A rook
    /// lifted from its castling square loses that right (the opponent's rook
    /// lifted in a union loses theirs).
    pub(crate) fn lift(&mut self, sq: Square) {
        let me = self.side;
        let kind = self.board.get(sq, me).expect("a piece of the mover");
        let partner = self.board.get(sq, me.other());
        self.required = Required::Place;
        // The platform counts the half-move at the lift.
        self.no_progress = self.no_progress.saturating_add(1);
        if kind == Kind::Rook {
            self.drop_castling_right_of_rook(me, sq);
        }
        if partner == Some(Kind::Rook) {
            self.drop_castling_right_of_rook(me.other(), sq);
        }
        self.board.set(sq, me, None);
        self.board.set(sq, me.other(), None);
        self.hand = match partner {
            None => Hand::Single { kind, from: sq },
            Some(partner) => Hand::Pair { kind, partner, from: sq },
        };
    }

    fn drop_castling_right_of_rook(&mut self, color: Color, sq: Square) {
        for side in 0..2 {
            if sq.rank == color.home_rank() && self.castling[color.index()][side] == Some(sq.file) {
                self.castling[color.index()][side] = None;
            }
        }
    }

    fn place(&mut self, t: Square) -> After {
        match self.hand {
            Hand::Empty => unreachable!("a place needs a piece in hand"),
            Hand::Single { kind, from } => self.place_lone_piece(kind, from, t),
            Hand::Pair { kind, partner, from } => {
                let me = self.side;
                self.en_passant = None;
                self.note_double_step(kind, from, t);
                self.board.set(t, me, Some(kind));
                self.board.set(t, me.other(), Some(partner));
                self.hand = Hand::Empty;
                self.last_pair_move = if self.rules.no_union_undo { Some((from, t)) } else { None };
                if kind == Kind::Pawn && t.rank == me.last_rank() {
                    self.promotion = Some(t);
                    self.required = Required::PromoteThenFinish;
                    After::SamePlayer
                } else if partner == Kind::Pawn && t.rank == me.other().last_rank() {
                    // The opponent's pawn was carried to its last rank: its owner
                    // promotes it first thing in their turn.
                    self.promotion = Some(t);
                    self.required = Required::PromoteThenLift;
                    self.side = me.other();
                    After::OwedPromotion
                } else {
                    self.end_turn()
                }
            }
        }
    }

    fn place_lone_piece(&mut self, kind: Kind, from: Square, t: Square) -> After {
        let me = self.side;
        if kind == Kind::Pawn && self.en_passant == Some(t) && from.offset(0, me.forward()) != Some(t) {
            // En passant: the pawn (or union led by it) that double-stepped past
            // `t` steps back onto it first; then this is an ordinary place.
            let double_stepped = t.offset(0, me.other().forward()).expect("en passant square inside the board");
            self.board.swap(t, double_stepped);
            self.en_passant = None;
        }
        if kind == Kind::Pawn && t.rank == me.last_rank() {
            self.promotion = Some(t);
        }
        if kind == Kind::King {
            let castles = (0..2).any(|side| self.castling_option(from, side).is_some_and(|o| o.3 == t))
                && (!self.rules.king_chain_draw || self.castling_targets(from).contains(&t));
            if castles || !self.board.is_union(t) {
                self.en_passant = None;
                return self.place_king(from, t, castles);
            }
            // vchess kings: taking over a union starts a king chain.
            self.king_chain = true;
            self.castling[me.index()] = [None, None];
        }
        let released = self.board.get(t, me);
        if released == Some(Kind::Rook) {
            // A rook released from its castling square has moved.
            self.drop_castling_right_of_rook(me, t);
        }
        self.board.set(t, me, Some(kind));
        if let Some(r) = released {
            // A chain: the released piece is placed next.
            self.hand = Hand::Single { kind: r, from: t };
            self.required = if self.promotion.is_some() { Required::PromoteThenPlace } else { Required::Place };
            return After::SamePlayer;
        }
        let partner = self.board.get(t, me.other());
        if partner.is_some() {
            // A new union is progress.
            self.no_progress = 0;
        }
        self.en_passant = None;
        self.note_double_step(kind, from, t);
        self.hand = Hand::Empty;
        self.last_pair_move = None;
        if partner == Some(Kind::King) {
            self.status = if self.king_chain { Status::KingChainDraw } else { Status::PacoVictory(me) };
        }
        self.king_chain = false;
        if self.promotion.is_some() {
            self.required = Required::PromoteThenFinish;
            After::SamePlayer
        } else {
            self.end_turn()
        }
    }

    fn place_king(&mut self, from: Square, t: Square, castles: bool) -> After {
        let me = self.side;
        let mut king_to = t;
        if castles {
            let option = (0..2).filter_map(|side| self.castling_option(from, side)).find(|o| o.3 == t).expect("a castling option");
            let (to, rook, rook_to, _) = option;
            // Whatever stands on the rook's square (a union too) moves with it.
            if rook != rook_to {
                self.board.swap(rook, rook_to);
            }
            king_to = to;
        }
        self.board.set(king_to, me, Some(Kind::King));
        self.king_chain = false;
        self.hand = Hand::Empty;
        self.last_pair_move = None;
        self.castling[me.index()] = [None, None];
        self.end_turn()
    }

    /// A pawn's (or pawn-led union's) double step: with the optional rule
    /// the file is used up; from the second rank it marks en passant.
    fn note_double_step(&mut self, kind: Kind, from: Square, t: Square) {
        if kind != Kind::Pawn || (from.rank - t.rank).abs() != 2 {
            return;
        }
        let me = self.side;
        if self.rules.one_double_step_per_file {
            self.double_steps[me.index()][from.file as usize] = true;
        }
        if from.rank == me.home_rank() + me.forward() {
            self.en_passant = from.offset(0, me.forward());
        }
    }

    fn promote(&mut self, k: Kind) -> After {
        let sq = self.promotion.expect("a promotion is due");
        let me = self.side;
        if self.board.get(sq, me) == Some(Kind::Pawn) {
            self.board.set(sq, me, Some(k));
        }
        self.promotion = None;
        // A promotion is progress.
        self.no_progress = 0;
        match self.required {
            Required::PromoteThenLift => {
                self.required = Required::Lift;
                self.check_no_progress();
                After::Settled
            }
            Required::PromoteThenPlace => {
                self.required = Required::Place;
                After::SamePlayer
            }
            _ => {
                self.en_passant = None;
                self.end_turn()
            }
        }
    }

    fn end_turn(&mut self) -> After {
        self.side = self.side.other();
        self.required = Required::Lift;
        self.check_no_progress();
        After::Settled
    }

    /// 100 half-moves without progress draw.
    fn check_no_progress(&mut self) {
        if self.status == Status::Running && self.no_progress >= 100 {
            self.status = Status::NoProgressDraw;
        }
    }
}
