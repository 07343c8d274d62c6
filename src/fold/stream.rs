//! The records of a fold in `(at, seq)` order, read chunk by chunk in seq
//! order, once: no pass over every record's header first (which would read
//! and decode every chunk one more time, on one core, before any worker
//! starts).
//!
//! Each chunk's summary gives the smallest `at` of its records: with its
//! first seq, its *floor*, a position no record of it sorts before. Reading
//! chunks in seq order, a record `(at, seq)` read so far is due once it
//! sorts before the floor of every chunk not read yet: every record still to
//! come sorts after. Records read but not yet due wait (16 bytes each: in a
//! queue while they come in order, the others in a heap), and
//! their chunks are held until their last record has gone. A late record (an
//! `at` well before its neighbours') lowers its chunk's floor, so the records
//! before it wait until it has been read.
//!
//! **Trust.** The floors come from the summaries, which `verify` checks
//! against their chunks, as queries already trust them to skip chunks. Here
//! every chunk read is checked against its summary as well (first seq, count,
//! every `at` within the summary's range, the voids), so a damaged summary
//! fails the fold instead of misordering it. A ledger refuses to open when
//! its index of summaries is damaged, has a gap or stops short of the head.
//! Every fold reads its records here; the unit tests' in-memory sources are
//! one chunk a record.
//!
//! **Memory.** The chunks held are bounded by [`HOLD`] bytes: past it the
//! oldest are let go and read again when their records come due (so a
//! ledger far out of order reads some chunks more than once).
//!
//! **Read ahead.** A chunk whose floor lies below the floor of the chunk
//! [`RECORDS_AHEAD`] records before it (a result appended years late, at the end of
//! the log) would hold every record between back: each chunk between would
//! be let go and read twice. Such a chunk is read first, before the others,
//! and its records wait with the rest; the floors are those of the chunks
//! still to be read, in seq order, without it.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

use super::{Item, Pos};
use crate::error::{Error, Result};
use crate::time::Micros;

/// Bytes of chunks held for their records still to come, at most (except the
/// one being read or reloaded).
const HOLD: usize = 16 * 1024 * 1024;

/// Records (about 16 MiB of chunks: [`HOLD`]) a chunk's floor may hold back
/// before it is read ahead of them (see the module docs).
const RECORDS_AHEAD: u64 = 32 * 1024;

/// A chunk as its summary describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub first: u64,
    pub last: u64,
    pub min_at: Micros,
    pub max_at: Micros,
    /// `(seq, target)` of each `ledger.voided` in it, in seq order.
    pub voids: Vec<(u64, u64)>,
}

/// Which records a fold takes.
#[derive(Debug, Clone, Default)]
pub struct Keep {
    /// Only records after this position (a resumed fold).
    pub after: Option<Pos>,
    /// Only records with `at` at or before this (`--as-of`).
    pub hi: Micros,
    /// Only records with a seq at or below this (`--known-at SEQ`).
    pub known: Option<u64>,
    pub voided: BTreeSet<u64>,
}

impl Keep {
    fn keeps(&self, at: Micros, seq: u64) -> bool {
        at <= self.hi
            && self.known.is_none_or(|k| seq <= k)
            && self.after.is_none_or(|a| (at, seq) > a)
            && !self.voided.contains(&seq)
    }

    /// May a record of `s` be kept? (Chunks that cannot are not read.)
    fn may_keep(&self, s: &Span) -> bool {
        s.min_at <= self.hi
            && self.known.is_none_or(|k| s.first <= k)
            && self.after.is_none_or(|a| s.max_at >= a.0)
    }
}

/// A chunk read from the source.
pub trait Chunk {
    fn first(&self) -> u64;
    /// How many records it holds.
    fn count(&self) -> usize;
    /// The `at` of its `i`-th record.
    fn at(&self, i: usize) -> Micros;
    /// `(seq, target)` of each `ledger.voided` in it, in seq order.
    fn voids(&self) -> &[(u64, u64)];
    /// Its size, for [`HOLD`].
    fn bytes(&self) -> usize;
    fn item(&self, seq: u64) -> Result<Item<'_>>;
}

