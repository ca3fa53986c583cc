use super::*;
use crate::test_support::{err_text, match_line, TempDir};
use pacozero_arena::rating_list::{Anchor, ListedRating, Matchup, RatingList};
use pacozero_arena::ratings::Wdl;
use pacozero_engine::paco::{GameState as Paco, STARTPOS_FEN};
use pacozero_engine::prelude::*;

fn rating_row(player: &str, elo: f64, ci95: f64, games: u32) -> RatingRow {
    RatingRow { player: player.into(), elo, ci95, games, above_next: None }
}

#[test]
fn ratings_of_the_eight_column_format_have_the_gap_to_the_next() {
    let run = TempDir::new("ratings-eight");
    run.write(
            "ratings.csv",
            "player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games\n\"uci:e,x\",80.5,20,18,60.5,25.5,0.7,40\ngen-0002,20,20,18,20,9.5,0.55,40\ngen-0001,0,0,0,,,0.3,40\n",
        );
    let r = read_ratings(&run.0).unwrap();
    let rows: Vec<(&str, f64, u32)> = r.iter().map(|r| (r.player.as_str(), r.elo, r.games)).collect();
    assert_eq!(rows, [("uci:e,x", 80.5, 40), ("gen-0002", 20.0, 40), ("gen-0001", 0.0, 40)]);
    assert_eq!(r.iter().map(|r| r.above_next).collect::<Vec<_>>(), [Some((60.5, 25.5)), Some((20.0, 9.5)), None]);
    let cells: Vec<(String, &str)> = r.iter().map(|r| (r.above_next_cell(), r.apart_cell())).collect();
    assert_eq!(cells, [("+60 ± 26".to_string(), "yes"), ("+20 ± 10".to_string(), "yes"), ("–".to_string(), "–")]);
    // A gap no larger than its interval is not told apart.
    let close = RatingRow { above_next: Some((9.5, 9.5)), ..rating_row("x", 0.0, 1.0, 2) };
    assert_eq!(close.apart_cell(), "no");
    run.write("ratings.csv", "player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games\ngen-0002,20,20,18,wide,9.5,0.55,40\n");
    let e = err_text(read_ratings(&run.0));
    assert!(e.contains("ratings.csv:2: field 5 is not a number"), "{e}");
}

#[test]
fn ratings_of_the_six_column_format_are_read_with_quoted_names() {
    let run = TempDir::new("ratings-six");
    run.write(
        "ratings.csv",
        "player,elo,ci95,ci95_trinomial,score,games\ngen-0002,35.5,20,18,0.55,40\n\"uci:fairy-stockfish,UCI_Variant=shako \"\"x\"\"\",-120,inf,inf,0.1,12\n",
    );
    let r = read_ratings(&run.0).unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!((r[0].player.as_str(), r[0].elo, r[0].ci95, r[0].games), ("gen-0002", 35.5, 20.0, 40));
    assert_eq!((r[1].player.as_str(), r[1].elo, r[1].games), ("uci:fairy-stockfish,UCI_Variant=shako \"x\"", -120.0, 12));
    assert!(r[1].ci95.is_infinite());
    assert!(r.iter().all(|r| r.above_next.is_none()), "no gaps in this format");
}

#[test]
fn ratings_of_the_old_four_column_format_are_read() {
    let run = TempDir::new("ratings-four");
    run.write("ratings.csv", "player,elo,ci95,games\ngen-0001,0,0,30\nrollout-200,-250.5,60.25,28\n");
    let r = read_ratings(&run.0).unwrap();
    let rows: Vec<(&str, f64, f64, u32)> = r.iter().map(|r| (r.player.as_str(), r.elo, r.ci95, r.games)).collect();
    assert_eq!(rows, vec![("gen-0001", 0.0, 0.0, 30), ("rollout-200", -250.5, 60.25, 28)]);
}

#[test]
fn a_run_without_ratings_has_none() {
    let run = TempDir::new("ratings-none");
    assert!(read_ratings(&run.0).unwrap().is_empty());
}

#[test]
fn a_bad_ratings_line_is_named_by_file_line_and_field() {
    let run = TempDir::new("ratings-bad");
    let header = "player,elo,ci95,ci95_trinomial,score,games\ngen-0001,0,0,0,0.5,10\n";
    run.write("ratings.csv", &format!("{header}gen-0002,high,20,18,0.5,40\n"));
    let e = err_text(read_ratings(&run.0));
    assert!(e.contains("ratings.csv:3: field 2 is not a number"), "{e}");
    run.write("ratings.csv", &format!("{header}gen-0002,1,20,18,0.5,forty\n"));
    let e = err_text(read_ratings(&run.0));
    assert!(e.contains("ratings.csv:3: field 6 is not a number"), "{e}");
    run.write("ratings.csv", &format!("{header}gen-0002,1,20\n"));
    let e = err_text(read_ratings(&run.0));
    assert!(e.contains("ratings.csv:3: expected 8 fields (player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games), found 3"), "{e}");
}

