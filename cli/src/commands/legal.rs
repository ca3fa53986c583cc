//! `pacozero legal`: JSON lines in, JSON lines out; a bad line gets an error line and processing goes on.

use super::game_from;
use crate::args::LegalArgs;
use anyhow::{bail, Context, Result};
use pacozero_engine::paco::{action_to_string, FullMoveGen, GameState};
use pacozero_engine::shako;
use pacozero_engine::GameKind;
use serde_json::{json, Value};
use std::io::{BufRead, Write};

pub fn run(a: LegalArgs) -> Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut gen = FullMoveGen::new();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let result = match a.game {
            GameKind::Paco => answer(&line, &mut gen),
            GameKind::Shako => answer_shako(&line),
        };
        let answer = match result {
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

/// Shako: `{"fen": F}`, optionally with `"moves": "e3e5 e8e6 ..."` (UCI, played
/// from F), answered with the sorted legal moves of the position and the
/// game's status (`Running`, `Checkmate(w)`, `Stalemate`, `FiftyMoveDraw`,
/// `RepetitionDraw`). The moves are those the rules allow in the position,
/// also where a draw rule has already ended the game.
fn answer_shako(line: &str) -> Result<Value> {
    let v: Value = serde_json::from_str(line).map_err(|e| anyhow::anyhow!("not valid JSON: {e}"))?;
    let Some(obj) = v.as_object() else { bail!("expected a JSON object") };
    let Some(fen) = obj.get("fen") else { bail!("expected a \"fen\" field") };
    let Some(fen) = fen.as_str() else { bail!("field \"fen\" must be a string") };
    let mut g = shako::GameState::from_fen(fen).with_context(|| format!("reading FEN \"{fen}\""))?;
    if let Some(moves) = obj.get("moves") {
        let Some(moves) = moves.as_str() else { bail!("field \"moves\" must be a string of UCI moves") };
        for (i, m) in moves.split_whitespace().enumerate() {
            g.play_uci(m).with_context(|| format!("playing move {} ({m})", i + 1))?;
        }
    }
    let pos = g.position();
    let mut legal: Vec<String> = pos.legal_moves_vec().iter().map(|m| m.to_string()).collect();
    legal.sort();
    Ok(json!({
        "fen": pos.fen(),
        "legal_moves": legal,
        "in_check": pos.in_check(),
        "status": g.status().to_string(),
    }))
}
