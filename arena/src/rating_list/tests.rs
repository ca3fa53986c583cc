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
    assert_eq!((json["anchor"].as_str(), json["ratings"][0]["player"].as_str(), json["ratings"][1]["ci95"].as_f64()), (Some("a at 0"), Some("b"), Some(0.0)));
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
