//! The learning curve against perfect play (`pacozero solved --run`): a
//! run's networks, picked at even steps of its wall time (and the first), judged on a suite
//! of solved positions (`pacozero_arena::solved`), beside a peer's
//! checkpoints judged on the same suite by the peer's own search
//! (`scripts/peer-openspiel.py judge`, `docs/connect4.md`).
//!
//! `solved.jsonl` (the run's networks) and `solved-peer.jsonl` (the peer's,
//! copied in by `pacozero solved --run <run> --peer <file>`) hold one
//! [`CurvePoint`] a line:
//!
//! | field | meaning |
//! |---|---|
//! | `network` | the network: `gen-0012`; the peer's `checkpoint-7` |
//! | `seconds` | the wall time at which it existed: for the run, the loop's stage times (`generations.jsonl`, stage `time`) summed through its generation; for the peer, its checkpoint's age since training started |
//! | `optimal` | by visits per decision (`"0"`: the policy's most likely move), the share of the suite's positions where the chosen move is optimal, in percent |
//! | `value` | the share of positions where the value's most likely result is the exact one, in percent |
//! | `implementation` | the peer's name (its lines only) |
//!
//! The peer's file comes from another program and is untrusted: its size
//! is checked before it is read, and every line is checked (the fields
//! above and no other, finite figures within their range, a short name)
//! before anything is copied; a bad line is named with what is wrong.

use crate::files::read_generations;
use anyhow::{bail, Context, Result};
use pacozero_arena::solved::{judge_suite, parse_solved, JudgeLine, ValueLine};
use pacozero_data::jsonl::{append_line, read_jsonl};
use pacozero_data::run_dir::model_name;
use pacozero_data::RunDir;
use pacozero_engine::Game;
use pacozero_search::Evaluator;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One network on the curve (see the module docs for the fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurvePoint {
    pub network: String,
    pub seconds: f64,
    pub optimal: BTreeMap<u32, f64>,
    pub value: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
}

/// A network judged on a suite.
pub struct Judged {
    /// The network as the evaluator names it.
    pub network: String,
    /// The suite: its file, or "the bundled suite".
    pub suite: String,
    pub lines: Vec<JudgeLine>,
    pub value: ValueLine,
}

/// Judges the model file `model` on `suite` (its text and name; `None`:
/// the bundled suite of the network's game) at each of `visits`.
pub fn judge_model(model: &Path, suite: Option<(&str, &str)>, visits: &[u32]) -> Result<Judged> {
    let evaluator = pacozero_nn::load_evaluator(model, 0)?;
    let game = pacozero_nn::network_game(&evaluator, &model.display().to_string())?;
    fn judge<G: Game>(evaluator: &pacozero_nn::NetworkEvaluator, suite: Option<(&str, &str)>, model: &Path, visits: &[u32]) -> Result<Judged> {
        let (text, name) = match suite {
            Some((text, name)) => (text, name.to_string()),
            None => match G::SOLVED_SUITE {
                Some(text) => (text, "the bundled suite".to_string()),
                None => bail!("{} is a {} network, and {} has no bundled suite of solved positions: pass --suite", model.display(), G::NAME, G::NAME),
            },
        };
        let suite = parse_solved::<G>(text, &name)?;
        let (lines, value) = judge_suite::<G, _>(evaluator, &suite, visits)?;
        Ok(Judged { network: Evaluator::<G>::name(evaluator), suite: name, lines, value })
    }
    pacozero_engine::with_game!(game, G => judge::<G>(&evaluator, suite, model, visits))
}

/// The run's networks with the wall time at which each existed: the stage
/// times of `generations.jsonl` summed through its generation (a network is
/// trained in its generation). Only networks whose file is there.
pub fn network_times(run: &Path) -> Result<Vec<(String, f64)>> {
    let dir = RunDir::new(run);
    let mut spent = 0.0;
    let mut out = Vec::new();
    for (g, figures) in read_generations(run)? {
        spent += figures.iter().filter(|(k, _)| k.starts_with("time.")).map(|(_, v)| v).sum::<f64>();
        let name = model_name(g);
        if dir.model(&name).is_file() {
            out.push((name, spent));
        }
    }
    Ok(out)
}

/// The networks to judge for steps of `every` seconds: the first network
/// (where the curve starts), at each step the newest network that existed
/// by then, and the last network; each once.
pub fn pick(times: &[(String, f64)], every: f64) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = times.first().into_iter().cloned().collect();
    let Some(last) = times.last() else { return out };
    let mut step = every;
    loop {
        if let Some(t) = times.iter().rev().find(|(_, s)| *s <= step) {
            if out.last().is_none_or(|(n, _)| *n != t.0) {
                out.push(t.clone());
            }
        }
        if step >= last.1 {
            break;
        }
        step += every;
    }
    if out.last().is_none_or(|(n, _)| *n != last.0) {
        out.push(last.clone());
    }
    out
}

