//! Projection checkpoints: the folded state at positions of the `(at, seq)` order,
//! so a point-in-time query, or the check fold of an append, does not replay
//! the whole log.
//!
//! **Made** by the check fold of every append: every `N / 4` records of fold
//! order (see [`MIN_EVERY`]) it stores its state (all five projections and the rules in force). An
//! append folds from the latest checkpoint that is still valid, so appending a
//! few events to a large ledger costs the tail of the fold, not all of it.
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
//!   0   4   magic       b"LCP1" (the format version)
//!   4   8   head_seq    the head when it was made
//!   12  32  head_hash   the hash of record head_seq
//!   44  8   at          the position (as in the key)
//!   52  8   seq
//!   60  8   folded      records folded up to and including the position
//!   68  48  6 x u64     byte length of each section (below)
//! tree "snapshots": key = position (16) + section (u8) + piece (u32 big-endian)
//! value: up to 64 KiB of the section's bincode (varint) bytes
//!   sections, in order: params in force, then the mepbm, cfr, cards,
//!   diplomacy and sbr states (a query of one namespace reads only its own)
//! ```
//!
//! Headers live apart from the (large) snapshots so that choosing and dropping
//! checkpoints reads 116 bytes each. Snapshots are cut into 64 KiB pieces for the
//! reason chunks are (README "Storage": sled rewrites a large node whole on
//! every insert, and reads it whole), and so a query reads one section. The
//! pieces are written before the header and deleted after it: a header always
//! has its pieces, or reads as absent (a section's length must add up).

use bincode::Options;
use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, Result};
use crate::fold::{self, Pos, Query, Sink, Start};
use crate::params::Params;
use crate::systems::State;
use crate::time::Micros;

use super::summary::Summary;
use super::{chunk, storage, Head, Ledger, View};

/// Checkpoints per ledger: one every `N / PER_LEDGER` records of fold order
/// (rounded up to a multiple of [`MIN_EVERY`]), so a query folds at most that
/// many records after its checkpoint. A projection state grows with the log, so
/// a checkpoint at `n` costs about `n` times the state's bytes per event: with a
/// fixed spacing the snapshots would grow as `N²`; with spacing `N / 4` they
/// cost about 2.5 final states whatever `N` (README "Checkpoints" has sizes).
const PER_LEDGER: u64 = 4;
/// The least spacing: below it, folding is cheaper than reading a snapshot.
pub const MIN_EVERY: u64 = 10_000;

const MAGIC: &[u8; 4] = b"LCP1";
const HEADER: usize = 116;
const SECTIONS: usize = 6;
/// The bytes of one piece of a section.
const PIECE: usize = 64 * 1024;
/// Candidates tried, latest first, before a query gives up and folds from nothing.
const TRIES: usize = 8;

/// Set (to anything) to never start a fold from a checkpoint: tests and the
/// bench compare against the full fold with it.
pub const DISABLE_ENV: &str = "LAUREL_NO_CHECKPOINTS";
/// Set (to anything) to have a query say on stderr where its fold started.
pub const TRACE_ENV: &str = "LAUREL_CHECKPOINT_TRACE";
/// Overrides the spacing (a positive integer): tests make many small checkpoints.
pub const EVERY_ENV: &str = "LAUREL_CHECKPOINT_EVERY";

