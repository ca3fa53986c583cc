//! The answer to a query: what its search tree says, as one JSON object.

use pacozero_engine::Game;
use serde_json::{json, Value};

use super::query::Query;
use pacozero_search::turns::{decision_names, principal_variation, ranked_turns, winning_turn};
use pacozero_search::Proof;
use pacozero_search::Search;

/// Figures rounded to 6 decimals: `f32` printed through `f64` would carry
/// digits the value does not have.
fn r6(x: f32) -> Value {
    if x.is_finite() {
        json!((x as f64 * 1e6).round() / 1e6)
    } else {
        Value::Null
    }
}

fn wdl(w: [f32; 3]) -> Value {
    Value::Array(w.iter().map(|&x| r6(x)).collect())
}

/// The response to `query`, searched in `search` for `elapsed_ms`;
/// `terminated`: stopped by a `terminate` line. `network`: the evaluator's name.
pub fn response<G: Game>(query: &Query<G>, search: &mut Search<G>, network: &str, elapsed_ms: f64, terminated: bool) -> Value {
    let root = query.state.clone();
    let res = search.result();
    let mut out = serde_json::Map::new();
    out.insert("id".into(), query.id.clone());
    out.insert("game".into(), json!(G::NAME));
    out.insert("fen".into(), json!(root.notation()));
    out.insert("to_move".into(), json!(root.to_move().name()));
    out.insert("network".into(), json!(network));
    let mut moves = Vec::new();
    if search.root_is_detected_win() {
        // The search stops at a root it knows is won; the engine names the win.
        out.insert("forced_win".into(), json!(true));
        if let Some(turn) = winning_turn(&root) {
            let name = root.turn_notation(&turn);
            moves.push(json!({
                "move": name, "actions": decision_names(&root, &turn), "visits": 0, "q": 1.0,
                "wdl": [1.0, 0.0, 0.0], "prior": Value::Null, "pv": [name],
                "proven": {"result": "win", "turns": 1, "mate": 1},
            }));
        }
    } else if let Some(turn) = search.root_two_turn_win() {
        // A win in two turns, found before the tree search (`mcts/two_turns.rs`).
        out.insert("forced_win".into(), json!(true));
        let name = root.turn_notation(turn);
        moves.push(json!({
            "move": name, "actions": decision_names(&root, turn), "visits": 0, "q": 1.0,
            "wdl": [1.0, 0.0, 0.0], "prior": Value::Null, "pv": [name],
            "proven": {"result": "win", "turns": 3, "mate": 2},
        }));
    } else {
        let mut turns = ranked_turns(search);
        if query.top_moves > 0 {
            turns.truncate(query.top_moves);
        }
        for t in turns {
            let mut pv = vec![t.name.clone()];
            pv.extend(principal_variation(search, &t.path, &t.state, query.pv_turns));
            let mut m = json!({
                "move": t.name, "actions": t.actions, "visits": t.visits, "q": r6(t.wdl[0] - t.wdl[2]),
                "wdl": wdl(t.wdl), "prior": r6(t.prior), "pv": pv,
            });
            if let Some(p) = t.proof {
                m["proven"] = proven(p);
            }
            moves.push(m);
        }
    }
    if let Some(p) = res.proof {
        out.insert("proven".into(), proven(p));
    }
    out.insert("visits".into(), json!(search.root_visits()));
    out.insert("simulations".into(), json!(res.simulations));
    out.insert("value".into(), r6(res.root_q));
    out.insert("wdl".into(), wdl(res.root_wdl));
    out.insert("top_moves".into(), Value::Array(moves));
    if query.include_policy {
        // The root's decisions with their priors (the network's policy at the
        // root), most likely first.
        let mut p: Vec<(u16, f32)> = res.legal.iter().copied().zip(res.priors.iter().copied()).collect();
        p.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let policy: Vec<Value> = p.into_iter().map(|(a, prior)| json!({"action": root.action_name(a), "prior": r6(prior)})).collect();
        out.insert("policy".into(), Value::Array(policy));
    }
    out.insert("terminated".into(), json!(terminated));
    out.insert("time_ms".into(), json!((elapsed_ms * 10.0).round() / 10.0));
    Value::Object(out)
}

/// A proven result as JSON: `{"result": "win"|"draw"|"loss", "turns": T,
/// "mate": N}` (`mate` as UCI's `score mate N`, absent for a draw).
fn proven(p: Proof) -> Value {
    let result = match p.result {
        pacozero_search::Proven::Win => "win",
        pacozero_search::Proven::Draw => "draw",
        pacozero_search::Proven::Loss => "loss",
    };
    let mut v = json!({"result": result, "turns": p.turns});
    if let Some(n) = p.uci_mate() {
        v["mate"] = json!(n);
    }
    v
}

/// The response to a line that could not be served.
pub fn error(id: &Value, message: &str) -> Value {
    json!({"id": id, "error": message})
}
