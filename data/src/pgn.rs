//! Games of the games table as PGN, for every game: Shako as
//! Fairy-Stockfish's tools read it (`[Variant "shako"]`, the start in
//! `[FEN]`, moves in standard algebraic notation), Paco Ŝako in the same
//! layout with the platform's FEN and whole turns in chain notation
//! without spaces (`Bf3xe4>c3`, `=QNb1-c3`).
//!
//! | tag | value |
//! |---|---|
//! | `Event` | `PacoZero self-play` or `PacoZero match` (`network_id` = `match`) |
//! | `Site`, `Date` | `PacoZero`, `????.??.??` |
//! | `Round` | the game's number in the export, from 1 |
//! | `White`, `Black` | the players (`white`, `black`: specs, or `selfplay:<network>`); `?` when not recorded |
//! | `Result` | `1-0`, `0-1`, `1/2-1/2` |
//! | `Variant` | the game's name: `shako`, `paco` |
//! | `FEN`, `SetUp` | the start position; `1` |
//! | `Termination` | `normal` (the rules ended it), `adjudication` (`max_length`, `stuck`), `time forfeit` (`engine_timeout`), `rules infraction` (`illegal_move`), `abandoned` (`engine_crash`) |
//! | `Reason` | the games table's `reason` |
//! | `GameId` | the games table's `game_id` |
//!
//! The movetext numbers the turns from 1 (`1. e5 e6 2. Ng4`; `1... e6` when
//! Black starts) and ends with the result.

use pacozero_engine::{Game, GameKind};

use crate::schema::GameRow;

/// The PGN `Termination` of a games table's `reason`.
pub fn termination(reason: &str) -> &'static str {
    match reason {
        "max_length" | "stuck" | "resign" => "adjudication",
        "engine_timeout" => "time forfeit",
        "illegal_move" => "rules infraction",
        "engine_crash" => "abandoned",
        _ => "normal",
    }
}

/// One game of game `kind` as PGN (tags, a blank line, the movetext, a
/// blank line); `round`: its number in the export. The error names the
/// decision that does not replay.
pub fn pgn_game(kind: GameKind, row: &GameRow, round: usize) -> Result<String, String> {
    pacozero_engine::with_game!(kind, G => pgn_of::<G>(row, round))
}

fn pgn_of<G: Game>(row: &GameRow, round: usize) -> Result<String, String> {
    let start = G::from_notation(&row.start_fen).map_err(|e| format!("game {}: start `{}`: {}", row.game_id, row.start_fen, e.message))?;
    let decisions = start.parse_decisions(&row.actions).map_err(|e| format!("game {}: {}", row.game_id, e.message))?;
    let player = |p: &str| if p.is_empty() { "?".to_string() } else { p.to_string() };
    let event = if row.network_id == "match" { "PacoZero match" } else { "PacoZero self-play" };
    let mut out = String::new();
    for (tag, value) in [
        ("Event", event.to_string()),
        ("Site", "PacoZero".into()),
        ("Date", "????.??.??".into()),
        ("Round", round.to_string()),
        ("White", player(&row.white)),
        ("Black", player(&row.black)),
        ("Result", row.result.clone()),
        ("Variant", G::NAME.into()),
        ("FEN", row.start_fen.trim().to_string()),
        ("SetUp", "1".into()),
        ("Termination", termination(&row.reason).into()),
        ("Reason", row.reason.clone()),
        ("GameId", row.game_id.to_string()),
    ] {
        out.push_str(&format!("[{tag} \"{}\"]\n", tag_value(&value)));
    }
    out.push('\n');
    // Whole turns, each a token with its number before White's (or a lone Black's first).
    let mut tokens: Vec<String> = Vec::new();
    let (mut g, mut turn_start, mut turn) = (start.clone(), start.clone(), Vec::new());
    let mut number = 1;
    for d in decisions {
        let mover = g.to_move();
        g.apply(d);
        turn.push(d);
        if g.outcome().is_some() || g.to_move() != mover {
            let white = mover == pacozero_engine::Color::White;
            if white {
                tokens.push(format!("{number}."));
            } else if tokens.is_empty() {
                tokens.push(format!("{number}..."));
            }
            tokens.push(turn_start.pgn_move(&turn));
            if !white {
                number += 1;
            }
            (turn_start, turn) = (g.clone(), Vec::new());
        }
    }
    if !turn.is_empty() {
        // A game cut at its length limit (or stuck) may stop inside a Paco
        // Ŝako turn, which no move token can show: the part is left out and
        // said in a comment. Any other game must end on a whole turn.
        if !matches!(row.reason.as_str(), "max_length" | "stuck") {
            return Err(format!("game {}: the last turn is not complete ({} decisions of it)", row.game_id, turn.len()));
        }
        tokens.push(format!("{{cut inside a turn: its first {} decisions are not shown}}", turn.len()));
    }
    tokens.push(movetext_result(&row.result));
    fill_lines(&mut out, &tokens);
    out.push_str("\n\n");
    Ok(out)
}