#[test]
fn losses_are_read_by_step_and_a_cut_line_is_skipped() {
    let run = TempDir::new("losses");
    run.write(
        "metrics.csv",
        "lr,step,loss,policy_loss,value_loss,sako_loss,moves_left_loss\n\
             0.01,10,2.5,1.5,0.75,0.25,30\n\
             0.01,20,2.25,1.25,,0.5,29\n\
             0.01,x,9,9,9,9,9\n\
             0.01,30,2",
    );
    let l = read_losses(&run.0).unwrap();
    // Only the four losses; an empty figure is left out, as are the line
    // without a step and the cut last line.
    let expected: BTreeMap<String, Vec<(f64, f64)>> = [
        ("loss", vec![(10.0, 2.5), (20.0, 2.25)]),
        ("policy_loss", vec![(10.0, 1.5), (20.0, 1.25)]),
        ("sako_loss", vec![(10.0, 0.25), (20.0, 0.5)]),
        ("value_loss", vec![(10.0, 0.75)]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(l, expected);
}

#[test]
fn losses_without_a_step_column_or_a_file_are_none() {
    let run = TempDir::new("losses-none");
    assert!(read_losses(&run.0).unwrap().is_empty());
    run.write("metrics.csv", "loss,policy_loss\n1,2\n");
    assert!(read_losses(&run.0).unwrap().is_empty());
}

#[test]
fn smoothing_is_an_ema_with_a_span_of_two_percent_of_the_points() {
    // 100 points: span 100·0.02 = 2, alpha = 2/(2 + 1) = 2/3.
    let ys = [0.0, 3.0, 5.0, 4.0, 1.0];
    let pts: Vec<(f64, f64)> = (0..100).map(|i| (i as f64, ys.get(i).copied().unwrap_or(2.0))).collect();
    let s = smooth(&pts);
    // 0; 0 + 2/3·3 = 2; 2 + 2/3·3 = 4; 4 + 2/3·0 = 4; 4 + 2/3·(-3) = 2; then 2 stays.
    let expected = [0.0, 2.0, 4.0, 4.0, 2.0];
    assert_eq!(s.len(), 100);
    for (i, &(x, m)) in s.iter().enumerate() {
        let want = expected.get(i).copied().unwrap_or(2.0);
        assert!(x == i as f64 && (m - want).abs() < 1e-12, "point {i}: ({x}, {m}), expected {want}");
    }
}

#[test]
fn fifty_points_or_fewer_are_not_smoothed() {
    // Span max(3·0.02, 1) = 1: alpha = 2/2 = 1, each point its own average.
    let pts = vec![(1.0, 5.0), (2.0, 1.0), (3.0, 4.0)];
    assert_eq!(smooth(&pts), pts);
    assert!(smooth(&[]).is_empty());
}

#[test]
fn baseline_matches_are_those_against_a_rollout_player() {
    assert!(is_baseline(&match_line(1, "gen-0001", "rollout-200", 1, 0, 0)));
    assert!(!is_baseline(&match_line(2, "gen-0002", "gen-0001", 1, 0, 0)));
    assert!(!is_baseline(&match_line(2, "rollout-200", "gen-0002", 1, 0, 0)));
}

#[test]
fn score_counts_a_draw_half_and_draw_rate_counts_draws() {
    // 6 wins, 4 draws, 10 losses: (6 + 2)/20 and 4/20.
    let m = match_line(1, "a", "b", 6, 4, 10);
    assert_eq!(score(&m), 0.4);
    assert_eq!(draw_rate(&m), 0.2);
    assert_eq!(score(&match_line(1, "a", "b", 5, 0, 0)), 1.0);
    // No games: 0, not NaN.
    assert_eq!(score(&match_line(1, "a", "b", 0, 0, 0)), 0.0);
    assert_eq!(draw_rate(&match_line(1, "a", "b", 0, 0, 0)), 0.0);
}

fn labelled(turns: &[&str]) -> SampleGame {
    let turns = std::iter::once("start").chain(turns.iter().copied()).map(|l| (l.to_string(), String::new())).collect();
    SampleGame { title: "t".into(), size: 8, height: 8, turns }
}

#[test]
fn a_move_list_numbers_the_moves_white_first() {
    assert_eq!(labelled(&["W e2-e4", "B e7-e5", "W Ng1-f3"]).move_list(), "1. e2-e4 e7-e5 2. Ng1-f3");
    assert_eq!(labelled(&[]).move_list(), "");
}

#[test]
fn a_move_list_of_a_game_black_starts_begins_with_an_ellipsis() {
    assert_eq!(labelled(&["B e7-e5", "W d2-d4", "B d7-d5", "W Ng1-f3"]).move_list(), "1... e7-e5 2. d2-d4 d7-d5 3. Ng1-f3");
}

/// The board cells of `rows`, rank 8 first.
fn cells(rows: [&str; 8]) -> String {
    rows.concat()
}

const START: [&str; 8] = [
    ".r.n.b.q.k.b.n.r",
    ".p.p.p.p.p.p.p.p",
    "................",
    "................",
    "................",
    "................",
    "P.P.P.P.P.P.P.P.",
    "R.N.B.Q.K.B.N.R.",
];

#[test]
fn a_sample_game_has_a_board_per_whole_turn() {
    // Lift e2, place e4 (one turn); Ld7 starts a turn the record does not finish.
    let g = sample_game::<Paco>("t".into(), STARTPOS_FEN, "Le2 Pe4 Le7 Pe5 Lg1 Pf3 Ld7").unwrap();
    assert_eq!(g.size, 8);
    let labels: Vec<&str> = g.turns.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["start", "W e2-e4", "B e7-e5", "W Ng1-f3"]);
    assert_eq!(g.turns[0].1, cells(START));
    let mut after = START;
    after[4] = "........P.......";
    after[6] = "P.P.P.P...P.P.P.";
    assert_eq!(g.turns[1].1, cells(after));
    assert_eq!(g.move_list(), "1. e2-e4 e7-e5 2. Ng1-f3");
}

#[test]
fn a_sample_game_black_starts_labels_black_first() {
    let mut start = Paco::from_notation(STARTPOS_FEN).unwrap();
    for name in ["Le2", "Pe4"] {
        let d = start.parse_action(name).unwrap();
        start.apply(d);
    }
    let g = sample_game::<Paco>("t".into(), &start.notation(), "Le7 Pe5 Ld2 Pd4").unwrap();
    let labels: Vec<&str> = g.turns.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["start", "B e7-e5", "W d2-d4"]);
    assert_eq!(g.move_list(), "1... e7-e5 2. d2-d4");
}

