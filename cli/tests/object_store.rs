//! Scale-out through an object store (`docs/scale-out.md`): self-play workers
//! and trainers of one run on a shared store, run as real processes.
//!
//! The S3 tests talk to a real S3-compatible server (moto) that
//! `scripts/test.sh` starts on a free local port and names in
//! `PACOZERO_TEST_S3_ENDPOINT`; without that variable they fail and say so.
//! The same flow also runs on a `file://` store, which needs no server.
//!
//! The flow: two workers play at once into their own folders (no model yet:
//! the uniform evaluator); an existing file cannot be overwritten; a worker
//! restarted without its cache takes its games back from the store and plays
//! only new seeds; a trainer downloads every game, uploads its model and sets
//! `models/current`; exporting a name twice is refused; a trainer that read
//! the pointer before another trainer moved it gets a conflict from the
//! conditional put and leaves the pointer alone; a worker started afterwards
//! plays with the new model; every game id is in the store exactly once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pacozero_store::{ObjectKind, Put, RunStore, SwapError};

mod common;
use common::{bin, fresh_s3_store, output_text, s, tiny_selfplay, tiny_train, write_config};

/// A store to run against: its URL and the environment its clients need.
struct Target {
    url: String,
    vars: Vec<(String, String)>,
}

impl Target {
    /// A client of the store in this process, with the same options as the binary gets.
    fn open(&self) -> RunStore {
        RunStore::open_with(&self.url, self.vars.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))).unwrap()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = bin();
        c.args(args).envs(self.vars.iter().map(|(k, v)| (k, v))).env_remove("PACOZERO_TEST_HOLD_BEFORE_SWAP");
        c
    }

    fn run(&self, args: &[&str]) -> String {
        let out = self.command(args).output().unwrap();
        let text = output_text(&out);
        assert!(out.status.success(), "pacozero {args:?} failed:\n{text}");
        text
    }

    fn fails(&self, args: &[&str]) -> String {
        let out = self.command(args).output().unwrap();
        let text = output_text(&out);
        assert!(!out.status.success(), "pacozero {args:?} should have failed:\n{text}");
        text
    }

    fn spawn(&self, args: &[&str], log: &Path, extra: &[(&str, &str)]) -> Child {
        self.command(args)
            .envs(extra.iter().copied())
            .stdout(Stdio::from(std::fs::File::create(log.with_extension("out")).unwrap()))
            .stderr(Stdio::from(std::fs::File::create(log).unwrap()))
            .spawn()
            .unwrap()
    }
}

fn log_text(log: &Path) -> String {
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    format!("{}{}", read(log.with_extension("out")), read(log.to_path_buf()))
}

fn wait_ok(mut child: Child, what: &str, log: &Path) -> String {
    let status = child.wait().unwrap();
    let text = log_text(log);
    assert!(status.success(), "{what} failed:\n{text}");
    text
}

/// A fresh bucket on the local S3-compatible server.
fn s3_target() -> Target {
    let (url, vars) = fresh_s3_store("pacozero", "runs/one");
    Target { url, vars }
}

fn file_target(dir: &Path) -> Target {
    Target { url: format!("file://{}/", dir.display()), vars: Vec::new() }
}

/// Game ids of every chunk in the store (each games file read whole).
fn store_game_ids(store: &RunStore, tmp: &Path) -> Vec<u64> {
    let mut ids = Vec::new();
    for key in store.list("data").unwrap().iter().filter(|k| k.ends_with(".games.parquet")) {
        let file = tmp.join("probe.games.parquet");
        std::fs::write(&file, store.get(key, ObjectKind::Chunk).unwrap().unwrap()).unwrap();
        let (_, games) = pacozero_data::read_games_file(&file).unwrap_or_else(|e| panic!("{key}: {e}"));
        ids.extend(games.iter().map(|g| g.game_id));
    }
    ids
}

/// Network ids of the games of one worker folder.
fn network_ids(store: &RunStore, folder: &str, tmp: &Path) -> HashSet<String> {
    let mut ids = HashSet::new();
    for key in store.list(folder).unwrap().iter().filter(|k| k.ends_with(".games.parquet")) {
        let file = tmp.join("probe.games.parquet");
        std::fs::write(&file, store.get(key, ObjectKind::Chunk).unwrap().unwrap()).unwrap();
        ids.extend(pacozero_data::read_games_file(&file).unwrap().1.into_iter().map(|g| g.network_id));
    }
    ids
}

