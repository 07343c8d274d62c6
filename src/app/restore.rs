//! `laurel restore FILE`: a new ledger rebuilt from the lines of `laurel
//! export`, record for record: the same seqs, events, times recorded and
//! hashes, so the same head. An export is then a backup that outlives the
//! storage format (the directory's bytes are one release's): a later release
//! restores it as long as its rules of input take every record (below).
//!
//! How: the export is read twice. First every line is checked as the
//! README's outside verifier checks it (seqs from 1 without a gap, each
//! `prev` the hash before, each `hash` BLAKE3 of the record without it, its
//! event in canonical form whatever form the line writes it in), and more:
//! its `recorded_at` must be laurel's form of a time (RFC 3339, UTC,
//! microseconds, the text hashed), not before the line above's nor after
//! now (a later append would be recorded then too). A line the chain breaks
//! at (a record missing, changed or out of place) exits 1, as `verify` of
//! such a chain does, and so does a last line cut mid-record after records
//! that read (an export cut short, as a copy interrupted leaves it); one not
//! written as an export's are exits 2. Blank lines are skipped;
//! the file must be a regular file (it is read twice). Then each run of
//! records sharing a `recorded_at` (one append, or appends the clock did not tell apart,
//! checked again together) is appended again, in order, recorded at its time
//! ([`Ledger::append_recorded`]), with the checks of the ledger's rules an
//! append makes (each event reads, and the ledger folds with it) but not
//! its rules of input: how a new name, ident or rule change must be written
//! (a name near a known one is refused as a likely typo) and the rules
//! between records that bind only what an append brings judge new input,
//! and an export's records were accepted once, under the rules of their
//! day, which later releases may tighten. A record the ledger's rules
//! refuse stops the restore with the append's message, at the export's
//! line, and a word on when the export says it was recorded. After each run
//! the new head must be the export's hash of its last record.
//!
//! All or nothing: the ledger is built beside the place asked for and moved
//! into it only once every record is in ([`crate::beside`]); a refused
//! restore removes what it built, and readers never see half a ledger. The
//! place must be new or an empty directory, as for `laurel init`.
//!
//! Cost: every append of the export is made again, each with its check fold
//! (from the checkpoint before its records): the export of one import of a
//! million events restores in about the import's time, and one of many small
//! appends in their number times an append's.

use std::io::{BufRead, BufReader, Read, Seek};
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::beside;
use crate::error::{Error, Origin, Result};
use crate::input::MAX_EVENT_BYTES;
use crate::ledger::{canonical, Input, Ledger};
use crate::time::{self, Micros};

