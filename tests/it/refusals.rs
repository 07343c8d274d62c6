//! What one run says of input with several mistakes: every event refused
//! as it is read, in input and line order (up to 20, then that there are
//! more), with nothing written; and a line given twice in one input, which
//! is counted once and said to be a repeat, not "already recorded".

use crate::common;

use common::{append_refused, append_text, empty_ledger, events_dir, head, laurel};

/// The bundled card league with three lines spoiled: an unknown field on
/// line 1, a time in words on line 3, a type misspelt on line 5.
fn spoiled_league() -> String {
    let text = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[0] = lines[0].replace("\"point_system\"", "\"pointsystem\"");
    lines[2] = lines[2].replacen("\"2012-12-20\"", "\"2012-12-20 19:00 GMT\"", 1);
    lines[4] = lines[4].replacen("\"type\": \"cards.", "\"type\": \"card.", 1);
    lines.join("\n") + "\n"
}

#[test]
fn one_run_names_every_refused_line_in_line_order() {
    let dir = empty_ledger();
    append_refused(
        dir.path(),
        &spoiled_league(),
        &[
            "3 events refused:",
            "players' names, are checked once every event reads",
        ],
    );
    let err = String::from_utf8(append_text(dir.path(), &spoiled_league()).stderr).unwrap();
    let places: Vec<&str> = (err.lines().skip(1))
        .filter_map(|l| l.trim_start().split(',').next())
        .filter(|p| p.starts_with("-:"))
        .collect();
    assert_eq!(places, ["-:1", "-:3", "-:5"], "{err}");
    assert!(err.contains("did you mean `point_system`?"), "{err}");
    assert!(err.contains("2012-12-20T19:00:00Z in UTC"), "{err}");
    assert!(
        err.contains("did you mean \"cards.match_result\"?"),
        "{err}"
    );
}

#[test]
fn twenty_refusals_are_named_then_that_more_follow() {
    let dir = empty_ledger();
    let text = "{\"type\":\"x\"}\n".repeat(25);
    append_refused(
        dir.path(),
        &text,
        &[
            "20 events refused, then the reading stopped before the end of the input",
            "-:20:",
        ],
    );
    let err = String::from_utf8(append_text(dir.path(), &text).stderr).unwrap();
    assert!(!err.contains("-:21:"), "{err}");
}

#[test]
fn one_refused_line_reads_as_it_always_did() {
    let dir = empty_ledger();
    let text = "{\"type\":\"x\"}\n";
    let err = String::from_utf8(append_text(dir.path(), text).stderr).unwrap();
    assert!(
        err.starts_with("laurel: error: -:1: unknown event type"),
        "{err}"
    );
    assert!(!err.contains("refused"), "{err}");
}

