//! Folds that start from a checkpoint, and the check fold that makes them.
//!
//! The ledger stores checkpoints as named sections of bytes it does not
//! read ([`crate::ledger::checkpoint`]); this module says what the sections
//! are: `ledger.rules`, the rules in force (bincode of [`Params`]), then one
//! per projection under its namespace, in [`NAMESPACES`] order, each encoded and read back by its
//! system (`RatingSystem::checkpoint` and `restore`, through
//! `State::checkpoint_of` and `State::restore_of`), then each namespace's
//! players index under `players.<namespace>`
//! ([`crate::systems::players::Index`]), read with its namespace. Each name
//! ends in `@` and the sections' [`LAYOUT`] (`cfr@<LAYOUT>`), so that no fold reads
//! bytes written under another layout. A query
//! resumes from the latest checkpoint at or before its `--as-of` that serves
//! its cut and folds the records after it (one player's history: the latest
//! before their first record, since no record dated earlier changes them);
//! the check fold of an append resumes from the latest one still valid and
//! stores new ones on the way, or, for late records of one rating system,
//! folds that system alone and makes the checkpoints after their cut again
//! in place (`late.rs`), and for late records about players (registered,
//! renamed) makes only their players sections again (`named.rs`); a void of
//! the record that brought a name other records still write is refused
//! (`voided_players.rs`).
//!
//! # Invariant: a checkpoint serves a cut
//!
//! A checkpoint at position `P` made at head `H` holds the fold of the
//! records `1..=H` that sort at or before `P` in `(at, seq)` order, the voids
//! among `1..=H` applied, with the rules changes among them in force. A fold
//! of the records `1..=U` (a plain query or an append's check fold: `U` is
//! the head; `--known-at K`: `U = min(K, head)`) holds exactly that state at
//! `P` iff the two views agree on what sorts at or before `P`: iff every
//! record with a seq between them, in `(min(H, U), max(H, U)]`, sorts after
//! `P` and voids no record that sorts at or before `P`. A record of that
//! range dated at or before `P` (a late event, a rule change effective by
//! then, a correction's replacement), or a void of that range removing a
//! record at or before `P`, breaks it: for `U > H` those are what was
//! recorded since the checkpoint, for `U < H` what the known-at cut takes
//! away. [`Ledger::usable`] decides it from the chunk summaries (the
//! smallest `at` of each chunk holding such records, the `at` of each
//! record voided: [`Ledger::cut_after`]), which may only say no too often,
//! never yes wrongly; the record at `H` must also still have the hash it
//! had. A known-at time is its seq ([`Ledger::seq_recorded_by`]) and resumes
//! as that seq does. `LAUREL_CHECKPOINT_TRACE` shows which checkpoint a query
//! took.

use bincode::Options;
use serde::Serialize;

use super::view::View;
use super::{Marks, Pos, Query, Resume, Sink, Start};
use crate::error::{Error, Result};
use crate::ledger::checkpoint::{every, small_header, unpack, Frames, Header, ParentOf};
use crate::ledger::{Head, Ledger};
use crate::systems::params::Params;
use crate::systems::players::{Index, PerNamespace};
use crate::systems::{State, NAMESPACES};
use crate::time::Micros;

/// The version of what the sections hold: their bytes' layout, and the fold
/// that computed the values in them. Every section's name ends in `@LAYOUT`,
/// so a checkpoint written under another has none of the sections a fold
/// reads, and no fold uses it (nor does `verify` compare it). Raised with
/// every change of a section's bytes for the same records: a field added,
/// removed, reordered or retyped, another encoding, or a rule computed
/// otherwise (a checkpoint holds values the old rule computed). The test
/// `a_change_of_the_sections_bytes_comes_with_a_new_layout` fails until it is.
pub const LAYOUT: u32 = 4;

/// A section's name: `base` (no system's name has a dot or an `@`) and the
/// layout.
fn section(base: &str) -> String {
    format!("{base}@{LAYOUT}")
}

/// The name of the section of the rules in force.
fn rules_section() -> String {
    section("ledger.rules")
}

/// The name of namespace `ns`'s projection section.
fn state_section(ns: &str) -> String {
    section(ns)
}

/// The sections' names, in the order a fold encodes them: the rules in
/// force, then one per namespace, named by it, then one players index per
/// namespace.
fn names() -> Vec<String> {
    let players = NAMESPACES.iter().map(|ns| players_section(ns));
    std::iter::once(rules_section())
        .chain(NAMESPACES.iter().map(|ns| state_section(ns)))
        .chain(players)
        .collect()
}

