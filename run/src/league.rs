//! A league's files for people: its rating list (`ratings.csv`,
//! `ratings.json`, `ratings.md`), the list as an error-bar plot
//! (`ratings.svg`) and its page (`report.html`). The league itself (its
//! schedule, resumable file and ratings) is `pacozero_arena::league`; the
//! plot and the page are drawn as a run's report draws its own.

use anyhow::Result;
use pacozero_arena::league::LeagueFile;
use pacozero_arena::rating_list::RatingList;
use std::path::Path;

use crate::report::svg::{rating_bars, RatingBar};

/// Writes the league's rating list (CSV, JSON, Markdown), its plot and its
/// page into `dir`; returns the Markdown table.
pub fn write_league_outputs(dir: &Path, league: &LeagueFile, list: &RatingList) -> Result<String> {
    let md = list.to_markdown();
    // The list's files have the names a run directory gives its own.
    let files = pacozero_data::RunDir::new(dir);
    pacozero_data::write_atomic(&files.ratings_csv(), &[list.to_csv().as_bytes()])?;
    pacozero_data::write_atomic(&dir.join("ratings.json"), &[serde_json::to_string_pretty(&list.to_json())?.as_bytes()])?;
    pacozero_data::write_atomic(&files.ratings_md(), &[md.as_bytes()])?;
    let title = format!("League of {} players, {} pairs played ({})", league.header.players.len(), league.pairs.len(), league.header.game);
    let bars: Vec<RatingBar> = list.ratings.iter().map(|r| RatingBar { name: r.name.clone(), elo: r.elo, ci95: r.ci95 }).collect();
    let svg = rating_bars(&title, &format!("Elo ({}; 95% intervals from the pairs)", list.anchor), &bars);
    pacozero_data::write_atomic(&dir.join("ratings.svg"), &[svg.as_bytes()])?;
    let page = crate::report::league_page(&title, &svg, list, &league.matchups());
    pacozero_data::write_atomic(&files.report(), &[page.as_bytes()])?;
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;
    use pacozero_arena::league::{LeagueHeader, PairLine, Schedule};
    use pacozero_arena::rating_list::Anchor;
    use pacozero_arena::Openings;

    #[test]
    fn the_league_ratings_and_their_files() {
        let dir = TempDir::new("league-outputs");
        let players = ["p0", "p1"].map(|name| pacozero_arena::league::LeaguePlayer { name: name.into(), spec: name.into(), model: None, budget: None });
        let header = LeagueHeader {
            league: 1,
            game: "paco".into(),
            specs: vec!["p0".into(), "p1".into()],
            players: players.to_vec(),
            schedule: Schedule::RoundRobin,
            pairs: 2,
            openings: Openings::FischerRandom,
            seed: 3,
            max_decisions: 10,
            adjudicate_material: 0,
        };
        let pair =
            |pair: u32, points: [f64; 2]| PairLine { a: 0, b: 1, pair, points, decisions: [10, 10], end_reasons: ["max_length".into(), "max_length".into()] };
        let f = LeagueFile { header, pairs: vec![pair(0, [0.0, 0.0]), pair(1, [1.0, 0.0])] };
        let list = f.ratings(&Anchor::Player { name: "p0".into(), elo: 0.0 }).unwrap();
        let md = write_league_outputs(dir.path(), &f, &list).unwrap();
        assert_eq!(md, list.to_markdown());
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(read("ratings.md"), md);
        assert_eq!(read("ratings.csv"), list.to_csv());
        let json: serde_json::Value = serde_json::from_str(&read("ratings.json")).unwrap();
        assert_eq!(
            (json["anchor"].as_str(), json["ratings"][0]["player"].as_str(), json["ratings"][1]["elo"].as_f64()),
            (Some("p0 at 0"), Some("p1"), Some(0.0))
        );
        let title = "League of 2 players, 2 pairs played (paco)";
        assert!(read("ratings.svg").contains(title) && read("report.html").contains(title));
    }
}
