//! Players, through the binary: an append names its new players and refuses a
//! near-duplicate of a known one (case, accents, spaces, one edit) unless it
//! was registered; `laurel players` lists them; a rename shows the new name
//! everywhere and `history` follows the player across it; `history` of a
//! name that is no player's suggests the nearest.

use crate::common;

use common::{append_text, empty_ledger, head, json, laurel, standings};
use std::path::Path;

/// A card tournament and round 1 of Ada, Brian and Claude, scored 20, 0, -20.
const LEAGUE: &str = r#"{"type":"cards.tournament_created","at":"2024-01-01","tournament":"spring","point_system":1,"starts":"2024-01-01","ends":"2024-12-31"}
{"type":"cards.round_scheduled","at":"2024-01-02","tournament":"spring","round":"1","starts":"2024-01-02","ends":"2024-01-09","matches":[{"match":"m1","players":["Ada Lovelace","Brian Kernighan","Claude Shannon"]}]}
{"type":"cards.match_result","at":"2024-01-03","tournament":"spring","round":"1","match":"m1","scores":[{"player":"Ada Lovelace","score":20},{"player":"Brian Kernighan","score":0},{"player":"Claude Shannon","score":-20}]}
"#;

/// Round 2 scheduled with `first` in the first seat, beside Brian and Edsger.
fn round_2(first: &str) -> String {
    format!(
        r#"{{"type":"cards.round_scheduled","at":"2024-01-10","tournament":"spring","round":"2","starts":"2024-01-10","ends":"2024-01-19","matches":[{{"match":"m1","players":["{first}","Brian Kernighan","Edsger Dijkstra"]}}]}}"#
    ) + "\n"
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn league() -> tempfile::TempDir {
    common::ledger_of(LEAGUE)
}

fn out(dir: &Path, args: &[&str]) -> std::process::Output {
    laurel(dir).args(args).output().expect("ran")
}

#[test]
fn an_append_reports_the_players_it_names_first() {
    let dir = empty_ledger();
    let first = append_text(dir.path(), LEAGUE);
    assert!(first.status.success());
    assert!(
        text(&first.stdout)
            .contains("3 new players: Ada Lovelace, Brian Kernighan, Claude Shannon\n"),
        "{}",
        text(&first.stdout)
    );
    // Brian is known; Edsger is new; Ada is new again nowhere.
    let second = append_text(dir.path(), &round_2("Ada Lovelace"));
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(text(&second.stdout).contains("1 new player: Edsger Dijkstra\n"));
    // An append naming no one new says nothing about players.
    let void = out(dir.path(), &["void", "4", "--reason", "rescheduled"]);
    assert!(!text(&void.stdout).contains("new player"));
}

#[test]
fn typos_and_look_alikes_of_known_names_are_refused_with_did_you_mean() {
    let dir = league();
    let before = head(dir.path());
    for (typo, known, how) in [
        ("Ada Lovelce", "Ada Lovelace", "one edit apart"),
        (
            "brian kernighan",
            "Brian Kernighan",
            "the same but for case",
        ),
        (
            "ClaudeShannon",
            "Claude Shannon",
            "the same but for case, accents, spaces or look-alike letters",
        ),
        // An impostor: Cyrillic "а" and "о" in place of the Latin letters.
        (
            "\u{410}da Lovel\u{430}ce",
            "Ada Lovelace",
            "the same but for case, accents, spaces or look-alike letters",
        ),
        ("Brian Kernigh\u{430}n", "Brian Kernighan", "look-alike"),
        // Small capitals ("ᴀ", "ᴅ") for the letters they print as.
        (
            "\u{1D00}\u{1D05}a Lovelace",
            "Ada Lovelace",
            "the same but for case, accents, spaces or look-alike letters",
        ),
        // A Latin alpha, whose capital "Ɑ" looks like no Latin letter.
        (
            "Ada Lovel\u{251}ce",
            "Ada Lovelace",
            "the same but for case, accents, spaces or look-alike letters",
        ),
        // A variation selector is allowed in a name, and shows nothing.
        (
            "Ada Lovelace\u{FE0F}",
            "Ada Lovelace",
            "the same but for case, accents, spaces or look-alike letters",
        ),
    ] {
        let file = dir.path().join("round2.jsonl");
        std::fs::write(&file, round_2(typo)).unwrap();
        let o = out(dir.path(), &["append", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{typo}");
        let err = text(&o.stderr);
        assert!(err.contains("round2.jsonl:1"), "names file and line: {err}");
        assert!(err.contains(&format!("did you mean «{known}»?")), "{err}");
        assert!(err.contains(how), "{err}");
        assert!(
            err.contains(&format!("laurel players add {typo:?}")),
            "{err}"
        );
        assert_eq!(head(dir.path()), before, "nothing written for {typo:?}");
    }
}

#[test]
fn a_name_with_whitespace_at_an_end_a_run_inside_an_invisible_character_or_nothing_shown_is_refused(
) {
    let dir = league();
    let before = head(dir.path());
    let ends = "begins or ends with whitespace: write";
    let run = "whitespace other than one space between words: write";
    for (name, want) in [
        (" Ada", format!("{ends} \"Ada\"")),
        ("Edsger Dijkstra ", format!("{ends} \"Edsger Dijkstra\"")),
        ("Edsger  Dijkstra", format!("{run} \"Edsger Dijkstra\"")),
        ("Edsger\u{a0}Dijkstra", format!("{run} \"Edsger Dijkstra\"")),
        (
            "Edsger\u{200b}",
            "holds the invisible character U+200B".into(),
        ),
        ("\u{3164}", "holds the invisible character U+3164".into()),
        ("Bob\u{FFFB}", "holds the invisible character U+FFFB".into()),
        (
            "Bob\u{1D175}",
            "holds the invisible character U+1D175".into(),
        ),
        ("Eve\u{206B}", "holds the invisible character U+206B".into()),
        ("Eve\u{2028}", "holds the line separator U+2028".into()),
        (
            "\u{301}",
            "shows nothing: it holds only combining marks".into(),
        ),
        (
            "\u{301}\u{200D}\u{FE0F}",
            "shows nothing: it holds only combining marks".into(),
        ),
    ] {
        let o = append_text(dir.path(), &round_2(name));
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(text(&o.stderr).contains(&want), "{}", text(&o.stderr));
        let add = out(dir.path(), &["players", "add", name]);
        assert_eq!(add.status.code(), Some(2), "{name:?}");
        // The command's own input is named by the command, not as a file.
        let said = text(&add.stderr);
        let by = "laurel: error: laurel players add, ledger.player_registered: ";
        assert!(said.starts_with(by) && said.contains(&want), "{said}");
    }
    // Problems are reported in input order: a typo on line 1 before a
    // misspelt name on line 2, and the other way round.
    let typo = round_2("Ada Lovelce");
    let misspelt =
        r#"{"type":"ledger.player_registered","at":"2024-01-11","player":"Bart  Okafor"}"#;
    let o = append_text(dir.path(), &format!("{typo}{misspelt}\n"));
    assert!(
        text(&o.stderr).contains("-:1, cards.round_scheduled: new player \"Ada Lovelce\""),
        "{}",
        text(&o.stderr)
    );
    let o = append_text(dir.path(), &format!("{misspelt}\n{typo}"));
    assert!(
        text(&o.stderr).contains("-:1, ledger.player_registered: player name \"Bart  Okafor\""),
        "{}",
        text(&o.stderr)
    );
    // A zero-width joiner is left to the names that need it (between two
    // characters of the scripts and emoji that join), and counts for nothing
    // in the near-duplicate check; beside a Latin letter it joins nothing.
    for name in ["Ada\u{200d} Lovelace", "\u{200c}Edsger", "Edsger\u{200d}"] {
        let o = append_text(dir.path(), &round_2(name));
        assert_eq!(o.status.code(), Some(2));
        assert!(
            text(&o.stderr).contains("holds a zero-width joiner U+200")
                && text(&o.stderr).contains("that joins nothing"),
            "{}",
            text(&o.stderr)
        );
    }
    let joined = dir.path().join("joined.jsonl");
    std::fs::write(&joined, round_2("\u{915}\u{94d}\u{200d}\u{937} Lovelace")).unwrap();
    let o = out(dir.path(), &["check", joined.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // A code point Unicode has not assigned: no font shows it, and its key
    // could change with a later Unicode.
    for (name, code) in [("Ada\u{378}", "U+0378"), ("Ed\u{2FFFD}", "U+2FFFD")] {
        let o = append_text(dir.path(), &round_2(name));
        assert_eq!(o.status.code(), Some(2), "{name:?}");
        let want = format!("holds {code}, a code point Unicode has not assigned");
        assert!(text(&o.stderr).contains(&want), "{}", text(&o.stderr));
    }
    assert_eq!(head(dir.path()), before);
}

#[test]
fn a_registered_name_is_accepted_beside_its_near_duplicate() {
    let dir = league();
    for typo in ["Ada Lovelce", "brian kernighan", "ClaudeShannon"] {
        let add = out(dir.path(), &["players", "add", typo]);
        assert!(add.status.success(), "{}", text(&add.stderr));
        assert!(text(&add.stdout).contains(&format!("1 new player: {typo}\n")));
    }
    let o = append_text(dir.path(), &round_2("Ada Lovelce"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    // A registration in the same file, before the name is used, counts too.
    let reg = r#"{"type":"ledger.player_registered","at":"2024-01-20","player":"Edsger Dijkstr"}"#;
    let round_3 = r#"{"type":"cards.round_scheduled","at":"2024-01-20","tournament":"spring","round":"3","starts":"2024-01-20","ends":"2024-01-29","matches":[{"match":"m1","players":["Edsger Dijkstr","Brian Kernighan","Claude Shannon"]}]}"#;
    let o = append_text(dir.path(), &format!("{reg}\n{round_3}\n"));
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// `players add` registers a name once, dated today unless `--at` says
/// otherwise; a name that is already a player's is refused, nothing appended.
/// A registration written with `name` (as older files do) reads as `player`.
#[test]
fn players_add_registers_a_new_name_once_and_refuses_a_known_one() {
    let dir = league();
    let d = dir.path();
    let add = out(d, &["players", "add", "Zed Nova", "--at", "2024-02-01"]);
    assert!(add.status.success(), "{}", text(&add.stderr));
    for known in ["Zed Nova", "Ada Lovelace"] {
        let before = head(d);
        let again = out(d, &["players", "add", known]);
        assert_eq!(again.status.code(), Some(2), "{known}");
        let said = format!("players add: {known:?} is already a player's name (since 20");
        assert!(
            text(&again.stderr).contains(&said),
            "{}",
            text(&again.stderr)
        );
        assert_eq!(head(d), before, "nothing appended");
    }
    // The `first` date `players` lists for `name`.
    let first = |name: &str| {
        let v = json(d, &["players", "--format", "json"]);
        let rows = v["rows"].as_array().unwrap().clone();
        let row = rows.into_iter().find(|r| r["player"] == name);
        row.unwrap()["first"].as_str().unwrap().to_string()
    };
    assert_eq!(first("Zed Nova"), "2024-02-01");
    let today = out(d, &["players", "add", "Yan Today"]);
    assert!(today.status.success(), "{}", text(&today.stderr));
    let day = first("Yan Today");
    assert_eq!(day.len(), 10, "a date, not a time: {day}");
    let older = r#"{"type":"ledger.player_registered","at":"2024-01-20","name":"Edsger Dijkstr"}"#;
    let o = append_text(d, &format!("{older}\n"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("1 new player: Edsger Dijkstr"));
}

/// A registration voided, then added again with the same date, would be an
/// exact copy of a voided record, which an append adds nothing for: the
/// command is refused (exit 2), pointing at `--at`, not "0 event(s)", exit 0.
#[test]
fn players_add_again_after_its_registration_was_voided_asks_for_another_date() {
    let dir = league();
    let d = dir.path();
    let add = ["players", "add", "Zed Nova", "--at", "2024-02-01"];
    assert!(out(d, &add).status.success());
    let seq = head(d).0.to_string();
    let void = out(d, &["void", &seq, "--reason", "not a real player"]);
    assert!(void.status.success(), "{}", text(&void.stderr));
    let before = head(d);
    let again = out(d, &add);
    assert_eq!(again.status.code(), Some(2));
    let err = text(&again.stderr);
    assert!(
        err.contains("the registration of \"Zed Nova\" dated 2024-02-01 was voided")
            && err.contains("(`--at`)"),
        "{err}"
    );
    assert_eq!(head(d), before, "nothing appended");
    let other = ["players", "add", "Zed Nova", "--at", "2024-02-02"];
    assert!(out(d, &other).status.success());
}

#[test]
fn two_new_names_of_one_file_that_nearly_match_are_refused_at_the_second() {
    let dir = empty_ledger();
    // The second "Ada Lovelacе" ends in a Cyrillic е: one edit from the first.
    let typo = LEAGUE.replacen("Brian Kernighan", "Ada Lovelacе", 1);
    let o = append_text(dir.path(), &typo);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    // Line 2 schedules the look-alike; line 3, whose result then names a
    // player not scheduled, is not what is reported.
    assert!(err.contains("-:2"), "{err}");
    assert!(err.contains("did you mean «Ada Lovelace»?"), "{err}");
    assert_eq!(head(dir.path()).0, 0);
}

#[test]
fn a_typo_in_a_schedule_is_reported_before_the_result_it_breaks() {
    let dir = league();
    let r2 = round_2("Ada Lovelce").replace("Edsger Dijkstra", "Claude Shannon");
    let res = r#"{"type":"cards.match_result","at":"2024-01-11","tournament":"spring","round":"2","match":"m1","scores":[{"player":"Ada Lovelace","score":-20},{"player":"Brian Kernighan","score":0},{"player":"Claude Shannon","score":20}]}"#;
    let o = append_text(dir.path(), &format!("{r2}{res}\n"));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("-:1"), "{err}");
    assert!(err.contains("did you mean «Ada Lovelace»?"), "{err}");
}

#[test]
fn players_lists_systems_and_first_and_last_dates() {
    let dir = league();
    let seed = r#"{"type":"mepbm.rating_seeded","at":"2023-06-01","player":"Ada Lovelace","system":"valar","value":1500}"#;
    assert!(append_text(dir.path(), &format!("{seed}\n"))
        .status
        .success());
    let v = json(dir.path(), &["players", "--format", "json"]);
    let rows = v["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["player"].as_str().unwrap()).collect();
    assert_eq!(names, ["Ada Lovelace", "Brian Kernighan", "Claude Shannon"]);
    // Ada: seeded in mepbm on 2023-06-01, last played cards on 2024-01-03.
    assert_eq!(rows[0]["systems"], serde_json::json!(["cards", "mepbm"]));
    assert_eq!(rows[0]["first"], "2023-06-01");
    assert_eq!(rows[0]["last"], "2024-01-03");
    assert_eq!(rows[1]["systems"], serde_json::json!(["cards"]));
    assert_eq!(rows[1]["first"], "2024-01-02");
    let table = text(&out(dir.path(), &["players"]).stdout);
    assert!(table.starts_with("ledger at seq "), "{table}");
    assert!(table.contains("Brian Kernighan"), "{table}");
    let first = text(&out(dir.path(), &["players", "--limit", "1"]).stdout);
    assert!(
        first.contains("Ada Lovelace") && !first.contains("Brian"),
        "{first}"
    );
    let csv = text(&out(dir.path(), &["players", "--format", "csv"]).stdout);
    assert!(
        csv.starts_with("player,systems,first,last,earlier_names"),
        "{csv}"
    );
    // First named by a registration, before any event names her.
    assert!(out(
        dir.path(),
        &["players", "add", "Zoe Quill", "--at", "2023-03-01"]
    )
    .status
    .success());
    let seed = seed.replace("Ada Lovelace", "Zoe Quill");
    assert!(append_text(dir.path(), &format!("{seed}\n"))
        .status
        .success());
    let v = json(dir.path(), &["players", "--format", "json"]);
    let zoe = &v["rows"][3];
    assert_eq!(
        (&zoe["first"], &zoe["last"]),
        (&"2023-03-01".into(), &"2023-06-01".into()),
        "{v}"
    );
}

/// LEAGUE, Ada renamed to Ada King on 2024-01-05, round 2 under the new name
/// (Ada -20, Brian 0, Claude 20).
fn renamed() -> tempfile::TempDir {
    let dir = league();
    let rename = r#"{"type":"ledger.player_renamed","at":"2024-01-05","from":"Ada Lovelace","to":"Ada King"}"#;
    let r2 = round_2("Ada King").replace("Edsger Dijkstra", "Claude Shannon");
    let res = r#"{"type":"cards.match_result","at":"2024-01-11","tournament":"spring","round":"2","match":"m1","scores":[{"player":"Ada King","score":-20},{"player":"Brian Kernighan","score":0},{"player":"Claude Shannon","score":20}]}"#;
    let o = append_text(dir.path(), &format!("{rename}\n{r2}{res}\n"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        !text(&o.stdout).contains("new player"),
        "a rename is no new player"
    );
    dir
}

#[test]
fn a_renamed_player_keeps_one_row_under_the_new_name_from_the_rename_on() {
    let dir = renamed();
    let v = standings(dir.path(), &["cards", "--tournament", "spring"]);
    let rows = v["rows"].as_array().unwrap();
    let ada: Vec<_> = rows.iter().filter(|r| r["player"] == "Ada King").collect();
    // Ada King: 3 points for round 1 (1st) + 0 for round 2 (3rd), two matches.
    assert_eq!(ada.len(), 1, "{rows:?}");
    assert_eq!(ada[0]["score"], 3);
    assert_eq!(ada[0]["matches"], 2);
    assert!(!rows.iter().any(|r| r["player"] == "Ada Lovelace"));
    // Before the rename, the table shows the name she had then.
    let before = standings(
        dir.path(),
        &["cards", "--tournament", "spring", "--as-of", "2024-01-04"],
    );
    assert_eq!(before["rows"][0]["player"], "Ada Lovelace");
    let v = json(dir.path(), &["players", "--format", "json"]);
    assert_eq!(v["rows"][0]["player"], "Ada King");
    assert_eq!(
        v["rows"][0]["earlier_names"],
        serde_json::json!(["Ada Lovelace"])
    );
}

#[test]
fn history_follows_a_player_across_a_rename() {
    let dir = renamed();
    for name in ["Ada King", "Ada Lovelace"] {
        let v = json(dir.path(), &["history", name, "--format", "json"]);
        let seqs: Vec<u64> = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["seq"].as_u64().unwrap())
            .collect();
        // Round 1's result (seq 3, under "Ada Lovelace") and round 2's (seq 6).
        assert_eq!(seqs, [3, 6], "history {name}");
    }
    // As of a date before the rename, the name she has now still names her.
    for name in ["Ada King", "Ada Lovelace"] {
        let args = ["history", name, "--as-of", "2024-01-04", "--format", "json"];
        let v = json(dir.path(), &args);
        let seqs: Vec<u64> = (v["rows"].as_array().unwrap().iter())
            .map(|r| r["seq"].as_u64().unwrap())
            .collect();
        assert_eq!(seqs, [3], "history {name} as of 2024-01-04");
    }
    // The title names the name she goes by now, or went by at --as-of.
    let title = |args: &[&str]| text(&out(dir.path(), &[&["history"], args].concat()).stdout);
    for (args, said) in [
        (
            &["Ada Lovelace"][..],
            "History of Ada Lovelace (now Ada King)\n",
        ),
        (&["Ada King"], "History of Ada King\n"),
        (
            &["Ada King", "--as-of", "2024-01-04"],
            "History of Ada King (called Ada Lovelace then)\n",
        ),
        (
            &["Ada Lovelace", "--as-of", "2024-01-04"],
            "History of Ada Lovelace\n",
        ),
        (
            &["Ada Lovelace", "--as-of", "2024-01-12"],
            "History of Ada Lovelace (called Ada King then)\n",
        ),
        // Before anything named her, no name was hers then.
        (
            &["Ada King", "--as-of", "2023-01-01"],
            "History of Ada King\n",
        ),
    ] {
        assert!(title(args).contains(said), "{args:?}: {}", title(args));
    }
}

#[test]
fn the_old_name_is_refused_after_a_rename_with_the_new_one() {
    let dir = renamed();
    let r3 = r#"{"type":"cards.round_scheduled","at":"2024-01-20","tournament":"spring","round":"3","starts":"2024-01-20","ends":"2024-01-29","matches":[{"match":"m1","players":["Ada Lovelace","Brian Kernighan","Claude Shannon"]}]}"#;
    let o = append_text(dir.path(), &format!("{r3}\n"));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains(r#"player "Ada Lovelace" was renamed to "Ada King"; write "Ada King""#),
        "{err}"
    );
    // After a second rename, both point at the name the player has now.
    let again =
        r#"{"type":"ledger.player_renamed","at":"2024-01-15","from":"Ada King","to":"Ada Byron"}"#;
    assert!(append_text(dir.path(), again).status.success());
    let err = text(&append_text(dir.path(), &format!("{r3}\n")).stderr);
    assert!(
        err.contains(
            r#"player "Ada Lovelace" was renamed to "Ada King", now "Ada Byron"; write "Ada Byron""#
        ),
        "{err}"
    );
    let rename =
        r#"{"type":"ledger.player_renamed","at":"2024-02-01","from":"Ada Lovelace","to":"Ada L"}"#;
    let err = text(&append_text(dir.path(), rename).stderr);
    assert!(err.contains(r#"rename "Ada Byron""#), "{err}");
    // A rename to a name somebody has is refused too.
    let clash = r#"{"type":"ledger.player_renamed","at":"2024-02-01","from":"Brian Kernighan","to":"Claude Shannon"}"#;
    let o = append_text(dir.path(), &format!("{clash}\n"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("is already a player's name"),
        "{}",
        text(&o.stderr)
    );
}

/// A registration is meant, but not of a name that looks exactly like a
/// known one (a Cyrillic "о" for an "o"): no table could tell the two
/// players apart. Case and spaces show, and stay registrable.
#[test]
fn a_registration_of_a_look_alike_of_a_known_name_is_refused() {
    let dir = league();
    let d = dir.path();
    let before = head(d);
    // A Cyrillic "е", a small capital "ʙ", a modifier letter "ᴬ".
    for (name, known) in [
        ("Ada Lovelacе", "Ada Lovelace"),
        ("\u{299}rian Kernighan", "Brian Kernighan"),
        ("\u{1D2C}da Lovelace", "Ada Lovelace"),
    ] {
        let o = out(d, &["players", "add", name]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = text(&o.stderr);
        let want = format!("new player {name:?} looks exactly like the known player «{known}»");
        assert!(err.contains(&want), "{err}");
    }
    assert_eq!(head(d), before);
    assert!(out(d, &["players", "add", "ada lovelace"]).status.success());
}

/// A rename's new name gets the typo check against other players' names
/// (results misspelt for them would go to the renamed player), not against
/// the player's own: mending a misspelt name is what a rename is for.
#[test]
fn a_rename_to_a_near_copy_of_another_players_name_is_refused_not_of_its_own() {
    let dir = league();
    let d = dir.path();
    let before = head(d);
    for to in ["Claude Shanon", "CLAUDE SHANNON", "Сlaude Shannon"] {
        let rename = format!(
            r#"{{"type":"ledger.player_renamed","at":"2024-02-01","from":"Brian Kernighan","to":"{to}"}}"#
        );
        let o = append_text(d, &format!("{rename}\n"));
        assert_eq!(o.status.code(), Some(2), "{to}");
        let err = text(&o.stderr);
        let said = format!(
            "a rename to {to:?} is refused: it looks like the name of another player, «Claude Shannon»"
        );
        assert!(err.contains(&said), "{err}");
        assert_eq!(head(d), before);
    }
    let mend = r#"{"type":"ledger.player_renamed","at":"2024-02-01","from":"Ada Lovelace","to":"Ada Lovelacee"}"#;
    let o = append_text(d, &format!("{mend}\n"));
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// With two near names known ("jose garcia" and "Jose Garcia", both
/// registered), a new name is judged against both, whichever came first: a
/// rename of one to a near copy of the other, and a look-alike of either,
/// are refused in both orders.
#[test]
fn a_name_near_two_known_ones_is_judged_against_both_whichever_came_first() {
    for (first, second) in [
        ("jose garcia", "Jose Garcia"),
        ("Jose Garcia", "jose garcia"),
    ] {
        let dir = empty_ledger();
        let d = dir.path();
        for (name, at) in [(first, "2020-01-01"), (second, "2020-01-02")] {
            assert!(out(d, &["players", "add", name, "--at", at])
                .status
                .success());
        }
        let before = head(d);
        for from in [first, second] {
            let other = if from == first { second } else { first };
            let rename = format!(
                r#"{{"type":"ledger.player_renamed","at":"2020-02-01","from":"{from}","to":"José García"}}"#
            );
            let o = append_text(d, &format!("{rename}\n"));
            assert_eq!(o.status.code(), Some(2), "{from} first {first}");
            let said = format!("the name of another player, «{other}»");
            assert!(text(&o.stderr).contains(&said), "{}", text(&o.stderr));
        }
        for look_alike in ["J\u{43e}se Garcia", "j\u{43e}se garcia"] {
            let o = out(d, &["players", "add", look_alike]);
            assert_eq!(o.status.code(), Some(2), "{look_alike} after {first}");
            assert!(
                text(&o.stderr).contains("looks exactly like"),
                "{}",
                text(&o.stderr)
            );
        }
        assert_eq!(head(d), before);
    }
}

/// Without its rename, a renamed player's later results would quietly go
/// to a new player of the new name, and a later rename of that name would
/// rename no one; without its registration, the events naming a
/// near-duplicate would be refused as typos. Such a void is refused (exit 2,
/// nothing written) while records write the name, and taken with them; a
/// registration of a name records already wrote brought nothing and goes.
#[test]
fn voiding_a_rename_or_registration_that_records_still_write_is_refused() {
    let dir = renamed();
    let before = head(dir.path());
    let o = out(dir.path(), &["void", "4", "--reason", "wrong rename"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(r#"voiding record 4 (ledger.player_renamed "Ada Lovelace" to "Ada King") is refused: cards events still name "Ada King" (the first: record 5)"#),
        "{}",
        text(&o.stderr)
    );
    // Every record that writes the name, and the one command that voids all.
    assert!(
        text(&o.stderr).contains(
            "in all, records 5 and 6 depend on what it voids: `laurel void 4 5 6 --reason TEXT`"
        ),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(head(dir.path()), before);
    // A chain: Ada Lovelace, Ada King, Ada Byron. The first rename is what
    // the second renames.
    let chain =
        r#"{"type":"ledger.player_renamed","at":"2024-01-12","from":"Ada King","to":"Ada Byron"}"#;
    assert!(append_text(dir.path(), chain).status.success());
    let all = ["void", "4", "5", "6", "--reason", "all wrong"];
    let o = out(dir.path(), &all);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(r#"is refused: record 7 renames "Ada King""#),
        "{}",
        text(&o.stderr)
    );
    let o = out(dir.path(), &["void", "4", "5", "6", "7", "--reason", "all"]);
    assert!(o.status.success(), "{}", text(&o.stderr));

    let dir = league();
    let add = |name: &str| out(dir.path(), &["players", "add", name]);
    assert!(add("Ada Lovelce").status.success());
    assert!(append_text(dir.path(), &round_2("Ada Lovelce"))
        .status
        .success());
    let o = out(dir.path(), &["void", "4", "--reason", "no such player"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(r#"(ledger.player_registered "Ada Lovelce") is refused: cards events still name "Ada Lovelce""#),
        "{}",
        text(&o.stderr)
    );
    let o = out(dir.path(), &["void", "4", "5", "--reason", "both"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // A name the league's events wrote already is not registered again.
    let known =
        r#"{"type":"ledger.player_registered","at":"2024-01-20","player":"Brian Kernighan"}"#;
    let o = append_text(dir.path(), &format!("{known}\n"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(r#""Brian Kernighan" is already a player's name"#),
        "{}",
        text(&o.stderr)
    );
}

/// A late event naming a rename's new name, dated before the rename, would
/// count as another player: refused, in a later append as in the rename's
/// own, whether or not the new name was written since; dated after it, the
/// new name is the player's.
#[test]
fn a_late_event_naming_a_new_name_before_its_rename_is_refused() {
    let dir = renamed();
    let d = dir.path();
    let before = head(d);
    let seed = |at: &str| {
        format!(
            r#"{{"type":"mepbm.rating_seeded","at":"{at}","player":"Ada King","system":"valar","value":1600}}"#
        )
    };
    let o = append_text(d, &format!("{}\n", seed("2023-12-01")));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    for said in [
        r#""Ada King" is the name "Ada Lovelace" took on 2024-01-05, and an event dated 2023-12-01, before the rename, writes it"#,
        r#"writes the name the player had then, "Ada Lovelace""#,
    ] {
        assert!(err.contains(said), "{err}");
    }
    assert_eq!(head(d), before, "nothing written");
    let o = append_text(d, &format!("{}\n", seed("2024-02-01")));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // Once the new name is written after the rename, a late event naming
    // it before the rename brings no new name, and is refused all the same.
    let before = head(d);
    let o = append_text(d, &format!("{}\n", seed("2023-12-01")));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let named = r#""Ada King" is the name "Ada Lovelace" took on 2024-01-05, and an event dated 2023-12-01"#;
    assert!(text(&o.stderr).contains(named), "{}", text(&o.stderr));
    assert_eq!(head(d), before, "nothing written");
    // An earlier rename's `from` is not checked again: voiding the event
    // that named it leaves later appends free.
    let dir = empty_ledger();
    let d = dir.path();
    let rename =
        r#"{"type":"ledger.player_renamed","at":"2024-01-05","from":"Ada King","to":"Ada Queen"}"#;
    let o = append_text(d, &format!("{}\n{rename}\n", seed("2023-12-01")));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let void = out(d, &["void", "1", "--reason", "test"]);
    assert_eq!(void.status.code(), Some(0), "{}", text(&void.stderr));
    let other = seed("2024-03-01").replace("Ada King", "Zed Zulu");
    let o = append_text(d, &format!("{other}\n"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

/// A rename dated before anything gave its `from` is refused: a name is
/// given from its registration or its first event, whichever is dated first.
#[test]
fn a_rename_dated_before_the_name_was_given_is_refused() {
    let dir = empty_ledger();
    let d = dir.path();
    let seed = |at: &str, player: &str| {
        format!(
            r#"{{"type":"mepbm.rating_seeded","at":"{at}","player":"{player}","system":"valar","value":1600}}"#
        ) + "\n"
    };
    let rename = |at: &str, from: &str, to: &str| {
        format!(r#"{{"type":"ledger.player_renamed","at":"{at}","from":"{from}","to":"{to}"}}"#)
            + "\n"
    };
    let refused = |input: &str, said: &str| {
        let before = head(d);
        let o = append_text(d, input);
        assert_eq!(o.status.code(), Some(2), "{input}");
        assert!(text(&o.stderr).contains(said), "{}", text(&o.stderr));
        assert_eq!(head(d), before, "nothing written");
    };
    let accepted = |input: &str| {
        let o = append_text(d, input);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    };
    let reg = r#"{"type":"ledger.player_registered","at":"2023-12-01","player":"Ada King"}"#;
    accepted(&format!("{reg}\n"));
    let dated = r#""Ada King" is first named on 2023-12-01, after this rename's `at`"#;
    refused(&rename("2023-11-30", "Ada King", "Ada Queen"), dated);
    // From its registration on the name is given, events or not.
    accepted(&rename("2024-01-01", "Ada King", "Ada Queen"));
    accepted(&seed("2024-03-01", "Ada Queen"));
    // A name given by an event: a rename dated before it leaves that event
    // writing a name renamed away, refused by the fold's own check.
    accepted(&seed("2024-05-01", "Zed Zulu"));
    refused(
        &rename("2024-04-01", "Zed Zulu", "Zed Alpha"),
        "record 4 (mepbm.rating_seeded) would no longer be valid: player \"Zed Zulu\" is \
         renamed to \"Zed Alpha\" by a later record dated before this one; from a rename's \
         date on, the old name is refused: date the rename after every record naming \
         \"Zed Zulu\" (this one is dated 2024-05-01; `laurel log` shows the others)",
    );
    accepted(&rename("2024-05-01", "Zed Zulu", "Zed Alpha"));
}

#[test]
fn history_of_a_name_that_is_no_player_suggests_the_nearest() {
    let dir = league();
    let o = out(dir.path(), &["history", "ada lovelace"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = text(&o.stderr);
    assert!(err.contains(r#""ada lovelace" is not a player"#), "{err}");
    assert!(err.contains("did you mean «Ada Lovelace»?"), "{err}");
    let o = out(dir.path(), &["history", "Zed"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!text(&o.stderr).contains("did you mean"));
}

/// `history` of a player whom only Middle-earth's events name folds Middle-earth
/// alone, unless a voided record of another system names them: then its
/// change is listed too, marked voided. Ivy Jones (of the Valar sample) played
/// one card match whose result and round were both voided; her card change
/// is the one a ledger of the match alone gives her.
#[test]
fn history_lists_a_voided_change_of_a_system_no_live_event_names_the_player_in() {
    let league = LEAGUE.replace("Ada Lovelace", "Ivy Jones");
    let dir = common::ledger_with(&["mepbm_valar.jsonl"]);
    let d = dir.path();
    common::append_ok(d, &league);
    let (seq, _) = head(d);
    let void = |s: u64, why: &str| {
        let o = out(d, &["void", &s.to_string(), "--reason", why]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    void(seq, "wrong match");
    void(seq - 1, "wrong round");
    let v = json(d, &["history", "Ivy Jones", "--format", "json"]);
    let rows = v["rows"].as_array().unwrap();
    let cards: Vec<&serde_json::Value> = rows.iter().filter(|r| r["system"] == "cards").collect();
    let alone = json(
        common::ledger_of(&league).path(),
        &["history", "Ivy Jones", "--format", "json"],
    );
    assert_eq!(cards.len(), 1, "{v}");
    assert_eq!(cards[0]["new"], alone["rows"][0]["new"], "{v}");
    let note = format!("voided by #{}: reason \"wrong match\"", seq + 1);
    assert_eq!(cards[0]["voided"], note.as_str(), "{v}");
    assert!(rows.iter().any(|r| r["system"] == "valar"), "{v}");
}
