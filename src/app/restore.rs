//! `laurel restore FILE`: a new ledger rebuilt from the lines of `laurel
//! export`, record for record: the same seqs, events, times recorded and
//! hashes, so the same head. An export is then a backup that any later
//! release reads (the directory's bytes are one release's storage format).
//!
//! How: the export is read twice. First every line is checked as the
//! README's outside verifier checks it (seqs from 1 without a gap, each
//! `prev` the hash before, each `hash` BLAKE3 of the record without it),
//! and its `recorded_at` must be laurel's form of a time (RFC 3339, UTC,
//! microseconds) and never before the line above's. The records sharing a
//! `recorded_at` were one append; then each of those runs is appended
//! again, in order, recorded at its time ([`Ledger::append_recorded`]), with
//! every check an append makes: an export is input like any other, and a
//! record that today's rules refuse stops the restore with the append's
//! message, placed at the export's line. After each run the new head must
//! be the export's hash of its last record.
//!
//! All or nothing: the ledger is built in a directory beside the one asked
//! for (`.NAME.restoring`) and renamed into place only once every record is
//! in; a refused restore removes it, and readers never see half a ledger.
//! The ledger asked for must not exist yet, or be an empty directory.

use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::{Error, Origin, Result};
use crate::input::MAX_EVENT_BYTES;
use crate::ledger::{canonical, Input, Ledger};
use crate::time::{self, Micros};

/// `laurel restore FILE` into a new ledger at `path`.
pub fn restore(path: &Path, file: &Path) -> Result<String> {
    let runs = read_runs(file)?;
    let aside = aside_of(path)?;
    let built = rebuild(&aside, file, &runs);
    let renamed = built.and_then(|()| {
        std::fs::rename(&aside, path).map_err(|e| Error::io(path.display().to_string(), e))
    });
    if let Err(e) = renamed {
        let _ = std::fs::remove_dir_all(&aside);
        return Err(e);
    }
    let records = runs.last().map_or(0, |r| r.first_seq + r.count - 1);
    let head = runs.last().map_or([0; 32], |r| r.last_hash);
    Ok(format!(
        "restored {records} record(s), {} append(s), into {}\nhead {records} {}\n",
        runs.len(),
        path.display(),
        canonical::hex(&head)
    ))
}

/// One line of `laurel export`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line<'a> {
    #[serde(borrow)]
    event: &'a RawValue,
    hash: String,
    prev: String,
    recorded_at: String,
    seq: u64,
}

/// The records of one append: lines sharing a `recorded_at`.
struct Run {
    /// Where its first line starts in the export, in bytes, and its number.
    offset: u64,
    first_line: u64,
    first_seq: u64,
    count: u64,
    recorded_at: Micros,
    /// The export's hash of its last record.
    last_hash: [u8; 32],
}

/// The longest export line read: the longest event and the record around it.
const MAX_LINE: usize = MAX_EVENT_BYTES + 1024;

/// The export's runs of records, every line checked (see the module docs).
fn read_runs(file: &Path) -> Result<Vec<Run>> {
    let name = file.display().to_string();
    let f = std::fs::File::open(file).map_err(|e| Error::io(&name, e))?;
    let mut r = BufReader::with_capacity(256 * 1024, f);
    let (mut runs, mut buf, mut record) = (Vec::<Run>::new(), Vec::new(), Vec::new());
    let (mut offset, mut line_no, mut prev) = (0u64, 0u64, [0u8; 32]);
    let mut last_at: Option<(String, Micros)> = None;
    while next_line(&mut r, &mut buf, &name, line_no + 1)? {
        line_no += 1;
        let at_line = |seq: Option<u64>, msg: String| {
            let origin = Origin {
                file: Some(name.clone()),
                line: Some(line_no),
                seq,
                ..Origin::default()
            };
            Error::invalid(origin, msg)
        };
        let line: Line = serde_json::from_slice(trimmed(&buf)).map_err(|e| {
            let msg = format!("not a line of `laurel export` ({e})");
            at_line(None, msg)
        })?;
        let expected = (line_no, prev);
        let hash = check_record(&line, expected, &mut record).map_err(|m| at_line(None, m))?;
        let seq = line.seq;
        let at = recorded_time(&line.recorded_at, last_at.as_ref().map(|l| l.1))
            .map_err(|m| at_line(Some(seq), m))?;
        match runs.last_mut() {
            Some(run) if last_at.as_ref().is_some_and(|l| l.0 == line.recorded_at) => {
                run.count += 1;
                run.last_hash = hash;
            }
            _ => runs.push(Run {
                offset,
                first_line: line_no,
                first_seq: seq,
                count: 1,
                recorded_at: at,
                last_hash: hash,
            }),
        }
        (prev, last_at) = (hash, Some((line.recorded_at, at)));
        offset += buf.len() as u64;
    }
    Ok(runs)
}

