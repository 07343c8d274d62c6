//! The ledger: an append-only, BLAKE3 hash-chained log of events: chunks of
//! records in segment files, their places and everything else in sled.
//!
//! This module (and its children) is the only code that touches sled.
//!
//! Guarantees, in the order a user relies on them:
//! 1. **Nothing is lost once reported.** An append returns success only after
//!    its segment, then (after sled's flush) every other file of the ledger
//!    directory has been fsynced (sled's own `flush` is not a full fsync on
//!    Linux); older segments were fsynced by their own appends.
//! 2. **All or nothing.** Records are written into chunks beyond the head and the
//!    head moves in one final write: an append that fails, or a process killed
//!    mid-append, leaves the head where it was. Chunks beyond the head (and the
//!    segment holding them) are never read, and the next append deletes them.
//! 3. **Tamper-evident.** Every record's hash covers its event, its seq, its
//!    `recorded_at` and the previous hash; `verify` recomputes all of them.
//! 4. **One writer.** sled locks the database; a second process gets
//!    [`Error::Locked`] at once instead of waiting or corrupting.
//! 5. **Bounded memory.** Reading, verifying and folding stream chunk by chunk;
//!    nothing holds the whole log.
//!
//! Byte layout: see [`chunk`], and [`segment`] for where chunks are stored.
//! Canonical form and hashing: see [`canonical`].
//! Each chunk has a [`summary`] and its records' key fingerprints ([`idem`])
//! written with it (same key, same append; `verify` checks both); the
//! append's check fold reads and writes projection [`checkpoint`]s, a cache that
//! `drop_beyond` and the head binding keep out of reach of failed appends.

pub mod canonical;
pub mod checkpoint;
pub mod chunk;
pub mod idem;
pub(crate) mod lanes;
pub mod patch;
pub mod segment;
pub mod summary;
mod verify;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};

use crate::error::{Error, Origin, Result};
use crate::events::{self, ledger as ledger_events, Event, Record};
use crate::fold::{self, Entry, Item, Keep, Source, Span};
use crate::input;
use crate::time::{self, Micros};

use chunk::{ChunkWriter, RecordView};

/// Stored chunks as (first seq, bytes), in key order.
type ChunkBatch = Vec<(u64, Stored)>;

/// Idempotency index: key fingerprint → seq (see [`idem`]).
type IdemIndex = idem::Index;

/// The format marker in the "meta" tree: chunks are stored packed
/// ([`chunk::pack`]) in segment files, sled holds their places ([`segment`]),
/// and every chunk has a summary and its key fingerprints. A ledger with any
/// other marker is refused as an unknown format.
const FORMAT: &[u8] = b"laurel-ledger-5";
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
    /// `Send`: the append reads it on its parser thread.
    pub reader: Box<dyn BufRead + Send + 'a>,
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
    /// sled's open handles; `None` only for the moment of a [`Ledger::recycle_if_due`].
    handles: RefCell<Option<Handles>>,
    /// Chunk bytes read or written through the current handles.
    moved: Cell<u64>,
    /// Reads chunks out of their segment files.
    segments: RefCell<segment::Reader>,
    /// Our own exclusive lock on `laurel.lock`, held for the ledger's lifetime, so
    /// no other process can take the database while it is reopened.
    _lock: std::fs::File,
    path: PathBuf,
}

/// The open database and its trees.
struct Handles {
    db: sled::Db,
    chunks: sled::Tree,
    /// One [`summary::Summary`] per chunk, same key.
    summaries: sled::Tree,
    /// Each chunk's key fingerprints, same key ([`idem`]).
    idems: sled::Tree,
    /// Checkpoint headers, keyed by position ([`checkpoint`]).
    checkpoints: sled::Tree,
    meta: sled::Tree,
}

/// Reopen sled after this many chunk bytes have gone through it.
///
/// Why: sled 0.34 keeps every node it reads or writes in memory. Its LRU counts a
/// node stored as a blob (ours are: a node of two chunks is bigger than a
/// quarter segment) by the size of the blob's pointer, and each of its 256 shards
/// looks at its accesses only after 64 of them, so `cache_capacity` never evicts
/// our chunks and a scan of the ledger (verify, a fold, an import) held all of it
/// (574 MiB for verify at 1M events). Dropping the database frees its cache;
/// reopening costs tens of milliseconds. 32 MiB keeps the import's peak
/// well under its memory bound without slowing verify or a fold.
const RECYCLE_BYTES: u64 = 32 * 1024 * 1024;

