//! Projection checkpoints: the folded state at positions of the `(at, seq)` order,
//! so a point-in-time query, or the check fold of an append, does not replay
//! the whole log.
//!
//! **Made** by the check fold of every append: every `N / 20` records of fold
//! order (see [`PER_LEDGER`], [`MIN_EVERY`]) it stores its state (every
//! projection and the rules in force). An append folds from the latest
//! checkpoint that is still valid, so appending a few events to a large ledger
//! costs the tail of the fold, not all of it; one whose fold brings the count
//! to no new multiple (a few events after the latest checkpoint) writes none,
//! and reads no parent for a delta (it is read when the first checkpoint is
//! made, [`Ledger::storing_checkpoints`]). The fold's workers encode their
//! sections, a thread of its own compresses them and writes their file
//! ([`compressor`]) under a name of its own and renames it into place, and
//! the fold's thread notes its header.
//!
//! **Compressed** with zstd. Every [`WHOLE_EVERY`]th checkpoint (and the first
//! one a fold makes when it has no previous state at hand) is *whole*: each
//! section a zstd frame of its own. The others are *deltas*: each section a
//! zstd frame compressed with the same section of the latest whole checkpoint
//! (its *parent*, uncompressed) as prefix, so it costs what changed since, not
//! the whole state. Reading one section of a delta decompresses two frames:
//! the whole one's, then its own. Every frame carries zstd's content checksum.
//!
//! **Valid** while nothing recorded after it changes what lies at or before its
//! position `(at_c, seq_c)`. A checkpoint made when the head was `H` is invalid
//! once a record after `H` sorts before it (its `at` < `at_c`: its seq is larger)
//! or a void after `H` removes a record at or before it. Both are summed up by
//! [`Ledger::cut_after`]: the earliest position the records after `H` touch.
//! - An append whose checks pass deletes every checkpoint at or after its
//!   cut before the head moves (deleting a cache entry is always safe; a
//!   refused append leaves them, serving the head that stays); or, when its records
//!   change only some sections (late records of one rating system, or about
//!   players), makes
//!   each of them again where it stands, bound to the new head, with those
//!   sections new and the others kept as stored ([`again`]).
//! - Using a checkpoint for a fold of the records `1..=U` checks it again:
//!   the record at `H` is in the chain and still has the hash it had (a
//!   checkpoint of an append that failed or was killed is bound to a chain
//!   that was never published, and `drop_beyond` deletes those), and its
//!   position is before the cut of the records between `H` and `U`: those
//!   recorded since `H` for a plain fold (`U` the head), those a
//!   `--known-at U` below `H` leaves out otherwise (the fold's invariant *a
//!   checkpoint serves a cut*, `fold/checkpoint.rs`).
//!
//! A checkpoint is a cache: any damage or doubt means "not there", and the
//! fold starts from nothing, which gives the same answer. No hash of the
//! chain covers its sections (the header's check finds damage, not
//! forgery): `verify` folds the records again and compares every checkpoint
//! a fold may use (the fold's `checkpoint::verify`).
//!
//! ```text
//! key = position, 16 bytes, order-preserving:
//!   at (i64) with its sign bit flipped, big-endian; then seq, u64 big-endian
//! file "checkpoints/<32 hex digits of the key>.lcp" in the ledger directory
//! (written as "<...>.lcp.tmp", synced, then renamed):
//!   magic    4 bytes   b"LCP7" (the format version; any other is ignored)
//!   length   u32 LE    of the header value, at most 64 KiB
//!   header   bincode (varint) of `Header`, then 16 bytes of BLAKE3 of
//!            magic, length and value (a header that fails it reads as absent):
//!              head (seq, hash) when it was made; position (at, seq);
//!              folded: records folded up to and including the position;
//!              parent: a delta's parent's key and the BLAKE3 of its header
//!              bytes (magic, length, value), absent for a whole one;
//!              sections: (name, stored length, uncompressed length) each
//!   then each section's stored bytes, in the header's order, back to back
//!   (the file is exactly as long as they add up to).
//!   A section's stored bytes: one zstd frame (with content checksum) of the
//!   section's bytes; for a delta, compressed with the parent's section of
//!   the same name, uncompressed, as prefix.
//! ```
//!
//! Sections are bytes the ledger does not read, named by the fold that makes
//! them (`fold/checkpoint.rs`: `ledger.rules`, the rules in force, then one
//! per rating system under its name; a query of one system reads only its
//! own). A delta's sections have its parent's names, in the same order (a
//! checkpoint after the sections changed is whole). A checkpoint without a
//! section a fold needs (one made before a system was added, or under
//! another layout of the sections: the fold versions their names) is not
//! used by that fold: adding a system or changing a section changes no
//! format of the ledger's.
//!
//! A delta is read only if its parent's header still hashes to the BLAKE3 of its link (so
//! the prefix is the exact bytes it was compressed with) and sorts before it;
//! a missing or changed parent, a bad frame or checksum, or a length that does
//! not add up makes the checkpoint absent, and so does a file that is missing,
//! cut short or does not start with the very header (a file left from another
//! checkpoint at the same position).
//!
//! Choosing and dropping checkpoints reads the header of each file
//! (listed once per command). Sections live in plain files, not in sled:
//! sled writes values that large as blob files of their own and rewrites them
//! whole as its leaves change, which cost both disk and the import's time. A
//! file is never rewritten in place: a reader holding a header either reads
//! that very file or finds it gone or replaced (the header compare), which is
//! an absent checkpoint. Unfinished `.tmp` files, and files whose header does
//! not read, are deleted by the next append that drops checkpoints.

