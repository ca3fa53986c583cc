//! `pacozero play`: a game against the bot in the terminal, for any game.
//!
//! The human enters whole turns in the game's move notation (Paco Ŝako:
//! chain notation `Nb1-c3`, `Bf3xe4>c3>c6`, `0-0`, `=Q Nb1-c3`; Shako: UCI
//! moves `e3e5`) or decision by decision (Paco Ŝako: `Le2`, then `Pe4`;
//! several on one line work too). Bad input gets a message and a new prompt;
//! end of input ends the session. Commands: `help`, `board`, `moves`,
//! `undo`, `quit`.

use super::analyze::{analysis_config, position_and_network};
use crate::args::{PlayArgs, Side};
use anyhow::{bail, Context, Result};
use pacozero_engine::{Color, Game, Outcome};
use pacozero_search::turns::search_turn;
use pacozero_search::Evaluator;
use std::io::{BufRead, Write};

const HELP: &str = "\
Enter your turn in the game's move notation. Paco Ŝako: chain notation, e.g. e2-e4, Nb1-c3,
Bf3xe4>c3>c6, 0-0, e7-e8=Q, =Q Nb1-c3 (promote a pawn the opponent carried home, then move),
or action by action: Le2 (lift), Pe4 (place), =Q (promote); several on one line work too.
Shako: UCI moves, e.g. e3e5.
Commands: help, board (redraw), moves (list your legal turns), undo (take back your last turn), quit.";

pub fn run(a: PlayArgs) -> Result<()> {
    if a.sims == 0 {
        bail!("--sims must be at least 1");
    }
    pacozero_engine::with_game!(a.game.kind, G => play_game::<G>(&a))
}

fn play_game<G: Game>(a: &PlayArgs) -> Result<()> {
    let (g, evaluator) = position_and_network::<G>(a.fen.as_deref(), &a.model)?;
    let human = match a.color {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    play(g, human, a.sims, &evaluator, &mut std::io::stdin().lock(), &mut std::io::stdout().lock())
}

/// The session loop, on any input and output (the tests drive it with scripts).
pub fn play<G: Game, E: Evaluator<G> + ?Sized>(mut g: G, human: Color, sims: u32, evaluator: &E, input: &mut impl BufRead, out: &mut impl Write) -> Result<()> {
    let bot = human.other();
    writeln!(
        out,
        "You play {}, the bot ({}, {} simulations per decision) plays {}. Type 'help' for help.",
        human.title(),
        evaluator.name(),
        sims,
        bot.title()
    )?;
    write!(out, "{}", g.diagram())?;
    // Games at the start of each of the human's turns, for undo.
    let mut history: Vec<G> = Vec::new();
    let mut line = String::new();
    loop {
        if let Some(msg) = game_over(&g) {
            writeln!(out, "{msg}")?;
            return Ok(());
        }
        if g.to_move() == bot {
            let (name, wdl) = bot_turn(&mut g, sims, evaluator)?;
            writeln!(out, "bot plays: {name}   (bot's view: W {:.1}% D {:.1}% L {:.1}%)", 100.0 * wdl[0], 100.0 * wdl[1], 100.0 * wdl[2])?;
            write!(out, "{}", g.diagram())?;
            continue;
        }
        let mid = if g.is_turn_start() { "" } else { " (continue your turn)" };
        write!(out, "{} to move{mid}> ", human.title())?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line).context("reading the input")? == 0 {
            writeln!(out)?;
            writeln!(out, "end of input: goodbye")?;
            return Ok(());
        }
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "exit" | "q" => {
                writeln!(out, "goodbye")?;
                return Ok(());
            }
            "help" | "?" => writeln!(out, "{HELP}")?,
            "board" => write!(out, "{}", g.diagram())?,
            "moves" => writeln!(out, "{}", legal_list(&g))?,
            "undo" => match history.pop() {
                Some(prev) => {
                    g = prev;
                    writeln!(out, "taken back")?;
                    write!(out, "{}", g.diagram())?;
                }
                None => writeln!(out, "nothing to undo")?,
            },
            _ => {
                let before = g.clone();
                match human_input(&mut g, text) {
                    Ok(()) => {
                        if before.is_turn_start() {
                            history.push(before);
                        }
                        write!(out, "{}", g.diagram())?;
                    }
                    Err(e) => writeln!(out, "{e} (type 'help' for the notation, 'moves' for the legal turns)")?,
                }
            }
        }
    }
}

/// Why the game is over, if it is.
fn game_over<G: Game>(g: &G) -> Option<String> {
    match g.outcome() {
        Some(Outcome::Win(c)) => Some(format!("Game over ({}): {} wins.", g.end_reason(), c.title())),
        Some(Outcome::Draw) => Some(format!("Game over ({}): a draw.", g.end_reason())),
        None => {
            let mut legal = Vec::new();
            g.playable_actions(&mut legal);
            legal.is_empty().then(|| format!("{} has no legal move: the game is drawn.", g.to_move().title()))
        }
    }
}

/// Plays the human's input: a whole turn in the game's notation (at the
/// start of a turn), or decisions by name, possibly a part of a turn. On any
/// error the game is left unchanged.
fn human_input<G: Game>(g: &mut G, text: &str) -> Result<()> {
    let turn_error = if g.is_turn_start() {
        match g.parse_turn(text) {
            Ok(decisions) => {
                for d in decisions {
                    g.apply(d);
                }
                return Ok(());
            }
            Err(e) => Some(e),
        }
    } else {
        None
    };
    let mover = g.to_move();
    let mut work = g.clone();
    let mut legal = Vec::new();
    for (i, name) in text.split_whitespace().enumerate() {
        if work.outcome().is_some() || work.to_move() != mover {
            bail!("'{name}': your turn is already over");
        }
        let Some(d) = work.parse_action(name) else {
            match (&turn_error, i) {
                (Some(e), 0) => bail!("{}", e.message),
                (None, 0) => bail!("'{name}' is not a legal decision here: you are in the middle of a turn, continue it decision by decision"),
                _ => bail!("'{name}' is not a legal decision here"),
            }
        };
        work.playable_actions(&mut legal);
        if !legal.contains(&d) {
            bail!("'{name}' leads into a turn that cannot be completed");
        }
        work.apply(d);
    }
    *g = work;
    Ok(())
}

/// The legal turns (at the start of a turn) or the legal decisions (inside one).
fn legal_list<G: Game>(g: &G) -> String {
    if g.is_turn_start() {
        let mut names: Vec<String> = g.legal_turns().iter().map(|t| g.turn_notation(t)).collect();
        names.sort();
        format!("{} legal turns: {}", names.len(), names.join(" "))
    } else {
        let mut legal = Vec::new();
        g.playable_actions(&mut legal);
        let names: Vec<String> = legal.iter().map(|&i| g.action_name(i)).collect();
        format!("legal actions: {}", names.join(" "))
    }
}

/// The bot plays its whole turn (one search per decision, keeping the tree);
/// returns its name and the bot's WDL at the first decision.
fn bot_turn<G: Game, E: Evaluator<G> + ?Sized>(g: &mut G, sims: u32, evaluator: &E) -> Result<(String, [f32; 3])> {
    let start = g.clone();
    let turn = search_turn(g, analysis_config(sims), evaluator, sims)?;
    if turn.cut {
        // A chain that keeps re-entering unions: stop rather than loop forever.
        bail!("the bot's turn did not end after {} decisions (a chain re-entering unions); position: {}", turn.decisions.len(), g.notation());
    }
    Ok((start.turn_notation(&turn.decisions), turn.first_wdl))
}
