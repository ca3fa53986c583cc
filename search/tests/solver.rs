//! The MCTS-solver checked against exhaustive search: every proof a search
//! makes (of its root and of every child in its tree) must be confirmed by
//! a full-width minimax over the game's decisions within the proof's
//! distance, which follows only the rules ([`GameRules::outcome`], the playable
//! decisions); on Nim (whose theory is known), on random positions near
//! the end of random games of both games, and on the proved tactics suite.

use pacozero_engine::prelude::*;
use pacozero_engine::{connect4, paco, shako, Color, Game, Outcome};
use pacozero_search::{Algorithm, Proof, Proven, Search, SearchConfig, UniformEvaluator};
use pacozero_testkit::nim::{self, nim, Nim};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn config(algorithm: Algorithm, win_detection: bool) -> SearchConfig {
    SearchConfig { algorithm, dirichlet_epsilon: 0.0, gumbel_noise: false, win_detection, ..SearchConfig::default() }
}

/// Positions one [`exhaustive`] search may visit: a Paco Ŝako turn of long
/// chains can have millions of decision paths.
const BUDGET: usize = 300_000;

/// The game's value from `g` by full-width minimax over its decisions, if
/// the rules decide it within `turns` turn ends: `Ok(None)` when they do
/// not, `Err(())` when the search ran out of its [`BUDGET`] (unknown). A
/// decision that returns to a position of the same turn is skipped (a
/// turn that goes round a loop can be played without it). Values that no
/// such skip touched depend on the position alone and are remembered (a
/// skip depends on the path to the position).
fn exhaustive<G: Game>(g: &G, turns: u32) -> Result<Option<Outcome>, ()> {
    type Memo = std::collections::HashMap<(u64, u32), Option<Outcome>>;
    struct Walk {
        memo: Memo,
        visited: usize,
    }
    /// The value and whether a skip touched it.
    fn inner<G: Game>(g: &G, turns: u32, in_turn: &mut Vec<u64>, w: &mut Walk) -> Result<(Option<Outcome>, bool), ()> {
        if let Some(o) = g.outcome() {
            return Ok((Some(o), false));
        }
        if turns == 0 {
            return Ok((None, false));
        }
        if let Some(&v) = w.memo.get(&(g.hash(), turns)) {
            return Ok((v, false));
        }
        w.visited += 1;
        if w.visited > BUDGET {
            return Err(());
        }
        let mover = g.to_move();
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        let (mut any, mut all, mut draw, mut skipped, mut won) = (false, true, false, false, false);
        for a in legal {
            let mut next = g.clone();
            next.apply(a);
            let (value, s) = if next.outcome().is_some() || next.to_move() != mover {
                inner(&next, turns - 1, &mut vec![next.hash()], w)?
            } else if in_turn.contains(&next.hash()) {
                skipped = true;
                continue;
            } else {
                in_turn.push(next.hash());
                let v = inner(&next, turns, in_turn, w);
                in_turn.pop();
                v?
            };
            skipped |= s;
            any = true;
            match value {
                Some(Outcome::Win(c)) if c == mover => {
                    won = true;
                    break;
                }
                Some(Outcome::Draw) => draw = true,
                Some(_) => {}
                None => all = false,
            }
        }
        let value = match (won, any && all, draw) {
            (true, _, _) => Some(Outcome::Win(mover)),
            (false, false, _) => None,
            (false, true, true) => Some(Outcome::Draw),
            (false, true, false) => Some(Outcome::Win(mover.other())),
        };
        if !skipped {
            w.memo.insert((g.hash(), turns), value);
        }
        Ok((value, skipped))
    }
    inner(g, turns, &mut vec![g.hash()], &mut Walk { memo: Memo::new(), visited: 0 }).map(|v| v.0)
}

/// What `proof` (for `side`) says the game's value is.
fn claimed(proof: Proof, side: Color) -> Outcome {
    match proof.result {
        Proven::Win => Outcome::Win(side),
        Proven::Draw => Outcome::Draw,
        Proven::Loss => Outcome::Win(side.other()),
    }
}

