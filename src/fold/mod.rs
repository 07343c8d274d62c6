//! The fold engine: turns the log into projections, honouring both clocks.
//!
//! Invariants:
//! - **Fold order** is `(at, seq)`: a late result with an earlier `at` takes its
//!   place in history, and everything after it is recomputed.
//! - **known-at** cuts by seq: only records the ledger held then (a time is the
//!   last seq recorded by then: `recorded_at` never goes back).
//! - **Voids** are knowledge, not domain time: a `ledger.voided` within the known-at
//!   cut removes its target from every fold, whatever `--as-of` says.
//! - **as-of** cuts by `at`, after ordering.
//! - **Rules** start at their `at` (a `ledger.rules_changed` folds like any event);
//!   parameters pinned by a rules file override them for the whole fold.
//!
//! **One pass** (`stream`): the fold reads the chunks once, in seq order, and
//! hands records on in fold order as soon as no chunk still to be read can
//! hold one before them (the chunk summaries' smallest `at`), to a thread per
//! group of namespaces (`parallel`): replay, queries, and an append's
//! check fold, whose workers also check each record and encode their sections
//! of the checkpoint snapshots, and `history`'s fold, whose workers keep
//! their changes for one merged trail, or hand them on as they go, each with
//! the fold-order index of the record that made it (`site`'s [`Trail`]).
//!
//! **Resuming** ([`fold_from`] with a [`Start`]): a fold may begin from a state
//! folded up to a position `(at, seq)` (a checkpoint, see `ledger::checkpoint`)
//! and fold only the records after it. That is the same fold as from nothing
//! exactly when the records at or before the position, voids applied, are the
//! same set: the caller guarantees it (`checkpoint`'s invariant **a checkpoint
//! serves a cut**: no record between the head the state was folded at and the
//! fold's last seq sorts at or before the position or voids a record that
//! does). A fold with a known-at seq resumes like any other, and takes only
//! the records and voids at or below that seq after the position; pinned
//! rules (the state folded the rules changes in force) never resume. Void
//! checks still see every void, in seq order, so a
//! resumed check fold refuses exactly what a full one does, with the same error:
//! records before the position were checked against the same predecessors.
//! A query may also resume from a state still being decoded ([`Resume::Later`]):
//! the records are read meanwhile, and each worker waits for its part.
//!
//! The voids are checked from the summaries, in seq order, before any record
//! is folded ([`keep_of`]). A known-at seq stops the read at the chunk holding
//! that seq, whose later records, and every later void, it leaves out.

mod checkpoint;
mod lend;
#[cfg(test)]
mod mem;
mod parallel;
mod refused;
pub mod stream;
mod view;

use std::sync::{Arc, Mutex};

use serde_json::Value;

pub use checkpoint::{LAYOUT, TRACE_ENV};
#[cfg(test)]
pub(crate) use mem::MemSource;
pub use stream::{Keep, Span};

use crate::error::{Error, Origin, Result};
use crate::events::ledger;
use crate::systems::params::{self, Params};
use crate::systems::{players, Change, Cx, Event, Other, Record, State};
use crate::time::Micros;

/// A position in fold order: `(at, seq)`.
pub type Pos = (Micros, u64);

/// Where records come from: the ledger, or memory in tests.
pub trait Source {
    /// The last seq (0 for none).
    fn last_seq(&self) -> u64;
    /// `(seq, target)` of every `ledger.voided`, in seq order.
    fn void_pairs(&self, f: &mut dyn FnMut(u64, u64) -> Result<()>) -> Result<()>;
    /// The records with these seqs, in exactly this order.
    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()>;
    /// Every chunk up to [`Source::last_seq`] as its summary describes it, in
    /// seq order (the ledger's cover seqs `1..=last_seq`), for the one-pass
    /// fold (`stream`).
    fn spans(&self) -> Result<Vec<Span>>;
    /// The records of `spans`' chunks that `keep` takes, in fold order, read
    /// in one pass (`stream::run`), the stored bytes undecoded where the
    /// source has them: the parallel fold decodes them on its workers.
    fn items_in_order(
        &self,
        spans: &[Span],
        keep: &Keep,
        f: &mut dyn FnMut(Item<'_>) -> Result<()>,
    ) -> Result<()>;
}

/// One record of [`Source::items_in_order`].
pub enum Item<'a> {
    Decoded(Record),
    /// A stored event's bytes, with the record's header fields.
    Stored {
        seq: u64,
        at: Micros,
        recorded_at: Micros,
        bytes: &'a [u8],
    },
}

