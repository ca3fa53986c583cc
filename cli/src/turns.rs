//! Whole turns seen through a search tree: the module lives in
//! `pacozero_search::turns` (shared with the Python package).

pub use pacozero_search::turns::*;
