//! `laurel restore FILE`: a new ledger rebuilt from an export, record for
//! record, or refused with nothing written.

mod common;

use std::path::Path;

use common::{append_ok, empty_ledger, events_dir, head, laurel, ok};
use serde_json::Value;

/// A ledger of several appends: every bundled file in turn, a void, a
/// registration and a rule change (the tour's).
fn many_appends() -> tempfile::TempDir {
    let dir = empty_ledger();
    let mut files: Vec<_> = std::fs::read_dir(events_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        laurel(dir.path()).arg("append").arg(f).assert().success();
    }
    ok(dir.path(), &["void", "5", "--reason", "entered twice"]);
    ok(
        dir.path(),
        &["players", "add", "Zed Quill", "--at", "2010-01-01"],
    );
    dir
}

/// `laurel restore FILE` into the ledger of `dir`.
fn restore(dir: &Path, file: &Path) -> std::process::Output {
    laurel(dir).arg("restore").arg(file).output().unwrap()
}

fn export_of(dir: &Path) -> String {
    ok(dir, &["export"])
}

/// The lines of `export`, hashed again from the first changed one on as an
/// outside tool would (serde_json's map is sorted and compact: canonical
/// JSON here), so that only what laurel checks beyond the hashes can refuse them.
fn rechained(export: &str, change: &dyn Fn(usize, &mut Value)) -> String {
    let mut prev = "0".repeat(64);
    let mut out = String::new();
    for (i, line) in export.lines().enumerate() {
        let mut rec: Value = serde_json::from_str(line).unwrap();
        rec.as_object_mut().unwrap().remove("hash");
        rec["prev"] = Value::String(prev.clone());
        change(i + 1, &mut rec);
        let hash = blake3::hash(serde_json::to_string(&rec).unwrap().as_bytes());
        prev = hash.to_hex().to_string();
        rec["hash"] = Value::String(prev.clone());
        out.push_str(&serde_json::to_string(&rec).unwrap());
        out.push('\n');
    }
    out
}

/// Restoring `text` into a new ledger fails with exit 2 and every needle,
/// leaving neither the ledger nor its work directory.
fn refused(text: &str, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, text).unwrap();
    let out = restore(dir.path(), &file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} lacks {n:?}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec!["export.jsonl"],
        "a refused restore wrote {left:?}"
    );
}

#[test]
fn restore_gives_back_every_record_its_time_recorded_and_the_head() {
    let first = many_appends();
    let export = export_of(first.path());
    let file = first.path().join("export.jsonl");
    std::fs::write(&file, &export).unwrap();
    let again = tempfile::tempdir().unwrap();
    let out = restore(again.path(), &file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    let (seq, hash) = head(first.path());
    assert!(said.contains(&format!("head {seq} {hash}")), "{said}");
    assert!(said.contains("20 append(s)"), "{said}");
    assert_eq!(head(again.path()), (seq, hash));
    assert_eq!(export_of(again.path()), export, "byte for byte");
    laurel(again.path()).arg("verify").assert().success();
    for args in [
        &["log"][..],
        &["players"],
        &["history", "Ana"],
        &["standings", "valar"],
    ] {
        assert_eq!(ok(again.path(), args), ok(first.path(), args), "{args:?}");
    }
    // A known-at time cuts the restored ledger where it cut the first: its
    // appends kept their times.
    let second_append = export.lines().nth(5).unwrap();
    let at: Value = serde_json::from_str(second_append).unwrap();
    let at = at["recorded_at"].as_str().unwrap();
    let args = ["standings", "cards", "--known-at", at];
    assert_eq!(ok(again.path(), &args), ok(first.path(), &args));
    // The restored ledger takes appends as any other.
    append_ok(
        again.path(),
        r#"{"type":"mepbm.monthly_tick","at":"2020-02-01","month":"2020-01"}"#,
    );
}

#[test]
fn restore_of_an_empty_export_is_an_empty_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, "").unwrap();
    let out = restore(dir.path(), &file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(head(dir.path()).0, 0);
}

