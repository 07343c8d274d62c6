//! The records one append adds ([`Pending`]): each parsed event checked
//! against the idempotency index ([`Recorded`]), pushed into chunks, packed
//! and stored beyond the head, with where it came from (file and line) for
//! the messages of later checks.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::RangeInclusive;
use std::sync::mpsc::Receiver;

use super::chunk::{self, ChunkWriter};
use super::grammar::Grammar;
use super::parse::{incoming, refused, Incoming, Sent};
use super::{idem, segment, Head, Ledger};
use crate::error::{Error, Origin, Result};
use crate::time::{self, Micros};

/// The writing side of an append: add every parsed batch, in order, until the
/// parser thread is done or an item is a problem. The idempotency index
/// (`index`) is built when the first event comes, while the parser thread
/// goes on: an input refused at its first line, or empty, needs none.
pub(super) fn take_batches(
    rx: Receiver<Sent>,
    pending: &mut Pending,
    index: &mut Option<idem::Index>,
    names: &[String],
) -> Result<()> {
    for sent in rx {
        let batch = match sent {
            Sent::Lines(parsed) => incoming(parsed)?,
            Sent::Problem(e) => return Err(e),
        };
        if batch.is_empty() {
            continue;
        }
        let index = match index {
            Some(index) => index,
            None => index.insert(pending.ledger.idem_index(pending.first - 1)?),
        };
        index.warm(batch.iter().map(|inc| idem::fingerprint(&inc.keys.idem)));
        for item in batch {
            pending.add(index, item, names)?;
        }
    }
    Ok(())
}

/// Records being added by one append.
pub(super) struct Pending<'l> {
    pub(super) ledger: &'l Ledger,
    /// How the input's events are read (the event layer's).
    pub(super) grammar: &'l dyn Grammar,
    /// The seq of this append's first record.
    pub(super) first: u64,
    pub(super) writer: ChunkWriter,
    /// Where this append's chunks go.
    pub(super) segment: segment::Writer,
    /// The buffer each chunk is packed into ([`Ledger::put_chunk`]).
    pub(super) packed: Vec<u8>,
    /// Each record in `writer`'s chunk, as pushed.
    pub(super) current: Vec<Pushed>,
    /// The stored chunk a fingerprint match last looked into (re-appending a
    /// file matches every record, chunk after chunk).
    pub(super) seen: Option<Seen>,
    pub(super) origins: Origins,
    /// (seq, target) of each new `ledger.voided`, to name it when a record that
    /// depends on its target no longer validates.
    pub(super) voids: Vec<(u64, u64)>,
    /// The targets of every void: the ledger's, then this append's so far.
    pub(super) voided: BTreeSet<u64>,
    pub(super) already: u64,
    /// How many of `already` are copies of voided records.
    pub(super) already_voided: u64,
    /// The first of them (see [`AppendReport::voided_copies`](super::AppendReport)).
    pub(super) voided_copies: Vec<(String, u64, u64)>,
    /// Events that copy an earlier event of this append's input, and the
    /// first of them (see [`AppendReport::repeated`](super::AppendReport)).
    pub(super) repeated: u64,
    pub(super) first_repeat: Option<[(String, u64); 2]>,
    /// How many new records of each type.
    pub(super) kinds: BTreeMap<String, u64>,
}

/// The refusal of an event dated `at`, after the append's `now` by more than
/// [`time::AHEAD_MAX`].
fn ahead(at: Micros, now: Micros) -> String {
    format!(
        "`at` {} is after the time it is recorded, {}: an event is recorded once it has \
         happened (is the year right?); `at` may be up to 14 hours ahead, for a date east of UTC",
        time::format_short(at),
        time::format(now)
    )
}

/// What the records holding an incoming event's idempotency key say of it.
///
/// A voided record gives up its key: an event with the key of a voided record
/// and other content is new (a correction may keep the id of what it
/// corrects). An exact copy of any record, voided or not, is already
/// recorded: appending the same file again never changes the ledger, and a
/// re-import of the files a correction was made from does not bring the
/// voided event back.
pub(super) enum Recorded {
    /// No record holds the key, or only voided ones with other content.
    New,
    /// A record holds the key with the same content (record `seq`);
    /// `voided`: that record is voided.
    Same { seq: u64, voided: bool },
    /// A live record holds the key with other content: its seq.
    Conflict(u64),
}