/// Checks every proof in `s`'s tree that [`exhaustive`] can confirm
/// within `max_turns` turn ends from the position it is about; returns how
/// many were checked.
fn check_tree<G: Game>(s: &Search<G>, max_turns: u32) -> usize {
    let root = s.root_state().clone();
    let mut checked = 0;
    if let Some(p) = s.root_proof() {
        if p.turns <= max_turns {
            if let Ok(v) = exhaustive(&root, p.turns) {
                assert_eq!(v, Some(claimed(p, root.to_move())), "root {} proved {p:?}", root.notation());
                checked += 1;
            }
        }
    }
    let mut stack: Vec<(Vec<u16>, G)> = vec![(Vec::new(), root)];
    while let Some((path, g)) = stack.pop() {
        let Some(children) = s.children_at(&path) else { continue };
        let mover = g.to_move();
        for c in children {
            let mut next = g.clone();
            next.apply(c.action);
            if let Some(p) = c.proof {
                // Counted from `g`: less the turn the decision ends, if it does.
                let ends = next.outcome().is_some() || next.to_move() != mover;
                let within = p.turns - u32::from(ends);
                let value = if within <= max_turns { exhaustive(&next, within) } else { Err(()) };
                if let Ok(v) = value {
                    assert_eq!(v, Some(claimed(p, mover)), "{} then {}: proved {p:?} for {mover:?}", g.notation(), g.action_name(c.action));
                    checked += 1;
                }
            }
            if c.expanded {
                let mut p = path.clone();
                p.push(c.action);
                stack.push((p, next));
            }
        }
    }
    checked
}

#[test]
fn nim_roots_are_proven_as_the_theory_says_for_both_algorithms() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for win_detection in [false, true] {
            for stones in 1..=9u8 {
                let mut s = Search::new(config(algorithm, win_detection), nim(stones), false);
                let r = s.search_until(&UniformEvaluator, 3000, None, false, &mut ChaCha8Rng::seed_from_u64(stones as u64)).unwrap();
                let proof = r.proof.unwrap_or_else(|| panic!("{algorithm:?} {win_detection}: {stones} stones not proven in 3000 simulations"));
                // The mover loses iff stones % 4 == 0; the shortest win is
                // this turn (1-3 stones), else the turn after next.
                let (result, turns) = match stones % 4 {
                    0 => (Proven::Loss, 2 * (stones as u32 / 4)),
                    _ => (Proven::Win, 2 * (stones as u32 / 4) + 1),
                };
                assert_eq!(proof.result, result, "{algorithm:?} {stones} stones: {proof:?}");
                if result == Proven::Win {
                    assert_eq!(proof.turns, turns, "{algorithm:?} {stones} stones: the shortest win");
                    // The move played keeps the win: it leaves a multiple of four.
                    let mut g = nim(stones);
                    g.apply(r.action);
                    let s2 = g.stones;
                    let left = if g.second { [s2, s2.saturating_sub(1)] } else { [s2, s2] };
                    assert!(left.iter().any(|l| l % 4 == 0), "{stones} stones: played {}", r.action);
                    assert!((r.root_q - 1.0).abs() < 1e-6 && r.root_wdl == [1.0, 0.0, 0.0]);
                } else {
                    assert_eq!((r.root_wdl, proof.turns), ([0.0, 0.0, 1.0], turns), "{algorithm:?} {stones} stones: the longest loss");
                }
                assert_eq!(proof.uci_mate(), Some(if result == Proven::Win { (turns as i64 + 1) / 2 } else { -(turns as i64 / 2) }));
                assert!(check_tree(&s, 8) > 0);
            }
        }
    }
}

