//! Self-play end to end: config, chunks written and read back with pacozero-data.

mod common;
use common::Constant;
use pacozero_engine::paco::GameState;
use pacozero_engine::prelude::*;
use pacozero_engine::Color;
use pacozero_search::{Algorithm, RolloutEvaluator, SearchConfig, UniformEvaluator};
use pacozero_selfplay::{bench_mcts, play_game, run_selfplay, SelfplayConfig, StartPositions};

fn small(alg: Algorithm) -> SelfplayConfig {
    SelfplayConfig {
        seed: 42,
        threads: 2,
        games_per_thread: 3,
        games_per_chunk: 2,
        max_decisions: 80,
        full_search_fraction: 0.5,
        search: SearchConfig { algorithm: alg, full_simulations: 16, cheap_simulations: 4, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    }
}

#[test]
fn default_config_file_matches_default() {
    // The shipped file (the repository's configs/), not a copy in this crate.
    let text = std::fs::read_to_string(format!("{}/../configs/selfplay.toml", manifest_dir())).unwrap();
    let cfg = SelfplayConfig::from_toml_str(&text).unwrap();
    assert_eq!(cfg, SelfplayConfig::default());
    // Round trip.
    let again = SelfplayConfig::from_toml_str(&cfg.to_toml_string()).unwrap();
    assert_eq!(again, cfg);
    assert_eq!(SelfplayConfig::from_toml_str("").unwrap(), cfg);
}

#[test]
fn config_errors_name_the_key() {
    let e = SelfplayConfig::from_toml_str("bogus = 1").unwrap_err().to_string();
    assert!(e.contains("bogus"), "{e}");
    let e = SelfplayConfig::from_toml_str("[search]\nc_puctt = 1.0").unwrap_err().to_string();
    assert!(e.contains("c_puctt"), "{e}");
    let e = SelfplayConfig::from_toml_str("full_search_fraction = 1.5").unwrap_err().to_string();
    assert!(e.contains("full_search_fraction"), "{e}");
    let e = SelfplayConfig::from_toml_str("[search]\nfull_simulations = 0").unwrap_err().to_string();
    assert!(e.contains("search.full_simulations"), "{e}");
    let e = SelfplayConfig::from_toml_str("start_positions = \"fen_file\"").unwrap_err().to_string();
    assert!(e.contains("fen_file"), "{e}");
    let e = SelfplayConfig::from_toml_str("[search]\nalgorithm = \"alphabeta\"").unwrap_err().to_string();
    assert!(e.contains("alphabeta") || e.contains("algorithm"), "{e}");
}

#[test]
fn selfplay_chunks_read_back() {
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        let dir = tempfile::tempdir().unwrap();
        let cfg = small(alg);
        let games = 7;
        let s = run_selfplay::<GameState, _>(&cfg, &UniformEvaluator, dir.path(), games, false).unwrap();
        assert_eq!(s.games, games);
        assert_eq!(s.white_wins + s.draws + s.black_wins, games);
        assert!(s.simulations > 0 && s.node_visits >= s.simulations);
        let chunks = pacozero_data::list_chunks(dir.path()).unwrap();
        assert_eq!(chunks.len(), s.chunks.len());
        let mut n_games = 0;
        let mut n_pos = 0;
        for c in &chunks {
            let (spec, positions, rows) = pacozero_data::read_chunk(c).unwrap();
            assert_eq!(spec.game, "paco");
            assert_eq!(spec.policy_size, 132);
            n_games += rows.len() as u64;
            n_pos += positions.len() as u64;
            for g in &rows {
                let ps: Vec<_> = positions.iter().filter(|p| p.game_id == g.game_id).collect();
                assert_eq!(ps.len() as u32, g.num_decisions);
                assert_eq!(g.actions.split(' ').count() as u32, g.num_decisions);
                assert_eq!(g.config_hash, cfg.config_hash());
                assert_eq!(g.network_id, "uniform");
                // Replaying the actions reaches the recorded result.
                let mut st = <GameState as pacozero_engine::Notation>::from_notation(&g.start_fen).unwrap();
                for (i, p) in ps.iter().enumerate() {
                    assert_eq!(p.ply as usize, i);
                    assert_eq!(p.moves_left, g.num_decisions - 1 - i as u32);
                    assert_eq!(p.side_to_move as usize, st.to_move().index());
                    let mut legal = Vec::new();
                    st.playable_actions(&mut legal);
                    assert_eq!(p.legal_actions, legal);
                    let sum: f32 = p.policy.iter().sum();
                    assert!((sum - 1.0).abs() < 1e-3);
                    assert!(p.root_q.abs() <= 1.0 + 1e-5);
                    assert_eq!(p.result, common::result_for_mover(&g.result, p.side_to_move));
                    // A game cut at its length cap is truncated, row by row.
                    assert_eq!(p.truncated, pacozero_data::is_truncation(&g.reason), "{}", g.reason);
                    let mut planes = vec![0u64; p.planes.len()];
                    let mut scalars = vec![0f32; p.scalars.len()];
                    st.encode(&mut planes, &mut scalars);
                    assert_eq!(planes, p.planes);
                    assert_eq!(g.actions.split(' ').nth(i).unwrap(), st.action_name(p.action));
                    st.apply(p.action);
                }
                match g.reason.as_str() {
                    "paco" => assert!(st.outcome().is_some() && g.result != "1/2-1/2"),
                    "max_length" => assert_eq!(g.num_decisions, cfg.max_decisions),
                    _ => {}
                }
            }
        }
        assert_eq!(n_games, games);
        assert_eq!(n_pos, s.positions);
    }
}

