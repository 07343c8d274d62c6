//! The ledger: an append-only, BLAKE3 hash-chained log of events in sled.
//!
//! This module (and its children) is the only code that touches sled.
//!
//! Guarantees, in the order a user relies on them:
//! 1. **Nothing is lost once reported.** An append returns success only after
//!    sled has flushed and every file of the database has been fsynced (sled's own
//!    `flush` is not a full fsync on Linux).
//! 2. **All or nothing.** Records are written into chunks beyond the head and the
//!    head moves in one final write: an append that fails, or a process killed
//!    mid-append, leaves the head where it was. Chunks beyond the head are never
//!    read, and the next append deletes them.
//! 3. **Tamper-evident.** Every record's hash covers its event, its seq, its
//!    `recorded_at` and the previous hash; `verify` recomputes all of them.
//! 4. **One writer.** sled locks the database; a second process gets
//!    [`Error::Locked`] at once instead of waiting or corrupting.
//! 5. **Bounded memory.** Reading, verifying and folding stream chunk by chunk;
//!    nothing holds the whole log.
//!
//! Byte layout: see [`chunk`]. Canonical form and hashing: see [`canonical`].
//! Each chunk has a [`summary`] written with it (same key, same append); the
//! append's check fold reads and writes projection [`checkpoint`]s, a cache that
//! `drop_beyond` and the head binding keep out of reach of failed appends.

pub mod canonical;
pub mod checkpoint;
pub mod chunk;
pub mod summary;

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Origin, Result};
use crate::events::{self, ledger as ledger_events, Event, Record};
use crate::fold::{self, Entry, Source};
use crate::input;
use crate::time::{self, Micros};

use chunk::{ChunkWriter, RecordView};

/// Idempotency index: key → (content hash, seq).
type IdemIndex = BTreeMap<[u8; 16], ([u8; 16], u64)>;

/// Version 2 added the "summaries" tree (every chunk has one) and checkpoints.
const FORMAT: &[u8] = b"laurel-ledger-2";
const FORMAT_1: &[u8] = b"laurel-ledger-1";
/// sled's page cache; the default (1 GiB) would dominate memory use.
const CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The ledger's digest: the seq and hash of the last record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Head {
    pub seq: u64,
    pub hash: [u8; 32],
}

impl std::fmt::Display for Head {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.seq, canonical::hex(&self.hash))
    }
}

/// One input of an append: a name for messages, and the bytes.
pub struct Input<'a> {
    pub name: String,
    pub reader: Box<dyn BufRead + 'a>,
}

/// What an append did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendReport {
    pub appended: u64,
    /// Events whose idempotency key was already recorded with identical content.
    pub already_recorded: u64,
    pub head: Head,
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    pub records: u64,
    pub head: Head,
    /// `(seq, what is wrong)`, in seq order; empty when the chain verifies.
    pub problems: Vec<(u64, String)>,
}

pub struct Ledger {
    db: sled::Db,
    chunks: sled::Tree,
    /// One [`summary::Summary`] per chunk, same key.
    summaries: sled::Tree,
    /// Checkpoint headers and their snapshots, keyed by position ([`checkpoint`]).
    checkpoints: sled::Tree,
    snapshots: sled::Tree,
    meta: sled::Tree,
    path: PathBuf,
}

/// sled's errors: damaged or missing files are corruption (exit 1), the rest storage errors.
fn storage(e: sled::Error) -> Error {
    match e {
        sled::Error::Corruption { .. } => Error::Corrupt(e.to_string()),
        sled::Error::Io(ref io) if io.kind() == std::io::ErrorKind::NotFound => {
            Error::Corrupt(format!("a file of the database is missing ({e})"))
        }
        _ => Error::Storage(e.to_string()),
    }
}

fn open_db(path: &Path) -> Result<sled::Db> {
    sled::Config::new()
        .path(path)
        .cache_capacity(CACHE_BYTES)
        .open()
        .map_err(|e| match e {
            sled::Error::Io(io) if io.to_string().contains("could not acquire lock") => {
                Error::Locked(path.to_path_buf())
            }
            sled::Error::Io(io) => Error::io(path.display().to_string(), io),
            other => Error::Corrupt(format!("{}: {other}", path.display())),
        })
}

