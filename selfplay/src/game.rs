//! One self-play game as a resumable state machine (`Runner`): its
//! searches, its rows and its end; and what every game of a run shares.

use anyhow::{bail, Context, Result};
use pacozero_data::{GameRow, PositionRow};
use pacozero_engine::{encoding_index, Color, Outcome};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use pacozero_search::seeds::splitmix64;
use pacozero_search::{Algorithm, EvalOutput, Evaluator, Search};

use pacozero_book::BookStarts;

use crate::config::{SelfplayConfig, StartPositions};
use crate::SelfplayGame;

/// Seed of game number `index` of a run with master seed `seed`.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    splitmix64(seed ^ splitmix64(index.wrapping_add(0x5151)))
}

/// Game id of the game played with seed `seed` (see [`game_seed`]): the
/// `game_id` column of its rows.
pub fn game_id_of(seed: u64) -> u64 {
    splitmix64(seed ^ 0xA5A5_5A5A_0F0F_F0F0)
}

/// A finished game: its rows, ready for a [`pacozero_data::ChunkWriter`].
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub game: GameRow,
    pub positions: Vec<PositionRow>,
    pub winner: Option<Color>,
    /// `"paco"`, `"repetition"`, `"no_progress"`, `"max_length"`, `"stuck"`, `"resign"`.
    /// The cuts (`"max_length"`, `"material"`) mark the rows truncated
    /// ([`pacozero_data::is_truncation`]).
    pub reason: String,
    /// The game was not allowed to resign.
    pub no_resign: bool,
    /// In a no-resign game: the colour that would have resigned first.
    pub would_resign: Option<Color>,
    pub simulations: u64,
    pub node_visits: u64,
}

struct Draft {
    side: Color,
    planes: Vec<u64>,
    scalars: Vec<f32>,
    legal: Vec<u16>,
    policy: Vec<f32>,
    full: bool,
    root_q: f32,
    root_wdl: [f32; 3],
    action: u16,
    /// The game's auxiliary targets at the last settled position.
    aux: Vec<bool>,
}

/// Static inputs shared by all games of a run.
pub(crate) struct Shared<'a> {
    pub(crate) cfg: &'a SelfplayConfig,
    fens: Vec<String>,
    book: BookStarts,
    config_hash: String,
    network_id: String,
    needs_encoding: bool,
    /// The index in `G::ENCODINGS` of the encoding written to the data.
    pub(crate) encoding: usize,
}

impl<'a> Shared<'a> {
    /// Validates the configuration and gathers what every game of a run shares.
    pub(crate) fn new<G: SelfplayGame, E: Evaluator<G> + ?Sized>(cfg: &'a SelfplayConfig, evaluator: &E) -> Result<Self> {
        cfg.validate()?;
        let encoding = encoding_index::<G>(&cfg.encoding).map_err(|e| anyhow::anyhow!("config key `encoding`: {e}"))?;
        if let Some(reads) = evaluator.encoding() {
            if reads != cfg.encoding {
                bail!("the network {} reads input encoding {reads:?}, but self-play writes {:?} (config key `encoding`)", evaluator.name(), cfg.encoding);
            }
        }
        Ok(Shared {
            encoding,
            cfg,
            fens: load_fens::<G>(cfg)?,
            book: match (cfg.start_positions, &cfg.book_file) {
                (StartPositions::Book, Some(path)) => BookStarts::from_file::<G>(path, cfg.book_temperature).context("config key `book_file`")?,
                _ => BookStarts::default(),
            },
            config_hash: cfg.config_hash(),
            network_id: evaluator.name(),
            needs_encoding: evaluator.needs_encoding(),
        })
    }
}

pub(crate) enum Step {
    NeedEval,
    Finished,
}

/// One game in progress.
pub(crate) struct Runner<G: SelfplayGame> {
    seed: u64,
    rng: ChaCha8Rng,
    start_fen: String,
    state: G,
    pub(crate) search: Search<G>,
    names: Vec<String>,
    drafts: Vec<Draft>,
    no_resign: bool,
    low: [u32; 2],
    would_resign: Option<Color>,
    in_search: bool,
    full: bool,
    /// The auxiliary targets of the last settled position (a decision in
    /// the middle of a turn gets its turn start's), and the buffer the game
    /// writes the current ones into.
    aux: Vec<bool>,
    aux_now: Vec<bool>,
    legal: Vec<u16>,
    end: Option<(Option<Color>, String)>,
    /// The index in `G::ENCODINGS` of the encoding written to the data.
    encoding: usize,
}