#[test]
fn selfplay_is_reproducible() {
    let cfg = small(Algorithm::Gumbel);
    let a = play_game::<GameState, _>(&cfg, &UniformEvaluator, 3, None).unwrap();
    let b = play_game::<GameState, _>(&cfg, &UniformEvaluator, 3, None).unwrap();
    assert_eq!(a.game, b.game);
    let c = play_game::<GameState, _>(&cfg, &UniformEvaluator, 4, None).unwrap();
    assert_ne!(a.game.actions, c.game.actions);
}

#[test]
fn fischer_random_and_fen_file_starts() {
    let mut cfg = small(Algorithm::Puct);
    cfg.max_decisions = 4;
    cfg.start_positions = StartPositions::FischerRandom;
    let a = play_game::<GameState, _>(&cfg, &UniformEvaluator, 0, None).unwrap();
    let b = play_game::<GameState, _>(&cfg, &UniformEvaluator, 1, None).unwrap();
    assert_ne!(a.game.start_fen, b.game.start_fen);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("starts.txt");
    std::fs::write(&f, "# a comment\n4k3/8/8/8/8/8/8/4RK2 w 0 - - -\n\n").unwrap();
    cfg.start_positions = StartPositions::FenFile;
    cfg.fen_file = Some(f.clone());
    let g = play_game::<GameState, _>(&cfg, &UniformEvaluator, 0, None).unwrap();
    assert_eq!(g.game.start_fen, "4k3/8/8/8/8/8/8/4RK2 w 0 - - -");
    std::fs::write(&f, "not a fen\n").unwrap();
    let e = play_game::<GameState, _>(&cfg, &UniformEvaluator, 0, None).unwrap_err();
    assert!(format!("{e:#}").contains("starts.txt:1"), "{e:#}");
}

/// A share of Fischer-random self-play starts from the standard setup; the
/// games from it differ (Gumbel noise), and without a share none does.
#[test]
fn a_standard_fraction_of_fischer_random_games_starts_from_the_standard_setup() {
    let mut cfg = small(Algorithm::Gumbel);
    cfg.max_decisions = 12;
    cfg.start_positions = StartPositions::FischerRandom;
    let standard = GameState::start().notation();
    let starts = |cfg: &SelfplayConfig| -> Vec<(String, String)> {
        (0..40).map(|i| play_game::<GameState, _>(cfg, &UniformEvaluator, i, None).unwrap()).map(|g| (g.game.start_fen, g.game.actions)).collect()
    };
    assert!(starts(&cfg).iter().all(|(fen, _)| *fen != standard), "no share: Fischer-random only");
    cfg.standard_fraction = 0.5;
    let games = starts(&cfg);
    let from_standard: Vec<&String> = games.iter().filter(|(fen, _)| *fen == standard).map(|(_, actions)| actions).collect();
    assert!((10..=30).contains(&from_standard.len()), "{} of 40 from the standard setup", from_standard.len());
    let distinct: std::collections::HashSet<&String> = from_standard.iter().copied().collect();
    assert_eq!(distinct.len(), from_standard.len(), "every game from the standard setup differs");
    cfg.standard_fraction = 1.0;
    assert!(starts(&cfg).iter().all(|(fen, _)| *fen == standard));
    cfg.standard_fraction = 1.5;
    assert!(cfg.validate().unwrap_err().to_string().contains("standard_fraction"));
}

