//! Shako: Jean-Louis Cazaux's 10x10 chess variant with cannons and elephants,
//! exact to Fairy-Stockfish's `shako` variant.
//!
//! * Board: 10x10, White's pieces on rank 2 (`E R N B Q K B N R E`), cannons
//!   on a1 and j1, pawns on rank 3; Black mirrored.
//! * Cannon: moves like a rook without capturing; captures by jumping over
//!   exactly one piece (of either colour) to the first piece beyond it.
//! * Elephant: leaps one or two squares diagonally.
//! * Pawns double-step from their third rank (with en passant) and promote on
//!   the last rank to Q, R, B, N, E or C. Castling: king f→h with the i-rook
//!   (to g), king f→d with the b-rook (to e).
//! * Results: checkmate, stalemate (draw), 50-move rule (100 half-moves
//!   without capture or pawn move), threefold repetition.
//!
//! Modules: [`geometry`] (squares, `u128` bitboards, attack tables), the
//! position with copy-make and an incremental Zobrist hash, legal move
//! generation with perft, checks and mates in one, a material-only
//! quiescence search ([`quiesce`]), FEN, UCI notation and SAN (for PGN), the game state implementing
//! [`crate::Game`], and the policy/input encoding (tables in [`encode`]).

pub mod encode;
mod fen;
mod game;
pub mod geometry;
pub mod invariants;
mod mate;
mod movegen;
mod moves;
mod piece;
mod position;
pub mod quiesce;
mod san;
mod zobrist;

pub use encode::{action_index, move_from_action, NUM_ACTIONS, NUM_BIT_PLANES, NUM_SCALARS};
pub use fen::{FenError, STARTPOS_FEN};
pub use game::{GameState, Status, FIFTY_MOVE_HALF_MOVES};
pub use geometry::{Bb128, Square10};
pub use moves::{parse_uci_parts, Move, MoveKind, UciError};
pub use position::{IllegalMove, Kind, Piece, Position, BLACK_KINGSIDE, BLACK_QUEENSIDE, WHITE_KINGSIDE, WHITE_QUEENSIDE};