/// [`RECYCLE_BYTES`], or `LAUREL_RECYCLE_BYTES` (tests set it tiny to reopen
/// sled between every batch and check that nothing changes).
fn recycle_bytes() -> u64 {
    static VALUE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *VALUE.get_or_init(|| {
        std::env::var("LAUREL_RECYCLE_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(RECYCLE_BYTES)
    })
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

/// Remove the snapshot sled was writing when a process died: `snap.<lsn>.generating`.
///
/// Why: sled 0.34.7 writes its snapshot to that name and renames it when complete,
/// but when it opens it takes the highest-named `snap.*` file without skipping
/// `.generating` ones (`Config::get_snapshot_files` filters only the older
/// `.in___motion` suffix), so a kill mid-snapshot left a ledger that no later open
/// could read ("Read corrupted data at file offset None"; sled issues 1527, 1533).
/// An unfinished snapshot was never the one in force: recovery uses the last
/// complete snapshot plus the log, which is what opening without it does. Called
/// only with `laurel.lock` held and before this process opens sled, so no live sled
/// instance can be writing the file. Found by `tests/crash.rs` (3 of 12 runs).
fn remove_unfinished_snapshots(path: &Path) -> Result<()> {
    let io = |e| Error::io(path.display().to_string(), e);
    for entry in std::fs::read_dir(path).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("snap.") && name.ends_with(".generating") {
            std::fs::remove_file(entry.path()).map_err(io)?;
        }
    }
    Ok(())
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

impl Handles {
    fn of(db: sled::Db) -> Result<Handles> {
        Ok(Handles {
            chunks: db.open_tree("chunks").map_err(storage)?,
            summaries: db.open_tree("summaries").map_err(storage)?,
            idems: db.open_tree("idems").map_err(storage)?,
            checkpoints: db.open_tree("checkpoints").map_err(storage)?,
            meta: db.open_tree("meta").map_err(storage)?,
            db,
        })
    }
}

/// Take `laurel.lock` in the ledger directory, exclusively, without waiting.
fn lock(path: &Path) -> Result<std::fs::File> {
    std::fs::create_dir_all(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let file = path.join("laurel.lock");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&file)
        .map_err(|e| Error::io(file.display().to_string(), e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Locked(path.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(file.display().to_string(), e)),
    }
}

/// Open sled again after dropping it. sled's background flusher lets go of the
/// old instance's file lock a moment after the drop, so "locked" is retried for
/// up to two seconds: no other process can hold it, since we hold `laurel.lock`.
/// (A clean-clone CI run failed once on this before the retry.)
fn reopen_db(path: &Path) -> Result<sled::Db> {
    let mut tries = 0;
    loop {
        match open_db(path) {
            Err(Error::Locked(_)) if tries < 200 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => return other,
        }
    }
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
        let lock = lock(path)?;
        let ledger = Self::from_db(path, lock, open_db(path)?)?;
        ledger.meta()?.insert("format", FORMAT).map_err(storage)?;
        ledger.durable()?;
        Ok(ledger)
    }

    /// Open an existing ledger.
    pub fn open(path: &Path) -> Result<Ledger> {
        if !exists(path) {
            return Err(Error::NoLedger(path.to_path_buf()));
        }
        let lock = lock(path)?;
        remove_unfinished_snapshots(path)?;
        let ledger = Self::from_db(path, lock, open_db(path)?)?;
        match ledger.meta()?.get("format").map_err(storage)? {
            Some(f) if f.as_ref() == FORMAT => Ok(ledger),
            Some(f) => Err(Error::Corrupt(format!(
                "unknown ledger format {:?}",
                String::from_utf8_lossy(&f)
            ))),
            None => Err(Error::Corrupt(
                "not a laurel ledger (no format marker)".into(),
            )),
        }
    }

    fn from_db(path: &Path, lock: std::fs::File, db: sled::Db) -> Result<Ledger> {
        Ok(Ledger {
            handles: RefCell::new(Some(Handles::of(db)?)),
            moved: Cell::new(0),
            segments: RefCell::default(),
            _lock: lock,
            path: path.to_path_buf(),
        })
    }

    fn with<T>(&self, f: impl FnOnce(&Handles) -> T) -> Result<T> {
        let h = self.handles.borrow();
        let h = h
            .as_ref()
            .ok_or_else(|| Error::Storage("the database could not be reopened".into()))?;
        Ok(f(h))
    }

    fn chunks(&self) -> Result<sled::Tree> {
        self.with(|h| h.chunks.clone())
    }

    fn meta(&self) -> Result<sled::Tree> {
        self.with(|h| h.meta.clone())
    }

    pub(crate) fn summaries(&self) -> Result<sled::Tree> {
        self.with(|h| h.summaries.clone())
    }

    fn idems(&self) -> Result<sled::Tree> {
        self.with(|h| h.idems.clone())
    }

    pub(crate) fn checkpoints(&self) -> Result<sled::Tree> {
        self.with(|h| h.checkpoints.clone())
    }

    /// Count `bytes` of chunks moved through sled.
    fn moved(&self, bytes: usize) {
        self.moved.set(self.moved.get() + bytes as u64);
    }

    /// Drop and reopen sled once [`RECYCLE_BYTES`] have moved through it, to free
    /// its cache. Callers hold no tree or iterator across this call (sled's file
    /// lock belongs to the last handle: a live clone would make the reopen fail).
    fn recycle_if_due(&self) -> Result<()> {
        if self.moved.get() < recycle_bytes() {
            return Ok(());
        }
        self.moved.set(0);
        let mut slot = self.handles.borrow_mut();
        if let Some(old) = slot.take() {
            old.db.flush().map_err(storage)?;
        }
        *slot = Some(Handles::of(reopen_db(&self.path)?)?);
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The head as committed.
    pub fn head(&self) -> Result<Head> {
        // meta "head" = seq u64 LE (8) + hash (32); absent for an empty ledger.
        match self.meta()?.get("head").map_err(storage)? {
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

    /// Flush sled, then fsync every file of the ledger directory but the
    /// segments, and every directory. A segment is fsynced by the append that
    /// writes it ([`segment::Writer::sync`]) and never written again, so
    /// fsyncing them all here only grew with the ledger's count of appends
    /// (302 segments: 321 fsyncs and 647 opens for a one-event append).
    fn durable(&self) -> Result<()> {
        self.with(|h| h.db.flush())?.map_err(storage)?;
        fsync_tree(&self.path, &segment::dir(&self.path))
    }

    /// Every stored chunk up to `upto`, decoded, in seq order.
    fn for_each_chunk(
        &self,
        upto: u64,
        f: &mut dyn FnMut(&chunk::ChunkView) -> Result<()>,
    ) -> Result<()> {
        self.batches(upto, &mut |batch| {
            batch.iter().try_for_each(|(key_seq, v)| match key_seq {
                0 => Err(Error::Corrupt("bad chunk key".into())),
                _ => f(&chunk::decode(&chunk::unpack(v, *key_seq)?, *key_seq)?),
            })
        })
    }

    /// Every stored chunk up to `upto`, as (first seq, bytes), in key order, in
    /// batches of about 16 MiB, recycling sled between batches. A key that is not
    /// 8 bytes (damage) comes as first seq 0.
    fn batches(&self, upto: u64, f: &mut dyn FnMut(ChunkBatch) -> Result<()>) -> Result<()> {
        self.batches_of(16 * 1024 * 1024, upto, f)
    }

    /// [`Ledger::batches`] of about `bytes` each (or less when recycling more often,
    /// as tests do).
    fn batches_of(
        &self,
        bytes_max: usize,
        upto: u64,
        f: &mut dyn FnMut(ChunkBatch) -> Result<()>,
    ) -> Result<()> {
        use std::ops::Bound::{Excluded, Included, Unbounded};
        let end = Included(sled::IVec::from(&chunk::key(upto)));
        let mut start = Unbounded;
        loop {
            let mut batch = Vec::new();
            let (mut bytes, mut through_sled, mut last_key) = (0, 0, None);
            for item in self.chunks()?.range((start.clone(), end.clone())) {
                let (k, v) = item.map_err(storage)?;
                let key_seq = k.as_ref().try_into().map_or(0, u64::from_be_bytes);
                let v = self.stored(key_seq, v)?;
                bytes += v.len();
                through_sled += segment::POINTER_LEN;
                batch.push((key_seq, v));
                last_key = Some(k);
                // Batches of chunks in sled stay within a recycling.
                if bytes >= bytes_max || through_sled >= recycle_bytes() as usize {
                    break;
                }
            }
            let Some(last_key) = last_key else {
                return Ok(());
            };
            self.moved(through_sled);
            f(batch)?;
            start = Excluded(last_key);
            self.recycle_if_due()?;
        }
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
            self.meta()?.insert("head", v).map_err(storage)?;
            self.durable()?;
        }
        Ok(report)
    }

    /// Write every new record beyond the head, then validate the whole fold.
    ///
    /// Two threads: a parser thread reads the inputs and parses them in
    /// batches ([`read_and_parse`]); this one takes the parsed batches, in
    /// order, to check idempotency, chain and store them. At most
    /// [`IN_FLIGHT`] batches wait. A bad line ends its batch as an `Err`, and
    /// a problem of the input itself (a line too long, an array that does not
    /// parse, a read that fails) comes as an `Err` after every line before it,
    /// so the first problem in input order is reported, exactly as with one
    /// thread. The writing stays on this thread on purpose: sled's node copies
    /// and the validation fold then share one malloc arena (with the writes on
    /// a second thread, the 1M-event import peaked at 1.6 GiB instead of 1.2).
    /// The parser thread leaves most payloads undecoded
    /// (`events::LineParser::screen`): the check fold in [`Ledger::validate`]
    /// decodes them, and every error path here and there reports a payload
    /// that does not decode first if it comes first in input order
    /// ([`Pending::first_problem`]).
    fn write_pending(&self, head: Head, inputs: Vec<Input<'_>>) -> Result<AppendReport> {
        let mut index = self.idem_index(head.seq)?;
        let now = time::now();
        let mut pending = Pending {
            ledger: self,
            first: head.seq + 1,
            writer: ChunkWriter::new(head.seq + 1, head.hash, now, &time::format(now)),
            segment: segment::Writer::new(head.seq + 1),
            packed: Vec::new(),
            current: Vec::new(),
            seen: None,
            origins: Origins::default(),
            voids: Vec::new(),
            already: 0,
        };
        let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
        let fed = std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Sent>(IN_FLIGHT);
            let names = &names;
            scope.spawn(move || read_and_parse(inputs, tx, names));
            take_batches(rx, &mut pending, &mut index, names)
        });
        if let Err(e) = fed {
            return Err(pending.first_problem(e, &names));
        }
        // The check fold below needs its memory more.
        drop(index);
        let last = pending.flush()?;
        let report = AppendReport {
            appended: last.seq - head.seq,
            already_recorded: pending.already,
            head: last,
        };
        if report.appended > 0 {
            self.validate(head.seq, last, &pending, &names)?;
        }
        // Before the head that points into it is written (see `segment`).
        pending.segment.sync(&self.path)?;
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
        let folded = self.check_fold(old_head, new);
        // Payloads the parser thread left undecoded (`events::deferred`) were
        // decoded by the fold, but for records voided in this append; and
        // when the fold failed, a payload that does not decode is the
        // problem to report (as when the parser thread decoded them all).
        match &folded {
            // Only a payload found bad replaces the fold's error (a scan that
            // cannot read leaves it standing).
            Err(_) => {
                if let Ok(Some(e)) = pending.bad_payload(&[old_head + 1..=new.seq], names) {
                    return Err(e);
                }
            }
            Ok(()) => {
                let voided = pending.voids.iter().map(|v| v.1).filter(|&t| t > old_head);
                let targets: Vec<_> = voided
                    .collect::<BTreeSet<u64>>()
                    .into_iter()
                    .map(|t| t..=t)
                    .collect();
                if let Some(e) = pending.bad_payload(&targets, names)? {
                    return Err(e);
                }
            }
        }
        let (mut origin, msg) = match folded {
            Ok(()) => return Ok(()),
            Err(Error::Invalid { origin, msg }) => (origin, msg),
            Err(e) => return Err(e),
        };
        let place = |seq: u64| pending.origins.get(seq - old_head - 1);
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

    /// The key fingerprints of every committed record, from the "idems" tree
    /// (not the chunks: a small append to a big ledger reads 8 bytes a record).
    fn idem_index(&self, upto: u64) -> Result<IdemIndex> {
        let mut index = idem::Index::with_capacity(upto as usize);
        let mut next = 1;
        for item in self.idems()?.range(..=chunk::key(upto)) {
            let (k, v) = item.map_err(storage)?;
            let first = k.as_ref().try_into().map_or(0, u64::from_be_bytes);
            if first != next {
                return Err(Error::Corrupt(format!(
                    "the key fingerprints of records {next}.. are missing"
                )));
            }
            for fp in idem::decode(first, &v)?.take((upto + 1 - next) as usize) {
                index.insert(fp, next);
                next += 1;
            }
        }
        if next != upto + 1 {
            return Err(Error::Corrupt(format!(
                "the key fingerprints of records {next}..={upto} are missing"
            )));
        }
        Ok(index)
    }

    /// Delete chunks and their summaries beyond `seq`, and checkpoints made at a
    /// head beyond it: leftovers of an append that failed or was killed.
    fn drop_beyond(&self, seq: u64) -> Result<()> {
        for tree in [self.chunks()?, self.summaries()?, self.idems()?] {
            let stale: Vec<sled::IVec> = tree
                .range(chunk::key(seq + 1)..)
                .keys()
                .collect::<std::result::Result<_, _>>()
                .map_err(storage)?;
            for k in stale {
                tree.remove(k).map_err(storage)?;
            }
        }
        self.segments.borrow_mut().forget();
        segment::drop_beyond(&self.path, seq)?;
        self.drop_checkpoints(|h| h.head.seq > seq)
    }

    /// The first record of `ranges` (ascending, disjoint seq ranges of
    /// records beyond the old head) whose payload does not decode: its seq
    /// and message ([`payload_error`]). Reads the chunks beyond the head, each
    /// once however many ranges it holds ([`Ledger::walk_chunks`]): an append
    /// that voids many of its own records checks them in one walk.
    fn first_bad_payload(&self, ranges: &[RangeInclusive<u64>]) -> Result<Option<(u64, String)>> {
        // The least seq of `ranges` at or after `s`.
        let next = |s: u64| {
            let i = ranges.partition_point(|r| *r.end() < s);
            let r = ranges[i..].iter().find(|r| !r.is_empty())?;
            Some(s.max(*r.start()))
        };
        let wanted = |seq: u64| next(seq) == Some(seq);
        let mut parser = events::LineParser::default();
        let mut bad = None;
        self.walk_chunks(next, &mut |c| {
            for r in c?.records.iter().filter(|r| wanted(r.seq)) {
                if let Err(e) = parser.parse(r.event) {
                    bad = Some((r.seq, line_message(e)));
                    return Ok(false);
                }
            }
            Ok(true)
        })?;
        Ok(bad)
    }

    /// Walk the stored chunks that hold the seqs `next` leads to, in seq
    /// order, each read and decoded once: `next(s)` is the least wanted seq at
    /// or after `s` (`None`: the walk is done). `f` gets each such chunk, or
    /// the error reading the chunk that should hold a wanted seq (the walk then
    /// goes on from the seq after that one), and says whether to go on; the
    /// walk fails with the first error `f` returns. The one walk of the reads
    /// of many records' chunks ([`Ledger::record_fields`],
    /// [`Ledger::first_bad_payload`]).
    fn walk_chunks(
        &self,
        next: impl Fn(u64) -> Option<u64>,
        f: &mut dyn FnMut(Result<&chunk::ChunkView<'_>>) -> Result<bool>,
    ) -> Result<()> {
        let mut wanted = next(0);
        while let Some(seq) = wanted {
            let mut last = seq;
            let go_on = match self.chunk_holding(seq) {
                Err(e) => f(Err(e))?,
                Ok((first, bytes)) => match chunk::decode(&bytes, first) {
                    Err(e) => f(Err(e))?,
                    Ok(c) => {
                        last = c.records.last().map_or(seq, |r| r.seq.max(seq));
                        f(Ok(&c))?
                    }
                },
            };
            if !go_on {
                return Ok(());
            }
            wanted = last.checked_add(1).and_then(&next);
        }
        Ok(())
    }

    /// Store a chunk beyond the head, packed (into `packed`, a buffer the
    /// append reuses: the segment's write copies it), in the append's
    /// `segment`, with its place, summary and fingerprints in sled (same key).
    /// `records` are the chunk's records as they were pushed, so that the
    /// chunk need not be decoded again for them.
    fn put_chunk(
        &self,
        (segment, packed): (&mut segment::Writer, &mut Vec<u8>),
        first_seq: u64,
        bytes: &[u8],
        records: &[Pushed],
    ) -> Result<()> {
        let s = summary::Summary::of_records(first_seq, records.iter().map(|r| (r.at, r.void)));
        let fps = idem::encode(records.iter().map(|r| idem::fingerprint(&r.idem)));
        let k = chunk::key(first_seq);
        self.summaries()?.insert(k, s.encode()).map_err(storage)?;
        self.idems()?.insert(k, fps).map_err(storage)?;
        let n = chunk::pack_into(bytes, packed);
        if segment.unborn() {
            self.segments.borrow_mut().forget();
        }
        let place = segment.put(&self.path, &packed[..n])?;
        self.chunks()?.insert(k, &place).map_err(storage)?;
        Ok(())
    }

    /// `laurel export`: one JSON line per record (canonical form plus `hash`).
    pub fn export(&self, w: &mut dyn Write) -> Result<()> {
        self.export_to(w, "stdout")
    }

    /// [`Ledger::export`] to `w`, which a write error names `name`.
    pub fn export_to(&self, w: &mut dyn Write, name: &str) -> Result<()> {
        self.for_each_record(&mut |r, recorded_at| {
            let mut line = canonical::export_line(r.event, &r.hash, &r.prev, recorded_at, r.seq);
            line.push(b'\n');
            w.write_all(&line).map_err(|e| Error::io(name, e))
        })
    }

    /// The hash of record `seq` (zeros for seq 0, as the first record's `prev`).
    pub fn hash_at(&self, seq: u64) -> Result<[u8; 32]> {
        if seq == 0 {
            return Ok([0; 32]);
        }
        self.record_field(seq, |r| r.hash)
    }

    /// `field` of stored record `seq`, read from its chunk without parsing the event.
    pub(crate) fn record_field<T>(&self, seq: u64, field: impl Fn(&RecordView) -> T) -> Result<T> {
        let (first, bytes) = self.chunk_holding(seq)?;
        chunk::decode(&bytes, first)?
            .records
            .iter()
            .find(|r| r.seq == seq)
            .map(field)
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))
    }

    /// `field` of each stored record of `seqs`, reading each chunk once (an
    /// append may void thousands of its own records). A record that cannot be
    /// read is left out.
    pub(crate) fn record_fields<T>(
        &self,
        seqs: &BTreeSet<u64>,
        field: impl Fn(&RecordView) -> T,
    ) -> BTreeMap<u64, T> {
        let mut found = BTreeMap::new();
        let next = |s: u64| seqs.range(s..).next().copied();
        // `f` never fails, so neither does the walk.
        let walked = self.walk_chunks(next, &mut |c| {
            if let Ok(c) = c {
                let wanted = c.records.iter().filter(|r| seqs.contains(&r.seq));
                found.extend(wanted.map(|r| (r.seq, field(r))));
            }
            Ok(true)
        });
        debug_assert!(walked.is_ok());
        found
    }

    /// The stored chunk whose seq range starts at or before `seq`: (first seq,
    /// its LRC1 bytes, unpacked).
    fn chunk_holding(&self, seq: u64) -> Result<(u64, Vec<u8>)> {
        let (k, v) = self
            .chunks()?
            .range(..=chunk::key(seq))
            .next_back()
            .transpose()
            .map_err(storage)?
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))?;
        let first = k.as_ref().try_into().map(u64::from_be_bytes).unwrap_or(0);
        Ok((first, chunk::unpack(&self.stored(first, v)?, first)?))
    }

    /// A chunk's stored bytes, read from the segment its sled value `v`
    /// points into ([`segment`]).
    fn stored(&self, key_seq: u64, v: sled::IVec) -> Result<Stored> {
        let place = segment::parse(&v, key_seq)?;
        self.segments.borrow_mut().read(&self.path, key_seq, place)
    }

    /// A fold source over the committed records.
    pub fn source(&self) -> Result<impl Source + '_> {
        Ok(View::new(self, self.head()?.seq))
    }
}

