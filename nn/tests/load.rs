//! Finding networks (a model file, a run directory, a reference by name)
//! and the game a network plays.

mod common;

use std::path::{Path, PathBuf};

use common::{random_net, spec};
use pacozero_data::{spec_of, spec_of_encoding};
use pacozero_engine::{paco, shako, GameKind};
use pacozero_nn::*;
use pacozero_search::Evaluator;

/// A run directory holding one tiny Paco Ŝako model, `gen-1`, made current.
fn run_with_model() -> (tempfile::TempDir, PathBuf) {
    let run = tempfile::tempdir().unwrap();
    let net = NetConfig::tiny_for(&spec_of(GameKind::Paco));
    let info = ModelInfo { name: "gen-1".into(), step: 1, samples_seen: 1, provenance: None };
    let path = export_to_run(run.path(), &random_net(&net, 51), &net, &info, true).unwrap();
    (run, path)
}

#[test]
fn a_spec_names_a_file_a_run_or_a_reference() {
    assert_eq!(resolve_model(Path::new("some/m.pzmodel")).unwrap(), Path::new("some/m.pzmodel"));
    assert_eq!(model_of_spec("some/m.pzmodel").unwrap(), Path::new("some/m.pzmodel"));
    let (run, path) = run_with_model();
    assert_eq!(resolve_model(run.path()).unwrap(), path);
    assert_eq!(model_of_spec(run.path().to_str().unwrap()).unwrap(), path);
    // A run without a current model: the error names the run.
    let empty = tempfile::tempdir().unwrap();
    let e = resolve_model(empty.path()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: ", empty.path().display())) && e.contains("models/current"), "{e}");
}

#[test]
fn a_reference_is_found_by_name() {
    if std::env::var_os("PACOZERO_REFERENCE_DIR").is_some() {
        return; // tests/environment.rs checks the variable
    }
    assert!(reference_dir().ends_with("models/reference"), "{}", reference_dir().display());
    let path = resolve_model(Path::new("ref:quick-199eb03-gen28")).unwrap();
    assert_eq!(path, reference_dir().join("quick-199eb03-gen28.pzmodel"));
    assert_eq!(reference_model("quick-edd488c-gen71").unwrap(), reference_dir().join("quick-edd488c-gen71.pzmodel"));
    let e = reference_model("nope").unwrap_err().to_string();
    assert!(
        e.starts_with("no reference network 'nope' in ")
            && e.ends_with("or built in (there are: quick-0109b14-gen119, quick-199eb03-gen28, quick-edd488c-gen71, shako-bd70ee01-gen115)"),
        "{e}"
    );
}

#[test]
fn a_reference_is_a_name_not_a_path() {
    // This one exists, but outside the name's folder is no reference.
    let outside = "../reference/quick-edd488c-gen71";
    assert!(reference_dir().join(format!("{outside}.pzmodel")).is_file() || std::env::var_os("PACOZERO_REFERENCE_DIR").is_some());
    for name in [outside, "../../x", "/etc/x", "a/b", r"a\b", ".hidden", "x..y", ""] {
        let e = reference_model(name).unwrap_err().to_string();
        assert_eq!(e, format!("'{name}' is not the name of a reference network: a name has no path separators and does not start with a dot"));
        let e = resolve_model(Path::new(&format!("ref:{name}"))).unwrap_err().to_string();
        assert!(e.contains("is not the name of a reference network"), "{e}");
    }
}

#[test]
fn a_networks_shape_names_its_game() {
    assert_eq!(config_game(&NetConfig::tiny_for(&spec_of(GameKind::Paco))), Some(GameKind::Paco));
    assert_eq!(config_game(&NetConfig::tiny_for(&spec_of(GameKind::Shako))), Some(GameKind::Shako));
    assert_eq!(config_game(&NetConfig::tiny_for(&spec_of_encoding(GameKind::Paco, "platform").unwrap())), Some(GameKind::Paco));
    let paco = NetConfig::tiny_for(&spec_of(GameKind::Paco));
    for other in [
        NetConfig { policy_size: paco.policy_size + 1, ..paco.clone() },
        NetConfig { aux_targets: 3, ..paco.clone() },
        NetConfig { scalars: paco.scalars + 1, ..paco.clone() },
        NetConfig { height: 9, ..paco.clone() },
        NetConfig { encoding: "other".into(), ..paco.clone() },
        NetConfig::tiny_for(&spec(8, 8, 4, 1, 50)),
    ] {
        assert_eq!(config_game(&other), None, "{other:?}");
    }
}

#[test]
fn a_loaded_network_is_of_its_game_and_refused_for_another() {
    let (run, path) = run_with_model();
    let ev = load_evaluator(run.path(), 1).unwrap();
    assert_eq!(ev.id, "gen-1");
    assert_eq!(network_game(&ev, "label").unwrap(), GameKind::Paco);
    let ev = load_evaluator_spec(path.to_str().unwrap(), 1).unwrap();
    assert_eq!(ev.id, "gen-1");
    assert_eq!(load_network::<paco::GameState>(run.path(), 1).unwrap().id, "gen-1");
    let e = load_network::<shako::GameState>(&path, 1).err().unwrap().to_string();
    assert_eq!(
        e,
        format!(
            r#"model {} is not a shako network: invalid configuration: net.bit_planes = {} but the data has bit_planes = {} ({})"#,
            path.display(),
            spec_of(GameKind::Paco).bit_planes,
            spec_of(GameKind::Shako).bit_planes,
            spec_of(GameKind::Shako)
        )
    );
    let e = load_evaluator(&run.path().join("models/none.pzmodel"), 1).err().unwrap().to_string();
    assert!(e.starts_with("loading network ") && e.contains("none.pzmodel"), "{e}");
}

#[test]
fn a_network_of_no_game_is_named_with_its_shape() {
    let net = NetConfig::tiny_for(&spec(8, 8, 4, 1, 50));
    let info = ModelInfo::untrained("odd");
    let ev = NetworkEvaluator { net: Network::from_model(random_net(&net, 52), net, info, &default_device(), 1).unwrap(), id: "odd".into() };
    let e = network_game(&ev, "label").unwrap_err().to_string();
    let games: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(e, format!("label: the network's inputs (5 channels, 8x8, encoding pacozero) and 50 policy slots fit none of the games ({})", games.join(", ")));
    assert!(games.len() >= 3, "every registered game is named: {e}");
}

#[test]
fn playouts_are_mixed_in_only_with_a_positive_weight() {
    let (_run, path) = run_with_model();
    let plain = network_with_playouts::<paco::GameState>(&path, 1, 0.0, 4, None, 1).unwrap();
    assert_eq!(plain.name(), "gen-1");
    let mixed = network_with_playouts::<paco::GameState>(&path, 1, 0.5, 4, None, 1).unwrap();
    assert_eq!(mixed.name(), "gen-1+rollout0.5");
    let e = network_with_playouts::<shako::GameState>(&path, 1, 0.5, 4, None, 1).err().unwrap().to_string();
    assert!(e.contains("is not a shako network"), "{e}");
}
