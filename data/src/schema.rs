//! Row structs, the game specification and the Arrow schemas of both tables.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use pacozero_engine::{Game, GameKind, DEFAULT_ENCODING};

use crate::error::{DataError, Result};

/// Schema version written by this build. It reads this one and every
/// earlier one listed here (an earlier version's rows read into today's
/// [`PositionRow`]):
///
/// * `1`: the auxiliary targets were two Boolean columns, [`V1_AUX_COLUMNS`];
/// * `2`: they are one column, `aux_targets`, of the game's declared targets
///   (their names in the metadata key `aux_targets`).
pub const SCHEMA_VERSION: u16 = 2;

/// The oldest schema version this build reads.
pub const OLDEST_READ_VERSION: u16 = 1;

/// The auxiliary-target columns of schema version 1, in order: Paco Ŝako's
/// two targets, under whose column names both games of that version stored
/// their two (Shako: in check, has a checking move). Readers of version-1
/// files read them into [`PositionRow::aux_targets`]; a version-1 file of a
/// registered game gets that game's [`Encode::AUX_TARGETS`] as its names
/// (every game of version 1 declared these two, in this order), any other
/// game these column names. Nothing else names them.
///
/// [`Encode::AUX_TARGETS`]: pacozero_engine::Encode::AUX_TARGETS
pub const V1_AUX_COLUMNS: [&str; 2] = ["mover_in_sako", "mover_can_paco"];

/// Most auxiliary targets a spec may declare.
pub const MAX_AUX_TARGETS: usize = 64;

/// Suffix of a chunk's positions file.
pub const POSITIONS_SUFFIX: &str = ".positions.parquet";
/// Suffix of a chunk's games file. Its presence marks a chunk as complete.
pub const GAMES_SUFFIX: &str = ".games.parquet";
/// Suffix of files being written (ignored by readers, removable at any time).
pub const TMP_SUFFIX: &str = ".tmp";

/// Dimensions of a game's encoding, stored in each file's key-value metadata.
///
/// The same crate serves Paco Ŝako (8x8) and later larger boards, so nothing
/// here is hard-coded to 8x8.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameSpec {
    /// Game name (metadata key `game`), e.g. `"pacosako"`.
    pub game: String,
    /// Ranks (metadata key `board_height`).
    pub board_height: u32,
    /// Files (metadata key `board_width`).
    pub board_width: u32,
    /// Number of bit planes (metadata key `bit_planes`).
    pub bit_planes: u32,
    /// Number of scalar features (metadata key `scalars`).
    pub scalars: u32,
    /// Number of policy slots (metadata key `policy_size`).
    pub policy_size: u32,
    /// Names of the game's auxiliary targets ([`Encode::AUX_TARGETS`]), in
    /// the order of the `aux_targets` column (metadata key `aux_targets`,
    /// the names comma-separated).
    ///
    /// [`Encode::AUX_TARGETS`]: pacozero_engine::Encode::AUX_TARGETS
    pub aux_targets: Vec<String>,
    /// The input encoding of the planes and scalars (one of the game's
    /// [`Encode::ENCODINGS`]; metadata key `encoding`, written only when it
    /// is not the game's own, [`DEFAULT_ENCODING`], which files without the
    /// key hold).
    ///
    /// [`Encode::ENCODINGS`]: pacozero_engine::Encode::ENCODINGS
    pub encoding: String,
}

/// Largest board side accepted (keeps a square index within `u16` range and
/// catches garbage metadata early).
pub const MAX_BOARD_SIDE: u32 = 64;

impl GameSpec {
    /// Build and validate a spec.
    pub fn new(
        game: impl Into<String>,
        board_height: u32,
        board_width: u32,
        bit_planes: u32,
        scalars: u32,
        policy_size: u32,
        aux_targets: &[&str],
    ) -> Result<Self> {
        let aux_targets = aux_targets.iter().map(|s| s.to_string()).collect();
        let spec = GameSpec { game: game.into(), board_height, board_width, bit_planes, scalars, policy_size, aux_targets, encoding: DEFAULT_ENCODING.into() };
        spec.validate()?;
        Ok(spec)
    }

    /// The same spec for input encoding `name` (the dimensions unchanged:
    /// callers give those of the encoding).
    pub fn with_encoding(self, name: &str) -> Result<Self> {
        let spec = GameSpec { encoding: name.to_string(), ..self };
        spec.validate()?;
        Ok(spec)
    }

