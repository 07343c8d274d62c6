//! `laurel replay --rules FILE [--diff]`: only the systems whose parameters the
//! file sets are refolded; the others are the ledger as it stands (printed
//! without `--diff`, reported unchanged with it); the diff's rows are those of
//! the ledger's standings and of a full refold under the file.

use crate::common;

use std::path::Path;

use common::laurel;
use serde_json::{json, Value};

/// The tables of mepbm, the system `valar.*` parameters belong to.
const MEPBM: [&str; 7] = [
    "valar", "maia", "istari", "nations", "ainur", "council", "nazgul",
];

/// Every bundled stream in one ledger, and a rules file moving valar's base.
fn bundled() -> (tempfile::TempDir, String) {
    let dir = common::bundled();
    let rules = dir.path().join("valar.json");
    std::fs::write(&rules, r#"{"valar": {"base": 50}}"#).unwrap();
    (dir, rules.display().to_string())
}

/// Run `laurel ARGS` with the checkpoint trace on; stdout and stderr.
fn traced(dir: &Path, args: &[&str]) -> (String, String) {
    let out = laurel(dir)
        .args(args)
        .env("LAUREL_CHECKPOINT_TRACE", "1")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "laurel {args:?}: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

/// The folds a traced command ran: one `checkpoint: fold … in all` line each.
fn folds(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.starts_with("checkpoint: fold"))
        .count()
}

#[test]
fn a_rules_file_touching_one_system_refolds_it_alone_and_reports_the_others_unchanged() {
    let (dir, rules) = bundled();
    let (text, err) = traced(dir.path(), &["replay", "--rules", &rules, "--diff"]);
    assert!(
        err.contains(
            "replay: refolded under the rules file: mepbm; taken as they stand: cfr, cards, diplomacy, sbr\n"
        ),
        "{err}"
    );
    // Two folds: mepbm as it stands and mepbm under the file; nothing else.
    assert_eq!(folds(&err), 2, "{err}");
    // Each other table once (not per tournament), said unchanged.
    for (table, ns) in [
        ("cfr", "cfr"),
        ("cards", "cards"),
        ("fibonacci", "diplomacy"),
        ("carnage", "diplomacy"),
        ("dss", "diplomacy"),
        ("sos", "diplomacy"),
        ("sbr", "sbr"),
    ] {
        let said = format!(
            "{table}: replay diff (old → new)\nunchanged: the rules file sets no parameter of {ns}\n"
        );
        assert_eq!(text.matches(&said).count(), 1, "{table}: {text}");
    }
    // The valar table moved: its diff has rows.
    assert!(
        text.contains("valar: replay diff (old → new)\nPlayer "),
        "{text}"
    );

    // JSON: every table once, the others with no rows and "unchanged": true.
    let v = common::json(
        dir.path(),
        &["replay", "--rules", &rules, "--diff", "--format", "json"],
    );
    let tables = v["tables"].as_array().unwrap();
    let systems: Vec<&str> = tables
        .iter()
        .map(|t| t["system"].as_str().unwrap())
        .collect();
    let all: Vec<&str> = laurel::systems::tables().iter().map(|(t, _)| *t).collect();
    assert_eq!(systems, all);
    for t in tables {
        // valar moved; the other tables, mepbm's included, did not.
        let valar = t["system"] == "valar";
        assert_eq!(t.get("unchanged").is_some(), !valar, "{t}");
        if !valar {
            assert_eq!((&t["unchanged"], &t["rows"]), (&json!(true), &json!([])));
        }
    }
    // mepbm's other tables say why: no row moved.
    for table in MEPBM.iter().filter(|t| **t != "valar") {
        let said = format!(
            "{table}: replay diff (old → new)\nunchanged: no row moves under the rules file"
        );
        assert_eq!(text.matches(&said).count(), 1, "{table}: {text}");
    }

    // One untouched table: no refold at all, in every format.
    let (text, err) = traced(
        dir.path(),
        &["replay", "--rules", &rules, "--diff", "--system", "cfr"],
    );
    assert!(
        err.contains("replay: refolded under the rules file: none; taken as they stand: cfr\n"),
        "{err}"
    );
    // One fold, of the ledger's own records, names the state answered.
    assert_eq!(folds(&err), 1, "{err}");
    assert!(
        text.ends_with(
            "cfr: replay diff (old → new)\nunchanged: the rules file sets no parameter of cfr\n"
        ),
        "{text}"
    );
    // Its --tournament is still checked against the ledger's.
    let typo = laurel(dir.path())
        .args(["replay", "--rules", &rules, "--diff", "--system", "cards"])
        .args(["--tournament", "cards-2013-leage"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&typo.stderr);
    assert_eq!(typo.status.code(), Some(2), "{err}");
    assert!(
        err.contains(r#"did you mean "cards-2013-league"?"#),
        "{err}"
    );
    let (csv, _) = traced(
        dir.path(),
        &[
            "replay", "--rules", &rules, "--diff", "--system", "cfr", "--format", "csv",
        ],
    );
    assert_eq!(csv, "player,old_score,score,delta,old_rank,rank\r\n");

    // Without --diff every table is printed: the untouched ones as the
    // ledger stands (from one fold of them), mepbm's as under the file.
    let (json_text, err) = traced(
        dir.path(),
        &["replay", "--rules", &rules, "--format", "json"],
    );
    assert_eq!(folds(&err), 2, "{err}");
    let replayed: Value = serde_json::from_str(&json_text).unwrap();
    let rows_of = |table: &str| -> Vec<Value> {
        let t = replayed["tables"].as_array().unwrap().iter();
        let mut t = t.filter(|t| t["system"] == table);
        t.next().unwrap()["rows"].as_array().unwrap().clone()
    };
    assert_eq!(
        rows_of("cfr"),
        common::standings(dir.path(), &["cfr"])["rows"]
            .as_array()
            .unwrap()[..]
    );
    let valar = common::standings(dir.path(), &["valar", "--rules", &rules]);
    assert_eq!(rows_of("valar"), valar["rows"].as_array().unwrap()[..]);
    assert_ne!(valar, common::standings(dir.path(), &["valar"]));
}

#[test]
fn a_rules_file_that_pins_nothing_refolds_nothing_and_changes_nothing() {
    let (dir, _) = bundled();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, r#"{"valar": {}}"#).unwrap();
    let empty = empty.to_str().unwrap();
    let (text, err) = traced(dir.path(), &["replay", "--rules", empty, "--diff"]);
    assert!(
        err.contains("replay: refolded under the rules file: none; taken as they stand: mepbm, cfr, cards, diplomacy, sbr\n"),
        "{err}"
    );
    assert_eq!(text.matches("\nunchanged: ").count(), 14, "{text}");
    // Without --diff, the tables the ledger stands at.
    let replayed = common::json(
        dir.path(),
        &[
            "replay", "--rules", empty, "--system", "sos", "--format", "json",
        ],
    );
    let live = common::json(dir.path(), &["standings", "sos", "--format", "json"]);
    assert_eq!(replayed, live);
}

/// The rows `replay --diff` must give for `table`, worked out from two
/// `standings --format json` answers: the ledger's, and a full refold under
/// the rules file (no checkpoint). Per subject (its first row on each side):
/// old and new score and rank, the delta rounded to 2 places; largest
/// absolute delta first, ties by name.
fn expected_diff(old: &Value, new: &Value) -> Vec<Value> {
    let firsts = |v: &Value| {
        let mut m = std::collections::BTreeMap::new();
        for r in v["rows"].as_array().unwrap() {
            let name = match &r["player"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            m.entry(name)
                .or_insert((r["score"].clone(), r["rank"].clone()));
        }
        m
    };
    let (a, b) = (firsts(old), firsts(new));
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let none = (Value::Null, Value::Null);
    let mut rows: Vec<(f64, Value)> = names
        .into_iter()
        .map(|n| {
            let (o, w) = (a.get(n).unwrap_or(&none), b.get(n).unwrap_or(&none));
            let d = w.0.as_f64().unwrap_or(0.0) - o.0.as_f64().unwrap_or(0.0);
            // Whole scores (or none) move by a whole number.
            let whole = |v: &Value| v.is_null() || v.is_i64();
            let delta = match whole(&o.0) && whole(&w.0) {
                true => json!(w.0.as_i64().unwrap_or(0) - o.0.as_i64().unwrap_or(0)),
                false => json!((d * 100.0).round() / 100.0),
            };
            let row = json!({
                "player": n, "old_score": o.0, "score": w.0,
                "delta": delta, "old_rank": o.1, "rank": w.1,
            });
            (d, row)
        })
        .collect();
    rows.sort_by(|x, y| {
        (y.0.abs().total_cmp(&x.0.abs()))
            .then_with(|| x.1["player"].as_str().cmp(&y.1["player"].as_str()))
    });
    rows.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn the_diff_rows_are_those_of_the_ledger_and_of_a_full_refold() {
    // A generated community with checkpoints: the old side comes from one.
    let dir = common::empty_ledger();
    let events = dir.path().join("events.jsonl");
    std::fs::write(&events, common::gen(20_000, 5)).unwrap();
    laurel(dir.path())
        .args(["append", events.to_str().unwrap()])
        .env("LAUREL_CHECKPOINT_EVERY", "3000")
        .assert()
        .success();
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, r#"{"valar": {"base": 47}, "maia": {"win": 5}}"#).unwrap();
    let rules = rules.to_str().unwrap();
    let all = common::json(
        dir.path(),
        &["replay", "--rules", rules, "--diff", "--format", "json"],
    );
    let mut moved = 0;
    for table in MEPBM {
        let old = common::json(dir.path(), &["standings", table, "--format", "json"]);
        let refold = laurel(dir.path())
            .args(["standings", table, "--rules", rules, "--format", "json"])
            .env("LAUREL_NO_CHECKPOINTS", "1")
            .output()
            .unwrap();
        assert!(refold.status.success());
        let new: Value = serde_json::from_slice(&refold.stdout).unwrap();
        let mut want = expected_diff(&old, &new);
        let one = common::json(
            dir.path(),
            &[
                "replay", "--rules", rules, "--diff", "--system", table, "--format", "json",
            ],
        );
        // A table in which no row moves is reported unchanged, without rows.
        let still = |r: &Value| r["delta"].as_f64() == Some(0.0) && r["old_rank"] == r["rank"];
        if want.iter().all(still) {
            assert_eq!(one["unchanged"], true, "{table}");
            want.clear();
        }
        assert_eq!(one["rows"].as_array().unwrap()[..], want[..], "{table}");
        let listed = all["tables"].as_array().unwrap().iter();
        let listed = listed.filter(|t| t["system"] == table).collect::<Vec<_>>();
        assert_eq!(listed.len(), 1, "{table}");
        assert_eq!(listed[0]["rows"], one["rows"], "{table}");
        moved += want.iter().filter(|r| r["delta"] != json!(0.0)).count();
    }
    assert!(moved > 100, "the rules file moves ratings: {moved}");
    // Text: the first 100 moves of each table, the rest counted; the same
    // answer when the ledger as it stands is folded from nothing.
    let text = |full: bool| {
        let mut c = laurel(dir.path());
        c.args(["replay", "--rules", rules, "--diff"]);
        if full {
            c.env("LAUREL_NO_CHECKPOINTS", "1");
        }
        String::from_utf8(c.output().unwrap().stdout).unwrap()
    };
    let checkpointed = text(false);
    assert_eq!(checkpointed, text(true));
    let valar = checkpointed.split("\n\n").next().unwrap();
    assert_eq!(valar.lines().count(), 1 + 1 + 1 + 100 + 1, "{valar}");
    assert!(valar.ends_with("more rows left out (--limit all shows every row)"));
}

/// A table shown per tournament is compared per tournament, each titled
/// with it; `--system` of it without `--tournament` is refused before
/// anything is folded, saying where the tournaments are listed.
#[test]
fn a_diff_of_a_table_shown_per_tournament_names_each_tournament() {
    let dir = common::bundled();
    let rules = dir.path().join("cards.json");
    std::fs::write(&rules, r#"{"cards": {"score_clamp": 10}}"#).unwrap();
    let rules = rules.display().to_string();
    let (text, _) = traced(dir.path(), &["replay", "--rules", &rules, "--diff"]);
    for t in ["cards-2013-league", "cards-2013-masters"] {
        let title = format!("cards — tournament {t}: replay diff (old → new)");
        assert_eq!(text.matches(&title).count(), 1, "{title}: {text}");
    }
    assert!(!text.contains("\nnull "), "{text}");
    for rules in [&rules, &dir.path().join("valar.json").display().to_string()] {
        std::fs::write(dir.path().join("valar.json"), r#"{"valar": {"base": 50}}"#).unwrap();
        let out = laurel(dir.path())
            .args(["replay", "--rules", rules, "--diff", "--system", "cards"])
            .env("LAUREL_CHECKPOINT_TRACE", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(
                "replay --diff --system cards compares one tournament: add --tournament T \
                 (`laurel standings cards` lists them), or leave out --system to compare them all"
            ),
            "{err}"
        );
        assert_eq!(folds(&err), 0, "{err}");
    }
    let (one, _) = traced(
        dir.path(),
        &[
            "replay",
            "--rules",
            &rules,
            "--diff",
            "--system",
            "cards",
            "--tournament",
            "cards-2013-masters",
        ],
    );
    assert!(
        one.contains("cards — tournament cards-2013-masters: replay diff"),
        "{one}"
    );
}

/// Rules that a stored record breaks are refused, not scored: replay (with
/// or without `--diff`, of every table or one) and `standings --rules`
/// exit 2 naming the rules file, the first record in fold order they
/// refuse and why, as an append of a rules change dated before it is
/// refused. An `--as-of` before that record scores.
#[test]
fn rules_a_stored_record_breaks_exit_2_naming_the_first_record_and_why() {
    let dir = common::ledger_with(&["mepbm_ainur.jsonl", "sbr_mars_2014.jsonl"]);
    let d = dir.path();
    let file = d.join("r.json");
    let file = file.to_str().unwrap();
    let cases = [
        (
            r#"{"ainur": {"min_nations": 20}}"#,
            vec!["ainur"],
            "record 4 (mepbm.game_started, id \"mepbm-ainur-251-start\") would not be valid \
             under these rules: grudge game 251 needs at least 20 nations a side at start \
             (FP 12, DS 12)",
        ),
        (
            r#"{"sbr": {"games_per_match": 5}}"#,
            vec!["sbr", "--tournament", "mars-2014"],
            "(sbr.game_played, id \"sbr-mars-2014-E-g1\") would not be valid under these rules: \
             tournament mars-2014, group match E, game 1: player Cassini is still playing match \
             C (4 of 5 games recorded at or before this game's `at`)",
        ),
    ];
    let before = common::head(d);
    for (rules, table, want) in &cases {
        std::fs::write(file, rules).unwrap();
        for args in [
            vec!["replay", "--rules", file],
            vec!["replay", "--rules", file, "--diff"],
            [
                &["replay", "--rules", file, "--diff", "--system"],
                &table[..],
            ]
            .concat(),
            [&["standings"], &table[..], &["--rules", file]].concat(),
        ] {
            let out = laurel(d).args(&args).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains(&format!("{file}: ")) && err.contains(want),
                "{args:?}: {err}"
            );
            assert!(out.stdout.is_empty(), "{args:?}");
        }
    }
    assert_eq!(common::head(d), before);
    std::fs::write(file, cases[0].0).unwrap();
    let args = [
        "standings",
        "ainur",
        "--rules",
        file,
        "--as-of",
        "2003-06-13",
    ];
    laurel(d).args(args).assert().success();
}

/// A table parameter that every series of its format sets for itself moves
/// nothing: `replay --diff` says why beside "no row moves", and `rules` lists
/// it among the parameters no value reads; one series without its own table
/// takes it, and neither says so any more.
#[test]
fn a_table_every_series_sets_itself_is_said_to_reach_no_series() {
    let dir = common::empty_ledger();
    let stream = std::fs::read_to_string(common::events_dir().join("cfr_pbem.jsonl")).unwrap();
    common::append_ok(dir.path(), &stream);
    let rules = dir.path().join("points.json");
    std::fs::write(&rules, r#"{"cfr": {"race_points": [100, 80, 60]}}"#).unwrap();
    let rules = rules.display().to_string();
    let why = "cfr.race_points: every points series sets its own race_points (\"cfr-pbem\"), \
               so it reaches only a series defined later without one";
    let diff = common::ok(
        dir.path(),
        &["replay", "--rules", &rules, "--diff", "--system", "cfr"],
    );
    assert!(
        diff.contains(&format!(
            "unchanged: no row moves under the rules file (every score and rank as before); {why}"
        )),
        "{diff}"
    );
    let listed = common::ok(dir.path(), &["rules"]);
    assert!(listed.contains("Parameters no value reads now"), "{listed}");
    assert!(
        listed.contains(&why["cfr.race_points: ".len()..]),
        "{listed}"
    );
    // A series that takes the parameter's table.
    common::append_ok(
        dir.path(),
        r#"{"type":"cfr.series_defined","at":"2001-01-01","series":"club","format":"points"}"#,
    );
    let diff = common::ok(
        dir.path(),
        &["replay", "--rules", &rules, "--diff", "--system", "cfr"],
    );
    assert!(!diff.contains("sets its own"), "{diff}");
    assert!(!common::ok(dir.path(), &["rules"]).contains("no value reads"));
}
