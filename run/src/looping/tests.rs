use super::*;
use crate::test_support::{err_text, forfeiting_engine, json_lines, tiny_loop, tiny_model, Notes, TempDir};
use pacozero_arena::ratings::{Pentanomial, Wdl};
use pacozero_data::spec_of;
use pacozero_engine::paco::GameState as Paco;
use pacozero_testkit::engines::marking_engine;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[test]
fn an_evaluations_players_and_matches_each_have_their_own_seed_from_every_bit_of_the_loops() {
    for loop_seed in [0, 99, u64::MAX] {
        for generation in 0..64 {
            let seeds = EvalSeeds::of(loop_seed, generation).all();
            let distinct: std::collections::HashSet<u64> = seeds.iter().copied().collect();
            assert_eq!(distinct.len(), seeds.len(), "loop seed {loop_seed}, generation {generation}: {seeds:?}");
        }
    }
    let here = EvalSeeds::of(99, 5).all();
    for bit in 0..64 {
        let there = EvalSeeds::of(99 ^ (1 << bit), 5).all();
        assert!(here.iter().zip(there).all(|(a, b)| *a != b), "bit {bit}");
    }
    assert!(EvalSeeds::of(99, 6).all().iter().zip(here).all(|(a, b)| *a != b));
}

#[test]
fn bundled_loop_configs_parse_with_their_game() {
    let paco = LoopFile::parse(QUICK_TOML, "configs/quick.toml").unwrap();
    assert_eq!(paco.looping.game, GameKind::Paco);
    let text = include_str!("../../../configs/quick-shako.toml");
    let shako = LoopFile::parse(text, "configs/quick-shako.toml").unwrap();
    assert_eq!(shako.looping.game, GameKind::Shako);
    let net = shako.net.to_config(&spec_of_encoding(GameKind::Shako, &shako.net.encoding).unwrap()).unwrap();
    assert_eq!((net.height, net.width, net.policy_size), (10, 10, 3656));
    // Without the key a run plays Paco.
    assert_eq!(LoopFile::parse("", "empty").unwrap().looping.game, GameKind::Paco);
    // The GPU loop: a 10x128 network, evaluation every 4th generation.
    let gpu = LoopFile::parse(include_str!("../../../configs/gpu.toml"), "configs/gpu.toml").unwrap();
    let net = gpu.net.to_config(&spec_of(GameKind::Paco)).unwrap();
    assert_eq!((net.blocks, net.channels, gpu.looping.eval_every, gpu.train.batch_size), (10, 128, 4, 1024));
}

#[test]
fn eval_every_skips_the_generations_between_and_needs_always_promotion() {
    let f = LoopFile::parse("[loop]\npromotion = \"always\"\neval_every = 3\n", "t").unwrap();
    let played: Vec<u32> = (1..=10).filter(|&g| evaluates(&f.looping, g, 10)).collect();
    assert_eq!(played, vec![1, 3, 6, 9, 10], "the first, every third and the last");
    let one = LoopFile::parse("", "t").unwrap();
    assert!((1..=5).all(|g| evaluates(&one.looping, g, 5)));
    let e = format!("{:#}", LoopFile::parse("[loop]\npromotion = \"score\"\neval_every = 2\n", "t").unwrap_err());
    assert!(e.contains("eval_every") && e.contains("always"), "{e}");
    let e = format!("{:#}", LoopFile::parse("[loop]\npromotion = \"always\"\neval_every = 0\n", "t").unwrap_err());
    assert!(e.contains("eval_every must be in 1..=1000"), "{e}");
}

#[test]
fn the_time_budget_ends_the_run_before_a_generation_would_cross_it() {
    assert!(!budget_ends(100.0, 50.0, 200.0), "another generation fits");
    assert!(!budget_ends(150.0, 50.0, 200.0), "it fits exactly");
    assert!(budget_ends(151.0, 50.0, 200.0), "it would cross the budget");
    assert!(TimeBudget::of(&LoopConfig::default()).is_none(), "0 = no budget");
    let f = LoopFile::parse("[loop]\nmax_minutes = 30\n", "t").unwrap();
    assert_eq!(TimeBudget::of(&f.looping).unwrap().seconds, 1800.0);
    let e = format!("{:#}", LoopFile::parse("[loop]\nmax_minutes = -1\n", "t").unwrap_err());
    assert!(e.contains("max_minutes must be in 0..=100000"), "{e}");
}

#[test]
fn the_learning_rate_drops_once_the_share_lr_drop_at_of_the_budget_is_spent() {
    let f = parse_with(&["loop.max_minutes=60", "loop.lr_drop_at=0.75", "loop.lr_drop_factor=0.2"]).unwrap();
    assert_eq!(lr_factor_after(&f.looping, 0.0), 1.0);
    assert_eq!(lr_factor_after(&f.looping, 0.7499), 1.0);
    assert_eq!(lr_factor_after(&f.looping, 0.75), 0.2, "from the share on");
    assert_eq!(lr_factor_after(&f.looping, 1.5), 0.2);
    // Off by default: no drop however much is spent.
    let plain = parse_with(&["loop.max_minutes=60"]).unwrap();
    assert_eq!((plain.looping.lr_drop_at, plain.looping.lr_drop_factor), (0.0, 0.1));
    assert_eq!(lr_factor_after(&plain.looping, 2.0), 1.0);
    let refused = |sets: &[&str], want: &str| {
        let e = err_text(parse_with(sets));
        assert!(e.contains(want), "{sets:?}: {e}");
    };
    refused(&["loop.max_minutes=60", "loop.lr_drop_at=1.0"], "loop.lr_drop_at must be in 0..1 (0 = no drop)");
    refused(&["loop.max_minutes=60", "loop.lr_drop_at=-0.1"], "loop.lr_drop_at must be in 0..1");
    refused(&["loop.lr_drop_at=0.5"], "loop.lr_drop_at must be 0 without a time budget");
    refused(&["loop.lr_drop_factor=0.0"], "loop.lr_drop_factor must be in (0, 1]");
    refused(&["loop.lr_drop_factor=1.01"], "loop.lr_drop_factor must be in (0, 1]");
    let last = parse_with(&["loop.max_minutes=60", "loop.lr_drop_at=0.999", "loop.lr_drop_factor=1.0"]).unwrap();
    assert_eq!((last.looping.lr_drop_at, last.looping.lr_drop_factor), (0.999, 1.0));
}

