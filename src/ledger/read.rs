//! Reading stored chunks and records: in batches, one by one, walked by
//! seq; the export. Every read finds its chunk through the ledger's index
//! ([`super::published`]) and reads it from its segment.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use super::chunk::{self, RecordView};
use super::{canonical, segment, ChunkBatch, Ledger, Stored};
use crate::error::{Error, Result};

impl Ledger {
    /// Every stored chunk up to `upto`, decoded, in seq order.
    pub(crate) fn for_each_chunk(
        &self,
        (from, upto): (u64, u64),
        f: &mut dyn FnMut(&chunk::ChunkView) -> Result<()>,
    ) -> Result<()> {
        self.batches_of(16 * 1024 * 1024, (from, upto), &mut |batch| {
            batch.iter().try_for_each(|(key_seq, v)| match key_seq {
                0 => Err(Error::Corrupt("bad chunk key".into())),
                _ => f(&chunk::decode(&chunk::unpack(v, *key_seq)?, *key_seq)?),
            })
        })
    }

    /// Every stored chunk starting at or before `upto`, from the one
    /// holding seq `from` on, as (first seq, bytes), in seq order, in batches
    /// of about `bytes_max` bytes.
    pub(super) fn batches_of(
        &self,
        bytes_max: usize,
        (from, upto): (u64, u64),
        f: &mut dyn FnMut(ChunkBatch) -> Result<()>,
    ) -> Result<()> {
        let mut places: Vec<(u64, [u8; segment::POINTER_LEN])> = (self.index.borrow().iter())
            .take_while(|e| e.first() <= upto)
            .map(|e| (e.first(), e.pointer))
            .collect();
        let before = places.partition_point(|p| p.0 <= from).saturating_sub(1);
        places.drain(..before);
        let mut batch = Vec::new();
        let mut bytes = 0;
        for (first, pointer) in places {
            let v = self.stored(first, &pointer)?;
            bytes += v.len();
            batch.push((first, v));
            if bytes >= bytes_max {
                f(std::mem::take(&mut batch))?;
                bytes = 0;
            }
        }
        match batch.is_empty() {
            true => Ok(()),
            false => f(batch),
        }
    }

    /// Every committed record from seq `from` on, in seq order.
    pub fn for_each_record(
        &self,
        from: u64,
        f: &mut dyn FnMut(&RecordView, &str) -> Result<()>,
    ) -> Result<()> {
        let head = self.head()?.seq;
        self.for_each_chunk((from, head), &mut |c| {
            c.records
                .iter()
                .filter(|r| (from..=head).contains(&r.seq))
                .try_for_each(|r| f(r, c.recorded_at))
        })
    }

