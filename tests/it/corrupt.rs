//! Corruption: damaged files (sled's, the published view's, segments) and
//! damaged records inside chunks give a clear error with exit 1 or 2, never a
//! panic (exit 101, or an abort) or a hang, and `verify` reports what it can.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{db_path, empty_ledger, jsonl, laurel_std, output_within, seeded_events, Rng, View};

const TICK: &str = r#"{"type":"mepbm.monthly_tick","at":"2003-02-01","month":"2003-01"}"#;

/// Every command that reads the ledger, plus an append.
const COMMANDS: &[&[&str]] = &[
    &["head"],
    &["verify"],
    &["export"],
    &["log"],
    &["rules", "--format", "json"],
    &["standings", "valar"],
    &["history", "big-player-3"],
    &["append", "-"],
];

/// A ledger with several chunks and small ones, in three segment files (one per
/// append; `damaged_sled_files_give_exit_1_or_2_never_a_panic_or_hang` asserts
/// that there are).
fn sample() -> tempfile::TempDir {
    let dir = empty_ledger();
    let mut rng = Rng(9);
    for (tag, n) in [("big", 14000), ("mid", 300), ("small", 2)] {
        let out = common::append_text(dir.path(), &jsonl(&seeded_events(tag, n, &mut rng)));
        assert!(out.status.success());
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Run every command on the damaged ledger; return verify's (exit code, stderr).
fn every_command_fails_cleanly(dir: &Path, what: &str) -> (i32, String) {
    let mut verify = (0, String::new());
    for args in COMMANDS {
        let out = output_within(
            laurel_std(dir, args),
            format!("{TICK}\n").as_bytes(),
            Duration::from_secs(30),
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "{what}: laurel {args:?} exited {:?} (panic or signal): {stderr}",
            out.status
        );
        assert!(!stderr.contains("panicked"), "{what}: {args:?}: {stderr}");
        // sled's internals (Rust debug text) are not a message.
        assert!(
            !stderr.contains("Some(") && !stderr.contains("backtrace"),
            "{what}: {args:?}: {stderr}"
        );
        if code != Some(0) {
            assert!(
                stderr.starts_with("laurel: ") && stderr.trim().lines().count() == 1,
                "{what}: {args:?}: one clear line: {stderr}"
            );
        }
        if args[0] == "verify" {
            verify = (code.unwrap_or(-1), stderr);
        }
    }
    verify
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    all.sort();
    all
}

/// The ledger's segment files (`src/ledger/segment.rs`), by name.
fn segments(db: &Path) -> Vec<PathBuf> {
    files(&laurel::ledger::segment::dir(db))
}

/// Length of `path` up to its last non-zero byte (sled preallocates its file).
fn used_len(path: &Path) -> usize {
    let b = std::fs::read(path).unwrap();
    b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1)
}

fn rewrite(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut b = std::fs::read(path).unwrap();
    f(&mut b);
    std::fs::write(path, b).unwrap();
}

type Damage = Box<dyn Fn(&Path)>;

#[test]
fn damaged_sled_files_give_exit_1_or_2_never_a_panic_or_hang() {
    let base = sample();
    let base_db = db_path(base.path());
    assert_eq!(segments(&base_db).len(), 3, "one segment per append");
    // (name, damage, must verify fail?)
    // sled's files are the writer's: readers (verify among them) read the
    // published view and segments only, so damage to sled must fail cleanly
    // but need not fail verify, except what verify sees without opening
    // sled: `db` missing, empty or no file, `conf` or a snapshot failing its
    // checksum.
    let mut cases: Vec<(String, Damage, bool)> = vec![
        (
            "HEAD deleted".into(),
            Box::new(|d: &Path| std::fs::remove_file(d.join("HEAD")).unwrap()),
            true,
        ),
        (
            "HEAD of the wrong size".into(),
            Box::new(|d: &Path| rewrite(&d.join("HEAD"), |b| b.truncate(40))),
            true,
        ),
        (
            "index truncated to 0".into(),
            Box::new(|d: &Path| std::fs::write(d.join("index"), b"").unwrap()),
            true,
        ),
        (
            "index bytes flipped".into(),
            Box::new(|d: &Path| {
                rewrite(&d.join("index"), |b| {
                    for i in (3..b.len()).step_by(41) {
                        b[i] ^= 0x81;
                    }
                })
            }),
            true,
        ),
        (
            "fps deleted".into(),
            Box::new(|d: &Path| std::fs::remove_file(d.join("fps")).unwrap()),
            true,
        ),
        (
            "fps zeroed".into(),
            Box::new(|d: &Path| rewrite(&d.join("fps"), |b| b.fill(0))),
            true,
        ),
        (
            "db truncated to 0".into(),
            Box::new(|d: &Path| {
                std::fs::File::options()
                    .write(true)
                    .open(d.join("db"))
                    .unwrap()
                    .set_len(0)
                    .unwrap()
            }),
            true,
        ),
        (
            "db deleted".into(),
            Box::new(|d: &Path| std::fs::remove_file(d.join("db")).unwrap()),
            true,
        ),
        // Not "must fail": which pages of sled's log are still live there depends on
        // when sled's background flushes and segment cleaning ran in the appends
        // that built the sample. Verify may pass on it, rarely: then it has
        // checked every record's hash and the chain up to the stored head, so
        // the records it read are intact.
        (
            "first 64 KiB of db zeroed".into(),
            Box::new(|d: &Path| rewrite(&d.join("db"), |b| b[..65536].fill(0))),
            false,
        ),
        (
            "db truncated to half its data".into(),
            Box::new(|d: &Path| {
                let n = used_len(&d.join("db"));
                std::fs::File::options()
                    .write(true)
                    .open(d.join("db"))
                    .unwrap()
                    .set_len(n as u64 / 2)
                    .unwrap()
            }),
            false,
        ),
        (
            "every segment deleted".into(),
            Box::new(|d: &Path| {
                segments(d)
                    .iter()
                    .for_each(|b| std::fs::remove_file(b).unwrap())
            }),
            true,
        ),
        (
            "the big append's segment truncated".into(),
            Box::new(|d: &Path| {
                let b = &segments(d)[0];
                let n = std::fs::metadata(b).unwrap().len();
                std::fs::File::options()
                    .write(true)
                    .open(b)
                    .unwrap()
                    .set_len(n / 2)
                    .unwrap()
            }),
            true,
        ),
        (
            "the small append's segment's bytes flipped".into(),
            Box::new(|d: &Path| {
                rewrite(segments(d).last().unwrap(), |b| {
                    for i in (100..b.len()).step_by(997) {
                        b[i] ^= 0xff;
                    }
                })
            }),
            true,
        ),
        (
            "the middle append's segment zeroed".into(),
            Box::new(|d: &Path| rewrite(&segments(d)[1], |b| b.fill(0))),
            true,
        ),
        (
            "a segment file made a directory".into(),
            Box::new(|d: &Path| {
                let s = &segments(d)[1];
                std::fs::remove_file(s).unwrap();
                std::fs::create_dir(s).unwrap();
            }),
            true,
        ),
        // sled writes a missing `conf`, or one of 8 bytes or fewer, anew.
        (
            "conf replaced by 8 bytes of garbage".into(),
            Box::new(|d: &Path| std::fs::write(d.join("conf"), b"garbage\n").unwrap()),
            false,
        ),
        (
            "conf replaced by garbage".into(),
            Box::new(|d: &Path| std::fs::write(d.join("conf"), b"not sled's conf\n").unwrap()),
            true,
        ),
        (
            "conf deleted".into(),
            Box::new(|d: &Path| std::fs::remove_file(d.join("conf")).unwrap()),
            false,
        ),
        (
            "db a directory".into(),
            Box::new(|d: &Path| {
                std::fs::remove_file(d.join("db")).unwrap();
                std::fs::create_dir(d.join("db")).unwrap();
            }),
            true,
        ),
        (
            "snapshot deleted".into(),
            Box::new(|d: &Path| {
                files(d)
                    .iter()
                    .filter(|p| p.to_string_lossy().contains("snap."))
                    .for_each(|p| std::fs::remove_file(p).unwrap())
            }),
            false,
        ),
        (
            "snapshot truncated".into(),
            Box::new(|d: &Path| {
                files(d)
                    .iter()
                    .filter(|p| p.to_string_lossy().contains("snap."))
                    .for_each(|p| {
                        std::fs::File::options()
                            .write(true)
                            .open(p)
                            .unwrap()
                            .set_len(10)
                            .unwrap()
                    })
            }),
            false,
        ),
    ];
    // Random bit flips and zeroed 4 KiB pages in db's used region, seeded.
    for seed in 0..12u64 {
        cases.push((
            format!("db bits flipped (seed {seed})"),
            Box::new(move |d: &Path| {
                let n = used_len(&d.join("db"));
                let mut rng = Rng(seed);
                rewrite(&d.join("db"), |b| {
                    for _ in 0..1 + seed % 4 {
                        let at = rng.below(n as u64) as usize;
                        b[at] ^= 1 << rng.below(8);
                    }
                })
            }),
            false,
        ));
    }
    for page in 0..2usize {
        cases.push((
            format!("db page {page} zeroed"),
            Box::new(move |d: &Path| {
                rewrite(&d.join("db"), |b| b[page * 4096..(page + 1) * 4096].fill(0))
            }),
            false,
        ));
    }
    let mut failed_verifies = 0;
    for (name, damage, must_fail) in &cases {
        let work = tempfile::tempdir().unwrap();
        copy_dir(&base_db, &db_path(work.path()));
        damage(&db_path(work.path()));
        let (code, stderr) = every_command_fails_cleanly(work.path(), name);
        if *must_fail {
            assert_ne!(code, 0, "{name}: verify must fail");
        }
        if code != 0 {
            failed_verifies += 1;
            assert!(
                stderr.contains("damaged") || stderr.contains("verification failed"),
                "{name}: verify names the damage: {stderr}"
            );
            // sled's files are named where they are, not where verify copied them.
            if let Some((_, dir)) = stderr.split_once("sled cannot read its files in ") {
                let db = db_path(work.path());
                assert!(dir.starts_with(db.to_str().unwrap()), "{name}: {stderr}");
            }
        }
    }
    eprintln!(
        "corrupt: {} file damages, {failed_verifies} caught by verify",
        cases.len()
    );
}

// ---- damaged records inside chunks, written behind laurel's back (layout: src/ledger/chunk.rs) ----

/// Byte ranges `(start, end)` of each record in a chunk value.
fn record_spans(chunk: &[u8]) -> Vec<(usize, usize)> {
    let count = u32::from_le_bytes(chunk[12..16].try_into().unwrap()) as usize;
    let ra_len = u16::from_le_bytes(chunk[56..58].try_into().unwrap()) as usize;
    let mut pos = 58 + ra_len;
    let mut spans = Vec::new();
    for _ in 0..count {
        let len = u32::from_le_bytes(chunk[pos + 80..pos + 84].try_into().unwrap()) as usize;
        spans.push((pos, pos + 84 + len));
        pos += 84 + len;
    }
    spans
}

/// Apply `f` to the ledger's published view (and its segments) behind
/// laurel's back, as a careful forger (checksums made anew).
fn through_view(dir: &Path, f: impl FnOnce(&mut View)) {
    let mut view = View::load(&db_path(dir));
    f(&mut view);
    view.save();
}

/// The LRC1 bytes of a stored (packed) chunk value.
fn unpacked(v: &[u8]) -> Vec<u8> {
    laurel::ledger::chunk::unpack(v, 0).unwrap()
}

/// Rewrite the `index`-th chunk: `f` edits its LRC1 bytes, which are stored
/// packed again, as laurel stores them.
fn edit_chunk(index: usize, f: impl Fn(&mut Vec<u8>) + 'static) -> Edit {
    edit_stored_chunk(index, move |b| {
        let mut raw = unpacked(b);
        f(&mut raw);
        *b = common::packed::pack(&raw);
    })
}

/// An edit of the ledger's published view.
type Edit = Box<dyn Fn(&mut View)>;

/// Rewrite the `index`-th chunk's stored (packed) value with `f`, where laurel
/// stores it: at the end of its segment, its pointer moved there.
fn edit_stored_chunk(index: usize, f: impl Fn(&mut Vec<u8>) + 'static) -> Edit {
    Box::new(move |v: &mut View| {
        let mut b = v.stored(index);
        f(&mut b);
        v.restore(index, &b);
    })
}

#[test]
fn damaged_records_give_exit_1_or_2_and_verify_names_them() {
    let base = sample();
    let cases: Vec<(&str, Edit, &str)> = vec![
        ("bad magic", edit_chunk(1, |b| b[0] = b'X'), "bad magic"),
        (
            "packed value cut short",
            // Where half falls depends on the events' bytes (they carry the
            // append time): inside an LZ4 sequence it fails to decode, at a
            // boundary it decodes short. Both must read as damage, in the
            // same words.
            edit_stored_chunk(1, |b| b.truncate(b.len() / 2)),
            "packed value is damaged",
        ),
        (
            "packed value of 6 bytes",
            edit_stored_chunk(0, |b| b.truncate(6)),
            "packed value truncated",
        ),
        (
            "packed length of 4 GiB",
            edit_stored_chunk(2, |b| b[4..8].copy_from_slice(&u32::MAX.to_le_bytes())),
            "packed length 4294967295 is over the limit",
        ),
        (
            "packed length one short",
            edit_stored_chunk(0, |b| {
                let n = u32::from_le_bytes(b[4..8].try_into().unwrap());
                b[4..8].copy_from_slice(&(n - 1).to_le_bytes());
            }),
            "packed value is damaged",
        ),
        (
            // An LZ4 block ends in literals, so this changes the last event's
            // last byte: every reader refuses it by the chunk's checksum.
            "last packed byte changed",
            edit_stored_chunk(1, |b| {
                let n = b.len();
                b[n - 1] ^= 0x20;
            }),
            "packed value is damaged (its checksum does not match)",
        ),
        (
            "count of 4 billion",
            edit_chunk(0, |b| b[12..16].copy_from_slice(&u32::MAX.to_le_bytes())),
            "truncated",
        ),
        (
            "count of 0",
            edit_chunk(2, |b| {
                b[12..16].copy_from_slice(&0u32.to_le_bytes());
                let end = record_spans(&{
                    let mut c = b.clone();
                    c[12..16].copy_from_slice(&1u32.to_le_bytes());
                    c
                })[0]
                    .0;
                b.truncate(end);
            }),
            "no records",
        ),
        (
            "cut in the middle of an event",
            edit_chunk(1, |b| {
                let n = b.len();
                b.truncate(n - 7)
            }),
            "truncated",
        ),
        (
            "trailing bytes",
            edit_chunk(0, |b| b.extend_from_slice(b"xyz")),
            "trailing bytes",
        ),
        (
            "event length of 4 GiB",
            edit_chunk(0, |b| {
                let (s, _) = record_spans(b)[5];
                b[s + 80..s + 84].copy_from_slice(&u32::MAX.to_le_bytes());
            }),
            "truncated",
        ),
        (
            "recorded_at not UTF-8",
            edit_chunk(0, |b| b[60] = 0xff),
            "not UTF-8",
        ),
        (
            "recorded_at's microseconds changed",
            edit_chunk(1, |b| b[48] ^= 1),
            "recorded_at's microseconds do not match its text",
        ),
        (
            "header seq differs from key",
            edit_chunk(1, |b| b[4] ^= 1),
            "header says it starts at seq",
        ),
        (
            "event bytes not JSON",
            edit_chunk(0, |b| {
                let (s, _) = record_spans(b)[3];
                b[s + 84] = b'#';
            }),
            "seq 4: stored hash does not match",
        ),
        (
            "stored hash changed",
            edit_chunk(2, |b| {
                let (s, _) = record_spans(b)[0];
                b[s] ^= 0x55;
            }),
            "stored hash does not match",
        ),
        (
            "void target set on a plain record",
            edit_chunk(0, |b| {
                let (s, _) = record_spans(b)[2];
                b[s + 40..s + 48].copy_from_slice(&1u64.to_le_bytes());
            }),
            "seq 3: record header (at, void target or keys) does not match its event",
        ),
        (
            "domain time changed in a header",
            edit_chunk(1, |b| {
                let (s, _) = record_spans(b)[0];
                b[s + 33] ^= 1;
            }),
            "does not match its event",
        ),
        (
            "content key changed in a header",
            edit_chunk(1, |b| {
                let (s, _) = record_spans(b)[4];
                b[s + 64 + 15] ^= 1;
            }),
            "record header (at, void target or keys) does not match its event",
        ),
        (
            "idempotency key changed in a header",
            edit_chunk(2, |b| {
                let (s, _) = record_spans(b)[1];
                b[s + 48] ^= 0x80;
            }),
            "record header (at, void target or keys) does not match its event",
        ),
        (
            "middle chunk removed",
            Box::new(|v: &mut View| drop(v.entries.remove(1))),
            "starts at seq 2049, not 1025",
        ),
        (
            "overlapping short chunk",
            Box::new(|v: &mut View| {
                // A copy of chunk 0's first record, keyed one seq later,
                // stored at the end of chunk 0's segment.
                let mut b = unpacked(&v.stored(0));
                let (_, end) = record_spans(&b)[0];
                b.truncate(end);
                b[12..16].copy_from_slice(&1u32.to_le_bytes());
                b[4..12].copy_from_slice(&2u64.to_le_bytes());
                let c = laurel::ledger::chunk::decode(&b, 2).unwrap();
                let summary = laurel::ledger::summary::Summary::of(&c).encode();
                let packed = common::packed::pack(&b);
                let pointer = v.append_to_segment(&v.entries[0].1.clone(), &packed);
                v.entries.insert(1, (2, pointer, summary));
            }),
            "entry at byte 80 starts at seq 2, not 1025",
        ),
        (
            "an entry's first seq moved on",
            Box::new(|v: &mut View| v.entries[1].0 += 1),
            "",
        ),
        (
            "head beyond the stored records",
            Box::new(|v: &mut View| v.seq = 9999),
            "but HEAD says 9999",
        ),
        (
            "head hash changed",
            Box::new(|v: &mut View| v.hash[12] ^= 1),
            "but the last stored record is",
        ),
        (
            "format marker removed",
            Box::new(|v: &mut View| v.format.clear()),
            "not a laurel ledger",
        ),
        (
            "unknown format marker",
            Box::new(|v: &mut View| v.format = b"laurel-ledger-9".to_vec()),
            "unknown ledger format",
        ),
        (
            "an old format marker",
            Box::new(|v: &mut View| v.format = b"laurel-ledger-2".to_vec()),
            "unknown ledger format \"laurel-ledger-2\"",
        ),
        (
            "a chunk's key fingerprints changed",
            Box::new(|v: &mut View| {
                let first = v.entries[1].0;
                let file = v.db.join("fps");
                rewrite(&file, |b| b[8 * (first as usize - 1) + 3] ^= 1);
            }),
            "stored key fingerprints: do not match the chunk's records",
        ),
        (
            "a chunk's summary changed",
            Box::new(|v: &mut View| {
                let (first, _, s) = &v.entries[2];
                let mut summary = laurel::ledger::summary::Summary::decode(*first, s).unwrap();
                summary.min_at -= 1;
                v.entries[2].2 = summary.encode();
            }),
            "stored chunk summary: do not match the chunk's records",
        ),
        (
            "every chunk removed",
            Box::new(|v: &mut View| v.entries.clear()),
            "but HEAD says",
        ),
    ];
    for (name, edit, fragment) in &cases {
        let work = tempfile::tempdir().unwrap();
        copy_dir(&db_path(base.path()), &db_path(work.path()));
        through_view(work.path(), edit);
        let (code, stderr) = every_command_fails_cleanly(work.path(), name);
        if fragment.is_empty() {
            continue; // only "no panic, no hang" is promised
        }
        assert_eq!(code, 1, "{name}: verify exits 1: {stderr}");
        assert!(
            stderr.contains(fragment),
            "{name}: {fragment:?} in {stderr}"
        );
    }
}

#[test]
fn verify_reports_every_damaged_chunk_not_just_the_first() {
    let base = sample();
    through_view(base.path(), |v| {
        edit_chunk(0, |b| b[0] = b'X')(v);
        edit_chunk(2, |b| {
            let (s, _) = record_spans(b)[1];
            b[s + 84 + 3] ^= 1;
        })(v);
    });
    let out = output_within(
        laurel_std(base.path(), &["verify"]),
        b"",
        Duration::from_secs(30),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("seq 1: ledger storage is damaged: chunk starting at seq 1: bad magic"),
        "{stderr}"
    );
    assert!(stderr.contains("stored hash does not match"), "{stderr}");
    // The records of the chunk that could not be read are in it, not missing.
    assert!(!stderr.contains("are missing"), "{stderr}");
    // A published head among them cannot be checked: not "cut back" nor
    // "rewritten".
    let expect = format!("1:{}", "ab".repeat(32));
    let out = output_within(
        laurel_std(base.path(), &["verify", "--expect", &expect]),
        b"",
        Duration::from_secs(30),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "seq 1: published head {expect} cannot be checked: its record is in the chunk from \
             seq 1, which could not be read"
        )),
        "{stderr}"
    );
}

