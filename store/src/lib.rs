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

use std::fmt;
use std::path::PathBuf;

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::path::Path as StorePath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
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
        Ok(RunStore { url: url.to_string(), store, prefix, local_root, rt })
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
        let payload = PutPayload::from(bytes.into());
        let r = self.rt.block_on(self.store.put_opts(&path, payload, PutOptions::from(PutMode::Create)));
        match r {
            Ok(_) => Ok(Put::Created),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(Put::AlreadyExists),
            Err(e) => Err(self.op_err("create", key, e)),
        }
    }

    /// The contents of `key` (`None` if there is no such object).
    pub fn get(&self, key: &str) -> Result<Option<Bytes>, StoreError> {
        let path = self.path(key)?;
        let r = self.rt.block_on(async {
            let got = self.store.get(&path).await?;
            got.bytes().await
        });
        match r {
            Ok(b) => Ok(Some(b)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.op_err("read", key, e)),
        }
    }

    /// Whether an object exists under `key`.
    pub fn exists(&self, key: &str) -> Result<bool, StoreError> {
        let path = self.path(key)?;
        match self.rt.block_on(self.store.head(&path)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.op_err("look up", key, e)),
        }
    }

    /// Every key under the folder `prefix` (`""`: the whole run; `"data"` or
    /// `"data/"`: everything below `data/`), sorted.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let prefix = prefix.trim_end_matches('/');
        let path = if prefix.is_empty() { self.prefix.clone() } else { self.path(prefix)? };
        let mut keys = Vec::new();
        let r: Result<(), object_store::Error> = self.rt.block_on(async {
            let mut stream = self.store.list(Some(&path));
            while let Some(meta) = stream.next().await {
                let meta = meta?;
                if let Some(k) = self.key_of(&meta.location) {
                    keys.push(k);
                }
            }
            Ok(())
        });
        match r {
            Ok(()) => {}
            // A local directory that does not exist yet holds nothing.
            Err(object_store::Error::NotFound { .. }) => keys.clear(),
            Err(e) => return Err(self.op_err("list", if prefix.is_empty() { "." } else { prefix }, e)),
        }
        keys.sort();
        Ok(keys)
    }

    /// The pointer `key` (its contents as UTF-8) and its version; `None` if it
    /// does not exist.
    pub fn read_pointer(&self, key: &str) -> Result<Option<(String, Version)>, StoreError> {
        let path = self.path(key)?;
        let r = self.rt.block_on(async {
            let got = self.store.get(&path).await?;
            let version = Version { e_tag: got.meta.e_tag.clone(), version: got.meta.version.clone() };
            Ok::<_, object_store::Error>((got.bytes().await?, version))
        });
        match r {
            Ok((bytes, version)) => {
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
        match self.rt.block_on(self.store.put_opts(&path, payload, PutOptions::from(mode))) {
            Ok(r) => Ok(Version { e_tag: r.e_tag, version: r.version }),
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => Err(conflict()),
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
mod store_tests {
    use super::*;

    /// A `memory://` store and a `file://` store in a fresh directory (kept alive by the guard).
    fn stores() -> Vec<(RunStore, Option<tempfile::TempDir>)> {
        let dir = tempfile::tempdir().unwrap();
        let url = Url::from_directory_path(dir.path().join("run")).unwrap();
        vec![(RunStore::open_with("memory:///run", Vec::new()).unwrap(), None), (RunStore::open_with(url.as_str(), Vec::new()).unwrap(), Some(dir))]
    }

    #[test]
    fn put_once_creates_then_refuses() {
        for (s, _g) in stores() {
            assert_eq!(s.put_once("data/w0001/a.games.parquet", &b"one"[..]).unwrap(), Put::Created, "{s:?}");
            assert_eq!(s.put_once("data/w0001/a.games.parquet", &b"two"[..]).unwrap(), Put::AlreadyExists, "{s:?}");
            assert_eq!(s.get("data/w0001/a.games.parquet").unwrap().unwrap(), &b"one"[..], "{s:?}: the first write stays");
            assert!(s.exists("data/w0001/a.games.parquet").unwrap());
        }
    }

    #[test]
    fn get_of_a_missing_key_is_none() {
        for (s, _g) in stores() {
            assert_eq!(s.get("models/nothing.pzmodel").unwrap(), None, "{s:?}");
            assert!(!s.exists("models/nothing.pzmodel").unwrap());
        }
    }

    #[test]
    fn list_is_sorted_relative_and_scoped() {
        for (s, _g) in stores() {
            assert_eq!(s.list("data").unwrap(), Vec::<String>::new(), "{s:?}: empty before any write");
            for k in ["data/w0002/b", "data/w0001/z", "data/w0001/a", "models/m.pzmodel"] {
                s.put_once(k, Bytes::from_static(b"x")).unwrap();
            }
            assert_eq!(s.list("data").unwrap(), ["data/w0001/a", "data/w0001/z", "data/w0002/b"], "{s:?}");
            assert_eq!(s.list("data/w0001/").unwrap(), ["data/w0001/a", "data/w0001/z"], "{s:?}");
            assert_eq!(s.list("").unwrap().len(), 4, "{s:?}");
        }
    }

    #[test]
    fn bad_keys_are_refused_with_the_key() {
        for (s, _g) in stores() {
            for k in ["", "/abs", "a//b", "a/../b", "a/./b", "..", "dir/"] {
                let e = s.put_once(k, Bytes::from_static(b"x")).unwrap_err().to_string();
                // Our own check names the rule, before the store's parser sees the key.
                assert!(e.contains("bad key (expected names separated by single slashes)"), "{k:?}: {e}");
            }
        }
    }

    #[test]
    fn pointer_is_created_once_then_swapped_by_version() {
        for (s, _g) in stores() {
            assert!(s.read_pointer("models/current").unwrap().is_none());
            let v1 = s.swap_pointer("models/current", "a.pzmodel\n", None).unwrap();
            let (text, read_v1) = s.read_pointer("models/current").unwrap().unwrap();
            assert_eq!(text, "a.pzmodel\n");
            assert_eq!(read_v1.e_tag, v1.e_tag, "{s:?}: the version read is the version written");
            // A second "first" pointer conflicts.
            let e = s.swap_pointer("models/current", "x.pzmodel\n", None).unwrap_err();
            assert!(matches!(e, SwapError::Conflict { .. }), "{s:?}: {e}");
            // Swap from the version read.
            let v2 = s.swap_pointer("models/current", "b.pzmodel\n", Some(&read_v1)).unwrap();
            assert_ne!(v2, v1);
            // A writer still holding v1 is refused and the pointer is unchanged.
            let e = s.swap_pointer("models/current", "c.pzmodel\n", Some(&read_v1)).unwrap_err();
            assert!(matches!(e, SwapError::Conflict { .. }), "{s:?}: {e}");
            assert!(e.to_string().contains("models/current") && e.to_string().contains(s.url()), "{e}");
            let (text, v) = s.read_pointer("models/current").unwrap().unwrap();
            assert_eq!((text.as_str(), &v.e_tag), ("b.pzmodel\n", &v2.e_tag));
        }
    }

    #[test]
    fn local_pointer_swaps_from_threads_have_one_winner_per_version() {
        let dir = tempfile::tempdir().unwrap();
        let url = Url::from_directory_path(dir.path()).unwrap().to_string();
        let first = RunStore::open_with(&url, Vec::new()).unwrap();
        first.swap_pointer("models/current", "m0\n", None).unwrap();
        let (_, v0) = first.read_pointer("models/current").unwrap().unwrap();
        let wins: usize = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..6)
                .map(|i| {
                    let (url, v0) = (url.clone(), v0.clone());
                    sc.spawn(move || {
                        let s = RunStore::open_with(&url, Vec::new()).unwrap();
                        s.swap_pointer("models/current", &format!("m{}\n", i + 1), Some(&v0)).is_ok() as usize
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(wins, 1, "exactly one swap from the same version wins");
    }

    #[test]
    fn versions_and_stores_print_what_they_are() {
        let v = |e: Option<&str>, n: Option<&str>| Version { e_tag: e.map(String::from), version: n.map(String::from) }.to_string();
        assert_eq!(v(Some("\"x1\""), Some("7")), "etag \"x1\", version 7");
        assert_eq!(v(Some("e"), None), "etag e");
        assert_eq!(v(None, Some("7")), "version 7");
        assert_eq!(v(None, None), "unversioned");
        let s = RunStore::open_with("memory:///some/run", Vec::new()).unwrap();
        assert_eq!(format!("{s:?}"), "RunStore { url: \"memory:///some/run\" }");
    }

    #[test]
    fn env_options_take_the_store_variables_lower_cased() {
        // Names no other test or tool sets.
        std::env::set_var("AWS_PACOZERO_ENV_PROBE", "a1");
        std::env::set_var("GOOGLE_PACOZERO_ENV_PROBE", "g1");
        std::env::set_var("PACOZERO_ENV_PROBE_NOT_A_STORE", "x");
        let opts = env_options();
        assert!(opts.contains(&("aws_pacozero_env_probe".to_string(), "a1".to_string())), "{opts:?}");
        assert!(opts.contains(&("google_pacozero_env_probe".to_string(), "g1".to_string())), "{opts:?}");
        assert!(!opts.iter().any(|(k, _)| k.contains("not_a_store")), "{opts:?}");
        assert!(opts.iter().all(|(k, _)| ENV_PREFIXES.iter().any(|p| k.starts_with(&p.to_ascii_lowercase()))), "{opts:?}");
    }

    #[test]
    fn bad_urls_name_the_url() {
        let e = RunStore::open_with("not a url", Vec::new()).unwrap_err().to_string();
        assert!(e.contains("not a url") && e.contains("s3://"), "{e}");
        let e = RunStore::open_with("ftp://host/x", Vec::new()).unwrap_err().to_string();
        assert!(e.contains("ftp://host/x"), "{e}");
    }

    #[test]
    fn s3_urls_open_without_contacting_the_server() {
        let opts = [
            ("aws_endpoint", "http://127.0.0.1:1"),
            ("aws_allow_http", "true"),
            ("aws_access_key_id", "k"),
            ("aws_secret_access_key", "s"),
            ("aws_region", "us-east-1"),
        ];
        let s = RunStore::open_with("s3://bucket/some/run", opts.iter().map(|(k, v)| (k.to_string(), v.to_string()))).unwrap();
        assert_eq!(s.url(), "s3://bucket/some/run");
        assert_eq!(s.path("models/current").unwrap().as_ref(), "some/run/models/current");
    }
}
