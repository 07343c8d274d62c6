//! Crash safety: `laurel append` killed with SIGKILL at random moments of a large
//! import leaves a ledger that verifies and holds exactly the records of the appends
//! that reported success, plus all or nothing of the killed one.
//!
//! As in sled's own crash tests, the test drives real processes: it spawns the
//! `laurel` binary and kills it (`Child::kill` is SIGKILL on Unix) after a delay
//! drawn from a seeded RNG, so every run kills at the same moments.

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{db_path, empty_ledger, exported_events, head, jsonl, laurel, seeded_events, Rng};
use serde_json::Value;

const KILLS: usize = 50;
/// Events in each import that gets killed: large enough to span several chunks.
const BIG: usize = 2500;
/// Events in each acknowledged append between kills.
const SMALL: usize = 40;

fn canonical(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| String::from_utf8(laurel::events::to_canonical(e)).expect("utf8"))
        .collect()
}

/// (path, length) of every file under `dir`.
fn listing(dir: &std::path::Path) -> Vec<(std::path::PathBuf, u64)> {
    let mut all = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            match p.is_dir() {
                true => todo.push(p),
                false => all.push((p.clone(), std::fs::metadata(&p).unwrap().len())),
            }
        }
    }
    all.sort();
    all
}

#[test]
fn sigkill_mid_import_keeps_exactly_the_acknowledged_appends() {
    let dir = empty_ledger();
    let bin = assert_cmd::cargo::cargo_bin("laurel");
    let mut rng = Rng(0x1au64 << 32 | 0xc0ffee);
    let mut expected: Vec<String> = Vec::new();
    // The kill window: how long an uninterrupted big import takes, the median of
    // the first round and of every round that completed before its kill. Not the
    // largest: one slow import (a busy machine) would make every later round wait
    // up to 1.3 times as long, more imports would complete and grow the ledger,
    // and the test would run for minutes instead of seconds.
    let mut window = Duration::ZERO;
    let mut took: Vec<Duration> = Vec::new();
    let (mut kills, mut completed, mut kept_whole) = (0usize, 0usize, 0usize);
    let mut round = 0usize;
    while kills < KILLS {
        round += 1;
        assert!(round <= 4 * KILLS, "only {kills} kills in {round} rounds");

        // An append that reports success must be there after every later kill.
        let small = seeded_events(&format!("ok{round}"), SMALL, &mut rng);
        let out = common::append_text(dir.path(), &jsonl(&small));
        assert!(
            out.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        expected.extend(canonical(&small));

        let big = seeded_events(&format!("big{round}"), BIG, &mut rng);
        let file = dir.path().join("big.jsonl");
        std::fs::write(&file, jsonl(&big)).unwrap();
        let before = head(dir.path()).0;
        assert_eq!(before as usize, expected.len());
        let started = Instant::now();
        let mut child = Command::new(&bin)
            .arg("--ledger")
            .arg(db_path(dir.path()))
            .arg("append")
            .arg(&file)
            .env_remove("LAUREL_LEDGER")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let killed = if window.is_zero() {
            false // first round: calibrate
        } else {
            // Up to 1.3 windows: some imports finish, some die after moving the head.
            let delay = Duration::from_micros(rng.below(window.as_micros() as u64 * 13 / 10 + 1));
            std::thread::sleep(delay);
            match child.try_wait().unwrap() {
                Some(_) => false,
                None => {
                    child.kill().unwrap();
                    true
                }
            }
        };
        let status = child.wait().unwrap();
        if killed {
            kills += 1;
        } else {
            assert!(status.success(), "round {round}: unkilled import failed");
            took.push(started.elapsed());
            took.sort();
            window = took[took.len() / 2];
            completed += 1;
        }

        // Before any writer runs (readers clean nothing up and take no lock):
        // the ledger verifies and holds a prefix that ends at an append
        // boundary, the last acknowledged head or the killed import whole
        // (killed after its publication), and the readers leave every file
        // as the kill left it.
        let files_before = listing(&db_path(dir.path()));
        let out = laurel(dir.path()).arg("verify").output().unwrap();
        assert!(
            out.status.success(),
            "round {round} (killed: {killed}): verify failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = head(dir.path()).0;
        if after == before + BIG as u64 {
            expected.extend(canonical(&big));
            if killed {
                kept_whole += 1;
            }
        } else {
            assert!(killed, "round {round}: a completed import must be kept");
            assert_eq!(
                after, before,
                "round {round}: a killed import is all or nothing"
            );
        }
        assert_eq!(
            exported_events(dir.path()),
            expected,
            "round {round}: the export is exactly the acknowledged events"
        );
        assert_eq!(
            listing(&db_path(dir.path())),
            files_before,
            "round {round}: readers changed the ledger"
        );
    }
    // The next append after the last kill cleans up whatever the kill left behind.
    let tail = seeded_events("tail", 3, &mut rng);
    assert!(common::append_text(dir.path(), &jsonl(&tail))
        .status
        .success());
    expected.extend(canonical(&tail));
    assert_eq!(exported_events(dir.path()), expected);
    laurel(dir.path()).arg("verify").assert().success();
    eprintln!(
        "crash: {kills} kills survived ({kept_whole} kept whole, {} rolled back), \
         {completed} imports completed, {round} rounds, {} records",
        kills - kept_whole,
        expected.len()
    );
    // Kills land mid-import often: the test exercises the roll-back path, not only
    // the end of an import. A third, not half: the kill window is measured on the
    // same machine, and under heavy load fewer kills land mid-import.
    assert!(
        kills - kept_whole >= KILLS / 3,
        "a third of the kills land mid-import"
    );
}

/// sled 0.34.7 reads the highest-named `snap.*` file when it opens, even an
/// unfinished `snap.<lsn>.generating` left by a process killed while writing it, and
/// then refuses the ledger for good ("Read corrupted data"). The writer removes such a
/// file before opening sled (readers never open sled, and leave it): the ledger must
/// verify and take appends with its records intact.
#[test]
fn an_unfinished_sled_snapshot_left_by_a_kill_does_not_break_the_ledger() {
    let dir = empty_ledger();
    let mut rng = Rng(11);
    let events = seeded_events("snap", 30, &mut rng);
    assert!(common::append_text(dir.path(), &jsonl(&events))
        .status
        .success());
    let before = head(dir.path());
    let stale = db_path(dir.path()).join("snap.FFFFFFFFFFFFFFF0.generating");
    std::fs::write(&stale, b"").unwrap();
    laurel(dir.path()).arg("verify").assert().success();
    assert!(stale.exists(), "readers write nothing");
    assert_eq!(head(dir.path()), before);
    assert_eq!(exported_events(dir.path()), canonical(&events));
    let more = seeded_events("snap2", 3, &mut rng);
    assert!(common::append_text(dir.path(), &jsonl(&more))
        .status
        .success());
    assert!(!stale.exists());
    assert_eq!(head(dir.path()).0, before.0 + 3);
}