    /// Check every dimension is in range.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(DataError::InvalidSpec(m));
        if self.game.is_empty() {
            return bad("game name is empty".into());
        }
        if self.encoding.is_empty() || self.encoding.contains([',', ' ']) {
            return bad(format!("encoding name {:?} is empty or has a comma or a space", self.encoding));
        }
        for (name, v) in [("board_height", self.board_height), ("board_width", self.board_width)] {
            if v == 0 || v > MAX_BOARD_SIDE {
                return bad(format!("{name} = {v}, must be in 1..={MAX_BOARD_SIDE}"));
            }
        }
        if self.bit_planes == 0 || self.bit_planes > 4096 {
            return bad(format!("bit_planes = {}, must be in 1..=4096", self.bit_planes));
        }
        if self.scalars > 4096 {
            return bad(format!("scalars = {}, must be <= 4096", self.scalars));
        }
        if self.policy_size == 0 || self.policy_size > u16::MAX as u32 + 1 {
            return bad(format!("policy_size = {}, must be in 1..=65536 (slots are UInt16)", self.policy_size));
        }
        if self.aux_targets.len() > MAX_AUX_TARGETS {
            return bad(format!("{} auxiliary targets, at most {MAX_AUX_TARGETS}", self.aux_targets.len()));
        }
        for (i, n) in self.aux_targets.iter().enumerate() {
            if n.is_empty() || n.contains(',') || n.trim() != n {
                return bad(format!("auxiliary target name {n:?} is empty, has a comma or surrounding white space"));
            }
            if self.aux_targets[..i].contains(n) {
                return bad(format!("auxiliary target {n:?} is named twice"));
            }
        }
        Ok(())
    }

    /// Squares on the board, `H * W`.
    pub fn squares(&self) -> usize {
        (self.board_height * self.board_width) as usize
    }

    /// `ceil(H*W / 64)`: `u64` words per bit plane.
    pub fn words_per_plane(&self) -> usize {
        self.squares().div_ceil(64)
    }

    /// Length of the `planes` list of one row: `bit_planes * words_per_plane`.
    pub fn plane_words(&self) -> usize {
        self.bit_planes as usize * self.words_per_plane()
    }

    /// Channels of the decoded input tensor: `bit_planes + scalars`.
    pub fn input_channels(&self) -> usize {
        (self.bit_planes + self.scalars) as usize
    }

    /// Number of auxiliary targets (values per row of the `aux_targets` column).
    pub fn num_aux_targets(&self) -> usize {
        self.aux_targets.len()
    }

    /// Length of a decoded input: `input_channels * H * W`.
    pub fn input_len(&self) -> usize {
        self.input_channels() * self.squares()
    }

    /// The key-value metadata written in each file.
    pub fn to_metadata(&self) -> HashMap<String, String> {
        let mut m = HashMap::new();
        m.insert("schema_version".into(), SCHEMA_VERSION.to_string());
        m.insert("game".into(), self.game.clone());
        m.insert("board_height".into(), self.board_height.to_string());
        m.insert("board_width".into(), self.board_width.to_string());
        m.insert("bit_planes".into(), self.bit_planes.to_string());
        m.insert("scalars".into(), self.scalars.to_string());
        m.insert("policy_size".into(), self.policy_size.to_string());
        m.insert("aux_targets".into(), self.aux_targets.join(","));
        if self.encoding != DEFAULT_ENCODING {
            m.insert("encoding".into(), self.encoding.clone());
        }
        m
    }

    /// The schema version a file's metadata declares, if this build reads it
    /// ([`OLDEST_READ_VERSION`]`..=`[`SCHEMA_VERSION`]).
    pub fn version_of(path: &std::path::Path, m: &HashMap<String, String>) -> Result<u16> {
        let version =
            m.get("schema_version").ok_or_else(|| DataError::Metadata { path: path.to_path_buf(), message: "key `schema_version` is missing".into() })?;
        match version.parse::<u16>() {
            Ok(v) if (OLDEST_READ_VERSION..=SCHEMA_VERSION).contains(&v) => Ok(v),
            _ => Err(DataError::SchemaVersion { path: path.to_path_buf(), found: version.clone(), oldest: OLDEST_READ_VERSION, expected: SCHEMA_VERSION }),
        }
    }

    /// Parse the key-value metadata of a file. `path` is only used in errors.
    pub fn from_metadata(path: &std::path::Path, m: &HashMap<String, String>) -> Result<Self> {
        let get =
            |k: &str| -> Result<&String> { m.get(k).ok_or_else(|| DataError::Metadata { path: path.to_path_buf(), message: format!("key `{k}` is missing") }) };
        let num = |k: &str| -> Result<u32> {
            let v = get(k)?;
            v.parse::<u32>().map_err(|_| DataError::Metadata { path: path.to_path_buf(), message: format!("key `{k}` = {v:?} is not an unsigned integer") })
        };
        let version = Self::version_of(path, m)?;
        let game = get("game")?.clone();
        let aux_targets = if version == 1 {
            v1_aux_names(&game)
        } else {
            let names = get("aux_targets")?;
            if names.is_empty() {
                Vec::new()
            } else {
                names.split(',').map(str::to_string).collect()
            }
        };
        let spec = GameSpec {
            game,
            board_height: num("board_height")?,
            board_width: num("board_width")?,
            bit_planes: num("bit_planes")?,
            scalars: num("scalars")?,
            policy_size: num("policy_size")?,
            aux_targets,
            encoding: m.get("encoding").cloned().unwrap_or_else(|| DEFAULT_ENCODING.to_string()),
        };
        spec.validate().map_err(|e| DataError::Metadata { path: path.to_path_buf(), message: e.to_string() })?;
        Ok(spec)
    }
}

