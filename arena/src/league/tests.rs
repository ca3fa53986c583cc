use super::*;
use pacozero_testkit::engines::marking_engine;
use tempfile::TempDir;

/// The whole message of an error (with its causes).
fn err_text<T>(r: Result<T>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => format!("{e:#}"),
    }
}

/// An untrained tiny network of game `G` as `dir/<name>.pzmodel`.
fn tiny_model_in<G: Game>(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(format!("{name}.pzmodel"));
    pacozero_nn::export_untrained(&pacozero_nn::NetConfig::tiny_for(&pacozero_data::game_spec::<G>()), name, &path).unwrap();
    path
}

/// A new temporary directory.
fn temp_dir() -> TempDir {
    tempfile::tempdir().unwrap()
}
use pacozero_engine::paco::GameState as Paco;
use std::sync::Mutex;

#[test]
fn every_game_of_a_league_has_its_own_seed_from_every_bit_of_the_leagues() {
    let mut seen = std::collections::HashSet::new();
    for (a, b) in [(0, 1), (1, 0), (0, 2), (2, 1), (3, 0)] {
        for pair in 0..8 {
            for seed in game_seeds(99, a, b, pair) {
                assert!(seen.insert(seed), "players {a} and {b}, pair {pair}: seed {seed} twice");
            }
        }
    }
    for bit in 0..64 {
        assert_ne!(game_seeds(99 ^ (1 << bit), 1, 2, 3), game_seeds(99, 1, 2, 3), "bit {bit}");
    }
}

fn player(name: &str) -> LeaguePlayer {
    LeaguePlayer { name: name.into(), spec: name.into(), model: None, budget: None }
}

/// The records of the players a spec's text stands for.
fn expand(text: &str) -> Result<Vec<LeaguePlayer>> {
    Ok(expand_spec(&text.parse()?)?.into_iter().map(|e| e.record).collect())
}

/// A league's header alone.
fn header_of(cfg: &LeagueConfig) -> Result<LeagueHeader> {
    LeagueHeader::of(cfg).map(|(h, _)| h)
}

fn config(specs: &[&str], gauntlet: Option<&str>, pairs: u32) -> LeagueConfig {
    LeagueConfig {
        game: GameKind::Paco,
        specs: specs.iter().map(|s| s.parse().unwrap()).collect(),
        gauntlet: gauntlet.map(str::to_string),
        pairs,
        openings: Openings::FischerRandom,
        seed: 3,
        limits: GameLimits { max_decisions: 10, adjudicate_material: 0 },
    }
}

fn header(players: &[&str], schedule: Schedule, pairs: u32) -> LeagueHeader {
    LeagueHeader {
        league: 1,
        game: "paco".into(),
        specs: players.iter().map(|s| s.to_string()).collect(),
        players: players.iter().map(|p| player(p)).collect(),
        schedule,
        pairs,
        openings: Openings::FischerRandom,
        seed: 3,
        max_decisions: 10,
        adjudicate_material: 0,
    }
}

fn pair(a: usize, b: usize, pair: u32, points: [f64; 2]) -> PairLine {
    PairLine { a, b, pair, points, decisions: [10, 10], end_reasons: ["max_length".into(), "max_length".into()] }
}

/// A run directory `dir/<name>` whose `models/` holds empty files named `files`.
fn run_with_files(dir: &TempDir, name: &str, files: &[&str]) -> PathBuf {
    let run = dir.path().join(name);
    std::fs::create_dir_all(run.join("models")).unwrap();
    for f in files {
        std::fs::write(run.join("models").join(f), b"").unwrap();
    }
    run
}

#[test]
fn a_spec_is_one_player_named_by_it() {
    assert_eq!(expand("rollout:8").unwrap(), [player("rollout:8")]);
    assert!(err_text(expand("bogus:1")).contains("unknown player spec 'bogus:1'"));
}

