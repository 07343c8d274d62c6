//! Appending: the input's lines read by the grammar it is lent
//! ([`Lent`]), records chained and stored beyond the head, checked by the
//! check fold it is lent, the head moved in sled, then published
//! ([`super::published`]).
//!
//! A dry run ([`Ledger::dry_run`], `laurel check`) is the same append up to
//! its check fold, with three differences: the new chunks go to a segment
//! aside (an unnamed temporary file, [`segment::Writer::aside`]) and into the
//! in-memory index only, not into sled nor the published view; the check fold
//! stores and drops no checkpoint; and nothing is published. So it parses,
//! refuses and reports exactly as the append would, and writes nothing in the
//! ledger's directory. It runs on a ledger opened for reading
//! ([`Ledger::read`]): it takes no lock, so it runs beside a writer and
//! answers for the head it read (an append committed meanwhile is not seen;
//! the append itself checks again).

use std::collections::{BTreeMap, BTreeSet};

use super::chunk::{self, ChunkWriter};
use super::grammar::Grammar;
use super::parse::{read_and_parse, Sent, IN_FLIGHT};
use super::pending::{take_batches, Origins, Pending, Pushed};
use super::published::{self, Entry};
use super::{idem, segment, storage, summary, AppendReport, Head, Input, Ledger};
use crate::error::{Error, Origin, Result};
use crate::time;

/// What an append asks once its records are written beyond the head: fold the
/// whole ledger, new records included, with every check (the check fold,
/// which lives above storage, in the fold module, and lent in [`Lent`]). Given
/// the ledger, the seq of the head before the append, the head its records
/// make, and whether it may store checkpoints, it returns the players the
/// append names for the first time, in order.
pub(crate) type Check<'c> = &'c dyn Fn(&Ledger, u64, Head, bool) -> Result<Vec<String>>;

/// What the layers above storage lend an append: how its lines are read and
/// its check fold.
#[derive(Clone, Copy)]
pub(crate) struct Lent<'a> {
    pub(crate) grammar: &'a dyn Grammar,
    pub(crate) check: Check<'a>,
}

impl Ledger {
    /// The append of `inputs` with what `lent` lends (the public entry
    /// points, `Ledger::append`, `append_if` and `dry_run`, are in the fold
    /// module, which lends the event grammar and its check fold), committed
    /// only if `accept` takes its report once every record is written and
    /// validated.
    ///
    /// An append that fails gives back what it wrote (a full disk stays no
    /// fuller): its segment, checkpoints and keys go, files first, which frees
    /// space before sled is asked to write. If that clean-up fails too, the
    /// first error is the one reported, and the next append (which begins with
    /// the same clean-up) finishes it; readers never see the leftovers, which
    /// lie beyond the head.
    ///
    /// Its records are recorded now (the wall clock, never before the
    /// head's `recorded_at`), or at `recorded_at` when given: how a restore
    /// writes each append of an export as it was written. A time before
    /// the head's is refused: a known-at time cuts a prefix of the seqs.
    pub(crate) fn append_checked(
        &self,
        inputs: Vec<Input<'_>>,
        accept: &dyn Fn(&AppendReport) -> Result<()>,
        lent: Lent<'_>,
        recorded_at: Option<time::Micros>,
    ) -> Result<AppendReport> {
        let head = self.head()?;
        self.drop_beyond(head.seq)?;
        let moved = std::cell::Cell::new(false);
        let now = self.recorded_now(head.seq, recorded_at);
        let written = now.and_then(|now| self.write_pending(head, inputs, (now, false), lent));
        let result = written.and_then(|report| {
            accept(&report)?;
            if report.appended > 0 {
                self.set_sled_head(report.head)?;
                moved.set(true);
                self.durable()?;
                self.publish(report.head)?;
            }
            Ok(report)
        });
        result.map_err(|e| {
            self.give_back(head, moved.get());
            match e {
                Error::Storage(msg) => Error::Storage(format!("{}: {msg}", self.path.display())),
                e => e,
            }
        })
    }