/// Parsed events ready to be chained ([`RecordHashes::incoming`], on the
/// chaining thread); an `Err` (a bad line) ends it.
type Batch = Vec<Result<Incoming>>;

/// A batch's lines as the parser thread parsed them: `(line, event or why not)`.
type Lines = Vec<(u64, std::result::Result<events::Screened, String>)>;

/// What the parser thread sends: a batch of an input's parsed lines, or a
/// problem of the input itself, which ends the reading.
enum Sent {
    Lines(Parsed),
    Problem(Error),
}

/// A batch of one input's lines, each parsed or refused (a refused one ends
/// the batch and the reading), and the content keys of the parsed ones, in
/// order.
struct Parsed {
    file: usize,
    lines: Lines,
    keys: Vec<[u8; 16]>,
}

/// The canonical events of a batch's parsed lines, in order.
fn canonical_events(lines: &Lines) -> Vec<&[u8]> {
    lines
        .iter()
        .filter_map(|(_, p)| p.as_ref().ok().map(|p| p.canonical.as_slice()))
        .collect()
}

/// Events per batch: large enough to make the hand-over cheap, small enough
/// that the batches in flight stay a few MiB.
const BATCH: usize = 256;
const IN_FLIGHT: usize = 8;

/// One parsed input event and its keys, ready to be chained and stored: what
/// [`Pending::add`] needs of it, no more. The typed event is dropped on the
/// parser thread, which also hashes its content key; the chaining thread
/// begins the record's hash ([`RecordHashes`]).
struct Incoming {
    /// Index of its input, and its line there.
    file: usize,
    line: u64,
    id: Option<String>,
    at: Micros,
    kind: String,
    /// The target of a `ledger.voided`.
    void: Option<u64>,
    canonical: Vec<u8>,
    /// Its record's hash, begun across SIMD lanes with the rest of its batch
    /// (`lanes::Lanes::begin_records`).
    begun: lanes::Begun,
    content: [u8; 16],
    idem: [u8; 16],
}

