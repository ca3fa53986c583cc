//! Evaluation and promotion: the players of a generation's matches, their
//! seeds, the matches, and the promotion rule.

use super::*;

pub(super) fn player_for<G: Game>(run: &Path, cfg: &LoopFile, name: &str, sims: u32, seed: u64) -> Result<Player<G>> {
    player_with_budget(run, cfg, name, Budget::Simulations(sims), seed)
}

/// A run's model as an arena player with a budget (`64` or `50ms`), named
/// after the model. It evaluates leaves as self-play does: with
/// `[selfplay] playout_mix` of a random playout mixed in when that is set.
pub(super) fn player_with_budget<G: Game>(run: &Path, cfg: &LoopFile, name: &str, budget: Budget, seed: u64) -> Result<Player<G>> {
    Player::from_spec(name.to_string(), model_spec(run, cfg, name, budget), seed, 0)
}

/// The spec of a run's model `name` as an evaluation player with `budget`.
pub(super) fn model_spec(run: &Path, cfg: &LoopFile, name: &str, budget: Budget) -> PlayerSpec {
    let mix = PlayoutMix { weight: cfg.selfplay.playout_mix, ..PlayoutMix::NONE };
    PlayerSpec::Mcts {
        kind: EvalKind::Net(pacozero_nn::model_path(run, name), NetOptions { mix, precision: None, quiesce: false, material: 0.0 }),
        budget,
        search: Default::default(),
    }
}

/// Does generation `g` of `last` play its evaluation matches?
pub(super) fn evaluates(l: &LoopConfig, g: u32, last: u32) -> bool {
    g.is_multiple_of(l.eval_every) || g >= last || g == 1
}

/// Plays the evaluation matches of generation `g`; returns whether the candidate is promoted.
pub(super) fn eval_stage<G: Game>(run: &Path, cfg: &LoopFile, best: &str, g: u32, last: u32, obs: &dyn LoopObserver) -> Result<bool> {
    let l = &cfg.looping;
    if !evaluates(l, g, last) {
        obs.note(&format!("evaluation: skipped in generation {g} (eval_every = {}); {} becomes the best", l.eval_every, model_name(g)));
        return Ok(true);
    }
    let first = model_name(1);
    let previous = last_evaluated(run, g)?;
    // Generation 1 is the first network: eval_matches skips an anchor that is the candidate.
    let round = EvalRound { candidate: &model_name(g), anchor: Some(first.as_str()), previous: previous.as_deref(), best, index: g };
    eval_matches::<G>(run, cfg, &round, obs)
}

/// The network evaluated last before generation `g`: the candidate of the
/// newest generation below `g` that played a match (`matches.jsonl`), so
/// whatever `eval_every` was when it played; `None` before the first.
pub(super) fn last_evaluated(run: &Path, g: u32) -> Result<Option<String>> {
    let matches = read_matches(run)?;
    Ok(matches.into_iter().filter(|m| m.generation < g && m.a == model_name(m.generation)).max_by_key(|m| m.generation).map(|m| m.a))
}

/// One candidate's evaluation: which models of the run directory play.
pub struct EvalRound<'a> {
    /// The model under test (a name in the run's `models/`).
    pub candidate: &'a str,
    /// The first network, for the anchor match (`None`: no anchor match).
    pub anchor: Option<&'a str>,
    /// The network evaluated before the candidate, for the match that
    /// chains the rating list (`None`: none; skipped where it is the anchor
    /// or the best, which the candidate plays anyway).
    pub previous: Option<&'a str>,
    /// The current best ("" = none yet: the candidate is promoted).
    pub best: &'a str,
    /// The candidate's generation (or its place in a store's models): the
    /// matches' `generation` and the seed of their openings.
    pub index: u32,
}

/// The seeds of a generation's evaluation: each player's and each match's
/// its own (no two share a random stream), all from every bit of the loop's
/// seed and the generation. (The gating match's openings share its seed.)
#[derive(Clone, Copy, Debug)]
pub(super) struct EvalSeeds {
    pub(super) candidate: u64,
    pub(super) best: u64,
    pub(super) anchor: u64,
    pub(super) baseline: u64,
    pub(super) baseline_match: u64,
    pub(super) gating: u64,
    pub(super) anchor_match: u64,
    pub(super) external: u64,
    pub(super) external_match: u64,
    pub(super) previous: u64,
    pub(super) previous_match: u64,
}

