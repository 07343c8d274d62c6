//! Command-line conventions, through the built binary: "did you mean" for
//! unknown tables and tournaments, `--limit`, the line
//! naming the ledger state, CSV as one RFC 4180 table, JSON lists, a quiet
//! stderr when it is not a terminal, `NO_COLOR`, a byte-order mark skipped at
//! the start of every file read.

use crate::common;

use std::path::Path;

use common::{laurel, ledger_with, run};
use serde_json::{json, Value};

const LEAGUE: &str = "cards-2013-league";

fn rules_file(dir: &Path) -> String {
    let path = dir.join("rules.json");
    std::fs::write(&path, r#"{"valar": {"base": 50}}"#).unwrap();
    path.display().to_string()
}

#[test]
fn unknown_systems_exit_2_with_did_you_mean_before_folding() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rules = rules_file(dir.path());
    for args in [
        vec!["history", "Ivy Jones", "--system", "valr"],
        vec!["replay", "--rules", &rules, "--system", "valr"],
        vec!["standings", "valr"],
    ] {
        let (code, out, err) = run(dir.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.contains(r#"unknown standings table "valr"; did you mean "valar"?"#),
            "{args:?}: {err}"
        );
    }
    // A system's name is answered with its tables.
    for args in [
        vec!["history", "Ivy Jones", "--system", "mepbm"],
        vec!["standings", "diplomacy"],
    ] {
        let (code, _, err) = run(dir.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(r#"is a system, not a standings table: its tables are "#),
            "{args:?}: {err}"
        );
    }
    let (_, _, err) = run(dir.path(), &["standings", "mepbm"]);
    assert!(
        err.contains("its tables are valar, maia, istari, nations, ainur, council, nazgul"),
        "{err}"
    );
    // A known system still answers.
    let (code, out, _) = run(dir.path(), &["history", "Ivy Jones", "--system", "valar"]);
    assert_eq!(code, 0);
    assert!(out.contains("History of Ivy Jones"), "{out}");
}

#[test]
fn unknown_tournaments_exit_2_naming_the_nearest_and_tables_without_say_so() {
    let dir = ledger_with(&["mepbm_valar.jsonl", "cards_league.jsonl"]);
    let (code, _, err) = run(dir.path(), &["standings", "valar", "--tournament", "x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("valar has no tournaments"), "{err}");
    let typo = ["standings", "cards", "--tournament", "cards-2013-leage"];
    let (code, _, err) = run(dir.path(), &typo);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            r#"unknown cards tournament "cards-2013-leage"; did you mean "cards-2013-league"?"#
        ),
        "{err}"
    );
    // Far from every name: no guess, but the names known.
    let far = ["standings", "cards", "--tournament", "Winter Leage"];
    let (code, _, err) = run(dir.path(), &far);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.contains(&format!("(known: {LEAGUE})")), "{err}");
    let rules = rules_file(dir.path());
    let replay = ["replay", "--rules", &rules, "--system", "cards"];
    let (code, _, err) = run(
        dir.path(),
        &[&replay[..], &["--tournament", "cards-2013-leage"]].concat(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(r#"did you mean "cards-2013-league"?"#),
        "{err}"
    );
}

/// The table of each answer's rows after the state line, as (title, rows,
/// the left-out note): tables are separated by a blank line.
fn text_tables(text: &str) -> Vec<(String, usize, Option<String>)> {
    let body = text.split_once('\n').map_or("", |(_, b)| b);
    body.split("\n\n")
        .filter(|t| !t.trim().is_empty())
        .map(|t| {
            let lines: Vec<&str> = t.lines().collect();
            let note = lines.last().filter(|l| l.starts_with('…'));
            let rows = lines.len() - 2 - usize::from(note.is_some());
            (lines[0].to_string(), rows, note.map(|n| n.to_string()))
        })
        .collect()
}

#[test]
fn text_standings_show_100_rows_of_each_table_unless_told_and_json_holds_all() {
    let dir = common::ledger_of(&common::gen(4000, 3));
    let json = common::standings(dir.path(), &["cfr"]);
    let (ranked, scores) = (
        json["rows"].as_array().unwrap().len(),
        json["tables"]["events"].as_array().unwrap().len(),
    );
    assert!(ranked > 100 && scores > ranked, "{ranked} {scores}");
    let (code, text, _) = run(dir.path(), &["standings", "cfr"]);
    assert_eq!(code, 0);
    let tables = text_tables(&text);
    assert_eq!(tables.len(), 3, "{text}");
    for (title, rows, note) in &tables[..2] {
        assert_eq!(*rows, 100, "{title}");
        let total = if title.starts_with("CFR driver ranking") {
            ranked
        } else {
            scores
        };
        let left = format!(
            "… {} more rows left out (--limit all shows every row)",
            total - 100
        );
        assert_eq!(note.as_deref(), Some(left.as_str()), "{title}");
    }
    // The rows shown are the first rows of the whole table.
    let first = json["tables"]["events"][0]["formula"].as_str().unwrap();
    assert!(text.contains(first), "{first}");
    let (_, all, _) = run(dir.path(), &["standings", "cfr", "--limit", "all"]);
    let counts: Vec<usize> = text_tables(&all).iter().map(|t| t.1).collect();
    assert_eq!(counts[..2], [ranked, scores]);
    assert!(!all.contains("left out"));
    // One table, cut: the other tables are not printed, the count is exact.
    let (_, one, _) = run(
        dir.path(),
        &["standings", "cfr", "--table", "events", "--limit", "7"],
    );
    let one = text_tables(&one);
    assert_eq!(one.len(), 1);
    assert_eq!(
        (one[0].1, one[0].2.clone()),
        (
            7,
            Some(format!(
                "… {} more rows left out (--limit all shows every row)",
                scores - 7
            ))
        )
    );
    // `--limit` takes a number or `all`, nothing else.
    let (code, _, err) = run(dir.path(), &["standings", "cfr", "--limit", "most"]);
    assert_eq!(code, 2);
    assert!(err.contains("`all`"), "{err}");
}

#[test]
fn limit_prints_the_first_rows_and_says_how_many_were_left_out() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let all = common::standings(dir.path(), &["valar"]);
    let all = all["rows"].as_array().unwrap().clone();
    assert!(all.len() > 3);
    let (code, text, _) = run(dir.path(), &["standings", "valar", "--limit", "3"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = text.lines().collect();
    // State line, title, header, 3 rows, the note.
    assert_eq!(lines.len(), 7, "{text}");
    assert!(
        lines[3].contains(all[0]["player"].as_str().unwrap()),
        "{text}"
    );
    assert!(
        lines[5].contains(all[2]["player"].as_str().unwrap()),
        "{text}"
    );
    let left = all.len() - 3;
    assert_eq!(
        lines[6],
        format!("… {left} more rows left out (--limit all shows every row)")
    );
    // JSON: the first 3 rows, the same as without --limit.
    let v = common::standings(dir.path(), &["valar", "--limit", "3"]);
    assert_eq!(v["rows"].as_array().unwrap()[..], all[..3]);
    // A limit beyond the rows changes nothing; 0 is refused.
    let (_, text, _) = run(dir.path(), &["standings", "valar", "--limit", "100000"]);
    assert!(!text.contains("left out"), "{text}");
    let (code, _, _) = run(dir.path(), &["standings", "valar", "--limit", "0"]);
    assert_eq!(code, 2);
    // history, rules and replay take it too.
    let (_, text, _) = run(dir.path(), &["rules", "--limit", "2"]);
    assert_eq!(text.lines().count(), 1 + 2 + 2 + 1, "{text}");
    let rules = rules_file(dir.path());
    let diff = [
        "replay", "--rules", &rules, "--diff", "--system", "valar", "--limit", "1",
    ];
    let (_, text, _) = run(dir.path(), &diff);
    assert_eq!(text.lines().count(), 1 + 3 + 1, "{text}");
}

#[test]
fn text_answers_start_with_the_ledger_state_and_the_clocks_given() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let (seq, hash) = common::head(dir.path());
    let head = format!("ledger at seq {seq} ({}…)", &hash[..8]);
    let first = |args: &[&str]| run(dir.path(), args).1.lines().next().unwrap().to_string();
    assert_eq!(first(&["standings", "valar"]), head);
    assert_eq!(first(&["rules"]), head);
    assert_eq!(first(&["history", "Ivy Jones"]), head);
    assert_eq!(
        first(&["standings", "valar", "--as-of", "2003-06-30"]),
        format!("{head} · as of 2003-06-30 (end of day, UTC)")
    );
    // Known at seq 5: the hash of record 5 (the JSON stamp's head).
    let v = common::json(
        dir.path(),
        &["standings", "valar", "--known-at", "5", "--format", "json"],
    );
    let at5 = v["head"].as_str().unwrap();
    // JSON names the append record 5 came in.
    assert_eq!(v["known_at_inside_append"], json!({"first": 1, "last": 34}));
    // Record 5 came with 34 in one append: no reader saw the ledger at 5.
    assert_eq!(
        first(&["standings", "valar", "--known-at", "5"]),
        format!(
            "{head} · known at seq 5 ({}…) · record 5 came in one append with records 1 to 34 \
             (all or nothing): no reader saw the ledger at 5; --known-at 0 or 34 shows a state \
             one did",
            &at5[..8]
        )
    );
    // CSV carries no state line.
    let (_, csv, _) = run(dir.path(), &["standings", "valar", "--format", "csv"]);
    assert!(csv.starts_with("rank,player,score,games\r\n"), "{csv}");
}

/// Every record of `text`, parsed by the csv crate (RFC 4180, headers first).
fn records(text: &str) -> Vec<csv::StringRecord> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    r.records().map(|r| r.expect("a CSV record")).collect()
}

#[test]
fn csv_is_one_rfc_4180_table_and_table_picks_which() {
    let dir = ledger_with(&["cards_league.jsonl", "diplomacy_draws.jsonl"]);
    let t = [
        "standings",
        "cards",
        "--tournament",
        LEAGUE,
        "--format",
        "csv",
    ];
    let (code, text, _) = run(dir.path(), &t);
    assert_eq!(code, 0);
    assert!(!text.contains('#') && !text.contains("\r\n\r\n"), "{text}");
    let rows = records(&text);
    let v = common::standings(dir.path(), &["cards", "--tournament", LEAGUE]);
    let want = v["rows"].as_array().unwrap();
    // Every record has the header's width (one table), one per row.
    assert_eq!(rows.len(), want.len() + 1);
    assert!(rows.iter().all(|r| r.len() == rows[0].len()));
    assert_eq!(&rows[0][1], "player");
    assert_eq!(&rows[1][1], want[0]["player"].as_str().unwrap());
    let (code, text, _) = run(dir.path(), &[&t[..], &["--table", "matches"]].concat());
    assert_eq!(code, 0);
    let rows = records(&text);
    assert_eq!(&rows[0][0], "round");
    assert_eq!(
        rows.len(),
        v["tables"]["matches"].as_array().unwrap().len() + 1
    );
    // A cell holding a list is one field, quoted by the writer if it must be.
    let (_, text, _) = run(dir.path(), &["standings", "carnage", "--format", "csv"]);
    let rows = records(&text);
    assert_eq!(&rows[0][4], "per_game");
    assert_eq!(
        &rows[1][4],
        "diplomacy-2024-r1: 7010; diplomacy-2024-r2: 5507"
    );
    // An unknown table name: exit 2, the names listed.
    let (code, out, err) = run(dir.path(), &[&t[..], &["--table", "matchs"]].concat());
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains(r#"did you mean "matches"? (its tables: cards, matches, rounds)"#),
        "{err}"
    );
    // Several tables cannot be one CSV table.
    let rules = rules_file(dir.path());
    let (code, _, err) = run(
        dir.path(),
        &["replay", "--rules", &rules, "--format", "csv"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--system TABLE"), "{err}");
}

#[test]
fn json_lists_stay_lists() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let v = common::standings(dir.path(), &["carnage"]);
    let row = common::row(&v, "Mireille Dufour");
    // 7000 + 10 centers in r1; 5507 in r2 (the shared second place).
    assert_eq!(
        row["per_game"],
        json!([
            {"game": "diplomacy-2024-r1", "score": 7010},
            {"game": "diplomacy-2024-r2", "score": 5507}
        ])
    );
}

#[test]
fn stderr_stays_empty_on_success_when_it_is_not_a_terminal() {
    let dir = common::empty_ledger();
    let events = common::events_dir().join("mepbm_valar.jsonl");
    let events = events.to_str().unwrap();
    let rules = rules_file(dir.path());
    let site = dir.path().join("site");
    for args in [
        vec!["append", events],
        vec!["import", common::events_dir().to_str().unwrap()],
        vec!["replay", "--rules", &rules],
        vec!["site", site.to_str().unwrap()],
    ] {
        let (code, _, err) = run(dir.path(), &args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn no_color_turns_off_the_help_colors() {
    let dir = tempfile::tempdir().unwrap();
    let help = |no_color: bool| {
        let mut cmd = laurel(dir.path());
        cmd.env("CLICOLOR_FORCE", "1").env_remove("NO_COLOR");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let out = cmd.arg("--help").output().unwrap();
        let bad = cmd_err(&mut laurel(dir.path()), no_color);
        (String::from_utf8(out.stdout).unwrap(), bad)
    };
    let (colored, bad) = help(false);
    assert!(
        colored.contains('\u{1b}') && bad.contains('\u{1b}'),
        "{colored}"
    );
    let (plain, bad) = help(true);
    assert!(
        !plain.contains('\u{1b}') && !bad.contains('\u{1b}'),
        "{plain}"
    );
    assert!(plain.contains("Commands:"));
}

/// The stderr of a usage error (an unknown flag), colors forced unless `no_color`.
fn cmd_err(cmd: &mut assert_cmd::Command, no_color: bool) -> String {
    cmd.env("CLICOLOR_FORCE", "1").env_remove("NO_COLOR");
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let out = cmd.arg("--no-such-flag").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn json_answers_keep_their_stamp_and_no_state_line() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let (_, out, _) = run(dir.path(), &["rules", "--format", "json", "--limit", "1"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 1);
    assert_eq!(v["known_at"], json!(common::head(dir.path()).0));
}

#[test]
fn a_directory_given_to_append_or_a_file_or_an_empty_one_to_import_exits_2_saying_what_to_do() {
    let dir = ledger_with(&[]);
    let d = dir.path();
    let before = common::head(d);
    let inputs = d.join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    let inputs = inputs.to_str().unwrap();
    for (cmd, want) in [
        (
            "append",
            format!("{inputs} is a directory: `laurel import {inputs}`"),
        ),
        (
            "import",
            format!("no *.json or *.jsonl file directly under {inputs}"),
        ),
        (
            "check",
            format!("no *.json or *.jsonl file directly under {inputs}"),
        ),
    ] {
        let (code, _, err) = run(d, &[cmd, inputs]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains(&want), "{cmd}: {err}");
    }
    let file = d.join("one.jsonl");
    std::fs::write(&file, "").unwrap();
    let file = file.to_str().unwrap();
    let (code, _, err) = run(d, &["import", file]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{file} is a file: `laurel append {file}`")),
        "{err}"
    );
    assert_eq!(common::head(d), before);
}

/// A seq that is no number, or 0, a directory as `--rules`, and a file as
/// the ledger of `init` are told what is wanted, not Rust's or the OS's
/// words ("invalid digit found in string", "os error 21").
#[test]
fn a_bad_seq_a_rules_directory_and_a_file_to_init_say_what_is_wanted() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let before = common::head(d);
    let seq = "a record's seq: a whole number from 1 (as `laurel log` shows it)";
    for args in [
        &["void", "abc", "--reason", "x"][..],
        &["void", "99999999999999999999999", "--reason", "x"],
        &["correct", "0", "-", "--reason", "x"],
    ] {
        let (code, _, err) = run(d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(seq), "{args:?}: {err}");
    }
    let here = d.to_str().unwrap();
    let (code, _, err) = run(d, &["standings", "cards", "--rules", here]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("--rules {here}: a directory; give a JSON file of")),
        "{err}"
    );
    let file = d.join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    let out = assert_cmd::Command::cargo_bin("laurel")
        .unwrap()
        .env("LAUREL_LEDGER", &file)
        .arg("init")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is a file: `laurel init` makes a ledger"),
        "{err}"
    );
    assert_eq!(common::head(d), before);
}

/// `check DIR` is the dry run of `import DIR`: the same files, the same
/// report, nothing written.
#[test]
fn check_of_a_directory_says_what_import_would_append() {
    let dir = ledger_with(&[]);
    let d = dir.path();
    let inputs = d.join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    for f in ["cards_league.jsonl", "cfr_wbc.jsonl"] {
        std::fs::copy(common::events_dir().join(f), inputs.join(f)).unwrap();
    }
    let inputs = inputs.to_str().unwrap();
    let before = common::head(d);
    let (code, checked, err) = run(d, &["check", inputs]);
    assert_eq!(code, 0, "{err}");
    assert!(
        checked.starts_with("2 file(s): ok: would append "),
        "{checked}"
    );
    assert_eq!(common::head(d), before);
    let (code, imported, err) = run(d, &["import", inputs]);
    assert_eq!(code, 0, "{err}");
    let said = |s: &str| {
        let first = s.lines().next().unwrap();
        first.replace("ok: would append", "appended")
    };
    assert_eq!(said(&checked), said(&imported));
}

/// `import` takes `.JSON` as `.json`, and refuses, naming it, an event
/// file it cannot read as one (a link to nothing, a FIFO, a directory, a
/// name not in UTF-8) rather than importing less than the directory shows.
#[test]
fn import_takes_any_case_and_refuses_event_files_it_cannot_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = ledger_with(&[]);
    let d = dir.path();
    let inputs = d.join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2001-02-01","month":"2001-01"}"#;
    std::fs::write(inputs.join("a.JSON"), tick).unwrap();
    let (code, out, err) = run(d, &["import", inputs.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("appended 1"), "{out}");
    let before = common::head(d);
    let bad = d.join("bad");
    for (name, make, want) in [
        ("d.json", 0, "is a symbolic link to nothing"),
        ("f.jsonl", 1, "is not a regular file"),
        ("x.json", 2, "is not a regular file"),
        ("e\u{fffd}.json", 3, "has a name that is not UTF-8"),
    ] {
        let _ = std::fs::remove_dir_all(&bad);
        std::fs::create_dir(&bad).unwrap();
        std::fs::write(bad.join("a.json"), tick).unwrap();
        match make {
            0 => std::os::unix::fs::symlink(bad.join("nowhere"), bad.join(name)).unwrap(),
            1 => assert!(std::process::Command::new("mkfifo")
                .arg(bad.join(name))
                .status()
                .unwrap()
                .success()),
            2 => std::fs::create_dir(bad.join(name)).unwrap(),
            _ => {
                let raw = std::ffi::OsStr::from_bytes(b"e\xff.json");
                std::fs::write(bad.join(raw), tick).unwrap();
            }
        }
        let (code, _, err) = run(d, &["import", bad.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert_eq!(common::head(d), before);
    }
}

/// A UTF-8 byte-order mark at the start of a file (what some editors save)
/// is skipped, whatever the file: a `--rules` file (replay, standings) answers
/// as the same file without it, an events file (JSON Lines or a JSON array;
/// check, append, import) appends what it would without it. One further in
/// is a stray character, refused naming its line, and nothing is written.
#[test]
fn a_byte_order_mark_starting_a_file_is_skipped_and_one_further_in_refused() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let d = dir.path();
    let write = |name: &str, text: &str| {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let rules = r#"{"valar": {"base": 50}}"#;
    let (plain, marked) = (
        write("plain.json", rules),
        write("rules.json", &format!("\u{feff}{rules}")),
    );
    for args in [
        vec!["replay", "--rules"],
        vec!["standings", "valar", "--rules"],
    ] {
        let with = |file: &str| run(d, &[args.as_slice(), &[file]].concat());
        // The state line names the rules file: the rest is the same.
        let (code, out, err) = with(&marked);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(out.replace(&marked, &plain), with(&plain).1, "{args:?}");
    }
    // The tick of month 2009-0N comes on the 1st of the next month.
    let tick = |n: u32| {
        format!(
            r#"{{"type":"mepbm.monthly_tick","at":"2009-0{}-01","month":"2009-0{n}"}}"#,
            n + 1
        )
    };
    let lines = write("lines.jsonl", &format!("\u{feff}{}\n", tick(1)));
    let imports = d.join("imports");
    std::fs::create_dir(&imports).unwrap();
    let array = format!("\u{feff}[{}]", tick(2));
    std::fs::write(imports.join("a.json"), &array).unwrap();
    let imports = imports.display().to_string();
    let (seq, _) = common::head(d);
    for (args, added) in [
        (vec!["check", &lines], 0),
        (vec!["append", &lines], 1),
        (vec!["import", &imports], 2),
    ] {
        let (code, _, err) = run(d, &args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(common::head(d).0, seq + added, "{args:?}");
    }
    let before = common::head(d);
    let inside = write(
        "inside.jsonl",
        &format!("{}\n\u{feff}{}\n", tick(3), tick(4)),
    );
    let (code, _, err) = run(d, &["append", &inside]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{inside}:2: ")), "{err}");
    // Two marks: the second is a stray character, not an export's refusal.
    let twice = write("twice.jsonl", &format!("\u{feff}\u{feff}{}\n", tick(3)));
    let (code, _, err) = run(d, &["append", &twice]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{twice}:1: ")) && !err.contains("export"),
        "{err}"
    );
    assert_eq!(common::head(d), before);
}

/// A file saved as UTF-16 (with its byte-order mark or without, either byte
/// order, after a UTF-8 mark or not) or UTF-32 is told that laurel reads
/// UTF-8, a rules file as an events file; a rules
/// file that is not UTF-8 names the first byte that is not (from 1).
#[test]
fn a_utf16_file_is_told_laurel_reads_utf8() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let d = dir.path();
    let before = common::head(d);
    let utf16 = |name: &str, text: &str, big: bool| {
        let path = d.join(name);
        let units = std::iter::once(0xFEFF).chain(text.encode_utf16());
        let bytes: Vec<u8> = units
            .flat_map(|u: u16| {
                if big {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect();
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let want = "the input is UTF-16 (it starts with its byte-order mark); laurel reads UTF-8";
    let rules = utf16("rules.json", r#"{"valar": {"base": 50}}"#, false);
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2009-02-01","month":"2009-01"}"#;
    let lines = utf16("lines.jsonl", tick, true);
    // After a UTF-8 mark (skipped), a UTF-16 one is told the same.
    let after_mark = |path: &str| {
        let bytes = [&b"\xEF\xBB\xBF"[..], &std::fs::read(path).unwrap()].concat();
        let marked = format!("{path}.marked");
        std::fs::write(&marked, bytes).unwrap();
        marked
    };
    let (rules_marked, lines_marked) = (after_mark(&rules), after_mark(&lines));
    for args in [
        vec!["replay", "--rules", &rules],
        vec!["append", &lines],
        vec!["replay", "--rules", &rules_marked],
        vec!["append", &lines_marked],
    ] {
        let (code, _, err) = run(d, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // UTF-16 without its mark, and UTF-32 with or without one: told by the
    // NUL bytes beside the first character.
    let wide = |name: &str, text: &str, width: usize, big: bool, bom: bool| {
        let path = d.join(name);
        let chars = bom.then_some('\u{FEFF}').into_iter().chain(text.chars());
        let mut bytes = Vec::new();
        for c in chars {
            let unit = (c as u32).to_be_bytes();
            let mut unit = unit[4 - width..].to_vec();
            if !big {
                unit.reverse();
            }
            bytes.extend(unit);
        }
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let want =
        "the input is UTF-16 or UTF-32 (NUL bytes beside its first character); laurel reads UTF-8";
    for (width, bom) in [(2, false), (4, false), (4, true)] {
        for big in [false, true] {
            let rules = wide("wide.json", r#"{"valar": {"base": 50}}"#, width, big, bom);
            let lines = wide("wide.jsonl", tick, width, big, bom);
            for args in [vec!["replay", "--rules", &rules], vec!["append", &lines]] {
                let (code, _, err) = run(d, &args);
                assert_eq!(code, 2, "{width} {big} {bom} {args:?}: {err}");
                assert!(err.contains(want), "{width} {big} {bom} {args:?}: {err}");
            }
        }
    }
    let latin1 = d.join("latin1.json");
    std::fs::write(&latin1, b"{\"valar\": {\"base\": 50}} \xE9").unwrap();
    let (code, _, err) = run(d, &["replay", "--rules", latin1.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("byte 25 is not UTF-8; laurel reads UTF-8"),
        "{err}"
    );
    assert_eq!(common::head(d), before);
}

/// A boolean cell (CFR's "Counted") reads as yes or no in text and CSV,
/// where a person reads it; JSON keeps its booleans.
#[test]
fn counted_reads_yes_or_no_in_text_and_csv() {
    let dir = ledger_with(&["cfr_wbc.jsonl"]);
    let d = dir.path();
    let out = |format: &str| {
        let args = ["standings", "cfr", "--table", "events", "--limit", "all"];
        let out = laurel(d).args(args).args(["--format", format]).output();
        String::from_utf8(out.unwrap().stdout).unwrap()
    };
    let text = out("table");
    let mut lines = text.lines().skip_while(|l| !l.starts_with("Series"));
    let at = lines
        .next()
        .and_then(|h| h.find("Counted"))
        .expect("Counted");
    let cell = |l: &str| Some(l.get(at..)?.split_whitespace().next()?.to_string());
    let shown: Vec<String> = lines.filter_map(cell).collect();
    let csv = out("csv");
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let at = rows.headers().unwrap().iter().position(|h| h == "counted");
    let written: Vec<String> = (rows.records())
        .map(|r| r.unwrap()[at.expect("counted")].to_string())
        .collect();
    for cells in [&shown, &written] {
        assert!(cells.len() > 10, "{cells:?}");
        assert!(cells.iter().any(|c| c == "yes"), "{cells:?}");
        assert!(cells.iter().any(|c| c == "no"), "{cells:?}");
        assert!(cells.iter().all(|c| c == "yes" || c == "no"), "{cells:?}");
    }
    let v = common::standings(d, &["cfr"]);
    let events = v["tables"]["events"].as_array().unwrap();
    assert!(
        events.iter().all(|r| r["counted"].is_boolean()),
        "{events:?}"
    );
}

#[test]
fn gen_and_bench_take_at_most_ten_million_events() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in ["gen", "bench"] {
        let (code, out, err) = run(dir.path(), &[cmd, "--events", "10000001"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            out.is_empty() && err.contains("10000001 is not in 0..=10000000"),
            "{err}"
        );
    }
}

/// `LAUREL_LEDGER` names the ledger when `--ledger` is not given; set but
/// empty (a script's way to unset it), it names none: `laurel.db` in the
/// working directory, as when unset.
#[test]
fn an_empty_laurel_ledger_is_unset_and_a_set_one_is_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let bare = |env: &str, args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("laurel")
            .unwrap()
            .current_dir(dir.path())
            .env("LAUREL_LEDGER", env)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = bare("", &["init"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(dir.path().join("laurel.db").join("HEAD").exists());
    let (code, err) = bare("elsewhere.db", &["init"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(dir.path().join("elsewhere.db").join("HEAD").exists());
    let (code, err) = bare("", &["head"]);
    assert_eq!(code, Some(0), "{err}");
}