/// The parser thread: read every input in order, parse its events and send
/// them in batches with their content keys ([`ContentKeys`]), until the end
/// or a problem (sent last), or until the writing thread hangs up (it stopped
/// on a problem of its own).
///
/// Why the reading is here, not on the writing thread: that thread bounds the
/// import's writing phase, while this one waited for lines about a third of
/// it (one 1M-event import, `perf` at 999 Hz, 0.5 s bins: the writing thread
/// busy about 94% on average, this one about 70%). Lines are parsed straight
/// from the reader's buffer, where they were copied into a batch for this
/// thread before.
fn read_and_parse(inputs: Vec<Input<'_>>, tx: SyncSender<Sent>, names: &[String]) {
    let mut out = Parsing {
        parser: events::LineParser::default(),
        keys: ContentKeys::default(),
        tx,
        file: 0,
        parsed: Vec::with_capacity(BATCH),
        stopped: false,
    };
    for (file, input) in inputs.into_iter().enumerate() {
        out.file = file;
        let read = input::read_events(input.reader, &mut |line, item| out.take(line, item));
        let problem = match read {
            Ok(Ok(())) => None,
            Ok(Err(bad)) => Some(Error::invalid(origin(&names[file], bad.line), bad.msg)),
            Err(_) if out.stopped => return,
            Err(e) => Some(e),
        };
        if out.send().is_err() {
            return;
        }
        if let Some(e) = problem {
            let _ = out.tx.send(Sent::Problem(e));
            return;
        }
    }
}

