//! Corrections through the built binary: `void` of several seqs (all or
//! nothing), `correct` (the void and the replacement in one commit, or
//! neither), a replacement reusing the voided record's ids, the idempotency of
//! exact copies, voids of voids and of rule changes, and what `log` and
//! `history` show of a void. `verify` passes after every change.
//!
//! The card league (`events/cards_league.jsonl`, seqs 1-9): 1 creates the
//! tournament, 2-3 schedule rounds 1-2, 4-6 are round 1's matches A-C, 7-9
//! round 2's. Round 1 match A (seq 4): Ana 60, Boris -20, Cleo -40, one
//! positive score, so table 4,1,0: Ana 4, Boris 1, Cleo 0. Round 2: Ana wins
//! match A (+3), Boris shares first in match B (+3). So Ana 7, Boris 4.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use common::{head, laurel, ledger_with, row, standings};
use serde_json::{json, Value};

const LEAGUE: &str = "cards-2013-league";

/// Round 1 match A with Ana's and Boris's scores swapped, under the voided
/// record's own id and the same tournament, round and match.
const SWAPPED_R1A: &str = r#"{"type":"cards.match_result","id":"cards-league-r1-A","at":"2013-01-09T19:30:00Z","tournament":"cards-2013-league","round":"1","match":"A","scores":[{"player":"Ana","score":-20},{"player":"Boris","score":60},{"player":"Cleo","score":-40}]}"#;

fn run(dir: &Path, args: &[&str]) -> Output {
    laurel(dir).args(args).output().expect("ran")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Exit 2 with `want` in the message.
fn refused(dir: &Path, args: &[&str], want: &str) {
    let out = run(dir, args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
}

fn verified(dir: &Path) {
    assert!(ok(dir, &["verify"]).starts_with("ok: "));
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn league(dir: &Path) -> Value {
    standings(dir, &["cards", "--tournament", LEAGUE])
}

fn score(v: &Value, player: &str) -> Value {
    row(v, player)["score"].clone()
}

/// Every file laurel publishes or reads records from (`HEAD`, `index`,
/// `fps`, segments, checkpoints) with its bytes, and the export. sled's own
/// files are left out: its bookkeeping rewrites them even when an append
/// gives back everything it wrote, and readers never open them.
fn published(dir: &Path) -> (BTreeMap<String, Vec<u8>>, String) {
    let db = common::db_path(dir);
    let mut files = BTreeMap::new();
    for name in ["HEAD", "index", "fps"] {
        files.insert(name.to_string(), std::fs::read(db.join(name)).unwrap());
    }
    for sub in ["segments", "checkpoints"] {
        let Ok(entries) = std::fs::read_dir(db.join(sub)) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            let name = format!("{sub}/{}", p.file_name().unwrap().to_string_lossy());
            files.insert(name, std::fs::read(&p).unwrap());
        }
    }
    (files, ok(dir, &["export"]))
}

/// `void 4 7` is one append of two voids, and says which records went (by
/// type and id: a seq from another ledger's file names another record).
#[test]
fn void_takes_several_seqs_in_one_append() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let out = ok(d, &["void", "4", "7", "--reason", "wrong table"]);
    assert!(
        out.starts_with("voided records 4 (cards.match_result cards-league-r1-A) and 7 (cards.match_result cards-league-r2-A)\nappended 2 event(s)\n  2 ledger.voided\nhead 11 "),
        "{out}"
    );
    // Round 1 match A and round 2 match A are gone: Ana has no result left,
    // Boris keeps round 2 match B's +3.
    let v = league(d);
    assert_eq!(score(&v, "Boris"), json!(3));
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["player"] != "Ana"),
        "{v:#}"
    );
    // One append: both voids share one recorded_at.
    let export = ok(d, &["export"]);
    let recorded: Vec<Value> = export
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["recorded_at"].clone())
        .collect();
    assert_eq!(recorded[9], recorded[10]);
    verified(d);
}

