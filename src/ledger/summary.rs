//! Chunk summaries: what a fold needs to know about a chunk without reading it.
//!
//! A point-in-time query that starts from a checkpoint needs only the records
//! after the checkpoint's `(at, seq)` position with `at <= as_of`, and the set
//! of voids. The summary of a chunk says which `at` range its records span and
//! which voids it holds, so a fold reads only the chunks that can matter, and
//! knows, before it reads a chunk, that none of its records sorts before its
//! smallest `at` (the fold's one pass, `fold::stream`).
//!
//! ```text
//! the summary in a chunk's entry of the index (`super::published`), after
//! its first seq and pointer (all integers little-endian):
//!   0   8   last_seq   u64, the chunk's last record
//!   8   8   min_at     i64 microseconds, smallest `at` of its records
//!   16  8   max_at     i64 microseconds, largest `at`
//!   24  4   voids      u32, the number of ledger.voided records
//!   28  ..  voids x (seq u64, target u64)
//! ```
//!
//! Invariant: the published view agrees with its chunks (the crate's
//! [invariants](crate#invariants)).

use crate::error::{Error, Result};
use crate::time::Micros;

use super::chunk::ChunkView;

/// A chunk's seq range, `at` range and voids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub first_seq: u64,
    pub last_seq: u64,
    pub min_at: Micros,
    pub max_at: Micros,
    /// `(seq, target)` of each `ledger.voided` in the chunk, in seq order.
    pub voids: Vec<(u64, u64)>,
}

impl Summary {
    /// The summary of a decoded chunk.
    pub fn of(c: &ChunkView) -> Summary {
        Summary::of_records(c.first_seq, c.records.iter().map(|r| (r.at, r.void_target)))
    }

    /// The summary of the chunk at `first_seq` whose records have these
    /// `(at, void target)`, in seq order (at least one).
    pub fn of_records(
        first_seq: u64,
        records: impl Iterator<Item = (Micros, Option<u64>)>,
    ) -> Summary {
        let mut s = Summary {
            first_seq,
            last_seq: first_seq.saturating_sub(1),
            min_at: Micros::MAX,
            max_at: Micros::MIN,
            voids: Vec::new(),
        };
        for (at, void) in records {
            s.last_seq += 1;
            s.min_at = s.min_at.min(at);
            s.max_at = s.max_at.max(at);
            s.voids.extend(void.map(|t| (s.last_seq, t)));
        }
        s
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(28 + 16 * self.voids.len());
        b.extend_from_slice(&self.last_seq.to_le_bytes());
        b.extend_from_slice(&self.min_at.to_le_bytes());
        b.extend_from_slice(&self.max_at.to_le_bytes());
        b.extend_from_slice(&(self.voids.len() as u32).to_le_bytes());
        for (s, t) in &self.voids {
            b.extend_from_slice(&s.to_le_bytes());
            b.extend_from_slice(&t.to_le_bytes());
        }
        b
    }

    pub fn decode(first_seq: u64, b: &[u8]) -> Result<Summary> {
        let bad = || {
            Error::Corrupt(format!(
                "summary of the chunk at seq {first_seq} is damaged"
            ))
        };
        let word = |i: usize| -> Result<[u8; 8]> {
            b.get(i..i + 8)
                .and_then(|s| s.try_into().ok())
                .ok_or_else(bad)
        };
        let n = b
            .get(24..28)
            .and_then(|s| s.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(bad)? as usize;
        if b.len() != 28 + 16 * n {
            return Err(bad());
        }
        let voids = (0..n)
            .map(|i| {
                let at = 28 + 16 * i;
                Ok((
                    u64::from_le_bytes(word(at)?),
                    u64::from_le_bytes(word(at + 8)?),
                ))
            })
            .collect::<Result<_>>()?;
        Ok(Summary {
            first_seq,
            last_seq: u64::from_le_bytes(word(0)?),
            min_at: i64::from_le_bytes(word(8)?),
            max_at: i64::from_le_bytes(word(16)?),
            voids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_damage() {
        let s = Summary {
            first_seq: 7,
            last_seq: 9,
            min_at: -5,
            max_at: 1 << 40,
            voids: vec![(8, 2), (9, 3)],
        };
        let b = s.encode();
        assert_eq!(Summary::decode(7, &b).unwrap(), s);
        assert!(Summary::decode(7, &b[..b.len() - 1]).is_err());
        assert!(Summary::decode(7, &b[..20]).is_err());
    }
}
