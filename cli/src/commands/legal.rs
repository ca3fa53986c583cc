//! `pacozero legal`: JSON lines in, JSON lines out; a bad line gets an error line and processing goes on.

use super::game_from;
use crate::args::LegalArgs;
use anyhow::{bail, Result};
use pacozero_engine::paco::{action_to_string, FullMoveGen, GameState};
use serde_json::{json, Value};
use std::io::{BufRead, Write};

pub fn run(_a: LegalArgs) -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut gen = FullMoveGen::new();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match answer(&line, &mut gen) {
            Ok(v) => v,
            Err(e) => json!({ "error": format!("line {}: {e:#}", n + 1) }),
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

fn answer(line: &str, gen: &mut FullMoveGen) -> Result<Value> {
    let v: Value = serde_json::from_str(line).map_err(|e| anyhow::anyhow!("not valid JSON: {e}"))?;
    let Some(obj) = v.as_object() else { bail!("expected a JSON object") };
    let g: GameState = if let Some(fen) = obj.get("fen") {
        let Some(fen) = fen.as_str() else { bail!("field \"fen\" must be a string") };
        game_from(Some(fen), None)?
    } else if let Some(start) = obj.get("start_fen") {
        let Some(start) = start.as_str() else { bail!("field \"start_fen\" must be a string") };
        let actions = match obj.get("actions") {
            None => "",
            Some(a) => a.as_str().ok_or_else(|| anyhow::anyhow!("field \"actions\" must be a string"))?,
        };
        game_from(Some(start), Some(actions))?
    } else {
        bail!("expected a \"fen\" or a \"start_fen\" field");
    };
    let pos = g.position();
    let legal: Vec<String> = pos.actions().iter().map(action_to_string).collect();
    let num_full_moves = gen.count(pos);
    Ok(json!({
        "fen": pos.fen(),
        "required": pos.required().name(),
        "legal_actions": legal,
        "num_full_moves": num_full_moves,
        "status": g.status().to_string(),
    }))
}
