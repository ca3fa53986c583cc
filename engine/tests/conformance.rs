//! One conformance test for every registered game (as OpenSpiel's
//! RandomSimTest): seeded random playouts, and at every state
//! * the state clones equal (same hash, notation, legal decisions);
//! * the incremental hash equals the recomputed one;
//! * the encoding fills exactly the declared planes and scalars;
//! * every legal decision's name parses back to the same decision (also
//!   through `read_action`), and applying it on a clone works, checked
//!   (`try_apply`) or not, with the same result;
//! * `try_apply` refuses a decision that is not legal (and every decision
//!   of a finished game), leaving the state as it was;
//! * the notation reads back to itself (and to the same hash where it is complete);
//! * a finished game has no decisions and a running one does (or is stuck);
//! * every whole turn played reads back from its turn notation to the same
//!   decisions, and starts where the game says a turn starts;
//! * the turns the game enumerates (every tenth turn start) are legal,
//!   whole, distinct in result, and read back from their notation; each
//!   has a PGN move of its own (one token); where the game says the mover
//!   can win this turn, one of them wins (and a finished game never can);
//! * the diagram is text ending in a newline;
//! * the decisions of every whole turn, named one by one, read back as a
//!   line of play; the status text says `Running` exactly while the game runs;
//! * the game's own perft counts what the generic one counts;
//! * the viewer's board has two characters per square, letters or `.`;
//! * the auxiliary training targets: one value per declared name
//!   (`AUX_TARGETS`: distinct snake_case names) at a settled position, which
//!   is a turn start (the standard start is one), none in the middle of a turn;
//! * the training-data mirror (`mirror_planes`, `mirror_action_index`) is
//!   an involution, and a position it refuses keeps its planes;
//! * every input encoding (`ENCODINGS`, each input named once, the first
//!   `DEFAULT_ENCODING` and what `encode` writes) fills its declared
//!   planes and scalars, on the board, and its mirror is an involution too;
//!   `encoding_index` finds each by its name and refuses other names;
//! * the policy planes of a convolutional head (`policy_planes`), where the
//!   game has them: one slot per action, each its own square of its own
//!   plane (or its own whole plane), on the board.
//!
//! A new game passes this by being added to `GameKind`; nothing here names a
//! game. Tic-tac-toe (`toy/`, a test game) runs the same checks through the
//! `Game` trait's default methods, which the registered games override.

use pacozero_engine::{encoding_index, perft, Game, GameKind, Outcome, DEFAULT_ENCODING};

mod toy;
use toy::TicTacToe;

mod common;
use common::Rng;
use pacozero_engine::prelude::*;

/// What one game's run checked, for the test's own sanity assertions.
#[derive(Debug, Default)]
struct Checked {
    states: usize,
    decisions: usize,
    finished: usize,
    turns: usize,
    enumerated: usize,
}

/// The conformance checks of `G`, on seeded (`seed`) random playouts of at
/// most `max_decisions` decisions: `playouts` at least; more until
/// `min_states` states were checked (a game of short playouts, as Connect
/// Four's, plays more of them).
fn check_conformance<G: Game>(playouts: usize, min_states: usize, max_decisions: usize, seed: u64) -> Checked {
    // A bit per square, in whole words.
    let words = (G::BOARD_HEIGHT * G::BOARD_WIDTH).div_ceil(64);
    assert_eq!(G::WORDS_PER_PLANE, words, "{}", G::NAME);
    check_aux_target_names::<G>();
    check_encoding_names::<G>();
    check_policy_planes::<G>();
    let mut rng = Rng(seed);
    let mut checked = Checked::default();
    let mut legal = Vec::new();
    let mut played = 0;
    while played < playouts || checked.states < min_states {
        played += 1;
        let mut g = G::start();
        let mut turn_start = g.clone();
        let mut turn = Vec::new();
        for _ in 0..max_decisions {
            if !turn.is_empty() && (g.outcome().is_some() || g.to_move() != turn_start.to_move()) {
                check_turn(&turn_start, &turn);
                if checked.turns % 10 == 0 {
                    checked.enumerated += check_legal_turns(&turn_start);
                }
                checked.turns += 1;
                turn_start = g.clone();
                turn.clear();
            }
            check_state(&g, words, &mut legal);
            checked.states += 1;
            checked.decisions += legal.len();
            if g.outcome().is_some() {
                checked.finished += 1;
                break;
            }
            if legal.is_empty() {
                break; // stuck: callers adjudicate
            }
            let a = legal[rng.below(legal.len())];
            g.apply(a);
            turn.push(a);
        }
    }
    checked
}

