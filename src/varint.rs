//! LEB128 varints for packed in-memory buffers (a table's rows, a site
//! player's places): seven bits a byte, lowest first, the high bit set on
//! every byte but the last. Small numbers (most lengths and counts) take
//! one byte.

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

/// Read a varint from the front of `bytes`, advancing past it. The buffers
/// hold only what [`put`] wrote; a cut-off varint reads as the bits it has,
/// and bits past the 64th are dropped.
pub fn take(bytes: &mut &[u8]) -> u64 {
    let (mut n, mut shift) = (0u64, 0);
    while let Some((&b, rest)) = bytes.split_first() {
        *bytes = rest;
        if shift < 64 {
            n |= u64::from(b & 0x7f) << shift;
        }
        shift += 7;
        if b < 0x80 {
            break;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let all = [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        for n in all {
            put(&mut out, n);
        }
        assert_eq!(out.len(), all.iter().map(|&n| len(n)).sum::<usize>());
        assert_eq!(len(u64::MAX), 10);
        let mut rest = out.as_slice();
        for n in all {
            assert_eq!(take(&mut rest), n);
        }
        assert!(rest.is_empty());
        // Cut off: the bits it has; nothing at all reads as 0.
        assert_eq!(take(&mut &[0x80 | 5][..]), 5);
        assert_eq!(take(&mut &[][..]), 0);
    }
}
