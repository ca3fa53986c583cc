use super::super::game::GameState;
use super::super::Piece;
use super::*;
use crate::prelude::*;
use rand::{Rng, SeedableRng};

#[test]
fn sizes() {
    assert_eq!(NUM_MOVE_SLOTS, 1800 + 1140 + 576);
    assert_eq!(NUM_ACTIONS, 3656);
}

#[test]
fn promotion_steps_are_a_bijection() {
    let mut seen = [false; NUM_PROMOTION_STEPS];
    for from in 0..10u8 {
        for to in from.saturating_sub(1)..=(from + 1).min(9) {
            let s = promotion_step(from, to);
            assert!(!seen[s], "step {s} twice");
            seen[s] = true;
            assert_eq!(promotion_files(s), (from, to));
        }
    }
    assert!(seen.iter().all(|&b| b));
}

/// Every action has its own square of its own plane, the plane of the
/// move's direction and distance, on its from-square.
#[test]
fn the_policy_planes_put_each_move_on_its_from_square_and_direction() {
    let pp = policy_planes();
    assert_eq!((pp.planes, pp.slots.len()), (NUM_POLICY_PLANES, NUM_ACTIONS));
    let mut seen = std::collections::HashSet::new();
    for &(plane, sq) in &pp.slots {
        let sq = sq.expect("every Shako action has a square");
        assert!((plane as usize) < NUM_POLICY_PLANES && sq < 100);
        assert!(seen.insert((plane, sq)), "plane {plane} square {sq} twice");
    }
    // Every plane is used.
    let planes: std::collections::HashSet<u16> = pp.slots.iter().map(|s| s.0).collect();
    assert_eq!(planes.len(), NUM_POLICY_PLANES);
    // The moves of White's start (the mover's frame is the board's), by hand.
    let sq = |s: &str| Square10::parse(s).unwrap().index() as u16;
    let plain = |uci: &str| Move::new(Square10::parse(&uci[..2]).unwrap(), Square10::parse(&uci[2..]).unwrap(), MoveKind::Normal);
    let slot = |uci: &str| pp.slots[action_index(plain(uci), Color::White)];
    assert_eq!(slot("e3e5"), (1, Some(sq("e3"))), "north, two squares");
    assert_eq!(slot("e3e4"), (0, Some(sq("e3"))), "north, one square");
    assert_eq!(slot("h2g4"), (72 + 7, Some(sq("h2"))), "knight (-1, 2)");
    assert_eq!(slot("a2b3"), (9, Some(sq("a2"))), "north-east, one square (the elephant)");
    assert_eq!(slot("a1a2"), (0, Some(sq("a1"))));
    // A Black move reads in Black's frame: e8-e6 is north two from e3.
    let mut b = GameState::startpos();
    b.play_uci("e3e4").unwrap();
    let m = b.position().parse_uci("e8e6").unwrap();
    assert_eq!(pp.slots[action_index(m, Color::Black)], (1, Some(sq("e3"))));
    // Under-promotions: a knight from d9 to c10 (left), an elephant straight, a cannon right.
    let promo = |uci: &str| {
        let m = Move::new(
            Square10::parse(&uci[..2]).unwrap(),
            Square10::parse(&uci[2..4]).unwrap(),
            MoveKind::Promotion(Kind::from_letter(uci.chars().last().unwrap()).unwrap()),
        );
        pp.slots[action_index(m, Color::White)]
    };
    assert_eq!(promo("d9c10n"), (80 + 2, Some(sq("d9"))));
    assert_eq!(promo("d9d10e"), (80 + 5 + 3, Some(sq("d9"))));
    assert_eq!(promo("d9e10c"), (80 + 10 + 4, Some(sq("d9"))));
    // Every plain slot's plane against its geometry.
    for (i, &(f, t)) in SLOT_MOVE.iter().enumerate() {
        let (df, dr) = ((t % 10) as i32 - (f % 10) as i32, (t / 10) as i32 - (f / 10) as i32);
        let plane = pp.slots[i].0 as usize;
        if plane >= 72 {
            assert_eq!(KNIGHT_JUMPS[plane - 72], (df, dr));
        } else {
            let dist = df.abs().max(dr.abs());
            assert_eq!(plane % 9, dist as usize - 1);
            let dirs = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];
            assert_eq!(dirs[plane / 9], (df.signum(), dr.signum()));
        }
    }
}

