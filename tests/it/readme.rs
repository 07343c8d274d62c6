//! The README's tour runs as written from a fresh clone: its commands (the
//! `sh` block under "A five-minute tour") run one by one in bash, in a new
//! directory holding only a copy of `events/`, with `laurel` the built binary
//! where the README's first line aliases it to `cargo run`.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

/// The README's text.
fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The lines of the first `sh` block after the heading `heading`.
fn sh_block(text: &str, heading: &str) -> Vec<String> {
    let text = format!("\n{text}");
    let (_, after) = text
        .split_once(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no {heading:?}"));
    let (_, block) = after.split_once("```sh\n").expect("an sh block");
    let (block, _) = block.split_once("\n```").expect("the block ends");
    block.lines().map(str::to_string).collect()
}

/// `line` in bash, in `dir`, with `laurel` the built binary.
fn run(dir: &Path, line: &str) -> Output {
    let bin = assert_cmd::cargo::cargo_bin("laurel");
    let script = format!("set -euo pipefail\nlaurel() {{ \"$LAUREL_BIN\" \"$@\"; }}\n{line}\n");
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("LAUREL_BIN", bin)
        .env_remove("LAUREL_LEDGER")
        .output()
        .unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn the_readme_tour_runs_as_written() {
    let text = readme();
    let lines = sh_block(&text, "## A five-minute tour");
    let (alias, commands) = lines.split_first().expect("commands");
    assert!(
        alias.starts_with("alias laurel='cargo run --release -q --'"),
        "the tour starts by naming the binary: {alias}"
    );
    assert!(commands.len() >= 10, "{commands:?}");
    let clone = tempfile::tempdir().unwrap();
    copy_dir(&common::events_dir(), &clone.path().join("events"));
    for line in commands {
        assert!(line.starts_with("laurel "), "a laurel command: {line}");
        let out = run(clone.path(), line);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{line}\n{stdout}{stderr}");
        let writes_a_file = line.contains(" > ");
        assert!(
            writes_a_file || !stdout.trim().is_empty(),
            "{line} printed nothing"
        );
        assert!(!stdout.contains("(no rows)"), "{line}\n{stdout}");
    }
    // What the tour made: the ledger, its export ending at the head, the site.
    let (seq, hash) = common::head(clone.path());
    let export = std::fs::read_to_string(clone.path().join("ledger.jsonl")).unwrap();
    assert_eq!(export.lines().count() as u64, seq);
    assert!(export.lines().last().unwrap().contains(&hash));
    let copy = run(clone.path(), "laurel --ledger copy.db head");
    assert_eq!(
        String::from_utf8_lossy(&copy.stdout),
        format!("{seq} {hash}\n"),
        "restored"
    );
    let index = std::fs::read_to_string(clone.path().join("site/index.html")).unwrap();
    assert!(index.contains("<h1>Valar ratings</h1>"), "{index}");
}

/// The demo the README starts with is the short tour, and the README stays
/// short enough to read.
#[test]
fn the_readme_starts_with_the_demo_and_stays_short() {
    let text = readme();
    let lines = text.lines().count();
    assert!(lines <= 350, "README.md has {lines} lines");
    let tour = sh_block(&text, "## A five-minute tour");
    assert!(tour[1].starts_with("laurel demo "), "{}", tour[1]);
    let first = sh_block(&text, "# laurel");
    assert!(
        first[0].starts_with("cargo run --release -- demo "),
        "{first:?}"
    );
}