impl EvalSeeds {
    pub(super) fn of(loop_seed: u64, generation: u32) -> EvalSeeds {
        let s = derive_seed(loop_seed ^ 0x5EED, generation as u64);
        EvalSeeds {
            candidate: s,
            best: s ^ 3,
            anchor: s ^ 5,
            baseline: s ^ 7,
            baseline_match: s ^ 11,
            gating: s ^ 13,
            anchor_match: s ^ 17,
            external: s ^ 19,
            external_match: s ^ 23,
            previous: s ^ 29,
            previous_match: s ^ 31,
        }
    }

    #[cfg(test)]
    pub(super) fn all(&self) -> [u64; 11] {
        [
            self.candidate,
            self.best,
            self.anchor,
            self.baseline,
            self.baseline_match,
            self.gating,
            self.anchor_match,
            self.external,
            self.external_match,
            self.previous,
            self.previous_match,
        ]
    }
}

/// Plays a candidate's evaluation matches as `[loop]` sets them (baseline,
/// anchor, the network evaluated before, external, gating against the
/// best), records each in `matches.jsonl`, and returns whether the
/// promotion rule promotes it.
pub fn eval_matches<G: Game>(run: &Path, cfg: &LoopFile, round: &EvalRound, obs: &dyn LoopObserver) -> Result<bool> {
    let l = &cfg.looping;
    let (g, best) = (round.index, round.best);
    let seed = EvalSeeds::of(l.seed, g);
    let cand = player_for::<G>(run, cfg, round.candidate, l.eval_simulations, seed.candidate)?;
    // `which` names the match in the generation: its games' chunk in
    // match-games/, which a repeated evaluation stage rewrites.
    let record = |a: &Player<G>, b: &Player<G>, m: &MatchResult, sprt: Option<&str>, which: &str| -> Result<()> {
        append_match(run, &match_line(g, &a.name, &b.name, m, sprt))?;
        // Every evaluation game, kept in the games table with the players' specs.
        pacozero_arena::records::record_games_as::<G>(&RunDir::new(run).match_games(), Some(&format!("{}-{which}", round.candidate)), &m.played)?;
        Ok(())
    };
    let limits = pacozero_search::GameLimits { max_decisions: l.max_decisions, adjudicate_material: l.adjudicate_material };
    if l.baseline_games > 0 {
        // At equal time when configured: both sides get the same milliseconds per decision.
        let (budget, base_name) = match l.baseline_movetime_ms {
            0 => (Budget::Simulations(l.baseline_simulations), format!("rollout-{}", l.baseline_simulations)),
            ms => (Budget::Millis(ms.into()), format!("rollout-{ms}ms")),
        };
        let timed_cand;
        let cand_here = if l.baseline_movetime_ms > 0 {
            timed_cand = player_with_budget(run, cfg, round.candidate, Budget::Millis(l.baseline_movetime_ms.into()), seed.candidate)?;
            &timed_cand
        } else {
            &cand
        };
        let base = Player::<G>::from_spec(base_name, PlayerSpec::Mcts { kind: EvalKind::Rollout, budget, search: Default::default() }, seed.baseline, 0)?;
        let m = run_match(cand_here, &base, l.baseline_games / 2, l.openings, limits, seed.baseline_match, &|d, t| obs.match_progress(d, t))?;
        let ((ta, sa), (tb, sb)) = (m.per_decision(0), m.per_decision(1));
        obs.note(&format!(
            "{} vs {}: +{} ={} -{} (per decision: {ta:.1} ms, {sa:.0} sims vs {tb:.1} ms, {sb:.0} sims; end reasons {})",
            cand.name,
            base.name,
            m.wdl.wins,
            m.wdl.draws,
            m.wdl.losses,
            serde_json::to_string(&m.end_reasons)?
        ));
        record(cand_here, &base, &m, None, "baseline")?;
    }
    if let Some(anchor) = round.anchor.filter(|a| l.anchor_games > 0 && *a != round.candidate) {
        let first = player_for(run, cfg, anchor, l.eval_simulations, seed.anchor)?;
        let m = run_match(&cand, &first, l.anchor_games / 2, l.openings, limits, seed.anchor_match, &|d, t| obs.match_progress(d, t))?;
        obs.note(&format!("{} vs {} (anchor): +{} ={} -{}", cand.name, first.name, m.wdl.wins, m.wdl.draws, m.wdl.losses));
        record(&cand, &first, &m, None, "anchor")?;
    }
    // The network evaluated before, unless the anchor or the gating match plays it.
    let previous_games = l.previous_games.unwrap_or(l.anchor_games);
    let anchor_plays = |p: &str| l.anchor_games > 0 && round.anchor == Some(p);
    if let Some(previous) = round.previous.filter(|p| previous_games > 0 && *p != round.candidate && *p != best && !anchor_plays(p)) {
        let before = player_for(run, cfg, previous, l.eval_simulations, seed.previous)?;
        let m = run_match(&cand, &before, previous_games / 2, l.openings, limits, seed.previous_match, &|d, t| obs.match_progress(d, t))?;
        obs.note(&format!("{} vs {} (previous): +{} ={} -{}", cand.name, before.name, m.wdl.wins, m.wdl.draws, m.wdl.losses));
        record(&cand, &before, &m, None, "previous")?;
    }
    if let Some(engine) = &l.external {
        // The external engine: one process per game, each move checked; a forfeit loses the game.
        let ext = Player::<G>::from_spec(engine.text().to_string(), PlayerSpec::Uci(engine.value().clone()), seed.external, 0)?;
        let m = run_match(&cand, &ext, l.external_games / 2, l.openings, limits, seed.external_match, &|d, t| obs.match_progress(d, t))?;
        obs.note(&format!(
            "{} vs {} (external): +{} ={} -{} (end reasons {})",
            cand.name,
            ext.name,
            m.wdl.wins,
            m.wdl.draws,
            m.wdl.losses,
            serde_json::to_string(&m.end_reasons)?
        ));
        for f in &m.forfeits {
            obs.note(&format!("forfeit: {f}"));
        }
        record(&cand, &ext, &m, None, "external")?;
    }
    if best.is_empty() {
        return Ok(true);
    }
    let best = player_for(run, cfg, best, l.eval_simulations, seed.best)?;
    let pairs = l.gating_games / 2;
    let start = |i| pacozero_arena::opening(l.openings, seed.gating, i);
    let progress = |d, t| obs.match_progress(d, t);
    let (m, sprt) = if l.promotion == Promotion::Sprt {
        // Sequential: pairs in rounds of 8 until the test decides, at most
        // `gating_games`; the games are the first ones of the full match.
        let test = Sprt { elo0: l.sprt_elo0, elo1: l.sprt_elo1, alpha: l.sprt_alpha, beta: l.sprt_beta };
        let (m, decision) = run_match_sprt(&cand, &best, pairs, &start, limits, seed.gating, &progress, 8, &test)?;
        (m, Some(decision))
    } else {
        (run_match_from(&cand, &best, pairs, &start, limits, seed.gating, &progress)?, None)
    };
    let sprt_note = sprt.map_or_else(String::new, |d| format!(", SPRT {} after {} games", d.name(), m.games));
    obs.note(&format!("{} vs {}: +{} ={} -{}{sprt_note}", cand.name, best.name, m.wdl.wins, m.wdl.draws, m.wdl.losses));
    record(&cand, &best, &m, sprt.map(SprtDecision::name), "gating")?;
    Ok(promotes(l, m.wdl.score(), sprt))
}

