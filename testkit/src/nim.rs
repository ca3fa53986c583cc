//! A toy game with two-decision turns (Nim where a turn takes 1-3 stones as
//! "take 1 or 2" then "take 0 or 1 more"; taking the last stone wins). Known
//! theory: the mover loses iff stones % 4 == 0 at the start of its turn.
//! The search tests and the self-play tests play it.

use pacozero_engine::{BadNotation, Color, Encode, Encoding, GameRules, Notation, Outcome, Tools};

#[derive(Clone, Debug)]
pub struct Nim {
    pub stones: u8,
    pub mover: Color,
    pub second: bool,
    pub winner: Option<Color>,
}

impl GameRules for Nim {
    const NAME: &'static str = "nim";

    const NUM_ACTIONS: usize = 4;

    const BOARD_HEIGHT: usize = 1;

    const BOARD_WIDTH: usize = 8;

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

    fn hash(&self) -> u64 {
        (self.stones as u64) << 2 | (self.second as u64) << 1 | self.mover as u64
    }

    fn start() -> Self {
        Nim { stones: 10, mover: Color::White, second: false, winner: None }
    }

    fn random_start(n: u64) -> Self {
        Nim { stones: 5 + (n % 8) as u8, mover: Color::White, second: false, winner: None }
    }

    fn end_reason(&self) -> &'static str {
        "last_stone"
    }

    /// Known only at a turn's second decision (one stone left: take it), so
    /// that search meets detected wins below a root that is not one, as
    /// with a game whose detection is partial.
    fn can_win_this_turn(&self) -> bool {
        ASKED.with(|a| *a.borrow_mut().entry(self.hash()).or_default() += 1);
        self.winner.is_none() && self.second && self.stones == 1
    }
}

impl Encode for Nim {
    const AUX_TARGETS: &'static [&'static str] = &["always_false", "can_take_all"];

    const NUM_BIT_PLANES: usize = 1;

    const NUM_SCALARS: usize = 2;

    const ENCODINGS: &'static [Encoding] =
        &[Encoding { name: pacozero_engine::DEFAULT_ENCODING, version: 1, bit_planes: &["stones"], scalars: &["second_decision", "stone_count"] }];

    const ACTION_LAYOUT: &'static str = "0: take 1, 1: take 2, 2: stop, 3: take 1 more";

    fn encode(&self, planes: &mut [u64], scalars: &mut [f32]) {
        planes[0] = (1u64 << self.stones.min(63)) - 1;
        scalars[0] = self.second as u8 as f32;
        scalars[1] = self.stones as f32;
    }

    fn aux_targets(&self, out: &mut Vec<bool>) -> bool {
        out.clear();
        if self.second {
            return false;
        }
        out.extend([false, (1..=3).contains(&self.stones)]);
        true
    }
}

impl Notation for Nim {
    fn action_name(&self, a: u16) -> String {
        ["t1", "t2", "stop", "t1more"][a as usize].to_string()
    }

    fn notation(&self) -> String {
        format!("{} {} {}", self.stones, self.mover, self.second as u8)
    }

    fn from_notation(s: &str) -> Result<Self, BadNotation> {
        let stones = s.split(' ').next().unwrap_or("").parse().map_err(|e| BadNotation::new(s, e))?;
        Ok(Nim { stones, mover: Color::White, second: false, winner: None })
    }

    fn parse_action(&self, name: &str) -> Option<u16> {
        ["t1", "t2", "stop", "t1more"].iter().position(|n| *n == name).map(|i| i as u16)
    }
}

impl Tools for Nim {
    fn recomputed_hash(&self) -> u64 {
        self.hash()
    }
}

thread_local! {
    /// How often this thread asked `can_win_this_turn` of each position (by hash).
    static ASKED: std::cell::RefCell<std::collections::HashMap<u64, usize>> = Default::default();
}

/// How often this thread asked `can_win_this_turn` of `g` since [`forget_asked`].
#[allow(dead_code)]
pub fn times_asked(g: &Nim) -> usize {
    ASKED.with(|a| a.borrow().get(&g.hash()).copied().unwrap_or(0))
}

/// Forgets this thread's counts of [`times_asked`].
#[allow(dead_code)]
pub fn forget_asked() {
    ASKED.with(|a| a.borrow_mut().clear());
}

/// White to move at the start of a turn with `stones` left.
pub fn nim(stones: u8) -> Nim {
    Nim { stones, mover: Color::White, second: false, winner: None }
}
