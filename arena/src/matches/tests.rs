use super::*;
use crate::budget::Budget;
use crate::players::{greedy_turn, EvalKind, NetOptions, PlayerSpec, PlayoutMix};
use pacozero_engine::{paco, shako};

use crate::fake_engine::fake_engine;
use pacozero_engine::prelude::*;
use pacozero_engine::Color;
use std::sync::atomic::{AtomicU64, Ordering};

fn result(outcome: Outcome, end_reason: &'static str, decisions: u32, seconds: [f64; 2], decisions_by: [u32; 2], simulations: [u64; 2]) -> GameResult {
    GameResult { outcome, decisions, seconds, decisions_by, simulations, end_reason, start_fen: String::new(), actions: String::new(), forfeit: None }
}

/// A pair's points go to A by colour (White in the first game, Black in
/// the second), and so do each colour's seconds, decisions and simulations.
#[test]
fn pairs_are_counted_from_a_s_side() {
    let mut m = MatchResult::default();
    let g1 = result(Outcome::Win(Color::White), "checkmate", 10, [1.0, 2.0], [5, 5], [50, 500]);
    let mut g2 = result(Outcome::Draw, "max_length", 7, [4.0, 8.0], [4, 3], [40, 300]);
    g2.forfeit = Some(Forfeit { reason: "engine_crash", detail: "x".into() });
    m.add_pair(&g1, &g2);
    assert_eq!((m.wdl, m.pentanomial, m.games, m.decisions), (Wdl { wins: 1, draws: 1, losses: 0 }, Pentanomial([0, 0, 0, 1, 0]), 2, 17));
    assert_eq!((m.seconds, m.decisions_by, m.simulations), ([9.0, 6.0], [8, 9], [350, 540]));
    assert_eq!(m.end_reasons.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), [("checkmate", 1), ("max_length", 1)]);
    assert_eq!(m.forfeits, ["x"]);
    assert_eq!(m.per_decision(0), (1000.0 * 9.0 / 8.0, 350.0 / 8.0));
    assert_eq!(m.per_decision(1), (1000.0 * 6.0 / 9.0, 540.0 / 9.0));
    // One pair: the Elo of the games one by one.
    let (elo, ci, paired) = m.elo();
    assert_eq!(((elo, ci), paired), (m.elo_trinomial(), false));
    // A lost game as White and a won one as Black.
    let g3 = result(Outcome::Win(Color::Black), "checkmate", 3, [0.0; 2], [2, 1], [0; 2]);
    let g4 = result(Outcome::Win(Color::Black), "checkmate", 3, [0.0; 2], [2, 1], [0; 2]);
    m.add_pair(&g3, &g4);
    assert_eq!((m.wdl, m.pentanomial), (Wdl { wins: 2, draws: 1, losses: 1 }, Pentanomial([0, 0, 1, 1, 0])));
    assert_eq!(m.end_reasons["checkmate"], 3);
    // Two pairs: the pentanomial figures.
    let p = m.pentanomial.stats().unwrap();
    assert_eq!(m.elo(), (p.elo, p.elo_ci95, true));
    assert_eq!(MatchResult::default().per_decision(0), (0.0, 0.0));
}

/// The games-one-by-one Elo against numbers worked out by hand: 6 wins,
/// 2 draws, 2 losses score 0.7 with a per-game variance of 0.16, so a
/// standard error of 0.126491; Elo(0.7) = 147.19, and Elo(0.7 ± 1.96 ·
/// 0.126491) are 537.7 wide.
#[test]
fn the_trinomial_elo_matches_hand_computed_values() {
    let m = MatchResult { wdl: Wdl { wins: 6, draws: 2, losses: 2 }, ..MatchResult::default() };
    let (elo, ci) = m.elo_trinomial();
    assert!((elo - 147.190_714).abs() < 1e-5 && (ci - 268.725_934).abs() < 1e-5, "{elo} {ci}");
}

