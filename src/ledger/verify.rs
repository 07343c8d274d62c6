//! `verify`: recompute every record's hash and header keys, link the chunks.
//!
//! Three threads on the two cores: the caller's thread reads chunks from their
//! segments (found through the index, see `Ledger::batches_of`) and hands them out in
//! units of [`UNIT`] chunks; two workers check units independently (each chunk
//! stores the `prev` of its first record, so no unit needs another); the caller
//! links the results back in key order. Reading overlaps checking, and at most
//! [`IN_FLIGHT`] units wait, so memory stays bounded by [`BATCH_BYTES`] plus them.
//!
//! A unit's records are hashed together ([`lanes::Lanes`]): every record's
//! canonical form and every event (its content key), across records on the SIMD
//! lanes, instead of one block at a time.

use std::collections::BTreeMap;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use super::chunk::{self, RecordView};
use super::grammar::Grammar;
use super::{canonical, idem, lanes, published, segment, summary, Ledger, Result, VerifyReport};
use crate::error::Error;

/// Chunks per unit of work: up to 1 MiB raw, hundreds to thousands of hashes, so
/// each `hash_many` group fills the lanes. A worker's buffers grow with it (about
/// 0.6 KiB per record: canonical forms, views, hashes), hence not more.
const UNIT: usize = 4;
/// Units read ahead of the workers (up to four chunks each), and the bytes read at a
/// time: the chunks held are at most one batch plus the units waiting, so the
/// 16 MiB batches of one thread that reads then checks would double memory here.
const IN_FLIGHT: usize = 16;
const BATCH_BYTES: usize = 4 * 1024 * 1024;
const WORKERS: usize = 2;

/// Expected published head, if `verify --expect` gave one.
type Expect = Option<(u64, [u8; 32])>;
/// A unit: its number, and its chunks as (key seq, bytes).
type Unit = (usize, super::ChunkBatch);
/// Each chunk's check, or why it could not be decoded.
type Checked = Vec<(u64, std::result::Result<ChunkCheck, String>)>;