/// Judges the networks [`pick`] gives that `solved.jsonl` does not hold
/// yet, appending a line each (so an interrupted curve resumes), and
/// returns the whole curve. `progress` hears each point as it is added.
pub fn judge_curve(
    run: &Path,
    every_seconds: f64,
    visits: &[u32],
    suite: Option<(&str, &str)>,
    mut progress: impl FnMut(&CurvePoint, usize, usize),
) -> Result<Vec<CurvePoint>> {
    if every_seconds.is_nan() || every_seconds <= 0.0 {
        bail!("the curve's step must be above 0 seconds (got {every_seconds})");
    }
    let dir = RunDir::new(run);
    let path = dir.solved_curve();
    let mut curve = read_own(&path)?;
    let picked = pick(&network_times(run)?, every_seconds);
    if picked.is_empty() {
        bail!("{}: no network with a recorded generation time to judge", run.display());
    }
    let todo: Vec<&(String, f64)> =
        picked.iter().filter(|(n, _)| !curve.iter().any(|p| p.network == *n && visits.iter().all(|v| p.optimal.contains_key(v)))).collect();
    for (i, (name, seconds)) in todo.iter().enumerate() {
        let judged = judge_model(&dir.model(name), suite, visits)?;
        let point = CurvePoint {
            network: name.clone(),
            seconds: *seconds,
            optimal: judged.lines.iter().map(|l| (l.sims, l.optimal_rate())).collect(),
            value: judged.value.rate(),
            implementation: None,
        };
        append_line(&path, &serde_json::to_string(&point)?)?;
        progress(&point, i + 1, todo.len());
        curve.retain(|p| p.network != point.network);
        curve.push(point);
    }
    curve.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    Ok(curve)
}

/// The largest peer file read (a curve of some thousand points).
const MAX_PEER_BYTES: u64 = 4 << 20;

/// Reads a peer's curve from `file` (untrusted: see the module docs).
pub fn read_peer(file: &Path) -> Result<Vec<CurvePoint>> {
    let size = std::fs::metadata(file).with_context(|| format!("reading {}", file.display()))?.len();
    if size > MAX_PEER_BYTES {
        bail!("{}: {size} bytes, more than a curve's {MAX_PEER_BYTES}", file.display());
    }
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = || format!("{}, line {}", file.display(), i + 1);
        let p: CurvePoint = serde_json::from_str(line).with_context(at)?;
        check_point(&p).map_err(|why| anyhow::anyhow!("{}: {why}", at()))?;
        if p.implementation.is_none() {
            bail!("{}: no `implementation`: a peer's line names the program that made it", at());
        }
        out.push(p);
    }
    if out.is_empty() {
        bail!("{}: no points", file.display());
    }
    out.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    Ok(out)
}

/// What is wrong with a point, if anything.
fn check_point(p: &CurvePoint) -> std::result::Result<(), String> {
    let short = |s: &str| !s.is_empty() && s.len() <= 100 && !s.chars().any(char::is_control);
    if !short(&p.network) {
        return Err(format!("`network` must be 1 to 100 printable characters (got {} bytes)", p.network.len()));
    }
    if let Some(name) = &p.implementation {
        if !short(name) {
            return Err(format!("`implementation` must be 1 to 100 printable characters (got {} bytes)", name.len()));
        }
    }
    if !(p.seconds.is_finite() && p.seconds >= 0.0) {
        return Err(format!("`seconds` must be a finite time of 0 or more (got {})", p.seconds));
    }
    if p.optimal.is_empty() || p.optimal.len() > 16 {
        return Err(format!("`optimal` must have 1 to 16 visit budgets (got {})", p.optimal.len()));
    }
    for (v, share) in &p.optimal {
        if !(0.0..=100.0).contains(share) {
            return Err(format!("`optimal` at {v} visits must be a percentage (got {share})"));
        }
    }
    if !(0.0..=100.0).contains(&p.value) {
        return Err(format!("`value` must be a percentage (got {})", p.value));
    }
    Ok(())
}

