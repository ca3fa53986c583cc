//! How long a `go` searches: visits and a time, from its parameters.
//!
//! | `go` | search |
//! |---|---|
//! | `nodes N` | N simulations |
//! | `depth D` | D × [`VISITS_PER_DEPTH`] simulations (MCTS has no depth; this is the documented stand-in) |
//! | `movetime T` | T ms |
//! | `wtime/btime [winc/binc] [movestogo]` | the mover's share of its clock (below) |
//! | `infinite` | until `stop` (at most the visit cap; at the cap it waits for `stop`) |
//! | nothing | the default visits |
//!
//! Several limits together: whichever ends first. The share of a clock of
//! `t` ms with increment `i` and `m` moves to go (default
//! [`DEFAULT_MOVES_TO_GO`]) after the move overhead `o` (the `Move Overhead`
//! option): with `a = max(t − o, 0)`, the search gets
//! `min(a / m + 3i/4, 4a/5)`. It never plans more than four fifths of what is
//! left after the overhead, so with an increment the clock never runs out:
//! each move spends less than it has, and the increment comes back.

use pacozero_engine::Color;
use std::time::Duration;

use super::command::GoParams;

/// Simulations that `go depth D` searches per unit of depth.
pub const VISITS_PER_DEPTH: u32 = 100;
/// Moves to go assumed by a clock without `movestogo`.
pub const DEFAULT_MOVES_TO_GO: u64 = 30;

/// The limits of one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// Simulations.
    pub visits: u32,
    /// Time from the start of the search.
    pub time: Option<Duration>,
    /// `go infinite`: no `bestmove` until `stop`.
    pub infinite: bool,
}

/// The limits of `go`, for `mover`, with `overhead_ms` of move overhead;
/// `default_visits` for a bare `go`, every figure capped at `visit_cap`.
pub fn search_limits(go: &GoParams, mover: Color, overhead_ms: u64, default_visits: u32, visit_cap: u32) -> SearchLimits {
    let cap = |n: u64| n.min(visit_cap as u64) as u32;
    let (clock, increment) = match mover {
        Color::White => (go.wtime, go.winc),
        Color::Black => (go.btime, go.binc),
    };
    let share = clock.map(|t| clock_share(t, increment.unwrap_or(0), go.movestogo, overhead_ms));
    let time = match (go.movetime, share) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let visits = match (go.nodes, go.depth) {
        (Some(n), Some(d)) => Some(n.min(d as u64 * VISITS_PER_DEPTH as u64)),
        (n, d) => n.or(d.map(|d| d as u64 * VISITS_PER_DEPTH as u64)),
    };
    let infinite = go.infinite;
    let visits = match visits {
        Some(v) if !infinite => cap(v),
        _ if infinite || time.is_some() => visit_cap,
        _ => default_visits.min(visit_cap),
    };
    SearchLimits { visits: visits.max(1), time: if infinite { None } else { time.map(Duration::from_millis) }, infinite }
}

/// Milliseconds of a clock of `t` ms to spend on this move (see the module docs).
///
/// Any clock and increment an interface sends is served, up to `u64::MAX`
/// ms: the sum is taken in 128 bits, and the share, at most four fifths of
/// the clock, always fits back.
pub fn clock_share(t: u64, increment: u64, moves_to_go: Option<u32>, overhead_ms: u64) -> u64 {
    let available = u128::from(t.saturating_sub(overhead_ms));
    let m = moves_to_go.map_or(DEFAULT_MOVES_TO_GO, |m| m.max(1) as u64);
    let share = (available / u128::from(m) + u128::from(increment) * 3 / 4).min(available * 4 / 5);
    u64::try_from(share).expect("four fifths of a u64 fits a u64")
}

