//! Readers are never locked out: every reading command reads the published
//! view (`HEAD`, `index`, `fps`: src/ledger/published.rs) with no lock, no
//! sled and no file opened for writing, so it runs beside a writer and other
//! readers, on a read-only copy and where no file may grow, and sees the
//! last published head for its whole run.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command as Std, Output, Stdio};
use std::time::{Duration, Instant};

use common::{db_path, empty_ledger, gen, head, held_append, laurel, laurel_std};

/// Every reading command, as run on a small ledger with checkpoints.
const READERS: &[&[&str]] = &[
    &["head"],
    &["verify"],
    &["export"],
    &["log"],
    &["standings", "valar"],
    &["standings", "valar", "--as-of", "2001-06-01"],
    &["history", "p00001g"],
    &["rules", "--format", "json"],
    &["replay", "--rules", "RULES", "--diff"],
    &["fold"],
];

/// `n` rule changes in `year`, a second apart: valid after any stream.
fn rule_changes(n: usize, year: u32) -> String {
    (0..n)
        .map(|k| {
            format!(
                r#"{{"type":"ledger.rules_changed","at":"{year}-01-01T{:02}:{:02}:{:02}Z","system":"valar","params":{{"base":{}}}}}"#,
                k / 3600,
                k / 60 % 60,
                k % 60,
                40 + k % 7
            ) + "\n"
        })
        .collect()
}