/// Games may start where a pending promotion opens the mover's turn (issue
/// 34, kind 2: a lone pawn that ended its owner's move on the last rank, a
/// pawn the opponent carried home): the first decision is the promotion and
/// the game goes on from there.
#[test]
fn games_start_from_a_pending_promotion() {
    let mut cfg = small(Algorithm::Gumbel);
    cfg.max_decisions = 6;
    cfg.start_positions = StartPositions::FenFile;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("starts.txt");
    for fen in ["2h2r2/pp3ppk/5nNp/3d1wBP/3PeF2/P2D4/1P1R1P2/1KE1p3 b 1 - - -", "3Ck3/8/8/8/8/8/8/4K3 w 0 - - -"] {
        std::fs::write(&f, format!("{fen}\n")).unwrap();
        cfg.fen_file = Some(f.clone());
        let g = play_game::<GameState, _>(&cfg, &UniformEvaluator, 0, None).unwrap();
        assert_eq!(g.game.start_fen, fen);
        let first = g.game.actions.split_whitespace().next().unwrap_or_default();
        assert!(first.starts_with('='), "{fen}: the game began with {first:?}: {}", g.game.actions);
        assert!(g.game.num_decisions > 1, "{fen}: {}", g.game.actions);
    }
}

/// Believes White is winning everywhere (uniform priors): Black's root value
/// is about -0.9 at every decision, so Black resigns whenever it may.
const WHITE_WINS: Constant = Constant { white: [0.95, 0.05, 0.0], black: [0.0, 0.05, 0.95] };

#[test]
fn resignation_and_no_resign_games() {
    let mut cfg = small(Algorithm::Gumbel);
    cfg.resign_threshold = -0.5;
    cfg.resign_consecutive = 2;
    cfg.no_resign_fraction = 0.5;
    cfg.max_decisions = 40;
    cfg.threads = 2;
    let games = 12;
    let dir = tempfile::tempdir().unwrap();
    let s = run_selfplay::<GameState, _>(&cfg, &WHITE_WINS, dir.path(), games, false).unwrap();
    assert_eq!(s.games, games);
    // Each game replayed alone (same seed, same index) says what the summary
    // must count.
    let (mut resigned, mut no_resign, mut false_resignations) = (0, 0, 0);
    for i in 0..games {
        let r = play_game::<GameState, _>(&cfg, &WHITE_WINS, i, None).unwrap();
        if r.no_resign {
            no_resign += 1;
            assert_ne!(r.reason, "resign", "game {i} may not resign");
            assert_eq!(r.would_resign, Some(Color::Black), "game {i}: Black would have resigned");
            if r.winner != Some(Color::White) {
                false_resignations += 1;
            }
        } else {
            resigned += 1;
            assert_eq!((r.reason.as_str(), r.winner), ("resign", Some(Color::White)), "game {i}: Black resigns");
            // Black resigns at its second decision below the threshold.
            assert!(r.positions.len() <= 6, "game {i} resigned after {} decisions", r.positions.len());
        }
    }
    assert!(resigned > 0 && no_resign > 0, "{resigned} resigned, {no_resign} no-resign games");
    // Games cut at 40 decisions are draws: the would-be resigner did not lose.
    assert!(false_resignations > 0);
    assert_eq!(s.reasons.get("resign").copied().unwrap_or(0), resigned, "{s}");
    assert_eq!(s.black_wins, 0, "{s}");
    assert_eq!((s.no_resign_games, s.would_resign_games, s.false_resignations), (no_resign, no_resign, false_resignations), "{s}");
    assert!((s.false_resignation_rate() - false_resignations as f64 / no_resign as f64).abs() < 1e-12);
}

#[test]
fn bench_runs() {
    let r = bench_mcts::<GameState, _>(&SearchConfig { algorithm: Algorithm::Puct, ..SearchConfig::default() }, &UniformEvaluator, 2, 8, 1.0).unwrap();
    eprintln!("{r}");
    assert!(r.simulations > 0 && r.node_visits_per_sec > 0.0);
    let r = bench_mcts::<GameState, _>(&SearchConfig::default(), &RolloutEvaluator::new(0, 1, 50), 2, 8, 1.0).unwrap();
    eprintln!("{r}");
    assert!(r.eval_fraction > 0.0 && r.eval_fraction <= 1.0);
}

/// The package directory of this checkout: cargo sets it when it runs the
/// test. The compile-time value is only a fallback, because a test binary
/// built from another checkout sharing the target directory keeps that
/// checkout's path.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}

