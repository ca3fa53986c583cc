//! A PacoZero run in an object store: S3 (and S3-compatible servers), Google
//! Cloud Storage, Azure Blob Storage, a local directory (`file://`) or memory
//! (`memory://`, for tests), through the `object_store` crate.
//!
//! A run in a store is made of two kinds of objects:
//!
//! * **write-once files** ([`RunStore::put_once`]): game chunks and models.
//!   A file is created whole or not at all, and never replaced: a second
//!   write of the same key is refused by the store itself
//!   ([`Put::AlreadyExists`]), so restarted or duplicated writers cannot
//!   clobber each other.
//! * **pointers** ([`RunStore::read_pointer`], [`RunStore::swap_pointer`]):
//!   small objects naming another object (`models/current`). A pointer is read
//!   together with its [`Version`]; it is replaced only by a conditional put
//!   that names the version it replaces (or, for a first pointer, that no
//!   pointer exists), so of two writers that read the same version only one
//!   wins and the other gets [`SwapError::Conflict`].
//!
//! Keys are `/`-separated paths relative to the URL's path (the prefix of the
//! run in its bucket). The API is synchronous: a [`RunStore`] owns a
//! single-threaded tokio runtime and blocks on each request.
//!
//! Conditional puts: on S3 they are `If-None-Match: *` and `If-Match: <etag>`
//! (`aws_conditional_put=etag`, set by [`RunStore::open`]); GCS and Azure
//! support them natively; in memory they are exact. The local file system of
//! `object_store` has no conditional update, so for `file://` URLs a swap
//! takes an exclusive `flock` on the pointer's directory, compares the
//! pointer's version and then replaces the file atomically (correct between
//! processes of one machine, or of a file system with working `flock`).
//!
//! Objects come from others: every read names the [`ObjectKind`] it expects,
//! and an object larger than that kind's cap is refused by its declared size,
//! before its body is read, and again while the body streams in (a store may
//! declare one size and send more).
//!
//! Outages: an operation on a network store (S3, GCS, Azure) that fails
//! because the store cannot be reached, or answers with a server error, is
//! tried again for [`retry_window`] (default [`DEFAULT_RETRY_SECONDS`]),
//! with one line on standard error per failed try and one when the store
//! answers again; then the error is returned.

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use object_store::path::Path as StorePath;
use object_store::{GetResultPayload, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use url::Url;

/// Prefixes of the environment variables passed to the store as options
/// (lower-cased: `AWS_ENDPOINT` becomes `aws_endpoint`); see `docs/scale-out.md`.
pub const ENV_PREFIXES: [&str; 3] = ["AWS_", "GOOGLE_", "AZURE_"];

/// Errors of store operations; each names the store URL and the key.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("object store URL {url:?}: {message}")]
    Url { url: String, message: String },
    #[error("{url}: cannot {op} `{key}`: {cause}")]
    Op { url: String, op: &'static str, key: String, cause: Box<object_store::Error> },
    #[error("{url}: `{key}`: {message}")]
    Other { url: String, key: String, message: String },
    /// An object larger than the cap of its kind; its body was not read (or
    /// not past the cap).
    #[error("{url}: `{key}` {size}, over the {cap} cap of a {kind} object; it was not read", cap = human_bytes(kind.cap()))]
    TooLarge { url: String, key: String, kind: ObjectKind, size: Oversize },
}

/// What an object of a run is, which bounds how large it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// `models/current`: a model's file name and a newline.
    Pointer,
    /// `eval/<model>.json`: one model's evaluation record.
    Json,
    /// `models/<name>.pzmodel`.
    Model,
    /// `data/w<NNNN>/<stem>.{games,positions}.parquet`.
    Chunk,
}

/// The cap of a pointer: a model's file name needs far less than 4 KiB.
pub const POINTER_CAP: u64 = 4 << 10;
/// The cap of a JSON object: an evaluation record (its matches, a few KiB)
/// with room to spare.
pub const JSON_CAP: u64 = 8 << 20;
/// The cap of a model: 1 GiB, about 250 million 32-bit weights, a hundred
/// times the shipped networks.
pub const MODEL_CAP: u64 = 1 << 30;
/// The cap of one chunk file: 1 GiB (a chunk of 64 games is a few MiB).
pub const CHUNK_CAP: u64 = 1 << 30;