#[test]
fn an_unknown_game_is_refused_by_name() {
    let e = format!("{:#}", LoopFile::parse("[loop]\ngame = \"chess\"\n", "bad.toml").unwrap_err());
    assert!(e.contains("game") && e.contains("chess") && e.contains("shako"), "{e}");
}
/// The loop file of the built-in defaults with the `--set`s `sets`.
fn parse_with(sets: &[&str]) -> Result<LoopFile> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    LoopFile::parse(&crate::overrides::apply("", &sets)?, "t")
}

#[test]
fn an_observer_shows_progress_unless_it_says_otherwise() {
    struct Plain;
    impl LoopObserver for Plain {
        fn note(&self, _: &str) {}
        fn match_progress(&self, _: u64, _: u64) {}
    }
    assert!(Plain.progress());
    assert!(!Notes::new().progress());
}

/// The tests' observer stops a loop that would run longer than the test
/// expects at its first generation (so a loop that lost the test's
/// configuration fails at once instead of running for hours).
#[test]
fn the_tests_observer_refuses_more_generations_than_expected() {
    let refused = |max: usize, notes: &[&str]| {
        let n = Notes::at_most(max);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| notes.iter().for_each(|t| n.note(t)))).is_err()
    };
    assert!(!refused(2, &["== generation 1/2 (best: none, rollout self-play)", "== generation 2/2 (best: gen-0001)"]));
    assert!(!refused(1, &["== generation 2/2 (best: gen-0001)"]));
    assert!(refused(2, &["== generation 1/20 (best: none, rollout self-play)"]));
    assert!(refused(1, &["== generation 1/2 (best: none, rollout self-play)"]));
    assert!(refused(1, &["== generation 2/2 (best: gen-0001)", "== generation 2/2 (best: gen-0001)"]));
    assert!(!refused(0, &["done: 2 generations in run"]));
}

#[test]
fn the_game_is_written_and_read_by_its_name() {
    let f = LoopFile::parse("[loop]\ngame = \"shako\"\n", "t").unwrap();
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(v["loop"]["game"], "shako", "{v}");
    let back: LoopConfig = serde_json::from_value(v["loop"].clone()).unwrap();
    assert_eq!(back.game, GameKind::Shako);
}

#[test]
fn each_loop_range_refuses_the_first_value_outside_it_and_names_the_key() {
    let refused = |sets: &[&str], want: &str| {
        let e = err_text(parse_with(sets));
        assert!(e.contains(want), "{sets:?}: {e}");
    };
    refused(&["loop.gating_games=3"], "loop.gating_games must be even, in 2..=100000");
    refused(&["loop.gating_games=100002"], "loop.gating_games must be even, in 2..=100000");
    // sprt_elo1 is 50 by default.
    refused(&["loop.sprt_elo0=50.0"], "loop.sprt_elo1 must be greater than sprt_elo0");
    for k in ["alpha", "beta"] {
        for v in ["0.0", "0.5"] {
            refused(&[&format!("loop.sprt_{k}={v}")], &format!("loop.sprt_{k} must be in (0, 0.5)"));
        }
    }
    for k in ["anchor_games", "previous_games", "baseline_games"] {
        for v in ["3", "100002"] {
            refused(&[&format!("loop.{k}={v}")], &format!("loop.{k} must be even, at most 100000"));
        }
    }
    refused(&["loop.external=rollout:10"], "loop.external must be a uci:<command>");
    refused(&["loop.external=uci:/no/such/engine:nodes=1"], "no program /no/such/engine");
    refused(&["loop.external=uci:/bin/sh:nodes=1", "loop.external_games=3"], "loop.external_games must be even, in 2..=100000 (with external)");
    // The last values inside.
    let f = parse_with(&[
        "loop.gating_games=100000",
        "loop.sprt_elo0=49.5",
        "loop.sprt_alpha=0.49",
        "loop.sprt_beta=0.01",
        "loop.anchor_games=100000",
        "loop.baseline_games=100000",
        "loop.external=uci:/bin/sh:nodes=1",
        "loop.external_games=2",
    ])
    .unwrap();
    let l = &f.looping;
    assert_eq!((l.gating_games, l.anchor_games, l.baseline_games, l.external_games), (100000, 100000, 100000, 2));
    assert_eq!((l.sprt_elo0, l.sprt_alpha, l.sprt_beta), (49.5, 0.49, 0.01));
    let f = parse_with(&["loop.gating_games=2", "loop.anchor_games=0", "loop.baseline_games=0"]).unwrap();
    assert_eq!((f.looping.gating_games, f.looping.anchor_games, f.looping.baseline_games), (2, 0, 0));
}

/// `previous_games` left out (as in every run of earlier builds) is
/// `anchor_games`, and the configuration saved in `state.json` says so.
#[test]
fn previous_games_default_to_the_anchor_games() {
    let quick = LoopFile::parse(QUICK_TOML, "configs/quick.toml").unwrap();
    assert_eq!(quick.looping.previous_games, Some(quick.looping.anchor_games));
    let f = parse_with(&["loop.anchor_games=6"]).unwrap();
    assert_eq!(f.looping.previous_games, Some(6));
    assert_eq!(serde_json::to_value(&f).unwrap()["loop"]["previous_games"], 6);
    assert_eq!(parse_with(&["loop.anchor_games=6", "loop.previous_games=0"]).unwrap().looping.previous_games, Some(0));
    assert_eq!(parse_with(&["loop.previous_games=100000"]).unwrap().looping.previous_games, Some(100_000));
    assert_eq!(LoopFile::parse("", "empty").unwrap().looping.previous_games, Some(0));
    assert_eq!(LoopConfig::default().previous_games, None, "unset until parsed");
}

