//! Checkpoints: a fold that starts from a projection checkpoint answers
//! byte for byte what the full replay answers, at every `--as-of` and for every
//! table, through appends that invalidate checkpoints (a late event, an early
//! rule change, voids), a refused append, and appends killed mid-way.
//!
//! `LAUREL_CHECKPOINT_EVERY` makes checkpoints every few records so a small
//! ledger has many; `LAUREL_NO_CHECKPOINTS` forces the full fold to compare with;
//! `LAUREL_CHECKPOINT_TRACE` says on stderr where a fold started, so the test
//! knows the checkpoints were used.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::ckpt::*;
use common::{empty_ledger, gen, head, laurel, Rng};
use laurel::ledger::checkpoint::Header;

#[test]
fn checkpointed_answers_equal_the_full_replay_through_invalidating_appends() {
    let dir = generated();
    let d = dir.path();
    assert!(
        assert_same_answers(d, "after gen") > 100,
        "checkpoints used"
    );
    assert!(assert_same_known_at(d, "after gen") > 50);

    let events = common::events_dir();
    run_ok(d, &["import", events.to_str().unwrap()], "");
    assert!(assert_same_answers(d, "after events/") > 100);

    // Late: a rule change and a series sorting before most checkpoints.
    append(
        d,
        concat!(
            r#"{"type":"ledger.rules_changed","at":"2001-01-01","system":"valar","params":{"base":50}}"#,
            "\n",
            r#"{"type":"cfr.series_defined","at":"2000-06-01","series":"late-series","format":"elimination"}"#,
            "\n"
        ),
    );
    assert!(assert_same_answers(d, "after a late append") > 100);

    for target in ["1500", "2400"] {
        run_ok(d, &["void", target, "--reason", "test"], "");
    }
    assert!(assert_same_answers(d, "after voids") > 100);

    // A refused late append: the same message whether the check fold resumes.
    let bad = r#"{"type":"cfr.series_defined","at":"2000-07-01","series":"late-series","format":"elimination"}"#;
    let before = head(d);
    let mut msgs = Vec::new();
    for full in [false, true] {
        let mut c = laurel(d);
        c.args(["append", "-"]).write_stdin(bad);
        if full {
            c.env("LAUREL_NO_CHECKPOINTS", "1");
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        msgs.push(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    assert_eq!(msgs[0], msgs[1]);
    assert!(msgs[0].contains("-:1"), "{}", msgs[0]);
    assert_eq!(head(d), before);
    let verified = laurel(d).arg("verify").output().unwrap();
    assert!(verified.status.success());
    let said = String::from_utf8_lossy(&verified.stdout);
    let compared: usize = said
        .split(", ")
        .nth(2)
        .and_then(|s| s.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(compared > 0, "{said}");
    assert!(assert_same_known_at(d, "after voids") > 10);
}

/// A checkpoint forged from another ledger's (one result changed), with a
/// valid header bound to this chain's head: answers folded from it change
/// while every hash of the chain holds, and only `verify`, which folds the
/// records again, says so (exit 1, naming the checkpoint).
#[test]
fn verify_refuses_a_checkpoint_that_does_not_hold_the_fold_of_its_records() {
    let stream = gen(1200, 5);
    let flipped = match stream.find(r#""winner":"FP""#) {
        Some(i) => format!("{}\"winner\":\"DS\"{}", &stream[..i], &stream[i + 13..]),
        None => panic!("no FP win in the stream"),
    };
    let (real, other) = (empty_ledger(), empty_ledger());
    append(real.path(), &stream);
    append(other.path(), &flipped);
    let mine: Vec<(Vec<u8>, Header)> = headers(real.path());
    let mut forged = 0;
    for (key, theirs) in headers(other.path()) {
        let Some((_, h)) = mine.iter().find(|(k, h)| *k == key && h.parent.is_none()) else {
            continue;
        };
        let bytes = std::fs::read(checkpoint_file(other.path(), &key)).unwrap();
        let bound = Header {
            head: h.head,
            ..theirs
        };
        let mut file = laurel::ledger::checkpoint::encode_header(&bound);
        file.extend_from_slice(&bytes[header_len(&bytes)..]);
        std::fs::write(checkpoint_file(real.path(), &key), file).unwrap();
        forged += 1;
    }
    assert!(forged > 0);
    let table = ["standings", "valar", "--format", "json"];
    let (fast, full) = (
        cmd(real.path(), &table, false),
        cmd(real.path(), &table, true),
    );
    assert_ne!(
        fast.stdout, full.stdout,
        "the forged checkpoint was not used"
    );
    let out = laurel(real.path()).arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.contains("does not hold the fold of the records before it (sections mepbm"),
        "{msg}"
    );
    let untouched = laurel(other.path()).arg("verify").output().unwrap();
    assert!(untouched.status.success());
}

/// Every table `--known-at K` for cuts across the ledger (within chunks and
/// at their ends), from checkpoints and in full: identical output. Returns how many answers
/// started from a checkpoint.
fn assert_same_known_at(dir: &Path, when: &str) -> usize {
    let last = head(dir).0;
    let mut resumed = 0;
    for k in [1, 700, 1024, 1025, 2048, 2049, 2900, 3001, last - 1, last] {
        for (t, _) in laurel::systems::tables() {
            let k = k.to_string();
            let args = ["standings", t, "--known-at", &k, "--format", "json"];
            let (fast, full) = (cmd(dir, &args, false), cmd(dir, &args, true));
            assert_eq!(fast.status.code(), full.status.code(), "{when}: {args:?}");
            assert!(
                fast.stdout == full.stdout,
                "{when}: laurel {args:?} differs from the full replay",
            );
            let trace = String::from_utf8_lossy(&fast.stderr);
            resumed += usize::from(trace.contains("checkpoint: resumed after"));
        }
    }
    resumed
}

/// Kill `laurel append FILE` after `delay`; true if it finished first.
fn append_killed_after(d: &Path, file: &Path, delay: Duration) -> bool {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("laurel"))
        .arg("--ledger")
        .arg(d.join("laurel.db"))
        .arg("append")
        .arg(file)
        .env("LAUREL_CHECKPOINT_EVERY", EVERY)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < delay {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap().success()
}

#[test]
fn appends_killed_while_writing_checkpoints_leave_right_answers() {
    let dir = empty_ledger();
    let d = dir.path();
    let out = laurel(d)
        .arg("import")
        .arg(common::events_dir())
        .output()
        .unwrap();
    assert!(out.status.success());
    let file = d.join("gen.jsonl");
    std::fs::write(&file, gen(3000, 5)).unwrap();
    // How long an uninterrupted append takes, on a scratch ledger.
    let scratch = empty_ledger();
    let t = Instant::now();
    assert!(append_killed_after(
        scratch.path(),
        &file,
        Duration::from_secs(120)
    ));
    let window = t.elapsed();
    let mut rng = Rng(0x5eed);
    let before = head(d).0;
    for round in 0..6 {
        let delay = window.mul_f64(0.2 + 0.7 * rng.below(1000) as f64 / 1000.0);
        let done = append_killed_after(d, &file, delay);
        laurel(d).arg("verify").assert().success();
        for args in [["standings", "valar"], ["standings", "cards"]] {
            let (fast, full) = (cmd(d, &args, false), cmd(d, &args, true));
            assert_eq!(fast.stdout, full.stdout, "round {round}: {args:?}");
        }
        // All or nothing: killed after its head was written, it is all there.
        let now = head(d).0;
        assert!(
            now == before || now == before + 3000,
            "round {round}: {now}"
        );
        assert!(!done || now == before + 3000, "round {round}: acknowledged");
        if now != before {
            break;
        }
    }
    append(d, &std::fs::read_to_string(&file).unwrap());
    assert_eq!(head(d).0, before + 3000);
    assert!(assert_same_answers(d, "after killed appends") > 100);
}

/// Appends of one late series, each killed at a random moment of its check
/// fold of one system (which makes the later checkpoints again, renames
/// them into place, then publishes the head): after each, `verify` passes,
/// the append is all there or not at all, and answers from checkpoints
/// equal the full replay's.
#[test]
fn late_appends_killed_while_making_checkpoints_again_leave_right_answers() {
    let dir = generated();
    let d = dir.path();
    let late = |round: u64| {
        let file = d.join(format!("late-{round}.jsonl"));
        let series = format!(
            r#"{{"type":"cfr.series_defined","at":"2000-06-{:02}","series":"late-{round}","format":"elimination"}}"#,
            1 + round % 28
        );
        std::fs::write(&file, series).unwrap();
        file
    };
    // How long an uninterrupted one takes.
    let t = Instant::now();
    assert!(append_killed_after(d, &late(0), Duration::from_secs(60)));
    let window = t.elapsed();
    let mut rng = Rng(0x1a7e);
    let mut killed_before_the_head_moved = 0;
    for round in 1..9 {
        let before = head(d).0;
        let delay = window.mul_f64(0.1 + rng.below(1000) as f64 / 1000.0);
        let done = append_killed_after(d, &late(round), delay);
        laurel(d).arg("verify").assert().success();
        let now = head(d).0;
        assert!(now == before || now == before + 1, "round {round}: {now}");
        assert!(!done || now == before + 1, "round {round}: acknowledged");
        killed_before_the_head_moved += usize::from(now == before);
        for args in [["standings", "cfr"], ["standings", "valar"]] {
            let (fast, full) = (cmd(d, &args, false), cmd(d, &args, true));
            assert_eq!(fast.stdout, full.stdout, "round {round}: {args:?}");
        }
    }
    // Most delays fall well inside the window: some kill landed mid-append.
    assert!(killed_before_the_head_moved > 0, "no append was cut short");
    assert!(assert_same_answers(d, "after killed late appends") > 100);
}

#[test]
fn deltas_whose_parent_is_gone_or_damaged_are_not_used() {
    let dir = empty_ledger();
    let d = dir.path();
    // 22 checkpoints of 150 records: whole ones are the 1st, 6th, 11th, 16th and 21st.
    append(d, &gen(3300, 5));
    let out = laurel(d).arg("verify").output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("damaged"));
    let all = headers(d);
    let whole: Vec<&(Vec<u8>, Header)> = all.iter().filter(|(_, h)| h.parent.is_none()).collect();
    assert!(all.len() >= 15, "{} checkpoints", all.len());
    assert!(
        whole.len() >= 3 && whole.len() < all.len() / 2,
        "mostly deltas"
    );
    // The first whole checkpoint goes; one byte in the middle of the
    // second's mepbm section (section 1, after the header and section 0)
    // changes: their deltas must not be read.
    std::fs::remove_file(checkpoint_file(d, &whole[0].0)).unwrap();
    let (key, header) = whole[1];
    assert_eq!(
        header.sections[1].name,
        format!("mepbm@{}", laurel::fold::LAYOUT)
    );
    let len = |i: usize| header.sections[i].stored as usize;
    let file = checkpoint_file(d, key);
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = header_len(&bytes) + len(0) + len(1) / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&file, bytes).unwrap();
    assert!(assert_same_answers(d, "with damaged parents") > 50);
    // verify says what is damaged, and that no answer depends on it.
    let out = laurel(d).arg("verify").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(
            "checkpoint(s) unusable, damaged or made on a damaged one: no fold uses them"
        ),
        "{said}"
    );
    // Each checkpoint is counted once, equal or damaged: never more than
    // there are files.
    let count = |after: &str| -> usize {
        let before = said.split(after).next().unwrap_or_default();
        let n = before
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap_or_default();
        n.parse()
            .unwrap_or_else(|_| panic!("no count before {after:?} in {said}"))
    };
    let files = checkpoint_files(d).len();
    let (equal, damaged) = (
        count(" checkpoint(s) equal"),
        count(" checkpoint(s) unusable"),
    );
    assert!(
        equal + damaged <= files,
        "{equal} + {damaged} > {files} files: {said}"
    );
    // An append after it resumes from a checkpoint whose chain is intact.
    append(
        d,
        r#"{"type":"ledger.rules_changed","at":"2009-01-01","system":"valar","params":{"base":40}}"#,
    );
    assert!(assert_same_answers(d, "after an append on damaged parents") > 50);
}