/// A void that stored records depend on is refused naming every one of
/// them, directly or through another (a game's start: its allegiances,
/// takeover, end and ballots), with the command that voids them together,
/// which then succeeds: not one dependent per attempt.
#[test]
fn a_refused_void_names_every_record_that_depends_on_it_and_the_command() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let d = dir.path();
    let before = head(d);
    let all = "24 25 26 27 28 29 30 31 32 33 34";
    refused(
        d,
        &["void", "24", "--reason", "never played"],
        &format!(
            "in all, records 25, 26, 27, 28, 29, 30, 31, 32, 33 and 34 depend on what it \
             voids: `laurel void {all} --reason TEXT` voids them together"
        ),
    );
    assert_eq!(head(d), before);
    let mut args: Vec<&str> = vec!["void"];
    args.extend(all.split(' '));
    args.extend(["--reason", "never played"]);
    ok(d, &args);
    verified(d);
}

/// `correct` of a record others depend on cannot void them too (it takes
/// one seq): its refusal points at `void`, which names them all.
#[test]
fn a_refused_correct_points_at_void_for_the_records_that_depend_on_it() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let d = dir.path();
    let start = std::fs::read_to_string(common::events_dir().join("mepbm_valar.jsonl")).unwrap();
    let start = start.lines().nth(23).unwrap().replace("\"224\"", "\"225\"");
    let file = write(d, "start.jsonl", &format!("{start}\n"));
    let before = head(d);
    refused(
        d,
        &["correct", "24", &file, "--reason", "wrong game"],
        "; `laurel correct` replaces one record: `laurel void 24 --reason TEXT` names every \
         record that depends on it",
    );
    assert_eq!(head(d), before);
}

#[test]
fn a_void_with_one_bad_seq_writes_nothing() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let before = published(d);
    // 999 is no record: refused before anything is checked, and so is 5's.
    refused(
        d,
        &["void", "5", "999", "--reason", "x"],
        "void: there is no record 999: the ledger's records are 1 to 9 (`laurel log` lists them)",
    );
    // Named twice: its two voids would be one and the same event.
    refused(
        d,
        &["void", "5", "5", "--reason", "x"],
        "void: seq 5 is named twice; nothing is written",
    );
    // Seq 2 schedules round 1, whose results (4-6) depend on it.
    refused(
        d,
        &["void", "5", "2", "--reason", "x"],
        "round \"1\" is not scheduled",
    );
    assert_eq!(published(d), before);
    ok(d, &["void", "5", "--reason", "x"]);
    refused(
        d,
        &["void", "6", "5", "--reason", "x"],
        "record 5 is already voided, by record 10 (what replaced it, if anything did, \
         follows its void: `laurel log --from 10`)",
    );
    // Seq 10 is the void of 5: voids are final.
    refused(
        d,
        &["void", "10", "--reason", "x"],
        "record 10 is itself a void; voids cannot be voided",
    );
    assert_eq!(head(d).0, 10);
    verified(d);
}

#[test]
fn a_reason_is_required_printable_and_not_blank() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    assert_eq!(run(d, &["void", "4"]).status.code(), Some(2));
    assert_eq!(run(d, &["void", "--reason", "x"]).status.code(), Some(2));
    let fix = write(d, "fix.jsonl", SWAPPED_R1A);
    let blank = "laurel: error: --reason is empty or only whitespace: say why the record is voided; nothing is written\n";
    let newline = "laurel: error: --reason: holds the control character U+000A; names and text must be printable; nothing is written\n";
    let long = "x".repeat(4097);
    let too_long = "laurel: error: --reason is 4097 bytes, longer than the limit of 4096 (every event text's); nothing is written\n";
    for (reason, said) in [
        ("", blank),
        (" \t ", blank),
        ("a\nb", newline),
        (&long, too_long),
    ] {
        for args in [
            vec!["void", "4", "--reason", reason],
            vec!["correct", "4", &fix, "--reason", reason],
        ] {
            let out = run(d, &args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert_eq!(String::from_utf8_lossy(&out.stderr), said, "{args:?}");
        }
    }
    assert_eq!(head(d).0, 9);
}

