//! A training run's directory as a library: the files its stages share
//! ([`files`]: loop state, per-stage figures, matches, ratings) and the
//! report drawn from them ([`report`]: SVG plots and one HTML page).
//! The loop that writes them is driven by the `pacozero` command line.

pub mod files;
pub mod report;
