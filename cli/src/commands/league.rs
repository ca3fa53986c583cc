//! `pacozero league`: many players, paired openings, one rating list; the
//! library (`pacozero_arena::league`) plays and rates, `pacozero_run::league`
//! writes its list, plot and page, this prints.

use crate::args::LeagueArgs;
use anyhow::Result;
use pacozero_arena::league::{play_league, LeagueConfig, LeagueHeader, LeagueObserver};
use pacozero_arena::rating_list::Anchor;
use pacozero_engine::Game;
use pacozero_run::league::write_league_outputs;

pub fn run(a: LeagueArgs) -> Result<()> {
    pacozero_engine::with_game!(a.game.kind, G => run_game::<G>(a))
}

/// Draws the progress bar (or nothing with `--quiet`) and says what a start resumes.
struct Progress {
    bar: indicatif::ProgressBar,
}

impl LeagueObserver for Progress {
    fn started(&self, header: &LeagueHeader, done: usize, total: usize) {
        let names: Vec<&str> = header.players.iter().map(|p| p.name.as_str()).collect();
        eprintln!(
            "league of {} players ({}): {} matchups x {} pairs; {done} of {total} pairs already played",
            names.len(),
            names.join(", "),
            header.matchups().len(),
            header.pairs
        );
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
    }
    fn pair_done(&self, done: usize, _total: usize) {
        self.bar.set_position(done as u64);
    }
}

fn run_game<G: Game>(a: LeagueArgs) -> Result<()> {
    let cfg = LeagueConfig {
        game: a.game.kind,
        specs: a.players.clone(),
        gauntlet: a.gauntlet.clone(),
        pairs: a.pairs,
        openings: a.matches.openings,
        seed: a.matches.seed,
        limits: a.matches.limits(),
    };
    let bar = if a.output.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(0) };
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} pairs [{elapsed} < {eta}]").expect("template"));
    // Rounds of two pairs a thread: each round's pairs are appended to the
    // league's file as they end.
    let round = 2 * rayon::current_num_threads();
    let league = play_league::<G>(&a.out, &cfg, round, &Progress { bar: bar.clone() })?;
    bar.finish_and_clear();
    let anchor = match a.anchor {
        Some(name) => {
            let player = league.header.players.iter().find(|p| p.name == name || p.spec == name);
            let name = player.map_or(name, |p| p.name.clone());
            Anchor::Player { name, elo: a.anchor_elo }
        }
        None => Anchor::Mean(a.anchor_elo),
    };
    let list = league.ratings(&anchor)?;
    let table = write_league_outputs(&a.out, &league, &list)?;
    if a.output.json {
        println!("{}", serde_json::to_string_pretty(&list.to_json())?);
    } else {
        print!("{table}");
        println!("{} pairs in {}; the list, its plot and the report are there", league.pairs.len(), a.out.display());
    }
    Ok(())
}