#[test]
fn openings_are_read_by_name() {
    assert_eq!("standard".parse(), Ok(Openings::Standard));
    assert_eq!("fischer_random".parse(), Ok(Openings::FischerRandom));
    assert_eq!("fischer-random".parse(), Ok(Openings::FischerRandom));
    assert_eq!("chess960".parse::<Openings>().unwrap_err(), "unknown openings `chess960` (expected standard or fischer_random)");
    assert_eq!(serde_json::from_str::<Openings>("\"fischer-random\"").unwrap(), Openings::FischerRandom);
    assert_eq!(serde_json::to_string(&Openings::FischerRandom).unwrap(), "\"fischer_random\"");
    // Each opening of a random kind is its own, and the seed's.
    let starts: Vec<String> = (0..4).map(|i| opening::<shako::GameState>(Openings::FischerRandom, 9, i).notation()).collect();
    assert_eq!(starts, (0..4).map(|i| opening::<shako::GameState>(Openings::FischerRandom, 9, i).notation()).collect::<Vec<_>>());
    assert_ne!(starts[1], opening::<shako::GameState>(Openings::FischerRandom, 10, 1).notation());
}

/// Each engine is told the game so far, one token a turn: two scripted
/// engines that know only the positions of one game (each `position`
/// line, with its answer) play it to its end without a forfeit.
#[test]
fn engines_are_sent_every_turn_so_far() {
    let dir = tempfile::tempdir().unwrap();
    // A game of six turns, each the first legal one, and its position lines.
    let mut g = shako::GameState::start();
    let (mut tokens, mut answers, mut decisions) = (Vec::<String>::new(), String::new(), 0);
    for _ in 0..6 {
        let turn = g.legal_turns()[0].clone();
        let token = pacozero_protocol::uci::move_token(&g, &turn);
        let position = if tokens.is_empty() { "position startpos".to_string() } else { format!("position startpos moves {}", tokens.join(" ")) };
        answers += &format!("\"{position}\") echo 'bestmove {token}';; ");
        tokens.push(token);
        decisions += turn.len() as u32;
        for d in turn {
            g.apply(d);
        }
    }
    assert!(g.outcome().is_none());
    let players: Vec<Player<shako::GameState>> = ["w", "b"]
        .iter()
        .map(|side| {
            let log = dir.path().join(side);
            let on_go = format!("pos=$(tail -n 2 '{}' | head -n 1); case \"$pos\" in {answers}*) echo 'bestmove 0000';; esac", log.display());
            let engine = fake_engine(dir.path(), &log, &[], &on_go);
            Player::new(&format!("uci:{}:nodes=1", engine.display()).parse().unwrap(), 1, 1).unwrap()
        })
        .collect();
    let r = play(shako::GameState::start(), &players[0], &players[1], GameLimits { max_decisions: decisions, adjudicate_material: 0 }, 5).unwrap();
    assert!(r.forfeit.is_none(), "{:?}", r.forfeit);
    assert_eq!((r.decisions, r.end_reason), (decisions, "max_length"));
    let positions = |side: &str| -> Vec<String> {
        std::fs::read_to_string(dir.path().join(side)).unwrap().lines().filter(|l| l.starts_with("position")).map(str::to_string).collect()
    };
    assert_eq!(positions("w").len(), 3);
    assert_eq!(positions("b")[2], format!("position startpos moves {}", tokens[..5].join(" ")));
}

/// Every game of a match has a seed of its own (also for the match
/// seeds of all bits 0 or 1), and progress counts the games one by one.
#[test]
fn games_have_their_own_seeds_and_progress_counts_each() {
    let a = Player::<shako::GameState>::new(&"random".parse().unwrap(), 1, 1).unwrap();
    let b = Player::<shako::GameState>::new(&"random".parse().unwrap(), 2, 1).unwrap();
    let limits = GameLimits { max_decisions: 4, adjudicate_material: 0 };
    for seed in [0, 5, u64::MAX] {
        let calls = std::sync::Mutex::new(Vec::new());
        let m = run_match(&a, &b, 5, Openings::Standard, limits, seed, &|done, total| calls.lock().unwrap().push((done, total))).unwrap();
        let seeds: std::collections::BTreeSet<u64> = m.played.iter().map(|g| g.seed).collect();
        assert_eq!(seeds.len(), 10, "seed {seed}: {seeds:?}");
        let mut calls = calls.into_inner().unwrap();
        calls.sort();
        assert_eq!(calls, (1..=10).map(|d| (d, 10)).collect::<Vec<_>>());
    }
}

/// Fischer-random openings differ from one index to the next, whatever
/// the seed (also for the seeds of all bits 0 or 1).
#[test]
fn openings_differ_by_index_for_any_seed() {
    for seed in [0, 1, u64::MAX] {
        let starts: std::collections::BTreeSet<String> = (0..6).map(|i| opening::<paco::GameState>(Openings::FischerRandom, seed, i).notation()).collect();
        assert!(starts.len() >= 5, "seed {seed}: {starts:?}");
    }
}