fn exists(path: &Path) -> bool {
    path.join("conf").exists() || path.join("db").exists()
}

impl Ledger {
    /// Create a new, empty ledger at `path`.
    pub fn init(path: &Path) -> Result<Ledger> {
        if exists(path) {
            return Err(Error::Exists(path.to_path_buf()));
        }
        let ledger = Self::from_db(path, open_db(path)?)?;
        ledger.meta.insert("format", FORMAT).map_err(storage)?;
        ledger.durable()?;
        Ok(ledger)
    }

    /// Open an existing ledger.
    pub fn open(path: &Path) -> Result<Ledger> {
        if !exists(path) {
            return Err(Error::NoLedger(path.to_path_buf()));
        }
        let ledger = Self::from_db(path, open_db(path)?)?;
        match ledger.meta.get("format").map_err(storage)? {
            Some(f) if f.as_ref() == FORMAT => Ok(ledger),
            Some(f) if f.as_ref() == FORMAT_1 => Err(Error::Corrupt(
                "ledger format laurel-ledger-1 has no chunk summaries; `laurel export` it with the laurel that wrote it and append the export to a new ledger".into(),
            )),
            Some(f) => Err(Error::Corrupt(format!(
                "unknown ledger format {:?}",
                String::from_utf8_lossy(&f)
            ))),
            None => Err(Error::Corrupt(
                "not a laurel ledger (no format marker)".into(),
            )),
        }
    }

