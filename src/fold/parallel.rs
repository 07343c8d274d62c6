//! A fold, with a worker thread per group of namespaces
//! ([`groups`]): what a full replay (`laurel fold`), a query, `history`,
//! `site`'s audit and an append's check fold run.
//!
//! The caller's thread reads the records in fold order (`fold::stream`)
//! and finds each one's `type` by a byte scan from
//! its end (`events::guess_stored_kind`); it hands the stored bytes,
//! batch by batch, to the worker of that namespace, which decodes and applies
//! them to its own projections. The projections are independent: a system's
//! `apply` reads only its own state and the rules in force (and ignores other
//! namespaces' events), so each worker folds its namespaces' records in fold
//! order and gets exactly the states of a sequential fold. `ledger.*` records
//! (rules changes) go to every worker once, so each holds the rules in force at
//! every step. Voided records never reach a worker: the reader leaves them
//! out (`stream::Keep`).
//!
//! Decoding on the workers spreads the JSON work over the cores and frees each
//! record on the thread that allocated it. A fold with one worker (one
//! namespace: a standings table, `history` of a player of one system) is
//! the exception: there the worker's check and apply are the long stage and
//! the reader has time to spare, so the reader decodes and hands over the
//! records (see [`route`]).
//!
//! **Errors** come out as from a sequential fold: every record carries its index
//! in fold order. A check's refusal leaves the record out and the worker goes
//! on, so that one run names every event the ledger's rules refuse; a worker
//! stops at a failure that is no refusal (a record that does not decode) or
//! at more than [`crate::error::REFUSALS_SHOWN`] refusals, the reader at its own failure or
//! when a worker has stopped, and [`merged`] keeps what a sequential fold
//! would have found by then (the reader's own failure comes after everything
//! it has handed out).
//!
//! **Checks** need nothing but the record's own projection and the rules in
//! force (`State::check` dispatches by namespace), so each worker checks its
//! records before applying them.
//!
//! **Audit trails** (`history`): each worker keeps the changes its own
//! projections make, with the fold-order index of the record that made each;
//! [`gather`] merges them by that index (stably: a record's changes are all
//! one worker's, in the order it made them), which is the trail of a
//! sequential fold. Rules changes, the only records every worker folds, make
//! no changes. With a [`Trail`] (`site`), each worker hands its changes and
//! their indexes on instead, after a batch of records once it holds
//! [`TRAIL_BATCH`] of them, and the rest when its records end: the sink
//! merges them (the spill, by sorting each bucket by index).
//!
//! **Snapshots** (the check fold's checkpoints): after each record
//! [`Sink::marks`] names (one that brings the count to a multiple, or one
//! at a given position; for a position no record folded stands at, before
//! the first record past it, or at the end), the reader puts a mark in
//! every lane; each worker
//! encodes its projections' sections there, states and players indexes
//! (the first lane also the rules in force) and sends them back. The reader
//! puts a snapshot together once every section the lanes make has come, and
//! stores them in fold order.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};

use super::refused::{merged, Failed, Refused};
use super::{
    admit_record, apply_record, check_record, wanted, Folded, Item, Marks, Order, Pos, Query, Sink,
    Source, Trail, TRAIL_BATCH,
};
use crate::error::{Error, Result};
use crate::events;
use crate::systems::params::Params;
use crate::systems::{Change, Cx, Record, State, NAMESPACES};
use crate::time::Micros;

/// Records per batch handed to a worker.
const BATCH: usize = 256;

/// One record for a worker.
#[derive(Clone)]
enum Job {
    Decoded(Record),
    /// Stored bytes at `span` of the batch's buffer, and where their `type`
    /// lies (`env`).
    Stored {
        seq: u64,
        at: Micros,
        recorded_at: Micros,
        span: Range<usize>,
        env: Range<usize>,
    },
    /// Encode this worker's sections of snapshot `n` (the count of records
    /// folded when it is taken).
    Mark(u64),
}