#[test]
fn without_the_solver_nothing_is_proven() {
    let cfg = SearchConfig { solver: false, ..config(Algorithm::Puct, true) };
    let mut s = Search::new(cfg, nim(6), false);
    let r = s.search_until(&UniformEvaluator, 500, None, false, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
    assert_eq!((r.proof, r.simulations), (None, 500));
    assert!(s.children_at(&[]).unwrap().iter().all(|c| c.proof.is_none()));
}

/// A random game of `G` played from a random start until it ends,
/// returning its states (turn starts and decisions alike).
fn random_game<G: Game>(rng: &mut ChaCha8Rng, max_decisions: usize) -> Vec<G> {
    let mut g = G::random_start(rng.gen());
    let mut states = vec![g.clone()];
    let mut legal = Vec::new();
    while g.outcome().is_none() && states.len() < max_decisions {
        g.playable_actions(&mut legal);
        if legal.is_empty() {
            break;
        }
        g.apply(legal[rng.gen_range(0..legal.len())]);
        states.push(g.clone());
    }
    states
}

/// Searches positions a few decisions before the end of random games and
/// checks every proof of at most `max_turns` in their trees; returns
/// (positions searched, proofs checked, roots proven).
fn near_the_end<G: Game>(seed: u64, games: usize, back: usize, sims: u32, max_turns: u32) -> (usize, usize, usize) {
    let (searched, checked, roots, _) = near_the_end_with::<G>(seed, games, back, sims, max_turns, false);
    (searched, checked, roots)
}

/// [`near_the_end`], with [`SearchConfig::reply_win_in_two`] as given;
/// also counts the root's children proven lost at four turn ends without
/// being expanded (only the reply's two-turn search proves those).
fn near_the_end_with<G: Game>(seed: u64, games: usize, back: usize, sims: u32, max_turns: u32, reply_win_in_two: bool) -> (usize, usize, usize, usize) {
    let (mut checked, mut roots, mut replies) = (0, 0, 0);
    let searched = search_near_the_end::<G>(seed, games, back, sims, reply_win_in_two, |s| {
        roots += usize::from(s.root_proof().is_some());
        checked += check_tree(s, max_turns);
        let children = s.children_at(&[]).unwrap_or_default();
        replies += children.iter().filter(|c| !c.expanded && c.proof.is_some_and(|p| p.is_loss() && p.turns == 4)).count();
    });
    (searched, checked, roots, replies)
}

/// Searches the `back` positions before the end of each of `games` random
/// games that ended (PUCT and Gumbel in turn, `sims` simulations, with
/// [`SearchConfig::reply_win_in_two`] as given) and hands each search to
/// `visit`; returns how many positions were searched.
fn search_near_the_end<G: Game>(seed: u64, games: usize, back: usize, sims: u32, reply_win_in_two: bool, mut visit: impl FnMut(&Search<G>)) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut searched = 0;
    for game in 0..games {
        let states: Vec<G> = random_game(&mut rng, 2000);
        if states.last().and_then(|g| g.outcome()).is_none() {
            continue;
        }
        for k in 1..=back.min(states.len() - 1) {
            let g = &states[states.len() - 1 - k];
            let algorithm = if (game + k) % 2 == 0 { Algorithm::Puct } else { Algorithm::Gumbel };
            let cfg = SearchConfig { reply_win_in_two, ..config(algorithm, true) };
            let mut s = Search::new(cfg, g.clone(), false);
            s.search_until(&UniformEvaluator, sims, None, false, &mut ChaCha8Rng::seed_from_u64(k as u64)).unwrap();
            searched += 1;
            visit(&s);
        }
    }
    searched
}

#[test]
fn paco_proofs_near_the_end_of_random_games_are_confirmed_exhaustively() {
    let (searched, checked, roots) = near_the_end::<paco::GameState>(11, 8, 6, 200, 1);
    // (48, 572 and 36 when written.)
    assert!(searched > 40 && checked > 300 && roots > 20, "{searched} searched, {checked} proofs checked, {roots} roots proven");
}

#[test]
fn shako_proofs_near_the_end_of_random_games_are_confirmed_exhaustively() {
    let (searched, checked, roots) = near_the_end::<shako::GameState>(12, 24, 6, 300, 2);
    // (144, 6081 and 33 when written.)
    assert!(searched > 100 && checked > 1000 && roots > 10, "{searched} searched, {checked} proofs checked, {roots} roots proven");
}

/// The opponent's wins in two at the root's turn ends
/// ([`SearchConfig::reply_win_in_two`]) are proofs four turn ends from the
/// root, confirmed so with the rest of each tree; without the option no
/// unexpanded child is proven at that distance.
#[test]
fn proofs_of_the_replys_win_in_two_are_confirmed_exhaustively() {
    for (name, (searched, checked, _, replies), (_, _, _, without)) in [
        ("Shako", near_the_end_with::<shako::GameState>(14, 200, 6, 100, 4, true), near_the_end_with::<shako::GameState>(14, 200, 6, 100, 4, false)),
        ("Connect Four", near_the_end_with::<connect4::GameState>(15, 30, 6, 100, 4, true), near_the_end_with::<connect4::GameState>(15, 30, 6, 100, 4, false)),
    ] {
        let counts = format!("{name}: {searched} searched, {checked} proofs checked, {replies} replies' wins in two ({without} without)");
        eprintln!("{counts}");
        assert!(searched > 40 && checked > 100 && replies > 5 && without == 0, "{counts}");
    }
}