impl Pending<'_> {
    pub(super) fn add(
        &mut self,
        index: &mut idem::Index,
        inc: Incoming,
        names: &[String],
    ) -> Result<()> {
        let origin = || Origin {
            file: Some(names[inc.file].to_string()),
            line: Some(inc.line),
            id: inc.id.clone(),
            kind: Some(inc.kind.clone()),
            ..Origin::default()
        };
        let fp = idem::fingerprint(&inc.keys.idem);
        match self.recorded(index, fp, &inc)? {
            Recorded::New => {}
            Recorded::Same { seq, voided } if seq >= self.first && !voided => {
                // A copy of a line of this very input.
                let (file, line) = self.origins.get(seq - self.first);
                let first = [
                    (names[file].clone(), line),
                    (names[inc.file].clone(), inc.line),
                ];
                self.first_repeat.get_or_insert(first);
                self.repeated += 1;
                return Ok(());
            }
            Recorded::Same { seq, voided } => {
                self.already += 1;
                self.already_voided += u64::from(voided);
                if voided && self.voided_copies.len() < super::COPIES_SHOWN {
                    let copy = (names[inc.file].clone(), inc.line, seq);
                    self.voided_copies.push(copy);
                }
                return Ok(());
            }
            Recorded::Conflict(seq) => {
                // The line's own payload comes first (see `first_problem`).
                // A screened line's payload may not be decoded yet: decode it.
                if let Err(r) = self.grammar.parser().whole(&inc.canonical) {
                    return Err(refused(&names[inc.file], inc.line, r));
                }
                // A record of this append: not recorded yet, so no seq to
                // correct; its line is the other place to look.
                if seq >= self.first {
                    let (file, line) = self.origins.get(seq - self.first);
                    let msg = format!(
                        "this id is given twice in this append with different content (first at {}:{line}); give each event its own id",
                        names[file]
                    );
                    return Err(Error::invalid(origin(), msg));
                }
                let differs = self
                    .ledger
                    .event_at(seq)
                    .ok()
                    .and_then(|recorded| first_difference(&recorded, &inc.canonical));
                return Err(Error::IdConflict {
                    origin: Box::new(origin()),
                    id: inc.id.unwrap_or_default(),
                    seq,
                    differs: differs.map(|d| format!(": {d}")).unwrap_or_default(),
                });
            }
        }
        let now = self.writer.recorded_at();
        if inc.at > now.saturating_add(time::AHEAD_MAX) {
            return Err(Error::invalid(origin(), ahead(inc.at, now)));
        }
        // Target 0 would be stored as "not a void" (chunk.rs), so refuse it here.
        if inc.void == Some(0) {
            return Err(Error::invalid(
                origin(),
                "void target 0 is not an earlier record",
            ));
        }
        index.insert(fp, self.writer.next_seq());
        if let Some(target) = inc.void {
            self.voids.push((self.writer.next_seq(), target));
            self.voided.insert(target);
        }
        (self.writer).push((inc.at, inc.void), inc.keys, &inc.canonical);
        self.current.push(Pushed {
            at: inc.at,
            void: inc.void,
            idem: inc.keys.idem,
            content: inc.keys.content,
        });
        self.origins.push(inc.file, inc.line);
        *self.kinds.entry(inc.kind).or_default() += 1;
        if self.writer.is_full() {
            self.flush()?;
        }
        Ok(())
    }

    /// `e`, a problem found while reading the input, after the problem of an
    /// earlier line whose payload does not decode, if one does not (left to the
    /// check fold, see [`Ledger::write_pending`]); `e` alone if the records
    /// cannot be stored or read back.
    pub(super) fn first_problem(&mut self, e: Error, names: &[String]) -> Error {
        let Ok(last) = self.flush() else {
            return e;
        };
        match self.bad_payload(&[self.first..=last.seq], names) {
            // Stored, so before every line `e` names.
            Ok(Some(bad)) => bad.followed_by(e),
            _ => e,
        }
    }

    /// The refusal of the first record of `ranges` (ascending, disjoint seq
    /// ranges of records stored by this append) whose payload does not decode
    /// ([`ParseLine::whole`](super::grammar::ParseLine::whole)), naming its
    /// file and line. Reads the chunks beyond the head, each once however many
    /// ranges it holds ([`Ledger::walk_chunks`]): an append that voids many of
    /// its own records checks them in one walk.
    pub(super) fn bad_payload(
        &self,
        ranges: &[RangeInclusive<u64>],
        names: &[String],
    ) -> Result<Option<Error>> {
        // The least seq of `ranges` at or after `s`.
        let next = |s: u64| {
            let i = ranges.partition_point(|r| *r.end() < s);
            let r = ranges[i..].iter().find(|r| !r.is_empty())?;
            Some(s.max(*r.start()))
        };
        let wanted = |seq: u64| next(seq) == Some(seq);
        let mut parser = self.grammar.parser();
        let mut bad = None;
        self.ledger.walk_chunks(next, &mut |c| {
            for r in c?.records.iter().filter(|r| wanted(r.seq)) {
                if let Err(refusal) = parser.whole(r.event) {
                    bad = Some((r.seq, refusal));
                    return Ok(false);
                }
            }
            Ok(true)
        })?;
        Ok(bad.map(|(seq, r)| {
            let (file, line) = self.origins.get(seq - self.first);
            refused(&names[file], line, r)
        }))
    }

    /// The `type` and `id` of record `seq`, this append's, as far as they
    /// can be read: for a refusal of it that names neither.
    pub(super) fn names_of(&self, seq: u64) -> (Option<String>, Option<String>) {
        let seqs = BTreeSet::from([seq]);
        let found = self
            .ledger
            .record_fields(&seqs, |r| self.grammar.names(r.event));
        found.into_values().next().unwrap_or_default()
    }

    /// What the records already holding `inc`'s key say of it (see
    /// [`Recorded`]): the index gives candidates by fingerprint, the records
    /// themselves decide.
    pub(super) fn recorded(
        &mut self,
        index: &idem::Index,
        fp: u64,
        inc: &Incoming,
    ) -> Result<Recorded> {
        let mut conflict = None;
        for seq in index.candidates(fp) {
            let (k, content) = self.keys_of(seq)?;
            if k != inc.keys.idem {
                continue;
            }
            let voided = self.voided.contains(&seq);
            if content == inc.keys.content {
                return Ok(Recorded::Same { seq, voided });
            }
            if !voided {
                conflict = Some(seq);
            }
        }
        Ok(conflict.map_or(Recorded::New, Recorded::Conflict))
    }

    /// (idem, content) of record `seq`: from the chunk being filled, or stored.
    pub(super) fn keys_of(&mut self, seq: u64) -> Result<([u8; 16], [u8; 16])> {
        let first = self.writer.first_seq;
        if seq >= first {
            return self
                .current
                .get((seq - first) as usize)
                .map(|r| (r.idem, r.content))
                .ok_or_else(|| {
                    Error::Storage(format!("record {seq} is not in the chunk being written"))
                });
        }
        if !self.seen.as_ref().is_some_and(|s| s.contains(seq)) {
            self.seen = Some(Seen::load(self.ledger, seq)?);
        }
        self.seen
            .as_ref()
            .and_then(|s| s.keys.get((seq - s.first) as usize).copied())
            .ok_or_else(|| Error::Corrupt(format!("record {seq} is missing")))
    }

    /// Store the current chunk (beyond the head, so not yet visible); start the next.
    pub(super) fn flush(&mut self) -> Result<Head> {
        let next = self.writer.next();
        let done = std::mem::replace(&mut self.writer, next);
        let head = Head {
            seq: done.next_seq() - 1,
            hash: done.last_hash,
        };
        if done.count > 0 {
            let first = done.first_seq;
            let out = (&mut self.segment, &mut self.packed);
            (self.ledger).put_chunk(out, first, &done.finish(), &self.current)?;
        }
        self.current.clear();
        Ok(head)
    }
}

