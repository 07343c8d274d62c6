//! Projection checkpoints: the folded state at positions of the `(at, seq)` order,
//! so a point-in-time query, or the check fold of an append, does not replay
//! the whole log.
//!
//! **Made** by the check fold of every append: every `N / 20` records of fold
//! order (see [`PER_LEDGER`], [`MIN_EVERY`]) it stores its state. An append
//! folds from the latest checkpoint that is still valid, so appending a few
//! events to a large ledger costs the tail of the fold, not all of it. The
//! fold's workers encode their sections, a thread of its own compresses them
//! and writes their file ([`compressor`]), and the fold's thread stores the
//! header (it holds the sled handles).
//!
//! **Opaque sections.** The fold hands a checkpoint over as named sections of
//! bytes ([`crate::fold::named`]): the first holds the rules in force and is
//! read by every fold that resumes; the others are read by name (a query of
//! one namespace reads only its own). What the bytes mean is the fold's and
//! the systems' business: adding a system adds a section, and changes
//! nothing here.
//!
//! **Compressed** with zstd. Every [`WHOLE_EVERY`]th checkpoint (and the first
//! one a fold makes when it has no previous state at hand) is *whole*: each
//! section a zstd frame of its own. The others are *deltas*: each section a
//! zstd frame compressed with the same-named section of the latest whole
//! checkpoint (its *parent*, uncompressed) as prefix, so it costs what changed
//! since, not the whole state. Reading one section of a delta decompresses two
//! frames: the whole one's, then its own. Every frame carries zstd's content
//! checksum.
//!
//! **Valid** while nothing recorded after it changes what lies at or before its
//! position `(at_c, seq_c)`. A checkpoint made when the head was `H` is invalid
//! once a record after `H` sorts before it (its `at` < `at_c`: its seq is larger)
//! or a void after `H` removes a record at or before it. Both are summed up by
//! [`Ledger::cut_after`]: the earliest position the records after `H` touch.
//! - An append deletes every checkpoint at or after its cut before the head
//!   moves (deleting a cache entry is always safe).
//! - Using a checkpoint checks it again: its `H` is at most the head, the
//!   record at `H` still has the hash it had (a checkpoint of an append that
//!   failed or was killed is bound to a chain that was never published, and
//!   `drop_beyond` deletes those), and its position is before the cut of
//!   everything recorded since `H`.
//!
//! A checkpoint is a cache: any damage or doubt means "not there", and the
//! fold starts from nothing, which gives the same answer.
//!
//! ```text
//! tree "checkpoints": key = position, 16 bytes, order-preserving:
//!   at (i64) with its sign bit flipped, big-endian; then seq, u64 big-endian
//! value, the header (integers little-endian):
//!   0   4   magic       b"LCP5" (the format version; any other is ignored)
//!   4   8   head_seq    the head when it was made
//!   12  32  head_hash   the hash of record head_seq
//!   44  8   at          the position (as in the key)
//!   52  8   seq
//!   60  8   folded      records folded up to and including the position
//!   68  1   kind        0 whole, 1 delta
//!   69  16  parent      a delta's parent's key (zeros for a whole one)
//!   85  32  digest      BLAKE3 of the parent's header value (zeros if whole)
//!   117 2   count       u16, the number of sections, at least 1
//!   then per section, in order:
//!       1   name_len    u8
//!       ..  name        UTF-8, unique in the checkpoint
//!       8   stored      stored (compressed) byte length
//!       8   raw         uncompressed byte length
//! file "checkpoints/<32 hex digits of the key>.lcp" in the ledger directory:
//!   the header value (as above), then each section's stored bytes, in order,
//!   back to back (the file is exactly as long as they add up to).
//!   A section's stored bytes: one zstd frame (with content checksum) of the
//!   section's bytes; for a delta, compressed with the parent's uncompressed
//!   section of the same name as prefix (without one if the parent has none)
//! ```
//!
//! A delta is read only if its parent is whole, its header still hashes to
//! `digest` (so the prefix is the exact bytes it was compressed with) and it
//! sorts before it; a missing or changed parent, a bad frame or checksum, or a
//! length that does not add up makes the checkpoint absent, and so does a
//! file that is missing, cut short or does not start with the very header (a
//! file left from another checkpoint at the same position).
//!
//! Headers live apart from the (large) sections so that choosing and dropping
//! checkpoints reads a few hundred bytes each. Sections live in plain files,
//! not in sled: sled writes a leaf larger than a quarter segment as a blob
//! file of its own and rewrites it whole as values are added. A file is
//! written (and synced) before its header is stored and deleted after it; a
//! file no header names is deleted by the next append that drops checkpoints.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use crate::error::{Error, Result};
use crate::fold::{self, Pos, Query, Sink, Start};
use crate::time::Micros;

use super::summary::Summary;
use super::{chunk, storage, Head, Ledger, View};

/// Checkpoints per ledger: one every `N / PER_LEDGER` records of fold order
/// (rounded up to a multiple of [`STEP`], at least [`MIN_EVERY`]), so a query
/// folds at most that many records after its checkpoint. That fold is the
/// largest part of a query (about 2 µs a record of fold order, on one core).
/// More checkpoints make queries faster and imports slower: the import pays
/// for every checkpoint (each encodes the whole state and compresses it, or
/// what changed since its whole parent). At 1M events, twice as many save a
/// query a few milliseconds but cost the import about a second and twice
/// the checkpoint bytes.
/// A projection state grows with the log, so a whole checkpoint at `n` costs
/// about `n` times the state's bytes per event: with a fixed spacing they
/// would grow as `N²`; whole ones every `N / 4` cost about 1.6 final states
/// whatever `N` (see [`WHOLE_AT`]), and the deltas between them what changed.
const PER_LEDGER: u64 = 20;
/// Every `WHOLE_EVERY`th checkpoint of fold order (see [`WHOLE_AT`]) is
/// whole, the rest are deltas: whole ones every `N / 4`. More often costs
/// more disk for the same query times.
const WHOLE_EVERY: u64 = 5;
/// Whole ones are the 1st, 6th, 11th, ... (`folded / every` is `WHOLE_AT`
/// modulo [`WHOLE_EVERY`]), so the first checkpoint of a ledger, which has no
/// parent anyway, is one of them and the last of a 1M-event import (the 20th)
/// is a delta: four whole ones (1, 6, 11, 16: 1.6 final states of bytes),
/// none of them compressed at the end of the import while every other thread
/// has finished.
const WHOLE_AT: u64 = 1;
/// zstd levels: whole checkpoints are written a few times per ledger, deltas
/// often, and both are read back as fast whatever the level.
const WHOLE_LEVEL: i32 = 1;
const DELTA_LEVEL: i32 = 1;
/// The least spacing: below it, folding is cheaper than reading a checkpoint.
pub const MIN_EVERY: u64 = 10_000;
/// The spacing is a multiple of this, so it changes in steps as a ledger grows.
const STEP: u64 = 5_000;

