//! `laurel check FILE|-`: a dry run of `append`. It reports what the append
//! would add (the same counts), refuses what the append refuses (with the same
//! message and exit code: `tests/it/corpus.rs` runs it on every bad-input case), and
//! writes nothing in the ledger's directory: every file's name, length,
//! modification time and bytes are the same before and after.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use common::{append_text, empty_ledger, events_dir, head, laurel};

/// Every file under `dir` (recursively) with its length, modification time
/// and BLAKE3 of its bytes; directories by name.
fn fingerprint(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(dir).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                out.insert(name, "dir".into());
                stack.push(p);
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            let when = meta.modified().unwrap();
            let what = format!("{} {:?} {}", meta.len(), when, blake3::hash(&bytes));
            out.insert(name, what);
        }
    }
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The counts of an append's or a check's report: its first line after the
/// verb, and the per-type lines (`head` and the closing line left out).
fn counts(report: &str) -> Vec<String> {
    let mut lines = report.lines();
    let first = lines.next().unwrap_or_default();
    let first = (first.strip_prefix("ok: would append "))
        .or_else(|| first.strip_prefix("appended "))
        .unwrap_or_else(|| panic!("not a report: {report}"));
    let first = first.replace("nothing would be added", "nothing added");
    let per_type = lines.filter(|l| l.starts_with("  ")).map(str::to_string);
    std::iter::once(first).chain(per_type).collect()
}

fn check(db: &Path, file: &Path) -> Output {
    laurel(db).arg("check").arg(file).output().expect("ran")
}

fn append(db: &Path, file: &Path) -> Output {
    laurel(db).arg("append").arg(file).output().expect("ran")
}

fn sample_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(events_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

/// `check` then `append` of `file` on the ledger in `dir`: the same exit code
/// and stderr, the same counts, and nothing written by the check. Whether
/// the append succeeded.
fn check_then_append(dir: &Path, file: &Path) -> bool {
    let db = dir.join("laurel.db");
    let before = fingerprint(&db);
    let checked = check(dir, file);
    let name = file.display();
    assert_eq!(
        fingerprint(&db),
        before,
        "{name}: check wrote to the ledger"
    );
    let appended = append(dir, file);
    assert_eq!(checked.status.code(), appended.status.code(), "{name}");
    assert_eq!(stderr(&checked), stderr(&appended), "{name}");
    if !appended.status.success() {
        return false;
    }
    let (c, a) = (stdout(&checked), stdout(&appended));
    assert!(
        c.ends_with("nothing written: the ledger is unchanged\n"),
        "{c}"
    );
    assert_eq!(counts(&c), counts(&a), "{name}:\n{c}\n{a}");
    // Once appended, a check finds every event already recorded.
    let again = stdout(&check(dir, file));
    let n = counts(&a)[0].split(' ').next().unwrap().to_string();
    let expected = format!("ok: would append 0 event(s); {n} already recorded");
    assert!(again.starts_with(&expected), "{name}: {again}");
    true
}

/// Each bundled stream on a fresh ledger, and on the ledger of the streams
/// before it in name order (the order `laurel demo` appends them: a stream
/// such as `mepbm_late_2.jsonl` continues an earlier one).
#[test]
fn check_of_every_bundled_stream_reports_the_counts_append_then_reports_and_writes_nothing() {
    let files = sample_files();
    assert_eq!(files.len(), laurel::demo::BUNDLED.len());
    let all = empty_ledger();
    let mut alone = 0;
    for file in &files {
        alone += usize::from(check_then_append(empty_ledger().path(), file));
        let name = file.display();
        assert!(
            check_then_append(all.path(), file),
            "{name} after the ones before it"
        );
    }
    // All but mepbm_late_2.jsonl stand alone.
    assert_eq!(alone, files.len() - 1);
}

#[test]
fn check_lists_the_count_of_each_type_and_the_already_recorded() {
    let dir = empty_ledger();
    let tick = |id: &str, at: &str, month: &str| {
        format!(r#"{{"type":"mepbm.monthly_tick","id":"{id}","at":"{at}","month":"{month}"}}"#)
    };
    let first = tick("t1", "2003-02-01", "2003-01");
    assert!(append_text(dir.path(), &first).status.success());
    let seed = r#"{"type":"mepbm.rating_seeded","at":"2003-01-05","player":"Ann","system":"valar","value":1500}"#;
    let text = [
        first,
        tick("t2", "2003-03-01", "2003-02"),
        tick("t3", "2003-04-01", "2003-03"),
        seed.into(),
    ]
    .join("\n");
    let out = laurel(dir.path())
        .args(["check", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // Two new ticks and one seed, whose player is new; t1 is already recorded
    // with the same content.
    assert_eq!(
        stdout(&out),
        "ok: would append 3 event(s); 1 already recorded (nothing would be added for them)\n  \
         2 mepbm.monthly_tick\n  \
         1 mepbm.rating_seeded\n\
         1 new player: Ann\n\
         nothing written: the ledger is unchanged\n"
    );
    assert_eq!(head(dir.path()).0, 1);
}

/// A late event sorts before recorded ones and voids break dependants: check
/// folds them as the append does, from a checkpoint the new records leave
/// valid, and neither uses nor drops those they invalidate (the append drops
/// them: the directory changes only with the append).
#[test]
fn check_of_a_late_event_and_of_a_breaking_void_answers_as_append_without_touching_checkpoints() {
    let dir = empty_ledger();
    let db = dir.path().join("laurel.db");
    let valar = events_dir().join("mepbm_valar.jsonl");
    let out = laurel(dir.path())
        .env("LAUREL_CHECKPOINT_EVERY", "5")
        .arg("append")
        .arg(&valar)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fingerprint(&db)
        .keys()
        .any(|k| k.starts_with("checkpoints/")));
    // Seq 24 starts the game of mepbm_valar.jsonl: voiding it breaks what follows.
    let cases = [
        (
            "late",
            0,
            r#"{"type":"mepbm.rating_seeded","at":"1999-01-01","player":"Zed","system":"maia","value":1500}"#,
        ),
        (
            "void",
            2,
            r#"{"type":"ledger.voided","at":"2020-01-01","target":24,"reason":"test"}"#,
        ),
    ];
    for (name, code, line) in cases {
        let file = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&file, line).unwrap();
        let before = fingerprint(&db);
        let checked = laurel(dir.path())
            .env("LAUREL_CHECKPOINT_EVERY", "5")
            .arg("check")
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            fingerprint(&db),
            before,
            "{name}: check wrote to the ledger"
        );
        let appended = laurel(dir.path())
            .env("LAUREL_CHECKPOINT_EVERY", "5")
            .arg("append")
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            appended.status.code(),
            Some(code),
            "{name}: {}",
            stderr(&appended)
        );
        assert_eq!(checked.status.code(), appended.status.code(), "{name}");
        assert_eq!(stderr(&checked), stderr(&appended), "{name}");
        if appended.status.success() {
            assert_eq!(counts(&stdout(&checked)), counts(&stdout(&appended)));
        }
    }
}