/// Records for one worker: their bytes end to end, and `(index in fold order, job)`.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    jobs: Vec<(u64, Job)>,
}

/// A worker as the reader sees it: its namespaces, its queue, the batch being
/// filled, and the batches it has emptied (reused: no fresh pages, and each
/// buffer is freed by the thread that allocated it).
struct Lane {
    /// Its namespaces (indexes in `NAMESPACES`).
    group: Vec<usize>,
    tx: SyncSender<Batch>,
    batch: Batch,
    spent: Receiver<Batch>,
}

/// The index of a worker's failure after its last record (handing its audit
/// trail on): after every record.
const AFTER_ALL: u64 = u64::MAX;

/// What a worker hands back: its projection, its context and, for each change
/// of its audit trail, the index in fold order of the record that made it; or
/// its refusals.
type Done = std::result::Result<(State, Cx, Vec<u64>), Refused>;

/// What a worker does besides applying its records (and decoding them, but
/// with one worker: see [`route`]).
#[derive(Clone)]
struct Duty {
    check: bool,
    /// Only the players indexes ([`Query::players_only`]).
    players_only: bool,
    /// How to encode a section, and where to send `(n, section, bytes)`.
    snapshot: Option<(Encode, Sender<Section>)>,
    /// The sections this worker encodes at a mark.
    sections: Vec<usize>,
    /// Where to hand the audit trail as it goes ([`Query::trail`]).
    trail: Option<Trail>,
}

impl Duty {
    /// The duty of the worker folding `group`: the query's checks, players
    /// and trail; at a mark, its namespaces' sections (the rules' too for the
    /// `first` worker), sent through `snapshot`.
    fn of(
        q: &Query,
        group: &[usize],
        first: bool,
        snapshot: Option<(Encode, Sender<Section>)>,
    ) -> Duty {
        let sections = first
            .then_some(0)
            .into_iter()
            .chain(group.iter().map(|&ns| 1 + ns))
            .chain(group.iter().map(|&ns| 1 + NAMESPACES.len() + ns))
            .collect();
        Duty {
            check: q.check,
            players_only: q.players_only,
            snapshot,
            sections,
            trail: q.trail.clone(),
        }
    }
}

type Encode = fn(&State, &Params, usize) -> Result<Vec<u8>>;
/// One section of snapshot `n`: `(n, section, bytes)`.
type Section = (u64, usize, Vec<u8>);
/// A snapshot's sections, as they come.
type Parts = Vec<Option<Vec<u8>>>;

/// The namespaces folded (by index in `NAMESPACES`), grouped by worker: each
/// system names its worker ([`crate::systems::RatingSystem::WORKER`]): the
/// busiest system alone and the other four in two pairs, none of them longer
/// than the reading thread or the busiest system. Four busy threads share two
/// cores with less switching and fewer heaps than six.
fn groups(only: Option<&str>) -> Vec<Vec<usize>> {
    let folded = |ns: &usize| wanted(NAMESPACES[*ns], only);
    let index = |name: &str| NAMESPACES.iter().position(|n| *n == name);
    let mut out: Vec<Vec<usize>> = (crate::systems::workers().iter())
        .map(|g| g.iter().filter_map(|n| index(n)).filter(folded).collect())
        .collect();
    out.retain(|g| !g.is_empty());
    out
}