/// Every delta is made on a whole checkpoint (a query decompresses two
/// frames, never a chain), also when an append resumes from a
/// delta: its next delta's parent is that delta's whole one.
#[test]
fn every_delta_is_made_on_a_whole_checkpoint_across_appends() {
    let dir = empty_ledger();
    let d = dir.path();
    // 900 records: checkpoints 1 (whole) to 6, so the second append (300
    // rule changes after them) resumes from a delta.
    append(d, &gen(900, 5));
    let later: String = (0..300)
        .map(|k| {
            format!(
                r#"{{"type":"ledger.rules_changed","at":"2025-01-01T{:02}:{:02}:00Z","system":"valar","params":{{"base":{}}}}}"#,
                k / 60,
                k % 60,
                40 + k % 7
            ) + "\n"
        })
        .collect();
    append(d, &later);
    let all = headers(d);
    let head_seq = |h: &Header| h.head.seq;
    let by_key = |k: &[u8]| {
        all.iter()
            .find(|(key, _)| key.as_slice() == k)
            .map(|e| &e.1)
    };
    let mut across = 0;
    for (key, v) in &all {
        let Some((parent_key, _)) = v.parent else {
            continue;
        };
        let parent = by_key(&parent_key).expect("a delta's parent is there");
        assert!(parent.parent.is_none(), "the parent of {key:?} is whole");
        across += usize::from(head_seq(v) > 900 && head_seq(parent) <= 900);
    }
    assert_eq!(all.len(), 8, "6 checkpoints, then 2");
    assert!(
        across > 0,
        "the second append made deltas on the first's whole one"
    );
    assert!(assert_same_answers(d, "after two appends") > 50);
}

