//! Whole turns seen through a search tree: the module lives in
//! `pacozero_selfplay::turns` (shared with the Python package).

pub use pacozero_selfplay::turns::*;
