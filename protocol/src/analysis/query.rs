//! Reading one line of the analysis protocol: a query to search, a
//! termination, or an error that names what is wrong.

use pacozero_engine::Game;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

use super::ServeOptions;

/// A query line as written (every field optional here; [`parse_line`] checks
/// what each kind of line needs). Unknown fields are refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLine {
    id: Option<Value>,
    action: Option<String>,
    game: Option<String>,
    fen: Option<String>,
    start_fen: Option<String>,
    actions: Option<Vec<String>>,
    moves: Option<Vec<String>>,
    max_visits: Option<u32>,
    max_time_ms: Option<u64>,
    top_moves: Option<usize>,
    include_policy: Option<bool>,
    pv_turns: Option<usize>,
    rules: Option<BTreeMap<String, bool>>,
}

/// A checked query, ready to search.
pub struct Query<G> {
    pub id: Value,
    /// The position to analyse (with the history of the moves that led to it).
    pub state: G,
    /// Simulations of the search (the budget when only a time is given).
    pub max_visits: u32,
    pub max_time: Option<Duration>,
    /// Turns reported (0: every turn the search completed).
    pub top_moves: usize,
    pub include_policy: bool,
    /// Turns of each principal variation after its first.
    pub pv_turns: usize,
}

/// What one input line asks for.
pub enum Line<G> {
    Query(Box<Query<G>>),
    /// Stop the query with this id and answer with what it has.
    Terminate(Value),
    /// Stop every query (queued ones too).
    TerminateAll,
    /// Nothing (a blank line).
    Blank,
}

/// A line that is not a valid request: its id when one could be read, and
/// what is wrong.
#[derive(Debug)]
pub struct LineError {
    pub id: Value,
    pub message: String,
}

impl LineError {
    fn new(id: &Value, message: impl Into<String>) -> LineError {
        LineError { id: id.clone(), message: message.into() }
    }
}

/// Reads input line `number` (1-based, for messages).
pub fn parse_line<G: Game>(text: &str, number: usize, opts: &ServeOptions) -> Result<Line<G>, LineError> {
    if text.trim().is_empty() {
        return Ok(Line::Blank);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| LineError::new(&Value::Null, format!("line {number}: not a JSON object: {e}")))?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    if !value.is_object() {
        return Err(LineError::new(&id, format!("line {number}: expected a JSON object, got {}", kind_of(&value))));
    }
    let raw: RawLine = serde_json::from_value(value).map_err(|e| LineError::new(&id, format!("line {number}: {e}")))?;
    match raw.id.as_ref() {
        None => return Err(LineError::new(&id, format!("line {number}: missing field `id`"))),
        Some(Value::String(_)) | Some(Value::Number(_)) => {}
        Some(other) => return Err(LineError::new(&Value::Null, format!("line {number}: `id` must be a string or a number, got {}", kind_of(other)))),
    }
    match raw.action.as_deref() {
        None => query(raw, number, opts).map(|q| Line::Query(Box::new(q))),
        Some(action @ ("terminate" | "terminate_all")) => {
            if let Some(field) = raw.query_field() {
                return Err(LineError::new(&id, format!("line {number}: `{field}` has no meaning in a `{action}` line")));
            }
            Ok(if action == "terminate" { Line::Terminate(id) } else { Line::TerminateAll })
        }
        Some(other) => {
            Err(LineError::new(&id, format!("line {number}: unknown action `{other}` (expected `terminate` or `terminate_all`, or no action for a query)")))
        }
    }
}

impl RawLine {
    /// The first field that only a query may have, if any.
    fn query_field(&self) -> Option<&'static str> {
        let fields: [(&'static str, bool); 11] = [
            ("game", self.game.is_some()),
            ("fen", self.fen.is_some()),
            ("start_fen", self.start_fen.is_some()),
            ("actions", self.actions.is_some()),
            ("moves", self.moves.is_some()),
            ("max_visits", self.max_visits.is_some()),
            ("max_time_ms", self.max_time_ms.is_some()),
            ("top_moves", self.top_moves.is_some()),
            ("include_policy", self.include_policy.is_some()),
            ("pv_turns", self.pv_turns.is_some()),
            ("rules", self.rules.is_some()),
        ];
        fields.into_iter().find(|f| f.1).map(|f| f.0)
    }
}