/// The first field (keys in order, items in order, depth first) whose value
/// differs between two events' JSON, with both values (`recorded` first):
/// `field scores[0].score is 60 there, -20 here`. `None` when either is not
/// JSON or none differs.
pub(super) fn first_difference(recorded: &[u8], here: &[u8]) -> Option<String> {
    let parse = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).ok();
    let (there, here) = (parse(recorded)?, parse(here)?);
    // Another type first: whatever else differs follows from it.
    let kind = |v: &serde_json::Value| v.get("type").cloned();
    let (path, a, b) = match (kind(&there), kind(&here)) {
        (a, b) if a != b => ("type".into(), there.get("type"), here.get("type")),
        _ => differs(String::new(), Some(&there), Some(&here))?,
    };
    let shown = |v: Option<&serde_json::Value>| match v {
        None => "absent".to_string(),
        Some(v) => {
            let s = v.to_string();
            match s.char_indices().nth(60) {
                Some((i, _)) => format!("{}…", &s[..i]),
                None => s,
            }
        }
    };
    Some(format!(
        "field {path} is {} there, {} here",
        shown(a),
        shown(b)
    ))
}

/// The path of the first difference between `a` and `b` under `path`, and
/// the two values there.
fn differs<'v>(
    path: String,
    a: Option<&'v serde_json::Value>,
    b: Option<&'v serde_json::Value>,
) -> Option<(
    String,
    Option<&'v serde_json::Value>,
    Option<&'v serde_json::Value>,
)> {
    use serde_json::Value;
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let at = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                differs(at, x.get(k), y.get(k))
            })
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => (0..x.len().max(y.len()))
            .find_map(|i| differs(format!("{path}[{i}]"), x.get(i), y.get(i))),
        _ => (a != b).then_some((path, a, b)),
    }
}

