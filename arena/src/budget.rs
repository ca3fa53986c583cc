//! [`Budget`]: how long a player searches a decision, one type for MCTS
//! players and external engines.
//!
//! | text | budget | for |
//! |---|---|---|
//! | `64` | [`Budget::Simulations`] | MCTS players (`rollout:64`, `net:<model>:64`) |
//! | `50ms` | [`Budget::Millis`] | both: a time per decision (MCTS) or per move (`go movetime`) |
//! | `nodes=N` | [`Budget::Nodes`] | engines (`go nodes N`) |
//! | `depth=N` | [`Budget::Depth`] | engines (`go depth N`, N in 1..=1000) |
//! | `tc=B[+I]` | [`Budget::Clock`] | engines: a game clock of B seconds and I a move (`go wtime/btime/winc/binc`) |
//!
//! Each number is at least 1, a clock's base above 0. `Display` writes the
//! text, which parses back to the same budget. Which player takes which
//! budget is the player's check ([`Budget::for_search`],
//! [`Budget::for_engine`]), each with its own message.

use anyhow::{bail, Result};
use pacozero_protocol::uci::command::GoParams;
use std::time::Duration;

/// How long a player searches each decision (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// MCTS simulations a decision.
    Simulations(u32),
    /// Milliseconds a decision (MCTS) or a move (an engine).
    Millis(u64),
    /// An engine's nodes a move.
    Nodes(u64),
    /// An engine's search depth.
    Depth(u32),
    /// An engine's game clock: the base time, and the increment added after each move.
    Clock { base: Duration, increment: Duration },
}

impl Budget {
    /// Most simulations of a timed search (it normally stops on time first).
    pub(crate) const MAX_TIMED_SIMULATIONS: u32 = 1_000_000;

    /// An MCTS player's budget in the spec `spec`: `text`, or 64
    /// simulations when the spec gives none.
    pub fn for_search(spec: &str, text: Option<&str>) -> Result<Budget> {
        let Some(t) = text else { return Ok(Budget::Simulations(64)) };
        match t.parse::<Budget>() {
            Ok(b @ (Budget::Simulations(_) | Budget::Millis(_))) => Ok(b),
            Ok(b) => bail!("player '{spec}': {b} is an engine's budget; an MCTS player searches a number of simulations (64) or a time per decision (50ms)"),
            Err(_) if t.strip_suffix("ms").unwrap_or(t).parse::<u64>() == Ok(0) => bail!("player '{spec}': the budget must be at least 1"),
            Err(_) => bail!("player '{spec}': '{t}' is neither a number of simulations (64) nor a time per decision (50ms)"),
        }
    }

    /// An external engine's budget in the spec `spec`.
    pub fn for_engine(spec: &str, text: &str) -> Result<Budget> {
        match text.parse::<Budget>() {
            Ok(Budget::Simulations(_)) | Err(_) => bail!(
                "player '{spec}': budget '{text}' should be nodes=<N>, depth=<N> (1..=1000), <milliseconds>ms, each at least 1, or tc=<base seconds>[+<increment seconds>] with a base above 0"
            ),
            Ok(b) => Ok(b),
        }
    }

    /// The `go` command of an engine's move; `clock_left`: the mover's
    /// clock under a [`Budget::Clock`]. The same [`GoParams`] `pacozero uci`
    /// reads. (Simulations, an MCTS player's budget, are asked as nodes.)
    pub fn go(self, clock_left: Duration) -> GoParams {
        match self {
            Budget::Nodes(n) => GoParams { nodes: Some(n), ..GoParams::default() },
            Budget::Simulations(n) => GoParams { nodes: Some(n as u64), ..GoParams::default() },
            Budget::Depth(d) => GoParams { depth: Some(d), ..GoParams::default() },
            Budget::Millis(ms) => GoParams { movetime: Some(ms), ..GoParams::default() },
            Budget::Clock { increment, .. } => {
                let (t, i) = (clock_left.as_millis() as u64, increment.as_millis() as u64);
                GoParams { wtime: Some(t), btime: Some(t), winc: Some(i), binc: Some(i), ..GoParams::default() }
            }
        }
    }

