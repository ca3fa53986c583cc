//! A run in an object store (`selfplay --store URL --worker N` and `train
//! --store URL`), shared by self-play workers on many machines and a trainer
//! (`docs/scale-out.md`).
//!
//! Layout of the store (keys below the URL's path):
//!
//! ```text
//! data/w<NNNN>/<stem>.positions.parquet   write-once, by worker NNNN (positions first)
//! data/w<NNNN>/<stem>.games.parquet       write-once; the chunk counts once this exists
//! models/<name>.pzmodel                   write-once, by a trainer
//! models/current                          pointer, "<name>.pzmodel\n", replaced by conditional put
//! ```
//!
//! Both commands work on a local run directory (`--run`, the cache) with the
//! ordinary code: a worker plays rounds into its cache's `data/` exactly as
//! `selfplay --run` does and uploads each finished chunk; before each round it
//! re-reads the store's pointer and downloads a new model into the cache's
//! `models/`. The trainer downloads the chunks it lacks into its cache's
//! `data/` (as `<stem>-w<NNNN>`: stems start with a millisecond time stamp,
//! so the training window still takes the newest games of all workers),
//! trains there (the checkpoint stays local), uploads the exported model and
//! then moves `models/current` from the version it read before training.

use anyhow::{bail, Context, Result};
use pacozero_data::{RunDir, GAMES_SUFFIX, POSITIONS_SUFFIX};
use pacozero_engine::Game;
use pacozero_selfplay::SelfplayConfig;
use pacozero_store::{ObjectKind, Put, RunStore, SwapError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::rounds::{selfplay_rounds, RoundReport, SelfplayPlayer, Series};

/// The model pointer of a run in a store.
pub const POINTER: &str = RunDir::CURRENT;

/// Test hook: a trainer with this variable set waits, just before its
/// conditional put of `models/current`, until the named file exists (so a
/// test can move the pointer in between, deterministically).
const HOLD_ENV: &str = "PACOZERO_TEST_HOLD_BEFORE_SWAP";

/// The folder of worker `n`: `w0007`.
pub fn worker_dir(n: u32) -> String {
    format!("w{n:04}")
}

/// FNV-1a of the URL: names the default cache of a store.
fn url_hash(url: &str) -> u64 {
    url.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Default local cache of worker `n` of the store at `url`.
fn default_cache(url: &str, worker: u32) -> PathBuf {
    std::env::temp_dir().join(format!("pacozero-cache-{:016x}-{}", url_hash(url), worker_dir(worker)))
}

/// Downloads the chunk file `key` of the store into `path` (write to a temporary name, then rename).
fn download(store: &RunStore, key: &str, path: &Path) -> Result<()> {
    let bytes = store.get(key, ObjectKind::Chunk)?.with_context(|| format!("{}: `{key}` disappeared from the store", store.url()))?;
    Ok(pacozero_data::write_atomic(path, &[&bytes])?)
}

/// Uploads a local file as the write-once object `key` of `kind`. An object
/// already there (an upload before a crash) is fine if it holds the same bytes.
fn upload(store: &RunStore, key: &str, kind: ObjectKind, path: &Path) -> Result<bool> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    match store.put_once(key, bytes.clone())? {
        Put::Created => Ok(true),
        Put::AlreadyExists => {
            let there = store.get(key, kind)?.unwrap_or_default();
            if there.as_ref() != bytes.as_slice() {
                bail!(
                    "{}: `{key}` already exists with other contents (files in the store are write-once): does another worker use the same --worker index?",
                    store.url()
                );
            }
            Ok(false)
        }
    }
}

/// Complete chunks of a store folder (`data/w0003`): the stems whose games
/// file and positions file both exist.
fn store_chunks(keys: &BTreeSet<String>, folder: &str) -> Vec<String> {
    keys.iter()
        .filter_map(|k| k.strip_prefix(folder)?.strip_prefix('/')?.strip_suffix(GAMES_SUFFIX))
        .filter(|stem| !stem.contains('/') && keys.contains(&format!("{folder}/{stem}{POSITIONS_SUFFIX}")))
        .map(str::to_string)
        .collect()
}

/// The worker folders (`w0007`) under `data/` among the store's `keys`.
fn worker_folders(keys: &BTreeSet<String>) -> BTreeSet<&str> {
    keys.iter().filter_map(|k| k.strip_prefix(RunDir::DATA)?.strip_prefix('/')?.split_once('/').map(|(w, _)| w)).collect()
}

/// Downloads chunk `stem` of `folder` as `local_stem` into `dir` unless the
/// cache has it: positions first, then games (the reader's completeness rule).
fn download_chunk(store: &RunStore, folder: &str, stem: &str, dir: &Path, local_stem: &str) -> Result<bool> {
    let games = dir.join(format!("{local_stem}{GAMES_SUFFIX}"));
    if games.is_file() {
        return Ok(false);
    }
    download(store, &format!("{folder}/{stem}{POSITIONS_SUFFIX}"), &dir.join(format!("{local_stem}{POSITIONS_SUFFIX}")))?;
    download(store, &format!("{folder}/{stem}{GAMES_SUFFIX}"), &games)?;
    Ok(true)
}

/// Uploads every complete chunk of `dir` that `folder` lacks (positions, then
/// games); returns how many were uploaded.
fn upload_chunks(store: &RunStore, folder: &str, dir: &Path) -> Result<usize> {
    let keys: BTreeSet<String> = store.list(folder)?.into_iter().collect();
    let mut n = 0;
    for c in pacozero_data::list_chunks(dir).with_context(|| format!("listing {}", dir.display()))? {
        let games_key = format!("{folder}/{}{GAMES_SUFFIX}", c.stem);
        if keys.contains(&games_key) {
            continue;
        }
        let positions_key = format!("{folder}/{}{POSITIONS_SUFFIX}", c.stem);
        if !keys.contains(&positions_key) {
            upload(store, &positions_key, ObjectKind::Chunk, &c.positions_path)?;
        }
        pacozero_data::crash_point("store-chunk-upload");
        upload(store, &games_key, ObjectKind::Chunk, &c.games_path)?;
        n += 1;
    }
    Ok(n)
}

/// The model `models/current` of the store names, downloaded into the cache
/// (and made the cache's current model) if new; `None` without a pointer.
fn sync_model(store: &RunStore, run_dir: &Path) -> Result<Option<String>> {
    let Some((text, _)) = store.read_pointer(POINTER)? else { return Ok(None) };
    let name = pointer_model(store, &text)?;
    download_model(store, run_dir, name)?;
    pacozero_nn::set_current_model(run_dir, name).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Some(name.to_string()))
}

