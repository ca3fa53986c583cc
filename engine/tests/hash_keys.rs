//! The position hash is part of the opening-book format: a book file holds
//! each position's hash and its moves' children's (`data/src/book.rs`), and
//! reading a book checks every row's hash against its FEN
//! (`book/src/build.rs`), so a book written with other keys is refused.
//! These values pin the keys of both games, through the hash computed from
//! scratch (the start) and the incremental one (each decision after it). A
//! value that changes here makes every book written before unreadable: a
//! deliberate format change, with new values here, not a side effect.

use pacozero_engine::{paco, shako, Game};

/// The hash of the start position and after each decision of `line`.
fn hashes<G: Game>(line: &str) -> Vec<u64> {
    let mut g = G::start();
    let mut out = vec![g.hash()];
    for d in g.parse_decisions(line).unwrap_or_else(|e| panic!("{}: {line}: {e}", G::NAME)) {
        g.apply(d);
        out.push(g.hash());
    }
    out
}

#[test]
fn paco_hash_keys_are_pinned() {
    assert_eq!(
        hashes::<paco::GameState>("Le2 Pe4 Le7 Pe5"),
        [0xa23b14401195f877, 0x4f6284cbfcc91b78, 0x6e19abb759c24bda, 0x853cea5ec0695b97, 0xfad446d3e8520126]
    );
}

#[test]
fn shako_hash_keys_are_pinned() {
    assert_eq!(hashes::<shako::GameState>("e3e5 e8e6"), [0xa5b483ed096c0a74, 0xac74d87221aaea4f, 0xfa95a142adf06574]);
}
