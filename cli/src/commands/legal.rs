//! `pacozero legal`: JSON lines in, JSON lines out, for any game; a bad line
//! gets an error line naming it and processing goes on.
//!
//! A query is `{"fen": F}` or `{"start_fen": F}` (the same), optionally with
//! `"actions"`: decisions played from F, space-separated (Paco Ŝako atomic
//! actions `Le2 Pe4`, Shako UCI moves) and, for Shako, `"moves"` as its
//! synonym. The answer:
//!
//! | field | meaning |
//! |---|---|
//! | `fen` | the position reached, in the game's notation |
//! | `to_move` | `white` or `black` |
//! | `legal_actions` | every decision the rules allow, by name, in the engine's order (none once the game is over); Paco Ŝako lists the actions into dead-end chains too, as the platform does |
//! | `playable_actions` | those of them after which the turn can still be completed (what search and players choose from) |
//! | `status` | the engine's status text, as the platform writes it (`Running`, `PacoVictory(w)`, `RepetitionDraw`, Shako's `Checkmate(b)`) |
//! | `end_reason` | the same in the words of the games table and the Python package: `running`, or why the game ended (`paco`, `repetition`, `no_progress`, `checkmate`, ...) |
//! | `winner` | `white`, `black`, or `null` (running or drawn) |
//! | Paco Ŝako `required`, `num_full_moves` | the kind of decision due; the number of distinct whole turns |
//! | Shako `in_check`, `legal_moves` | check; the legal UCI moves, sorted (also where a draw rule ended the game) |

use crate::args::LegalArgs;
use anyhow::{anyhow, bail, Context, Result};
use pacozero_engine::{Fact, Game};
use serde_json::{json, Map, Value};
use std::io::{BufRead, Write};

pub fn run(a: LegalArgs) -> Result<()> {
    pacozero_engine::with_game!(a.game.kind, G => legal::<G>())
}

fn legal<G: Game>() -> Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = answer::<G>(&line).unwrap_or_else(|e| json!({ "error": format!("line {}: {e:#}", n + 1) }));
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

fn string_field<'a>(obj: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>> {
    match obj.get(name) {
        None => Ok(None),
        Some(v) => v.as_str().map(Some).ok_or_else(|| anyhow!("field \"{name}\" must be a string")),
    }
}

fn answer<G: Game>(line: &str) -> Result<Value> {
    let v: Value = serde_json::from_str(line).map_err(|e| anyhow!("not valid JSON: {e}"))?;
    let Some(obj) = v.as_object() else { bail!("expected a JSON object") };
    let fen = match (string_field(obj, "fen")?, string_field(obj, "start_fen")?) {
        (Some(_), Some(_)) => bail!("give \"fen\" or \"start_fen\", not both"),
        (Some(f), None) | (None, Some(f)) => f,
        (None, None) => bail!("expected a \"fen\" or a \"start_fen\" field"),
    };
    let decisions = match (string_field(obj, "actions")?, string_field(obj, "moves")?) {
        (Some(_), Some(_)) => bail!("give \"actions\" or \"moves\", not both"),
        (a, m) => a.or(m),
    };
    let g: G = super::game_at(Some(fen), decisions)?;
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    let mut playable = Vec::new();
    g.playable_actions(&mut playable);
    let mut answer = json!({
        "fen": g.notation(),
        "to_move": g.to_move().name(),
        "legal_actions": legal.iter().map(|&d| g.action_name(d)).collect::<Vec<_>>(),
        "playable_actions": playable.iter().map(|&d| g.action_name(d)).collect::<Vec<_>>(),
        "status": g.status_text(),
        "end_reason": g.end_reason(),
        "winner": match g.outcome() {
            Some(pacozero_engine::Outcome::Win(c)) => json!(c.name()),
            _ => Value::Null,
        },
    });
    let fields = answer.as_object_mut().context("an object")?;
    for (name, fact) in g.facts() {
        let value = match fact {
            Fact::Flag(b) => json!(b),
            Fact::Count(n) => json!(n),
            Fact::Text(t) => json!(t),
            Fact::List(l) => json!(l),
        };
        fields.insert(name.to_string(), value);
    }
    Ok(answer)
}