/// The model that the store's pointer `models/current`, read as `text`,
/// names: the file name of a model (`gen-0003.pzmodel`), never a path.
pub(crate) fn pointer_model<'a>(store: &RunStore, text: &'a str) -> Result<&'a str> {
    RunDir::pointer_model(text).with_context(|| format!("{}: `{POINTER}` holds {text:?}, not the file name of a model", store.url()))
}

/// Downloads the store's model `name` into the cache's `models/` unless it
/// is there; it is checked whole before it is written under its name,
/// which must be a model's name, not a path.
pub(crate) fn download_model(store: &RunStore, run_dir: &Path, name: &str) -> Result<PathBuf> {
    if !RunDir::is_model_name(name) {
        bail!("{}: {name:?} is not the name of a model", store.url());
    }
    let local = pacozero_nn::model_path(run_dir, name);
    if !local.is_file() {
        let key = format!("{}/{}", RunDir::MODELS, RunDir::model_file(name));
        let bytes = store.get(&key, ObjectKind::Model)?.with_context(|| format!("{}: `{key}` is not in the store", store.url()))?;
        pacozero_nn::model_header_of(&local, &bytes).map_err(|e| anyhow::anyhow!("{}: `{key}` is not a whole model: {e}", store.url()))?;
        pacozero_data::write_atomic(&local, &[&bytes])?;
        eprintln!("downloaded {key} from {}", store.url());
    }
    Ok(local)
}

