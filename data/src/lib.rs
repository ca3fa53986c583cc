//! # PacoZero training data
//!
//! Every file format of a run and the run's layout, in these modules:
//!
//! | module | what |
//! |---|---|
//! | `schema`, `writer`, `reader`, [`spec`] | the Parquet chunks of self-play (this page), their writer and reader, the game's [`GameSpec`] |
//! | `decode` | a row's packed planes to the dense input of a network |
//! | `bounded` | reading Parquet files from others within bounds (nothing declared is allocated before it is checked) |
//! | [`book`] | opening books: one Parquet file of whole-turn positions |
//! | [`book_lookup`] | which rows of a book lookups use (the first usable row of a position) and which they leave out, by reason |
//! | [`tactics`] | a tactic suite's line: a position and the turns that win from it |
//! | [`pgn`] | games of the games table as PGN |
//! | [`run_dir`] | the run directory: every path of a run, named once ([`RunDir`]), and the generations' model names (`gen-0003`) |
//! | [`durable`] | whole-or-nothing file writes ([`write_atomic`]) |
//! | [`jsonl`] | JSON-lines files appended whole and read back past a cut last line |
//! | [`provenance`] | what made a file: build, backend, CPUs |
//! | [`tfevents`] | TensorBoard event files of a run's scalars |
//! | `error` | [`DataError`], naming the file, column and row |
//!
//! The on-disk schema shared by self-play (writer) and the trainer (reader).
//! Data lives in *chunks*: a pair of zstd-compressed Parquet files
//! `<stem>.positions.parquet` (one row per decision) and
//! `<stem>.games.parquet` (one row per finished game).
//!
//! The crate is generic over the game: board size and plane counts are a
//! [`GameSpec`], stored in the key-value metadata of every file under the keys
//! `schema_version`, `game`, `board_height`, `board_width`, `bit_planes`,
//! `scalars`, `policy_size` (decimal strings), and `aux_targets`: the names of
//! the game's auxiliary targets ([`GameSpec::aux_targets`], from the game's
//! `Encode::AUX_TARGETS`), comma-separated, in the order of the `aux_targets`
//! column.
//!
//! ## Positions table (`*.positions.parquet`)
//!
//! One row per *decision*. A player's turn may consist of several atomic
//! decisions (e.g. a chain of unions); each is its own row. All columns are
//! non-null. "Mover" is the side making the decision.
//!
//! | column | Arrow type | meaning |
//! |---|---|---|
//! | `schema_version` | UInt16 | schema version, currently `2`; readers take the versions they read ([`SCHEMA_VERSION`]) |
//! | `game_id` | UInt64 | unique per game (derived from the worker seed); joins with the games table |
//! | `ply` | UInt32 | decision index within the game, 0-based |
//! | `side_to_move` | UInt8 | `0` white, `1` black |
//! | `planes` | List\<UInt64\> | bit planes in the mover's frame: `bit_planes × words_per_plane` words, `words_per_plane = ceil(H·W/64)`; bit `i` (LSB first) of plane `p` is square `i`, rank-major with a1 = 0 (`i = rank·W + file`) |
//! | `scalars` | List\<Float32\> | `scalars` values, each broadcast to a constant plane by the decoder |
//! | `legal_actions` | List\<UInt16\> | legal action indices (policy slots `< policy_size`), mover's frame |
//! | `policy` | List\<Float32\> | search policy target, same length and order as `legal_actions`, sums to 1 |
//! | `full_search` | Boolean | the decision got a full search; only these rows train the policy head |
//! | `root_q` | Float32 | root value in \[-1, 1\], mover's perspective |
//! | `root_wdl` | FixedSizeList\<Float32, 3\> | root (win, draw, loss) estimate, mover's perspective |
//! | `action` | UInt16 | policy slot actually played |
//! | `result` | Int8 | final result for the mover: `1` win, `0` draw, `-1` loss (a truncated game's: the cut's, no training target) |
//! | `moves_left` | UInt32 | decisions remaining until the game ended (0 on the last decision; a truncated game's: until the cut, no training target) |
//! | `aux_targets` | FixedSizeList\<Boolean, n\> | the game's `n` auxiliary targets, named in the metadata key `aux_targets` (each game's `Encode::AUX_TARGETS`, documented there), in that order; mid-turn, the values of the turn's settled start |
//! | `weight` | Float32 | sample weight, default `1`, finite and `>= 0` |
//! | `network_id` | Utf8 | model that played, e.g. `"gen-0003"` or `"uniform"` |
//! | `truncated` | Boolean | the game was cut at its length cap, not ended by its rules ([`is_truncation`] of its reason); optional, `false` in files without it |
//!
//! A *truncated* game's rows (reason `max_length` or `material`) train no
//! result and no moves left: their value target takes the row's search
//! value (`root_wdl`) where a decided row takes its `result`, and their
//! moves-left target is masked (`pacozero_batch::targets`).
//!
//! ## Games table (`*.games.parquet`)
//!
//! | column | Arrow type | meaning |
//! |---|---|---|
//! | `game_id` | UInt64 | same id as in the positions table |
//! | `schema_version` | UInt16 | currently `2` (the table is the same in version 1) |
//! | `start_fen` | Utf8 | starting position |
//! | `actions` | Utf8 | space-separated atomic actions, e.g. `"Le2 Pe4 =Q"` |
//! | `num_decisions` | UInt32 | number of decisions (= position rows of the game) |
//! | `result` | Utf8 | `"1-0"`, `"0-1"` or `"1/2-1/2"` |
//! | `reason` | Utf8 | why the game ended (e.g. `"paco"`, `"max_length"`; the cuts, [`TRUNCATION_REASONS`], are not ends by the rules) |
//! | `network_id` | Utf8 | model that played |
//! | `config_hash` | Utf8 | hash of the self-play configuration |
//! | `seed` | UInt64 | RNG seed of the game |
//! | `white`, `black` | Utf8 | the players: `selfplay:<network_id>`, or a match game's player specs (optional: files without them read as empty) |
//!
//! ## Atomic writes and discovery
//!
//! [`ChunkWriter::flush`] writes each file as `<name>.tmp`, fsyncs it, renames
//! the positions file into place and then the games file. A reader
//! ([`list_chunks`], [`read_positions_window`]) only takes chunks whose games
//! file exists, ignores `*.tmp` leftovers (a crashed writer), and orders chunks
//! by stem; [`chunk_stem`] makes stems whose lexicographic order is chronological.
//!
//! ## Versions
//!
//! Every file says its `schema_version` (metadata and column). A build
//! writes [`SCHEMA_VERSION`] and reads every version from
//! [`OLDEST_READ_VERSION`] up to it: an earlier version's rows read into
//! today's [`PositionRow`], so a run's old chunks keep training. Version 1
//! stored the two auxiliary targets of both games as the Boolean columns
//! [`V1_AUX_COLUMNS`]; they read, in that order, into
//! [`PositionRow::aux_targets`], and the spec of a version-1 file of a
//! registered game names the game's targets (both games of version 1 had
//! those two, in that order). A file of a later version, or of none, is
//! refused with [`DataError::SchemaVersion`].
//!
//! ## Version safety
//!
//! [`ChunkWriter::new`] refuses a directory whose newest complete chunk has
//! a `schema_version` this build does not read or another [`GameSpec`] (the
//! error names that file), so a worker of another build or game never mixes
//! its rows into a run's data; it continues a run whose chunks are of an
//! earlier version it reads.
//!
//! ## Decoder
//!
//! [`decode_position`] / [`decode_into`] turn a row into `Vec<f32>` of shape
//! `[bit_planes + scalars, H, W]`: channel `p < bit_planes` holds `1.0` where bit
//! `r·W + f` of plane `p` is set; channel `bit_planes + s` is filled with
//! `scalars[s]`. Flat index: `c·H·W + r·W + f`.
//!
//! ## Errors
//!
//! Reading never panics on bad input: a truncated or corrupt file, a missing
//! column, a column of the wrong type, a null, a wrong list length or a wrong
//! `schema_version` yields a [`DataError`] whose message names the file (and the
//! column and row where relevant).