/// Fold `order` with one worker per group of namespaces (see the module docs);
/// `out` holds the state after `folded` records of fold order, or `later`
/// will (a checkpoint still being decoded: the reader runs ahead meanwhile,
/// [`BATCHES_AHEAD`] batches a lane, and each worker waits for its part).
pub(super) fn fold(
    source: &dyn Source,
    order: Order<'_>,
    q: &Query,
    (out, folded): (Folded, u64),
    sink: Option<Sink<'_>>,
    later: Option<Receiver<State>>,
) -> Result<Folded> {
    let Folded {
        mut state,
        cx,
        known_at,
    } = out;
    let (section_tx, section_rx) = channel::<Section>();
    let mut snapshots = sink.map(|sink| Snapshots {
        sink,
        rx: section_rx,
        open: BTreeMap::new(),
        made: Vec::new(),
        next: 0,
    });
    let encode = snapshots.as_ref().map(|s| s.sink.encode);
    let depth = if later.is_some() { BATCHES_AHEAD } else { 4 };
    std::thread::scope(|scope| {
        let (mut lanes, mut workers, mut parts_tx) = (Vec::new(), Vec::new(), Vec::new());
        for group in groups(q.only) {
            let part = match later {
                Some(_) => {
                    let (tx, rx) = sync_channel::<State>(1);
                    parts_tx.push((group.clone(), tx));
                    Part::Later(rx)
                }
                None => {
                    let mut part = State::default();
                    group.iter().for_each(|&ns| part.absorb(&mut state, ns));
                    Part::Ready(Box::new(part))
                }
            };
            let snapshot = encode.map(|e| (e, section_tx.clone()));
            let duty = Duty::of(q, &group, lanes.is_empty(), snapshot);
            if let Some(s) = snapshots.as_mut() {
                s.made.extend(&duty.sections);
            }
            let names: Vec<&str> = group.iter().map(|&ns| NAMESPACES[ns]).collect();
            let (tx, rx) = sync_channel::<Batch>(depth);
            let (spent_tx, spent) = channel::<Batch>();
            let cx = cx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("fold-{}", names.join("+")))
                .spawn_scoped(scope, move || work(rx, spent_tx, part, cx, duty))
                .map_err(|e| Error::io("a fold worker thread", e))?;
            workers.push((group.clone(), worker));
            lanes.push(Lane {
                group,
                tx,
                batch: Batch::default(),
                spent,
            });
        }
        drop(section_tx);
        if let Some(later) = later {
            scope.spawn(move || split(later, parts_tx));
        }
        let mut reader = Reader {
            lanes: &mut lanes,
            only: q.only,
            folded,
            snapshots: snapshots.as_mut(),
        };
        let read = reader.read(source, order);
        // Hand over what is left, to every lane (a worker that stopped does
        // not keep the others from their records); dropping the senders ends
        // the workers.
        let sent = (lanes.into_iter())
            .map(|l| send(&l.tx, l.batch))
            .fold(Ok(()), Result::and);
        let joined = workers.into_iter().map(|(g, w)| (g, w.join()));
        let cx = match (gather(joined, &mut state), read.and(sent)) {
            // A failure after a worker's last record (handing its trail on)
            // comes after the reader's own, which follows what it handed out.
            (Err((AFTER_ALL, _)), Err(e)) | (Err((_, e)), _) => return Err(e),
            (Ok(gathered), read) => read.map(|()| gathered.unwrap_or(cx))?,
        };
        if let Some(s) = snapshots.as_mut() {
            s.collect()?;
        }
        Ok(Folded {
            state,
            cx,
            known_at,
        })
    })
}

/// Batches a lane may hold while its worker waits for its part of a state
/// still being decoded: 16,384 records, so a query can read all of one
/// namespace's records in a checkpoint's spacing (50,000 records of 5
/// namespaces at 1M) while the checkpoint decodes. A lane holds only its
/// records (their bytes, or decoded with one worker), so the bound costs
/// nothing unless it is reached.
const BATCHES_AHEAD: usize = 64;

/// Where a worker's projections come from.
enum Part {
    /// Boxed: a `State` is large, and the enum moves into a thread.
    Ready(Box<State>),
    /// From [`split`], once the state is decoded; a dropped sender means it
    /// could not be.
    Later(Receiver<State>),
}

/// Wait for the state being decoded and hand each worker its namespaces.
fn split(later: Receiver<State>, parts: Vec<(Vec<usize>, SyncSender<State>)>) {
    let Ok(mut state) = later.recv() else {
        return; // dropping the senders stops the workers
    };
    for (group, tx) in parts {
        let mut part = State::default();
        group.iter().for_each(|&ns| part.absorb(&mut state, ns));
        let _ = tx.send(part);
    }
}