/// The network evaluated last is read from the matches: whatever
/// `eval_every` said, and never the generation itself or a later one.
#[test]
fn the_last_evaluated_network_is_the_newest_candidate_with_a_match() {
    let dir = TempDir::new("last-evaluated");
    assert_eq!(last_evaluated(dir.path(), 5).unwrap(), None);
    for m in [
        crate::test_support::match_line(1, "gen-0001", "rollout-2", 1, 0, 1),
        crate::test_support::match_line(16, "gen-0016", "gen-0001", 1, 0, 1),
        crate::test_support::match_line(16, "gen-0016", "gen-0015", 1, 0, 1),
        crate::test_support::match_line(21, "gen-0021", "gen-0016", 1, 0, 1),
        crate::test_support::match_line(32, "gen-0032", "gen-0021", 1, 0, 1),
    ] {
        append_match(dir.path(), &m).unwrap();
    }
    let at = |g| last_evaluated(dir.path(), g).unwrap();
    assert_eq!(
        (at(1), at(2), at(16), at(17), at(21), at(32), at(40)),
        (
            None,
            Some("gen-0001".to_string()),
            Some("gen-0001".to_string()),
            Some("gen-0016".to_string()),
            Some("gen-0016".to_string()),
            Some("gen-0021".to_string()),
            Some("gen-0032".to_string())
        )
    );
}