/// The name of namespace `ns`'s players index section.
fn players_section(ns: &str) -> String {
    section(&format!("players.{ns}"))
}

/// Borrowed names.
fn refs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

fn section_bytes<T: Serialize>(v: &T) -> Result<Vec<u8>> {
    bincode::DefaultOptions::new()
        .serialize(v)
        .map_err(storage_error)
}

fn storage_error(e: bincode::Error) -> Error {
    Error::Storage(format!("checkpoint: {e}"))
}

/// Set (to anything but `0`) to never start a fold from a checkpoint: tests and the
/// bench compare against the full fold with it.
pub const DISABLE_ENV: &str = "LAUREL_NO_CHECKPOINTS";
/// Set (to anything but `0`) to have a query say on stderr where its fold started,
/// and an append (or `check`) when its check fold is of one system or of
/// players records alone.
pub const TRACE_ENV: &str = "LAUREL_CHECKPOINT_TRACE";

/// Section `i`'s bytes ([`names`]): 0 the rules in force, `1 + ns` the projection of
/// `NAMESPACES[ns]`, `1 + NAMESPACES.len() + ns` its players index (a
/// parallel check fold encodes each on the worker that folds that
/// namespace, see `super::Sink`).
pub fn encode_section(state: &State, params: &Params, i: usize) -> Result<Vec<u8>> {
    let n = NAMESPACES.len();
    let bytes = match i {
        0 => return section_bytes(params),
        _ if i <= n => state.checkpoint_of(i - 1),
        _ => (state.players.0.get(i - 1 - n))
            .ok_or_else(|| format!("no section {i}"))
            .and_then(|p| p.checkpoint()),
    };
    bytes.map_err(|e| Error::Storage(format!("checkpoint: {e}")))
}

/// Read sections back (`read(name)` gives that section's bytes): the rules
/// in force and the states of `only`'s namespace (every namespace for `None`;
/// the others stay empty, as a fold of `only` leaves them). `None` if any is
/// damaged or missing.
#[cfg(test)]
pub fn decode(
    read: &mut dyn FnMut(&str) -> Result<Option<Vec<u8>>>,
    only: Option<&str>,
) -> Result<Option<(State, Params)>> {
    let Some((state, _)) = decode_state(read, Some, Part { only, states: true }, false)? else {
        return Ok(None);
    };
    Ok(read(&rules_section())?
        .and_then(|b| params_of(&b))
        .map(|p| (state, p)))
}

/// The rules in force from their section's bytes; `None` if damaged.
fn params_of(b: &[u8]) -> Option<Params> {
    let mut p: Params = crate::systems::compact::from_section(b)?;
    p.restamp();
    Some(p)
}

/// A namespace (its place in `NAMESPACES`) and its two sections, its state
/// and its players index, as stored.
type Loaded<T> = (usize, T, T);
/// What a namespace's sections decode into: its state and players index, in
/// a `State` of its own, and (when kept) the two sections' bytes.
type Unpacked = (State, [Vec<u8>; 2]);
/// Sections' bytes by name.
type Named = Vec<(String, Vec<u8>)>;

/// What a fold reads of a checkpoint besides the rules: the sections of
/// namespace `only` (every namespace for `None`), its players index and,
/// unless the fold is of the players indexes alone, its state.
#[derive(Debug, Clone, Copy)]
struct Part<'a> {
    only: Option<&'a str>,
    states: bool,
}

impl<'a> Part<'a> {
    /// Every section.
    const ALL: Part<'static> = Part {
        only: None,
        states: true,
    };

    /// What `q` reads ([`Query::only`], [`Query::players_only`]).
    fn of(q: &'a Query) -> Self {
        Part {
            only: q.only,
            states: !q.players_only,
        }
    }

    /// The namespaces read, by place in `NAMESPACES`.
    fn namespaces(self) -> impl Iterator<Item = (usize, &'static str)> + 'a {
        let only = self.only;
        (NAMESPACES.iter().copied().enumerate())
            .filter(move |(_, ns)| only.is_none_or(|o| o == *ns))
    }
}

