//! The closed loop: generations of self-play → training → evaluation →
//! promotion, in one run directory, resumable at any point (`pacozero loop`).
//!
//! Run directory:
//!
//! | path | written by | content |
//! |---|---|---|
//! | `config.toml` | start | copy of the loop configuration (later runs use it) |
//! | `state.json` | each stage | game, generation, the last completed stage, and in an overlapped generation the last chunk its training reads (atomic) |
//! | `data/` | self-play | Parquet chunks (atomic; see docs/DATA.md) |
//! | `checkpoints/`, `metrics.csv` | training | resumable trainer state, per-step metrics |
//! | `models/gen-NNNN.pzmodel`, `models/current` | training, promotion | exported networks; `current` names the best (atomic; the only record of it) |
//! | `matches.jsonl` | evaluation | one line per match: players, W/D/L, pentanomial |
//! | `ratings.csv`, `ratings.md` | evaluation | Elo of every player (max. likelihood over all matches) with 95% intervals |
//! | `generations.jsonl` | each stage | one line per stage: `{"generation", "stage", figures...}` (self-play draw rate and length, losses, the losses on the generation's new games before training on them (stage `fresh`), promotion, and the wall time of each stage (stage `time`: `selfplay_seconds`, `train_seconds`, `eval_seconds`, `other_seconds`; an overlapped generation has `overlap_seconds`, self-play and training at once, instead of the first two, and stage `overlap` gives each one's own time)) |
//! | `report.html`, `plots/*.svg` | evaluation | the run report (see [`crate::report`]) |
//!
//! A stage is recorded in `state.json` only once its files are complete, so a
//! crash or Ctrl-C repeats at most the stage in progress: games already
//! written stay (they are whole chunks), training resumes from its checkpoint.
//!
//! The game (`[loop] game = "paco"` or `"shako"`) is fixed for the life of a
//! run: it is in the run's `config.toml` and `state.json`, and a resumed run
//! whose configuration names another game is refused. The stages are generic
//! over the game ([`Game`]); [`run_loop`] dispatches once. Progress goes to a
//! [`LoopObserver`] (the command line prints it).
//!
//! | module | what |
//! |---|---|
//! | this one | [`run_loop`] and the resumable state machine of the generations ([`LoopObserver`] hears it) |
//! | `config` | the loop file ([`LoopFile`], [`LoopConfig`]) and its checks; a run's configuration when it starts or resumes |
//! | `budget` | the time budget (`loop.max_minutes`) and each stage's wall clock |
//! | `stages` | self-play, training, and both at once |
//! | `evaluation` | the matches of a generation, their seeds, and promotion ([`eval_matches`]) |

use anyhow::{bail, Context, Result};
use pacozero_arena::ratings::{Sprt, SprtDecision};
use pacozero_arena::{run_match, Budget, EvalKind, Given, MatchResult, NetOptions, Openings, Player, PlayerSpec, PlayoutMix, UciSpec};
use pacozero_arena::{run_match_from, run_match_sprt};
use pacozero_data::{check_data_dir_as, game_spec_as, spec_of_encoding, RunDir};
use pacozero_engine::{encoding_index, Game, GameKind, DEFAULT_ENCODING};
use pacozero_search::derive_seed;
use pacozero_selfplay::{SelfplayConfig, Summary};
use pacozero_train::{Export, NetTable, Steps, TrainConfig, TrainStage};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

use crate::files::{
    append_match, append_stage, best_model, load_state, read_generations, read_matches, save_state, write_ratings, LoopState, MatchLine, Stage,
};
use crate::overrides::Fallback;
use crate::rounds::{selfplay_round, SelfplayPlayer};
use pacozero_data::run_dir::model_name;

mod budget;
mod config;
mod evaluation;
mod stages;
#[cfg(test)]
mod tests;

use budget::*;
pub use config::*;
pub use evaluation::*;
use stages::*;

/// Where the loop reports what it does (the command line prints it).
pub trait LoopObserver: Sync {
    /// A line about the run: a stage's summary, a match result, the ratings.
    fn note(&self, text: &str);
    /// `done` of `total` games of the match in progress have ended.
    fn match_progress(&self, done: u64, total: u64);
    /// Whether self-play and training draw their progress bars (`false`:
    /// `pacozero loop --quiet`).
    fn progress(&self) -> bool {
        true
    }
}