impl ObjectKind {
    /// The most bytes an object of this kind may hold.
    pub const fn cap(self) -> u64 {
        match self {
            ObjectKind::Pointer => POINTER_CAP,
            ObjectKind::Json => JSON_CAP,
            ObjectKind::Model => MODEL_CAP,
            ObjectKind::Chunk => CHUNK_CAP,
        }
    }
}

impl fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ObjectKind::Pointer => "pointer",
            ObjectKind::Json => "JSON",
            ObjectKind::Model => "model",
            ObjectKind::Chunk => "chunk",
        })
    }
}

/// How an object showed that it is over its cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oversize {
    /// The store declared this size before the body was read.
    Declared(u64),
    /// The body went past the cap while it streamed in, though the store had
    /// declared this size.
    Sent { declared: u64 },
}

impl fmt::Display for Oversize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Oversize::Declared(n) => write!(f, "is {n} bytes ({})", human_bytes(*n)),
            Oversize::Sent { declared } => write!(f, "was declared as {declared} bytes but sent more"),
        }
    }
}

/// `n` bytes in the largest binary unit that divides them (`4 KiB`, `1 GiB`,
/// `1000 bytes`), or rounded to one decimal (`1.5 GiB`).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if n >= size {
            return if n.is_multiple_of(size) { format!("{} {unit}", n / size) } else { format!("{:.1} {unit}", n as f64 / size as f64) };
        }
    }
    format!("{n} bytes")
}

/// The environment variable that sets [`retry_window`] in seconds.
pub const RETRY_ENV: &str = "PACOZERO_STORE_RETRY_SECONDS";
/// How long an operation keeps trying an unreachable store by default: ten
/// minutes rides out a restart of the store or a short network outage.
pub const DEFAULT_RETRY_SECONDS: u64 = 600;

/// How long an operation keeps trying an unreachable network store:
/// [`RETRY_ENV`] seconds, else [`DEFAULT_RETRY_SECONDS`] (0: no retries).
pub fn retry_window() -> Result<Duration, String> {
    retry_window_of(std::env::var(RETRY_ENV).ok().as_deref())
}

/// The retry window that the value `v` of [`RETRY_ENV`] sets.
fn retry_window_of(v: Option<&str>) -> Result<Duration, String> {
    match v {
        None => Ok(Duration::from_secs(DEFAULT_RETRY_SECONDS)),
        Some(v) => v.trim().parse::<u64>().map(Duration::from_secs).map_err(|_| format!("{RETRY_ENV}={v:?}: expected whole seconds (0 or more)")),
    }
}

/// Result of a pointer swap that did not happen.
#[derive(Debug, thiserror::Error)]
pub enum SwapError {
    /// The pointer is not at the version the caller read (someone else
    /// replaced it, or created it when the caller saw none); nothing was written.
    #[error("{url}: pointer `{key}` was changed by another writer since it was read (expected {expected}); it was not replaced")]
    Conflict { url: String, key: String, expected: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Outcome of a write-once put.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Put {
    /// The object was created by this call.
    Created,
    /// An object already existed under the key; it was left unchanged.
    AlreadyExists,
}

/// The version of a pointer, as the store reports it (an ETag and/or an object
/// version); swaps compare it with the store's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub e_tag: Option<String>,
    pub version: Option<String>,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.e_tag, &self.version) {
            (Some(e), Some(v)) => write!(f, "etag {e}, version {v}"),
            (Some(e), None) => write!(f, "etag {e}"),
            (None, Some(v)) => write!(f, "version {v}"),
            (None, None) => write!(f, "unversioned"),
        }
    }
}

/// A run in an object store (see the crate documentation).
pub struct RunStore {
    url: String,
    store: Box<dyn ObjectStore>,
    prefix: StorePath,
    /// For `file://` URLs: the directory of the run (pointer swaps lock files there).
    local_root: Option<PathBuf>,
    /// How long an operation retries an unreachable store (zero for local
    /// and memory stores, which do not go away).
    retry: Duration,
    rt: tokio::runtime::Runtime,
}

impl fmt::Debug for RunStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunStore").field("url", &self.url).finish()
    }
}

