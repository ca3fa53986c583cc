//! One rating list over many players, as Ordo and BayesElo make them: a
//! joint fit of every result (Bradley–Terry, a draw is half a point) with a
//! prior of virtual draws, pinned by an anchor player or by the players'
//! mean, with an interval for every rating and for the gap between
//! neighbours in the list.
//!
//! **The prior: virtual draws.** A maximum-likelihood fit has no finite
//! rating for a player that won (or lost) every game, and a list whose
//! matches are mostly 100% scores against one anchor rates its players by
//! accident. So, as BayesElo does, every matchup gets some virtual draws:
//! each player brings [`VIRTUAL_DRAWS`] (one), shared among its matchups in
//! proportion to their games, and a matchup's virtual draws are its two
//! players' shares. Two players who met only each other thus get two: a
//! 10–0 reads as 11 of 12 points, +417 Elo, not +∞. The prior acts on
//! rating differences only (a draw says "equal"), so the anchor or the mean
//! moves every rating alike. It fades as games add up: 2 draws beside 100
//! games move a 76% score to 75.5%. The virtual draws count as games in
//! the fit, in its information and in the spread below; the listed scores
//! and game counts are the real ones.
//!
//! **The intervals.** A match of paired openings (one start, colours
//! swapped) is a sample of pairs, not of independent games: the two games
//! of a pair share their opening. So the covariance of the ratings is the
//! sandwich `H⁻¹ J H⁻¹` of the fit, with `H` the information of the games
//! and `J` the spread of the score around the fitted expectation measured
//! per pair, from each matchup's pentanomial counts (a cluster-robust
//! variance, clusters = pairs; two virtual draws are one drawn pair). Where
//! a matchup has no pair counts its games count one by one (the trinomial
//! figure, which every rating also gets, for comparison).
//!
//! **Told apart or not.** Each entry also has the gap to the next one down
//! the list with the 95% interval of that difference, from the covariance of
//! the two ratings (not from their two intervals: ratings measured against
//! the same opponents move together). Where the interval reaches 0 the list
//! cannot tell the two apart ([`ListedRating::apart_from_next`]).

use crate::ratings::{Pentanomial, Wdl};

/// The results of player `a` against player `b`, from `a`'s side.
#[derive(Clone, Debug, PartialEq)]
pub struct Matchup {
    pub a: String,
    pub b: String,
    /// Every game, paired or not.
    pub wdl: Wdl,
    /// The paired games: counts of pairs by `a`'s points in the pair. When
    /// they cover every game (`2 * pairs == games`) the intervals use them;
    /// otherwise the matchup's games count one by one.
    pub pentanomial: Pentanomial,
}

/// What pins the list (Elo differences are all the games can tell).
#[derive(Clone, Debug, PartialEq)]
pub enum Anchor {
    /// This player has this rating (its interval is 0).
    Player { name: String, elo: f64 },
    /// The players' mean rating is this (Ordo's default, with 2300 there).
    Mean(f64),
}

impl std::fmt::Display for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Anchor::Player { name, elo } => write!(f, "{name} at {elo}"),
            Anchor::Mean(elo) => write!(f, "the mean at {elo}"),
        }
    }
}

/// One player's line of the list.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedRating {
    pub name: String,
    pub elo: f64,
    /// Half-width of the 95% interval from the pairs (the games where a
    /// matchup has no pair counts). Always finite from [`rating_list`]; a
    /// list read back from an older file may hold `inf` (once written for a
    /// perfect or a zero score).
    pub ci95: f64,
    /// The same from the games one by one, as if they were independent.
    pub ci95_trinomial: f64,
    pub games: u32,
    /// Points scored over games played (real games, not the virtual draws).
    pub score: f64,
    /// Elo above the next player down the list, and the half-width of the
    /// 95% interval of that difference (from the pairs, with the two
    /// ratings' covariance); `None` for the last player.
    pub above_next: Option<(f64, f64)>,
}

impl ListedRating {
    /// Whether the results bound the rating (its intervals are finite).
    pub fn bounded(&self) -> bool {
        self.ci95.is_finite()
    }

    /// Whether the list tells this player apart from the next one down: the
    /// 95% interval of their difference excludes 0. `None` for the last.
    pub fn apart_from_next(&self) -> Option<bool> {
        self.above_next.map(|(gap, ci)| gap > ci)
    }

    /// The gap to the next player as a cell: `+35 ± 20`, `–` for the last.
    pub fn above_next_cell(&self) -> String {
        self.above_next.map_or("–".to_string(), |(gap, ci)| format!("{gap:+.0} ± {ci:.0}"))
    }

    /// `yes`, `no` (the interval of the gap reaches 0) or `–` for the last.
    pub fn apart_cell(&self) -> &'static str {
        match self.apart_from_next() {
            Some(true) => "yes",
            Some(false) => "no",
            None => "–",
        }
    }
}

/// The fitted list, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingList {
    pub anchor: Anchor,
    pub ratings: Vec<ListedRating>,
}

impl RatingList {
    pub fn get(&self, name: &str) -> Option<&ListedRating> {
        self.ratings.iter().find(|r| r.name == name)
    }

    /// `player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games`
    /// (an unbounded interval is `inf`; the last player's gap is empty).
    pub fn to_csv(&self) -> String {
        let mut s = String::from("player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games\n");
        for r in &self.ratings {
            // A name with a comma or a quote (`uci:fairy-stockfish,UCI_Variant=shako:…`) is quoted, quotes doubled.
            let name = if r.name.contains([',', '"']) { format!("\"{}\"", r.name.replace('"', "\"\"")) } else { r.name.clone() };
            let (gap, gap_ci) = r.above_next.map_or((String::new(), String::new()), |(g, c)| (format!("{g:.1}"), format!("{c:.1}")));
            s.push_str(&format!("{},{:.1},{:.1},{:.1},{gap},{gap_ci},{:.4},{}\n", name, r.elo, r.ci95, r.ci95_trinomial, r.score, r.games));
        }
        s
    }