/// A self-play worker of a run in a store (`selfplay --store URL --worker N`).
pub struct StoreWorker {
    pub url: String,
    /// The worker's index (its folder `data/w<NNNN>` and its seeds).
    pub worker: u32,
    /// The local cache (default: a folder in the temporary directory named after the URL and the worker).
    pub cache: Option<PathBuf>,
    /// Games to play.
    pub games: u64,
    pub config: SelfplayConfig,
    /// Evaluator before the store has a model: `uniform` or `rollout`.
    pub evaluator: String,
    /// Draw self-play's progress bars.
    pub progress: bool,
}

/// Plays `a.games` games as worker `a.worker` of the run in the store: each
/// round with the store's current model (or the baseline), its chunks
/// uploaded as they are written. `notes` receives what it does.
pub fn store_selfplay<G: Game>(a: &StoreWorker, notes: &dyn Fn(&str)) -> Result<()> {
    let (url, worker) = (a.url.clone(), a.worker);
    let store = RunStore::open(&url)?;
    let run_dir = a.cache.clone().unwrap_or_else(|| default_cache(&url, worker));
    let data = RunDir::new(&run_dir).data();
    std::fs::create_dir_all(&data).with_context(|| format!("creating {}", data.display()))?;
    let folder = format!("{}/{}", RunDir::DATA, worker_dir(worker));
    // This worker's games already in the store come back into the cache, so a
    // worker restarted on another machine skips their seeds as well.
    let keys: BTreeSet<String> = store.list(&folder)?.into_iter().collect();
    let mut restored = 0;
    for stem in store_chunks(&keys, &folder) {
        restored += download_chunk(&store, &folder, &stem, &data, &stem)? as usize;
    }
    let encoding = pacozero_engine::encoding_index::<G>(&a.config.encoding).map_err(|e| anyhow::anyhow!("config key `encoding`: {e}"))?;
    pacozero_data::check_data_dir_as::<G>(&data, encoding)?;
    check_store_data::<G>(&store, &run_dir, encoding)?;
    // Chunks written before a crash but not uploaded.
    let leftover = upload_chunks(&store, &folder, &data)?;
    notes(&format!(
        "worker {worker}: store {url}, cache {}; {restored} chunks restored from {folder}/, {leftover} left-over chunks uploaded",
        run_dir.display()
    ));

    // Each worker has its own seeds, hence its own game ids.
    let base_seed = pacozero_search::derive_seed(a.config.seed, (1 << 40) + worker as u64);
    let player = || -> Result<SelfplayPlayer> {
        Ok(match sync_model(&store, &run_dir)? {
            Some(name) => SelfplayPlayer::Network { model: pacozero_nn::model_path(&run_dir, &name), threads: 0 },
            None => SelfplayPlayer::Baseline(a.evaluator.clone()),
        })
    };
    let started = |index: u64, n: u64, who: &SelfplayPlayer| {
        let with = match who {
            SelfplayPlayer::Baseline(name) => format!("{name} (no model in the store yet)"),
            network => network.to_string(),
        };
        notes(&format!("worker {worker} round {}: {n} games with {with}", index + 1));
    };
    let finished = |r: &RoundReport| -> Result<()> {
        notes(&r.summary.to_string());
        let up = upload_chunks(&store, &folder, &data)?;
        notes(&format!("worker {worker} round {}: {up} chunks uploaded to {url} {folder}/", r.index + 1));
        Ok(())
    };
    selfplay_rounds::<G>(Series { cfg: &a.config, base_seed, games: a.games }, &data, a.progress, player, started, finished)?;
    Ok(())
}

