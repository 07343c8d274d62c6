//! Query output in bounded memory (issue 10: "peak memory of any command <= 512
//! MiB" at 1M events): `standings` and `replay` on a generated ledger, through
//! the built binary (`LAUREL_PEAK_RSS=1`).
//!
//! Measured on 200,000 generated events (`laurel gen --events 200000 --seed 1`,
//! release build, 2 busy cores), peak RSS before (main at 70f7e63: every row a
//! `Vec<serde_json::Value>`, the whole output one `String`, replay holding
//! every table's report and both folds) and after (packed rows, output
//! streamed, one report and one fold at a time):
//! - `standings cfr` (a 200,000-row "events" table): 284 MB before, 111–113 MB after;
//! - `replay --rules {} --format json`: 2,958 MB before, 241 MB after;
//! - `replay --rules {} --diff`: 460 MB before, 248–263 MB after.
//!
//! The bounds sit between the two.

mod common;

use std::time::Duration;

use common::{empty_ledger, laurel_std, output_within, peak_rss};

const MIB: u64 = 1 << 20;

/// Run `laurel ARGS` on the ledger in `dir`; its stdout and peak RSS.
fn run(dir: &std::path::Path, args: &[&str]) -> (Vec<u8>, u64) {
    let mut cmd = laurel_std(dir, args);
    cmd.env("LAUREL_PEAK_RSS", "1");
    let out = output_within(cmd, b"", Duration::from_secs(120));
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rss = peak_rss(&out.stderr);
    eprintln!(
        "{args:?}: peak RSS {} MiB, {} bytes out",
        rss >> 20,
        out.stdout.len()
    );
    (out.stdout, rss)
}

#[test]
fn standings_and_replay_of_200k_events_stay_bounded() {
    let dir = empty_ledger();
    let events = dir.path().join("events.jsonl");
    std::fs::write(&events, common::gen(200_000, 1)).unwrap();
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, "{}").unwrap();
    let (rules, events) = (rules.to_str().unwrap(), events.to_str().unwrap());
    run(dir.path(), &["append", events]);

    let (out, rss) = run(dir.path(), &["standings", "cfr"]);
    let text = String::from_utf8(out).unwrap();
    // The events table: one line per driver and event, far more than drivers.
    let events_table = text.split("\nCFR event scores").nth(1).expect("events");
    assert!(
        events_table.lines().count() > 100_000,
        "{}",
        events_table.len()
    );
    assert!(rss < 200 * MIB, "standings cfr: {} MiB", rss >> 20);

    let (out, rss) = run(
        dir.path(),
        &["replay", "--rules", rules, "--format", "json"],
    );
    assert!(out.starts_with(b"{\n  \"as_of\": null,\n  \"head\": \""));
    assert!(out.ends_with(b"\n    }\n  ]\n}\n"));
    assert!(rss < 384 * MIB, "replay --format json: {} MiB", rss >> 20);

    let (out, rss) = run(dir.path(), &["replay", "--rules", rules, "--diff"]);
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("valar: replay diff (old → new)\nplayer "));
    assert!(text.contains("\ncfr: replay diff (old → new)\n"));
    assert!(rss < 384 * MIB, "replay --diff: {} MiB", rss >> 20);
}