    /// A Markdown table, best first, saying what pins it; `above next` is
    /// the gap to the next row with its 95% interval, and `apart` says
    /// whether that interval excludes 0.
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "| # | player | Elo ({}) | 95% (pairs) | 95% (games) | above next | apart | games | score |\n|---:|---|---:|---:|---:|---:|:-:|---:|---:|\n",
            self.anchor
        );
        for (i, r) in self.ratings.iter().enumerate() {
            let ci = |c: f64| if c.is_finite() { format!("±{c:.0}") } else { "unbounded".into() };
            s.push_str(&format!(
                "| {} | {} | {:+.0} | {} | {} | {} | {} | {} | {:.1}% |\n",
                i + 1,
                r.name,
                r.elo,
                ci(r.ci95),
                ci(r.ci95_trinomial),
                r.above_next_cell(),
                r.apart_cell(),
                r.games,
                100.0 * r.score
            ));
        }
        s
    }

    pub fn to_json(&self) -> serde_json::Value {
        let num = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::Value::Null };
        serde_json::json!({
            "anchor": self.anchor.to_string(),
            "interval": "95%, from the pentanomial counts of the paired games (sandwich variance, clusters = pairs); null = unbounded",
            "prior": format!("{VIRTUAL_DRAWS} virtual draw per player, shared among its matchups by their games"),
            "ratings": self.ratings.iter().map(|r| serde_json::json!({
                "player": r.name, "elo": r.elo, "ci95": num(r.ci95), "ci95_trinomial": num(r.ci95_trinomial),
                "above_next": r.above_next.map(|(g, _)| g), "above_next_ci95": r.above_next.map(|(_, c)| c),
                "apart_from_next": r.apart_from_next(),
                "games": r.games, "score": r.score,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Ratings in natural-log units: `elo = r / K`.
const K: f64 = std::f64::consts::LN_10 / 400.0;
const Z95: f64 = 1.959_963_984_540_054;
/// The prior: the virtual draws each player brings, shared among its
/// matchups in proportion to their games (see the module's notes).
pub const VIRTUAL_DRAWS: f64 = 1.0;

/// Fits one rating list to every matchup (several matchups of the same two
/// players add up). Errors name what is wrong: no games, an anchor that
/// played none, players no chain of games connects.
pub fn rating_list(matchups: &[Matchup], anchor: &Anchor) -> Result<RatingList, String> {
    let mut names: Vec<String> = Vec::new();
    for m in matchups.iter().filter(|m| m.wdl.games() > 0) {
        if m.a == m.b {
            return Err(format!("a matchup of {} against itself", m.a));
        }
        for n in [&m.a, &m.b] {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    if names.is_empty() {
        return Err("no games to rate".into());
    }
    // The anchor player first: the fit pins index 0.
    if let Anchor::Player { name, .. } = anchor {
        let i = names.iter().position(|n| n == name).ok_or_else(|| format!("the anchor {name} played no game (players: {})", names.join(", ")))?;
        names.swap(0, i);
    }
    let n = names.len();
    let idx = |s: &str| names.iter().position(|x| x == s).expect("named above");
    let games: Vec<(usize, usize, &Matchup)> = matchups.iter().filter(|m| m.wdl.games() > 0).map(|m| (idx(&m.a), idx(&m.b), m)).collect();
    check_connected(&names, &games)?;
    let edges = with_virtual_draws(n, &games);

    let r = fit(n, &edges);
    let info = information(n, &edges, &r);
    let h_inv = invert_free(&info).ok_or("the results do not determine the ratings (singular information)")?;
    let cov_pairs = sandwich(&h_inv, &spread(n, &edges, &r, true));
    let cov_games = sandwich(&h_inv, &spread(n, &edges, &r, false));

    // Pin the list: the anchor's rating, or the mean.
    let (shift, var_pairs, var_games) = match anchor {
        Anchor::Player { elo, .. } => (elo * K - r[0], diag(&cov_pairs), diag(&cov_games)),
        Anchor::Mean(offset) => (offset * K - r.iter().sum::<f64>() / n as f64, centred_var(&cov_pairs), centred_var(&cov_games)),
    };
    let mut points = vec![0.0; n];
    let mut played = vec![0u32; n];
    for &(i, j, m) in &games {
        let s = m.wdl.wins as f64 + 0.5 * m.wdl.draws as f64;
        points[i] += s;
        points[j] += m.wdl.games() as f64 - s;
        played[i] += m.wdl.games();
        played[j] += m.wdl.games();
    }
    let half = |v: f64| Z95 * v.max(0.0).sqrt() / K;
    let elo: Vec<f64> = r.iter().map(|x| (x + shift) / K).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| elo[b].total_cmp(&elo[a]).then_with(|| names[a].cmp(&names[b])));
    let ratings = order
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            // The difference to the next one down and its variance,
            // Var(r_i − r_j) = C_ii + C_jj − 2 C_ij, the same whatever pins the list.
            let above_next = order.get(k + 1).map(|&j| (elo[i] - elo[j], half(cov_pairs[i][i] + cov_pairs[j][j] - 2.0 * cov_pairs[i][j])));
            ListedRating {
                name: names[i].clone(),
                elo: elo[i],
                ci95: half(var_pairs[i]),
                ci95_trinomial: half(var_games[i]),
                games: played[i],
                score: points[i] / played[i] as f64,
                above_next,
            }
        })
        .collect();
    Ok(RatingList { anchor: anchor.clone(), ratings })
}

/// Every player reachable from the first through played games.
fn check_connected(names: &[String], games: &[(usize, usize, &Matchup)]) -> Result<(), String> {
    let mut seen = vec![false; names.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(p) = stack.pop() {
        for &(i, j, _) in games {
            for (x, y) in [(i, j), (j, i)] {
                if x == p && !seen[y] {
                    seen[y] = true;
                    stack.push(y);
                }
            }
        }
    }
    let apart: Vec<&str> = names.iter().zip(&seen).filter(|(_, s)| !**s).map(|(n, _)| n.as_str()).collect();
    if apart.is_empty() {
        Ok(())
    } else {
        Err(format!("no chain of games connects {} to {}: their ratings cannot be compared", apart.join(", "), names[0]))
    }
}

/// One matchup in the fit: its players, its results and its virtual draws.
struct Edge<'a> {
    i: usize,
    j: usize,
    m: &'a Matchup,
    virtual_draws: f64,
}

impl Edge<'_> {
    /// Games, the virtual draws included.
    fn games(&self) -> f64 {
        self.m.wdl.games() as f64 + self.virtual_draws
    }

    /// `i`'s points, half of each virtual draw included.
    fn points(&self) -> f64 {
        self.m.wdl.wins as f64 + 0.5 * (self.m.wdl.draws as f64 + self.virtual_draws)
    }
}

/// The matchups with their virtual draws: each player's [`VIRTUAL_DRAWS`]
/// shared among its matchups by their games; a matchup gets both players' shares.
fn with_virtual_draws<'a>(n: usize, games: &[(usize, usize, &'a Matchup)]) -> Vec<Edge<'a>> {
    let mut played = vec![0.0f64; n];
    for &(i, j, m) in games {
        played[i] += m.wdl.games() as f64;
        played[j] += m.wdl.games() as f64;
    }
    games
        .iter()
        .map(|&(i, j, m)| {
            let g = m.wdl.games() as f64;
            Edge { i, j, m, virtual_draws: VIRTUAL_DRAWS * (g / played[i] + g / played[j]) }
        })
        .collect()
}