/// Version safety across workers: the newest chunk in the whole store (any
/// worker's) must be of this game, shape and schema version, or this worker
/// refuses to add its games to the run. The chunk is fetched into
/// `<cache>/store-probe/`, where the local check reads it.
fn check_store_data<G: Game>(store: &RunStore, run_dir: &Path, encoding: usize) -> Result<()> {
    let keys: BTreeSet<String> = store.list(RunDir::DATA)?.into_iter().collect();
    let folders = worker_folders(&keys);
    // Stems start with a millisecond time stamp: the largest is the newest.
    let newest = folders.into_iter().flat_map(|w| store_chunks(&keys, &format!("{}/{w}", RunDir::DATA)).into_iter().map(move |stem| (stem, w))).max();
    let Some((stem, w)) = newest else { return Ok(()) };
    let probe = RunDir::new(run_dir).store_probe();
    if probe.exists() {
        std::fs::remove_dir_all(&probe).with_context(|| format!("clearing {}", probe.display()))?;
    }
    std::fs::create_dir_all(&probe).with_context(|| format!("creating {}", probe.display()))?;
    download_chunk(store, &format!("{}/{w}", RunDir::DATA), &stem, &probe, &stem)?;
    pacozero_data::check_data_dir_as::<G>(&probe, encoding)
        .with_context(|| format!("{}: the newest chunk, data/{w}/{stem}, is not this worker's kind of data", store.url()))
}