mod again;
mod file;
mod frames;

use std::path::PathBuf;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use crate::error::{Error, Result};
use crate::time::Micros;

use super::published::Entry;
use super::summary::Summary;
use super::{Head, Ledger};
use file::{compressor, finish, forget, read_file_section};
pub(crate) use frames::{unpack, Frames};

/// Every checkpoint's header bytes, by key, as read from the start of its file.
pub(crate) type Headers = std::collections::BTreeMap<[u8; 16], Vec<u8>>;

/// A checkpoint's header and the frames of the sections a query reads (by
/// the place of their names in the header).
pub(crate) type Stored = (Header, Vec<Option<Frames>>);

/// A position in fold order: `(at, seq)`.
pub type Pos = (Micros, u64);

/// The index entries of the chunks holding any seq of `from..=upto`, in seq order.
fn holding(index: &[Entry], from: u64, upto: u64) -> &[Entry] {
    if from > upto {
        return &[];
    }
    let start = index.partition_point(|e| e.summary.last_seq < from);
    let end = index.partition_point(|e| e.first() <= upto);
    &index[start..end.max(start)]
}

/// Checkpoints per ledger: one every `N / PER_LEDGER` records of fold order
/// (rounded up to a multiple of [`STEP`], at least [`MIN_EVERY`]), so a query
/// folds at most that many records after its checkpoint. That fold is the
/// largest part of a query. Why not more: the import pays for every
/// checkpoint (each encodes the whole state and writes what changed since
/// its whole parent), and `N / 20` records folded keep a query interactive.
/// A projection state grows with the log, so a whole checkpoint at `n` costs
/// about `n` times the state's bytes per event: with a fixed spacing they
/// would grow as `N²`; whole ones every `N / 4` cost about 1.6 final states
/// whatever `N` (see [`WHOLE_AT`]), and the deltas between them what changed.
const PER_LEDGER: u64 = 20;
/// Every `WHOLE_EVERY`th checkpoint of fold order (see [`WHOLE_AT`]) is
/// whole, the rest are deltas: whole ones every `N / 4` (with [`PER_LEDGER`]
/// 20). Why not more often: whole ones cost disk and the import's time, and
/// a query reads two frames of a delta's section whatever the spacing.
const WHOLE_EVERY: u64 = 5;
/// Whole ones are the 1st, 6th, 11th, ... (`folded / every` is `WHOLE_AT`
/// modulo [`WHOLE_EVERY`]), so the first checkpoint of a ledger, which has no
/// parent anyway, is one of them and the last of a 1M-event import (the 20th)
/// is a delta: the largest state is not compressed whole at the end of the
/// import while every other thread has finished.
const WHOLE_AT: u64 = 1;
/// The least spacing: below it, folding is cheaper than reading a snapshot.
pub const MIN_EVERY: u64 = 10_000;
/// The spacing is a multiple of this, so it changes in steps as a ledger grows.
const STEP: u64 = 5_000;

