//! Self-play on Shako: games finish, the chunks read back with Shako's spec,
//! replaying the recorded actions gives the recorded result; random starts,
//! auxiliary targets and end reasons.

mod common;
use pacozero_data::game_spec;
use pacozero_engine::prelude::*;
use pacozero_engine::shako::{GameState, Status};
use pacozero_engine::Outcome;
use pacozero_search::{Algorithm, RolloutEvaluator, SearchConfig, UniformEvaluator};
use pacozero_selfplay::{play_game, run_selfplay, SelfplayConfig, StartPositions};

fn small(alg: Algorithm, start: StartPositions) -> SelfplayConfig {
    SelfplayConfig {
        seed: 5,
        threads: 2,
        games_per_thread: 2,
        games_per_chunk: 2,
        max_decisions: 60,
        full_search_fraction: 0.5,
        start_positions: start,
        search: SearchConfig { algorithm: alg, full_simulations: 8, cheap_simulations: 4, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    }
}

#[test]
fn shako_selfplay_chunks_read_back_and_replay() {
    let spec = game_spec::<GameState>();
    assert_eq!((spec.game.as_str(), spec.board_height, spec.board_width, spec.bit_planes, spec.scalars, spec.policy_size), ("shako", 10, 10, 19, 4, 3656));
    for (alg, start) in [(Algorithm::Gumbel, StartPositions::FischerRandom), (Algorithm::Puct, StartPositions::Standard)] {
        let dir = tempfile::tempdir().unwrap();
        let cfg = small(alg, start);
        let games = 5;
        // Rollouts end some games early by mate or draw; uniform search plays on.
        let s = run_selfplay::<GameState, _>(&cfg, &RolloutEvaluator::new(3, 1, 60), dir.path(), games, false).unwrap();
        assert_eq!(s.games, games);
        assert_eq!(s.white_wins + s.draws + s.black_wins, games);
        let mut n_games = 0;
        for c in &pacozero_data::list_chunks(dir.path()).unwrap() {
            let (read_spec, positions, rows) = pacozero_data::read_chunk(c).unwrap();
            assert_eq!(read_spec, spec);
            n_games += rows.len() as u64;
            for g in &rows {
                let ps: Vec<_> = positions.iter().filter(|p| p.game_id == g.game_id).collect();
                assert_eq!(ps.len() as u32, g.num_decisions);
                let moves: Vec<&str> = g.actions.split(' ').collect();
                assert_eq!(moves.len() as u32, g.num_decisions);
                let mut st = GameState::from_notation(&g.start_fen).unwrap();
                // The actions column is UCI: a second replay through play_uci.
                let mut by_uci = st.clone();
                for (i, p) in ps.iter().enumerate() {
                    assert_eq!(p.ply as usize, i);
                    assert_eq!(p.side_to_move as usize, st.to_move().index());
                    assert_eq!(p.planes.len(), 19 * 2);
                    assert_eq!(p.scalars.len(), 4);
                    let mut legal = Vec::new();
                    st.playable_actions(&mut legal);
                    assert_eq!(p.legal_actions, legal);
                    assert!(legal.iter().all(|&a| (a as usize) < 3656));
                    assert!(((p.policy.iter().sum::<f32>()) - 1.0).abs() < 1e-3);
                    let mut aux = Vec::new();
                    assert!(st.aux_targets(&mut aux));
                    assert_eq!(p.aux_targets, aux);
                    assert_eq!(aux[0], st.position().in_check());
                    let mut planes = vec![0u64; p.planes.len()];
                    let mut scalars = vec![0f32; p.scalars.len()];
                    st.encode(&mut planes, &mut scalars);
                    assert_eq!(planes, p.planes);
                    assert_eq!(scalars, p.scalars);
                    assert_eq!(moves[i], st.action_name(p.action));
                    assert_eq!(p.result, common::result_for_mover(&g.result, p.side_to_move));
                    st.apply(p.action);
                    by_uci.play_uci(moves[i]).unwrap();
                }
                assert_eq!(st.position().fen(), by_uci.position().fen());
                let replayed = match st.outcome() {
                    Some(Outcome::Win(c)) if c.index() == 0 => "1-0",
                    Some(Outcome::Win(_)) => "0-1",
                    _ => "1/2-1/2",
                };
                match g.reason.as_str() {
                    "checkmate" => assert_eq!(g.result, replayed),
                    "stalemate" | "repetition" | "fifty_moves" => {
                        assert_eq!(g.result, "1/2-1/2");
                        assert_eq!(st.end_reason(), g.reason);
                    }
                    "max_length" => {
                        assert_eq!(g.num_decisions, cfg.max_decisions);
                        assert!(st.outcome().is_none());
                    }
                    "resign" => assert!(st.outcome().is_none()),
                    other => panic!("unexpected end reason {other}"),
                }
                if g.reason == "checkmate" {
                    assert_eq!(st.end_reason(), "checkmate");
                    assert!(matches!(st.status(), Status::Checkmate(_)));
                }
            }
        }
        assert_eq!(n_games, games);
    }
}

#[test]
fn shako_games_are_reproducible_and_start_where_configured() {
    let cfg = small(Algorithm::Gumbel, StartPositions::FischerRandom);
    let a = play_game::<GameState, _>(&cfg, &UniformEvaluator, 2, None).unwrap();
    let b = play_game::<GameState, _>(&cfg, &UniformEvaluator, 2, None).unwrap();
    assert_eq!(a.game, b.game);
    let starts: std::collections::HashSet<String> = (0..6)
        .map(|i| play_game::<GameState, _>(&SelfplayConfig { max_decisions: 1, ..cfg.clone() }, &UniformEvaluator, i, None).unwrap().game.start_fen)
        .collect();
    assert!(starts.len() >= 4, "random starts: {starts:?}");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("starts.txt");
    std::fs::write(&f, "# Shako FEN\n9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1\n").unwrap();
    let cfg = SelfplayConfig { start_positions: StartPositions::FenFile, fen_file: Some(f), max_decisions: 10, ..cfg };
    let g = play_game::<GameState, _>(&cfg, &UniformEvaluator, 0, None).unwrap();
    assert_eq!(g.game.start_fen, "9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1");
}

#[test]
fn shako_random_starts_are_deterministic_running_and_white_to_move() {
    let start = GameState::start();
    assert_eq!(start.position().fen(), pacozero_engine::shako::STARTPOS_FEN);
    let mut seen = std::collections::HashSet::new();
    for n in 0..60u64 {
        let a = GameState::random_start(n);
        assert_eq!(a.position().fen(), GameState::random_start(n).position().fen());
        assert_eq!(a.status(), Status::Running);
        assert_eq!(a.to_move().index(), 0, "White to move after an even number of plies");
        assert_eq!(a.position().fullmove_number() as u64, 1 + (1 + n % 3));
        seen.insert(a.position().fen());
    }
    assert!(seen.len() >= 50, "{} distinct random starts of 60", seen.len());
    assert!(GameState::from_notation("not a fen").is_err());
}

#[test]
fn shako_aux_targets_and_end_reasons() {
    // White to move can mate with a2a10: not in check, has a checking move.
    let mut g = GameState::from_notation("9k/10/8K1/10/10/10/10/10/R9/10 w - - 0 1").unwrap();
    let aux = |g: &GameState| {
        let mut out = Vec::new();
        assert!(g.aux_targets(&mut out), "every Shako position is settled");
        out
    };
    assert_eq!(GameState::AUX_TARGETS, ["mover_in_check", "mover_can_check"]);
    assert_eq!(aux(&g), [false, true]);
    assert_eq!(g.end_reason(), "running");
    g.play_uci("a2a10").unwrap();
    assert_eq!(g.end_reason(), "checkmate");
    assert_eq!(aux(&g), [true, false]);
    // The start: nobody is in check, no move gives check.
    assert_eq!(aux(&GameState::start()), [false, false]);

    let g = GameState::from_notation("9k/7Q2/10/10/10/10/10/10/10/K9 b - - 0 1").unwrap();
    assert_eq!((g.status(), g.end_reason()), (Status::Stalemate, "stalemate"));

    let mut g = GameState::start();
    for _ in 0..2 {
        for m in ["h2g4", "h9g7", "g4h2", "g7h9"] {
            g.play_uci(m).unwrap();
        }
    }
    assert_eq!(g.end_reason(), "repetition");

    let mut g = GameState::from_notation("9k/10/10/10/10/10/10/10/R9/K9 w - - 99 80").unwrap();
    g.play_uci("a2b2").unwrap();
    assert_eq!(g.end_reason(), "fifty_moves");
}