#[test]
fn a_sample_game_names_its_illegal_decision_and_a_bad_start() {
    let e = err_text(sample_game::<Paco>("t".into(), STARTPOS_FEN, "Le2 Pe5"));
    assert!(e.contains("decision 2 `Pe5` is not legal in "), "{e}");
    let e = err_text(sample_game::<Paco>("t".into(), "no fen", "Le2"));
    assert!(e.starts_with("start FEN no fen: "), "{e}");
}

fn game_row(game_id: u64, actions: &str, result: &str) -> pacozero_data::GameRow {
    pacozero_data::GameRow {
        game_id,
        start_fen: STARTPOS_FEN.into(),
        actions: actions.into(),
        num_decisions: actions.split_whitespace().count() as u32,
        result: result.into(),
        reason: "paco".into(),
        network_id: "net-1".into(),
        config_hash: String::new(),
        seed: 0,
        white: String::new(),
        black: String::new(),
    }
}

/// Writes the games as the run's one data chunk.
fn write_games(run: &Path, games: &[pacozero_data::GameRow]) {
    let dir = RunDir::new(run).data();
    std::fs::create_dir_all(&dir).unwrap();
    pacozero_data::write_chunk(&dir, "0000000000001-w000-000000", &pacozero_data::spec_of(GameKind::Paco), &[], games).unwrap();
}

