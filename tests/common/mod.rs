//! Shared helpers for the integration tests: run the built `laurel` binary against
//! temporary ledgers made from files under `events/`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

/// The repository's `events/` folder.
pub fn events_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("events")
}

/// A `laurel` command on the ledger in `dir`.
pub fn laurel(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("laurel").expect("binary built");
    cmd.env_remove("LAUREL_LEDGER").arg("--ledger").arg(dir.join("laurel.db"));
    cmd
}

/// A fresh, initialised ledger in a temporary directory.
pub fn empty_ledger() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    laurel(dir.path()).arg("init").assert().success();
    dir
}

/// A ledger holding the given `events/` files, appended one after another.
pub fn ledger_with(files: &[&str]) -> tempfile::TempDir {
    let dir = empty_ledger();
    for f in files {
        laurel(dir.path()).arg("append").arg(events_dir().join(f)).assert().success();
    }
    dir
}

/// Append `text` (JSON Lines) through stdin; returns the process output.
pub fn append_text(dir: &Path, text: &str) -> Output {
    laurel(dir).args(["append", "-"]).write_stdin(text.to_string()).output().expect("ran")
}

/// Run laurel with `args` and parse stdout as JSON; panics on failure.
pub fn json(dir: &Path, args: &[&str]) -> Value {
    let out = laurel(dir).args(args).output().expect("ran");
    assert!(out.status.success(), "laurel {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// `standings ... --format json` with `head` blanked: record hashes depend on the
/// wall clock at append (`recorded_at`), so snapshots must not contain them.
pub fn standings(dir: &Path, args: &[&str]) -> Value {
    let mut full = vec!["standings"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--format", "json"]);
    let mut v = json(dir, &full);
    v["head"] = Value::String("<head>".into());
    v
}

/// The current head as (seq, hash).
pub fn head(dir: &Path) -> (u64, String) {
    let out = laurel(dir).arg("head").output().expect("ran");
    let text = String::from_utf8(out.stdout).expect("utf8");
    let (seq, hash) = text.trim().split_once(' ').expect("SEQ HASH");
    (seq.parse().expect("seq"), hash.to_string())
}

/// insta settings that keep snapshots in the top-level `snapshots/` folder.
pub fn insta_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(true);
    s
}

/// Find the row whose `player` is `name` in a standings JSON.
pub fn row<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["player"] == name))
        .unwrap_or_else(|| panic!("no row for {name} in {v}"))
}