/// A ledger of 3000 generated events, then 200 rule changes dated among
/// them (a second append, which invalidates checkpoints), checkpoints every
/// 500 records.
fn sample() -> tempfile::TempDir {
    let dir = empty_ledger();
    for part in [gen(3000, 7), rule_changes(200, 2001)] {
        let out = laurel(dir.path())
            .env("LAUREL_CHECKPOINT_EVERY", "500")
            .args(["append", "-"])
            .write_stdin(part)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    dir
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `args` with `RULES` replaced by a rules file in `dir`.
fn with_rules(dir: &Path, args: &[&str]) -> Vec<String> {
    let rules = dir.join("rules.json");
    if !rules.exists() {
        std::fs::write(&rules, r#"{"valar":{"base":40}}"#).unwrap();
    }
    let rules = rules.display().to_string();
    args.iter()
        .map(|a| {
            if *a == "RULES" {
                rules.clone()
            } else {
                a.to_string()
            }
        })
        .collect()
}

/// Run a reading command; its stdout, once it exited 0.
fn read(dir: &Path, args: &[&str]) -> String {
    let out = laurel_std(dir, &[])
        .args(with_rules(dir, args))
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn readers_succeed_while_an_append_is_running() {
    let dir = sample();
    let before = head(dir.path());
    let answers: Vec<String> = READERS.iter().map(|a| read(dir.path(), a)).collect();
    let (writer, stdin) = held_append(dir.path(), &rule_changes(1000, 2020));
    for (args, answer) in READERS.iter().zip(&answers) {
        let started = Instant::now();
        assert_eq!(&read(dir.path(), args), answer, "{args:?} beside a writer");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{args:?} took {:?}",
            started.elapsed()
        );
    }
    assert_eq!(head(dir.path()), before, "the pre-append head");
    // `site` reads the ledger as the others do (its output goes elsewhere).
    let site = tempfile::tempdir().unwrap();
    read(
        dir.path(),
        &["site", site.path().join("s").to_str().unwrap()],
    );
    // Only a second writer is refused.
    let out = laurel(dir.path())
        .args(["append", "-"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("ledger is in use by another process"));
    drop(stdin);
    let out = writer.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(head(dir.path()).0, before.0 + 1000, "the head moved");
    read(dir.path(), &["verify"]);
}

#[test]
fn sixteen_readers_started_together_all_succeed() {
    let dir = sample();
    let kinds: Vec<&[&str]> = [
        vec![&["head"][..]; 8],
        vec![&["verify"][..]; 4],
        vec![&["standings", "valar"][..]; 4],
    ]
    .concat();
    let children: Vec<Child> = kinds
        .iter()
        .map(|args| {
            laurel_std(dir.path(), args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for (args, out) in kinds.iter().zip(&outs) {
        assert!(out.status.success(), "{args:?}: {}", stderr(out));
    }
    for (i, args) in kinds.iter().enumerate() {
        let first = kinds.iter().position(|a| a == args).unwrap();
        assert_eq!(outs[i].stdout, outs[first].stdout, "{args:?} differ");
    }
    let head_line = String::from_utf8_lossy(&outs[0].stdout).into_owned();
    assert!(head_line.starts_with("3200 "), "{head_line}");
}

/// (path, size, mtime, BLAKE3) of every file and directory under `dir`.
fn snapshot(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime, String)> {
    let mut all = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let hash = match m.is_dir() {
                true => {
                    todo.push(p.clone());
                    String::new()
                }
                false => blake3::hash(&std::fs::read(&p).unwrap())
                    .to_hex()
                    .to_string(),
            };
            all.push((p, m.len(), m.modified().unwrap(), hash));
        }
        let m = std::fs::metadata(&d).unwrap();
        all.push((d, 0, m.modified().unwrap(), String::new()));
    }
    all.sort();
    all
}

#[test]
fn reading_commands_leave_the_ledger_untouched() {
    let dir = sample();
    // An append killed mid-way leaves chunks beyond the head for the next
    // writer to drop: readers leave them too.
    let (mut writer, stdin) = held_append(dir.path(), &rule_changes(1000, 2021));
    writer.kill().unwrap();
    writer.wait().unwrap();
    drop(stdin);
    let rules_dir = tempfile::tempdir().unwrap();
    let before = snapshot(&db_path(dir.path()));
    std::thread::sleep(Duration::from_millis(20));
    for args in READERS {
        let out = laurel_std(dir.path(), &[])
            .args(with_rules(rules_dir.path(), args))
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let site = rules_dir.path().join("site");
    read(dir.path(), &["site", site.to_str().unwrap()]);
    assert_eq!(snapshot(&db_path(dir.path())), before);
}

/// `laurel ARGS` on the ledger at `db`, as user and group 65534 (root reads
/// and writes whatever the mode bits say).
fn as_nobody(db: &Path, args: &[String]) -> Output {
    Std::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("laurel"))
        .arg("--ledger")
        .arg(db)
        .args(args)
        .env_remove("LAUREL_LEDGER")
        .output()
        .unwrap()
}

fn setpriv_works() -> bool {
    Std::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn reading_commands_work_on_a_read_only_copy() {
    if !setpriv_works() {
        common::skip("setpriv cannot run a command as user 65534 here");
        return;
    }
    let dir = sample();
    // Where user 65534 can read it: a world-readable directory of our own.
    let copy = tempfile::tempdir().unwrap();
    let ro = copy.path().join("ro.db");
    let status = Std::new("cp")
        .arg("-a")
        .arg(db_path(dir.path()))
        .arg(&ro)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(copy.path().join("rules.json"), r#"{"valar":{"base":40}}"#).unwrap();
    for p in [copy.path(), ro.as_path()] {
        Std::new("chmod").arg("a+rX").arg(p).status().unwrap();
    }
    assert!(Std::new("chmod")
        .args(["-R", "a-w"])
        .arg(&ro)
        .status()
        .unwrap()
        .success());
    let before = snapshot(&ro);
    for args in READERS {
        let args = with_rules(copy.path(), args);
        let out = as_nobody(&ro, &args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let original = laurel_std(dir.path(), &[]).args(&args).output().unwrap();
        assert_eq!(out.stdout, original.stdout, "{args:?} on the copy");
    }
    // A writer cannot take the lock there: a clean exit 2.
    let out = as_nobody(&ro, &["append".into(), "/dev/null".into()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(snapshot(&ro), before);
    Std::new("chmod")
        .args(["-R", "u+w"])
        .arg(&ro)
        .status()
        .unwrap();
}

/// A full disk, as far as a process can tell without mounting one: with
/// `prlimit --fsize=0` no file may grow (a write that would is refused, and
/// SIGXFSZ ends the process). Readers write nothing and are not affected;
/// an append is stopped and leaves the ledger as it was.
#[test]
fn reading_commands_work_when_no_file_may_grow() {
    let prlimit_works = Std::new("prlimit")
        .args(["--fsize=0", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !prlimit_works {
        common::skip("prlimit is not available");
        return;
    }
    let dir = sample();
    let rules_dir = tempfile::tempdir().unwrap();
    let capped = |args: &[String]| {
        Std::new("prlimit")
            .arg("--fsize=0")
            .arg(assert_cmd::cargo::cargo_bin("laurel"))
            .arg("--ledger")
            .arg(db_path(dir.path()))
            .args(args)
            .env_remove("LAUREL_LEDGER")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let answers: Vec<Vec<u8>> = READERS
        .iter()
        .map(|a| read(dir.path(), a).into_bytes())
        .collect();
    let before = head(dir.path());
    let events = rules_dir.path().join("more.jsonl");
    std::fs::write(&events, rule_changes(500, 2022)).unwrap();
    let out = capped(&["append".into(), events.display().to_string()]);
    assert!(!out.status.success(), "an append cannot grow a file");
    for (args, answer) in READERS.iter().zip(&answers) {
        let out = capped(&with_rules(dir.path(), args));
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(&out.stdout, answer, "{args:?}");
    }
    assert_eq!(head(dir.path()), before);
    let out = laurel(dir.path())
        .arg("append")
        .arg(&events)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    read(dir.path(), &["verify"]);
}

/// The bytes of a file of the published view, edited.
fn flip(file: &Path, at: impl Fn(usize) -> usize) {
    let mut b = std::fs::read(file).unwrap();
    let i = at(b.len());
    b[i] ^= 0x10;
    std::fs::write(file, b).unwrap();
}

#[test]
fn tampering_with_head_index_or_fingerprints_is_caught_by_verify() {
    let base = sample();
    // (what, file, which byte of a file of that length, what verify says)
    type Case<'a> = (&'a str, &'a str, Box<dyn Fn(usize) -> usize>, &'a str);
    let cases: Vec<Case> = vec![
        (
            "HEAD",
            "HEAD",
            Box::new(|_| 20),
            "HEAD: head record is damaged",
        ),
        (
            "HEAD's format",
            "HEAD",
            Box::new(|_| 14),
            "unknown ledger format",
        ),
        (
            "an index entry",
            "index",
            Box::new(|n| n / 2),
            "index: entry at byte",
        ),
        (
            "the index's first length",
            "index",
            Box::new(|_| 1),
            "index: entry at byte 0",
        ),
        (
            "a fingerprint",
            "fps",
            Box::new(|n| n / 3),
            "stored key fingerprints: do not match the chunk's records",
        ),
    ];
    for (what, file, at, fragment) in &cases {
        let work = tempfile::tempdir().unwrap();
        let status = Std::new("cp")
            .arg("-a")
            .arg(db_path(base.path()))
            .arg(db_path(work.path()))
            .status()
            .unwrap();
        assert!(status.success());
        flip(&db_path(work.path()).join(file), at);
        let out = laurel(work.path()).arg("verify").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        assert!(stderr(&out).contains(fragment), "{what}: {}", stderr(&out));
    }
    // Cut short: HEAD commits more of `index` than there is.
    let work = tempfile::tempdir().unwrap();
    Std::new("cp")
        .arg("-a")
        .arg(db_path(base.path()))
        .arg(db_path(work.path()))
        .status()
        .unwrap();
    let index = db_path(work.path()).join("index");
    let n = std::fs::metadata(&index).unwrap().len();
    std::fs::File::options()
        .write(true)
        .open(&index)
        .unwrap()
        .set_len(n - 5)
        .unwrap();
    let out = laurel(work.path()).arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("index: shorter than HEAD says"));
}

/// `head` and `export` polled while an import runs: each sees the head
/// before the import or the one after it, never a head in between, and an
/// export is exactly the records up to the head it saw.
#[test]
fn readers_during_an_import_see_only_committed_heads() {
    let dir = sample();
    let before = head(dir.path());
    let file = dir.path().join("more.jsonl");
    std::fs::write(&file, rule_changes(20_000, 2023)).unwrap();
    let mut import = laurel_std(dir.path(), &["append", file.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut heads, mut exports) = (Vec::new(), Vec::new());
    let started = Instant::now();
    loop {
        let done = import.try_wait().unwrap().is_some();
        let h = read(dir.path(), &["head"]);
        heads.push(h.trim().to_string());
        let export = read(dir.path(), &["export"]);
        let last: serde_json::Value = serde_json::from_str(export.lines().last().unwrap()).unwrap();
        let seq = export.lines().count();
        exports.push(format!("{seq} {}", last["hash"].as_str().unwrap()));
        if done || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(import.wait().unwrap().success());
    let after = head(dir.path());
    assert_eq!(after.0, before.0 + 20_000);
    let committed = [
        format!("{} {}", before.0, before.1),
        format!("{} {}", after.0, after.1),
    ];
    for h in heads.iter().chain(&exports) {
        assert!(committed.contains(h), "{h} is neither {committed:?}");
    }
    assert!(
        heads.iter().any(|h| *h == committed[0]),
        "polled during the import"
    );
}