/// Hand `f` every record of `spans`' chunks that `keep` takes, in `(at, seq)`
/// order, reading each chunk with `load` (by first seq) once, in seq order
/// (again only if it had to be let go, see the module docs).
pub fn run<C: Chunk>(
    spans: &[Span],
    keep: &Keep,
    load: &mut dyn FnMut(u64) -> Result<C>,
    f: &mut dyn FnMut(Item<'_>) -> Result<()>,
) -> Result<()> {
    run_within((HOLD, RECORDS_AHEAD), spans, keep, load, f)
}

/// [`run`], holding at most `limit` bytes of chunks and reading ahead the
/// chunks that would hold back more than `ahead` records (tests make both
/// tiny).
fn run_within<C: Chunk>(
    (limit, ahead): (usize, u64),
    spans: &[Span],
    keep: &Keep,
    load: &mut dyn FnMut(u64) -> Result<C>,
    f: &mut dyn FnMut(Item<'_>) -> Result<()>,
) -> Result<()> {
    let spans: Vec<&Span> = spans.iter().filter(|s| keep.may_keep(s)).collect();
    let early = read_ahead(&spans, ahead);
    let mut waiting = Waiting::within(limit);
    for (k, span) in spans.iter().enumerate() {
        if early[k] {
            let c = load(span.first)?;
            agree(&c, span)?;
            waiting.hold(c, keep);
        }
    }
    // floors[k]: the smallest `(at, first seq)` of chunks k.. still to read
    // (none past the last): no record of theirs sorts before it.
    let mut floors = vec![END; spans.len() + 1];
    for k in (0..spans.len()).rev() {
        let own = if early[k] {
            END
        } else {
            (spans[k].min_at, spans[k].first)
        };
        floors[k] = floors[k + 1].min(own);
    }
    for (k, span) in spans.iter().enumerate() {
        if early[k] {
            continue;
        }
        if floors[k].0 > keep.hi {
            break; // nothing read from here on is at or before --as-of
        }
        let c = load(span.first)?;
        agree(&c, span)?;
        waiting.hold(c, keep);
        waiting.emit(floors[k + 1], load, f)?;
    }
    waiting.emit(END, load, f)
}

/// After every position: the floor once every chunk is read.
const END: Pos = (Micros::MAX, u64::MAX);

/// Which of `spans` are read ahead: those whose floor is below the floor of
/// the chunk holding the record `ahead` records before their first (every
/// record of that chunk, and as a rule of those between, would wait for
/// them). A chunk holding one record dated far ahead (a rules change for
/// next season) holds back nothing but itself.
fn read_ahead(spans: &[&Span], ahead: u64) -> Vec<bool> {
    let behind = |s: &Span| {
        let seq = s.first.checked_sub(ahead)?;
        let j = spans.partition_point(|t| t.first <= seq).checked_sub(1)?;
        Some(spans[j].min_at > s.min_at)
    };
    spans.iter().map(|s| behind(s).unwrap_or(false)).collect()
}

/// A chunk read must be the one its summary describes.
fn agree<C: Chunk>(c: &C, s: &Span) -> Result<()> {
    let within = |i| (s.min_at..=s.max_at).contains(&c.at(i));
    let ok = c.first() == s.first
        && s.last.checked_sub(s.first).map(|d| d + 1) == Some(c.count() as u64)
        && (0..c.count()).all(within)
        && c.voids() == s.voids;
    match ok {
        true => Ok(()),
        false => Err(Error::Corrupt(format!(
            "chunk starting at seq {}: does not match its stored summary",
            s.first
        ))),
    }
}

/// A chunk with records still to come; `None` once let go.
struct Held<C> {
    chunk: Option<C>,
    /// Its records still to come.
    live: usize,
}

/// Positions waiting to be handed out, smallest first: those that come in
/// order (almost all) in a queue, sorted as it is filled, the rest in a heap.
#[derive(Default)]
struct Due {
    queue: VecDeque<Pos>,
    heap: BinaryHeap<Reverse<Pos>>,
}

impl Due {
    fn push(&mut self, p: Pos) {
        match self.queue.back() {
            Some(last) if p < *last => self.heap.push(Reverse(p)),
            _ => self.queue.push_back(p),
        }
    }

    fn first(&self) -> Option<Pos> {
        let q = self.queue.front().copied();
        let h = self.heap.peek().map(|r| r.0);
        match (q, h) {
            (Some(q), Some(h)) => Some(q.min(h)),
            (q, h) => q.or(h),
        }
    }

    /// Remove the smallest ([`Due::first`]).
    fn pop(&mut self) {
        match (self.queue.front(), self.heap.peek()) {
            (Some(q), Some(h)) if h.0 < *q => drop(self.heap.pop()),
            (Some(_), _) => drop(self.queue.pop_front()),
            (None, _) => drop(self.heap.pop()),
        }
    }
}

/// The records read but not yet due, and their chunks.
struct Waiting<C> {
    due: Due,
    held: BTreeMap<u64, Held<C>>,
    /// First seqs of the held chunks still in memory, and their bytes.
    loaded: BTreeSet<u64>,
    bytes: usize,
    /// At most this many bytes held (see [`HOLD`]).
    limit: usize,
}

impl<C> Waiting<C> {
    fn within(limit: usize) -> Self {
        Waiting {
            due: Due::default(),
            held: BTreeMap::new(),
            loaded: BTreeSet::new(),
            bytes: 0,
            limit,
        }
    }
}

impl<C: Chunk> Waiting<C> {
    /// Queue the records of `c` that `keep` takes; hold `c` if there are any.
    fn hold(&mut self, c: C, keep: &Keep) {
        let first = c.first();
        let mut live = 0;
        for i in 0..c.count() {
            let (at, seq) = (c.at(i), first + i as u64);
            if keep.keeps(at, seq) {
                self.due.push((at, seq));
                live += 1;
            }
        }
        if live > 0 {
            self.bytes += c.bytes();
            self.loaded.insert(first);
            let chunk = Some(c);
            self.held.insert(first, Held { chunk, live });
            self.shed(first);
        }
    }

    /// Hand out, in order, every record due that sorts before `floor`, the
    /// smallest `(at, first seq)` of the chunks still to be read.
    fn emit(
        &mut self,
        floor: Pos,
        load: &mut dyn FnMut(u64) -> Result<C>,
        f: &mut dyn FnMut(Item<'_>) -> Result<()>,
    ) -> Result<()> {
        while let Some((at, seq)) = self.due.first() {
            if (at, seq) > floor {
                return Ok(());
            }
            self.due.pop();
            let missing = || Error::Corrupt(format!("record {seq} is missing"));
            let first = *self.held.range(..=seq).next_back().ok_or_else(missing)?.0;
            self.reload(first, load)?;
            let h = self.held.get_mut(&first).ok_or_else(missing)?;
            f(h.chunk.as_ref().ok_or_else(missing)?.item(seq)?)?;
            h.live -= 1;
            if h.live == 0 {
                self.release(first);
            }
        }
        Ok(())
    }

    /// Read chunk `first` again if it was let go.
    fn reload(&mut self, first: u64, load: &mut dyn FnMut(u64) -> Result<C>) -> Result<()> {
        let Some(h) = self.held.get_mut(&first) else {
            return Ok(());
        };
        if h.chunk.is_some() {
            return Ok(());
        }
        let c = load(first)?;
        self.bytes += c.bytes();
        h.chunk = Some(c);
        self.loaded.insert(first);
        self.shed(first);
        Ok(())
    }

    /// Chunk `first` has no record left to come.
    fn release(&mut self, first: u64) {
        if let Some(c) = self.held.remove(&first).and_then(|h| h.chunk) {
            self.bytes -= c.bytes();
            self.loaded.remove(&first);
        }
    }

    /// Let the oldest held chunks but `except` go while over the limit.
    fn shed(&mut self, except: u64) {
        while self.bytes > self.limit {
            let Some(old) = self.loaded.iter().copied().find(|&s| s != except) else {
                return;
            };
            self.loaded.remove(&old);
            if let Some(c) = self.held.get_mut(&old).and_then(|h| h.chunk.take()) {
                self.bytes -= c.bytes();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk in memory: its records' `at` and voids.
    struct Mem {
        first: u64,
        ats: Vec<Micros>,
        voids: Vec<(u64, u64)>,
    }

    impl Chunk for Mem {
        fn first(&self) -> u64 {
            self.first
        }
        fn count(&self) -> usize {
            self.ats.len()
        }
        fn at(&self, i: usize) -> Micros {
            self.ats[i]
        }
        fn voids(&self) -> &[(u64, u64)] {
            &self.voids
        }
        fn bytes(&self) -> usize {
            100
        }
        fn item(&self, seq: u64) -> Result<Item<'_>> {
            let at = self.ats[(seq - self.first) as usize];
            let (recorded_at, bytes) = (0, &[][..]);
            Ok(Item::Stored {
                seq,
                at,
                recorded_at,
                bytes,
            })
        }
    }

    /// `n` records in chunks of 1 to 9, `at` rising with seq but every
    /// seventh record up to `late` seqs' worth early; a void every 50th.
    fn chunks(n: u64, late: i64) -> Vec<Mem> {
        let (mut out, mut seq, mut x) = (Vec::new(), 1u64, 7u64);
        while seq <= n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (1 + (x >> 33) % 9).min(n + 1 - seq);
            let at = |s: u64| match s % 7 {
                0 => s as i64 * 10 - ((x >> 20) as i64 % (late * 10 + 1)),
                _ => s as i64 * 10,
            };
            let ats: Vec<Micros> = (seq..seq + len).map(at).collect();
            let voids = (seq..seq + len)
                .filter(|s| s % 50 == 0)
                .map(|s| (s, s - 3))
                .collect();
            out.push(Mem {
                first: seq,
                ats,
                voids,
            });
            seq += len;
        }
        out
    }

    fn span(c: &Mem) -> Span {
        Span {
            first: c.first,
            last: c.first + c.ats.len() as u64 - 1,
            min_at: *c.ats.iter().min().unwrap(),
            max_at: *c.ats.iter().max().unwrap(),
            voids: c.voids.clone(),
        }
    }

    /// What the one pass hands out, and how many chunks it read (holding
    /// at most `limit` bytes, reading ahead past `ahead` records).
    fn streamed(
        cs: &[Mem],
        spans: &[Span],
        keep: &Keep,
        (limit, ahead): (usize, u64),
    ) -> Result<(Vec<Pos>, usize)> {
        let mut loads = 0;
        let mut load = |first: u64| {
            loads += 1;
            let c = cs.iter().find(|c| c.first == first).unwrap();
            let (ats, voids) = (c.ats.clone(), c.voids.clone());
            Ok(Mem { first, ats, voids })
        };
        let mut got = Vec::new();
        let mut f = |item: Item<'_>| {
            if let Item::Stored { seq, at, .. } = item {
                got.push((at, seq));
            }
            Ok(())
        };
        run_within((limit, ahead), spans, keep, &mut load, &mut f)?;
        Ok((got, loads))
    }

    /// What `keep` takes, sorted: the fold order.
    fn sorted(cs: &[Mem], keep: &Keep) -> Vec<Pos> {
        let mut all: Vec<Pos> = cs
            .iter()
            .flat_map(|c| (0..c.count()).map(move |i| (c.ats[i], c.first + i as u64)))
            .filter(|&(at, seq)| keep.keeps(at, seq))
            .collect();
        all.sort_unstable();
        all
    }

    #[test]
    fn one_pass_hands_out_what_keep_takes_in_at_seq_order() {
        for late in [0, 3, 40, 2000] {
            let cs = chunks(3000, late);
            let spans: Vec<Span> = cs.iter().map(span).collect();
            let voided = cs
                .iter()
                .flat_map(|c| c.voids.iter().map(|v| v.1))
                .collect();
            let keeps = [
                Keep {
                    hi: Micros::MAX,
                    ..Keep::default()
                },
                Keep {
                    hi: 20_000,
                    voided,
                    ..Keep::default()
                },
                Keep {
                    after: Some((9_000, 900)),
                    hi: 25_000,
                    ..Keep::default()
                },
                // A known-at cut in the middle of a chunk.
                Keep {
                    after: Some((4_000, 400)),
                    hi: Micros::MAX,
                    known: Some(1_999),
                    ..Keep::default()
                },
            ];
            for keep in &keeps {
                let want = sorted(&cs, keep);
                assert!(want.len() > 1000, "{late}");
                // Plenty of room: each chunk read once at most.
                let (got, loads) = streamed(&cs, &spans, keep, (usize::MAX, u64::MAX)).unwrap();
                assert_eq!(got, want, "late {late}, {keep:?}");
                assert!(loads <= cs.len(), "{loads} reads of {} chunks", cs.len());
                // Room for two chunks: some are let go and read again.
                let (got, loads) = streamed(&cs, &spans, keep, (200, u64::MAX)).unwrap();
                assert_eq!(got, want, "late {late}, {keep:?}, held 200 bytes");
                if late >= 40 && keep.after.is_none() {
                    assert!(loads > cs.len(), "late {late}: {loads} reads");
                }
                // Reading ahead the chunks that hold 30 records back.
                let (got, _) = streamed(&cs, &spans, keep, (200, 30)).unwrap();
                assert_eq!(got, want, "late {late}, {keep:?}, read ahead");
            }
        }
    }

    /// An early record appended at the end of the log: its chunk is read
    /// first, and every chunk is read once however little is held; without
    /// reading ahead, the chunks it holds back are let go and read again.
    #[test]
    fn a_chunk_far_behind_is_read_ahead_and_nothing_is_read_twice() {
        let mut cs = chunks(3000, 0);
        let first = cs.last().map_or(1, |c| c.first + c.ats.len() as u64);
        cs.push(Mem {
            first,
            ats: vec![50, 30_001],
            voids: vec![],
        });
        let spans: Vec<Span> = cs.iter().map(span).collect();
        let keep = Keep {
            hi: Micros::MAX,
            ..Keep::default()
        };
        let want = sorted(&cs, &keep);
        let (got, loads) = streamed(&cs, &spans, &keep, (200, 100)).unwrap();
        assert_eq!(got, want);
        assert_eq!(loads, cs.len());
        let (got, loads) = streamed(&cs, &spans, &keep, (200, u64::MAX)).unwrap();
        assert_eq!(got, want);
        assert!(loads > cs.len() + cs.len() / 2, "{loads} reads");
    }

    /// A record dated far ahead (a rules change for next season) holds back
    /// only its own chunk: nothing is read ahead for it.
    #[test]
    fn a_record_dated_far_ahead_makes_nothing_read_ahead() {
        let mut cs = chunks(3000, 0);
        cs[0].ats[0] = 10_000_000;
        let spans: Vec<Span> = cs.iter().map(span).collect();
        let refs: Vec<&Span> = spans.iter().collect();
        assert!(read_ahead(&refs, 100).iter().all(|&early| !early));
        let keep = Keep {
            hi: Micros::MAX,
            ..Keep::default()
        };
        let (got, loads) = streamed(&cs, &spans, &keep, (200, 100)).unwrap();
        assert_eq!(got, sorted(&cs, &keep));
        assert_eq!(loads, cs.len());
    }

    #[test]
    fn due_hands_out_the_smallest_first_whatever_the_order_pushed() {
        let mut due = Due::default();
        let (mut all, mut x) = (Vec::new(), 1u64);
        for i in 0..5000i64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            let at = if x >> 60 == 0 {
                i - (x >> 40) as i64 % 300
            } else {
                i
            };
            all.push((at, i as u64));
            due.push((at, i as u64));
            if x >> 61 == 1 {
                // Take some out on the way, as the fold does.
                let first = due.first().unwrap();
                all.sort_unstable();
                assert_eq!(first, all.remove(0));
                due.pop();
            }
        }
        assert!(!due.heap.is_empty() && !due.queue.is_empty());
        all.sort_unstable();
        let mut got = Vec::new();
        while let Some(p) = due.first() {
            got.push(p);
            due.pop();
        }
        assert_eq!(got, all);
    }

    #[test]
    fn a_chunk_that_does_not_match_its_summary_fails_the_fold() {
        let cs = chunks(500, 30);
        let keep = Keep {
            hi: Micros::MAX,
            ..Keep::default()
        };
        let damages: [fn(&mut Span); 4] = [
            |s| s.min_at += 1,
            |s| s.max_at -= 1,
            |s| s.last += 1,
            |s| s.voids.push((s.first, 1)),
        ];
        for damage in damages {
            let mut spans: Vec<Span> = cs.iter().map(span).collect();
            damage(&mut spans[20]);
            let e = streamed(&cs, &spans, &keep, (usize::MAX, u64::MAX)).unwrap_err();
            let want = format!("chunk starting at seq {}: does not match", spans[20].first);
            assert!(e.to_string().contains(&want), "{e}");
        }
    }
}