pub mod book;
pub mod book_lookup;
mod bounded;
mod decode;
pub mod durable;
mod error;
/// The checks of the fuzz targets in `fuzz/` (not an API).
#[doc(hidden)]
pub mod fuzz_checks;
pub mod jsonl;
pub mod pgn;
pub mod provenance;
mod reader;
pub mod run_dir;
mod schema;
pub mod spec;
pub mod tactics;
pub mod tfevents;
mod writer;

pub use bounded::{decoding_guarded, MAX_DECODED_BYTES_PER_ROW_GROUP, MAX_ROWS_PER_FILE};
pub use decode::{decode_into, decode_position};
pub use durable::{crash_point, write_atomic, WriteError};
pub use error::{DataError, Result};
pub use provenance::{Build, Provenance};
pub use reader::{
    game_ids, list_chunks, read_chunk, read_file_spec, read_file_spec_version, read_games_file, read_positions_file, read_positions_window,
    read_positions_window_of, total_positions, ChunkInfo, PositionWindow,
};
pub use run_dir::RunDir;
pub use schema::{
    games_schema, is_truncation, positions_schema, GameRow, GameSpec, PositionRow, GAMES_SUFFIX, GAME_COLUMNS, MAX_AUX_TARGETS, MAX_BOARD_SIDE,
    OLDEST_READ_VERSION, OPTIONAL_GAME_COLUMNS, OPTIONAL_POSITION_COLUMNS, POSITIONS_SUFFIX, POSITION_COLUMNS, SCHEMA_VERSION, TMP_SUFFIX, TRUNCATION_REASONS,
    V1_AUX_COLUMNS,
};
pub use spec::{check_data_dir, check_data_dir_as, data_spec, game_spec, game_spec_as, registered_spec, spec_of, spec_of_encoding};
pub use writer::{chunk_stem, write_chunk, ChunkPaths, ChunkWriter};