    fn from_db(path: &Path, db: sled::Db) -> Result<Ledger> {
        Ok(Ledger {
            chunks: db.open_tree("chunks").map_err(storage)?,
            summaries: db.open_tree("summaries").map_err(storage)?,
            checkpoints: db.open_tree("checkpoints").map_err(storage)?,
            snapshots: db.open_tree("snapshots").map_err(storage)?,
            meta: db.open_tree("meta").map_err(storage)?,
            db,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The head as committed.
    pub fn head(&self) -> Result<Head> {
        // meta "head" = seq u64 LE (8) + hash (32); absent for an empty ledger.
        match self.meta.get("head").map_err(storage)? {
            None => Ok(Head::default()),
            Some(v) if v.len() == 40 => {
                let mut seq = [0u8; 8];
                seq.copy_from_slice(&v[..8]);
                let mut hash = [0u8; 32];
                hash.copy_from_slice(&v[8..]);
                Ok(Head {
                    seq: u64::from_le_bytes(seq),
                    hash,
                })
            }
            Some(_) => Err(Error::Corrupt("head record has the wrong size".into())),
        }
    }

    /// Flush sled, then fsync every file of the database and the directory.
    fn durable(&self) -> Result<()> {
        self.db.flush().map_err(storage)?;
        fsync_tree(&self.path)
    }

    /// Every stored chunk up to `upto`, decoded, in seq order.
    fn for_each_chunk(
        &self,
        upto: u64,
        f: &mut dyn FnMut(&chunk::ChunkView) -> Result<()>,
    ) -> Result<()> {
        for item in self.chunks.range(..=chunk::key(upto)) {
            let (k, v) = item.map_err(storage)?;
            let key_seq = u64::from_be_bytes(
                k.as_ref()
                    .try_into()
                    .map_err(|_| Error::Corrupt("bad chunk key".into()))?,
            );
            f(&chunk::decode(&v, key_seq)?)?;
        }
        Ok(())
    }

    /// Every committed record, in seq order.
    pub fn for_each_record(
        &self,
        f: &mut dyn FnMut(&RecordView, &str) -> Result<()>,
    ) -> Result<()> {
        let head = self.head()?.seq;
        self.for_each_chunk(head, &mut |c| {
            c.records
                .iter()
                .filter(|r| r.seq <= head)
                .try_for_each(|r| f(r, c.recorded_at))
        })
    }

    /// Append the events of `inputs`, in order, as one all-or-nothing append.
    pub fn append(&self, inputs: Vec<Input<'_>>) -> Result<AppendReport> {
        let head = self.head()?;
        self.drop_beyond(head.seq)?;
        let result = self.write_pending(head, inputs);
        let report = match result {
            Ok(r) => r,
            Err(e) => {
                self.drop_beyond(head.seq)?;
                return Err(e);
            }
        };
        if report.appended > 0 {
            let mut v = report.head.seq.to_le_bytes().to_vec();
            v.extend_from_slice(&report.head.hash);
            self.meta.insert("head", v).map_err(storage)?;
            self.durable()?;
        }
        Ok(report)
    }

    /// Write every new record beyond the head, then validate the whole fold.
    fn write_pending(&self, head: Head, inputs: Vec<Input<'_>>) -> Result<AppendReport> {
        let mut index = self.idem_index(head.seq)?;
        let now = time::now();
        let mut pending = Pending {
            ledger: self,
            writer: ChunkWriter::new(head.seq + 1, head.hash, now, &time::format(now)),
            origins: Vec::new(),
            voids: Vec::new(),
            already: 0,
        };
        let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
        for (file, input) in inputs.into_iter().enumerate() {
            let mut on_event =
                |line, value| pending.add(&mut index, file, &names[file], line, value);
            if let Err(bad) = input::read_events(input.reader, &mut on_event)? {
                let origin = Origin {
                    file: Some(names[file].clone()),
                    line: Some(bad.line),
                    ..Origin::default()
                };
                return Err(Error::invalid(origin, bad.msg));
            }
        }
        let last = pending.flush()?;
        let report = AppendReport {
            appended: last.seq - head.seq,
            already_recorded: pending.already,
            head: last,
        };
        if report.appended > 0 {
            self.validate(head.seq, last, &pending, &names)?;
        }
        Ok(report)
    }

    /// Fold everything up to `new` with checks (from a checkpoint when one is
    /// still valid, see [`checkpoint`]); name file and line for new records.
    fn validate(
        &self,
        old_head: u64,
        new: Head,
        pending: &Pending,
        names: &[String],
    ) -> Result<()> {
        let (mut origin, msg) = match self.check_fold(old_head, new) {
            Ok(_) => return Ok(()),
            Err(Error::Invalid { origin, msg }) => (origin, msg),
            Err(e) => return Err(e),
        };
        let place = |seq: u64| pending.origins[(seq - old_head - 1) as usize];
        let seq = origin.seq.unwrap_or(0);
        if seq > old_head {
            let (file, line) = place(seq);
            origin.file = Some(names[file].clone());
            origin.line = Some(line);
            origin.seq = None;
            return Err(Error::Invalid { origin, msg });
        }
        // A recorded event no longer validates: blame this append's voids if it has
        // any (the usual cause), else the append as a whole.
        let what = format!(
            "record {seq} ({}) would no longer be valid: {msg}",
            origin.kind.clone().unwrap_or_default()
        );
        let Some(&(void_seq, target)) = pending.voids.first() else {
            let first = Origin {
                file: names.first().cloned(),
                ..Origin::default()
            };
            return Err(Error::invalid(
                first,
                format!("this append is refused because {what}"),
            ));
        };
        let (file, line) = place(void_seq);
        let lines: Vec<String> = pending
            .voids
            .iter()
            .map(|&(s, _)| place(s).1.to_string())
            .collect();
        let blame = if lines.len() == 1 {
            format!("voiding record {target} is refused: {what}; void the records that depend on it in the same append")
        } else {
            format!("the voids of this append (lines {}) are refused: {what}; void the records that depend on them in the same append", lines.join(", "))
        };
        let o = Origin {
            file: Some(names[file].clone()),
            line: Some(line),
            kind: Some("ledger.voided".into()),
            ..Origin::default()
        };
        Err(Error::invalid(o, blame))
    }

    /// Idempotency keys of every committed record: key → (content, seq).
    fn idem_index(&self, upto: u64) -> Result<IdemIndex> {
        let mut index = BTreeMap::new();
        self.for_each_chunk(upto, &mut |c| {
            for r in c.records.iter().filter(|r| r.seq <= upto) {
                index.insert(r.idem, (r.content, r.seq));
            }
            Ok(())
        })?;
        Ok(index)
    }

    /// Delete chunks and their summaries beyond `seq`, and checkpoints made at a
    /// head beyond it: leftovers of an append that failed or was killed.
    fn drop_beyond(&self, seq: u64) -> Result<()> {
        for tree in [&self.chunks, &self.summaries] {
            let stale: Vec<sled::IVec> = tree
                .range(chunk::key(seq + 1)..)
                .keys()
                .collect::<std::result::Result<_, _>>()
                .map_err(storage)?;
            for k in stale {
                tree.remove(k).map_err(storage)?;
            }
        }
        self.drop_checkpoints(|h| h.head.seq > seq)
    }

    /// Store a chunk beyond the head, with its summary (same key).
    fn put_chunk(&self, first_seq: u64, bytes: Vec<u8>) -> Result<()> {
        let s = summary::Summary::of(&chunk::decode(&bytes, first_seq)?);
        let k = chunk::key(first_seq);
        self.summaries.insert(k, s.encode()).map_err(storage)?;
        self.chunks.insert(k, bytes).map_err(storage)?;
        Ok(())
    }

    /// Check the whole chain; with `expect`, that a published head is still in it.
    ///
    /// Chunks are checked independently (each stores the `prev` of its first
    /// record), on both cores, a batch at a time; linking each chunk to the one
    /// before it is then a cheap sequential pass over the batch.
    pub fn verify(&self, expect: Option<(u64, [u8; 32])>) -> Result<VerifyReport> {
        /// Chunks held at once: up to 16 MiB of records.
        const BATCH: usize = 16 * 1024 * 1024 / chunk::MAX_BYTES;
        let head = self.head()?;
        let mut problems = Vec::new();
        let mut next = 1u64;
        let mut last = [0u8; 32];
        let mut expected_found = false;
        let mut iter = self.chunks.range(..=chunk::key(head.seq));
        let mut batch: Vec<(u64, sled::IVec)> = Vec::with_capacity(BATCH);
        loop {
            batch.clear();
            for item in iter.by_ref().take(BATCH) {
                let (k, v) = item.map_err(storage)?;
                let key_seq = k.as_ref().try_into().map(u64::from_be_bytes).unwrap_or(0);
                batch.push((key_seq, v));
            }
            if batch.is_empty() {
                break;
            }
            let (a, b) = batch.split_at(batch.len().div_ceil(2));
            let checked: Vec<std::result::Result<ChunkCheck, String>> =
                std::thread::scope(|scope| {
                    let other = scope.spawn(|| {
                        b.iter()
                            .map(|(k, v)| check_chunk(*k, v, expect))
                            .collect::<Vec<_>>()
                    });
                    let mut mine: Vec<_> =
                        a.iter().map(|(k, v)| check_chunk(*k, v, expect)).collect();
                    mine.extend(other.join().unwrap_or_default());
                    mine
                });
            for ((key_seq, _), c) in batch.iter().zip(checked) {
                let c = match c {
                    Ok(c) => c,
                    Err(e) => {
                        problems.push((*key_seq, e));
                        continue;
                    }
                };
                if c.first_seq < next {
                    problems.push((
                        c.first_seq,
                        format!("chunk overlaps records before it (expected seq {next} next)"),
                    ));
                    continue;
                }
                if c.first_seq != next {
                    problems.push((
                        next,
                        format!(
                            "records {next}..{} are missing",
                            c.first_seq.saturating_sub(1)
                        ),
                    ));
                } else if c.prev != last {
                    problems.push((
                        c.first_seq,
                        format!("prev does not match the hash of record {}", next - 1),
                    ));
                }
                problems.extend(c.problems);
                expected_found |= c.expected_found;
                next = c.first_seq + c.count;
                last = c.last.unwrap_or(last);
            }
        }
        let records = next - 1;
        if records != head.seq || last != head.hash {
            problems.push((
                head.seq,
                format!(
                    "head says {head} but the last stored record is {records} {}",
                    canonical::hex(&last)
                ),
            ));
        }
        if let Some((s, h)) = expect {
            if !expected_found {
                let why = if s > records {
                    "the ledger has fewer records now"
                } else {
                    "the record at that seq has another hash"
                };
                problems.push((
                    s,
                    format!(
                        "published head {s}:{} is not in this ledger: {why}",
                        canonical::hex(&h)
                    ),
                ));
            }
        }
        problems.sort_by_key(|(s, _)| *s);
        Ok(VerifyReport {
            records,
            head,
            problems,
        })
    }

    /// `laurel export`: one JSON line per record (canonical form plus `hash`).
    pub fn export(&self, w: &mut dyn Write) -> Result<()> {
        self.for_each_record(&mut |r, recorded_at| {
            let mut line = canonical::export_line(r.event, &r.hash, &r.prev, recorded_at, r.seq);
            line.push(b'\n');
            w.write_all(&line).map_err(|e| Error::io("stdout", e))
        })
    }

    /// The hash of record `seq` (zeros for seq 0, as the first record's `prev`).
    pub fn hash_at(&self, seq: u64) -> Result<[u8; 32]> {
        if seq == 0 {
            return Ok([0; 32]);
        }
        let (first, bytes) = self.chunk_holding(seq)?;
        chunk::decode(&bytes, first)?
            .records
            .iter()
            .find(|r| r.seq == seq)
            .map(|r| r.hash)
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))
    }

    /// The stored chunk whose seq range starts at or before `seq`: (first seq, bytes).
    fn chunk_holding(&self, seq: u64) -> Result<(u64, sled::IVec)> {
        let (k, v) = self
            .chunks
            .range(..=chunk::key(seq))
            .next_back()
            .transpose()
            .map_err(storage)?
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))?;
        Ok((
            k.as_ref().try_into().map(u64::from_be_bytes).unwrap_or(0),
            v,
        ))
    }

    /// A fold source over the committed records.
    pub fn source(&self) -> Result<impl Source + '_> {
        Ok(View {
            ledger: self,
            upto: self.head()?.seq,
        })
    }
}