impl<G: SelfplayGame> Runner<G> {
    pub(crate) fn new(sh: &Shared<'_>, index: u64, start: Option<G>) -> Result<Self> {
        let seed = game_seed(sh.cfg.seed, index);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let state = match start {
            Some(s) => s,
            None => match sh.cfg.start_positions {
                StartPositions::Standard => G::start(),
                // (No draw without a share: the seeds' games stay as they were.)
                StartPositions::FischerRandom if sh.cfg.standard_fraction > 0.0 && rng.gen::<f64>() < sh.cfg.standard_fraction => G::start(),
                StartPositions::FischerRandom => G::random_start(rng.gen()),
                StartPositions::FenFile => G::from_notation(&sh.fens[rng.gen_range(0..sh.fens.len())])?,
                StartPositions::Book => G::from_notation(sh.book.pick(rng.gen::<f64>()))?,
            },
        };
        let no_resign = rng.gen::<f64>() < sh.cfg.no_resign_fraction;
        let mut aux = Vec::with_capacity(G::AUX_TARGETS.len());
        if !state.aux_targets(&mut aux) {
            aux.resize(G::AUX_TARGETS.len(), false);
        }
        Ok(Runner {
            seed,
            rng,
            start_fen: state.notation(),
            search: Search::new(sh.cfg.search.clone(), state.clone(), sh.needs_encoding),
            state,
            names: Vec::new(),
            drafts: Vec::new(),
            no_resign,
            low: [0; 2],
            would_resign: None,
            in_search: false,
            full: false,
            aux,
            aux_now: Vec::with_capacity(G::AUX_TARGETS.len()),
            legal: Vec::new(),
            end: None,
            encoding: sh.encoding,
        })
    }

    pub(crate) fn finish(&mut self, winner: Option<Color>, reason: &str) -> Step {
        self.end = Some((winner, reason.to_string()));
        Step::Finished
    }

    /// Plays until the game needs a leaf evaluation or is over.
    pub(crate) fn step(&mut self, cfg: &SelfplayConfig) -> Step {
        loop {
            if !self.in_search {
                if let Some(o) = self.state.outcome() {
                    let w = match o {
                        Outcome::Win(c) => Some(c),
                        Outcome::Draw => None,
                    };
                    let reason = self.state.end_reason();
                    return self.finish(w, reason);
                }
                if self.drafts.len() as u32 >= cfg.max_decisions {
                    let winner = cfg.limits().cut_winner(&self.state);
                    return self.finish(winner, if winner.is_some() { "material" } else { "max_length" });
                }
                self.state.playable_actions(&mut self.legal);
                if self.legal.is_empty() {
                    return self.finish(None, "stuck");
                }
                if self.state.aux_targets(&mut self.aux_now) {
                    std::mem::swap(&mut self.aux, &mut self.aux_now);
                }
                self.full = self.legal.len() > 1 && self.rng.gen::<f64>() < cfg.full_search_fraction;
                let sims = if self.full { cfg.search.full_simulations } else { cfg.search.cheap_simulations };
                // Gumbel noise is how Gumbel search samples moves, so every
                // search gets it; Dirichlet noise only in full searches.
                let noise = match cfg.search.algorithm {
                    Algorithm::Puct => self.full,
                    Algorithm::Gumbel => true,
                };
                self.search.begin(sims, noise);
                self.in_search = true;
            }
            if self.search.run(&mut self.rng) {
                return Step::NeedEval;
            }
            self.in_search = false;
            let res = self.search.result();
            let ply = self.drafts.len() as u32;
            let action = match cfg.search.algorithm {
                Algorithm::Gumbel if ply < cfg.gumbel_sample_decisions => res.choose(Algorithm::Gumbel, 1.0, &mut self.rng),
                Algorithm::Gumbel => res.action,
                Algorithm::Puct => {
                    let t = if ply < cfg.temperature_decisions { cfg.temperature } else { cfg.final_temperature };
                    res.choose(Algorithm::Puct, t, &mut self.rng)
                }
            };
            let mover = self.state.to_move();
            let enc = &G::ENCODINGS[self.encoding];
            let mut planes = vec![0u64; enc.num_bit_planes() * G::WORDS_PER_PLANE];
            let mut scalars = vec![0f32; enc.num_scalars()];
            self.state.encode_as(self.encoding, &mut planes, &mut scalars);
            self.names.push(self.state.action_name(action));
            self.drafts.push(Draft {
                side: mover,
                planes,
                scalars,
                legal: res.legal,
                policy: res.policy,
                full: self.full,
                root_q: res.root_q,
                root_wdl: res.root_wdl,
                action,
                aux: self.aux.clone(),
            });
            // Resignation.
            let m = mover.index();
            if res.root_q < cfg.resign_threshold {
                self.low[m] += 1;
            } else {
                self.low[m] = 0;
            }
            if self.low[m] >= cfg.resign_consecutive {
                if !self.no_resign {
                    return self.finish(Some(mover.other()), "resign");
                }
                if self.would_resign.is_none() {
                    self.would_resign = Some(mover);
                }
            }
            self.state.apply(action);
            self.search.advance(action, &self.state);
        }
    }