/// Walks `s`'s tree for where [`SearchConfig::reply_win_in_two`] proved:
/// every visited position that ends the root's turn, where the mover
/// cannot win at once but wins in two turns, is proven so without being
/// expanded; no unexpanded position elsewhere carries a proof three turn
/// ends away or more. Returns (proven at the root's turn ends, of them
/// after more than one decision, the opponent's wins in two at visited
/// positions past the turn ends, where asking would prove them).
fn check_reply_placement<G: Game>(s: &Search<G>) -> (usize, usize, usize) {
    use pacozero_search::{two_turn_win, TWO_TURN_BUDGET};
    let root = s.root_state().clone();
    let root_mover = root.to_move();
    let (mut at_ends, mut after_chains, mut elsewhere) = (0, 0, 0);
    // (path, its position, whether the root's mover made every decision on it)
    let mut stack: Vec<(Vec<u16>, G, bool)> = vec![(Vec::new(), root, true)];
    while let Some((path, g, in_root_turn)) = stack.pop() {
        let mine = in_root_turn && g.to_move() == root_mover;
        for c in s.children_at(&path).unwrap_or_default().into_iter().filter(|c| c.visits > 0) {
            let mut next = g.clone();
            next.apply(c.action);
            let here = [path.clone(), vec![c.action]].concat();
            let turn_end = mine && next.to_move() != root_mover;
            let wins_in_two = next.outcome().is_none() && !next.can_win_this_turn() && two_turn_win(&next, TWO_TURN_BUDGET).is_some();
            let at = || format!("{} then {here:?}: {c:?}", s.root_state().notation());
            if turn_end && wins_in_two {
                assert!(!c.expanded && c.proof.is_some_and(|p| p.is_loss() && p.turns == 4), "{}: the reply's win in two is not proven", at());
                at_ends += 1;
                after_chains += usize::from(here.len() > 1);
            } else if !turn_end {
                assert!(c.expanded || c.proof.is_none_or(|p| p.turns <= 2), "{}: proven away from the root's turn ends", at());
                elsewhere += usize::from(wins_in_two && next.to_move() != root_mover);
            }
            if c.expanded {
                stack.push((here, next, mine));
            }
        }
    }
    (at_ends, after_chains, elsewhere)
}

/// [`SearchConfig::reply_win_in_two`] asks exactly where the root's turn
/// ends, wherever that is: after one move in Shako, after a chain of
/// decisions in Paco Ŝako ([`check_reply_placement`]), near the end of
/// random games; the same positions of Paco Ŝako hold wins in two behind
/// chains, and those of Shako wins in two deeper than the turn end.
#[test]
fn the_replys_win_in_two_is_asked_only_where_the_roots_turn_ends() {
    fn placements<G: Game>(seed: u64, games: usize, back: usize, sims: u32) -> (usize, usize, usize) {
        let mut total = (0, 0, 0);
        search_near_the_end::<G>(seed, games, back, sims, true, |s| {
            let (a, b, c) = check_reply_placement(s);
            total = (total.0 + a, total.1 + b, total.2 + c);
        });
        total
    }
    for (name, (at_ends, after_chains, elsewhere)) in
        [("Paco Ŝako", placements::<paco::GameState>(16, 12, 8, 200)), ("Shako", placements::<shako::GameState>(14, 200, 6, 200))]
    {
        let counts =
            format!("{name}: {at_ends} proven at the root's turn ends, {after_chains} after more than one decision, {elsewhere} wins in two past them");
        eprintln!("{counts}");
        assert!(at_ends > 10 && elsewhere > 10, "{counts}");
        assert!(name == "Shako" || after_chains > 10, "{counts}");
    }
}

#[test]
fn connect4_proofs_near_the_end_of_random_games_are_confirmed_exhaustively() {
    let (searched, checked, roots) = near_the_end::<connect4::GameState>(13, 40, 6, 300, 3);
    assert!(searched > 150 && checked > 1000 && roots > 50, "{searched} searched, {checked} proofs checked, {roots} roots proven");
}

