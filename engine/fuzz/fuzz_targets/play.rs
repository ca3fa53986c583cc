//! Bytes choose actions from the start position or a Fischer-random setup.
//! The checks are `pacozero_engine::paco::invariants::play` (the engine's own
//! invariants) and the comparison of every state with the slow reference
//! generator (`pacozero_paco_reference::differential::play_bytes`: the legal
//! actions at every state, the turns' results where few unions stand), so
//! that a misreading of the rules shared by the engine's fast and its
//! by-definition paths is still caught. `cargo test` replays every
//! committed corpus file through both (engine/tests/fuzz_corpus.rs,
//! engine/reference/tests/differential.rs).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pacozero_engine::paco::invariants::play(data);
    if let Err(e) = pacozero_paco_reference::differential::play_bytes(data, 1, 4) {
        panic!("the engine differs from the reference generator: {e}");
    }
});