/// `check` is a reader: it takes no writer lock, so it answers while a
/// writer holds `laurel.lock` (an append then is refused at once).
#[test]
fn check_runs_while_a_writer_holds_the_lock() {
    let dir = empty_ledger();
    let lock = std::fs::File::options()
        .write(true)
        .open(dir.path().join("laurel.db/laurel.lock"))
        .unwrap();
    lock.try_lock().unwrap();
    let file = events_dir().join("sbr_mars_2014.jsonl");
    let checked = check(dir.path(), &file);
    assert!(checked.status.success(), "{}", stderr(&checked));
    let appended = append(dir.path(), &file);
    assert_eq!(appended.status.code(), Some(2));
    assert!(
        stderr(&appended).contains("in use"),
        "{}",
        stderr(&appended)
    );
}

#[test]
fn check_of_a_missing_ledger_or_file_fails_as_append_does() {
    let dir = tempfile::tempdir().unwrap();
    let file = events_dir().join("sbr_mars_2014.jsonl");
    let (c, a) = (check(dir.path(), &file), append(dir.path(), &file));
    assert_eq!(c.status.code(), Some(2));
    assert_eq!((c.status.code(), stderr(&c)), (a.status.code(), stderr(&a)));
    let dir = empty_ledger();
    let missing = dir.path().join("nope.jsonl");
    let (c, a) = (check(dir.path(), &missing), append(dir.path(), &missing));
    assert_eq!(c.status.code(), Some(2));
    assert_eq!((c.status.code(), stderr(&c)), (a.status.code(), stderr(&a)));
}

/// `correct --dry-run` and `void --dry-run` are the append's dry run too:
/// what they would do, or the same refusal and exit code as the command,
/// and nothing written. A replacement reusing SEQ's id, which `check` refuses
/// as an id conflict, is tried with its void.
#[test]
fn correct_and_void_dry_runs_say_what_they_would_do_and_write_nothing() {
    let dir = empty_ledger();
    let db = dir.path().join("laurel.db");
    let league = events_dir().join("cards_league.jsonl");
    assert!(append(dir.path(), &league).status.success());
    let text = std::fs::read_to_string(&league).unwrap();
    let last = text.lines().last().unwrap();
    let n = text.lines().count();
    let fixed = dir.path().join("fixed.jsonl");
    let moved = (last.replacen("\"score\": 80", "\"score\": 70", 1)).replacen(
        "\"score\": -20",
        "\"score\": -10",
        1,
    );
    assert_ne!(moved, last);
    std::fs::write(&fixed, moved).unwrap();
    let run = |args: &[&str]| laurel(dir.path()).args(args).output().expect("ran");
    let before = fingerprint(&db);
    let seq = n.to_string();
    let fixed_arg = fixed.to_str().unwrap();
    let tried = run(&["correct", &seq, fixed_arg, "--reason", "r", "--dry-run"]);
    assert!(tried.status.success(), "{}", stderr(&tried));
    let said = stdout(&tried);
    assert!(
        said.starts_with(&format!(
            "would void record {n} and append its replacement\nok: would append 2 event(s)"
        )),
        "{said}"
    );
    assert!(
        said.ends_with("nothing written: the ledger is unchanged\n"),
        "{said}"
    );
    let voided = stdout(&run(&["void", &seq, "--reason", "r", "--dry-run"]));
    assert!(
        voided.starts_with(&format!("would void record {n} (")),
        "{voided}"
    );
    assert_eq!(fingerprint(&db), before, "a dry run wrote to the ledger");
    // A refusal reads as the command's.
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"x\"}\n{\"type\":\"y\"}\n").unwrap();
    let bad = bad.to_str().unwrap();
    let tried = run(&["correct", &seq, bad, "--reason", "r", "--dry-run"]);
    assert_eq!(fingerprint(&db), before);
    let failed = run(&["correct", &seq, bad, "--reason", "r"]);
    assert_eq!(tried.status.code(), Some(2));
    assert_eq!(stderr(&tried), stderr(&failed));
    assert_eq!(head(dir.path()).0, n as u64);
}