/// Is an event of type `kind` folded when only namespace `only` is asked for?
/// `ledger.*` records (rule changes) always are.
pub fn wanted(kind: &str, only: Option<&str>) -> bool {
    let ns = kind.split_once('.').map_or(kind, |(ns, _)| ns);
    only.is_none_or(|o| ns == o || ns == "ledger")
}

/// The last seq a fold of `q` over records `1..=last` takes: `last`, or the
/// known-at seq below it.
pub fn known_seq(q: &Query, last: u64) -> u64 {
    q.known_at.map_or(last, |n| n.min(last))
}

/// What to fold.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Fold only events with `at <= as_of`.
    pub as_of: Option<Micros>,
    /// Fold only the records up to this seq: what the ledger knew then (a
    /// `--known-at` time is the last seq recorded by then,
    /// [`crate::ledger::Ledger::seq_recorded_by`]).
    pub known_at: Option<u64>,
    /// A validated rules file to pin (`replay --rules`).
    pub rules: Option<Value>,
    /// Keep the audit trail of every change (for `history`).
    pub audit: bool,
    /// With `audit`: keep only the changes to this subject (`history` of one
    /// player); None keeps every change (`site`).
    pub audit_subject: Option<String>,
    /// With `audit_subject`: a date no record dated before changes the
    /// subject (`history` gives a player's first date, when no grudge team
    /// bears the name), so the audit fold may start from a checkpoint before
    /// it (`None`: from nothing).
    pub subject_since: Option<Micros>,
    /// With `audit`: hand the trail to this sink as the fold goes (`site`):
    /// each worker hands its changes on after a batch of records, once it
    /// holds [`TRAIL_BATCH`] changes or more, and the rest at the end;
    /// `Folded::cx` keeps none.
    pub trail: Option<Trail>,
    /// Check every record before applying it (append-time validation).
    pub check: bool,
    /// With `check`: the seq of the first record the append brings. Those
    /// from it on are new input and meet its rules (a rules change's tables
    /// and decimals as their ranges say); a stored record is checked as it
    /// was accepted, so what a ledger holds never turns invalid under it.
    /// 0: every record is new.
    pub fresh_from: u64,
    /// Fold only this namespace's projection (plus `ledger.*`): a standings
    /// query needs no other, and skips decoding their records.
    pub only: Option<&'static str>,
    /// Fold only the players indexes (no system checks or applies): what an
    /// append whose check fold failed runs to find a players problem earlier
    /// in input order.
    pub players_only: bool,
}

/// A change and the index in fold order of the record that made it.
pub type Placed = (u64, Change);

/// Where an audit fold hands its trail as it goes ([`Query::trail`]). The
/// fold's workers (one per group of namespaces) hand their changes on in
/// turns: each batch is one worker's, in fold order, and every change of a
/// record is in one batch, in the order made. Sorting the whole trail by
/// index, stably, gives the trail of a sequential fold.
pub trait TrailSink: Send {
    /// Take `changes`, the next ones of one worker.
    fn take(&mut self, changes: Vec<Placed>) -> Result<()>;
}

/// A shared [`TrailSink`] (a `Query` is `Clone` and `Debug`).
#[derive(Clone)]
pub struct Trail(pub Arc<Mutex<dyn TrailSink>>);

impl std::fmt::Debug for Trail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Trail")
    }
}

impl Trail {
    fn give(&self, changes: Vec<Placed>) -> Result<()> {
        let mut sink = self
            .0
            .lock()
            .map_err(|_| Error::Internal("the audit trail's sink failed".into()))?;
        sink.take(changes)
    }
}

/// How many changes a worker of an audit fold with a [`Trail`] keeps before
/// handing them on.
pub const TRAIL_BATCH: usize = 16_384;

/// The result of a fold.
#[derive(Debug, Clone, Default)]
pub struct Folded {
    pub state: State,
    pub cx: Cx,
    /// The highest seq inside the known-at cut (0 for none).
    pub known_at: u64,
}

