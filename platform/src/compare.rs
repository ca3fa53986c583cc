//! A network (or a book) measured against a reference opening book without
//! playing it (`pacozero book compare`).
//!
//! At every reference position with book moves the candidate picks one whole
//! turn: a network plays it as a match player would (PUCT without noise,
//! `simulations` per decision, the most visited decision, the tree kept from
//! one decision of the turn to the next); a candidate book plays its
//! preferred move (highest logit: the most visited move of a built book).
//! Positions the candidate book lacks are counted, not compared.
//!
//! Both books are looked up by the rule of [`pacozero_data::book_lookup`]: one row per
//! position, the first usable one (for a platform book the entry with the
//! smallest half-move count); the entries left out (kept only for export:
//! those that cannot be replayed, other half-move counts of a position) are
//! counted by reason in `left_out` and `candidate_left_out` and named in the
//! table's first lines, e.g. `reference: b.json (9 entries, 3 left out: 1
//! game over, 1 illegal action, 1 same position, other half-move count)`.
//!
//! | metric | a position counts when |
//! |---|---|
//! | `top1` | the candidate's turn reaches the same position as the reference's preferred move (highest logit) |
//! | `any_listed` | it reaches the position of any of the reference's moves |
//! | `first_action` | its first atomic action is that of the reference's preferred move |
//! | `value_sign` | among positions whose reference \|value\| > 0.2: the candidate's value has the same sign |
//! | `mean_abs_value_diff` | mean \|candidate value − reference value\| over all compared positions |
//!
//! Turns are compared by the position they reach, so two action orders of
//! one chain are one turn. Values are the side to move's: a network's is the
//! root value of the search of the turn's first decision.
//!
//! The same metrics are given by game phase: by ply bucket (the position's
//! book depth, turns from the reference's nearest start position) and by the
//! number of unions on the board.

use std::collections::{BTreeMap, HashMap};

use anyhow::{bail, Result};
use pacozero_data::book::{BookMove, BookPosition};
use pacozero_engine::paco::{action_from_index, GameState, Position};

/// The game of the platform's books: the one game `book compare` compares.
pub type PlatformGame = GameState;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use pacozero_search::{evaluate_pending, Algorithm, EvalOutput, Evaluator, Search, SearchConfig};

use pacozero_data::book_lookup::{left_out_text, lookup_rows};
use pacozero_engine::prelude::*;

/// Reference |value| above which value signs are compared.
pub const SIGN_THRESHOLD: f32 = 0.2;

/// Ply buckets: (first ply, last ply) inclusive.
const PLY_BUCKETS: [(u32, u32); 6] = [(0, 1), (2, 3), (4, 5), (6, 7), (8, 11), (12, u32::MAX)];
/// Union-count buckets.
const UNION_BUCKETS: [(u32, u32); 6] = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 5), (6, u32::MAX)];

fn bucket_label(prefix: &str, (lo, hi): (u32, u32)) -> String {
    match hi {
        u32::MAX => format!("{prefix} {lo}+"),
        h if h == lo => format!("{prefix} {lo}"),
        h => format!("{prefix} {lo}-{h}"),
    }
}

/// A reference position prepared for comparison.
struct RefPosition {
    pos: Position,
    value: f32,
    preferred_child: u64,
    preferred_first: String,
    children: Vec<u64>,
    ply: u32,
    unions: u32,
}

/// The reference's preferred move: highest logit, the first on ties.
fn preferred(moves: &[BookMove]) -> Option<&BookMove> {
    moves.iter().reduce(|best, m| if m.logit > best.logit { m } else { best })
}

fn first_action(actions: &str) -> String {
    actions.split_whitespace().next().unwrap_or("").to_string()
}

/// What a candidate did at one position.
struct Choice {
    child: u64,
    first_action: String,
    value: f32,
}

/// Counts of one group of positions.
#[derive(Clone, Debug, Default)]
struct Tally {
    positions: u32,
    top1: u32,
    any: u32,
    first: u32,
    sign_positions: u32,
    sign_agree: u32,
    abs_diff: f64,
}