/// Checkpoint files live in `checkpoints/`: a missing one reads as absent
/// (the query resumes from an older checkpoint), and a file whose header does
/// not read is removed by the next append; other files there are left alone.
#[test]
fn missing_and_unnamed_checkpoint_files_change_no_answer_and_strays_go() {
    let dir = empty_ledger();
    let d = dir.path();
    append(d, &gen(3000, 9));
    let ckdir = common::db_path(d).join("checkpoints");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&ckdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 15, "{} checkpoint files", files.len());
    for f in files.iter().rev().step_by(4) {
        std::fs::remove_file(f).unwrap();
    }
    let stray = ckdir.join(format!("{}.lcp", "0".repeat(32)));
    std::fs::write(&stray, b"left by a killed append").unwrap();
    let other = ckdir.join("notes.txt");
    std::fs::write(&other, b"not laurel's").unwrap();
    assert!(assert_same_answers(d, "with checkpoint files missing") > 50);
    append(
        d,
        r#"{"type":"ledger.rules_changed","at":"2009-01-01","system":"valar","params":{"base":40}}"#,
    );
    assert!(!stray.exists(), "the stray file is removed");
    assert!(other.exists(), "a file that is not a checkpoint's stays");
    assert!(assert_same_answers(d, "after an append with files missing") > 50);
}

