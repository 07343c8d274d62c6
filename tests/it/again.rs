//! Checkpoints made again in place: after late records that change some
//! sections only (one system's records, a rule change of one system, records
//! about players), each checkpoint at or after their cut that still reads
//! keeps its place and its other sections' bytes, and every answer equals the
//! full replay's.

use crate::common;

use common::ckpt::*;
use common::{gen, head};
use laurel::ledger::checkpoint::Header;
use std::path::Path;
use std::process::Output;

/// Late records of one system (a series dated early, appended last): the
/// checkpoints after their cut are made again where they stood, bound to
/// the new head, with that system's sections new and every other section's
/// bytes kept; answers equal the full replay's. `check` of such records says
/// what the full fold says, and a refused append leaves every checkpoint
/// file as it was.
#[test]
fn late_records_of_one_system_make_the_checkpoints_again_in_place() {
    let dir = generated();
    let d = dir.path();
    let before = headers(d);
    assert!(before.len() >= 15, "{} checkpoints", before.len());
    let stored = every_stored_section(d, &before);
    let late = r#"{"type":"cfr.series_defined","at":"2000-06-01","series":"late-series","format":"elimination"}"#;
    let checks = [false, true].map(|full| cmd_in(d, &["check", "-"], full, late));
    assert_eq!(checks[0].stdout, checks[1].stdout);
    assert!(checks[0].status.success());
    assert!(
        alone(&checks[0], "cfr") && !alone(&checks[1], "cfr"),
        "the dry run's path"
    );
    assert!(alone(&ok(cmd_in(d, &["append", "-"], false, late)), "cfr"));
    let cfr = |name: &str| name == "cfr" || name == "players.cfr";
    assert!(assert_made_again(d, &before, &stored, &cfr) >= 10);
    assert!(assert_same_answers(d, "after a late series") > 100);

    // A correction (a void and its replacement) takes the same path.
    let seq = head(d).0.to_string();
    let fixed = d.join("fixed.jsonl");
    std::fs::write(&fixed, late.replace("2000-06-01", "2000-06-02")).unwrap();
    let correct = ["correct", &seq, fixed.to_str().unwrap(), "--reason", "date"];
    assert!(alone(&ok(cmd_in(d, &correct, false, "")), "cfr"));
    assert_eq!(keys(&headers(d)), keys(&before), "the same places");
    assert!(assert_same_answers(d, "after a late correction") > 100);

    // Refused on that path: checkpoints untouched, and the same message and
    // exit code as the fold of everything (run last: it drops them first).
    // A second series of that name; a void of what later races depend on.
    let again = late.replace("2000-06-01", "2000-07-01");
    let series = gen(3000, 5)
        .lines()
        .position(|l| l.contains("cfr.series_defined"));
    let depended = (series.unwrap() + 1).to_string();
    let refusals: [(&[&str], &str); 2] = [
        (&["append", "-"], &again),
        (&["void", &depended, "--reason", "test"], ""),
    ];
    let files = checkpoint_files(d);
    let by_one: Vec<Output> = (refusals.iter())
        .map(|(args, stdin)| cmd_in(d, args, false, stdin))
        .collect();
    assert!(
        checkpoint_files(d) == files,
        "a refused append changes no checkpoint"
    );
    for ((args, stdin), one) in refusals.iter().zip(by_one) {
        let full = cmd_in(d, args, true, stdin);
        assert!(alone(&one, "cfr"), "{args:?}: the path of one system");
        assert_eq!(one.status.code(), Some(2), "{args:?}");
        assert_eq!(full.status.code(), Some(2), "{args:?}");
        assert_eq!(said(&one), said(&full), "{args:?}");
    }
}

/// After one late record: ledger `d`'s checkpoints stand where `before`
/// stood; those bound to the new head were made again (one more record
/// folded, the same parent, every section but those `changed` names
/// byte-identical to `was`), the others are as they were. How many were
/// made again.
fn assert_made_again(
    d: &Path,
    before: &[(Vec<u8>, Header)],
    was: &[Vec<(String, Vec<u8>)>],
    changed: &dyn Fn(&str) -> bool,
) -> usize {
    let after = headers(d);
    assert_eq!(keys(&after), keys(before), "the same places");
    let new_head = head(d).0;
    let mut remade = 0;
    for (((key, old), was), (_, new)) in before.iter().zip(was).zip(&after) {
        if new.head.seq != new_head {
            assert_eq!(new, old, "before the cut: as it was");
            continue;
        }
        remade += 1;
        assert_eq!(new.folded, old.folded + 1);
        assert_eq!(new.parent.map(|p| p.0), old.parent.map(|p| p.0));
        for ((name, a), (_, b)) in was.iter().zip(stored_sections(d, key, new)) {
            assert!(changed(unversioned(name)) || *a == b, "{name} kept");
        }
    }
    remade
}

/// A section's name without its layout (`cfr@2` is `cfr`).
fn unversioned(name: &str) -> &str {
    name.split('@').next().unwrap_or(name)
}