fn assert_unique(ids: &[u64], expected: usize) {
    let set: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(set.len(), ids.len(), "a game id appears twice in the store: {ids:?}");
    assert_eq!(ids.len(), expected, "games in the store");
}

fn pointer(store: &RunStore) -> String {
    store.read_pointer("models/current").unwrap().map(|(t, _)| t).unwrap_or_default()
}

fn flow(t: &Target) {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path();
    let (sp, tr) = (write_config(tmp, "selfplay.toml", &tiny_selfplay(11)), write_config(tmp, "train.toml", &tiny_train("")));
    let (sp, tr) = (s(&sp), s(&tr));
    let cache = |name: &str| tmp.join(name).to_str().unwrap().to_string();
    let url = t.url.as_str();
    let store = t.open();

    // Two workers at once, no model yet.
    let worker = |n: &str, games: &str, run: &str| {
        vec!["selfplay", "--store", url, "--worker", n, "--run", run, "--config", sp, "--games", games, "--evaluator", "uniform", "--quiet"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let (c1, c2) = (cache("w1"), cache("w2"));
    let (a1, a2) = (worker("1", "4", &c1), worker("2", "4", &c2));
    let (l1, l2) = (tmp.join("w1.log"), tmp.join("w2.log"));
    let p1 = t.spawn(&a1.iter().map(String::as_str).collect::<Vec<_>>(), &l1, &[]);
    let p2 = t.spawn(&a2.iter().map(String::as_str).collect::<Vec<_>>(), &l2, &[]);
    for (p, l) in [(p1, &l1), (p2, &l2)] {
        let text = wait_ok(p, "worker", l);
        assert!(text.contains("games with uniform"), "a worker without a model plays with the baseline:\n{text}");
    }
    let keys = store.list("data").unwrap();
    for w in ["data/w0001/", "data/w0002/"] {
        let games = keys.iter().filter(|k| k.starts_with(w) && k.ends_with(".games.parquet")).count();
        let positions = keys.iter().filter(|k| k.starts_with(w) && k.ends_with(".positions.parquet")).count();
        assert_eq!((games, positions), (4, 4), "chunks of {w} (one game each): {keys:?}");
    }
    assert_unique(&store_game_ids(&store, tmp), 8);

    // Write-once: an existing file is not replaced.
    let key = keys.iter().find(|k| k.ends_with(".games.parquet")).unwrap();
    let before = store.get(key, ObjectKind::Chunk).unwrap().unwrap();
    assert_eq!(store.put_once(key, &b"not a chunk"[..]).unwrap(), Put::AlreadyExists);
    assert_eq!(store.get(key, ObjectKind::Chunk).unwrap().unwrap(), before, "{key} was overwritten");

    // Worker 1 restarted on a "new machine" (empty cache): its games come back
    // from the store, their seeds are skipped, and only new games are added.
    let c1b = cache("w1-restarted");
    let a = worker("1", "2", &c1b);
    let text = t.run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(text.contains("4 chunks restored"), "{text}");
    assert_unique(&store_game_ids(&store, tmp), 10);

    // The trainer reads every game, uploads its model and sets the pointer.
    let t1 = cache("t1");
    let text = t.run(&["train", "--store", url, "--run", &t1, "--config", tr, "--steps", "3", "--export", "gen-a"]);
    assert!(text.contains("10 new chunks downloaded"), "{text}");
    assert_eq!(pointer(&store), "gen-a.pzmodel\n");
    assert!(store.exists("models/gen-a.pzmodel").unwrap());
    let local: HashSet<u64> = pacozero_data::game_ids(&Path::new(&t1).join("data")).unwrap();
    let remote: HashSet<u64> = store_game_ids(&store, tmp).into_iter().collect();
    assert_eq!(local, remote, "the trainer has every game of the store");

    // Models are write-once too.
    let text = t.fails(&["train", "--store", url, "--run", &t1, "--config", tr, "--steps", "1", "--export", "gen-a"]);
    assert!(text.contains("models/gen-a.pzmodel") && text.contains("write-once"), "{text}");

    // Two trainers: B reads the pointer (gen-a) and holds before its swap; C
    // moves the pointer to gen-c; B's conditional put then fails.
    let go = tmp.join("go");
    let lb = tmp.join("b.log");
    let b = t.spawn(
        &["train", "--store", url, "--run", &cache("t2"), "--config", tr, "--steps", "2", "--export", "gen-b"],
        &lb,
        &[("PACOZERO_TEST_HOLD_BEFORE_SWAP", go.to_str().unwrap())],
    );
    let mut b = Some(b);
    let waited = Instant::now();
    while !log_text(&lb).contains("holding before the pointer swap") {
        if let Some(st) = b.as_mut().unwrap().try_wait().unwrap() {
            panic!("trainer B ended ({st}) before its swap:\n{}", log_text(&lb));
        }
        assert!(waited.elapsed() < Duration::from_secs(300), "trainer B never reached its swap:\n{}", log_text(&lb));
        std::thread::sleep(Duration::from_millis(50));
    }
    t.run(&["train", "--store", url, "--run", &cache("t3"), "--config", tr, "--steps", "2", "--export", "gen-c"]);
    assert_eq!(pointer(&store), "gen-c.pzmodel\n");
    std::fs::write(&go, "").unwrap();
    let status = b.take().unwrap().wait().unwrap();
    let text = log_text(&lb);
    assert!(!status.success(), "trainer B must fail:\n{text}");
    assert!(
        text.contains("conflict")
            && text.contains("gen-a.pzmodel")
            && text.contains("gen-c.pzmodel")
            && text.contains("models/gen-b.pzmodel is uploaded but not current"),
        "{text}"
    );
    assert_eq!(pointer(&store), "gen-c.pzmodel\n", "the losing trainer left the pointer alone");
    assert!(store.exists("models/gen-b.pzmodel").unwrap());

    // The same through the library: a swap from a stale version conflicts.
    let (_, now) = store.read_pointer("models/current").unwrap().unwrap();
    store.swap_pointer("models/current", "gen-a.pzmodel\n", Some(&now)).unwrap();
    let e = store.swap_pointer("models/current", "gen-b.pzmodel\n", Some(&now)).unwrap_err();
    assert!(matches!(e, SwapError::Conflict { .. }), "{e}");
    store.swap_pointer("models/current", "gen-c.pzmodel\n", store.read_pointer("models/current").unwrap().map(|p| p.1).as_ref()).unwrap();

    // A worker started now downloads and plays with gen-c.
    let a = worker("3", "2", &cache("w3"));
    let text = t.run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(text.contains("downloaded models/gen-c.pzmodel") && text.contains("games with model gen-c"), "{text}");
    assert_eq!(network_ids(&store, "data/w0003", tmp), HashSet::from(["gen-c".to_string()]), "worker 3's games name the model");

    // Every game id once across the store.
    assert_unique(&store_game_ids(&store, tmp), 12);
    eprintln!("{url}: flow done in {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn s3_store_workers_trainers_and_pointer_on_a_real_server() {
    flow(&s3_target());
}

#[test]
fn file_store_workers_trainers_and_pointer() {
    let dir = tempfile::tempdir().unwrap();
    flow(&file_target(&dir.path().join("store")));
}

/// Version safety across machines: a worker refuses to add its games to a
/// store whose newest chunk (another worker's) is of another game.
#[test]
fn a_worker_refuses_a_store_holding_another_games_data() {
    let dir = tempfile::tempdir().unwrap();
    let t = file_target(&dir.path().join("store"));
    let sp = write_config(dir.path(), "selfplay.toml", &tiny_selfplay(3));
    let sp = s(&sp);
    let cache = |w: &str| dir.path().join(w).to_str().unwrap().to_string();
    let shako_worker = |n: &'static str, c: &str| {
        let args =
            ["selfplay", "--game", "shako", "--store", &t.url, "--worker", n, "--run", c, "--config", sp, "--games", "1", "--evaluator", "uniform", "--quiet"];
        args.map(String::from)
    };
    let run = |args: [String; 16]| t.run(&args.each_ref().map(String::as_str));
    run(shako_worker("1", &cache("w1")));
    let paco_worker =
        ["selfplay", "--store", &t.url, "--worker", "2", "--run", &cache("w2"), "--config", sp, "--games", "1", "--evaluator", "uniform", "--quiet"];
    let text = t.fails(&paco_worker);
    assert!(text.contains("shako") && text.contains("data/w0001/") && !text.contains("panicked"), "{text}");
    assert!(t.open().list("data/w0002").unwrap().is_empty(), "the refused worker wrote nothing");
    // The same game is welcome.
    run(shako_worker("3", &cache("w3")));
}

/// Each store operation against the S3 server, including the refusals the
/// server itself makes (`If-None-Match: *`, `If-Match: <etag>`).
#[test]
fn s3_store_operations_on_a_real_server() {
    let t = s3_target();
    let s = t.open();
    assert_eq!(s.list("").unwrap(), Vec::<String>::new());
    assert_eq!(s.get("models/none.pzmodel", ObjectKind::Model).unwrap(), None);
    assert_eq!(s.put_once("data/w0001/a", &b"one"[..]).unwrap(), Put::Created);
    assert_eq!(s.put_once("data/w0001/a", &b"two"[..]).unwrap(), Put::AlreadyExists);
    assert_eq!(s.get("data/w0001/a", ObjectKind::Chunk).unwrap().unwrap(), &b"one"[..]);
    s.put_once("data/w0002/b", &b"x"[..]).unwrap();
    s.put_once("models/m.pzmodel", &b"x"[..]).unwrap();
    assert_eq!(s.list("data").unwrap(), ["data/w0001/a", "data/w0002/b"]);

    assert!(s.read_pointer("models/current").unwrap().is_none());
    let v1 = s.swap_pointer("models/current", "a\n", None).unwrap();
    assert!(matches!(s.swap_pointer("models/current", "b\n", None), Err(SwapError::Conflict { .. })), "a second first pointer");
    let (text, read) = s.read_pointer("models/current").unwrap().unwrap();
    assert_eq!((text.as_str(), &read.e_tag), ("a\n", &v1.e_tag));
    s.swap_pointer("models/current", "b\n", Some(&read)).unwrap();
    let e = s.swap_pointer("models/current", "c\n", Some(&read)).unwrap_err();
    assert!(matches!(e, SwapError::Conflict { .. }) && e.to_string().contains(&t.url), "{e}");
    assert_eq!(s.read_pointer("models/current").unwrap().unwrap().0, "b\n");
}

/// Address space a reader gets in the oversized-object tests: 2 GiB.
const READER_MEMORY: u64 = 2 << 30;

/// A worker (an empty run: its first store read of any size is the pointer)
/// run under a 2 GiB address-space limit against a store whose
/// `models/current` is oversized: it fails with one error naming the key,
/// the kind and the cap, and is not killed for memory.
fn worker_refuses_an_oversized_pointer(t: &Target, size: &str) {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let sp = write_config(dir.path(), "selfplay.toml", &tiny_selfplay(5));
    let cache = dir.path().join("cache");
    let args = ["selfplay", "--store", &t.url, "--worker", "1", "--run", s(&cache), "--config", s(&sp), "--games", "1", "--evaluator", "uniform", "--quiet"];
    let mut c = t.command(&args);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: READER_MEMORY, rlim_max: READER_MEMORY };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = c.output().unwrap();
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(1), "an error exit, not a signal:\n{text}");
    let want = format!("`models/current` is {size}, over the 4 KiB cap of a pointer object; it was not read");
    assert!(text.contains(&want) && text.contains(&t.url) && !text.contains("memory allocation"), "{want}\n{text}");
}

/// A 1 GB pointer (a sparse file) in a `file://` store.
#[test]
fn a_1_gb_pointer_in_a_file_store_is_one_error_within_2_gib() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir_all(store.join("models")).unwrap();
    std::fs::File::create(store.join("models/current")).unwrap().set_len(1 << 30).unwrap();
    worker_refuses_an_oversized_pointer(&file_target(&store), "1073741824 bytes (1 GiB)");
}

/// A 64 MiB pointer on the S3 server: refused by the size the server
/// declares, before its body is read.
#[test]
fn an_oversized_pointer_on_s3_is_one_error_within_2_gib() {
    let t = s3_target();
    t.open().put_once("models/current", vec![b'x'; 64 << 20]).unwrap();
    worker_refuses_an_oversized_pointer(&t, "67108864 bytes (64 MiB)");
}
