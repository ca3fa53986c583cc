//! `pacozero play`: a game against the bot in the terminal.
//!
//! The human enters whole turns in chain notation (`Nb1-c3`, `Bf3xe4>c3>c6`,
//! `0-0`, `=Q Nb1-c3`) or atomic actions (`Le2`, then `Pe4`; several on one
//! line work too). Bad input gets a message and a new prompt; end of input
//! ends the session. Commands: `help`, `board`, `moves`, `undo`, `quit`.

use super::analyze::{analysis_config, color_name, search_turn};
use super::show::render;
use crate::args::{PlayArgs, Side};
use crate::turns::is_turn_start;
use anyhow::{bail, Context, Result};
use pacozero_engine::paco::{action_index, parse_actions, parse_turn, turn_to_string, Action, FullMoveGen, GameState, Status};
use pacozero_engine::{Color, Game};
use pacozero_selfplay::Evaluator;
use std::io::{BufRead, Write};

const HELP: &str = "\
Enter your turn in chain notation, e.g. e2-e4, Nb1-c3, Bf3xe4>c3>c6, 0-0, e7-e8=Q,
=Q Nb1-c3 (promote a pawn the opponent carried home, then move),
or action by action: Le2 (lift), Pe4 (place), =Q (promote); several on one line work too.
Commands: help, board (redraw), moves (list your legal turns), undo (take back your last turn), quit.";

pub fn run(a: PlayArgs) -> Result<()> {
    if a.sims == 0 {
        bail!("--sims must be at least 1");
    }
    let g = super::game_from(a.fen.as_deref(), None)?;
    let evaluator = crate::net::load_evaluator(&a.model, 0)?;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let human = match a.color {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    play(g, human, a.sims, &evaluator, &mut stdin.lock(), &mut stdout.lock())
}

/// The session loop, on any input and output (the tests drive it with scripts).
pub fn play<E: Evaluator<GameState> + ?Sized>(
    mut g: GameState,
    human: Color,
    sims: u32,
    evaluator: &E,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<()> {
    let bot = human.other();
    writeln!(
        out,
        "You play {}, the bot ({}, {} simulations per decision) plays {}. Type 'help' for help.",
        color_name(human),
        evaluator.name(),
        sims,
        color_name(bot)
    )?;
    write!(out, "{}", render(g.position()))?;
    // Games at the start of each of the human's turns, for undo.
    let mut history: Vec<GameState> = Vec::new();
    let mut line = String::new();
    loop {
        if let Some(msg) = game_over(&g) {
            writeln!(out, "{msg}")?;
            return Ok(());
        }
        if g.to_move() == bot {
            let (name, wdl) = bot_turn(&mut g, sims, evaluator)?;
            writeln!(out, "bot plays: {name}   (bot's view: W {:.1}% D {:.1}% L {:.1}%)", 100.0 * wdl[0], 100.0 * wdl[1], 100.0 * wdl[2])?;
            write!(out, "{}", render(g.position()))?;
            continue;
        }
        let mid = if is_turn_start(&g) { "" } else { " (continue your turn)" };
        write!(out, "{} to move{mid}> ", color_name(human))?;
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
            "board" => write!(out, "{}", render(g.position()))?,
            "moves" => writeln!(out, "{}", legal_list(&g))?,
            "undo" => match history.pop() {
                Some(prev) => {
                    g = prev;
                    writeln!(out, "taken back")?;
                    write!(out, "{}", render(g.position()))?;
                }
                None => writeln!(out, "nothing to undo")?,
            },
            _ => {
                let before = g.clone();
                match human_input(&mut g, text) {
                    Ok(()) => {
                        if is_turn_start(&before) {
                            history.push(before);
                        }
                        write!(out, "{}", render(g.position()))?;
                    }
                    Err(e) => writeln!(out, "{e} (type 'help' for the notation, 'moves' for the legal turns)")?,
                }
            }
        }
    }
}

/// Why the game is over, if it is.
fn game_over(g: &GameState) -> Option<String> {
    let msg = match g.status() {
        Status::Running => {
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            if legal.is_empty() {
                format!("{} has no legal move: the game is drawn.", color_name(g.to_move()))
            } else {
                return None;
            }
        }
        Status::PacoVictory(c) => format!("Paco! {} wins.", color_name(c)),
        Status::RepetitionDraw => "Draw by threefold repetition.".into(),
        Status::NoProgressDraw => "Draw: 100 half-moves without progress.".into(),
        other => format!("Game over: {other}."),
    };
    Some(msg)
}

/// Plays the human's input (atomic actions, or a whole turn in chain
/// notation); on any error the game is left unchanged.
fn human_input(g: &mut GameState, text: &str) -> Result<()> {
    let mover = g.to_move();
    let mut work = g.clone();
    if let Ok(actions) = parse_actions(text) {
        for a in actions {
            if work.to_move() != mover || work.outcome().is_some() {
                bail!("'{a}': your turn is already over");
            }
            play_checked(&mut work, a)?;
        }
    } else {
        if !is_turn_start(&work) {
            bail!("'{text}': you are in the middle of a turn; continue it action by action (e.g. Pe4)");
        }
        let actions = parse_turn(work.position(), text).map_err(|e| anyhow::anyhow!("{e}"))?;
        for a in actions {
            play_checked(&mut work, a)?;
        }
    }
    *g = work;
    Ok(())
}

/// Plays one atomic action if search could play it (legal, and not only
/// leading into a dead-end chain).
fn play_checked(g: &mut GameState, a: Action) -> Result<()> {
    let mover = g.to_move();
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    if !legal.contains(&(action_index(a, mover) as u16)) {
        if g.position().actions().contains(a) {
            bail!("'{a}' leads into a chain that cannot be completed");
        }
        let mut probe = g.clone();
        return match probe.play(a) {
            Err(e) => Err(anyhow::anyhow!("'{a}' is not legal here: {e}")),
            Ok(_) => Err(anyhow::anyhow!("'{a}' is not legal here")),
        };
    }
    g.play(a).map_err(|e| anyhow::anyhow!("'{a}' is not legal here: {e}"))?;
    Ok(())
}

/// The legal turns (at the start of a turn) or the legal actions (inside one).
fn legal_list(g: &GameState) -> String {
    if is_turn_start(g) {
        let mut names: Vec<String> = Vec::new();
        let mut gen = FullMoveGen::new();
        let _ = gen.for_each(g.position(), |_, trace| names.push(turn_to_string(g.position(), trace)));
        names.sort();
        format!("{} legal turns: {}", names.len(), names.join(" "))
    } else {
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let names: Vec<String> = legal.iter().map(|&i| g.action_name(i)).collect();
        format!("legal actions: {}", names.join(" "))
    }
}

/// The bot plays its whole turn (one search per decision, keeping the tree);
/// returns its name and the bot's WDL at the first decision.
fn bot_turn<E: Evaluator<GameState> + ?Sized>(g: &mut GameState, sims: u32, evaluator: &E) -> Result<(String, [f32; 3])> {
    let start = g.clone();
    let turn = search_turn(g, analysis_config(sims), evaluator, sims)?;
    if turn.cut {
        // A chain that keeps re-entering unions: stop rather than loop forever.
        anyhow::bail!("the bot's turn did not end after {} decisions (a chain re-entering unions); position: {}", turn.decisions.len(), g.position().fen());
    }
    Ok((start.turn_notation(&turn.decisions), turn.first_wdl))
}
