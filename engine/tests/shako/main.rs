//! Shako's engine tests (the tests every game passes are `conformance.rs`,
//! beside this folder).

#[path = "../common/mod.rs"]
mod common;

mod mate;
mod rules;
