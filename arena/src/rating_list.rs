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
mod tests;