/// An engine's illegal answer loses the game at once, named in the record.
#[test]
fn an_illegal_answer_forfeits_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let engine = fake_engine(dir.path(), &dir.path().join("log"), &[], "echo 'bestmove a1a1'");
    let spec = format!("uci:{}:nodes=1", engine.display());
    let white = Player::<shako::GameState>::new(&"random".parse().unwrap(), 1, 1).unwrap();
    let black = Player::<shako::GameState>::new(&spec.parse().unwrap(), 1, 1).unwrap();
    let start = shako::GameState::start();
    let r = play(start.clone(), &white, &black, GameLimits { max_decisions: 100, adjudicate_material: 0 }, 5).unwrap();
    assert_eq!((r.outcome, r.end_reason, r.decisions, r.decisions_by), (Outcome::Win(Color::White), "illegal_move", 1, [1, 0]));
    let f = r.forfeit.unwrap();
    assert_eq!(f.reason, "illegal_move");
    assert!(f.detail.starts_with(&format!("{spec} (black) illegal_move: `bestmove a1a1` in ")), "{}", f.detail);
    assert_eq!((r.start_fen, r.actions.split(' ').count()), (start.notation(), 1));
}

/// A game cut at its decision limit: a draw, or won on material when
/// the limits adjudicate it; the record replays to the cut.
#[test]
fn a_cut_game_is_drawn_or_adjudicated_on_material() {
    let start = shako::GameState::from_fen("9k/10/10/10/10/10/10/10/10/R8K w - - 0 1").unwrap();
    let white = Player::<shako::GameState>::new(&"uniform:4".parse().unwrap(), 1, 1).unwrap();
    let black = Player::<shako::GameState>::new(&"random".parse().unwrap(), 2, 1).unwrap();
    let cut = GameLimits { max_decisions: 4, adjudicate_material: 0 };
    let r = play(start.clone(), &white, &black, cut, 3).unwrap();
    assert_eq!((r.outcome, r.end_reason, r.decisions, r.decisions_by), (Outcome::Draw, "max_length", 4, [2, 2]));
    assert!(r.simulations[0] > 0 && r.simulations[0] <= 4 * 2 && r.simulations[1] == 0 && r.seconds[0] > 0.0, "{r:?}");
    let mut g = start.clone();
    for d in g.parse_decisions(&r.actions).unwrap() {
        g.apply(d);
    }
    assert_eq!(g.to_move(), Color::White);
    let won = play(start.clone(), &white, &black, GameLimits { max_decisions: 4, adjudicate_material: 3 }, 3).unwrap();
    assert_eq!((won.outcome, won.end_reason), (Outcome::Win(Color::White), "max_length"));
    assert_eq!(won.actions, r.actions, "the same seed, the same game");
    // A game ended by the rules before the cut says how.
    let mate = shako::GameState::from_fen("9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1").unwrap();
    let greedy = Player::<shako::GameState>::new(&"greedy".parse().unwrap(), 1, 1).unwrap();
    let r = play(mate.clone(), &greedy, &black, cut, 3).unwrap();
    assert_eq!((r.outcome, r.end_reason, r.decisions, r.actions.as_str()), (Outcome::Win(Color::White), mate_reason(&mate), 1, "a2a10"));
}

fn mate_reason(g: &shako::GameState) -> &'static str {
    let mut after = g.clone();
    after.apply(greedy_turn(g, &mut ChaCha8Rng::seed_from_u64(0))[0]);
    after.end_reason()
}

