//! A toy game with two-decision turns (Nim where a turn takes 1-3 stones as
//! "take 1 or 2" then "take 0 or 1 more"; taking the last stone wins). Known
//! theory: the mover loses iff stones % 4 == 0 at the start of its turn. Tests
//! that search handles multi-decision turns (value signs) and that self-play
//! is generic over the game.

use pacozero_engine::{BadNotation, Color, Encoding, Game, Outcome};
use pacozero_search::{search, Algorithm, Search, SearchConfig, UniformEvaluator};
use pacozero_selfplay::{play_game, SelfplayConfig};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Debug)]
struct Nim {
    stones: u8,
    mover: Color,
    second: bool,
    winner: Option<Color>,
}

impl Game for Nim {
    const NAME: &'static str = "nim";
    const AUX_TARGETS: &'static [&'static str] = &["always_false", "can_take_all"];
    const NUM_ACTIONS: usize = 4;
    const BOARD_HEIGHT: usize = 1;
    const BOARD_WIDTH: usize = 8;
    const NUM_BIT_PLANES: usize = 1;
    const NUM_SCALARS: usize = 2;
    const ENCODINGS: &'static [Encoding] =
        &[Encoding { name: pacozero_engine::DEFAULT_ENCODING, version: 1, bit_planes: &["stones"], scalars: &["second_decision", "stone_count"] }];
    const ACTION_LAYOUT: &'static str = "0: take 1, 1: take 2, 2: stop, 3: take 1 more";
    fn to_move(&self) -> Color {
        self.mover
    }
    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(Outcome::Win)
    }
    fn playable_actions(&self, out: &mut Vec<u16>) {
        out.clear();
        if self.winner.is_some() {
            return;
        }
        if self.second {
            out.push(2);
            if self.stones >= 1 {
                out.push(3);
            }
        } else {
            out.push(0);
            if self.stones >= 2 {
                out.push(1);
            }
        }
    }
    fn apply(&mut self, a: u16) {
        let take = match a {
            0 => 1,
            1 => 2,
            2 => 0,
            _ => 1,
        };
        self.stones -= take;
        if self.stones == 0 {
            self.winner = Some(self.mover);
        } else if self.second {
            self.second = false;
            self.mover = self.mover.other();
        } else {
            self.second = true;
        }
    }
    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]) {
        planes[0] = (1u64 << self.stones.min(63)) - 1;
        scalars[0] = self.second as u8 as f32;
        scalars[1] = self.stones as f32;
    }
    fn hash(&self) -> u64 {
        (self.stones as u64) << 2 | (self.second as u64) << 1 | self.mover as u64
    }
    fn action_name(&self, a: u16) -> String {
        ["t1", "t2", "stop", "t1more"][a as usize].to_string()
    }
    fn notation(&self) -> String {
        format!("{} {} {}", self.stones, self.mover, self.second as u8)
    }
    fn start() -> Self {
        Nim { stones: 10, mover: Color::White, second: false, winner: None }
    }
    fn from_notation(s: &str) -> Result<Self, BadNotation> {
        let stones = s.split(' ').next().unwrap_or("").parse().map_err(|e| BadNotation::new(s, e))?;
        Ok(Nim { stones, mover: Color::White, second: false, winner: None })
    }
    fn parse_action(&self, name: &str) -> Option<u16> {
        ["t1", "t2", "stop", "t1more"].iter().position(|n| *n == name).map(|i| i as u16)
    }
    fn recomputed_hash(&self) -> u64 {
        self.hash()
    }
    fn random_start(n: u64) -> Self {
        Nim { stones: 5 + (n % 8) as u8, mover: Color::White, second: false, winner: None }
    }
    fn aux_targets(&self, out: &mut Vec<bool>) -> bool {
        out.clear();
        if self.second {
            return false;
        }
        out.extend([false, (1..=3).contains(&self.stones)]);
        true
    }
    fn end_reason(&self) -> &'static str {
        "last_stone"
    }
}

fn nim(stones: u8) -> Nim {
    Nim { stones, mover: Color::White, second: false, winner: None }
}