const MAGIC: &[u8; 4] = b"LCP5";
/// The header's bytes before its list of sections.
const FIXED: usize = 119;
/// The directory, in the ledger's, of the checkpoint files.
const DIR: &str = "checkpoints";
/// A checkpoint file's name: the hex of its key, then this extension.
const FILE_EXT: &str = "lcp";
/// Candidates tried, latest first, before a query gives up and folds from nothing.
const TRIES: usize = 8;

/// Set (to anything) to never start a fold from a checkpoint: tests and the
/// bench compare against the full fold with it.
pub const DISABLE_ENV: &str = "LAUREL_NO_CHECKPOINTS";
/// Set (to anything) to have a query say on stderr where its fold started.
pub const TRACE_ENV: &str = "LAUREL_CHECKPOINT_TRACE";
/// Overrides the spacing (a positive integer): tests make many small checkpoints.
pub const EVERY_ENV: &str = "LAUREL_CHECKPOINT_EVERY";

/// The largest parent (uncompressed sections) an append keeps to make the next
/// checkpoint a delta: a larger state's next checkpoint is whole instead. Why: the
/// parent is a second copy of the state in memory; with a new player per event,
/// at 7.8M records that is about 350 MiB more at the append's peak
/// (`tests/streaming.rs`).
const PARENT_MAX: usize = 128 << 20;

/// Is `p` small enough to keep as the next delta's parent ([`PARENT_MAX`])?
fn small(p: &Parent) -> bool {
    p.raw.iter().map(Vec::len).sum::<usize>() <= PARENT_MAX
}

/// The spacing of checkpoints for a ledger of `records` records.
fn every(records: u64) -> u64 {
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

/// The position a key encodes.
pub fn pos_of(k: &[u8]) -> Option<Pos> {
    let at: [u8; 8] = k.get(..8)?.try_into().ok()?;
    let seq: [u8; 8] = k.get(8..16)?.try_into().ok()?;
    (k.len() == 16).then(|| {
        (
            (u64::from_be_bytes(at) ^ (1 << 63)) as Micros,
            u64::from_be_bytes(seq),
        )
    })
}

/// A checkpoint's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub head: Head,
    pub pos: Pos,
    pub folded: u64,
    /// A delta's parent: its key and the BLAKE3 of its header value.
    pub parent: Option<([u8; 16], [u8; 32])>,
    /// Its sections, in the order of their bytes in the file.
    pub sections: Vec<Section>,
}

/// One section of a checkpoint as its header gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    /// The stored (compressed) byte length.
    pub stored: u64,
    /// The uncompressed byte length.
    pub raw: u64,
}

impl Header {
    /// The index of the section named `name`.
    fn section(&self, name: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.name == name)
    }

    /// Does a fold of `only` read section `i`? The first (the rules in
    /// force) always, the others by name (all of them for `None`).
    fn wanted(&self, i: usize, only: Option<&str>) -> bool {
        i == 0 || only.is_none_or(|o| self.sections[i].name == o)
    }
}

/// The header `b` holds, if it is exactly one (layout in the module docs).
fn header(b: &[u8]) -> Option<Header> {
    let u64_at = |i: usize| Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?));
    if b.len() < FIXED || b[..4] != MAGIC[..] {
        return None;
    }
    let parent = match b[68] {
        0 => None,
        1 => Some((b[69..85].try_into().ok()?, b[85..117].try_into().ok()?)),
        _ => return None,
    };
    let count = u16::from_le_bytes(b[117..119].try_into().ok()?);
    let mut sections = Vec::with_capacity(count.into());
    let mut at = FIXED;
    for _ in 0..count {
        let len = usize::from(*b.get(at)?);
        let name = std::str::from_utf8(b.get(at + 1..at + 1 + len)?).ok()?;
        at += 1 + len;
        sections.push(Section {
            name: name.to_string(),
            stored: u64_at(at)?,
            raw: u64_at(at + 8)?,
        });
        at += 16;
    }
    (at == b.len() && count > 0).then_some(())?;
    Some(Header {
        head: Head {
            seq: u64_at(4)?,
            hash: b[12..44].try_into().ok()?,
        },
        pos: (u64_at(44)? as Micros, u64_at(52)?),
        folded: u64_at(60)?,
        parent,
        sections,
    })
}

/// A header's bytes.
pub fn encode_header(h: &Header) -> Vec<u8> {
    let mut b = Vec::with_capacity(FIXED + 24 * h.sections.len());
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&h.head.seq.to_le_bytes());
    b.extend_from_slice(&h.head.hash);
    b.extend_from_slice(&(h.pos.0 as u64).to_le_bytes());
    b.extend_from_slice(&h.pos.1.to_le_bytes());
    b.extend_from_slice(&h.folded.to_le_bytes());
    let (key, digest) = h.parent.unwrap_or(([0; 16], [0; 32]));
    b.push(u8::from(h.parent.is_some()));
    b.extend_from_slice(&key);
    b.extend_from_slice(&digest);
    b.extend_from_slice(&(h.sections.len() as u16).to_le_bytes());
    for s in &h.sections {
        b.push(s.name.len() as u8);
        b.extend_from_slice(s.name.as_bytes());
        b.extend_from_slice(&s.stored.to_le_bytes());
        b.extend_from_slice(&s.raw.to_le_bytes());
    }
    b
}

