//! The ledger's records up to a seq as a fold [`Source`]: the chunk
//! summaries, and records read chunk by chunk through the ledger's index (a
//! few chunks cached) or in fold order in one pass. The fold reads the
//! ledger; the ledger knows nothing of folds.

use super::stream;
use super::{Item, Keep, Source, Span};
use crate::error::{Error, Result};
use crate::events;
use crate::ledger::{chunk, summary, Ledger};
use crate::systems::Record;
use crate::time::Micros;

/// The ledger's records up to `upto` (which may include an append's pending chunks).
pub(crate) struct View<'l> {
    ledger: &'l Ledger,
    upto: u64,
    /// Every chunk's summary up to `upto`, read once: a fold wants them for
    /// its spans, `history` for its voids too.
    summaries: std::cell::OnceCell<Vec<summary::Summary>>,
}

impl Ledger {
    /// A fold source over the committed records.
    pub fn source(&self) -> Result<impl Source + '_> {
        Ok(View::new(self, self.head()?.seq))
    }
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

    /// From the summaries alone.
    fn void_pairs(&self, f: &mut dyn FnMut(u64, u64) -> Result<()>) -> Result<()> {
        for s in self.summaries()? {
            for &(seq, target) in s.voids.iter().filter(|(seq, _)| *seq <= self.upto) {
                f(seq, target)?;
            }
        }
        Ok(())
    }

    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        self.each_cached(seqs, &mut |c, seq| f(c.record(seq)?))
    }

    /// From the summaries, which must cover `1..=upto` without a gap (the
    /// ledger's index is checked as it is read, so only damage breaks this).
    fn spans(&self) -> Result<Vec<Span>> {
        let all = self.summaries()?;
        let mut next = 1;
        let mut spans = Vec::with_capacity(all.len());
        let broken = |seq: u64| {
            Error::Corrupt(format!(
                "the chunk summaries do not cover the records from seq {seq} on"
            ))
        };
        for s in all {
            if s.first_seq != next || s.last_seq < s.first_seq || s.last_seq > self.upto {
                return Err(broken(next));
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
        match next == self.upto + 1 {
            true => Ok(spans),
            false => Err(broken(next)),
        }
    }

    fn items_in_order(
        &self,
        spans: &[Span],
        keep: &Keep,
        f: &mut dyn FnMut(Item<'_>) -> Result<()>,
    ) -> Result<()> {
        stream::run(spans, keep, &mut |first| self.load(first), f)
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
impl stream::Chunk for Cached {
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

    fn record(&self, seq: u64) -> Result<Record> {
        let (bytes, at) = self.bytes_of(seq)?;
        events::decode_stored(bytes, seq, at, self.recorded_at)
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

    fn load(&self, seq: u64) -> Result<Cached> {
        let (key_seq, v) = self.ledger.chunk_holding(seq)?;
        let c = chunk::decode(&v, key_seq)?;
        // Each event as a range of `v`, which `decode` borrows them from;
        // a range outside it would be a decoder that copies (a bug).
        let base = v.as_ptr() as usize;
        let events = (c.records.iter())
            .map(|r| {
                let start = (r.event.as_ptr() as usize).checked_sub(base)?;
                let end = start.checked_add(r.event.len()).filter(|&e| e <= v.len())?;
                Some((start, end, r.at))
            })
            .collect::<Option<_>>()
            .ok_or_else(|| Error::Internal("a decoded chunk's event lies outside it".into()))?;
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