/// A rule change dated back takes the path of its system's late records:
/// that system's sections and the rules in force are made again, the
/// others kept, and every answer is the full fold's; so does its void.
#[test]
fn a_rule_change_dated_back_makes_its_systems_checkpoints_again_in_place() {
    let dir = generated();
    let d = dir.path();
    let before = headers(d);
    let stored = every_stored_section(d, &before);
    let change =
        r#"{"type":"ledger.rules_changed","at":"2000-06-01","system":"sbr","params":{"podium":2}}"#;
    assert!(alone(
        &ok(cmd_in(d, &["append", "-"], false, change)),
        "sbr"
    ));
    let sbr = |name: &str| ["sbr", "players.sbr", "ledger.rules"].contains(&name);
    assert!(assert_made_again(d, &before, &stored, &sbr) >= 10);
    let rules = |s: &[(String, Vec<u8>)]| {
        (s.iter())
            .find(|(n, _)| unversioned(n) == "ledger.rules")
            .cloned()
    };
    let (last, now) = (stored.last().unwrap(), every_stored_section(d, &headers(d)));
    assert_ne!(rules(last), rules(now.last().unwrap()), "new rules");
    assert!(assert_same_answers(d, "after a rule change dated back") > 100);
    let seq = head(d).0.to_string();
    let voided = cmd_in(d, &["void", &seq, "--reason", "test"], false, "");
    assert!(alone(&ok(voided), "sbr"));
    assert!(assert_same_answers(d, "after its void") > 100);
}

/// Records about players dated back, a registration and then a rename of
/// the player whose last event is the earliest, dated at that event: the
/// checkpoints after their cut are made again in place with only their
/// players sections new, and every answer (the players list, the renamed
/// player's history under both names, at the head and known at before the
/// append) equals the full replay's. A rename whose `from` is named after it
/// is refused as the full fold refuses it.
#[test]
fn late_records_about_players_make_only_the_players_sections_again() {
    let dir = generated();
    let d = dir.path();
    let known = head(d).0.to_string();
    let rows = common::json(d, &["players", "--format", "json"])["rows"].clone();
    let last = |r: &serde_json::Value| r["last"].as_str().unwrap_or("").to_string();
    let early = rows.as_array().unwrap().iter().min_by_key(|r| last(r));
    let (who, at) = (
        early.unwrap()["player"].as_str().unwrap(),
        last(early.unwrap()),
    );
    let now = format!("{who} now");
    let rename =
        format!(r#"{{"type":"ledger.player_renamed","at":"{at}","from":"{who}","to":"{now}"}}"#);
    let register =
        r#"{"type":"ledger.player_registered","at":"2000-03-01","player":"Newcomer Early"}"#;
    let players = |name: &str| name.starts_with("players.");
    for late in [register, &rename] {
        let checks = [false, true].map(|full| cmd_in(d, &["check", "-"], full, late));
        assert_eq!(checks[0].stdout, checks[1].stdout, "{late}");
        assert!(by_players(&checks[0]) && !by_players(&checks[1]), "{late}");
        let (before, stored) = (headers(d), every_stored_section(d, &headers(d)));
        assert!(by_players(&ok(cmd_in(d, &["append", "-"], false, late))));
        assert!(
            assert_made_again(d, &before, &stored, &players) >= 5,
            "{late}"
        );
    }
    assert!(assert_same_answers(d, "after records about players") > 100);
    let asked: [&[&str]; 4] = [
        &["players", "--format", "json"],
        &["history", &now],
        &["history", who, "--as-of", &at],
        &["standings", "valar", "--known-at", &known],
    ];
    for args in asked {
        let (fast, full) = (cmd(d, args, false), cmd(d, args, true));
        assert!(fast.status.success(), "{args:?}: {}", said(&fast));
        assert_eq!(fast.stdout, full.stdout, "{args:?}");
    }
    let named_after = rows[0]["player"].as_str().unwrap();
    let refused = format!(
        r#"{{"type":"ledger.player_renamed","at":"2000-01-02","from":"{named_after}","to":"someone else"}}"#
    );
    let [one, full] = [false, true].map(|full| cmd_in(d, &["append", "-"], full, &refused));
    assert!(
        !by_players(&one),
        "a rename named after it takes the full fold"
    );
    assert_eq!(one.status.code(), Some(2));
    assert_eq!(
        (one.status.code(), said(&one)),
        (full.status.code(), said(&full))
    );
}

/// A checkpoint after the cut whose sections no longer read is not made
/// again (it goes, as the fold of everything drops it), and a registration
/// dated back is appended on the path of records about players, with every
/// answer the full replay's.
#[test]
fn a_damaged_checkpoint_does_not_stop_a_registration_dated_back() {
    let dir = generated();
    let d = dir.path();
    // A delta (a whole one's damage would stop its deltas too) that is
    // not the latest one's parent, which the path reads first.
    let hs = headers(d);
    let parent = hs.last().and_then(|(_, h)| h.parent).map(|p| p.0.to_vec());
    let delta = |(k, h): &&(Vec<u8>, Header)| h.parent.is_some() && Some(k) != parent.as_ref();
    let (key, _) = hs.iter().rev().skip(1).find(delta).expect("a delta");
    let path = checkpoint_file(d, key);
    let mut damaged = std::fs::read(&path).unwrap();
    let n = damaged.len();
    damaged[n - 40..n - 32].fill(0xff);
    std::fs::write(&path, &damaged).unwrap();
    let register =
        r#"{"type":"ledger.player_registered","at":"2000-03-01","player":"Newcomer Early"}"#;
    assert!(by_players(&ok(cmd_in(
        d,
        &["append", "-"],
        false,
        register
    ))));
    assert!(
        !keys(&headers(d)).contains(key),
        "the damaged checkpoint goes"
    );
    assert!(assert_same_answers(d, "after a registration past a damaged checkpoint") > 50);
}

/// Did the check fold of records about players alone run (the trace says so)?
fn by_players(out: &Output) -> bool {
    let trace = "checkpoint: check fold of players records alone";
    String::from_utf8_lossy(&out.stderr).contains(trace)
}