/// The snapshots being put together: sections arrive from the workers in any
/// order; complete ones are stored in fold order.
struct Snapshots<'a> {
    sink: Sink<'a>,
    rx: Receiver<Section>,
    /// Snapshot `n` → its positions (one, or the places of [`Marks::At`]
    /// with nothing folded between them) and the sections come so far.
    open: BTreeMap<u64, (Vec<Pos>, Parts)>,
    /// The sections the workers make (every one unless the fold is of one
    /// namespace).
    made: Vec<usize>,
    /// With [`Marks::At`], the place in it of the next position to mark.
    next: usize,
}

impl Snapshots<'_> {
    /// Is a snapshot due after the record at `pos`, the `n`th of fold order?
    fn due(&mut self, n: u64, pos: Pos) -> bool {
        match &self.sink.marks {
            Marks::Every(every) => n.is_multiple_of(*every),
            Marks::At(places) => {
                let due = places.get(self.next) == Some(&pos);
                self.next += usize::from(due);
                due
            }
        }
    }

    /// With [`Marks::At`], before a record at `pos` (or at the end: `pos`
    /// past every place): the places before it not marked yet, which no
    /// record folded stands at.
    fn passed(&mut self, pos: Pos) -> Vec<Pos> {
        let mut out = Vec::new();
        if let Marks::At(places) = &self.sink.marks {
            while let Some(&p) = places.get(self.next).filter(|&&p| p < pos) {
                out.push(p);
                self.next += 1;
            }
        }
        out
    }

    /// Mark snapshot `n` at `pos`; `false` if snapshot `n` is marked already
    /// (the same state at an earlier place, still open: it is put at this one
    /// too).
    fn mark(&mut self, n: u64, pos: Pos) -> bool {
        if let Some((places, _)) = self.open.get_mut(&n) {
            places.push(pos);
            return false;
        }
        self.open
            .insert(n, (vec![pos], vec![None; 1 + 2 * NAMESPACES.len()]));
        true
    }

    /// Take the sections sent so far; store every complete snapshot that no
    /// incomplete one precedes.
    fn collect(&mut self) -> Result<()> {
        for (n, i, bytes) in self.rx.try_iter() {
            if let Some(slot) = self.open.get_mut(&n).and_then(|(_, s)| s.get_mut(i)) {
                *slot = Some(bytes);
            }
        }
        while let Some(entry) = self.open.first_entry() {
            let slots = &entry.get().1;
            if self.made.iter().any(|&i| slots[i].is_none()) {
                break;
            }
            let (n, (places, sections)) = entry.remove_entry();
            let (last, earlier) = places.split_last().unzip();
            for &pos in earlier.into_iter().flatten() {
                (self.sink.put)(pos, n, sections.clone())?;
            }
            if let Some(&pos) = last {
                (self.sink.put)(pos, n, sections)?;
            }
        }
        Ok(())
    }
}

/// Put the workers' projections into `state`; the context at the end (every
/// worker folded every rules change: any one will do; `None`: no worker) with
/// the workers' audit trails merged in fold order, or their refusals and
/// failures ([`merged`]; a worker that panicked first of all).
fn gather(
    joined: impl Iterator<Item = (Vec<usize>, std::thread::Result<Done>)>,
    state: &mut State,
) -> std::result::Result<Option<Cx>, Failed> {
    let mut cx: Option<Cx> = None;
    let mut refused: Vec<Refused> = Vec::new();
    let mut trail: Vec<(u64, Change)> = Vec::new();
    for (group, done) in joined {
        let done = done.map_err(|_| (0, Error::Internal("a fold worker thread failed".into())))?;
        match done {
            Ok((mut part, mut wcx, places)) => {
                group.iter().for_each(|&ns| state.absorb(&mut part, ns));
                trail.extend(places.into_iter().zip(wcx.take_changes()));
                cx = Some(wcx);
            }
            Err(r) => refused.push(r),
        }
    }
    if !refused.is_empty() {
        return Err(merged(refused));
    }
    // Stable: a record's changes keep the order its worker made them in.
    trail.sort_by_key(|(place, _)| *place);
    Ok(cx.map(|mut cx| {
        cx.set_changes(trail.into_iter().map(|(_, c)| c).collect());
        cx
    }))
}