/// A whole checkpoint: what a delta is made from.
struct Parent {
    header: Header,
    /// Its uncompressed sections, in its header's order.
    raw: Vec<Vec<u8>>,
    /// How many deltas were made on it.
    deltas: usize,
}

impl Parent {
    /// Its uncompressed section named `name`.
    fn section(&self, name: &str) -> Option<&[u8]> {
        Some(&self.raw[self.header.section(name)?])
    }
}

/// A parent link to the checkpoint with header `h`.
fn link(h: &Header) -> ([u8; 16], [u8; 32]) {
    (key(h.pos), *blake3::hash(&encode_header(h)).as_bytes())
}

/// The smallest zstd window log that holds `n` bytes (prefix and frame).
fn window_log(n: usize) -> u32 {
    (usize::BITS - n.max(1 << 10).saturating_sub(1).leading_zeros()).min(30)
}

fn zstd_error(code: usize) -> Error {
    let name = zstd::zstd_safe::get_error_name(code);
    Error::Storage(format!("checkpoint: zstd: {name}"))
}

/// A checkpoint for the checkpoint thread: `(pos, folded, named sections)`.
type Job = (Pos, u64, Vec<(String, Vec<u8>)>);
/// A checkpoint whose file is written: its header, for the fold's thread to store.
type Made = Header;

fn compressor_gone() -> Error {
    Error::Storage("checkpoint: the compressing thread stopped".into())
}

/// The check fold's checkpoint thread: compresses each checkpoint (a delta
/// from the latest whole one, see [`next_checkpoint`]), writes its file into
/// `dir` and sends its header back to be stored (sled handles stay on the
/// fold's thread). Why a thread: zstd takes about a second of a 1M-event
/// import, and on the thread that also reads the records for the fold
/// workers it would keep them waiting. Stops at its first failure, after
/// sending it.
fn compressor(
    jobs: Receiver<Job>,
    made: Sender<Result<Made>>,
    mut parent: Option<Parent>,
    new: Head,
    (dir, every): (&Path, u64),
) {
    for (pos, folded, sections) in jobs {
        let next = next_checkpoint(new, (pos, folded), sections, parent.take(), every).and_then(
            |(h, stored, next)| {
                write_file(dir, &h, &stored)?;
                parent = next;
                Ok(h)
            },
        );
        let failed = next.is_err();
        if made.send(next).is_err() || failed {
            return;
        }
    }
}

/// The name of the file of the checkpoint at `pos`, in [`DIR`].
fn file_name(pos: Pos) -> String {
    let hex: String = key(pos).iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}.{FILE_EXT}")
}

/// The key a checkpoint file's name gives ([`file_name`]), if it is one.
fn key_of_file(name: &str) -> Option<[u8; 16]> {
    let hex = name.strip_suffix(FILE_EXT)?.strip_suffix('.')?;
    let mut k = [0u8; 16];
    for (i, b) in k.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    (hex.len() == 32).then_some(k)
}

/// Write the file of the checkpoint `h`: its header's bytes, then its stored
/// sections in order (layout in the module doc). Synced here, on the
/// checkpoint thread, while the fold goes on: left to the append's final
/// `durable` (which fsyncs every file of the ledger), they would be written
/// out after the fold, in the import's wall time.
fn write_file(dir: &Path, h: &Header, stored: &[Vec<u8>]) -> Result<()> {
    let path = dir.join(file_name(h.pos));
    let io = |e| Error::io(path.display().to_string(), e);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io)?);
    f.write_all(&encode_header(h)).map_err(io)?;
    for s in stored {
        f.write_all(s).map_err(io)?;
    }
    let f = f.into_inner().map_err(|e| io(e.into_error()))?;
    f.sync_data().map_err(io)
}

/// Section `i` of the file of checkpoint `h`: `None` unless the file starts
/// with `h`'s very header and is exactly as long as its sections add up to
/// (a missing, cut or stale file is an absent checkpoint).
fn read_file_section(dir: &Path, h: &Header, i: usize) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(dir.join(file_name(h.pos))).ok()?;
    let want = encode_header(h);
    let total =
        (h.sections.iter()).try_fold(want.len() as u64, |sum, s| sum.checked_add(s.stored))?;
    if f.metadata().ok()?.len() != total {
        return None;
    }
    let mut head = vec![0u8; want.len()];
    f.read_exact(&mut head).ok()?;
    if head != want {
        return None;
    }
    let before: u64 = h.sections[..i].iter().map(|s| s.stored).sum();
    f.seek(SeekFrom::Start(want.len() as u64 + before)).ok()?;
    let mut out = vec![0u8; usize::try_from(h.sections.get(i)?.stored).ok()?];
    f.read_exact(&mut out).ok()?;
    Some(out)
}

/// The check fold's checkpoint of `sections` at `(pos, folded)`, bound to
/// the head `new`: a delta on `root`, or whole at every WHOLE_EVERY-th (and
/// when `root` has had WHOLE_EVERY - 1 deltas: the spacing grows with the
/// ledger) or without a `root`. Also gives what the next one is a delta on:
/// `root`, or this one if it is whole; nothing if the next is whole anyway (a
/// state's bytes are the largest buffers an append holds). Every delta's
/// parent is whole, so a query decompresses two frames of its section.
fn next_checkpoint(
    new: Head,
    (pos, folded): (Pos, u64),
    sections: Vec<(String, Vec<u8>)>,
    root: Option<Parent>,
    every: u64,
) -> Result<(Header, Vec<Vec<u8>>, Option<Parent>)> {
    let whole = |n: u64| n / every % WHOLE_EVERY == WHOLE_AT;
    let root = root.filter(|p| !whole(folded) && p.deltas + 1 < WHOLE_EVERY as usize);
    let mut stored = Vec::with_capacity(sections.len());
    for (name, raw) in &sections {
        let prefix = root.as_ref().and_then(|p| p.section(name));
        stored.push(compress(raw, prefix)?);
    }
    let h = Header {
        head: new,
        pos,
        folded,
        parent: root.as_ref().map(|p| link(&p.header)),
        sections: (sections.iter().zip(&stored))
            .map(|((name, raw), s)| Section {
                name: name.clone(),
                stored: s.len() as u64,
                raw: raw.len() as u64,
            })
            .collect(),
    };
    // A delta's own sections are dropped here: the next delta's prefix is
    // the root's.
    let next = match root {
        Some(p) => Parent {
            deltas: p.deltas + 1,
            ..p
        },
        None => Parent {
            header: h.clone(),
            raw: sections.into_iter().map(|(_, raw)| raw).collect(),
            deltas: 0,
        },
    };
    Ok((
        h,
        stored,
        (!whole(folded + every) && small(&next)).then_some(next),
    ))
}

