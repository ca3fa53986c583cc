//! Helpers and fixtures shared by the integration tests of the `pacozero`
//! binary; each test file includes them with `mod common;`. Not every test
//! file uses every item, hence the `#[allow(dead_code)]`s.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The package directory of this checkout: cargo sets it when it runs the
/// test. The compile-time value is only a fallback, because a test binary
/// built from another checkout sharing the target directory keeps that
/// checkout's path.
#[allow(dead_code)]
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
}

/// The `pacozero` binary under test: cargo names it to integration tests;
/// an example (which cargo does not tell) finds it beside its own folder,
/// `<target>/release/examples/..`.
#[allow(dead_code)]
pub fn bin_path() -> PathBuf {
    match option_env!("CARGO_BIN_EXE_pacozero") {
        Some(p) => PathBuf::from(p),
        None => std::env::current_exe().expect("the running program's path").parent().and_then(Path::parent).expect("<target>/release").join("pacozero"),
    }
}

/// A command running the `pacozero` binary under test.
#[allow(dead_code)]
pub fn bin() -> Command {
    Command::new(bin_path())
}

/// A path as a command-line argument (the tests' paths are UTF-8).
#[allow(dead_code)]
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The standard output and then the standard error of a finished command.
#[allow(dead_code)]
pub fn output_text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Runs `pacozero ARGS` to its end and asserts that it succeeded (showing its
/// standard output and error if not).
#[allow(dead_code)]
pub fn run_ok(args: &[&str]) -> Output {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "pacozero {args:?} failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

/// Writes `text` to the file `name` in `dir`; returns its path.
#[allow(dead_code)]
pub fn write_config(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The `[net]` table of a tiny network (one residual block of 8 channels),
/// quick to train and to evaluate.
#[allow(dead_code)]
pub const TINY_NET: &str = r#"
[net]
blocks = 1
channels = 8
policy_channels = 4
value_channels = 2
value_hidden = 16
"#;

/// A training configuration for the tiny network: batches of 16 positions,
/// one thread, no plots or progress bar; `extra` adds lines to `[train]`.
#[allow(dead_code)]
pub fn tiny_train(extra: &str) -> String {
    format!("{TINY_NET}\n[train]\nbatch_size = 16\nwarmup_steps = 1\nmin_positions = 1\nplot_every = 0\nthreads = 1\nprogress = false\n{extra}")
}

/// A tiny self-play configuration: one thread of two games at a time, one
/// game per chunk, at most 40 decisions from Fischer-random starts, 8 full
/// and 4 cheap simulations.
#[allow(dead_code)]
pub fn tiny_selfplay(seed: u64) -> String {
    format!(
        r#"
seed = {seed}
threads = 1
games_per_thread = 2
games_per_chunk = 1
max_decisions = 40
start_positions = "fischer_random"

[search]
full_simulations = 8
cheap_simulations = 4
"#
    )
}

/// Opens a run's `report.html` in headless Chromium and checks what only the
/// page's running script produces, against the sample games embedded in the
/// page (`const GAMES = [...]`): for each game, a `width`x`height` board of cells
/// with square titles, the label `turn M / M` of its last turn, that turn's
/// notation and the game's move list. None of these strings is in the page
/// source, so a script that throws, or draws nothing, fails the check. Chromium
/// is required (`scripts/test.sh` installs it; `CHROMIUM` names another
/// binary). A screenshot is kept in `<target>/tmp/<shot>` for a look by eye.
#[allow(dead_code)]
pub fn check_report_in_browser(page: &Path, (width, height): (usize, usize), shot: &str) {
    let browser = std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1400,2600"];
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let run = |extra: &[&str]| {
        let out = Command::new(&browser).args(flags).args(extra).arg(&url).output().unwrap_or_else(|e| {
            panic!("cannot start {browser} ({e}): install Chromium (Debian: apt-get install chromium; scripts/test.sh does) or set CHROMIUM to its path")
        });
        assert!(out.status.success(), "{browser} failed: {}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let source = std::fs::read_to_string(page).unwrap();
    let games = embedded_games(&source);
    assert!(!games.is_empty(), "the report has no sample games");
    let dom = String::from_utf8_lossy(&run(&["--dump-dom"]).stdout).to_string();
    let head = &dom[..dom.len().min(3000)];
    let cells = dom.matches("<td class=\"light").count() + dom.matches("<td class=\"dark").count();
    assert_eq!(cells, games.len() * width * height, "the viewer drew {cells} board cells for {} games of {width}x{height}:\n{head}", games.len());
    let corner = format!(" title=\"{}{height}\">", (b'a' + width as u8 - 1) as char);
    assert_eq!(dom.matches(&corner).count(), games.len(), "one top-right square {corner} per board");
    for g in &games {
        let turns = g["turns"].as_array().unwrap();
        let last = turns.len() - 1;
        let label = format!("class=\"idx\">turn {last} / {last}</span>");
        assert!(dom.contains(&label), "no {label:?} in the page:\n{head}");
        let turn = format!("class=\"turn\">{}</div>", dom_text(turns[last][0].as_str().unwrap()));
        assert!(dom.contains(&turn), "no {turn:?} in the page");
        let moves = format!("class=\"moves\">{}</div>", dom_text(g["moves"].as_str().unwrap()));
        assert!(dom.contains(&moves), "no move list {moves:?} in the page");
    }
    let shot = Path::new(option_env!("CARGO_TARGET_TMPDIR").unwrap_or("/tmp")).join(shot);
    let _ = std::fs::remove_file(&shot);
    run(&[&format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "screenshot of {} bytes", png.len());
}

/// The sample games a report embeds for its viewer.
#[allow(dead_code)]
fn embedded_games(source: &str) -> Vec<serde_json::Value> {
    let start = source.find("const GAMES = ").expect("the report embeds its sample games") + "const GAMES = ".len();
    let end = start + source[start..].find(";</script>").expect("end of the games script");
    let json = source[start..end].replace("<\\/", "</");
    serde_json::from_str::<serde_json::Value>(&json).unwrap().as_array().unwrap().clone()
}

/// Text as Chromium serialises a text node.
#[allow(dead_code)]
fn dom_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('\u{a0}', "&nbsp;")
}

/// A fresh bucket on the local S3 server that `scripts/with-s3.sh` started
/// (`PACOZERO_TEST_S3_ENDPOINT`; without it, a panic saying how to get one):
/// the store URL of a run `run` in it, and the client options (test
/// credentials, plain HTTP) as environment variables.
#[allow(dead_code)]
pub fn fresh_s3_store(bucket_prefix: &str, run: &str) -> (String, Vec<(String, String)>) {
    let endpoint = std::env::var("PACOZERO_TEST_S3_ENDPOINT").unwrap_or_else(|_| {
        panic!(
            "PACOZERO_TEST_S3_ENDPOINT is not set: run the tests with scripts/test.sh, which starts a local S3 server \
             (moto, from PyPI, by scripts/with-s3.sh) and exports its address (e.g. http://127.0.0.1:PORT)"
        )
    });
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let bucket = format!("{bucket_prefix}-{}-{}", std::process::id(), nanos % 1_000_000_000_000);
    create_bucket(&endpoint, &bucket);
    let vars = [
        ("AWS_ENDPOINT", endpoint.as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_REGION", "us-east-1"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    (format!("s3://{bucket}/{run}"), vars)
}

/// `PUT /<bucket>` (the S3 CreateBucket call; object stores cannot create
/// buckets, and the test server takes unsigned requests).
fn create_bucket(endpoint: &str, bucket: &str) {
    use std::io::{Read, Write};
    let host =
        endpoint.strip_prefix("http://").unwrap_or_else(|| panic!("PACOZERO_TEST_S3_ENDPOINT must be http://HOST:PORT, not {endpoint}")).trim_end_matches('/');
    let mut tcp = std::net::TcpStream::connect(host).unwrap_or_else(|e| panic!("cannot reach the S3 server at {endpoint} ({e}); scripts/test.sh starts it"));
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    write!(tcp, "PUT /{bucket} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200"), "creating bucket {bucket} at {endpoint}:\n{answer}");
}

/// An untrained tiny network of game `G` (one small block), written as
/// `<dir>/<name>.pzmodel`.
#[allow(dead_code)]
pub fn tiny_model_of<G: pacozero_engine::Game>(dir: &Path, name: &str) -> PathBuf {
    let spec = pacozero_data::game_spec::<G>();
    let path = dir.join(format!("{name}.pzmodel"));
    pacozero_nn::export_untrained(&pacozero_nn::NetConfig::tiny_for(&spec), name, &path).unwrap();
    path
}

/// Limits the address space of the process `c` starts to `bytes`
/// (`RLIMIT_AS`): an allocation past it fails in that process, as it would
/// on a machine with that much memory.
#[allow(dead_code)]
pub fn limit_address_space(c: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