/// The fold reads a record's header (`at`, void target, keys) without parsing the
/// event, and the hash covers only the event: check the header agrees with it.
fn header_mismatch(r: &RecordView) -> Option<String> {
    let env = match events::stored_header(r.event) {
        Ok(env) => env,
        Err(e) => return Some(format!("stored event cannot be decoded: {e}")),
    };
    let content = chunk::content_of(r.event);
    let idem = env.id.as_deref().map(chunk::idem_of_id).unwrap_or(content);
    if env.at != r.at || env.void_target != r.void_target || content != r.content || idem != r.idem
    {
        return Some("record header (at, void target or keys) does not match its event".into());
    }
    None
}

/// What checking one chunk on its own finds.
struct ChunkCheck {
    first_seq: u64,
    count: u64,
    /// The stored `prev` of its first record.
    prev: [u8; 32],
    /// The hash of its last record.
    last: Option<[u8; 32]>,
    problems: Vec<(u64, String)>,
    expected_found: bool,
}

/// Decode one chunk and check every record's hash and header.
fn check_chunk(
    key_seq: u64,
    bytes: &[u8],
    expect: Option<(u64, [u8; 32])>,
) -> std::result::Result<ChunkCheck, String> {
    let c = chunk::decode(bytes, key_seq).map_err(|e| e.to_string())?;
    let mut problems = Vec::new();
    let mut expected_found = false;
    for r in &c.records {
        let h = canonical::record_hash(r.event, &r.prev, c.recorded_at, r.seq);
        if h != r.hash {
            problems.push((
                r.seq,
                "stored hash does not match the record's content".into(),
            ));
        } else if let Some(why) = header_mismatch(r) {
            problems.push((r.seq, why));
        }
        if expect.is_some_and(|(s, eh)| s == r.seq && eh == r.hash) {
            expected_found = true;
        }
    }
    Ok(ChunkCheck {
        first_seq: c.first_seq,
        count: c.records.len() as u64,
        prev: c.prev,
        last: c.records.last().map(|r| r.hash),
        problems,
        expected_found,
    })
}

