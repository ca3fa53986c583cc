//! Measuring strength, as a library under the
//! `pacozero` command line. Nothing here prints; callers get results and
//! progress callbacks.
//!
//! | module | what |
//! |---|---|
//! | [`players`] | player specs (`random`, `greedy`, `rollout:50ms`, `net:<model>`, `ref:<name>`, `uci:<engine>:<budget>`) and how each chooses |
//! | [`budget`] | how long a player searches a decision: simulations, time, nodes, depth or a clock, for MCTS players and engines alike |
//! | [`given`] | a value read from the user's text, kept with that text (which names it and is what files record) |
//! | [`uci_player`] | external UCI engines as players: one process per game, every move checked, forfeits |
//! | [`ladder`] | players against an external engine at rising node budgets; the budget where each scores 50% (a logistic fit) |
//! | [`league`] | many players, one resumable schedule of paired games (a round robin or a gauntlet), one rating list |
//! | [`matches`](mod@matches) | one game, paired-opening matches on all cores, W/D/L, pentanomials, Elo with its interval |
//! | [`records`] | every game of a match kept in the games table of the training data (Parquet), with the players' specs |
//! | [`ratings`] | one match's figures: W/D/L, pentanomials, Elo and nElo with intervals, the SPRT |
//! | [`rating_list`] | one rating list over many players: joint maximum likelihood, anchor or mean, intervals from the pairs |
//! | [`tactics`] | a suite of forced wins in 1 or 2 turns and a network's solve rate on it, for any game |
//! | [`solved`] | a suite of positions a perfect solver labelled (Connect Four), and how often a network's move is optimal |
//!
//! Everything is generic over the engine's `Game` (Paco Ŝako, Shako, Connect Four).

pub mod budget;
#[cfg(test)]
mod fake_engine;
pub mod given;
pub mod ladder;
pub mod league;
pub mod matches;
pub mod players;
pub mod rating_list;
pub mod ratings;
pub mod records;
pub mod solved;
pub mod tactics;
pub mod uci_player;

pub use budget::Budget;
pub use given::Given;
pub use matches::{no_progress, opening, play, run_match, run_match_from, run_match_sprt, run_match_until, GameResult, MatchGame, MatchResult, Openings};
pub use players::{greedy_turn, EvalKind, NetOptions, Player, PlayerSpec, PlayoutMix, RunSpec};
pub use uci_player::{Forfeit, UciEngine, UciSpec};