impl Tally {
    fn add(&mut self, r: &RefPosition, c: &Choice) {
        self.positions += 1;
        self.top1 += (c.child == r.preferred_child) as u32;
        self.any += r.children.contains(&c.child) as u32;
        self.first += (c.first_action == r.preferred_first) as u32;
        if r.value.abs() > SIGN_THRESHOLD {
            self.sign_positions += 1;
            self.sign_agree += (c.value.signum() == r.value.signum() && c.value != 0.0) as u32;
        }
        self.abs_diff += (c.value - r.value).abs() as f64;
    }

    fn agreement(&self, group: String) -> Agreement {
        let n = self.positions.max(1) as f64;
        Agreement {
            group,
            positions: self.positions,
            top1: self.top1 as f64 / n,
            any_listed: self.any as f64 / n,
            first_action: self.first as f64 / n,
            value_sign_positions: self.sign_positions,
            value_sign: (self.sign_positions > 0).then(|| self.sign_agree as f64 / self.sign_positions as f64),
            mean_abs_value_diff: self.abs_diff / n,
        }
    }
}

/// The metrics of one group of positions (fractions in \[0, 1\]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// `all`, `ply 2-3`, `unions 1`, ...
    pub group: String,
    pub positions: u32,
    pub top1: f64,
    pub any_listed: f64,
    pub first_action: f64,
    /// Positions whose reference |value| > 0.2.
    pub value_sign_positions: u32,
    /// `None` when no position's reference |value| > 0.2.
    pub value_sign: Option<f64>,
    pub mean_abs_value_diff: f64,
}

/// The comparison's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareReport {
    pub reference: String,
    pub candidate: String,
    /// Entries (rows) of the reference book: compared, without moves,
    /// missing from the candidate, or left out.
    pub reference_positions: usize,
    /// Reference entries lookups leave out, by reason (see [`pacozero_data::book_lookup`]).
    pub left_out: BTreeMap<String, usize>,
    /// Candidate book entries lookups leave out, by reason (none for a network).
    pub candidate_left_out: BTreeMap<String, usize>,
    /// Reference positions without book moves (not compared).
    pub without_moves: usize,
    /// Reference positions the candidate book does not have (not compared).
    pub missing: usize,
    pub overall: Agreement,
    /// Non-empty ply buckets, earliest first.
    pub by_ply: Vec<Agreement>,
    /// Non-empty union-count buckets, fewest first.
    pub by_unions: Vec<Agreement>,
}

impl CompareReport {
    /// The report as a text table.
    pub fn table(&self) -> String {
        let mut s = format!("reference: {} ({} entries", self.reference, self.reference_positions);
        if !self.left_out.is_empty() {
            s.push_str(&format!(", {}", left_out_text(&self.left_out)));
        }
        if self.without_moves > 0 {
            s.push_str(&format!(", {} without moves", self.without_moves));
        }
        if self.missing > 0 {
            s.push_str(&format!(", {} not in the candidate book", self.missing));
        }
        s.push_str(&format!(")\ncandidate: {}", self.candidate));
        if !self.candidate_left_out.is_empty() {
            s.push_str(&format!(" ({})", left_out_text(&self.candidate_left_out)));
        }
        s.push('\n');
        s.push_str(&format!(
            "{:<12} {:>9} {:>7} {:>10} {:>12} {:>16} {:>10}\n",
            "group", "positions", "top-1", "any listed", "first action", "value sign (n)", "mean |dv|"
        ));
        let pct = |x: f64| format!("{:.1}%", 100.0 * x);
        for a in std::iter::once(&self.overall).chain(&self.by_ply).chain(&self.by_unions) {
            let sign = match a.value_sign {
                Some(x) => format!("{} ({})", pct(x), a.value_sign_positions),
                None => "- (0)".to_string(),
            };
            s.push_str(&format!(
                "{:<12} {:>9} {:>7} {:>10} {:>12} {:>16} {:>10.3}\n",
                a.group,
                a.positions,
                pct(a.top1),
                pct(a.any_listed),
                pct(a.first_action),
                sign,
                a.mean_abs_value_diff
            ));
        }
        s
    }
}