/// A candidate plays the network evaluated before it, after the anchor
/// and before the gating match, unless that network is the anchor (with
/// anchor games) or the best.
#[test]
fn a_candidate_plays_the_network_evaluated_before_it_unless_it_plays_it_anyway() {
    let rows_of = |sets: &[&str], previous: &str, best: &str| {
        let dir = TempDir::new("previous");
        let run = dir.join("run");
        for g in 1..=4 {
            tiny_model::<Paco>(&run, &model_name(g));
        }
        let cfg = LoopFile::parse(&tiny_loop(sets), "tiny").unwrap();
        let round = EvalRound { candidate: "gen-0004", anchor: Some("gen-0001"), previous: Some(previous), best, index: 4 };
        let notes = Notes::new();
        eval_matches::<Paco>(&run, &cfg, &round, &notes).unwrap();
        (match_rows(&run), notes.starting("gen-0004 vs gen-0002 (previous)").len())
    };
    let anchor = ["loop.anchor_games=2"];
    assert_eq!(
        rows_of(&anchor, "gen-0002", "gen-0003"),
        (vec![row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0002", 2), row(4, "gen-0004", "gen-0003", 2)], 1)
    );
    assert_eq!(rows_of(&["loop.anchor_games=2", "loop.previous_games=4"], "gen-0002", "gen-0003").0[1], row(4, "gen-0004", "gen-0002", 4));
    // The best: the gating match plays it.
    assert_eq!(rows_of(&anchor, "gen-0003", "gen-0003").0, [row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0003", 2)]);
    // The anchor: its match plays it; without anchor games the previous match does.
    assert_eq!(rows_of(&anchor, "gen-0001", "gen-0003").0, [row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0003", 2)]);
    assert_eq!(rows_of(&["loop.previous_games=2"], "gen-0001", "gen-0003").0, [row(4, "gen-0004", "gen-0001", 2), row(4, "gen-0004", "gen-0003", 2)]);
    // None asked for.
    assert_eq!(rows_of(&["loop.anchor_games=2", "loop.previous_games=0"], "gen-0002", "gen-0003").0.len(), 2);
}

#[test]
fn selfplay_writes_the_networks_encoding_and_may_only_repeat_it() {
    let f = parse_with(&["net.encoding=platform"]).unwrap();
    assert_eq!(f.selfplay.encoding, "platform", "self-play takes the network's encoding");
    let f = parse_with(&["net.encoding=platform", "selfplay.encoding=platform"]).unwrap();
    assert_eq!(f.selfplay.encoding, "platform");
    let e = err_text(parse_with(&["selfplay.encoding=platform"]));
    assert!(e.contains("loop.selfplay.encoding must be left out (net.encoding sets it)"), "{e}");
}

#[test]
fn the_time_spent_is_every_recorded_stage_time_and_the_next_generation_is_judged_by_the_last() {
    let dir = TempDir::new("budget");
    let run = dir.path();
    append_stage(run, 1, "time", &[("selfplay_seconds", 100.0), ("train_seconds", 50.0)]).unwrap();
    append_stage(run, 1, "selfplay", &[("seconds", 99.0), ("games", 64.0)]).unwrap();
    append_stage(run, 2, "time", &[("overlap_seconds", 30.0), ("eval_seconds", 7.0)]).unwrap();
    append_stage(run, 2, "time", &[("selfplay_seconds", 4.0), ("train_seconds", 6.0)]).unwrap();
    // Only the `time` stage counts: 100 + 50 + 30 + 7 + 4 + 6 = 197 s.
    assert_eq!(spent_seconds(&read_generations(run).unwrap()), 197.0);
    assert_eq!(TimeBudget { seconds: 1.0 }.spent(run).unwrap(), 197.0);
    // After generation 2 another like it takes self-play + training +
    // overlap = 4 + 6 + 30 = 40 s (its evaluation is not repeated): 237 s in all.
    assert!(!TimeBudget { seconds: 237.0 }.ends_with(run, 2).unwrap(), "237 s fit a budget of 237 s");
    assert!(TimeBudget { seconds: 236.5 }.ends_with(run, 2).unwrap(), "237 s cross 236.5 s");
    // After generation 1: 100 + 50 = 150 s more, 347 s.
    assert!(!TimeBudget { seconds: 347.0 }.ends_with(run, 1).unwrap());
    assert!(TimeBudget { seconds: 346.5 }.ends_with(run, 1).unwrap());
    // A generation without recorded times adds nothing.
    assert!(!TimeBudget { seconds: 197.0 }.ends_with(run, 3).unwrap());
    assert!(TimeBudget { seconds: 196.5 }.ends_with(run, 3).unwrap());
}

#[test]
fn a_candidate_is_promoted_when_the_sprt_accepts_h1() {
    let l = LoopConfig { promotion: Promotion::Sprt, ..LoopConfig::default() };
    assert!(promotes(&l, 0.0, Some(SprtDecision::AcceptH1)), "the test decides, not the score");
    assert!(!promotes(&l, 1.0, Some(SprtDecision::AcceptH0)));
    assert!(!promotes(&l, 1.0, Some(SprtDecision::Continue)), "undecided at the cap is no promotion");
}

#[test]
fn a_candidate_is_promoted_by_score_from_promotion_score_on_and_always_by_always() {
    let l = LoopConfig { promotion: Promotion::Score, promotion_score: 0.55, ..LoopConfig::default() };
    assert!(promotes(&l, 0.55, None));
    assert!(promotes(&l, 0.6, None));
    assert!(!promotes(&l, 0.54, None));
    assert!(!promotes(&l, 0.5, Some(SprtDecision::AcceptH1)), "the score rule reads no test");
    let always = LoopConfig { promotion: Promotion::Always, ..LoopConfig::default() };
    assert!(promotes(&always, 0.0, Some(SprtDecision::AcceptH0)));
}

#[test]
fn a_match_line_has_the_means_per_game_and_per_decision_of_each_side() {
    let m = MatchResult {
        wdl: Wdl { wins: 3, draws: 1, losses: 0 },
        pentanomial: Pentanomial([0, 0, 0, 1, 1]),
        decisions: 100,
        games: 4,
        seconds: [0.2, 0.6],
        decisions_by: [50, 50],
        simulations: [100, 300],
        end_reasons: [("max_length", 1), ("paco", 3)].into_iter().collect(),
        ..MatchResult::default()
    };
    let l = match_line(3, "gen-0003", "rollout-8", &m, Some("H1 accepted"));
    assert_eq!((l.generation, l.a.as_str(), l.b.as_str(), l.wins, l.draws, l.losses), (3, "gen-0003", "rollout-8", 3, 1, 0));
    assert_eq!(l.pentanomial, [0, 0, 0, 1, 1]);
    // 100 decisions in 4 games.
    assert_eq!(l.avg_decisions, 25.0);
    // A: 0.2 s over 50 decisions = 0.004 s, 100 / 50 = 2 simulations; B: 0.6 / 50 = 0.012 s, 300 / 50 = 6.
    let s = l.seconds_per_decision.unwrap();
    assert!((s[0] - 0.004).abs() < 1e-12 && (s[1] - 0.012).abs() < 1e-12, "{s:?}");
    assert_eq!(l.simulations_per_decision, Some([2.0, 6.0]));
    assert_eq!(l.end_reasons, BTreeMap::from([("max_length".to_string(), 1), ("paco".to_string(), 3)]));
    assert_eq!(l.sprt.as_deref(), Some("H1 accepted"));
    // No games: no division by zero, and no test.
    let none = match_line(1, "a", "b", &MatchResult::default(), None);
    assert_eq!((none.avg_decisions, none.seconds_per_decision, none.sprt), (0.0, Some([0.0, 0.0]), None));
}

#[test]
fn the_selfplay_figures_are_rates_per_game_and_per_batch() {
    let s = Summary {
        games: 4,
        positions: 100,
        draws: 1,
        white_wins: 2,
        black_wins: 1,
        simulations: 1000,
        requests: 30,
        batches: 10,
        wall_secs: 2.0,
        ..Summary::default()
    };
    // 1 draw and 2 White wins in 4 games, 100 positions / 4 games, 1000
    // simulations / 2 s, 30 requests / 10 batches.
    let want = [
        ("games", 4.0),
        ("positions", 100.0),
        ("draw_rate", 0.25),
        ("white_win_rate", 0.5),
        ("avg_length", 25.0),
        ("sims_per_sec", 500.0),
        ("avg_batch", 3.0),
        ("seconds", 2.0),
        ("would_resign_games", 0.0),
    ];
    let got = selfplay_figures(&s);
    assert_eq!(got[..9], want);
    // No game would have resigned: no rate.
    assert!(got[9].0 == "false_resignation_rate" && got[9].1.is_nan());
    // 4 no-resign games would have resigned, 1 of their resigners did not lose.
    let s = Summary { would_resign_games: 4, false_resignations: 1, ..s };
    assert_eq!(selfplay_figures(&s)[8..], [("would_resign_games", 4.0), ("false_resignation_rate", 0.25)]);
}

#[test]
fn the_end_figures_are_each_reasons_share_of_the_games() {
    let reasons = [("checkmate", 5), ("resign", 3), ("max_length", 2)].map(|(r, n)| (r.to_string(), n)).into_iter().collect();
    let s = Summary { games: 10, reasons, ..Summary::default() };
    assert_eq!(end_figures(&s), [("checkmate", 0.5), ("max_length", 0.2), ("resign", 0.3)]);
}

#[test]
fn evaluation_players_are_the_runs_models_with_the_selfplay_playout_mix() {
    let f = parse_with(&["selfplay.playout_mix=0.25"]).unwrap();
    let spec = model_spec(Path::new("/runs/r"), &f, "gen-0003", Budget::Millis(50));
    let PlayerSpec::Mcts { kind: EvalKind::Net(path, NetOptions { mix, .. }), budget, .. } = spec else { panic!("{spec:?}") };
    assert_eq!(path, Path::new("/runs/r/models/gen-0003.pzmodel"));
    assert_eq!(mix, PlayoutMix { weight: 0.25, playouts: 1 });
    assert_eq!(budget, Budget::Millis(50));
}

#[test]
fn training_draws_its_bar_only_when_asked_not_overlapped_and_not_quiet() {
    assert!(train_progress(true, None, true));
    assert!(!train_progress(false, None, true));
    assert!(!train_progress(true, Some("1700000000000-w0001"), true));
    assert!(!train_progress(true, None, false));
}

#[test]
fn a_new_run_saves_its_configuration_with_the_overrides_and_a_resumed_one_keeps_it() {
    let dir = TempDir::new("open-run");
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, tiny_loop(&[])).unwrap();
    let run = dir.join("run");
    let notes = Notes::new();
    let f = open_run(&run, ConfigArgs { config: Some(&cfg), sets: &["loop.seed=99".into()], ..ConfigArgs::default() }, &notes).unwrap();
    assert_eq!((f.looping.seed, f.looping.games_per_generation), (99, 2));
    let saved = std::fs::read_to_string(RunDir::new(&run).config()).unwrap();
    assert!(saved.starts_with("# made by pacozero ") && saved.contains("# --set loop.seed=99\n"), "{saved}");
    // Resumed: its saved configuration, whatever --config says now.
    std::fs::write(&cfg, tiny_loop(&["loop.seed=5"])).unwrap();
    assert_eq!(open_run(&run, ConfigArgs::file(&cfg), &notes).unwrap().looping.seed, 99);
    assert_eq!(notes.lines(), [format!("note: resuming {}; using its config.toml, not --config", run.display())]);
    assert_eq!(open_run(&run, ConfigArgs::default(), &notes).unwrap().looping.seed, 99);
    assert_eq!(notes.lines().len(), 1, "no note without --config");
    let e = err_text(open_run(&run, ConfigArgs { sets: &["loop.seed=3".into(), "loop.generations=4".into()], ..ConfigArgs::default() }, &notes));
    assert!(e.contains("is a run already") && e.contains("--set loop.seed=3 --set loop.generations=4 cannot change it"), "{e}");
    // An override that repeats the run's value changes nothing.
    assert_eq!(open_run(&run, ConfigArgs { sets: &["loop.seed=99".into()], ..ConfigArgs::default() }, &notes).unwrap().looping.seed, 99);
    // A new run with a bad configuration saves none.
    let bad = dir.join("bad");
    let e = err_text(open_run(&bad, ConfigArgs { config: Some(&cfg), sets: &["loop.gating_games=3".into()], ..ConfigArgs::default() }, &notes));
    assert!(e.contains("with --set loop.gating_games=3: invalid loop configuration") && e.contains("gating_games must be even"), "{e}");
    assert!(!RunDir::new(&bad).config().exists());
    // Without --config: the embedded quick configuration.
    assert_eq!(open_run(&dir.join("quick"), ConfigArgs::default(), &notes).unwrap().looping.games_per_generation, 320);
}

/// A run directory with the miniature loop's configuration (with `sets`) and `state`.
fn run_with_state(dir: &TempDir, sets: &[&str], state: &LoopState) -> PathBuf {
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    pacozero_data::write_atomic(&RunDir::new(&run).config(), &[tiny_loop(sets).as_bytes()]).unwrap();
    save_state(&run, state).unwrap();
    run
}

#[test]
fn a_run_cannot_switch_games() {
    let dir = TempDir::new("switch");
    let run = run_with_state(&dir, &[], &LoopState { game: "shako".into(), generation: 1, ..LoopState::default() });
    let e = err_text(run_loop(&run, ConfigArgs::default(), None, &Notes::new()));
    assert!(e.contains("is a shako run; its config.toml now says game = \"paco\""), "{e}");
    // A run of an earlier build, with no game recorded, is a Paco run.
    let dir = TempDir::new("switch-old");
    let run = run_with_state(&dir, &["loop.game=shako"], &LoopState { generation: 1, ..LoopState::default() });
    let e = err_text(run_loop(&run, ConfigArgs::default(), None, &Notes::new()));
    assert!(e.contains("is a paco run; its config.toml now says game = \"shako\""), "{e}");
}

#[test]
fn a_resumed_run_starts_no_program_its_config_names_unless_the_command_line_repeats_it() {
    let dir = TempDir::new("external-resume");
    let marker = dir.join("started");
    let external = format!("uci:{}:nodes=1", marking_engine(dir.path(), &marker).display());
    let set = format!("loop.external={external}");
    // Generation 1 trained: its evaluation, with the external match, is next.
    let state = LoopState { game: "paco".into(), generation: 1, done: Stage::Train, ..LoopState::default() };
    let run = run_with_state(&dir, &[&set, "loop.external_games=2"], &state);
    tiny_model::<Paco>(&run, "gen-0001");
    let config = RunDir::new(&run).config();
    let refused = |args: ConfigArgs<'_>| {
        let e = err_text(run_loop(&run, args, Some(1), &Notes::new()));
        assert!(!marker.exists(), "the program was started: {e}");
        e
    };
    let e = refused(ConfigArgs::default());
    assert!(e.starts_with(&format!("{} names loop.external = {external:?} (a program); a resumed run starts no program", config.display())), "{e}");
    assert!(e.contains(&format!("--set '{set}'")) && e.ends_with("or pass --trust-run-files to use the run's config.toml as it is"), "{e}");
    // A --config with another program, or none, does not repeat it; nor does an override of something else.
    let other = dir.join("other.toml");
    std::fs::write(&other, tiny_loop(&["loop.external=uci:/bin/false:nodes=1", "loop.external_games=2"])).unwrap();
    refused(ConfigArgs::file(&other));
    std::fs::write(&other, tiny_loop(&[])).unwrap();
    refused(ConfigArgs::file(&other));
    refused(ConfigArgs { sets: &["loop.seed=7".into()], ..ConfigArgs::default() });
    // A --config that names it, or --trust-run-files, takes the run's file.
    std::fs::write(&other, tiny_loop(&[&set])).unwrap();
    let engine = |args: ConfigArgs<'_>| open_run(&run, args, &Notes::new()).unwrap().looping.external.map(|e| e.text().to_string());
    assert_eq!(engine(ConfigArgs::file(&other)), Some(external.clone()));
    assert_eq!(engine(ConfigArgs { trust_run_files: true, ..ConfigArgs::default() }), Some(external.clone()));
    assert!(!marker.exists());
    // Repeated with --set, it plays.
    run_loop(&run, ConfigArgs { sets: std::slice::from_ref(&set), ..ConfigArgs::default() }, Some(1), &Notes::new()).unwrap();
    assert!(marker.exists(), "the program the command line repeats is started");
    assert_eq!(match_rows(&run), [row(1, "gen-0001", &external, 2)]);
}

#[test]
fn a_resumed_run_reads_no_file_its_config_names_unless_the_command_line_repeats_it() {
    let dir = TempDir::new("book-resume");
    let run = run_with_state(&dir, &["selfplay.start_positions=fen_file", "selfplay.fen_file=/etc/passwd"], &LoopState::default());
    let e = err_text(run_loop(&run, ConfigArgs::default(), None, &Notes::new()));
    assert!(e.contains(r#"names selfplay.fen_file = "/etc/passwd" (a file); a resumed run starts no program and reads no file"#), "{e}");
    assert!(e.contains("--set 'selfplay.fen_file=/etc/passwd'"), "{e}");
    let sets = ["selfplay.fen_file=/etc/passwd".to_string()];
    assert_eq!(open_run(&run, ConfigArgs { sets: &sets, ..ConfigArgs::default() }, &Notes::new()).unwrap().selfplay.fen_file, Some("/etc/passwd".into()));
}

#[test]
fn no_generation_starts_once_the_time_budget_is_spent() {
    let dir = TempDir::new("spent");
    let run = run_with_state(&dir, &["loop.max_minutes=1"], &LoopState { game: "paco".into(), generation: 2, ..LoopState::default() });
    // 50 + 20 = 70 s spent of a budget of 60 s.
    append_stage(&run, 1, "time", &[("selfplay_seconds", 50.0), ("train_seconds", 20.0)]).unwrap();
    let notes = Notes::new();
    run_loop(&run, ConfigArgs::default(), None, &notes).unwrap();
    assert_eq!(notes.lines(), ["done: the time budget (1 min) is spent before generation 2"]);
    assert_eq!(load_state(&run).unwrap().generation, 2);
}

#[test]
fn an_evaluated_generation_moves_on_and_a_promotion_cut_short_moves_the_pointer() {
    for promoted in [false, true] {
        let dir = TempDir::new("evaluated");
        let state = LoopState { game: "paco".into(), generation: 2, done: Stage::Eval, promoted, ..LoopState::default() };
        // The budget is spent (70 s of 60), which stops only a generation not begun.
        let run = run_with_state(&dir, &["loop.max_minutes=1"], &state);
        append_stage(&run, 1, "time", &[("selfplay_seconds", 50.0), ("train_seconds", 20.0)]).unwrap();
        tiny_model::<Paco>(&run, "gen-0001");
        tiny_model::<Paco>(&run, "gen-0002");
        pacozero_nn::set_current_model(&run, "gen-0001").unwrap();
        let notes = Notes::new();
        run_loop(&run, ConfigArgs::default(), None, &notes).unwrap();
        // Saved as promoted, stopped before the pointer moved: it moves on resume.
        let best = if promoted { "gen-0002" } else { "gen-0001" };
        assert_eq!(notes.lines(), [format!("== generation 2/2 (best: {best})"), format!("done: 2 generations in {}", run.display())]);
        assert_eq!(best_model(&run).unwrap(), best);
        let s = load_state(&run).unwrap();
        assert_eq!((s.generation, s.done, s.promoted), (3, Stage::None, false));
    }
}

/// The stages of generation `g` in `generations.jsonl`, in order.
fn stages(lines: &[serde_json::Value], g: u64) -> Vec<String> {
    lines.iter().filter(|l| l["generation"] == g).map(|l| l["stage"].as_str().unwrap().to_string()).collect()
}

/// Figure `key` of the lines of generation `g` and stage `stage`.
fn figures(lines: &[serde_json::Value], g: u64, stage: &str, key: &str) -> Vec<f64> {
    lines.iter().filter(|l| l["generation"] == g && l["stage"] == stage).filter_map(|l| l[key].as_f64()).collect()
}

/// Generation, players and games of each line of `matches.jsonl`, in order.
fn match_rows(run: &Path) -> Vec<(u64, String, String, u64)> {
    json_lines(&RunDir::new(run).matches())
        .iter()
        .map(|m| {
            let games = ["wins", "draws", "losses"].iter().map(|k| m[k].as_u64().unwrap()).sum();
            (m["generation"].as_u64().unwrap(), m["a"].as_str().unwrap().to_string(), m["b"].as_str().unwrap().to_string(), games)
        })
        .collect()
}

fn row(g: u64, a: &str, b: &str, games: u64) -> (u64, String, String, u64) {
    (g, a.to_string(), b.to_string(), games)
}

#[test]
fn a_miniature_loop_plays_every_stage_and_every_match_in_order() {
    let dir = TempDir::new("loop-plain");
    let external = format!("uci:{}:nodes=1", forfeiting_engine(dir.path()).display());
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, tiny_loop(&["loop.baseline_games=2", "loop.anchor_games=4", &format!("loop.external={external}"), "loop.external_games=2"])).unwrap();
    let run = dir.join("run");
    let notes = Notes::at_most(2);
    let t0 = Instant::now();
    run_loop(&run, ConfigArgs::file(&cfg), None, &notes).unwrap();
    let wall = t0.elapsed().as_secs_f64();

    let gens = json_lines(&RunDir::new(&run).generations());
    assert_eq!(stages(&gens, 1), ["selfplay", "ends", "time", "train", "time", "time", "eval", "time"]);
    // From generation 2 on, the best network's losses on the new games first.
    assert_eq!(stages(&gens, 2), ["selfplay", "ends", "time", "fresh", "train", "time", "time", "eval", "time"]);
    for g in [1, 2] {
        assert_eq!(figures(&gens, g, "selfplay", "games"), [2.0]);
        // Training up to g x 2 steps.
        assert_eq!(figures(&gens, g, "train", "steps"), [2.0 * g as f64]);
        assert_eq!(figures(&gens, g, "train", "lr_factor"), [1.0], "no loop.lr_drop_at");
        assert_eq!(figures(&gens, g, "eval", "promoted"), [1.0]);
        for k in ["selfplay_seconds", "train_seconds", "eval_seconds", "other_seconds"] {
            assert_eq!(figures(&gens, g, "time", k).len(), 1, "{k} of generation {g}");
        }
    }
    // The stage times and the rest of each generation add up to no more than the run's wall time.
    let timed: f64 = gens
        .iter()
        .filter(|l| l["stage"] == "time")
        .flat_map(|l| l.as_object().unwrap().iter().filter(|(k, _)| k.ends_with("_seconds")).map(|(_, v)| v.as_f64().unwrap()))
        .sum();
    assert!(timed <= wall, "{timed} s timed in {wall} s:\n{gens:?}");

    // Baseline, anchor (not gen-0001 against itself), external, gating (not without a best).
    assert_eq!(
        match_rows(&run),
        [
            row(1, "gen-0001", "rollout-2", 2),
            row(1, "gen-0001", &external, 2),
            row(2, "gen-0002", "rollout-2", 2),
            row(2, "gen-0002", "gen-0001", 4),
            row(2, "gen-0002", &external, 2),
            row(2, "gen-0002", "gen-0001", 2),
        ]
    );
    for m in json_lines(&RunDir::new(&run).matches()) {
        if m["b"] == external.as_str() {
            // The engine forfeits every game at its first move.
            assert_eq!((m["wins"].as_u64(), m["end_reasons"]["illegal_move"].as_u64()), (Some(2), Some(2)), "{m}");
        } else {
            // Two a decision, but none where the root is a forced win
            // (a detected win, or a win in two turns).
            let sims: Vec<f64> = m["simulations_per_decision"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            assert!(sims.len() == 2 && sims.iter().all(|x| (1.5..=2.0).contains(x)), "{m}");
            let d = m["avg_decisions"].as_f64().unwrap();
            assert!((1.0..=20.0).contains(&d), "{m}");
            assert!(m.get("sprt").is_none(), "{m}");
        }
    }
    assert_eq!(notes.starting("forfeit: ").len(), 4, "{}", notes.all());
    assert_eq!(notes.starting("self-play with ").len(), 2);
    assert!(notes.starting("self-play with ")[1].contains("gen-0001"), "{}", notes.all());
    let state = load_state(&run).unwrap();
    assert_eq!((state.game.as_str(), state.generation, state.done), ("paco", 3, Stage::None));
    assert_eq!(state.config.as_ref().unwrap()["loop"]["anchor_games"], 4);
    assert!(state.provenance.is_some());
    assert_eq!(best_model(&run).unwrap(), "gen-0002");
    assert!(RunDir::new(&run).report().is_file() && RunDir::new(&run).ratings_csv().is_file());

    // Resumed when done: nothing more to do. The run's config.toml names a
    // program, so the command line repeats it (the same --config).
    let again = Notes::at_most(0);
    run_loop(&run, ConfigArgs::file(&cfg), None, &again).unwrap();
    let resuming = format!("note: resuming {}; using its config.toml, not --config", run.display());
    assert_eq!(again.lines(), [resuming, format!("done: 2 generations in {}", run.display())]);
    assert_eq!(json_lines(&RunDir::new(&run).generations()).len(), gens.len());
}

#[test]
fn an_overlapped_loop_trains_beside_selfplay_from_generation_two_and_gates_by_sprt() {
    let dir = TempDir::new("loop-overlap");
    let cfg = dir.join("tiny.toml");
    // A drop at half the budget: not reached in a few seconds of 1,000 minutes.
    let sets = [
        "loop.overlap=true",
        "loop.promotion=sprt",
        "loop.baseline_games=2",
        "loop.baseline_movetime_ms=5",
        "loop.max_minutes=1000",
        "loop.lr_drop_at=0.5",
        "net.encoding=platform",
    ];
    std::fs::write(&cfg, tiny_loop(&sets)).unwrap();
    let run = dir.join("run");
    let notes = Notes::at_most(2);
    run_loop(&run, ConfigArgs::file(&cfg), None, &notes).unwrap();

    let gens = json_lines(&RunDir::new(&run).generations());
    assert_eq!(stages(&gens, 1), ["selfplay", "ends", "time", "train", "time", "time", "eval", "time"], "generation 1 has no network to play beside training");
    let mut second = stages(&gens, 2);
    second.sort();
    assert_eq!(second, ["ends", "eval", "overlap", "selfplay", "time", "time", "time", "train"], "no new games to measure: training reads generation 1's");
    assert_eq!(figures(&gens, 2, "selfplay", "games"), [2.0]);
    assert_eq!(figures(&gens, 2, "train", "steps"), [4.0]);
    assert_eq!((figures(&gens, 1, "train", "lr_factor"), figures(&gens, 2, "train", "lr_factor")), (vec![1.0], vec![1.0]), "before lr_drop_at");
    assert_eq!(figures(&gens, 2, "overlap", "selfplay_seconds").len(), 1);
    assert_eq!(figures(&gens, 2, "overlap", "train_seconds").len(), 1);
    assert_eq!(figures(&gens, 2, "time", "overlap_seconds").len(), 1);
    assert!(figures(&gens, 2, "time", "selfplay_seconds").is_empty() && figures(&gens, 2, "time", "train_seconds").is_empty());
    // gen-0002 trains on the chunks complete when generation 2 began: generation 1's one chunk.
    let data = RunDir::new(&run).data();
    let chunks = pacozero_data::list_chunks(&data).unwrap();
    assert_eq!(chunks.len(), 2);
    assert_eq!(
        notes.starting("self-play and training at once"),
        [format!("self-play and training at once: gen-0002 trains on the chunks up to {}", chunks[0].stem)]
    );
    // The games are in the network's encoding, platform (index 1).
    check_data_dir_as::<Paco>(&data, 1).unwrap();
    assert!(check_data_dir_as::<Paco>(&data, 0).is_err());

    // The baseline at equal time (5 ms a decision for both sides), then the gating match.
    assert_eq!(match_rows(&run), [row(1, "gen-0001", "rollout-5ms", 2), row(2, "gen-0002", "rollout-5ms", 2), row(2, "gen-0002", "gen-0001", 2)]);
    let lines = json_lines(&RunDir::new(&run).matches());
    for m in &lines[..2] {
        let s = m["seconds_per_decision"].as_array().unwrap();
        assert!(s.iter().all(|s| (0.0025..0.5).contains(&s.as_f64().unwrap())), "about 0.005 s a decision: {m}");
        assert!(m.get("sprt").is_none(), "{m}");
    }
    // One pair cannot accept H1: the test is recorded, and gen-0002 is not promoted.
    let sprt = lines[2]["sprt"].as_str().unwrap();
    assert!(sprt == "undecided" || sprt == "H0 accepted", "{}", lines[2]);
    assert_eq!(figures(&gens, 1, "eval", "promoted"), [1.0], "the first network has no best to beat");
    assert_eq!(figures(&gens, 2, "eval", "promoted"), [0.0]);
    assert_eq!(best_model(&run).unwrap(), "gen-0001");
    assert_eq!(load_state(&run).unwrap().generation, 3);
}

#[test]
fn a_loop_past_lr_drop_at_trains_at_the_dropped_rate_and_records_it() {
    // The share is reached as soon as generation 1's self-play has taken
    // any time, so every generation trains at a tenth of the rate.
    let dir = TempDir::new("loop-lr-drop");
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, tiny_loop(&["loop.max_minutes=1000", "loop.lr_drop_at=0.000000001", "train.lr=0.02"])).unwrap();
    let run = dir.join("run");
    let notes = Notes::at_most(2);
    run_loop(&run, ConfigArgs::file(&cfg), None, &notes).unwrap();
    let gens = json_lines(&RunDir::new(&run).generations());
    for g in [1, 2] {
        assert_eq!(figures(&gens, g, "train", "lr_factor"), [0.1], "generation {g}");
    }
    // The share spent, not the seconds: a few seconds of a 1,000-minute budget.
    assert_eq!(notes.starting("training at 0.1 x lr: 0% of the time budget is spent").len(), 2, "{}", notes.all());
    let metrics = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    let lr_col = metrics.lines().next().unwrap().split(',').position(|c| c == "lr").unwrap();
    let rates: Vec<f64> = metrics.lines().skip(1).map(|l| l.split(',').nth(lr_col).unwrap().parse().unwrap()).collect();
    assert_eq!(rates.len(), 4, "{metrics}");
    assert!(rates.iter().all(|r| (r - 0.002).abs() < 1e-9), "{rates:?}");
}

#[test]
fn a_loop_gated_by_score_plays_only_the_gating_match_and_a_repeated_stage_adds_no_steps() {
    let dir = TempDir::new("loop-score");
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, tiny_loop(&["loop.promotion=score", "loop.promotion_score=0.6"])).unwrap();
    let run = dir.join("run");
    run_loop(&run, ConfigArgs::file(&cfg), None, &Notes::at_most(2)).unwrap();
    // No baseline, no anchor games, and no best to gate generation 1 against.
    assert_eq!(match_rows(&run), [row(2, "gen-0002", "gen-0001", 2)]);
    let gating = &json_lines(&RunDir::new(&run).matches())[0];
    let score = (gating["wins"].as_f64().unwrap() + 0.5 * gating["draws"].as_f64().unwrap()) / 2.0;
    assert!(score < 0.6, "these games are drawn at 20 decisions: {gating}");
    let gens = json_lines(&RunDir::new(&run).generations());
    assert_eq!(figures(&gens, 2, "eval", "promoted"), [0.0]);
    assert_eq!(best_model(&run).unwrap(), "gen-0001");

    // Generation 2 again from its training, whose steps are all done: no training line.
    let state = LoopState { generation: 2, done: Stage::Selfplay, ..load_state(&run).unwrap() };
    save_state(&run, &state).unwrap();
    let notes = Notes::at_most(1);
    run_loop(&run, ConfigArgs::default(), None, &notes).unwrap();
    assert!(notes.starting("training:").is_empty(), "{}", notes.all());
    let gens = json_lines(&RunDir::new(&run).generations());
    assert_eq!(figures(&gens, 2, "train", "steps"), [4.0]);
    assert_eq!(figures(&gens, 2, "eval", "promoted"), [0.0, 0.0]);
    assert_eq!(load_state(&run).unwrap().generation, 3);
}