#[test]
fn a_line_given_twice_in_one_input_is_a_repeat_counted_once() {
    let dir = empty_ledger();
    let text = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    let last = text.lines().last().unwrap();
    let file = dir.path().join("twice.jsonl");
    std::fs::write(&file, format!("{text}{last}\n")).unwrap();
    let out = laurel(dir.path())
        .args(["append", file.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8(out.stdout).unwrap();
    let n = text.lines().count();
    assert!(
        said.starts_with(&format!(
            "appended {n} event(s); 1 given twice in the input, counted once \
             (line {} repeats line {n} of {})",
            n + 1,
            file.display()
        )),
        "{said}"
    );
    assert!(!said.contains("already recorded"), "{said}");
    assert_eq!(head(dir.path()).0, n as u64);
    // From standard input, named so.
    let again = format!("{last}\n{last}\n").replacen("\"Cleo\"", "\"Cleo\"", 1);
    let dir = empty_ledger();
    let said =
        String::from_utf8(append_text(dir.path(), &format!("{text}{again}")).stdout).unwrap();
    assert!(
        said.contains(&format!(
            "2 given twice in the input, counted once (line {} repeats line {n} of standard input)",
            n + 1
        )),
        "{said}"
    );
}

/// Past the first 1,024 events (whose payloads the reading decodes whole
/// as it goes) the lines after a refused one are decoded whole too: a field
/// misspelt on line 1300 is named beside the types broken on 1250 and 1400.
#[test]
fn refusals_past_the_first_thousand_lines_name_fields_too() {
    let dir = empty_ledger();
    let out = laurel(dir.path())
        .args(["gen", "--events", "1500", "--seed", "3"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let field = (1200..1400)
        .find(|&i| lines[i].contains("\"at\":"))
        .unwrap();
    lines[field] = lines[field].replacen("\"at\":", "\"att\":", 1);
    for i in [1249, 1399] {
        lines[i] = lines[i].replacen("\"type\":\"", "\"type\":\"x", 1);
    }
    let err = String::from_utf8(append_text(dir.path(), &lines.join("\n")).stderr).unwrap();
    let named: Vec<String> = [1250, field + 1, 1400]
        .iter()
        .map(|l| format!("-:{l}"))
        .collect();
    assert!(err.starts_with("laurel: error: 3 events refused:"), "{err}");
    for n in &named {
        assert!(err.contains(&format!("\n  {n}")), "{n}: {err}");
    }
}

/// An id taken with other content before the first refused line is the
/// refusal (the writer meets it before the reading ends); a problem of the
/// input itself, which ends the reading, says so among others.
#[test]
fn an_id_conflict_comes_first_and_an_input_problem_ends_the_reading() {
    let dir = empty_ledger();
    let text = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    common::append_ok(dir.path(), &text);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[0] = lines[0].replacen("\"2013-12-31\"", "\"2013-12-30\"", 1);
    lines[4] = lines[4].replacen("\"type\": \"cards.", "\"type\": \"card.", 1);
    let err = String::from_utf8(append_text(dir.path(), &lines.join("\n")).stderr).unwrap();
    assert!(
        err.starts_with("laurel: error: -:1, cards.tournament_created"),
        "{err}"
    );
    assert!(
        err.contains("is already recorded at seq 1 with different content"),
        "{err}"
    );
    assert!(!err.contains("-:5"), "{err}");
    let long = format!("{{\"x\":\"{}\"}}", "a".repeat(70_000));
    let text = format!("{{\"type\":\"x\"}}\n{long}\n{{\"type\":\"y\"}}\n");
    let err = String::from_utf8(append_text(dir.path(), &text).stderr).unwrap();
    assert!(err.starts_with("laurel: error: 2 events refused:"), "{err}");
    assert!(err.contains("-:2: line is longer than the limit"), "{err}");
    assert!(err.contains("; the reading stopped there"), "{err}");
}

/// Two voids of one record in one input: the second is refused as voided
/// by another void of this append (not by a record the ledger lacks).
#[test]
fn a_record_voided_twice_in_one_input_says_so() {
    let dir = empty_ledger();
    let text = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    common::append_ok(dir.path(), &text);
    let void = |why: &str| {
        format!(r#"{{"type":"ledger.voided","at":"2014-01-01","target":9,"reason":"{why}"}}"#)
    };
    append_refused(
        dir.path(),
        &format!("{}\n{}\n", void("a"), void("b")),
        &["-:2, ledger.voided: record 9 is already voided, by another void of this append"],
    );
}

/// The reading goes at most 10,000 lines past the first refused one: a large
/// import refused early says so soon, not after reading it all.
#[test]
fn the_reading_stops_ten_thousand_lines_after_the_first_refusal() {
    let dir = empty_ledger();
    let tick = "{\"type\":\"mepbm.monthly_tick\",\"at\":\"2003-01-01\",\"month\":\"2003-01\"}\n";
    let text = "{\"type\":\"x\"}\n".to_string() + &tick.repeat(12_000);
    let err =
        String::from_utf8(append_text(dir.path(), &(text + "{\"type\":\"y\"}\n")).stderr).unwrap();
    assert!(
        err.starts_with(
            "laurel: error: 1 event refused, then the reading stopped before the end of the input"
        ),
        "{err}"
    );
    assert!(!err.contains("-:12002"), "{err}");
}

/// Two Diplomacy games of the bundled draws' players, numbered `n` and
/// `n + 1`, with the names `spell` gives.
fn two_games(n: u32, spell: &dyn Fn(&str) -> String) -> String {
    let text = std::fs::read_to_string(events_dir().join("diplomacy_draws.jsonl")).unwrap();
    let game = text.lines().nth(1).unwrap();
    (0..2)
        .map(|i| {
            let day = format!("2024-04-{:02}", n + i);
            let g = game.replace("2024-r2", &format!("2024-g{}", n + i));
            spell(&g.replace("2024-03-10", &day))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn one_run_names_every_misspelt_player_in_line_order() {
    let dir = empty_ledger();
    let draws = std::fs::read_to_string(events_dir().join("diplomacy_draws.jsonl")).unwrap();
    common::append_ok(dir.path(), &draws);
    let typos = two_games(1, &|g: &str| {
        g.replacen("Dmitri Volkov", "Dmitri Volkof", 1)
            .replacen("Priya Raman", "Priya Ramen", 1)
    });
    // A third typo, on the second line.
    let lines: Vec<&str> = typos.lines().collect();
    let text = format!(
        "{}\n{}",
        lines[0],
        lines[1].replace("Oskar Wendt", "Oskar Wendy")
    );
    append_refused(
        dir.path(),
        &text,
        &[
            "3 names refused:\n",
            "-:1, diplomacy.game_ended, id \"diplomacy-2024-g1\": new player \"Dmitri Volkof\" \
             looks like a typo of the known player «Dmitri Volkov»",
            "-:1, diplomacy.game_ended, id \"diplomacy-2024-g1\": new player \"Priya Ramen\"",
            "-:2, diplomacy.game_ended, id \"diplomacy-2024-g2\": new player \"Oskar Wendy\"",
        ],
    );
    let err = String::from_utf8(append_text(dir.path(), &text).stderr).unwrap();
    assert!(!err.contains("once every event reads"), "{err}");
    // One name: the one refusal, as before.
    let one = two_games(10, &|g: &str| g.replace("Oskar Wendt", "Oskar Wendy"));
    let err = String::from_utf8(append_text(dir.path(), &one).stderr).unwrap();
    assert!(
        err.starts_with("laurel: error: -:1, diplomacy.game_ended"),
        "{err}"
    );
}

/// The bundled card league up to round 2's results, and round 2's three
/// results (lines 7 to 9 of the file).
fn league_before_round_2() -> (tempfile::TempDir, Vec<String>) {
    let text = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let dir = empty_ledger();
    common::append_ok(dir.path(), &(lines[..6].join("\n") + "\n"));
    (dir, lines[6..].to_vec())
}

/// The ledger's rules name every event they refuse in one run, in line
/// order (though the second line is dated first), each checked as if the
/// refused ones were not there; nothing is written.
#[test]
fn one_run_names_every_event_the_ledgers_rules_refuse_in_line_order() {
    let (dir, round_2) = league_before_round_2();
    let before = head(dir.path());
    let unknown_match = round_2[1].replace("\"match\": \"B\"", "\"match\": \"Z\"");
    let wrong_player = round_2[0].replace("\"Dario\"", "\"Boris\"");
    let text = format!("{unknown_match}\n{wrong_player}\n{}\n", round_2[2]);
    append_refused(
        dir.path(),
        &text,
        &[
            "2 events refused:\n  -:1, cards.match_result, id \"cards-league-r2-B\": ",
            "\n  -:2, cards.match_result, id \"cards-league-r2-A\": ",
            "\n(each event is checked as if those refused before it in time were not there",
        ],
    );
    assert_eq!(head(dir.path()), before);
    // One refusal reads as it always did.
    let err = String::from_utf8(append_text(dir.path(), &format!("{wrong_player}\n")).stderr);
    let err = err.unwrap();
    assert!(
        err.starts_with("laurel: error: -:1, cards.match_result, id \"cards-league-r2-A\""),
        "{err}"
    );
}

#[test]
fn twenty_refusals_of_the_ledgers_rules_are_named_then_that_the_check_stopped() {
    let (dir, round_2) = league_before_round_2();
    let text: String = (0..25)
        .map(|i| {
            let id = format!("\"id\": \"bad-{i}\"");
            let line = round_2[0].replace("\"id\": \"cards-league-r2-A\"", &id);
            line.replace("\"match\": \"A\"", &format!("\"match\": \"Z{i}\"")) + "\n"
        })
        .collect();
    append_refused(
        dir.path(),
        &text,
        &["20 events refused, then the check stopped", "-:20, "],
    );
    let err = String::from_utf8(append_text(dir.path(), &text).stderr).unwrap();
    assert!(!err.contains("-:21, "), "{err}");
}

/// A refused rename is left out of the check: the result after it that
/// names the old name is no refusal of its own.
#[test]
fn a_refused_rename_is_not_applied_to_the_events_after_it() {
    let (dir, round_2) = league_before_round_2();
    let rename = r#"{"type":"ledger.player_renamed","at":"2013-02-01","from":"Ana","to":"Ana Berg","reason":"  "}"#;
    let err =
        String::from_utf8(append_text(dir.path(), &format!("{rename}\n{}\n", round_2[0])).stderr);
    let err = err.unwrap();
    assert!(
        err.starts_with("laurel: error: -:1, ledger.player_renamed: field `reason`: empty"),
        "{err}"
    );
    assert!(!err.contains("-:2"), "{err}");
}

/// Refusals of every worker are named, the first in time among them,
/// whichever worker stops first: a card result dated first, then more
/// Middle-earth refusals than are shown.
#[test]
fn the_first_refusal_is_named_whichever_worker_stops_first() {
    let (dir, round_2) = league_before_round_2();
    let cards = round_2[0].replace("\"round\": \"2\"", "\"round\": \"9\"");
    let ends: String = (0..25)
        .map(|i| {
            format!(
                "{{\"type\":\"mepbm.game_ended\",\"at\":\"2013-03-01\",\"game\":\"g{i}\",\"turn\":20,\
                 \"winner\":\"FP\",\"nations\":[{{\"nation\":\"Woodmen\",\"victory_points\":400,\
                 \"eliminated\":false}}]}}\n"
            )
        })
        .collect();
    for _ in 0..3 {
        let out = append_text(dir.path(), &format!("{cards}\n{ends}"));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("\n  -:1, cards.match_result"), "{err}");
        assert!(
            err.contains("20 events refused, then the check stopped"),
            "{err}"
        );
    }
}

/// A rule change dated back that breaks stored records is one refusal
/// (the first record it breaks), not one a broken record.
#[test]
fn a_rule_change_dated_back_breaking_stored_records_is_one_refusal() {
    let dir = common::bundled();
    let rules = r#"{"type":"ledger.rules_changed","at":"2010-01-01","system":"sbr","params":{"games_per_match":1},"reason":"t"}"#;
    let err = String::from_utf8(append_text(dir.path(), rules).stderr).unwrap();
    assert!(
        err.starts_with("laurel: error: -: this append is refused because record "),
        "{err}"
    );
    assert!(!err.contains("refused:\n"), "{err}");
}

/// A record is checked against what folds before it, so a refusal of a
/// recorded record blames this append's void only when the voided record
/// folds before it, and advises dating the new events earlier only when one
/// is dated at or after it.
#[test]
fn a_refusal_of_a_recorded_record_blames_what_can_have_caused_it() {
    let dir = common::ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    let text = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    let round_1 = text
        .lines()
        .nth(1)
        .unwrap()
        .replace("\"Cleo\"", "\"Zed Zulu\"");
    let correct = |line: &str| {
        let file = d.join("fix.jsonl");
        std::fs::write(&file, format!("{line}\n")).unwrap();
        let args = ["correct", "2", file.to_str().unwrap(), "--reason", "who"];
        let o = laurel(d).args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        String::from_utf8(o.stderr).unwrap()
    };
    let earlier = "give them an `at` before record 4's";
    // Dated as the round it replaces, before the result it no longer fits.
    let err = correct(&round_1);
    assert!(
        err.contains("voiding record 2 is refused: record 4"),
        "{err}"
    );
    assert!(!err.contains(earlier), "{err}");
    // Dated after the result: dating it earlier is the way.
    let err = correct(&round_1.replace("\"at\": \"2012-12-20\"", "\"at\": \"2013-01-10\""));
    assert!(err.contains(earlier), "{err}");

    // A rename dated after the record naming the old name, corrected to a
    // date before it: the void folds after that record; the cause is the
    // replacement.
    let dir = empty_ledger();
    let d = dir.path();
    let rename = |at: &str| {
        format!(
            r#"{{"type":"ledger.player_renamed","at":"{at}","from":"Ann Jones","to":"Ann Smith"}}"#
        )
    };
    let seeded = r#"{"type":"mepbm.rating_seeded","at":"2003-01-01","player":"Ann Jones","system":"valar","value":1500}"#;
    for line in [seeded.to_string(), rename("2003-03-01")] {
        assert!(append_text(d, &line).status.success());
    }
    let file = d.join("rename.jsonl");
    std::fs::write(&file, rename("2002-12-01")).unwrap();
    let args = ["correct", "2", file.to_str().unwrap(), "--reason", "date"];
    let err = String::from_utf8(laurel(d).args(args).output().unwrap().stderr).unwrap();
    assert!(
        err.contains("this append is refused because record 1"),
        "{err}"
    );
    assert!(
        err.contains("the cause is one of this append's records dated before 2003-01-01"),
        "{err}"
    );
    assert!(!err.contains("voiding record 2 is refused"), "{err}");
    // Nor is `laurel void` the way: nothing depends on the rename.
    assert!(
        !err.contains("`laurel correct` replaces one record"),
        "{err}"
    );
    // A void dated back is no cause either: the rename is named.
    let void = r#"{"type":"ledger.voided","at":"2002-01-01","target":2,"reason":"date"}"#;
    let o = append_text(d, &format!("{void}\n{}\n", rename("2002-12-01")));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("the first is -:2, ledger.player_renamed"),
        "{err}"
    );
}

/// One game's result in two files of an import, the second dated later
/// and without the first's id: the later one is refused, named by its
/// file and line, and the message says where the other is.
#[test]
fn a_second_result_in_one_import_names_the_file_and_line_of_the_first() {
    let dir = empty_ledger();
    let text = std::fs::read_to_string(events_dir().join("diplomacy_draws.jsonl")).unwrap();
    let mut game: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    game.as_object_mut().unwrap().remove("id");
    let input = tempfile::tempdir().unwrap();
    std::fs::write(input.path().join("a.jsonl"), format!("{game}\n")).unwrap();
    game["at"] = "2024-05-01".into();
    let registered = r#"{"type":"ledger.player_registered","at":"2020-01-01","player":"Zed"}"#;
    std::fs::write(
        input.path().join("b.jsonl"),
        format!("{registered}\n{game}\n"),
    )
    .unwrap();
    let before = head(dir.path());
    let out = laurel(dir.path())
        .arg("import")
        .arg(input.path())
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    let a = input.path().join("a.jsonl").display().to_string();
    let b = input.path().join("b.jsonl").display().to_string();
    assert!(
        err.contains(&format!("{b}:2, diplomacy.game_ended")),
        "{err}"
    );
    assert!(
        err.contains(&format!("a game is recorded once (the other: {a}:1)")),
        "{err}"
    );
    assert_eq!(head(dir.path()), before);
}