/// Store options from the environment: every variable starting with one of
/// [`ENV_PREFIXES`], key lower-cased (unknown keys are ignored by the store).
pub fn env_options() -> Vec<(String, String)> {
    std::env::vars().filter(|(k, _)| ENV_PREFIXES.iter().any(|p| k.starts_with(p))).map(|(k, v)| (k.to_ascii_lowercase(), v)).collect()
}

impl RunStore {
    /// Opens the run at `url` (`s3://bucket/prefix`, `gs://bucket/prefix`,
    /// `az://container/prefix`, `file:///abs/dir`, `memory://`) with options
    /// from the environment ([`env_options`]). Nothing is contacted yet.
    pub fn open(url: &str) -> Result<RunStore, StoreError> {
        RunStore::open_with(url, env_options())
    }

    /// Opens the run at `url` with explicit options (`object_store` config keys
    /// such as `aws_endpoint`, `aws_allow_http`, `aws_access_key_id`,
    /// `google_service_account`, `azure_storage_account_name`).
    pub fn open_with(url: &str, options: impl IntoIterator<Item = (String, String)>) -> Result<RunStore, StoreError> {
        let bad = |message: String| StoreError::Url { url: url.to_string(), message };
        let parsed = Url::parse(url)
            .map_err(|e| bad(format!("{e} (expected e.g. s3://bucket/run, gs://bucket/run, az://container/run, file:///abs/dir or memory://)")))?;
        let mut opts: Vec<(String, String)> = Vec::new();
        if matches!(parsed.scheme(), "s3" | "s3a") {
            // Write-once files and pointer swaps need S3's conditional puts.
            opts.push(("aws_conditional_put".into(), "etag".into()));
        }
        opts.extend(options);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| bad(format!("cannot start the I/O runtime: {e}")))?;
        let (store, prefix) = {
            let _guard = rt.enter();
            object_store::parse_url_opts(&parsed, opts).map_err(|e| bad(e.to_string()))?
        };
        let local_root = if parsed.scheme() == "file" { Some(parsed.to_file_path().map_err(|_| bad("not an absolute local path".into()))?) } else { None };
        let retry = if matches!(parsed.scheme(), "file" | "memory") { Duration::ZERO } else { retry_window().map_err(bad)? };
        Ok(RunStore { url: url.to_string(), store, prefix, local_root, retry, rt })
    }

    /// Runs `attempt` (given whether an earlier try failed) until it
    /// succeeds, fails for a reason other than an outage, or the retry window
    /// has passed since the first failure; each failure and the recovery are
    /// told on standard error.
    fn retrying<T>(&self, op: &str, key: &str, attempt: impl FnMut(bool) -> Result<T, object_store::Error>) -> Result<T, object_store::Error> {
        let what = format!("{}: {op} `{key}`", self.url);
        retrying(&what, self.retry, is_transient, attempt, std::thread::sleep, &mut |line| eprintln!("{line}"))
    }

    /// The bytes of the object at `path`, refused past the cap of `kind`,
    /// with its version; `NotFound` if there is none.
    fn read_capped(&self, path: &StorePath, key: &str, kind: ObjectKind) -> Result<Result<(Bytes, Version), StoreError>, object_store::Error> {
        self.rt.block_on(async {
            let got = self.store.get(path).await?;
            let version = Version { e_tag: got.meta.e_tag.clone(), version: got.meta.version.clone() };
            let declared = got.meta.size.max(got.range.end - got.range.start);
            let too_large = |size| StoreError::TooLarge { url: self.url.clone(), key: key.to_string(), kind, size };
            if declared > kind.cap() {
                return Ok(Err(too_large(Oversize::Declared(declared))));
            }
            let bytes = match got.payload {
                // A local file is read for exactly its range, checked above.
                GetResultPayload::File(..) => got.bytes().await?,
                GetResultPayload::Stream(stream) => match collect_capped(stream, declared, kind.cap()).await? {
                    Some(b) => b,
                    None => return Ok(Err(too_large(Oversize::Sent { declared }))),
                },
            };
            Ok(Ok((bytes, version)))
        })
    }

    /// The URL the store was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn op_err(&self, op: &'static str, key: &str, cause: object_store::Error) -> StoreError {
        StoreError::Op { url: self.url.clone(), op, key: key.to_string(), cause: Box::new(cause) }
    }

    fn other(&self, key: &str, message: impl Into<String>) -> StoreError {
        StoreError::Other { url: self.url.clone(), key: key.to_string(), message: message.into() }
    }

    /// The store path of `key` (below the URL's prefix).
    fn path(&self, key: &str) -> Result<StorePath, StoreError> {
        // An empty key, a leading or trailing slash and a double slash all
        // show up as an empty name between slashes.
        if key.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
            return Err(self.other(key, "bad key (expected names separated by single slashes)"));
        }
        let rel = StorePath::parse(key).map_err(|e| self.other(key, format!("bad key: {e}")))?;
        Ok(self.prefix.parts().chain(rel.parts()).collect())
    }

    /// `location` relative to the run's prefix.
    fn key_of(&self, location: &StorePath) -> Option<String> {
        let parts: Vec<String> = location.prefix_match(&self.prefix)?.map(|p| p.as_ref().to_string()).collect();
        Some(parts.join("/"))
    }

    /// Creates `key` with `bytes` unless an object exists there already (then
    /// nothing is written and [`Put::AlreadyExists`] is returned).
    pub fn put_once(&self, key: &str, bytes: impl Into<Bytes>) -> Result<Put, StoreError> {
        let path = self.path(key)?;
        let bytes: Bytes = bytes.into();
        let mut retried = false;
        let r = self.retrying("create", key, |again| {
            retried |= again;
            self.rt.block_on(self.store.put_opts(&path, PutPayload::from(bytes.clone()), PutOptions::from(PutMode::Create)))
        });
        match r {
            Ok(_) => Ok(Put::Created),
            // A try that failed may have landed before its answer was lost:
            // the same bytes there after a retry are this call's.
            Err(object_store::Error::AlreadyExists { .. }) if retried && self.holds(&path, key, &bytes)? => Ok(Put::Created),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(Put::AlreadyExists),
            Err(e) => Err(self.op_err("create", key, e)),
        }
    }

    /// Whether the object at `path` holds exactly `bytes` (read no further
    /// than their length).
    fn holds(&self, path: &StorePath, key: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        let r = self.retrying("read", key, |_| {
            self.rt.block_on(async {
                let got = self.store.get(path).await?;
                if got.meta.size != bytes.len() as u64 {
                    return Ok(false);
                }
                Ok(collect_capped(got.into_stream(), bytes.len() as u64, bytes.len() as u64).await?.is_some_and(|b| b == bytes))
            })
        });
        match r {
            Ok(same) => Ok(same),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.op_err("read", key, e)),
        }
    }

    /// The contents of `key` (`None` if there is no such object), an object
    /// of `kind`: one over the kind's cap is refused ([`StoreError::TooLarge`]).
    pub fn get(&self, key: &str, kind: ObjectKind) -> Result<Option<Bytes>, StoreError> {
        let path = self.path(key)?;
        match self.retrying("read", key, |_| self.read_capped(&path, key, kind)) {
            Ok(r) => Ok(Some(r?.0)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.op_err("read", key, e)),
        }
    }

    /// Whether an object exists under `key`.
    pub fn exists(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.version(key)?.is_some())
    }

    /// The version of the object `key` (`None` if there is none), from its
    /// metadata: nothing is downloaded.
    pub fn version(&self, key: &str) -> Result<Option<Version>, StoreError> {
        let path = self.path(key)?;
        match self.retrying("look up", key, |_| self.rt.block_on(self.store.head(&path))) {
            Ok(meta) => Ok(Some(Version { e_tag: meta.e_tag, version: meta.version })),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.op_err("look up", key, e)),
        }
    }

    /// Every key under the folder `prefix` (`""`: the whole run; `"data"` or
    /// `"data/"`: everything below `data/`), sorted.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let prefix = prefix.trim_end_matches('/');
        let path = if prefix.is_empty() { self.prefix.clone() } else { self.path(prefix)? };
        let shown = if prefix.is_empty() { "." } else { prefix };
        let r = self.retrying("list", shown, |_| {
            self.rt.block_on(async {
                let mut keys = Vec::new();
                let mut stream = self.store.list(Some(&path));
                while let Some(meta) = stream.next().await {
                    if let Some(k) = self.key_of(&meta?.location) {
                        keys.push(k);
                    }
                }
                Ok(keys)
            })
        });
        let mut keys = match r {
            Ok(keys) => keys,
            // A local directory that does not exist yet holds nothing.
            Err(object_store::Error::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(self.op_err("list", shown, e)),
        };
        keys.sort();
        Ok(keys)
    }

    /// The pointer `key` (its contents as UTF-8) and its version; `None` if it
    /// does not exist. A pointer over [`POINTER_CAP`] is refused.
    pub fn read_pointer(&self, key: &str) -> Result<Option<(String, Version)>, StoreError> {
        let path = self.path(key)?;
        match self.retrying("read pointer", key, |_| self.read_capped(&path, key, ObjectKind::Pointer)) {
            Ok(r) => {
                let (bytes, version) = r?;
                let text = String::from_utf8(bytes.to_vec()).map_err(|_| self.other(key, "pointer is not UTF-8 text"))?;
                Ok(Some((text, version)))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.op_err("read pointer", key, e)),
        }
    }

    /// Replaces the pointer `key` by `contents` if it is still at `expected`
    /// (the version [`RunStore::read_pointer`] returned), or creates it if
    /// `expected` is `None` and there is no pointer yet. Returns the new
    /// version; [`SwapError::Conflict`] when the pointer has moved.
    pub fn swap_pointer(&self, key: &str, contents: &str, expected: Option<&Version>) -> Result<Version, SwapError> {
        let path = self.path(key)?;
        let conflict = || SwapError::Conflict {
            url: self.url.clone(),
            key: key.to_string(),
            expected: expected.map_or_else(|| "no pointer".to_string(), |v| v.to_string()),
        };
        if let Some(root) = &self.local_root {
            return self.swap_local(root, key, &path, contents, expected, conflict);
        }
        let mode = match expected {
            None => PutMode::Create,
            Some(v) => PutMode::Update(UpdateVersion { e_tag: v.e_tag.clone(), version: v.version.clone() }),
        };
        let payload = PutPayload::from(Bytes::copy_from_slice(contents.as_bytes()));
        let mut retried = false;
        let r = self.retrying("update pointer", key, |again| {
            retried |= again;
            self.rt.block_on(self.store.put_opts(&path, payload.clone(), PutOptions::from(mode.clone())))
        });
        match r {
            Ok(r) => Ok(Version { e_tag: r.e_tag, version: r.version }),
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => {
                // A try that failed may have landed before its answer was
                // lost: then the pointer holds these contents now.
                if retried {
                    if let Some((now, version)) = self.read_pointer(key)? {
                        if now == contents {
                            return Ok(version);
                        }
                    }
                }
                Err(conflict())
            }
            Err(e) => Err(self.op_err("update pointer", key, e).into()),
        }
    }

    /// The `file://` swap: exclusive lock on the pointer's directory, compare, replace.
    fn swap_local(
        &self,
        root: &std::path::Path,
        key: &str,
        path: &StorePath,
        contents: &str,
        expected: Option<&Version>,
        conflict: impl Fn() -> SwapError,
    ) -> Result<Version, SwapError> {
        let file = root.join(key);
        let dir = file.parent().unwrap_or(root).to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| self.other(key, format!("cannot create {}: {e}", dir.display())))?;
        let _lock = DirLock::exclusive(&dir).map_err(|e| self.other(key, format!("cannot lock {}: {e}", dir.display())))?;
        let now = match self.rt.block_on(self.store.head(path)) {
            Ok(meta) => Some(Version { e_tag: meta.e_tag, version: meta.version }),
            Err(object_store::Error::NotFound { .. }) => None,
            Err(e) => return Err(self.op_err("read pointer", key, e).into()),
        };
        let same = match (expected, &now) {
            (None, None) => true,
            (Some(want), Some(have)) => want.e_tag.is_some() && want.e_tag == have.e_tag,
            _ => false,
        };
        if !same {
            return Err(conflict());
        }
        let payload = PutPayload::from(Bytes::copy_from_slice(contents.as_bytes()));
        match self.rt.block_on(self.store.put_opts(path, payload, PutOptions::from(PutMode::Overwrite))) {
            Ok(r) => Ok(Version { e_tag: r.e_tag, version: r.version }),
            Err(e) => Err(self.op_err("update pointer", key, e).into()),
        }
    }
}

