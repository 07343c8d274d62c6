//! Names, through the binary: `laurel players rename` appends a
//! `ledger.player_renamed` that the append's checks judge; a new name close to
//! another player's is refused with the way through, `--distinct` (the rename's
//! `"distinct": true`), which lets it in unless it looks exactly like that name;
//! names of every script are near when their capitals are ("ИВАН" and "Иван",
//! "Strauß" and "Strauss"), and look alike when their confusables skeletons
//! are (a Greek "Ι" for an "I", a Roman numeral "ⅿ" for an "m"); a correction
//! names as new only the players its replacement brings.

use crate::common;

use common::{append_text, empty_ledger, exported_events, head, json, run};
use std::path::Path;

/// A ledger with "Joan Smith" and "Jon Smith" registered (one edit apart: the
/// second is accepted because it is registered).
fn smiths() -> tempfile::TempDir {
    let dir = empty_ledger();
    for (name, at) in [("Joan Smith", "2020-01-01"), ("Jon Smith", "2020-01-02")] {
        let (code, _, err) = run(dir.path(), &["players", "add", name, "--at", at]);
        assert_eq!(code, 0, "{err}");
    }
    dir
}

/// The players list's row of `name`.
fn player(dir: &Path, name: &str) -> serde_json::Value {
    let v = json(dir, &["players", "--format", "json"]);
    let rows = v["rows"].as_array().expect("rows").clone();
    (rows.into_iter())
        .find(|r| r["player"] == name)
        .unwrap_or_else(|| panic!("no row of {name} in {v}"))
}

