//! The stages of a generation: self-play, training, and both at once.

use super::*;

/// The stem of the newest complete chunk of `data` (empty: none).
pub(super) fn newest_chunk(data: &Path) -> Result<String> {
    let chunks = pacozero_data::list_chunks(data).with_context(|| format!("listing {}", data.display()))?;
    Ok(chunks.last().map(|c| c.stem.clone()).unwrap_or_default())
}

/// Generation g's self-play beside gen-g's training on the chunks up to
/// `state.train_upto` (`loop.overlap`). Each stage's own wall time goes to
/// `generations.jsonl` as stage `overlap`; the loop's clock records the
/// time of the two together (`time.overlap_seconds`).
pub(super) fn overlapped_stage<G: Game>(run: &Path, cfg: &LoopFile, state: &LoopState, obs: &dyn LoopObserver) -> Result<()> {
    let g = state.generation;
    obs.note(&format!("self-play and training at once: {} trains on the chunks up to {}", model_name(g), state.train_upto));
    let timed = |f: &dyn Fn() -> Result<()>| -> Result<f64> {
        let t = Instant::now();
        f()?;
        Ok(t.elapsed().as_secs_f64())
    };
    let (played, trained) = std::thread::scope(|s| {
        let selfplay = s.spawn(|| timed(&|| selfplay_stage::<G>(run, cfg, state, cfg.selfplay.threads.max(1), obs)));
        let trained = timed(&|| train_stage::<G>(run, cfg, g, Some(&state.train_upto), obs));
        let played = selfplay.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (played, trained)
    });
    append_stage(run, g, "overlap", &[("selfplay_seconds", played?), ("train_seconds", trained?)])
}

/// The index in `G::ENCODINGS` of the loop's `net.encoding`.
pub(super) fn net_encoding<G: Game>(cfg: &LoopFile) -> Result<usize> {
    encoding_index::<G>(&cfg.net.encoding).map_err(|e| anyhow::anyhow!("net.encoding: {e}"))
}

/// Self-play of the generation: with rollouts before the first network,
/// else with the best network, on `net_threads` threads of its own (0: the
/// global pool).
pub(super) fn selfplay_stage<G: Game>(run: &Path, cfg: &LoopFile, state: &LoopState, net_threads: usize, obs: &dyn LoopObserver) -> Result<()> {
    check_data_dir_as::<G>(&RunDir::new(run).data(), net_encoding::<G>(cfg)?)?;
    let best = best_model(run)?;
    let player = if best.is_empty() {
        SelfplayPlayer::Baseline("rollout".into())
    } else {
        SelfplayPlayer::Network { model: pacozero_nn::model_path(run, &best), threads: net_threads }
    };
    let seed = derive_seed(cfg.looping.seed, state.generation as u64);
    let announce = |name: &str| obs.note(&format!("self-play with {name}"));
    let summary = selfplay_round::<G>(&cfg.selfplay, seed, &player, &RunDir::new(run).data(), cfg.looping.games_per_generation, obs.progress(), &announce)?;
    obs.note(&format!("self-play: {summary}"));
    append_stage(run, state.generation, "selfplay", &selfplay_figures(&summary))?;
    append_stage(run, state.generation, "ends", &end_figures(&summary))
}