#[test]
fn gumbel_self_play_samples_its_first_moves_from_the_improved_policy_only_when_asked() {
    // Without root noise the Gumbel search is deterministic, so every game
    // from the standard start opens with the same winner; sampling the first
    // decisions from the improved policy varies them.
    let cfg = |sample: u32| SelfplayConfig {
        full_search_fraction: 1.0,
        gumbel_sample_decisions: sample,
        search: SearchConfig { gumbel_noise: false, ..small(Algorithm::Gumbel).search },
        ..small(Algorithm::Gumbel)
    };
    let ev = RolloutEvaluator::new(7, 2, 40);
    let openings = |c: &SelfplayConfig| -> Vec<_> {
        (0..8).map(|i| play_game::<GameState, _>(c, &ev, i, None).unwrap().game.actions.split_whitespace().take(4).collect::<Vec<_>>().join(" ")).collect()
    };
    let fixed = openings(&cfg(0));
    assert!(fixed.iter().all(|o| o == &fixed[0]), "the winner differs between games: {fixed:?}");
    let sampled = openings(&cfg(4));
    let distinct: std::collections::HashSet<_> = sampled.iter().collect();
    assert!(distinct.len() >= 3, "8 sampled openings, {} distinct: {sampled:?}", distinct.len());
}

/// Forced moves get no full search; otherwise `full_search_fraction` decides
/// (0: none, 1: every one).
#[test]
fn full_searches_follow_the_fraction_and_skip_forced_moves() {
    for fraction in [0.0, 1.0] {
        let cfg = SelfplayConfig { full_search_fraction: fraction, max_decisions: 120, ..small(Algorithm::Puct) };
        let (mut forced, mut free) = (0, 0);
        for i in 0..4 {
            let g = play_game::<GameState, _>(&cfg, &UniformEvaluator, i, None).unwrap();
            for p in &g.positions {
                if p.legal_actions.len() == 1 {
                    forced += 1;
                    assert!(!p.full_search, "fraction {fraction}, game {i}, ply {}: a forced move searched in full", p.ply);
                } else {
                    free += 1;
                    assert_eq!(p.full_search, fraction == 1.0, "fraction {fraction}, game {i}, ply {}", p.ply);
                }
            }
        }
        assert!(forced > 0 && free > 0, "the games had {forced} forced and {free} free decisions");
    }
}

/// PUCT self-play samples with `temperature` for the first
/// `temperature_decisions` decisions and with `final_temperature` (0: the
/// most visited action) from then on.
#[test]
fn the_temperature_drops_after_temperature_decisions() {
    let cfg = SelfplayConfig {
        full_search_fraction: 1.0,
        temperature: 10.0,
        temperature_decisions: 2,
        final_temperature: 0.0,
        max_decisions: 12,
        ..small(Algorithm::Puct)
    };
    let mut sampled_off_the_top = 0;
    for i in 0..12 {
        let g = play_game::<GameState, _>(&cfg, &UniformEvaluator, i, None).unwrap();
        for p in &g.positions {
            let k = p.legal_actions.iter().position(|&a| a == p.action).unwrap();
            let top = p.policy.iter().cloned().fold(f32::MIN, f32::max);
            if p.ply < 2 {
                sampled_off_the_top += (p.policy[k] < top) as u32;
            } else {
                assert_eq!(p.policy[k], top, "game {i}, ply {}: not the most visited action", p.ply);
            }
        }
    }
    // At temperature 10 the first decisions are close to uniform over the visited actions.
    assert!(sampled_off_the_top > 0);
}

/// A side resigns only when its root value is *below* the threshold: exactly
/// at it (a constant evaluator gives Black -0.5 everywhere) it plays on.
#[test]
fn a_root_value_at_the_resign_threshold_does_not_resign() {
    const BLACK_AT_HALF: Constant = Constant { white: [0.75, 0.0, 0.25], black: [0.25, 0.0, 0.75] };
    let cfg = SelfplayConfig { resign_threshold: -0.5, resign_consecutive: 1, no_resign_fraction: 0.0, max_decisions: 20, ..small(Algorithm::Puct) };
    for i in 0..3 {
        let g = play_game::<GameState, _>(&cfg, &BLACK_AT_HALF, i, None).unwrap();
        assert!(g.positions.iter().filter(|p| p.side_to_move == 1).all(|p| p.root_q == -0.5), "game {i}: Black's root values are exactly -0.5");
        assert_ne!(g.reason, "resign", "game {i}");
    }
    // Just below it, Black resigns at its first decision.
    let cfg = SelfplayConfig { resign_threshold: -0.49, ..cfg };
    let g = play_game::<GameState, _>(&cfg, &BLACK_AT_HALF, 0, None).unwrap();
    assert_eq!((g.reason.as_str(), g.winner), ("resign", Some(Color::White)));
}