fn query<G: Game>(raw: RawLine, number: usize, opts: &ServeOptions) -> Result<Query<G>, LineError> {
    let id = raw.id.clone().unwrap_or(Value::Null);
    let err = |message: String| LineError::new(&id, format!("line {number}: {message}"));
    if let Some(game) = &raw.game {
        if game != G::NAME {
            return Err(err(format!("`game` is \"{game}\", but this engine's network plays {}", G::NAME)));
        }
    }
    if let Some(name) = raw.rules.iter().flatten().map(|(name, _)| name).find(|name| !G::RULE_OPTIONS.contains(&name.as_str())) {
        let known = if G::RULE_OPTIONS.is_empty() { "none".to_string() } else { G::RULE_OPTIONS.join(", ") };
        return Err(err(format!("`rules`: {} has no optional rule `{name}` (it has: {known})", G::NAME)));
    }
    let rules: Vec<&str> = raw.rules.iter().flatten().filter(|(_, &on)| on).map(|(name, _)| name.as_str()).collect();
    let fen = match (&raw.fen, &raw.start_fen) {
        (Some(_), Some(_)) => return Err(err("give `fen` or `start_fen`, not both".into())),
        (Some(f), None) | (None, Some(f)) => f.clone(),
        (None, None) => G::start().notation(),
    };
    let field = if raw.fen.is_some() { "fen" } else { "start_fen" };
    let mut state = G::from_notation_with_rules(&fen, &rules).map_err(|e| err(format!("`{field}`: {e}")))?;
    match (&raw.actions, &raw.moves) {
        (Some(_), Some(_)) => return Err(err("give `actions` or `moves`, not both".into())),
        (Some(actions), None) => {
            for (i, name) in actions.iter().enumerate() {
                if state.outcome().is_some() {
                    return Err(err(format!("actions[{i}] `{name}`: the game is already over")));
                }
                let a = state.parse_action(name).ok_or_else(|| err(format!("actions[{i}] `{name}` is not a legal decision in {}", state.notation())))?;
                let mut legal = Vec::new();
                state.playable_actions(&mut legal);
                if !legal.contains(&a) {
                    return Err(err(format!("actions[{i}] `{name}` leads into a turn that cannot be completed in {}", state.notation())));
                }
                state.apply(a);
            }
        }
        (None, Some(moves)) => {
            for (i, text) in moves.iter().enumerate() {
                if state.outcome().is_some() {
                    return Err(err(format!("moves[{i}] `{text}`: the game is already over")));
                }
                let turn = state.parse_turn(text).map_err(|e| err(format!("moves[{i}] `{text}` in {}: {}", state.notation(), e.message)))?;
                for a in turn {
                    state.apply(a);
                }
            }
        }
        (None, None) => {}
    }
    if let Some(o) = state.outcome() {
        return Err(err(format!("the game is already over ({o:?}) in {}: nothing to analyse", state.notation())));
    }
    let mut legal = Vec::new();
    state.playable_actions(&mut legal);
    if legal.is_empty() {
        return Err(err(format!("the side to move has no legal decision in {} (stuck)", state.notation())));
    }
    let max_time = raw.max_time_ms.map(Duration::from_millis);
    if raw.max_time_ms == Some(0) {
        return Err(err("`max_time_ms` must be at least 1".into()));
    }
    let max_visits = match raw.max_visits {
        Some(0) => return Err(err("`max_visits` must be at least 1".into())),
        Some(v) if v > opts.visit_cap => return Err(err(format!("`max_visits` {v} is above this engine's cap of {} (--visit-cap)", opts.visit_cap))),
        Some(v) => v,
        None if max_time.is_some() => opts.visit_cap,
        None => opts.default_visits,
    };
    Ok(Query {
        id,
        state,
        max_visits,
        max_time,
        top_moves: raw.top_moves.unwrap_or(opts.default_top_moves),
        include_policy: raw.include_policy.unwrap_or(false),
        pv_turns: raw.pv_turns.unwrap_or(opts.default_pv_turns),
    })
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::paco::GameState;
    use pacozero_engine::prelude::*;
    use serde_json::json;

    fn opts() -> ServeOptions {
        ServeOptions { default_visits: 40, visit_cap: 500, default_top_moves: 3, default_pv_turns: 2, max_concurrent: 1 }
    }

    fn parsed(text: &str) -> Result<Line<GameState>, LineError> {
        parse_line::<GameState>(text, 7, &opts())
    }

    fn query(text: &str) -> Query<GameState> {
        match parsed(text) {
            Ok(Line::Query(q)) => *q,
            Ok(_) => panic!("{text}: not a query"),
            Err(e) => panic!("{text}: {}", e.message),
        }
    }

    fn error(text: &str) -> (Value, String) {
        match parsed(text) {
            Err(e) => (e.id, e.message),
            Ok(_) => panic!("{text} accepted"),
        }
    }

    #[test]
    fn lines_that_are_not_objects_name_what_they_are() {
        for (text, kind) in [("\"x\"", "a string"), ("3", "a number"), ("null", "null"), ("true", "a boolean"), ("[1]", "an array")] {
            assert_eq!(error(text), (Value::Null, format!("line 7: expected a JSON object, got {kind}")));
        }
        assert_eq!(error(r#"{"id": {"a": 1}}"#).1, "line 7: `id` must be a string or a number, got an object");
        assert_eq!(error(r#"{"id": false}"#).1, "line 7: `id` must be a string or a number, got a boolean");
        assert!(matches!(parsed("   "), Ok(Line::Blank)));
    }

    #[test]
    fn terminate_lines_take_no_query_field() {
        match parsed(r#"{"id": 4, "action": "terminate"}"#) {
            Ok(Line::Terminate(id)) => assert_eq!(id, json!(4)),
            _ => panic!("not a terminate line"),
        }
        assert!(matches!(parsed(r#"{"id": "all", "action": "terminate_all"}"#), Ok(Line::TerminateAll)));
        for field in [
            r#""game": "paco""#,
            r#""fen": "x""#,
            r#""actions": []"#,
            r#""max_time_ms": 5"#,
            r#""top_moves": 1"#,
            r#""include_policy": true"#,
            r#""pv_turns": 1"#,
            r#""rules": {}"#,
        ] {
            let name = field.split('"').nth(1).unwrap();
            let (id, message) = error(&format!(r#"{{"id": 1, "action": "terminate_all", {field}}}"#));
            assert_eq!((id, message), (json!(1), format!("line 7: `{name}` has no meaning in a `terminate_all` line")));
        }
    }

    #[test]
    fn budgets_and_defaults() {
        let q = query(r#"{"id": 1}"#);
        assert_eq!((q.max_visits, q.max_time, q.top_moves, q.include_policy, q.pv_turns), (40, None, 3, false, 2));
        let q = query(r#"{"id": 1, "max_time_ms": 250}"#);
        assert_eq!((q.max_visits, q.max_time), (500, Some(Duration::from_millis(250))), "a time alone: the cap as budget");
        let q = query(r#"{"id": 1, "max_visits": 500, "max_time_ms": 9, "top_moves": 0, "include_policy": true, "pv_turns": 5}"#);
        assert_eq!((q.max_visits, q.top_moves, q.include_policy, q.pv_turns), (500, 0, true, 5), "the cap itself is allowed");
        assert_eq!(error(r#"{"id": 1, "max_visits": 501}"#).1, "line 7: `max_visits` 501 is above this engine's cap of 500 (--visit-cap)");
        assert_eq!(error(r#"{"id": 1, "max_time_ms": 0}"#).1, "line 7: `max_time_ms` must be at least 1");
    }

    #[test]
    fn positions_are_checked_and_the_game_must_be_going_on() {
        assert_eq!(query(r#"{"id": 1, "game": "paco"}"#).state.notation(), GameState::start().notation());
        let q = query(r#"{"id": 1, "start_fen": "4k3/8/8/8/8/8/8/4RK2 w 0 - - -", "actions": ["Le1"]}"#);
        assert_eq!(q.state.to_move(), pacozero_engine::Color::White, "a lift: the turn goes on");
        assert!(error(r#"{"id": 1, "start_fen": "nonsense"}"#).1.starts_with("line 7: `start_fen`: "));
        assert!(error(r#"{"id": 1, "fen": "nonsense"}"#).1.starts_with("line 7: `fen`: "));
        assert_eq!(error(r#"{"id": 1, "actions": [], "moves": []}"#).1, "line 7: give `actions` or `moves`, not both");
        // Paco in 1, played: over, nothing to analyse; and nothing may follow it.
        let fen = "rn3b1r/3kppp1/ppp2n2/2Np1E2/2P1F1P1/1P2B2p/P1Q1P2P/R2K1BNR w 8 - - -";
        let e = error(&json!({"id": 1, "fen": fen, "moves": ["Nc5xd7"]}).to_string()).1;
        assert!(e.starts_with("line 7: the game is already over"), "{e}");
        let e = error(&json!({"id": 1, "fen": fen, "moves": ["Nc5xd7", "e8-e7"]}).to_string()).1;
        assert_eq!(e, "line 7: moves[1] `e8-e7`: the game is already over");
        let mut won = GameState::from_notation(fen).unwrap();
        let names: Vec<String> = won
            .clone()
            .parse_turn("Nc5xd7")
            .unwrap()
            .iter()
            .map(|&d| {
                let n = won.action_name(d);
                won.apply(d);
                n
            })
            .collect();
        let mut actions = names.clone();
        actions.push("Le8".into());
        let e = error(&json!({"id": 1, "fen": fen, "actions": actions}).to_string()).1;
        assert_eq!(e, format!("line 7: actions[{}] `Le8`: the game is already over", names.len()));
    }
}