/// Copies a peer's curve into the run (`solved-peer.jsonl`), checked.
pub fn import_peer(run: &Path, file: &Path) -> Result<Vec<CurvePoint>> {
    let points = read_peer(file)?;
    let text: String = points.iter().map(|p| serde_json::to_string(p).map(|l| l + "\n")).collect::<Result<_, _>>()?;
    pacozero_data::write_atomic(&RunDir::new(run).solved_peer(), &[text.as_bytes()])?;
    Ok(points)
}

/// The first time at which `curve` reaches `share` percent at `visits`.
pub fn time_to_reach(curve: &[CurvePoint], visits: u32, share: f64) -> Option<f64> {
    curve.iter().find(|p| p.optimal.get(&visits).is_some_and(|&s| s >= share)).map(|p| p.seconds)
}

/// The run's curve in time order, a network judged again by its last line.
fn read_own(path: &Path) -> Result<Vec<CurvePoint>> {
    let mut by_network: BTreeMap<String, CurvePoint> = BTreeMap::new();
    for p in read_jsonl::<CurvePoint>(path)? {
        by_network.insert(p.network.clone(), p);
    }
    let mut own: Vec<CurvePoint> = by_network.into_values().collect();
    own.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    Ok(own)
}

/// The peer's final share and when each side first reached it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToPeerFinal {
    /// The largest visit budget of the peer's last point that the run's curve has.
    pub visits: u32,
    pub share: f64,
    pub own_seconds: Option<f64>,
    pub peer_seconds: Option<f64>,
}

/// The wall time each side needs to reach the peer's final share, at the
/// largest budget both curves were judged at (`None`: no such budget).
pub fn to_peer_final(own: &[CurvePoint], peer: &[CurvePoint]) -> Option<ToPeerFinal> {
    let last = peer.last()?;
    let visits = *last.optimal.keys().rev().find(|v| own.iter().any(|p| p.optimal.contains_key(v)))?;
    let share = last.optimal[&visits];
    Some(ToPeerFinal { visits, share, own_seconds: time_to_reach(own, visits, share), peer_seconds: time_to_reach(peer, visits, share) })
}

