//! Paco Ŝako: position, atomic actions, chains, notation, hashing, perft.

mod action;
mod encode;
mod fen;
mod fullmove;
mod game;
mod notation;
mod position;
mod position_error;
mod setup;
mod start;
mod tables;
mod threats;
mod zobrist;

pub use action::{action_from_index, action_index, action_to_string, parse_actions, ActionParseError, NUM_ACTIONS};
pub use encode::{decode_dense, BOARD_SIZE, NUM_BIT_PLANES, NUM_SCALARS};
pub use fen::{board_to_union_fen, decode_square_letter, encode_square_letter, position_from_union_fen, FenError, STARTPOS_FEN, UNION_LETTERS};
pub use fullmove::{FullMoveGen, FullMoveLimits, LimitExceeded};
pub use game::{perft_atomic, GameState, DEFAULT_DRAW_AFTER_REPETITIONS};
pub use notation::{parse_turn, turn_to_string, NotationError};
pub use position::{Action, ActionIter, ActionSet, Castling, Hand, IllegalAction, Position, Required, Rules, Status, Transition};
pub use position_error::PositionError;
pub use setup::{Setup, PIECES_PER_SIDE};
pub use start::{fischer_random, fischer_random_back_rank, position_with_back_rank, setup_with_back_rank};
pub use threats::{can_unite_with_king, in_sako, reach_for_both_sides, threatened_squares};