/// The parser thread's batch being filled, and where it goes.
struct Parsing {
    parser: events::LineParser,
    keys: ContentKeys,
    tx: SyncSender<Sent>,
    file: usize,
    parsed: Lines,
    /// A bad line was sent, or the writing thread hung up: read no further.
    stopped: bool,
}

impl Parsing {
    /// Parse one event; a bad one is sent at once, ending its batch, and
    /// stops the reading. The `Err` returned only stops `read_events`:
    /// [`read_and_parse`] sees `stopped` and reports nothing more.
    fn take(&mut self, line: u64, item: input::Item<'_>) -> Result<()> {
        let p = match item {
            input::Item::Line(b) => self.parser.screen(b).map_err(line_message),
            input::Item::Value(v) => events::parse_event(v).map(events::Screened::from),
        };
        let bad = p.is_err();
        self.parsed.push((line, p));
        if bad || self.parsed.len() >= BATCH {
            self.send()?;
        }
        if bad {
            self.stopped = true;
            return Err(parser_gone());
        }
        Ok(())
    }

    /// Hash the batch's keys and send it (if it has anything).
    fn send(&mut self) -> Result<()> {
        if self.parsed.is_empty() {
            return Ok(());
        }
        let lines = std::mem::replace(&mut self.parsed, Vec::with_capacity(BATCH));
        let batch = Parsed {
            file: self.file,
            keys: self.keys.of(&lines),
            lines,
        };
        if self.tx.send(Sent::Lines(batch)).is_err() {
            self.stopped = true;
            return Err(parser_gone());
        }
        Ok(())
    }
}

/// The content keys of a batch of events, hashed together across BLAKE3's SIMD
/// lanes ([`lanes`]) rather than one event at a time, on the parser thread.
#[derive(Default)]
struct ContentKeys {
    lanes: lanes::Lanes,
    hashes: Vec<[u8; 32]>,
}

impl ContentKeys {
    fn of(&mut self, lines: &Lines) -> Vec<[u8; 16]> {
        self.lanes.hash(&canonical_events(lines), &mut self.hashes);
        self.hashes.iter().map(chunk::content_key).collect()
    }
}

/// Each record's hash begun across SIMD lanes with the rest of its batch, on
/// the chaining thread, which finishes it with the chain ([`lanes::finish_record`]).
///
/// Why here and not with the content keys on the parser thread: that thread
/// bounds the writing phase, and the chaining thread has time to spare.
///
/// Together they give what one event at a time gives (the unit test
/// `a_parsed_batch_has_the_keys_and_hashes_of_its_events_one_by_one`).
#[derive(Default)]
struct RecordHashes {
    lanes: lanes::Lanes,
    begun: Vec<lanes::Begun>,
}

impl RecordHashes {
    fn incoming(&mut self, parsed: Parsed, names: &[String]) -> Batch {
        let Parsed { file, lines, keys } = parsed;
        self.lanes
            .begin_records(&canonical_events(&lines), &mut self.begun);
        let mut keys = keys.into_iter();
        let mut begun = self.begun.drain(..);
        lines
            .into_iter()
            .map(|(line, p)| {
                let p = p.map_err(|m| Error::invalid(origin(&names[file], line), m))?;
                // One key and one begun hash per parsed event, in order.
                let missing = || Error::Storage("a content key is missing".into());
                let (k, b) = keys.next().zip(begun.next()).ok_or_else(missing)?;
                Ok(Incoming::new(file, line, p, k, b))
            })
            .collect()
    }
}

/// The message of `canonical`'s payload when it does not decode (an event the
/// parser thread screened, its payload deferred), else `None`.
fn payload_error(canonical: &[u8]) -> Option<String> {
    let mut parser = events::LineParser::default();
    parser.parse(canonical).err().map(line_message)
}

/// The message of a refused input line.
fn line_message(e: events::LineError) -> String {
    match e {
        events::LineError::Json(e) => input::invalid_json(&e),
        events::LineError::Event(m) => m,
    }
}

fn origin(name: &str, line: u64) -> Origin {
    Origin {
        file: Some(name.to_string()),
        line: Some(line),
        ..Origin::default()
    }
}

/// The writing side of an append: add every parsed batch, in order, until the
/// parser thread is done or an item is a problem.
fn take_batches(
    rx: Receiver<Sent>,
    pending: &mut Pending,
    index: &mut IdemIndex,
    names: &[String],
) -> Result<()> {
    let mut hashes = RecordHashes::default();
    for sent in rx {
        let batch = match sent {
            Sent::Lines(parsed) => hashes.incoming(parsed, names),
            Sent::Problem(e) => return Err(e),
        };
        let keys = batch.iter().filter_map(|i| i.as_ref().ok());
        index.warm(keys.map(|inc| idem::fingerprint(&inc.idem)));
        for item in batch {
            pending.add(index, item?, names)?;
        }
    }
    Ok(())
}

fn parser_gone() -> Error {
    Error::Storage("the append's parser thread stopped".into())
}

impl Incoming {
    fn new(
        file: usize,
        line: u64,
        parsed: events::Screened,
        content: [u8; 16],
        begun: lanes::Begun,
    ) -> Self {
        let idem = parsed
            .id
            .as_deref()
            .map(chunk::idem_of_id)
            .unwrap_or(content);
        let void = match &parsed.event {
            Some(Event::Ledger(ledger_events::Event::Voided(v))) => Some(v.target),
            _ => None,
        };
        Incoming {
            file,
            line,
            id: parsed.id,
            at: parsed.at,
            kind: parsed.kind,
            void,
            canonical: parsed.canonical,
            begun,
            content,
            idem,
        }
    }
}

/// Records being added by one append.
struct Pending<'l> {
    ledger: &'l Ledger,
    /// The seq of this append's first record.
    first: u64,
    writer: ChunkWriter,
    /// Where this append's chunks go.
    segment: segment::Writer,
    /// The buffer each chunk is packed into ([`Ledger::put_chunk`]).
    packed: Vec<u8>,
    /// Each record in `writer`'s chunk, as pushed.
    current: Vec<Pushed>,
    /// The stored chunk a fingerprint match last looked into (re-appending a
    /// file matches every record, chunk after chunk).
    seen: Option<Seen>,
    origins: Origins,
    /// (seq, target) of each new `ledger.voided`, to name it when a record that
    /// depends on its target no longer validates.
    voids: Vec<(u64, u64)>,
    already: u64,
}