/// Records being added by one append.
struct Pending<'l> {
    ledger: &'l Ledger,
    writer: ChunkWriter,
    /// (input index, line) of each new record, by seq - first new seq.
    origins: Vec<(usize, u64)>,
    /// (seq, target) of each new `ledger.voided`, to name it when a record that
    /// depends on its target no longer validates.
    voids: Vec<(u64, u64)>,
    already: u64,
}

impl Pending<'_> {
    fn add(
        &mut self,
        index: &mut IdemIndex,
        file: usize,
        name: &str,
        line: u64,
        value: serde_json::Value,
    ) -> Result<()> {
        let origin = || Origin {
            file: Some(name.to_string()),
            line: Some(line),
            ..Origin::default()
        };
        let p = events::parse_event(value).map_err(|m| Error::invalid(origin(), m))?;
        let content = chunk::content_of(&p.canonical);
        let idem = p.id.as_deref().map(chunk::idem_of_id).unwrap_or(content);
        if let Some(&(c, seq)) = index.get(&idem) {
            if c == content {
                self.already += 1;
                return Ok(());
            }
            let o = Origin {
                id: p.id.clone(),
                kind: Some(p.kind.clone()),
                ..origin()
            };
            return Err(Error::IdConflict {
                origin: Box::new(o),
                id: p.id.unwrap_or_default(),
                seq,
            });
        }
        index.insert(idem, (content, self.writer.next_seq()));
        let void = match &p.event {
            // Target 0 would be stored as "not a void" (chunk.rs), so refuse it here.
            Event::Ledger(ledger_events::Event::Voided(v)) if v.target == 0 => {
                let o = Origin {
                    kind: Some(p.kind.clone()),
                    id: p.id.clone(),
                    ..origin()
                };
                return Err(Error::invalid(o, "void target 0 is not an earlier record"));
            }
            Event::Ledger(ledger_events::Event::Voided(v)) => Some(v.target),
            _ => None,
        };
        if let Some(target) = void {
            self.voids.push((self.writer.next_seq(), target));
        }
        self.writer.push(p.at, void, idem, content, &p.canonical);
        self.origins.push((file, line));
        if self.writer.is_full() {
            self.flush()?;
        }
        Ok(())
    }

    /// Store the current chunk (beyond the head, so not yet visible); start the next.
    fn flush(&mut self) -> Result<Head> {
        let w = &self.writer;
        let next = ChunkWriter::new(
            w.next_seq(),
            w.last_hash,
            w.recorded_at_micros(),
            w.recorded_at(),
        );
        let done = std::mem::replace(&mut self.writer, next);
        let head = Head {
            seq: done.next_seq() - 1,
            hash: done.last_hash,
        };
        if done.count > 0 {
            let first = done.first_seq;
            self.ledger.put_chunk(first, done.finish())?;
        }
        Ok(head)
    }
}