const MAGIC: &[u8; 4] = b"LCP7";
/// The magic and the header value's length (u32, little-endian).
const PREFIX: usize = 8;
/// The longest header value read: a few dozen bytes a section.
const MAX_HEADER: usize = 64 << 10;
/// The header's own check: the first bytes of BLAKE3 of prefix and value.
const CHECK: usize = 16;
/// The directory, in the ledger's, of the checkpoint files.
const DIR: &str = "checkpoints";
/// A checkpoint file's name: the hex of its key, then this extension.
const FILE_EXT: &str = "lcp";
/// Candidates tried, latest first, before a query gives up and folds from nothing.
const TRIES: usize = 8;

/// Overrides the spacing (a positive integer): tests make many small checkpoints.
pub const EVERY_ENV: &str = "LAUREL_CHECKPOINT_EVERY";

/// The largest parent (uncompressed sections) an append keeps to make the next
/// checkpoint a delta: a larger state's next checkpoint is whole instead. Why: the
/// parent is a second copy of the state in memory (`tests/it/streaming.rs` bounds
/// an append's peak).
const PARENT_MAX: usize = 128 << 20;

/// Is `p` small enough to keep as the next delta's parent ([`PARENT_MAX`])?
pub(crate) fn small(p: &Parent) -> bool {
    p.raw.iter().map(Vec::len).sum::<usize>() <= PARENT_MAX
}

/// Would checkpoint `h`'s sections, uncompressed, be [`small`] enough to keep
/// as a parent? Read from its header, before anything is decompressed.
pub(crate) fn small_header(h: &Header) -> bool {
    h.sections.iter().map(|s| s.raw).sum::<u64>() <= PARENT_MAX as u64
}

/// The spacing of checkpoints for a ledger of `records` records.
pub(crate) fn every(records: u64) -> u64 {
    std::env::var(EVERY_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| auto_every(records))
}

/// [`every`] without the override.
fn auto_every(records: u64) -> u64 {
    ((records / PER_LEDGER).div_ceil(STEP) * STEP).max(MIN_EVERY)
}

/// The key of position `pos`: sorts as `(at, seq)` does.
pub fn key(pos: Pos) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&((pos.0 as u64) ^ (1 << 63)).to_be_bytes());
    k[8..].copy_from_slice(&pos.1.to_be_bytes());
    k
}

/// A checkpoint's header: where it stands, what it is bound to, and its
/// sections, each named by the fold that made it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    pub head: Head,
    pub pos: Pos,
    pub folded: u64,
    /// A delta's parent: its key and the BLAKE3 of its header's bytes.
    pub parent: Option<([u8; 16], [u8; 32])>,
    pub sections: Vec<Section>,
}

/// One section of a checkpoint: bytes the ledger does not read, under the
/// name the fold gave them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Section {
    pub name: String,
    /// Its stored (compressed) byte length.
    pub stored: u64,
    /// Its uncompressed byte length.
    pub raw: u64,
}

impl Header {
    /// The place of section `name`, if the checkpoint has it.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.name == name)
    }

    /// The header at the start of `b` (exactly), or `None`: another
    /// format, cut short or damaged.
    pub fn read(b: &[u8]) -> Option<Header> {
        if b.len() != PREFIX + header_len(b)? {
            return None;
        }
        let (body, check) = b.split_at(b.len() - CHECK);
        if blake3::hash(body).as_bytes()[..CHECK] != *check {
            return None;
        }
        use bincode::Options;
        let options = bincode::DefaultOptions::new().with_limit(MAX_HEADER as u64);
        options.deserialize(&body[PREFIX..]).ok()
    }

    /// The stored bytes the file holds after its header.
    fn stored_len(&self) -> Option<u64> {
        self.sections
            .iter()
            .try_fold(0u64, |n, s| n.checked_add(s.stored))
    }
}

/// How many header bytes follow the prefix `b` starts with: the value's
/// length (from the prefix) and the check.
fn header_len(b: &[u8]) -> Option<usize> {
    if b.get(..4)? != MAGIC {
        return None;
    }
    let len = u32::from_le_bytes(b.get(4..PREFIX)?.try_into().ok()?) as usize;
    (len <= MAX_HEADER).then_some(len + CHECK)
}

/// What gives the parent of the first checkpoint a check fold makes
/// ([`Ledger::storing_checkpoints`]), called only if it makes one.
pub(crate) type ParentOf<'a> = Box<dyn FnOnce() -> Result<Option<Parent>> + 'a>;

/// A whole checkpoint: what a delta is made from.
pub(crate) struct Parent {
    header: Header,
    /// Its uncompressed sections, in the header's order.
    raw: Vec<Vec<u8>>,
    /// How many deltas were made on it.
    deltas: usize,
}