/// One zstd frame of `raw`, with `prefix` (a parent's same section) as the
/// prefix it may copy from.
pub fn compress(raw: &[u8], prefix: Option<&[u8]>) -> Result<Vec<u8>> {
    let level = if prefix.is_some() {
        DELTA_LEVEL
    } else {
        WHOLE_LEVEL
    };
    frame(raw, level, prefix)
}

/// One zstd frame of `raw` at `level` (see [`compress`]).
fn frame(raw: &[u8], level: i32, prefix: Option<&[u8]>) -> Result<Vec<u8>> {
    use zstd::zstd_safe::{CCtx, CParameter};
    let mut cx = CCtx::create();
    cx.set_parameter(CParameter::CompressionLevel(level))
        .map_err(zstd_error)?;
    cx.set_parameter(CParameter::ChecksumFlag(true))
        .map_err(zstd_error)?;
    if let Some(p) = prefix {
        let log = window_log(p.len() + raw.len());
        cx.set_parameter(CParameter::WindowLog(log))
            .map_err(zstd_error)?;
        // Long-distance matching finds the parent's bytes however far back.
        cx.set_parameter(CParameter::EnableLongDistanceMatching(true))
            .map_err(zstd_error)?;
        cx.ref_prefix(p).map_err(zstd_error)?;
    }
    let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(raw.len()));
    cx.compress2(&mut out, raw).map_err(zstd_error)?;
    Ok(out)
}

/// The bytes of one frame of exactly `len` bytes, compressed with `prefix`;
/// `None` if it is not that (damaged, another prefix, another length).
pub fn decompress(stored: &[u8], prefix: Option<&[u8]>, len: u64) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    decompress_into(&mut out, stored, prefix, len).then_some(out)
}

/// [`decompress`] into `out` (cleared first; its memory is reused: a whole
/// frame and a delta on it decompress into two buffers, see [`unpack`]).
/// `false` if the frame is not exactly that.
fn decompress_into(out: &mut Vec<u8>, stored: &[u8], prefix: Option<&[u8]>, len: u64) -> bool {
    use zstd::zstd_safe::{DCtx, DParameter};
    // A section is at most a few times the ledger; refuse absurd lengths.
    let Some(len) = usize::try_from(len).ok().filter(|&n| n <= 1 << 34) else {
        return false;
    };
    out.clear();
    out.reserve(len);
    let mut dx = DCtx::create();
    if dx.set_parameter(DParameter::WindowLogMax(31)).is_err() {
        return false;
    }
    if let Some(p) = prefix {
        if dx.ref_prefix(p).is_err() {
            return false;
        }
    }
    matches!(dx.decompress(out, stored), Ok(n) if n == len && out.len() == len)
}

/// One section's stored frames: the whole parent's first for a delta
/// compressed on it, then its own; each with its uncompressed length.
type Frames = Vec<(Vec<u8>, u64)>;

/// A checkpoint's header and the frames of the sections a query reads, by name.
type Stored = (Header, Vec<(String, Frames)>);

/// A section's bytes from its frames: each decompressed with the one before
/// as prefix, into two buffers used in turn (first touches of fresh pages
/// are a good part of a query's CPU); `None` if a frame is not exactly that.
fn unpack(frames: Frames) -> Option<Vec<u8>> {
    let (mut raw, mut spare): (Option<Vec<u8>>, Vec<u8>) = (None, Vec::new());
    for (stored, len) in &frames {
        if !decompress_into(&mut spare, stored, raw.as_deref(), *len) {
            return None;
        }
        let next = std::mem::replace(&mut spare, raw.take().unwrap_or_default());
        raw = Some(next);
    }
    raw
}

/// Named sections from their frames ([`unpack`]); `None` if one is damaged.
fn unpack_all(frames: Vec<(String, Frames)>) -> Option<Vec<(String, Vec<u8>)>> {
    (frames.into_iter())
        .map(|(name, f)| Some((name, unpack(f)?)))
        .collect()
}

fn disabled() -> bool {
    std::env::var_os(DISABLE_ENV).is_some()
}

/// Can a checkpoint serve `q`? Only a plain fold: no known-at cut (a checkpoint
/// saw every record of its time), no pinned rules, no audit trail (it starts at
/// the first record), voided records left out.
fn resumable(q: &Query) -> bool {
    q.known_at.is_none() && q.rules.is_none() && !q.audit && !q.keep_voided && !disabled()
}

impl Ledger {
    /// Fold as `q` asks: from the latest usable checkpoint at or before
    /// `q.as_of` when one can serve it, else from nothing; same answer.
    pub fn fold(&self, q: &Query) -> Result<fold::Folded> {
        let upto = self.head()?.seq;
        let view = View::new(self, upto);
        let t0 = std::time::Instant::now();
        let trace = std::env::var_os(TRACE_ENV).is_some();
        let said = |start: Option<(Pos, u64)>| match (trace, start) {
            (false, _) => {}
            (true, Some((after, folded))) => eprintln!(
                "checkpoint: resumed after seq {} ({folded} records)",
                after.1
            ),
            (true, None) => eprintln!("checkpoint: none, folded from the start"),
        };
        let f = match resumable(q) {
            true => self.fold_resumed(&view, q, upto, &said),
            false => {
                said(None);
                fold::fold_from(&view, q, None, None)
            }
        };
        if trace {
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            eprintln!("checkpoint: fold {ms:.1} ms in all");
        }
        f
    }