/// A decision search asks whether a fresh root wins this turn once: win
/// detection asks, and the two-turn search after it does not ask again
/// (a threat search can be the costliest call of a decision).
#[test]
fn a_fresh_root_is_asked_once_whether_it_wins_this_turn() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for stones in [3u8, 5, 6, 9, 10] {
            let root = nim(stones);
            nim::forget_asked();
            let mut s = Search::new(config(algorithm, true), root.clone(), false);
            s.search_until(&UniformEvaluator, 50, None, false, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
            assert_eq!(nim::times_asked(&root), 1, "{algorithm:?}, {stones} stones");
        }
    }
}

/// A line of the proved tactics suite (`engine/tests/data/tactics.jsonl`).
#[derive(serde::Deserialize)]
struct Tactic {
    fen: String,
    depth: u32,
    winning_actions: Vec<String>,
}

/// The proved tactics suite, line by line.
fn tactics_suite() -> Vec<Tactic> {
    include_str!("../../engine/tests/data/tactics.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The proved tactics suite (exhaustive search over every full move and
/// reply, `paco::Prover`): each root the solver proves is the suite's win,
/// at its distance, and the turn played starts one of its winning turns.
#[test]
fn tactics_roots_are_proven_as_the_exhaustive_prover_labelled_them() {
    let (mut proven, mut shortest, mut total, mut checked) = ([0usize; 2], [0usize; 2], [0usize; 2], 0);
    for (i, t) in tactics_suite().into_iter().enumerate() {
        let g = paco::GameState::from_notation(&t.fen).unwrap();
        let d = t.depth as usize - 1;
        total[d] += 1;
        let mut s = Search::new(config(Algorithm::Puct, true), g.clone(), false);
        let r = s.search_until(&UniformEvaluator, 800, None, false, &mut ChaCha8Rng::seed_from_u64(i as u64)).unwrap();
        let Some(p) = r.proof else { continue };
        proven[d] += 1;
        // A win for the mover, in no fewer of its turns than the shortest
        // (the solver stops at the first win it proves, not always the shortest).
        let mate = p.uci_mate().unwrap_or(0);
        assert!(p.result == Proven::Win && mate >= t.depth as i64, "line {}: {} proved {p:?}", i + 1, t.fen);
        if mate == t.depth as i64 {
            let first = g.action_name(r.action);
            assert!(t.winning_actions.iter().any(|w| w.split(' ').next() == Some(first.as_str())), "line {}: played {first}", i + 1);
            shortest[d] += 1;
        }
        checked += check_tree(&s, 1);
    }
    // Every Paco-in-1 root is a detected win; Paco-in-2 needs every reply searched.
    assert_eq!(shortest[0], total[0], "Paco-in-1 proven {proven:?} of {total:?}");
    // (53 of 98 when written.)
    assert!(proven[1] * 5 >= total[1] * 2, "Paco-in-2 proven {proven:?} of {total:?}");
    assert!(checked > 0);
}

#[test]
fn a_nim_tree_spends_no_visit_inside_a_proven_node() {
    // Each simulation either reaches a node not yet proven or stops at the
    // first proven one: the visits below a proven node stay as they were
    // when it was proven.
    let mut s: Search<Nim> = Search::new(config(Algorithm::Puct, false), nim(11), false);
    s.begin(4000, false);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut out = pacozero_search::EvalOutput::default();
    let mut frozen: std::collections::HashMap<Vec<u16>, Vec<u32>> = std::collections::HashMap::new();
    while s.run(&mut rng) {
        pacozero_search::evaluate_pending(&mut [&mut s], &UniformEvaluator, &mut out).unwrap();
        // Every expanded node whose own proof is known, by its path.
        let mut stack: Vec<Vec<u16>> = vec![Vec::new()];
        while let Some(path) = stack.pop() {
            let Some(children) = s.children_at(&path) else { continue };
            for c in &children {
                let mut p = path.clone();
                p.push(c.action);
                if c.proof.is_some() && c.expanded {
                    let below: Vec<u32> = s.children_at(&p).unwrap().iter().map(|x| x.visits).collect();
                    let was = frozen.entry(p.clone()).or_insert_with(|| below.clone());
                    assert_eq!(*was, below, "visits below the proven node {p:?} changed");
                }
                if c.expanded {
                    stack.push(p);
                }
            }
        }
    }
    assert!(!frozen.is_empty(), "some interior node was proven");
    assert_eq!(s.root_proof().map(|p| p.result), Some(Proven::Win));
}

/// Whether `g`'s mover wins within `turns` turn ends, by [`exhaustive`]
/// (`None`: unknown, over its budget).
fn wins_within<G: Game>(g: &G, turns: u32) -> Option<bool> {
    exhaustive(g, turns).ok().map(|v| v == Some(Outcome::Win(g.to_move())))
}

/// Checks the root's two-turn search at `g` against [`exhaustive`]: a win
/// it finds is a win within three turn ends (and its turn, played, leaves
/// one within two), and where exhaustive search finds a win within three
/// turn ends but none within one, it finds one. Returns (found, confirmed
/// absent) or `None` where exhaustive search ran out of budget.
fn check_two_turns<G: Game>(g: &G) -> Option<(bool, bool)> {
    use pacozero_search::{two_turn_win, TWO_TURN_BUDGET};
    if g.outcome().is_some() || g.can_win_this_turn() {
        return None;
    }
    let found = two_turn_win(g, TWO_TURN_BUDGET);
    let within_three = wins_within(g, 3)?;
    match &found {
        Some(w) => {
            assert!(within_three, "{}: a two-turn win exhaustive search refutes", g.notation());
            let mut after = g.clone();
            for &a in &w.turn {
                after.apply(a);
            }
            assert_ne!(after.to_move(), g.to_move(), "{}: the turn found ends", g.notation());
            // Whatever the opponent does in its turn, the mover wins in the next.
            if let Ok(v) = exhaustive(&after, 2) {
                assert_eq!(v, Some(Outcome::Win(g.to_move())), "{}: after the turn found", g.notation());
            }
            Some((true, false))
        }
        None => {
            let within_one = wins_within(g, 1)?;
            assert!(!within_three || within_one, "{}: exhaustive search wins within three turn ends; the two-turn search found none", g.notation());
            Some((false, true))
        }
    }
}

/// The last `back` states (or all) of each of `games` random games of `G`
/// from `seed`, in the order played.
fn game_ends<G: Game>(seed: u64, games: usize, back: usize) -> impl Iterator<Item = Vec<G>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..games).map(move |_| {
        let mut states: Vec<G> = random_game(&mut rng, 2000);
        states.drain(..states.len().saturating_sub(back));
        states
    })
}

