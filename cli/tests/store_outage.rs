//! A store that goes away (`docs/scale-out.md`, "A store that goes away"): a
//! store-mode run of two self-play workers, a trainer (`--no-promote`) and
//! the evaluator against the S3 server, while the store is made unreachable
//! at seeded random moments and a process, picked at random, is killed
//! (and restarted, as its job would be) every few minutes.
//!
//! The store is cut off by a TCP proxy in this test between the processes and
//! the S3 server: while it is "down" it refuses connections and resets the
//! open ones, and the server keeps its objects (moto holds them in memory).
//!
//! Afterwards: every game a worker recorded is in the store once, and each
//! worker's games are exactly those of an uninterrupted worker (no game lost,
//! none duplicated); every model in the store loads; every model has its
//! evaluation and a rating. The retries and the downtime each process rode
//! out are read from their logs and printed.
//!
//! By default a short variant runs (about 2.5 minutes: one outage of 15 s,
//! one kill). `PACOZERO_STORE_OUTAGE_MINUTES=20` runs the full test: two
//! outages of 60 s, a kill every 4 minutes. `PACOZERO_STORE_OUTAGE_SEED`
//! picks the moments (default 1).

use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pacozero_store::{ObjectKind, RunStore};

mod common;
mod slurm_support;
use common::{bin, fresh_s3_store, output_text, s, tiny_selfplay, tiny_train, write_config};
use slurm_support::{assert_unique, ids_of, store_games};

/// What one run of the test does.
struct Plan {
    duration: Duration,
    /// Outages: each starts at a moment and lasts this long.
    outages: Vec<Duration>,
    outage_length: Duration,
    /// Kills: at these moments.
    kills: Vec<Duration>,
    seed: u64,
}

/// xorshift64*: the seeded moments and victims.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A whole number of seconds in `lo..hi`.
    fn secs(&mut self, lo: u64, hi: u64) -> Duration {
        Duration::from_secs(lo + self.next() % (hi - lo).max(1))
    }
}

impl Plan {
    fn from_env() -> Plan {
        let seed: u64 = std::env::var("PACOZERO_STORE_OUTAGE_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        match std::env::var("PACOZERO_STORE_OUTAGE_MINUTES").ok().and_then(|v| v.parse::<u64>().ok()) {
            Some(minutes) => {
                let total = minutes * 60;
                // Two outages of 60 s, one in each half, ending a minute before the end.
                let half = total / 2;
                let outages = vec![rng.secs(60, half - 60), rng.secs(half, total - 120)];
                // A kill every 4 minutes, at a random second of each stretch.
                let kills = (0..total / 240).map(|k| Duration::from_secs(k * 240) + rng.secs(30, 240)).collect();
                Plan { duration: Duration::from_secs(total), outages, outage_length: Duration::from_secs(60), kills, seed }
            }
            None => Plan {
                duration: Duration::from_secs(150),
                outages: vec![rng.secs(40, 90)],
                outage_length: Duration::from_secs(15),
                kills: vec![rng.secs(60, 120)],
                seed,
            },
        }
    }
}

/// A TCP proxy to the S3 server that can cut the store off.
struct Proxy {
    port: u16,
    down: Arc<AtomicBool>,
}

