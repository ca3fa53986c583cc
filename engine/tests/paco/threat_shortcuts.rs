//! The threat search's shortcuts (a yes/no question stops at its first
//! answer; a big search stops once it has found every square a relaxation of
//! the chains allows) give exactly the exhaustive search's answers, on every
//! union-heavy position of the reference data, for both sides to move.

use pacozero_engine::paco::{in_sako, threatened_squares, threatened_squares_exhaustive, Position};
use pacozero_engine::PieceKind;

#[test]
fn shortcuts_agree_with_the_exhaustive_search_on_the_reference_positions() {
    let mut checked = 0;
    let mut cut_short = 0;
    for line in include_str!("../data/vectors.jsonl").lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let fen = v["fen"].as_str().unwrap();
        if v["fen_exact"] != true || v["required_action"] != "Lift" {
            continue;
        }
        // Either side as the mover: the opponent's threats are what castling and Ŝako ask.
        for side in [" w ", " b "] {
            let flipped = fen.replacen(" w ", side, 1).replacen(" b ", side, 1);
            let Ok(pos) = flipped.parse::<Position>() else { continue };
            let exhaustive = threatened_squares_exhaustive(&pos);
            assert_eq!(threatened_squares(&pos), exhaustive, "threats in {flipped}");
            let their_king = pos.pieces(pos.side_to_move().other(), PieceKind::King).0;
            assert_eq!(in_sako(&pos, pos.side_to_move().other()), exhaustive & their_king != 0, "Ŝako in {flipped}");
            checked += 1;
            cut_short += (pos.unions().len() >= 6) as usize;
        }
    }
    assert!(checked > 150 && cut_short > 50, "{checked} positions, {cut_short} union-heavy");
}
