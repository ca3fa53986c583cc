//! The book's command reference (`docs/commands.md`) is rendered from the
//! clap definitions of the `pacozero` binary (`cli/src/args/`), so it never
//! drifts from the command line: this test renders it and fails when the
//! committed page differs. Regenerate it with
//! `PACOZERO_UPDATE_REFERENCE=1 cargo test --release --workspace --test command_reference`.

use clap::CommandFactory;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "../src/args/mod.rs"]
mod args;
mod reference_page;

fn reference_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("docs/commands.md")
}

/// The page: a title, a line saying where it comes from, and clap-markdown's
/// rendering of every command and option.
fn render() -> String {
    let options = clap_markdown::MarkdownOptions::new().title("Command reference".to_string()).show_footer(false).show_table_of_contents(true);
    let body = clap_markdown::help_markdown_command_custom(&args::Cli::command(), &options);
    let note = "This page is generated from the command line's definitions (`cli/src/args/`) by\n`cli/tests/command_reference.rs`; do not edit it by hand. Regenerate it with\n`PACOZERO_UPDATE_REFERENCE=1 cargo test --release --workspace --test command_reference`.\n\n";
    let (title, rest) = body.split_once("\n\n").expect("clap-markdown starts with a title");
    let rest: Vec<String> = rest.lines().map(escape_angle_brackets).collect();
    format!("{title}\n\n{note}{}", rest.join("\n")).trim_end().to_string() + "\n"
}

/// The help texts' `<run>`, `<budget>` are words, not HTML: escaped outside
/// code spans, so that the book shows them.
fn escape_angle_brackets(line: &str) -> String {
    line.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 0 { part.replace('<', "&lt;").replace('>', "&gt;") } else { part.to_string() })
        .collect::<Vec<_>>()
        .join("`")
}

#[test]
fn command_reference_is_current() {
    reference_page::check_current(
        &reference_path(),
        &render(),
        "the command line",
        "PACOZERO_UPDATE_REFERENCE=1 cargo test --release --workspace --test command_reference",
    );
}

/// Every argument and subcommand has a help text (the reference shows it).
#[test]
fn every_flag_has_help() {
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        let path = format!("{path} {}", cmd.get_name());
        if cmd.get_about().is_none() && path != "pacozero help" && !path.ends_with(" help") {
            missing.push(path.clone());
        }
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{path} --{}", arg.get_long().unwrap_or(id)));
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &path, missing);
        }
    }
    let mut missing = Vec::new();
    walk(&args::Cli::command(), "", &mut missing);
    assert!(missing.is_empty(), "arguments or commands without a help text in cli/src/args/: {missing:?}");
}