#[test]
fn sample_games_are_decisive_first_then_shortest_and_a_bad_one_is_named() {
    let run = TempDir::new("samples");
    assert!(sample_games(&run.0, 3).is_empty(), "no data, no games");
    write_games(
        &run.0,
        &[
            game_row(1, "Le2 Pe4 Le7 Pe5 Lg1 Pf3", "1/2-1/2"),
            game_row(2, "Le2 Pe4 Le7 Pe5", "1-0"),
            game_row(3, "Ld2 Pd4", "0-1"),
            game_row(4, "Le2 Pe5 Lg1", "1-0"),
        ],
    );
    let s = sample_games(&run.0, 3);
    assert_eq!(s.len(), 3);
    let first = s[0].as_ref().unwrap();
    assert_eq!(first.title, "game 3 (0-1, 2 decisions, paco, net-1)");
    assert_eq!(first.move_list(), "1. d2-d4");
    let e = format!("{:#}", s[1].as_ref().err().unwrap());
    assert!(e.starts_with("game 4: decision 2 `Pe5` is not legal"), "{e}");
    assert_eq!(s[2].as_ref().unwrap().title, "game 2 (1-0, 4 decisions, paco, net-1)");
    let all = sample_games(&run.0, 10);
    assert_eq!(all.len(), 4);
    assert_eq!(all[3].as_ref().unwrap().move_list(), "1. e2-e4 e7-e5 2. Ng1-f3", "the draw comes last");
}

fn generations(lines: &[(u32, &[(&str, f64)])]) -> Generations {
    lines.iter().map(|(g, figures)| (*g, figures.iter().map(|(k, v)| (k.to_string(), *v)).collect())).collect()
}

#[test]
fn charts_split_generations_from_guides_and_baseline_from_gating() {
    let run = TempDir::new("charts");
    let ratings = [rating_row("gen-0001", 0.0, 0.0, 8), rating_row("gen-0002", 40.0, 25.0, 8), rating_row("rollout-200", -150.0, 30.0, 4)];
    let mut baseline = match_line(1, "gen-0001", "rollout-200", 3, 1, 0);
    baseline.avg_decisions = 50.0;
    let mut gating = match_line(2, "gen-0002", "gen-0001", 3, 1, 4);
    gating.avg_decisions = 70.0;
    let gens = generations(&[(
        1,
        &[
            ("selfplay.draw_rate", 0.25),
            ("selfplay.avg_length", 60.0),
            ("time.selfplay_seconds", 600.0),
            ("time.train_seconds", 90.0),
            ("fresh.value_loss", 0.6),
        ],
    )]);
    let charts = charts(&run.0, &gens, &[baseline, gating], &ratings).unwrap();
    let names: Vec<&str> = charts.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["elo.svg", "baseline.svg", "draw_rate.svg", "length.svg", "ends.svg", "resignation.svg", "time.svg", "fresh_value.svg", "losses.svg"]);
    let chart = |name: &str| &charts.iter().find(|(n, _)| *n == name).unwrap().1;
    let points = |name: &str| -> Vec<Vec<(f64, f64)>> { chart(name).series.iter().map(|s| s.points.clone()).collect() };

    // The generations are the curve; other players are guides.
    let elo = chart("elo.svg");
    assert_eq!(elo.series[0].points, vec![(1.0, 0.0), (2.0, 40.0)]);
    assert_eq!(elo.series[0].errors, Some(vec![0.0, 25.0]));
    assert_eq!(elo.guides, vec![(-150.0, "rollout-200".to_string())]);
    // (3 + 0.5)/4.
    assert_eq!(points("baseline.svg"), vec![vec![(1.0, 0.875)]]);
    // Self-play, vs baseline (1 draw in 4), gating (1 in 8).
    assert_eq!(points("draw_rate.svg"), vec![vec![(1.0, 0.25)], vec![(1.0, 0.25)], vec![(2.0, 0.125)]]);
    assert_eq!(points("length.svg"), vec![vec![(1.0, 60.0)], vec![(1.0, 50.0)], vec![(2.0, 70.0)]]);
    // In minutes, a layer per stage.
    let time: Vec<Vec<(f64, f64)>> = chart("time.svg").stacked.iter().map(|s| s.points.clone()).collect();
    assert_eq!(time, vec![vec![(1.0, 10.0)], vec![(1.0, 1.5)], vec![], vec![], vec![]]);
    assert_eq!(points("fresh_value.svg"), vec![vec![(1.0, 0.6)], vec![], vec![], vec![]]);
    assert!(chart("losses.svg").series.is_empty(), "no metrics.csv");
}