    /// A resumable query's fold: from the latest usable checkpoint at or before
    /// `q.as_of`, whose state sections are decompressed and decoded on a
    /// second thread while this one reads the records after it (one pass,
    /// `fold::fold_later`); from nothing if there is none. A checkpoint that
    /// turns out damaged sends it the sequential way
    /// ([`Ledger::start_before`]: the next older), and the records read are
    /// read again.
    fn fold_resumed(
        &self,
        view: &View,
        q: &Query,
        upto: u64,
        said: &dyn Fn(Option<(Pos, u64)>),
    ) -> Result<fold::Folded> {
        let bound = (q.as_of.unwrap_or(Micros::MAX), u64::MAX);
        let Some((h, mut frames)) = self.stored_before(bound, upto, q.only)? else {
            // No checkpoint: start from the empty state before every position,
            // which plans from the chunk summaries (only the chunks whose `at`
            // range reaches back to --as-of are read) rather than every
            // record's header as a full plan does. Same records, same order.
            said(None);
            return fold::fold_from(view, q, Some(Start::nothing()), None);
        };
        // The first section, the rules in force, is read by every fold.
        let (_, first) = frames.remove(0);
        let Some(params) = unpack(first).and_then(|b| fold::decode_params(&b)) else {
            return self.fold_undecoded(view, q, (bound, upto), said);
        };
        // The records are read while another thread decodes the state: the
        // fold's workers wait for it (`fold::Later`).
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let later = fold::Later {
            params,
            after: h.pos,
            folded: h.folded,
            state: rx,
        };
        let (decoded, folded) = std::thread::scope(|scope| {
            let only = q.only;
            let decoding = scope.spawn(move || {
                let state = unpack_all(frames).and_then(|s| fold::decode_state(&s, only));
                match state {
                    Some(state) => {
                        // Unsent only if the fold has stopped already: its error stands.
                        let _ = tx.send(state);
                        true
                    }
                    None => false,
                }
            });
            let folded = fold::fold_later(view, q, later);
            (decoding.join().unwrap_or(false), folded)
        });
        if !decoded {
            return self.fold_undecoded(view, q, (bound, upto), said);
        }
        said(Some((h.pos, h.folded)));
        folded
    }

    /// The fold of `q` when the latest checkpoint's sections could not be
    /// decoded: from the latest one that can be, or from nothing.
    fn fold_undecoded(
        &self,
        view: &View,
        q: &Query,
        (bound, upto): (Pos, u64),
        said: &dyn Fn(Option<(Pos, u64)>),
    ) -> Result<fold::Folded> {
        let start = self.start_before(bound, upto, q.only)?.map(|(s, _)| s);
        said(start.as_ref().map(|s| (s.after, s.folded)));
        let start = start.unwrap_or_else(Start::nothing);
        fold::fold_from(view, q, Some(start), None)
    }

    /// The check fold of an append whose records are `old.seq + 1 ..= new.seq`:
    /// drops the checkpoints the new records invalidate, resumes from the
    /// latest one still valid, and stores new ones (bound to `new`) on the way.
    pub(super) fn check_fold(&self, old: u64, new: Head) -> Result<()> {
        if let Some(cut) = self.cut_after(old, new.seq)? {
            self.drop_checkpoints(|h| h.pos >= cut)?;
        }
        let view = View::new(self, new.seq);
        let (start, parent) = match disabled() {
            true => (None, None),
            false => match self.start_before((Micros::MAX, u64::MAX), new.seq, None)? {
                Some((start, parent)) => (Some(start), parent.filter(small)),
                None => (None, None),
            },
        };
        self.fold_storing(&view, start, parent, new)
    }

    /// The check fold from `start`, storing a checkpoint every `every(new.seq)`
    /// records: each is a delta on the latest whole one (`parent` first), made
    /// on the [`compressor`] thread and stored here.
    fn fold_storing(
        &self,
        view: &View,
        start: Option<Start>,
        parent: Option<Parent>,
        new: Head,
    ) -> Result<()> {
        let every = every(new.seq);
        let q = Query {
            check: true,
            ..Query::default()
        };
        let dir = self.checkpoint_dir()?;
        std::thread::scope(|scope| {
            let (job_tx, job_rx) = sync_channel::<Job>(0);
            let (made_tx, made_rx) = channel::<Result<Made>>();
            let dir = &dir;
            std::thread::Builder::new()
                .name("checkpoints".into())
                .spawn_scoped(scope, move || {
                    compressor(job_rx, made_tx, parent, new, (dir, every))
                })
                .map_err(|e| Error::io("the checkpoint thread", e))?;
            let store = |made: Result<Made>| self.put_header(&made?);
            let mut put = |pos: Pos, folded: u64, snapshot: fold::Snapshot| {
                if job_tx.send((pos, folded, fold::named(snapshot))).is_err() {
                    // It stopped at a failure, which it sent.
                    let sent = made_rx.iter().try_for_each(store);
                    return sent.and(Err(compressor_gone()));
                }
                made_rx.try_iter().try_for_each(store)
            };
            let sink = Sink {
                every,
                encode: fold::encode_section,
                put: &mut put,
            };
            let folded = fold::fold_from(view, &q, start, Some(sink));
            drop(job_tx);
            // Nothing reads the state: it is freed (on a thread of its own)
            // while the last checkpoint compresses.
            let folded = folded.map(fold::Folded::discard);
            let stored = made_rx.iter().try_for_each(store);
            folded.and(stored)
        })
    }