#[test]
fn a_rename_close_to_another_players_name_is_refused_then_accepted_when_said_distinct() {
    let dir = smiths();
    let d = dir.path();
    let before = head(d);
    let rename = [
        "players",
        "rename",
        "Jon Smith",
        "John Smith",
        "--at",
        "2020-02-01",
    ];
    let (code, _, err) = run(d, &rename);
    assert_eq!(code, 2, "{err}");
    for said in [
        "a rename to \"John Smith\" is refused: it looks like the name of another player, «Joan Smith»",
        "add \"distinct\": true to the rename",
        "`laurel players rename FROM TO --distinct`",
    ] {
        assert!(err.contains(said), "{said} in {err}");
    }
    assert_eq!(head(d), before, "nothing appended");

    let (code, out, err) = run(d, &[&rename[..], &["--distinct"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 event"), "{out}");
    let row = player(d, "John Smith");
    assert_eq!(
        row["earlier_names"],
        serde_json::json!(["Jon Smith"]),
        "{row}"
    );
    let events = exported_events(d);
    let rename = r#"{"at":"2020-02-01","distinct":true,"from":"Jon Smith","to":"John Smith","type":"ledger.player_renamed"}"#;
    assert_eq!(events.last().map(String::as_str), Some(rename));
}

#[test]
fn a_distinct_rename_to_a_look_alike_of_another_players_name_is_still_refused() {
    let dir = smiths();
    let d = dir.path();
    let before = head(d);
    // A Cyrillic "а" for the Latin "a": no table could tell the two apart.
    let look_alike = "Jo\u{430}n Smith";
    let args = ["players", "rename", "Jon Smith", look_alike, "--distinct"];
    let (code, _, err) = run(d, &args);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("looks exactly like the known player «Joan Smith»")
            && err.contains("or a rename saying \"distinct\""),
        "{err}"
    );
    assert_eq!(head(d), before);
}

#[test]
fn a_rename_mending_a_players_own_name_needs_no_distinct() {
    let dir = smiths();
    let d = dir.path();
    let (code, _, err) = run(d, &["players", "rename", "Joan Smith", "Joann Smith"]);
    assert_eq!(code, 0, "{err}");
    let row = player(d, "Joann Smith");
    assert_eq!(
        row["earlier_names"],
        serde_json::json!(["Joan Smith"]),
        "{row}"
    );
}

#[test]
fn players_rename_of_no_player_or_to_a_taken_name_is_refused_and_appends_nothing() {
    let dir = smiths();
    let d = dir.path();
    let before = head(d);
    let cases = [
        (
            ["players", "rename", "Nobody Here", "Somebody Else"],
            "players rename: \"Nobody Here\" is not a player in this ledger",
        ),
        // A name near a player's: the player is named.
        (
            ["players", "rename", "Joan Smiht", "Somebody Else"],
            "did you mean «Joan Smith»?",
        ),
        (
            ["players", "rename", "Jon Smith", "Joan Smith"],
            "laurel players rename",
        ),
    ];
    for (args, by) in cases {
        let (code, _, err) = run(d, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(by), "{err}");
        assert_eq!(head(d), before, "{args:?}");
    }
}

/// A seed of `name` in valar, as one line.
fn seeded(name: &str) -> String {
    format!(
        r#"{{"type":"mepbm.rating_seeded","at":"2001-01-01","player":"{name}","system":"valar","value":1500}}"#
    ) + "\n"
}

#[test]
fn a_name_equal_to_a_known_one_but_for_case_in_any_script_is_a_typo() {
    for (known, typo) in [
        ("Иван", "ИВАН"),
        ("Ολγα", "ΟΛΓΑ"),
        ("Александр Петров", "АЛЕКСАНДР ПЕТРОВ"),
        ("Johann Strauss", "Johann Strauß"),
        ("Oscar", "O\u{17f}car"),
        ("Weiß", "WEI\u{1e9e}"),
    ] {
        let dir = empty_ledger();
        let d = dir.path();
        let o = append_text(d, &seeded(known));
        assert!(o.status.success(), "{known}");
        let before = head(d);
        let o = append_text(d, &seeded(typo));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{typo}: {err}");
        let said = format!("looks like a typo of the known player «{known}»");
        assert!(err.contains(&said), "{typo}: {err}");
        assert_eq!(head(d), before, "{typo}");
    }
}

#[test]
fn a_registration_or_distinct_rename_looking_exactly_like_a_known_name_is_refused() {
    for (known, look_alike) in [("Ingrid", "\u{399}ngrid"), ("Jim", "Ji\u{217f}")] {
        let dir = empty_ledger();
        let d = dir.path();
        let (code, _, err) = run(d, &["players", "add", known, "--at", "2020-01-01"]);
        assert_eq!(code, 0, "{err}");
        let before = head(d);
        let (code, _, err) = run(d, &["players", "add", look_alike, "--at", "2020-01-02"]);
        assert_eq!(code, 2, "{look_alike}: {err}");
        let said = format!("looks exactly like the known player «{known}»");
        assert!(err.contains(&said), "{look_alike}: {err}");
        let (code, _, err) = run(d, &["players", "add", "Oscar Wilde", "--at", "2020-01-02"]);
        assert_eq!(code, 0, "{err}");
        let rename = ["players", "rename", "Oscar Wilde", look_alike, "--distinct"];
        let (code, _, err) = run(d, &rename);
        assert_eq!(code, 2, "{look_alike}: {err}");
        assert!(err.contains(&said), "{look_alike}: {err}");
        assert_ne!(head(d), before, "Oscar Wilde was registered");
    }
}

/// Different names of another script are not typos of each other because
/// their letters look like Latin ones: "Боба" is no "Вова" (Б looks like a b
/// with a macron, В like a B).
#[test]
fn different_cyrillic_names_whose_letters_look_like_latin_ones_are_two_players() {
    let dir = empty_ledger();
    let d = dir.path();
    for name in ["Вова", "Боба"] {
        let o = append_text(d, &seeded(name));
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(head(d).0, 2);
}

/// A late event writing the name a player took in a later rename names the
/// name the player had at the event's date, through every rename.
#[test]
fn a_late_event_writing_a_later_name_is_told_the_name_at_its_date() {
    let dir = empty_ledger();
    let d = dir.path();
    let steps: [&[&str]; 3] = [
        &["players", "add", "Ann Lee", "--at", "2002-01-01"],
        &[
            "players",
            "rename",
            "Ann Lee",
            "Ann Smith",
            "--at",
            "2004-01-01",
        ],
        &[
            "players",
            "rename",
            "Ann Smith",
            "Ann Jones",
            "--at",
            "2005-01-01",
        ],
    ];
    for args in steps {
        let (code, _, err) = run(d, args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    for (at, then) in [("2003-01-01", "Ann Lee"), ("2004-06-01", "Ann Smith")] {
        let line = seeded("Ann Jones").replace("2001-01-01", at);
        let o = append_text(d, &line);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{at}: {err}");
        let said = format!("writes the name the player had then, {then:?}");
        assert!(err.contains(&said), "{at}: {err}");
    }
    assert_eq!(head(d).0, 3);
}

/// A player only the corrected record named is no new player of the
/// correction (the players index, which reads no voided record, dates them
/// from the replacement); one only its replacement names is.
#[test]
fn correct_reports_as_new_only_players_the_corrected_record_did_not_name() {
    let dir = empty_ledger();
    let d = dir.path();
    let file = |name: &str, text: String| {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let (code, _, err) = run(d, &["append", &file("seed.jsonl", seeded("Moira Finch"))]);
    assert_eq!(code, 0, "{err}");
    let again = seeded("Moira Finch").replace("1500", "1750");
    let fix = ["correct", "1", &file("a.jsonl", again), "--reason", "typo"];
    let (code, out, err) = run(d, &fix);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("new player"), "{out}");
    let other = [
        "correct",
        "3",
        &file("b.jsonl", seeded("Hugo Pratt")),
        "--reason",
        "who",
    ];
    let (code, out, err) = run(d, &other);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 new player: Hugo Pratt\n"), "{out}");
    // A registration corrected (its date) registers no new player either.
    let (code, _, err) = run(d, &["players", "add", "Zed Ray", "--at", "2002-01-01"]);
    assert_eq!(code, 0, "{err}");
    let seq = head(d).0.to_string();
    let again = r#"{"type":"ledger.player_registered","at":"2002-02-01","player":"Zed Ray"}"#;
    let fix = [
        "correct",
        &seq,
        &file("c.jsonl", again.into()),
        "--reason",
        "date",
    ];
    let (code, out, err) = run(d, &fix);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("new player"), "{out}");
}

/// A rename dated wrong is corrected like any record: its replacement (the
/// same names, another date) stands where it stood, so the records written
/// under the new name since stay the player's, not another player's; dated
/// after such a record, the replacement is refused as any rename would be.
#[test]
fn a_rename_dated_wrong_is_corrected_and_the_records_under_its_name_stay_the_players() {
    let dir = empty_ledger();
    let d = dir.path();
    let rename = |at: &str| {
        format!(
            r#"{{"type":"ledger.player_renamed","at":"{at}","from":"Ann Jones","to":"Ann Smith"}}"#
        )
    };
    let under_new =
        (seeded("Ann Smith").replace("2001-01-01", "2003-03-05")).replace("valar", "maia");
    for line in [seeded("Ann Jones"), rename("2003-03-01"), under_new] {
        let o = append_text(d, &line);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let before = head(d);
    let file = |name: &str, at: &str| {
        let path = d.join(name);
        std::fs::write(&path, rename(at)).unwrap();
        path.display().to_string()
    };
    let late = [
        "correct",
        "2",
        &file("late.jsonl", "2003-04-01"),
        "--reason",
        "date",
    ];
    let (code, _, err) = run(d, &late);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("an event dated 2003-03-05, before the rename, writes it"),
        "{err}"
    );
    assert_eq!(head(d), before, "nothing appended");

    let early = [
        "correct",
        "2",
        &file("early.jsonl", "2002-02-01"),
        "--reason",
        "date",
    ];
    let (code, out, err) = run(d, &early);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("new player"), "{out}");
    let row = player(d, "Ann Smith");
    assert_eq!(row["earlier_names"], serde_json::json!(["Ann Jones"]));
    let v = json(d, &["players", "--format", "json"]);
    assert_eq!(v["rows"].as_array().unwrap().len(), 1, "one player: {v}");
    let (code, out, err) = run(d, &["log", "--type", "ledger.player_renamed"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2002-02-01"), "{out}");
    let (code, _, err) = run(d, &["verify"]);
    assert_eq!(code, 0, "{err}");
}

/// Only the same rename brought again stands where a voided one stood: a
/// void of a rename beside another player's rename to its name, or beside a
/// record of the append naming it first, is refused (either would give one
/// player's records to another), and a rename corrected is voided only with
/// the records that write its name, as any rename.
#[test]
fn a_rename_corrected_gives_no_player_records_of_another() {
    let dir = empty_ledger();
    let d = dir.path();
    let rename = |from: &str, at: &str| {
        format!(
            r#"{{"type":"ledger.player_renamed","at":"{at}","from":"{from}","to":"Ann Smith"}}"#
        )
    };
    let void = r#"{"type":"ledger.voided","at":"2026-01-01","target":3,"reason":"date"}"#;
    let under_new =
        (seeded("Ann Smith").replace("2001-01-01", "2003-03-05")).replace("valar", "maia");
    let setup = [
        seeded("Ann Jones"),
        seeded("Xavier Ray"),
        rename("Ann Jones", "2003-03-01"),
        under_new,
    ];
    for line in setup {
        assert!(append_text(d, &line).status.success());
    }
    let refused = |lines: &[&str], said: &str| {
        let o = append_text(d, &(lines.join("\n") + "\n"));
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{lines:?}: {err}");
        assert!(err.contains(said), "{lines:?}: {err}");
    };
    let taken = "\"Ann Smith\" is already a player's name";
    refused(&[void, &rename("Xavier Ray", "2003-03-01")], taken);
    let registered =
        r#"{"type":"ledger.player_registered","at":"2004-01-01","player":"Ann Smith"}"#;
    refused(
        &[void, registered, &rename("Ann Jones", "2002-02-01")],
        taken,
    );

    assert!(append_text(
        d,
        &format!("{void}\n{}\n", rename("Ann Jones", "2002-02-01"))
    )
    .status
    .success());
    let (code, _, err) = run(d, &["void", "6", "--reason", "typo"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("mepbm events still name \"Ann Smith\""),
        "{err}"
    );
    let v = json(d, &["players", "--format", "json"]);
    assert_eq!(
        v["rows"].as_array().unwrap().len(),
        2,
        "Ann and Xavier: {v}"
    );

    // Renamed on since (Ann Smith to Ann Carr): another player's rename to
    // the name is no rename corrected.
    let dir = empty_ledger();
    let d = dir.path();
    let on =
        r#"{"type":"ledger.player_renamed","at":"2003-04-01","from":"Ann Smith","to":"Ann Carr"}"#;
    for line in [
        seeded("Ann Jones"),
        seeded("Xavier Ray"),
        rename("Ann Jones", "2003-03-01"),
        on.to_string(),
    ] {
        assert!(append_text(d, &line).status.success());
    }
    let o = append_text(
        d,
        &format!("{void}\n{}\n", rename("Xavier Ray", "2003-03-01")),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is refused: record 4 renames \"Ann Smith\""),
        "{err}"
    );
}

/// `players rename --at` a date before records naming the old name is
/// refused naming the last of them and the first day that serves, not one
/// such record per attempt; that day is accepted.
#[test]
fn players_rename_dated_before_records_of_the_old_name_names_the_last_of_them() {
    let dir = smiths();
    let d = dir.path();
    let seed = |at: &str, system: &str| {
        format!(
            r#"{{"type":"mepbm.rating_seeded","at":"{at}","player":"Joan Smith","system":"{system}","value":1500}}"#
        )
    };
    for (at, system) in [("2021-03-04", "valar"), ("2021-06-07T10:00:00Z", "maia")] {
        assert!(append_text(d, &seed(at, system)).status.success());
    }
    let before = head(d);
    let rename = |at: &str| {
        run(
            d,
            &["players", "rename", "Joan Smith", "Joan Smyth", "--at", at],
        )
    };
    let (code, _, err) = rename("2021-03-05");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "players rename: a record dated 2021-06-07T10:00:00Z names \"Joan Smith\"; from a \
             rename's date on the old name is refused, so the rename is dated after every \
             record naming it (`--at 2021-06-08` or later); nothing appended"
        ),
        "{err}"
    );
    assert_eq!(head(d), before);
    let (code, _, err) = rename("2021-06-08");
    assert_eq!(code, 0, "{err}");
}
