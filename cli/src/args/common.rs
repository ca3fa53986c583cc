//! Argument groups that several commands flatten into theirs, so that a
//! flag means the same everywhere and is documented once.

use clap::Args;
use pacozero_engine::GameKind;

/// `--game`: the game a command plays or reads.
#[derive(Args, Debug, Clone, Copy)]
pub struct GameArg {
    /// The game: paco (Paco Ŝako), shako or connect4. A position or a
    /// network given to the command must be of this game.
    #[arg(long = "game", value_name = "GAME", default_value_t)]
    pub kind: GameKind,
}

/// How a strength command reports: as text with progress bars, or as JSON.
#[derive(Args, Debug, Clone, Copy)]
pub struct OutputArgs {
    /// Print the result as JSON on standard output instead of the text.
    #[arg(long)]
    pub json: bool,
    /// No progress bars (the notes and results are still printed).
    #[arg(long)]
    pub quiet: bool,
}
