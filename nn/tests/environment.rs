//! What the environment variables choose: the backend
//! (`PACOZERO_BACKEND`), the evaluation path (`PACOZERO_FASTNET`), its
//! arithmetic (`PACOZERO_PRECISION`) and the reference networks' folder
//! (`PACOZERO_REFERENCE_DIR`). The tests of this
//! binary set variables of the process, so they take turns.

mod common;

use std::sync::Mutex;

use common::{random_net, spec};
use pacozero_nn::*;

static ENV: Mutex<()> = Mutex::new(());

/// Runs `f` with the variable `name` set to `value` (unset for `None`), then restores it.
fn with_var<R>(name: &str, value: Option<&str>, f: impl FnOnce() -> R) -> R {
    let old = std::env::var_os(name);
    match value {
        Some(v) => std::env::set_var(name, v),
        None => std::env::remove_var(name),
    }
    let r = f();
    match old {
        Some(v) => std::env::set_var(name, v),
        None => std::env::remove_var(name),
    }
    r
}

#[test]
fn the_backend_is_flex_unless_pacozero_backend_names_another() {
    let _turn = ENV.lock().unwrap_or_else(|e| e.into_inner());
    for unset in [None, Some("")] {
        with_var("PACOZERO_BACKEND", unset, || {
            assert_eq!(backend_name(), "flex");
            assert_eq!(provenance().backend, "flex");
            check_backend().unwrap();
            assert_eq!(default_device(), Device::flex());
        });
    }
    with_var("PACOZERO_BACKEND", Some("cpu"), || {
        assert_eq!(backend_name(), "cpu");
        assert_eq!(provenance().backend, "cpu");
        check_backend().unwrap();
    });
    with_var("PACOZERO_BACKEND", Some("bogus"), || {
        assert_eq!(backend_name(), "bogus");
        let e = check_backend().unwrap_err().to_string();
        assert_eq!(
            e,
            r#"invalid configuration: PACOZERO_BACKEND=bogus: unknown backend `bogus`; expected one of ["flex", "tch", "tch-cpu", "tch-cuda", "tch-cuda:N"]"#
        );
        // The default device falls back to flex (with a warning).
        assert_eq!(default_device(), Device::flex());
    });
    #[cfg(not(feature = "tch"))]
    with_var("PACOZERO_BACKEND", Some("tch-cuda:1"), || {
        let e = check_backend().unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid configuration: PACOZERO_BACKEND=tch-cuda:1: backend `tch-cuda:1` needs pacozero-nn built with `--features tch` (and LIBTORCH set)"
        );
    });
}

#[test]
fn pacozero_fastnet_turns_the_fast_path_off() {
    let _turn = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let net = NetConfig::tiny_for(&spec(8, 8, 4, 1, 50));
    let model = random_net(&net, 61);
    let info = ModelInfo::untrained("m");
    let uses_fastnet = |value| {
        with_var("PACOZERO_FASTNET", value, || Network::from_model(model.clone(), net.clone(), info.clone(), &Device::flex(), 1).unwrap().uses_fastnet())
    };
    for (value, fast) in [(None, true), (Some("1"), true), (Some("0"), false), (Some("false"), false), (Some("off"), false)] {
        assert_eq!(uses_fastnet(value), fast, "PACOZERO_FASTNET={value:?}");
    }
}

#[test]
fn pacozero_precision_chooses_the_towers_arithmetic() {
    let _turn = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let net = NetConfig::tiny_for(&spec(8, 8, 4, 1, 50));
    let model = random_net(&net, 62);
    let info = ModelInfo::untrained("m");
    let precision = |value| {
        with_var("PACOZERO_PRECISION", value, || Network::from_model(model.clone(), net.clone(), info.clone(), &Device::flex(), 1).map(|n| n.precision()))
    };
    let auto = NetPrecision::Auto.on_this_cpu();
    for (value, want) in [
        (None, NetPrecision::Fp32),
        (Some(""), NetPrecision::Fp32),
        (Some("fp32"), NetPrecision::Fp32),
        (Some("int8"), NetPrecision::Int8),
        (Some("auto"), auto),
    ] {
        assert_eq!(precision(value).unwrap(), want, "PACOZERO_PRECISION={value:?}");
    }
    let e = precision(Some("bf16")).err().unwrap().to_string();
    assert!(e.contains(r#"PACOZERO_PRECISION: invalid configuration: "bf16" is not a precision"#), "{e}");
}

#[test]
fn pacozero_reference_dir_holds_the_references_and_the_built_in_ones_are_written_out() {
    let _turn = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let refs = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(refs.path().join("mine.pzmodel"), b"mine").unwrap();
    std::fs::write(refs.path().join("quick-edd488c-gen71.pzmodel"), b"a copy").unwrap();
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/reference");
    let built_in = std::fs::read(checkout.join("quick-199eb03-gen28.pzmodel")).unwrap();
    with_var("PACOZERO_REFERENCE_DIR", refs.path().to_str(), || {
        with_var("TMPDIR", tmp.path().to_str(), || {
            assert_eq!(reference_dir(), refs.path());
            assert_eq!(reference_model("mine").unwrap(), refs.path().join("mine.pzmodel"));
            assert_eq!(reference_model("quick-edd488c-gen71").unwrap(), refs.path().join("quick-edd488c-gen71.pzmodel"));
            // Not in the folder: the copy built into the program, written to the temporary directory.
            let written = tmp.path().join("pacozero-reference/quick-199eb03-gen28.pzmodel");
            assert_eq!(resolve_model(std::path::Path::new("ref:quick-199eb03-gen28")).unwrap(), written);
            assert!(std::fs::read(&written).unwrap() == built_in, "the built-in bytes");
            // A file there with other bytes is rewritten.
            std::fs::write(&written, b"stale").unwrap();
            assert_eq!(reference_model("quick-199eb03-gen28").unwrap(), written);
            assert!(std::fs::read(&written).unwrap() == built_in, "rewritten");
            let names: Vec<_> = std::fs::read_dir(written.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(names, ["quick-199eb03-gen28.pzmodel"], "no temporary left");
            // Every name, once.
            let e = reference_model("nope").unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "no reference network 'nope' in {} or built in (there are: mine, quick-0109b14-gen119, quick-199eb03-gen28, quick-edd488c-gen71, shako-bd70ee01-gen115)",
                    refs.path().display()
                )
            );
        })
    });
}

/// A bad `PACOZERO_BACKEND` is not silent: the default device says so on
/// standard error before it falls back to flex. (Run in a child process of
/// this test binary, whose standard error the test reads.)
#[test]
fn a_bad_backend_name_warns_when_the_default_device_falls_back() {
    const NAME: &str = "a_bad_backend_name_warns_when_the_default_device_falls_back";
    if std::env::var_os("PACOZERO_TEST_CHILD").is_some() {
        assert_eq!(default_device(), Device::flex());
        return;
    }
    let run = |backend: &str| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", NAME, "--nocapture", "--test-threads", "1"])
            .env("PACOZERO_TEST_CHILD", "1")
            .env("PACOZERO_BACKEND", backend)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let warned = run("bogus");
    assert!(warned.contains("warning: PACOZERO_BACKEND: invalid configuration: unknown backend `bogus`;") && warned.contains("using flex"), "{warned}");
    assert!(!run("flex").contains("warning"));
    assert!(!run("").contains("warning"), "an empty PACOZERO_BACKEND is an unset one");
}
