//! LEB128 varints, the one byte codec of laurel's own compact layouts: the
//! projection states that checkpoints load on every point-in-time query (the
//! mepbm state: `systems/mepbm/store.rs`) and packed in-memory buffers (a table's rows, a site
//! player's places, tournament rows of cards and cfr).
//!
//! Why not bincode for these: a state is mostly long vectors of small records
//! (game positions, players: hundreds of thousands in a large ledger), which serde decodes
//! field by field, growing each `Vec` by doubling (serde caps what it reserves
//! ahead), a large share of a point-in-time query's CPU. Here every vector is
//! written as its length and then its elements, so the
//! reader allocates each `Vec` once, and integers are LEB128 varints (as bincode's
//! varint encoding, so the bytes stay about as small and compress alike).
//!
//! Layout primitives (what [`Writer`] writes and [`Reader`] reads back):
//! - `u`: an unsigned LEB128 varint (7 bits a byte, low first, at most 10 bytes);
//! - `i`: a signed integer, zigzag-coded then `u`;
//! - `bytes`: `u` length, then the bytes.
//!
//! The reader never panics and never allocates more than the input can describe:
//! every count is checked against the bytes left (each element takes at least
//! one byte), and any error (truncation, an overlong varint) reads as `None`.

/// The bytes [`put`] writes for `n`.
pub fn len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

/// Append `n` to `out`.
pub fn put(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Zigzag: small signed values as small unsigned ones (0, -1, 1, -2 → 0, 1, 2, 3).
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The `i64` that [`zigzag`] made `v` from.
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Writes the primitives of the module docs into a byte buffer.
#[derive(Debug, Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u(&mut self, v: u64) {
        put(&mut self.buf, v);
    }

    pub fn i(&mut self, v: i64) {
        self.u(zigzag(v));
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.u(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
}

/// Reads back what [`Writer`] wrote, in order; `None` on any malformed input.
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The bytes left to read.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data
    }

    #[inline]
    pub fn u(&mut self) -> Option<u64> {
        // Most values are below 128: one byte, one branch.
        let (&b, rest) = self.data.split_first()?;
        if b < 0x80 {
            self.data = rest;
            return Some(u64::from(b));
        }
        let mut v = 0u64;
        for (i, &b) in self.data.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.data = &self.data[i + 1..];
                return Some(v);
            }
        }
        None
    }

    #[inline]
    pub fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.u()?).ok()
    }

    #[inline]
    pub fn i(&mut self) -> Option<i64> {
        self.u().map(unzigzag)
    }

    /// A count of elements still to read, each at least one byte: at most the
    /// bytes left, so a damaged count cannot make the caller allocate.
    pub fn count(&mut self) -> Option<usize> {
        usize::try_from(self.u()?)
            .ok()
            .filter(|&n| n <= self.data.len())
    }

    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u()?).ok()?;
        if n > self.data.len() {
            return None;
        }
        let (b, rest) = self.data.split_at(n);
        self.data = rest;
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values around every byte-length boundary of a varint.
    const SAMPLES: [u64; 9] = [
        0,
        1,
        127,
        128,
        300,
        16_383,
        16_384,
        u32::MAX as u64,
        u64::MAX,
    ];

    #[test]
    fn primitives_round_trip_and_damage_reads_as_none() {
        let us = SAMPLES;
        let is = [0, -1, 1, -64, 64, i64::MIN, i64::MAX, 1500, -1500];
        let mut w = Writer::default();
        for &u in &us {
            w.u(u);
        }
        for &i in &is {
            w.i(i);
        }
        w.bytes(b"abc");
        w.u(2);
        let mut r = Reader::new(&w.buf);
        for &u in &us {
            assert_eq!(r.u(), Some(u));
        }
        for &i in &is {
            assert_eq!(r.i(), Some(i));
        }
        assert_eq!(r.bytes(), Some(&b"abc"[..]));
        assert_eq!(r.count(), None, "2 elements cannot fit in no bytes");
        assert!(r.is_empty());
        assert_eq!(r.u(), None);
        // Truncated varints, an overlong one, a u32 that is not, a short slice.
        assert_eq!(Reader::new(&[0x80]).u(), None);
        assert_eq!(Reader::new(&[0xff; 11]).u(), None);
        assert_eq!(Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x10]).u32(), None);
        assert_eq!(Reader::new(&[5, 1, 2]).bytes(), None);
    }

    #[test]
    fn varints_round_trip_in_their_length() {
        let cases: [(u64, &[u8]); 6] = [
            (0, &[0]),
            (1, &[1]),
            (127, &[0x7f]),
            (128, &[0x80, 1]),
            (300, &[0xac, 2]),
            (16_384, &[0x80, 0x80, 1]),
        ];
        for (n, bytes) in cases {
            let mut out = Vec::new();
            put(&mut out, n);
            assert_eq!(out, bytes, "{n}");
            assert_eq!(len(n), bytes.len());
        }
        let mut out = Vec::new();
        let all = SAMPLES;
        for n in all {
            put(&mut out, n);
        }
        assert_eq!(out.len(), all.iter().map(|&n| len(n)).sum::<usize>());
        assert_eq!(len(u64::MAX), 10);
        let mut r = Reader::new(&out);
        for n in all {
            assert_eq!(r.u(), Some(n));
        }
        assert!(r.is_empty());
        // Cut off, or nothing at all: no value.
        assert_eq!(Reader::new(&[0x80 | 5]).u(), None);
        assert_eq!(Reader::new(&[]).u(), None);
    }
}