impl std::fmt::Display for GameSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}x{} bit_planes={} scalars={} policy_size={} aux_targets=[{}]",
            self.game,
            self.board_height,
            self.board_width,
            self.bit_planes,
            self.scalars,
            self.policy_size,
            self.aux_targets.join(",")
        )?;
        if self.encoding != DEFAULT_ENCODING {
            write!(f, " encoding={}", self.encoding)?;
        }
        Ok(())
    }
}

/// The auxiliary targets' names of a version-1 file of `game`
/// ([`V1_AUX_COLUMNS`]).
fn v1_aux_names(game: &str) -> Vec<String> {
    fn names<G: Game>() -> Option<Vec<String>> {
        (G::AUX_TARGETS.len() == V1_AUX_COLUMNS.len()).then(|| G::AUX_TARGETS.iter().map(|s| s.to_string()).collect())
    }
    game.parse::<GameKind>()
        .ok()
        .and_then(|k| pacozero_engine::with_game!(k, G => names::<G>()))
        .unwrap_or_else(|| V1_AUX_COLUMNS.iter().map(|s| s.to_string()).collect())
}

/// One decision of a game: one row of the positions table.
///
/// See the crate documentation for the meaning of each field.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRow {
    pub game_id: u64,
    pub ply: u32,
    pub side_to_move: u8,
    pub planes: Vec<u64>,
    pub scalars: Vec<f32>,
    pub legal_actions: Vec<u16>,
    pub policy: Vec<f32>,
    pub full_search: bool,
    pub root_q: f32,
    pub root_wdl: [f32; 3],
    pub action: u16,
    pub result: i8,
    pub moves_left: u32,
    /// The values of the spec's auxiliary targets ([`GameSpec::aux_targets`]), in order.
    pub aux_targets: Vec<bool>,
    pub weight: f32,
    pub network_id: String,
    /// The game did not end by its rules: it was cut at its length cap
    /// (reasons `max_length` and `material`, see [`is_truncation`]). Its
    /// `result` (the cut's draw, or the material adjudication's win) and
    /// its `moves_left` (decisions to the cut) are no training targets: the
    /// value target takes the row's search value instead and the moves-left
    /// target is left out (`pacozero_batch::targets`). Column `truncated`,
    /// optional ([`OPTIONAL_POSITION_COLUMNS`]): `false` in files without it.
    pub truncated: bool,
}

/// End reasons of games that did not end by their rules but were cut at
/// their length cap: `max_length` (scored a draw) and `material` (a cut
/// game scored by material, `adjudicate_material`).
pub const TRUNCATION_REASONS: [&str; 2] = ["max_length", "material"];

/// Whether a game that ended for `reason` (the games table's `reason`) was
/// cut rather than ended by its rules ([`TRUNCATION_REASONS`]): its rows
/// are [`PositionRow::truncated`].
pub fn is_truncation(reason: &str) -> bool {
    TRUNCATION_REASONS.contains(&reason)
}