/// A header's bytes: [`MAGIC`], the value's length, the value (bincode),
/// then the first [`CHECK`] bytes of BLAKE3 of all that.
pub fn encode_header(h: &Header) -> Vec<u8> {
    use bincode::Options;
    let value = bincode::DefaultOptions::new()
        .serialize(h)
        .unwrap_or_default(); // cannot fail into a Vec; an empty value would read as absent
    let mut b = Vec::with_capacity(PREFIX + value.len() + CHECK);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&(value.len() as u32).to_le_bytes());
    b.extend_from_slice(&value);
    let check = blake3::hash(&b);
    b.extend_from_slice(&check.as_bytes()[..CHECK]);
    b
}

/// A parent link to the checkpoint with header `h`.
fn link(h: &Header) -> ([u8; 16], [u8; 32]) {
    (key(h.pos), *blake3::hash(&encode_header(h)).as_bytes())
}

/// Run `fold` with a `send` that hands each job, in order, to `work`, run
/// on a thread of its own (`checkpoints`: zstd and file writes on the thread
/// that reads the records for the fold's workers would keep them waiting),
/// which sends back the header of each checkpoint it writes, or its first
/// failure, and stops there. `made` takes each header on the caller's
/// thread, as they come and at the end; the fold's failure, then the
/// thread's, is the one returned.
pub(crate) fn on_checkpoint_thread<J: Send, T>(
    work: impl FnOnce(Receiver<J>, Sender<Result<Header>>) + Send,
    made: &mut dyn FnMut(Header) -> Result<()>,
    fold: impl FnOnce(&mut dyn FnMut(J) -> Result<()>) -> Result<T>,
) -> Result<T> {
    std::thread::scope(|scope| {
        let (job_tx, job_rx) = sync_channel::<J>(0);
        let (made_tx, made_rx) = channel::<Result<Header>>();
        std::thread::Builder::new()
            .name("checkpoints".into())
            .spawn_scoped(scope, move || work(job_rx, made_tx))
            .map_err(|e| Error::io("the checkpoint thread", e))?;
        let mut take = |h: Result<Header>| h.and_then(&mut *made);
        let mut send = |job: J| {
            if job_tx.send(job).is_err() {
                // It stopped at a failure, which it sent.
                let sent = made_rx.iter().try_for_each(&mut take);
                let gone = "checkpoint: the checkpoint thread stopped";
                return sent.and(Err(Error::Storage(gone.into())));
            }
            made_rx.try_iter().try_for_each(&mut take)
        };
        let folded = fold(&mut send);
        drop(job_tx);
        let written = made_rx.iter().try_for_each(&mut take);
        folded.and_then(|v| written.map(|()| v))
    })
}

