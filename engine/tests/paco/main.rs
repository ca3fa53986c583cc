//! Paco Ŝako's engine tests, one module per concern (the tests every game
//! passes are `conformance.rs`, beside this folder).

#[path = "../common/mod.rs"]
mod common;

mod full_move_shortcuts;
mod mirror;
mod paco_game;
mod platform_encoding;
mod properties;
mod reference;
mod rules;
mod tactics;
mod threat_shortcuts;
mod win_detection;