#[test]
fn slots_round_trip() {
    for (i, &(f, t)) in SLOT_MOVE.iter().enumerate() {
        assert_eq!(SLOT_OF[f as usize * 100 + t as usize] as usize, i);
    }
}

/// Plane `p` of `planes` as one set, in the board's own frame (the
/// planes are in the mover's).
fn plane_of(planes: &[u64], p: usize, mover: Color) -> Bb128 {
    let b = Bb128((planes[2 * p] as u128) | ((planes[2 * p + 1] as u128) << 64));
    if mover == Color::Black {
        b.flip_ranks()
    } else {
        b
    }
}

fn threats(g: &GameState) -> (Vec<u64>, Vec<f32>) {
    let mut planes = vec![u64::MAX; THREATS_BIT_PLANES * WORDS_PER_PLANE];
    let mut scalars = vec![f32::NAN; THREATS_SCALARS];
    g.encode_as(1, &mut planes, &mut scalars);
    (planes, scalars)
}

/// `pos`'s board with `piece` on `sq` (in place of what stood there),
/// rebuilt square by square: a position only for attack tests.
fn with_piece(pos: &Position, sq: Square10, piece: Piece) -> Position {
    let mut p = Position::empty();
    for s in Square10::all() {
        match pos.piece_at(s) {
            _ if s == sq => p.put(s, piece),
            Some(x) => p.put(s, x),
            None => {}
        }
    }
    p
}

/// Positions of random games (seeded): each game from a random start,
/// every position until it ends or `plies` moves are played.
fn random_positions(seed: u64, games: u64, plies: usize) -> Vec<GameState> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for n in 0..games {
        let mut g = GameState::random_start(seed * 1000 + n);
        for _ in 0..plies {
            out.push(g.clone());
            let moves = g.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Captures half the time, so that the board empties and long lines open.
            let captures: Vec<Move> = moves.iter().copied().filter(|m| g.position().piece_at(m.to()).is_some()).collect();
            let m = if !captures.is_empty() && rng.gen_bool(0.5) { captures[rng.gen_range(0..captures.len())] } else { moves[rng.gen_range(0..moves.len())] };
            g.play_unchecked(m);
        }
    }
    out
}

#[test]
fn the_threats_encoding_extends_the_default_one() {
    let (base, more) = (ENCODING, THREATS_ENCODING);
    assert_eq!((more.num_bit_planes(), more.num_scalars()), (THREATS_BIT_PLANES, THREATS_SCALARS));
    assert_eq!(&more.bit_planes[..NUM_BIT_PLANES], base.bit_planes);
    assert_eq!(&more.scalars[..NUM_SCALARS], base.scalars);
    assert_eq!(GameState::ENCODINGS, &[ENCODING, THREATS_ENCODING]);
    for g in random_positions(1, 4, 40) {
        let (planes, scalars) = threats(&g);
        let (mut p0, mut s0) = (vec![0u64; NUM_BIT_PLANES * WORDS_PER_PLANE], vec![0f32; NUM_SCALARS]);
        g.encode(&mut p0, &mut s0);
        assert_eq!((&planes[..p0.len()], &scalars[..s0.len()]), (&p0[..], &s0[..]), "{}", g.notation());
    }
}