#[test]
fn search_plays_nim_perfectly_with_two_decision_turns() {
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = SearchConfig { algorithm: alg, ..SearchConfig::default() };
        for n in 1..=9u8 {
            let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
            let g = nim(n);
            let r = search(&cfg, &g, &UniformEvaluator, 800, false, &mut rng).unwrap();
            if n % 4 == 0 {
                assert!(r.root_q < -0.2, "{alg:?} n={n}: lost position has root_q {}", r.root_q);
                continue;
            }
            assert!(r.root_q > 0.2, "{alg:?} n={n}: won position has root_q {}", r.root_q);
            // Play the whole turn by search: it must leave a multiple of 4 (or win).
            let mut g = g;
            while g.to_move() == Color::White && g.winner.is_none() {
                let r = search(&cfg, &g, &UniformEvaluator, 800, false, &mut rng).unwrap();
                g.apply(r.action);
            }
            assert!(g.winner == Some(Color::White) || g.stones & 3 == 0, "{alg:?} n={n}: left {} stones", g.stones);
        }
    }
}

#[test]
fn a_kept_tree_starts_the_next_decision_with_the_played_subtree() {
    let cfg = SearchConfig { algorithm: Algorithm::Puct, dirichlet_epsilon: 0.0, tree_reuse: true, full_simulations: 4096, ..SearchConfig::default() };
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut g = nim(30);
    let mut s = Search::new(cfg.clone(), g.clone(), false);
    let first = s.search_until(&UniformEvaluator, 300, None, false, &mut rng).unwrap();
    assert_eq!(first.simulations, 300);
    let kept = first.visits[first.legal.iter().position(|&a| a == first.action).unwrap()];
    assert!(kept > 10, "the played decision was searched ({kept} visits)");
    g.apply(first.action);
    s.advance(first.action, &g);
    assert_eq!(s.root_visits(), kept, "the subtree is the new root, with its visits");
    let second = s.search_until(&UniformEvaluator, 100, None, false, &mut rng).unwrap();
    assert_eq!(second.simulations, 100);
    assert_eq!(s.root_visits(), kept + 100);
    // Without reuse the next search starts from nothing.
    let mut fresh = Search::new(SearchConfig { tree_reuse: false, ..cfg }, nim(30), false);
    let r = fresh.search_until(&UniformEvaluator, 300, None, false, &mut rng).unwrap();
    let mut h = nim(30);
    h.apply(r.action);
    fresh.advance(r.action, &h);
    assert_eq!(fresh.root_visits(), 0);
}

#[test]
fn a_timed_search_returns_on_time_in_a_decided_tree() {
    // Two stones: the mover wins at once with every turn, so after the first
    // expansions every simulation ends in a known result and needs no
    // evaluation; the deadline must still stop a budget of a million.
    let cfg = SearchConfig { algorithm: Algorithm::Puct, dirichlet_epsilon: 0.0, win_detection: false, ..SearchConfig::default() };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let start = std::time::Instant::now();
    let deadline = start + std::time::Duration::from_millis(20);
    let r = Search::new(cfg, nim(2), false).search_until(&UniformEvaluator, 1_000_000_000, Some(deadline), false, &mut rng).unwrap();
    assert!(r.simulations < 1_000_000_000);
    assert!(start.elapsed() < std::time::Duration::from_secs(2), "stopped at the deadline, not after the budget");
}

#[test]
fn selfplay_is_generic_over_the_game() {
    let cfg = SelfplayConfig {
        threads: 1,
        full_search_fraction: 1.0,
        search: SearchConfig { full_simulations: 200, ..SearchConfig::default() },
        ..SelfplayConfig::default()
    };
    // Starting from 10 (10 % 4 == 2), White wins with perfect play.
    let rec = play_game::<Nim, _>(&cfg, &UniformEvaluator, 0, None).unwrap();
    assert_eq!(rec.winner, Some(Color::White), "{}", rec.game.actions);
    assert_eq!(rec.game.result, "1-0");
    let dir = tempfile::tempdir().unwrap();
    let s = pacozero_selfplay::run_selfplay::<Nim, _>(&cfg, &UniformEvaluator, dir.path(), 3, false).unwrap();
    assert_eq!(s.games, 3);
    let chunks = pacozero_data::list_chunks(dir.path()).unwrap();
    let (spec, rows, games) = pacozero_data::read_chunk(&chunks[0]).unwrap();
    assert_eq!(spec.game, "nim");
    assert_eq!(games.len(), 3);
    // Values: the winner's rows have result 1, the loser's -1, and moves_left counts down.
    for g in &games {
        let ps: Vec<_> = rows.iter().filter(|p| p.game_id == g.game_id).collect();
        assert_eq!(ps.last().unwrap().result, 1, "the last decision takes the last stone");
        assert_eq!(ps.last().unwrap().moves_left, 0);
    }
}
