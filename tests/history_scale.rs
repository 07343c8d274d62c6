//! `history PLAYER` on a generated ledger: the audit trail keeps only that
//! player's changes.
//!
//! Bug pinned: the audit fold kept every change of every player (each monthly
//! tick changes every rating) and filtered afterwards. On a 1M-event generated
//! ledger `history` peaked at 15,014,748 KB in 123 s; after, 295,232 KB in 13 s,
//! byte-identical output for the players compared (README "Memory bound").

mod common;

use std::time::Duration;

use common::{empty_ledger, laurel_std, output_within, peak_rss};
use serde_json::Value;

/// Run `args` on the ledger in `dir`; returns (stdout as JSON, peak RSS).
fn run(dir: &std::path::Path, args: &[&str]) -> (Value, u64) {
    let mut cmd = laurel_std(dir, args);
    cmd.env("LAUREL_PEAK_RSS", "1");
    let out = output_within(cmd, b"", Duration::from_secs(120));
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&out.stdout).expect("JSON");
    (v, peak_rss(&out.stderr))
}

/// 100,000 generated events: measured 651 MB peak before (every change of every
/// player kept), 173 MB after. The bound sits between them.
#[test]
fn history_of_one_player_does_not_keep_everyones_changes() {
    let dir = empty_ledger();
    let file = dir.path().join("events.jsonl");
    std::fs::write(&file, common::gen(100_000, 3)).unwrap();
    let cmd = laurel_std(dir.path(), &["append", file.to_str().unwrap()]);
    let out = output_within(cmd, b"", Duration::from_secs(120));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let (valar, _) = run(dir.path(), &["standings", "valar", "--format", "json"]);
    let top = &valar["rows"][0];
    let player = top["player"].as_str().expect("a ranked player");
    let (history, rss) = run(dir.path(), &["history", player, "--format", "json"]);
    eprintln!("history {player}: peak RSS {} MiB", rss >> 20);
    assert!(rss < 320 << 20, "history peaked at {} MiB", rss >> 20);

    // The trail is this player's, complete: its last valar value is the score
    // the standings show.
    let rows = history["rows"].as_array().expect("rows");
    let last_valar = rows
        .iter()
        .rev()
        .find(|r| r["system"] == "valar")
        .expect("a valar change");
    assert_eq!(last_valar["new"], top["score"].to_string().as_str());
    assert!(rows.len() > 20, "only {} changes", rows.len());
}