/// The rating list is best first; the Elo line joins the generations in
/// their order (it once followed the list, back and forth across the chart).
#[test]
fn the_elo_line_joins_the_generations_in_their_order() {
    let run = TempDir::new("charts-order");
    let ratings = [
        rating_row("gen-0003", 120.0, 30.0, 8),
        rating_row("gen-0005", 100.0, 50.0, 8),
        rating_row("rollout-200", 60.0, 20.0, 8),
        rating_row("gen-0002", 50.0, 20.0, 8),
        rating_row("gen-0004", 40.0, 40.0, 8),
        rating_row("gen-0001", 0.0, 0.0, 8),
    ];
    let charts = charts(&run.0, &Generations::new(), &[], &ratings).unwrap();
    let elo = &charts.iter().find(|(n, _)| *n == "elo.svg").unwrap().1;
    assert_eq!(elo.series[0].points, vec![(1.0, 0.0), (2.0, 50.0), (3.0, 120.0), (4.0, 40.0), (5.0, 100.0)]);
    assert_eq!(elo.series[0].errors, Some(vec![0.0, 20.0, 30.0, 40.0, 50.0]), "each bar with its point");
    assert_eq!(elo.guides, vec![(60.0, "rollout-200".to_string())]);
}

#[test]
fn the_losses_chart_has_a_line_per_loss_recorded() {
    let run = TempDir::new("charts-losses");
    run.write("metrics.csv", "step,loss,value_loss\n1,3,1\n2,2,0.5\n");
    let charts = charts(&run.0, &Generations::new(), &[], &[]).unwrap();
    let losses = &charts.iter().find(|(n, _)| *n == "losses.svg").unwrap().1;
    let lines: Vec<(&str, &Vec<(f64, f64)>)> = losses.series.iter().map(|s| (s.name.as_str(), &s.points)).collect();
    // Two points are too few to smooth.
    assert_eq!(lines, vec![("loss", &vec![(1.0, 3.0), (2.0, 2.0)]), ("value_loss", &vec![(1.0, 1.0), (2.0, 0.5)])]);
}

#[test]
fn time_share_counts_the_generations_with_every_stage_timed() {
    let gens = generations(&[
        // 600 + 300 productive, 120 evaluating, of 1080.
        (1, &[("time.selfplay_seconds", 600.0), ("time.train_seconds", 300.0), ("time.eval_seconds", 120.0), ("time.other_seconds", 60.0)]),
        // Overlapped: 480 productive, 60 evaluating, of 600.
        (2, &[("time.overlap_seconds", 480.0), ("time.eval_seconds", 60.0), ("time.other_seconds", 60.0)]),
        // Both ways at once, one half, or no `other`: not counted.
        (
            3,
            &[
                ("time.selfplay_seconds", 1.0),
                ("time.train_seconds", 1.0),
                ("time.overlap_seconds", 1.0),
                ("time.eval_seconds", 1.0),
                ("time.other_seconds", 1.0),
            ],
        ),
        (4, &[("time.selfplay_seconds", 1.0), ("time.eval_seconds", 1.0), ("time.other_seconds", 1.0)]),
        (5, &[("time.selfplay_seconds", 1.0), ("time.train_seconds", 1.0), ("time.eval_seconds", 1.0)]),
    ]);
    let s = time_share(&gens).unwrap();
    assert_eq!((s.productive, s.eval, s.total, s.generations), (1380.0, 180.0, 1680.0, 2));
}

#[test]
fn the_table_has_a_row_for_each_generation_with_figures_or_matches() {
    let gens = generations(&[(1, &[("train.loss", 2.0)]), (3, &[("train.loss", 1.0)])]);
    let matches = [match_line(3, "gen-0003", "gen-0001", 1, 0, 1), match_line(u32::MAX, "gen-4294967295", "gen-0001", 1, 0, 1)];
    assert_eq!(table_generations(&gens, &matches).into_iter().collect::<Vec<_>>(), [1, 3, u32::MAX]);
    assert!(table_generations(&Generations::new(), &[]).is_empty());
}

#[test]
fn time_share_is_none_without_time_to_share() {
    assert!(time_share(&Generations::new()).is_none());
    let zero = generations(&[(1, &[("time.overlap_seconds", 0.0), ("time.eval_seconds", 0.0), ("time.other_seconds", 0.0)])]);
    assert!(time_share(&zero).is_none(), "a generation of no time");
}

fn listed(name: &str, elo: f64, ci95: f64, games: u32, score: f64) -> ListedRating {
    ListedRating { name: name.into(), elo, ci95, ci95_trinomial: ci95 * 1.5, games, score, above_next: None }
}

fn matchup(a: &str, b: &str, wins: u32, draws: u32, losses: u32) -> Matchup {
    Matchup { a: a.into(), b: b.into(), wdl: Wdl { wins, draws, losses }, pentanomial: Default::default() }
}

