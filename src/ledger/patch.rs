//! Patches: how a delta checkpoint stores a section made of kept values (the
//! cards and sbr tournaments, [`crate::systems::compact::Kept`]) when its whole parent was made
//! by the same process.
//!
//! Why: a delta compressed with its parent's section as zstd prefix costs
//! zstd's long-distance matching over the whole section, although most
//! tournaments have not changed since the parent. The encoder knows which: a
//! kept value's bytes carry a stamp, and equal stamps are the very same bytes
//! ([`Span`]). So a patch copies each unchanged tournament from its place in
//! the parent and carries only the rest (ids, new and changed tournaments,
//! names); the patch is then one zstd frame of its own.
//!
//! ```text
//! a patch: ops, back to back, to its end (varints as in systems/codec.rs)
//!   0, len, the len bytes     insert these bytes
//!   1, at, len                copy the parent's bytes at .. at + len
//! ```
//!
//! Applying checks every op against the parent and the length the header
//! gives, so a damaged patch reads as absent, like any damaged checkpoint.

use crate::systems::codec::{Reader, Writer};
use crate::systems::compact::Span;

const INSERT: u64 = 0;
const COPY: u64 = 1;

/// The patch that makes `bytes` (whose kept values lie at `spans`, in order)
/// from the parent section `old`, whose kept values lie at `parent` (sorted by
/// stamp).
pub fn make(bytes: &[u8], spans: &[Span], old: &[u8], parent: &[Span]) -> Vec<u8> {
    let mut w = Writer::default();
    // `done`: bytes up to here are in the patch; `copy`: a copy not yet
    // written, grown over the next unchanged value while the bytes between
    // (a map key) are the same in both.
    let (mut done, mut copy): (usize, Option<(usize, usize)>) = (0, None);
    for s in spans {
        let found = parent
            .binary_search_by_key(&s.stamp, |p| p.stamp)
            .ok()
            .map(|i| parent[i])
            .filter(|p| p.len == s.len && p.len > 0 && old.get(p.at..p.at + p.len).is_some());
        let Some(p) = found else {
            continue;
        };
        let gap = &bytes[done..s.at];
        match copy {
            Some((at, len)) if old.get(at + len..p.at) == Some(gap) => {
                copy = Some((at, p.at + p.len - at));
            }
            _ => {
                flush(&mut w, copy.take());
                insert(&mut w, gap);
                copy = Some((p.at, p.len));
            }
        }
        done = s.at + s.len;
    }
    flush(&mut w, copy);
    insert(&mut w, &bytes[done..]);
    w.buf
}

fn insert(w: &mut Writer, b: &[u8]) {
    if !b.is_empty() {
        w.u(INSERT);
        w.bytes(b);
    }
}

fn flush(w: &mut Writer, copy: Option<(usize, usize)>) {
    if let Some((at, len)) = copy {
        w.u(COPY);
        w.u(at as u64);
        w.u(len as u64);
    }
}

