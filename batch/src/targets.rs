//! Training targets that come from other rows of the same game.
//!
//! **Value.** The value target is a mix of three WDL triples, all from the
//! row's mover's point of view:
//!
//! | part | weight | source |
//! |---|---|---|
//! | the game's result | `1 − value_q_mix − value_horizon_mix` | `result`, one-hot |
//! | the root's estimate | `value_q_mix` | `root_wdl` of the row |
//! | a short-horizon estimate | `value_horizon_mix` | `root_wdl` of the same game's row `value_horizon` decisions later; the result where the game ended sooner |
//!
//! The short-horizon part (KataGo's TD-style value targets) is less noisy
//! than the result, which a single blunder many moves later flips, and
//! less biased than the row's own root value, which is what the network
//! already believed.
//!
//! **Truncated games.** A game cut at its length cap
//! ([`PositionRow::truncated`]: reasons `max_length` and `material`) has no
//! result: its recorded draw or material win is never a target. Its rows
//! take the search's own value in the result's place ([`outcome_wdl`]: the
//! row's `root_wdl`), and where the cut comes within the horizon, the
//! short-horizon part takes the root WDL of the game's last row (the last
//! search before the cut) instead of the result. Their moves-left target is
//! masked ([`moves_left_weight`]): the decisions to the cut are not
//! decisions to an end.
//!
//! **Reply policy.** With `net.reply_policy`, the second policy head learns
//! the search policy of the opponent's first decision after this row's turn
//! ([`reply_rows`]), where that decision got a full search.

use crate::config::TrainConfig;
use pacozero_data::PositionRow;
use std::collections::HashMap;

/// The one-hot WDL of a result (`1` win, `0` draw, `-1` loss).
pub fn result_wdl(result: i8) -> [f32; 3] {
    match result {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    }
}

/// What a row's value target takes for the game's outcome: the one-hot
/// result of a decided game, the row's own search value (`root_wdl`) for a
/// truncated one, whose recorded result (a draw or a material win at the
/// cut) is no outcome.
pub fn outcome_wdl(row: &PositionRow) -> [f32; 3] {
    if row.truncated {
        row.root_wdl
    } else {
        result_wdl(row.result)
    }
}

/// The weight of a row's moves-left target, as a factor of its row weight:
/// 1, or 0 for a truncated game (its `moves_left` counts decisions to the
/// cut, not to an end).
pub fn moves_left_weight(row: &PositionRow) -> f32 {
    if row.truncated {
        0.0
    } else {
        1.0
    }
}

/// `wdl` of the mover of `to` seen by the mover `from` (win and loss swap
/// when they differ).
fn seen_by(from: u8, to: u8, wdl: [f32; 3]) -> [f32; 3] {
    if from == to {
        wdl
    } else {
        [wdl[2], wdl[1], wdl[0]]
    }
}

/// The targets of a batch beyond each row's own columns (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Targets<'a> {
    /// Weight of the row's own `root_wdl`.
    pub q_mix: f32,
    /// Weight of the short-horizon estimate.
    pub horizon_mix: f32,
    /// The short-horizon estimate of each row of the window ([`future_wdl`]);
    /// may be empty when `horizon_mix` is 0.
    pub future: &'a [[f32; 3]],
    /// Each row's reply row ([`reply_rows`]); empty without a reply head.
    pub reply: &'a [Option<u32>],
}

impl Targets<'_> {
    /// The result and the row's root value only; no reply targets.
    pub fn root(q_mix: f64) -> Targets<'static> {
        Targets { q_mix: q_mix as f32, horizon_mix: 0.0, future: &[], reply: &[] }
    }

    /// The value target of row `i` of the window. A truncated game's row
    /// takes its search value where a decided one takes its result
    /// ([`outcome_wdl`]).
    pub fn value(&self, rows: &[PositionRow], i: usize) -> [f32; 3] {
        let r = &rows[i];
        let outcome = outcome_wdl(r);
        let future = if self.horizon_mix > 0.0 { self.future[i] } else { outcome };
        let keep = 1.0 - self.q_mix - self.horizon_mix;
        std::array::from_fn(|j| keep * outcome[j] + self.q_mix * r.root_wdl[j] + self.horizon_mix * future[j])
    }
}

