//! What an administrator relies on when input is hostile or a published head
//! is checked: ambiguous or terminal-rewriting input is refused with a message
//! naming it and nothing is written; what reaches the terminal anyway is
//! escaped; `verify --expect` takes the head as `laurel head` prints it.

use crate::common;

use common::{append_text, empty_ledger, head, laurel};

/// A seeded Valar rating with `player` and `value` as raw JSON text.
fn seed(player: &str, value: &str) -> String {
    format!(
        r#"{{"type":"mepbm.rating_seeded","at":"2003-01-01","player":{player},"system":"valar","value":{value}}}"#
    )
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn verify_expect_takes_the_head_as_head_prints_it() {
    let dir = empty_ledger();
    let empty = String::from_utf8(laurel(dir.path()).arg("head").output().unwrap().stdout).unwrap();
    // The empty head is where every chain starts.
    laurel(dir.path())
        .args(["verify", "--expect", empty.trim()])
        .assert()
        .success();
    let out = append_text(dir.path(), &seed(r#""Ann""#, "1500"));
    assert!(out.status.success(), "{}", stderr_of(&out));
    let (seq, hash) = head(dir.path());
    for form in [
        format!("{seq}:{hash}"),
        format!("{seq} {hash}"),
        format!("head {seq} {hash}"),
        // Both older heads stay in the chain.
        empty.trim().to_string(),
    ] {
        laurel(dir.path())
            .args(["verify", "--expect", &form])
            .assert()
            .success();
    }
    let wrong = format!("{seq} {}", "0".repeat(64));
    laurel(dir.path())
        .args(["verify", "--expect", &wrong])
        .assert()
        .code(1);
    let out = laurel(dir.path())
        .args(["verify", "--expect", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("as `laurel head` prints it"));
}

#[test]
fn a_key_given_twice_is_refused_naming_it() {
    let dir = empty_ledger();
    let line = seed(r#""Ann""#, r#"1500,"value":1600"#);
    let out = append_text(dir.path(), &line);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("`value` appears twice"), "{err}");
    assert_eq!(head(dir.path()).0, 0, "nothing written");
    // An escaped spelling of the same key is the same key.
    let line = seed(r#""Ann""#, r#"1500,"v\u0061lue":1600"#);
    let out = append_text(dir.path(), &line);
    assert!(stderr_of(&out).contains("`value` appears twice"));
    // An element of a JSON array is refused as a line is.
    let array = format!("[\n{},\n{}\n]", seed(r#""Bo""#, "1500"), line);
    let out = append_text(dir.path(), &array);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains(":3, mepbm.rating_seeded: `value` appears twice"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(head(dir.path()).0, 0, "nothing written");
}

#[test]
fn control_characters_in_names_are_refused() {
    let dir = empty_ledger();
    let control = "control character";
    let mark = "bidirectional mark";
    for (name, what) in [
        (r#""Zed\u001b[1A\r 1  Mallory 9999""#, control),
        (r#""Ann\nBob""#, control),
        (r#""Ann\u0000""#, control),
        ("\"Ann\u{0085}\"", control),
        ("\"Ann\u{202E}nnA\"", mark),
        (r#""Ann\u2066""#, mark),
    ] {
        let out = append_text(dir.path(), &seed(name, "1500"));
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(
            err.contains(&format!("field `player`: holds the {what} U+")),
            "{name}: {err}"
        );
        assert!(
            !err.contains('\u{1b}'),
            "the message itself stays inert: {err:?}"
        );
    }
    assert_eq!(head(dir.path()).0, 0, "nothing written");
    // Printable names outside ASCII are names like any other.
    let out = append_text(dir.path(), &seed(r#""Zoë O’Brien £""#, "1500"));
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn unprintable_arguments_are_escaped_in_messages() {
    let dir = empty_ledger();
    let out = laurel(dir.path())
        .args(["standings", "valar\u{1b}[2J\r"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(!err.contains('\u{1b}') && !err.contains('\r'), "{err:?}");
    assert!(err.contains("\\u{1b}"), "{err:?}");
}

#[test]
fn a_twenty_digit_integer_is_called_out_of_range() {
    let dir = empty_ledger();
    let out = append_text(dir.path(), &seed(r#""Ann""#, "12345678901234567890123"));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("field `value`: integer out of range (about 1.2345678901234568e22)"),
        "{err}"
    );
    assert!(!err.contains("floating-point"), "{err}");
    let out = append_text(dir.path(), &seed(r#""Ann""#, "1500.5"));
    assert!(stderr_of(&out).contains("is a floating-point number"));
}

/// `laurel site` of the ledger in `ledger` into `out`.
fn site(ledger: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    laurel(ledger).arg("site").arg(out).output().unwrap()
}

/// The entries of `dir`, by name.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_site_published_again_is_replaced_whole() {
    let cards = common::ledger_with(&["cards_league.jsonl"]);
    let cfr = common::ledger_with(&["cfr_pbem.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("public");
    assert!(site(cards.path(), &dir).status.success());
    let before = names_in(&dir);
    assert!(
        before.iter().any(|n| n.starts_with("player-ana")),
        "{before:?}"
    );
    let o = site(cfr.path(), &dir);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let after = names_in(&dir);
    assert!(
        !after.iter().any(|n| n.starts_with("player-ana")),
        "{after:?}"
    );
    assert!(after.contains(&"index.html".to_string()));
    // Nothing of the build is left beside it.
    assert_eq!(names_in(out.path()), vec!["public".to_string()]);
}

/// A site directory given as a symbolic link (a web server's document
/// root): the directory it names gets the new site and the link stays; a
/// link to nothing is refused and no build is left beside it.
#[test]
fn a_site_through_a_symbolic_link_replaces_the_directory_it_names() {
    let ledger = common::ledger_with(&["cards_league.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    let (real, link) = (out.path().join("real"), out.path().join("www"));
    assert!(site(ledger.path(), &real).status.success());
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let more = common::ledger_with(&["cards_league.jsonl", "cards_masters.jsonl"]);
    let o = site(more.path(), &link);
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let index = std::fs::read_to_string(real.join("index.html")).unwrap();
    assert!(
        index.contains("cards-2013-masters"),
        "the new site is in real/"
    );
    assert_eq!(
        names_in(out.path()),
        vec!["real".to_string(), "www".to_string()]
    );
    let dangling = out.path().join("dl");
    std::os::unix::fs::symlink(out.path().join("nowhere"), &dangling).unwrap();
    let o = site(ledger.path(), &dangling);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("is a symbolic link to nothing"),
        "{}",
        stderr_of(&o)
    );
    assert_eq!(names_in(out.path()), ["dl", "real", "www"]);
}

#[test]
fn a_site_is_not_written_over_a_directory_of_other_files() {
    let ledger = common::ledger_with(&["cards_league.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("notes.txt"), "mine").unwrap();
    let o = site(ledger.path(), out.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("holds files and no .laurel-site listing what laurel wrote there"),
        "{}",
        stderr_of(&o)
    );
    assert_eq!(names_in(out.path()), vec!["notes.txt".to_string()]);
}

#[test]
fn a_site_is_not_written_over_an_earlier_site_holding_anything_laurel_did_not_write() {
    let ledger = common::ledger_with(&["cards_league.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("public");
    assert!(site(ledger.path(), &dir).status.success());
    // What a site holds is listed in it, and nothing else is there.
    let listed = std::fs::read_to_string(dir.join(".laurel-site")).unwrap();
    let mut listed: Vec<String> = listed.lines().map(str::to_string).collect();
    listed.push(".laurel-site".into());
    listed.sort();
    assert_eq!(names_in(&dir), listed);
    // A page of one's own, a dot file, a directory (a ledger): each refused
    // by name, and left where it is with the site.
    for (name, dir_of_its_own) in [
        ("about.html", false),
        (".htpasswd", false),
        ("ledger.db", true),
    ] {
        let p = dir.join(name);
        match dir_of_its_own {
            true => std::fs::create_dir(&p).unwrap(),
            false => std::fs::write(&p, "mine").unwrap(),
        }
        let before = names_in(&dir);
        let o = site(ledger.path(), &dir);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let want = format!("holds {name:?}, which laurel did not write there");
        assert!(stderr_of(&o).contains(&want), "{}", stderr_of(&o));
        assert_eq!(names_in(&dir), before, "{name}");
        match dir_of_its_own {
            true => std::fs::remove_dir(&p).unwrap(),
            false => std::fs::remove_file(&p).unwrap(),
        }
    }
    assert!(site(ledger.path(), &dir).status.success());
}

#[test]
fn a_site_title_with_a_control_character_is_refused_before_anything_is_written() {
    let ledger = common::ledger_with(&["cards_league.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    for title in ["T\u{1b}[31m", "T\u{7}", "T\u{202e}</title>"] {
        let o = laurel(ledger.path())
            .arg("site")
            .arg(out.path().join("public"))
            .args(["--title", title])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{title:?}");
        assert!(
            stderr_of(&o).contains("--title holds the character U+"),
            "{}",
            stderr_of(&o)
        );
        assert!(names_in(out.path()).is_empty());
    }
}

/// A title longer than 200 characters (every page repeats it) is refused
/// before anything is written; one of 200 is a title.
#[test]
fn a_site_title_over_200_characters_is_refused_before_anything_is_written() {
    let ledger = common::ledger_with(&["cards_league.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let titled = |n: usize| {
        let title = "é".repeat(n);
        let mut site = laurel(ledger.path());
        site.arg("site").arg(&public).args(["--title", &title]);
        site.output().unwrap()
    };
    let o = titled(201);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("--title has 201 characters; a title has at most 200"),
        "{}",
        stderr_of(&o)
    );
    assert!(names_in(out.path()).is_empty());
    let o = titled(200);
    assert!(o.status.success(), "{}", stderr_of(&o));
}

/// A site is never written inside its ledger's directory, where a new or
/// empty `segments/` or `checkpoints/` would otherwise be taken for a place
/// to write and swapped in: refused, reached directly or through a symbolic
/// link, the ledger directory itself too, and the ledger is left as it was.
#[test]
fn a_site_inside_the_ledger_directory_is_refused() {
    let ledger = common::empty_ledger();
    let db = common::db_path(ledger.path());
    let out = tempfile::tempdir().unwrap();
    let link = out.path().join("link");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let before = names_in(&db);
    for dir in [
        db.join("segments"),
        db.join("checkpoints"),
        link.join("segments"),
        db.clone(),
    ] {
        let o = site(ledger.path(), &dir);
        assert_eq!(o.status.code(), Some(2), "{}", dir.display());
        assert!(
            stderr_of(&o).contains("is inside the ledger directory"),
            "{}",
            stderr_of(&o)
        );
        assert_eq!(names_in(&db), before);
    }
    assert!(site(ledger.path(), &out.path().join("public"))
        .status
        .success());
}

#[test]
fn a_killed_site_leaves_nothing_behind() {
    let ledger = empty_ledger();
    let events = common::gen(20_000, 3);
    let o = append_text(ledger.path(), &events);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let tmp = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("public");
    let mut child = common::laurel_std(ledger.path(), &["site", dir.to_str().unwrap()])
        .env("TMPDIR", tmp.path())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = child.kill();
    let _ = child.wait();
    // The audit trail's spill files have no name to leave behind.
    assert!(
        names_in(tmp.path()).is_empty(),
        "{:?}",
        names_in(tmp.path())
    );
    // A build directory of a process that is gone is removed by the next build.
    std::fs::create_dir(out.path().join(".public.building-4294967295")).unwrap();
    let o = site(ledger.path(), &dir);
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert_eq!(names_in(out.path()), vec!["public".to_string()]);
}

#[test]
fn a_name_spelling_another_names_file_gets_its_own_page() {
    let ledger = empty_ledger();
    let tag = &blake3::hash(b"a.b").to_hex()[..8];
    let twin = format!("a-b-{tag}");
    let text = format!(
        "{}\n{}\n",
        seed(r#""a.b""#, "1500"),
        seed(&format!("{twin:?}"), "1600")
    );
    let o = append_text(ledger.path(), &text);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("public");
    assert!(site(ledger.path(), &dir).status.success());
    let pages: Vec<String> = names_in(&dir)
        .into_iter()
        .filter(|n| n.starts_with("player-a-b-"))
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    let a = std::fs::read_to_string(dir.join(format!("player-{twin}.html"))).unwrap();
    let title = |html: &str| {
        html.split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .map(str::to_string)
    };
    assert!(
        title(&a).is_some_and(|t| t.contains("a.b") && !t.contains(&twin)),
        "{:?}",
        title(&a)
    );
}

/// Append `line`, expect exit 2 with `want` in the message and nothing written.
fn refused(dir: &std::path::Path, line: &str, want: &str) {
    let before = head(dir).0;
    let out = append_text(dir, line);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{line}: {err}");
    assert!(err.contains(want), "{line}:\n{err}\nwanted: {want}");
    assert_eq!(head(dir).0, before, "nothing written: {line}");
}

fn accepted(dir: &std::path::Path, text: &str) {
    let out = append_text(dir, text);
    assert!(out.status.success(), "{text}: {}", stderr_of(&out));
}

#[test]
fn a_seed_beyond_the_rating_range_is_refused_naming_the_field() {
    let dir = empty_ledger();
    for (system, value) in [
        ("valar", "9007199254740991"),
        ("maia", "4000000000000000"),
        ("istari", "1000001"),
    ] {
        let line = seed(r#""Ann""#, value).replace("valar", system);
        let want = format!(
            "{system} seed of Ann: field `value`: {value} is out of range; \
             allowed: an integer from 1 to 1000000"
        );
        refused(dir.path(), &line, &want);
    }
    accepted(dir.path(), &seed(r#""Ann""#, "1000000"));
}

/// Every integer field with a range, one past its end: the message names the
/// field and the values allowed, and nothing is written.
#[test]
fn every_numeric_field_beyond_its_range_is_refused_naming_field_and_range() {
    let dir = empty_ledger();
    accepted(
        dir.path(),
        r#"{"type":"mepbm.game_started","at":"2003-01-02","game":"1","scenario":"1650","positions":[{"nation":"Woodmen","player":"Ann","side":"FP"},{"nation":"Witch-king","player":"Bob","side":"DS"}]}
{"type":"cfr.series_defined","at":"2009-07-01","series":"wbc","format":"elimination"}
{"type":"cfr.series_defined","at":"2009-07-01","series":"pbem","format":"points"}
{"type":"cards.tournament_created","at":"2012-12-20","tournament":"t","point_system":1,"starts":"2013-01-01","ends":"2013-12-31"}
{"type":"cards.round_scheduled","at":"2012-12-20","tournament":"t","round":"1","starts":"2013-01-07","ends":"2013-01-20","matches":[{"match":"A","players":["Ana","Boris","Cleo"]}]}
{"type":"sbr.tournament_created","at":"2014-10-25","tournament":"mars"}"#,
    );
    let ended = |turn: &str, vp: &str| {
        format!(
            r#"{{"type":"mepbm.game_ended","at":"2003-03-02","game":"1","turn":{turn},"winner":"FP","nations":[{{"nation":"Woodmen","victory_points":{vp},"eliminated":false}}]}}"#
        )
    };
    let heat = r#"[{"driver":"Al","place":1}]"#;
    let heats = |n: usize| vec![heat; n].join(",");
    let elimination = |n: usize| {
        format!(
            r#"{{"type":"cfr.event_completed","at":"2009-08-08","series":"wbc","event":"e{n}","heats":[{}],"final":{heat}}}"#,
            heats(n)
        )
    };
    let series = |extra: &str| {
        format!(
            r#"{{"type":"cfr.series_defined","at":"2009-07-01","series":"s","format":"{extra}}}"#
        )
    };
    let cases = [
        (ended("1001", "0"), "game 1: field `turn`: 1001 is out of range; allowed: an integer from 0 to 1000".to_string()),
        (ended("30", "1000001"), "game 1, nation Woodmen: field `victory_points`: 1000001 is out of range; allowed: an integer from 0 to 1000000".into()),
        (series(r#"elimination","final_points":[2000000]"#), "`final_points` value 2000000 is out of range; allowed: an integer from 0 to 1000000".into()),
        (series(r#"points","race_points":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]"#), "`race_points` has 101 places; a table has at most 100".into()),
        (series(r#"points","tier_offset":1001"#), "field `tier_offset`: 1001 is out of range; allowed: an integer from 0 to 1000".into()),
        (series(r#"elimination","heat_decay":"0.9999999""#), "`heat_decay` \"0.9999999\" has 7 decimal places; at most 6".into()),
        (
            r#"{"type":"cfr.event_completed","at":"2009-08-08","series":"pbem","event":"1","races":[{"tier":1001,"results":[{"driver":"Al","place":1}]}]}"#.into(),
            "race 1: field `tier`: 1001 is out of range; allowed: an integer from 1 to 1000".into(),
        ),
        (elimination(101), "101 heats; an elimination event runs at most 100".into()),
        (
            r#"{"type":"cards.match_result","at":"2013-01-10","tournament":"t","round":"1","match":"A","scores":[{"player":"Ana","score":2000000},{"player":"Boris","score":-1000000},{"player":"Cleo","score":-1000000}]}"#.into(),
            "player \"Ana\": field `score`: 2000000 is out of range; allowed: an integer from -1000000 to 1000000".into(),
        ),
        (
            r#"{"type":"diplomacy.game_ended","at":"2024-03-09","game":"d","result":"draw","powers":[{"power":"A","player":"P1","centers":10},{"power":"B","player":"P2","centers":0,"eliminated":10000}]}"#.into(),
            "power B: field `eliminated`: 10000 is out of range; allowed: an integer from 1 to 9999".into(),
        ),
        (
            r#"{"type":"sbr.game_played","at":"2014-10-25T09:30:00Z","tournament":"mars","stage":"seeding","match":"s1","game":1,"seats":[{"seat":"red","player":"Al","score":10},{"seat":"yellow","player":null,"score":268},{"seat":"green","player":null,"score":1},{"seat":"blue","player":null,"score":1}]}"#.into(),
            "bot (yellow seat): field `score`: 268 is out of range; allowed: an integer from 0 to 267".into(),
        ),
    ];
    for (line, want) in &cases {
        refused(dir.path(), line, want);
        // In canonical form (keys sorted, no spaces), as an export writes it:
        // the same refusal.
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let canonical = String::from_utf8(laurel::events::to_canonical(&value)).unwrap();
        refused(dir.path(), &canonical, want);
    }
    // The ends themselves are admitted.
    accepted(dir.path(), &ended("1000", "1000000"));
    accepted(dir.path(), &elimination(100));
}

#[test]
fn a_maia_win_parameter_beyond_its_range_is_refused() {
    let dir = empty_ledger();
    let want = "maia.win: 1000000000000 is out of range; allowed: an integer from 0 to 1000";
    refused(
        dir.path(),
        r#"{"type":"ledger.rules_changed","at":"2003-01-01","system":"maia","params":{"win":1000000000000}}"#,
        want,
    );
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, r#"{"maia": {"win": 1000000000000}}"#).unwrap();
    let out = laurel(dir.path())
        .args(["replay", "--rules"])
        .arg(&rules)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains(want), "{}", stderr_of(&out));
}

/// Every parameter at the end of its range that makes changes largest, seeds
/// at both ends of theirs, seventy games at the last turn with the most
/// victory points, and CFR events of the most heats at the finest decay:
/// every table comes back, each in under a second, CFR scores from 0 to 100.
#[test]
fn the_largest_admitted_values_give_a_table_in_under_a_second() {
    let dir = empty_ledger();
    let mut lines = vec![
        r#"{"type":"ledger.rules_changed","at":"2000-01-01","system":"valar","params":{"base":10000,"divisor":1}}"#.to_string(),
        r#"{"type":"ledger.rules_changed","at":"2000-01-01","system":"maia","params":{"win":1000,"draw":1000,"loss":1000}}"#.into(),
        r#"{"type":"ledger.rules_changed","at":"2000-01-01","system":"small_game","params":{"factor":"1"}}"#.into(),
        r#"{"type":"ledger.rules_changed","at":"2000-01-01","system":"monthly","params":{"factor":"0.999999"}}"#.into(),
        r#"{"type":"ledger.rules_changed","at":"2000-01-01","system":"cfr","params":{"heat_decay":"0.999999","decimals":9}}"#.into(),
    ];
    for (p, v) in [("Ann", 1_000_000), ("Bob", 1)] {
        for system in ["valar", "maia", "istari"] {
            lines.push(format!(
                r#"{{"type":"mepbm.rating_seeded","at":"2000-01-02","player":"{p}","system":"{system}","value":{v}}}"#
            ));
        }
    }
    for g in 0..70 {
        let (day, hour) = (1 + g / 24, g % 24);
        let winner = if g % 2 == 0 { "DS" } else { "FP" };
        lines.push(format!(
            r#"{{"type":"mepbm.game_started","at":"2001-01-{day:02}T{hour:02}:00:00Z","game":"{g}","scenario":"1650","positions":[{{"nation":"Woodmen","player":"Ann","side":"FP"}},{{"nation":"Witch-king","player":"Bob","side":"DS"}}]}}"#
        ));
        lines.push(format!(
            r#"{{"type":"mepbm.game_ended","at":"2001-01-{day:02}T{hour:02}:30:00Z","game":"{g}","turn":1000,"winner":"{winner}","nations":[{{"nation":"Woodmen","victory_points":{},"eliminated":false}},{{"nation":"Witch-king","victory_points":1000000,"eliminated":false}}]}}"#,
            g % 2 * 1_000_000
        ));
    }
    lines.push(r#"{"type":"mepbm.monthly_tick","at":"2001-04-01","month":"2001-03"}"#.into());
    lines.push(r#"{"type":"cfr.series_defined","at":"2009-07-01","series":"wbc","format":"elimination","heat_decay":"0.999999"}"#.into());
    let heat = r#"[{"driver":"Al","place":1},{"driver":"Bo","place":2}]"#;
    for (e, heats) in [(1, 100), (2, 99), (3, 1)] {
        lines.push(format!(
            r#"{{"type":"cfr.event_completed","at":"2009-08-0{e}","series":"wbc","event":"{e}","heats":[{}],"final":[{{"driver":"Bo","place":1}}]}}"#,
            vec![heat; heats].join(",")
        ));
    }
    accepted(dir.path(), &lines.join("\n"));
    for table in ["valar", "maia", "istari", "nations", "nazgul", "cfr"] {
        let start = std::time::Instant::now();
        let out = laurel(dir.path())
            .args(["standings", table, "--format", "json"])
            .output()
            .unwrap();
        let took = start.elapsed();
        assert!(out.status.success(), "{table}: {}", stderr_of(&out));
        assert!(
            took < std::time::Duration::from_secs(1),
            "{table}: {took:?}"
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for row in v["rows"].as_array().unwrap() {
            let score = &row["score"];
            assert!(score.is_number(), "{table}: {row}");
            if table == "cfr" {
                let s = score.as_f64().unwrap();
                assert!((0.0..=100.0).contains(&s), "{table}: {row}");
            }
        }
    }
}

/// A reader that stops early (`laurel gen | head -1`) is not a failure: the
/// command ends quietly with exit 0, whichever path was writing stdout.
#[test]
fn a_closed_stdout_ends_quietly_with_exit_0() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = empty_ledger();
    append_text(dir.path(), &seed("\"Ann\"", "1500"));
    let commands: [&[&str]; 2] = [&["gen", "--events", "200000"], &["demo"]];
    for args in commands {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("laurel"))
            .arg("--ledger")
            .arg(dir.path().join("laurel.db"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty(), "{args:?} printed a line");
        // The pipe's reading end is dropped here; the writer meets EPIPE.
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        assert_eq!(stderr_of(&out), "", "{args:?}");
    }
}

/// Every argument and option of every command says what it is in `--help`
/// (a name alone, with nothing beside it, is a help text missing).
#[test]
fn every_argument_of_every_command_has_help_text() {
    let dir = empty_ledger();
    let help = |args: &[&str]| {
        let out = laurel(dir.path()).args(args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    for c in commands {
        let text = help(&[c.as_str(), "--help"]);
        for line in text
            .lines()
            .filter(|l| l.starts_with("  <") || l.starts_with("  -"))
        {
            let described = line
                .trim()
                .split("  ")
                .filter(|p| !p.trim().is_empty())
                .count()
                >= 2;
            assert!(described, "`laurel {c}`: no help for {:?}", line.trim());
        }
    }
}

/// A mistyped table name is refused with the table it is nearest to.
#[test]
fn a_mistyped_table_suggests_the_nearest_one() {
    let dir = empty_ledger();
    let out = laurel(dir.path())
        .args(["standings", "valr"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains(r#"unknown standings table "valr"; did you mean "valar"?"#),
        "{err}"
    );
    let out = laurel(dir.path())
        .args(["standings", "zzzzzz"])
        .output()
        .unwrap();
    assert!(
        !stderr_of(&out).contains("did you mean"),
        "{}",
        stderr_of(&out)
    );
}
