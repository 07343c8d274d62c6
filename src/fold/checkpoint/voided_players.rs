//! An append that voids a `ledger.player_registered` or a
//! `ledger.player_renamed` while records still write the name it brought.
//!
//! Without a rename, the events after it that write its `to` are no longer
//! its player's: they become a new player of that name, and the player's
//! results after the rename quietly move to them; a later rename of `to`
//! would rename no player. Without a registration, the events naming the
//! registered name would be refused as a typo of a known player when
//! appended anew, and a rename of it would rename no player. Either way the
//! ledger would not validate as it stands without the record, so the void is
//! refused as a void that other records depend on is, naming the first
//! record that still writes the name (`laurel void` then names them all):
//! void those records in the same append (and append them again with the
//! right name), or leave the record. A record that brought nothing (a
//! registration of a name records before it wrote) may be voided, and so
//! may a rename that the same append brings again, the same `from` and `to`
//! (a rename corrected: see [`crate::players`]). A rename's `to` is its
//! player's in fold order, whatever the seqs: a rename corrected is recorded
//! after records that write its `to`, and voided alone it would leave them
//! to a new player of that name, so it is refused as the rename it replaced
//! was.

use std::collections::BTreeMap;

use crate::error::{Error, Origin, Result};
use crate::events::ledger;
use crate::fold::view::View;
use crate::fold::{self, Query, Source};
use crate::ledger::Ledger;
use crate::players::Players;
use crate::systems::{Event, NAMESPACES};

/// A voided record that brought a name: (void seq, its seq, how the
/// message names it, the name, and a rename's `from`).
type Brought = (u64, u64, String, String, Option<String>);

impl Ledger {
    /// The refusal of the first void among the records `old + 1..=upto`
    /// of `view` that takes away a registration or rename whose name records
    /// still write (see the module docs); `Ok` when there is none. Folds the
    /// players indexes only when such a void is there.
    pub(super) fn check_voided_players(&self, view: &View, old: u64) -> Result<()> {
        let mine = voided_after(view, old)?;
        if mine.is_empty() {
            return Ok(());
        }
        let brought = brought_names(view, &mine)?;
        if brought.is_empty() {
            return Ok(());
        }
        let players = Players::merge(&self.players_indexes(view, view.last_seq())?);
        for (void, target, what, name, from) in brought {
            let again = from
                .as_ref()
                .and_then(|from| players.rename_of(from, &name));
            if again.is_some_and(|seq| seq > old) {
                // The append brings the same rename again: a rename corrected.
                continue;
            }
            let rename = from.is_some();
            let Some((used, record)) = still_used(&players, &name, (target, rename)) else {
                continue;
            };
            let keep = match rename {
                true => "keep the rename",
                false => "keep the registration",
            };
            let msg = format!(
                "voiding record {target} ({what}) is refused: {used}; void those records in \
                 the same append (and append them again naming the right player), or {keep}"
            );
            let origin = Origin {
                seq: Some(void),
                kind: Some("ledger.voided".into()),
                ..Origin::default()
            };
            return Err(Error::Dependent {
                origin: Box::new(origin),
                msg,
                record,
            });
        }
        Ok(())
    }
}

/// What still writes `name`, which the voided record `target` brought, once
/// it is gone (`players`: the ledger without it), in words, and the first
/// record that does; `None` when nothing does, or when a record before a
/// registration wrote the name already (a registration of a name events had
/// named brought nothing). A rename's `to` is the renamed player's in fold
/// order, whatever the seqs (a rename corrected is recorded after records
/// that write its name).
fn still_used(
    players: &Players,
    name: &str,
    (target, rename): (u64, bool),
) -> Option<(String, u64)> {
    let (systems, first, renamed) = players.writers_of(name);
    if !rename && first.is_some_and(|first| first < target) {
        return None;
    }
    match (systems, first) {
        (0, _) | (_, None) => renamed.map(|seq| (format!("record {seq} renames {name:?}"), seq)),
        (_, Some(first)) => {
            let names: Vec<&str> = (NAMESPACES.iter().enumerate())
                .filter(|(i, _)| systems & (1 << i) != 0)
                .map(|(_, ns)| *ns)
                .collect();
            let said = format!(
                "{} events still name {name:?} (the first: record {first})",
                names.join(", ")
            );
            Some((said, first))
        }
    }
}

/// The records voided by the records after `old` of `view`: target → void.
fn voided_after(view: &View, old: u64) -> Result<BTreeMap<u64, u64>> {
    let voids = fold::voids(view, &Query::default())?;
    Ok(voids.into_iter().filter(|(_, v)| *v > old).collect())
}

/// The renames voided by the records after `old` of `view`, `(from, to)` →
/// the voided rename's seq: what [`crate::players::Replaced`] asks of an
/// append whose first record is `old + 1`.
pub(super) fn renames_voided(view: &View, old: u64) -> Result<BTreeMap<(String, String), u64>> {
    let targets: Vec<u64> = voided_after(view, old)?.into_keys().collect();
    let mut renames = BTreeMap::new();
    view.records(&targets, &mut |r| {
        if let Event::Ledger(ledger::Event::PlayerRenamed(p)) = &r.event {
            renames.insert((p.from.clone(), p.to.clone()), r.seq);
        }
        Ok(())
    })?;
    Ok(renames)
}

/// The registrations and renames among the voided records of `voided`
/// (target → void), by void seq.
fn brought_names(view: &View, voided: &BTreeMap<u64, u64>) -> Result<Vec<Brought>> {
    let mut brought = Vec::new();
    let targets: Vec<u64> = voided.keys().copied().collect();
    view.records(&targets, &mut |r| {
        let void = voided.get(&r.seq).copied().unwrap_or_default();
        match &r.event {
            Event::Ledger(ledger::Event::PlayerRegistered(p)) => brought.push((
                void,
                r.seq,
                format!("ledger.player_registered {:?}", p.player),
                p.player.clone(),
                None,
            )),
            Event::Ledger(ledger::Event::PlayerRenamed(p)) => brought.push((
                void,
                r.seq,
                format!("ledger.player_renamed {:?} to {:?}", p.from, p.to),
                p.to.clone(),
                Some(p.from.clone()),
            )),
            _ => {}
        }
        Ok(())
    })?;
    brought.sort();
    Ok(brought)
}