/// The ledger's records up to `upto` (which may include an append's pending chunks).
struct View<'l> {
    ledger: &'l Ledger,
    upto: u64,
}

impl Source for View<'_> {
    fn last_seq(&self) -> u64 {
        self.upto
    }

    /// Reads only the chunks whose summary's `at` range meets `lo..=hi`.
    fn entries_in(
        &self,
        lo: Micros,
        hi: Micros,
        f: &mut dyn FnMut(Entry) -> Result<()>,
    ) -> Result<()> {
        for s in self.ledger.summaries_between(1, self.upto)? {
            if s.max_at < lo || s.min_at > hi {
                continue;
            }
            let (first, bytes) = self.ledger.chunk_holding(s.first_seq)?;
            let c = chunk::decode(&bytes, first)?;
            for r in c.records.iter().filter(|r| r.seq <= self.upto) {
                f(Entry {
                    seq: r.seq,
                    at: r.at,
                    recorded_at: c.recorded_at_micros,
                    void_target: r.void_target,
                })?;
            }
        }
        Ok(())
    }

    /// From the summaries alone.
    fn void_pairs(&self, f: &mut dyn FnMut(u64, u64) -> Result<()>) -> Result<()> {
        for s in self.ledger.summaries_between(1, self.upto)? {
            for &(seq, target) in s.voids.iter().filter(|(seq, _)| *seq <= self.upto) {
                f(seq, target)?;
            }
        }
        Ok(())
    }

    fn entries(&self, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()> {
        self.ledger.for_each_chunk(self.upto, &mut |c| {
            for r in c.records.iter().filter(|r| r.seq <= self.upto) {
                f(Entry {
                    seq: r.seq,
                    at: r.at,
                    recorded_at: c.recorded_at_micros,
                    void_target: r.void_target,
                })?;
            }
            Ok(())
        })
    }

    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        self.records_of(seqs, None, f)
    }

    fn records_of(
        &self,
        seqs: &[u64],
        only: Option<&str>,
        f: &mut dyn FnMut(Record) -> Result<()>,
    ) -> Result<()> {
        // The fold order is `(at, seq)`: a late record sends it to a later chunk
        // and straight back, so keep the last few chunks rather than one.
        const KEEP: usize = 8;
        let mut cache: Vec<Cached> = Vec::with_capacity(KEEP);
        for &seq in seqs {
            let i = match cache.iter().position(|c| c.contains(seq)) {
                Some(i) => i,
                None => {
                    if cache.len() == KEEP {
                        cache.remove(0);
                    }
                    cache.push(self.load(seq)?);
                    cache.len() - 1
                }
            };
            let c = &cache[i];
            if only.is_some() && !fold::wanted(&c.kind(seq)?, only) {
                continue;
            }
            f(c.record(seq)?)?;
        }
        Ok(())
    }
}