impl Ledger {
    /// Run `fold` (a check fold) with a `put` that makes each snapshot it
    /// hands over (its sections, named by `names`, in order) a checkpoint
    /// bound to the head `new`, one every `every` records: each a delta from
    /// the one before (the first from what `parent` gives, asked for only
    /// then: a fold that makes no checkpoint reads no parent), compressed and
    /// written on the [`compressor`] thread, unfinished until
    /// [`Ledger::settle_checkpoints`].
    pub(crate) fn storing_checkpoints<T>(
        &self,
        (parent, names): (ParentOf<'_>, &[&str]),
        new: Head,
        every: u64,
        fold: impl FnOnce(&mut dyn FnMut(Pos, u64, Vec<Vec<u8>>) -> Result<()>) -> Result<T>,
    ) -> Result<T> {
        let dir = self.files_dir();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
        let dir = &dir;
        let work = move |jobs, made| compressor(jobs, made, new, (dir, every));
        // Each checkpoint whose file is written waits for the append's checks.
        let mut store = |h: Header| {
            self.unfinished.borrow_mut().push(h);
            Ok(())
        };
        let mut parent = Some(parent);
        on_checkpoint_thread(work, &mut store, |send| {
            fold(&mut |pos: Pos, folded: u64, bytes: Vec<Vec<u8>>| {
                if bytes.len() != names.len() {
                    return Err(Error::Storage(
                        "checkpoint: wrong number of sections".into(),
                    ));
                }
                let named = names.iter().map(|n| n.to_string()).zip(bytes).collect();
                let first = match parent.take() {
                    Some(of) => of()?.filter(small),
                    None => None,
                };
                send((pos, folded, named, first))
            })
        })
    }

    /// Rename the files of the checkpoints the append's check fold made
    /// ([`Ledger::storing_checkpoints`], [`Ledger::making_again`]) into
    /// place and note their headers, when every check of the append
    /// `passed`; else delete them: the checkpoints of the old head stay.
    pub(crate) fn settle_checkpoints(&self, passed: bool) -> Result<()> {
        let dir = self.files_dir();
        let made = std::mem::take(&mut *self.unfinished.borrow_mut());
        for h in &made {
            match passed {
                true => {
                    finish(&dir, h.pos)?;
                    self.with_headers(|all| drop(all.insert(key(h.pos), encode_header(h))))?;
                }
                false => forget(&dir, h.pos),
            }
        }
        Ok(())
    }

    /// The earliest fold position that the records `after + 1 ..= upto` can
    /// change: the smallest `(at, seq)` among them (a record after a
    /// checkpoint's head sorts before it exactly when its `at` is smaller),
    /// and `(at, seq)` of every record they void. `None` if there are none.
    /// From the index ([`Ledger::floor_after`]), but for a chunk that also
    /// holds records up to `after` (a known-at cut within a chunk), which is
    /// read for the `at` of its records after it.
    pub(crate) fn cut_after(&self, after: u64, upto: u64) -> Result<Option<Pos>> {
        let voids: Vec<(u64, u64)> = {
            let index = self.index.borrow();
            let voids = holding(&index, after + 1, upto)
                .iter()
                .flat_map(|e| &e.summary.voids);
            let within = |&&(seq, _): &&(u64, u64)| seq > after && seq <= upto;
            voids.filter(within).copied().collect()
        };
        // An out-of-range target is refused by the check fold; until then,
        // trust nothing (nor a target that cannot be read): `Micros::MIN`.
        let readable = |&(seq, target): &(u64, u64)| target > 0 && target < seq;
        let targets = voids.iter().filter(|v| readable(v)).map(|v| v.1).collect();
        let ats = self.record_fields(&targets, |r| r.at);
        let at = |v: &(u64, u64)| ats.get(&v.1).filter(|_| readable(v)).copied();
        let voided = voids.iter().map(|v| (at(v).unwrap_or(Micros::MIN), v.1));
        let chunks = self.floor_after(after, upto).into_iter();
        Ok(voided
            .chain(chunks)
            .chain(self.split_at(after, upto)?)
            .min())
    }

    /// The smallest `(at, first seq)` of the chunks that start after `after`
    /// and hold records up to `upto`, from the index alone: no fold position
    /// of those records is smaller (`None` if there are none).
    fn floor_after(&self, after: u64, upto: u64) -> Option<Pos> {
        let index = self.index.borrow();
        let whole = holding(&index, after + 1, upto)
            .iter()
            .filter(|e| e.first() > after);
        whole.map(|e| (e.summary.min_at, e.first())).min()
    }

    /// The smallest `(at, seq)` of the records `after + 1 ..= upto` in the
    /// chunk that holds record `after` too, read from it; `None` if record
    /// `after` ends its chunk.
    fn split_at(&self, after: u64, upto: u64) -> Result<Option<Pos>> {
        let split = {
            let index = self.index.borrow();
            let e = holding(&index, after + 1, upto).first();
            e.is_some_and(|e| e.first() <= after)
        };
        if !split {
            return Ok(None);
        }
        let (first, bytes) = self.chunk_holding(after + 1)?;
        let c = super::chunk::decode(&bytes, first)?;
        let later = c.records.iter().filter(|r| r.seq > after && r.seq <= upto);
        Ok(later.map(|r| (r.at, r.seq)).min())
    }

    /// The summaries of the chunks starting in `from..=upto`, in seq order.
    pub(crate) fn summaries_between(&self, from: u64, upto: u64) -> Result<Vec<Summary>> {
        let index = self.index.borrow();
        let start = index.partition_point(|e| e.first() < from);
        Ok(index[start..]
            .iter()
            .take_while(|e| e.first() <= upto)
            .map(|e| e.summary.clone())
            .collect())
    }

    /// The headers of the checkpoints at or before `bound` usable for a fold
    /// of the records `1..=upto` ([`Ledger::usable`]), latest first: of
    /// those the index does not already rule out (bound to a head beyond
    /// the chain, or their position is at or after [`Ledger::floor_after`]
    /// of the records between their head and `upto`, a part of their cut),
    /// [`TRIES`] at most, each checked only when the caller goes on to it,
    /// so a query that takes the first reads nothing more.
    pub(crate) fn usable_before(
        &self,
        bound: Pos,
        upto: u64,
    ) -> Result<impl Iterator<Item = Result<Header>> + '_> {
        let before: Vec<([u8; 16], Vec<u8>)> = self.with_headers(|all| {
            let before = all.range(..=key(bound)).rev();
            before.map(|(k, v)| (*k, v.clone())).collect()
        })?;
        // A checkpoint bound to a head beyond the chain (made by an append
        // that has not published, or never will) is never usable: it is
        // passed over, not counted among the tries.
        let last = self.index.borrow().last().map_or(0, |e| e.summary.last_seq);
        let not_ruled_out = move |(k, v): ([u8; 16], Vec<u8>)| {
            let h = Header::read(&v).filter(|h| key(h.pos) == k && h.head.seq <= last)?;
            let (lo, hi) = (h.head.seq.min(upto), h.head.seq.max(upto));
            let floor = self.floor_after(lo, hi);
            floor.is_none_or(|f| h.pos < f).then_some(h)
        };
        let tried = before.into_iter().filter_map(not_ruled_out).take(TRIES);
        Ok(tried.filter_map(move |h| self.usable(&h, upto).map(|ok| ok.then_some(h)).transpose()))
    }