/// A tag's value as the PGN standard writes it inside its quotes: a
/// backslash and a quote escaped by a backslash. Every value is escaped, the
/// games table's strings come from files of others; a line break or another
/// control character, which a tag may not hold, becomes a space.
fn tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The game termination marker that ends the movetext: the result when it
/// is one of PGN's four, `*` (unknown) for anything else a file says.
fn movetext_result(result: &str) -> String {
    match result {
        "1-0" | "0-1" | "1/2-1/2" | "*" => result.to_string(),
        _ => "*".to_string(),
    }
}

/// Appends `tokens` separated by spaces in lines of at most 80 characters
/// (a longer token on a line of its own), the last without its newline.
fn fill_lines(out: &mut String, tokens: &[String]) {
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(t);
    }
    out.push_str(&line);
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacozero_engine::shako;

    fn row(start: &str, actions: &str, result: &str, reason: &str) -> GameRow {
        GameRow {
            game_id: 7,
            start_fen: start.into(),
            actions: actions.into(),
            num_decisions: actions.split_whitespace().count() as u32,
            result: result.into(),
            reason: reason.into(),
            network_id: "match".into(),
            config_hash: String::new(),
            seed: 1,
            white: "net:a \"b\":100ms".into(),
            black: "uci:fairy-stockfish,UCI_Variant=shako:nodes=10".into(),
        }
    }

    #[test]
    fn shako_games_are_san_with_the_variant_and_the_start() {
        let r = row(shako::STARTPOS_FEN, "e3e5 e8e6 h2g4", "1/2-1/2", "max_length");
        let pgn = pgn_game(GameKind::Shako, &r, 3).unwrap();
        assert!(pgn.contains("[Variant \"shako\"]\n") && pgn.contains(&format!("[FEN \"{}\"]\n", shako::STARTPOS_FEN)), "{pgn}");
        assert!(pgn.contains("[White \"net:a \\\"b\\\":100ms\"]") && pgn.contains("[Round \"3\"]") && pgn.contains("[Termination \"adjudication\"]"), "{pgn}");
        assert!(pgn.ends_with("\n\n1. e5 e6 2. Ng4 1/2-1/2\n\n"), "{pgn}");
        let mate = row("9k/10/8K1/10/10/10/10/10/R9/10 b - - 0 1", "j10i10 a2a7 i10j10 a7a10", "1-0", "checkmate");
        assert!(pgn_game(GameKind::Shako, &mate, 1).unwrap().contains("\n1... Ki10 2. Ra7 Kj10 3. Ra10# 1-0\n"));
        let bad = row(shako::STARTPOS_FEN, "e3e5 e3e4", "1-0", "checkmate");
        assert!(pgn_game(GameKind::Shako, &bad, 1).unwrap_err().contains("game 7"));
    }

    #[test]
    fn paco_games_are_whole_turns_in_chain_notation() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -";
        let r = row(start, "Le2 Pe4 Ld7 Pd5 Le4 Pd5", "1/2-1/2", "max_length");
        let pgn = pgn_game(GameKind::Paco, &r, 1).unwrap();
        assert!(pgn.contains("[Variant \"paco\"]") && pgn.contains(&format!("[FEN \"{start}\"]")), "{pgn}");
        assert!(pgn.contains("\n1. e2-e4 d7-d5 2. e4xd5 1/2-1/2\n"), "{pgn}");
        // A game cut inside a turn leaves that part out and says so; any other
        // game that stops inside a turn is refused.
        let r = row(start, "Le2 Pe4 Ld7", "1/2-1/2", "max_length");
        let pgn = pgn_game(GameKind::Paco, &r, 1).unwrap();
        assert!(pgn.contains("\n1. e2-e4 {cut inside a turn: its first 1 decisions are not shown} 1/2-1/2\n"), "{pgn}");
        let r = row(start, "Le2 Pe4 Ld7", "1-0", "paco");
        assert!(pgn_game(GameKind::Paco, &r, 1).unwrap_err().contains("not complete"));
    }

    #[test]
    fn every_tag_value_is_escaped_and_kept_on_its_line() {
        // Whole turns, with a hostile result, reason and player.
        let mut r = row(shako::STARTPOS_FEN, "e3e5 e8e6", "1-0\"]\n[Evil \"x", "max_length\\\"]\r\n[Site \"y");
        r.white = "a\\\"]\n[Black \"z".into();
        let pgn = pgn_game(GameKind::Shako, &r, 1).unwrap();
        let (tags, movetext) = pgn.split_once("\n\n").unwrap();
        for line in tags.lines() {
            assert!(line.starts_with('[') && line.ends_with("\"]"), "{line:?} of {pgn}");
            // Inside the quotes, every quote is escaped.
            let inner = &line[line.find('"').unwrap() + 1..line.len() - 2];
            let unescaped = inner.replace("\\\\", "").replace("\\\"", "");
            assert!(!unescaped.contains('"') && !unescaped.contains('\\'), "{line:?}");
        }
        assert_eq!(tags.lines().count(), 13, "{pgn}");
        assert!(tags.contains("[Result \"1-0\\\"] [Evil \\\"x\"]\n"), "{pgn}");
        assert!(tags.contains("[Reason \"max_length\\\\\\\"]  [Site \\\"y\"]\n"), "{pgn}");
        assert!(tags.contains("[White \"a\\\\\\\"] [Black \\\"z\"]\n"), "{pgn}");
        assert!(tags.contains(&format!("[FEN \"{}\"]\n", shako::STARTPOS_FEN)), "{pgn}");
        assert!(movetext.trim_end().ends_with(" *"), "an unknown result ends the movetext as `*`: {movetext}");
    }

    #[test]
    fn lines_hold_eighty_characters_and_no_more() {
        let filled = |lengths: &[usize]| {
            let tokens: Vec<String> = lengths.iter().enumerate().map(|(i, &n)| ((b'a' + i as u8) as char).to_string().repeat(n)).collect();
            let mut out = String::new();
            fill_lines(&mut out, &tokens);
            out.lines().map(str::len).collect::<Vec<_>>()
        };
        assert_eq!(filled(&[40, 39]), [80], "40 + space + 39 is exactly 80");
        assert_eq!(filled(&[40, 40]), [40, 40]);
        assert_eq!(filled(&[79, 1, 1]), [79, 3]);
        assert_eq!(filled(&[90, 1]), [90, 1], "a token longer than a line stands alone");
        assert_eq!(filled(&[]), [0usize; 0]);
    }

    #[test]
    fn every_reason_has_its_termination_tag() {
        let tags: Vec<&str> =
            ["max_length", "stuck", "resign", "engine_timeout", "illegal_move", "engine_crash", "checkmate", ""].iter().map(|r| termination(r)).collect();
        assert_eq!(tags, ["adjudication", "adjudication", "adjudication", "time forfeit", "rules infraction", "abandoned", "normal", "normal"]);
    }

    #[test]
    fn self_play_games_are_named_so_and_the_movetext_fills_lines_of_80() {
        let mut r = row(shako::STARTPOS_FEN, "", "1/2-1/2", "max_length");
        r.network_id = "gen-0003".into();
        // Every pawn one step, White's and Black's in turn: 20 turns, a long movetext.
        r.actions = ('a'..='j').map(|f| format!("{f}3{f}4 {f}8{f}7")).collect::<Vec<_>>().join(" ");
        let pgn = pgn_game(GameKind::Shako, &r, 1).unwrap();
        assert!(pgn.starts_with("[Event \"PacoZero self-play\"]\n"), "{pgn}");
        let movetext: Vec<&str> = pgn.split("\n\n").nth(1).unwrap().lines().collect();
        assert!(movetext.len() > 1, "{pgn}");
        for (k, l) in movetext.iter().enumerate() {
            assert!(l.len() <= 80 && !l.starts_with(' ') && !l.ends_with(' '), "line {k} of {} chars: {l:?}", l.len());
            // Full: the next line's first token would not have fitted.
            if let Some(next) = movetext.get(k + 1) {
                let first = next.split(' ').next().unwrap();
                assert!(l.len() + 1 + first.len() > 80, "line {k} ({} chars) had room for {first:?}", l.len());
            }
        }
        let tokens: Vec<&str> = movetext.iter().flat_map(|l| l.split(' ')).collect();
        assert_eq!(tokens.len(), 10 + 20 + 1, "10 numbers, 20 moves and the result");
        assert_eq!(tokens[..3], ["1.", "a4", "a7"]);
    }
}
