//! `pacozero solved`: a network judged against perfect play on a suite of
//! solved positions (`pacozero_arena::solved`).

use crate::args::SolvedArgs;
use crate::atomic::write_atomic;
use anyhow::{Context, Result};
use pacozero_arena::solved::{judge_suite, parse_solved};
use pacozero_engine::{Game, GameVisitor};
use pacozero_search::Evaluator;

pub fn run(a: SolvedArgs) -> Result<()> {
    let evaluator = pacozero_nn::load_evaluator(&a.model, 0)?;
    let game = pacozero_nn::network_game(&evaluator, &a.model.display().to_string())?;
    let suite_text = match &a.suite {
        Some(p) => Some(std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?),
        None => None,
    };
    struct Judge<'a> {
        evaluator: &'a pacozero_nn::NetworkEvaluator,
        /// The suite passed, and its name; `None`: the game's bundled one.
        suite: Option<(&'a str, String)>,
        model: String,
        visits: &'a [u32],
    }
    impl GameVisitor for Judge<'_> {
        type Output = Result<serde_json::Value>;
        fn visit<G: Game>(self) -> Result<serde_json::Value> {
            let (text, name) = match self.suite {
                Some(s) => s,
                None => match G::SOLVED_SUITE {
                    Some(text) => (text, "the bundled suite".to_string()),
                    None => anyhow::bail!("{} is a {} network, and {} has no bundled suite of solved positions: pass --suite", self.model, G::NAME, G::NAME),
                },
            };
            let suite = parse_solved::<G>(text, &name)?;
            let (lines, value) = judge_suite::<G, _>(self.evaluator, &suite, self.visits)?;
            println!("{} on {} solved positions of {name}:", Evaluator::<G>::name(self.evaluator), suite.len());
            let mut json_lines = Vec::new();
            for l in &lines {
                let how = if l.sims == 0 { "policy alone".to_string() } else { format!("{} visits", l.sims) };
                let phases: Vec<String> = l.by_phase.iter().map(|(p, [n, o, _])| format!("{p} {o}/{n}")).collect();
                println!(
                    "  {how:>12}: optimal {}/{} ({:.1}%), value kept {}/{} ({:.1}%); optimal by phase: {}",
                    l.optimal,
                    l.total,
                    l.optimal_rate(),
                    l.correct,
                    l.total,
                    l.correct_rate(),
                    phases.join(", ")
                );
                json_lines.push(serde_json::json!({
                    "visits": l.sims, "positions": l.total, "optimal": l.optimal, "correct": l.correct,
                    "optimal_rate": l.optimal_rate(), "correct_rate": l.correct_rate(),
                    "by_phase": l.by_phase.iter().map(|(p, [n, o, c])| (p.clone(), serde_json::json!({"positions": n, "optimal": o, "correct": c}))).collect::<serde_json::Map<_, _>>(),
                }));
            }
            println!(
                "  value: the most likely result is the exact one at {}/{} ({:.1}%); mean probability of the exact result {:.3}",
                value.right,
                value.total,
                value.rate(),
                value.mean_probability
            );
            Ok(serde_json::json!({
                "network": Evaluator::<G>::name(self.evaluator), "suite": name, "lines": json_lines,
                "value": {"positions": value.total, "right": value.right, "rate": value.rate(), "mean_probability": value.mean_probability},
            }))
        }
    }
    let suite = suite_text.as_deref().zip(a.suite.as_ref().map(|p| p.display().to_string()));
    let figures = game.visit(Judge { evaluator: &evaluator, suite, model: a.model.display().to_string(), visits: &a.visits })?;
    if let Some(path) = &a.json {
        write_atomic(path, format!("{}\n", serde_json::to_string_pretty(&figures)?).as_bytes())?;
    }
    Ok(())
}
