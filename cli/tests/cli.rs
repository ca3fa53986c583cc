//! The CLI's external interfaces: perft prints the count last (and divides
//! by first turn), legal answers
//! JSON lines (errors included), show draws unions.

use std::io::Write;
use std::process::Stdio;

mod common;
use common::{bin, manifest_dir};

#[test]
fn perft_prints_the_leaf_count_last() {
    let out = bin().args(["perft", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -", "--depth", "3"]).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some("8902"));
    let out = bin().args(["perft", "--depth", "4", "--atomic"]).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().last(), Some("400"));
}

/// `--divide` lists every first turn in chain notation, sorted, and the
/// counts add up to the total (a chain-heavy position of the vectors).
#[test]
fn perft_divide_lists_first_turns_that_add_up() {
    let fen = "2jT1s1B/5k2/8/1b3oCa/a3fb2/Nac1e3/5K1c/6C1 w 3 - - -";
    let total = |extra: &[&str]| {
        let out = bin().args(["perft", "--fen", fen, "--depth", "2"]).args(extra).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let plain: u64 = total(&[]).trim().parse().unwrap();
    let divided = total(&["--divide"]);
    let lines: Vec<&str> = divided.lines().collect();
    let (last, firsts) = lines.split_last().unwrap();
    assert_eq!(last.parse::<u64>().unwrap(), plain);
    let sum: u64 = firsts.iter().map(|l| l.rsplit_once(": ").unwrap().1.parse::<u64>().unwrap()).sum();
    assert_eq!(sum, plain, "{divided}");
    let names: Vec<&str> = firsts.iter().map(|l| l.rsplit_once(": ").unwrap().0).collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted and distinct: {names:?}");
    assert!(names.iter().any(|n| n.contains('>')), "a chain among the first turns: {names:?}");
}

#[test]
fn perft_with_a_bad_fen_names_the_field() {
    let out = bin().args(["perft", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x 0 AHah - -", "--depth", "1"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("side") && stderr.contains("'x'"), "{stderr}");
}

#[test]
fn legal_answers_each_line_and_survives_bad_ones() {
    let mut child = bin().arg("legal").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let input = concat!(
        "{\"fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -\"}\n",
        "not json\n",
        "{\"start_fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -\", \"actions\": \"Le2\"}\n",
        "{\"start_fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 AHah - -\", \"actions\": \"Le2 Pe5\"}\n",
    );
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["required"], "Lift");
    assert_eq!(lines[0]["legal_actions"].as_array().unwrap().len(), 10);
    assert_eq!(lines[0]["legal_actions"][0], "Lb1");
    assert_eq!(lines[0]["num_full_moves"], 20);
    assert_eq!(lines[0]["status"], "Running");
    assert_eq!((&lines[0]["end_reason"], &lines[0]["winner"]), (&serde_json::json!("running"), &serde_json::Value::Null));
    assert!(lines[1]["error"].as_str().unwrap().contains("line 2"));
    assert_eq!(lines[2]["required"], "Place");
    assert_eq!(lines[2]["legal_actions"], serde_json::json!(["Pe3", "Pe4"]));
    assert_eq!(lines[2]["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR^e2P w 1 AHah - -");
    assert!(lines[3]["error"].as_str().unwrap().contains("Pe5"), "{}", lines[3]);
}

/// `pacozero legal` lists what the platform lists, actions into dead-end
/// chains included: every reference vector (replayed where its FEN cannot
/// say everything) and the two positions the platform found it short in
/// (issue 31). The playable list leaves out exactly the dead ends.
#[test]
fn legal_lists_the_platforms_actions() {
    let data = manifest_dir().join("../engine/tests/data");
    let read = |name: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(data.join(name)).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    };
    let mut queries = Vec::new();
    let mut expected = Vec::new();
    for v in read("vectors.jsonl") {
        let query = if v["fen_exact"] == true {
            serde_json::json!({ "fen": v["fen"] })
        } else {
            serde_json::json!({ "start_fen": v["source"]["start_fen"], "actions": v["source"]["actions_from_start"] })
        };
        queries.push(query.to_string());
        expected.push((v["fen"].clone(), v["legal_actions"].clone(), None));
    }
    for v in read("platform_checks.jsonl") {
        queries.push(serde_json::json!({ "fen": v["fen"] }).to_string());
        expected.push((v["fen"].clone(), v["legal_actions"].clone(), Some(v["dead_end_actions"].clone())));
    }
    let mut child = bin().arg("legal").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(queries.join("\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), expected.len());
    let sorted = |v: &serde_json::Value| -> Vec<String> {
        let mut n: Vec<String> = v.as_array().unwrap_or_else(|| panic!("a list: {v}")).iter().map(|a| a.as_str().unwrap().to_string()).collect();
        n.sort();
        n
    };
    let mut with_dead_ends = 0;
    for (a, (fen, legal, dead_ends)) in answers.iter().zip(&expected) {
        assert_eq!(&a["fen"], fen);
        assert_eq!(sorted(&a["legal_actions"]), sorted(legal), "legal actions in {fen}");
        let playable = sorted(&a["playable_actions"]);
        assert!(playable.iter().all(|p| sorted(legal).contains(p)), "playable actions in {fen}");
        if let Some(d) = dead_ends {
            let want: Vec<String> = sorted(legal).into_iter().filter(|x| !sorted(d).contains(x)).collect();
            assert_eq!(playable, want, "playable actions in {fen}");
        }
        with_dead_ends += usize::from(playable.len() < sorted(legal).len());
    }
    assert!(with_dead_ends >= 2, "only {with_dead_ends} positions with dead-end actions");
}

#[test]
fn show_draws_unions() {
    let out = bin().args(["show", "--fen", "4k3/8/2q5/8/4O3/2w2B2/8/5K2 w 0 - - -"]).output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains(" Nn "), "{s}");
    assert!(s.contains(" Qb "), "{s}");
    assert!(s.contains("White to act: Lift"));
}

/// The reference network plays by its name, and an unknown name lists the names there are.
#[test]
fn arena_plays_the_reference_network_by_name() {
    let out = bin().args(["arena", "--players", "ref:quick-199eb03-gen28:4", "random", "--games", "2", "--max-decisions", "40"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ref:quick-199eb03-gen28:4") && text.contains("W/D/L"), "{text}");
    // An unknown name is refused as the arguments are parsed (a usage error).
    let out = bin().args(["arena", "--players", "ref:no-such-net:4", "random", "--games", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no reference network 'no-such-net'") && err.contains("there are: quick-0109b14-gen119, quick-199eb03-gen28"), "{err}");
}

/// `pacozero arena ARGS --out FILE`: its standard output (the text) and the JSON.
fn arena_json(args: &[&str]) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    let out = bin().arg("arena").args(args).args(["--out", common::s(&json)]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into_owned(), serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap())
}

/// The Elo interval comes from the pentanomial counts (the pairs), the
/// trinomial one beside it, with the normalised Elo and the LOS; the JSON
/// says which interval it gives as `elo_ci95`.
#[test]
fn arena_reports_pentanomial_and_trinomial_intervals() {
    let (text, m) = arena_json(&["--players", "rollout:8", "uniform:8", "--games", "24", "--seed", "3"]);
    assert_eq!(m["interval"], "pentanomial");
    let pairs: Vec<u32> = m["pentanomial"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    let stats = pacozero_arena::ratings::Pentanomial(pairs.try_into().unwrap()).stats().unwrap();
    assert!((m["elo_ci95"].as_f64().unwrap() - stats.elo_ci95).abs() < 1e-9, "{m}");
    assert!((m["los"].as_f64().unwrap() - stats.los).abs() < 1e-9, "{m}");
    assert!(m["elo_ci95_trinomial"].as_f64().is_some(), "{m}");
    assert!(text.contains("pentanomial, 12 pairs; trinomial ±") && text.contains("LOS"), "{text}");
}

/// `--sprt` stops the match at the test's first decision and reports it;
/// a malformed test is refused naming what is wrong.
#[test]
fn arena_sprt_stops_at_its_decision() {
    let (text, m) = arena_json(&["--players", "greedy", "random", "--games", "400", "--sprt", "0,200"]);
    assert_eq!(m["sprt"]["decision"], "H1 accepted", "{m}");
    assert!(m["games"].as_u64().unwrap() < 400 && m["sprt"]["llr"].as_f64().unwrap() >= m["sprt"]["upper"].as_f64().unwrap(), "{m}");
    assert!(text.contains("H1 accepted after"), "{text}");
    let out = bin().args(["arena", "--players", "greedy", "random", "--sprt", "10,0"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("elo0 must be below elo1"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Away from the checkout (an empty reference folder), the built-in copy of
/// the reference network plays, written once to the temporary directory.
#[test]
fn the_reference_network_is_built_into_the_binary() {
    let empty = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let run = || {
        bin()
            .env("PACOZERO_REFERENCE_DIR", empty.path())
            .env("TMPDIR", tmp.path())
            .args(["arena", "--players", "ref:quick-199eb03-gen28:4", "random", "--games", "2", "--max-decisions", "40"])
            .output()
            .unwrap()
    };
    let out = run();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let copy = tmp.path().join("pacozero-reference/quick-199eb03-gen28.pzmodel");
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read("../models/reference/quick-199eb03-gen28.pzmodel").unwrap());
    // A damaged copy is rewritten, not loaded.
    std::fs::write(&copy, b"garbage").unwrap();
    let out = run();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read("../models/reference/quick-199eb03-gen28.pzmodel").unwrap());
    // The second reference network is built in too.
    let out = bin()
        .env("PACOZERO_REFERENCE_DIR", empty.path())
        .env("TMPDIR", tmp.path())
        .args(["arena", "--players", "ref:quick-edd488c-gen71:4", "random", "--games", "2", "--max-decisions", "40"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let copy = tmp.path().join("pacozero-reference/quick-edd488c-gen71.pzmodel");
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read("../models/reference/quick-edd488c-gen71.pzmodel").unwrap());
}

/// `tactics solve` reports the solve rate by depth, and a bad suite line is named.
#[test]
fn tactics_solve_reports_by_depth_and_names_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.jsonl");
    let lines: Vec<&str> = include_str!("../../engine/tests/data/tactics.jsonl").lines().collect();
    let one = lines.iter().find(|l| l.contains("\"depth\":1")).unwrap();
    let two = lines.iter().find(|l| l.contains("\"depth\":2")).unwrap();
    std::fs::write(&suite, format!("{one}\n{two}\n")).unwrap();
    let args = ["tactics", "solve", "--model", "../models/reference/quick-199eb03-gen28.pzmodel", "--sims", "0", "--suite", suite.to_str().unwrap()];
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("on 2 positions") && text.contains("win in 1: ") && text.contains("/1 solved") && text.contains("win in 2: "), "{text}");
    // The reference network by name gives the same figures as its file.
    let mut by_name = args;
    by_name[3] = "ref:quick-199eb03-gen28";
    let named = bin().args(by_name).output().unwrap();
    assert!(named.status.success(), "{}", String::from_utf8_lossy(&named.stderr));
    assert_eq!(String::from_utf8_lossy(&named.stdout), text);
    std::fs::write(
        &suite,
        format!("{one}\n{{\"fen\": \"8/8/8/8/8/8/8/8 w 0 - - -\", \"depth\": 1, \"winning_turns\": [], \"winning_actions\": [], \"source\": \"x\"}}\n"),
    )
    .unwrap();
    let out = bin().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("suite.jsonl, line 2"), "{err}");
}

/// `--version` names the build (version, commit, dirty flag), the backend
/// and the CPUs; a bad `PACOZERO_BACKEND` is an error naming it, not a
/// silent fall back to the CPU (issue 38).
#[test]
fn version_names_the_build_and_a_bad_backend_is_refused() {
    let out = bin().arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.starts_with("pacozero 0.") && text.contains("(commit ") && text.contains("backend flex") && text.contains("CPUs"),
        "{text}"
    );
    for (bad, why) in [("bogus", "unknown backend `bogus`"), ("tch-cuda:x", "tch-cuda:x")] {
        let out = bin().args(["legal"]).env("PACOZERO_BACKEND", bad).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("PACOZERO_BACKEND={bad}")) && err.contains(why), "{err}");
    }
}
