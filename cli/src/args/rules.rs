//! Arguments of the rules commands: `perft`, `legal`, `show`.

use super::GameArg;
use clap::Args;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Position in the platform's FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Depth of the count: full moves, or atomic actions with --atomic.
    #[arg(long)]
    pub depth: u32,
    /// Count atomic actions (one action per ply) instead of full moves.
    #[arg(long)]
    pub atomic: bool,
    /// Print the count below each first move.
    #[arg(long)]
    pub divide: bool,
    #[command(flatten)]
    pub game: GameArg,
}

#[derive(Args, Debug)]
pub struct LegalArgs {
    #[command(flatten)]
    pub game: GameArg,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub game: GameArg,
    /// Position in the game's FEN (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Decisions to play first: atomic actions ("Le2 Pe4"), Shako UCI moves ("e3e5 f8f6").
    #[arg(long)]
    pub actions: Option<String>,
}