pub use pacozero_search::mcts::deadline;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn go(f: impl FnOnce(&mut GoParams)) -> GoParams {
        let mut g = GoParams::default();
        f(&mut g);
        g
    }

    #[test]
    fn each_parameter_limits_the_search() {
        let l = search_limits(&go(|g| g.nodes = Some(300)), Color::White, 50, 800, 10_000);
        assert_eq!(l, SearchLimits { visits: 300, time: None, infinite: false });
        assert_eq!(search_limits(&go(|g| g.depth = Some(3)), Color::White, 50, 800, 10_000).visits, 300);
        assert_eq!(search_limits(&go(|g| g.nodes = Some(1 << 40)), Color::White, 50, 800, 10_000).visits, 10_000);
        let l = search_limits(&go(|g| g.movetime = Some(250)), Color::Black, 50, 800, 10_000);
        assert_eq!(l, SearchLimits { visits: 10_000, time: Some(Duration::from_millis(250)), infinite: false });
        assert_eq!(search_limits(&go(|_| ()), Color::White, 50, 800, 10_000), SearchLimits { visits: 800, time: None, infinite: false });
        let l = search_limits(&go(|g| g.infinite = true), Color::White, 50, 800, 10_000);
        assert_eq!(l, SearchLimits { visits: 10_000, time: None, infinite: true });
        // The mover's own clock.
        let l = search_limits(&go(|g| (g.wtime, g.btime) = (Some(60_000), Some(3_050))), Color::Black, 50, 800, 10_000);
        assert_eq!(l.time, Some(Duration::from_millis(100)));
        // Both a node and a time limit.
        let l = search_limits(&go(|g| (g.nodes, g.movetime) = (Some(20), Some(90))), Color::White, 50, 800, 10_000);
        assert_eq!((l.visits, l.time), (20, Some(Duration::from_millis(90))));
    }

    #[test]
    fn several_limits_together_end_at_the_first() {
        let at = |f: fn(&mut GoParams), mover| search_limits(&go(f), mover, 50, 800, 10_000);
        assert_eq!(at(|g| (g.nodes, g.depth) = (Some(500), Some(2)), Color::White).visits, 200);
        assert_eq!(at(|g| (g.nodes, g.depth) = (Some(150), Some(2)), Color::White).visits, 150);
        // A clock's share (30,050 - 50 over 30 moves: 1000) and a move time.
        let l = at(|g| (g.wtime, g.movetime) = (Some(30_050), Some(700)), Color::White);
        assert_eq!(l.time, Some(Duration::from_millis(700)));
        let l = at(|g| (g.wtime, g.movetime) = (Some(30_050), Some(1_500)), Color::White);
        assert_eq!((l.visits, l.time), (10_000, Some(Duration::from_millis(1_000))));
        // White's increment is White's, Black's is Black's.
        let l = at(|g| (g.wtime, g.btime, g.winc, g.binc) = (Some(30_050), Some(30_050), Some(400), Some(0)), Color::White);
        assert_eq!(l.time, Some(Duration::from_millis(1_300)));
        let l = at(|g| (g.wtime, g.btime, g.winc, g.binc) = (Some(30_050), Some(30_050), Some(400), Some(0)), Color::Black);
        assert_eq!(l.time, Some(Duration::from_millis(1_000)));
        // Infinite overrides the other limits (until `stop`, at most the cap).
        let l = at(|g| (g.infinite, g.nodes, g.movetime) = (true, Some(50), Some(10)), Color::White);
        assert_eq!(l, SearchLimits { visits: 10_000, time: None, infinite: true });
        // The default never passes the cap.
        assert_eq!(search_limits(&go(|_| ()), Color::White, 50, 800, 300).visits, 300);
        assert_eq!(search_limits(&go(|g| g.nodes = Some(0)), Color::White, 50, 800, 300).visits, 1, "at least one");
    }

    #[test]
    fn a_clock_share_never_takes_more_than_four_fifths_of_what_is_left() {
        assert_eq!(clock_share(30_050, 0, None, 50), 1000);
        assert_eq!(clock_share(10_050, 1000, Some(1), 50), 8000);
        assert_eq!(clock_share(1_050, 1000, None, 50), 783);
        assert_eq!(clock_share(40, 1000, None, 50), 0);
        // A game of many moves at 1 s + 100 ms: the clock stays positive.
        let mut clock: i64 = 1000;
        for _ in 0..500 {
            let spent = clock_share(clock as u64, 100, None, 50) as i64 + 20; // 20 ms of latency beyond the plan
            assert!(spent < clock, "{spent} of {clock}");
            clock += 100 - spent;
        }
        assert!(clock > 100, "{clock}");
    }

    #[test]
    fn the_largest_clocks_are_served_without_overflow() {
        let max = i64::MAX as u64; // the largest a `go` line can say
                                   // (max − 50) / 30 + 3 max / 4, under four fifths of max − 50.
        assert_eq!(clock_share(max, max, None, 50), 7_224_974_762_202_907_713);
        assert_eq!(clock_share(max, 0, Some(1), 0), 7_378_697_629_483_820_645, "four fifths");
        assert_eq!(clock_share(u64::MAX, u64::MAX, Some(u32::MAX), 0), 13_835_058_059_577_131_008);
        assert_eq!(clock_share(0, u64::MAX, Some(1), 5000), 0, "an empty clock is no time, whatever the increment");
        let l = search_limits(&go(|g| (g.wtime, g.winc) = (Some(max), Some(max))), Color::White, 50, 800, 10_000);
        assert_eq!((l.visits, l.time), (10_000, Some(Duration::from_millis(7_224_974_762_202_907_713))));
        // A time past what the system's clock can hold is no deadline.
        let now = Instant::now();
        assert_eq!(deadline(now, Some(Duration::MAX)), None);
        assert_eq!(deadline(now, Some(Duration::from_millis(5))), Some(now + Duration::from_millis(5)));
        assert_eq!(deadline(now, None), None);
    }
}