impl Folded {
    /// Drop it on a thread of its own. Freeing a full fold's state, millions
    /// of small allocations, takes a while on the one thread left, after the
    /// answer is known. A caller that ends
    /// right after (the binary) does not wait for it: the process exits meanwhile.
    pub fn discard(self) {
        let freeing = std::thread::Builder::new().name("discard".into());
        // Should the thread not start, the closure and the state drop here.
        let _ = freeing.spawn(move || drop(self));
    }
}

/// The voids seen so far, in seq order: what [`keep_of`] collects and, when
/// checking, checks.
#[derive(Default)]
struct Voids {
    /// Records voided.
    voided: std::collections::BTreeSet<u64>,
    /// The `ledger.voided` records themselves.
    void_seqs: std::collections::BTreeSet<u64>,
    /// When checking: the void of each record voided, to name it.
    void_of: std::collections::BTreeMap<u64, u64>,
    /// The first seq of the append being checked ([`Query::fresh_from`]).
    fresh_from: u64,
}

impl Voids {
    /// Record void `seq` of `target`; with `check`, refuse it first if it may
    /// not void `target` (given the voids before it).
    fn add(&mut self, seq: u64, target: u64, check: bool) -> Result<()> {
        if check {
            self.check(seq, target)?;
            self.void_of.insert(target, seq);
        }
        self.voided.insert(target);
        self.void_seqs.insert(seq);
        Ok(())
    }

    fn check(&self, seq: u64, target: u64) -> Result<()> {
        let origin = Origin {
            seq: Some(seq),
            kind: Some("ledger.voided".into()),
            ..Origin::default()
        };
        let msg = if target == 0 || target >= seq {
            format!("void target {target} is not an earlier record")
        } else if self.void_seqs.contains(&target) {
            format!(
                "record {target} is itself a void; voids cannot be voided: to bring its \
                 target back, append that event again (under a new `id` if it would be an \
                 exact copy)"
            )
        } else if self.void_of.get(&target) >= Some(&self.fresh_from) {
            format!("record {target} is already voided, by another void of this append")
        } else if let Some(void) = self.void_of.get(&target) {
            format!(
                "record {target} is already voided, by record {void} (what replaced it, if \
                 anything did, follows its void: `laurel log --from {void}`)"
            )
        } else {
            return Ok(());
        };
        Err(Error::invalid(origin, msg))
    }
}

/// The voids inside `q`'s known-at cut: voided seq → the seq of its
/// `ledger.voided`. The cut keeps a prefix of the seqs, so the voids' pairs
/// say it alone (from the chunk summaries, no record read).
pub fn voids(source: &dyn Source, q: &Query) -> Result<std::collections::BTreeMap<u64, u64>> {
    let mut out = std::collections::BTreeMap::new();
    let known = known_seq(q, source.last_seq());
    source.void_pairs(&mut |seq, target| {
        if seq <= known {
            out.insert(target, seq);
        }
        Ok(())
    })?;
    Ok(out)
}

/// A fold resumed from a checkpoint: the state folded up to and including `after`.
pub struct Start {
    pub state: Resume,
    /// The rules in force at `after`.
    pub params: Params,
    pub after: Pos,
    /// How many records were folded up to and including `after`.
    pub folded: u64,
}

/// The state a fold resumes from.
pub enum Resume {
    /// Boxed: a `State` is large.
    Ready(Box<State>),
    /// A state another thread is still decoding (a query's checkpoint): the
    /// records are read while it decodes, and each worker takes its
    /// projections from it before it applies its first record. If the sender
    /// is dropped instead, the workers stop and the fold fails: the caller,
    /// who knows the decoding failed, folds another way. Only a plain query
    /// (no known-at cut, no audit trail, no sink) folds from one.
    Later(std::sync::mpsc::Receiver<State>),
}

/// A checkpoint's bytes: one section each, in order; `None` for a section
/// the fold does not make (a namespace it does not fold).
pub type Snapshot = Vec<Option<Vec<u8>>>;