#[test]
fn correct_voids_and_replaces_in_one_commit() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let file = write(d, "fix.jsonl", SWAPPED_R1A);
    let out = ok(d, &["correct", "4", &file, "--reason", "scores swapped"]);
    assert!(
        out.starts_with(
            "voided record 4 and appended its replacement\nappended 2 event(s)\n  1 cards.match_result\n  1 ledger.voided\nhead 11 "
        ),
        "{out}"
    );
    // Boris now wins round 1 match A: Ana 1 + 3 = 4, Boris 4 + 3 = 7.
    let v = league(d);
    assert_eq!((score(&v, "Ana"), score(&v, "Boris")), (json!(4), json!(7)));
    let export = ok(d, &["export"]);
    let rec: Vec<Value> = export
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Seq 10 voids 4, seq 11 is the replacement, written by one append.
    assert_eq!(rec[9]["event"]["target"], json!(4));
    assert_eq!(rec[10]["event"]["id"], json!("cards-league-r1-A"));
    assert_eq!(rec[9]["recorded_at"], rec[10]["recorded_at"]);
    verified(d);
}

#[test]
fn a_bad_replacement_leaves_the_ledger_byte_identical() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let before = published(d);
    // Zed is not scheduled in round 1 match A.
    let bad = write(d, "bad.jsonl", &SWAPPED_R1A.replace("Cleo", "Zed"));
    refused(d, &["correct", "4", &bad, "--reason", "typo"], "bad.jsonl:1, cards.match_result, id \"cards-league-r1-A\": tournament \"cards-2013-league\", round \"1\", match \"A\": player \"Zed\" is not scheduled");
    // A replacement that does not parse.
    let broken = write(d, "broken.jsonl", "{\"type\":\"cards.match_result\"");
    refused(
        d,
        &["correct", "4", &broken, "--reason", "typo"],
        "broken.jsonl:1",
    );
    // A target that is no record, refused before the replacement is judged:
    // the replacement alone is not written either.
    let fix = write(
        d,
        "fix.jsonl",
        &SWAPPED_R1A.replace("r1-A\"", "r1-A-fixed\""),
    );
    refused(
        d,
        &["correct", "99", &fix, "--reason", "typo"],
        "correct: there is no record 99: the ledger's records are 1 to",
    );
    assert_eq!(published(d), before);
    verified(d);
}

#[test]
fn a_replacement_that_adds_nothing_is_refused() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let before = published(d);
    let empty = write(d, "empty.jsonl", "");
    refused(
        d,
        &["correct", "4", &empty, "--reason", "x"],
        "empty.jsonl: no replacement for record 4: it holds no event; nothing is written",
    );
    // An exact copy of record 4 is already recorded: the void would stand
    // alone, with or without other events beside the copy.
    let text = std::fs::read_to_string(common::events_dir().join("cards_league.jsonl")).unwrap();
    let line4 = text.lines().nth(3).unwrap();
    let copy = write(d, "copy.jsonl", line4);
    let is_a_copy = "copy.jsonl:1: an exact copy of record 4, the record to correct";
    refused(d, &["correct", "4", &copy, "--reason", "x"], is_a_copy);
    let round = r#"{"type":"cards.round_scheduled","at":"2013-03-01","tournament":"cards-2013-league","round":"9","starts":"2013-03-01","ends":"2013-03-31","matches":[{"match":"A","players":["Ana","Boris","Cleo"]}]}"#;
    let copy = write(d, "copy.jsonl", &format!("{line4}\n{round}\n"));
    refused(d, &["correct", "4", &copy, "--reason", "x"], is_a_copy);
    assert_eq!(published(d), before);
    // Putting back what a correction replaced: an exact copy of the voided
    // record 4, named with its place, takes a new id.
    let fix = write(d, "fix.jsonl", SWAPPED_R1A);
    ok(d, &["correct", "4", &fix, "--reason", "scores swapped"]);
    let undo = write(d, "undo.jsonl", line4);
    let replaced = head(d).0.to_string();
    refused(
        d,
        &["correct", &replaced, &undo, "--reason", "they were right"],
        "undo.jsonl:1 of record 4: give the replacement a new id or other content)",
    );
}