impl Ledger {
    /// Check the whole chain, each record's header read back from its event
    /// by `grammar` (the event layer's, lent by the public `Ledger::verify`);
    /// with `expect`, that a published head is still in it.
    pub(crate) fn verify_lent(
        &self,
        expect: Expect,
        grammar: &dyn Grammar,
    ) -> Result<VerifyReport> {
        let head = self.head()?;
        let mut chain = Chain::new(self);
        let (work_tx, work_rx) = mpsc::sync_channel::<Unit>(IN_FLIGHT);
        // Only the workers hold the receiver: if they all stopped (a panic), the
        // reader's send fails instead of waiting forever, and the scope re-raises.
        let work_rx = Arc::new(Mutex::new(work_rx));
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<(usize, Checked)>();
            for _ in 0..WORKERS {
                let (rx, tx) = (Arc::clone(&work_rx), done_tx.clone());
                scope.spawn(move || work(&rx, &tx, expect, grammar));
            }
            drop((done_tx, work_rx));
            let mut order = Reorder::default();
            let read = self.batches_of(BATCH_BYTES, (1, head.seq), &mut |batch| {
                let mut batch = batch.into_iter().peekable();
                while batch.peek().is_some() {
                    let unit = batch.by_ref().take(UNIT).collect();
                    work_tx
                        .send((order.sent, unit))
                        .map_err(|_| Error::Internal("verify's workers stopped".into()))?;
                    order.sent += 1;
                }
                order.take(done_rx.try_iter(), &mut chain);
                Ok(())
            });
            drop(work_tx);
            order.take(done_rx.iter(), &mut chain);
            read
        })?;
        let mut report = chain.report(head, expect);
        match self.segments_past_head()? {
            Past::None => {}
            Past::One(seq) => report.unfinished = Some(seq),
            Past::Appends(problem) => report.problems.push(problem),
        }
        Ok(report)
    }

    /// The segments named after the head. Two appends' or more: `HEAD`
    /// (with `index` and `fps`, or alone) went back, to a copy older than
    /// the ledger, and the records of the appends since are out of every
    /// answer. One append's, the one after the head: what an append killed
    /// before it published leaves (the next append clears it), or a `HEAD`
    /// one append behind (the next append refuses it, from what sled holds,
    /// which a reader does not open). The segments are listed before `HEAD`
    /// is read again: a segment is named `S` only once head `S - 1` was
    /// published, and an append made meanwhile moves `HEAD` past its own.
    fn segments_past_head(&self) -> Result<Past> {
        let listed = segment::names_beyond(&self.path, self.head()?.seq)?;
        if listed.is_empty() {
            return Ok(Past::None);
        }
        let now = published::read_published(&self.path)?.head.seq;
        let past: Vec<u64> = listed.into_iter().filter(|&s| s > now).collect();
        match past[..] {
            [] => return Ok(Past::None),
            [one] if one == now + 1 => return Ok(Past::One(one)),
            _ => {}
        }
        let (first, last) = (past[0], past[past.len() - 1]);
        let msg = format!(
            "{} says the head is record {now}, but {} appends follow it (segments {} to {}, \
             from seq {first} on): HEAD was put back from an older copy, and \
             their records are out of every answer; restore HEAD, index and fps with the \
             rest of the directory",
            published::head_file(&self.path).display(),
            past.len(),
            segment::file_of(&self.path, first).display(),
            segment::file_of(&self.path, last).display(),
        );
        Ok(Past::Appends((now + 1, msg)))
    }

    /// Why the chunk's entry in the index (its summary) or its key
    /// fingerprints in `fps` are not what its records give, if they are
    /// not: a wrong summary would change point-in-time answers, a wrong
    /// fingerprint could let an append record an event twice.
    fn published_differs(&self, c: &ChunkCheck) -> Result<Option<String>> {
        let summary = {
            let index = self.index.borrow();
            let i = index.partition_point(|e| e.first() < c.first_seq);
            let entry = index.get(i).filter(|e| e.first() == c.first_seq);
            entry.map(|e| e.summary.encode())
        };
        let last = c.first_seq + c.count.max(1) - 1;
        let fps = published::read_fps(&self.path, c.first_seq, last)?;
        let stored = [
            (summary, &c.summary, "chunk summary"),
            (fps, &c.fps, "key fingerprints"),
        ];
        for (have, want, what) in stored {
            match have {
                None => return Ok(Some(format!("stored {what}: missing"))),
                Some(v) if v != *want => {
                    return Ok(Some(format!(
                        "stored {what}: do not match the chunk's records"
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(None)
    }
}

/// The segments named after the head ([`Ledger::segments_past_head`]).
enum Past {
    None,
    /// One, the seq after the head's: a killed append's, or a `HEAD` one
    /// append behind.
    One(u64),
    /// More: the problem of a `HEAD` gone back.
    Appends((u64, String)),
}

/// A worker: check units until the reader hangs up.
fn work(
    rx: &Mutex<Receiver<Unit>>,
    tx: &mpsc::Sender<(usize, Checked)>,
    expect: Expect,
    grammar: &dyn Grammar,
) {
    let mut scratch = Scratch::default();
    loop {
        let unit = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok((n, chunks)) = unit else { return };
        if tx
            .send((n, scratch.check(&chunks, expect, grammar)))
            .is_err()
        {
            return;
        }
    }
}

/// Checked units come back in any order; [`Chain`] takes them in key order.
#[derive(Default)]
struct Reorder {
    sent: usize,
    next: usize,
    waiting: BTreeMap<usize, Checked>,
}

impl Reorder {
    fn take(&mut self, done: impl Iterator<Item = (usize, Checked)>, chain: &mut Chain<'_>) {
        for (n, checked) in done {
            self.waiting.insert(n, checked);
            while let Some(checked) = self.waiting.remove(&self.next) {
                self.next += 1;
                checked.into_iter().for_each(|(k, c)| chain.link(k, c));
            }
        }
    }
}

/// The sequential part: each chunk must start where the last ended, with the
/// last record's hash as its `prev`.
struct Chain<'l> {
    /// For the chunks' summaries and fingerprints, checked as they are linked.
    ledger: &'l Ledger,
    problems: Vec<(u64, String)>,
    next: u64,
    last: [u8; 32],
    /// The latest `recorded_at` linked so far, as microseconds, and the
    /// last seq of the chunk that holds it.
    recorded_at: (i64, u64),
    expected_found: bool,
    /// The seqs of each chunk that could not be read, first to last (the
    /// last one's end open, `u64::MAX`, until the next chunk is linked):
    /// its records are named once, not also as missing, and a head or an
    /// expected head among them is said to be unchecked.
    unread: Vec<(u64, u64)>,
}

impl<'l> Chain<'l> {
    fn new(ledger: &'l Ledger) -> Self {
        Chain {
            ledger,
            problems: Vec::new(),
            next: 1,
            last: [0; 32],
            recorded_at: (i64::MIN, 0),
            expected_found: false,
            unread: Vec::new(),
        }
    }

    fn link(&mut self, key_seq: u64, c: std::result::Result<ChunkCheck, String>) {
        let next = self.next;
        let c = match c {
            Ok(c) => c,
            Err(e) => {
                if key_seq == next {
                    self.unread.push((key_seq, u64::MAX));
                }
                return self.problems.push((key_seq, e));
            }
        };
        if c.first_seq < next {
            let what = format!("chunk overlaps records before it (expected seq {next} next)");
            return self.problems.push((c.first_seq, what));
        }
        if let Some(open) = self.unread.last_mut().filter(|r| r.1 == u64::MAX) {
            // The records before this chunk are in the one that could not
            // be read: neither missing nor linked.
            open.1 = c.first_seq.saturating_sub(1);
        } else if c.first_seq != next {
            let what = format!(
                "records {next}..{} are missing",
                c.first_seq.saturating_sub(1)
            );
            self.problems.push((next, what));
        } else if c.prev != self.last {
            let what = format!("prev does not match the hash of record {}", next - 1);
            self.problems.push((c.first_seq, what));
        } else if c.recorded_at < self.recorded_at.0 {
            // A known-at time cuts the records recorded by then as a prefix
            // of the seqs (`Ledger::seq_recorded_by`).
            let what = format!(
                "recorded at {}, before record {} was (`recorded_at` never goes back)",
                crate::time::format(c.recorded_at),
                self.recorded_at.1
            );
            self.problems.push((c.first_seq, what));
        }
        if c.recorded_at >= self.recorded_at.0 {
            self.recorded_at = (c.recorded_at, c.first_seq + c.count.saturating_sub(1));
        }
        match self.ledger.published_differs(&c) {
            Ok(None) => {}
            Ok(Some(why)) => self.problems.push((c.first_seq, why)),
            Err(e) => self.problems.push((c.first_seq, e.to_string())),
        }
        self.problems.extend(c.problems);
        self.expected_found |= c.expected_found;
        self.next = c.first_seq + c.count;
        self.last = c.last.unwrap_or(self.last);
    }

    /// The head must be the last record; `expect` must have been seen.
    fn report(mut self, head: super::Head, expect: Expect) -> VerifyReport {
        let records = self.next - 1;
        let last = self.last;
        // A last chunk that could not be read holds the records up to the head.
        if let Some(open) = self.unread.last_mut().filter(|r| r.1 == u64::MAX) {
            open.1 = head.seq;
        }
        let unread_holding = |seq: u64| {
            (self.unread.iter())
                .find(|&&(from, to)| (from..=to).contains(&seq))
                .map(|&(from, _)| from)
        };
        if let Some(from) = unread_holding(head.seq).filter(|_| head.seq > 0) {
            let why = format!(
                "head {head} not checked: its record is in the chunk from seq {from}, which \
                 could not be read"
            );
            self.problems.push((head.seq, why));
        } else if records != head.seq || last != head.hash {
            self.problems.push((
                head.seq,
                format!(
                    "head says {head} but the last stored record is {records} {}",
                    canonical::hex(&last)
                ),
            ));
        }
        // The empty head, `0` and a hash of zeros, is where every chain starts:
        // what `head` prints before the first append is in every ledger.
        let genesis = |&(s, h): &(u64, [u8; 32])| s == 0 && h == [0; 32];
        if let Some((s, h)) = expect.filter(|e| !self.expected_found && !genesis(e)) {
            let h = canonical::hex(&h);
            let why = match unread_holding(s) {
                Some(from) => format!(
                    "published head {s}:{h} cannot be checked: its record is in the chunk from \
                     seq {from}, which could not be read"
                ),
                None if s > records => format!(
                    "published head {s}:{h} is not in this ledger: it holds {records} record(s): \
                     cut back since, or the head is another ledger's"
                ),
                None => format!(
                    "published head {s}:{h} is not in this ledger: its record at that seq has \
                     another hash: rewritten since, or the head is another ledger's"
                ),
            };
            self.problems.push((s, why));
        }
        self.problems.sort_by_key(|(s, _)| *s);
        VerifyReport {
            records,
            head,
            unfinished: None,
            checkpoints: 0,
            damaged_checkpoints: 0,
            problems: self.problems,
        }
    }
}

/// What checking one chunk on its own finds.
struct ChunkCheck {
    first_seq: u64,
    count: u64,
    /// The stored `prev` of its first record.
    prev: [u8; 32],
    /// The hash of its last record.
    last: Option<[u8; 32]>,
    /// Its records' `recorded_at`, as microseconds.
    recorded_at: i64,
    problems: Vec<(u64, String)>,
    expected_found: bool,
    /// Its summary and its records' key fingerprints, as the index and `fps`
    /// should hold them.
    summary: Vec<u8>,
    fps: Vec<u8>,
}

/// A worker's buffers, reused from unit to unit (fresh megabytes each time
/// would be fresh pages for the kernel to zero).
#[derive(Default)]
struct Scratch {
    /// Every record's canonical form, back to back.
    records: Vec<u8>,
    ends: Vec<usize>,
    hashes: Vec<[u8; 32]>,
    lanes: lanes::Lanes,
}

impl Scratch {
    /// Decode chunks and check every record's hash and header, hashing all the
    /// records' canonical forms and events at once.
    fn check(
        &mut self,
        chunks: &[(u64, super::Stored)],
        expect: Expect,
        grammar: &dyn Grammar,
    ) -> Checked {
        // Unpacked here, on the workers, not on the reading thread.
        let raws: Vec<_> = chunks.iter().map(|(k, v)| chunk::unpack(v, *k)).collect();
        let decoded: Vec<_> = chunks
            .iter()
            .zip(&raws)
            .map(|((k, _), raw)| match raw {
                Ok(raw) => chunk::decode(raw, *k).map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            })
            .collect();
        let views = || decoded.iter().flatten();
        self.records.clear();
        self.ends.clear();
        for c in views() {
            let ra = c.recorded_at;
            for r in &c.records {
                canonical::push_record(&mut self.records, r.event, None, &r.prev, ra, r.seq);
                self.ends.push(self.records.len());
            }
        }
        let mut inputs: Vec<&[u8]> = Vec::with_capacity(2 * self.ends.len());
        let mut start = 0;
        for &end in &self.ends {
            inputs.push(&self.records[start..end]);
            start = end;
        }
        inputs.extend(views().flat_map(|c| c.records.iter().map(|r| r.event)));
        self.lanes.hash(&inputs, &mut self.hashes);
        let (record_hashes, event_hashes) = self.hashes.split_at(self.ends.len());
        let mut hashed = record_hashes.iter().zip(event_hashes);
        chunks
            .iter()
            .zip(&decoded)
            .map(|((k, _), c)| {
                let checked = match c {
                    Ok(c) => Ok(check_records(c, &mut hashed, expect, grammar)),
                    Err(e) => Err(e.clone()),
                };
                (*k, checked)
            })
            .collect()
    }
}

/// Compare a decoded chunk's records with their hashes, (record, event) in order.
fn check_records<'h>(
    c: &chunk::ChunkView,
    hashed: &mut impl Iterator<Item = (&'h [u8; 32], &'h [u8; 32])>,
    expect: Expect,
    grammar: &dyn Grammar,
) -> ChunkCheck {
    let mut problems = Vec::new();
    let mut expected_found = false;
    for (r, (h, event_hash)) in c.records.iter().zip(hashed) {
        if *h != r.hash {
            problems.push((
                r.seq,
                "stored hash does not match the record's content".into(),
            ));
        } else if let Some(why) = header_mismatch(r, event_hash, grammar) {
            problems.push((r.seq, why));
        }
        if expect.is_some_and(|(s, eh)| s == r.seq && eh == r.hash) {
            expected_found = true;
        }
    }
    ChunkCheck {
        first_seq: c.first_seq,
        count: c.records.len() as u64,
        prev: c.prev,
        last: c.records.last().map(|r| r.hash),
        recorded_at: c.recorded_at_micros,
        problems,
        expected_found,
        summary: summary::Summary::of(c).encode(),
        fps: idem::encode(c.records.iter().map(|r| idem::fingerprint(&r.idem))),
    }
}

/// The fold reads a record's header (`at`, void target, keys) without parsing the
/// event, and the hash covers only the event: check the header agrees with it.
/// `event_hash` is BLAKE3 of the event; the content key is its first 16 bytes.
/// The event's own header is read by `grammar` ([`Grammar::header`]); runs
/// only once the hash matched.
fn header_mismatch(r: &RecordView, event_hash: &[u8; 32], grammar: &dyn Grammar) -> Option<String> {
    let env = match grammar.header(r.event) {
        Ok(env) => env,
        Err(e) => return Some(format!("stored event cannot be decoded: {e}")),
    };
    let content = chunk::content_key(event_hash);
    let idem = env.id.as_deref().map(chunk::idem_of_id).unwrap_or(content);
    if env.at != r.at || env.void_target != r.void_target || content != r.content || idem != r.idem
    {
        return Some("record header (at, void target or keys) does not match its event".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk of one record, seq `first`, linked by hashes `[first - 1; 32]`
    /// to `[first; 32]`, recorded at `recorded_at`.
    fn one(first: u8, recorded_at: i64) -> ChunkCheck {
        ChunkCheck {
            first_seq: u64::from(first),
            count: 1,
            prev: [first - 1; 32],
            last: Some([first; 32]),
            recorded_at,
            problems: Vec::new(),
            expected_found: false,
            summary: Vec::new(),
            fps: Vec::new(),
        }
    }

    #[test]
    fn a_chunk_recorded_before_the_one_before_it_is_a_problem() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::init(&dir.path().join("l")).unwrap();
        let mut chain = Chain::new(&ledger);
        chain.link(1, Ok(one(1, 2_000)));
        chain.link(2, Ok(one(2, 1_000)));
        chain.link(3, Ok(one(3, 2_000)));
        chain.link(4, Ok(one(4, 1_500)));
        let back: Vec<(u64, &str)> = (chain.problems.iter())
            .filter(|(_, why)| why.contains("`recorded_at` never goes back"))
            .map(|(seq, why)| (*seq, why.as_str()))
            .collect();
        assert_eq!(back.len(), 2, "{:?}", chain.problems);
        assert_eq!(back[0].0, 2);
        assert_eq!(back[1].0, 4);
        // Each names the latest record before it: record 1, then record 3.
        assert!(back[0].1.contains("before record 1 was"), "{}", back[0].1);
        assert!(back[1].1.contains("before record 3 was"), "{}", back[1].1);
    }
}
