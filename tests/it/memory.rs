//! Query output in bounded memory (the budget: peak memory of any command <= 512 MiB
//! at 1M events): `standings`, `replay`, `history` and `site` on a generated ledger,
//! through the built binary (`LAUREL_PEAK_RSS=1`).
//!
//! Rows are packed, output is streamed, and `replay` holds one report and one fold at
//! a time, so on 200,000 generated events `standings cfr` (a 200,000-row "events"
//! table) stays under 200 MiB and `replay` under 384 MiB. Rows of JSON values, the
//! whole output in one string and every report held at once would break these bounds
//! several times over (gigabytes for `replay --format json`).
//!
//! `history PLAYER` (second test): the audit fold keeps only the changes of the player
//! asked for, not every change of every player (each monthly tick changes every
//! rating) to be filtered afterwards, which would take gigabytes at 1M events.

use crate::common;

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

/// A ledger holding `laurel gen --events N --seed SEED`.
fn generated_ledger(n: u64, seed: u64) -> tempfile::TempDir {
    let dir = empty_ledger();
    let events = dir.path().join("events.jsonl");
    std::fs::write(&events, common::gen(n, seed)).unwrap();
    run(dir.path(), &["append", events.to_str().unwrap()]);
    dir
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

    let (out, rss) = run(dir.path(), &["standings", "cfr", "--limit", "all"]);
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

    // A rules file that moves valar: mepbm is refolded and compared, the
    // other systems are reported unchanged.
    let valar = dir.path().join("valar.json");
    std::fs::write(&valar, r#"{"valar": {"base": 46}}"#).unwrap();
    let valar = valar.to_str().unwrap();
    let (out, rss) = run(dir.path(), &["replay", "--rules", valar, "--diff"]);
    let text = String::from_utf8(out).unwrap();
    let (state, rest) = text.split_once('\n').unwrap();
    assert!(state.starts_with("ledger at seq 200000 ("), "{state}");
    assert!(
        rest.starts_with("valar: replay diff (old → new)\nPlayer "),
        "{rest}"
    );
    assert!(text.contains("\ncfr: replay diff (old → new)\nunchanged: "));
    assert!(rss < 384 * MIB, "replay --diff: {} MiB", rss >> 20);
}

/// 100,000 generated events: `history` of the top valar player stays under 320 MiB;
/// keeping every change of every player would take about twice that.
#[test]
fn history_of_one_player_does_not_keep_everyones_changes() {
    let dir = generated_ledger(100_000, 3);

    let json = |args: &[&str]| -> (serde_json::Value, u64) {
        let (out, rss) = run(dir.path(), args);
        (serde_json::from_slice(&out).expect("JSON"), rss)
    };
    let (valar, _) = json(&["standings", "valar", "--format", "json"]);
    let top = &valar["rows"][0];
    let player = top["player"].as_str().expect("a ranked player");
    let (history, rss) = json(&["history", player, "--format", "json"]);
    assert!(rss < 320 * MIB, "history: {} MiB", rss >> 20);

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

/// `site` spills the trail to disk by subject and writes pages as they are made, so
/// 100,000 generated events stay within the bounds below; holding every page, report
/// and trail at once, and scanning every table for each player page, would take
/// minutes and gigabytes.
#[test]
fn site_of_100k_events_streams_its_pages_and_trail() {
    let dir = generated_ledger(100_000, 3);
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let started = std::time::Instant::now();
    let (_, rss) = run(dir.path(), &["site", site.to_str().unwrap()]);
    assert!(rss < 384 * MIB, "site: {} MiB", rss >> 20);
    // `run` gives up at 120 s.
    let secs = started.elapsed().as_secs();
    assert!(secs < 90, "site took {secs} s");

    // The busiest valar player's page has the latest changes `history` lists.
    let (valar, _) = run(dir.path(), &["standings", "valar", "--format", "json"]);
    let valar: serde_json::Value = serde_json::from_slice(&valar).unwrap();
    let player = valar["rows"][0]["player"]
        .as_str()
        .expect("a ranked player");
    let (history, _) = run(dir.path(), &["history", player, "--format", "json"]);
    let history: serde_json::Value = serde_json::from_slice(&history).unwrap();
    let changes = history["rows"].as_array().expect("rows").len();
    let page = std::fs::read_to_string(site.join(format!("player-{player}.html"))).unwrap();
    let table = &page[page.find("class=\"history\"").expect("a history table")..];
    let rows = table[..table.find("</table>").unwrap()]
        .matches("<tr>")
        .count();
    let shown = changes.min(laurel::site::HISTORY);
    assert_eq!(rows, shown + 1, "the latest changes, plus the header");
    assert!(changes > laurel::site::HISTORY, "only {changes} changes");
    assert!(page.contains(&format!("The latest {shown} of {changes} changes.")));
}