/// A chunk's bytes plus where each event sits in them.
struct Cached {
    first: u64,
    recorded_at: i64,
    bytes: sled::IVec,
    /// Each event's byte range and its header's `at`.
    events: Vec<(usize, usize, Micros)>,
}

impl Cached {
    fn contains(&self, seq: u64) -> bool {
        seq >= self.first && seq < self.first + self.events.len() as u64
    }

    fn bytes_of(&self, seq: u64) -> Result<(&[u8], Micros)> {
        let (start, end, at) = *self
            .events
            .get(seq.wrapping_sub(self.first) as usize)
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is not in its chunk")))?;
        Ok((&self.bytes[start..end], at))
    }

    /// The event's `type`, read without decoding its payload.
    fn kind(&self, seq: u64) -> Result<String> {
        let (bytes, _) = self.bytes_of(seq)?;
        events::stored_kind(bytes)
            .map_err(|e| Error::Corrupt(format!("record {seq} cannot be decoded: {e}")))
    }

    fn record(&self, seq: u64) -> Result<Record> {
        let (start, end, at) = *self
            .events
            .get(seq.wrapping_sub(self.first) as usize)
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is not in its chunk")))?;
        events::decode_stored_fast(&self.bytes[start..end], seq, at, self.recorded_at)
            .map_err(|e| Error::Corrupt(format!("record {seq} cannot be decoded: {e}")))
    }
}

impl View<'_> {
    fn load(&self, seq: u64) -> Result<Cached> {
        let (key_seq, v) = self.ledger.chunk_holding(seq)?;
        let c = chunk::decode(&v, key_seq)?;
        let base = v.as_ptr() as usize;
        let events = c
            .records
            .iter()
            .map(|r| {
                let start = r.event.as_ptr() as usize - base;
                (start, start + r.event.len(), r.at)
            })
            .collect();
        let (first, recorded_at) = (c.first_seq, c.recorded_at_micros);
        Ok(Cached {
            first,
            recorded_at,
            events,
            bytes: v,
        })
    }
}

/// fsync every regular file below `dir`, then `dir` itself.
fn fsync_tree(dir: &Path) -> Result<()> {
    let io = |e| Error::io(dir.display().to_string(), e);
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            fsync_tree(&path)?;
        } else if path.is_file() {
            std::fs::File::open(&path)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io(path.display().to_string(), e))?;
        }
    }
    std::fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(io)
}