/// A match stopped after a round is the first pairs of the whole match:
/// the same games, seeds and players, and the progress counts them.
#[test]
fn a_stopped_match_is_the_start_of_the_whole_one() {
    let a = Player::<shako::GameState>::new(&"random".parse().unwrap(), 1, 1).unwrap();
    let b = Player::<shako::GameState>::new(&"greedy".parse().unwrap(), 2, 1).unwrap();
    let limits = GameLimits { max_decisions: 12, adjudicate_material: 0 };
    let start = |i: u64| opening::<shako::GameState>(Openings::FischerRandom, 4, i);
    let (calls, last_total) = (AtomicU64::new(0), AtomicU64::new(0));
    let progress = |_done: u64, total: u64| {
        calls.fetch_add(1, Ordering::Relaxed);
        last_total.store(total, Ordering::Relaxed);
    };
    let stopped = run_match_until(&a, &b, 5, &start, limits, 11, &progress, 2, &|m| m.games >= 4).unwrap();
    assert_eq!((stopped.games, stopped.played.len()), (4, 4));
    assert_eq!((calls.load(Ordering::Relaxed), last_total.load(Ordering::Relaxed)), (4, 10));
    let whole = run_match_from(&a, &b, 5, &start, limits, 11, &no_progress).unwrap();
    assert_eq!(whole.games, 10);
    for (i, (s, w)) in stopped.played.iter().zip(&whole.played).enumerate() {
        assert_eq!((s.seed, &s.white, &s.black), (11 ^ (i as u64 + 1), if i % 2 == 0 { &a.name } else { &b.name }, if i % 2 == 0 { &b.name } else { &a.name }));
        assert_eq!((&s.result.actions, &s.result.start_fen), (&w.result.actions, &w.result.start_fen));
    }
    assert_eq!(stopped.played[0].result.start_fen, stopped.played[1].result.start_fen);
    // A round of 0 is a round of 1.
    let one = run_match_until(&a, &b, 5, &start, limits, 11, &no_progress, 0, &|_| true).unwrap();
    assert_eq!(one.games, 2);
}

/// A sequential match stops at the first round whose results decide
/// the test, and reports that decision; at its cap, undecided.
#[test]
fn a_sequential_match_stops_at_its_first_decision() {
    let a = Player::<shako::GameState>::new(&"random".parse().unwrap(), 1, 1).unwrap();
    let b = Player::<shako::GameState>::new(&"random".parse().unwrap(), 2, 1).unwrap();
    let limits = GameLimits { max_decisions: 6, adjudicate_material: 0 };
    let start = |i: u64| opening::<shako::GameState>(Openings::FischerRandom, 4, i);
    // Cut games are draws: every pair scores 1, which H0 (0 Elo) explains.
    let test = Sprt { elo0: 0.0, elo1: 200.0, alpha: 0.05, beta: 0.05 };
    let (m, decision) = run_match_sprt(&a, &b, 40, &start, limits, 5, &no_progress, 3, &test).unwrap();
    assert_eq!(decision, SprtDecision::AcceptH0);
    assert_eq!(decision, test.decide(&m.pentanomial));
    let rounds = m.games / 6;
    assert_eq!(m.games % 6, 0);
    assert_eq!(test.decide(&Pentanomial([0, 0, 3 * (rounds - 1), 0, 0])), SprtDecision::Continue, "{m:?}");
    // Capped before a decision.
    let (m, decision) = run_match_sprt(&a, &b, 1, &start, limits, 5, &no_progress, 3, &test).unwrap();
    assert_eq!((m.games, decision), (2, SprtDecision::Continue));
}

#[test]
fn shako_greedy_mates_in_one_and_random_starts_are_the_games() {
    let g = shako::GameState::from_fen("9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1").unwrap();
    for seed in 0..4 {
        let t = greedy_turn(&g, &mut ChaCha8Rng::seed_from_u64(seed));
        assert_eq!(t.len(), 1);
        assert_eq!(g.action_name(t[0]), "a2a10");
    }
    // Openings: the standard start, or the game's random start (same for both colours of a pair).
    let s: shako::GameState = opening(Openings::Standard, 1, 0);
    assert_eq!(s.notation(), shako::STARTPOS_FEN);
    let (a, b): (shako::GameState, shako::GameState) = (opening(Openings::FischerRandom, 1, 0), opening(Openings::FischerRandom, 1, 1));
    assert_ne!(a.notation(), b.notation());
    let p: paco::GameState = opening(Openings::FischerRandom, 1, 0);
    assert_eq!(p.to_move(), pacozero_engine::Color::White);
}