/// The line of `matches.jsonl` of match `m` of generation `g` between `a` and `b`.
pub(super) fn match_line(g: u32, a: &str, b: &str, m: &MatchResult, sprt: Option<&str>) -> MatchLine {
    MatchLine {
        generation: g,
        a: a.to_string(),
        b: b.to_string(),
        wins: m.wdl.wins,
        draws: m.wdl.draws,
        losses: m.wdl.losses,
        pentanomial: m.pentanomial.0,
        avg_decisions: m.decisions as f64 / m.games.max(1) as f64,
        seconds_per_decision: Some([m.per_decision(0).0 / 1000.0, m.per_decision(1).0 / 1000.0]),
        simulations_per_decision: Some([m.per_decision(0).1, m.per_decision(1).1]),
        end_reasons: m.end_reasons.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        sprt: sprt.map(str::to_string),
    }
}

/// Whether the rule of `l` promotes a candidate that scored `score` in the
/// gating match, whose sequential test (`promotion = "sprt"`) ended `sprt`.
pub(super) fn promotes(l: &LoopConfig, score: f64, sprt: Option<SprtDecision>) -> bool {
    match l.promotion {
        Promotion::Always => true,
        Promotion::Score => score >= l.promotion_score,
        // Undecided at the cap is not a promotion.
        Promotion::Sprt => sprt == Some(SprtDecision::AcceptH1),
    }
}