impl Proxy {
    fn start(target: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let down = Arc::new(AtomicBool::new(false));
        let d = down.clone();
        std::thread::spawn(move || {
            let mut listener = Some(listener);
            loop {
                if d.load(Ordering::SeqCst) {
                    // Down: no listener, so connections are refused.
                    listener = None;
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                let l = listener.get_or_insert_with(|| {
                    let l = TcpListener::bind(("127.0.0.1", port)).expect("the proxy takes its port back");
                    l.set_nonblocking(true).unwrap();
                    l
                });
                l.set_nonblocking(true).unwrap();
                match l.accept() {
                    Ok((client, _)) => {
                        client.set_nonblocking(false).unwrap();
                        let Ok(server) = TcpStream::connect(&target) else { continue };
                        pipe(client.try_clone().unwrap(), server.try_clone().unwrap(), d.clone());
                        pipe(server, client, d.clone());
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Proxy { port, down }
    }

    /// Cuts the store off: refuses new connections, and the open ones are
    /// shut within a tenth of a second.
    fn cut(&self) {
        self.down.store(true, Ordering::SeqCst);
    }

    fn restore(&self) {
        self.down.store(false, Ordering::SeqCst);
    }
}

/// Copies `from` to `to` on a thread until either side closes or the store
/// is cut off; then shuts both (their descriptors close with the thread).
fn pipe(mut from: TcpStream, mut to: TcpStream, down: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        from.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let mut buf = [0u8; 64 << 10];
        while !down.load(Ordering::SeqCst) {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(_) => break,
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

/// One process of the run, started again whenever it ends (as its job
/// would), until the run stops; its output goes to `<dir>/<name>.log`.
struct Role {
    name: String,
    args: Vec<String>,
    /// A pause before each run (the trainer's rounds; the first waits for
    /// the workers' first games).
    pause: Duration,
    child: Mutex<Option<Child>>,
    starts: Mutex<u32>,
    /// Ends that were not this test's kill, with their exit status.
    failures: Mutex<Vec<String>>,
    killed: AtomicBool,
}

impl Role {
    fn new(name: &str, args: &[&str], pause: Duration) -> Arc<Role> {
        Arc::new(Role {
            name: name.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            pause,
            child: Mutex::new(None),
            starts: Mutex::new(0),
            failures: Mutex::new(Vec::new()),
            killed: AtomicBool::new(false),
        })
    }

    fn log(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.log", self.name))
    }

    /// Runs the role until `stop`.
    fn supervise(self: Arc<Self>, dir: PathBuf, vars: Vec<(String, String)>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let t = Instant::now();
                while t.elapsed() < self.pause.max(Duration::from_millis(500)) && !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(100));
                }
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let log = std::fs::OpenOptions::new().create(true).append(true).open(self.log(&dir)).unwrap();
                let child = bin()
                    .args(&self.args)
                    .envs(vars.iter().map(|(k, v)| (k, v)))
                    .stdout(Stdio::from(log.try_clone().unwrap()))
                    .stderr(Stdio::from(log))
                    .spawn()
                    .unwrap();
                *self.starts.lock().unwrap() += 1;
                *self.child.lock().unwrap() = Some(child);
                let status = loop {
                    if let Some(st) = self.child.lock().unwrap().as_mut().unwrap().try_wait().unwrap() {
                        break st;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                };
                self.child.lock().unwrap().take();
                if !status.success() && !self.killed.swap(false, Ordering::SeqCst) && !stop.load(Ordering::SeqCst) {
                    self.failures.lock().unwrap().push(status.to_string());
                }
            }
        })
    }

    /// Kills the running process (SIGKILL); false if none runs.
    fn kill(&self) -> bool {
        let mut child = self.child.lock().unwrap();
        match child.as_mut() {
            Some(c) => {
                self.killed.store(true, Ordering::SeqCst);
                c.kill().is_ok()
            }
            None => false,
        }
    }
}

/// What a process's log says about the outages it rode out.
#[derive(Debug, Default)]
struct Rode {
    retries: usize,
    recoveries: usize,
    longest_out: f64,
    gave_up: usize,
}

fn rode(log: &str) -> Rode {
    let mut r = Rode::default();
    for line in log.lines().filter(|l| l.starts_with("store: ")) {
        if line.contains("; retry ") {
            r.retries += 1;
        } else if let Some(rest) = line.split("it was out for ").nth(1) {
            r.recoveries += 1;
            let secs: f64 = rest.trim_end_matches(" s").parse().unwrap_or(0.0);
            r.longest_out = r.longest_out.max(secs);
        } else if line.contains("giving up after") {
            r.gave_up += 1;
        }
    }
    r
}

#[test]
fn a_store_run_rides_out_outages_and_kills() {
    let plan = Plan::from_env();
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path();
    let (url, vars) = fresh_s3_store("pacozero-outage", "runs/one");
    let endpoint = vars.iter().find(|(k, _)| k == "AWS_ENDPOINT").unwrap().1.clone();
    let proxy = Proxy::start(endpoint.trim_start_matches("http://").trim_end_matches('/').to_string());
    // The processes reach the store through the proxy; this test directly.
    let via_proxy: Vec<(String, String)> =
        vars.iter().map(|(k, v)| if k == "AWS_ENDPOINT" { (k.clone(), format!("http://127.0.0.1:{}", proxy.port)) } else { (k.clone(), v.clone()) }).collect();
    let store = RunStore::open_with(&url, vars.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))).unwrap();

    let sp = write_config(tmp, "selfplay.toml", &tiny_selfplay(41));
    let tr = write_config(tmp, "train.toml", &tiny_train(""));
    let ev = write_config(
        tmp,
        "eval.toml",
        "[loop]\npromotion = \"score\"\npromotion_score = 0.5\ngating_games = 2\nanchor_games = 2\nbaseline_games = 2\nbaseline_simulations = 4\neval_simulations = 4\nmax_decisions = 40\n",
    );
    let cache = |name: &str| tmp.join(name).display().to_string();
    let (c1, c2, ct, ce) = (cache("w1"), cache("w2"), cache("trainer"), cache("evaluator"));
    let worker = |n: &'static str, c: &str| {
        let args = ["selfplay", "--store", &url, "--worker", n, "--run", c, "--config", s(&sp), "--games", "4", "--evaluator", "uniform", "--quiet"];
        args.map(String::from)
    };
    let (w1, w2) = (worker("1", &c1), worker("2", &c2));
    fn as_strs(a: &[String]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    let roles = [
        Role::new("worker-1", &as_strs(&w1), Duration::ZERO),
        Role::new("worker-2", &as_strs(&w2), Duration::ZERO),
        Role::new("trainer", &["train", "--store", &url, "--run", &ct, "--config", s(&tr), "--steps", "3", "--no-promote"], Duration::from_secs(20)),
        Role::new("evaluator", &["evaluate", "--store", &url, "--run", &ce, "--config", s(&ev), "--watch", "2", "--quiet"], Duration::from_secs(1)),
    ];
    let logs = tmp.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let handles: Vec<_> = roles.iter().map(|r| r.clone().supervise(logs.clone(), via_proxy.clone(), stop.clone())).collect();

    // The schedule: outages and kills at their moments.
    let mut events: Vec<(Duration, &str)> = plan.outages.iter().map(|t| (*t, "cut")).chain(plan.kills.iter().map(|t| (*t, "kill"))).collect();
    events.sort();
    let mut rng = Rng(plan.seed ^ 0x5eed);
    let mut kills: Vec<String> = Vec::new();
    let mut cut_since: Option<Instant> = None;
    let mut cuts = 0;
    let mut next = 0;
    while t0.elapsed() < plan.duration {
        if let Some(since) = cut_since {
            if since.elapsed() >= plan.outage_length {
                proxy.restore();
                eprintln!("[{:>5.0} s] the store is back", t0.elapsed().as_secs_f64());
                cut_since = None;
            }
        }
        if next < events.len() && t0.elapsed() >= events[next].0 {
            match events[next].1 {
                "cut" => {
                    proxy.cut();
                    cuts += 1;
                    cut_since = Some(Instant::now());
                    eprintln!("[{:>5.0} s] the store is cut off for {} s", t0.elapsed().as_secs_f64(), plan.outage_length.as_secs());
                }
                _ => {
                    let victim = &roles[(rng.next() % roles.len() as u64) as usize];
                    let done = victim.kill();
                    eprintln!("[{:>5.0} s] kill {}: {}", t0.elapsed().as_secs_f64(), victim.name, if done { "killed" } else { "not running" });
                    kills.push(format!("{} at {:.0} s", victim.name, t0.elapsed().as_secs_f64()));
                }
            }
            next += 1;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    proxy.restore();
    stop.store(true, Ordering::SeqCst);
    for r in &roles {
        r.kill();
    }
    for h in handles {
        h.join().unwrap();
    }
    let ran = t0.elapsed();

    // Each worker once more with no new games: it uploads what it recorded
    // but had not uploaded when it was stopped (as a restarted job does).
    // The evaluator then catches up with every model.
    let finish = |args: &[String], more: &[&str]| {
        let out = bin().args(args).args(more).envs(vars.iter().map(|(k, v)| (k, v))).output().unwrap();
        assert!(out.status.success(), "pacozero {args:?} {more:?}:\n{}", output_text(&out));
    };
    let no_games = |a: &[String]| {
        let mut a = a.to_vec();
        let at = a.iter().position(|x| x == "--games").unwrap() + 1;
        a[at] = "0".into();
        a
    };
    finish(&no_games(&w1), &[]);
    finish(&no_games(&w2), &[]);
    finish(&["evaluate", "--store", &url, "--run", &ce, "--config", s(&ev), "--quiet"].map(String::from), &[]);

    // No game lost or duplicated.
    let games = store_games(&store, "data", tmp);
    assert_unique(&games.iter().map(|g| g.1).collect::<Vec<_>>());
    let mut per_worker = BTreeMap::new();
    for (folder, cache) in [("w0001", &c1), ("w0002", &c2)] {
        let ids: HashSet<u64> = ids_of(&games, folder).into_iter().collect();
        let recorded = pacozero_data::game_ids(&Path::new(cache).join("data")).unwrap();
        assert_eq!(ids, recorded, "{folder}: the store against the worker's own cache");
        // An uninterrupted worker of the same index with as many games.
        let reference = tmp.join(format!("reference-{folder}"));
        let n = folder[1..].trim_start_matches('0');
        let out = bin()
            .args(["selfplay", "--store", &format!("file://{}/", reference.join("store").display()), "--worker", n])
            .args(["--run", s(&reference.join("cache")), "--config", s(&sp), "--games", &ids.len().to_string(), "--evaluator", "uniform", "--quiet"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", output_text(&out));
        assert_eq!(ids, pacozero_data::game_ids(&reference.join("cache/data")).unwrap(), "{folder} against an uninterrupted worker");
        per_worker.insert(folder, ids.len());
    }

    // Every model loads.
    let models: Vec<String> =
        store.list("models").unwrap().into_iter().filter_map(|k| k.strip_prefix("models/")?.strip_suffix(".pzmodel").map(str::to_string)).collect();
    assert!(!models.is_empty(), "the trainer uploaded no model");
    for m in &models {
        let path = tmp.join(format!("{m}.pzmodel"));
        std::fs::write(&path, store.get(&format!("models/{m}.pzmodel"), ObjectKind::Model).unwrap().unwrap()).unwrap();
        pacozero_nn::load_model(&path, &pacozero_nn::default_device(), None).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    // The ratings are complete: every model has its evaluation and a rating.
    let ratings = String::from_utf8(store.get("eval/ratings.csv", ObjectKind::Json).unwrap().unwrap().to_vec()).unwrap();
    for m in &models {
        assert!(store.exists(&format!("eval/{m}.json")).unwrap(), "{m} has no evaluation");
        assert!(ratings.lines().any(|l| l.starts_with(&format!("{m},"))), "{m} is not rated:\n{ratings}");
    }

    // What each process rode out, from its log.
    let mut summary = format!(
        "store outage test, seed {}: {:.0} s, {cuts} outages of {} s at {:?} s, kills: {}\n",
        plan.seed,
        ran.as_secs_f64(),
        plan.outage_length.as_secs(),
        plan.outages.iter().map(|d| d.as_secs()).collect::<Vec<_>>(),
        if kills.is_empty() { "none".to_string() } else { kills.join(", ") }
    );
    summary += &format!("games: {per_worker:?}, every id once, each worker's ids those of an uninterrupted worker\n");
    summary += &format!("models: {} (each loads, each evaluated and rated)\n", models.len());
    summary += "process     starts  failed  retries  recovered  longest outage ridden  gave up\n";
    let mut recovered = 0;
    for r in &roles {
        let log = std::fs::read_to_string(r.log(&logs)).unwrap_or_default();
        let x = rode(&log);
        recovered += x.recoveries;
        let failures = r.failures.lock().unwrap().clone();
        summary += &format!(
            "{:<11} {:>6}  {:>6}  {:>7}  {:>9}  {:>19.1} s  {:>7}\n",
            r.name,
            r.starts.lock().unwrap(),
            failures.len(),
            x.retries,
            x.recoveries,
            x.longest_out,
            x.gave_up
        );
        assert_eq!(x.gave_up, 0, "{} gave up on the store:\n{log}", r.name);
        assert!(failures.is_empty(), "{} ended with an error ({failures:?}):\n{log}", r.name);
    }
    eprintln!("{summary}");
    std::fs::write(Path::new(option_env!("CARGO_TARGET_TMPDIR").unwrap_or("/tmp")).join("store-outage-summary.txt"), &summary).unwrap();
    assert!(recovered > 0, "no process met an outage: the test tested nothing\n{summary}");
}
