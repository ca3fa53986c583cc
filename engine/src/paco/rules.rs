//! The optional rule variants (vchess, rules file 001).

/// The optional rule set of the vchess implementation (rules file 001). All off
/// by default: the official rules as the platform plays them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    /// A union moved from a to b may not be moved straight back from b to a by the opponent.
    pub no_union_undo: bool,
    /// Each player may double-step a pawn at most once per file.
    pub one_double_step_per_file: bool,
    /// vchess kings: a king may take over a union (releasing the piece there,
    /// which goes on as a chain); a chain started by the king that ends by
    /// uniting with the other king is a draw, not a win.
    pub king_chain_draw: bool,
}

impl Rules {
    pub const OFFICIAL: Rules = Rules { no_union_undo: false, one_double_step_per_file: false, king_chain_draw: false };
}