    /// What [`Ledger::append_checked`] would do with `inputs`: the same
    /// report, or the same error, with nothing written (see the module docs).
    /// The report's head is the one the append would have made but for its
    /// `recorded_at`, which is taken when records are written.
    pub(crate) fn dry_run_checked(
        &self,
        inputs: Vec<Input<'_>>,
        lent: Lent<'_>,
    ) -> Result<AppendReport> {
        let head = self.head()?;
        let now = self.recorded_now(head.seq, None)?;
        let result = self.write_pending(head, inputs, (now, true), lent);
        self.index.borrow_mut().retain(|e| e.first() <= head.seq);
        self.segments.borrow_mut().drop_aside();
        result.map_err(|e| match e {
            Error::Storage(msg) => Error::Storage(format!("{}: {msg}", self.path.display())),
            e => e,
        })
    }

    /// The `recorded_at` of records appended after seq `head`: `given`, or
    /// the wall clock; never before the head's, so that a known-at time cuts
    /// a prefix of the seqs, whatever the wall clock did between two appends.
    fn recorded_now(&self, head: u64, given: Option<time::Micros>) -> Result<time::Micros> {
        let last = self.recorded_at_micros(head)?.unwrap_or(i64::MIN);
        match given {
            None => Ok(time::now().max(last)),
            Some(t) if t >= last => Ok(t),
            Some(t) => Err(Error::Usage(format!(
                "records cannot be recorded at {}, before the head's {}",
                time::format(t),
                time::format(last)
            ))),
        }
    }

    /// Replace `HEAD` with `head`: the commit point ([`super::published`]).
    /// The ledger's head becomes `head` once `HEAD` names it, even if what
    /// follows the rename (its directory's fsync) fails.
    fn publish(&self, head: Head) -> Result<()> {
        let mut out = self.out.borrow_mut();
        let out = out.as_mut().ok_or_else(read_only)?;
        out.sync(&self.path)?;
        let p = out.published(head);
        let result = published::write_head(&self.path, p);
        if result.is_ok() || published::read_published(&self.path).is_ok_and(|r| r == p) {
            self.published.set(p);
        }
        if result.is_ok() {
            // The append is committed whatever this does: a lost mark only
            // leaves an older `HEAD` put back by hand undetected. Not marked
            // when the rename may not be durable (its directory's fsync
            // failed): a crash may lose it, and the append is then set back.
            let _ = self.mark_published(head.seq);
        }
        result
    }

    /// After a failed append: drop what it wrote beyond `head`, only while
    /// `HEAD` still names `head` (not after a failure that followed the
    /// rename, say its directory's fsync, nor when `HEAD` cannot be read) and
    /// sled's head is back at it.
    fn give_back(&self, head: Head, moved: bool) {
        if !published::read_published(&self.path).is_ok_and(|p| p.head == head) {
            return;
        }
        if !moved || self.set_sled_head(head).is_ok() {
            let _ = self.drop_beyond(head.seq);
        }
    }

