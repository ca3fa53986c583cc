//! The registry's generated dispatch as the other crates use it:
//! `with_game!` on a [`GameKind`], `with_state!` on an [`AnyState`]. The
//! registry is generated at the end of the engine's root file, after its
//! modules, so these tests live outside it.

use pacozero_engine::prelude::*;
use pacozero_engine::{with_game, with_state, AnyState, GameKind};

#[test]
fn with_state_runs_the_expression_on_the_state_inside() {
    for k in GameKind::ALL {
        let mut any: AnyState = with_game!(k, G => G::start().into());
        assert_eq!(any.kind(), k);
        let start = with_state!(&any, g => g.notation());
        let mut legal = Vec::new();
        with_state!(&any, g => g.playable_actions(&mut legal));
        with_state!(&mut any, g => g.apply(legal[0]));
        assert_ne!(with_state!(&any, g => g.notation()), start, "{k}: the decision changed the state inside");
    }
}

#[test]
fn with_game_runs_the_expression_with_the_kinds_type() {
    for k in GameKind::ALL {
        let seen = 7;
        assert_eq!(with_game!(k, G => (G::NAME, seen)), (k.name(), 7));
    }
}