/// The run's totals are the sums of its games' (each replayed alone: a game's
/// search does not depend on the games beside it), its batches hold its
/// requests, every chunk holds games, and a rerun into the same directory
/// plays only the games not written yet.
#[test]
fn run_totals_add_up_and_a_rerun_plays_only_new_games() {
    // One worker: its chunks of 2, 2 and 1 games get three names.
    let cfg = SelfplayConfig { threads: 1, games_per_thread: 3, games_per_chunk: 2, ..small(Algorithm::Puct) };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new-dir");
    let s = run_selfplay::<GameState, _>(&cfg, &UniformEvaluator, &out, 5, false).unwrap();
    // Stems `<ms>-w<worker>-<seq>`: the worker numbers its chunks 0, 1, 2.
    let seqs: Vec<&str> = s.chunks.iter().map(|c| c.rsplit('-').next().unwrap()).collect();
    assert_eq!(seqs, ["000000", "000001", "000002"], "{:?}", s.chunks);
    let alone: Vec<_> = (0..5).map(|i| play_game::<GameState, _>(&cfg, &UniformEvaluator, i, None).unwrap()).collect();
    assert_eq!(s.full_search_positions, alone.iter().map(|g| g.positions.iter().filter(|p| p.full_search).count() as u64).sum::<u64>());
    assert_eq!(s.simulations, alone.iter().map(|g| g.simulations).sum::<u64>());
    assert_eq!(s.node_visits, alone.iter().map(|g| g.node_visits).sum::<u64>());
    assert_eq!(s.positions, alone.iter().map(|g| g.positions.len() as u64).sum::<u64>());
    assert!(s.batches > 0 && s.batches <= s.requests && s.requests <= s.simulations, "{s}");
    assert!(s.eval_secs > 0.0 && s.eval_secs <= s.wall_secs * s.threads as f64 + 1e-3, "{s}");
    let chunks = pacozero_data::list_chunks(&out).unwrap();
    assert_eq!(chunks.len(), 3);
    for c in chunks {
        let (_, _, games) = pacozero_data::read_chunk(&c).unwrap();
        assert!(!games.is_empty(), "an empty chunk was written");
    }
    assert_eq!(pacozero_data::game_ids(&out).unwrap().len(), 5);
    assert_eq!(s.skipped, 0);
    let cfg = SelfplayConfig { threads: 2, ..cfg };
    let again = run_selfplay::<GameState, _>(&cfg, &UniformEvaluator, &out, 7, false).unwrap();
    assert_eq!((again.skipped, again.games), (5, 2), "{again}");
    assert_eq!(pacozero_data::game_ids(&out).unwrap().len(), 7);
}