#[test]
fn the_league_page_lists_the_ratings_and_the_row_players_points() {
    let list = RatingList {
        anchor: Anchor::Player { name: "a".into(), elo: 0.0 },
        ratings: vec![
            ListedRating { above_next: Some((50.4, 60.1)), ..listed("a", 50.4, 30.2, 12, 0.625) },
            ListedRating { above_next: Some((80.0, 70.0)), ..listed("b", 0.0, 20.0, 12, 0.5) },
            listed("c<x>", -80.0, f64::INFINITY, 4, 0.125),
        ],
    };
    let matchups = [matchup("a", "b", 3, 2, 1), matchup("b", "a", 1, 0, 1), matchup("c<x>", "b", 0, 1, 1)];
    let h = league_page("League <1>", "<svg>plot</svg>", &list, &matchups);
    assert!(h.contains("<h1>League &lt;1&gt;</h1>") && h.contains("<figure id=\"plot-ratings\"><svg>plot</svg></figure>"), "{h}");
    assert!(h.contains("pinned by a at 0;"), "{h}");
    assert!(h.contains("<tr><td>1</td><td>a</td><td>+50</td><td>± 30</td><td>± 45</td><td>+50 ± 60</td><td>no</td><td>12</td><td>62.5%</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>2</td><td>b</td><td>+0</td><td>± 20</td><td>± 30</td><td>+80 ± 70</td><td>yes</td><td>12</td><td>50.0%</td></tr>"), "{h}");
    assert!(
        h.contains("<tr><td>3</td><td>c&lt;x&gt;</td><td>-80</td><td>unbounded</td><td>unbounded</td><td>–</td><td>–</td><td>4</td><td>12.5%</td></tr>"),
        "{h}"
    );
    // a against b: 3 + 1 of 6 as a, then 2 - 1 of 2 as b; b against a the rest of the 8.
    assert!(h.contains("<tr><th>a</th><td>–</td><td>5/8</td><td>–</td></tr>"), "{h}");
    assert!(h.contains("<tr><th>b</th><td>3/8</td><td>–</td><td>1.5/2</td></tr>"), "{h}");
    assert!(h.contains("<tr><th>c&lt;x&gt;</th><td>–</td><td>0.5/2</td><td>–</td></tr>"), "{h}");
}

const LADDER: &str = r#"{"engine": "fairy-stockfish <sf>", "games_per_rung": 4,
        "rungs": [
            {"player": "gen-0003", "nodes": 100, "wins": 3, "draws": 1, "losses": 0, "score": 0.875, "elo": 338.2, "elo_ci95": 120.4},
            {"player": "gen-0003", "nodes": 400, "wins": 1, "draws": 1, "losses": 2, "score": 0.375, "elo": -88.7, "elo_ci95": 150.1}
        ],
        "fifty": [
            {"player": "gen-0003", "nodes": 250.0, "low": 150.0, "high": 400.0},
            {"player": "gen-0001", "below": 100},
            {"player": "x"}
        ]}"#;

#[test]
fn the_yardstick_section_has_each_rung_and_each_fifty_percent_point() {
    let run = TempDir::new("ladder");
    assert_eq!(ladder_section(&run.0).unwrap(), "", "no ladder, no section");
    run.write("ladder.json", LADDER);
    let h = ladder_section(&run.0).unwrap();
    assert!(h.contains("Against <code>fairy-stockfish &lt;sf&gt;</code> at rising node budgets, 4 games a rung"), "{h}");
    assert!(h.contains("<tr><td>gen-0003</td><td>100</td><td>4</td><td>3</td><td>1</td><td>0</td><td>87.5%</td><td>+338 ± 120</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>gen-0003</td><td>400</td><td>4</td><td>1</td><td>1</td><td>2</td><td>37.5%</td><td>-89 ± 150</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>gen-0003</td><td>250 nodes (95%: 150–400)</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>gen-0001</td><td>below 100 nodes (less than 50% at every rung)</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>x</td><td>no fit</td></tr>"), "{h}");
}