    /// Walk the stored chunks that hold the seqs `next` leads to, in seq
    /// order, each read and decoded once: `next(s)` is the least wanted seq at
    /// or after `s` (`None`: the walk is done). `f` gets each such chunk, or
    /// the error reading the chunk that should hold a wanted seq (the walk then
    /// goes on from the seq after that one), and says whether to go on; the
    /// walk fails with the first error `f` returns. The one walk of the reads
    /// of many records' chunks ([`Ledger::record_fields`], the append's check
    /// of its payloads).
    pub(super) fn walk_chunks(
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

    /// `laurel export`: one JSON line per record (canonical form plus
    /// `hash`) to `w`, which a write error names `name`.
    pub fn export_to(&self, w: &mut dyn Write, name: &str) -> Result<()> {
        let mut line = Vec::new();
        self.for_each_record(1, &mut |r, ra| {
            line.clear();
            canonical::push_record(&mut line, r.event, Some(&r.hash), &r.prev, ra, r.seq);
            line.push(b'\n');
            w.write_all(&line).map_err(|e| Error::io(name, e))
        })
    }

    /// `f` of record `seq` (not 0) and the chunk that holds it.
    fn with_record<T>(
        &self,
        seq: u64,
        f: impl FnOnce(&chunk::ChunkView<'_>, &RecordView<'_>) -> T,
    ) -> Result<T> {
        let (first, bytes) = self.chunk_holding(seq)?;
        let c = chunk::decode(&bytes, first)?;
        let r = (c.records.iter().find(|r| r.seq == seq))
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))?;
        Ok(f(&c, r))
    }

    /// The hash of record `seq` (zeros for seq 0, as the first record's `prev`).
    pub fn hash_at(&self, seq: u64) -> Result<[u8; 32]> {
        match seq {
            0 => Ok([0; 32]),
            _ => self.with_record(seq, |_, r| r.hash),
        }
    }

    /// Record `seq`'s event, as stored (its canonical JSON).
    pub(crate) fn event_at(&self, seq: u64) -> Result<Vec<u8>> {
        self.with_record(seq, |_, r| r.event.to_vec())
    }

    /// Record `seq`'s stored hash and the hash of its content computed again
    /// (zeros for seq 0): equal unless the record was changed.
    pub fn hashes_at(&self, seq: u64) -> Result<([u8; 32], [u8; 32])> {
        if seq == 0 {
            return Ok(([0; 32], [0; 32]));
        }
        self.with_record(seq, |c, r| {
            let at = (c.recorded_at, seq);
            (
                r.hash,
                canonical::hash_of_record((r.event, &r.prev), at, &mut Vec::new()),
            )
        })
    }

    /// When record `seq` was recorded (its `recorded_at`, as `export` writes
    /// it); `None` for seq 0.
    pub fn recorded_at(&self, seq: u64) -> Result<Option<String>> {
        Ok(self.recorded(seq)?.map(|(_, text)| text))
    }

    /// When record `seq` was recorded, in microseconds (`None` for seq 0).
    pub(crate) fn recorded_at_micros(&self, seq: u64) -> Result<Option<i64>> {
        Ok(self.recorded(seq)?.map(|(micros, _)| micros))
    }

    /// Record `seq`'s `recorded_at` as microseconds and as written (`None`
    /// for seq 0); its chunk must hold it.
    fn recorded(&self, seq: u64) -> Result<Option<(i64, String)>> {
        if seq == 0 {
            return Ok(None);
        }
        let at = |c: &chunk::ChunkView<'_>, _: &RecordView<'_>| {
            (c.recorded_at_micros, c.recorded_at.to_string())
        };
        self.with_record(seq, at).map(Some)
    }

    /// The last seq recorded at or before `t` (0: none), up to the head:
    /// what a `--known-at` time cuts at. `recorded_at` never goes back from
    /// one record to the next (an append records at the later of the wall
    /// clock and the head's time, `restore` refuses a line recorded before
    /// the one before it, and `verify` checks it), so the records recorded by
    /// `t` are the seqs up to it, and every record of a chunk shares one
    /// time: a binary search reads about log2(chunks) chunks.
    pub fn seq_recorded_by(&self, t: i64) -> Result<u64> {
        let head = self.head()?.seq;
        let firsts: Vec<u64> = (self.index.borrow().iter())
            .map(|e| e.first())
            .take_while(|&first| first <= head)
            .collect();
        let (mut lo, mut hi) = (0, firsts.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.recorded_at_micros(firsts[mid])? {
                Some(at) if at > t => hi = mid,
                _ => lo = mid + 1,
            }
        }
        Ok(firsts.get(lo).map_or(head, |first| first - 1))
    }

    /// The first and last seq of the append that wrote record `seq` (at or
    /// before the head): its segment's name ([`super::segment`]:
    /// one per append, named after its first seq) and the next one's, less
    /// one. `None` if no segment names it.
    pub fn append_of(&self, seq: u64) -> Result<Option<(u64, u64)>> {
        let head = self.head()?.seq;
        if seq == 0 || seq > head {
            return Ok(None);
        }
        let names = super::segment::names_beyond(&self.path, 0)?;
        let next = names.partition_point(|&n| n <= seq);
        let Some(first) = next.checked_sub(1).map(|i| names[i]) else {
            return Ok(None);
        };
        let last = names.get(next).map_or(head, |n| (n - 1).min(head));
        Ok(Some((first, last)))
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
    pub(crate) fn chunk_holding(&self, seq: u64) -> Result<(u64, Vec<u8>)> {
        let (first, pointer) = {
            let index = self.index.borrow();
            let i = index.partition_point(|e| e.first() <= seq);
            let e = (i > 0)
                .then(|| &index[i - 1])
                .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))?;
            (e.first(), e.pointer)
        };
        Ok((first, chunk::unpack(&self.stored(first, &pointer)?, first)?))
    }

    /// A chunk's stored bytes, read from the segment its `pointer` points
    /// into ([`segment`]).
    fn stored(&self, key_seq: u64, pointer: &[u8]) -> Result<Stored> {
        let place = segment::parse(pointer, key_seq)?;
        self.segments.borrow_mut().read(&self.path, key_seq, place)
    }
}