#[test]
fn a_run_spec_is_every_kth_generation_of_the_run_with_its_budget() {
    let dir = temp_dir();
    let files = ["gen-0001.pzmodel", "gen-0002.pzmodel", "gen-0003.pzmodel", "gen-0004.pzmodel", "gen-x.pzmodel", "other.pzmodel", "current"];
    let run = run_with_files(&dir, "run-a", &files);
    let names = |spec: &str| -> Vec<(String, String, Option<String>)> { expand(spec).unwrap().into_iter().map(|p| (p.name, p.spec, p.budget)).collect() };
    let entry = |g: u32, budget: &str| {
        let path = run.join(format!("models/gen-{g:04}.pzmodel"));
        (format!("run-a/gen-{g:04}"), format!("net:{}:{budget}", path.display()), Some(budget.to_string()))
    };
    let r = run.display();
    assert_eq!(names(&format!("run:{r}")), [entry(1, "64"), entry(2, "64"), entry(3, "64"), entry(4, "64")]);
    assert_eq!(names(&format!("run:{r}:every=2:50ms")), [entry(2, "50ms"), entry(4, "50ms")]);
    assert_eq!(names(&format!("run:{r}:50ms:every=3")), [entry(3, "50ms")]);
    assert_eq!(expand(&format!("run:{r}:every=4")).unwrap()[0].model, Some(run.join("models/gen-0004.pzmodel")));
    let e = err_text(expand(&format!("run:{r}:every=0")));
    assert!(e.contains("'every=0' should be every=<generations, at least 1>"), "{e}");
    let e = err_text(expand(&format!("run:{r}:every=5")));
    assert!(e.contains("holds no gen-NNNN.pzmodel with a generation divisible by 5"), "{e}");
    // The directory is all before the options, even one named like a budget.
    let e = err_text(expand("run:64"));
    assert!(e.contains("player 'run:64': reading 64/models"), "{e}");
    let colon = run_with_files(&dir, "x:y", &["gen-0007.pzmodel"]);
    assert_eq!(expand(&format!("run:{}", colon.display())).unwrap()[0].name, "x:y/gen-0007");
}

#[test]
fn a_generation_in_a_folder_with_a_colon_plays_from_its_model_file() {
    let dir = temp_dir();
    tiny_model_in::<Paco>(&dir.path().join("x:y/models"), "gen-0001");
    let players = expand_spec(&format!("run:{}:8", dir.path().join("x:y").display()).parse().unwrap()).unwrap();
    let p = players[0].player::<Paco>(1).unwrap();
    assert_eq!(p.name, "x:y/gen-0001");
}

#[test]
fn a_league_header_has_two_players_at_least_each_once_and_a_pair_a_matchup() {
    let e = err_text(header_of(&config(&["greedy"], None, 1)));
    assert!(e.contains("a league needs at least two players, got 1"), "{e}");
    let e = err_text(header_of(&config(&["greedy", "random", "greedy"], None, 1)));
    assert!(e.contains("two players are named greedy (from 'greedy')"), "{e}");
    let e = err_text(header_of(&config(&["greedy", "random"], None, 0)));
    assert!(e.contains("at least one pair of games a matchup"), "{e}");
    let h = header_of(&config(&["greedy", "random"], None, 1)).unwrap();
    assert_eq!(h, header(&["greedy", "random"], Schedule::RoundRobin, 1));
    let h = header_of(&config(&["greedy", "random", "uniform:2"], None, 2)).unwrap();
    assert_eq!(h.players.len(), 3);
}

#[test]
fn the_gauntlets_player_is_found_by_name_or_by_spec() {
    let dir = temp_dir();
    let run = run_with_files(&dir, "r", &["gen-0001.pzmodel", "gen-0002.pzmodel"]);
    let specs = ["greedy".to_string(), format!("run:{}", run.display()), "random".to_string()];
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let of = |g: &str| header_of(&config(&specs, Some(g), 1)).map(|h| h.schedule);
    assert_eq!(of("r/gen-0002").unwrap(), Schedule::Gauntlet("r/gen-0002".into()));
    let spec = format!("net:{}:64", run.join("models/gen-0001.pzmodel").display());
    assert_eq!(of(&spec).unwrap(), Schedule::Gauntlet("r/gen-0001".into()));
    assert_eq!(of("random").unwrap(), Schedule::Gauntlet("random".into()));
    let e = err_text(of("uniform:9"));
    assert!(e.contains("the gauntlet's player uniform:9 is not one of the players (greedy, r/gen-0001, r/gen-0002, random)"), "{e}");
}

