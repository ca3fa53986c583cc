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
        assert_eq!(s.get("data/w0001/a.games.parquet", ObjectKind::Chunk).unwrap().unwrap(), &b"one"[..], "{s:?}: the first write stays");
        assert!(s.exists("data/w0001/a.games.parquet").unwrap());
    }
}

#[test]
fn get_of_a_missing_key_is_none() {
    for (s, _g) in stores() {
        assert_eq!(s.get("models/nothing.pzmodel", ObjectKind::Model).unwrap(), None, "{s:?}");
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

/// `len` bytes at `key` of a `file://` store, as a sparse file (no disk
/// or memory used for them).
fn sparse_object(dir: &std::path::Path, key: &str, len: u64) {
    let file = dir.join(key);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::File::create(&file).unwrap().set_len(len).unwrap();
}

#[test]
fn a_1_gb_pointer_is_refused_by_its_size_naming_the_key_kind_and_cap() {
    let dir = tempfile::tempdir().unwrap();
    let url = Url::from_directory_path(dir.path()).unwrap().to_string();
    sparse_object(dir.path(), "models/current", 1 << 30);
    let s = RunStore::open_with(&url, Vec::new()).unwrap();
    let e = s.read_pointer("models/current").unwrap_err();
    assert!(matches!(e, StoreError::TooLarge { kind: ObjectKind::Pointer, size: Oversize::Declared(n), .. } if n == 1 << 30), "{e:?}");
    let text = e.to_string();
    assert_eq!(text, format!("{url}: `models/current` is 1073741824 bytes (1 GiB), over the 4 KiB cap of a pointer object; it was not read"));
    // The same object read as a model (1 GiB cap) is just within its cap's
    // reach by size; one byte more is not.
    sparse_object(dir.path(), "models/big.pzmodel", (1 << 30) + 1);
    let e = s.get("models/big.pzmodel", ObjectKind::Model).unwrap_err().to_string();
    assert!(e.contains("`models/big.pzmodel` is 1073741825 bytes (1.0 GiB), over the 1 GiB cap of a model object"), "{e}");
}

#[test]
fn each_kind_reads_up_to_its_cap_and_not_a_byte_more() {
    for (s, _g) in stores() {
        for kind in [ObjectKind::Pointer, ObjectKind::Json] {
            let cap = kind.cap() as usize;
            s.put_once(&format!("at/{kind}"), vec![b'a'; cap]).unwrap();
            s.put_once(&format!("over/{kind}"), vec![b'a'; cap + 1]).unwrap();
            assert_eq!(s.get(&format!("at/{kind}"), kind).unwrap().unwrap().len(), cap, "{s:?} {kind}");
            let e = s.get(&format!("over/{kind}"), kind).unwrap_err();
            assert!(matches!(e, StoreError::TooLarge { size: Oversize::Declared(n), .. } if n == cap as u64 + 1), "{s:?} {kind}: {e}");
        }
        // A pointer-sized cap does not apply to a JSON object.
        assert_eq!(s.get("over/pointer", ObjectKind::Json).unwrap().unwrap().len(), POINTER_CAP as usize + 1);
        assert!(matches!(s.read_pointer("over/pointer").unwrap_err(), StoreError::TooLarge { kind: ObjectKind::Pointer, .. }));
    }
}

#[test]
fn a_body_longer_than_declared_is_cut_at_the_cap() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let pieces =
        |n: usize| -> BoxStream<'static, object_store::Result<Bytes>> { futures_util::stream::iter((0..n).map(|_| Ok(Bytes::from(vec![7u8; 1000])))).boxed() };
    // Declared 10 bytes, sends 5000: stopped past the 4096-byte cap.
    assert_eq!(rt.block_on(collect_capped(pieces(5), 10, 4096)).unwrap(), None);
    // Exactly at the cap is whole.
    assert_eq!(rt.block_on(collect_capped(pieces(4), 10, 4000)).unwrap().unwrap().len(), 4000);
    let e = StoreError::TooLarge { url: "s3://b/r".into(), key: "models/current".into(), kind: ObjectKind::Pointer, size: Oversize::Sent { declared: 10 } };
    assert_eq!(e.to_string(), "s3://b/r: `models/current` was declared as 10 bytes but sent more, over the 4 KiB cap of a pointer object; it was not read");
}

#[test]
fn caps_are_the_documented_sizes() {
    let caps: Vec<String> =
        [ObjectKind::Pointer, ObjectKind::Json, ObjectKind::Model, ObjectKind::Chunk].iter().map(|k| format!("{k} {}", human_bytes(k.cap()))).collect();
    assert_eq!(caps, ["pointer 4 KiB", "JSON 8 MiB", "model 1 GiB", "chunk 1 GiB"]);
    assert_eq!((human_bytes(1000), human_bytes(1536), human_bytes(3 << 20)), ("1000 bytes".into(), "1.5 KiB".into(), "3 MiB".into()));
}

/// A fake operation: fails with the given errors in turn (`true`: an
/// outage), then succeeds; returns the result, the tries' flags, the
/// waits and the log.
fn run_retrying(errors: &[bool], window: u64) -> (Result<u32, String>, Vec<bool>, Vec<u64>, Vec<String>) {
    let (mut flags, mut waits, mut log) = (Vec::new(), Vec::new(), Vec::new());
    let mut tries = 0;
    let r = retrying(
        "s3://b/r: read `k`",
        Duration::from_secs(window),
        |e: &String| e.starts_with("down"),
        |again| {
            flags.push(again);
            tries += 1;
            match errors.get(tries - 1) {
                Some(true) => Err(format!("down {tries}")),
                Some(false) => Err("refused".to_string()),
                None => Ok(tries as u32),
            }
        },
        |d| waits.push(d.as_secs()),
        &mut |l| log.push(l.to_string()),
    );
    (r, flags, waits, log)
}

#[test]
fn an_outage_is_retried_with_growing_waits_and_told() {
    let (r, flags, waits, log) = run_retrying(&[true, true, true], 600);
    assert_eq!(r, Ok(4));
    assert_eq!(flags, [false, true, true, true], "each try after a failure knows it");
    assert_eq!(waits, [1, 2, 4]);
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(log[0].starts_with("store: s3://b/r: read `k`: failed (down 1); retry 1 in 1 s (0.0 s since the first failure, retry window 600 s)"), "{log:?}");
    assert!(log[3].starts_with("store: s3://b/r: read `k`: the store answers again after 3 retries; it was out for 7.0 s"), "{log:?}");
}

#[test]
fn a_refusal_is_not_retried_and_an_outage_ends_with_the_window() {
    let (r, flags, waits, log) = run_retrying(&[false], 600);
    assert_eq!((r, flags, waits, log.len()), (Err("refused".into()), vec![false], vec![], 0));
    // Waits 1 + 2 + 4 + 8 = 15 s fit a 20 s window; the next (16 s) does not.
    let (r, _, waits, log) = run_retrying(&[true; 10], 20);
    assert_eq!(r, Err("down 5".into()));
    assert_eq!(waits, [1, 2, 4, 8]);
    assert!(log.last().unwrap().contains("giving up after 4 retries and 15.0 s (retry window 20 s, PACOZERO_STORE_RETRY_SECONDS)"), "{log:?}");
    // No window: one try.
    let (r, _, waits, log) = run_retrying(&[true], 0);
    assert_eq!((r, waits, log.len()), (Err("down 1".into()), vec![], 0));
}

#[test]
fn the_retry_window_is_read_in_seconds() {
    assert_eq!(retry_window_of(None), Ok(Duration::from_secs(DEFAULT_RETRY_SECONDS)));
    assert_eq!(retry_window_of(Some(" 90 ")), Ok(Duration::from_secs(90)));
    assert_eq!(retry_window_of(Some("1m")), Err("PACOZERO_STORE_RETRY_SECONDS=\"1m\": expected whole seconds (0 or more)".into()));
}

#[test]
fn only_unreachable_stores_and_server_errors_are_outages() {
    let generic = |msg: &str| object_store::Error::Generic { store: "S3", source: msg.to_string().into() };
    assert!(is_transient(&generic("Error performing GET in 1s - Server returned non-2xx status code: 503 Service Unavailable: ")));
    assert!(!is_transient(&generic("Error performing GET in 1s - Server returned non-2xx status code: 400 Bad Request: ")));
    assert!(!is_transient(&object_store::Error::NotFound { path: "k".into(), source: "gone".into() }));
    assert!(!is_transient(&object_store::Error::Precondition { path: "k".into(), source: "moved".into() }));
}

#[test]
fn an_unreachable_s3_store_is_retried_then_named() {
    // Nothing listens on port 1: connection refused, an outage.
    let opts = [
        ("aws_endpoint", "http://127.0.0.1:1"),
        ("aws_allow_http", "true"),
        ("aws_access_key_id", "k"),
        ("aws_secret_access_key", "s"),
        ("aws_region", "us-east-1"),
    ];
    let mut s = RunStore::open_with("s3://bucket/run", opts.iter().map(|(k, v)| (k.to_string(), v.to_string()))).unwrap();
    s.retry = Duration::ZERO;
    let e = s.exists("models/current").unwrap_err();
    let StoreError::Op { cause, .. } = &e else { panic!("{e:?}") };
    assert!(is_transient(cause), "a refused connection is an outage: {e}");
    assert!(e.to_string().starts_with("s3://bucket/run: cannot look up `models/current`"), "{e}");
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
