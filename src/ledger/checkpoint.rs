//! Projection checkpoints: the folded state at positions of the `(at, seq)` order,
//! so a point-in-time query, or the check fold of an append, does not replay
//! the whole log.
//!
//! **Made** by the check fold of every append: every `N / 20` records of fold
//! order (see [`PER_LEDGER`], [`MIN_EVERY`]) it stores its state (all five
//! projections and the rules in force). An append folds from the latest
//! checkpoint that is still valid, so appending a few events to a large ledger
//! costs the tail of the fold, not all of it. The fold's workers encode their
//! sections, a thread of its own compresses them and writes their file
//! ([`compressor`]), and the fold's thread stores the header (it holds the
//! sled handles).
//!
//! **Compressed** with zstd. Every [`WHOLE_EVERY`]th checkpoint (and the first
//! one a fold makes when it has no previous state at hand) is *whole*: each
//! section a zstd frame of its own. The others are *deltas*: each section a
//! zstd frame compressed with the same section of the latest whole checkpoint
//! (its *parent*, uncompressed) as prefix, so it costs what changed since, not
//! the whole state (at 1M generated events, checkpoints every 50,000 records:
//! the first delta after a whole one about 3 MB, the fourth about 9 MB, against
//! 37 MB for the state).
//! Reading one section of a delta decompresses two frames: the whole one's,
//! then its own. Every frame carries zstd's content checksum.
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
//!   68  48  6 x u64     stored (compressed) byte length of each section
//!   116 48  6 x u64     uncompressed byte length of each section
//!   164 1   kind        0 whole, 1 delta, 3 delta with patches (below)
//!   165 16  parent      a delta's parent's key (zeros for a whole one)
//!   181 32  digest      BLAKE3 of the parent's header value (zeros if whole)
//! file "checkpoints/<32 hex digits of the key>.lcp" in the ledger directory:
//!   the header value (213 bytes, as above), then each section's stored
//!   bytes, in order, back to back (section i starts at 213 + the stored
//!   lengths before it; the file is exactly as long as they add up to).
//!   A section's stored bytes: one zstd frame (with content checksum) of the
//!   section's bytes; for a delta, compressed with the parent's uncompressed
//!   section as prefix; but in a delta of kind 3 every state section (1 to
//!   5) is one zstd frame, without prefix, of a patch that makes the section
//!   from the parent's (`ledger/patch.rs`)
//!   sections, in order: params in force, then the mepbm, cfr, cards,
//!   diplomacy and sbr states (a query of one namespace reads only its own);
//!   each is bincode (varint) of the value, except mepbm's, which has its own
//!   layout (`MepbmState::checkpoint_bytes` in `systems/mepbm/store.rs`: the
//!   state every `valar` query loads, decoded without serde)
//! ```
//!
//! **Patches** (kind 3): a delta whose whole parent this process made stores
//! its state sections as patches: the unchanged cards and sbr tournaments are
//! copied from their place in the parent (the encoder knows them:
//! [`crate::systems::compact::Kept`] bytes carry a stamp), and the other
//! states' encoders mark their growing parts as *columns* ([`Span::COLUMN`]),
//! which the patch compares with the parent's and copies where equal (a grown
//! vector: all of the parent's elements), so zstd compresses only what
//! changed. A delta on a parent read back from its file (an append that
//! resumes) has no spans to go by and is kind 1.
//!
//! A delta is read only if its parent's header still hashes to `digest` (so
//! the prefix is the exact bytes it was compressed with) and sorts before it;
//! a missing or changed parent, a bad frame or checksum, or a length that does
//! not add up makes the checkpoint absent, and so does a file that is missing,
//! cut short or does not start with the very header (a file left from another
//! checkpoint at the same position). A header with another magic reads as
//! absent, and is deleted by the next append that drops checkpoints.
//!
//! Headers live apart from the (large) sections so that choosing and dropping
//! checkpoints reads 213 bytes each. Sections live in plain files, not in sled:
//! sled writes values that large as blob files of their own and rewrites them
//! whole as its leaves change, which cost both disk and the import's time. A file is
//! written (and synced) before its header is stored and deleted after it; a
//! file no header names is deleted by the next append that drops checkpoints.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use bincode::Options;
use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, Result};
use crate::fold::{self, Encoded, Pos, Query, Sink, Start};
use crate::params::Params;
use crate::systems::compact::Span;
use crate::systems::mepbm::State as MepbmState;
use crate::systems::State;
use crate::time::Micros;

use super::summary::Summary;
use super::{chunk, patch, storage, Head, Ledger, View};