#[test]
fn a_round_robin_meets_every_pair_once_and_a_gauntlet_only_its_player() {
    let rr = header(&["p0", "p1", "p2", "p3"], Schedule::RoundRobin, 1);
    assert_eq!(rr.matchups(), [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    let g = header(&["p0", "p1", "p2", "p3"], Schedule::Gauntlet("p2".into()), 1);
    assert_eq!(g.matchups(), [(2, 0), (2, 1), (2, 3)]);
    // Pair 0 of every matchup, then pair 1.
    let h = header(&["p0", "p1", "p2"], Schedule::RoundRobin, 2);
    assert_eq!(h.schedule(), [(0, 1, 0), (0, 2, 0), (1, 2, 0), (0, 1, 1), (0, 2, 1), (1, 2, 1)]);
}

#[test]
fn a_resumed_league_names_every_setting_that_differs() {
    let h = header(&["p0", "p1"], Schedule::RoundRobin, 2);
    assert!(h.differences(&h.clone()).is_empty());
    let changes: [(&str, LeagueHeader); 8] = [
        ("game", LeagueHeader { game: "shako".into(), ..h.clone() }),
        ("players", LeagueHeader { specs: vec!["p0".into(), "p9".into()], ..h.clone() }),
        ("schedule", LeagueHeader { schedule: Schedule::Gauntlet("p0".into()), ..h.clone() }),
        ("pairs", LeagueHeader { pairs: 3, ..h.clone() }),
        ("openings", LeagueHeader { openings: Openings::Standard, ..h.clone() }),
        ("seed", LeagueHeader { seed: 4, ..h.clone() }),
        ("max_decisions", LeagueHeader { max_decisions: 11, ..h.clone() }),
        ("adjudicate_material", LeagueHeader { adjudicate_material: 1, ..h.clone() }),
    ];
    for (name, other) in changes {
        assert_eq!(h.differences(&other), [name]);
    }
    let both = LeagueHeader { pairs: 3, seed: 4, ..h.clone() };
    assert_eq!(h.differences(&both), ["pairs", "seed"]);
}

#[test]
fn a_league_file_is_read_with_its_pairs_and_a_pair_outside_the_league_is_named_by_line() {
    let dir = temp_dir();
    assert!(read_league(dir.path()).unwrap().is_none());
    let h = header(&["p0", "p1", "p2"], Schedule::RoundRobin, 2);
    let path = dir.path().join(LEAGUE_FILE);
    let line = |p: &PairLine| serde_json::to_string(p).unwrap();
    let head = serde_json::to_string(&h).unwrap();
    // The last players and the last pair are inside; a cut last line is dropped.
    let good = pair(1, 2, 1, [1.0, 0.5]);
    std::fs::write(&path, format!("{head}\n{}\n{{\"a\":0,", line(&good))).unwrap();
    let f = read_league(dir.path()).unwrap().unwrap();
    assert_eq!((f.header, f.pairs), (h.clone(), vec![good.clone()]));
    for (bad, what) in [
        (pair(3, 0, 0, [1.0, 1.0]), "pair 0 of players 3 and 0"),
        (pair(0, 3, 0, [1.0, 1.0]), "pair 0 of players 0 and 3"),
        (pair(0, 1, 2, [1.0, 1.0]), "pair 2 of players 0 and 1"),
    ] {
        std::fs::write(&path, format!("{head}\n{}\n{}\n", line(&good), line(&bad))).unwrap();
        let e = err_text(read_league(dir.path()));
        assert_eq!(e, format!("{}:3: {what} is outside the league (3 players, 2 pairs)", path.display()));
    }
    std::fs::write(&path, format!("{head}\n{{\"a\":0}}\n{}\n", line(&good))).unwrap();
    assert!(err_text(read_league(dir.path())).starts_with(&format!("{}:2: not a pair line", path.display())));
    std::fs::write(&path, "{}\n").unwrap();
    assert!(err_text(read_league(dir.path())).starts_with(&format!("{}:1: not a league header", path.display())));
}

#[test]
fn a_resumed_league_starts_no_program_and_reads_no_model_that_only_its_file_names() {
    let dir = temp_dir();
    let marker = dir.path().join("started");
    let program = format!("uci:{}:nodes=1", marking_engine(dir.path(), &marker).display());
    let outside = tiny_model_in::<Paco>(&dir.path().join("elsewhere"), "m");
    let cfg = config(&["random", "greedy"], None, 1);
    let league = dir.path().join("league");
    std::fs::create_dir_all(&league).unwrap();
    let path = league.join(LEAGUE_FILE);
    // The file's specs are the command line's; its second player is not.
    let edited = [
        (LeaguePlayer { name: "greedy".into(), spec: program.clone(), model: None, budget: None }, format!("greedy (the program {program})")),
        (
            LeaguePlayer { name: "greedy".into(), spec: format!("net:{}:8", outside.display()), model: Some(outside.clone()), budget: Some("8".into()) },
            format!("greedy (the model {})", outside.display()),
        ),
    ];
    for (player, named) in edited {
        let mut header = header_of(&cfg).unwrap();
        header.players[1] = player;
        std::fs::write(&path, serde_json::to_string(&header).unwrap() + "\n").unwrap();
        let e = err_text(play_league::<Paco>(&league, &cfg, 2, &Heard::default()));
        assert_eq!(
            e,
            format!(
                "{} names players that the command line does not give: {named}; a league starts no program and reads no model because its file says so. \
                     Resume it with the players it was started with, or give a new directory",
                path.display()
            )
        );
        assert!(!marker.exists(), "the program was started");
        assert_eq!(read_league(&league).unwrap().unwrap().header, header, "the file is left as it was");
    }
    // Given on the command line, the program plays (and forfeits).
    let cfg = config(&["random", &program], None, 1);
    std::fs::write(&path, serde_json::to_string(&header_of(&cfg).unwrap()).unwrap() + "\n").unwrap();
    let f = play_league::<Paco>(&league, &cfg, 2, &Heard::default()).unwrap();
    assert!(marker.exists());
    assert_eq!((f.pairs.len(), f.header.players[1].spec.as_str()), (1, program.as_str()));
}

#[test]
fn a_gauntlet_whose_player_is_not_in_the_league_is_refused_at_reading() {
    let dir = temp_dir();
    let h = header(&["p0", "p1"], Schedule::Gauntlet("p9".into()), 1);
    std::fs::write(dir.path().join(LEAGUE_FILE), serde_json::to_string(&h).unwrap() + "\n").unwrap();
    let e = err_text(read_league(dir.path()));
    assert_eq!(e, format!("{}:1: the gauntlet's player p9 is not one of the league's players", dir.path().join(LEAGUE_FILE).display()));
}

#[test]
fn a_draw_is_half_a_point_and_a_win_a_point_for_the_winners_colour() {
    assert_eq!(points(Outcome::Draw, Color::White), 0.5);
    assert_eq!(points(Outcome::Draw, Color::Black), 0.5);
    assert_eq!(points(Outcome::Win(Color::White), Color::White), 1.0);
    assert_eq!(points(Outcome::Win(Color::White), Color::Black), 0.0);
    assert_eq!(points(Outcome::Win(Color::Black), Color::Black), 1.0);
    assert_eq!(points(Outcome::Win(Color::Black), Color::White), 0.0);
}

#[test]
fn pairs_add_up_by_matchup_to_wins_draws_losses_and_pair_counts() {
    let f = LeagueFile {
        header: header(&["p0", "p1", "p2"], Schedule::RoundRobin, 2),
        pairs: vec![pair(0, 1, 0, [1.0, 0.5]), pair(0, 2, 0, [0.0, 0.0]), pair(0, 1, 1, [1.0, 1.0]), pair(1, 2, 0, [0.5, 0.5])],
    };
    let m = |a: &str, b: &str, w: u32, d: u32, l: u32, p: [u32; 5]| Matchup {
        a: a.into(),
        b: b.into(),
        wdl: Wdl { wins: w, draws: d, losses: l },
        pentanomial: Pentanomial(p),
    };
    // p0-p1: 1 + 0.5 (a pair of 1.5 points) and 1 + 1 (2 points); p0-p2: 0 + 0; p1-p2: 0.5 + 0.5.
    assert_eq!(f.matchups(), [m("p0", "p1", 3, 1, 0, [0, 0, 0, 1, 1]), m("p0", "p2", 0, 0, 2, [1, 0, 0, 0, 0]), m("p1", "p2", 0, 2, 0, [0, 0, 1, 0, 0])]);
}

#[test]
fn the_league_ratings_fit_every_pair_with_the_lists_prior() {
    // p1 scores 3 of 4 against p0, 4 of 6 with the list's two virtual draws: 400 log10(4 / 2) = +120.4 Elo.
    let f = LeagueFile { header: header(&["p0", "p1"], Schedule::RoundRobin, 2), pairs: vec![pair(0, 1, 0, [0.0, 0.0]), pair(0, 1, 1, [1.0, 0.0])] };
    let list = f.ratings(&Anchor::Player { name: "p0".into(), elo: 0.0 }).unwrap();
    assert_eq!(list.get("p0").unwrap().elo, 0.0);
    assert!((list.get("p1").unwrap().elo - 400.0 * 2f64.log10()).abs() < 0.1, "{list:?}");
}

/// A league observer that keeps what it hears.
#[derive(Default)]
struct Heard {
    started: Mutex<Vec<(usize, usize)>>,
    done: Mutex<Vec<(usize, usize)>>,
}

impl LeagueObserver for Heard {
    fn started(&self, _header: &LeagueHeader, done: usize, total: usize) {
        self.started.lock().unwrap().push((done, total));
    }
    fn pair_done(&self, done: usize, total: usize) {
        self.done.lock().unwrap().push((done, total));
    }
}

#[test]
fn a_league_plays_its_schedule_in_rounds_and_a_restart_plays_only_what_is_missing() {
    let dir = temp_dir();
    let league = dir.path().join("league");
    let cfg = config(&["random", "greedy", "uniform:2"], None, 2);
    let heard = Heard::default();
    let f = play_league::<Paco>(&league, &cfg, 2, &heard).unwrap();
    let keys: Vec<(usize, usize, u32)> = f.pairs.iter().map(|p| (p.a, p.b, p.pair)).collect();
    let schedule = [(0, 1, 0), (0, 2, 0), (1, 2, 0), (0, 1, 1), (0, 2, 1), (1, 2, 1)];
    assert_eq!(keys, schedule);
    assert!(f.pairs.iter().all(|p| p.points.iter().all(|x| [0.0, 0.5, 1.0].contains(x)) && p.decisions.iter().all(|&d| d <= 10)), "{:?}", f.pairs);
    assert_eq!(*heard.started.lock().unwrap(), [(0, 6)]);
    let mut done = heard.done.lock().unwrap().clone();
    done.sort();
    assert_eq!(done, (1..=6).map(|d| (d, 6)).collect::<Vec<_>>());
    // One chunk of games per round of two pairs, named by its first pair.
    let stems: Vec<String> = pacozero_data::list_chunks(&league.join(GAMES_DIR)).unwrap().into_iter().map(|c| c.stem).collect();
    assert_eq!(stems, ["league-00000-000-001", "league-00000-001-002", "league-00001-000-002"]);
    let read = read_league(&league).unwrap().unwrap();
    assert_eq!((read.header, read.pairs), (f.header.clone(), f.pairs.clone()));

    // Killed after two pairs, in the middle of the third line: the restart plays the last four.
    let path = league.join(LEAGUE_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(&path, format!("{}\n{{\"a\":1,\"b\"", kept.join("\n"))).unwrap();
    let heard = Heard::default();
    let f = play_league::<Paco>(&league, &cfg, 2, &heard).unwrap();
    let keys: Vec<(usize, usize, u32)> = f.pairs.iter().map(|p| (p.a, p.b, p.pair)).collect();
    assert_eq!(keys, schedule);
    assert_eq!(*heard.started.lock().unwrap(), [(2, 6)]);
    let mut done = heard.done.lock().unwrap().clone();
    done.sort();
    assert_eq!(done, (3..=6).map(|d| (d, 6)).collect::<Vec<_>>());
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 7, "{text}");
    assert!(text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "the cut line is gone: {text}");

    // Another league in the same directory is refused, naming what differs.
    let other = LeagueConfig { pairs: 3, seed: 4, ..cfg.clone() };
    let e = err_text(play_league::<Paco>(&league, &other, 2, &Heard::default()));
    assert_eq!(e, format!("{} is another league (pairs, seed differ): resume it with the same settings, or give a new directory", path.display()));
    // And so is a league of one game played as another.
    let e = err_text(play_league::<pacozero_engine::shako::GameState>(&dir.path().join("shako"), &cfg, 2, &Heard::default()));
    assert!(e.ends_with("is a league of paco, not shako"), "{e}");
}