/// Where a fold's snapshots fall in fold order.
#[derive(Debug, Clone)]
pub enum Marks {
    /// After every `n`th record (counted from the first record of the log).
    Every(u64),
    /// At these positions, ascending (the places of the checkpoints a late
    /// record's fold makes again): the state of every record folded that
    /// sorts at or before each, whether or not a record folded stands there
    /// (one voided since); places with no record folded between them get
    /// the same.
    At(Vec<Pos>),
}

/// What a fold hands its state to at each of its `marks`: position, count
/// of records folded up to it and the encoded state.
pub struct Sink<'a> {
    pub marks: Marks,
    /// Encodes section `i` of a snapshot: 0 the rules in force, `1 + ns` the
    /// projection of `NAMESPACES[ns]`. Pure, so it runs on the worker that folds
    /// that namespace, at exactly that state.
    pub encode: fn(&State, &Params, usize) -> Result<Vec<u8>>,
    /// Stores a snapshot (`1 + 2 * NAMESPACES.len()` sections, in order,
    /// those of the folded namespaces there); runs on the caller's thread
    /// (which owns the ledger), in fold order.
    pub put: &'a mut dyn FnMut(Pos, u64, Snapshot) -> Result<()>,
}

/// Fold the log as `q` asks.
pub fn fold(source: &dyn Source, q: &Query) -> Result<Folded> {
    fold_from(source, q, None, None)
}

/// Fold the log as `q` asks, from `start` (see the module docs for when that is
/// allowed) or from nothing, handing the state to `sink` on the way.
pub fn fold_from(
    source: &dyn Source,
    q: &Query,
    start: Option<Start>,
    sink: Option<Sink<'_>>,
) -> Result<Folded> {
    let spans = source.spans()?;
    let known_at = known_seq(q, source.last_seq());
    let keep = keep_of(&spans, q, start.as_ref().map(|s| s.after), known_at)?;
    let order = Order {
        spans: &spans,
        keep: &keep,
    };
    fold_ordered(source, q, start, (order, known_at), sink)
}

/// The records a fold takes: what a [`Keep`] takes of the chunks of
/// [`Span`]s, in one pass.
#[derive(Clone, Copy)]
struct Order<'a> {
    spans: &'a [Span],
    keep: &'a Keep,
}

/// What a fold keeps of `spans`: the records after `after` (a resumed fold),
/// at or before `--as-of`, up to seq `known`, and the voids among those,
/// from the summaries, checked in seq order when `q.check`.
fn keep_of(spans: &[Span], q: &Query, after: Option<Pos>, known: u64) -> Result<Keep> {
    let mut voids = Voids {
        fresh_from: q.fresh_from,
        ..Voids::default()
    };
    let within = spans.iter().flat_map(|s| &s.voids);
    for &(seq, target) in within.filter(|v| v.0 <= known) {
        voids.add(seq, target, q.check)?;
    }
    Ok(Keep {
        after,
        hi: q.as_of.unwrap_or(Micros::MAX),
        known: Some(known),
        voided: voids.voided,
    })
}