impl PositionRow {
    /// Check the row against the spec; the message names the offending field.
    pub fn check(&self, spec: &GameSpec) -> std::result::Result<(), String> {
        if self.planes.len() != spec.plane_words() {
            return Err(format!("planes has {} words, expected bit_planes * words_per_plane = {}", self.planes.len(), spec.plane_words()));
        }
        if self.aux_targets.len() != spec.num_aux_targets() {
            return Err(format!(
                "aux_targets has {} values, expected one per auxiliary target of the game ({}: {})",
                self.aux_targets.len(),
                spec.num_aux_targets(),
                spec.aux_targets.join(", ")
            ));
        }
        if self.scalars.len() != spec.scalars as usize {
            return Err(format!("scalars has {} values, expected {}", self.scalars.len(), spec.scalars));
        }
        if self.policy.len() != self.legal_actions.len() {
            return Err(format!("policy has {} values but legal_actions has {}", self.policy.len(), self.legal_actions.len()));
        }
        if let Some(a) = self.legal_actions.iter().find(|&&a| a as u32 >= spec.policy_size) {
            return Err(format!("legal action {a} >= policy_size {}", spec.policy_size));
        }
        if self.action as u32 >= spec.policy_size {
            return Err(format!("action {} >= policy_size {}", self.action, spec.policy_size));
        }
        if self.side_to_move > 1 {
            return Err(format!("side_to_move = {}, must be 0 or 1", self.side_to_move));
        }
        if !(-1..=1).contains(&self.result) {
            return Err(format!("result = {}, must be -1, 0 or 1", self.result));
        }
        if !self.weight.is_finite() || self.weight < 0.0 {
            return Err(format!("weight = {}, must be finite and >= 0", self.weight));
        }
        // A NaN or an infinity would poison every loss it reaches, silently.
        for (field, values) in [("scalars", &self.scalars[..]), ("policy", &self.policy[..]), ("root_wdl", &self.root_wdl[..]), ("root_q", &[self.root_q][..])]
        {
            if let Some((i, v)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                let at = if field == "root_q" { String::new() } else { format!("[{i}]") };
                return Err(format!("{field}{at} = {v}, must be finite"));
            }
        }
        Ok(())
    }
}

/// One finished game: one row of the games table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub game_id: u64,
    pub start_fen: String,
    pub actions: String,
    pub num_decisions: u32,
    pub result: String,
    pub reason: String,
    pub network_id: String,
    pub config_hash: String,
    pub seed: u64,
    /// The player of White: a player spec for a match game (`net:…:100ms`,
    /// `uci:fairy-stockfish,…`), `selfplay:<network_id>` for a self-play
    /// game; empty in files written before the column existed.
    pub white: String,
    /// The player of Black, as [`GameRow::white`].
    pub black: String,
}

/// Column names of the positions table, in file order.
pub const POSITION_COLUMNS: [&str; 18] = [
    "schema_version",
    "game_id",
    "ply",
    "side_to_move",
    "planes",
    "scalars",
    "legal_actions",
    "policy",
    "full_search",
    "root_q",
    "root_wdl",
    "action",
    "result",
    "moves_left",
    "aux_targets",
    "weight",
    "network_id",
    "truncated",
];

/// The positions table's columns that a reader takes as `false` when a
/// file lacks them: added without a schema version, like
/// [`OPTIONAL_GAME_COLUMNS`].
pub const OPTIONAL_POSITION_COLUMNS: [&str; 1] = ["truncated"];

/// Column names of the games table, in file order.
pub const GAME_COLUMNS: [&str; 12] =
    ["game_id", "schema_version", "start_fen", "actions", "num_decisions", "result", "reason", "network_id", "config_hash", "seed", "white", "black"];

/// The games table's columns that a reader takes as empty when a file
/// lacks them: they were added without a schema version (every build reads
/// files with or without them; older builds ignore them).
pub const OPTIONAL_GAME_COLUMNS: [&str; 2] = ["white", "black"];

pub(crate) fn item(dt: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", dt, false))
}

fn list(name: &str, dt: DataType) -> Field {
    Field::new(name, DataType::List(item(dt)), false)
}

/// Arrow schema of the positions table, with the spec in its metadata.
pub fn positions_schema(spec: &GameSpec) -> SchemaRef {
    positions_schema_of(spec, SCHEMA_VERSION)
}