/// Trains on every game of the run in the store at `url` (`train --store URL
/// --run CACHE`): downloads the chunks the cache lacks, trains `steps` steps
/// in the cache with the training file `config`, uploads the model (named
/// `export`, default `model-<ms>`) and moves the store's pointer from the
/// version read before training, unless `promote` is false (an evaluator,
/// `pacozero evaluate --store`, decides). `notes` receives what it does.
pub fn store_train(
    url: &str,
    cache: &Path,
    file: pacozero_train::TrainFile,
    steps: u64,
    export: Option<&str>,
    promote: bool,
    notes: &dyn Fn(&str),
) -> Result<()> {
    let store = RunStore::open(url)?;
    // The pointer as found now: the swap at the end succeeds only if no other
    // trainer moved it in the meantime.
    let before = store.read_pointer(POINTER)?;
    let name = export.map(str::to_string).unwrap_or_else(|| {
        let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        format!("model-{ms:013}")
    });
    if !RunDir::is_model_name(&name) {
        bail!("bad model name {name:?}");
    }
    let model_key = format!("{}/{}", RunDir::MODELS, RunDir::model_file(&name));
    if store.exists(&model_key)? {
        bail!("{url}: `{model_key}` already exists (models in the store are write-once); export under another name");
    }

    let data = RunDir::new(cache).data();
    std::fs::create_dir_all(&data).with_context(|| format!("creating {}", data.display()))?;
    let keys: BTreeSet<String> = store.list(RunDir::DATA)?.into_iter().collect();
    let folders = worker_folders(&keys);
    let (mut new, mut total) = (0, 0);
    for w in folders {
        let folder = format!("{}/{w}", RunDir::DATA);
        for stem in store_chunks(&keys, &folder) {
            new += download_chunk(&store, &folder, &stem, &data, &format!("{stem}-{w}"))? as usize;
            total += 1;
        }
    }
    notes(&format!("{new} new chunks downloaded from {url} ({total} in the store)"));

    let r = pacozero_train::train_run_with(cache, file, steps, Some(&name))?;
    let s = &r.summary;
    notes(&format!("trained {} steps (now at step {}): loss {:.4} -> {:.4}, {:.0} samples/s", s.steps, r.step, s.first.loss, s.last.loss, s.samples_per_sec));
    let local = pacozero_nn::model_path(cache, &name);
    if !upload(&store, &model_key, ObjectKind::Model, &local)? {
        bail!("{url}: `{model_key}` was written by someone else meanwhile (models in the store are write-once); export under another name");
    }
    notes(&format!("uploaded {model_key} to {url}"));
    if !promote {
        notes(&format!("{url}: {POINTER} left to the evaluator (--no-promote)"));
        return Ok(());
    }

    pacozero_data::crash_point("store-pointer-swap");
    if let Ok(hold) = std::env::var(HOLD_ENV) {
        notes(&format!("holding before the pointer swap until {hold} exists"));
        let t0 = std::time::Instant::now();
        while !Path::new(&hold).exists() {
            // A safety net: a test that never releases the hold still ends.
            if t0.elapsed().as_secs() >= 600 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    let was = before.as_ref().map_or_else(|| "no model".to_string(), |(t, _)| t.trim().to_string());
    let contents = format!("{}\n", RunDir::model_file(&name));
    match store.swap_pointer(POINTER, &contents, before.as_ref().map(|(_, v)| v)) {
        Ok(_) => {
            notes(&format!("{url}: {POINTER} -> {} (was {was})", RunDir::model_file(&name)));
            Ok(())
        }
        Err(SwapError::Conflict { .. }) => {
            let now = store.read_pointer(POINTER)?.map_or_else(|| "nothing".to_string(), |(t, _)| t.trim().to_string());
            bail!(
                "conflict: another trainer moved {url} {POINTER} while this one trained (it named {was}, now it names {now}); \
                 {model_key} is uploaded but not current. Train again to build on the newer data, or set the pointer by hand"
            )
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::looping::LoopFile;
    use crate::test_support::{err_text, tiny_loop, tiny_model_in, TempDir};
    use pacozero_engine::paco::GameState as Paco;
    use std::cell::RefCell;

    /// A file with `bytes` at `dir/name`.
    fn file(dir: &Path, name: &str, bytes: &[u8]) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(name), bytes).unwrap();
    }

    fn keys(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|k| k.to_string()).collect()
    }

    /// The bytes of an untrained tiny Paco network.
    fn model_bytes(dir: &TempDir, name: &str) -> Vec<u8> {
        std::fs::read(tiny_model_in::<Paco>(&dir.join("made"), name, 0)).unwrap()
    }

    #[test]
    fn worker_folders_have_four_digits_at_least() {
        assert_eq!(worker_dir(7), "w0007");
        assert_eq!(worker_dir(12345), "w12345");
    }

    #[test]
    fn the_default_cache_is_named_by_the_fnv1a_hash_of_the_url_and_the_worker() {
        // The published FNV-1a 64-bit values of "", "a" and "foobar".
        assert_eq!(url_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(url_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(url_hash("foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(default_cache("a", 3), std::env::temp_dir().join("pacozero-cache-af63dc4c8601ec8c-w0003"));
    }

    #[test]
    fn a_store_chunk_counts_once_both_its_files_are_there() {
        let k = keys(&[
            "data/w0001/a.positions.parquet",
            "data/w0001/a.games.parquet",
            "data/w0001/b.games.parquet",
            "data/w0001/c.positions.parquet",
            "data/w0001/sub/d.positions.parquet",
            "data/w0001/sub/d.games.parquet",
            "data/w00010/e.positions.parquet",
            "data/w00010/e.games.parquet",
            "data/w0002/f.positions.parquet",
            "data/w0002/f.games.parquet",
            "data/loose.games.parquet",
            "models/m.pzmodel",
        ]);
        assert_eq!(store_chunks(&k, "data/w0001"), ["a"]);
        assert_eq!(store_chunks(&k, "data/w0002"), ["f"]);
        assert_eq!(worker_folders(&k), ["w0001", "w00010", "w0002"].into_iter().collect());
    }

    #[test]
    fn chunks_go_up_positions_first_and_come_down_under_their_local_names() {
        let dir = TempDir::new("chunks");
        let store = RunStore::open(&dir.store_url("store")).unwrap();
        let local = dir.join("local");
        for stem in ["c1", "c2", "c3"] {
            file(&local, &format!("{stem}{POSITIONS_SUFFIX}"), format!("{stem} positions").as_bytes());
            file(&local, &format!("{stem}{GAMES_SUFFIX}"), format!("{stem} games").as_bytes());
        }
        file(&local, &format!("c4{GAMES_SUFFIX}"), b"c4 games without positions");
        // c1 is up already; c3's positions went up before a crash.
        let folder = "data/w0001";
        for (key, bytes) in [("c1.positions.parquet", "c1 positions"), ("c1.games.parquet", "c1 games"), ("c3.positions.parquet", "c3 positions")] {
            store.put_once(&format!("{folder}/{key}"), bytes.as_bytes().to_vec()).unwrap();
        }
        assert_eq!(upload_chunks(&store, folder, &local).unwrap(), 2);
        let up: Vec<String> = store.list(folder).unwrap();
        assert_eq!(
            up,
            ["c1.games.parquet", "c1.positions.parquet", "c2.games.parquet", "c2.positions.parquet", "c3.games.parquet", "c3.positions.parquet"]
                .map(|k| format!("{folder}/{k}"))
        );
        assert_eq!(store.get(&format!("{folder}/c2.positions.parquet"), ObjectKind::Chunk).unwrap().unwrap(), &b"c2 positions"[..]);
        assert_eq!(upload_chunks(&store, folder, &local).unwrap(), 0, "nothing left to upload");

        let down = dir.join("down");
        std::fs::create_dir_all(&down).unwrap();
        assert!(download_chunk(&store, folder, "c2", &down, "c2-w0001").unwrap());
        assert_eq!(std::fs::read(down.join("c2-w0001.positions.parquet")).unwrap(), b"c2 positions");
        assert_eq!(std::fs::read(down.join("c2-w0001.games.parquet")).unwrap(), b"c2 games");
        assert!(!download_chunk(&store, folder, "c2", &down, "c2-w0001").unwrap(), "the cache has it");
        let e = err_text(download_chunk(&store, folder, "c9", &down, "c9"));
        assert!(e.contains("`data/w0001/c9.positions.parquet` disappeared from the store"), "{e}");
    }

    #[test]
    fn an_upload_is_created_once_and_refused_over_other_contents() {
        let dir = TempDir::new("upload");
        let store = RunStore::open(&dir.store_url("store")).unwrap();
        file(dir.path(), "a", b"one");
        file(dir.path(), "b", b"two");
        assert!(upload(&store, "data/w0001/x", ObjectKind::Chunk, &dir.join("a")).unwrap());
        assert!(!upload(&store, "data/w0001/x", ObjectKind::Chunk, &dir.join("a")).unwrap(), "the same bytes again: fine");
        let e = err_text(upload(&store, "data/w0001/x", ObjectKind::Chunk, &dir.join("b")));
        assert!(e.contains("`data/w0001/x` already exists with other contents"), "{e}");
        assert_eq!(store.get("data/w0001/x", ObjectKind::Chunk).unwrap().unwrap(), &b"one"[..]);
    }

    #[test]
    fn the_stores_model_comes_down_whole_once_and_becomes_the_caches_current() {
        let dir = TempDir::new("sync-model");
        let store = RunStore::open(&dir.store_url("store")).unwrap();
        let cache = dir.join("cache");
        assert_eq!(sync_model(&store, &cache).unwrap(), None, "no pointer, no model");
        let bytes = model_bytes(&dir, "m1");
        store.put_once("models/m1.pzmodel", bytes.clone()).unwrap();
        store.swap_pointer(POINTER, "m1.pzmodel\n", None).unwrap();
        assert_eq!(sync_model(&store, &cache).unwrap().as_deref(), Some("m1"));
        assert_eq!(std::fs::read(cache.join("models/m1.pzmodel")).unwrap(), bytes);
        assert_eq!(crate::files::best_model(&cache).unwrap(), "m1");
        // Already in the cache: not downloaded again.
        std::fs::write(cache.join("models/m1.pzmodel"), b"local").unwrap();
        assert_eq!(download_model(&store, &cache, "m1").unwrap(), cache.join("models/m1.pzmodel"));
        assert_eq!(std::fs::read(cache.join("models/m1.pzmodel")).unwrap(), b"local");
        // A model that is not there, or not whole.
        let e = err_text(download_model(&store, &cache, "m9"));
        assert!(e.contains("`models/m9.pzmodel` is not in the store"), "{e}");
        store.put_once("models/cut.pzmodel", bytes[..bytes.len() / 2].to_vec()).unwrap();
        let e = err_text(download_model(&store, &cache, "cut"));
        assert!(e.contains("`models/cut.pzmodel` is not a whole model"), "{e}");
        assert!(!cache.join("models/cut.pzmodel").exists());
        // A pointer that is not a model's file name.
        let mut version = store.read_pointer(POINTER).unwrap().unwrap().1;
        for bad in ["a/b.pzmodel", "a\\b.pzmodel", ".h.pzmodel", ".pzmodel", "m1.bin"] {
            version = store.swap_pointer(POINTER, &format!("{bad}\n"), Some(&version)).unwrap();
            let e = err_text(sync_model(&store, &cache));
            assert!(e.contains(&format!("`models/current` holds {:?}, not the file name of a model", format!("{bad}\n"))), "{bad}: {e}");
        }
    }

    #[test]
    fn the_store_and_the_run_directory_cap_pointers_alike() {
        assert_eq!(pacozero_store::POINTER_CAP, RunDir::POINTER_MAX_BYTES);
    }

    #[test]
    fn a_worker_refuses_a_1_gb_pointer_naming_it_without_reading_it() {
        let dir = TempDir::new("big-pointer");
        let url = dir.store_url("store");
        // Sparse: no disk or memory for the gigabyte.
        let pointer = dir.join("store").join(POINTER);
        std::fs::create_dir_all(pointer.parent().unwrap()).unwrap();
        std::fs::File::create(&pointer).unwrap().set_len(1 << 30).unwrap();
        let e = err_text(store_selfplay::<Paco>(&worker(&url, 1, dir.join("c1"), 1), &|_| {}));
        assert!(e.contains("`models/current` is 1073741824 bytes (1 GiB), over the 4 KiB cap of a pointer object; it was not read"), "{e}");
    }

    /// The miniature loop's self-play, one game per chunk.
    fn worker(url: &str, n: u32, cache: PathBuf, games: u64) -> StoreWorker {
        let config = LoopFile::parse(&tiny_loop(&["selfplay.games_per_chunk=1"]), "tiny").unwrap().selfplay;
        StoreWorker { url: url.to_string(), worker: n, cache: Some(cache), games, config, evaluator: "rollout".into(), progress: false }
    }

    fn tiny_train() -> pacozero_train::TrainFile {
        let text = "[net]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 2\nvalue_hidden = 16\n\n\
                    [train]\nbatch_size = 8\nwarmup_steps = 1\nmin_positions = 1\nprogress = false\nplot_every = 0\nthreads = 1\n";
        pacozero_train::TrainFile::from_toml_str(text, "tiny").unwrap()
    }

    #[test]
    fn workers_upload_their_chunks_and_trainers_train_on_all_of_them() {
        let dir = TempDir::new("store-run");
        let url = dir.store_url("store");
        let store = RunStore::open(&url).unwrap();
        let heard = RefCell::new(Vec::<String>::new());
        let notes = |s: &str| heard.borrow_mut().push(s.to_string());
        let take = || std::mem::take(&mut *heard.borrow_mut());

        // Worker 3 plays two games with rollouts (no model yet), one chunk each.
        let c3 = dir.join("c3");
        store_selfplay::<Paco>(&worker(&url, 3, c3.clone(), 2), &notes).unwrap();
        let said = take();
        assert_eq!(said[0], format!("worker 3: store {url}, cache {}; 0 chunks restored from data/w0003/, 0 left-over chunks uploaded", c3.display()));
        assert_eq!(said[1], "worker 3 round 1: 2 games with rollout (no model in the store yet)");
        assert_eq!(said.last().unwrap(), &format!("worker 3 round 1: 2 chunks uploaded to {url} data/w0003/"));
        assert_eq!(store.list("data/w0003").unwrap().len(), 4);
        // The same worker on another machine gets its chunks back first.
        store_selfplay::<Paco>(&worker(&url, 3, dir.join("c3b"), 0), &notes).unwrap();
        assert_eq!(
            take(),
            [format!("worker 3: store {url}, cache {}; 2 chunks restored from data/w0003/, 0 left-over chunks uploaded", dir.join("c3b").display())]
        );

        // A trainer takes every chunk, uploads its model and points the store at it.
        let t = dir.join("trainer");
        store_train(&url, &t, tiny_train(), 2, Some("m1"), true, &notes).unwrap();
        let said = take();
        assert_eq!(said[0], format!("2 new chunks downloaded from {url} (2 in the store)"));
        assert!(said.contains(&format!("uploaded models/m1.pzmodel to {url}")), "{said:?}");
        assert_eq!(said.last().unwrap(), &format!("{url}: models/current -> m1.pzmodel (was no model)"));
        assert_eq!(store.read_pointer(POINTER).unwrap().unwrap().0, "m1.pzmodel\n");
        let local: Vec<String> = pacozero_data::list_chunks(&RunDir::new(&t).data()).unwrap().into_iter().map(|c| c.stem).collect();
        assert!(local.len() == 2 && local.iter().all(|s| s.ends_with("-w0003")), "{local:?}");

        // Worker 4 plays with the store's model.
        let c4 = dir.join("c4");
        store_selfplay::<Paco>(&worker(&url, 4, c4.clone(), 2), &notes).unwrap();
        assert_eq!(take()[1], "worker 4 round 1: 2 games with model m1");
        assert!(c4.join("models/m1.pzmodel").is_file());

        // A trainer that leaves the pointer to the evaluator.
        store_train(&url, &t, tiny_train(), 2, Some("m2"), false, &notes).unwrap();
        let said = take();
        assert_eq!(said[0], format!("2 new chunks downloaded from {url} (4 in the store)"));
        assert_eq!(said.last().unwrap(), &format!("{url}: models/current left to the evaluator (--no-promote)"));
        assert_eq!(store.read_pointer(POINTER).unwrap().unwrap().0, "m1.pzmodel\n");
        assert!(store.exists("models/m2.pzmodel").unwrap());

        // Models are write-once, and named like files.
        let e = err_text(store_train(&url, &t, tiny_train(), 1, Some("m1"), true, &notes));
        assert!(e.contains("`models/m1.pzmodel` already exists (models in the store are write-once)"), "{e}");
        for bad in ["", "a/b", "a\\b", ".m"] {
            let e = err_text(store_train(&url, &t, tiny_train(), 1, Some(bad), true, &notes));
            assert_eq!(e, format!("bad model name {bad:?}"));
        }

        // Another trainer moves the pointer while this one holds before its swap.
        let hold = dir.join("hold");
        std::env::set_var(HOLD_ENV, &hold);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let mover = {
            let (url, hold) = (url.clone(), hold.clone());
            std::thread::spawn(move || {
                rx.recv().unwrap();
                std::thread::sleep(std::time::Duration::from_millis(200));
                let store = RunStore::open(&url).unwrap();
                let (_, v) = store.read_pointer(POINTER).unwrap().unwrap();
                store.swap_pointer(POINTER, "m2.pzmodel\n", Some(&v)).unwrap();
                std::fs::write(&hold, b"").unwrap();
            })
        };
        let holding = |s: &str| {
            if s.starts_with("holding before the pointer swap") {
                tx.send(()).unwrap();
            }
        };
        let r = store_train(&url, &t, tiny_train(), 1, Some("m3"), true, &holding);
        std::env::remove_var(HOLD_ENV);
        mover.join().unwrap();
        let e = err_text(r);
        assert!(
            e.starts_with(&format!(
                "conflict: another trainer moved {url} models/current while this one trained (it named m1.pzmodel, now it names m2.pzmodel)"
            )),
            "{e}"
        );
        assert!(store.exists("models/m3.pzmodel").unwrap(), "uploaded, not current");
        assert_eq!(store.read_pointer(POINTER).unwrap().unwrap().0, "m2.pzmodel\n");

        // A worker of another game refuses the store's newest data (worker 4's).
        let e = err_text(store_selfplay::<pacozero_engine::shako::GameState>(&worker(&url, 5, dir.join("c5"), 2), &notes));
        assert!(e.contains("the newest chunk, data/w0004/") && e.contains("is not this worker's kind of data"), "{e}");
        assert!(store.list("data/w0005").unwrap().is_empty());
    }
}
