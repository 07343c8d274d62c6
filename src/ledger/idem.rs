//! The append's idempotency index, and the per-chunk fingerprints it is built from.
//!
//! An append must know, for every incoming event, whether its idempotency key is
//! already recorded (and with what content). Holding the full keys costs memory
//! per record of the ledger: a `BTreeMap` of key → (content, seq) takes about
//! 65 bytes a record, the largest part of a large append's peak.
//!
//! So the index holds only a 64-bit **fingerprint** (the first 8 bytes of the key)
//! and the seq, 16 bytes a slot in an open-addressing table kept at most 70% full:
//! 23–46 bytes a record. A fingerprint match is only a *candidate*: the caller
//! reads the full key and content of that seq from the record itself and decides.
//! Two different keys share a fingerprint about once in 2^64 / n; that costs one
//! extra read, never a wrong answer. A *lost* fingerprint would let an event be
//! recorded twice, so an append checks `fps` against the CRC-32 `HEAD` keeps of
//! it (and a short one is refused when a writer opens it); `verify` checks every
//! fingerprint against its record.
//!
//! Building the index must not read every chunk (a small append to a big ledger
//! would pay for reading the whole log), so every chunk's fingerprints are stored
//! beside it, by the same append, before the head moves (and removed with it,
//! `drop_beyond`):
//!
//! ```text
//! file "fps" (`super::published`): one u64 little-endian fingerprint per
//! record, record s at byte 8·(s−1)
//! ```

use crate::error::{Error, Result};

/// A key's fingerprint: its first 8 bytes, little-endian.
pub fn fingerprint(key: &[u8; 16]) -> u64 {
    u64::from_le_bytes(key[..8].try_into().expect("8 bytes"))
}

/// The stored form of a chunk's fingerprints.
pub fn encode(fps: impl Iterator<Item = u64>) -> Vec<u8> {
    fps.flat_map(u64::to_le_bytes).collect()
}

/// The fingerprints of the chunk at `first_seq`, from their stored form.
pub fn decode(first_seq: u64, b: &[u8]) -> Result<impl Iterator<Item = u64> + '_> {
    if !b.len().is_multiple_of(8) {
        return Err(Error::Corrupt(format!(
            "the fingerprints of the chunk at seq {first_seq} are damaged"
        )));
    }
    Ok(b.chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default())))
}

/// The regions [`Index::of_fingerprints`] fills one after the other, each
/// small enough for a core's cache at the sizes laurel is built for.
const REGIONS: usize = 256;

/// Fingerprint → seq, a multimap (see the module docs). Seq 0 marks an empty slot:
/// records start at seq 1.
#[derive(Debug, Default)]
pub struct Index {
    slots: Vec<(u64, u64)>,
    len: usize,
}

impl Index {
    /// An index sized for `n` records without growing.
    pub fn with_capacity(n: usize) -> Index {
        let size = (n * 10 / 7 + 1).next_power_of_two().max(1024);
        Index {
            slots: vec![(0, 0); size],
            len: 0,
        }
    }

    /// The index of records `1..=fps.len()`, record `s` with fingerprint
    /// `fps[s - 1]`: the same table as inserting them one by one, filled
    /// region by region. Why: a large ledger's table is far larger than the
    /// cache, and inserting in seq order touches it at random, a cache miss a
    /// record;
    /// sorted first by the region of their home slot (one counting pass,
    /// one scatter, [`REGIONS`] regions), the inserts of one region stay in
    /// cache.
    pub fn of_fingerprints(fps: &[u64]) -> Index {
        let mut index = Index::with_capacity(fps.len());
        let bits = index.slots.len().trailing_zeros();
        let shift = bits.saturating_sub(REGIONS.trailing_zeros());
        let mask = index.slots.len() - 1;
        let region = |fp: u64| (fp as usize & mask) >> shift;
        let mut starts = vec![0usize; REGIONS + 1];
        for &fp in fps {
            starts[region(fp) + 1] += 1;
        }
        for r in 0..REGIONS {
            starts[r + 1] += starts[r];
        }
        let mut sorted = vec![(0u64, 0u64); fps.len()];
        for (&fp, seq) in fps.iter().zip(1u64..) {
            let at = &mut starts[region(fp)];
            sorted[*at] = (fp, seq);
            *at += 1;
        }
        for (fp, seq) in sorted {
            index.insert(fp, seq);
        }
        index
    }

