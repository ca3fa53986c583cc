//! `pacozero book build | probe | export | import`: opening books (see
//! `pacozero_book` for how a book grows, `pacozero_data::book` for the file
//! format and `pacozero_platform::book` for the platform's format).

use crate::args::{BookArgs, BookCommand, BookFormat, ImportFormat};
use anyhow::{Context, Result};
use pacozero_book::entries::lookup_rows;
use pacozero_book::{book_game, build, read_any_book, Book, BookConfig, BookGame};
use pacozero_data::book::{write_book, BookPosition};
use pacozero_engine::prelude::*;
use pacozero_engine::GameKind;
use pacozero_platform::book::{export_platform_book, import_platform_book, platform_info};
use pacozero_platform::book_json::{platform_book_json, read_platform_book};
use pacozero_platform::compare::{compare_books, compare_search, PlatformGame};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run(a: BookArgs) -> Result<()> {
    match a.what {
        BookCommand::Build { model, config, set, out, positions, fischer_random, quiet, game } => {
            let (text, origin) = pacozero_run::overrides::config_text(config.as_deref(), pacozero_run::overrides::Fallback::DEFAULTS, &set)?;
            let mut cfg = BookConfig::from_toml_str(&text, &origin)?;
            if let Some(n) = positions {
                cfg.positions = n;
            }
            if let Some(k) = fischer_random {
                cfg.fischer_random = k;
            }
            cfg.validate().context("with the command-line overrides")?;
            pacozero_engine::with_game!(game.kind, G => build_book::<G>(&cfg, &model, &out, quiet))
        }
        BookCommand::Probe { book, fen } => on_book(&book, ProbeOrExport::Probe(fen)),
        BookCommand::Export { book, format, out } => on_book(&book, ProbeOrExport::Export(format, out)),
        BookCommand::Import { format: ImportFormat::Platform, input, out } => import_platform(&input, &out),
        BookCommand::Compare { reference, model, sims, book, batch, seed, json, out, quiet } => {
            let (info, rows) = read_any_book(&reference).with_context(|| format!("reading reference book {}", reference.display()))?;
            let platform_game = <PlatformGame as GameRules>::NAME;
            if book_game(&info) != platform_game {
                anyhow::bail!("book compare is for {platform_game} books (the platform's game); {} is a '{}' book", reference.display(), book_game(&info));
            }
            let name = reference.display().to_string();
            let report = match (model, book) {
                (Some(m), _) => {
                    let ev = pacozero_nn::load_network::<PlatformGame>(&m, 0)?;
                    let start = std::time::Instant::now();
                    compare_search(&name, &rows, &ev, sims, batch, seed, |done, total| {
                        if !quiet {
                            eprintln!("compare: {done}/{total} positions, {:.0} s", start.elapsed().as_secs_f64());
                        }
                    })?
                }
                (None, Some(b)) => {
                    let (binfo, brows) = read_any_book(&b).with_context(|| format!("reading book {}", b.display()))?;
                    compare_books(&name, &rows, &format!("book {} (network {})", b.display(), binfo.network), &brows)?
                }
                (None, None) => unreachable!("clap requires --model or --book"),
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.table());
            }
            if let Some(path) = out {
                pacozero_data::write_atomic(&path, &[serde_json::to_string_pretty(&report)?.as_bytes()])?;
            }
            Ok(())
        }
    }
}

/// Imports a platform book: every entry written, the positions lookups use
/// counted, then the entries they leave out by reason with the first examples.
fn import_platform(input: &Path, out: &Path) -> Result<()> {
    let import = import_platform_book(input, &read_platform_book(input)?)?;
    write_book(out, &platform_info(input), &import.rows).with_context(|| format!("writing book {}", out.display()))?;
    let used = lookup_rows(&import.rows).rows;
    let moves: usize = used.iter().map(|p| p.moves.len()).sum();
    let starts = used.iter().filter(|p| p.depth == 0).count();
    println!("{}: {} positions, {} moves, {} start positions, imported from {}", out.display(), used.len(), moves, starts, input.display());
    for line in import.summary() {
        println!("{line}");
    }
    Ok(())
}

fn build_book<G: BookGame>(cfg: &BookConfig, model: &Path, out: &Path, quiet: bool) -> Result<()> {
    let evaluator = pacozero_nn::load_network::<G>(model, 0)?;
    let start = std::time::Instant::now();
    let book = build::<G, _>(cfg, &evaluator, out, |p| {
        if !quiet {
            eprintln!("book: {}/{} positions, frontier {}, {:.0} s", p.positions, p.target, p.frontier, start.elapsed().as_secs_f64());
        }
    })?;
    let moves: usize = book.positions.values().map(|p| p.moves.len()).sum();
    println!("{}: {} positions, {} moves, {} start positions, network {}", out.display(), book.positions.len(), moves, book.roots.len(), book.info.network);
    Ok(())
}