/// A FIFO, a device or an endless file in the place of a ledger file, or no
/// file at all, is damage: every command exits 1 or 2 at once (a FIFO would
/// block the open, a device never end), verify (exit 1) naming the file;
/// never a hang.
#[test]
fn a_fifo_or_device_in_the_place_of_a_ledger_file_is_damage_not_a_hang() {
    let base = common::ledger_with(&["cards_league.jsonl"]);
    let base_db = db_path(base.path());
    let first_segment = segments(&base_db)[0].clone();
    let segment = first_segment.strip_prefix(&base_db).unwrap().to_path_buf();
    for name in [PathBuf::from("HEAD"), "index".into(), "fps".into(), segment] {
        for kind in ["fifo", "device", "missing"] {
            let work = tempfile::tempdir().unwrap();
            let db = db_path(work.path());
            copy_dir(&base_db, &db);
            let file = db.join(&name);
            std::fs::remove_file(&file).unwrap();
            let said = match kind {
                "fifo" => {
                    let made = std::process::Command::new("mkfifo").arg(&file).status();
                    assert!(made.unwrap().success());
                    "is not a regular file"
                }
                "device" => {
                    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
                    "is not a regular file"
                }
                _ if name == Path::new("HEAD") => "not a laurel ledger (no ",
                _ => "is missing",
            };
            let what = format!("{} as a {kind}", name.display());
            let (code, stderr) = every_command_fails_cleanly(work.path(), &what);
            assert_eq!(code, 1, "{what}: {stderr}");
            assert!(stderr.contains(said), "{what}: {stderr}");
        }
    }
    // A HEAD of a GiB (sparse) is read no further than a head record's size.
    let work = tempfile::tempdir().unwrap();
    let db = db_path(work.path());
    copy_dir(&base_db, &db);
    let head = std::fs::OpenOptions::new()
        .write(true)
        .open(db.join("HEAD"))
        .unwrap();
    head.set_len(1 << 30).unwrap();
    let (code, stderr) = every_command_fails_cleanly(work.path(), "a HEAD of a GiB");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("head record has the wrong size"),
        "{stderr}"
    );
}