/// The reading side: hands each record of `order` to its worker(s), and
/// marks the snapshots' places.
struct Reader<'r, 'a> {
    lanes: &'r mut [Lane],
    only: Option<&'static str>,
    /// Records of fold order folded before `order`'s first.
    folded: u64,
    snapshots: Option<&'r mut Snapshots<'a>>,
}

impl Reader<'_, '_> {
    fn read(&mut self, source: &dyn Source, order: Order<'_>) -> Result<()> {
        let mut index = 0u64;
        let mut each = |item: Item<'_>| {
            index += 1;
            let pos = match &item {
                Item::Decoded(rec) => (rec.at, rec.seq),
                Item::Stored { seq, at, .. } => (*at, *seq),
            };
            self.snapshot_before(index - 1, pos)?;
            route(item, index - 1, self.only, self.lanes)?;
            self.snapshot_after(index - 1, pos)
        };
        source.items_in_order(order.spans, order.keep, &mut each)?;
        self.snapshot_before(index, (Micros::MAX, u64::MAX))
    }

    /// Before the record at `index` of `order` (at `pos`; after the last,
    /// `pos` past every place): mark a snapshot at a place passed that no
    /// record folded stands at ([`Snapshots::passed`]).
    fn snapshot_before(&mut self, index: u64, pos: Pos) -> Result<()> {
        let Some(s) = self.snapshots.as_deref_mut() else {
            return Ok(());
        };
        for place in s.passed(pos) {
            self.mark(index, self.folded + index, place)?;
        }
        Ok(())
    }

    /// After the record at `index` of `order` (at `pos`): store the
    /// snapshots complete (looked for once a batch: sections come back a
    /// batch or more after their mark anyway), then mark one if due. Stored
    /// before the mark, so that a snapshot marked here is still open when a
    /// place passed before the next record shares it.
    fn snapshot_after(&mut self, index: u64, pos: Pos) -> Result<()> {
        let Some(s) = self.snapshots.as_deref_mut() else {
            return Ok(());
        };
        if index.is_multiple_of(BATCH as u64) {
            s.collect()?;
        }
        let n = self.folded + index + 1;
        match s.due(n, pos) {
            true => self.mark(index, n, pos),
            false => Ok(()),
        }
    }

    /// Mark snapshot `n` (the count of records folded) at `pos`: in every
    /// lane after the records handed out so far (`index`, the place in fold
    /// order of the last, or of the next one, goes with the mark).
    fn mark(&mut self, index: u64, n: u64, pos: Pos) -> Result<()> {
        let Some(s) = self.snapshots.as_deref_mut() else {
            return Ok(());
        };
        if s.mark(n, pos) {
            for lane in self.lanes.iter_mut() {
                push(lane, index, Job::Mark(n), &[])?;
            }
        }
        Ok(())
    }
}

