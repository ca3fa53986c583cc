//! Reduced precision from the command line: `--precision` on any command
//! that runs a network, over `PACOZERO_PRECISION`, over a loop's
//! `[net] precision`; a name that is no precision refused by name.

use pacozero_engine::paco::GameState;
use pacozero_nn::{Int8Kernel, NetPrecision};
use pacozero_run::looping::LoopFile;

mod common;
use common::{bin, output_text, s, tiny_model_of};

/// The precision line of `bench mcts` with a tiny network, with `flag`
/// (if any) and `PACOZERO_PRECISION=env` (if any).
fn bench_precision(flag: Option<&str>, env: Option<&str>) -> String {
    bench_precision_on(flag, env, None)
}

/// [`bench_precision`] with `PACOZERO_INT8_KERNEL=kernel` (if any).
fn bench_precision_on(flag: Option<&str>, env: Option<&str>, kernel: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<GameState>(dir.path(), "tiny");
    let mut c = bin();
    if let Some(p) = flag {
        c.args(["--precision", p]);
    }
    c.env_remove("PACOZERO_PRECISION").env_remove("PACOZERO_INT8_KERNEL");
    if let Some(p) = env {
        c.env("PACOZERO_PRECISION", p);
    }
    if let Some(k) = kernel {
        c.env("PACOZERO_INT8_KERNEL", k);
    }
    let out = c.args(["bench", "mcts", "--seconds", "0.05", "--threads", "1", "--games-per-thread", "2", "--model", s(&model)]).output().unwrap();
    let text = output_text(&out);
    if kernel.is_some_and(|k| k.parse::<Int8Kernel>().is_err()) {
        assert!(!out.status.success(), "{text}");
        return text;
    }
    assert!(out.status.success(), "{text}");
    text.lines().find(|l| l.starts_with("network tower precision:")).unwrap_or_else(|| panic!("no precision line: {text}")).to_string()
}

#[test]
fn the_flag_wins_over_the_environment_and_auto_follows_the_cpu() {
    let int8 = format!("network tower precision: int8, the {} kernel (PACOZERO_INT8_KERNEL) (asked: int8; --precision)", Int8Kernel::best());
    assert_eq!(bench_precision(None, None), "network tower precision: fp32 (asked: fp32; --precision)");
    assert_eq!(bench_precision(Some("int8"), None), int8);
    assert_eq!(bench_precision(None, Some("int8")), int8);
    assert_eq!(bench_precision(Some("fp32"), Some("int8")), "network tower precision: fp32 (asked: fp32; --precision)");
    let auto = NetPrecision::Auto.on_this_cpu();
    let auto_line = match auto {
        NetPrecision::Int8 => format!("network tower precision: int8, the {} kernel (PACOZERO_INT8_KERNEL) (asked: auto; --precision)", Int8Kernel::best()),
        _ => format!("network tower precision: {auto} (asked: auto; --precision)"),
    };
    assert_eq!(bench_precision(Some("auto"), None), auto_line);
}

/// `PACOZERO_INT8_KERNEL` picks the int8 kernel `bench mcts` names; an
/// unknown name is refused naming it and the names there are.
#[test]
fn the_environment_picks_the_int8_kernel_and_an_unknown_one_is_refused() {
    assert_eq!(
        bench_precision_on(Some("int8"), None, Some("scalar")),
        "network tower precision: int8, the scalar kernel (PACOZERO_INT8_KERNEL) (asked: int8; --precision)"
    );
    let text = bench_precision_on(Some("int8"), None, Some("tpu"));
    assert!(text.contains("PACOZERO_INT8_KERNEL") && text.contains("\"tpu\"") && text.contains("scalar, vnni or amx"), "{text}");
}

#[test]
fn a_precision_that_is_none_is_refused_by_name() {
    let out = bin().args(["--precision", "bf16", "bench", "mcts", "--seconds", "0.01"]).output().unwrap();
    let text = output_text(&out);
    assert!(!out.status.success());
    assert!(text.contains("bf16") && text.contains("is not a precision") && text.contains("--precision"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model_of::<GameState>(dir.path(), "tiny");
    let out = bin().env("PACOZERO_PRECISION", "fp16").args(["bench", "mcts", "--seconds", "0.01", "--model", s(&model)]).output().unwrap();
    let text = output_text(&out);
    assert!(!out.status.success());
    assert!(text.contains("PACOZERO_PRECISION") && text.contains("\"fp16\" is not a precision"), "{text}");
}

#[test]
fn a_loop_reads_its_precision_from_the_net_table() {
    let f = LoopFile::parse("[net]\nprecision = \"auto\"\n", "test.toml").unwrap();
    assert_eq!(f.net.precision, NetPrecision::Auto);
    assert_eq!(LoopFile::parse("", "test.toml").unwrap().net.precision, NetPrecision::Fp32);
    let e = format!("{:#}", LoopFile::parse("[net]\nprecision = \"fast\"\n", "test.toml").unwrap_err());
    assert!(e.contains("test.toml") && e.contains("\"fast\" is not a precision"), "{e}");
}