    /// Record that `seq` has a key with fingerprint `fp`.
    pub fn insert(&mut self, fp: u64, seq: u64) {
        debug_assert!(seq > 0, "seq 0 marks an empty slot");
        if (self.len + 1) * 10 > self.slots.len() * 7 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = fp as usize & mask;
        while self.slots[i].1 != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = (fp, seq);
        self.len += 1;
    }

    /// Every seq recorded with fingerprint `fp`.
    pub fn candidates(&self, fp: u64) -> impl Iterator<Item = u64> + '_ {
        let mask = self.slots.len().wrapping_sub(1);
        let start = fp as usize & mask;
        let probe = (0..self.slots.len()).map(move |k| self.slots[(start + k) & mask]);
        probe
            .take_while(|&(_, seq)| seq != 0)
            .filter(move |&(f, _)| f == fp)
            .map(|(_, seq)| seq)
    }

    /// Load the first slot of each fingerprint's probe, all at once, so that
    /// the lookups that follow find them in cache.
    ///
    /// Why: a large ledger's table is far larger than the cache, so every
    /// lookup misses it, one after another, with an event's work between
    /// them. These loads do not depend on each other, so the core has many in
    /// flight at once, and the lookups after them hit the cache.
    pub fn warm(&self, fps: impl Iterator<Item = u64>) {
        let mask = self.slots.len().wrapping_sub(1);
        let acc = fps.fold(0u64, |acc, fp| {
            acc ^ self.slots.get(fp as usize & mask).map_or(0, |s| s.1)
        });
        std::hint::black_box(acc);
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        *self = Index::with_capacity(old.len());
        for (fp, seq) in old.into_iter().filter(|&(_, seq)| seq != 0) {
            self.insert(fp, seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_seq_of_a_fingerprint_across_growth() {
        let mut ix = Index::with_capacity(0);
        // Fingerprints that all land in the same few slots, plus spread ones.
        for seq in 1..=5000u64 {
            let fp = if seq % 3 == 0 {
                42
            } else {
                seq.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            };
            ix.insert(fp, seq);
        }
        assert_eq!(ix.len, 5000);
        let same: Vec<u64> = ix.candidates(42).collect();
        assert_eq!(same.len(), 1666);
        assert!(same.iter().all(|s| s % 3 == 0));
        let fp = 7u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        assert_eq!(ix.candidates(fp).collect::<Vec<_>>(), vec![7]);
        assert_eq!(ix.candidates(43).count(), 0);
        assert_eq!(Index::default().candidates(1).count(), 0);
    }

    /// Built region by region, the table answers as one filled in seq
    /// order: every seq of each fingerprint, collisions and wrapping
    /// probes (fingerprints whose home slot is the last) included.
    #[test]
    fn an_index_built_by_region_finds_what_inserts_in_order_find() {
        let fps: Vec<u64> = (1..=20_000u64)
            .map(|s| match s % 5 {
                0 => 42,
                1 => u64::MAX - (s % 3),
                _ => s.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            })
            .collect();
        let built = Index::of_fingerprints(&fps);
        let mut one_by_one = Index::with_capacity(fps.len());
        for (&fp, seq) in fps.iter().zip(1..) {
            one_by_one.insert(fp, seq);
        }
        assert_eq!(built.len, fps.len());
        assert_eq!(built.slots.len(), one_by_one.slots.len());
        for &fp in fps.iter().chain(&[7, 43]) {
            let mut a: Vec<u64> = built.candidates(fp).collect();
            let mut b: Vec<u64> = one_by_one.candidates(fp).collect();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "fingerprint {fp}");
        }
        assert_eq!(built.candidates(42).count(), 4000);
        assert_eq!(Index::of_fingerprints(&[]).candidates(0).count(), 0);
    }

    /// Warming takes `&self`, so it cannot change an answer; what can go
    /// wrong is reading a slot that is not there: an empty index has none,
    /// and its mask wraps to all ones.
    #[test]
    fn warming_an_empty_index_reads_no_slot() {
        let empty = Index::default();
        empty.warm([0, 1, u64::MAX].into_iter());
        assert_eq!(empty.candidates(1).count(), 0);
    }

    #[test]
    fn stored_fingerprints_round_trip_and_refuse_a_torn_value() {
        let b = encode([1u64, u64::MAX, 0].into_iter());
        assert_eq!(
            decode(9, &b).unwrap().collect::<Vec<_>>(),
            vec![1, u64::MAX, 0]
        );
        assert!(decode(9, &b[..7]).is_err());
    }
}