    /// Decisions played so far (a row each once the game is recorded).
    pub(crate) fn decisions(&self) -> u64 {
        self.drafts.len() as u64
    }

    pub(crate) fn record(self, sh: &Shared<'_>) -> GameRecord {
        let (winner, reason) = self.end.clone().expect("finished game");
        let n = self.drafts.len() as u32;
        let game_id = game_id_of(self.seed);
        // A game cut at its length cap did not end by its rules: its result
        // (a draw, or material's win) and its length are no targets.
        let truncated = pacozero_data::is_truncation(&reason);
        let positions = self
            .drafts
            .into_iter()
            .enumerate()
            .map(|(i, d)| PositionRow {
                game_id,
                ply: i as u32,
                side_to_move: d.side.index() as u8,
                planes: d.planes,
                scalars: d.scalars,
                legal_actions: d.legal,
                policy: d.policy,
                full_search: d.full,
                root_q: d.root_q,
                root_wdl: d.root_wdl,
                action: d.action,
                result: match winner {
                    None => 0,
                    Some(c) if c == d.side => 1,
                    Some(_) => -1,
                },
                moves_left: n - 1 - i as u32,
                aux_targets: d.aux,
                weight: sh.cfg.weight,
                network_id: sh.network_id.clone(),
                truncated,
            })
            .collect();
        let result = match winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        };
        GameRecord {
            game: GameRow {
                game_id,
                start_fen: self.start_fen,
                actions: self.names.join(" "),
                num_decisions: n,
                result: result.into(),
                reason: reason.clone(),
                network_id: sh.network_id.clone(),
                config_hash: sh.config_hash.clone(),
                seed: self.seed,
                white: format!("selfplay:{}", sh.network_id),
                black: format!("selfplay:{}", sh.network_id),
            },
            positions,
            winner,
            reason,
            no_resign: self.no_resign,
            would_resign: self.would_resign,
            simulations: self.search.total_simulations,
            node_visits: self.search.node_visits,
        }
    }
}

fn load_fens<G: SelfplayGame>(cfg: &SelfplayConfig) -> Result<Vec<String>> {
    if cfg.start_positions != StartPositions::FenFile {
        return Ok(Vec::new());
    }
    let path = cfg.fen_file.as_ref().expect("validated");
    let text = std::fs::read_to_string(path).with_context(|| format!("reading fen_file {}", path.display()))?;
    let mut fens = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        G::from_notation(l).with_context(|| format!("{}:{}: bad start position", path.display(), i + 1))?;
        fens.push(l.to_string());
    }
    if fens.is_empty() {
        bail!("fen_file {} has no positions", path.display());
    }
    Ok(fens)
}

/// Plays one game on the calling thread (batch size 1), from `start` or the
/// configured start positions; nothing is written.
pub fn play_game<G: SelfplayGame, E: Evaluator<G> + ?Sized>(cfg: &SelfplayConfig, evaluator: &E, index: u64, start: Option<G>) -> Result<GameRecord> {
    let sh = Shared::new::<G, E>(cfg, evaluator)?;
    let mut r = Runner::new(&sh, index, start)?;
    let mut out = EvalOutput::default();
    loop {
        match r.step(cfg) {
            Step::Finished => return Ok(r.record(&sh)),
            Step::NeedEval => {
                let req = r.search.request().expect("request");
                evaluator.evaluate(std::slice::from_ref(&req), &mut out)?;
                let (p, w) = (out.priors_of(0).to_vec(), out.wdl[0]);
                r.search.supply(&p, w);
            }
        }
    }
}
