//! The check fold of late records of one rating system.
//!
//! An append whose records are all events of one system's namespace, rule
//! changes of that system's parameter groups, and voids of records of those
//! (a late result; a correction: a void and its replacement; a rule change
//! dated back; no other `ledger.*` record) changes that namespace's
//! projection and players index from its cut on, and the rules in force if
//! it holds a rule change, and nothing else: a system reads only its own
//! parameter groups, so every other namespace's state stays what it was at
//! every position (a void takes its target out of the fold before any
//! worker sees it, and changes no state itself; a rule change names no
//! player). So instead of folding every namespace from the latest checkpoint
//! before the cut, its check fold:
//! - folds that namespace alone, with its checks, from the latest checkpoint
//!   before the cut that still serves it (its records after the cut are
//!   checked again, as the fold of everything would);
//! - makes each checkpoint at or after the cut again at its place, with that
//!   namespace's two sections new (and the rules in force, for a rule
//!   change or a void of one) and every other one kept as stored
//!   (`ledger::checkpoint`'s `making_again`), bound to the new head;
//! - takes the other namespaces' players indexes from the latest of those
//!   checkpoints and folds them to the head (the players fold, no checks),
//!   for the players check of the new records, which reads every index.
//!
//! The same checks of that namespace's records, the same errors, the same
//! checkpoints' contents as the fold of everything: only the positions of
//! the checkpoints after the cut stay where they were instead of moving with
//! the count. The other namespaces' records, checked by the appends that
//! brought them, are not decoded again (one damaged since, which `verify`
//! finds, does not stop this append). Used when at most [`LATE_MAX`]
//! records are appended and a checkpoint stands at or after their cut;
//! otherwise the check fold of everything runs.

use std::collections::BTreeSet;

use super::{decode_state, disabled, just_before, missing_section, names, params_of};
use super::{encode_section, Ledger, TRACE_ENV};
use super::{rules_section, Part};
use crate::error::Result;
use crate::events::ledger;
use crate::fold::view::View;
use crate::fold::{Folded, Marks, Query, Resume, Sink, Snapshot, Source, Start};
use crate::ledger::checkpoint::{unpack, Header, Pos};
use crate::ledger::Head;
use crate::systems::{self, Event, Record, NAMESPACES};

/// The most records an append may have for this path: reading their types
/// costs about a microsecond each, and an append of more refolds as many
/// records of its own anyway.
pub(super) const LATE_MAX: u64 = 10_000;

impl Ledger {
    /// The check fold of an append of late records on the path that fits
    /// them, if one does: late records of one rating system (see the module
    /// docs) or about players ([`super::named`]). The players check's answer,
    /// or `None` when neither applies (the caller folds everything). `store`
    /// as for [`Ledger::check_fold`], which then drops the checkpoints at or
    /// after the cut that were not made again (a file that no longer read):
    /// they serve only the old head.
    pub(super) fn late_check(
        &self,
        (old, new): (u64, Head),
        cut: Pos,
        (store, input): (bool, u64),
    ) -> Result<Option<Vec<String>>> {
        let Some(late) = self.late((old, new), cut, (store, input))? else {
            return Ok(None);
        };
        let answer = match self.late_fold(&late)? {
            Some(answer) => answer,
            None => match self.named_fold(&late)? {
                Some(answer) => answer,
                None => return Ok(None),
            },
        };
        Ok(Some(answer))
    }

    /// The check fold of `late` when its records are late records of one
    /// namespace (see the module docs), or `None`.
    fn late_fold(&self, late: &Late) -> Result<Option<Vec<String>>> {
        let (input, new, cut) = (late.input, late.new, late.cut);
        let (olds, view, records, last) = (&late.olds, &late.view, &late.records, late.last());
        let Some((ns, rules)) = one_namespace(view, records) else {
            return Ok(None);
        };
        let Some(players) = self.players_at(last)? else {
            return Ok(None);
        };
        if crate::sysinfo::switch_on(TRACE_ENV) {
            let n = olds.len();
            eprintln!(
                "checkpoint: check fold of {} alone, {n} to make again",
                NAMESPACES[ns]
            );
        }
        let only = Part {
            only: Some(NAMESPACES[ns]),
            states: true,
        };
        let start = self.start_before(just_before(cut), new.seq, only, false)?;
        let q = Query {
            check: true,
            fresh_from: input,
            only: only.only,
            ..Query::default()
        };
        let start = start.map(|(s, _)| s);
        // The players check runs before the checkpoints made again are put
        // in place: records the check fold refuses leave them as they were.
        let checked = |folded: Result<Folded>| {
            let f = folded.map_err(|e| self.players_problem_before(view, input, new, e))?;
            self.players_check(view, f, ns, players, input)
        };
        let answer = match late.store {
            false => checked(crate::fold::fold_from(view, &q, start, None))?,
            true => self.making_again(olds, new, |put| {
                let mut fresh = |pos, n, s: Snapshot| put(pos, n, sections_of(ns, rules, s)?);
                let sink = Sink {
                    marks: Marks::At(olds.iter().map(|h| h.pos).collect()),
                    encode: encode_section,
                    put: &mut fresh,
                };
                checked(crate::fold::fold_from(view, &q, start, Some(sink)))
            })?,
        };
        Ok(Some(answer))
    }