    /// The earliest fold position that the records `after + 1 ..= upto` can
    /// change: the smallest `(at, first seq)` of their chunks (a record after a
    /// checkpoint's head sorts before it exactly when its `at` is smaller), and
    /// `(at, seq)` of every record they void. `None` if there are none.
    pub(super) fn cut_after(&self, after: u64, upto: u64) -> Result<Option<Pos>> {
        let summaries = self.summaries_between(after + 1, upto)?;
        let voids = summaries.iter().flat_map(|s| s.voids.iter().copied());
        let voids: Vec<(u64, u64)> = voids.filter(|&(seq, _)| seq <= upto).collect();
        // An out-of-range target is refused by the check fold; until then,
        // trust nothing (nor a target that cannot be read): `Micros::MIN`.
        let readable = |&(seq, target): &(u64, u64)| target > 0 && target < seq;
        let targets = voids.iter().filter(|v| readable(v)).map(|v| v.1).collect();
        let ats = self.record_fields(&targets, |r| r.at);
        let at = |v: &(u64, u64)| ats.get(&v.1).filter(|_| readable(v)).copied();
        let chunks = summaries.iter().map(|s| (s.min_at, s.first_seq));
        let voided = voids.iter().map(|v| (at(v).unwrap_or(Micros::MIN), v.1));
        Ok(chunks.chain(voided).min())
    }

    /// The summaries of the chunks starting in `from..=upto`, in seq order.
    pub(super) fn summaries_between(&self, from: u64, upto: u64) -> Result<Vec<Summary>> {
        if from > upto {
            return Ok(Vec::new());
        }
        self.summaries()?
            .range(chunk::key(from)..=chunk::key(upto))
            .map(|item| {
                let (k, v) = item.map_err(storage)?;
                let first = k.as_ref().try_into().map(u64::from_be_bytes).unwrap_or(0);
                Summary::decode(first, &v)
            })
            .collect()
    }