/// For each row, the `root_wdl` of the same game's row `horizon` decisions
/// later, turned to this row's mover's point of view (win and loss swap
/// when the other side moves there); where the game ended within `horizon`
/// decisions or that row is not in `rows`, the row's result, or for a
/// truncated game the root WDL of its last row (the last search before the
/// cut, turned likewise; the row's own where that row is not in `rows`
/// either).
pub fn future_wdl(rows: &[PositionRow], horizon: u32) -> Vec<[f32; 3]> {
    let at: HashMap<(u64, u32), usize> = rows.iter().enumerate().map(|(i, r)| ((r.game_id, r.ply), i)).collect();
    let row_at = |game: u64, ply: Option<u32>| ply.and_then(|ply| at.get(&(game, ply))).map(|&j| &rows[j]);
    rows.iter()
        .map(|r| match row_at(r.game_id, r.ply.checked_add(horizon)) {
            Some(f) if r.moves_left >= horizon => seen_by(r.side_to_move, f.side_to_move, f.root_wdl),
            _ if r.truncated => match row_at(r.game_id, r.ply.checked_add(r.moves_left)) {
                Some(last) => seen_by(r.side_to_move, last.side_to_move, last.root_wdl),
                None => r.root_wdl,
            },
            _ => result_wdl(r.result),
        })
        .collect()
}

/// The short-horizon estimates a window of rows trains on: [`future_wdl`]
/// at the configured `value_horizon`, or none when `value_horizon_mix` is 0.
pub fn window_future(rows: &[PositionRow], cfg: &TrainConfig) -> Vec<[f32; 3]> {
    if cfg.value_horizon_mix > 0.0 {
        future_wdl(rows, cfg.value_horizon)
    } else {
        Vec::new()
    }
}