/// A correction replaces a record with one of its kind: a file of another
/// type, or with an event of another system beside the right type, is
/// refused and nothing is written.
#[test]
fn a_replacement_of_another_kind_is_refused() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let before = published(d);
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2013-02-01","month":"2013-01"}"#;
    let other = write(d, "other.jsonl", tick);
    refused(
        d,
        &["correct", "4", &other, "--reason", "x"],
        "other.jsonl: not a replacement for record 4: it holds mepbm.monthly_tick (record 4 is a cards.match_result)",
    );
    let both = write(d, "both.jsonl", &format!("{SWAPPED_R1A}\n{tick}\n"));
    refused(
        d,
        &["correct", "4", &both, "--reason", "x"],
        "it holds mepbm.monthly_tick (record 4 is a cards.match_result)",
    );
    let round = r#"{"type":"cards.round_scheduled","at":"2013-03-01","tournament":"cards-2013-league","round":"9","starts":"2013-03-01","ends":"2013-03-31","matches":[{"match":"A","players":["Ana","Boris","Cleo"]}]}"#;
    let same_system = write(d, "round.jsonl", round);
    refused(
        d,
        &["correct", "4", &same_system, "--reason", "x"],
        "it holds no cards.match_result, the type of record 4",
    );
    assert_eq!(published(d), before);
}

#[test]
fn a_replacement_may_reuse_the_voided_records_ids() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let file = write(d, "fix.jsonl", SWAPPED_R1A);
    // While seq 4 is live, its id is taken.
    refused(d, &["append", &file], "id \"cards-league-r1-A\" is already recorded at seq 4 with different content: field scores[0].score is 60 there, -20 here (to replace that record: laurel correct 4 FILE --reason TEXT)");
    // Voided, it gives the id up, and its match (tournament, round, match) too.
    ok(d, &["void", "4", "--reason", "scores swapped"]);
    assert!(ok(d, &["append", &file]).starts_with("appended 1 event(s)\n"));
    let v = league(d);
    assert_eq!((score(&v, "Ana"), score(&v, "Boris")), (json!(4), json!(7)));
    verified(d);
}