#[test]
fn restore_refuses_an_existing_ledger_a_file_and_a_directory_not_empty() {
    let first = many_appends();
    let file = first.path().join("export.jsonl");
    std::fs::write(&file, export_of(first.path())).unwrap();
    let before = head(first.path());
    let out = restore(first.path(), &file);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    assert_eq!(head(first.path()), before);
    let other = tempfile::tempdir().unwrap();
    let ledger = other.path().join("laurel.db");
    for (make, said) in [
        (
            &|p: &Path| std::fs::write(p, "x").unwrap() as _,
            "is a file",
        ),
        (
            &|p: &Path| {
                std::fs::create_dir(p).unwrap();
                std::fs::write(p.join("notes.txt"), "x").unwrap();
            },
            "is not empty",
        ),
    ] as [(&dyn Fn(&Path), &str); 2]
    {
        let _ = std::fs::remove_file(&ledger);
        make(&ledger);
        let out = restore(other.path(), &file);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{err}");
        assert!(!other.path().join(".laurel.db.restoring").exists());
    }
    // An empty directory is taken.
    std::fs::remove_dir_all(&ledger).unwrap();
    std::fs::create_dir(&ledger).unwrap();
    assert!(restore(other.path(), &file).status.success());
    assert_eq!(head(other.path()), before);
}

#[test]
fn restore_refuses_a_changed_missing_or_foreign_line_naming_it() {
    let export = export_of(many_appends().path());
    let changed = export.replacen("\"Ana\"", "\"Anna\"", 1);
    let line = export.lines().position(|l| l.contains("\"Ana\"")).unwrap() + 1;
    let at =
        format!("export.jsonl:{line}: record {line}: its hash is not the hash of its contents");
    refused(&changed, &[&at]);
    let missing: Vec<&str> = export
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 2)
        .map(|(_, l)| l)
        .collect();
    refused(
        &(missing.join("\n") + "\n"),
        &["export.jsonl:3: record 4 where record 3 comes"],
    );
    let events = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    refused(&events, &["export.jsonl:1: not a line of `laurel export`"]);
}

#[test]
fn restore_refuses_a_rechained_export_whose_chain_laurel_would_not_make() {
    let export = export_of(many_appends().path());
    let n = export.lines().count();
    // Times recorded out of order, or not in laurel's form.
    let early = rechained(&export, &|i, r| {
        if i == n {
            r["recorded_at"] = "2001-01-01T00:00:00.000000Z".into();
        }
    });
    refused(&early, &[&format!("export.jsonl:{n}, seq {n}: recorded_at 2001-01-01T00:00:00.000000Z is before the line above's")]);
    let loose = rechained(&export, &|i, r| {
        if i == 1 {
            r["recorded_at"] = "2001-01-01T00:00:00Z".into();
        }
    });
    refused(
        &loose,
        &["export.jsonl:1, seq 1: recorded_at \"2001-01-01T00:00:00Z\" is not in laurel's form"],
    );
    // An event today's rules refuse, in a later append: refused as an
    // append refuses it, at the export's line.
    // The last of the last file's (the void and the registration follow).
    let line = n - 2;
    let bad = rechained(&export, &|i, r| {
        if i == line {
            r["event"]["at"] = "not a date".into();
        }
    });
    refused(
        &bad,
        &[
            &format!("export.jsonl:{line}, "),
            "\"not a date\" is not a date",
        ],
    );
    // An event in another form than laurel writes (keys out of order),
    // hashed as it stands: the chain rebuilt differs from the export's.
    let first: Value = serde_json::from_str(export.lines().next().unwrap()).unwrap();
    let event = first["event"].as_object().unwrap();
    let fields: Vec<String> = (event.iter().rev())
        .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
        .collect();
    let event = format!("{{{}}}", fields.join(","));
    let (prev, at) = ("0".repeat(64), first["recorded_at"].as_str().unwrap());
    let record = format!(r#"{{"event":{event},"prev":"{prev}","recorded_at":"{at}","seq":1}}"#);
    let hash = blake3::hash(record.as_bytes()).to_hex();
    let line = format!(
        r#"{{"event":{event},"hash":"{hash}","prev":"{prev}","recorded_at":"{at}","seq":1}}"#
    );
    refused(
        &line,
        &["export.jsonl:1, seq 1: the records 1–1 give another chain than the export's"],
    );
}
