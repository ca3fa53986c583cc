//! [`Tools`]: the hooks of the tools and the viewer: perft, numbered
//! setups, diagrams, the board cells of the report and facts for `legal`.

use super::{GameRules, Notation};

/// What the tools and the viewer need beyond the rules and the notation:
/// the fast perft and its reference, hash checks, numbered setups, a
/// solved suite, diagrams and facts about a position.
pub trait Tools: Notation {
    /// The game's bundled suite of solved positions (`pacozero solved`: JSON
    /// lines of positions with their exact values and optimal moves, made
    /// by a perfect solver), for games that are solved; `None` (the
    /// default) for the others.
    const SOLVED_SUITE: Option<&'static str> = None;
    /// [`GameRules::hash`] recomputed from scratch (the incremental one must equal it).
    fn recomputed_hash(&self) -> u64;
    /// Fischer-random setup number `n` with the optional rules named in
    /// `rules` ([`Notation::RULE_OPTIONS`]) on, for games that have such
    /// numbered setups (Paco Ŝako: 0..960, Scharnagl numbering, 518 the
    /// standard start); the error says why there is none. Default: the game
    /// has none.
    fn fischer_random(n: u64, rules: &[&str]) -> Result<Self, String> {
        let _ = (n, rules);
        Err(format!("{} has no Fischer-random setups (its randomised starts are random_start(n))", Self::NAME))
    }
    /// The position drawn as text for a terminal, ending with a newline
    /// (the default: its notation).
    fn diagram(&self) -> String {
        format!("{}\n", self.notation())
    }
    /// The board for a viewer (the run report's sample games): two
    /// characters per square, rank by rank from the last rank down and file
    /// by file from the a-file, White's piece letter (or `.`) then Black's
    /// (or `.`); `BOARD_HEIGHT × BOARD_WIDTH` cells. Paco Ŝako shows both
    /// pieces of a union; in Shako one of the two is always `.`. Default:
    /// every square empty (a game that draws no board).
    fn board_cells(&self) -> String {
        "..".repeat(Self::BOARD_HEIGHT * Self::BOARD_WIDTH)
    }
    /// The game's fastest perft: the leaves after `depth` decisions, or with
    /// `whole_turns` after `depth` whole turns. It must equal [`perft`] (the
    /// conformance test checks it); the default is that reference.
    fn fast_perft(&self, depth: u32, whole_turns: bool) -> u64 {
        perft(self, depth, whole_turns)
    }
    /// Game-specific facts about this state that the `legal` tool reports
    /// beside the legal decisions (Paco Ŝako: the kind of decision required
    /// and the number of whole turns; Shako: check and the UCI moves). The
    /// names are JSON field names.
    fn facts(&self) -> Vec<(&'static str, Fact)> {
        Vec::new()
    }
}

/// One of [`Tools::facts`]' values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    Flag(bool),
    Count(u64),
    Text(String),
    List(Vec<String>),
}

/// Perft of any game through its [`GameRules`]: the leaves after
/// `depth` decisions, or with `whole_turns` after `depth` whole turns
/// ([`GameRules::legal_turns`], one per distinct result). A finished game has no
/// moves. The games' own perfts are faster; this one is their reference and
/// the perft of a game without one.
pub fn perft<G: GameRules>(g: &G, depth: u32, whole_turns: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    if g.outcome().is_some() {
        return 0;
    }
    let mut total = 0;
    if whole_turns {
        for t in g.legal_turns() {
            let mut next = g.clone();
            for d in t {
                next.apply(d);
            }
            total += perft(&next, depth - 1, true);
        }
    } else {
        // Atomic perft counts every legal decision, dead ends included (the
        // platform's atomic perft does).
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        for a in legal {
            let mut next = g.clone();
            next.apply(a);
            total += perft(&next, depth - 1, false);
        }
    }
    total
}