#[test]
fn net_players_take_a_budget_and_a_playout_mix() {
    // Any existing file passes the spec check (the model is read later).
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    match PlayerSpec::parse(&format!("net:{model}:50ms:mix=0.25")).unwrap() {
        PlayerSpec::Mcts { kind: EvalKind::Net(_, NetOptions { mix, .. }), budget, .. } => {
            assert_eq!((mix, budget), (PlayoutMix { weight: 0.25, playouts: 1 }, Budget::Millis(50)))
        }
        _ => panic!("not a network player"),
    }
    match PlayerSpec::parse(&format!("net:{model}:64")).unwrap() {
        PlayerSpec::Mcts { kind: EvalKind::Net(_, NetOptions { mix, .. }), budget, .. } => {
            assert_eq!((mix, budget), (PlayoutMix::NONE, Budget::Simulations(64)))
        }
        _ => panic!("not a network player"),
    }
    // Options in either order.
    for opts in ["mix=0.5:playouts=16", "playouts=16:mix=0.5"] {
        match PlayerSpec::parse(&format!("net:{model}:50ms:{opts}")).unwrap() {
            PlayerSpec::Mcts { kind: EvalKind::Net(_, NetOptions { mix, .. }), .. } => assert_eq!(mix, PlayoutMix { weight: 0.5, playouts: 16 }),
            _ => panic!("not a network player"),
        }
    }
    for bad in ["mix=1.5", "mix=x", "blend=0.5", "mix=0.5:playouts=0", "mix=0.5:playouts=2000", "playouts=4"] {
        let e = PlayerSpec::parse(&format!("net:{model}:50ms:{bad}")).expect_err("refused").to_string();
        let named = bad.split(':').any(|o| e.contains(o));
        assert!(named && (e.contains("mix=<weight") || e.contains("playouts=<random") || e.contains("without mix")), "{bad}: {e}");
    }
}

#[test]
fn a_net_player_may_name_its_precision() {
    use pacozero_nn::NetPrecision;
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let precision = |opts: &str| match PlayerSpec::parse(&format!("net:{model}:64{opts}")).unwrap() {
        PlayerSpec::Mcts { kind: EvalKind::Net(_, net), .. } => net,
        _ => panic!("not a network player"),
    };
    assert_eq!(precision(""), NetOptions::default());
    assert_eq!(precision(":precision=int8").precision, Some(NetPrecision::Int8));
    let both = precision(":mix=0.5:precision=auto:playouts=4:search.c_puct=2");
    assert_eq!(both, NetOptions { mix: PlayoutMix { weight: 0.5, playouts: 4 }, precision: Some(NetPrecision::Auto), quiesce: false, material: 0.0 });
    assert!(precision(":quiesce=true").quiesce && !precision(":quiesce=false").quiesce);
    let e = PlayerSpec::parse(&format!("net:{model}:64:quiesce=yes")).unwrap_err().to_string();
    assert!(e.ends_with("'quiesce=yes' should be quiesce=<true|false>"), "{e}");
    let with_material = precision(":material=0.5");
    assert!(with_material.quiesce && with_material.material == 0.5, "material implies quiescence");
    let e = PlayerSpec::parse(&format!("net:{model}:64:material=2")).unwrap_err().to_string();
    assert!(e.contains("'material=2' should be material=<weight"), "{e}");
    let e = PlayerSpec::parse(&format!("net:{model}:64:mix=0.5:mix=0.25")).unwrap_err().to_string();
    assert!(e.ends_with("'mix' is given twice"), "{e}");
    let e = PlayerSpec::parse(&format!("net:{model}:64:precision=bf16")).unwrap_err().to_string();
    assert!(e.contains("\"bf16\" is not a precision") && e.contains(model), "{e}");
}

#[test]
fn shako_match_between_search_players() {
    let a = Player::<shako::GameState>::new(&"rollout:4".parse().unwrap(), 1, 1).unwrap();
    let b = Player::<shako::GameState>::new(&"greedy".parse().unwrap(), 2, 1).unwrap();
    let m = run_match(&a, &b, 1, Openings::FischerRandom, GameLimits { max_decisions: 30, adjudicate_material: 0 }, 3, &no_progress).unwrap();
    assert_eq!(m.games, 2);
    assert_eq!(m.wdl.games(), 2);
    assert!(m.decisions > 0 && m.decisions <= 60);
    // Each game is counted once under how it ended (cut at 30 decisions, or a Shako ending).
    assert_eq!(m.end_reasons.values().sum::<u32>(), 2, "{:?}", m.end_reasons);
    assert!(m.end_reasons.keys().all(|k| ["max_length", "checkmate", "stalemate", "repetition", "fifty_moves", "stuck"].contains(k)), "{:?}", m.end_reasons);
}