/// What an append pushed into its chunk for each record: the header fields its
/// summary and fingerprints are made of, and the keys a fingerprint match compares.
pub(super) struct Pushed {
    pub(super) at: Micros,
    pub(super) void: Option<u64>,
    pub(super) idem: [u8; 16],
    pub(super) content: [u8; 16],
}

/// The keys of one stored chunk, for [`Pending::keys_of`].
pub(super) struct Seen {
    pub(super) first: u64,
    pub(super) keys: Vec<([u8; 16], [u8; 16])>,
}

impl Seen {
    pub(super) fn load(ledger: &Ledger, seq: u64) -> Result<Seen> {
        let (key_seq, bytes) = ledger.chunk_holding(seq)?;
        let c = chunk::decode(&bytes, key_seq)?;
        Ok(Seen {
            first: c.first_seq,
            keys: c.records.iter().map(|r| (r.idem, r.content)).collect(),
        })
    }

    pub(super) fn contains(&self, seq: u64) -> bool {
        seq >= self.first && seq - self.first < self.keys.len() as u64
    }
}

/// Where each new record of an append came from: (input index, line), by
/// `seq - first new seq`, run-length coded (a run's records are on consecutive
/// lines of one input), so it stays small however many lines the input has.
#[derive(Default)]
pub(super) struct Origins {
    /// (offset of the run's first record, input index, its line).
    pub(super) runs: Vec<(u64, usize, u64)>,
    pub(super) len: u64,
}

impl Origins {
    pub(super) fn push(&mut self, file: usize, line: u64) {
        let continues = self
            .runs
            .last()
            .is_some_and(|&(off, f, l)| f == file && l + (self.len - off) == line);
        if !continues {
            self.runs.push((self.len, file, line));
        }
        self.len += 1;
    }

    /// (input index, line) of the record at offset `k` (`k < len`).
    pub(super) fn get(&self, k: u64) -> (usize, u64) {
        let i = self.runs.partition_point(|r| r.0 <= k).saturating_sub(1);
        let (off, file, line) = self.runs.get(i).copied().unwrap_or_default();
        (file, line + k.saturating_sub(off))
    }
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn first_difference_names_the_first_field_by_path_with_both_values() {
        let d = |a: &str, b: &str| first_difference(a.as_bytes(), b.as_bytes());
        // A number written as a string: the same digits, another value.
        assert_eq!(
            d(r#"{"a":1,"round":"4"}"#, r#"{"a":1,"round":4}"#).unwrap(),
            r#"field round is "4" there, 4 here"#
        );
        assert_eq!(
            d(
                r#"{"s":[{"p":"A","v":1}]}"#,
                r#"{"s":[{"p":"A","v":1},{"p":"B"}]}"#
            )
            .unwrap(),
            r#"field s[1] is absent there, {"p":"B"} here"#
        );
        assert_eq!(
            d(r#"{"a":{"b":2}}"#, r#"{"a":{"b":2},"c":null}"#).unwrap(),
            "field c is absent there, null here"
        );
        let long = format!(r#"{{"a":"{}"}}"#, "x".repeat(100));
        assert!(d(&long, r#"{"a":"y"}"#)
            .unwrap()
            .contains(&format!("{}…", "x".repeat(59))));
        // Another type is named before any field of it.
        assert_eq!(
            d(r#"{"a":1,"type":"x.a"}"#, r#"{"b":1,"type":"x.b"}"#).unwrap(),
            r#"field type is "x.a" there, "x.b" here"#
        );
        assert_eq!(d(r#"{"a":1}"#, r#"{"a":1}"#), None);
        assert_eq!(d("not json", r#"{"a":1}"#), None);
    }
}