impl Pending<'_> {
    fn add(&mut self, index: &mut IdemIndex, inc: Incoming, names: &[String]) -> Result<()> {
        let origin = || Origin {
            file: Some(names[inc.file].to_string()),
            line: Some(inc.line),
            id: inc.id.clone(),
            kind: Some(inc.kind.clone()),
            ..Origin::default()
        };
        let fp = idem::fingerprint(&inc.idem);
        if let Some((c, seq)) = self.recorded(index, fp, &inc.idem)? {
            if c == inc.content {
                self.already += 1;
                return Ok(());
            }
            // The line's own payload comes first (see `first_problem`).
            if let Some(msg) = payload_error(&inc.canonical) {
                return Err(Error::invalid(
                    self::origin(&names[inc.file], inc.line),
                    msg,
                ));
            }
            return Err(Error::IdConflict {
                origin: Box::new(origin()),
                id: inc.id.unwrap_or_default(),
                seq,
            });
        }
        // Target 0 would be stored as "not a void" (chunk.rs), so refuse it here.
        if inc.void == Some(0) {
            return Err(Error::invalid(
                origin(),
                "void target 0 is not an earlier record",
            ));
        }
        index.insert(fp, self.writer.next_seq());
        if let Some(target) = inc.void {
            self.voids.push((self.writer.next_seq(), target));
        }
        let keys = (inc.idem, inc.content);
        self.writer
            .push_prefixed(inc.at, inc.void, keys, &inc.canonical, inc.begun);
        self.current.push(Pushed {
            at: inc.at,
            void: inc.void,
            idem: inc.idem,
            content: inc.content,
        });
        self.origins.push(inc.file, inc.line);
        if self.writer.is_full() {
            self.flush()?;
        }
        Ok(())
    }

    /// `e`, a problem found while reading the input, or the problem of an
    /// earlier line if one has a payload that does not decode: the parser
    /// thread left those to the check fold (`events::deferred`), and the
    /// first problem in input order is the one reported.
    /// When the records cannot be stored or read back, `e` stands.
    fn first_problem(&mut self, e: Error, names: &[String]) -> Error {
        let Ok(last) = self.flush() else {
            return e;
        };
        match self.bad_payload(&[self.first..=last.seq], names) {
            Ok(Some(bad)) => bad,
            _ => e,
        }
    }

    /// The refusal of the first record of `ranges` (ascending, disjoint; of
    /// records stored by this append) whose payload does not decode, naming
    /// its file and line.
    fn bad_payload(
        &self,
        ranges: &[RangeInclusive<u64>],
        names: &[String],
    ) -> Result<Option<Error>> {
        let bad = self.ledger.first_bad_payload(ranges)?;
        Ok(bad.map(|(seq, msg)| {
            let (file, line) = self.origins.get(seq - self.first);
            Error::invalid(origin(&names[file], line), msg)
        }))
    }

    /// `(content, seq)` of the record already holding key `idem`, if any: the
    /// index gives candidates by fingerprint, the records themselves decide.
    fn recorded(
        &mut self,
        index: &IdemIndex,
        fp: u64,
        idem: &[u8; 16],
    ) -> Result<Option<([u8; 16], u64)>> {
        for seq in index.candidates(fp) {
            let (k, content) = self.keys_of(seq)?;
            if k == *idem {
                return Ok(Some((content, seq)));
            }
        }
        Ok(None)
    }

    /// (idem, content) of record `seq`: from the chunk being filled, or stored.
    fn keys_of(&mut self, seq: u64) -> Result<([u8; 16], [u8; 16])> {
        let first = self.writer.first_seq;
        if seq >= first {
            return self
                .current
                .get((seq - first) as usize)
                .map(|r| (r.idem, r.content))
                .ok_or_else(|| {
                    Error::Storage(format!("record {seq} is not in the chunk being written"))
                });
        }
        if !self.seen.as_ref().is_some_and(|s| s.contains(seq)) {
            self.seen = Some(Seen::load(self.ledger, seq)?);
        }
        self.seen
            .as_ref()
            .and_then(|s| s.keys.get((seq - s.first) as usize).copied())
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))
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
            let out = (&mut self.segment, &mut self.packed);
            (self.ledger).put_chunk(out, first, &done.finish(), &self.current)?;
            self.ledger.moved(segment::POINTER_LEN);
            self.ledger.recycle_if_due()?;
        }
        self.current.clear();
        Ok(head)
    }
}

/// What an append pushed into its chunk for each record: the header fields its
/// summary and fingerprints are made of, and the keys a fingerprint match compares.
struct Pushed {
    at: Micros,
    void: Option<u64>,
    idem: [u8; 16],
    content: [u8; 16],
}

/// The keys of one stored chunk, for [`Pending::keys_of`].
struct Seen {
    first: u64,
    keys: Vec<([u8; 16], [u8; 16])>,
}

impl Seen {
    fn load(ledger: &Ledger, seq: u64) -> Result<Seen> {
        ledger.recycle_if_due()?;
        let (key_seq, bytes) = ledger.chunk_holding(seq)?;
        ledger.moved(segment::POINTER_LEN);
        let c = chunk::decode(&bytes, key_seq)?;
        Ok(Seen {
            first: c.first_seq,
            keys: c.records.iter().map(|r| (r.idem, r.content)).collect(),
        })
    }

    fn contains(&self, seq: u64) -> bool {
        seq >= self.first && seq - self.first < self.keys.len() as u64
    }
}

/// Where each new record of an append came from: (input index, line), by
/// `seq - first new seq`, run-length coded (a run's records are on consecutive
/// lines of one input), so it stays small however many lines the input has.
#[derive(Default)]
struct Origins {
    /// (offset of the run's first record, input index, its line).
    runs: Vec<(u64, usize, u64)>,
    len: u64,
}

impl Origins {
    fn push(&mut self, file: usize, line: u64) {
        let continues = self
            .runs
            .last()
            .is_some_and(|&(off, f, l)| f == file && l + (self.len - off) == line);
        if !continues {
            self.runs.push((self.len, file, line));
        }
        self.len += 1;
    }

    /// (input index, line) of the record at offset `k` (`k < len`).
    fn get(&self, k: u64) -> (usize, u64) {
        let i = self.runs.partition_point(|r| r.0 <= k).saturating_sub(1);
        let (off, file, line) = self.runs.get(i).copied().unwrap_or_default();
        (file, line + k.saturating_sub(off))
    }
}

/// The ledger's records up to `upto` (which may include an append's pending chunks).
pub(crate) struct View<'l> {
    ledger: &'l Ledger,
    upto: u64,
    /// Every chunk's summary up to `upto`, read once: a resumed plan wants
    /// them twice (voids, then `at` ranges).
    summaries: std::cell::OnceCell<Vec<summary::Summary>>,
}

impl<'l> View<'l> {
    pub(crate) fn new(ledger: &'l Ledger, upto: u64) -> Self {
        View {
            ledger,
            upto,
            summaries: std::cell::OnceCell::new(),
        }
    }