/// Collects `stream` (whose store declared `declared` bytes) unless it goes
/// past `cap` bytes: `None` then, with no more than `cap` bytes held.
async fn collect_capped(mut stream: BoxStream<'static, object_store::Result<Bytes>>, declared: u64, cap: u64) -> object_store::Result<Option<Bytes>> {
    let mut buf = BytesMut::with_capacity(declared.min(cap) as usize);
    while let Some(piece) = stream.next().await {
        let piece = piece?;
        if (buf.len() + piece.len()) as u64 > cap {
            return Ok(None);
        }
        buf.extend_from_slice(&piece);
    }
    Ok(Some(buf.freeze()))
}

/// Whether `e` means that the store could not be reached, or failed on its
/// side (a server error, throttling): worth another try, unlike a refused
/// or malformed request.
fn is_transient(e: &object_store::Error) -> bool {
    let object_store::Error::Generic { source, .. } = e else { return false };
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(source.as_ref());
    while let Some(c) = cause {
        // A connection refused or reset, a timeout: the request got no answer.
        if c.downcast_ref::<object_store::client::HttpError>().is_some() {
            return true;
        }
        cause = c.source();
    }
    // object_store's type for an HTTP status is private; its message names
    // the status ("... non-2xx status code: 503 Service Unavailable").
    let text = e.to_string();
    ["status code: 5", "status code: 429"].iter().any(|s| text.contains(s))
}