/// Runs (or resumes) the loop in `run` up to `generations` (default: the
/// configuration's). A new run reads `args.config` (default: the embedded
/// configs/quick.toml) with the `--set` overrides applied
/// ([`crate::overrides`]) and saves the result as its `config.toml`; a
/// resumed run uses its saved configuration (see `open_run`).
pub fn run_loop(run: &Path, args: ConfigArgs<'_>, generations: Option<u32>, obs: &dyn LoopObserver) -> Result<()> {
    let cfg = open_run(run, args, obs)?;
    // Every network the loop loads (self-play, matches) runs in it.
    pacozero_nn::precision::set_from_config(cfg.net.precision);
    pacozero_engine::with_game!(cfg.looping.game, G => run_game::<G>(run, &cfg, generations, obs))
}

fn run_game<G: Game>(run: &Path, cfg: &LoopFile, generations: Option<u32>, obs: &dyn LoopObserver) -> Result<()> {
    let mut state = load_state(run)?;
    // Runs from before the game was recorded are of the default game.
    let recorded = if state.game.is_empty() && RunDir::new(run).state().exists() { GameKind::default().name() } else { state.game.as_str() };
    if !recorded.is_empty() && recorded != G::NAME {
        bail!("{} is a {recorded} run; its config.toml now says game = \"{}\" (a run cannot switch games)", run.display(), G::NAME);
    }
    state.game = G::NAME.to_string();
    state.provenance = Some(pacozero_nn::provenance());
    state.config = Some(serde_json::to_value(cfg)?);
    save_state(run, &state)?;
    let mut generations = generations.unwrap_or(cfg.looping.generations);
    let budget = TimeBudget::of(&cfg.looping);
    let data = RunDir::new(run).data();
    std::fs::create_dir_all(&data)?;
    while state.generation <= generations {
        let g = state.generation;
        if let Some(b) = budget {
            if state.done == Stage::None && b.spent(run)? >= b.seconds {
                obs.note(&format!("done: the time budget ({} min) is spent before generation {g}", cfg.looping.max_minutes));
                return Ok(());
            }
        }
        if state.done == Stage::Eval && state.promoted {
            // Saved as promoted, then stopped before the pointer moved.
            pacozero_nn::set_current_model(run, &model_name(g)).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        let best = best_model(run)?;
        obs.note(&format!("== generation {g}/{generations} (best: {})", if best.is_empty() { "none, rollout self-play" } else { &best }));
        let mut clock = StageClock::start();
        if state.done == Stage::None && cfg.looping.overlap && g > 1 {
            if state.train_upto.is_empty() {
                state.train_upto = newest_chunk(&data)?;
                save_state(run, &state)?;
            }
            overlapped_stage::<G>(run, cfg, &state, obs)?;
            clock.lap(run, g, "overlap")?;
            state.done = Stage::Train;
            state.train_upto.clear();
            save_state(run, &state)?;
        }
        if state.done == Stage::None {
            selfplay_stage::<G>(run, cfg, &state, 0, obs)?;
            clock.lap(run, g, "selfplay")?;
            state.done = Stage::Selfplay;
            save_state(run, &state)?;
        }
        if state.done == Stage::Selfplay {
            train_stage::<G>(run, cfg, g, None, obs)?;
            clock.lap(run, g, "train")?;
            state.done = Stage::Train;
            save_state(run, &state)?;
        }
        if state.done == Stage::Train {
            if let Some(b) = budget {
                if b.ends_with(run, g)? {
                    obs.note(&format!("generation {g} is the last within the time budget ({} min)", cfg.looping.max_minutes));
                    generations = g;
                }
            }
            let promote = eval_stage::<G>(run, cfg, &best, g, generations, obs)?;
            clock.lap(run, g, "eval")?;
            let (table, ratings) = write_ratings(run, &model_name(1))?;
            obs.note(&table);
            // The candidate's Elo against gen-0001 (NaN, left out, when it played no rated match).
            let elo = ratings.as_ref().and_then(|l| l.get(&model_name(g))).map_or(f64::NAN, |r| r.elo);
            append_stage(run, g, "eval", &[("promoted", if promote { 1.0 } else { 0.0 }), ("elo", elo)])?;
            clock.finish(run, g)?;
            let page = crate::report::write_report(run)?;
            obs.note(&format!("report: {}", page.display()));
            state.done = Stage::Eval;
            state.promoted = promote;
            save_state(run, &state)?;
            if promote {
                pacozero_nn::set_current_model(run, &model_name(g)).map_err(|e| anyhow::anyhow!("{e}"))?;
            }
        }
        state.generation += 1;
        state.done = Stage::None;
        state.promoted = false;
        save_state(run, &state)?;
    }
    obs.note(&format!("done: {} generations in {}", generations, run.display()));
    Ok(())
}
