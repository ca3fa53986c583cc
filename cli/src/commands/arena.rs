//! `pacozero arena`: a match between two players, paired openings, Elo;
//! `--game` picks Paco Ŝako or Shako.

use crate::args::ArenaArgs;
use std::fmt::Write as _;

use anyhow::Result;
use pacozero_arena::ratings::SprtDecision;
use pacozero_arena::{opening, run_match_from, run_match_sprt, Player};
use pacozero_book::BookStarts;
use pacozero_engine::Game;

pub fn run(a: ArenaArgs) -> Result<()> {
    pacozero_engine::with_game!(a.game.kind, G => run_game::<G>(a))
}

fn run_game<G: Game>(a: ArenaArgs) -> Result<()> {
    let pa = Player::<G>::new(&a.players[0], a.matches.seed, 0)?;
    let pb = Player::<G>::new(&a.players[1], a.matches.seed.wrapping_add(1), 0)?;
    let pairs = a.games.div_ceil(2).max(1);
    let limits = a.matches.limits();
    let book = a.book.as_ref().map(|path| BookStarts::from_file::<G>(path, a.book_temperature)).transpose()?;
    let start = |i: u64| match &book {
        Some(book) => book.opening(a.matches.seed, i),
        None => opening(a.matches.openings, a.matches.seed, i),
    };
    // With an SPRT, pairs go in rounds (two per thread, at least eight) and
    // the test looks after each.
    let (m, decision) = with_match_bar(pairs, a.output.quiet, |progress| match &a.sprt {
        Some(t) => {
            let round = (2 * rayon::current_num_threads() as u64).max(8);
            run_match_sprt(&pa, &pb, pairs, &start, limits, a.matches.seed, progress, round, t).map(|(m, d)| (m, Some(d)))
        }
        None => run_match_from(&pa, &pb, pairs, &start, limits, a.matches.seed, progress).map(|m| (m, None)),
    })?;
    if let Some(dir) = &a.record {
        pacozero_arena::records::record_games::<G>(dir, &m.played)?;
    }
    let (elo, ci, pentanomial) = m.elo();
    let (_, ci_trinomial) = m.elo_trinomial();
    let pair_stats = m.pentanomial.stats();
    let mut text = String::new();
    let _ = writeln!(text, "{} vs {}: {} games", pa.name, pb.name, m.games);
    let n = m.wdl.games().max(1) as f64;
    let elo_text = if m.wdl.wins == m.wdl.games() {
        // A perfect score bounds the Elo only from one side: P(all wins) = s^n >= 5%.
        format!("Elo >= {:+.0} (95% one-sided, perfect score)", pacozero_arena::ratings::elo_from_score(0.05f64.powf(1.0 / n)))
    } else if m.wdl.losses == m.wdl.games() {
        format!("Elo <= {:+.0} (95% one-sided, every game lost)", -pacozero_arena::ratings::elo_from_score(0.05f64.powf(1.0 / n)))
    } else {
        let model = if pentanomial { format!("pentanomial, {} pairs", m.pentanomial.pairs()) } else { "trinomial".into() };
        format!("Elo {elo:+.0} ± {ci:.0} (95%, {model}; trinomial ± {ci_trinomial:.0})")
    };
    let _ = writeln!(text, "W/D/L {}/{}/{}  score {:.1}%  {elo_text}", m.wdl.wins, m.wdl.draws, m.wdl.losses, 100.0 * m.wdl.score());
    let _ = writeln!(text, "pentanomial (pairs scoring 0, 0.5, 1, 1.5, 2): {:?}", m.pentanomial.0);
    if let Some(p) = &pair_stats {
        let nelo = p.nelo.map_or_else(|| "nElo n/a (every pair scored the same)".to_string(), |(n, c)| format!("nElo {n:+.0} ± {c:.0}"));
        let _ = writeln!(text, "{nelo}  LOS {:.1}%  (from the pairs)", 100.0 * p.los);
    }
    let sprt = a.sprt.zip(decision).map(|(t, decision)| {
        let (lower, upper) = t.bounds();
        let llr = t.llr(&m.pentanomial);
        let _ = writeln!(
            text,
            "SPRT elo0 {} elo1 {} (logistic, alpha {} beta {}): LLR {llr:.2} in [{lower:.2}, {upper:.2}]: {} after {} pairs{}",
            t.elo0,
            t.elo1,
            t.alpha,
            t.beta,
            decision.name(),
            m.pentanomial.pairs(),
            if decision == SprtDecision::Continue { " (the --games cap)" } else { "" }
        );
        serde_json::json!({ "elo0": t.elo0, "elo1": t.elo1, "alpha": t.alpha, "beta": t.beta, "llr": llr, "lower": lower, "upper": upper, "decision": decision.name() })
    });
    let _ = writeln!(text, "end reasons: {}", serde_json::to_string(&m.end_reasons)?);
    for f in &m.forfeits {
        let _ = writeln!(text, "forfeit: {f}");
    }
    let ((ta, sa), (tb, sb)) = (m.per_decision(0), m.per_decision(1));
    let _ = writeln!(
        text,
        "per decision: {ta:.2} ms, {sa:.1} simulations ({}) vs {tb:.2} ms, {sb:.1} simulations ({}); {} decisions",
        pa.name, pb.name, m.decisions
    );
    let v = serde_json::json!({
        "players": [pa.name, pb.name], "games": m.games,
        "wins": m.wdl.wins, "draws": m.wdl.draws, "losses": m.wdl.losses,
        "score": m.wdl.score(), "elo": elo, "elo_ci95": ci,
        "interval": if pentanomial { "pentanomial" } else { "trinomial" },
        "elo_ci95_trinomial": ci_trinomial,
        "nelo": pair_stats.and_then(|p| p.nelo.map(|n| n.0)), "nelo_ci95": pair_stats.and_then(|p| p.nelo.map(|n| n.1)),
        "los": pair_stats.map(|p| p.los), "pentanomial": m.pentanomial.0,
        "ms_per_decision": [ta, tb], "simulations_per_decision": [sa, sb],
        "end_reasons": m.end_reasons, "forfeits": m.forfeits, "sprt": sprt,
    });
    // `--json`: the JSON instead of the text on standard output (as `book
    // compare --json`); `--out FILE`: a JSON copy in a file.
    if a.output.json {
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{text}");
    }
    if let Some(path) = a.out {
        pacozero_data::write_atomic(&path, &[serde_json::to_string_pretty(&v)?.as_bytes()])?;
    }
    Ok(())
}

/// Runs `f` (a match of `pairs` opening pairs) with a progress bar that its
/// progress callback moves.
pub fn with_match_bar<T>(pairs: u32, quiet: bool, f: impl FnOnce(&(dyn Fn(u64, u64) + Sync)) -> T) -> T {
    let bar = if quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(pairs as u64 * 2) };
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg} [{elapsed} < {eta}]").expect("template"));
    let out = f(&|done, _total| bar.set_position(done));
    bar.finish_and_clear();
    out
}