/// Checkpoints are a cache: a `checkpoints` that is a file, not a directory,
/// holds none, so every query answers as the full replay (from nothing)
/// rather than fail, and `verify` says why; an append, which writes
/// checkpoints there, fails naming it and writes nothing. Once it is a
/// directory again, folds resume.
#[test]
fn a_checkpoints_path_that_is_a_file_holds_none_and_changes_no_answer() {
    let dir = empty_ledger();
    let d = dir.path();
    append(d, &gen(3000, 9));
    let ckdir = common::db_path(d).join("checkpoints");
    std::fs::remove_dir_all(&ckdir).unwrap();
    std::fs::write(&ckdir, b"not a directory").unwrap();
    assert_eq!(assert_same_answers(d, "checkpoints a file"), 0);
    let verified = ok(cmd(d, &["verify"], false));
    let report = String::from_utf8_lossy(&verified.stdout).into_owned();
    assert!(report.contains("checkpoints: Not a directory"), "{report}");
    assert!(
        report.contains("every fold starts from nothing"),
        "{report}"
    );
    let before = head(d);
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2020-01-01","month":"2019-12"}"#;
    let out = cmd_in(d, &["append", "-"], false, tick);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("checkpoints"), "{}", said(&out));
    assert_eq!(head(d), before);
    std::fs::remove_file(&ckdir).unwrap();
    append(d, tick);
    assert!(assert_same_answers(d, "checkpoints a directory again") > 50);
}

