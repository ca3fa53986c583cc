//! The fast engine against the reference generator, state by state, over
//! positions from random playouts under every rule option, Fischer-random
//! starts, the play fuzzer's corpus and games steered into unions and
//! chains. The suite runs a sample; `PACO_DIFF_STATES=1000000` runs the
//! full comparison (see docs/testing.md).

use pacozero_engine::paco::{self as fast, fischer_random, Position};
use pacozero_paco_reference::differential::{every_rule_option, play_bytes, playout, Hooks, Playout, Tally};

/// States to compare in all (the sample the suite runs by default).
fn budget() -> u64 {
    match std::env::var("PACO_DIFF_STATES") {
        Err(_) => 170_000,
        Ok(v) => v.trim().parse().ok().filter(|&n| n > 0).unwrap_or_else(|| panic!("PACO_DIFF_STATES={v:?}: expected a positive number of states")),
    }
}

/// Plays seeded games from `starts` until `states` states are compared.
fn run(name: &str, states: u64, starts: &dyn Fn(u64) -> (String, fast::Rules, u8), how: Playout, hooks: &Hooks) -> Tally {
    let started = std::time::Instant::now();
    let mut tally = Tally::default();
    let mut seed = 0;
    while tally.states < states {
        let (start, rules, draw_after) = starts(seed);
        let t = playout(&start, rules, draw_after, seed ^ 0x5eed, how, hooks).unwrap_or_else(|e| panic!("{name}: {e}"));
        tally.add(&t);
        seed += 1;
    }
    tally.by_source.insert(name.to_string(), tally.states);
    eprintln!(
        "{name}: {} states ({} with their turns, {} turn results, {} turns over the cap) in {seed} games, {:.1} s",
        tally.states,
        tally.turn_states,
        tally.results,
        tally.turns_skipped,
        started.elapsed().as_secs_f64()
    );
    tally
}

const STANDARD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -";

#[test]
fn the_fast_engine_equals_the_reference() {
    let total = budget();
    let hooks = Hooks::default();
    let uniform = Playout { max_actions: 400, union_bias: 0, avoid_dead_ends: 95, turns_every: 3 };
    let chains = Playout { max_actions: 400, union_bias: 80, avoid_dead_ends: 95, turns_every: 3 };
    let options = every_rule_option();
    let mut tally = Tally::default();
    // The play fuzzer's corpus, every file (each a whole game): its turns at
    // every state in the full run, at every 16th in the sample.
    let corpus_turns_every = if total >= 1_000_000 { 1 } else { 16 };
    let started = std::time::Instant::now();
    let corpus = format!("{}/../fuzz/corpus/play", manifest_dir());
    let mut files: Vec<_> = std::fs::read_dir(&corpus).unwrap_or_else(|e| panic!("cannot read {corpus}: {e}")).map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() > 100, "only {} corpus files", files.len());
    let mut from_corpus = Tally::default();
    for f in &files {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display()));
        let t = play_bytes(&data, corpus_turns_every, 8).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        from_corpus.add(&t);
    }
    eprintln!(
        "fuzz corpus: {} files, {} states ({} with their turns) in {:.1} s",
        files.len(),
        from_corpus.states,
        from_corpus.turn_states,
        started.elapsed().as_secs_f64()
    );
    from_corpus.by_source.insert("fuzz corpus".into(), from_corpus.states);
    tally.add(&from_corpus);
    // The playouts share the rest: 35% random, 30% Fischer-random, the rest
    // steered into unions.
    let rest = total.saturating_sub(tally.states);
    // Random playouts from the standard start under every rule option, with
    // repetition draws at 3 (the platform's) and at 2.
    tally.add(&run(
        "random, every rule option",
        rest * 35 / 100,
        &|seed| (STANDARD.to_string(), options[seed as usize % options.len()], if seed % 5 == 4 { 2 } else { 3 }),
        uniform,
        &hooks,
    ));
    // Fischer-random starts (castling with the king next to or on its
    // destination, rooks anywhere).
    tally.add(&run(
        "fischer-random",
        rest * 30 / 100,
        &|seed| (fischer_random((seed * 7 % 960) as u16, options[(seed / 7) as usize % options.len()]).fen(), options[(seed / 7) as usize % options.len()], 3),
        uniform,
        &hooks,
    ));
    // Games steered into unions and chains, until the total is reached.
    tally.add(&run(
        "unions and chains",
        total.saturating_sub(tally.states),
        &|seed| {
            let start = if seed % 2 == 0 { STANDARD.to_string() } else { fischer_random((seed * 13 % 960) as u16, fast::Rules::OFFICIAL).fen() };
            (start, options[seed as usize % options.len()], 3)
        },
        chains,
        &hooks,
    ));
    eprintln!(
        "in all: {} states compared, {} with every result of their turn ({} results; {} turns over the cap)",
        tally.states, tally.turn_states, tally.results, tally.turns_skipped
    );
    assert!(tally.states >= total, "{} states < {total}", tally.states);
}

/// The fault this comparison exists for: `GameRules::legal_actions` answering
/// with the search's list (no actions into dead-end chains), as it did
/// from 7e964f7 on. The comparison must report it within the sample.
#[test]
fn a_legal_list_without_dead_ends_is_caught() {
    let faulty = Hooks { legal: |g, out| pacozero_engine::GameRules::playable_actions(g, out), ..Hooks::default() };
    let how = Playout { max_actions: 400, union_bias: 80, avoid_dead_ends: 95, turns_every: 0 };
    let found = (0..200u64).find_map(|seed| playout(STANDARD, fast::Rules::OFFICIAL, 3, seed, how, &faulty).err());
    let e = found.expect("the dead-end fault is caught");
    assert!(e.contains("GameRules::legal_actions"), "{e}");
}

/// The two positions in which the platform found `pacozero legal` short of
/// one action each (issue 31): both actions lead into a union whose
/// released piece has nowhere to go.
#[test]
fn the_platforms_two_positions() {
    use pacozero_paco_reference::{Rules, State};
    for (fen, want) in [
        ("2q5/4k1r1/rpb2p2/2aPnPa1/p2EP1a1/D1fK3B/R2e1N2/1N4R1 b 1 - - -", "La3 La6 Lb6 Lc3 Lc5 Lc6 Lc8 Ld2 Ld4 Le5 Le7 Lf6 Lg4 Lg7"),
        ("1q4r1/4k3/r1E2p2/2a1nPa1/p1p1P1a1/D1fKE3/4s3/RN3BR1^f2N w 7 - - -", "Pd1 Pg4 Ph1 Ph3"),
    ] {
        let mut want: Vec<&str> = want.split(' ').collect();
        want.sort();
        let s = State::from_fen(fen, Rules::default()).unwrap();
        let mut got: Vec<String> = s.legal_actions().iter().map(|a| a.to_string()).collect();
        got.sort();
        assert_eq!(got, want, "reference in {fen}");
        let pos: Position = fen.parse().unwrap();
        let g = fast::GameState::new(pos);
        let mut legal = Vec::new();
        pacozero_engine::GameRules::legal_actions(&g, &mut legal);
        let mut got: Vec<String> = legal.iter().map(|&a| pacozero_engine::Notation::action_name(&g, a)).collect();
        got.sort();
        assert_eq!(got, want, "engine in {fen}");
    }
}

/// This checkout's package directory, asked of cargo at run time (a test
/// binary built by another checkout sharing the target directory keeps
/// that checkout's compile-time path).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}
