//! Patches: how a delta checkpoint stores a state section when its whole
//! parent was made by the same process.
//!
//! Why: a delta compressed with its parent's section as zstd prefix costs
//! zstd's long-distance matching over the whole section, although most of it
//! has not changed since the parent. The encoder knows which parts: bytes it
//! kept from an earlier encoding (a finished tournament) carry a stamp, and
//! equal stamps are the very same bytes ([`Span`]); growing parts are marked
//! as columns ([`Span::COLUMN`]), which are compared with the
//! parent's. So a patch copies what is unchanged from its place in the parent
//! and carries only the rest (new and changed values, what the columns gained);
//! the patch is then one zstd frame of its own.
//!
//! ```text
//! a patch: ops, back to back, to its end (varints of `codec.rs`)
//!   0, len, the len bytes     insert these bytes
//!   1, at, len                copy the parent's bytes at .. at + len
//! ```
//!
//! Applying checks every op against the parent and the length the header
//! gives, so a damaged patch reads as absent, like any damaged checkpoint.

use serde::Serialize;

use crate::codec::{Reader, Writer};

const INSERT: u64 = 0;
const COPY: u64 = 1;

/// The patch that makes `bytes` (whose kept values and columns lie at
/// `spans`, in order) from the parent section `old`, whose spans are `parent`
/// (sorted by stamp).
///
/// A kept value's span is copied whole when the parent has its stamp with the
/// same length (the same stamp is the same bytes). A column's span
/// ([`Span::COLUMN`]) is only a hint: it is compared with the parent's column
/// of the same stamp, and only equal runs of at least [`MIN_COPY`] bytes are
/// copied, so a wrong hint costs size, never bytes.
pub fn make(bytes: &[u8], spans: &[Span], old: &[u8], parent: &[Span]) -> Vec<u8> {
    let mut p = Patcher {
        w: Writer::default(),
        bytes,
        old,
        done: 0,
        copy: None,
    };
    for s in spans {
        let found = parent
            .binary_search_by_key(&s.stamp, |p| p.stamp)
            .ok()
            .map(|i| parent[i])
            .filter(|p| {
                old.get(p.at..p.at + p.len).is_some() && bytes.get(s.at..s.at + s.len).is_some()
            });
        match found {
            // Spans out of order are no use (and would cut a gap backwards).
            Some(_) if s.at < p.done => {}
            Some(o) if s.stamp & Span::COLUMN != 0 => p.column(*s, o),
            Some(o) if o.len == s.len && o.len > 0 => p.copy(s.at, o.at, o.len),
            _ => {}
        }
    }
    p.finish()
}

/// Equal bytes a column copy needs (a copy op costs up to 21 bytes).
const MIN_COPY: usize = 32;
/// How far a column diff looks, in each section, for where the two columns
/// agree again after a difference (a changed varint, an added field).
const RESYNC: usize = 16;
/// A column is given up (the rest inserted) once it has had more than this
/// many differences plus one per [`BYTES_PER_MISS`] bytes copied: bounds the
/// cost of a column that changed all over (a difference costs up to about
/// 500 comparisons of [`MIN_COPY`] bytes), not of one with a few changes.
const MISSES: usize = 16;
const BYTES_PER_MISS: usize = 256;

/// A patch being made, left to right over the new section.
struct Patcher<'a> {
    w: Writer,
    bytes: &'a [u8],
    old: &'a [u8],
    /// Bytes of the new section up to here are in the patch (or in `copy`).
    done: usize,
    /// A copy not yet written, `(at, len)` in the parent: grown over the next
    /// one while the bytes between are the same in both.
    copy: Option<(usize, usize)>,
}