/// The ratings that maximise the likelihood of the games and the virtual
/// draws (index 0 fixed at 0): Newton steps on the Bradley–Terry
/// likelihood, draws as half points. The virtual draws, on a connected
/// list, make it strictly concave in the free ratings, so it has one
/// finite maximum whatever the scores.
fn fit(n: usize, edges: &[Edge]) -> Vec<f64> {
    let mut r = vec![0.0f64; n];
    if n == 1 {
        return r;
    }
    for _ in 0..200 {
        let mut grad = vec![0.0; n];
        for e in edges {
            let d = e.points() - e.games() * p_win(&r, e.i, e.j);
            grad[e.i] += d;
            grad[e.j] -= d;
        }
        let hess = information(n, edges, &r);
        let a: Vec<Vec<f64>> = (1..n).map(|i| (1..n).map(|j| hess[i][j]).collect()).collect();
        let Some(step) = solve(a, grad[1..].to_vec()) else { break };
        let mut change: f64 = 0.0;
        for (t, s) in step.iter().enumerate() {
            let s = s.clamp(-2.0, 2.0);
            r[t + 1] += s;
            change = change.max(s.abs());
        }
        if change < 1e-10 {
            break;
        }
    }
    r
}

/// Expected score of `i` against `j`.
fn p_win(r: &[f64], i: usize, j: usize) -> f64 {
    1.0 / (1.0 + (r[j] - r[i]).exp())
}

/// Adds `v` to the Laplacian-shaped block of players `i`, `j`.
fn add_edge(m: &mut [Vec<f64>], i: usize, j: usize, v: f64) {
    m[i][i] += v;
    m[j][j] += v;
    m[i][j] -= v;
    m[j][i] -= v;
}

/// The information of the games and the virtual draws at `r` (the negative
/// Hessian of the log-likelihood).
fn information(n: usize, edges: &[Edge], r: &[f64]) -> Vec<Vec<f64>> {
    let mut h = vec![vec![0.0; n]; n];
    for e in edges {
        let p = p_win(r, e.i, e.j);
        add_edge(&mut h, e.i, e.j, e.games() * p * (1.0 - p));
    }
    h
}

/// The observed spread of the score contributions around the fit: per pair
/// (`by_pairs`, where a matchup's pairs cover its games) or per game. The
/// virtual draws count as drawn pairs (two draws a pair), or as draws.
fn spread(n: usize, edges: &[Edge], r: &[f64], by_pairs: bool) -> Vec<Vec<f64>> {
    let mut j_mat = vec![vec![0.0; n]; n];
    for e in edges {
        let (m, p, v) = (e.m, p_win(r, e.i, e.j), e.virtual_draws);
        let paired = by_pairs && 2 * m.pentanomial.pairs() == m.wdl.games();
        let sum_sq = if paired {
            // A pair's points minus its expectation 2p, squared, summed.
            let real: f64 = m.pentanomial.0.iter().enumerate().map(|(k, &c)| c as f64 * (k as f64 / 2.0 - 2.0 * p).powi(2)).sum();
            real + v / 2.0 * (1.0 - 2.0 * p).powi(2)
        } else {
            let w = &m.wdl;
            w.wins as f64 * (1.0 - p).powi(2) + (w.draws as f64 + v) * (0.5 - p).powi(2) + w.losses as f64 * p.powi(2)
        };
        add_edge(&mut j_mat, e.i, e.j, sum_sq);
    }
    j_mat
}

