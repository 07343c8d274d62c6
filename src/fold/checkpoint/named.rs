//! The check fold of late records about players.
//!
//! An append whose records are all `ledger.player_registered` and
//! `ledger.player_renamed` changes no rating system's projection: a
//! registration only lists a name, and a rename of `from` to `to` only
//! changes how later events' names are written. When no event dated after
//! the rename names `from` and no event at all names `to`, no event is
//! written differently, and the append changes each players index at every
//! position after its records by those records alone. When moreover every
//! rename the ledger held sorts before the append's cut, admitting the
//! append's records into a players index after them, in their fold order,
//! gives what the fold of everything gives there (a rename is admitted
//! after the same renames as in that fold). So its check fold:
//! - takes the players indexes of the latest checkpoint at or after the cut,
//!   and admits the append's records into them with the checks of the fold of
//!   everything (a rename of a name renamed already, or to a later name of
//!   a player);
//! - folds the players indexes from there to the head (no checks: those
//!   records were checked when appended) and runs the players check of the
//!   new records on them, as the fold of everything does;
//! - makes each checkpoint at or after the cut again in place, its players
//!   sections with the records before it admitted, every other section kept
//!   as stored (`ledger::checkpoint`'s `making_again`), bound to the new head.
//!
//! Used when at most [`LATE_MAX`](super::late::LATE_MAX) records are appended, all before the
//! latest checkpoint (one after it folds from it anyway); otherwise, and for
//! a record this path would refuse, the fold of everything runs and refuses
//! it with its own message.

use super::late::Late;
use super::{encode_section, players_section, Named};
use super::{Ledger, TRACE_ENV};
use crate::error::Result;
use crate::events::ledger;
use crate::fold::{Resume, Start};
use crate::ledger::checkpoint::{Header, Pos};
use crate::systems::players::{PerNamespace, Rename};
use crate::systems::{Cx, Event, Record, State, NAMESPACES};

impl Ledger {
    /// The check fold of `late` when its records are about players (see the
    /// module docs): the players check's answer, or `None`.
    pub(super) fn named_fold(&self, late: &Late) -> Result<Option<Vec<String>>> {
        let (old, new, cut) = (late.old, late.new, late.cut);
        let (olds, view, records, last) = (&late.olds, &late.view, &late.records, late.last());
        if !records.iter().all(|r| about_players(r, last.pos)) {
            return Ok(None);
        }
        let Some(mut start) = self.players_at(last)? else {
            return Ok(None);
        };
        let Resume::Ready(state) = &mut start.state else {
            return Ok(None);
        };
        if admit(state, records, last.pos, true).is_none() {
            return Ok(None);
        }
        start.folded += records.len() as u64;
        // The latest checkpoint made again is this state: encoded now, before
        // the fold takes it, rather than decoded and admitted into again.
        let mut last_again = match late.store {
            true => Some((start.folded, players_sections(state, &start.params)?)),
            false => None,
        };
        let head = super::players_from(view, Some(start))?;
        if !written_alike(&head, records, cut, old) {
            return Ok(None);
        }
        if crate::sysinfo::switch_on(TRACE_ENV) {
            eprintln!(
                "checkpoint: check fold of players records alone, {} to make again",
                olds.len()
            );
        }
        let replaced = || super::voided_players::renames_voided(view, late.input - 1);
        let answer = crate::players::check_append(&head, late.input - 1, &replaced)?;
        if late.store {
            self.making_again(olds, new, |put| {
                for h in olds {
                    if let (true, Some((folded, sections))) = (h.pos == last.pos, last_again.take())
                    {
                        put(h.pos, folded, sections)?;
                    } else if let Some((folded, sections)) = self.admitted_at(h, records)? {
                        put(h.pos, folded, sections)?;
                    }
                }
                Ok(())
            })?;
        }
        Ok(Some(answer))
    }

    /// Checkpoint `h`'s players sections, by name, with the records of
    /// `records` that sort before it admitted, and the records it then
    /// folds; `None` if they no longer read (it is not made again, and goes
    /// as the checkpoints a late fold does not make again go).
    fn admitted_at(&self, h: &Header, records: &[Record]) -> Result<Option<(u64, Named)>> {
        let Some(Start {
            state: Resume::Ready(mut state),
            params,
            ..
        }) = self.players_at(h)?
        else {
            return Ok(None);
        };
        let Some(n) = admit(&mut state, records, h.pos, false) else {
            return Ok(None);
        };
        Ok(Some((h.folded + n, players_sections(&state, &params)?)))
    }
}

/// The players sections of `state`, by name, as a checkpoint stores them.
fn players_sections(state: &State, params: &crate::systems::params::Params) -> Result<Named> {
    let players = |(i, ns): (usize, &&str)| -> Result<(String, Vec<u8>)> {
        let bytes = encode_section(state, params, 1 + NAMESPACES.len() + i)?;
        Ok((players_section(ns), bytes))
    };
    NAMESPACES.iter().enumerate().map(players).collect()
}

/// Is `r` a player registered or renamed that sorts before `before`?
fn about_players(r: &Record, before: Pos) -> bool {
    let named = matches!(
        r.event,
        Event::Ledger(ledger::Event::PlayerRegistered(_) | ledger::Event::PlayerRenamed(_))
    );
    named && (r.at, r.seq) < before
}

/// Admit the records of `records` (in fold order) that sort before `pos`
/// into every players index of `state`, with the fold's checks when
/// `check`: how many, or `None` if one is refused.
fn admit(state: &mut State, records: &[Record], pos: Pos, check: bool) -> Option<u64> {
    let mut n = 0;
    for r in records.iter().filter(|r| (r.at, r.seq) < pos) {
        let mut r = r.clone();
        // A player record's own checks read no projection nor rule: the
        // players indexes at most.
        if check && crate::fold::check_record(state, &r, &Cx::default()).is_err() {
            return None;
        }
        state.admit(&mut r, check).ok()?;
        n += 1;
    }
    Some(n)
}

/// Does the append's every record change the indexes as the fold of
/// everything would, given `head`, the indexes at the head with them
/// admitted: every earlier rename sorts before `cut`, and no event names an
/// appended rename's `to`, nor its `from` after it.
fn written_alike(head: &PerNamespace, records: &[Record], cut: Pos, old: u64) -> bool {
    let Some(index) = head.0.first() else {
        return false;
    };
    let after_cut = |r: &&Rename| r.seq <= old && (r.at, r.seq) >= cut;
    if index.renames().iter().any(|r| after_cut(&r)) {
        return false;
    }
    records.iter().all(|r| match &r.event {
        Event::Ledger(ledger::Event::PlayerRenamed(rn)) => head.0.iter().all(|i| {
            i.seen(&rn.to).is_none() && i.seen(&rn.from).is_none_or(|s| s.last_at <= r.at)
        }),
        _ => true,
    })
}