impl Patcher<'_> {
    /// The new section's `len` bytes at `at` are the parent's at `from`.
    fn copy(&mut self, at: usize, from: usize, len: usize) {
        let gap = &self.bytes[self.done..at];
        match self.copy {
            Some((c, n)) if self.old.get(c + n..from) == Some(gap) => {
                self.copy = Some((c, from + len - c));
            }
            _ => {
                flush(&mut self.w, self.copy.take());
                insert(&mut self.w, gap);
                self.copy = Some((from, len));
            }
        }
        self.done = at + len;
    }

    /// Copy the runs the new column `s` shares with the parent's column `o`,
    /// in order: equal prefixes, re-aligned after each difference within
    /// [`RESYNC`] bytes.
    fn column(&mut self, s: Span, o: Span) {
        let new = &self.bytes[s.at..s.at + s.len];
        let old = &self.old[o.at..o.at + o.len];
        let (mut i, mut j, mut misses, mut copied) = (0, 0, 0, 0);
        while i < new.len() && j < old.len() && misses <= MISSES + copied / BYTES_PER_MISS {
            let k = common_prefix(&new[i..], &old[j..]);
            if k >= MIN_COPY {
                self.copy(s.at + i, o.at + j, k);
                copied += k;
            }
            (i, j, misses) = (i + k, j + k, misses + 1);
            match resync(&new[i..], &old[j..]) {
                Some((di, dj)) => (i, j) = (i + di, j + dj),
                None => break,
            }
        }
    }

    fn finish(mut self) -> Vec<u8> {
        flush(&mut self.w, self.copy);
        insert(&mut self.w, &self.bytes[self.done..]);
        self.w.buf
    }
}