    fn summaries(&self) -> Result<&[summary::Summary]> {
        if let Some(s) = self.summaries.get() {
            return Ok(s);
        }
        let all = self.ledger.summaries_between(1, self.upto)?;
        Ok(self.summaries.get_or_init(|| all))
    }
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
        for s in self.summaries()? {
            if s.max_at < lo || s.min_at > hi {
                continue;
            }
            let (first, bytes) = self.ledger.chunk_holding(s.first_seq)?;
            self.chunk_entries(&chunk::decode(&bytes, first)?, f)?;
        }
        Ok(())
    }

    /// From the summaries alone.
    fn void_pairs(&self, f: &mut dyn FnMut(u64, u64) -> Result<()>) -> Result<()> {
        for s in self.summaries()? {
            for &(seq, target) in s.voids.iter().filter(|(seq, _)| *seq <= self.upto) {
                f(seq, target)?;
            }
        }
        Ok(())
    }

    fn entries(&self, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()> {
        self.ledger
            .for_each_chunk(self.upto, &mut |c| self.chunk_entries(c, f))
    }

    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        self.records_of(seqs, None, f)
    }

    /// From the summaries, when they are readable and cover `1..=upto`
    /// without a gap (else the fold plans from the chunks, as before).
    fn spans(&self) -> Result<Option<Vec<Span>>> {
        let Ok(all) = self.summaries() else {
            return Ok(None);
        };
        let mut next = 1;
        let mut spans = Vec::with_capacity(all.len());
        for s in all {
            if s.first_seq != next || s.last_seq < s.first_seq || s.last_seq > self.upto {
                return Ok(None);
            }
            next = s.last_seq + 1;
            spans.push(Span {
                first: s.first_seq,
                last: s.last_seq,
                min_at: s.min_at,
                max_at: s.max_at,
                voids: s.voids.clone(),
            });
        }
        Ok((next == self.upto + 1).then_some(spans))
    }

    fn items_in_order(
        &self,
        spans: &[Span],
        keep: &Keep,
        f: &mut dyn FnMut(Item<'_>) -> Result<()>,
    ) -> Result<()> {
        fold::stream::run(spans, keep, &mut |first| self.load(first), f)
    }

    fn items(&self, seqs: &[u64], f: &mut dyn FnMut(Item<'_>) -> Result<()>) -> Result<()> {
        self.each_cached(seqs, &mut |c, seq| {
            let (bytes, at) = c.bytes_of(seq)?;
            f(Item::Stored {
                seq,
                at,
                recorded_at: c.recorded_at,
                bytes,
            })
        })
    }

    fn records_of(
        &self,
        seqs: &[u64],
        only: Option<&str>,
        f: &mut dyn FnMut(Record) -> Result<()>,
    ) -> Result<()> {
        self.each_cached(seqs, &mut |c, seq| {
            if only.is_some() && !fold::wanted(&c.kind(seq)?, only) {
                return Ok(());
            }
            f(c.record(seq)?)
        })
    }
}

/// A chunk's bytes plus where each event sits in them.
struct Cached {
    first: u64,
    recorded_at: i64,
    bytes: Vec<u8>,
    /// Each event's byte range and its header's `at`.
    events: Vec<(usize, usize, Micros)>,
    /// `(seq, target)` of each `ledger.voided` record.
    voids: Vec<(u64, u64)>,
}

/// What the one-pass fold reads of a chunk.
impl fold::stream::Chunk for Cached {
    fn first(&self) -> u64 {
        self.first
    }

    fn count(&self) -> usize {
        self.events.len()
    }

    fn at(&self, i: usize) -> Micros {
        self.events[i].2
    }

    fn voids(&self) -> &[(u64, u64)] {
        &self.voids
    }

    fn bytes(&self) -> usize {
        self.bytes.len()
    }

    fn item(&self, seq: u64) -> Result<Item<'_>> {
        let (bytes, at) = self.bytes_of(seq)?;
        Ok(Item::Stored {
            seq,
            at,
            recorded_at: self.recorded_at,
            bytes,
        })
    }
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
    /// Call `f` with the chunk holding each seq of `seqs`, in that order.
    fn each_cached(
        &self,
        seqs: &[u64],
        f: &mut dyn FnMut(&Cached, u64) -> Result<()>,
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
            f(&cache[i], seq)?;
        }
        Ok(())
    }

    /// The entries of chunk `c` that lie within the view.
    fn chunk_entries(
        &self,
        c: &chunk::ChunkView,
        f: &mut dyn FnMut(Entry) -> Result<()>,
    ) -> Result<()> {
        for r in c.records.iter().filter(|r| r.seq <= self.upto) {
            f(Entry {
                seq: r.seq,
                at: r.at,
                recorded_at: c.recorded_at_micros,
                void_target: r.void_target,
            })?;
        }
        Ok(())
    }

    fn load(&self, seq: u64) -> Result<Cached> {
        self.ledger.recycle_if_due()?;
        let (key_seq, v) = self.ledger.chunk_holding(seq)?;
        self.ledger.moved(segment::POINTER_LEN);
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
        let voids = (c.records.iter())
            .filter_map(|r| Some((r.seq, r.void_target?)))
            .collect();
        let (first, recorded_at) = (c.first_seq, c.recorded_at_micros);
        Ok(Cached {
            first,
            recorded_at,
            events,
            voids,
            bytes: v,
        })
    }
}

/// A chunk's stored (packed) bytes, read from its segment ([`segment`]).
type Stored = Vec<u8>;

/// Threads that fsync the ledger's files at the end of an append.
///
/// Why: one after the other, the fsyncs of a 1M-event import's files took
/// 0.32-0.36 s of its wall time; eight at once, 0.18-0.19 s (ext4 commits
/// concurrent fsyncs to its journal together). `syncfs` took 0.12-0.20 s,
/// but it also waits for every other dirty file of the file system.
const FSYNC_THREADS: usize = 8;

/// fsync every file under `dir` but those directly in `not_files_of`
/// ([`FSYNC_THREADS`] at a time), then every directory, `not_files_of` too
/// (after its files, so a new file's entry is durable too).
///
/// A file gone by the time it is opened is skipped: sled deletes blob files
/// it no longer needs, and their deletion is made durable by the fsync of
/// their directory, which comes after.
fn fsync_tree(dir: &Path, not_files_of: &Path) -> Result<()> {
    let (files, dirs) = to_fsync(dir, not_files_of)?;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match files.get(i) {
            Some(p) => fsync_path(p, true)?,
            None => return Ok(()),
        }
    };
    let threads = FSYNC_THREADS.min(files.len());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        let gone = || Err(Error::Storage("an fsync thread panicked".into()));
        workers
            .into_iter()
            .try_for_each(|w| w.join().unwrap_or_else(|_| gone()))
    })?;
    dirs.iter().try_for_each(|d| fsync_path(d, false))
}

/// What [`fsync_tree`] fsyncs: the files under `dir` but those directly in
/// `not_files_of`, and every directory (each after what it holds).
fn to_fsync(dir: &Path, not_files_of: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    list_tree(dir, &mut files, &mut dirs)?;
    files.retain(|f| f.parent() != Some(not_files_of));
    Ok((files, dirs))
}

/// fsync the file or directory `p`; when `gone_ok`, one that does not exist
/// (any more) is not an error.
fn fsync_path(p: &Path, gone_ok: bool) -> Result<()> {
    match std::fs::File::open(p) {
        Err(e) if gone_ok && e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        opened => opened
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(p.display().to_string(), e)),
    }
}

