//! What an administrator relies on when input is hostile or a published head
//! is checked: ambiguous or terminal-rewriting input is refused with a message
//! naming it and nothing is written; what reaches the terminal anyway is
//! escaped; `verify --expect` takes the head as `laurel head` prints it.

mod common;

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
        stderr_of(&out).contains(":3: `value` appears twice"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(head(dir.path()).0, 0, "nothing written");
}

#[test]
fn control_characters_in_names_are_refused() {
    let dir = empty_ledger();
    for name in [
        r#""Zed\u001b[1A\r 1  Mallory 9999""#,
        r#""Ann\nBob""#,
        r#""Ann\u0000""#,
        "\"Ann\u{0085}\"",
        "\"Ann\u{202E}nnA\"",
        r#""Ann\u2066""#,
    ] {
        let out = append_text(dir.path(), &seed(name, "1500"));
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(
            err.contains("field `player`: holds the control character U+"),
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

#[test]
fn a_site_is_not_written_over_a_directory_of_other_files() {
    let ledger = common::ledger_with(&["cards_league.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("notes.txt"), "mine").unwrap();
    let o = site(ledger.path(), out.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("is not a laurel site"),
        "{}",
        stderr_of(&o)
    );
    assert_eq!(names_in(out.path()), vec!["notes.txt".to_string()]);
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
