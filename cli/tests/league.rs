//! `pacozero league`: a round robin over both reference networks, a rollout
//! player and the generations of a run (`run:DIR:every=K`), killed in the
//! middle and resumed; one rating list with intervals, its plot and page;
//! a gauntlet; a changed league refused.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod common;
use common::{bin, output_text, run_ok, s};

/// A run directory whose generations 1..=4 are the two reference networks in turn.
fn fake_run(dir: &Path) -> std::path::PathBuf {
    let run = dir.join("quick");
    std::fs::create_dir_all(run.join("models")).unwrap();
    for g in 1..=4 {
        let from = if g % 2 == 1 { "quick-199eb03-gen28" } else { "quick-edd488c-gen71" };
        std::fs::copy(format!("../models/reference/{from}.pzmodel"), run.join(format!("models/gen-{g:04}.pzmodel"))).unwrap();
    }
    run
}

fn pair_lines(league: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(league.join("league.jsonl")).unwrap_or_default();
    text.lines().skip(1).map(str::to_string).collect()
}

#[test]
fn a_round_robin_is_killed_resumed_and_rated() {
    let dir = tempfile::tempdir().unwrap();
    let run = fake_run(dir.path());
    let league = dir.path().join("league");
    let run_spec = format!("run:{}:every=2:4", run.display());
    let args = |pairs: &str| -> Vec<String> {
        [
            "league",
            "--players",
            "ref:quick-199eb03-gen28:4",
            "ref:quick-edd488c-gen71:4",
            "rollout:4",
            &run_spec,
            "--out",
            s(&league),
            "--pairs",
            pairs,
            "--max-decisions",
            "60",
            "--anchor",
            "rollout:4",
            "--quiet",
        ]
        .iter()
        .map(|x| x.to_string())
        .collect()
    };
    // 5 players (gen-0002 and gen-0004 of the run), 10 matchups x 12 pairs;
    // killed once a dozen pairs are in the file.
    let mut child = bin().args(args("12")).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let t0 = Instant::now();
    while pair_lines(&league).len() < 12 {
        assert!(t0.elapsed() < Duration::from_secs(300), "no pairs after 5 minutes");
        assert!(child.try_wait().unwrap().is_none(), "the league ended before it was killed: give it more pairs");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = pair_lines(&league);
    assert!(before.len() < 120, "killed before the end: {} pairs", before.len());

    let out = run_ok(&args("12").iter().map(String::as_str).collect::<Vec<_>>());
    let text = output_text(&out);
    let after = pair_lines(&league);
    assert_eq!(after.len(), 120, "every pair once after the resume:\n{text}");
    // The pairs of the first start stay as they were (a cut last line aside).
    let kept = before.iter().filter(|l| after.contains(l)).count();
    assert!(kept + 1 >= before.len(), "{kept} of {} earlier pairs kept", before.len());
    let mut keys: Vec<(u64, u64, u64)> = after
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["a"].as_u64().unwrap(), v["b"].as_u64().unwrap(), v["pair"].as_u64().unwrap())
        })
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 120, "no pair played twice");
    // Every game in the games table, once, with the players' specs.
    let ids = pacozero_data::game_ids(&league.join("games")).unwrap();
    assert_eq!(ids.len(), 240, "two games a pair in league/games");
    let out = run_ok(&["games", "export", s(&league.join("games")), "--format", "pgn"]);
    let pgn = String::from_utf8_lossy(&out.stdout);
    assert_eq!(pgn.matches("[Result ").count(), 240, "every game exports");
    assert!(pgn.contains("ref:quick-edd488c-gen71:4") && pgn.contains("rollout:4"), "the players' specs");
    assert!(text.contains("already played") && text.contains("pairs in"), "{text}");

    // One list over all five, pinned at the anchor, every interval finite here or marked.
    let csv = std::fs::read_to_string(league.join("ratings.csv")).unwrap();
    assert_eq!(csv.lines().next(), Some("player,elo,ci95,ci95_trinomial,above_next,above_next_ci95,score,games"));
    for name in ["ref:quick-199eb03-gen28:4", "ref:quick-edd488c-gen71:4", "rollout:4", "quick/gen-0002", "quick/gen-0004"] {
        let line = csv.lines().find(|l| l.starts_with(&format!("{name},"))).unwrap_or_else(|| panic!("{name} missing:\n{csv}"));
        let games: u32 = line.rsplit(',').next().unwrap().parse().unwrap();
        assert_eq!(games, 4 * 12 * 2, "{line}");
    }
    assert!(!csv.contains("quick/gen-0001") && !csv.contains("quick/gen-0003"), "every=2 takes the even generations:\n{csv}");
    let anchor = csv.lines().find(|l| l.starts_with("rollout:4,")).unwrap();
    assert!(anchor.starts_with("rollout:4,0.0,0.0,"), "{anchor}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(league.join("ratings.json")).unwrap()).unwrap();
    assert_eq!(json["ratings"].as_array().unwrap().len(), 5);
    let page = std::fs::read_to_string(league.join("report.html")).unwrap();
    assert_eq!(page.matches("class=\"interval\"").count(), 5, "one error bar per player");
    assert!(page.contains("Cross table") && page.contains("quick/gen-0004"));
    assert!(league.join("ratings.svg").is_file() && league.join("ratings.md").is_file());

    // A resume with other settings is refused, naming them.
    let mut other = args("12");
    let i = other.iter().position(|a| a == "--max-decisions").unwrap();
    other[i + 1] = "80".into();
    let out = bin().args(&other).output().unwrap();
    assert!(!out.status.success());
    let err = output_text(&out);
    assert!(err.contains("another league") && err.contains("max_decisions"), "{err}");
}

#[test]
fn a_gauntlet_plays_one_player_against_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let league = dir.path().join("g");
    let out = run_ok(&[
        "league",
        "--players",
        "ref:quick-edd488c-gen71:4",
        "rollout:4",
        "random",
        "greedy",
        "--gauntlet",
        "ref:quick-edd488c-gen71:4",
        "--pairs",
        "2",
        "--max-decisions",
        "40",
        "--json",
        "--out",
        s(&league),
        "--quiet",
    ]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["ratings"].as_array().unwrap().len(), 4);
    assert!(list["anchor"].as_str().unwrap().contains("mean"), "{list}");
    let lines = pair_lines(&league);
    assert_eq!(lines.len(), 3 * 2, "three matchups of two pairs");
    assert!(lines.iter().all(|l| l.contains("\"a\":0")), "the gauntlet's player is in every pair");

    // Errors name what is wrong.
    let out = bin().args(["league", "--players", "rollout:4", "--out", s(&dir.path().join("x"))]).output().unwrap();
    assert!(!out.status.success() && output_text(&out).contains("at least two players"), "{}", output_text(&out));
    let out = bin().args(["league", "--players", "rollout:4", "random", "--gauntlet", "nobody", "--out", s(&dir.path().join("y"))]).output().unwrap();
    assert!(output_text(&out).contains("gauntlet's player nobody is not one of the players"), "{}", output_text(&out));
    let out = bin().args(["league", "--players", "rollout:4", "run:/no/such/run:every=2", "--out", s(&dir.path().join("z"))]).output().unwrap();
    assert!(output_text(&out).contains("/no/such/run/models"), "{}", output_text(&out));
}
