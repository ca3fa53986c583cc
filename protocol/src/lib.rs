//! # PacoZero protocols
//!
//! The text protocols other programs speak to the search, kept out of
//! `pacozero_search` as KataGo keeps its GTP and analysis front ends out of
//! its search: the search knows nothing of lines, commands or clocks.
//!
//! * [`uci`]: a UCI engine on the search (`pacozero uci`), for every game;
//!   its `go` parameters ([`uci::command::GoParams`]) and `info` figures
//!   ([`uci::score`]) are the vocabulary the arena's UCI client speaks too.
//! * [`analysis`]: the JSON-lines analysis engine (`pacozero analysis`):
//!   concurrent queries whose leaves share network calls.
//! * [`lines`]: protocol input read line by line, each line capped in length.

pub mod analysis;
pub mod lines;
pub mod uci;
