//! [`Notation`]: a game's positions and decisions as text, and decisions
//! from outside checked against the rules.

use super::{GameRules, Outcome};
use std::fmt;

/// A game's text: its position notation, the names of decisions and turns,
/// and the checked entry points for positions and decisions that come from
/// outside (files, protocols, the Python package).
pub trait Notation: GameRules {
    /// [`GameRules::apply`] checked, for decisions from outside (the Python
    /// package): takes `action` if the rules allow it here (it is one of
    /// [`GameRules::legal_actions`]); otherwise leaves the state as it was and
    /// says why (the game is over, the index is out of range, the decision
    /// is not legal). The default checks against `legal_actions`.
    fn try_apply(&mut self, action: u16) -> Result<(), String> {
        ensure_running(self)?;
        let mut legal = Vec::new();
        self.legal_actions(&mut legal);
        if legal.binary_search(&action).is_err() {
            return Err(format!("decision {action} ({}) is not legal in {}", self.action_name(action), self.notation()));
        }
        self.apply(action);
        Ok(())
    }
    /// Human-readable name of a decision in this state (e.g. `Le2`).
    fn action_name(&self, action: u16) -> String;
    /// The state in the game's position notation.
    fn notation(&self) -> String;
    /// A game from a state in the game's notation ([`Notation::notation`] reads
    /// back; surrounding white space is ignored), checked; the error says
    /// what is wrong.
    fn from_notation(s: &str) -> Result<Self, BadNotation>;
    /// `true` when [`Notation::notation`] captures everything the hash covers,
    /// so reading it back gives the same hash (a Paco Ŝako FEN cannot hold a
    /// pending promotion's turn or the optional rules' history).
    fn notation_is_complete(&self) -> bool {
        true
    }
    /// The decision named `name` ([`Notation::action_name`]) in this state, if legal.
    fn parse_action(&self, name: &str) -> Option<u16>;
    /// The decision `name` names, read without checking that it is legal
    /// here ([`Notation::try_apply`] checks that); the error says why the name
    /// does not read. The default reads only legal decisions
    /// ([`Notation::parse_action`]).
    fn read_action(&self, name: &str) -> Result<u16, String> {
        self.parse_action(name.trim()).ok_or_else(|| format!("`{}` is not a legal decision in {}", name.trim(), self.notation()))
    }
    /// Names of the game's optional rules, all off by default (Paco Ŝako:
    /// the vchess variants), for tools that take rules as data.
    const RULE_OPTIONS: &'static [&'static str] = &[];
    /// [`Notation::from_notation`] with the optional rules named in `rules` (each
    /// one of [`Notation::RULE_OPTIONS`]) turned on.
    fn from_notation_with_rules(s: &str, rules: &[&str]) -> Result<Self, BadNotation> {
        match rules.first() {
            Some(r) => Err(BadNotation::new(s, format!("{} has no optional rule `{r}`", Self::NAME))),
            None => Self::from_notation(s),
        }
    }
    /// The notation of `decisions` played from this state: a whole turn in
    /// the game's move notation (Paco Ŝako: chain notation such as
    /// `Bf3xe4>c3` when this state starts a turn). The default, right for
    /// games whose turn is one decision, names the decisions one after the
    /// other, space-separated.
    fn turn_notation(&self, decisions: &[u16]) -> String {
        let mut g = self.clone();
        let mut names = Vec::with_capacity(decisions.len());
        for &d in decisions {
            names.push(g.action_name(d));
            g.apply(d);
        }
        names.join(" ")
    }
    /// A whole turn as a PGN move: one token, no spaces. Shako: standard
    /// algebraic notation as Fairy-Stockfish writes it (`Nf4`, `exd6`,
    /// `e10=Q`, `O-O`, `Ra10#`); the default: [`Notation::turn_notation`]
    /// without its spaces (Paco Ŝako: `Bf3xe4>c3`, `=QNb1-c3`), as the UCI
    /// engine writes a move.
    fn pgn_move(&self, decisions: &[u16]) -> String {
        self.turn_notation(decisions).split_whitespace().collect()
    }
    /// The decisions of one whole turn read from `text` ([`Notation::turn_notation`]),
    /// checked against this state: each is legal, and after the last the
    /// other side moves or the game is over. The error names the part of
    /// `text` that is wrong.
    fn parse_turn(&self, text: &str) -> Result<Vec<u16>, BadNotation> {
        parse_decision_names(self, text)
    }
    /// Decisions named one after another from this state (space-separated
    /// [`Notation::action_name`]s, not necessarily whole turns), each checked
    /// legal where it is taken; the error names the decision that is wrong
    /// and why. Tools that take a line of play (`show --actions`, `legal`)
    /// read it with this.
    fn parse_decisions(&self, text: &str) -> Result<Vec<u16>, BadNotation> {
        let mut g = self.clone();
        let mut out = Vec::new();
        for (i, name) in text.split_whitespace().enumerate() {
            if g.outcome().is_some() {
                return Err(BadNotation::new(text, format!("decision {} ({name}): the game is already over ({})", i + 1, g.end_reason())));
            }
            let d = g.parse_action(name).ok_or_else(|| BadNotation::new(text, format!("decision {} ({name}) is not legal here: {}", i + 1, g.notation())))?;
            g.apply(d);
            out.push(d);
        }
        Ok(out)
    }
    /// The state of play in words for tools (`Running` while the game runs).
    fn status_text(&self) -> String {
        match self.outcome() {
            None => "Running".to_string(),
            Some(Outcome::Win(c)) => format!("{c:?} won ({})", self.end_reason()),
            Some(Outcome::Draw) => format!("Draw ({})", self.end_reason()),
        }
    }
}

/// `Ok` while `g` runs; for a finished game the refusal of any decision
/// ([`Notation::try_apply`]'s message).
pub fn ensure_running<G: Notation>(g: &G) -> Result<(), String> {
    match g.outcome() {
        None => Ok(()),
        Some(_) => Err(format!("the game is over ({}): no action is legal in {}", g.end_reason(), g.notation())),
    }
}

/// One whole turn given as its decisions' names ([`Notation::action_name`]),
/// space-separated, checked against `g`: each is legal, and after the last
/// the other side moves or the game is over.
pub fn parse_decision_names<G: Notation>(g: &G, text: &str) -> Result<Vec<u16>, BadNotation> {
    let mover = g.to_move();
    let mut g = g.clone();
    let mut out = Vec::new();
    for name in text.split_whitespace() {
        if g.outcome().is_some() || g.to_move() != mover {
            return Err(BadNotation::new(text, format!("`{name}` comes after the turn has ended")));
        }
        let d = g.parse_action(name).ok_or_else(|| BadNotation::new(text, format!("`{name}` is not a legal decision here")))?;
        g.apply(d);
        out.push(d);
    }
    if out.is_empty() {
        return Err(BadNotation::new(text, "empty move"));
    }
    if g.outcome().is_none() && g.to_move() == mover {
        return Err(BadNotation::new(text, "the turn is not complete (the same side still has to move)"));
    }
    Ok(out)
}

/// A state notation that does not read as a valid state of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadNotation {
    /// The text as given.
    pub notation: String,
    /// What is wrong with it (for positions: the field and the square).
    pub message: String,
}

impl BadNotation {
    pub fn new(notation: &str, message: impl fmt::Display) -> BadNotation {
        BadNotation { notation: notation.to_string(), message: message.to_string() }
    }
}

impl fmt::Display for BadNotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", self.message, self.notation)
    }
}
impl std::error::Error for BadNotation {}
