//! One rating list over many players, as Ordo and BayesElo make them: a
//! joint maximum-likelihood fit of every result (Bradley–Terry, a draw is
//! half a point), pinned by an anchor player or by the players' mean, with
//! an interval for every rating.
//!
//! **The intervals.** A match of paired openings (one start, colours
//! swapped) is a sample of pairs, not of independent games: the two games
//! of a pair share their opening. So the covariance of the ratings is the
//! sandwich `H⁻¹ J H⁻¹` of the fit, with `H` the information of the games
//! and `J` the spread of the score around the fitted expectation measured
//! per pair, from each matchup's pentanomial counts (a cluster-robust
//! variance, clusters = pairs). Where a matchup has no pair counts its games
//! count one by one (the trinomial figure, which every rating also gets, for
//! comparison). A player with every game won (or lost) has no finite
//! maximum-likelihood rating: its interval is unbounded.

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
    /// matchup has no pair counts); infinite when the results cannot bound
    /// the rating (a perfect or a zero score).
    pub ci95: f64,
    /// The same from the games one by one, as if they were independent.
    pub ci95_trinomial: f64,
    pub games: u32,
    /// Points scored over games played.
    pub score: f64,
}

impl ListedRating {
    /// Whether the results bound the rating (its intervals are finite).
    pub fn bounded(&self) -> bool {
        self.ci95.is_finite()
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

    /// `player,elo,ci95,ci95_trinomial,score,games` (an unbounded interval is `inf`).
    pub fn to_csv(&self) -> String {
        let mut s = String::from("player,elo,ci95,ci95_trinomial,score,games\n");
        for r in &self.ratings {
            // A name with a comma or a quote (`uci:fairy-stockfish,UCI_Variant=shako:…`) is quoted, quotes doubled.
            let name = if r.name.contains([',', '"']) { format!("\"{}\"", r.name.replace('"', "\"\"")) } else { r.name.clone() };
            s.push_str(&format!("{},{:.1},{:.1},{:.1},{:.4},{}\n", name, r.elo, r.ci95, r.ci95_trinomial, r.score, r.games));
        }
        s
    }

    /// A Markdown table, best first, saying what pins it.
    pub fn to_markdown(&self) -> String {
        let mut s = format!("| # | player | Elo ({}) | 95% (pairs) | 95% (games) | games | score |\n|---:|---|---:|---:|---:|---:|---:|\n", self.anchor);
        for (i, r) in self.ratings.iter().enumerate() {
            let ci = |c: f64| if c.is_finite() { format!("±{c:.0}") } else { "unbounded".into() };
            s.push_str(&format!(
                "| {} | {} | {:+.0} | {} | {} | {} | {:.1}% |\n",
                i + 1,
                r.name,
                r.elo,
                ci(r.ci95),
                ci(r.ci95_trinomial),
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
            "ratings": self.ratings.iter().map(|r| serde_json::json!({
                "player": r.name, "elo": r.elo, "ci95": num(r.ci95), "ci95_trinomial": num(r.ci95_trinomial),
                "games": r.games, "score": r.score,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Ratings in natural-log units: `elo = r / K`.
const K: f64 = std::f64::consts::LN_10 / 400.0;
const Z95: f64 = 1.959_963_984_540_054;
/// The weak prior's precision on each rating (in the natural-log scale):
/// the log-likelihood carries `-PRIOR·r²/2`.
const PRIOR: f64 = 1e-4;

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

    let r = fit(n, &games);
    let info = information(n, &games, &r);
    let h_inv = invert_free(&info).ok_or("the results do not determine the ratings (singular information)")?;
    let spread_pairs = spread(n, &games, &r, true);
    let spread_games = spread(n, &games, &r, false);
    let cov_pairs = sandwich(&h_inv, &spread_pairs);
    let cov_games = sandwich(&h_inv, &spread_games);

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
    let mut ratings: Vec<ListedRating> = (0..n)
        .map(|i| {
            let score = points[i] / played[i] as f64;
            // A perfect or a zero score: the likelihood rises without end, so
            // the point is the small prior's and no interval holds it.
            let unbounded = (score == 0.0 || score == 1.0) && !(matches!(anchor, Anchor::Player { .. }) && i == 0);
            let half = |v: f64| if unbounded { f64::INFINITY } else { Z95 * v.max(0.0).sqrt() / K };
            ListedRating {
                name: names[i].clone(),
                elo: (r[i] + shift) / K,
                ci95: half(var_pairs[i]),
                ci95_trinomial: half(var_games[i]),
                games: played[i],
                score,
            }
        })
        .collect();
    ratings.sort_by(|a, b| b.elo.total_cmp(&a.elo).then_with(|| a.name.cmp(&b.name)));
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

/// Maximum-likelihood ratings (index 0 fixed at 0): Newton steps on the
/// Bradley–Terry likelihood with draws as half points, with a weak prior
/// towards 0 so that a perfect score stays finite.
fn fit(n: usize, games: &[(usize, usize, &Matchup)]) -> Vec<f64> {
    let prior = PRIOR;
    let mut r = vec![0.0f64; n];
    if n == 1 {
        return r;
    }
    for _ in 0..200 {
        let mut grad = vec![0.0; n];
        for &(i, j, m) in games {
            let g = m.wdl.games() as f64;
            let d = m.wdl.wins as f64 + 0.5 * m.wdl.draws as f64 - g * p_win(&r, i, j);
            grad[i] += d;
            grad[j] -= d;
        }
        let mut hess = information(n, games, &r);
        for i in 0..n {
            grad[i] -= prior * r[i];
            hess[i][i] += prior;
        }
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

/// The information of the games at `r` (the negative Hessian of the log-likelihood).
fn information(n: usize, games: &[(usize, usize, &Matchup)], r: &[f64]) -> Vec<Vec<f64>> {
    let mut h = vec![vec![0.0; n]; n];
    for &(i, j, m) in games {
        let p = p_win(r, i, j);
        add_edge(&mut h, i, j, m.wdl.games() as f64 * p * (1.0 - p));
    }
    h
}

/// The observed spread of the score contributions around the fit: per pair
/// (`by_pairs`, where a matchup's pairs cover its games) or per game.
fn spread(n: usize, games: &[(usize, usize, &Matchup)], r: &[f64], by_pairs: bool) -> Vec<Vec<f64>> {
    let mut j_mat = vec![vec![0.0; n]; n];
    for &(i, j, m) in games {
        let p = p_win(r, i, j);
        let paired = by_pairs && 2 * m.pentanomial.pairs() == m.wdl.games();
        let sum_sq = if paired {
            // A pair's points minus its expectation 2p, squared, summed.
            m.pentanomial.0.iter().enumerate().map(|(k, &c)| c as f64 * (k as f64 / 2.0 - 2.0 * p).powi(2)).sum()
        } else {
            let w = &m.wdl;
            w.wins as f64 * (1.0 - p).powi(2) + w.draws as f64 * (0.5 - p).powi(2) + w.losses as f64 * p.powi(2)
        };
        add_edge(&mut j_mat, i, j, sum_sq);
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
        // 76% is about +200 Elo.
        let list = rating_list(&[unpaired("b", "a", 76, 0, 24)], &at("a")).unwrap();
        let b = list.get("b").unwrap();
        assert!((b.elo - elo_from_score(0.76)).abs() < 1.0 && (b.elo - 200.0).abs() < 5.0, "{b:?}");
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
        assert!((get(&mean, "c") - get(&mean, "a") - get(&list, "c")).abs() < 0.5, "the weak prior pulls a little towards 0");
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
        // A perfect score is not bounded.
        let list = rating_list(&[unpaired("a", "b", 5, 0, 0), unpaired("b", "c", 3, 2, 3)], &at("b")).unwrap();
        assert!(!list.get("a").unwrap().bounded() && list.get("c").unwrap().bounded(), "{list:?}");
        assert!(list.to_markdown().contains("unbounded") && list.to_csv().contains("inf"));
        // The perfect score's rating is where the prior balances the
        // likelihood: 5·(1 − σ(r)) = PRIOR·r, found here by bisection.
        let (mut lo, mut hi) = (0.0f64, 1e6);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if 5.0 / (1.0 + mid.exp()) > PRIOR * mid {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let a = list.get("a").unwrap().elo;
        let alone = rating_list(&[unpaired("a", "b", 5, 0, 0)], &at("b")).unwrap();
        let want = lo / K;
        assert!((alone.get("a").unwrap().elo / want - 1.0).abs() < 1e-6, "{} against {want}", alone.get("a").unwrap().elo);
        assert!(a > 1000.0, "{a}");
    }

    /// Two players against figures worked out by hand: b scores 76 of 100
    /// against a, in 50 pairs (31 won twice, 14 split, 5 lost twice). The
    /// fit's p = 0.76 gives Elo 200.24 and an information of 100 · p(1 − p)
    /// = 18.24 (natural-log units); the spread is 18.24 game by game and
    /// 22.48 pair by pair (Σ c · (points − 2p)²), so the 95% half-widths are
    /// 1.96 · sqrt(spread) / 18.24 · 400 / ln 10 = 79.72 and 88.50 Elo,
    /// halved under the mean (each rating is half the difference).
    #[test]
    fn two_players_match_hand_computed_figures() {
        let m = Matchup { a: "b".into(), b: "a".into(), wdl: Wdl { wins: 76, draws: 0, losses: 24 }, pentanomial: Pentanomial([5, 0, 14, 0, 31]) };
        let list = rating_list(std::slice::from_ref(&m), &at("a")).unwrap();
        let (a, b) = (list.get("a").unwrap(), list.get("b").unwrap());
        assert!((b.elo - 200.239_84).abs() < 1e-3 && (b.ci95 - 88.504_28).abs() < 1e-3 && (b.ci95_trinomial - 79.722_07).abs() < 1e-3, "{b:?}");
        assert_eq!((b.games, b.score, a.games, a.score), (100, 0.76, 100, 0.24));
        assert_eq!((a.elo, a.ci95, a.ci95_trinomial), (0.0, 0.0, 0.0));
        assert!(list.get("c").is_none());
        assert_eq!(list.to_csv(), "player,elo,ci95,ci95_trinomial,score,games\nb,200.2,88.5,79.7,0.7600,100\na,0.0,0.0,0.0,0.2400,100\n");
        assert_eq!(
            list.to_markdown(),
            "| # | player | Elo (a at 0) | 95% (pairs) | 95% (games) | games | score |\n|---:|---|---:|---:|---:|---:|---:|\n\
             | 1 | b | +200 | ±89 | ±80 | 100 | 76.0% |\n| 2 | a | +0 | ±0 | ±0 | 100 | 24.0% |\n"
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
        assert!((pb.ci95 - pb.ci95_trinomial).abs() < 1e-9 && (pb.ci95 - 79.722_07).abs() < 1e-3, "{pb:?}");

        // Pinned by the mean at 0: ±100.12, both intervals halved.
        let mean = rating_list(std::slice::from_ref(&m), &Anchor::Mean(0.0)).unwrap();
        assert_eq!(mean.anchor.to_string(), "the mean at 0");
        for (name, sign) in [("a", -1.0), ("b", 1.0)] {
            let r = mean.get(name).unwrap();
            assert!((r.elo - sign * 100.119_92).abs() < 1e-3 && (r.ci95 - 44.252_14).abs() < 1e-3 && (r.ci95_trinomial - 39.861_03).abs() < 1e-3, "{r:?}");
        }
    }

    #[test]
    fn equal_ratings_list_by_name_and_names_are_quoted_in_csv() {
        let list = rating_list(&[unpaired("b", "a", 5, 10, 5)], &at("b")).unwrap();
        assert_eq!(list.ratings.iter().map(|r| (r.name.as_str(), r.elo)).collect::<Vec<_>>(), [("a", 0.0), ("b", 0.0)]);
        let odd = RatingList {
            anchor: Anchor::Player { name: "x".into(), elo: 1500.0 },
            ratings: vec![ListedRating { name: "uci:e,Opt=\"v\"".into(), elo: -3.04, ci95: f64::INFINITY, ci95_trinomial: 7.25, games: 3, score: 1.0 }],
        };
        assert_eq!(odd.to_csv().lines().nth(1), Some("\"uci:e,Opt=\"\"v\"\"\",-3.0,inf,7.2,1.0000,3"));
        assert!(odd.to_markdown().contains("| 1 | uci:e,Opt=\"v\" | -3 | unbounded | ±7 | 3 | 100.0% |"), "{}", odd.to_markdown());
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
