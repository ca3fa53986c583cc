//! The totals of a self-play run and their rates.

use std::collections::BTreeMap;

use pacozero_engine::Color;

use crate::game::GameRecord;

/// Totals of a self-play run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    /// Positions with a full search (trained policy targets).
    pub full_search_positions: u64,
    pub simulations: u64,
    pub node_visits: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// Games ended by each reason.
    pub reasons: BTreeMap<String, u64>,
    /// Games that were not allowed to resign.
    pub no_resign_games: u64,
    /// No-resign games in which someone would have resigned.
    pub would_resign_games: u64,
    /// ... and the would-be resigner did not lose (false resignations).
    pub false_resignations: u64,
    /// Chunks written (stems).
    pub chunks: Vec<String>,
    pub wall_secs: f64,
    /// Seconds inside the evaluator, summed over workers.
    pub eval_secs: f64,
    pub threads: usize,
    pub batches: u64,
    /// Evaluation requests (all batches).
    pub requests: u64,
    /// Games of the run already in the output directory (same seed and
    /// index, e.g. written before a crash), not played again.
    pub skipped: u64,
    /// Decisions of the games a deadline abandoned unfinished (benchmarks):
    /// their simulations are in `simulations`, their rows nowhere.
    pub unfinished_decisions: u64,
}

impl Summary {
    /// Mean decisions per game.
    pub fn avg_length(&self) -> f64 {
        self.positions as f64 / self.games.max(1) as f64
    }
    pub fn positions_per_sec(&self) -> f64 {
        self.positions as f64 / self.wall_secs.max(1e-9)
    }
    pub fn simulations_per_sec(&self) -> f64 {
        self.simulations as f64 / self.wall_secs.max(1e-9)
    }
    /// Share of worker time spent inside the evaluator.
    pub fn eval_fraction(&self) -> f64 {
        self.eval_secs / (self.wall_secs * self.threads.max(1) as f64).max(1e-9)
    }
    /// False resignations / would-be resignations in no-resign games.
    pub fn false_resignation_rate(&self) -> f64 {
        self.false_resignations as f64 / self.would_resign_games.max(1) as f64
    }
    pub(crate) fn add_game(&mut self, r: &GameRecord) {
        self.games += 1;
        self.positions += r.positions.len() as u64;
        self.full_search_positions += r.positions.iter().filter(|p| p.full_search).count() as u64;
        match r.winner {
            Some(Color::White) => self.white_wins += 1,
            Some(Color::Black) => self.black_wins += 1,
            None => self.draws += 1,
        }
        *self.reasons.entry(r.reason.clone()).or_default() += 1;
        if r.no_resign {
            self.no_resign_games += 1;
            if let Some(c) = r.would_resign {
                self.would_resign_games += 1;
                if r.winner != Some(c.other()) {
                    self.false_resignations += 1;
                }
            }
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} games, {} positions ({} full searches), avg length {:.1}, W/D/L (White) {}/{}/{}",
            self.games,
            self.positions,
            self.full_search_positions,
            self.avg_length(),
            self.white_wins,
            self.draws,
            self.black_wins
        )?;
        writeln!(f, "end reasons: {:?}", self.reasons)?;
        writeln!(
            f,
            "{:.1} s wall, {:.0} positions/s, {:.0} simulations/s, {:.0} node visits/s, evaluator {:.1}% of worker time, {} batches (avg {:.1})",
            self.wall_secs,
            self.positions_per_sec(),
            self.simulations_per_sec(),
            self.node_visits as f64 / self.wall_secs.max(1e-9),
            100.0 * self.eval_fraction(),
            self.batches,
            self.requests as f64 / self.batches.max(1) as f64
        )?;
        write!(
            f,
            "resignation: {} no-resign games, {} would have resigned, {} of those falsely; {} chunks",
            self.no_resign_games,
            self.would_resign_games,
            self.false_resignations,
            self.chunks.len()
        )?;
        if self.skipped > 0 {
            write!(f, "; {} games already in the directory (same seed) not played again", self.skipped)?;
        }
        Ok(())
    }
}
