//! Whole-or-nothing file writes for everything the CLI leaves at a user's
//! path (the run crate's, which [`pacozero_data::durable`] backs).

pub use pacozero_run::files::write_atomic;