/// For each row, the row of the opponent's first decision after this row's
/// turn (the next row of the same game whose mover differs), when it is in
/// `rows` and got a full search with legal decisions; `None` otherwise (the
/// game ended, or that decision had only a cheap search).
pub fn reply_rows(rows: &[PositionRow]) -> Vec<Option<u32>> {
    let at: HashMap<(u64, u32), usize> = rows.iter().enumerate().map(|(i, r)| ((r.game_id, r.ply), i)).collect();
    rows.iter()
        .map(|r| {
            let mut ply = r.ply;
            loop {
                ply = ply.checked_add(1)?;
                let &j = at.get(&(r.game_id, ply))?;
                let f = &rows[j];
                if f.side_to_move != r.side_to_move {
                    return (f.full_search && !f.legal_actions.is_empty()).then_some(j as u32);
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(game_id: u64, ply: u32, side: u8, wdl: [f32; 3], result: i8, moves_left: u32) -> PositionRow {
        PositionRow {
            game_id,
            ply,
            side_to_move: side,
            planes: Vec::new(),
            scalars: Vec::new(),
            legal_actions: Vec::new(),
            policy: Vec::new(),
            full_search: false,
            root_q: wdl[0] - wdl[2],
            root_wdl: wdl,
            action: 0,
            result,
            moves_left,
            aux_targets: Vec::new(),
            weight: 1.0,
            network_id: String::new(),
            truncated: false,
        }
    }

    /// Game 7: White moves at plies 0 and 1 (a two-decision turn), Black at 2, White at 3 (the last).
    fn game_seven() -> Vec<PositionRow> {
        vec![
            row(7, 0, 0, [0.5, 0.3, 0.2], 1, 3),
            row(7, 1, 0, [0.6, 0.3, 0.1], 1, 2),
            row(7, 2, 1, [0.1, 0.2, 0.7], -1, 1),
            row(7, 3, 0, [0.9, 0.1, 0.0], 1, 0),
        ]
    }

    #[test]
    fn the_future_estimate_is_the_later_rows_root_seen_by_this_mover() {
        let mut rows = game_seven();
        // A row of another game, to be sure rows are matched by game.
        rows.push(row(8, 2, 1, [0.3, 0.3, 0.4], 0, 5));
        let f = future_wdl(&rows, 2);
        assert_eq!(f[0], [0.7, 0.2, 0.1], "ply 2 is Black's: win and loss swap");
        assert_eq!(f[1], [0.9, 0.1, 0.0], "ply 3 is White's again");
        assert_eq!(f[2], [0.0, 0.0, 1.0], "the game ends within 2 decisions: Black's result");
        assert_eq!(f[3], [1.0, 0.0, 0.0]);
        assert_eq!(f[4], [0.0, 1.0, 0.0], "ply 4 of game 8 is not there: the result");
        assert_eq!(future_wdl(&rows, 0)[2], rows[2].root_wdl, "horizon 0 is the row's own root");
    }

    /// The trainer's window takes its estimates at the configured horizon
    /// (the one `configs/quick.toml` ships), not the row's own root.
    #[test]
    fn the_window_uses_the_configured_horizon() {
        let rows = game_seven();
        let cfg = TrainConfig { value_horizon: 2, value_horizon_mix: 0.3, ..TrainConfig::default() };
        let f = window_future(&rows, &cfg);
        assert_eq!(f, future_wdl(&rows, 2));
        assert_eq!(f[0], [0.7, 0.2, 0.1], "ply 2's root, seen by White");
        assert_ne!(f, future_wdl(&rows, 0));
        let t = Targets { q_mix: 0.0, horizon_mix: 0.3, future: &f, reply: &[] }.value(&rows, 0);
        let want = [0.7 * 1.0 + 0.3 * 0.7, 0.3 * 0.2, 0.3 * 0.1];
        for j in 0..3 {
            assert!((t[j] - want[j]).abs() < 1e-6, "{t:?} != {want:?}");
        }
        let off = TrainConfig { value_horizon: 2, value_horizon_mix: 0.0, ..TrainConfig::default() };
        assert!(window_future(&rows, &off).is_empty());
    }

    #[test]
    fn the_mix_weights_the_three_parts() {
        let rows = vec![row(1, 0, 0, [0.2, 0.6, 0.2], -1, 4)];
        let future = [[0.5, 0.5, 0.0]];
        let t = Targets { q_mix: 0.25, horizon_mix: 0.5, future: &future, reply: &[] }.value(&rows, 0);
        let want = [0.25 * 0.2 + 0.5 * 0.5, 0.25 * 0.6 + 0.5 * 0.5, 0.25 + 0.25 * 0.2];
        for j in 0..3 {
            assert!((t[j] - want[j]).abs() < 1e-6, "{t:?} != {want:?}");
        }
        assert_eq!(Targets::root(0.0).value(&rows, 0), [0.0, 0.0, 1.0], "the result alone");
    }

    /// Game 9, cut at its length cap after four decisions (White at plies
    /// 0 and 2, Black at 1 and 3) and recorded as a material win for White:
    /// a truncated game.
    fn cut_game() -> Vec<PositionRow> {
        [(0, [0.5, 0.3, 0.2], 1), (1, [0.1, 0.6, 0.3], -1), (2, [0.4, 0.4, 0.2], 1), (3, [0.2, 0.2, 0.6], -1)]
            .into_iter()
            .map(|(ply, wdl, result)| PositionRow { truncated: true, ..row(9, ply, (ply % 2) as u8, wdl, result, 3 - ply) })
            .collect()
    }

    fn assert_close(got: [f32; 3], want: [f32; 3], what: &str) {
        for j in 0..3 {
            assert!((got[j] - want[j]).abs() < 1e-6, "{what}: {got:?} != {want:?}");
        }
    }

    /// A truncated game's rows train the search's value where a decided
    /// game's train the result: the recorded result (here a material win)
    /// is no target, whatever it says; a decided row is as before.
    #[test]
    fn a_truncated_games_rows_take_the_search_value_not_the_result() {
        let rows = cut_game();
        for q_mix in [0.0, 0.25, 0.5, 1.0] {
            let t = Targets::root(q_mix);
            for (i, r) in rows.iter().enumerate() {
                assert_close(t.value(&rows, i), r.root_wdl, &format!("row {i}, value_q_mix {q_mix}"));
            }
        }
        // The recorded result changes nothing.
        let lost: Vec<PositionRow> = rows.iter().map(|r| PositionRow { result: -r.result, ..r.clone() }).collect();
        assert_eq!(Targets::root(0.25).value(&lost, 0), Targets::root(0.25).value(&rows, 0));
        assert_eq!(outcome_wdl(&rows[1]), [0.1, 0.6, 0.3]);
        assert_eq!(moves_left_weight(&rows[1]), 0.0);
        // The same rows of a decided game: the result, mixed as before.
        let decided: Vec<PositionRow> = rows.iter().map(|r| PositionRow { truncated: false, ..r.clone() }).collect();
        assert_close(Targets::root(0.25).value(&decided, 0), [0.75 + 0.25 * 0.5, 0.25 * 0.3, 0.25 * 0.2], "decided row 0");
        assert_eq!(outcome_wdl(&decided[1]), [0.0, 0.0, 1.0]);
        assert_eq!(moves_left_weight(&decided[1]), 1.0);
    }

    /// Where a truncated game is cut within the horizon, the short-horizon
    /// estimate is the last search before the cut (seen by this row's
    /// mover), not the result; the row's own root when the last row is not
    /// in the window. Within the game it is the later row's, as always.
    #[test]
    fn a_truncated_games_horizon_ends_at_its_last_search() {
        let rows = cut_game();
        let f = future_wdl(&rows, 2);
        assert_eq!(f[0], [0.4, 0.4, 0.2], "ply 2 is in the game: its root");
        assert_eq!(f[1], [0.2, 0.2, 0.6], "ply 3 is in the game: its root (Black's own)");
        assert_eq!(f[2], [0.6, 0.2, 0.2], "cut within 2: the last row's root, Black's, seen by White");
        assert_eq!(f[3], [0.2, 0.2, 0.6], "the last row itself: its own root");
        let without_last = &rows[..3];
        assert_eq!(future_wdl(without_last, 2)[2], [0.4, 0.4, 0.2], "the last row is not in the window: the row's own root");
        // The value target mixes it in like any horizon estimate.
        let t = Targets { q_mix: 0.25, horizon_mix: 0.5, future: &f, reply: &[] }.value(&rows, 2);
        assert_close(t, [0.25 * 0.4 + 0.25 * 0.4 + 0.5 * 0.6, 0.25 * 0.4 + 0.25 * 0.4 + 0.5 * 0.2, 0.25 * 0.2 + 0.25 * 0.2 + 0.5 * 0.2], "row 2");
        // A decided game with the same rows falls back on its result.
        let decided: Vec<PositionRow> = rows.iter().map(|r| PositionRow { truncated: false, ..r.clone() }).collect();
        assert_eq!(future_wdl(&decided, 2)[2], [1.0, 0.0, 0.0]);
    }

    #[test]
    fn the_reply_is_the_opponents_next_full_search() {
        let full = |mut r: PositionRow| {
            r.full_search = true;
            r.legal_actions = vec![3, 5];
            r
        };
        let rows = vec![
            full(row(7, 0, 0, [0.5, 0.3, 0.2], 1, 4)),
            full(row(7, 1, 0, [0.5, 0.3, 0.2], 1, 3)),
            full(row(7, 2, 1, [0.5, 0.3, 0.2], -1, 2)),
            row(7, 3, 0, [0.5, 0.3, 0.2], 1, 1),
            full(row(7, 4, 1, [0.5, 0.3, 0.2], -1, 0)),
        ];
        let r = reply_rows(&rows);
        assert_eq!(r[0], Some(2), "past the mover's own second decision");
        assert_eq!(r[1], Some(2));
        assert_eq!(r[2], None, "the reply (ply 3) had a cheap search only");
        assert_eq!(r[3], Some(4));
        assert_eq!(r[4], None, "the game ended");
    }
}