    /// How long an engine's move may take unless its spec says: twice the
    /// time plus 2 s, 30 s for nodes and depth, a clock's own base.
    pub(crate) fn default_timeout(self) -> Duration {
        match self {
            Budget::Millis(ms) => Duration::from_millis(2 * ms + 2000),
            Budget::Simulations(_) | Budget::Nodes(_) | Budget::Depth(_) => Duration::from_secs(30),
            // Never the limit: the clock is (see the engine's best_turn).
            Budget::Clock { base, .. } => base,
        }
    }
}

impl std::str::FromStr for Budget {
    type Err = anyhow::Error;
    fn from_str(text: &str) -> Result<Budget> {
        let number = |digits: &str| digits.parse::<u64>().ok().filter(|&n| n >= 1);
        let budget = if let Some(n) = text.strip_prefix("nodes=") {
            number(n).map(Budget::Nodes)
        } else if let Some(n) = text.strip_prefix("depth=") {
            number(n).filter(|&d| d <= 1000).map(|d| Budget::Depth(d as u32))
        } else if let Some(n) = text.strip_suffix("ms") {
            number(n).map(Budget::Millis)
        } else if let Some(tc) = text.strip_prefix("tc=") {
            let seconds = |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite() && (0.0..=86_400.0).contains(x)).map(Duration::from_secs_f64);
            match tc.split_once('+') {
                Some((b, i)) => seconds(b).zip(seconds(i)).filter(|(b, _)| !b.is_zero()).map(|(base, increment)| Budget::Clock { base, increment }),
                None => seconds(tc).filter(|b| !b.is_zero()).map(|base| Budget::Clock { base, increment: Duration::ZERO }),
            }
        } else {
            number(text).and_then(|n| u32::try_from(n).ok()).map(Budget::Simulations)
        };
        budget.ok_or_else(|| {
            anyhow::anyhow!(
                "budget '{text}' should be simulations (64) or <milliseconds>ms, or for an engine nodes=<N>, depth=<N> (1..=1000) or tc=<base seconds>[+<increment seconds>]"
            )
        })
    }
}

impl std::fmt::Display for Budget {
    /// The budget as a spec writes it (see the module docs).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Simulations(n) => write!(f, "{n}"),
            Budget::Millis(ms) => write!(f, "{ms}ms"),
            Budget::Nodes(n) => write!(f, "nodes={n}"),
            Budget::Depth(d) => write!(f, "depth={d}"),
            Budget::Clock { base, increment } => write!(f, "tc={}+{}", base.as_secs_f64(), increment.as_secs_f64()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_budget_reads_back_from_its_text() {
        let clock = Budget::Clock { base: Duration::from_secs(60), increment: Duration::from_millis(500) };
        for b in [Budget::Simulations(64), Budget::Millis(50), Budget::Nodes(1000), Budget::Depth(12), clock] {
            assert_eq!(b.to_string().parse::<Budget>().unwrap(), b, "{b}");
        }
        assert_eq!("tc=60".parse::<Budget>().unwrap(), Budget::Clock { base: Duration::from_secs(60), increment: Duration::ZERO });
        for bad in ["0", "0ms", "nodes=0", "depth=1001", "tc=0+1", "fast", "-1", "4294967296"] {
            let e = bad.parse::<Budget>().unwrap_err().to_string();
            assert!(e.contains(&format!("budget '{bad}'")), "{bad}: {e}");
        }
    }

    #[test]
    fn a_search_takes_simulations_or_time_and_an_engine_anything_but_simulations() {
        assert_eq!(Budget::for_search("rollout", None).unwrap(), Budget::Simulations(64));
        assert_eq!(Budget::for_search("rollout:50ms", Some("50ms")).unwrap(), Budget::Millis(50));
        let e = Budget::for_search("rollout:nodes=5", Some("nodes=5")).unwrap_err().to_string();
        assert!(e.contains("nodes=5 is an engine's budget"), "{e}");
        assert_eq!(Budget::for_engine("uci:x:50ms", "50ms").unwrap(), Budget::Millis(50));
        let e = Budget::for_engine("uci:x:64", "64").unwrap_err().to_string();
        assert!(e.starts_with("player 'uci:x:64': budget '64' should be nodes=<N>"), "{e}");
    }
}
