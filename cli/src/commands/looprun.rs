//! `pacozero loop`: the closed loop of `pacozero_run::looping` in a run
//! directory, its notes printed and its matches drawn as progress bars.

use crate::args::LoopArgs;
use anyhow::Result;
use pacozero_run::looping::{run_loop, ConfigArgs, LoopObserver};
use std::sync::Mutex;

/// Prints the loop's notes to stderr and draws a bar for each match (none
/// with `--quiet`, which keeps the notes).
#[derive(Default)]
struct Printer {
    bar: Mutex<Option<indicatif::ProgressBar>>,
    quiet: bool,
}

impl LoopObserver for Printer {
    fn note(&self, text: &str) {
        eprintln!("{text}");
    }

    fn match_progress(&self, done: u64, total: u64) {
        if self.quiet {
            return;
        }
        let mut bar = self.bar.lock().expect("the bar's lock");
        let b = bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg} [{elapsed} < {eta}]").expect("template"));
            b
        });
        b.set_position(done);
        if done >= total {
            b.finish_and_clear();
            *bar = None;
        }
    }

    fn progress(&self) -> bool {
        !self.quiet
    }
}

pub fn run(a: LoopArgs) -> Result<()> {
    let args = ConfigArgs { config: a.config.as_deref(), sets: &a.set, trust_run_files: a.trust_run_files };
    run_loop(&a.run, args, a.generations, &Printer { quiet: a.quiet, ..Printer::default() })
}