/// How many bytes `a` and `b` share from their starts.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut k = 0;
    while k + BLOCK <= n && a[k..k + BLOCK] == b[k..k + BLOCK] {
        k += BLOCK;
    }
    k + a[k..n]
        .iter()
        .zip(&b[k..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The nearest offsets `(di, dj)`, each at most [`RESYNC`] (smallest sum
/// first), from which `a` and `b` agree on [`MIN_COPY`] bytes.
fn resync(a: &[u8], b: &[u8]) -> Option<(usize, usize)> {
    (1..=2 * RESYNC).find_map(|d| {
        (d.saturating_sub(RESYNC)..=d.min(RESYNC)).find_map(|di| {
            let dj = d - di;
            let x = a.get(di..di + MIN_COPY)?;
            (b.get(dj..dj + MIN_COPY)? == x).then_some((di, dj))
        })
    })
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

/// One section of a snapshot: its bytes, and where kept values' bytes lie in
/// them ([`Span`]: cards and sbr tournaments) or its columns do (the other
/// states' growing parts, [`Span::COLUMN`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub spans: Vec<Span>,
}

impl From<Vec<u8>> for Encoded {
    fn from(bytes: Vec<u8>) -> Self {
        Encoded {
            bytes,
            spans: Vec::new(),
        }
    }
}

/// Where an encoder put a value's kept bytes in a section: `at..at + len`,
/// and the stamp of those bytes (the same stamp is the same bytes, however
/// many sections they are put in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub stamp: u64,
    pub at: usize,
    pub len: usize,
}

impl Span {
    /// The stamp bit of a *column*: a growing part of a section (a vector's
    /// elements, an interner's names), numbered in the order the section's
    /// encoder writes them ([`Encoded::column`]). Unlike a kept value's stamp,
    /// a column's promises nothing: a patch compares it with the parent's
    /// column of the same number and copies only equal runs.
    pub const COLUMN: u64 = 1 << 63;
}

impl Encoded {
    /// Append the bincode (varint) of `v`: writing a struct's fields one by
    /// one gives the bytes of serializing it whole (bincode puts fields back
    /// to back, with no framing).
    pub fn field<T: Serialize + ?Sized>(&mut self, v: &T) -> bincode::Result<()> {
        use bincode::Options;
        bincode::DefaultOptions::new().serialize_into(&mut self.bytes, v)
    }

    /// [`Self::field`] of `v`, a sequence of `n` elements (a vector, a map, a
    /// string's bytes), noting its elements (after bincode's length) as the
    /// next column.
    pub fn column<T: Serialize + ?Sized>(&mut self, v: &T, n: usize) -> bincode::Result<()> {
        use bincode::Options;
        let at = self.bytes.len()
            + bincode::DefaultOptions::new().serialized_size(&(n as u64))? as usize;
        self.field(v)?;
        self.column_from(at.min(self.bytes.len()));
        Ok(())
    }

    /// Note the bytes from `at` to the end as the next column.
    pub fn column_from(&mut self, at: usize) {
        self.column_span(at, self.bytes.len());
    }

    /// Note the bytes `at..end` as the next column.
    pub fn column_span(&mut self, at: usize, end: usize) {
        let stamp = Span::COLUMN | self.spans.len() as u64;
        self.spans.push(Span {
            stamp,
            at,
            len: end - at,
        });
    }
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
        ops(patch).0.iter().filter(|&&o| o == op).count()
    }

    /// `patch`'s ops in order, and how many bytes its inserts carry.
    fn ops(patch: &[u8]) -> (Vec<u64>, usize) {
        let (mut r, mut out, mut n) = (Reader::new(patch), Vec::new(), 0);
        while !r.is_empty() {
            let o = r.u().unwrap();
            out.push(o);
            match o {
                INSERT => n += r.bytes().unwrap().len(),
                _ => {
                    r.u().unwrap();
                    r.u().unwrap();
                }
            }
        }
        (out, n)
    }

    #[test]
    fn a_stamp_of_another_length_is_not_copied() {
        let (old, old_spans) = section(&[(1, b"alpha")]);
        let (new, spans) = section(&[(1, b"alph")]);
        let patch = make(&new, &spans, &old, &by_stamp(old_spans));
        assert_eq!(count_ops(&patch, COPY), 0);
        assert_eq!(apply(&old, &patch, new.len()), Some(new));
    }

    /// A section of one column (a length byte, then `items`) and a tail.
    fn column_section(items: &[u8]) -> (Vec<u8>, Vec<Span>) {
        let mut b = vec![items.len() as u8];
        b.extend_from_slice(items);
        let span = Span {
            stamp: Span::COLUMN,
            at: 0,
            len: b.len(),
        };
        b.extend_from_slice(b"tail");
        (b, vec![span])
    }

    /// Bytes no run of which repeats within `MIN_COPY`.
    fn varied(n: usize, seed: u8) -> Vec<u8> {
        (0..n).map(|i| (i * 7 + i / 251) as u8 ^ seed).collect()
    }

    /// The bytes `patch` inserts.
    fn inserted(patch: &[u8]) -> usize {
        ops(patch).1
    }

    /// A grown column (its length changed, elements added) copies the
    /// parent's elements; a column changed in a few places copies the runs
    /// between the changes, re-aligned when a change has another length.
    #[test]
    fn a_column_copies_what_it_shares_with_the_parents() {
        let items = varied(200, 0);
        let (old, old_spans) = column_section(&items);
        let grown = [&items[..], &varied(20, 0x55)[..]].concat();
        let (new, spans) = column_section(&grown);
        let patch = make(&new, &spans, &old, &old_spans);
        assert_eq!(apply(&old, &patch, new.len()), Some(new));
        assert_eq!(inserted(&patch), 1 + 20 + 4, "length, new items, tail");
        let mut changed = items.clone();
        changed[50] ^= 1;
        changed.splice(120..121, *b"xyz");
        let (new, spans) = column_section(&changed);
        let patch = make(&new, &spans, &old, &old_spans);
        assert_eq!(apply(&old, &patch, new.len()), Some(new));
        assert_eq!(count_ops(&patch, COPY), 3, "{patch:?}");
        assert!(inserted(&patch) < 10, "{patch:?}");
    }

    /// A column that changed all over, or a hint that points at unrelated
    /// bytes, copies nothing and still makes the section.
    #[test]
    fn a_column_unlike_the_parents_is_inserted() {
        let (old, old_spans) = column_section(&varied(200, 0));
        let (new, spans) = column_section(&varied(200, 0x80));
        let patch = make(&new, &spans, &old, &old_spans);
        assert_eq!(apply(&old, &patch, new.len()), Some(new.clone()));
        assert_eq!(count_ops(&patch, COPY), 0);
        let wrong = [Span { at: 3, ..spans[0] }];
        let patch = make(&new, &wrong, &old, &old_spans);
        assert_eq!(apply(&old, &patch, new.len()), Some(new.clone()));
        // Out of order: the second span starts before the first ends.
        let (same, _) = column_section(&varied(200, 0));
        let stamp = Span::COLUMN | 1;
        let parent = [
            old_spans[0],
            Span {
                stamp,
                ..old_spans[0]
            },
        ];
        let backwards = [
            spans[0],
            Span {
                stamp,
                at: 1,
                len: 40,
            },
        ];
        let patch = make(&same, &backwards, &old, &parent);
        assert_eq!(apply(&old, &patch, same.len()), Some(same));
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