/// A checkpoint's sections `part` reads, without the rules: `load(name)` gives
/// a section as stored (`None` if missing), `unpack` its bytes. Each
/// namespace is unpacked and decoded on a thread of its own when there are
/// several (a check fold reads them all: they are most of its fixed cost).
/// With `keep` (and states read), also each section's bytes, by name.
fn decode_state<T: Send>(
    load: &mut dyn FnMut(&str) -> Result<Option<T>>,
    unpack: fn(T) -> Option<Vec<u8>>,
    part: Part,
    keep: bool,
) -> Result<Option<(State, Named)>> {
    let mut loaded: Vec<Loaded<Option<T>>> = Vec::new();
    for (i, ns) in part.namespaces() {
        let s = match part.states {
            true => load(&state_section(ns))?,
            false => None,
        };
        match (s, load(&players_section(ns))?) {
            (s, Some(p)) if s.is_some() || !part.states => loaded.push((i, s, Some(p))),
            _ => return Ok(None),
        }
    }
    let keep = keep && part.states;
    let one = |(i, s, p): Loaded<Option<T>>| -> Option<(usize, Unpacked)> {
        let s = s.map(unpack);
        let p = unpack(p?)?;
        let mut part = State::default();
        if let Some(s) = &s {
            part.restore_of(i, s.as_deref()?)?;
        }
        part.players.0[i] = Index::restore(&p)?;
        let s = s.flatten().unwrap_or_default();
        let kept = if keep { [s, p] } else { Default::default() };
        Some((i, (part, kept)))
    };
    let parts: Vec<Option<(usize, Unpacked)>> = match loaded.len() {
        0 | 1 => loaded.into_iter().map(one).collect(),
        _ => std::thread::scope(|scope| {
            let one = &one;
            let threads: Vec<_> = (loaded.into_iter())
                .map(|l| scope.spawn(move || one(l)))
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        }),
    };
    let (mut state, mut raw) = (State::default(), Vec::new());
    for part in parts {
        let Some((i, (mut part, [s, p]))) = part else {
            return Ok(None);
        };
        state.absorb(&mut part, i);
        if keep {
            raw.extend([
                (state_section(NAMESPACES[i]), s),
                (players_section(NAMESPACES[i]), p),
            ]);
        }
    }
    Ok(Some((state, raw)))
}

/// The sections `part` reads, the rules first.
fn needed(part: Part) -> Vec<String> {
    let states = part.namespaces().flat_map(|(_, ns)| {
        let state = part.states.then(|| state_section(ns));
        state.into_iter().chain([players_section(ns)])
    });
    std::iter::once(rules_section()).chain(states).collect()
}

/// What `part` reads of the frames of a checkpoint with header `h`
/// ([`decode_state`]).
fn unpack_state(h: &Header, mut frames: Vec<Option<Frames>>, part: Part) -> Option<State> {
    let mut read = |name: &str| Ok(h.index(name).and_then(|i| frames.get_mut(i)?.take()));
    let decoded = decode_state(&mut read, unpack, part, false);
    decoded.ok().flatten().map(|(state, _)| state)
}

/// The start of a plain fold from nothing, as a checkpoint before every record
/// would give it: the empty state and the default rules (a resumable query pins
/// none), positioned before `(at, seq)` of any record (seqs start at 1).
fn from_nothing() -> Start {
    Start {
        state: Resume::Ready(Box::default()),
        params: Params::default(),
        after: (Micros::MIN, 0),
        folded: 0,
    }
}

/// A section a checkpoint needs is not in the fold's snapshot.
fn missing_section() -> Error {
    Error::Internal("checkpoint: a section is missing".into())
}

fn disabled() -> bool {
    crate::sysinfo::switch_on(DISABLE_ENV)
}

/// Can a checkpoint serve `q`? Only a fold with no pinned rules (a
/// checkpoint folded the rules changes in force), and no audit trail unless
/// it is one subject's since a known date ([`Query::subject_since`]: the
/// checkpoint lies before every change to it). A known-at seq can: which checkpoints serve it is
/// [`Ledger::usable`]'s question.
fn resumable(q: &Query) -> bool {
    let audit = q.audit && (q.audit_subject.is_none() || q.subject_since.is_none());
    q.rules.is_none() && !audit && !disabled()
}

/// The latest position a checkpoint serving `q` may stand at: `--as-of`'s
/// end, and before every record dated on or after an audited subject's
/// first date.
fn bound_of(q: &Query) -> Pos {
    let as_of = (q.as_of.unwrap_or(Micros::MAX), u64::MAX);
    match q.subject_since {
        Some(since) if q.audit => as_of.min((since, 0)),
        _ => as_of,
    }
}