/// An evaluator that fails once: its worker's error stops the other worker
/// too (the run ends with the error, not after all its games).
#[test]
fn a_worker_error_stops_the_run() {
    use pacozero_search::{EvalOutput, EvalRequest, Evaluator};
    use std::sync::atomic::{AtomicU64, Ordering};
    struct FailsOnce {
        calls: AtomicU64,
        after: AtomicU64,
    }
    impl Evaluator<GameState> for FailsOnce {
        fn evaluate(&self, batch: &[EvalRequest<'_, GameState>], out: &mut EvalOutput) -> anyhow::Result<()> {
            if self.calls.fetch_add(1, Ordering::SeqCst) == 20 {
                anyhow::bail!("the evaluator failed");
            }
            if self.calls.load(Ordering::SeqCst) > 21 {
                self.after.fetch_add(1, Ordering::SeqCst);
            }
            UniformEvaluator.evaluate(batch, out)
        }
        fn name(&self) -> String {
            "fails-once".into()
        }
    }
    let ev = FailsOnce { calls: AtomicU64::new(0), after: AtomicU64::new(0) };
    let cfg = SelfplayConfig { threads: 2, games_per_thread: 2, ..small(Algorithm::Puct) };
    let dir = tempfile::tempdir().unwrap();
    // 300 games: without the stop, the other worker would play them all
    // (some 100,000 evaluations, under a second).
    let e = run_selfplay::<GameState, _>(&cfg, &ev, dir.path(), 300, false).unwrap_err();
    assert!(format!("{e:#}").contains("the evaluator failed"), "{e:#}");
    // The other worker stops at its next look at the abort flag.
    assert!(ev.after.load(Ordering::SeqCst) < 1000, "{} evaluations after the failure", ev.after.load(Ordering::SeqCst));
}

/// An evaluator that reads Shako's second input encoding, as a Shako
/// network of `encoding = "threats"` does; its values are uniform.
struct ReadsThreats;

impl pacozero_search::Evaluator<pacozero_engine::shako::GameState> for ReadsThreats {
    fn name(&self) -> String {
        "threats-reader".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn encoding(&self) -> Option<String> {
        Some("threats".into())
    }
    fn evaluate(
        &self,
        batch: &[pacozero_search::EvalRequest<'_, pacozero_engine::shako::GameState>],
        out: &mut pacozero_search::EvalOutput,
    ) -> anyhow::Result<()> {
        pacozero_search::Evaluator::<pacozero_engine::shako::GameState>::evaluate(&UniformEvaluator, batch, out)
    }
}

/// The benchmark searches with a network of any input encoding of its game
/// (it once asked every network for the default one).
#[test]
fn bench_mcts_takes_the_networks_input_encoding() {
    let search = SearchConfig { full_simulations: 4, cheap_simulations: 1, ..SearchConfig::default() };
    let r = bench_mcts::<pacozero_engine::shako::GameState, _>(&search, &ReadsThreats, 1, 2, 0.3).unwrap();
    assert!(r.decisions > 0, "{r}");
    assert_eq!(r.evaluator, "threats-reader");
}

/// The benchmark runs what it says: the threads and interleaved games asked
/// for, every decision a full search of the given simulations.
#[test]
fn bench_mcts_runs_the_configured_search() {
    let search = SearchConfig { full_simulations: 6, cheap_simulations: 1, ..SearchConfig::default() };
    let r = bench_mcts::<GameState, _>(&search, &UniformEvaluator, 1, 3, 1.0).unwrap();
    assert_eq!((r.threads, r.games_per_thread), (1, 3));
    assert!(r.decisions > 0 && r.batches > 0);
    assert!(r.avg_batch >= 1.0 && r.avg_batch <= 3.0, "{r}");
    // Full searches only: about 6 simulations a decision (the last games are cut mid-search).
    let per = r.simulations as f64 / r.decisions as f64;
    assert!((5.0..=7.0).contains(&per), "{per} simulations a decision: {r}");
    assert!((r.simulations_per_sec - r.simulations as f64 / r.wall_secs).abs() <= 1e-6 * r.simulations_per_sec.max(1.0), "{r}");
    assert!((r.node_visits_per_sec - r.node_visits as f64 / r.wall_secs).abs() <= 1e-6 * r.node_visits_per_sec.max(1.0), "{r}");
    let text = r.to_string();
    assert!(text.contains("1 threads x 3 games") && text.contains(&format!("{} decisions", r.decisions)), "{text}");
}

/// Uniform values, a millisecond a batch: a benchmark of a fraction of a
/// second then finishes no game of up to 300 decisions.
struct Slow;

impl pacozero_search::Evaluator<GameState> for Slow {
    fn name(&self) -> String {
        "slow".into()
    }
    fn needs_encoding(&self) -> bool {
        false
    }
    fn evaluate(&self, batch: &[pacozero_search::EvalRequest<'_, GameState>], out: &mut pacozero_search::EvalOutput) -> anyhow::Result<()> {
        std::thread::sleep(std::time::Duration::from_millis(1));
        pacozero_search::Evaluator::<GameState>::evaluate(&UniformEvaluator, batch, out)
    }
}

/// The benchmark counts the decisions of the games its deadline abandons,
/// as it counts their simulations: it once counted only finished games',
/// so a loaded machine, finishing fewer, reported more simulations a decision.
#[test]
fn bench_mcts_counts_the_decisions_of_unfinished_games() {
    let search = SearchConfig { full_simulations: 6, cheap_simulations: 1, ..SearchConfig::default() };
    let r = bench_mcts::<GameState, _>(&search, &Slow, 1, 2, 0.3).unwrap();
    assert!(r.decisions > 0, "{r}");
    let per = r.simulations as f64 / r.decisions as f64;
    assert!((5.0..=7.5).contains(&per), "{per} simulations a decision: {r}");
}