    /// The headers of the usable checkpoints at or before `bound`, latest first
    /// ([`TRIES`] at most): each is checked only when the caller goes on to it,
    /// so a query that takes the first reads nothing more.
    fn usable_before(
        &self,
        bound: Pos,
        upto: u64,
    ) -> Result<impl Iterator<Item = Result<Header>> + '_> {
        let tried = self.checkpoints()?.range(..=key(bound)).rev().take(TRIES);
        Ok(tried.filter_map(move |item| {
            let (k, v) = match item.map_err(storage) {
                Ok(kv) => kv,
                Err(e) => return Some(Err(e)),
            };
            let h = header(&v).filter(|h| key(h.pos) == k.as_ref())?;
            self.usable(&h, upto).map(|ok| ok.then_some(h)).transpose()
        }))
    }

    /// The latest usable checkpoint at or before `bound` whose stored frames
    /// are all there: its header and, for each section a fold of `only` reads
    /// (the first and `only`'s; all for `None`), the frames along its chain,
    /// whole checkpoint first. Nothing is decompressed yet.
    fn stored_before(&self, bound: Pos, upto: u64, only: Option<&str>) -> Result<Option<Stored>> {
        'next: for h in self.usable_before(bound, upto)? {
            let h = h?;
            let mut frames = Vec::new();
            for i in (0..h.sections.len()).filter(|&i| h.wanted(i, only)) {
                match self.frames(&h, i)? {
                    Some(f) => frames.push((h.sections[i].name.clone(), f)),
                    None => continue 'next,
                }
            }
            return Ok(Some((h, frames)));
        }
        Ok(None)
    }

    /// The latest usable checkpoint at or before `bound` that decodes for
    /// `only`; for `None` (every section), also the parent of the next
    /// checkpoint a check fold makes.
    fn start_before(
        &self,
        bound: Pos,
        upto: u64,
        only: Option<&str>,
    ) -> Result<Option<(Start, Option<Parent>)>> {
        'next: for h in self.usable_before(bound, upto)? {
            let h = h?;
            let mut sections = Vec::new();
            for i in (0..h.sections.len()).filter(|&i| h.wanted(i, only)) {
                match self.raw_section(&h, i)? {
                    Some(b) => sections.push((h.sections[i].name.clone(), b)),
                    None => continue 'next,
                }
            }
            let Some(start) = Start::from_sections(&sections, only, h.pos, h.folded) else {
                continue;
            };
            let parent = match only {
                Some(_) => None,
                None => {
                    let raw = sections.into_iter().map(|(_, b)| b).collect();
                    self.root_after(h, raw)?
                }
            };
            return Ok(Some((start, parent)));
        }
        Ok(None)
    }

    /// What the next checkpoint of an append that resumes from `h` (whose
    /// uncompressed sections are `raw`) is a delta on: `h` if it is whole,
    /// else the whole checkpoint it is a delta on, with the deltas already
    /// made on that one. `None` (the next is whole) when a link is missing.
    fn root_after(&self, h: Header, raw: Vec<Vec<u8>>) -> Result<Option<Parent>> {
        let Some(chain) = self.chain(&h)? else {
            return Ok(None);
        };
        let Some(root) = chain.get(1) else {
            return Ok(Some(Parent {
                header: h,
                raw,
                deltas: 0,
            }));
        };
        drop(raw);
        let mut sections = Vec::with_capacity(root.sections.len());
        for i in 0..root.sections.len() {
            match self.raw_section(root, i)? {
                Some(b) => sections.push(b),
                None => return Ok(None),
            }
        }
        let link = Some(link(root));
        let mut deltas = 0;
        for item in self.checkpoints()?.iter() {
            let (_, v) = item.map_err(storage)?;
            deltas += usize::from(header(&v).is_some_and(|c| c.parent == link));
        }
        Ok(Some(Parent {
            header: root.clone(),
            raw: sections,
            deltas,
        }))
    }

    /// Is a checkpoint with header `h` valid for the records up to `upto`?
    fn usable(&self, h: &Header, upto: u64) -> Result<bool> {
        if h.head.seq > upto || h.pos.1 > h.head.seq {
            return Ok(false);
        }
        if self.hash_at(h.head.seq).ok() != Some(h.head.hash) {
            return Ok(false);
        }
        Ok(self
            .cut_after(h.head.seq, upto)?
            .is_none_or(|cut| h.pos < cut))
    }

    /// Store the header that makes a checkpoint visible (its file is written).
    fn put_header(&self, h: &Header) -> Result<()> {
        self.checkpoints()?
            .insert(key(h.pos), encode_header(h))
            .map_err(storage)?;
        Ok(())
    }

    /// The directory of checkpoint files ([`DIR`]); it may not exist.
    fn files_dir(&self) -> PathBuf {
        self.path.join(DIR)
    }

    /// [`Ledger::files_dir`], created if missing (the append that writes files).
    fn checkpoint_dir(&self) -> Result<PathBuf> {
        let dir = self.files_dir();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
        Ok(dir)
    }

    /// Section `i` of a checkpoint, uncompressed: through its parent for a
    /// delta. `None` if anything along the way is missing or does not match.
    fn raw_section(&self, h: &Header, i: usize) -> Result<Option<Vec<u8>>> {
        Ok(self.frames(h, i)?.and_then(unpack))
    }

    /// The stored frames of section `i` of `h`: for a delta, its parent's
    /// section of the same name first (if it has one); `None` if the parent
    /// or a file is missing or does not match.
    fn frames(&self, h: &Header, i: usize) -> Result<Option<Frames>> {
        let Some(chain) = self.chain(h)? else {
            return Ok(None);
        };
        let dir = self.files_dir();
        let mut out = Vec::with_capacity(2);
        if let Some(p) = chain.get(1) {
            if let Some(j) = p.section(&h.sections[i].name) {
                match read_file_section(&dir, p, j) {
                    Some(stored) => out.push((stored, p.sections[j].raw)),
                    None => return Ok(None),
                }
            }
        }
        match read_file_section(&dir, h, i) {
            Some(stored) => out.push((stored, h.sections[i].raw)),
            None => return Ok(None),
        }
        Ok(Some(out))
    }

    /// `h` and, for a delta, its parent, newest first; `None` if the parent
    /// is missing, does not match its link or is not whole.
    fn chain(&self, h: &Header) -> Result<Option<Vec<Header>>> {
        let Some((pk, digest)) = h.parent else {
            return Ok(Some(vec![h.clone()]));
        };
        let Some(v) = self.checkpoints()?.get(pk).map_err(storage)? else {
            return Ok(None);
        };
        let linked = blake3::hash(&v).as_bytes() == &digest;
        let parent = header(&v)
            .filter(|p| linked && key(p.pos) == pk && p.pos < h.pos && p.parent.is_none());
        Ok(parent.map(|p| vec![h.clone(), p]))
    }

    /// Delete the checkpoints whose header `doomed` picks (and damaged ones):
    /// the header first, then its file; then every file no header names (left
    /// by an append killed between writing a file and its header).
    pub(super) fn drop_checkpoints(&self, doomed: impl Fn(&Header) -> bool) -> Result<()> {
        let mut gone = Vec::new();
        for item in self.checkpoints()?.iter() {
            let (k, v) = item.map_err(storage)?;
            match header(&v) {
                Some(h) if !doomed(&h) => {}
                _ => gone.push(k),
            }
        }
        let checkpoints = self.checkpoints()?;
        for k in gone {
            checkpoints.remove(&k).map_err(storage)?;
        }
        self.remove_unnamed_files()
    }

    /// Remove the checkpoint files whose key has no header (any other file in
    /// [`DIR`] is left alone).
    fn remove_unnamed_files(&self) -> Result<()> {
        let dir = self.files_dir();
        let io = |e| Error::io(dir.display().to_string(), e);
        let entries = match std::fs::read_dir(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            other => other.map_err(io)?,
        };
        let checkpoints = self.checkpoints()?;
        for entry in entries {
            let entry = entry.map_err(io)?;
            let name = entry.file_name();
            let Some(k) = name.to_str().and_then(key_of_file) else {
                continue;
            };
            if !checkpoints.contains_key(k).map_err(storage)? {
                std::fs::remove_file(entry.path()).map_err(io)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_is_a_twentieth_in_steps_of_5000_and_at_least_10000() {
        let cases = [
            (0, 10_000),
            (100_000, 10_000),
            (200_000, 10_000),
            (200_040, 15_000),
            (400_040, 25_000),
            (1_000_000, 50_000),
            (1_000_040, 55_000),
            (8_000_000, 400_000),
        ];
        for (records, spacing) in cases {
            assert_eq!(auto_every(records), spacing, "{records} records");
        }
    }

    #[test]
    fn keys_sort_as_positions_and_round_trip() {
        let positions: Vec<Pos> = vec![
            (Micros::MIN, 0),
            (-1_000_000, 7),
            (-1, u64::MAX),
            (0, 0),
            (0, 1),
            (1, 0),
            (1_000_000_000_000, 3),
            (Micros::MAX, u64::MAX),
        ];
        for w in positions.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{:?} < {:?}", w[0], w[1]);
        }
        for p in &positions {
            assert_eq!(pos_of(&key(*p)), Some(*p));
        }
        assert_eq!(pos_of(&[0u8; 15]), None);
    }

    /// A whole checkpoint's header with sections of these stored lengths.
    fn sample_header(lens: &[u64]) -> Header {
        Header {
            head: Head {
                seq: 9,
                hash: [7; 32],
            },
            pos: (-5, 4),
            folded: 3,
            parent: None,
            sections: (lens.iter().enumerate())
                .map(|(i, &stored)| Section {
                    name: ["params", "mepbm", "cfr", "a", "é", ""][i % 6].to_string(),
                    stored,
                    raw: 7 + i as u64,
                })
                .collect(),
        }
    }

    #[test]
    fn headers_round_trip_and_damage_reads_as_absent() {
        let h = sample_header(&[1, 2, 3, 4, 5, 6]);
        let b = encode_header(&h);
        assert_eq!(header(&b), Some(h.clone()));
        let delta = Header {
            parent: Some(link(&h)),
            ..h.clone()
        };
        assert_eq!(header(&encode_header(&delta)), Some(delta.clone()));
        for kind in [2, 3] {
            let mut bad_kind = encode_header(&delta);
            bad_kind[68] = kind;
            assert!(header(&bad_kind).is_none());
        }
        let mut magic = b.clone();
        magic[..4].copy_from_slice(b"LCP4");
        assert!(header(&magic).is_none());
        for n in 0..b.len() {
            assert!(header(&b[..n]).is_none(), "cut at {n}");
        }
        let mut longer = b.clone();
        longer.push(0);
        assert!(header(&longer).is_none());
        let none = sample_header(&[]);
        assert!(header(&encode_header(&none)).is_none(), "no sections");
    }

    /// A file holds its header's bytes first, so a file left from another
    /// checkpoint at the same position (same section lengths, other head)
    /// reads as absent, as does a cut or missing one.
    #[test]
    fn a_checkpoint_file_is_read_only_under_its_own_header() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let h = sample_header(&[3, 0, 5, 0, 0, 1]);
        let stored = [b"abc", &b""[..], b"defgh", b"", b"", b"i"].map(<[u8]>::to_vec);
        write_file(d, &h, &stored).unwrap();
        for (i, want) in stored.iter().enumerate() {
            assert_eq!(read_file_section(d, &h, i).as_ref(), Some(want), "{i}");
        }
        let other = Header {
            head: Head {
                hash: [8; 32],
                ..h.head
            },
            ..h.clone()
        };
        assert_eq!(read_file_section(d, &other, 2), None, "another head");
        let path = d.join(file_name(h.pos));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(read_file_section(d, &h, 2), None, "cut short");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read_file_section(d, &h, 2), None, "missing");
    }

    /// Named sections of 40,000 bytes, `tweak` changing a few of each.
    fn sections(names: &[&str], tweak: u8) -> Vec<(String, Vec<u8>)> {
        (names.iter())
            .map(|n| {
                let seed = u32::from(n.as_bytes()[0]);
                let mut b: Vec<u8> = (0..10_000u32)
                    .flat_map(|k| (k * 7919 + seed).to_le_bytes())
                    .collect();
                b[100..110].fill(tweak);
                (n.to_string(), b)
            })
            .collect()
    }

    /// A delta compresses each section on its whole parent's section of the
    /// same name, small, and unpacks to its bytes; a section its parent lacks
    /// is compressed on its own.
    #[test]
    fn a_delta_compresses_each_section_on_its_parents_namesake() {
        let every = 100;
        let first = sections(&["params", "a", "b"], 1);
        let made = next_checkpoint(Head::default(), ((1, 1), every), first.clone(), None, every);
        let (h1, s1, parent) = made.unwrap();
        assert!(h1.parent.is_none());
        let second = sections(&["params", "b", "new"], 2);
        let made = next_checkpoint(
            Head::default(),
            ((2, 2), 2 * every),
            second.clone(),
            parent,
            every,
        );
        let (h2, s2, _) = made.unwrap();
        assert_eq!(h2.parent, Some(link(&h1)));
        for (i, (name, want)) in second.iter().enumerate() {
            assert_eq!(h2.sections[i].name, *name);
            let mut frames = Vec::new();
            if let Some(j) = h1.section(name) {
                frames.push((s1[j].clone(), h1.sections[j].raw));
                assert!(s2[i].len() * 20 < s1[j].len(), "{name}: a delta");
            }
            frames.push((s2[i].clone(), h2.sections[i].raw));
            assert_eq!(unpack(frames).as_ref(), Some(want), "{name}");
        }
    }

    /// Whole checkpoints are the 1st, 6th, 11th, ... of a fold, so the last
    /// of a 20-checkpoint import is a delta, and no chain is longer than five.
    #[test]
    fn whole_checkpoints_are_the_first_and_every_fifth_after_it() {
        let every = 100;
        let mut parent = None;
        let mut whole = Vec::new();
        for k in 1..=20u64 {
            let raw = (0..6).map(|i| (i.to_string(), vec![i as u8; 50])).collect();
            let pos = (k as Micros, k);
            let made = next_checkpoint(Head::default(), (pos, k * every), raw, parent, every);
            let (h, _, next) = made.unwrap();
            match h.parent {
                None => whole.push(k),
                // Each delta is made on the latest whole one, not on the delta
                // before it.
                Some((p, _)) => {
                    let w = whole[whole.len() - 1];
                    assert_eq!(p, key((w as Micros, w)), "checkpoint {k}");
                }
            }
            parent = next;
        }
        assert_eq!(whole, [1, 6, 11, 16]);
    }

    #[test]
    fn checkpoint_file_names_give_their_key_and_nothing_else_does() {
        for pos in [(-5, 4), (0, 0), (Micros::MAX, u64::MAX), (Micros::MIN, 1)] {
            assert_eq!(key_of_file(&file_name(pos)), Some(key(pos)), "{pos:?}");
        }
        let name = file_name((1, 2));
        for other in [
            "notes.txt".to_string(),
            name.replace(".lcp", ".tmp"),
            name.replacen('0', "g", 1),
            name[1..].to_string(),
            format!("0{name}"),
        ] {
            assert_eq!(key_of_file(&other), None, "{other}");
        }
    }

    #[test]
    fn deltas_need_their_exact_parent_and_damage_reads_as_absent() {
        let parent: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i * 7919).to_le_bytes())
            .collect();
        let mut child = parent.clone();
        child[1000..1010].fill(9);
        child.extend_from_slice(b"appended");
        let len = child.len() as u64;
        let whole = compress(&child, None).unwrap();
        assert_eq!(decompress(&whole, None, len), Some(child.clone()));
        let delta = compress(&child, Some(&parent)).unwrap();
        assert!(
            delta.len() * 50 < whole.len(),
            "{} vs {}",
            delta.len(),
            whole.len()
        );
        assert_eq!(decompress(&delta, Some(&parent), len), Some(child.clone()));
        assert_eq!(decompress(&delta, None, len), None);
        let mut other = parent.clone();
        other[5000] ^= 1;
        assert_eq!(decompress(&delta, Some(&other), len), None);
        assert_eq!(decompress(&delta, Some(&parent), len - 1), None);
        for at in [0, delta.len() / 2, delta.len() - 1] {
            let mut d = delta.clone();
            d[at] ^= 0x40;
            assert_eq!(decompress(&d, Some(&parent), len), None, "byte {at}");
        }
        assert_eq!(
            decompress(&delta[..delta.len() - 4], Some(&parent), len),
            None
        );
    }
}