/// The bytes `patch` makes from `parent`; `None` unless they are exactly
/// `len` bytes and every op is well formed and within the parent.
pub fn apply(parent: &[u8], patch: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(len);
    let mut r = Reader::new(patch);
    while !r.is_empty() {
        match r.u()? {
            INSERT => out.extend_from_slice(r.bytes()?),
            COPY => {
                let at = usize::try_from(r.u()?).ok()?;
                let n = usize::try_from(r.u()?).ok()?;
                out.extend_from_slice(parent.get(at..at.checked_add(n)?)?);
            }
            _ => return None,
        }
        if out.len() > len {
            return None;
        }
    }
    (out.len() == len).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section of a length byte, then `(id, value)` pairs, then a tail, with
    /// the spans of its values; values are named by their stamps.
    fn section(values: &[(u64, &[u8])]) -> (Vec<u8>, Vec<Span>) {
        let (mut b, mut spans) = (vec![values.len() as u8], Vec::new());
        for (stamp, v) in values {
            b.push(b'#');
            spans.push(Span {
                stamp: *stamp,
                at: b.len(),
                len: v.len(),
            });
            b.extend_from_slice(v);
        }
        b.extend_from_slice(b"tail");
        (b, spans)
    }

    fn by_stamp(mut s: Vec<Span>) -> Vec<Span> {
        s.sort_by_key(|s| s.stamp);
        s
    }

    #[test]
    fn a_patch_remakes_the_section_and_copies_only_unchanged_values() {
        let (old, old_spans) = section(&[(1, b"alpha"), (2, b"beta"), (3, b"gamma")]);
        // 2 changed (a new stamp), 4 is new, 1 and 3 are the parent's.
        let (new, spans) = section(&[(1, b"alpha"), (5, b"beta2"), (3, b"gamma"), (4, b"d")]);
        let patch = make(&new, &spans, &old, &by_stamp(old_spans));
        assert_eq!(apply(&old, &patch, new.len()), Some(new.clone()));
        // The copied values are not in the patch; the changed one is.
        let has = |w: &[u8]| patch.windows(w.len()).any(|x| x == w);
        assert!(!has(b"alpha") && !has(b"gamma") && has(b"beta2") && has(b"tail"));
    }

    /// Unchanged values with the same bytes between them (their keys) copy as
    /// one op; a changed key between two splits it.
    #[test]
    fn unchanged_runs_copy_as_one_op() {
        let values: Vec<(u64, &[u8])> = vec![(1, b"aa"), (2, b"bb"), (3, b"cc")];
        let (old, old_spans) = section(&values);
        let (new, spans) = section(&values);
        let patch = make(&new, &spans, &old, &by_stamp(old_spans.clone()));
        assert_eq!(apply(&old, &patch, new.len()), Some(new.clone()));
        assert_eq!(count_ops(&patch, COPY), 1, "{patch:?}");
        let mut keyed = new.clone();
        keyed[spans[2].at - 1] = b'!';
        let patch = make(&keyed, &spans, &old, &by_stamp(old_spans));
        assert_eq!(apply(&old, &patch, keyed.len()), Some(keyed));
        assert_eq!(count_ops(&patch, COPY), 2, "{patch:?}");
    }

    fn count_ops(patch: &[u8], op: u64) -> usize {
        let (mut r, mut n) = (Reader::new(patch), 0);
        while !r.is_empty() {
            let o = r.u().unwrap();
            n += usize::from(o == op);
            match o {
                INSERT => {
                    r.bytes().unwrap();
                }
                _ => {
                    r.u().unwrap();
                    r.u().unwrap();
                }
            }
        }
        n
    }

    #[test]
    fn a_stamp_of_another_length_is_not_copied() {
        let (old, old_spans) = section(&[(1, b"alpha")]);
        let (new, spans) = section(&[(1, b"alph")]);
        let patch = make(&new, &spans, &old, &by_stamp(old_spans));
        assert_eq!(count_ops(&patch, COPY), 0);
        assert_eq!(apply(&old, &patch, new.len()), Some(new));
    }

    #[test]
    fn damaged_patches_read_as_absent() {
        let (old, old_spans) = section(&[(1, b"alpha"), (2, b"beta")]);
        let (new, spans) = section(&[(1, b"alpha"), (3, b"x")]);
        let patch = make(&new, &spans, &old, &by_stamp(old_spans));
        assert_eq!(apply(&old, &patch, new.len()), Some(new.clone()));
        assert_eq!(apply(&old, &patch, new.len() + 1), None, "length");
        assert_eq!(apply(&old, &patch, new.len() - 1), None, "length");
        assert_eq!(apply(&old[..3], &patch, new.len()), None, "short parent");
        for cut in 0..patch.len() {
            let got = apply(&old, &patch[..cut], new.len());
            assert_eq!(got, None, "cut at {cut}");
        }
        assert_eq!(apply(&old, &[7, 0], 0), None, "unknown op");
        let mut far = Writer::default();
        far.u(COPY);
        far.u(u64::MAX);
        far.u(2);
        assert_eq!(apply(&old, &far.buf, 2), None, "copy past the parent");
    }
}