/// The reference positions with moves, how many have none, and the
/// entries left out by reason.
fn prepare(reference: &[BookPosition]) -> Result<(Vec<RefPosition>, usize, BTreeMap<String, usize>)> {
    let lookup = lookup_rows(reference);
    let mut out = Vec::with_capacity(lookup.rows.len());
    let mut without = 0;
    for r in lookup.rows {
        let pos: Position = r.fen.parse().map_err(|e| anyhow::anyhow!("reference position \"{}\": {e}", r.fen))?;
        let Some(best) = preferred(&r.moves) else {
            without += 1;
            continue;
        };
        out.push(RefPosition {
            pos,
            value: r.value(),
            preferred_child: best.child,
            preferred_first: first_action(&best.actions),
            children: r.moves.iter().map(|m| m.child).collect(),
            ply: r.depth,
            unions: pos.unions().0.count_ones(),
        });
    }
    Ok((out, without, lookup.left_out))
}

/// What is known of a comparison besides its pairs.
struct Counts {
    total: usize,
    without_moves: usize,
    missing: usize,
    left_out: BTreeMap<String, usize>,
    candidate_left_out: BTreeMap<String, usize>,
}

fn report(reference: String, candidate: String, counts: Counts, pairs: &[(&RefPosition, Choice)]) -> CompareReport {
    let mut all = Tally::default();
    let mut ply = vec![Tally::default(); PLY_BUCKETS.len()];
    let mut unions = vec![Tally::default(); UNION_BUCKETS.len()];
    let find = |buckets: &[(u32, u32)], x: u32| buckets.iter().position(|&(lo, hi)| x >= lo && x <= hi).expect("the buckets cover every count");
    for (r, c) in pairs {
        all.add(r, c);
        ply[find(&PLY_BUCKETS, r.ply)].add(r, c);
        unions[find(&UNION_BUCKETS, r.unions)].add(r, c);
    }
    let groups = |tallies: &[Tally], buckets: &[(u32, u32)], prefix: &str| -> Vec<Agreement> {
        tallies.iter().zip(buckets).filter(|(t, _)| t.positions > 0).map(|(t, &b)| t.agreement(bucket_label(prefix, b))).collect()
    };
    CompareReport {
        reference,
        candidate,
        reference_positions: counts.total,
        left_out: counts.left_out,
        candidate_left_out: counts.candidate_left_out,
        without_moves: counts.without_moves,
        missing: counts.missing,
        overall: all.agreement("all".into()),
        by_ply: groups(&ply, &PLY_BUCKETS, "ply"),
        by_unions: groups(&unions, &UNION_BUCKETS, "unions"),
    }
}

/// Compares a candidate book with the reference (both as book rows; names for the report).
pub fn compare_books(reference_name: &str, reference: &[BookPosition], candidate_name: &str, candidate: &[BookPosition]) -> Result<CompareReport> {
    let (refs, without, left_out) = prepare(reference)?;
    let candidate = lookup_rows(candidate);
    let by_hash: HashMap<u64, &BookPosition> = candidate.rows.iter().map(|&p| (p.hash, p)).collect();
    let mut pairs = Vec::with_capacity(refs.len());
    let mut missing = 0;
    for r in &refs {
        match by_hash.get(&r.pos.hash()).and_then(|p| preferred(&p.moves).map(|m| (p, m))) {
            Some((p, m)) => pairs.push((r, Choice { child: m.child, first_action: first_action(&m.actions), value: p.value() })),
            None => missing += 1,
        }
    }
    let counts = Counts { total: reference.len(), without_moves: without, missing, left_out, candidate_left_out: candidate.left_out };
    Ok(report(reference_name.into(), candidate_name.into(), counts, &pairs))
}

/// Search settings of a compared network: a match player's (PUCT, no noise,
/// tree reuse) at `simulations` per decision.
pub fn compare_search_config(simulations: u32) -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Puct,
        full_simulations: simulations,
        cheap_simulations: simulations,
        dirichlet_epsilon: 0.0,
        gumbel_noise: false,
        tree_reuse: true,
        ..SearchConfig::default()
    }
}