/// The figures of a self-play stage in `generations.jsonl`. The false
/// resignation rate (of the no-resign games where a side would have
/// resigned, the share it did not lose) is left out without such a game.
pub(super) fn selfplay_figures(summary: &Summary) -> [(&'static str, f64); 10] {
    let games = summary.games.max(1) as f64;
    let false_resignations = if summary.would_resign_games > 0 { summary.false_resignation_rate() } else { f64::NAN };
    [
        ("games", summary.games as f64),
        ("positions", summary.positions as f64),
        ("draw_rate", summary.draws as f64 / games),
        ("white_win_rate", summary.white_wins as f64 / games),
        ("avg_length", summary.avg_length()),
        ("sims_per_sec", summary.simulations_per_sec()),
        ("avg_batch", summary.requests as f64 / summary.batches.max(1) as f64),
        ("seconds", summary.wall_secs),
        ("would_resign_games", summary.would_resign_games as f64),
        ("false_resignation_rate", false_resignations),
    ]
}

/// How a self-play stage's games ended (stage `ends` of
/// `generations.jsonl`): each end reason's share of the games (the game's
/// `end_reason`, `resign`, `max_length` for a cut, `material`, `stuck`).
pub(super) fn end_figures(summary: &Summary) -> Vec<(&str, f64)> {
    let games = summary.games.max(1) as f64;
    summary.reasons.iter().map(|(reason, n)| (reason.as_str(), *n as f64 / games)).collect()
}

/// Training up to generation `g`'s steps, on the chunks up to `upto` (all
/// when `None`; an overlapped generation's training shows no progress bar,
/// self-play's has the terminal).
pub(super) fn train_stage<G: Game>(run: &Path, cfg: &LoopFile, g: u32, upto: Option<&str>, obs: &dyn LoopObserver) -> Result<()> {
    let mut train = cfg.train.clone();
    train.progress = train_progress(train.progress, upto, obs.progress());
    // loop.lr_drop_at: the share of the time budget spent decides the rate.
    let budget = TimeBudget::of(&cfg.looping);
    let spent = match budget {
        Some(b) => b.spent(run)? / b.seconds,
        None => 0.0,
    };
    let lr_factor = lr_factor_after(&cfg.looping, spent);
    if lr_factor != 1.0 {
        obs.note(&format!("training at {lr_factor} x lr: {:.0}% of the time budget is spent (loop.lr_drop_at = {})", spent * 100.0, cfg.looping.lr_drop_at));
        train.lr *= lr_factor;
    }
    let name = model_name(g);
    let stage = TrainStage {
        net: cfg.net.to_config(&game_spec_as::<G>(net_encoding::<G>(cfg)?))?,
        train,
        steps: Steps::UpTo(g as u64 * cfg.looping.train_steps_per_generation),
        data_upto: upto.map(String::from),
        fresh_window_from: cfg.looping.fresh_window.then_some((g as u64 - 1) * cfg.looping.train_steps_per_generation),
        export: Some(Export { name: &name, make_current: false }),
    };
    let r = pacozero_train::train_stage(run, stage)?;
    // Before training on them: the network's losses on this generation's new games.
    if let Some(f) = &r.fresh {
        obs.note(&f.to_string());
        append_stage(
            run,
            g,
            "fresh",
            &[
                ("rows", f.rows as f64),
                ("policy_loss", f.policy_loss),
                ("value_loss", f.value_loss),
                ("policy_top1", f.policy_top1),
                // Calibration: the loss of the constant prediction of these
                // rows' result shares, the draw share and its prediction,
                // and the loss split by result (NaN, left out, where none).
                ("base_rate_loss", f.base_rate_loss),
                ("draw_share", f.result_share[1]),
                ("pred_draw", f.mean_wdl[1]),
                ("value_loss_win", f.value_loss_by_result[0]),
                ("value_loss_draw", f.value_loss_by_result[1]),
                ("value_loss_loss", f.value_loss_by_result[2]),
            ],
        )?;
    }
    if r.summary.steps > 0 {
        let summary = &r.summary;
        obs.note(&format!(
            "training: {} steps, loss {:.4} -> {:.4}, {:.0} samples/s",
            summary.steps, summary.first.loss, summary.last.loss, summary.samples_per_sec
        ));
        let last = &summary.last;
        append_stage(
            run,
            g,
            "train",
            &[
                ("steps", r.step as f64),
                ("loss", last.loss),
                ("policy_loss", last.policy_loss),
                ("value_loss", last.value_loss),
                ("policy_top1", last.policy_top1),
                ("samples_per_sec", summary.samples_per_sec),
                ("lr_factor", lr_factor),
                // NaN (left out) without a reply head.
                ("reply_policy_loss", last.reply_policy_loss),
            ],
        )?;
    }
    Ok(())
}

/// Whether a training stage draws its progress bar: when the `[train]`
/// configuration asks for one, in a generation that is not overlapped
/// (`upto` is `None`; there self-play's bar has the terminal), and with an
/// observer that shows progress.
pub(super) fn train_progress(configured: bool, upto: Option<&str>, observer: bool) -> bool {
    configured && upto.is_none() && observer
}