#[test]
fn a_diplomacy_replacement_reuses_the_envelope_and_game_id() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let d = dir.path();
    // Seq 1, round 1, with England and France swapped.
    let all = std::fs::read_to_string(common::events_dir().join("diplomacy_draws.jsonl")).unwrap();
    let fixed = all
        .lines()
        .next()
        .unwrap()
        .replace("Bartholomew Okafor", "SWAP")
        .replace("Ines Carvalho", "Bartholomew Okafor")
        .replace("SWAP", "Ines Carvalho");
    assert!(fixed
        .contains(r#""id": "diplomacy-2024-r1", "at": "2024-03-09", "game": "diplomacy-2024-r1""#));
    let file = write(d, "fix.jsonl", &fixed);
    let per_game =
        |d: &Path| row(&standings(d, &["fibonacci"]), "Ines Carvalho")["per_game"].clone();
    // Base 0 over 7 ranks: 0, 1, 1, 2, 3, 5, 8 = 20. Ines was France (6
    // centers, third: 3/20) in round 1 and fifth (1/20) in round 2.
    assert_eq!(
        per_game(d),
        json!([
            {"game": "diplomacy-2024-r1", "score": 0.15},
            {"game": "diplomacy-2024-r2", "score": 0.05}
        ])
    );
    ok(
        d,
        &[
            "correct",
            "1",
            &file,
            "--reason",
            "England and France swapped",
        ],
    );
    // Now England (8 centers, second): 5/20.
    assert_eq!(
        per_game(d),
        json!([
            {"game": "diplomacy-2024-r1", "score": 0.25},
            {"game": "diplomacy-2024-r2", "score": 0.05}
        ])
    );
    verified(d);
}

#[test]
fn an_exact_copy_of_a_record_is_already_recorded_live_or_voided() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let league_file = common::events_dir().join("cards_league.jsonl");
    let league_file = league_file.to_str().unwrap();
    let out = ok(d, &["append", league_file]);
    assert!(
        out.starts_with("appended 0 event(s); 9 already recorded (nothing added for them)\n"),
        "{out}"
    );
    let fix = write(d, "fix.jsonl", SWAPPED_R1A);
    ok(d, &["correct", "4", &fix, "--reason", "scores swapped"]);
    // Re-importing the original file brings nothing back, not even the voided result.
    let out = ok(d, &["append", league_file]);
    assert!(out.starts_with("appended 0 event(s); 9 already recorded (nothing added for them); 1 of them exact copies of voided records\n"), "{out}");
    let named = format!(
        "not appended, copies of voided records, which stay voided: {league_file}:4 (#4); to \
         append one again, give it a new `id`\n"
    );
    assert!(out.contains(&named), "{out}");
    assert!(ok(d, &["append", &fix]).starts_with("appended 0 event(s); 1 already recorded"));
    // Other content under the id of the live replacement (seq 11) conflicts with it.
    let third = write(
        d,
        "third.jsonl",
        &SWAPPED_R1A.replace("-40", "-41").replace("60", "61"),
    );
    refused(
        d,
        &["append", &third],
        "already recorded at seq 11 with different content",
    );
    assert_eq!(head(d).0, 11);
    verified(d);
}

#[test]
fn voiding_a_rules_change_restores_the_rules_before_it() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let d = dir.path();
    let rules = write(
        d,
        "rules.jsonl",
        r#"{"type":"ledger.rules_changed","at":"2024-03-09T12:00:00Z","system":"fibonacci","params":{"base":1}}"#,
    );
    ok(d, &["append", &rules]);
    // Base 1 from round 2 on: 1, 1, 2, 3, 5, 8, 13 = 33, the top gets 13/33.
    let top = |v: &Value| {
        v["tables"]["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["game"] == "diplomacy-2024-r2")
            .map(|r| r["score"].clone())
            .next()
            .unwrap()
    };
    assert_eq!(top(&standings(d, &["fibonacci"])), json!(0.3939));
    ok(d, &["void", "3", "--reason", "base 1 was never adopted"]);
    // Base 0 again: 0, 1, 1, 2, 3, 5, 8 = 20, the top gets 8/20.
    assert_eq!(top(&standings(d, &["fibonacci"])), json!(0.4));
    verified(d);
}