/// Positions near the end of random games of `G`, each checked by
/// [`check_two_turns`]; returns (found, confirmed absent).
fn two_turns_near_the_end<G: Game>(seed: u64, games: usize, back: usize) -> (usize, usize) {
    let (mut found, mut absent) = (0, 0);
    for states in game_ends::<G>(seed, games, back) {
        for g in &states {
            if let Some((f, a)) = check_two_turns(g) {
                found += usize::from(f);
                absent += usize::from(a);
            }
        }
    }
    (found, absent)
}

#[test]
fn paco_two_turn_wins_are_exactly_those_of_exhaustive_search() {
    let (found, absent) = two_turns_near_the_end::<paco::GameState>(21, 48, 8);
    // (7 and 119 when written.)
    assert!(found >= 5 && absent >= 60, "{found} found, {absent} confirmed absent");
}

#[test]
fn shako_two_turn_wins_are_exactly_those_of_exhaustive_search() {
    let (found, absent) = two_turns_near_the_end::<shako::GameState>(22, 40, 8);
    // (4 and 269 when written.)
    assert!(found >= 3 && absent >= 100, "{found} found, {absent} confirmed absent");
}

#[test]
fn connect4_two_turn_wins_are_exactly_those_of_exhaustive_search() {
    let (found, absent) = two_turns_near_the_end::<connect4::GameState>(23, 60, 8);
    assert!(found >= 10 && absent >= 100, "{found} found, {absent} confirmed absent");
}