    /// The players check of the records from seq `input` on ([`crate::players`]),
    /// given `f`, the fold of namespace `ns`: its players index from it,
    /// every other one folded to the head from `players`.
    fn players_check(
        &self,
        view: &View,
        mut f: Folded,
        ns: usize,
        players: Start,
        input: u64,
    ) -> Result<Vec<String>> {
        let mine = std::mem::take(&mut f.state.players.0[ns]);
        f.discard();
        let mut indexes = super::players_from(view, Some(players))?;
        indexes.0[ns] = mine;
        let replaced = || super::voided_players::renames_voided(view, input - 1);
        crate::players::check_append(&indexes, input - 1, &replaced)
    }

    /// The append of the records `old + 1 ..= new.seq`, whose cut is `cut`,
    /// as the late paths see it; `None` when checkpoints are off, it has
    /// more than [`LATE_MAX`] records, one does not read, or no checkpoint
    /// at or after the cut serves the head `old`.
    fn late(
        &self,
        (old, new): (u64, Head),
        cut: Pos,
        (store, input): (bool, u64),
    ) -> Result<Option<Late<'_>>> {
        if disabled() || new.seq - old > LATE_MAX {
            return Ok(None);
        }
        let mut olds = Vec::new();
        for h in self.checkpoints_from(cut)? {
            if self.usable(&h, old)? {
                olds.push(h);
            }
        }
        if olds.is_empty() {
            return Ok(None);
        }
        let view = View::new(self, new.seq);
        let seqs: Vec<u64> = (old + 1..=new.seq).collect();
        let mut records = Vec::with_capacity(seqs.len());
        let read = view.records(&seqs, &mut |r| {
            records.push(r);
            Ok(())
        });
        if read.is_err() || records.len() != seqs.len() {
            return Ok(None);
        }
        records.sort_by_key(|r| (r.at, r.seq));
        Ok(Some(Late {
            old,
            input,
            new,
            cut,
            store,
            olds,
            view,
            records,
        }))
    }

    /// The start of a players fold from checkpoint `h`: every namespace's
    /// players index and the rules in force there; `None` if a section is
    /// missing or damaged.
    pub(super) fn players_at(&self, h: &Header) -> Result<Option<Start>> {
        let part = Part {
            only: None,
            states: false,
        };
        let mut load = |name: &str| self.frames(h, name);
        let Some((state, _)) = decode_state(&mut load, unpack, part, false)? else {
            return Ok(None);
        };
        let Some(params) = self
            .raw_section(h, &rules_section())?
            .and_then(|b| params_of(&b))
        else {
            return Ok(None);
        };
        Ok(Some(Start {
            state: Resume::Ready(Box::new(state)),
            params,
            after: h.pos,
            folded: h.folded,
        }))
    }
}

/// A late append as the late paths see it ([`Ledger::late_check`]).
pub(super) struct Late<'l> {
    pub(super) old: u64,
    /// The first seq the rules of input judge ([`crate::fold::Query::fresh_from`]).
    pub(super) input: u64,
    pub(super) new: Head,
    pub(super) cut: Pos,
    pub(super) store: bool,
    /// The checkpoints at or after the cut that serve the head `old`, in
    /// fold order: those a late path makes again (one at least).
    pub(super) olds: Vec<Header>,
    pub(super) view: View<'l>,
    /// The appended records, in fold order.
    pub(super) records: Vec<Record>,
}

impl Late<'_> {
    /// The latest of `olds` (a late append has one at least).
    pub(super) fn last(&self) -> &Header {
        &self.olds[self.olds.len() - 1]
    }
}

/// The namespace (its place in `NAMESPACES`) of `records`, if they are
/// events and rule changes of one rating system and voids of records of
/// those, and whether a rule change is among them or their targets; `None`
/// too if a target does not read (the fold of everything then decides).
fn one_namespace(view: &View, records: &[Record]) -> Option<(usize, bool)> {
    let (mut seen, mut targets, mut rules) = (BTreeSet::new(), BTreeSet::new(), false);
    let mut note = |e: &Event| {
        rules |= matches!(e, Event::Ledger(ledger::Event::RulesChanged(_)));
        seen.insert(systems::concerned_ns(e));
    };
    for r in records {
        match &r.event {
            Event::Ledger(ledger::Event::Voided(v)) => {
                targets.insert(v.target);
            }
            e => note(e),
        }
    }
    let targets: Vec<u64> = targets.into_iter().collect();
    view.records(&targets, &mut |r| {
        note(&r.event);
        Ok(())
    })
    .ok()?;
    match (seen.len(), seen.first()) {
        (1, Some(&Some(ns))) => Some((ns, rules)),
        _ => None,
    }
}

/// The sections of namespace `ns` in snapshot `s`, by name: its projection
/// and its players index, and the rules in force when `rules` (each there,
/// or the checkpoint is not made).
fn sections_of(ns: usize, rules: bool, mut s: Snapshot) -> Result<Vec<(String, Vec<u8>)>> {
    let names = names();
    let picked = [1 + ns, 1 + NAMESPACES.len() + ns]
        .into_iter()
        .chain(rules.then_some(0));
    let mut take = |i: usize| {
        s.get_mut(i)
            .and_then(Option::take)
            .ok_or_else(missing_section)
    };
    picked.map(|i| Ok((names[i].clone(), take(i)?))).collect()
}