#[test]
fn log_shows_each_voids_target_and_reason() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let fix = write(d, "fix.jsonl", SWAPPED_R1A);
    ok(d, &["correct", "4", &fix, "--reason", "scores \"swapped\""]);
    let log = ok(d, &["log"]);
    let line = |seq: u64| {
        log.lines()
            .find(|l| l.trim_start().starts_with(&format!("{seq} ")))
            .unwrap_or_else(|| panic!("no line {seq} in\n{log}"))
            .to_string()
    };
    assert!(line(10).contains("ledger.voided  "), "{log}");
    assert!(
        line(10).ends_with(
            r#"  #4 (cards.match_result cards-league-r1-A): reason "scores \"swapped\"""#
        ),
        "{log}"
    );
    assert!(line(4).ends_with("voided by #10"), "{log}");
    assert!(!line(11).contains("voided by"), "{log}");
    // A void dated now keeps the columns of the records dated by day.
    let column = |seq: u64| line(seq).find("  cards.").or(line(seq).find("  ledger."));
    assert_eq!(column(10), column(4), "{log}");
    // A registration, a rename and a rule change say what they say.
    let more = [
        r#"{"type":"ledger.player_registered","at":"2013-12-01","player":"Zed Nova"}"#,
        r#"{"type":"ledger.player_renamed","at":"2013-12-02","from":"Zed Nova","to":"Zed Nov"}"#,
        r#"{"type":"ledger.rules_changed","at":"2013-12-03","system":"cards","params":{"score_clamp":40}}"#,
    ];
    let file = write(d, "more.jsonl", &(more.join("\n") + "\n"));
    ok(d, &["append", &file]);
    let log = ok(d, &["log"]);
    let tail: Vec<&str> = log.lines().rev().take(3).collect();
    assert!(tail[2].ends_with(r#"  "Zed Nova""#), "{log}");
    assert!(tail[1].ends_with(r#"  "Zed Nova" → "Zed Nov""#), "{log}");
    assert!(tail[0].ends_with(r#"  cards {"score_clamp":40}"#), "{log}");
    verified(d);
}

/// `history PLAYER`'s rows as (seq, new value, voided note), with `clocks`
/// (`--as-of`, `--known-at`) added.
fn history_rows(d: &Path, player: &str, clocks: &[&str]) -> Vec<(Value, Value, Value)> {
    let args = [&["history", player, "--format", "json"], clocks].concat();
    let h = common::json(d, &args);
    h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["seq"].clone(), r["new"].clone(), r["voided"].clone()))
        .collect()
}

/// A history row of a voided record: its seq, the value it gave, and the
/// note naming void `by` and its reason.
fn voided_row(seq: u64, new: &str, by: u64, reason: &str) -> (Value, Value, Value) {
    let note = format!("voided by #{by}: reason \"{reason}\"");
    (json!(seq), json!(new), json!(note))
}

#[test]
fn history_shows_the_reason_beside_the_change_it_undid() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let fix = write(d, "fix.jsonl", SWAPPED_R1A);
    ok(d, &["correct", "4", &fix, "--reason", "scores swapped"]);
    let rows = history_rows(d, "Boris", &[]);
    // Seq 4 gave Boris 1 and was voided; its replacement (11) gives him 4,
    // round 2 match B (8) 3 more: 7.
    assert_eq!(
        rows,
        vec![
            voided_row(4, "1", 10, "scores swapped"),
            (json!(11), json!("4"), Value::Null),
            (json!(8), json!("7"), Value::Null),
        ]
    );
    let text = ok(d, &["history", "Boris"]);
    assert!(
        text.contains("voided by #10: reason \"scores swapped\""),
        "{text}"
    );
}

/// A voided rule change made no change itself, but every later value of
/// its system was computed under it while it stood: those rows are listed
/// beside the live ones, noted, where they differ.
#[test]
fn history_shows_the_values_a_voided_rule_change_computed() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let d = dir.path();
    let rule = r#"{"type":"ledger.rules_changed","at":"2003-01-01","system":"valar","params":{"base":60}}"#;
    let rule = write(d, "rule.jsonl", &format!("{rule}\n"));
    ok(d, &["append", &rule]);
    let (ruled, _) = head(d);
    ok(
        d,
        &["void", &ruled.to_string(), "--reason", "vote not passed"],
    );
    let rows = history_rows(d, "Ivy Jones", &["--system", "valar"]);
    let note = format!(
        "computed under the rule change #{ruled}, voided by #{}: reason \"vote not passed\"",
        ruled + 1
    );
    let under: Vec<_> = rows.iter().filter(|r| r.2 == json!(note)).collect();
    assert!(!under.is_empty(), "{rows:?}");
    for (seq, new, _) in under {
        let live = rows.iter().find(|r| r.0 == *seq && r.2.is_null());
        assert!(live.is_some_and(|l| l.1 != *new), "{seq}: {rows:?}");
    }
}

#[test]
fn history_shows_every_voided_change_up_to_the_latest_voided_record() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    // Boris plays round 1 match A (seq 4: +1) and round 2 match B (seq 8:
    // +3). Both voided in one append: voids #10 and #11.
    ok(d, &["void", "4", "8", "--reason", "wrong table"]);
    let rows = history_rows(d, "Boris", &[]);
    // Folded as if not voided: 1 after seq 4, 1 + 3 = 4 after seq 8.
    assert_eq!(
        rows,
        vec![
            voided_row(4, "1", 10, "wrong table"),
            voided_row(8, "4", 11, "wrong table"),
        ]
    );
}

