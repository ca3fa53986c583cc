//! Measuring strength, as a library under the `pacozero` command line:
//! [`ratings`] fits Elo over every game of a run (Bradley–Terry, draws as half
//! points, anchored), counts paired games as pentanomials and decides SPRT
//! gating. Nothing here prints; the command line does.

pub mod ratings;