/// The first wait before a retry; each further wait doubles, up to [`RETRY_MAX_WAIT`].
const RETRY_FIRST_WAIT: Duration = Duration::from_secs(1);
const RETRY_MAX_WAIT: Duration = Duration::from_secs(16);

/// Runs `attempt` until it succeeds, fails in a way `transient` says is not
/// an outage, or `window` has passed since its first failure; `sleep` waits
/// between tries and `log` hears one line per failed try and one on
/// recovery (`what` names the operation in them). `attempt` is told whether
/// an earlier try failed.
fn retrying<T, E: fmt::Display>(
    what: &str,
    window: Duration,
    transient: impl Fn(&E) -> bool,
    mut attempt: impl FnMut(bool) -> Result<T, E>,
    mut sleep: impl FnMut(Duration),
    log: &mut dyn FnMut(&str),
) -> Result<T, E> {
    let mut outage: Option<Instant> = None;
    let (mut waited, mut wait, mut retries) = (Duration::ZERO, RETRY_FIRST_WAIT, 0u32);
    loop {
        match attempt(outage.is_some()) {
            Ok(v) => {
                if let Some(start) = outage {
                    // The outage's length counts the waits, so a test's fake
                    // sleep measures too.
                    let out = start.elapsed().max(waited);
                    log(&format!("store: {what}: the store answers again after {retries} retries; it was out for {:.1} s", out.as_secs_f64()));
                }
                return Ok(v);
            }
            Err(e) if transient(&e) => {
                let start = *outage.get_or_insert_with(Instant::now);
                let out = start.elapsed().max(waited);
                if out + wait > window {
                    if retries > 0 {
                        log(&format!(
                            "store: {what}: failed ({e}); giving up after {retries} retries and {:.1} s (retry window {} s, {RETRY_ENV})",
                            out.as_secs_f64(),
                            window.as_secs()
                        ));
                    }
                    return Err(e);
                }
                retries += 1;
                log(&format!(
                    "store: {what}: failed ({e}); retry {retries} in {} s ({:.1} s since the first failure, retry window {} s)",
                    wait.as_secs(),
                    out.as_secs_f64(),
                    window.as_secs()
                ));
                sleep(wait);
                waited += wait;
                wait = (wait * 2).min(RETRY_MAX_WAIT);
            }
            Err(e) => return Err(e),
        }
    }
}

/// An exclusive `flock` on a directory, released when dropped (or when the
/// process dies).
struct DirLock {
    _file: std::fs::File,
}

impl DirLock {
    #[cfg(unix)]
    fn exclusive(dir: &std::path::Path) -> std::io::Result<DirLock> {
        use std::os::unix::io::AsRawFd;
        let file = std::fs::File::open(dir)?;
        loop {
            // SAFETY: flock on a file descriptor this function owns.
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if r == 0 {
                return Ok(DirLock { _file: file });
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    #[cfg(not(unix))]
    fn exclusive(_dir: &std::path::Path) -> std::io::Result<DirLock> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "pointer swaps in file:// stores need a Unix system"))
    }
}

#[cfg(test)]
mod tests;