/// Put one record in the batch of its namespace's worker (every worker for a
/// `ledger.*` record), sending batches that are full. With one worker (a fold
/// of one namespace: a standings table, the `history` of a player of one
/// system) the reader decodes the record itself, so the worker only checks
/// and applies: the decode runs beside the fold's longest stage instead of
/// in it. With several, each worker decodes its own records, which spreads
/// the decoding over the cores.
fn route(item: Item<'_>, index: u64, only: Option<&str>, lanes: &mut [Lane]) -> Result<()> {
    let (kind, job, bytes) = match item {
        Item::Decoded(rec) if !wanted(&rec.kind, only) => return Ok(()),
        Item::Decoded(rec) => (Cow::Owned(rec.kind.clone()), Job::Decoded(rec), &[][..]),
        Item::Stored {
            seq,
            at,
            recorded_at,
            bytes,
        } => {
            let (env, kind) = stored_kind(bytes, seq)?;
            if !wanted(&kind, only) {
                return Ok(());
            }
            let job = match lanes.len() {
                1 => Job::Decoded(decode_stored(bytes, seq, at, recorded_at, env)?),
                _ => Job::Stored {
                    seq,
                    at,
                    recorded_at,
                    span: 0..0,
                    env,
                },
            };
            (kind, job, bytes)
        }
    };
    let ns = kind.split_once('.').map_or("", |(ns, _)| ns);
    if ns == "ledger" {
        for lane in lanes.iter_mut() {
            push(lane, index, job.clone(), bytes)?;
        }
        return Ok(());
    }
    // An unknown type (no lane) fails to decode: on the reader with one
    // worker, else on the first worker.
    let mine = |l: &Lane| l.group.iter().any(|&g| NAMESPACES[g] == ns);
    let lane = lanes.iter().position(mine).unwrap_or_default();
    match lanes.get_mut(lane) {
        Some(lane) => push(lane, index, job, bytes),
        None => Ok(()), // no worker at all: `only` names no namespace
    }
}

/// The `type` a stored record is routed by, found from its end (`env`, its
/// range) and borrowed from its bytes (no allocation per record); a record
/// where it is not is not laid out as laurel stores events. A record is
/// checked as it is decoded (by the reader with one worker, else by its
/// worker): a malformed one fails to decode wherever it goes. A filtered
/// fold skips the records its `type` puts in another namespace without
/// decoding them, as a query skips every chunk outside its `--as-of` range:
/// a fold reads what it needs, and `verify` is what reads (and hashes)
/// everything.
fn stored_kind(bytes: &[u8], seq: u64) -> Result<(Range<usize>, Cow<'_, str>)> {
    let corrupt = |e| Error::Corrupt(format!("record {seq} cannot be decoded: {e}"));
    let env = events::guess_stored_kind(bytes).ok_or_else(|| corrupt(events::NOT_CANONICAL))?;
    Ok((env.clone(), String::from_utf8_lossy(&bytes[env])))
}

/// Add `job` to the lane's batch (a stored record's `bytes` copied to the
/// batch's buffer, its span set to them), sending the batch once it is full.
fn push(lane: &mut Lane, index: u64, mut job: Job, bytes: &[u8]) -> Result<()> {
    let b = &mut lane.batch;
    if let Job::Stored { span, .. } = &mut job {
        let start = b.bytes.len();
        b.bytes.extend_from_slice(bytes);
        *span = start..b.bytes.len();
    }
    // A mark goes out at once: a lane with few records would otherwise hold
    // it until its batch fills, and every snapshot wait for it (the sections of
    // the other lanes piling up meanwhile).
    let mark = matches!(job, Job::Mark(_));
    b.jobs.push((index, job));
    if b.jobs.len() < BATCH && !mark {
        return Ok(());
    }
    let empty = lane.spent.try_recv().unwrap_or_default();
    let full = std::mem::replace(&mut lane.batch, empty);
    send(&lane.tx, full)
}

/// A send fails only when the worker has stopped on an error, which wins.
fn send(tx: &SyncSender<Batch>, batch: Batch) -> Result<()> {
    if batch.jobs.is_empty() {
        return Ok(());
    }
    tx.send(batch)
        .map_err(|_| Error::Internal("the fold stopped".into()))
}