/// Change the third digit of the year of record `i`'s `at` in a chunk's
/// LRC1 bytes ("2003" to "2013", "2013" to "2003"): a valid event still.
fn forge_year(b: &mut [u8], i: usize) {
    let (s, e) = record_spans(b)[i];
    let event = &b[s + 84..e];
    let at = event.windows(6).position(|w| w == b"\"at\":\"").unwrap();
    let digit = &mut b[s + 84 + at + 6 + 2];
    *digit = if *digit == b'0' { b'1' } else { b'0' };
}

/// A record forged with its chunk's checksum made again reads back (queries
/// trust the checksum; only the chain's hashes tell): `site` checks the
/// chain before it publishes (exit 1, nothing written), and `head` hashes
/// the record it names again (exit 1 when that one was forged).
#[test]
fn a_forged_record_stops_site_and_a_forged_last_record_stops_head() {
    let base = common::ledger_with(&["cards_league.jsonl"]);
    let seq = common::head(base.path()).0 as usize;
    assert_eq!(View::load(&db_path(base.path())).entries.len(), 1);
    for (i, command) in [(1, "site"), (seq - 1, "head")] {
        let work = tempfile::tempdir().unwrap();
        copy_dir(&db_path(base.path()), &db_path(work.path()));
        through_view(work.path(), edit_chunk(0, move |b| forge_year(b, i)));
        let out = laurel_std(work.path(), &["verify"]).output().unwrap();
        let verify = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{verify}");
        assert!(verify.contains(&format!("seq {}: stored hash does not match", i + 1)));
        let site = work.path().join("site");
        let args = match command {
            "site" => vec!["site", site.to_str().unwrap()],
            _ => vec!["head"],
        };
        let out = laurel_std(work.path(), &args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command}: {stderr}");
        let said = match command {
            "site" => "site: nothing written: the chain does not verify (`laurel verify` says \
                       more): seq 2: stored hash does not match"
                .to_string(),
            _ => format!("HEAD names record {seq} with hash"),
        };
        assert!(stderr.contains(&said), "{command}: {stderr}");
        assert!(out.stdout.is_empty() && !site.exists(), "{command}");
    }
}