#[test]
fn history_shows_what_each_record_of_a_chain_of_corrections_changed() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    // Seq 4 (Boris 1) corrected by #10 into #11 (Boris 4), itself corrected
    // by #12 into #13: Cleo 60, Ana -20, Boris -40, so Boris 0, then 3
    // after round 2 match B (seq 8). Each voided record shows what it
    // changed while it stood, though #11 and #4 result the same match.
    let fix = write(d, "fix.jsonl", SWAPPED_R1A);
    ok(d, &["correct", "4", &fix, "--reason", "scores swapped"]);
    let third = SWAPPED_R1A
        .replace(r#""Ana","score":-20"#, r#""Ana","score":X"#)
        .replace(r#""Boris","score":60"#, r#""Boris","score":-40"#)
        .replace(r#""Cleo","score":-40"#, r#""Cleo","score":60"#)
        .replace("X", "-20");
    let fix = write(d, "third.jsonl", &third);
    ok(d, &["correct", "11", &fix, "--reason", "still wrong"]);
    let live = |seq: u64, new: &str| (json!(seq), json!(new), Value::Null);
    let chain = vec![
        voided_row(4, "1", 10, "scores swapped"),
        voided_row(11, "4", 12, "still wrong"),
        live(13, "0"),
        live(8, "3"),
    ];
    assert_eq!(history_rows(d, "Boris", &[]), chain);
    // Known at 12, #13 is not recorded yet: the match has no result.
    assert_eq!(
        history_rows(d, "Boris", &["--known-at", "12"]),
        vec![
            chain[0].clone(),
            chain[1].clone(),
            (json!(8), json!("3"), Value::Null)
        ]
    );
    verified(d);
}

#[test]
fn history_shows_a_voided_record_whose_replacement_came_before_its_void_in_one_append() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    // One append: the replacement of round 1 match A (seq 10, under an id
    // of its own), then the void of seq 4 (#11). Seq 4 stood until that
    // append: Boris 1, as it showed then.
    let fix = SWAPPED_R1A.replace("cards-league-r1-A", "cards-league-r1-A-fixed");
    let void = r#"{"type":"ledger.voided","at":"2013-03-01","target":4,"reason":"scores swapped"}"#;
    common::append_ok(d, &format!("{fix}\n{void}\n"));
    assert_eq!(
        history_rows(d, "Boris", &[])[0],
        voided_row(4, "1", 11, "scores swapped")
    );
}

/// A points race at `day` of February 2010 in series `s`: `first` wins,
/// `second` is 2nd.
fn race(day: u32, first: &str, second: &str) -> String {
    format!(
        r#"{{"type":"cfr.event_completed","at":"2010-02-{day:02}","series":"s","event":"e{day}","races":[{{"tier":1,"results":[{{"driver":"{first}","place":1}},{{"driver":"{second}","place":2}}]}}]}}"#
    )
}

#[test]
fn history_shows_a_voided_record_that_changed_a_player_it_does_not_name() {
    let dir = common::empty_ledger();
    let d = dir.path();
    // Four events of one series (3 counted): the 4th (seq 5) pushes the
    // 1st, Bobby's only one, out of the window without naming him.
    let series =
        r#"{"type":"cfr.series_defined","at":"2010-01-01","series":"s","format":"points"}"#;
    let events = [
        race(1, "Alice Able", "Bobby Brown"),
        race(2, "Alice Able", "Carol Cole"),
        race(3, "Alice Able", "Carol Cole"),
        race(4, "Alice Able", "Carol Cole"),
    ];
    common::append_ok(d, &format!("{series}\n{}\n", events.join("\n")));
    ok(d, &["void", "5", "--reason", "never raced"]);
    let rows = history_rows(d, "Bobby Brown", &[]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(
        (rows[1].0.clone(), rows[1].2.clone()),
        (json!(5), json!("voided by #6: reason \"never raced\""))
    );
}

#[test]
fn history_of_a_name_only_voided_records_hold_shows_what_they_changed() {
    let dir = common::empty_ledger();
    let d = dir.path();
    // A seed under a mistyped name, voided: no player bears the name now,
    // yet its history shows the voided change.
    common::append_ok(
        d,
        r#"{"type":"mepbm.rating_seeded","at":"2003-01-05","player":"Zed Zulu","system":"valar","value":1600}"#,
    );
    ok(d, &["void", "1", "--reason", "typo"]);
    assert_eq!(
        history_rows(d, "Zed Zulu", &[]),
        vec![voided_row(1, "1600", 2, "typo")]
    );
}

#[test]
fn history_shows_voided_records_that_share_the_latest_voided_at() {
    let dir = common::empty_ledger();
    let d = dir.path();
    // Ann seeded in valar (seq 1) and in maia (seq 2) at the same instant,
    // both voided (#3, #4): the voided fold stops after that instant, not
    // after the first record at it.
    let seed = |system: &str, value: u32| {
        format!(
            r#"{{"type":"mepbm.rating_seeded","at":"2003-01-05","player":"Ann","system":"{system}","value":{value}}}"#
        )
    };
    common::append_ok(
        d,
        &format!("{}\n{}\n", seed("valar", 1600), seed("maia", 1550)),
    );
    ok(d, &["void", "1", "2", "--reason", "wrong import"]);
    assert_eq!(
        history_rows(d, "Ann", &[]),
        vec![
            voided_row(1, "1600", 3, "wrong import"),
            voided_row(2, "1550", 4, "wrong import"),
        ]
    );
}

#[test]
fn history_known_at_a_seq_shows_only_the_voids_recorded_by_then() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    // Round 2 match B (seq 8: Boris +3, from 1 to 4) voided by #10.
    ok(d, &["void", "8", "--reason", "wrong table"]);
    let live = |seq: u64, new: &str| (json!(seq), json!(new), Value::Null);
    // Known at 9: the void is not recorded yet, seq 8 stands.
    assert_eq!(
        history_rows(d, "Boris", &["--known-at", "9"]),
        vec![live(4, "1"), live(8, "4")]
    );
    // Known at 10: the void is in, seq 8's change is shown voided.
    assert_eq!(
        history_rows(d, "Boris", &["--known-at", "10"]),
        vec![live(4, "1"), voided_row(8, "4", 10, "wrong table")]
    );
}

#[test]
fn a_replacement_others_depend_on_needs_an_earlier_at() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let before = published(d);
    // Seq 1 creates the tournament on 2012-12-20, the day seqs 2-3 schedule
    // its rounds: a replacement at that `at` folds after them (seq 11 > 2).
    let created = r#"{"type": "cards.tournament_created", "id": "cards-league-created", "at": "AT", "tournament": "cards-2013-league", "point_system": 1, "starts": "2013-01-01", "ends": "2013-12-30"}"#;
    let same = write(d, "same.jsonl", &created.replace("AT", "2012-12-20"));
    refused(
        d,
        &["correct", "1", &same, "--reason", "ends a day early"],
        "give them an `at` before record 2's (events at the same `at` fold in seq order)",
    );
    assert_eq!(published(d), before);
    let earlier = write(d, "earlier.jsonl", &created.replace("AT", "2012-12-19"));
    ok(
        d,
        &["correct", "1", &earlier, "--reason", "ends a day early"],
    );
    assert_eq!(head(d).0, 11);
    verified(d);
}