/// Every Paco-in-2 root of the proved tactics suite is a two-turn win the
/// root search finds, and its first decision starts one of the suite's
/// winning turns; no Paco-in-1 root reaches it (win detection answers).
#[test]
fn the_root_finds_every_paco_in_two_of_the_tactics_suite() {
    use pacozero_search::{two_turn_win, TWO_TURN_BUDGET};
    let (mut in_two, mut found) = (0, 0);
    for (i, t) in tactics_suite().into_iter().enumerate() {
        let g = paco::GameState::from_notation(&t.fen).unwrap();
        if t.depth != 2 {
            continue;
        }
        in_two += 1;
        let Some(w) = two_turn_win(&g, TWO_TURN_BUDGET) else { continue };
        found += 1;
        let names = pacozero_search::turns::decision_names(&g, &w.turn).join(" ");
        assert!(t.winning_actions.contains(&names), "line {}: the turn {names} is not among the suite's", i + 1);
        let mut s = Search::new(config(Algorithm::Gumbel, true), g.clone(), false);
        let r = s.search_until(&UniformEvaluator, 64, None, false, &mut ChaCha8Rng::seed_from_u64(i as u64)).unwrap();
        assert_eq!((r.proof.map(|p| p.uci_mate()), r.simulations), (Some(Some(2)), 0), "line {}", i + 1);
        assert!(w.first_actions.contains(&r.action) && s.root_two_turn_win() == Some(&w.turn[..]));
    }
    assert_eq!(found, in_two, "Paco-in-2 found by the root's two-turn search");
}

/// A search kept through a game (advanced decision by decision, its tree
/// reused) reports at every decision the win in two turns that a fresh
/// two-turn search of the root finds, or none where it finds none. Within a
/// turn the kept search skips the roots after one searched through without
/// a win (their turn ends are among its own): this checks that skip over the
/// last decisions of random games, where such wins are common.
fn a_kept_search_agrees_with_fresh_two_turn_searches<G: Game>(seed: u64, games: usize, back: usize) -> (usize, usize) {
    use pacozero_search::{two_turn_win, TWO_TURN_BUDGET};
    let (mut wins, mut mid_turn) = (0, 0);
    for (game, states) in game_ends::<G>(seed, games, back).enumerate() {
        let mut s = Search::new(config(Algorithm::Puct, true), states[0].clone(), false);
        let mut legal = Vec::new();
        for (i, pair) in states.windows(2).enumerate() {
            let (g, next) = (&pair[0], &pair[1]);
            s.search_until(&UniformEvaluator, 8, None, false, &mut ChaCha8Rng::seed_from_u64(i as u64)).unwrap();
            let fresh = if g.can_win_this_turn() { None } else { two_turn_win(g, TWO_TURN_BUDGET) };
            // A root the kept tree has proven already is not searched again.
            let proven = s.root_proof().is_some_and(|p| p.result == Proven::Win && p.turns <= 3) && s.root_two_turn_win().is_none();
            if !proven {
                assert_eq!(s.root_two_turn_win(), fresh.as_ref().map(|w| &w.turn[..]), "game {game}, {}", g.notation());
            }
            wins += usize::from(fresh.is_some());
            mid_turn += usize::from(i > 0 && states[i - 1].to_move() == g.to_move());
            // The random game's decision: which one `next` follows from.
            g.playable_actions(&mut legal);
            let action = legal.iter().copied().find(|&a| {
                let mut h = g.clone();
                h.apply(a);
                h.hash() == next.hash()
            });
            s.advance(action.expect("a decision leads to the next state"), next);
        }
    }
    (wins, mid_turn)
}

#[test]
fn a_kept_paco_search_agrees_with_fresh_two_turn_searches() {
    let (wins, mid_turn) = a_kept_search_agrees_with_fresh_two_turn_searches::<paco::GameState>(31, 40, 24);
    // (30 and 477 when written.)
    assert!(wins >= 20 && mid_turn >= 300, "{wins} wins in two, {mid_turn} decisions within a turn");
}

#[test]
fn a_kept_shako_search_agrees_with_fresh_two_turn_searches() {
    let (wins, mid_turn) = a_kept_search_agrees_with_fresh_two_turn_searches::<shako::GameState>(32, 30, 16);
    // A Shako turn is one decision: nothing is skipped, all is compared.
    assert!(wins >= 3 && mid_turn == 0, "{wins} wins in two, {mid_turn} decisions within a turn");
}
