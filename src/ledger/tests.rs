//! Tests of the append pipeline, the fsync of a ledger directory and the
//! reads of records across chunks.

use std::collections::BTreeSet;

use super::open::{fsync_all, fsync_path, to_fsync};
use super::parse::{incoming, ContentKeys, Parsed};
use super::*;
use crate::input;

#[test]
fn an_append_fsyncs_sleds_files_and_the_directories_naming_laurels_only() {
    let t = tempfile::tempdir().unwrap();
    let (blobs, ckpts) = (t.path().join("blobs"), t.path().join("checkpoints"));
    for d in [
        &blobs,
        &ckpts,
        &t.path().join("segments"),
        &t.path().join("lost+found"),
    ] {
        std::fs::create_dir(d).unwrap();
    }
    for f in ["db", "conf", "snap.000A", "laurel.lock", "notes.txt"] {
        std::fs::write(t.path().join(f), b"y").unwrap();
    }
    std::fs::write(blobs.join("1"), b"x").unwrap();
    std::fs::write(ckpts.join("a.lcp"), b"x").unwrap();
    std::os::unix::fs::symlink("/proc/self", t.path().join("proc")).unwrap();
    let (files, dirs) = to_fsync(t.path(), &ckpts).unwrap();
    let names = |v: &[std::path::PathBuf]| -> Vec<String> {
        v.iter()
            .map(|p| p.strip_prefix(t.path()).unwrap().display().to_string())
            .collect()
    };
    assert_eq!(names(&files), ["conf", "db", "snap.000A", "blobs/1"]);
    assert_eq!(names(&dirs), ["blobs", "checkpoints", ""]);
    assert!(fsync_all(t.path(), &ckpts).is_ok());
    assert!(fsync_all(&t.path().join("gone"), &ckpts).is_err());
}

#[test]
fn a_vanished_file_is_skipped_by_fsync_but_a_vanished_directory_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    let gone = t.path().join("blob-deleted-by-sled");
    assert!(fsync_path(&gone, true).is_ok());
    assert!(fsync_path(&gone, false).is_err());
    assert!(fsync_path(t.path(), false).is_ok());
}

fn input(text: &str) -> Vec<Input<'_>> {
    vec![Input {
        name: "in".into(),
        reader: Box::new(text.as_bytes()),
        first_line: 1,
    }]
}

fn origin_line(e: Error) -> Option<u64> {
    match e {
        Error::Invalid { origin, .. } => origin.line,
        Error::IdConflict { origin, .. } => origin.line,
        other => panic!("not an input error: {other}"),
    }
}

/// The lines of the input an error names, in its order.
fn origin_lines(e: Error) -> Vec<Option<u64>> {
    match e {
        Error::Several { errors, .. } => errors.into_iter().map(origin_line).collect(),
        e => vec![origin_line(e)],
    }
}

/// The reader runs ahead of the writer by whole batches: the lines refused
/// are still reported in input order, a problem of the lines before the
/// first refused one (an id given twice) instead, and nothing may be
/// appended.
#[test]
fn the_first_bad_line_is_reported_across_batches_and_nothing_is_written() {
    let good: Vec<String> = crate::systems::gen::stream(1500, 5)
        .lines()
        .map(String::from)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::init(&dir.path().join("l")).unwrap();
    let unknown = r#"{"type":"nope.x","at":"2003-01-01"}"#.to_string();
    let conflict = r#"{"type":"mepbm.monthly_tick","at":"2003-01-01","month":"2003-01","id":"k"}"#;
    let mut lines = good.clone();
    lines[1199] = unknown.clone();
    lines[899] = "{oops".into();
    let err = ledger.append(input(&lines.join("\n"))).unwrap_err();
    assert_eq!(origin_lines(err), [Some(900), Some(1200)]);
    lines[599] = unknown;
    let err = ledger.append(input(&lines.join("\n"))).unwrap_err();
    assert_eq!(origin_lines(err), [Some(600), Some(900), Some(1200)]);
    lines[299] = conflict.replace("2003-01\"", "2003-02\"");
    lines.insert(0, conflict.to_string());
    let err = ledger.append(input(&lines.join("\n"))).unwrap_err();
    assert!(
        err.to_string().contains("given twice in this append"),
        "{err}"
    );
    // The refused lines after it are read once it is mended.
    assert_eq!(origin_lines(err), [Some(301)]);
    assert_eq!(ledger.head().unwrap(), Head::default());
    let report = ledger.append(input(&good.join("\n"))).unwrap();
    assert_eq!(report.appended, 1500);
}