/// One reference position's turn in progress.
struct Job {
    search: Search<GameState>,
    state: GameState,
    rng: ChaCha8Rng,
    actions: Vec<u16>,
    value: Option<f32>,
    done: bool,
}

/// The turn a network's search plays at each position: `batch` positions
/// are searched together, their leaves forming one evaluator call.
/// `progress(done, total)` is called after each group of positions.
pub fn compare_search<E: Evaluator<GameState> + ?Sized>(
    reference_name: &str,
    reference: &[BookPosition],
    evaluator: &E,
    simulations: u32,
    batch: usize,
    seed: u64,
    mut progress: impl FnMut(usize, usize),
) -> Result<CompareReport> {
    if simulations == 0 || batch == 0 {
        bail!("simulations and batch must be at least 1");
    }
    let (refs, without, left_out) = prepare(reference)?;
    let cfg = compare_search_config(simulations);
    let mut choices: Vec<Choice> = Vec::with_capacity(refs.len());
    for group in refs.chunks(batch) {
        let mut jobs: Vec<Job> = group
            .iter()
            .map(|r| {
                let state = GameState::new(r.pos);
                let mut search = Search::new(cfg.clone(), state.clone(), evaluator.needs_encoding());
                search.begin(simulations, false);
                Job { search, state, rng: ChaCha8Rng::seed_from_u64(seed ^ r.pos.hash()), actions: Vec::new(), value: None, done: false }
            })
            .collect();
        let mut out = EvalOutput::default();
        loop {
            for j in jobs.iter_mut().filter(|j| !j.done) {
                while !j.done && !j.search.run(&mut j.rng) {
                    decide(j, simulations);
                }
            }
            let mut live: Vec<&mut Search<GameState>> = jobs.iter_mut().filter(|j| !j.done).map(|j| &mut j.search).collect();
            if evaluate_pending(&mut live, evaluator, &mut out)? == 0 {
                break;
            }
        }
        for (j, r) in jobs.into_iter().zip(group) {
            let mover = r.pos.side_to_move();
            let first = j.actions.first().and_then(|&a| action_from_index(a as usize, mover)).map_or_else(String::new, |a| a.to_string());
            choices.push(Choice { child: j.state.position().hash(), first_action: first, value: j.value.unwrap_or(0.0) });
        }
        progress(choices.len(), refs.len());
    }
    let pairs: Vec<(&RefPosition, Choice)> = refs.iter().zip(choices).collect();
    let candidate = format!("{} at {simulations} simulations per decision (PUCT, tree reuse)", evaluator.name());
    let counts = Counts { total: reference.len(), without_moves: without, missing: 0, left_out, candidate_left_out: BTreeMap::new() };
    Ok(report(reference_name.into(), candidate, counts, &pairs))
}