/// Every file and directory under `dir`; a directory after what it holds.
fn list_tree(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> Result<()> {
    let io = |e| Error::io(dir.display().to_string(), e);
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            list_tree(&path, files, dirs)?;
        } else if path.is_file() {
            files.push(path);
        }
    }
    dirs.push(dir.to_path_buf());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsync_tree_lists_a_directory_after_its_files_and_refuses_a_missing_one() {
        let t = tempfile::tempdir().unwrap();
        let sub = t.path().join("blobs");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("1"), b"x").unwrap();
        std::fs::write(t.path().join("db"), b"y").unwrap();
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        list_tree(t.path(), &mut files, &mut dirs).unwrap();
        files.sort();
        assert_eq!(files, [sub.join("1"), t.path().join("db")]);
        assert_eq!(dirs, [sub.clone(), t.path().to_path_buf()]);
        // The segments' files are left out, their directory is not.
        let (files, dirs) = to_fsync(t.path(), &sub).unwrap();
        assert_eq!(files, [t.path().join("db")]);
        assert_eq!(dirs, [sub.clone(), t.path().to_path_buf()]);
        assert!(fsync_tree(t.path(), &sub).is_ok());
        assert!(fsync_tree(&t.path().join("gone"), &sub).is_err());
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
        }]
    }

    fn origin_line(e: Error) -> Option<u64> {
        match e {
            Error::Invalid { origin, .. } => origin.line,
            Error::IdConflict { origin, .. } => origin.line,
            other => panic!("not an input error: {other}"),
        }
    }

    /// The reader runs ahead of the writer by whole batches: the error reported
    /// must still be the first in input order, and nothing may be appended.
    #[test]
    fn the_first_bad_line_is_reported_across_batches_and_nothing_is_written() {
        let good: Vec<String> = crate::gen::stream(1500, 5)
            .lines()
            .map(String::from)
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::init(&dir.path().join("l")).unwrap();
        let unknown = r#"{"type":"nope.x","at":"2003-01-01"}"#.to_string();
        let conflict =
            r#"{"type":"mepbm.monthly_tick","at":"2003-01-01","month":"2003-01","id":"k"}"#;
        let mut lines = good.clone();
        lines[1199] = unknown.clone();
        lines[899] = "{oops".into();
        let err = ledger.append(input(&lines.join("\n"))).unwrap_err();
        assert_eq!(origin_line(err), Some(900));
        lines[599] = unknown;
        let err = ledger.append(input(&lines.join("\n"))).unwrap_err();
        assert_eq!(origin_line(err), Some(600));
        lines[299] = conflict.replace("2003-01\"", "2003-02\"");
        lines.insert(0, conflict.to_string());
        let err = ledger.append(input(&lines.join("\n"))).unwrap_err();
        assert!(matches!(err, Error::IdConflict { .. }), "{err}");
        assert_eq!(origin_line(err), Some(301));
        assert_eq!(ledger.head().unwrap(), Head::default());
        let report = ledger.append(input(&good.join("\n"))).unwrap();
        assert_eq!(report.appended, 1500);
    }

    /// A problem of the input itself (a line over the limit, a read that
    /// fails) is found on the parser thread, after batches already sent: it is
    /// reported after every line before it, in its own input, with nothing
    /// written; a bad line before it is reported instead.
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
        let good = crate::gen::stream(1200, 5);
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
                },
                Input {
                    name: "b".into(),
                    reader: Box::new(std::io::Cursor::new(second.clone())),
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
            },
            Input {
                name: "b".into(),
                reader: Box::new(std::io::Cursor::new(second)),
            },
        ];
        let err = ledger.append(inputs).unwrap_err();
        assert!(matches!(err, Error::IdConflict { .. }), "{err}");
        assert_eq!(origin_line(err), Some(300));
        let mut first = lines[..600].to_vec();
        first[550] = "{oops";
        assert_eq!(
            origin_line(ledger.append(two(first.join("\n"))).unwrap_err()),
            Some(551)
        );
        let text = lines.join("\n");
        let failing = Input {
            name: "f".into(),
            reader: Box::new(std::io::BufReader::new(Failing(text.as_bytes()))),
        };
        let err = ledger.append(vec![failing]).unwrap_err();
        assert!(
            matches!(&err, Error::Io { source, .. } if source.to_string() == "disk gone"),
            "{err}"
        );
        assert_eq!(ledger.head().unwrap(), Head::default());
    }

    /// The batch work of the two threads gives what one event at a time gives:
    /// content keys hashed across SIMD lanes equal `chunk::content_of`, and a
    /// record hash begun there and finished later equals `record_hash`. A bad
    /// line ends the batch as an error naming its line.
    #[test]
    fn a_parsed_batch_has_the_keys_and_hashes_of_its_events_one_by_one() {
        use blake3::platform::Platform;
        let mut parser = events::LineParser::default();
        let text = crate::gen::stream(300, 9);
        let mut parsed: Vec<_> = text
            .lines()
            .zip(1..)
            .map(|(l, n)| (n, parser.screen(l.as_bytes()).map_err(|_| String::new())))
            .collect();
        parsed.push((301, Err("bad".into())));
        let wants: Vec<Vec<u8>> = parsed
            .iter()
            .filter_map(|(_, p)| p.as_ref().ok().map(|p| p.canonical.clone()))
            .collect();
        let names = ["in".to_string()];
        let keys = ContentKeys::default().of(&parsed);
        let parsed = Parsed {
            file: 0,
            lines: parsed,
            keys,
        };
        let mut batch = RecordHashes::default().incoming(parsed, &names);
        assert_eq!(batch.len(), 301);
        let last = batch.pop().unwrap().err().unwrap();
        assert_eq!(origin_line_of(&last), Some(301));
        for (inc, want) in batch.into_iter().zip(&wants) {
            let inc = inc.unwrap();
            assert_eq!(&inc.canonical, want);
            assert_eq!(inc.content, chunk::content_of(want));
            let ra = "2026-11-22T00:00:00.000000Z";
            let tail = (&[3; 32], ra, 7);
            let begun = lanes::finish_record(&Platform::detect(), inc.begun, want, tail);
            assert_eq!(begun, canonical::record_hash(want, &[3; 32], ra, 7));
        }
    }

    /// `record_fields` reads a chunk once for all the seqs it holds, so it
    /// must step from one chunk to the next exactly at their boundaries: it
    /// gives every stored record of the set, what `record_field` gives one by
    /// one, and leaves out seqs that are not stored.
    #[test]
    fn record_fields_across_chunks_equal_record_field_one_by_one() {
        let text = crate::gen::stream(6000, 3);
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::init(&dir.path().join("l")).unwrap();
        ledger.append(input(&text)).unwrap();
        let chunks = ledger.chunks().unwrap().len();
        assert!(
            chunks >= 3,
            "{chunks} chunk(s): too few to cross boundaries"
        );
        let all: BTreeSet<u64> = (0..=6002).collect();
        let ats = ledger.record_fields(&all, |r| r.at);
        assert_eq!(
            ats.keys().copied().collect::<Vec<_>>(),
            (1..=6000).collect::<Vec<_>>()
        );
        for (&seq, &at) in &ats {
            assert_eq!(ledger.record_field(seq, |r| r.at).unwrap(), at, "{seq}");
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

    fn origin_line_of(e: &Error) -> Option<u64> {
        match e {
            Error::Invalid { origin, .. } => origin.line,
            _ => None,
        }
    }
}