/// A problem of the input itself (a line over the limit, a read that
/// fails) is found on the parser thread, after batches already sent: it is
/// reported after every line before it, in its own input, with nothing
/// written; a bad line before it is reported before it.
#[test]
fn an_input_problem_comes_after_the_lines_before_it() {
    struct Failing<'a>(&'a [u8]);
    impl std::io::Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = self.0.len().min(buf.len()).min(4096);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let good = crate::systems::gen::stream(1200, 5);
    let lines: Vec<&str> = good.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::init(&dir.path().join("l")).unwrap();
    let long = format!("{{\"x\":\"{}\"}}", "a".repeat(input::MAX_EVENT_BYTES));
    let second = [&lines[600..1000].join("\n"), long.as_str(), "{}"].join("\n");
    let two = |first: String| {
        vec![
            Input {
                name: "a".into(),
                reader: Box::new(std::io::Cursor::new(first)),
                first_line: 1,
            },
            Input {
                name: "b".into(),
                reader: Box::new(std::io::Cursor::new(second.clone())),
                first_line: 1,
            },
        ]
    };
    let err = ledger.append(two(lines[..600].join("\n"))).unwrap_err();
    let Error::Invalid { origin, msg } = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (origin.file.as_deref(), origin.line),
        (Some("b"), Some(401)),
        "{msg}"
    );
    assert!(msg.contains("longer than the limit"), "{msg}");
    // An id taken again with other content in the batch not yet sent when
    // the long line is read: the conflict is reported, not the long line.
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2003-01-01","month":"2003-01","id":"k"}"#;
    let retick = tick.replace("2003-01\"", "2003-02\"");
    let mut conflicted: Vec<&str> = lines[600..1000].to_vec();
    conflicted[299] = &retick;
    let second = [&conflicted.join("\n"), long.as_str()].join("\n");
    let inputs = vec![
        Input {
            name: "a".into(),
            reader: Box::new(std::io::Cursor::new(tick.to_string())),
            first_line: 1,
        },
        Input {
            name: "b".into(),
            reader: Box::new(std::io::Cursor::new(second)),
            first_line: 1,
        },
    ];
    let err = ledger.append(inputs).unwrap_err();
    assert!(err.to_string().contains("(first at a:1)"), "{err}");
    assert_eq!(origin_lines(err), [Some(300)]);
    let mut first = lines[..600].to_vec();
    first[550] = "{oops";
    assert_eq!(
        origin_lines(ledger.append(two(first.join("\n"))).unwrap_err()),
        [Some(551), Some(401)]
    );
    let text = lines.join("\n");
    let failing = Input {
        name: "f".into(),
        reader: Box::new(std::io::BufReader::new(Failing(text.as_bytes()))),
        first_line: 1,
    };
    let err = ledger.append(vec![failing]).unwrap_err();
    assert!(
        matches!(&err, Error::Io { source, .. } if source.to_string() == "disk gone"),
        "{err}"
    );
    assert_eq!(ledger.head().unwrap(), Head::default());
}

/// The batch work of the parser thread gives what one event at a time gives:
/// content keys hashed across SIMD lanes equal those of one event, and each
/// record's hash finished from its midstate equals BLAKE3 of the record.
#[test]
fn a_parsed_batch_has_the_content_keys_of_its_events_one_by_one() {
    let line = |n: u64| grammar::Line {
        id: None,
        at: 0,
        kind: "x.y".into(),
        void: None,
        canonical: format!("{{\"n\":{n},\"pad\":\"{}\"}}", "p".repeat(4 * n as usize)).into_bytes(),
    };
    let parsed: Vec<_> = (1..=300).map(|n| (n, line(n))).collect();
    let wants: Vec<Vec<u8>> = parsed.iter().map(|(_, p)| p.canonical.clone()).collect();
    let keys = ContentKeys::default().of(&parsed);
    let parsed = Parsed {
        file: 0,
        lines: parsed,
        keys,
    };
    let batch = incoming(parsed).unwrap();
    assert_eq!(batch.len(), 300);
    for (inc, want) in batch.into_iter().zip(&wants) {
        assert_eq!(&inc.canonical, want);
        assert_eq!(
            inc.keys.content,
            chunk::content_key(blake3::hash(want).as_bytes())
        );
        let (prev, at, seq) = ([3; 32], "2026-11-29T10:00:00.000000Z", inc.line);
        let mut record = Vec::new();
        canonical::push_record(&mut record, want, None, &prev, at, seq);
        let p = blake3::platform::Platform::detect();
        let mut buf = Vec::new();
        let got = canonical::record_hash(&inc.keys.head, &p, (want, &prev), (at, seq), &mut buf);
        assert_eq!(got, *blake3::hash(&record).as_bytes(), "line {}", inc.line);
    }
}