/// A finished decision search: plays its choice; the turn goes on (a new
/// search from the kept subtree) until the other side is to move or the
/// game is over. A position without a legal action ends the job as it is.
fn decide(j: &mut Job, simulations: u32) {
    let res = j.search.result();
    if j.value.is_none() {
        j.value = Some(res.root_q);
    }
    if res.legal.is_empty() {
        j.done = true;
        return;
    }
    let mover = j.state.to_move();
    j.state.apply(res.action);
    j.actions.push(res.action);
    if j.state.to_move() != mover || j.state.outcome().is_some() || j.actions.len() >= pacozero_search::turns::MAX_TURN_DECISIONS {
        j.done = true;
        return;
    }
    j.search.advance(res.action, &j.state);
    j.search.begin(simulations, false);
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_data::book::visit_logit;
    use pacozero_engine::paco::parse_actions;
    use pacozero_search::UniformEvaluator;

    /// A book row of `fen` whose moves are `(actions, visits)`, value `v`.
    fn row(fen: &str, depth: u32, v: f32, moves: &[(&str, u32)]) -> BookPosition {
        let pos: Position = fen.parse().unwrap();
        let total: u64 = moves.iter().map(|m| m.1 as u64).sum();
        let moves = moves
            .iter()
            .map(|&(actions, visits)| {
                let mut g = GameState::new(pos);
                for a in parse_actions(actions).unwrap() {
                    g.play(a).unwrap();
                }
                BookMove {
                    name: actions.into(),
                    actions: actions.into(),
                    child: g.position().hash(),
                    visits,
                    prior: 0.5,
                    wdl: [0.0, 1.0, 0.0],
                    logit: visit_logit(visits, total),
                }
            })
            .collect();
        BookPosition {
            hash: pos.hash(),
            fen: fen.into(),
            depth,
            visits: 1,
            simulations: total as u32,
            wdl: [v.max(0.0), 1.0 - v.abs(), (-v).max(0.0)],
            moves,
            skipped: None,
        }
    }

    const START: &str = pacozero_engine::paco::STARTPOS_FEN;

    fn after(actions: &str) -> String {
        let mut g = GameState::new(Position::startpos());
        for a in parse_actions(actions).unwrap() {
            g.play(a).unwrap();
        }
        g.position().fen()
    }

    #[test]
    fn books_agree_where_their_preferred_moves_do() {
        let e4 = after("Le2 Pe4");
        let reference = vec![
            row(START, 0, 0.5, &[("Le2 Pe4", 10), ("Ld2 Pd4", 5)]),
            row(&e4, 1, -0.1, &[("Le7 Pe5", 3), ("Lb8 Pc6", 7)]),
            row(&after("Ld2 Pd4"), 1, 0.0, &[]),
        ];
        // Same first choice at the start with a value of the other sign; at e4
        // the reference's second move, which starts with another action.
        let candidate = vec![row(START, 0, -0.3, &[("Le2 Pe4", 2), ("Lg1 Pf3", 1)]), row(&e4, 0, -0.2, &[("Le7 Pe5", 9)])];
        let r = compare_books("ref", &reference, "cand", &candidate).unwrap();
        assert_eq!((r.reference_positions, r.without_moves, r.missing), (3, 1, 0));
        let a = &r.overall;
        assert_eq!((a.positions, a.top1, a.any_listed, a.first_action), (2, 0.5, 1.0, 0.5));
        assert_eq!((a.value_sign_positions, a.value_sign), (1, Some(0.0)));
        assert!((a.mean_abs_value_diff - (0.8 + 0.1) / 2.0).abs() < 1e-6, "{}", a.mean_abs_value_diff);
        let groups: Vec<&str> = r.by_ply.iter().map(|g| g.group.as_str()).collect();
        assert_eq!(groups, ["ply 0-1"]);
        assert_eq!(r.by_unions.iter().map(|g| g.group.as_str()).collect::<Vec<_>>(), ["unions 0"]);
        // The candidate lacks a position: counted, not compared.
        let r = compare_books("ref", &reference, "cand", &candidate[..1]).unwrap();
        assert_eq!((r.missing, r.overall.positions, r.overall.top1), (1, 1, 1.0));
        let table = r.table();
        assert!(table.contains("1 not in the candidate book") && table.lines().count() == 6, "{table}");
    }

    #[test]
    fn a_search_plays_whole_turns_and_a_sure_win_is_found() {
        // White's queen unites with the king on e8 along the open file: a sure win.
        let win = "4k3/8/8/8/8/8/8/K3Q3 w 0 - - -";
        let reference = vec![row(START, 0, 0.0, &[("Le2 Pe4", 1)]), row(win, 3, 0.9, &[("Le1 Pe8", 1)])];
        let r = compare_search("ref", &reference, &UniformEvaluator, 16, 2, 7, |_, _| {}).unwrap();
        assert_eq!(r.overall.positions, 2);
        let late = r.by_ply.iter().find(|g| g.group == "ply 2-3").unwrap();
        assert_eq!((late.positions, late.top1, late.first_action), (1, 1.0, 1.0));
        assert_eq!(late.value_sign, Some(1.0));
        // The same with one position per batch.
        let r1 = compare_search("ref", &reference, &UniformEvaluator, 16, 1, 7, |_, _| {}).unwrap();
        assert_eq!(r1, r);
    }
}