/// The default encoding is the one `encode` writes; every encoding names
/// each input once, in snake_case.
fn check_encoding_names<G: Game>() {
    let enc = &G::ENCODINGS[0];
    assert_eq!(enc.name, DEFAULT_ENCODING, "{}: the first encoding", G::NAME);
    assert_eq!((enc.bit_planes.len(), enc.scalars.len()), (G::NUM_BIT_PLANES, G::NUM_SCALARS), "{}: names of encoding {}", G::NAME, enc.name);
    for (i, e) in G::ENCODINGS.iter().enumerate() {
        assert_eq!(encoding_index::<G>(e.name), Ok(i), "{}: the index of encoding {}", G::NAME, e.name);
        let mut names: Vec<&str> = e.bit_planes.iter().chain(e.scalars).copied().collect();
        assert!(names.iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')), "{}: {names:?}", G::NAME);
        names.sort();
        names.dedup();
        assert_eq!(names.len(), e.bit_planes.len() + e.scalars.len(), "{}: encoding {} names an input twice", G::NAME, e.name);
    }
    // An unknown name: the error names the game and every encoding it has.
    let err = encoding_index::<G>("no_such_encoding").unwrap_err();
    assert!(err.contains(G::NAME) && err.contains("no_such_encoding"), "{}: {err}", G::NAME);
    assert!(G::ENCODINGS.iter().all(|e| err.contains(e.name)), "{}: {err}", G::NAME);
}

/// A convolutional policy head's planes, where the game has them: one slot
/// per action, none shared, every square on the board and every plane used.
fn check_policy_planes<G: Game>() {
    let Some(pp) = G::policy_planes() else { return };
    assert_eq!(pp.slots.len(), G::NUM_ACTIONS, "{}: policy planes' slots", G::NAME);
    let squares = G::BOARD_HEIGHT * G::BOARD_WIDTH;
    let mut seen = std::collections::HashSet::new();
    for (a, &(plane, sq)) in pp.slots.iter().enumerate() {
        assert!((plane as usize) < pp.planes && sq.is_none_or(|s| (s as usize) < squares), "{}: action {a}'s slot {plane}, {sq:?}", G::NAME);
        assert!(seen.insert((plane, sq)), "{}: action {a} shares plane {plane}, square {sq:?}", G::NAME);
    }
    let used: std::collections::HashSet<u16> = pp.slots.iter().map(|s| s.0).collect();
    assert_eq!(used.len(), pp.planes, "{}: a policy plane no action reads", G::NAME);
}

/// The enumerated turns from a turn start: each decision legal, the turn
/// whole, results distinct, the notation read back. Returns their number.
fn check_legal_turns<G: Game>(from: &G) -> usize {
    let at = from.notation();
    assert!(from.is_turn_start(), "{}: a turn began in {at}, which is not a turn start", G::NAME);
    let diagram = from.diagram();
    assert!(diagram.ends_with('\n') && diagram.len() > 10, "{}: diagram of {at}: {diagram:?}", G::NAME);
    let turns = from.legal_turns();
    let mut legal = Vec::new();
    from.playable_actions(&mut legal);
    assert_eq!(turns.is_empty(), legal.is_empty(), "{}: turns and decisions disagree in {at}", G::NAME);
    let mut results = std::collections::HashSet::new();
    let mut pgn_moves = std::collections::HashSet::new();
    let mut wins = 0;
    for t in &turns {
        let mut g = from.clone();
        for &d in t {
            assert!(g.outcome().is_none() && g.to_move() == from.to_move(), "{}: turn {t:?} goes on after it ended in {at}", G::NAME);
            g.playable_actions(&mut legal);
            assert!(legal.contains(&d), "{}: turn {t:?} takes an illegal decision in {at}", G::NAME);
            g.apply(d);
        }
        assert!(g.outcome().is_some() || g.to_move() != from.to_move(), "{}: turn {t:?} is not whole in {at}", G::NAME);
        assert!(results.insert(g.hash()), "{}: two enumerated turns give the same result in {at}", G::NAME);
        wins += usize::from(g.outcome() == Some(Outcome::Win(from.to_move())));
        // A game record names each turn by one token that no other turn from here has.
        let pgn = from.pgn_move(t);
        assert!(!pgn.is_empty() && !pgn.contains(char::is_whitespace), "{}: PGN move {pgn:?} of turn {t:?} in {at}", G::NAME);
        assert!(pgn_moves.insert(pgn.clone()), "{}: two turns are both {pgn:?} in {at}", G::NAME);
        check_turn(from, t);
    }
    // `can_win_this_turn` is never wrong when it says yes.
    assert!(!from.can_win_this_turn() || wins > 0, "{}: no enumerated turn wins in {at}, where the mover can win this turn", G::NAME);
    turns.len()
}

/// A whole turn's notation reads back to its decisions.
fn check_turn<G: Game>(from: &G, decisions: &[u16]) {
    let text = from.turn_notation(decisions);
    let back = from.parse_turn(&text).unwrap_or_else(|e| panic!("{}: turn {text:?} from {} does not read back: {e}", G::NAME, from.notation()));
    assert_eq!(back, decisions, "{}: turn {text:?} from {}", G::NAME, from.notation());
    // The same decisions by name, as tools take a line of play.
    let mut g = from.clone();
    let names: Vec<String> = decisions
        .iter()
        .map(|&d| {
            let name = g.action_name(d);
            g.apply(d);
            name
        })
        .collect();
    let line = names.join(" ");
    let back = from.parse_decisions(&line).unwrap_or_else(|e| panic!("{}: decisions {line:?} from {} do not read back: {e}", G::NAME, from.notation()));
    assert_eq!(back, decisions, "{}: decisions {line:?} from {}", G::NAME, from.notation());
}

fn check_state<G: Game>(g: &G, words: usize, legal: &mut Vec<u16>) {
    let at = g.notation();
    // Clones are equal.
    let c = g.clone();
    assert_eq!(c.hash(), g.hash(), "{}: clone hash in {at}", G::NAME);
    assert_eq!(c.notation(), at, "{}: clone notation", G::NAME);
    assert_eq!(g.outcome().is_none(), g.status_text() == "Running", "{}: status {:?} in {at}", G::NAME, g.status_text());
    // Incremental hash = recomputed hash.
    assert_eq!(g.hash(), g.recomputed_hash(), "{}: incremental hash in {at}", G::NAME);
    // Encoding sizes: exactly the declared buffers, and the planes stay on the board.
    let mut planes = vec![0u64; G::NUM_BIT_PLANES * words];
    let mut scalars = vec![0f32; G::NUM_SCALARS];
    g.encode(&mut planes, &mut scalars);
    assert!(scalars.iter().all(|x| x.is_finite()), "{}: scalars in {at}", G::NAME);
    let cells = G::BOARD_HEIGHT * G::BOARD_WIDTH;
    if cells % 64 != 0 {
        let last_word_bits = cells % 64;
        for p in 0..G::NUM_BIT_PLANES {
            let last = planes[p * words + words - 1];
            assert_eq!(last >> last_word_bits, 0, "{}: plane {p} spills off the board in {at}", G::NAME);
        }
    }
    // Auxiliary targets: one value per declared name where the position is
    // settled (a turn start), none elsewhere.
    let mut aux = vec![true; G::AUX_TARGETS.len() + 3];
    if g.aux_targets(&mut aux) {
        assert_eq!(aux.len(), G::AUX_TARGETS.len(), "{}: auxiliary targets {:?} of {at}", G::NAME, G::AUX_TARGETS);
        assert!(g.is_turn_start(), "{}: auxiliary targets in the middle of a turn in {at}", G::NAME);
    } else {
        assert!(aux.is_empty(), "{}: auxiliary targets left in `out` where the position is not settled: {at}", G::NAME);
    }
    // The viewer's board: two characters a square, a piece letter or `.`.
    let cells = g.board_cells();
    assert_eq!(cells.chars().count(), 2 * G::BOARD_HEIGHT * G::BOARD_WIDTH, "{}: board cells of {at}", G::NAME);
    assert!(cells.chars().all(|c| c == '.' || c.is_ascii_alphabetic()), "{}: board cells {cells:?} of {at}", G::NAME);
    // The mirror of training data: an involution on planes and on decisions.
    let mut mirrored = planes.clone();
    if G::mirror_planes(&mut mirrored) {
        assert!(G::mirror_planes(&mut mirrored) && mirrored == planes, "{}: mirroring twice is not the identity in {at}", G::NAME);
    } else {
        assert_eq!(mirrored, planes, "{}: a refused mirror changed the planes in {at}", G::NAME);
    }
    // ... and it is the mirror of the default encoding (the first).
    let mut as_first = planes.clone();
    let mut plain = planes.clone();
    assert_eq!(G::mirror_planes(&mut plain), G::mirror_planes_as(0, &mut as_first), "{}: mirror of the default encoding in {at}", G::NAME);
    assert_eq!(plain, as_first, "{}: mirror of the default encoding in {at}", G::NAME);
    // Every encoding: its declared sizes, on the board; the default one is `encode`'s.
    for (e, enc) in G::ENCODINGS.iter().enumerate() {
        let mut ep = vec![u64::MAX; enc.num_bit_planes() * words];
        let mut es = vec![f32::NAN; enc.num_scalars()];
        g.encode_as(e, &mut ep, &mut es);
        assert!(es.iter().all(|x| x.is_finite()), "{}: scalars of encoding {} in {at}", G::NAME, enc.name);
        if e == 0 {
            assert_eq!((&ep, &es), (&planes, &scalars), "{}: encoding 0 is not `encode` in {at}", G::NAME);
        }
        let squares = G::BOARD_HEIGHT * G::BOARD_WIDTH;
        if squares % 64 != 0 {
            for p in 0..enc.num_bit_planes() {
                assert_eq!(ep[p * words + words - 1] >> (squares % 64), 0, "{}: plane {p} of encoding {} spills off the board in {at}", G::NAME, enc.name);
            }
        }
        let mut mirrored = ep.clone();
        if G::mirror_planes_as(e, &mut mirrored) {
            assert!(G::mirror_planes_as(e, &mut mirrored) && mirrored == ep, "{}: mirroring encoding {} twice in {at}", G::NAME, enc.name);
        } else {
            assert_eq!(mirrored, ep, "{}: a refused mirror changed encoding {}'s planes in {at}", G::NAME, enc.name);
        }
    }
    // Notation round trip.
    let back = G::from_notation(&at).unwrap_or_else(|e| panic!("{}: notation {at:?} does not read back: {e}", G::NAME));
    assert_eq!(back.notation(), at, "{}: notation round trip", G::NAME);
    if g.notation_is_complete() {
        assert_eq!(back.hash(), g.hash(), "{}: hash after the notation round trip of {at}", G::NAME);
    }
    assert_eq!(g.repeats_earlier_position(), g.repetitions() >= 1, "{}: repetitions in {at}", G::NAME);
    // Decisions: valid indices, ascending, names that parse back, apply on a clone.
    g.legal_actions(legal);
    if g.outcome().is_some() {
        assert!(legal.is_empty(), "{}: a finished game has decisions in {at}", G::NAME);
        assert!(!g.can_win_this_turn(), "{}: a finished game can be won in {at}", G::NAME);
        check_refused(g, 0);
        return;
    }
    if let Some(illegal) = (0..G::NUM_ACTIONS as u16).find(|a| legal.binary_search(a).is_err()) {
        check_refused(g, illegal);
    }
    assert!(legal.windows(2).all(|w| w[0] < w[1]), "{}: decisions not ascending in {at}", G::NAME);
    for &a in legal.iter() {
        assert!((a as usize) < G::NUM_ACTIONS, "{}: decision {a} out of range in {at}", G::NAME);
        let m = G::mirror_action_index(a as usize);
        assert!(m < G::NUM_ACTIONS && G::mirror_action_index(m) == a as usize, "{}: the mirror of decision {a} is {m} in {at}", G::NAME);
        let name = g.action_name(a);
        assert_eq!(g.parse_action(&name), Some(a), "{}: decision {a} named {name:?} in {at}", G::NAME);
        assert_eq!(g.read_action(&name), Ok(a), "{}: decision {a} named {name:?} in {at}", G::NAME);
        let mut next = g.clone();
        next.apply(a);
        assert_eq!(next.hash(), next.recomputed_hash(), "{}: hash after {name} in {at}", G::NAME);
        let mut checked = g.clone();
        checked.try_apply(a).unwrap_or_else(|e| panic!("{}: {name} refused in {at}: {e}", G::NAME));
        assert_eq!((checked.hash(), checked.notation()), (next.hash(), next.notation()), "{}: try_apply({name}) in {at}", G::NAME);
    }
}

/// The declared auxiliary targets: at least one, distinct snake_case names
/// (data columns' metadata and metrics read them), and the standard start
/// has their values.
fn check_aux_target_names<G: Game>() {
    let names = G::AUX_TARGETS;
    assert!(!names.is_empty(), "{}: no auxiliary target declared", G::NAME);
    for (i, n) in names.iter().enumerate() {
        let snake =
            !n.is_empty() && n.starts_with(|c: char| c.is_ascii_lowercase()) && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        assert!(snake, "{}: auxiliary target name {n:?} is not snake_case", G::NAME);
        assert!(!names[..i].contains(n), "{}: auxiliary target {n:?} declared twice", G::NAME);
    }
    let mut out = Vec::new();
    assert!(G::start().aux_targets(&mut out), "{}: no auxiliary targets at the standard start", G::NAME);
    assert_eq!(out.len(), names.len(), "{}: auxiliary targets at the start vs {names:?}", G::NAME);
}

/// `try_apply` refuses `action` here and leaves the state as it was.
fn check_refused<G: Game>(g: &G, action: u16) {
    let mut c = g.clone();
    let refused = c.try_apply(action);
    assert!(refused.is_err(), "{}: decision {action} taken in {}", G::NAME, g.notation());
    assert_eq!((c.hash(), c.notation()), (g.hash(), g.notation()), "{}: a refused decision {action} changed {}", G::NAME, g.notation());
}

#[test]
fn every_registered_game_passes_the_conformance_checks() {
    for kind in GameKind::ALL {
        let checked = pacozero_engine::with_game!(kind, G => check_conformance::<G>(40, 2_500, 300, 0x5041_434F_0015));
        eprintln!("{kind}: {checked:?}");
        assert!(
            checked.states > 2_000 && checked.decisions > checked.states && checked.turns > 1_000 && checked.enumerated > 1_000,
            "{kind}: too little was checked: {checked:?}"
        );
    }
}

#[test]
fn the_registry_names_every_game_once() {
    for kind in GameKind::ALL {
        assert_eq!(kind.name().parse::<GameKind>(), Ok(kind));
    }
    assert_eq!(GameKind::default(), GameKind::ALL[0]);
    let err = "chess".parse::<GameKind>().unwrap_err().to_string();
    assert!(err.contains("\"chess\"") && err.contains("paco") && err.contains("shako"), "{err}");
}

fn check_rule_options<G: Game>() {
    let start = G::start().notation();
    let plain = G::from_notation_with_rules(&start, &[]).unwrap_or_else(|e| panic!("{}: no rules: {e}", G::NAME));
    assert_eq!(plain.hash(), G::start().hash(), "{}: no rules is the standard game", G::NAME);
    for &name in G::RULE_OPTIONS {
        G::from_notation_with_rules(&start, &[name]).unwrap_or_else(|e| panic!("{}: rule {name}: {e}", G::NAME));
    }
    let err = G::from_notation_with_rules(&start, &["no_such_rule"]).err().expect("an unknown rule is refused");
    assert!(err.message.contains("no_such_rule"), "{}: {err}", G::NAME);
    // Shown to a user: what is wrong, and the text that was read.
    let shown = err.to_string();
    assert!(shown.contains(&err.message) && shown.contains(&start), "{}: {shown:?}", G::NAME);
}

#[test]
fn every_game_reads_its_rule_options_and_refuses_others() {
    for kind in GameKind::ALL {
        pacozero_engine::with_game!(kind, G => check_rule_options::<G>());
    }
}

fn check_bad_turns<G: Game>() {
    let g = G::start();
    for text in ["", "zz9", "a1-a1"] {
        assert!(g.parse_turn(text).is_err(), "{}: {text:?} read as a turn", G::NAME);
    }
    // A whole turn, then the decisions of the next one and one more.
    let mut decisions = g.legal_turns().swap_remove(0);
    let mut next = g.clone();
    for &d in &decisions {
        next.apply(d);
    }
    for _ in 0..2 {
        let mut legal = Vec::new();
        next.playable_actions(&mut legal);
        decisions.push(legal[0]);
        next.apply(legal[0]);
    }
    let text = g.turn_notation(&decisions);
    assert!(g.parse_turn(&text).is_err(), "{}: {text:?} (more than a turn) read as one turn", G::NAME);
}

#[test]
fn every_game_refuses_turns_that_are_not_legal() {
    for kind in GameKind::ALL {
        pacozero_engine::with_game!(kind, G => check_bad_turns::<G>());
    }
}

/// Each game's own perft ([`Tools::fast_perft`]) counts what the generic
/// one does, by whole turns and by decisions, from the start and from
/// random starts.
fn check_fast_perft<G: Game>() {
    for g in [G::start(), G::random_start(7), G::random_start(500)] {
        for (depth, whole_turns) in [(2, true), (4, false)] {
            let generic = perft(&g, depth, whole_turns);
            assert!(generic > 0, "{}: no leaves from {}", G::NAME, g.notation());
            assert_eq!(g.fast_perft(depth, whole_turns), generic, "{}: depth {depth}, whole turns {whole_turns}, from {}", G::NAME, g.notation());
        }
    }
}

#[test]
fn every_games_fast_perft_matches_the_generic_one() {
    for kind in GameKind::ALL {
        pacozero_engine::with_game!(kind, G => check_fast_perft::<G>());
    }
}

#[test]
fn the_generic_perft_matches_each_games_own() {
    use pacozero_engine::{paco, shako};
    let p = paco::GameState::start();
    assert_eq!(perft(&p, 3, true), p.perft_full(3));
    assert_eq!(perft(&p, 6, false), p.perft_atomic(6));
    // A chain-heavy position of the vectors.
    let c = paco::GameState::from_notation("2jT1s1B/5k2/8/1b3oCa/a3fb2/Nac1e3/5K1c/6C1 w 3 - - -").unwrap();
    assert_eq!(perft(&c, 2, true), c.perft_full(2));
    let s = shako::GameState::start();
    assert_eq!(perft(&s, 3, true), s.position().perft(3));
    assert_eq!(perft(&s, 3, false), s.position().perft(3));
}

fn check_fischer_random<G: Game>() {
    match G::fischer_random(0, &[]) {
        Ok(g) => assert!(g.outcome().is_none() && g.is_turn_start(), "{}: setup 0 is {}", G::NAME, g.notation()),
        Err(e) => assert!(!e.is_empty(), "{}: refused without a reason", G::NAME),
    }
    assert!(G::fischer_random(u64::MAX, &[]).is_err(), "{}: setup u64::MAX", G::NAME);
    assert!(G::fischer_random(0, &["no_such_rule"]).is_err(), "{}: an unknown rule", G::NAME);
}

#[test]
fn every_game_numbers_its_fischer_random_setups_or_says_it_has_none() {
    for kind in GameKind::ALL {
        pacozero_engine::with_game!(kind, G => check_fischer_random::<G>());
    }
}

/// The trait's defaults, run by a game that keeps them (tic-tac-toe; the
/// registered games override most of them): the conformance checks, and
/// what the defaults promise.
#[test]
fn tictactoe_passes_the_conformance_checks_with_the_traits_defaults() {
    let playouts = 400;
    let checked = check_conformance::<TicTacToe>(playouts, 0, 20, 7);
    // Every playout ends (a running game always has a decision).
    assert_eq!(checked.finished, playouts, "{checked:?}");
    assert!(checked.states > 2_000 && checked.enumerated > 1_000, "{checked:?}");
    check_rule_options::<TicTacToe>();
    check_bad_turns::<TicTacToe>();
    check_fast_perft::<TicTacToe>();
    check_fischer_random::<TicTacToe>();

    let g = TicTacToe::start();
    assert!(g.notation_is_complete() && g.is_turn_start() && !g.can_win_this_turn());
    assert_eq!((g.repetitions(), g.repeats_earlier_position()), (0, false));
    assert_eq!(g.material_balance(), None);
    assert_eq!(g.facts(), vec![]);
    assert_eq!(g.without_history(), g);
    assert!(TicTacToe::fischer_random(518, &[]).unwrap_err().contains("tictactoe"));
    // A finished game refuses every decision, saying that it is over.
    let won = TicTacToe::from_notation("xxx/oo./... o").unwrap();
    assert_eq!(won.outcome(), Some(Outcome::Win(pacozero_engine::Color::White)));
    let err = won.clone().try_apply(8).unwrap_err();
    assert!(err.contains("over") && err.contains("three_in_a_row"), "{err}");
    assert_eq!(won.status_text(), "White won (three_in_a_row)");
    // The number of tic-tac-toe games by length (a game that ended earlier
    // has no leaves), the well-known counts.
    let leaves = [9, 72, 504, 3_024, 15_120, 54_720, 148_176, 200_448, 127_872];
    for (depth, &n) in (1..).zip(&leaves) {
        assert_eq!(perft(&g, depth, false), n, "depth {depth}");
        assert_eq!(perft(&g, depth, true), n, "depth {depth}, whole turns");
    }
}