/// Checkpoints per ledger: one every `N / PER_LEDGER` records of fold order
/// (rounded up to a multiple of [`STEP`], at least [`MIN_EVERY`]), so a query
/// folds at most that many records after its checkpoint. That fold is the
/// largest part of a query (about 2 µs a record of fold order, on one core).
/// Why not more: the import pays for every checkpoint (each encodes the whole
/// state and writes what changed since its whole parent), and at `N / 20` a
/// query stays well under its 100 ms target. A projection state grows with the log, so
/// a whole checkpoint at `n` costs about `n` times the state's bytes per event:
/// with a fixed spacing they would grow as `N²`; whole ones every `N / 4` cost
/// about 1.6 final states whatever `N` (see [`WHOLE_AT`]), and the deltas between them what
/// changed.
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
/// zstd levels: whole checkpoints are written a few times per ledger, deltas
/// often, and both are read back as fast whatever the level, so both use
/// fast levels: the `checkpoints` thread's CPU matters more than their bytes.
const WHOLE_LEVEL: i32 = 1;
/// Deltas matched against their parent by zstd itself (kind 1).
const DELTA_LEVEL: i32 = 1;
/// The frames of patches (kinds 2 and 3): zstd's fastest mode, which stores
/// nearly every byte as it is (a patch is what the parent lacks, so little in
/// it repeats), for the frame's checksum and one reading path.
const PATCH_LEVEL: i32 = -1000;
/// The least spacing: below it, folding is cheaper than reading a snapshot.
pub const MIN_EVERY: u64 = 10_000;
/// The spacing is a multiple of this, so it changes in steps as a ledger grows.
const STEP: u64 = 5_000;

const MAGIC: &[u8; 4] = b"LCP5";
const HEADER: usize = 213;
const SECTIONS: usize = 6;
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
/// 7.8M records held about 350 MiB more at the append's peak (`tests/streaming.rs`).
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

/// A checkpoint's fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub head: Head,
    pub pos: Pos,
    pub folded: u64,
    /// The stored (compressed) byte length of each section.
    pub lens: [u64; SECTIONS],
    /// The uncompressed byte length of each section.
    pub raw: [u64; SECTIONS],
    /// A delta's parent: its key and the BLAKE3 of its header value.
    pub parent: Option<([u8; 16], [u8; 32])>,
    /// Which sections of a delta are patches.
    pub patched: Patched,
}

/// Which sections of a delta are patches on its parent's (`ledger/patch.rs`)
/// rather than zstd frames with the parent's section as prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patched {
    /// None (kinds 0 and 1).
    No,
    /// Every state section, 1 to 5 (kind 3).
    States,
}

impl Patched {
    /// Is section `i` a patch?
    pub fn covers(self, i: usize) -> bool {
        match self {
            Patched::No => false,
            Patched::States => (1..SECTIONS).contains(&i),
        }
    }
}

fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

fn header(b: &[u8]) -> Option<Header> {
    if b.len() != HEADER || b.get(..4)? != MAGIC {
        return None;
    }
    let parent = match b[164] {
        0 => None,
        1 | 3 => Some((b[165..181].try_into().ok()?, b[181..213].try_into().ok()?)),
        _ => return None,
    };
    let patched = match b[164] {
        3 => Patched::States,
        _ => Patched::No,
    };
    Some(Header {
        head: Head {
            seq: u64_at(b, 4)?,
            hash: b.get(12..44)?.try_into().ok()?,
        },
        pos: (u64_at(b, 44)? as Micros, u64_at(b, 52)?),
        folded: u64_at(b, 60)?,
        lens: std::array::from_fn(|i| u64_at(b, 68 + 8 * i).unwrap_or(u64::MAX)),
        raw: std::array::from_fn(|i| u64_at(b, 116 + 8 * i).unwrap_or(u64::MAX)),
        parent,
        patched,
    })
}

fn section_bytes<T: Serialize>(v: &T) -> Result<Vec<u8>> {
    bincode::DefaultOptions::new()
        .serialize(v)
        .map_err(storage_error)
}

fn storage_error(e: bincode::Error) -> Error {
    Error::Storage(format!("checkpoint: {e}"))
}

/// A whole checkpoint: what a delta is made from.
struct Parent {
    header: Header,
    /// Its uncompressed sections.
    raw: [Vec<u8>; SECTIONS],
    /// How many deltas were made on it.
    deltas: usize,
    /// Where each section's kept values and columns lie, sorted by stamp:
    /// known when this process encoded it (its deltas are then patched),
    /// `None` when it was read back from its file.
    kept: Option<[Vec<Span>; SECTIONS]>,
}