    /// The latest usable checkpoint at or before `bound` that has every
    /// section named in `want`, with their stored frames all there: its
    /// header and, for each of them (at its place in the header), the frames
    /// along its chain, whole checkpoint first. Nothing is decompressed yet.
    pub(crate) fn stored_before(
        &self,
        bound: Pos,
        upto: u64,
        want: &[&str],
    ) -> Result<Option<Stored>> {
        'next: for h in self.usable_before(bound, upto)? {
            let h = h?;
            let mut frames: Vec<Option<Frames>> = vec![None; h.sections.len()];
            for name in want {
                let Some(i) = h.index(name) else {
                    continue 'next;
                };
                match self.frames(&h, name)? {
                    Some(f) => frames[i] = Some(f),
                    None => continue 'next,
                }
            }
            return Ok(Some((h, frames)));
        }
        Ok(None)
    }

    /// What the next checkpoint of an append that resumes from `h` (whose
    /// uncompressed sections are `raw`, in its header's order) is a delta
    /// from: `h` if it is whole, else the whole checkpoint it is a delta on,
    /// with the deltas already made on that one. `None` (the next is whole)
    /// when a link is missing.
    pub(crate) fn root_after(&self, h: Header, raw: Vec<Vec<u8>>) -> Result<Option<Parent>> {
        let Some(chain) = self.chain(&h)? else {
            return Ok(None);
        };
        let read_back = |header, raw, deltas| Parent {
            header,
            raw,
            deltas,
        };
        let root = match &chain[..] {
            [_] => return Ok(Some(read_back(h, raw, 0))),
            [_, root] => root.clone(),
            _ => return Ok(None),
        };
        drop(raw);
        let mut sections = Vec::with_capacity(root.sections.len());
        for s in &root.sections {
            match self.raw_section(&root, &s.name)? {
                Some(b) => sections.push(b),
                None => return Ok(None),
            }
        }
        let link = Some(link(&root));
        let deltas = self.with_headers(|all| {
            let on_root = |v: &&Vec<u8>| Header::read(v).is_some_and(|c| c.parent == link);
            all.values().filter(on_root).count()
        })?;
        Ok(Some(read_back(root, sections, deltas)))
    }

    /// Can the checkpoint with header `h` start a fold of the records
    /// `1..=upto` (a plain one: `upto` is the head; `--known-at K`: `K`)?
    /// Its head must still be in the chain, and the records between its
    /// head and `upto`, on either side, must leave alone what lies at or
    /// before its position (the invariant *a checkpoint serves a cut*).
    pub(crate) fn usable(&self, h: &Header, upto: u64) -> Result<bool> {
        if h.pos.1 > h.head.seq {
            return Ok(false);
        }
        // Also false for a head beyond the chain's last record.
        if self.hash_at(h.head.seq).ok() != Some(h.head.hash) {
            return Ok(false);
        }
        let (lo, hi) = (h.head.seq.min(upto), h.head.seq.max(upto));
        Ok(self.cut_after(lo, hi)?.is_none_or(|cut| h.pos < cut))
    }

    /// Every stored checkpoint's header that reads (one that does not is
    /// absent to every fold), in position order.
    pub(crate) fn all_checkpoints(&self) -> Result<Vec<Header>> {
        self.with_headers(|all| {
            let read = |(k, v): (&[u8; 16], &Vec<u8>)| Header::read(v).filter(|h| key(h.pos) == *k);
            all.iter().filter_map(read).collect()
        })
    }

    /// How many checkpoint files the ledger holds, their headers read or not.
    pub(crate) fn listed_checkpoints(&self) -> Result<usize> {
        self.with_headers(|all| all.len())
    }

    /// `f` on the checkpoint headers, read from their files ([`file::list`])
    /// the first time.
    fn with_headers<T>(&self, f: impl FnOnce(&mut Headers) -> T) -> Result<T> {
        let mut all = self.checkpoints.borrow_mut();
        if all.is_none() {
            *all = Some(file::list(&self.files_dir()));
        }
        Ok(f(all.as_mut().expect("listed above")))
    }

    /// Why the directory of checkpoint files, there, cannot be listed (a
    /// file, a symbolic link loop, no permission), if it cannot: every fold
    /// then starts from nothing ([`file::list`]), which `verify` says.
    pub fn checkpoints_unlisted(&self) -> Option<String> {
        let dir = self.files_dir();
        match std::fs::read_dir(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Some(format!("{}: {e}", dir.display()))
            }
            _ => None,
        }
    }

    /// The directory of checkpoint files ([`DIR`]); it may not exist.
    pub(crate) fn files_dir(&self) -> PathBuf {
        self.path.join(DIR)
    }

    /// Section `name` of a checkpoint, uncompressed: through its parent for a
    /// delta. `None` if anything along the way is missing or does not match.
    pub(crate) fn raw_section(&self, h: &Header, name: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.frames(h, name)?.and_then(unpack))
    }

    /// The stored frames of section `name` along `h`'s chain, whole checkpoint
    /// first, each with its uncompressed length; `None` if a link, its file or
    /// the section is missing or does not match.
    pub(crate) fn frames(&self, h: &Header, name: &str) -> Result<Option<Frames>> {
        let Some(chain) = self.chain(h)? else {
            return Ok(None);
        };
        let (dir, mut out) = (self.files_dir(), Vec::with_capacity(chain.len()));
        for c in chain.iter().rev() {
            let Some(i) = c.index(name) else {
                return Ok(None);
            };
            match read_file_section(&dir, c, i) {
                Some(stored) => out.push((stored, c.sections[i].raw)),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    /// `h` and, for a delta, its parent, newest first; `None` if the parent
    /// is missing, does not match its link or is not whole.
    pub(crate) fn chain(&self, h: &Header) -> Result<Option<Vec<Header>>> {
        let Some((pk, digest)) = h.parent else {
            return Ok(Some(vec![h.clone()]));
        };
        let Some(v) = self.with_headers(|all| all.get(&pk).cloned())? else {
            return Ok(None);
        };
        let linked = blake3::hash(&v).as_bytes() == &digest;
        let parent = Header::read(&v)
            .filter(|p| linked && key(p.pos) == pk && p.pos < h.pos && p.parent.is_none());
        Ok(parent.map(|p| vec![h.clone(), p]))
    }

    /// Delete the checkpoints whose header `doomed` picks, damaged ones (a
    /// file whose header does not read, or names another position), and the
    /// unfinished files of an append that failed or was killed.
    pub(crate) fn drop_checkpoints(&self, doomed: impl Fn(&Header) -> bool) -> Result<()> {
        let dir = self.files_dir();
        let gone: Vec<[u8; 16]> = self.with_headers(|all| {
            let bad = |(k, v): (&[u8; 16], &Vec<u8>)| match Header::read(v) {
                Some(h) if key(h.pos) == *k && !doomed(&h) => None,
                _ => Some(*k),
            };
            let gone: Vec<[u8; 16]> = all.iter().filter_map(bad).collect();
            gone.iter().for_each(|k| drop(all.remove(k)));
            gone
        })?;
        let io = |e| Error::io(dir.display().to_string(), e);
        for k in gone {
            match std::fs::remove_file(dir.join(file::name_of_key(&k))) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
                _ => {}
            }
        }
        file::remove_unfinished(&dir)
    }
}

#[cfg(test)]
mod tests;