impl Ledger {
    /// Fold as `q` asks: from the latest checkpoint at or before `q.as_of`
    /// that serves its cut when one can, else from nothing; same answer.
    pub fn fold(&self, q: &Query) -> Result<super::Folded> {
        let head = self.head()?.seq;
        let view = View::new(self, head);
        let t0 = std::time::Instant::now();
        let trace = crate::sysinfo::switch_on(TRACE_ENV);
        let said = |start: Option<(Pos, u64)>| match (trace, start) {
            (false, _) => {}
            (true, Some((after, folded))) => eprintln!(
                "checkpoint: resumed after seq {} ({folded} records)",
                after.1
            ),
            (true, None) => eprintln!("checkpoint: none, folded from the start"),
        };
        let upto = super::known_seq(q, head);
        let f = match resumable(q) {
            // An audit fold takes its state decoded (see `Resume::Later`).
            true if q.audit => self.fold_from_decoded(&view, q, (bound_of(q), upto), &said),
            true => self.fold_resumed(&view, q, upto, &said),
            false => {
                said(None);
                super::fold_from(&view, q, None, None)
            }
        };
        if trace {
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            eprintln!("checkpoint: fold {ms:.1} ms in all");
        }
        f
    }

    /// A resumable query's fold of the records `1..=upto` (an audit's
    /// takes its state decoded first: [`Ledger::fold_from_decoded`]): from
    /// the latest checkpoint at or before `q.as_of` that serves that cut,
    /// whose state sections are decompressed and decoded on a second thread
    /// while this one reads the records after it (one pass,
    /// [`Resume::Later`]); from nothing if there is none. A checkpoint that
    /// turns out damaged sends it the sequential way
    /// ([`Ledger::start_before`]: the next older), and the records read are
    /// read again.
    fn fold_resumed(
        &self,
        view: &View,
        q: &Query,
        upto: u64,
        said: &dyn Fn(Option<(Pos, u64)>),
    ) -> Result<super::Folded> {
        let bound = bound_of(q);
        let Some((h, mut frames)) = self.stored_before(bound, upto, &refs(&needed(Part::of(q))))?
        else {
            // No checkpoint: start from the empty state before every position.
            said(None);
            return super::fold_from(view, q, Some(from_nothing()), None);
        };
        let params = h
            .index(&rules_section())
            .and_then(|i| frames[i].take())
            .and_then(unpack)
            .and_then(|b| params_of(&b));
        let Some(params) = params else {
            return self.fold_from_decoded(view, q, (bound, upto), said);
        };
        // The records are read while another thread decodes the state: the
        // fold's workers wait for it.
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let later = Start {
            state: Resume::Later(rx),
            params,
            after: h.pos,
            folded: h.folded,
        };
        let (decoded, folded) = std::thread::scope(|scope| {
            let part = Part::of(q);
            let h = &h;
            let decoding = scope.spawn(move || match unpack_state(h, frames, part) {
                Some(state) => {
                    // Unsent only if the fold has stopped already: its error stands.
                    let _ = tx.send(state);
                    true
                }
                None => false,
            });
            let folded = super::fold_from(view, q, Some(later), None);
            (decoding.join().unwrap_or(false), folded)
        });
        if !decoded {
            return self.fold_from_decoded(view, q, (bound, upto), said);
        }
        said(Some((h.pos, h.folded)));
        folded
    }

    /// The fold of `q` from the latest checkpoint at or before `bound` whose
    /// sections decode, decoded before the fold starts, or from nothing: an
    /// audit fold's, and a plain one's when the latest checkpoint's sections
    /// could not be decoded.
    fn fold_from_decoded(
        &self,
        view: &View,
        q: &Query,
        (bound, upto): (Pos, u64),
        said: &dyn Fn(Option<(Pos, u64)>),
    ) -> Result<super::Folded> {
        let start = self
            .start_before(bound, upto, Part::of(q), false)?
            .map(|(s, _)| s);
        said(start.as_ref().map(|s| (s.after, s.folded)));
        let start = start.unwrap_or_else(from_nothing);
        super::fold_from(view, q, Some(start), None)
    }

    /// The check fold of an append whose records are `old + 1 ..= new.seq`:
    /// resumes from the latest checkpoint before the earliest position the
    /// new records change and, when `store`, stores new ones (bound to `new`)
    /// on the way. Then the players check of the new records
    /// ([`crate::players`]): the names the append brings for the first time,
    /// in order, or the error of the first one refused. Only once every
    /// check passed are the new checkpoints put in place and those the new
    /// records invalidate dropped (when `store`): a refused append leaves
    /// them serving the old head, so a mistyped late result does not slow
    /// every query after it. A dry run (`store` false) leaves the
    /// checkpoints as they are.
    pub(crate) fn check_fold(&self, old: u64, new: Head, store: bool) -> Result<Vec<String>> {
        self.check_fold_from((old, new), store, old + 1)
    }