/// Every attack and check plane against a slow reference on positions
/// of random games: the attack planes count [`Position::attackers`] of
/// each square (and agree with the rules' own attack test), the checking
/// pieces are [`Position::checkers`], the check squares are where a
/// piece put on the board attacks the king, and every legal capture
/// lands on the mover's attack plane.
#[test]
fn attack_and_check_planes_match_a_slow_reference_on_random_positions() {
    let positions = random_positions(7, 60, 120);
    assert!(positions.len() > 4000, "{}", positions.len());
    let (mut checks, mut twice, mut cannon_checks) = (0, 0, 0);
    for g in &positions {
        let pos = g.position();
        let at = pos.fen();
        let me = pos.side_to_move();
        let (planes, scalars) = threats(g);
        let plane = |p: usize| plane_of(&planes, p, me);
        for (p, color) in [(19, me), (21, me.other())] {
            let (mut once, mut more) = (Bb128::EMPTY, Bb128::EMPTY);
            for s in Square10::all() {
                let n = pos.attackers(s, color).count();
                assert_eq!(n >= 1, pos.is_attacked(s, color, pos.occupied(), Bb128::EMPTY), "{at}: {s}");
                if n >= 1 {
                    once |= s.bb();
                }
                if n >= 2 {
                    more |= s.bb();
                }
            }
            assert_eq!(plane(p), once, "{at}: plane {p}");
            assert_eq!(plane(p + 1), more, "{at}: plane {}", p + 1);
            twice += more.count();
        }
        assert_eq!(plane(23), pos.checkers(), "{at}");
        assert_eq!(scalars[4], pos.in_check() as u8 as f32, "{at}");
        assert_eq!(plane(21).contains(pos.king_square(me)), pos.in_check(), "{at}");
        checks += pos.in_check() as usize;
        let king = pos.king_square(me.other());
        let kinds = [Kind::Pawn, Kind::Knight, Kind::Elephant, Kind::Bishop, Kind::Rook, Kind::Cannon];
        for (i, kind) in kinds.into_iter().enumerate() {
            let want: Bb128 = Square10::all().filter(|&s| s != king && with_piece(pos, s, Piece { color: me, kind }).attackers(king, me).contains(s)).collect();
            assert_eq!(plane(24 + i), want, "{at}: {kind:?} check squares");
            if kind == Kind::Cannon {
                cannon_checks += want.count();
            }
        }
        // A queen attacks the king from the diagonal and orthogonal check squares.
        let queen: Bb128 =
            Square10::all().filter(|&s| s != king && with_piece(pos, s, Piece { color: me, kind: Kind::Queen }).attackers(king, me).contains(s)).collect();
        assert_eq!(plane(27) | plane(28), queen, "{at}");
        for m in g.legal_moves() {
            if pos.piece_at(m.to()).is_some() || m.kind() == MoveKind::EnPassant {
                assert!(plane(19).contains(m.to()), "{at}: capture {m} off the attack plane");
            }
        }
    }
    // Not a vacuous comparison: checks, double attacks and cannon lines occur.
    assert!(checks > 50 && twice > 10_000 && cannon_checks > 1000, "{checks} checks, {twice} double attacks, {cannon_checks} cannon check squares");
}

/// A cannon's check over one screen, seen from Black (the planes in its
/// frame, ranks mirrored).
#[test]
fn a_cannon_check_through_its_screen_is_on_the_planes() {
    let g = GameState::from_fen("10/4k5/10/10/10/4P5/10/10/10/K3C5 b - - 0 1").unwrap();
    assert!(g.position().in_check());
    let (planes, scalars) = threats(&g);
    let sq = |s: &str| Square10::parse(s).unwrap();
    let set = |squares: &[&str]| squares.iter().map(|s| sq(s)).collect::<Bb128>();
    // Raw planes: e1 is e10 in Black's frame.
    assert_eq!(plane_of(&planes, 23, Color::White), set(&["e10"]));
    assert_eq!(plane_of(&planes, 23, Color::Black), set(&["e1"]));
    assert_eq!(scalars[4], 1.0);
    let plane = |p: usize| plane_of(&planes, p, Color::Black);
    // White's attacks: the cannon beyond its screen e5 up to the king
    // (not along the first rank, where it has no screen to the right and
    // the king a1 is its last piece to the left), the king, the pawn.
    let white = set(&["e6", "e7", "e8", "e9", "a2", "b1", "b2", "d6", "f6"]);
    assert_eq!(plane(21), white);
    assert_eq!(plane(22), Bb128::EMPTY);
    // Black's king attacks its neighbours.
    assert_eq!(plane(19), set(&["d8", "e8", "f8", "d9", "f9", "d10", "e10", "f10"]));
    // Where Black would check White's king a1 from.
    assert_eq!(plane(24), set(&["b2"]), "a black pawn on b2 attacks a1");
    assert_eq!(plane(25), set(&["b3", "c2"]));
    assert_eq!(plane(26), set(&["b2", "c3"]));
    assert_eq!(plane(27), set(&["b2", "c3", "d4", "e5"]), "the diagonal up to the pawn e5");
    assert_eq!(plane(28), set(&["a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "b1", "c1", "d1", "e1"]));
    assert_eq!(plane(29), set(&["f1", "g1", "h1", "i1", "j1"]), "beyond the screen e1");
}