enum ProbeOrExport {
    Probe(String),
    Export(BookFormat, Option<PathBuf>),
}

/// Probes or exports a book of whichever game it was built for.
fn on_book(path: &Path, what: ProbeOrExport) -> Result<()> {
    let (info, rows) = read_any_book(path)?;
    let game: GameKind = book_game(&info).parse().with_context(|| format!("book {}", path.display()))?;
    pacozero_engine::with_game!(game, G => on_book_of(Book::<G>::from_rows(path, info, rows)?, what))
}

fn on_book_of<G: BookGame>(b: Book<G>, what: ProbeOrExport) -> Result<()> {
    match what {
        ProbeOrExport::Probe(fen) => {
            let p = b.probe(&fen)?;
            print!("{}", probe_text(&b, p));
            Ok(())
        }
        ProbeOrExport::Export(format, out) => {
            let text = match format {
                BookFormat::Json => serde_json::to_string_pretty(&export_json(&b))? + "\n",
                BookFormat::Platform => {
                    let book = export_platform_book(&b.info, &b.rows())?;
                    platform_book_json(out.as_deref().unwrap_or(Path::new("<standard output>")), &book)?
                }
            };
            match out {
                Some(path) => Ok(pacozero_data::write_atomic(&path, &[text.as_bytes()])?),
                None => {
                    std::io::stdout().write_all(text.as_bytes()).context("writing to stdout")?;
                    Ok(())
                }
            }
        }
    }
}

fn pct(x: f32) -> String {
    format!("{:.1}", 100.0 * x)
}

/// The book moves of a position as a table.
fn probe_text<G: BookGame>(b: &Book<G>, p: &BookPosition) -> String {
    let rows = b.rows();
    let row = rows.iter().find(|r| r.hash == p.hash).unwrap_or(p);
    let mut s = String::new();
    s.push_str(&format!("book: {} positions, network {}\n", b.positions.len(), b.info.network));
    s.push_str(&format!("position: {}\n", p.fen));
    // Other entries of the position (a platform book keys by the whole FEN).
    let used = &b.positions[&p.hash];
    for other in std::iter::once(used).chain(b.other_rows(p.hash)).filter(|r| r.fen != p.fen) {
        let why = other.skipped.as_deref().map_or(String::new(), |r| format!(" (kept for export only: {r})"));
        s.push_str(&format!("also in the book as: {}{why}\n", other.fen));
    }
    s.push_str(&format!(
        "depth {}, book visits {}, searched with {} visits: value {:+.3} (W {}% D {}% L {}%)\n",
        row.depth,
        row.visits,
        p.simulations,
        p.value(),
        pct(p.wdl[0]),
        pct(p.wdl[1]),
        pct(p.wdl[2])
    ));
    let total: u32 = p.moves.iter().map(|m| m.visits).sum();
    let width = p.moves.iter().map(|m| m.name.len()).max().unwrap_or(4).max(4);
    s.push_str(&format!(
        "{:<width$}  {:>7}  {:>6}  {:>7}  {:>5}  {:>5}  {:>5}  {:>6}  in book\n",
        "move", "visits", "share", "value", "W%", "D%", "L%", "prior"
    ));
    for m in &p.moves {
        s.push_str(&format!(
            "{:<width$}  {:>7}  {:>5.1}%  {:>+7.3}  {:>5}  {:>5}  {:>5}  {:>5.1}%  {}\n",
            m.name,
            m.visits,
            100.0 * m.visits as f64 / total.max(1) as f64,
            m.value(),
            pct(m.wdl[0]),
            pct(m.wdl[1]),
            pct(m.wdl[2]),
            100.0 * m.prior,
            if b.positions.contains_key(&m.child) { "yes" } else { "no" }
        ));
    }
    s
}

fn round4(x: f32) -> Value {
    json!(((x as f64) * 1e4).round() / 1e4)
}

/// FEN → {value, wdl, visits, depth, moves: [{move, actions, visits, value, wdl, prior}]}.
pub fn export_json<G: BookGame>(b: &Book<G>) -> Value {
    let mut map = serde_json::Map::new();
    for p in b.rows() {
        let moves: Vec<Value> = p
            .moves
            .iter()
            .map(|m| {
                json!({
                    "move": m.name,
                    "actions": m.actions,
                    "visits": m.visits,
                    "value": round4(m.value()),
                    "wdl": m.wdl.iter().map(|&x| round4(x)).collect::<Vec<_>>(),
                    "prior": round4(m.prior),
                })
            })
            .collect();
        map.insert(
            p.fen.clone(),
            json!({
                "value": round4(p.value()),
                "wdl": p.wdl.iter().map(|&x| round4(x)).collect::<Vec<_>>(),
                "visits": p.visits,
                "depth": p.depth,
                "moves": moves,
            }),
        );
    }
    Value::Object(map)
}
