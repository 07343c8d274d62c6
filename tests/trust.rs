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