/// `laurel restore FILE [--expect HEAD]` into a new ledger at `path`: with
/// `expect` (a published head, as `verify --expect` takes it), the export
/// must hold that record with that hash, or nothing is built (exit 1, as
/// `verify --expect` of a chain without it): an export cut short, or made
/// of another ledger, restores no ledger that head was published from.
pub fn restore(path: &Path, file: &Path, expect: Option<&str>) -> Result<String> {
    let expect = expect.map(super::parse_expect).transpose()?;
    let place = beside::followed(path, "restore")?;
    let new_place = |p: &Path| Ledger::check_new_place(p, "restore");
    new_place(&place)?;
    let (runs, found) = read_runs(file, expect.map(|e| e.0))?;
    if let Some(e) = expect {
        holds(e, found, last_seq(&runs))?;
    }
    beside::build_beside(&place, "restore", &new_place, |stage| {
        rebuild(stage, file, &runs)
    })?;
    let records = last_seq(&runs);
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

impl Run {
    /// The seq of its last record.
    fn last(&self) -> u64 {
        self.first_seq + self.count - 1
    }
}

/// The seq of the last record of `runs` (0: none).
fn last_seq(runs: &[Run]) -> u64 {
    runs.last().map_or(0, Run::last)
}

/// The longest export line read: the longest event and the record around it.
const MAX_LINE: usize = MAX_EVENT_BYTES + 1024;

/// Whether the export holds the published head `(seq, hash)`: `found`,
/// the hash it gives record `seq`, if it has one; `last`, its last seq.
/// Head 0 (64 zeros: a ledger before its first record) every export holds.
fn holds((seq, hash): (u64, [u8; 32]), found: Option<[u8; 32]>, last: u64) -> Result<()> {
    let found = match seq {
        0 => Some([0; 32]),
        _ => found,
    };
    let msg = match found {
        Some(h) if h == hash => return Ok(()),
        Some(h) => format!(
            "the export's record {seq} has hash {}, not the published {}: it is not of the \
             ledger that head was published from",
            canonical::hex(&h),
            canonical::hex(&hash)
        ),
        None => format!(
            "the export ends at record {last}: the published head {seq} is not in it (an export \
             cut short?)"
        ),
    };
    Err(Error::Tampered {
        seq: seq.min(last + 1),
        msg,
    })
}

/// The export at `file`, opened to be read from its start (twice: stdin
/// cannot be), or why not.
fn open(file: &Path) -> Result<BufReader<std::fs::File>> {
    let name = file.display().to_string();
    let refused = |why: &str| Err(Error::Usage(format!("restore: {name} {why}")));
    if name == "-" {
        return refused("is stdin: restore reads its file twice; save the export to a file");
    }
    if file.is_dir() {
        return refused("is a directory: give the file `laurel export` wrote");
    }
    if std::fs::metadata(file).is_ok_and(|m| !m.is_file()) {
        return refused("is not a regular file (a pipe?): restore reads its file twice; save the export to a file");
    }
    let f = std::fs::File::open(file).map_err(|e| Error::io(&name, e))?;
    Ok(BufReader::with_capacity(256 * 1024, f))
}

/// The export's runs of records, every line checked (see the module docs),
/// and the hash it gives record `want`, if it has one.
fn read_runs(file: &Path, want: Option<u64>) -> Result<(Vec<Run>, Option<[u8; 32]>)> {
    let name = file.display().to_string();
    let mut r = open(file)?;
    let start = r.fill_buf().map_err(|e| Error::io(&name, e))?;
    let bom = start.len() > crate::input::without_bom(start).len();
    let refused = bom.then_some(crate::input::BOM_REFUSED);
    if let Some(msg) = refused.or_else(|| crate::input::marked(start)) {
        let origin = Origin {
            file: Some(name.clone()),
            line: Some(1),
            ..Origin::default()
        };
        return Err(Error::invalid(origin, msg));
    }
    let (mut runs, mut buf, mut record) = (Vec::<Run>::new(), Vec::new(), Vec::new());
    let (mut offset, mut line_no, mut seq, mut prev) = (0u64, 0u64, 0u64, [0u8; 32]);
    let (mut last_at, mut found): (Option<(String, Micros)>, _) = (None, None);
    let now = time::now();
    while next_line(&mut r, &mut buf, &name, line_no + 1)? {
        line_no += 1;
        offset += buf.len() as u64;
        if trimmed(&buf).iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        seq += 1;
        let at_line = |seq: Option<u64>, msg: String| {
            let origin = Origin {
                file: Some(name.clone()),
                line: Some(line_no),
                seq,
                ..Origin::default()
            };
            Error::invalid(origin, msg)
        };
        let line: Line = match serde_json::from_slice(trimmed(&buf)) {
            Ok(line) => line,
            // The last line of an export holding records before it, cut
            // mid-record: the export was cut short (a copy interrupted), as
            // one missing whole lines.
            Err(e) if e.is_eof() && seq > 1 && starts_as_export(&buf) && at_end(&mut r, &name)? => {
                return Err(Error::Tampered {
                    seq,
                    msg: format!(
                        "{name}:{line_no}: the export ends inside record {seq}: an export cut \
                         short?"
                    ),
                });
            }
            Err(e) => {
                let msg = format!("not a line of `laurel export` ({e})");
                return Err(at_line(None, msg));
            }
        };
        let hash = check_record(&line, (seq, prev), &mut record).map_err(|e| match e {
            Broken::Chain(msg) => Error::Tampered {
                seq,
                msg: format!("{name}:{line_no}: {msg}"),
            },
            Broken::Form(msg) => at_line(None, msg),
        })?;
        let bounds = (last_at.as_ref().map(|l| l.1), now);
        let at = recorded_time(&line.recorded_at, bounds).map_err(|m| at_line(Some(seq), m))?;
        match runs.last_mut() {
            Some(run) if last_at.as_ref().is_some_and(|l| l.0 == line.recorded_at) => {
                run.count += 1;
                run.last_hash = hash;
            }
            _ => runs.push(Run {
                offset: offset - buf.len() as u64,
                first_line: line_no,
                first_seq: seq,
                count: 1,
                recorded_at: at,
                last_hash: hash,
            }),
        }
        if want == Some(seq) {
            found = Some(hash);
        }
        (prev, last_at) = (hash, Some((line.recorded_at, at)));
    }
    Ok((runs, found))
}

/// Does `line` start as an export's lines do (`{"event":`, the first key
/// in canonical order), or as much of that as it holds?
fn starts_as_export(line: &[u8]) -> bool {
    const START: &[u8] = b"{\"event\":";
    let line = trimmed(line);
    line.starts_with(START) || (!line.is_empty() && START.starts_with(line))
}

/// Is `r` at the end of its file?
fn at_end(r: &mut impl BufRead, name: &str) -> Result<bool> {
    Ok(r.fill_buf().map_err(|e| Error::io(name, e))?.is_empty())
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

/// What is wrong with an export line.
enum Broken {
    /// The chain does not verify there (a record missing, changed or out of
    /// place): exit 1, as `verify` of such a chain.
    Chain(String),
    /// The line is not written as an export's are: exit 2, bad input.
    Form(String),
}

/// The hash of `line`, the record `seq` whose `prev` is the hash of the
/// record before (all zeros before the first): its seq that one, its
/// `prev` that hash, its `hash` that of its contents, the event in canonical
/// form. `record` holds the bytes hashed.
fn check_record(
    line: &Line,
    (seq, prev): (u64, [u8; 32]),
    record: &mut Vec<u8>,
) -> std::result::Result<[u8; 32], Broken> {
    let hash = export_hex("hash", &line.hash)?;
    let given_prev = export_hex("prev", &line.prev)?;
    if line.seq != seq {
        return Err(Broken::Chain(format!(
            "record {} where record {seq} comes: records are exported from seq 1, one a line, \
             without a gap",
            line.seq
        )));
    }
    if given_prev != prev {
        return Err(Broken::Chain(format!(
            "record {seq} follows the record whose hash is {}, not {}: the chain is broken \
             here (a record before it is missing or changed)",
            canonical::hex(&prev),
            line.prev
        )));
    }
    let event = serde_json::from_str(line.event.get()).map(|v| crate::events::to_canonical(&v));
    let event =
        event.map_err(|e| Broken::Form(format!("record {seq}: its event does not read ({e})")))?;
    let recorded = (line.recorded_at.as_str(), line.seq);
    if canonical::hash_of_record((&event, &prev), recorded, record) != hash {
        return Err(Broken::Chain(format!(
            "record {}: its hash is not the hash of its contents (it was changed after export)",
            line.seq
        )));
    }
    Ok(hash)
}

/// The hash `field` of an export line: 64 lowercase hex digits, as `export`
/// writes them (a hash in capitals is the same number, but a verifier that
/// hashes the line as written would not find the hash it states).
fn export_hex(field: &str, v: &str) -> std::result::Result<[u8; 32], Broken> {
    let lower = !v.bytes().any(|b| b.is_ascii_uppercase());
    match canonical::parse_hex(v).filter(|_| lower) {
        Some(h) => Ok(h),
        None => Err(Broken::Form(format!(
            "{field} is {v:?}, not 64 lowercase hex digits"
        ))),
    }
}

/// The instant `text` names, as laurel records it (RFC 3339, UTC, to the
/// microsecond, its own form: what is hashed is the text), not before the
/// line above's, `last`, nor after `now`.
fn recorded_time(
    text: &str,
    (last, now): (Option<Micros>, Micros),
) -> std::result::Result<Micros, String> {
    let form = "laurel's form, RFC 3339 in UTC to the microsecond (2026-01-31T09:30:00.000000Z)";
    let t = time::parse(text)
        .filter(|t| time::format(*t) == text)
        .ok_or_else(|| format!("recorded_at {text:?} is not in {form}"))?;
    match last {
        Some(before) if t < before => Err(format!(
            "recorded_at {text} is before the line above's, {}: records are recorded in order",
            time::format(before)
        )),
        _ if t > now => Err(format!(
            "recorded_at {text} is after now ({}): no ledger recorded it yet, and every later \
             append would be recorded at it too",
            time::format(now)
        )),
        _ => Ok(t),
    }
}

/// The ledger at `dir`, each run of `runs` appended from `file` in turn.
fn rebuild(dir: &Path, file: &Path, runs: &[Run]) -> Result<()> {
    let name = file.display().to_string();
    let ledger = Ledger::init(dir)?;
    for run in runs {
        let mut lines = open(file)?;
        lines
            .seek(std::io::SeekFrom::Start(run.offset))
            .map_err(|e| Error::io(&name, e))?;
        let events = Events {
            lines,
            left: run.count,
            line: Vec::new(),
            out: Vec::new(),
            pos: 0,
        };
        let input = Input {
            name: name.clone(),
            reader: Box::new(BufReader::new(events)),
            first_line: run.first_line,
        };
        let report = (ledger.append_recorded(vec![input], run.recorded_at))
            .map_err(|e| recorded_then(e, run.recorded_at))?;
        let last = run.last();
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

/// `e`, a refusal of a record of a run recorded at `at`, with a word on
/// what that may mean: the export was edited, or a release that read its
/// events otherwise wrote it.
fn recorded_then(e: Error, at: Micros) -> Error {
    e.each_refusal(|mut e| {
        if let Error::Invalid { msg, .. } | Error::Dependent { msg, .. } = &mut e {
            msg.push_str(&format!(
                " (the export has it recorded at {}: a ledger does not hold such a record, so \
                 the export was edited, or written by a release that reads its events \
                 otherwise; restore it with that release)",
                time::format(at)
            ));
        }
        e
    })
}

/// The events of a run's export lines, one JSON line each (a blank line
/// stays one, so that lines keep their numbers): what its append reads.
struct Events {
    lines: BufReader<std::fs::File>,
    /// The records still to read.
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
            self.line.clear();
            (&mut self.lines)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.line)?;
            if self.line.is_empty() {
                let msg = "the export changed while it was restored (it ends early)";
                return Err(std::io::Error::other(msg));
            }
            self.out.clear();
            let text = trimmed(&self.line);
            if !text.iter().all(u8::is_ascii_whitespace) {
                self.left -= 1;
                let line: Line = serde_json::from_slice(text).map_err(|e| {
                    std::io::Error::other(format!("the export changed while it was restored ({e})"))
                })?;
                self.out.extend_from_slice(line.event.get().as_bytes());
            }
            self.out.push(b'\n');
            self.pos = 0;
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