/// The run's curve and the peer's, as the report reads them (missing = empty).
pub fn read_curves(run: &Path) -> Result<(Vec<CurvePoint>, Vec<CurvePoint>)> {
    let dir = RunDir::new(run);
    let own = read_own(&dir.solved_curve())?;
    let peer = if dir.solved_peer().exists() { read_peer(&dir.solved_peer())? } else { Vec::new() };
    Ok((own, peer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::append_stage;
    use crate::test_support::{tiny_model, TempDir};
    use pacozero_engine::connect4;

    fn times(pairs: &[(u32, f64)]) -> Vec<(String, f64)> {
        pairs.iter().map(|&(g, s)| (model_name(g), s)).collect()
    }

    #[test]
    fn the_curve_takes_the_newest_network_at_each_step_and_the_last() {
        let t = times(&[(1, 40.0), (2, 70.0), (3, 130.0), (4, 290.0), (5, 305.0)]);
        let names = |v: Vec<(String, f64)>| v.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        // The first; steps of 100 s: 100 -> gen 2, 200 -> gen 3, 300 -> gen 4, 400 -> gen 5 (also the last).
        assert_eq!(names(pick(&t, 100.0)), ["gen-0001", "gen-0002", "gen-0003", "gen-0004", "gen-0005"]);
        // A step below the first network's time adds nothing before it.
        assert_eq!(names(pick(&t, 30.0))[..3], ["gen-0001", "gen-0002", "gen-0003"]);
        assert_eq!(names(pick(&t, 1000.0)), ["gen-0001", "gen-0005"]);
        assert_eq!(names(pick(&t[..1], 60.0)), ["gen-0001"]);
        assert!(pick(&[], 60.0).is_empty());
    }

    fn point(network: &str, seconds: f64, optimal: &[(u32, f64)]) -> CurvePoint {
        CurvePoint { network: network.into(), seconds, optimal: optimal.iter().copied().collect(), value: 50.0, implementation: Some("peer".into()) }
    }

    #[test]
    fn time_to_reach_is_the_first_point_at_or_above_the_share() {
        let curve = [point("a", 60.0, &[(800, 40.0)]), point("b", 120.0, &[(800, 75.0)]), point("c", 180.0, &[(800, 70.0)])];
        assert_eq!(time_to_reach(&curve, 800, 70.0), Some(120.0));
        assert_eq!(time_to_reach(&curve, 800, 75.0), Some(120.0));
        assert_eq!(time_to_reach(&curve, 800, 80.0), None);
        assert_eq!(time_to_reach(&curve, 64, 10.0), None);
    }

    #[test]
    fn a_peer_file_is_checked_line_by_line_before_it_is_copied() {
        let dir = TempDir::new("peer-curve");
        let file = dir.join("judged.jsonl");
        let good = serde_json::to_string(&point("checkpoint-3", 200.0, &[(0, 50.0), (800, 80.0)])).unwrap();
        let bad_lines = [
            (r#"{"network":"c","seconds":1,"optimal":{"800":101},"value":5,"implementation":"p"}"#, "percentage"),
            (r#"{"network":"c","seconds":-1,"optimal":{"800":10},"value":5,"implementation":"p"}"#, "seconds"),
            (r#"{"network":"","seconds":1,"optimal":{"800":10},"value":5,"implementation":"p"}"#, "network"),
            (r#"{"network":"c","seconds":1,"optimal":{},"value":5,"implementation":"p"}"#, "optimal"),
            (r#"{"network":"c","seconds":1,"optimal":{"800":10},"value":5}"#, "implementation"),
            (r#"{"network":"c","seconds":1,"optimal":{"800":10},"value":5,"implementation":"p","path":"/etc"}"#, "unknown field"),
            (r#"{"network":"c","seconds":1,"optimal":{"x":10},"value":5,"implementation":"p"}"#, "line 2"),
        ];
        let run = dir.join("run");
        std::fs::create_dir(&run).unwrap();
        for (bad, says) in bad_lines {
            std::fs::write(&file, format!("{good}\n{bad}\n")).unwrap();
            let e = format!("{:#}", import_peer(&run, &file).unwrap_err());
            assert!(e.contains("line 2") && e.contains(says), "{bad}: {e}");
            assert!(!RunDir::new(&run).solved_peer().exists(), "nothing is copied from a bad file");
        }
        std::fs::write(&file, vec![b' '; MAX_PEER_BYTES as usize + 1]).unwrap();
        assert!(import_peer(&run, &file).unwrap_err().to_string().contains("bytes"));
        std::fs::write(&file, format!("{good}\n")).unwrap();
        assert_eq!(import_peer(&run, &file).unwrap().len(), 1);
        assert_eq!(read_curves(&run).unwrap().1, vec![point("checkpoint-3", 200.0, &[(0, 50.0), (800, 80.0)])]);
    }

    #[test]
    fn a_runs_networks_are_judged_once_each_at_their_times_and_the_curve_resumes() {
        let run = TempDir::new("solved-curve");
        for (g, secs) in [(1, 50.0), (2, 30.0), (3, 40.0)] {
            append_stage(run.path(), g, "time", &[("selfplay_seconds", secs), ("train_seconds", 1.0)]).unwrap();
            if g != 2 {
                tiny_model::<connect4::GameState>(run.path(), &model_name(g));
            }
        }
        // gen-0002's file is gone: the curve has the networks that exist.
        assert_eq!(network_times(run.path()).unwrap(), times(&[(1, 51.0), (3, 123.0)]));
        let mut heard = Vec::new();
        let curve = judge_curve(run.path(), 60.0, &[0], None, |p, i, n| heard.push((p.network.clone(), i, n))).unwrap();
        assert_eq!(heard, [("gen-0001".to_string(), 1, 2), ("gen-0003".to_string(), 2, 2)]);
        assert_eq!(curve.iter().map(|p| (p.network.as_str(), p.seconds)).collect::<Vec<_>>(), [("gen-0001", 51.0), ("gen-0003", 123.0)]);
        assert!(curve.iter().all(|p| p.optimal.keys().eq([&0]) && (0.0..=100.0).contains(&p.optimal[&0]) && p.implementation.is_none()));
        // Judged points are kept; a new visit budget judges them again.
        heard.clear();
        assert_eq!(judge_curve(run.path(), 60.0, &[0], None, |p, _, _| heard.push((p.network.clone(), 0, 0))).unwrap(), curve);
        assert!(heard.is_empty());
        assert_eq!(judge_curve(run.path(), 60.0, &[0, 4], None, |_, _, _| ()).unwrap().iter().filter(|p| p.optimal.len() == 2).count(), 2);
        assert_eq!(read_curves(run.path()).unwrap().0.len(), 2);
        assert!(judge_curve(run.path(), 0.0, &[0], None, |_, _, _| ()).is_err());
    }
}