/// Fold the records of `order`.
fn fold_ordered(
    source: &dyn Source,
    q: &Query,
    start: Option<Start>,
    (order, known_at): (Order<'_>, u64),
    sink: Option<Sink<'_>>,
) -> Result<Folded> {
    let (state, later, params, n) = match start {
        Some(Start {
            state,
            params,
            folded,
            ..
        }) => match state {
            Resume::Ready(state) => (*state, None, params, folded),
            Resume::Later(rx) => (State::default(), Some(rx), params, folded),
        },
        None => (State::default(), None, pinned(q), 0),
    };
    if later.is_some() && (q.audit || q.trail.is_some() || sink.is_some()) {
        return Err(Error::Internal(
            "only a plain query folds from a state still decoding".into(),
        ));
    }
    let out = Folded {
        state,
        cx: Cx::new(params, q.audit)
            .with_audit_subject(q.audit_subject.clone())
            .with_fresh_from(q.fresh_from),
        known_at,
    };
    if q.audit && sink.is_some() {
        return Err(Error::Internal(
            "a fold with an audit trail stores no snapshots".into(),
        ));
    }
    let counted = sink
        .as_ref()
        .is_some_and(|s| matches!(s.marks, Marks::Every(_)));
    if counted && q.only.is_some() {
        return Err(Error::Internal(
            "checkpoints made by count need every namespace folded".into(),
        ));
    }
    parallel::fold(source, order, q, (out, n), sink, later)
}

fn pinned(q: &Query) -> Params {
    match &q.rules {
        Some(rules) => Params::pinned(rules),
        None => Params::default(),
    }
}

/// Check `rec` against `state`, as new input if the append being checked
/// brings it ([`Cx::brings`], from [`Query::fresh_from`]).
fn check_record(state: &State, rec: &Record, cx: &Cx) -> Result<()> {
    let fresh = cx.brings(rec.seq);
    let verdict = match &rec.event {
        Event::Ledger(ledger::Event::RulesChanged(rc)) if fresh => {
            params::check_input(&rc.system, &rc.params)
                .and_then(|()| match rc.params.is_empty() {
                    // It would change nothing, and say in the log that it did.
                    true => Err(format!(
                        "field `params`: empty; a rule change sets at least one parameter of \
                         {:?} (`laurel rules` lists them)",
                        rc.system
                    )),
                    false => Ok(()),
                })
                .and_then(|()| reason_given(&rc.reason))
        }
        Event::Ledger(ledger::Event::RulesChanged(rc)) => {
            params::check_system(&rc.system, &rc.params)
        }
        // How a new name must be written is the players check's
        // ([`crate::systems::players::check_name`]).
        Event::Ledger(ledger::Event::PlayerRegistered(r)) => players::not_empty(&r.player)
            .and_then(|()| match fresh {
                true => state.players.check_registration(&r.player, rec.seq),
                false => Ok(()),
            }),
        Event::Ledger(ledger::Event::PlayerRenamed(r)) => {
            let given = |()| match fresh {
                true => reason_given(&r.reason),
                false => Ok(()),
            };
            (players::not_empty(&r.from).and_then(|()| players::not_empty(&r.to))).and_then(given)
        }
        _ if fresh => State::idents_written(rec)
            .and_then(|()| state.check(rec, cx))
            .and_then(|()| state.check_input(rec)),
        _ => state.check(rec, cx),
    };
    verdict.map_err(|msg| match cx.take_other() {
        // Another record's refusal: the append names it by its file and line.
        Some(Other::Blamed(seq)) => Error::invalid(
            Origin {
                seq: Some(seq),
                ..Origin::default()
            },
            msg,
        ),
        Some(Other::Clashes(seq)) => {
            let mut e = invalid_record(rec, msg);
            if let Some(origin) = e.origin_mut() {
                origin.clashes_with = Some(seq);
            }
            e
        }
        None => invalid_record(rec, msg),
    })
}

/// A `reason` an event gives says something (a rule of input).
fn reason_given(reason: &Option<String>) -> Result<(), String> {
    match reason {
        Some(r) if r.trim().is_empty() => {
            Err("field `reason`: empty; say why, or leave the field out".into())
        }
        _ => Ok(()),
    }
}

fn invalid_record(rec: &Record, msg: String) -> Error {
    let origin = Origin {
        seq: Some(rec.seq),
        id: rec.id.clone(),
        kind: Some(rec.kind.clone()),
        ..Origin::default()
    };
    Error::invalid(origin, msg)
}

/// The players index's side of a record, before it is checked and applied:
/// later names of renamed players written as their roots, names noted
/// ([`State::admit`]); with `check`, a name renamed away is refused.
fn admit_record(state: &mut State, rec: &mut Record, check: bool) -> Result<()> {
    state
        .admit(rec, check)
        .map_err(|msg| invalid_record(rec, msg))
}

/// Apply `rec`; a rule change changes the rules in force, and with an audit
/// trail, each system tells what it changed at once
/// ([`State::audit_rules`]).
fn apply_record(state: &mut State, rec: &Record, cx: &mut Cx) {
    if let Event::Ledger(ledger::Event::RulesChanged(rc)) = &rec.event {
        let before = cx.auditing().then(|| cx.params.clone());
        cx.params.change(&rc.system, &rc.params);
        if let Some(before) = before {
            state.audit_rules(rec, &before, cx);
        }
    }
    state.apply(rec, cx);
}

#[cfg(test)]
mod stored;
#[cfg(test)]
mod tests;