/// A checkpoint without a system's section (one made before that system was
/// added) still serves the other systems' queries; a query of that system
/// starts from an older checkpoint instead, with the full replay's answer.
#[test]
fn a_checkpoint_without_a_systems_section_serves_only_the_others() {
    let dir = empty_ledger();
    let d = dir.path();
    append(d, &gen(3300, 5));
    let all = headers(d);
    let (key, h) = all.last().expect("checkpoints");
    let file = checkpoint_file(d, key);
    let bytes = std::fs::read(&file).unwrap();
    let start = header_len(&bytes);
    let i = (h.index(&format!("cfr@{}", laurel::fold::LAYOUT))).expect("a cfr section");
    let stored = |s: &[laurel::ledger::checkpoint::Section]| -> usize {
        s.iter().map(|s| s.stored as usize).sum()
    };
    let (at, end) = (
        start + stored(&h.sections[..i]),
        start + stored(&h.sections[..=i]),
    );
    let mut without = h.clone();
    without.sections.remove(i);
    let mut out = laurel::ledger::checkpoint::encode_header(&without);
    out.extend_from_slice(&bytes[start..at]);
    out.extend_from_slice(&bytes[end..]);
    std::fs::write(&file, out).unwrap();
    let from_it = format!("resumed after seq {} ", h.pos.1);
    let trace = |table: &str| {
        let out = cmd(d, &["standings", table], false);
        assert!(out.status.success(), "{table}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(trace("valar").contains(&from_it), "{}", trace("valar"));
    let cfr = trace("cfr");
    assert!(
        cfr.contains("resumed after") && !cfr.contains(&from_it),
        "{cfr}"
    );
    assert!(assert_same_answers(d, "without a cfr section") > 50);
}

/// `n` seeds of new players dated after everything `gen` makes.
fn late_seeds(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|k| {
            format!(
                r#"{{"type":"mepbm.rating_seeded","at":"2025-01-01T00:00:00Z","player":"late-player-{k}","system":"valar","value":1600}}"#
            ) + "\n"
        })
        .collect()
}

/// Checkpoints stand every 150 records of fold order: an append whose
/// records fold after the latest one and bring the count to no new
/// multiple writes no checkpoint (the files are byte for byte those
/// before); the append that reaches the next multiple writes one, a delta
/// on the latest whole one, which it resumed from.
#[test]
fn a_late_append_reaching_no_new_multiple_writes_no_checkpoint() {
    let dir = empty_ledger();
    let d = dir.path();
    // 900 records: checkpoints at 150, 300, ..., 900 (the 6th, whole).
    append(d, &gen(900, 5));
    let before = checkpoint_files(d);
    assert_eq!(before.len(), 6);
    // 901 records: the next multiple is 1050.
    append(d, &late_seeds(0, 1));
    assert!(
        checkpoint_files(d) == before,
        "one late event wrote a checkpoint"
    );
    // 1050 records.
    append(d, &late_seeds(1, 149));
    let all = headers(d);
    assert_eq!(all.len(), 7);
    let newest = all.iter().max_by_key(|(_, h)| h.folded).unwrap();
    assert_eq!(newest.1.folded, 1050);
    let whole = all.iter().find(|(_, h)| h.folded == 900).unwrap();
    assert!(whole.1.parent.is_none(), "the 6th checkpoint is whole");
    assert_eq!(
        newest.1.parent.map(|p| p.0.to_vec()),
        Some(whole.0.clone()),
        "the new checkpoint is a delta on the one the append resumed from"
    );
    assert!(assert_same_answers(d, "after late appends") > 50);
}

/// `n` valar seeds of new players, a minute apart from 2001-01-01T00:00,
/// the `k`-th named `player-k` (in order: no record sorts before another).
fn rising_seeds(n: usize) -> String {
    (0..n)
        .map(|k| {
            format!(
                r#"{{"type":"mepbm.rating_seeded","at":"2001-01-01T{:02}:{:02}:00Z","player":"player-{k}","system":"valar","value":{}}}"#,
                k / 60,
                k % 60,
                1000 + k
            ) + "\n"
        })
        .collect()
}

/// `standings valar --known-at K` from checkpoints: the full fold's answer
/// byte for byte; returns the trace (where the fold started).
fn known_at_trace(d: &Path, k: &str) -> String {
    let args = ["standings", "valar", "--known-at", k, "--format", "json"];
    let (fast, full) = (cmd(d, &args, false), cmd(d, &args, true));
    assert!(fast.status.success(), "--known-at {k}");
    assert!(
        fast.stdout == full.stdout,
        "--known-at {k} differs from the full fold:\n{}\n---\n{}",
        String::from_utf8_lossy(&fast.stdout),
        String::from_utf8_lossy(&full.stdout)
    );
    String::from_utf8_lossy(&fast.stderr).into_owned()
}

/// A `--known-at K` query starts from the latest checkpoint whose position
/// the records its cut leaves out (seqs after `K`, up to the checkpoint's
/// head) all sort after and void nothing before; when a left-out record is
/// dated before every checkpoint, or voids a record before every one, it
/// folds from nothing.
#[test]
fn a_known_at_query_resumes_from_the_latest_checkpoint_its_cut_leaves_alone() {
    let dir = empty_ledger();
    let d = dir.path();
    // Checkpoints at records 150, 300, 450 and 600, made at head 600.
    append(d, &rising_seeds(600));
    // Records 501..=600 sort after record 450.
    let t = known_at_trace(d, "500");
    assert!(t.contains("resumed after seq 450 (450 records)"), "{t}");
    // Record 450 itself is left out: the checkpoint there holds it.
    let t = known_at_trace(d, "449");
    assert!(t.contains("resumed after seq 300 (300 records)"), "{t}");
    let t = known_at_trace(d, "600");
    assert!(t.contains("resumed after seq 600 (600 records)"), "{t}");

    // Record 601 is dated before every record: the append drops every
    // checkpoint and makes new ones at head 601, all after it.
    let late = r#"{"type":"mepbm.rating_seeded","at":"2000-01-01T00:00:00Z","player":"late-0","system":"valar","value":1500}"#;
    append(d, late);
    let t = known_at_trace(d, "600");
    assert!(t.contains("checkpoint: none"), "{t}");
    let t = known_at_trace(d, "601");
    assert!(t.contains("resumed after"), "{t}");

    // Record 602 voids record 2, which sorts before every checkpoint the
    // void append makes: a cut that leaves the void out cannot use them.
    run_ok(d, &["void", "2", "--reason", "test"], "");
    let t = known_at_trace(d, "601");
    assert!(t.contains("checkpoint: none"), "{t}");
    let t = known_at_trace(d, "602");
    assert!(t.contains("resumed after"), "{t}");
}

/// A refused append leaves every checkpoint as it was, those its records
/// would have invalidated too (they serve the old head, which stays): a
/// mistyped late result must not leave every later query folding from
/// further back. Both check folds: of late records of one system, and of
/// everything (a registration beside them).
#[test]
fn a_refused_late_append_leaves_every_checkpoint_in_place() {
    let dir = generated();
    let d = dir.path();
    let before = (head(d), checkpoint_files(d));
    assert!(before.1.len() > 10, "{} checkpoints", before.1.len());
    let twice = concat!(
        r#"{"type":"cfr.series_defined","at":"2000-06-01","series":"twice","format":"elimination"}"#,
        "\n",
        r#"{"type":"cfr.series_defined","at":"2000-07-01","series":"twice","format":"elimination"}"#,
        "\n"
    );
    let registered =
        r#"{"type":"ledger.player_registered","at":"2000-05-01","player":"Late Comer"}"#;
    for text in [twice.to_string(), format!("{registered}\n{twice}")] {
        let out = cmd_in(d, &["append", "-"], false, &text);
        assert_eq!(out.status.code(), Some(2), "{}", said(&out));
        assert!(said(&out).contains("twice"), "{}", said(&out));
        assert_eq!((head(d), checkpoint_files(d)), before, "after {text}");
    }
    // An accepted one drops those it invalidates and makes them again.
    let once =
        r#"{"type":"cfr.series_defined","at":"2000-06-01","series":"once","format":"elimination"}"#;
    append(d, &format!("{registered}\n{once}\n"));
    assert_ne!(checkpoint_files(d), before.1);
    assert!(assert_same_answers(d, "after a late append") > 100);
}

/// Refused after its check fold (by the check of voided registrations),
/// an append that made checkpoints again at the old ones' places leaves the
/// old ones: the new are put in place only once every check passed.
#[test]
fn an_append_refused_after_its_check_fold_leaves_the_checkpoints_in_place() {
    let dir = empty_ledger();
    let d = dir.path();
    let every2 = |args: &[&str], stdin: &str| {
        laurel(d)
            .args(args)
            .env("LAUREL_CHECKPOINT_EVERY", "2")
            .write_stdin(stdin.to_string())
            .output()
            .unwrap()
    };
    let ana = r#"{"type":"ledger.player_registered","at":"2012-12-01","player":"Ana"}"#;
    assert!(every2(&["append", "-"], ana).status.success());
    let league = common::events_dir().join("cards_league.jsonl");
    let league = std::fs::read_to_string(league).unwrap();
    assert!(every2(&["append", "-"], &league).status.success());
    let before = checkpoint_files(d);
    assert!(before.len() >= 4, "{} checkpoints", before.len());
    let refused = concat!(
        r#"{"type":"ledger.player_registered","at":"2012-12-02","player":"Zed"}"#,
        "\n",
        r#"{"type":"ledger.voided","at":"2012-12-03","target":1,"reason":"x"}"#,
        "\n"
    );
    let out = every2(&["append", "-"], refused);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        said(&out).contains("cards events still name \"Ana\""),
        "{}",
        said(&out)
    );
    assert_eq!(checkpoint_files(d), before);
}