/// The next line of `r` into `buf` (with its line end); false at the end.
fn next_line(r: &mut impl BufRead, buf: &mut Vec<u8>, name: &str, line: u64) -> Result<bool> {
    buf.clear();
    let n = (&mut *r)
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| Error::io(name, e))?;
    if n > MAX_LINE {
        let origin = Origin {
            file: Some(name.to_string()),
            line: Some(line),
            ..Origin::default()
        };
        let msg = format!("line longer than {MAX_LINE} bytes: no line of `laurel export` is");
        return Err(Error::invalid(origin, msg));
    }
    Ok(n > 0)
}

/// `line` without its line end.
fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The hash of `line`, the record `seq` whose `prev` is the hash of the
/// record before (all zeros before the first): its seq that one, its
/// `prev` that hash, its `hash` that of its contents. `record` holds the
/// bytes hashed.
fn check_record(
    line: &Line,
    (seq, prev): (u64, [u8; 32]),
    record: &mut Vec<u8>,
) -> std::result::Result<[u8; 32], String> {
    let want = |field: &str, v: &str| format!("{field} is {v:?}, not 64 lowercase hex digits");
    let hash = canonical::parse_hex(&line.hash).ok_or_else(|| want("hash", &line.hash))?;
    let given_prev = canonical::parse_hex(&line.prev).ok_or_else(|| want("prev", &line.prev))?;
    if line.seq != seq {
        return Err(format!(
            "record {} where record {seq} comes: records are exported from seq 1, one a line, \
             without a gap",
            line.seq
        ));
    }
    if given_prev != prev {
        return Err(format!(
            "record {seq} follows the record whose hash is {}, not {}: the chain is broken \
             here (a record before it is missing or changed)",
            canonical::hex(&prev),
            line.prev
        ));
    }
    record.clear();
    let event = line.event.get().as_bytes();
    canonical::push_record(record, event, None, &prev, &line.recorded_at, line.seq);
    if *blake3::hash(record).as_bytes() != hash {
        return Err(format!(
            "record {}: its hash is not the hash of its contents (it was changed after export)",
            line.seq
        ));
    }
    Ok(hash)
}

/// The instant `text` names, as laurel records it (RFC 3339, UTC, to the
/// microsecond, its own form: what is hashed is the text), not before the
/// line above's, `last`.
fn recorded_time(text: &str, last: Option<Micros>) -> std::result::Result<Micros, String> {
    let form = "laurel's form, RFC 3339 in UTC to the microsecond (2026-01-31T09:30:00.000000Z)";
    let t = time::parse(text)
        .filter(|t| time::format(*t) == text)
        .ok_or_else(|| format!("recorded_at {text:?} is not in {form}"))?;
    match last {
        Some(before) if t < before => Err(format!(
            "recorded_at {text} is before the line above's, {}: records are recorded in order",
            time::format(before)
        )),
        _ => Ok(t),
    }
}