    /// Write every new record beyond the head, then validate the whole fold.
    ///
    /// Two threads: a parser thread reads the inputs and parses them in
    /// batches ([`read_and_parse`]); this one takes the parsed batches, in
    /// order, to check idempotency, chain and store them. At most
    /// [`IN_FLIGHT`] batches wait. A bad line ends its batch as an `Err`, and
    /// a problem of the input itself (a line too long, an array that does not
    /// parse, a read that fails) comes as an `Err` after every line before it,
    /// so the first problem in input order is reported, exactly as with one
    /// thread. The writing stays on this thread on purpose: sled's node copies
    /// and the validation fold then share one malloc arena, which keeps the
    /// append's peak memory lower than with the writes on a thread of their own.
    /// The parser thread decodes the payloads of the first
    /// [`EAGER`](super::parse::EAGER) events and leaves the others undecoded
    /// ([`ParseLine::screened`](super::grammar::ParseLine::screened)): the
    /// check fold decodes them, and every error path here and there reports a
    /// payload that does not decode first if it comes first in input order
    /// ([`Pending::first_problem`]). `now`: the records' `recorded_at`;
    /// `dry`: a dry run's (see the module docs).
    fn write_pending(
        &self,
        head: Head,
        inputs: Vec<Input<'_>>,
        (now, dry): (time::Micros, bool),
        lent: Lent<'_>,
    ) -> Result<AppendReport> {
        let mut index = None;
        let segment = match dry {
            true => segment::Writer::aside(head.seq + 1),
            false => segment::Writer::new(head.seq + 1),
        };
        let mut pending = Pending {
            ledger: self,
            grammar: lent.grammar,
            first: head.seq + 1,
            writer: ChunkWriter::new(head.seq + 1, head.hash, now, &time::format(now)),
            segment,
            packed: Vec::new(),
            current: Vec::new(),
            seen: None,
            origins: Origins::default(),
            voids: Vec::new(),
            voided: self.voided_targets(),
            already: 0,
            already_voided: 0,
            voided_copies: Vec::new(),
            repeated: 0,
            first_repeat: None,
            kinds: BTreeMap::new(),
        };
        let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
        let fed = std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Sent>(IN_FLIGHT);
            let names = &names;
            let parser = lent.grammar.parser();
            scope.spawn(move || read_and_parse(inputs, parser, tx, names));
            take_batches(rx, &mut pending, &mut index, names)
        });
        if let Err(e) = fed {
            return Err(pending.first_problem(e, &names));
        }
        // The check fold below needs its memory more.
        drop(index);
        let last = pending.flush()?;
        let mut report = AppendReport {
            appended: last.seq - head.seq,
            already_recorded: pending.already,
            already_voided: pending.already_voided,
            voided_copies: std::mem::take(&mut pending.voided_copies),
            repeated: pending.repeated,
            first_repeat: pending.first_repeat.take(),
            head: last,
            kinds: std::mem::take(&mut pending.kinds),
            new_players: Vec::new(),
        };
        if report.appended > 0 {
            let folded = (lent.check)(self, head.seq, last, !dry);
            report.new_players = Self::validate(folded, (head.seq, last), &pending, &names)?;
        }
        // Before the head that points into it is written (see `segment`).
        pending.segment.sync(&self.path)?;
        Ok(report)
    }

    /// What the check fold of the records up to `new` gave (`folded`: the
    /// names it found for the first time, in order), as this append reports
    /// it: a payload that does not decode first, then a problem of a new
    /// record naming its file and line, or one of a recorded record blaming
    /// this append's voids or its records dated before it ([`Self::blame_voids`]).
    fn validate(
        folded: Result<Vec<String>>,
        (old_head, new): (u64, Head),
        pending: &Pending,
        names: &[String],
    ) -> Result<Vec<String>> {
        if let Some(e) = Self::bad_payload_first(&folded, (old_head, new), pending, names)? {
            return Err(e);
        }
        match folded {
            Ok(new_names) => Ok(new_names),
            Err(e) => Err(
                (e.each_refusal(|e| Self::located(e, (old_head, new), pending, names)))
                    .one_dependent(),
            ),
        }
    }

    /// Refusal `e` of the check fold as this append reports it (see
    /// [`Self::validate`]).
    fn located(
        mut e: Error,
        (old_head, new): (u64, Head),
        pending: &Pending,
        names: &[String],
    ) -> Error {
        Self::name_the_clash(&mut e, old_head, pending, names);
        let Some(origin) = e.origin_mut() else {
            return e;
        };
        let seq = origin.seq.unwrap_or(0);
        if seq > old_head {
            let (file, line) = pending.origins.get(seq - old_head - 1);
            origin.file = Some(names[file].clone());
            origin.line = Some(line);
            origin.seq = None;
            if origin.kind.is_none() || origin.id.is_none() {
                let (kind, id) = pending.names_of(seq);
                origin.kind = origin.kind.take().or(kind);
                origin.id = origin.id.take().or(id);
            }
            return e;
        }
        let Error::Invalid { origin, msg } = e else {
            return e;
        };
        let what = format!(
            "record {seq} ({}) would no longer be valid: {msg}",
            origin.kind.clone().unwrap_or_default()
        );
        Self::blame_voids(&what, seq, (old_head, new), pending, names)
    }

    /// A refusal that clashes with another record this append brings
    /// ([`Origin::clashes_with`]): that record has no seq to name yet, so the
    /// message ends with its file and line.
    fn name_the_clash(e: &mut Error, old_head: u64, pending: &Pending, names: &[String]) {
        let Error::Invalid { origin, msg } = e else {
            return;
        };
        if let Some(other) = origin.clashes_with.take().filter(|&o| o > old_head) {
            let (file, line) = pending.origins.get(other - old_head - 1);
            msg.push_str(&format!(" (the other: {}:{line})", names[file]));
        }
    }

    /// The refusal that goes ahead of the check fold's answer, if any: a
    /// payload that does not decode. Payloads the parser thread left undecoded
    /// ([`ParseLine::screened`](super::grammar::ParseLine::screened)) were
    /// decoded by the fold, but for records voided in this append; and when
    /// the fold failed, a payload that does not decode is the problem to
    /// report (as when the parser thread decoded them all). Only a payload
    /// found bad replaces the fold's error (a scan that cannot read leaves it
    /// standing).
    fn bad_payload_first(
        folded: &Result<Vec<String>>,
        (old_head, new): (u64, Head),
        pending: &Pending,
        names: &[String],
    ) -> Result<Option<Error>> {
        if folded.is_err() {
            let bad = pending.bad_payload(&[old_head + 1..=new.seq], names);
            return Ok(bad.ok().flatten());
        }
        let voided = pending.voids.iter().map(|v| v.1).filter(|&t| t > old_head);
        let targets: Vec<_> = voided
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .map(|t| t..=t)
            .collect();
        pending.bad_payload(&targets, names)
    }

    /// A recorded event no longer validates (`what`, record `seq`): blame
    /// this append's voids if one of them can be the cause (the usual one),
    /// else the append as a whole, naming the first of its records dated
    /// before `seq` (the cause is one of those). A record is checked against
    /// what folds before it, so a void of a record that folds after `seq`
    /// (a rename dated after it, corrected to a date before it) is none.
    fn blame_voids(
        what: &str,
        seq: u64,
        (old_head, new): (u64, Head),
        pending: &Pending,
        names: &[String],
    ) -> Error {
        let place = |seq: u64| pending.origins.get(seq - old_head - 1);
        let voids = pending
            .voids
            .first()
            .filter(|_| Self::a_void_folds_before(seq, pending));
        let Some(&(void_seq, target)) = voids else {
            let whole = Origin {
                file: names.first().cloned(),
                ..Origin::default()
            };
            let mut msg = format!("this append is refused because {what}");
            // Only a record dated before it folds before it: where to look.
            if let Some((file, line, first, at)) = Self::first_dated_before(seq, old_head, pending)
            {
                let (kind, id) = pending.names_of(first);
                let where_ = Origin {
                    file: Some(names[file].clone()),
                    line: Some(line),
                    kind,
                    id,
                    ..Origin::default()
                };
                let at = time::format_short(at);
                msg.push_str(&format!(
                    "; the cause is one of this append's records dated before {at}, record \
                     {seq}'s date, which fold before it: the first is {where_}"
                ));
            }
            return Error::Dependent {
                origin: Box::new(whole),
                msg,
                record: seq,
            };
        };
        let (file, line) = place(void_seq);
        let lines: Vec<String> = pending
            .voids
            .iter()
            .map(|&(s, _)| place(s).1.to_string())
            .collect();
        let mut blame = if lines.len() == 1 {
            format!("voiding record {target} is refused: {what}; void the records that depend on it in the same append")
        } else {
            format!("the voids of this append (lines {}) are refused: {what}; void the records that depend on them in the same append", lines.join(", "))
        };
        // Events beside the voids may be meant to replace what they void, and
        // fold after record `seq` when they share its `at`.
        if Self::a_new_event_folds_after(seq, (old_head, new), pending) {
            blame.push_str(&format!(", or, if this append's new events replace what it voids, give them an `at` before record {seq}'s (events at the same `at` fold in seq order)"));
        }
        let o = Origin {
            file: Some(names[file].clone()),
            line: Some(line),
            kind: Some("ledger.voided".into()),
            id: pending.names_of(void_seq).1,
            ..Origin::default()
        };
        Error::Dependent {
            origin: Box::new(o),
            msg: blame,
            record: seq,
        }
    }

    /// Does one of this append's events other than its voids fold after
    /// record `seq` (dated at or after it)? Only then can dating it earlier
    /// help; `true` when a date cannot be read.
    fn a_new_event_folds_after(seq: u64, (old_head, new): (u64, Head), pending: &Pending) -> bool {
        let voids: BTreeSet<u64> = pending.voids.iter().map(|v| v.0).collect();
        let events: BTreeSet<u64> = (old_head + 1..=new.seq)
            .filter(|s| !voids.contains(s))
            .chain([seq])
            .collect();
        if events.len() == 1 {
            return false;
        }
        let ats = pending.ledger.record_fields(&events, |r| r.at);
        let Some(&at) = ats.get(&seq) else {
            return true;
        };
        (events.iter())
            .filter(|&&s| s > old_head)
            .any(|s| ats.get(s).is_none_or(|&s_at| s_at >= at))
    }

    /// Does one of this append's voids void a record that folds before
    /// record `seq` (by `(at, seq)`)? Only then can it have made `seq`
    /// invalid; `true` when a date cannot be read.
    fn a_void_folds_before(seq: u64, pending: &Pending) -> bool {
        let seqs: BTreeSet<u64> = (pending.voids.iter().map(|v| v.1)).chain([seq]).collect();
        let ats = pending.ledger.record_fields(&seqs, |r| r.at);
        let Some(&at) = ats.get(&seq) else {
            return true;
        };
        (pending.voids.iter()).any(|&(_, t)| ats.get(&t).is_none_or(|&t_at| (t_at, t) < (at, seq)))
    }

    /// The first record of this append (seq, then its input and line) dated
    /// before stored record `seq`: only such a record folds before it and
    /// can have made it invalid (one of the same date folds after it).
    /// Found from the chunk summaries, reading one chunk.
    fn first_dated_before(
        seq: u64,
        old_head: u64,
        pending: &Pending,
    ) -> Option<(usize, u64, u64, time::Micros)> {
        let ledger = pending.ledger;
        let at = *ledger
            .record_fields(&BTreeSet::from([seq]), |r| r.at)
            .get(&seq)?;
        let summaries = ledger.summaries_between(old_head + 1, u64::MAX).ok()?;
        // The chunks holding a record dated before `at`; a void is no cause
        // (`a_void_folds_before` cleared them).
        let chunks: BTreeSet<u64> = (summaries.iter())
            .filter(|s| s.min_at < at)
            .map(|s| s.first_seq)
            .collect();
        let mut first = None;
        let next = |s: u64| chunks.range(s..).next().copied();
        let walked = ledger.walk_chunks(next, &mut |c| {
            let mut records = c?.records.iter();
            first = records
                .find(|r| r.at < at && r.void_target.is_none())
                .map(|r| r.seq);
            Ok(first.is_none())
        });
        let first = first.filter(|_| walked.is_ok())?;
        let (file, line) = pending.origins.get(first - old_head - 1);
        Some((file, line, first, at))
    }

    /// The targets of every committed void, from the chunk summaries.
    fn voided_targets(&self) -> BTreeSet<u64> {
        let index = self.index.borrow();
        let voids = index.iter().flat_map(|e| e.summary.voids.iter());
        voids.map(|&(_, target)| target).collect()
    }

    /// The key fingerprints of every committed record, from `fps` (not the
    /// chunks: a small append to a big ledger reads 8 bytes a record).
    pub(super) fn idem_index(&self, upto: u64) -> Result<idem::Index> {
        let Some(fps) = published::read_fps(&self.path, 1, upto)? else {
            return Err(Error::Corrupt(format!(
                "the key fingerprints of records 1..={upto} are missing"
            )));
        };
        if crc32fast::hash(&fps) != self.published.get().fps_crc {
            return Err(Error::Corrupt(format!(
                "{}: the key fingerprints of records 1..={upto} are damaged (checksum)",
                published::fps_file(&self.path).display()
            )));
        }
        let fps: Vec<u64> = idem::decode(1, &fps)?.collect();
        Ok(idem::Index::of_fingerprints(&fps))
    }

    /// Delete chunks beyond `seq` (their places in sled, their entries, their
    /// segments), and checkpoints made at a head beyond it: leftovers of an
    /// append that failed or was killed.
    fn drop_beyond(&self, seq: u64) -> Result<()> {
        self.segments.borrow_mut().forget();
        segment::drop_beyond(&self.path, seq)?;
        self.index.borrow_mut().retain(|e| e.first() <= seq);
        if let Some(old) = self.out.borrow_mut().take() {
            old.discard();
        }
        *self.out.borrow_mut() = Some(published::Out::open(&self.path, self.published.get())?);
        self.drop_checkpoints(|h| h.head.seq > seq)?;
        let tree = self.chunks()?;
        let stale: Vec<sled::IVec> = tree
            .range(chunk::key(seq + 1)..)
            .keys()
            .collect::<std::result::Result<_, _>>()
            .map_err(storage)?;
        for k in stale {
            tree.remove(k).map_err(storage)?;
        }
        Ok(())
    }

    /// Store a chunk beyond the head, packed (into `packed`, a buffer the
    /// append reuses: the segment's write copies it), in the append's
    /// `segment`, with its place in sled and its entry and fingerprints in
    /// the published view's files (beyond what `HEAD` commits).
    /// `records` are the chunk's records as they were pushed, so that the
    /// chunk need not be decoded again for them.
    pub(super) fn put_chunk(
        &self,
        (segment, packed): (&mut segment::Writer, &mut Vec<u8>),
        first_seq: u64,
        bytes: &[u8],
        records: &[Pushed],
    ) -> Result<()> {
        let summary =
            summary::Summary::of_records(first_seq, records.iter().map(|r| (r.at, r.void)));
        let fps = idem::encode(records.iter().map(|r| idem::fingerprint(&r.idem)));
        let n = chunk::pack_into(bytes, packed);
        let born = segment.unborn();
        if born {
            self.segments.borrow_mut().forget();
        }
        let pointer = segment.put(&self.path, &packed[..n])?;
        let entry = Entry { pointer, summary };
        if segment.is_aside() {
            if let Some(file) = segment.aside_file().filter(|_| born) {
                self.segments.borrow_mut().set_aside(file?);
            }
        } else {
            self.chunks()?
                .insert(chunk::key(first_seq), &pointer)
                .map_err(storage)?;
            let mut out = self.out.borrow_mut();
            (out.as_mut().ok_or_else(read_only)?).put(&self.path, &entry, &fps)?;
        }
        self.index.borrow_mut().push(entry);
        Ok(())
    }
}

/// The error of a write through a ledger opened for reading.
fn read_only() -> Error {
    Error::Storage("the ledger is open for reading only".into())
}