    /// [`Ledger::check_fold`] of an append of records accepted once (a
    /// restore of an export): the ledger's rules judge them, the rules of
    /// input (how a new name, ident or rule change must be written, and the
    /// rules between records that bind only what an append brings) do not,
    /// since what a ledger holds never turns invalid.
    pub(crate) fn check_fold_recorded(
        &self,
        old: u64,
        new: Head,
        store: bool,
    ) -> Result<Vec<String>> {
        self.check_fold_from((old, new), store, u64::MAX)
    }

    /// [`Ledger::check_fold`], the rules of input judging the records from
    /// seq `input` on ([`Query::fresh_from`]).
    fn check_fold_from(
        &self,
        (old, new): (u64, Head),
        store: bool,
        input: u64,
    ) -> Result<Vec<String>> {
        let cut = self.cut_after(old, new.seq)?;
        let checked = (self.check_fold_of((old, new), cut, (store, input))).and_then(|names| {
            self.check_voided_players(&View::new(self, new.seq), old)?;
            Ok(names)
        });
        self.settle_checkpoints(checked.is_ok())?;
        let names = checked?;
        if let (Some(cut), true) = (cut, store) {
            self.drop_checkpoints(|h| h.pos >= cut && h.head != new)?;
        }
        Ok(names)
    }

    /// [`Ledger::check_fold`] but for its voids of registrations and renames
    /// (`voided_players`) and the checkpoints it drops; `cut`: the earliest
    /// position the new records change ([`Ledger::cut_after`]); `input`: the
    /// first seq the rules of input judge.
    fn check_fold_of(
        &self,
        (old, new): (u64, Head),
        cut: Option<Pos>,
        (store, input): (bool, u64),
    ) -> Result<Vec<String>> {
        if let Some(cut) = cut {
            if let Some(checked) = self.late_check((old, new), cut, (store, input))? {
                return Ok(checked);
            }
        }
        let bound = cut.map_or((Micros::MAX, u64::MAX), just_before);
        let view = View::new(self, new.seq);
        let (start, whole) = match disabled() {
            true => (None, None),
            false => match self.start_before(bound, new.seq, Part::ALL, store)? {
                Some((start, whole)) => (Some(start), whole),
                None => (None, None),
            },
        };
        let parent: ParentOf = match whole {
            Some((h, raw)) => Box::new(move || self.root_after(h, raw)),
            None => Box::new(|| Ok(None)),
        };
        if !store {
            let q = Query {
                check: true,
                fresh_from: input,
                ..Query::default()
            };
            let f = match super::fold_from(&view, &q, start, None) {
                Ok(f) => f,
                Err(e) => return Err(self.players_problem_before(&view, input, new, e)),
            };
            let replaced = || voided_players::renames_voided(&view, input - 1);
            let checked = crate::players::check_append(&f.state.players, input - 1, &replaced);
            f.discard();
            return checked;
        }
        match self.fold_storing(&view, start, parent, (new, input)) {
            Ok(indexes) => {
                let replaced = || voided_players::renames_voided(&view, input - 1);
                crate::players::check_append(&indexes, input - 1, &replaced)
            }
            Err(e) => Err(self.players_problem_before(&view, input, new, e)),
        }
    }

    /// The error to report for an append whose check fold failed with `e`:
    /// a players problem (see [`crate::players`]) of a record from seq
    /// `input` on before the one `e` names, if there is one, else `e`. A name mistyped in a
    /// schedule makes its result fail the system's check; the typo is the
    /// problem to report. Folds only the players indexes, from the latest
    /// valid checkpoint.
    fn players_problem_before(&self, view: &View, input: u64, new: Head, e: Error) -> Error {
        let failed = match &e {
            Error::Invalid { .. } | Error::Several { .. } => e.origin_seq().filter(|&s| s >= input),
            _ => None,
        };
        let Some(failed) = failed else {
            return e;
        };
        let Ok(indexes) = self.players_indexes(view, new.seq) else {
            return e;
        };
        let replaced = || voided_players::renames_voided(view, input - 1);
        match crate::players::check_append(&indexes, input - 1, &replaced) {
            Err(names) if names.origin_seq().is_some_and(|s| s < failed) => names,
            _ => e,
        }
    }