/// `record_fields` reads a chunk once for all the seqs it holds, so it
/// must step from one chunk to the next exactly at their boundaries: it
/// gives every stored record of the set, what `hash_at` gives one by one,
/// and leaves out seqs that are not stored.
#[test]
fn record_fields_across_chunks_equal_hash_at_one_by_one() {
    let text = crate::systems::gen::stream(6000, 3);
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::init(&dir.path().join("l")).unwrap();
    ledger.append(input(&text)).unwrap();
    let chunks = ledger.chunks().unwrap().len();
    assert!(
        chunks >= 3,
        "{chunks} chunk(s): too few to cross boundaries"
    );
    let all: BTreeSet<u64> = (0..=6002).collect();
    let all_hashes = ledger.record_fields(&all, |r| r.hash);
    assert_eq!(
        all_hashes.keys().copied().collect::<Vec<_>>(),
        (1..=6000).collect::<Vec<_>>()
    );
    for (&seq, &hash) in &all_hashes {
        assert_eq!(ledger.hash_at(seq).unwrap(), hash, "{seq}");
    }
    let some: BTreeSet<u64> = [1, 2999, 3000, 5999, 6000, 7000].into();
    let hashes = ledger.record_fields(&some, |r| r.hash);
    assert_eq!(hashes.len(), 5);
    assert_eq!(hashes[&6000], ledger.head().unwrap().hash);
    // The first record of every chunk, each the only one wanted of its
    // chunk: the walk goes on right after the chunk it read.
    let firsts: BTreeSet<u64> = ledger
        .chunks()
        .unwrap()
        .iter()
        .keys()
        .map(|k| u64::from_be_bytes(k.unwrap().as_ref().try_into().unwrap()))
        .collect();
    assert_eq!(firsts.len(), chunks);
    let found = ledger.record_fields(&firsts, |r| r.seq);
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        firsts.iter().collect::<Vec<_>>()
    );
}

/// Ticks for the months of 2001 from `from` on, one event a line.
fn ticks(from: u32, to: u32) -> String {
    (from..=to)
        .map(|m| {
            format!(
                r#"{{"type":"mepbm.monthly_tick","at":"2001-{:02}-02","month":"2001-{m:02}"}}"#,
                m + 1
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_published_index_must_cover_exactly_the_head_and_fps_may_not_be_short() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let ledger = Ledger::init(&path).unwrap();
    ledger.append(input(&ticks(1, 3))).unwrap();
    ledger.append(input(&ticks(4, 5))).unwrap();
    drop(ledger);
    let p = published::read_published(&path).unwrap();
    assert_eq!(p.head.seq, 5);
    // What `HEAD` would say with another seq or index length.
    let with = |seq: u64, index_len: u64| {
        let mut q = p;
        q.head.seq = seq;
        q.index_len = index_len;
        q
    };
    assert_eq!(published::read_index(&path, p).unwrap().len(), 2);
    let err = published::read_index(&path, with(6, p.index_len))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("covers records up to 5, but HEAD says 6"),
        "{err}"
    );
    // The second entry alone starts at seq 4, not 1.
    let first = published::read_index(&path, p).unwrap()[0].encode().len() as u64;
    let bytes = std::fs::read(published::index_file(&path)).unwrap();
    std::fs::write(published::index_file(&path), &bytes[first as usize..]).unwrap();
    let err = published::read_index(&path, with(5, p.index_len - first))
        .unwrap_err()
        .to_string();
    assert!(err.contains("starts at seq 4, not 1"), "{err}");
    std::fs::write(published::index_file(&path), &bytes).unwrap();
    // An entry that ends before it starts, its checksum whole.
    let mut backwards = published::read_index(&path, p).unwrap().swap_remove(0);
    backwards.summary.last_seq = 0;
    let one = backwards.encode();
    std::fs::write(published::index_file(&path), &one).unwrap();
    let err = published::read_index(&path, with(5, one.len() as u64))
        .unwrap_err()
        .to_string();
    assert!(err.contains("ends at seq 0, before it starts (1)"), "{err}");
    std::fs::write(published::index_file(&path), &bytes).unwrap();
    // A short `fps` is damage, not zeros to fill in.
    let fps = published::fps_file(&path);
    let f = std::fs::OpenOptions::new().write(true).open(&fps).unwrap();
    f.set_len(8 * 4).unwrap();
    let err = published::Out::open(&path, p).err().unwrap().to_string();
    assert!(err.contains("shorter than HEAD says"), "{err}");
}

#[test]
fn a_changed_fingerprint_makes_the_next_append_refuse_naming_fps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l");
    let ledger = Ledger::init(&path).unwrap();
    ledger.append(input(&ticks(1, 3))).unwrap();
    ledger.append(input(&ticks(4, 4))).unwrap();
    drop(ledger);
    let mut fps = std::fs::read(published::fps_file(&path)).unwrap();
    fps[9] ^= 1;
    std::fs::write(published::fps_file(&path), fps).unwrap();
    let ledger = Ledger::open(&path).unwrap();
    let err = ledger.append(input(&ticks(5, 5))).unwrap_err().to_string();
    assert!(
        err.contains("fps: the key fingerprints of records 1..=4 are damaged"),
        "{err}"
    );
    assert_eq!(ledger.head().unwrap().seq, 4);
}

#[test]
fn the_fingerprints_checksum_continues_across_appends() {
    let (a, b) = (b"first append's".as_slice(), b" and the next".as_slice());
    let mut h = crc32fast::Hasher::new_with_initial(crc32fast::hash(a));
    h.update(b);
    assert_eq!(h.finalize(), crc32fast::hash(&[a, b].concat()));
}