/// The inverse of the information over the free players (all but index 0),
/// embedded in an `n x n` matrix with a zero row and column 0.
fn invert_free(info: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = info.len();
    let mut out = vec![vec![0.0; n]; n];
    let free: Vec<Vec<f64>> = (1..n).map(|i| (1..n).map(|j| info[i][j]).collect()).collect();
    for t in 0..n - 1 {
        let mut e = vec![0.0; n - 1];
        e[t] = 1.0;
        let col = solve(free.clone(), e)?;
        for (s, v) in col.into_iter().enumerate() {
            out[s + 1][t + 1] = v;
        }
    }
    Some(out)
}

/// `a · b · a` (symmetric `a`).
fn sandwich(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let ab: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| (0..n).map(|k| a[i][k] * b[k][j]).sum()).collect()).collect();
    (0..n).map(|i| (0..n).map(|j| (0..n).map(|k| ab[i][k] * a[k][j]).sum()).collect()).collect()
}

fn diag(m: &[Vec<f64>]) -> Vec<f64> {
    (0..m.len()).map(|i| m[i][i]).collect()
}

/// Variances of `r_i - mean(r)` from the covariance of `r`.
fn centred_var(cov: &[Vec<f64>]) -> Vec<f64> {
    let n = cov.len();
    let nf = n as f64;
    let row_mean: Vec<f64> = (0..n).map(|i| cov[i].iter().sum::<f64>() / nf).collect();
    let total_mean = row_mean.iter().sum::<f64>() / nf;
    (0..n).map(|i| cov[i][i] - 2.0 * row_mean[i] + total_mean).collect()
}

/// Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            let (upper, lower) = a.split_at_mut(r);
            for (x, &y) in lower[0][c..n].iter_mut().zip(&upper[c][c..n]) {
                *x -= f * y;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::{elo_from_score, expected_score as expected};
    use rand::{Rng, SeedableRng};

    fn unpaired(a: &str, b: &str, w: u32, d: u32, l: u32) -> Matchup {
        Matchup { a: a.into(), b: b.into(), wdl: Wdl { wins: w, draws: d, losses: l }, pentanomial: Pentanomial::default() }
    }

    fn at(name: &str) -> Anchor {
        Anchor::Player { name: name.into(), elo: 0.0 }
    }

    #[test]
    fn elo_of_a_known_score() {
        // 76% is about +200 Elo; the two virtual draws make it 77 of 102.
        let list = rating_list(&[unpaired("b", "a", 76, 0, 24)], &at("a")).unwrap();
        let b = list.get("b").unwrap();
        assert!((b.elo - elo_from_score(77.0 / 102.0)).abs() < 1e-6 && (b.elo - 200.0).abs() < 5.0, "{b:?}");
        assert!(b.ci95 > 50.0 && b.ci95 < 200.0, "{b:?}");
        assert_eq!(list.get("a").unwrap().elo, 0.0);
        // Without pair counts the two intervals are the same figure.
        assert!((b.ci95 - b.ci95_trinomial).abs() < 1e-9);
        // The best first.
        assert_eq!(list.ratings[0].name, "b");
    }

    #[test]
    fn transitive_chain_draws_anchor_and_mean() {
        // a < b < c by about 100 each; draws count half.
        let s = expected(100.0);
        let w = (s * 200.0).round() as u32;
        let games = [unpaired("b", "a", w - 20, 40, 200 - w - 20), unpaired("c", "b", w - 20, 40, 200 - w - 20)];
        let list = rating_list(&games, &at("a")).unwrap();
        let get = |l: &RatingList, n: &str| l.get(n).unwrap().elo;
        assert!((get(&list, "b") - 100.0).abs() < 10.0 && (get(&list, "c") - 200.0).abs() < 20.0, "{list:?}");
        // Scores: a draw is half a point, on both sides.
        let score = |n: &str| list.get(n).unwrap().score;
        let (won, lost) = ((w - 20) as f64, (200 - w - 20) as f64);
        assert_eq!(score("a"), (lost + 20.0) / 200.0);
        assert_eq!(score("b"), (won + 20.0 + lost + 20.0) / 400.0);
        assert_eq!(score("c"), (won + 20.0) / 200.0);
        // An anchor with a rating moves every rating by it.
        let moved = rating_list(&games, &Anchor::Player { name: "a".into(), elo: 1500.0 }).unwrap();
        assert!((get(&moved, "c") - get(&list, "c") - 1500.0).abs() < 1e-6);
        // The mean pinned at 2300: the ratings average 2300, the differences stay.
        let mean = rating_list(&games, &Anchor::Mean(2300.0)).unwrap();
        let avg = mean.ratings.iter().map(|r| r.elo).sum::<f64>() / 3.0;
        assert!((avg - 2300.0).abs() < 1e-6, "{mean:?}");
        assert!((get(&mean, "c") - get(&mean, "a") - get(&list, "c")).abs() < 1e-6, "the prior acts on differences only");
        // Under the mean every player has an interval; the middle one the smallest.
        let ci = |n: &str| mean.get(n).unwrap().ci95;
        assert!(ci("a") > 0.0 && ci("b") < ci("a") && ci("b") < ci("c"), "{mean:?}");
    }

    #[test]
    fn bad_inputs_are_named() {
        let e = rating_list(&[unpaired("a", "b", 1, 0, 1), unpaired("c", "d", 1, 1, 0)], &at("a")).unwrap_err();
        assert!(e.contains("c, d") && e.contains("no chain of games"), "{e}");
        let e = rating_list(&[unpaired("a", "b", 1, 0, 1)], &at("z")).unwrap_err();
        assert!(e.contains("anchor z played no game"), "{e}");
        assert!(rating_list(&[], &Anchor::Mean(0.0)).unwrap_err().contains("no games"));
    }

    fn paired(a: &str, b: &str, pentanomial: [u32; 5]) -> Matchup {
        let mut wdl = Wdl::default();
        for (k, &c) in pentanomial.iter().enumerate() {
            // A pair of k half points: 2 = a draw each or a win and a loss (the same in Elo).
            let (w, d, l) = [(0, 0, 2), (0, 1, 1), (1, 0, 1), (1, 1, 0), (2, 0, 0)][k];
            wdl.wins += w * c;
            wdl.draws += d * c;
            wdl.losses += l * c;
        }
        Matchup { a: a.into(), b: b.into(), wdl, pentanomial: Pentanomial(pentanomial) }
    }

    /// The prior by hand: a 10–0 in 5 pairs, between two players who met no
    /// one else, is 10 wins and 2 virtual draws, 11 of 12 points: +416.56
    /// Elo (ln 11 · 400 / ln 10), not +∞. The information is 12 · (11/12) ·
    /// (1/12) = 0.9167; the spread 10 · (1/12)² + 2 · (5/12)² = 0.4167 game
    /// by game and 5 · (1/6)² + (5/6)² = 0.8333 by pairs, so the intervals
    /// are ±239.76 and ±339.07 Elo. A 0–10 is its mirror image.
    #[test]
    fn a_perfect_score_has_a_finite_rating_and_a_finite_interval() {
        let list = rating_list(&[paired("b", "a", [0, 0, 0, 0, 5])], &at("a")).unwrap();
        let b = list.get("b").unwrap();
        assert!((b.elo - 416.557_07).abs() < 1e-3 && (b.elo - 400.0 * 11f64.log10()).abs() < 1e-6, "{b:?}");
        assert!((b.ci95 - 339.070_75).abs() < 1e-3 && (b.ci95_trinomial - 239.759_23).abs() < 1e-3, "{b:?}");
        assert_eq!((b.score, b.games, b.bounded()), (1.0, 10, true));
        let lost = rating_list(&[paired("b", "a", [5, 0, 0, 0, 0])], &at("a")).unwrap();
        let lb = lost.get("b").unwrap();
        assert!((lb.elo + b.elo).abs() < 1e-6 && (lb.ci95 - b.ci95).abs() < 1e-6 && lb.score == 0.0, "{lb:?}");
        // Among others: a 5–0 is finite, and so is every interval.
        let list = rating_list(&[unpaired("a", "b", 5, 0, 0), unpaired("b", "c", 3, 2, 3)], &at("b")).unwrap();
        assert!(list.ratings.iter().all(|r| r.elo.is_finite() && r.bounded()), "{list:?}");
        assert!(list.get("a").unwrap().elo > 200.0 && !list.to_markdown().contains("unbounded") && !list.to_csv().contains("inf"), "{list:?}");
        // More games, less prior: 100–0 is 101 of 102 points, +802 Elo; 10–0 +417.
        let many = rating_list(&[unpaired("b", "a", 100, 0, 0)], &at("a")).unwrap().get("b").unwrap().elo;
        assert!((many - 400.0 * 101f64.log10()).abs() < 1e-6, "{many}");
    }

    /// The prior says "equal" and nothing else: equal results give equal
    /// ratings and intervals, an even score stays even, and the list says
    /// it cannot tell equal players apart.
    #[test]
    fn equal_results_give_equal_ratings() {
        for pin in [at("b"), Anchor::Mean(0.0)] {
            let list = rating_list(&[paired("a", "b", [0, 0, 0, 0, 5]), paired("c", "b", [0, 0, 0, 0, 5])], &pin).unwrap();
            let (a, c) = (list.get("a").unwrap(), list.get("c").unwrap());
            assert!((a.elo - c.elo).abs() < 1e-6 && (a.ci95 - c.ci95).abs() < 1e-6 && a.elo > list.get("b").unwrap().elo + 300.0, "{list:?}");
            // a and c, first and second by name: a gap of 0 whose interval is not.
            let first = &list.ratings[0];
            assert_eq!((first.name.as_str(), first.apart_from_next(), first.apart_cell()), ("a", Some(false), "no"));
            assert!(first.above_next.unwrap().0.abs() < 1e-6 && first.above_next.unwrap().1 > 100.0, "{first:?}");
        }
        let even = rating_list(&[unpaired("b", "a", 5, 0, 5), unpaired("c", "a", 2, 6, 2)], &at("a")).unwrap();
        assert!(even.ratings.iter().all(|r| r.elo.abs() < 1e-9), "{even:?}");
    }

    /// The loop's case: an anchor z that every later network beats 10–0,
    /// and the networks connected by their own matches, a 70% each: a > b >
    /// c. The list is finite, in that order, about as far from b to a as
    /// from c to b; without the direct matches it could not tell them apart
    /// (it says so), and a maximum-likelihood fit would have no finite
    /// rating for any of them.
    #[test]
    fn a_chain_above_an_anchor_everyone_beats_is_ordered_and_finite() {
        let anchor = [paired("a", "z", [0, 0, 0, 0, 5]), paired("b", "z", [0, 0, 0, 0, 5]), paired("c", "z", [0, 0, 0, 0, 5])];
        let chain = [paired("a", "b", [0, 1, 1, 3, 0]), paired("b", "c", [0, 1, 1, 3, 0])];
        let all: Vec<Matchup> = anchor.iter().chain(&chain).cloned().collect();
        let list = rating_list(&all, &at("z")).unwrap();
        let names: Vec<&str> = list.ratings.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "z"], "{list:?}");
        assert!(list.ratings.iter().all(|r| r.elo.is_finite() && r.ci95.is_finite() && r.elo.abs() < 1000.0), "{list:?}");
        let elo = |n: &str| list.get(n).unwrap().elo;
        let (ab, bc) = (elo("a") - elo("b"), elo("b") - elo("c"));
        assert!(ab > 50.0 && (ab - bc).abs() < 0.05 * ab, "{list:?}");
        assert!(list.ratings[..3].iter().all(|r| r.above_next.unwrap().1.is_finite()));

        let alone = rating_list(&anchor, &at("z")).unwrap();
        let top: Vec<Option<bool>> = alone.ratings.iter().map(ListedRating::apart_from_next).collect();
        assert_eq!(top[..2], [Some(false), Some(false)], "{alone:?}");
        assert!((alone.get("a").unwrap().elo - alone.get("c").unwrap().elo).abs() < 1e-6, "{alone:?}");
    }

    /// The gap's interval comes from the covariance of the two ratings. Two
    /// players rated against an anchor alone are independent: the variance
    /// of their gap is the sum of theirs; the gap to the anchor has the
    /// player's own interval. Two players of one matchup pinned by their
    /// mean move exactly against each other: the gap's interval is twice
    /// each one's.
    #[test]
    fn the_gap_to_the_next_uses_the_ratings_covariance() {
        let list = rating_list(&[unpaired("a", "z", 60, 0, 40), unpaired("b", "z", 55, 0, 45)], &at("z")).unwrap();
        let names: Vec<&str> = list.ratings.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "z"]);
        let (a, b) = (&list.ratings[0], &list.ratings[1]);
        let (gap, ci) = a.above_next.unwrap();
        assert!((gap - (a.elo - b.elo)).abs() < 1e-9 && (ci - (a.ci95.powi(2) + b.ci95.powi(2)).sqrt()).abs() < 1e-6, "{list:?}");
        let (gap, ci) = b.above_next.unwrap();
        assert!((gap - b.elo).abs() < 1e-9 && (ci - b.ci95).abs() < 1e-9, "{list:?}");
        assert_eq!(list.ratings.iter().map(ListedRating::apart_from_next).collect::<Vec<_>>(), [Some(false), Some(false), None]);
        let by_mean = rating_list(&[unpaired("a", "b", 60, 0, 40)], &Anchor::Mean(0.0)).unwrap();
        let top = &by_mean.ratings[0];
        assert!((top.above_next.unwrap().1 - 2.0 * top.ci95).abs() < 1e-9, "{by_mean:?}");
    }

    /// Two players against figures worked out by hand: b scores 76 of 100
    /// against a, in 50 pairs (31 won twice, 14 split, 5 lost twice), and
    /// the matchup has two virtual draws (one pair of draws). The fit's
    /// p = 77/102 = 0.754902 gives Elo 195.42 and an information of
    /// 102 · p(1 − p) = 18.8725 (natural-log units); the spread is 18.3725
    /// game by game (Σ (points − p)², the draws included) and 22.7451 pair by
    /// pair (Σ c · (points − 2p)², the drawn pair included), so the 95%
    /// half-widths are 1.96 · sqrt(spread) / 18.8725 · 400 / ln 10 = 77.33
    /// and 86.04 Elo, halved under the mean (each rating is half the
    /// difference).
    #[test]
    fn two_players_match_hand_computed_figures() {
        let m = Matchup { a: "b".into(), b: "a".into(), wdl: Wdl { wins: 76, draws: 0, losses: 24 }, pentanomial: Pentanomial([5, 0, 14, 0, 31]) };
        let list = rating_list(std::slice::from_ref(&m), &at("a")).unwrap();
        let (a, b) = (list.get("a").unwrap(), list.get("b").unwrap());
        assert!((b.elo - 195.420_29).abs() < 1e-3 && (b.ci95 - 86.041_06).abs() < 1e-3 && (b.ci95_trinomial - 77.329_74).abs() < 1e-3, "{b:?}");
        assert_eq!((b.games, b.score, a.games, a.score), (100, 0.76, 100, 0.24));
        assert_eq!((a.elo, a.ci95, a.ci95_trinomial), (0.0, 0.0, 0.0));
        assert!(list.get("c").is_none());
        // With a pinned at 0 the gap's interval is b's own.
        let (gap, gap_ci) = b.above_next.unwrap();
        assert!((gap - b.elo).abs() < 1e-9 && (gap_ci - b.ci95).abs() < 1e-9 && a.above_next.is_none(), "{b:?}");
        assert_eq!((b.apart_from_next(), a.apart_from_next()), (Some(true), None));
        assert_eq!(
            list.to_csv(),
            "player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games\nb,195.4,86.0,77.3,195.4,86.0,0.7600,100\na,0.0,0.0,0.0,,,0.2400,100\n"
        );
        assert_eq!(
            list.to_markdown(),
            "| # | player | Elo (a at 0) | 95% (pairs) | 95% (games) | above next | apart | games | score |\n|---:|---|---:|---:|---:|---:|:-:|---:|---:|\n\
             | 1 | b | +195 | ±86 | ±77 | +195 ± 86 | yes | 100 | 76.0% |\n| 2 | a | +0 | ±0 | ±0 | – | – | 100 | 24.0% |\n"
        );
        let json = list.to_json();
        assert_eq!(
            (json["anchor"].as_str(), json["ratings"][0]["player"].as_str(), json["ratings"][1]["ci95"].as_f64()),
            (Some("a at 0"), Some("b"), Some(0.0))
        );
        assert_eq!((json["ratings"][0]["games"].as_u64(), json["ratings"][0]["score"].as_f64()), (Some(100), Some(0.76)));
        assert!(
            (json["ratings"][0]["elo"].as_f64().unwrap() - b.elo).abs() < 1e-12
                && (json["ratings"][0]["ci95_trinomial"].as_f64().unwrap() - b.ci95_trinomial).abs() < 1e-12
        );

        // The same from a's side, or split over two matchups: the same fit.
        let flipped = Matchup { a: "a".into(), b: "b".into(), wdl: Wdl { wins: 24, draws: 0, losses: 76 }, pentanomial: Pentanomial([31, 0, 14, 0, 5]) };
        let split = [unpaired("b", "a", 40, 0, 10), unpaired("a", "b", 14, 0, 36)];
        for other in [rating_list(&[flipped], &at("a")).unwrap(), rating_list(&split, &at("a")).unwrap()] {
            let ob = other.get("b").unwrap();
            assert!((ob.elo - b.elo).abs() < 1e-6 && (ob.ci95_trinomial - b.ci95_trinomial).abs() < 1e-6, "{other:?}");
        }
        // Pair counts that do not cover the games are not used.
        let partial = Matchup { pentanomial: Pentanomial([0, 0, 1, 0, 0]), ..m.clone() };
        let pb = rating_list(&[partial], &at("a")).unwrap().get("b").unwrap().clone();
        assert!((pb.ci95 - pb.ci95_trinomial).abs() < 1e-9 && (pb.ci95 - 77.329_74).abs() < 1e-3, "{pb:?}");

        // Pinned by the mean at 0: ±97.71, both intervals halved; the gap
        // and its interval are the same as under the anchor.
        let mean = rating_list(std::slice::from_ref(&m), &Anchor::Mean(0.0)).unwrap();
        assert_eq!(mean.anchor.to_string(), "the mean at 0");
        for (name, sign) in [("a", -1.0), ("b", 1.0)] {
            let r = mean.get(name).unwrap();
            assert!((r.elo - sign * 97.710_14).abs() < 1e-3 && (r.ci95 - 43.020_53).abs() < 1e-3 && (r.ci95_trinomial - 38.664_87).abs() < 1e-3, "{r:?}");
        }
        let (mgap, mci) = mean.get("b").unwrap().above_next.unwrap();
        assert!((mgap - gap).abs() < 1e-6 && (mci - gap_ci).abs() < 1e-6, "{mean:?}");
    }

    #[test]
    fn equal_ratings_list_by_name_and_names_are_quoted_in_csv() {
        let list = rating_list(&[unpaired("b", "a", 5, 10, 5)], &at("b")).unwrap();
        assert_eq!(list.ratings.iter().map(|r| (r.name.as_str(), r.elo)).collect::<Vec<_>>(), [("a", 0.0), ("b", 0.0)]);
        let odd = RatingList {
            anchor: Anchor::Player { name: "x".into(), elo: 1500.0 },
            ratings: vec![ListedRating {
                name: "uci:e,Opt=\"v\"".into(),
                elo: -3.04,
                ci95: f64::INFINITY,
                ci95_trinomial: 7.25,
                games: 3,
                score: 1.0,
                above_next: None,
            }],
        };
        assert_eq!(odd.to_csv().lines().nth(1), Some("\"uci:e,Opt=\"\"v\"\"\",-3.0,inf,7.2,,,1.0000,3"));
        assert!(odd.to_markdown().contains("| 1 | uci:e,Opt=\"v\" | -3 | unbounded | ±7 | – | – | 3 | 100.0% |"), "{}", odd.to_markdown());
        assert!(odd.to_markdown().starts_with("| # | player | Elo (x at 1500) |"));
        assert_eq!(odd.to_json()["ratings"][0]["ci95"], serde_json::Value::Null);
        assert_eq!(odd.to_json()["ratings"][0]["ci95_trinomial"], 7.25);
        // A player against itself, and matchups without games (left out).
        assert_eq!(rating_list(&[unpaired("a", "a", 1, 0, 0)], &at("a")).unwrap_err(), "a matchup of a against itself");
        let with_empty = rating_list(&[unpaired("b", "a", 5, 10, 5), unpaired("c", "a", 0, 0, 0), unpaired("c", "c", 0, 0, 0)], &at("a")).unwrap();
        assert_eq!(with_empty.ratings.len(), 2);
    }

    /// The linear algebra: a solve against a known solution, a singular
    /// system refused, and the sandwich and centred variances by hand.
    #[test]
    fn the_linear_algebra_is_exact() {
        // A system that needs a row swap (zero first pivot).
        let x = solve(vec![vec![0.0, 2.0, 1.0], vec![1.0, 1.0, 0.0], vec![2.0, 0.0, 3.0]], vec![7.0, 3.0, 11.0]).unwrap();
        for (got, want) in x.iter().zip([1.0, 2.0, 3.0]) {
            assert!((got - want).abs() < 1e-12, "{x:?}");
        }
        assert!(solve(vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![1.0, 2.0]).is_none());
        let a = vec![vec![1.0, 2.0], vec![2.0, 3.0]];
        let b = vec![vec![1.0, 0.0], vec![0.0, 2.0]];
        // a·b·a = [[1·1 + 2·2·2, 1·2 + 2·2·3], [2·1 + 3·2·2, 2·2 + 3·2·3]] = [[9, 14], [14, 22]].
        assert_eq!(sandwich(&a, &b), vec![vec![9.0, 14.0], vec![14.0, 22.0]]);
        assert_eq!(diag(&a), [1.0, 3.0]);
        // Var(r0 − (r0 + r1)/2) = (c00 − 2 c01 + c11)/4 = (1 − 4 + 3)/4 = 0; the same for r1.
        assert_eq!(centred_var(&[vec![1.0, 2.0], vec![2.0, 3.0]]), [0.0, 0.0]);
        // With c = diag(4, 8): (4 + 8)/4 = 3 each.
        assert_eq!(centred_var(&[vec![4.0, 0.0], vec![0.0, 8.0]]), [3.0, 3.0]);
        let inv = invert_free(&[vec![9.0, 9.0, 9.0], vec![9.0, 2.0, 1.0], vec![9.0, 1.0, 1.0]]).unwrap();
        assert_eq!(inv, vec![vec![0.0, 0.0, 0.0], vec![0.0, 1.0, -1.0], vec![0.0, -1.0, 2.0]]);
        assert!(invert_free(&[vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 1.0], vec![0.0, 1.0, 1.0]]).is_none());
    }

    /// A simulated league: players of known strengths meet in paired games
    /// whose two games share their opening. With probability `tie` an
    /// opening decides the pair (both games end alike: a sharp line the
    /// stronger side finds with either colour), else the games are
    /// independent; either way a game scores its expected score on average,
    /// so the model's expectations hold and only the spread differs.
    fn simulate(rng: &mut rand_chacha::ChaCha8Rng, elos: &[f64], pairs: u32, tie: f64) -> Vec<Matchup> {
        let mut out = Vec::new();
        for i in 0..elos.len() {
            for j in i + 1..elos.len() {
                let e = expected(elos[i] - elos[j]);
                let d = (2.0 * e.min(1.0 - e) * 0.8).min(0.35);
                let game = |rng: &mut rand_chacha::ChaCha8Rng| -> f64 {
                    let u: f64 = rng.gen();
                    if u < e - d / 2.0 {
                        1.0
                    } else if u < e + d / 2.0 {
                        0.5
                    } else {
                        0.0
                    }
                };
                let mut m = Matchup { a: format!("p{i}"), b: format!("p{j}"), wdl: Wdl::default(), pentanomial: Pentanomial::default() };
                for _ in 0..pairs {
                    let first = game(rng);
                    let second = if rng.gen::<f64>() < tie { first } else { game(rng) };
                    for s in [first, second] {
                        if s > 0.75 {
                            m.wdl.wins += 1;
                        } else if s < 0.25 {
                            m.wdl.losses += 1;
                        } else {
                            m.wdl.draws += 1;
                        }
                    }
                    m.pentanomial.add_pair(first, second);
                }
                out.push(m);
            }
        }
        out
    }

    /// Recovery and coverage: over 300 simulated round robins of five
    /// players (0, -150, +60, +220, +400 Elo, 40 pairs a matchup, half the
    /// pairs decided by their opening), the fitted ratings against p0 fall
    /// within their 95% pair intervals about 95% of the time. The
    /// game-by-game intervals, which ignore the pairing, cover visibly less
    /// here. One large league recovers the strengths closely.
    #[test]
    fn intervals_cover_simulated_strengths() {
        let elos = [0.0, -150.0, 60.0, 220.0, 400.0];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2024);
        let (mut covered, mut covered_games, mut checks) = (0, 0, 0);
        for _ in 0..300 {
            let list = rating_list(&simulate(&mut rng, &elos, 40, 0.5), &at("p0")).unwrap();
            for (i, true_elo) in elos.iter().enumerate().skip(1) {
                let r = list.get(&format!("p{i}")).unwrap();
                let miss = (r.elo - true_elo).abs();
                covered += (miss <= r.ci95) as u32;
                covered_games += (miss <= r.ci95_trinomial) as u32;
                checks += 1;
            }
        }
        let (pairs, games) = (covered as f64 / checks as f64, covered_games as f64 / checks as f64);
        eprintln!("coverage of the 95% intervals over {checks} ratings: {:.1}% from the pairs, {:.1}% game by game", 100.0 * pairs, 100.0 * games);
        assert!((0.925..=0.975).contains(&pairs), "pair intervals cover {pairs}");
        assert!(games < 0.93 && games < pairs - 0.02, "game intervals cover {games} (pairs {pairs})");

        // Independent games: both intervals cover about 95%.
        let (mut c1, mut c2, mut n) = (0, 0, 0);
        for _ in 0..200 {
            let list = rating_list(&simulate(&mut rng, &elos, 40, 0.0), &at("p0")).unwrap();
            for (i, true_elo) in elos.iter().enumerate().skip(1) {
                let r = list.get(&format!("p{i}")).unwrap();
                c1 += ((r.elo - true_elo).abs() <= r.ci95) as u32;
                c2 += ((r.elo - true_elo).abs() <= r.ci95_trinomial) as u32;
                n += 1;
            }
        }
        for c in [c1, c2] {
            let cov = c as f64 / n as f64;
            assert!((0.92..=0.98).contains(&cov), "independent games: coverage {cov}");
        }

        // A large league recovers every strength within a few Elo.
        let list = rating_list(&simulate(&mut rng, &elos, 4000, 0.5), &at("p0")).unwrap();
        for (i, true_elo) in elos.iter().enumerate() {
            let r = list.get(&format!("p{i}")).unwrap();
            assert!((r.elo - true_elo).abs() < 15.0 && (r.elo - true_elo).abs() <= r.ci95.max(1e-9) * 1.5, "{r:?} vs {true_elo}");
        }
    }
}