#[test]
fn a_bad_ladder_file_is_named() {
    let run = TempDir::new("ladder-bad");
    run.write("ladder.json", "{");
    let e = err_text(ladder_section(&run.0));
    assert!(e.contains("ladder.json: not the JSON of pacozero ladder"), "{e}");
    run.write("ladder.json", r#"{"rungs": [{"player": "p", "wins": 1, "draws": 0, "losses": 0}]}"#);
    let e = err_text(ladder_section(&run.0));
    assert!(e.contains("ladder.json: a rung without `nodes`"), "{e}");
}

/// A run of three generations: gen 1 played the baseline; gen 2 the
/// baseline and its gating match against gen-0001 (also the anchor
/// match); gen 3 the anchor match, then gating against gen-0002.
fn three_generation_run(name: &str) -> TempDir {
    let run = TempDir::new(name);
    let matches = [
        match_line(1, "gen-0001", "rollout-200", 3, 0, 1),
        match_line(2, "gen-0002", "rollout-200", 1, 2, 1),
        match_line(2, "gen-0002", "gen-0001", 4, 0, 0),
        match_line(3, "gen-0003", "gen-0001", 2, 2, 0),
        match_line(3, "gen-0003", "gen-0002", 0, 2, 2),
    ];
    let lines: Vec<String> = matches.iter().map(|m| serde_json::to_string(m).unwrap()).collect();
    run.write("matches.jsonl", &(lines.join("\n") + "\n"));
    run.write(
        "generations.jsonl",
        r#"{"generation":1,"stage":"selfplay","games":100,"draw_rate":0.25,"avg_length":57.4,"sims_per_sec":1234.4}
{"generation":1,"stage":"train","loss":1.23456}
{"generation":1,"stage":"fresh","value_loss":0.5}
{"generation":1,"stage":"eval","promoted":1}
{"generation":1,"stage":"time","selfplay_seconds":600,"train_seconds":300,"eval_seconds":120,"other_seconds":60}
{"generation":2,"stage":"eval","promoted":0}
{"generation":3,"stage":"eval","promoted":0.5}
"#,
    );
    run.write(
            "ratings.csv",
            "player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games\ngen-0002,35.2,20.4,22,35.2,20.4,0.6,16\ngen-0001,0,0,0,12.4,30,0.5,12\ngen-0003,-12.4,inf,inf,137.6,160,0.4,8\nrollout-200,-150,30,28,,,0.2,8\n",
        );
    run.write("config.toml", "[loop]\ngame = \"paco\" # <x>\n");
    run
}

#[test]
fn the_report_has_a_row_per_generation_with_its_matches() {
    let run = three_generation_run("report");
    let page = write_report(&run.0).unwrap();
    assert_eq!(page, run.0.join("report.html"));
    let h = std::fs::read_to_string(&page).unwrap();
    let row = |cells: &[&str]| format!("<tr>{}</tr>", cells.iter().map(|c| format!("<td>{c}</td>")).collect::<String>());
    // gen, self-play games, draw rate, length, sims/s, train loss, fresh value loss, Elo,
    // baseline W-D-L and score, anchor W-D-L and score, gating W-D-L, promoted.
    let rows = [
        row(&["1", "100", "25%", "57", "1234", "1.235", "0.500", "+0 ± 0", "3-0-1", "75%", "–", "–", "–", "yes"]),
        row(&["2", "–", "–", "–", "–", "–", "–", "+35 ± 20", "1-2-1", "50%", "4-0-0", "100%", "4-0-0", "no"]),
        // Promoted only above one half.
        row(&["3", "–", "–", "–", "–", "–", "–", "-12 ± inf", "–", "–", "2-2-0", "75%", "0-2-2", "no"]),
    ];
    for r in &rows {
        assert!(h.contains(r.as_str()), "no {r} in\n{h}");
    }
    assert!(!h.contains("<tr><td>4</td>"), "gen 3 is the last");
}

#[test]
fn the_report_has_the_time_share_ratings_plots_and_configuration() {
    let run = three_generation_run("report-parts");
    let h = std::fs::read_to_string(write_report(&run.0).unwrap()).unwrap();
    // Gen 1: 600 + 300 of 1080 seconds, evaluation 120.
    assert!(
            h.contains("<p id=\"time-share\">Self-play and training took 83% of the loop's measured wall time (15.0 of 18.0 minutes over 1 generations; evaluation 11%).</p>"),
            "{h}"
        );
    assert!(h.contains("<tr><td>gen-0002</td><td>+35</td><td>± 20</td><td>+35 ± 20</td><td>yes</td><td>16</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>gen-0001</td><td>+0</td><td>± 0</td><td>+12 ± 30</td><td>no</td><td>12</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>gen-0003</td><td>-12</td><td>unbounded</td><td>+138 ± 160</td><td>no</td><td>8</td></tr>"), "{h}");
    assert!(h.contains("<tr><td>rollout-200</td><td>-150</td><td>± 30</td><td>–</td><td>–</td><td>8</td></tr>"), "{h}");
    assert!(h.contains("<figure id=\"plot-ratings\"><svg"), "{h}");
    for name in ["elo", "baseline", "draw_rate", "length", "time", "fresh_value", "losses"] {
        assert!(h.contains(&format!("<figure id=\"plot-{name}\"><svg")), "no plot {name}");
        assert!(RunDir::new(&run.0).plots().join(format!("{name}.svg")).is_file(), "no file {name}.svg");
    }
    assert!(h.contains("<pre>[loop]\ngame = &quot;paco&quot; # &lt;x&gt;\n</pre>"), "{h}");
}

#[test]
fn the_report_shows_sample_games_and_names_the_ones_it_cannot_replay() {
    let run = TempDir::new("report-games");
    write_games(&run.0, &[game_row(1, "Le2 Pe4 Le7 Pe5", "1-0"), game_row(2, "Le2 Pe5", "0-1")]);
    let h = std::fs::read_to_string(write_report(&run.0).unwrap()).unwrap();
    assert!(h.contains("<p class=\"dim\">Not shown: game 2: decision 2 `Pe5` is not legal in "), "{h}");
    assert!(h.contains(r#""moves":"1. e2-e4 e7-e5""#), "{h}");
    assert!(h.contains(r#""title":"game 1 (1-0, 4 decisions, paco, net-1)""#), "{h}");
    let games = h.lines().find(|l| l.starts_with("<script>const GAMES = ")).unwrap();
    assert_eq!(games.matches("</").count(), 1, "only the block's own end: {games}");
}

#[test]
fn the_report_of_an_empty_run_has_no_figures_to_show() {
    let run = TempDir::new("report-empty");
    let h = std::fs::read_to_string(write_report(&run.0).unwrap()).unwrap();
    assert!(h.contains("<h2>Ratings</h2>") && h.contains("<h2>Generations</h2>"), "{h}");
    assert!(!h.contains("plot-ratings") && !h.contains("time-share") && !h.contains("<tr><td>1</td>"), "{h}");
    assert!(!h.contains("Yardstick") && !h.contains("Configuration") && !h.contains("perfect-play"), "{h}");
}

#[test]
fn the_report_plots_the_curve_against_perfect_play_beside_the_peers() {
    let run = TempDir::new("report-solved");
    run.write(
        "solved.jsonl",
        r#"{"network":"gen-0003","seconds":300,"optimal":{"0":70,"800":88},"value":60}
{"network":"gen-0001","seconds":60,"optimal":{"0":40,"800":75.5},"value":50}
"#,
    );
    run.write(
        "solved-peer.jsonl",
        r#"{"network":"checkpoint-1","seconds":120,"optimal":{"800":50},"value":40,"implementation":"Peer <x>"}
{"network":"checkpoint-4","seconds":600,"optimal":{"800":80},"value":55,"implementation":"Peer <x>"}
"#,
    );
    let h = std::fs::read_to_string(write_report(&run.0).unwrap()).unwrap();
    assert!(h.contains("<figure id=\"plot-solved\"><svg") && RunDir::new(&run.0).plots().join("solved.svg").is_file(), "{h}");
    assert!(h.contains("PacoZero, 800 visits") && h.contains("Peer &lt;x&gt;, 800 visits") && h.contains("PacoZero, policy"), "{h}");
    // The peer's final 80% at 800 visits: this run at gen-0003 (5 min), the peer at 10.
    assert!(
        h.contains(
            "<p id=\"time-to-peer\">The peer's final share at 800 visits is 80.0%: this run reaches it after 5.0 minutes, the peer after 10.0 minutes.</p>"
        ),
        "{h}"
    );
    // In time order, the run's first; a budget the peer lacks is a dash.
    let rows = [
        "<tr><td>this run</td><td>gen-0001</td><td>1.0</td><td>40.0%</td><td>75.5%</td><td>50.0%</td></tr>",
        "<tr><td>this run</td><td>gen-0003</td><td>5.0</td>",
        "<tr><td>Peer &lt;x&gt;</td><td>checkpoint-1</td><td>2.0</td><td>–</td><td>50.0%</td><td>40.0%</td></tr>",
    ];
    let at: Vec<usize> = rows.iter().map(|r| h.find(r).unwrap_or_else(|| panic!("no {r} in {h}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    run.write("solved-peer.jsonl", r#"{"network":"c","seconds":1,"optimal":{"800":500},"value":1,"implementation":"p"}"#);
    assert!(err_text(write_report(&run.0)).contains("solved-peer.jsonl, line 1"));
}

#[test]
fn a_report_needs_its_run_directory() {
    let run = TempDir::new("report-missing");
    let e = err_text(write_report(&run.0.join("nothing")));
    assert!(e.contains("nothing does not exist"), "{e}");
}