/// A worker: decode (unless the reader did), check (if asked) and apply its
/// records in order, and encode its sections at each mark.
fn work(rx: Receiver<Batch>, spent: Sender<Batch>, part: Part, mut cx: Cx, duty: Duty) -> Done {
    let mut refused = Refused::default();
    let mut state = match part {
        Part::Ready(state) => *state,
        Part::Later(part) => part.recv().map_err(|_| {
            let e = Error::Internal("the state to resume from could not be decoded".into());
            refused.stop((0, e))
        })?,
    };
    let mut places = Vec::new();
    for mut batch in rx.iter() {
        for (index, job) in batch.jobs.drain(..) {
            if let Job::Mark(n) = job {
                (duty.encode(n, &state, &cx.params)).map_err(|e| refused.stop((index, e)))?;
                continue;
            }
            let mut rec = decode(&batch.bytes, job).map_err(|e| refused.stop((index, e)))?;
            // A check's refusal is noted and the record left out: the
            // records after it are checked as if it were not there.
            match admitted_and_checked(&mut state, &mut rec, &cx, &duty) {
                Err(e) if duty.check => {
                    refused.note((index, e))?;
                    continue;
                }
                Err(e) => return Err(refused.stop((index, e))),
                Ok(()) if duty.players_only => continue,
                Ok(()) => {}
            }
            apply_record(&mut state, &rec, &mut cx);
            places.resize(cx.changes().len(), index);
        }
        batch.bytes.clear();
        // The reader may have finished; then the batch is simply dropped.
        let _ = spent.send(batch);
        if cx.changes().len() >= TRAIL_BATCH {
            let last = places.last().copied().unwrap_or_default();
            (duty.hand_on(&mut places, &mut cx)).map_err(|e| refused.stop((last, e)))?;
        }
    }
    (duty.hand_on(&mut places, &mut cx)).map_err(|e| refused.stop((AFTER_ALL, e)))?;
    match refused.list.is_empty() {
        true => Ok((state, cx, places)),
        false => Err(refused),
    }
}

/// Admit `rec` (its names, or what a `ledger.*` event says of players) and,
/// if `duty` checks, check it. A system's event is checked once admitted
/// (its names written as roots); a `ledger.*` event before, so that a
/// refused rename or registration is not admitted.
fn admitted_and_checked(state: &mut State, rec: &mut Record, cx: &Cx, duty: &Duty) -> Result<()> {
    let check = duty.check && !duty.players_only;
    let ledger = matches!(rec.event, crate::systems::Event::Ledger(_));
    if check && ledger {
        check_record(state, rec, cx)?;
    }
    admit_record(state, rec, duty.check)?;
    match check && !ledger {
        true => check_record(state, rec, cx),
        false => Ok(()),
    }
}

impl Duty {
    /// With a [`Trail`]: hand the changes kept so far on, each with its
    /// record's index in fold order (see [`super::TrailSink`]).
    fn hand_on(&self, places: &mut Vec<u64>, cx: &mut Cx) -> Result<()> {
        let Some(trail) = &self.trail else {
            return Ok(());
        };
        let placed = places.drain(..).zip(cx.take_changes()).collect();
        trail.give(placed)
    }

    fn encode(&self, n: u64, state: &State, params: &Params) -> Result<()> {
        let Some((encode, tx)) = &self.snapshot else {
            return Ok(());
        };
        for &i in &self.sections {
            let bytes = encode(state, params, i)?;
            // The receiver lives until the fold returns; a send fails only then.
            let _ = tx.send((n, i, bytes));
        }
        Ok(())
    }
}

fn decode(bytes: &[u8], job: Job) -> Result<Record> {
    match job {
        Job::Decoded(rec) => Ok(rec),
        Job::Mark(n) => Err(Error::Internal(format!(
            "snapshot mark {n} is not a record"
        ))),
        Job::Stored {
            seq,
            at,
            recorded_at,
            span,
            env,
        } => decode_stored(&bytes[span], seq, at, recorded_at, env),
    }
}

/// A stored record from its bytes and what the reader found of its envelope.
fn decode_stored(
    bytes: &[u8],
    seq: u64,
    at: Micros,
    recorded_at: Micros,
    env: Range<usize>,
) -> Result<Record> {
    let decoded = events::decode_stored_guessed(bytes, env, seq, at, recorded_at);
    decoded.map_err(|e| Error::Corrupt(format!("record {seq} cannot be decoded: {e}")))
}
