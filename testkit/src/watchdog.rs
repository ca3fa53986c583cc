//! Tests that could hang on a fault (an engine that never ends, a search
//! that is never stopped).

use std::sync::mpsc;
use std::time::Duration;

/// How long a test that drives an engine may run.
pub const HANG: Duration = Duration::from_secs(20);

/// Aborts the test binary when the test that holds it runs past `limit`,
/// so that an engine that never ends (a loop, a search that is never
/// stopped) fails the suite instead of hanging it.
pub struct Watchdog(#[allow(dead_code)] mpsc::Sender<()>);

impl Watchdog {
    pub fn new(limit: Duration) -> Watchdog {
        let (tx, rx) = mpsc::channel::<()>();
        let test = std::thread::current().name().unwrap_or("a test").to_string();
        std::thread::spawn(move || {
            // Dropping the sender (the test is over) disconnects.
            if rx.recv_timeout(limit) == Err(mpsc::RecvTimeoutError::Timeout) {
                eprintln!("{test}: still running after {limit:?}; aborting");
                std::process::abort();
            }
        });
        Watchdog(tx)
    }
}
