//! A training run's directory as a library: the closed loop that fills it
//! ([`looping`]: self-play → training → evaluation → promotion, resumable),
//! the files its stages share ([`files`]: loop state, per-stage figures,
//! matches, ratings) and the report drawn from them ([`report`]: SVG plots
//! and one HTML page), the self-play rounds every caller plays ([`rounds`]), and the sync of a run shared through an object store
//! ([`store_sync`]) and its evaluation ([`store_eval`]), the files a league leaves for people ([`league`]: its rating
//! list, plot and page; the league plays in `pacozero_arena::league`), and the learning curve against perfect play ([`solved_curve`]). [`overrides`] applies the
//! command line's `--set section.key=value` to a configuration. Nothing here prints: the loop reports to a
//! [`looping::LoopObserver`].

pub mod files;
/// The checks of the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzz_checks;
pub mod league;
pub mod looping;
pub mod overrides;
pub mod report;
pub mod rounds;
pub mod solved_curve;
pub mod store_eval;
pub mod store_sync;
#[cfg(test)]
mod test_support;