/// The positions table's columns in schema version `version` (one this
/// build reads), with the spec in the metadata.
pub(crate) fn positions_schema_of(spec: &GameSpec, version: u16) -> SchemaRef {
    let mut fields = vec![
        Field::new("schema_version", DataType::UInt16, false),
        Field::new("game_id", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
        Field::new("side_to_move", DataType::UInt8, false),
        list("planes", DataType::UInt64),
        list("scalars", DataType::Float32),
        list("legal_actions", DataType::UInt16),
        list("policy", DataType::Float32),
        Field::new("full_search", DataType::Boolean, false),
        Field::new("root_q", DataType::Float32, false),
        Field::new("root_wdl", DataType::FixedSizeList(item(DataType::Float32), 3), false),
        Field::new("action", DataType::UInt16, false),
        Field::new("result", DataType::Int8, false),
        Field::new("moves_left", DataType::UInt32, false),
        Field::new("aux_targets", DataType::FixedSizeList(item(DataType::Boolean), spec.num_aux_targets() as i32), false),
        Field::new("weight", DataType::Float32, false),
        Field::new("network_id", DataType::Utf8, false),
        Field::new("truncated", DataType::Boolean, false),
    ];
    if version == 1 {
        let at = fields.iter().position(|f| f.name() == "aux_targets").expect("the aux_targets column");
        fields.splice(at..=at, V1_AUX_COLUMNS.map(|c| Field::new(c, DataType::Boolean, false)));
    }
    Arc::new(Schema::new_with_metadata(fields, spec.to_metadata()))
}

/// Arrow schema of the games table, with the spec in its metadata.
pub fn games_schema(spec: &GameSpec) -> SchemaRef {
    let fields = vec![
        Field::new("game_id", DataType::UInt64, false),
        Field::new("schema_version", DataType::UInt16, false),
        Field::new("start_fen", DataType::Utf8, false),
        Field::new("actions", DataType::Utf8, false),
        Field::new("num_decisions", DataType::UInt32, false),
        Field::new("result", DataType::Utf8, false),
        Field::new("reason", DataType::Utf8, false),
        Field::new("network_id", DataType::Utf8, false),
        Field::new("config_hash", DataType::Utf8, false),
        Field::new("seed", DataType::UInt64, false),
        Field::new("white", DataType::Utf8, false),
        Field::new("black", DataType::Utf8, false),
    ];
    Arc::new(Schema::new_with_metadata(fields, spec.to_metadata()))
}

/// The positions table's columns a file of `version` must have:
/// [`positions_schema_of`] without [`OPTIONAL_POSITION_COLUMNS`].
pub(crate) fn required_positions_schema(spec: &GameSpec, version: u16) -> SchemaRef {
    let all = positions_schema_of(spec, version);
    let fields: Vec<Field> = all.fields().iter().filter(|f| !OPTIONAL_POSITION_COLUMNS.contains(&f.name().as_str())).map(|f| f.as_ref().clone()).collect();
    Arc::new(Schema::new_with_metadata(fields, spec.to_metadata()))
}

/// The games table's columns a file must have: [`games_schema`] without
/// [`OPTIONAL_GAME_COLUMNS`].
pub(crate) fn required_games_schema(spec: &GameSpec) -> SchemaRef {
    let all = games_schema(spec);
    let fields: Vec<Field> = all.fields().iter().filter(|f| !OPTIONAL_GAME_COLUMNS.contains(&f.name().as_str())).map(|f| f.as_ref().clone()).collect();
    Arc::new(Schema::new_with_metadata(fields, spec.to_metadata()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(h: u32, w: u32, planes: u32, scalars: u32, policy: u32) -> Result<GameSpec> {
        GameSpec::new("g", h, w, planes, scalars, policy, &[])
    }

    #[test]
    fn every_dimension_is_accepted_up_to_its_limit_and_refused_past_it() {
        assert!(spec(64, 64, 4096, 4096, 65536).is_ok(), "every limit itself");
        assert!(spec(1, 1, 1, 0, 1).is_ok(), "every minimum");
        let refused = |r: Result<GameSpec>, what: &str| {
            let e = r.unwrap_err().to_string();
            assert!(e.contains(what), "{e} (expected {what})");
        };
        refused(spec(65, 8, 1, 0, 1), "board_height = 65, must be in 1..=64");
        refused(spec(0, 8, 1, 0, 1), "board_height = 0");
        refused(spec(8, 65, 1, 0, 1), "board_width = 65");
        refused(spec(8, 0, 1, 0, 1), "board_width = 0");
        refused(spec(8, 8, 4097, 0, 1), "bit_planes = 4097");
        refused(spec(8, 8, 0, 0, 1), "bit_planes = 0");
        refused(spec(8, 8, 1, 4097, 1), "scalars = 4097");
        refused(spec(8, 8, 1, 0, 65537), "policy_size = 65537");
        refused(spec(8, 8, 1, 0, 0), "policy_size = 0");
        let names: Vec<String> = (0..=MAX_AUX_TARGETS).map(|i| format!("t{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert!(GameSpec::new("g", 8, 8, 1, 0, 1, &names[..MAX_AUX_TARGETS]).is_ok());
        refused(GameSpec::new("g", 8, 8, 1, 0, 1, &names), &format!("{} auxiliary targets", MAX_AUX_TARGETS + 1));
        for bad in ["", "a,b", " a", "a "] {
            refused(GameSpec::new("g", 8, 8, 1, 0, 1, &[bad]), "is empty, has a comma or surrounding white space");
        }
        refused(GameSpec::new("g", 8, 8, 1, 0, 1, &["a", "b", "a"]), "auxiliary target \"a\" is named twice");
        refused(GameSpec::new("", 8, 8, 1, 0, 1, &[]), "game name is empty");
        for bad in ["", "a,b", "a b"] {
            refused(spec(8, 8, 1, 0, 1).unwrap().with_encoding(bad), "is empty or has a comma or a space");
        }
        assert_eq!(spec(8, 8, 1, 0, 1).unwrap().with_encoding("platform").unwrap().encoding, "platform");
    }

    #[test]
    fn only_the_cuts_are_truncations() {
        assert!(is_truncation("max_length") && is_truncation("material"));
        for decided in ["paco", "checkmate", "stalemate", "repetition", "fifty_moves", "no_progress", "resign", "stuck", ""] {
            assert!(!is_truncation(decided), "{decided}");
        }
    }

    fn row() -> PositionRow {
        PositionRow {
            game_id: 1,
            ply: 0,
            side_to_move: 0,
            planes: vec![0],
            scalars: vec![],
            legal_actions: vec![0, 3],
            policy: vec![0.5, 0.5],
            full_search: true,
            root_q: 0.0,
            root_wdl: [0.2, 0.3, 0.5],
            action: 3,
            result: 0,
            moves_left: 1,
            aux_targets: vec![],
            weight: 0.0,
            network_id: String::new(),
            truncated: false,
        }
    }

    #[test]
    fn a_row_is_checked_field_by_field() {
        let spec = spec(8, 8, 1, 0, 4).unwrap();
        assert_eq!(row().check(&spec), Ok(()), "weight 0 and the last slot are allowed");
        let err = |f: &dyn Fn(&mut PositionRow)| {
            let mut r = row();
            f(&mut r);
            r.check(&spec).unwrap_err()
        };
        assert_eq!(err(&|r| r.weight = -0.5), "weight = -0.5, must be finite and >= 0");
        assert_eq!(err(&|r| r.weight = f32::NAN), "weight = NaN, must be finite and >= 0");
        assert_eq!(err(&|r| r.weight = f32::INFINITY), "weight = inf, must be finite and >= 0");
        assert_eq!(err(&|r| r.action = 4), "action 4 >= policy_size 4");
        assert_eq!(err(&|r| r.legal_actions[1] = 4), "legal action 4 >= policy_size 4");
        assert_eq!(err(&|r| r.side_to_move = 2), "side_to_move = 2, must be 0 or 1");
        assert_eq!(err(&|r| r.result = -2), "result = -2, must be -1, 0 or 1");
        assert_eq!(err(&|r| r.policy.push(0.0)), "policy has 3 values but legal_actions has 2");
    }

    #[test]
    fn a_nan_or_an_infinity_is_refused_naming_its_field() {
        let spec = spec(8, 8, 1, 2, 4).unwrap();
        let ok = PositionRow { scalars: vec![0.5, 1.0], ..row() };
        assert_eq!(ok.check(&spec), Ok(()));
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let err = |f: &dyn Fn(&mut PositionRow)| {
                let mut r = ok.clone();
                f(&mut r);
                r.check(&spec).unwrap_err()
            };
            assert_eq!(err(&|r| r.policy[1] = bad), format!("policy[1] = {bad}, must be finite"));
            assert_eq!(err(&|r| r.root_q = bad), format!("root_q = {bad}, must be finite"));
            assert_eq!(err(&|r| r.root_wdl[2] = bad), format!("root_wdl[2] = {bad}, must be finite"));
            assert_eq!(err(&|r| r.scalars[0] = bad), format!("scalars[0] = {bad}, must be finite"));
            assert!(err(&|r| r.weight = bad).starts_with("weight = "));
        }
    }
}