    /// The players indexes of `view`'s records (up to `upto`), folded alone
    /// from the latest checkpoint that serves them.
    fn players_indexes(&self, view: &View, upto: u64) -> Result<PerNamespace> {
        let q = Query {
            players_only: true,
            ..Query::default()
        };
        let bound = (Micros::MAX, u64::MAX);
        let start = match disabled() {
            true => None,
            false => (self.start_before(bound, upto, Part::of(&q), false).ok())
                .flatten()
                .map(|(s, _)| s),
        };
        players_from(view, start)
    }

    /// The check fold from `start`, storing a checkpoint every `every(new.seq)`
    /// records through [`Ledger::storing_checkpoints`]; the players indexes
    /// at the end; `input`: the first seq the rules of input judge.
    fn fold_storing(
        &self,
        view: &View,
        start: Option<Start>,
        parent: ParentOf<'_>,
        (new, input): (Head, u64),
    ) -> Result<PerNamespace> {
        let every = every(new.seq);
        let q = Query {
            check: true,
            fresh_from: input,
            ..Query::default()
        };
        self.storing_checkpoints((parent, &refs(&names())), new, every, |put| {
            // Every namespace is folded: every section is there.
            let mut whole = |pos, n, s: super::Snapshot| match s.into_iter().collect() {
                Some(sections) => put(pos, n, sections),
                None => Err(missing_section()),
            };
            let sink = Sink {
                marks: Marks::Every(every),
                encode: encode_section,
                put: &mut whole,
            };
            // Nothing reads the state: it is freed (on a thread of its own)
            // while the last checkpoint compresses.
            super::fold_from(view, &q, start, Some(sink)).map(|mut f| {
                let players = std::mem::take(&mut f.state.players);
                f.discard();
                players
            })
        })
    }

    /// The latest usable checkpoint at or before `bound`, read as `part`
    /// says; when `part` is every section, also its header and its uncompressed
    /// sections when it is whole (kept as they are decoded), from which
    /// [`Ledger::root_after`] gives the parent of the next checkpoint a
    /// check fold makes.
    fn start_before(
        &self,
        bound: Pos,
        upto: u64,
        part: Part,
        want_parent: bool,
    ) -> Result<Option<(Start, Option<Resumed>)>> {
        let want_parent = want_parent && part.only.is_none() && part.states;
        for h in self.usable_before(bound, upto)? {
            let h = h?;
            // A whole checkpoint's sections are kept, uncompressed, as the
            // next delta's parent only for an append that stores checkpoints,
            // and only if they are small enough to hold beside the state.
            let keep = want_parent && h.parent.is_none() && small_header(&h);
            let mut load = |name: &str| self.frames(&h, name);
            let Some((state, kept)) = decode_state(&mut load, unpack, part, keep)? else {
                continue;
            };
            let rules = self.raw_section(&h, &rules_section())?;
            let Some(params) = rules.as_deref().and_then(params_of) else {
                continue;
            };
            let start = Start {
                state: Resume::Ready(Box::new(state)),
                params,
                after: h.pos,
                folded: h.folded,
            };
            let parent = match want_parent {
                false => None,
                true => {
                    let mut raw = vec![Vec::new(); h.sections.len()];
                    let rules = rules.filter(|_| keep).map(|b| (rules_section(), b));
                    for (name, b) in kept.into_iter().chain(rules) {
                        if let Some(i) = h.index(&name) {
                            raw[i] = b;
                        }
                    }
                    Some((h, raw))
                }
            };
            return Ok(Some((start, parent)));
        }
        Ok(None)
    }
}

/// A checkpoint a check fold resumed from: its header and, when it is
/// whole, its uncompressed sections in the header's order (else empty).
type Resumed = (Header, Vec<Vec<u8>>);

/// The fold position right before `pos`.
fn just_before((at, seq): Pos) -> Pos {
    match seq.checked_sub(1) {
        Some(seq) => (at, seq),
        None => (at.saturating_sub(1), u64::MAX),
    }
}

mod late;
mod named;
/// The players indexes of `view`'s records, folded alone (no system applies
/// a record) from `start`, or from nothing.
fn players_from(view: &View, start: Option<Start>) -> Result<PerNamespace> {
    let q = Query {
        players_only: true,
        ..Query::default()
    };
    let mut f = super::fold_from(view, &q, start, None)?;
    let indexes = std::mem::take(&mut f.state.players);
    f.discard();
    Ok(indexes)
}

#[cfg(test)]
mod tests;
mod verify;
mod voided_players;