/// The spacing of checkpoints for a ledger of `records` records.
fn every(records: u64) -> u64 {
    let auto = (records / PER_LEDGER).div_ceil(MIN_EVERY).max(1) * MIN_EVERY;
    std::env::var(EVERY_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(auto)
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
    /// The byte length of each section.
    pub lens: [u64; SECTIONS],
}

fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

fn header(b: &[u8]) -> Option<Header> {
    if b.len() != HEADER || b.get(..4)? != MAGIC {
        return None;
    }
    Some(Header {
        head: Head {
            seq: u64_at(b, 4)?,
            hash: b.get(12..44)?.try_into().ok()?,
        },
        pos: (u64_at(b, 44)? as Micros, u64_at(b, 52)?),
        folded: u64_at(b, 60)?,
        lens: std::array::from_fn(|i| u64_at(b, 68 + 8 * i).unwrap_or(u64::MAX)),
    })
}

fn section_bytes<T: Serialize>(v: &T) -> Result<Vec<u8>> {
    bincode::DefaultOptions::new()
        .serialize(v)
        .map_err(|e| Error::Storage(format!("checkpoint: {e}")))
}

/// The key of piece `piece` of section `section` of the checkpoint at `pos`.
fn piece_key(pos: Pos, section: usize, piece: u32) -> [u8; 21] {
    let mut k = [0u8; 21];
    k[..16].copy_from_slice(&key(pos));
    k[16] = section as u8;
    k[17..].copy_from_slice(&piece.to_be_bytes());
    k
}

/// The number of pieces of a section of `len` bytes.
fn pieces(len: u64) -> u32 {
    len.div_ceil(PIECE as u64) as u32
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
    for len in h.lens {
        b.extend_from_slice(&len.to_le_bytes());
    }
    b
}

/// The sections' bytes, in order.
pub fn encode(state: &State, params: &Params) -> Result<[Vec<u8>; SECTIONS]> {
    Ok([
        section_bytes(params)?,
        section_bytes(&state.mepbm)?,
        section_bytes(&state.cfr)?,
        section_bytes(&state.cards)?,
        section_bytes(&state.diplomacy)?,
        section_bytes(&state.sbr)?,
    ])
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
    let mut state = State::default();
    for (i, ns) in NAMESPACES.iter().enumerate() {
        if only.is_some_and(|o| o != *ns) {
            continue;
        }
        let Some(b) = read(i + 1)? else {
            return Ok(None);
        };
        let ok = match *ns {
            "mepbm" => section(&b).map(|s| state.mepbm = s),
            "cfr" => section(&b).map(|s| state.cfr = s),
            "cards" => section(&b).map(|s| state.cards = s),
            "diplomacy" => section(&b).map(|s| state.diplomacy = s),
            _ => section(&b).map(|s| state.sbr = s),
        };
        if ok.is_none() {
            return Ok(None);
        }
    }
    let params: Option<Params> = read(0)?.and_then(|b| section(&b));
    Ok(params.map(|mut p| {
        p.restamp();
        (state, p)
    }))
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
        let view = View { ledger: self, upto };
        let start = match resumable(q) {
            true => self.start_before((q.as_of.unwrap_or(Micros::MAX), u64::MAX), upto, q.only)?,
            false => None,
        };
        if std::env::var_os(TRACE_ENV).is_some() {
            match &start {
                Some(s) => eprintln!(
                    "checkpoint: resumed after seq {} ({} records)",
                    s.after.1, s.folded
                ),
                None => eprintln!("checkpoint: none, folded from the start"),
            }
        }
        fold::fold_from(&view, q, start, None)
    }

    /// The check fold of an append whose records are `old.seq + 1 ..= new.seq`:
    /// drops the checkpoints the new records invalidate, resumes from the
    /// latest one still valid, and stores new ones (bound to `new`) on the way.
    pub(super) fn check_fold(&self, old: u64, new: Head) -> Result<fold::Folded> {
        if let Some(cut) = self.cut_after(old, new.seq)? {
            self.drop_checkpoints(|h| h.pos >= cut)?;
        }
        let view = View {
            ledger: self,
            upto: new.seq,
        };
        let q = Query {
            check: true,
            ..Query::default()
        };
        let start = match disabled() {
            true => None,
            false => self.start_before((Micros::MAX, u64::MAX), new.seq, None)?,
        };
        let mut put = |pos: Pos, folded: u64, bytes: fold::Snapshot| {
            let sections: [Vec<u8>; SECTIONS] = bytes
                .try_into()
                .map_err(|_| Error::Storage("checkpoint: wrong number of sections".into()))?;
            let h = Header {
                head: new,
                pos,
                folded,
                lens: std::array::from_fn(|i| sections[i].len() as u64),
            };
            self.put_checkpoint(&h, &sections)
        };
        let sink = Sink {
            every: every(new.seq),
            encode: |state, params| Ok(encode(state, params)?.into()),
            put: &mut put,
        };
        fold::fold_from(&view, &q, start, Some(sink))
    }

    /// The earliest fold position that the records `after + 1 ..= upto` can
    /// change: the smallest `(at, first seq)` of their chunks (a record after a
    /// checkpoint's head sorts before it exactly when its `at` is smaller), and
    /// `(at, seq)` of every record they void. `None` if there are none.
    pub(super) fn cut_after(&self, after: u64, upto: u64) -> Result<Option<Pos>> {
        let mut cut: Option<Pos> = None;
        let mut lower = |p: Pos| cut = Some(cut.map_or(p, |c| c.min(p)));
        for s in self.summaries_between(after + 1, upto)? {
            lower((s.min_at, s.first_seq));
            for &(seq, target) in s.voids.iter().filter(|(seq, _)| *seq <= upto) {
                // An out-of-range target is refused by the check fold; until
                // then, trust nothing.
                let at = match target > 0 && target < seq {
                    true => self.at_of(target).unwrap_or(Micros::MIN),
                    false => Micros::MIN,
                };
                lower((at, target));
            }
        }
        Ok(cut)
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

    /// The `at` of record `seq`, from its chunk's header.
    fn at_of(&self, seq: u64) -> Result<Micros> {
        self.record_field(seq, |r| r.at)
    }

    /// The latest usable checkpoint at or before `bound`, read for `only`.
    fn start_before(&self, bound: Pos, upto: u64, only: Option<&str>) -> Result<Option<Start>> {
        let candidates = self.checkpoints()?.range(..=key(bound)).rev().take(TRIES);
        for item in candidates {
            let (k, v) = item.map_err(storage)?;
            let Some(h) = header(&v).filter(|h| key(h.pos) == k.as_ref()) else {
                continue;
            };
            if !self.usable(&h, upto)? {
                continue;
            }
            let mut read = |i: usize| self.read_section(&h, i);
            if let Some((state, params)) = decode(&mut read, only)? {
                return Ok(Some(Start {
                    state,
                    params,
                    after: h.pos,
                    folded: h.folded,
                }));
            }
        }
        Ok(None)
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

    /// Store a checkpoint: its pieces first, then the header that makes it visible.
    fn put_checkpoint(&self, h: &Header, sections: &[Vec<u8>; SECTIONS]) -> Result<()> {
        // sled keeps what is written in its cache too: count it towards a reopen.
        self.moved(sections.iter().map(Vec::len).sum());
        for (i, bytes) in sections.iter().enumerate() {
            for (p, piece) in bytes.chunks(PIECE).enumerate() {
                let k = piece_key(h.pos, i, p as u32);
                self.snapshots()?.insert(k, piece).map_err(storage)?;
            }
        }
        self.checkpoints()?
            .insert(key(h.pos), encode_header(h))
            .map_err(storage)?;
        Ok(())
    }

    /// Section `i` of a checkpoint, or `None` if a piece is missing or the
    /// length does not add up.
    fn read_section(&self, h: &Header, i: usize) -> Result<Option<Vec<u8>>> {
        let len = h.lens[i];
        let mut out = Vec::with_capacity(len.min(1 << 30) as usize);
        let snapshots = self.snapshots()?;
        for p in 0..pieces(len) {
            match snapshots.get(piece_key(h.pos, i, p)).map_err(storage)? {
                Some(v) => out.extend_from_slice(&v),
                None => return Ok(None),
            }
        }
        Ok((out.len() as u64 == len).then_some(out))
    }

    /// Delete the checkpoints whose header `doomed` picks (and damaged ones):
    /// the header first, then its pieces.
    pub(super) fn drop_checkpoints(&self, doomed: impl Fn(&Header) -> bool) -> Result<()> {
        let mut gone = Vec::new();
        for item in self.checkpoints()?.iter() {
            let (k, v) = item.map_err(storage)?;
            match header(&v) {
                Some(h) if !doomed(&h) => {}
                h => gone.push((k, h)),
            }
        }
        let (checkpoints, snapshots) = (self.checkpoints()?, self.snapshots()?);
        for (k, h) in gone {
            checkpoints.remove(&k).map_err(storage)?;
            let Some(h) = h else { continue };
            for (i, &len) in h.lens.iter().enumerate() {
                for p in 0..pieces(len.min(1 << 40)) {
                    snapshots.remove(piece_key(h.pos, i, p)).map_err(storage)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn encode_decode_round_trips_and_damage_reads_as_absent() {
        let h = Header {
            head: Head {
                seq: 9,
                hash: [7; 32],
            },
            pos: (-5, 4),
            folded: 3,
            lens: [1, 2, 3, 4, 5, 6],
        };
        let mut params = Params::default();
        let mut m = serde_json::Map::new();
        m.insert("base".into(), serde_json::json!(30));
        params.change("valar", &m);
        assert_eq!(header(&encode_header(&h)), Some(h));
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
}