/// A header's bytes.
pub fn encode_header(h: &Header) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&h.head.seq.to_le_bytes());
    b.extend_from_slice(&h.head.hash);
    b.extend_from_slice(&(h.pos.0 as u64).to_le_bytes());
    b.extend_from_slice(&h.pos.1.to_le_bytes());
    b.extend_from_slice(&h.folded.to_le_bytes());
    for len in h.lens.iter().chain(&h.raw) {
        b.extend_from_slice(&len.to_le_bytes());
    }
    let (key, digest) = h.parent.unwrap_or(([0; 16], [0; 32]));
    b.push(match (h.parent.is_some(), h.patched) {
        (false, _) => 0,
        (true, Patched::No) => 1,
        (true, Patched::States) => 3,
    });
    b.extend_from_slice(&key);
    b.extend_from_slice(&digest);
    b
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

/// A checkpoint for the checkpoint thread: `(pos, folded, raw sections)`.
type Job = (Pos, u64, [Encoded; SECTIONS]);
/// A checkpoint whose file is written: its header, for the fold's thread to store.
type Made = Header;

fn compressor_gone() -> Error {
    Error::Storage("checkpoint: the compressing thread stopped".into())
}

/// The check fold's checkpoint thread: compresses each checkpoint (a delta
/// from the previous one, see [`next_checkpoint`]), writes its file into `dir`
/// and sends its header back to be stored (sled handles stay on the fold's
/// thread). Why a thread: zstd took about 1.1 s of the 1M-event import on the
/// thread that also reads the records for the fold workers, which waited
/// meanwhile. Stops at its first failure, after sending it.
fn compressor(
    jobs: Receiver<Job>,
    made: Sender<Result<Made>>,
    mut parent: Option<Parent>,
    new: Head,
    (dir, every): (&Path, u64),
) {
    for (pos, folded, raw) in jobs {
        let next = next_checkpoint(new, (pos, folded), raw, parent.take(), every).and_then(
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
/// `durable` (which fsyncs every file of the ledger), the 78 MB of a 1M-event
/// import's checkpoints were written after the fold, in its wall time.
fn write_file(dir: &Path, h: &Header, stored: &[Vec<u8>; SECTIONS]) -> Result<()> {
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
    let total = h
        .lens
        .iter()
        .try_fold(HEADER as u64, |sum, &l| sum.checked_add(l))?;
    if f.metadata().ok()?.len() != total {
        return None;
    }
    let mut head = [0u8; HEADER];
    f.read_exact(&mut head).ok()?;
    if head[..] != encode_header(h)[..] {
        return None;
    }
    let offset = HEADER as u64 + h.lens[..i].iter().sum::<u64>();
    f.seek(SeekFrom::Start(offset)).ok()?;
    let mut out = vec![0u8; h.lens[i] as usize];
    f.read_exact(&mut out).ok()?;
    Some(out)
}

/// The check fold's checkpoint of `raw` (uncompressed sections) at
/// `(pos, folded)`, bound to the head `new`: a delta from `root`, a whole
/// checkpoint, or whole itself at every WHOLE_EVERY-th (and when `root` has
/// had WHOLE_EVERY - 1 deltas: the spacing grows with the ledger). Also
/// gives what the next one is a delta from: `root`, or this one if it is
/// whole; nothing if the next is whole anyway (a state's bytes are the
/// largest buffers an append holds).
///
/// Every delta's parent is whole: a query decompresses two frames of its
/// section, never a chain.
fn next_checkpoint(
    new: Head,
    (pos, folded): (Pos, u64),
    raw: [Encoded; SECTIONS],
    root: Option<Parent>,
    every: u64,
) -> Result<(Header, [Vec<u8>; SECTIONS], Option<Parent>)> {
    let whole = |n: u64| n / every % WHOLE_EVERY == WHOLE_AT;
    let root = root.filter(|p| !whole(folded) && p.deltas + 1 < WHOLE_EVERY as usize);
    // Patched when the parent's spans are known (this process made it).
    let spans = root.as_ref().and_then(|p| Some((p, p.kept.as_ref()?)));
    let patched = match spans {
        Some(_) => Patched::States,
        None => Patched::No,
    };
    let mut stored: [Vec<u8>; SECTIONS] = Default::default();
    for (i, out) in stored.iter_mut().enumerate() {
        *out = match spans.filter(|_| patched.covers(i)) {
            Some((p, kept)) => {
                let patch = patch::make(&raw[i].bytes, &raw[i].spans, &p.raw[i], &kept[i]);
                frame(&patch, PATCH_LEVEL, None)?
            }
            None => compress(&raw[i].bytes, root.as_ref().map(|p| p.raw[i].as_slice()))?,
        };
    }
    let h = Header {
        head: new,
        pos,
        folded,
        lens: std::array::from_fn(|i| stored[i].len() as u64),
        raw: std::array::from_fn(|i| raw[i].bytes.len() as u64),
        parent: root.as_ref().map(|p| link(&p.header)),
        patched,
    };
    // A delta's own sections are dropped here: the next delta's prefix is
    // the root's.
    let next = match root {
        Some(p) => Parent {
            deltas: p.deltas + 1,
            ..p
        },
        None => whole_parent(h, raw),
    };
    Ok((
        h,
        stored,
        (!whole(folded + every) && small(&next)).then_some(next),
    ))
}

/// A whole checkpoint made by this process, as the parent of the next deltas.
fn whole_parent(header: Header, sections: [Encoded; SECTIONS]) -> Parent {
    let mut kept: [Vec<Span>; SECTIONS] = Default::default();
    let mut raw: [Vec<u8>; SECTIONS] = Default::default();
    for (i, Encoded { bytes, mut spans }) in sections.into_iter().enumerate() {
        spans.sort_unstable_by_key(|s| s.stamp);
        (raw[i], kept[i]) = (bytes, spans);
    }
    Parent {
        header,
        raw,
        deltas: 0,
        kept: Some(kept),
    }
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

/// [`decompress`] into `out` (cleared first; its memory is reused, so a chain
/// of deltas decompresses into two buffers instead of one fresh one a link:
/// first touches of fresh pages were a good part of a query's CPU). `false`
/// if the frame is not exactly that.
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

/// The sections' bytes, in order.
pub fn encode(state: &State, params: &Params) -> Result<[Vec<u8>; SECTIONS]> {
    let mut out: [Vec<u8>; SECTIONS] = Default::default();
    for (i, b) in out.iter_mut().enumerate() {
        *b = encode_section(state, params, i)?.bytes;
    }
    Ok(out)
}

/// Section `i`'s bytes: 0 the rules in force, `1 + ns` the projection of
/// `NAMESPACES[ns]` (a parallel check fold encodes each on the worker that
/// folds that namespace, see `fold::Sink`).
pub fn encode_section(state: &State, params: &Params, i: usize) -> Result<Encoded> {
    match i {
        0 => section_bytes(params).map(Encoded::from),
        1 => Ok(state.mepbm.checkpoint_bytes()),
        2 => state.cfr.checkpoint_bytes().map_err(storage_error),
        3 => state.cards.checkpoint_bytes().map_err(storage_error),
        4 => state.diplomacy.checkpoint_bytes().map_err(storage_error),
        5 => state.sbr.checkpoint_bytes().map_err(storage_error),
        _ => Err(Error::Storage(format!("checkpoint: no section {i}"))),
    }
}

/// The namespace of each state section (section 0 is the params).
const NAMESPACES: [&str; SECTIONS - 1] = ["mepbm", "cfr", "cards", "diplomacy", "sbr"];

fn section<T: DeserializeOwned>(b: &[u8]) -> Option<T> {
    bincode::DefaultOptions::new()
        .with_limit(b.len() as u64 * 64 + 4096)
        .deserialize(b)
        .ok()
}

/// Read sections back (`read(i)` gives section i's bytes): the rules in force
/// and the states of `only`'s namespace (every namespace for `None`; the others
/// stay empty, as a fold of `only` leaves them). `None` if any is damaged.
pub fn decode(
    read: &mut dyn FnMut(usize) -> Result<Option<Vec<u8>>>,
    only: Option<&str>,
) -> Result<Option<(State, Params)>> {
    let Some(state) = decode_state(read, only)? else {
        return Ok(None);
    };
    Ok(read(0)?.and_then(|b| params_of(&b)).map(|p| (state, p)))
}

/// The rules in force from section 0's bytes; `None` if damaged.
fn params_of(b: &[u8]) -> Option<Params> {
    let mut p: Params = section(b)?;
    p.restamp();
    Some(p)
}

/// The state sections of [`decode`], without the rules.
fn decode_state(
    read: &mut dyn FnMut(usize) -> Result<Option<Vec<u8>>>,
    only: Option<&str>,
) -> Result<Option<State>> {
    let mut state = State::default();
    for (i, ns) in NAMESPACES.iter().enumerate() {
        if only.is_some_and(|o| o != *ns) {
            continue;
        }
        let Some(b) = read(i + 1)? else {
            return Ok(None);
        };
        let ok = match *ns {
            "mepbm" => MepbmState::from_checkpoint(&b).map(|s| state.mepbm = s),
            "cfr" => section(&b).map(|s| state.cfr = s),
            "cards" => section(&b).map(|s| state.cards = s),
            "diplomacy" => section(&b).map(|s| state.diplomacy = s),
            _ => section(&b).map(|s| state.sbr = s),
        };
        if ok.is_none() {
            return Ok(None);
        }
    }
    Ok(Some(state))
}

/// One section's stored frames along a chain, whole checkpoint first, each
/// with its uncompressed length and whether it is a patch ([`Patched`]).
type Frames = Vec<(Vec<u8>, u64, bool)>;

/// A checkpoint's header and the frames of the sections a query reads.
type Stored = (Header, [Option<Frames>; SECTIONS]);

/// Does a query of `only` read section `i` (a state section; 0 is the params)?
fn wanted_section(i: usize, only: Option<&str>) -> bool {
    i > 0 && only.is_none_or(|o| o == NAMESPACES[i - 1])
}

/// A section's bytes from its frames: each decompressed with the one before as
/// prefix, into two buffers used in turn (first touches of fresh pages were a
/// good part of a query's CPU), or a patch applied to the one before; `None`
/// if a frame is not exactly that.
fn unpack(frames: Frames) -> Option<Vec<u8>> {
    let (mut raw, mut spare): (Option<Vec<u8>>, Vec<u8>) = (None, Vec::new());
    for (stored, len, patched) in &frames {
        if *patched {
            let made = unpatch(stored, raw.as_deref()?, *len)?;
            spare = raw.replace(made).unwrap_or_default();
            continue;
        }
        if !decompress_into(&mut spare, stored, raw.as_deref(), *len) {
            return None;
        }
        let next = std::mem::replace(&mut spare, raw.take().unwrap_or_default());
        raw = Some(next);
    }
    raw
}

/// The section of `len` bytes that the patch in frame `stored` makes from
/// `parent`; `None` if the frame or the patch is damaged.
fn unpatch(stored: &[u8], parent: &[u8], len: u64) -> Option<Vec<u8>> {
    // Every op makes at least one byte and takes at most 21 bytes besides
    // what it inserts (`patch::make`), so a larger size is damage, not a
    // buffer to allocate.
    let size = zstd::zstd_safe::get_frame_content_size(stored).ok()??;
    let size = Some(size).filter(|&n| n <= len.saturating_mul(22))?;
    let mut patch = Vec::new();
    if !decompress_into(&mut patch, stored, None, size) {
        return None;
    }
    patch::apply(parent, &patch, usize::try_from(len).ok()?)
}

/// `only`'s state from a checkpoint's frames ([`decode_state`]).
fn unpack_state(mut frames: [Option<Frames>; SECTIONS], only: Option<&str>) -> Option<State> {
    let mut read = |i: usize| Ok(frames[i].take().and_then(unpack));
    decode_state(&mut read, only).ok().flatten()
}

/// The start of a plain fold from nothing, as a checkpoint before every record
/// would give it: the empty state and the default rules (a resumable query pins
/// none), positioned before `(at, seq)` of any record (seqs start at 1).
fn from_nothing() -> Start {
    Start {
        state: State::default(),
        params: Params::default(),
        after: (Micros::MIN, 0),
        folded: 0,
    }
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
            return fold::fold_from(view, q, Some(from_nothing()), None);
        };
        let params = frames[0]
            .take()
            .and_then(unpack)
            .and_then(|b| params_of(&b));
        let Some(params) = params else {
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
            let decoding = scope.spawn(move || match unpack_state(frames, only) {
                Some(state) => {
                    // Unsent only if the fold has stopped already: its error stands.
                    let _ = tx.send(state);
                    true
                }
                None => false,
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
        let start = start.unwrap_or_else(from_nothing);
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
    /// records: each is a delta from the one before (`parent` first), made on
    /// the [`compressor`] thread and stored here.
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
            let mut put = |pos: Pos, folded: u64, bytes: fold::Snapshot| {
                let raw: [Encoded; SECTIONS] = bytes
                    .try_into()
                    .map_err(|_| Error::Storage("checkpoint: wrong number of sections".into()))?;
                if job_tx.send((pos, folded, raw)).is_err() {
                    // It stopped at a failure, which it sent.
                    let sent = made_rx.iter().try_for_each(store);
                    return sent.and(Err(compressor_gone()));
                }
                made_rx.try_iter().try_for_each(store)
            };
            let sink = Sink {
                every,
                encode: encode_section,
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
    /// are all there: its header and, for each section a query of `only` reads
    /// (the params and `only`'s state; all for `None`), the frames along its
    /// chain, whole checkpoint first. Nothing is decompressed yet.
    fn stored_before(&self, bound: Pos, upto: u64, only: Option<&str>) -> Result<Option<Stored>> {
        'next: for h in self.usable_before(bound, upto)? {
            let h = h?;
            let mut frames: [Option<Frames>; SECTIONS] = Default::default();
            for i in (0..SECTIONS).filter(|&i| i == 0 || wanted_section(i, only)) {
                match self.frames(&h, i)? {
                    Some(f) => frames[i] = Some(f),
                    None => continue 'next,
                }
            }
            return Ok(Some((h, frames)));
        }
        Ok(None)
    }

    /// The latest usable checkpoint at or before `bound`, read for `only`;
    /// for `None` (every section), also its header and uncompressed sections,
    /// the parent of the next checkpoint a check fold makes.
    fn start_before(
        &self,
        bound: Pos,
        upto: u64,
        only: Option<&str>,
    ) -> Result<Option<(Start, Option<Parent>)>> {
        for h in self.usable_before(bound, upto)? {
            let h = h?;
            let mut raw: [Vec<u8>; SECTIONS] = Default::default();
            let mut read = |i: usize| {
                let b = self.raw_section(&h, i)?;
                if let (None, Some(b)) = (only, &b) {
                    raw[i] = b.clone();
                }
                Ok(b)
            };
            if let Some((state, params)) = decode(&mut read, only)? {
                let start = Start {
                    state,
                    params,
                    after: h.pos,
                    folded: h.folded,
                };
                let parent = match only {
                    Some(_) => None,
                    None => self.root_after(h, raw)?,
                };
                return Ok(Some((start, parent)));
            }
        }
        Ok(None)
    }

    /// What the next checkpoint of an append that resumes from `h` (whose
    /// uncompressed sections are `raw`) is a delta from: `h` if it is whole,
    /// else the whole checkpoint it is a delta on, with the deltas already
    /// made on that one. `None` (the next is whole) when a link is missing.
    fn root_after(&self, h: Header, raw: [Vec<u8>; SECTIONS]) -> Result<Option<Parent>> {
        let Some(chain) = self.chain(&h)? else {
            return Ok(None);
        };
        let read_back = |header, raw, deltas| Parent {
            header,
            raw,
            deltas,
            kept: None,
        };
        let root = match chain[..] {
            [_] => return Ok(Some(read_back(h, raw, 0))),
            [_, root] => root,
            _ => return Ok(None),
        };
        drop(raw);
        let mut sections: [Vec<u8>; SECTIONS] = Default::default();
        for (i, s) in sections.iter_mut().enumerate() {
            match self.raw_section(&root, i)? {
                Some(b) => *s = b,
                None => return Ok(None),
            }
        }
        let link = Some(link(&root));
        let mut deltas = 0;
        for item in self.checkpoints()?.iter() {
            let (_, v) = item.map_err(storage)?;
            deltas += usize::from(header(&v).is_some_and(|c| c.parent == link));
        }
        Ok(Some(read_back(root, sections, deltas)))
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

    /// Section `i` of a checkpoint, uncompressed: through its parents for a
    /// delta. `None` if anything along the way is missing or does not match.
    fn raw_section(&self, h: &Header, i: usize) -> Result<Option<Vec<u8>>> {
        Ok(self.frames(h, i)?.and_then(unpack))
    }

    /// The stored frames of section `i` along `h`'s chain, whole checkpoint
    /// first, each with its uncompressed length; `None` if a link or its file
    /// is missing or does not match.
    fn frames(&self, h: &Header, i: usize) -> Result<Option<Frames>> {
        let Some(chain) = self.chain(h)? else {
            return Ok(None);
        };
        let (dir, mut out) = (self.files_dir(), Vec::with_capacity(chain.len()));
        for c in chain.iter().rev() {
            match read_file_section(&dir, c, i) {
                Some(stored) => out.push((stored, c.raw[i], c.patched.covers(i))),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    /// `h` and, for a delta, its parent, newest first; `None` if the parent
    /// is missing, does not match its link or is not whole.
    fn chain(&self, h: &Header) -> Result<Option<Vec<Header>>> {
        let Some((pk, digest)) = h.parent else {
            return Ok(Some(vec![*h]));
        };
        let Some(v) = self.checkpoints()?.get(pk).map_err(storage)? else {
            return Ok(None);
        };
        let linked = blake3::hash(&v).as_bytes() == &digest;
        let parent = header(&v)
            .filter(|p| linked && key(p.pos) == pk && p.pos < h.pos && p.parent.is_none());
        Ok(parent.map(|p| vec![*h, p]))
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

    /// Sections compared with serde's bytes by [`encode_checked`].
    static COMPARED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// [`encode_section`], failing when a state section is not serde's
    /// bincode of the state (what [`decode`] reads; mepbm has its own
    /// layout), or its spans are not in order inside it: one per tournament
    /// (cards, sbr), or columns numbered in order (the others).
    fn encode_checked(state: &State, params: &Params, i: usize) -> Result<Encoded> {
        let got = encode_section(state, params, i)?;
        let (want, values) = match i {
            1 => (got.bytes.clone(), None),
            2 => (section_bytes(&state.cfr)?, None),
            3 => (
                section_bytes(&state.cards)?,
                Some(state.cards.tournaments().len()),
            ),
            4 => (section_bytes(&state.diplomacy)?, None),
            5 => (
                section_bytes(&state.sbr)?,
                Some(state.sbr.tournaments().len()),
            ),
            _ => return Ok(got),
        };
        COMPARED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let ends = got.spans.iter().map(|s| s.at + s.len);
        let starts = got.spans.iter().skip(1).map(|s| s.at);
        let columns = got.spans.iter().enumerate();
        let spans_ok = match values {
            Some(n) => got.spans.len() == n && ends.clone().zip(starts).all(|(e, s)| e < s),
            None => {
                columns.clone().count() >= 4
                    && columns
                        .clone()
                        .all(|(k, s)| s.stamp == Span::COLUMN | k as u64)
                    && ends.clone().zip(starts).all(|(e, s)| e <= s)
            }
        } && ends.max().is_none_or(|end| end <= got.bytes.len());
        match got.bytes == want && spans_ok {
            true => Ok(got),
            false => Err(Error::Storage(format!("section {i}: not serde's bytes"))),
        }
    }

    /// Cards and sbr reuse each unchanged tournament's bytes between
    /// checkpoints; their sections must stay exactly the serde encoding, at
    /// every checkpoint of a fold whose tournaments change between them.
    #[test]
    fn kept_tournament_bytes_give_serde_bytes_at_every_checkpoint() {
        let src = fold::MemSource::from_jsonl(&crate::gen::stream(3000, 7)).unwrap();
        let mut made = 0;
        let mut put = |_: Pos, _: u64, _: fold::Snapshot| {
            made += 1;
            Ok(())
        };
        let sink = Sink {
            every: 400,
            encode: encode_checked,
            put: &mut put,
        };
        let q = Query {
            check: true,
            ..Query::default()
        };
        fold::fold_from(&src, &q, None, Some(sink)).unwrap();
        assert!(made >= 5, "{made} checkpoints");
        let compared = COMPARED.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(compared, 5 * made);
    }

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

    /// A whole checkpoint's header with these stored section lengths.
    fn sample_header(lens: [u64; SECTIONS]) -> Header {
        Header {
            head: Head {
                seq: 9,
                hash: [7; 32],
            },
            pos: (-5, 4),
            folded: 3,
            lens,
            raw: [7, 8, 9, 10, 11, 12],
            parent: None,
            patched: Patched::No,
        }
    }

    #[test]
    fn encode_decode_round_trips_and_damage_reads_as_absent() {
        let h = sample_header([1, 2, 3, 4, 5, 6]);
        let mut params = Params::default();
        let mut m = serde_json::Map::new();
        m.insert("base".into(), serde_json::json!(30));
        params.change("valar", &m);
        assert_eq!(header(&encode_header(&h)), Some(h));
        let delta = Header {
            parent: Some(link(&h)),
            ..h
        };
        assert_eq!(header(&encode_header(&delta)), Some(delta));
        let patched = Header {
            patched: Patched::States,
            ..delta
        };
        assert_eq!(encode_header(&patched)[164], 3);
        assert_eq!(header(&encode_header(&patched)), Some(patched));
        for kind in [2, 4] {
            let mut bad_kind = encode_header(&delta);
            bad_kind[164] = kind;
            assert!(header(&bad_kind).is_none());
        }
        let b = encode(&State::default(), &params).unwrap();
        let mut read = |i: usize| Ok(Some(b[i].clone()));
        let (_, p2) = decode(&mut read, Some("cards")).unwrap().unwrap();
        assert_eq!(p2.value("valar", "base"), serde_json::json!(30));
        assert_ne!(p2.stamp(), 0, "changed rules get a fresh stamp");
        let mut cut = |i: usize| Ok(Some(b[i][..b[i].len() / 2].to_vec()));
        assert!(decode(&mut cut, None).unwrap().is_none());
        let mut missing = |i: usize| Ok((i != 3).then(|| b[i].clone()));
        assert!(decode(&mut missing, None).unwrap().is_none());
        assert!(decode(&mut missing, Some("mepbm")).unwrap().is_some());
        let mut hb = encode_header(&h);
        hb[0] = b'X';
        assert!(header(&hb).is_none());
        assert!(header(&encode_header(&h)[..60]).is_none());
    }

    /// A file holds its header's bytes first, so a file left from another
    /// checkpoint at the same position (same section lengths, other head)
    /// reads as absent, as does a cut or missing one.
    #[test]
    fn a_checkpoint_file_is_read_only_under_its_own_header() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let h = sample_header([3, 0, 5, 0, 0, 1]);
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
            ..h
        };
        assert_eq!(read_file_section(d, &other, 2), None, "another head");
        let path = d.join(file_name(h.pos));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(read_file_section(d, &h, 2), None, "cut short");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read_file_section(d, &h, 2), None, "missing");
    }

    /// The sections of kept values (cards, sbr).
    const KEPT: [usize; 2] = [3, 5];

    /// Sections of two kept values: a fixed one (stamp `100 + i`, the same
    /// bytes in every checkpoint) and `second`; plain bytes for the others.
    fn kept_sections(second: (u64, &[u8])) -> [Encoded; SECTIONS] {
        std::array::from_fn(|i| {
            let mut e = Encoded::from(vec![i as u8; 10]);
            if KEPT.contains(&i) {
                let fixed = (100 + i as u64, &b"an unchanged value"[..]);
                for (stamp, v) in [fixed, (second.0 + i as u64, second.1)] {
                    let (at, len) = (e.bytes.len(), v.len());
                    e.spans.push(Span { stamp, at, len });
                    e.bytes.extend_from_slice(v);
                    e.bytes.push(b'|');
                }
            }
            e
        })
    }

    /// A delta on a whole checkpoint this process made stores its kept
    /// sections as patches that copy the unchanged values, and every section
    /// unpacks to its bytes; on a parent read back from its file it is a
    /// plain delta, which unpacks to the same.
    #[test]
    fn deltas_on_a_whole_checkpoint_made_here_patch_their_kept_sections() {
        let every = 100;
        let first = kept_sections((200, b"old"));
        let second = kept_sections((300, b"new"));
        let made = next_checkpoint(Head::default(), ((1, 1), every), first.clone(), None, every);
        let (h1, s1, parent) = made.unwrap();
        assert!(h1.parent.is_none() && h1.patched == Patched::No);
        let read_back = Parent {
            header: h1,
            raw: std::array::from_fn(|i| first[i].bytes.clone()),
            deltas: 0,
            kept: None,
        };
        let unpacked = |h2: &Header, s2: &[Vec<u8>; SECTIONS], i: usize| {
            unpack(vec![
                (s1[i].clone(), h1.raw[i], false),
                (s2[i].clone(), h2.raw[i], h2.patched.covers(i)),
            ])
        };
        for (parent, patched) in [(parent, Patched::States), (Some(read_back), Patched::No)] {
            let made = next_checkpoint(
                Head::default(),
                ((2, 2), 2 * every),
                second.clone(),
                parent,
                every,
            );
            let (h2, s2, _) = made.unwrap();
            assert_eq!((h2.parent, h2.patched), (Some(link(&h1)), patched));
            for (i, want) in second.iter().enumerate() {
                assert_eq!(
                    unpacked(&h2, &s2, i).as_ref(),
                    Some(&want.bytes),
                    "section {i}"
                );
            }
            for i in KEPT.into_iter().filter(|_| patched != Patched::No) {
                let size = zstd::zstd_safe::get_frame_content_size(&s2[i]);
                let patch = decompress(&s2[i], None, size.unwrap().unwrap()).unwrap();
                let has = |w: &[u8]| patch.windows(w.len()).any(|x| x == w);
                assert!(has(b"new") && !has(b"an unchanged value"), "section {i}");
            }
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
            let raw: [Encoded; SECTIONS] = std::array::from_fn(|i| vec![i as u8; 50].into());
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