/// Where the ledger at `path` is built: `.NAME.restoring` beside it. `path`
/// must be new or an empty directory; a directory left by a restore that
/// was stopped is removed (it holds a ledger or nothing).
fn aside_of(path: &Path) -> Result<PathBuf> {
    let refused = |why: &str| {
        Err(Error::Usage(format!(
            "{} {why}: `laurel restore` makes a new ledger in a new or empty directory",
            path.display()
        )))
    };
    if path.is_file() {
        return refused("is a file");
    }
    if let Ok(mut entries) = std::fs::read_dir(path) {
        if ["conf", "db", "HEAD"].iter().any(|f| path.join(f).exists()) {
            return Err(Error::Exists(path.to_path_buf()));
        }
        if entries.next().is_some() {
            return refused("is not empty");
        }
    }
    let absolute =
        std::path::absolute(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let (Some(parent), Some(name)) = (absolute.parent(), absolute.file_name()) else {
        return refused("names no directory a ledger can be made in");
    };
    let aside = parent.join(format!(".{}.restoring", name.to_string_lossy()));
    if aside.exists() {
        std::fs::remove_dir_all(&aside).map_err(|e| Error::io(aside.display().to_string(), e))?;
    }
    Ok(aside)
}

/// The ledger at `aside`, each run of `runs` appended from `file` in turn.
fn rebuild(aside: &Path, file: &Path, runs: &[Run]) -> Result<()> {
    let name = file.display().to_string();
    let ledger = Ledger::init(aside)?;
    for run in runs {
        let mut f = std::fs::File::open(file).map_err(|e| Error::io(&name, e))?;
        f.seek(std::io::SeekFrom::Start(run.offset))
            .map_err(|e| Error::io(&name, e))?;
        let events = Events {
            lines: BufReader::with_capacity(256 * 1024, f),
            left: run.count,
            line: Vec::new(),
            out: Vec::new(),
            pos: 0,
        };
        let input = Input {
            name: name.clone(),
            reader: Box::new(BufReader::new(events)),
        };
        let report = (ledger.append_recorded(vec![input], run.recorded_at))
            .map_err(|e| at_export_line(e, run.first_line))?;
        let last = run.first_seq + run.count - 1;
        if report.head.seq != last || report.head.hash != run.last_hash {
            let origin = Origin {
                file: Some(name.clone()),
                line: Some(run.first_line),
                seq: Some(run.first_seq),
                ..Origin::default()
            };
            let msg = format!(
                "the records {}–{last} give another chain than the export's (head {} {}): \
                 laurel writes an event of theirs in another form, so they were not written by \
                 `laurel export` as they stand",
                run.first_seq,
                report.head.seq,
                canonical::hex(&report.head.hash)
            );
            return Err(Error::invalid(origin, msg));
        }
    }
    Ok(())
}

/// An append's error placed at the export's line: the append counts the
/// lines of the run it was given from 1.
fn at_export_line(mut e: Error, first_line: u64) -> Error {
    if let Some(line) = e.origin_mut().and_then(|o| o.line.as_mut()) {
        *line += first_line - 1;
    }
    e
}

/// The events of a run's export lines, one JSON line each: what its append reads.
struct Events {
    lines: BufReader<std::fs::File>,
    /// The lines still to read.
    left: u64,
    line: Vec<u8>,
    /// The current event's line, and how much of it was read.
    out: Vec<u8>,
    pos: usize,
}

impl Read for Events {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.out.len() {
            if self.left == 0 {
                return Ok(0);
            }
            self.left -= 1;
            self.line.clear();
            (&mut self.lines)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.line)?;
            let line: Line = serde_json::from_slice(trimmed(&self.line)).map_err(|e| {
                std::io::Error::other(format!("the export changed while it was restored ({e})"))
            })?;
            self.out.clear();
            self.out.extend_from_slice(line.event.get().as_bytes());
            self.out.push(b'\n');
            self.pos = 0;
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
