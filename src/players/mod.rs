//! The ledger's players: the namespaces' players indexes
//! ([`crate::systems::players`]) merged, the players check of an append, and
//! what `laurel players` and `history` read.
//!
//! A *player* is a name a system's event gives a player (not a team, game,
//! nation or power; an empty `sbr` seat, `null`, is a bot and names no one),
//! or a name registered with `ledger.player_registered`. Players are global:
//! one person may play several games, so a name known from one system is
//! known to all.
//!
//! **The players check** runs after an append's check fold, in seq order
//! (input order), over the names the append mentions for the first time.
//! Such a name is refused when it is not written as a name must be (no
//! whitespace at either end or run of it inside:
//! [`crate::systems::players::check_name`]; nothing invisible reaches it, the
//! event layer refuses that), and when it nearly duplicates a name first seen before
//! it, in the ledger or earlier in the same append: the same ignoring case,
//! accents, whitespace and invisible characters, or (names of
//! [`EDIT_MIN`](crate::events::near::EDIT_MIN) characters or
//! more) one edit apart (a letter changed, added or dropped, or two neighbours
//! swapped) or the same words in another order, an edit of a digit aside (numbered names such as
//! "Table 1" and "Table 2" are distinct players). Two new names of one file that nearly duplicate
//! each other are refused at the second. A name whose first appearance is a
//! `ledger.player_registered` (`laurel players add`) is exempt: the
//! administrator said it is meant; but not from a name it looks exactly like
//! (a Cyrillic "о" for an "o": [`crate::events::key::look_alike`]), which no table could
//! tell apart from it. The `to` of a `ledger.player_renamed` is
//! exempt from the player's own names (a rename mends a misspelt name), not
//! from another player's: results misspelt for that player would go to the
//! renamed one, so it is refused (a rename cannot be registered first),
//! unless the rename says `"distinct": true` (`laurel players rename FROM TO
//! --distinct`): then, as a registration, only a look-alike is.
//! The check files each new name once (by its key and one-character
//! deletions, see [`crate::events::near`]) and probes each known name against them once
//! ([`check_append`]), so it costs the names' lengths, never names × names,
//! and merges, sorts and files only the names the append brings.
//!
//! **Teams.** A player and a team (a subject a system rates that is not a
//! player: a grudge team) never bear one name, or a team's changes would
//! read as the player's: of the two, the one an append brings second is
//! refused, whichever namespace writes the player's name, and whether it is
//! written in an event, a registration or a rename (from or to it). The
//! team's own namespace judges its own events (`RatingSystem::check_input`).
//!
//! **Renames** are checked here too, against every event of the ledger:
//! `from` must be a name in the ledger, and `to` must not be one before
//! the rename (by seq, or by `at`: an event naming `to` earlier in fold
//! order would count as another player). Every append checks the `to` of
//! every earlier rename again: a late event naming it, dated before the
//! rename, is refused.
//!
//! **A rename corrected** (`laurel correct SEQ` of a rename dated wrong: the
//! append voids the rename and brings one with the same `from` and `to`):
//! the records written under the voided rename wrote its `to` for its
//! player, so the replacement stands where the rename stood. Records of the
//! ledger after the voided rename that write `to` do not make `to` another
//! player's (a record of the append before the replacement that writes it,
//! or one before the voided rename, still does); by date, the replacement
//! is judged as every rename is (an event dated before it must write
//! `from`). The void of the rename is accepted only beside such a
//! replacement (the fold refuses a void of a rename whose `to` records
//! still write), and the replacement, once recorded, is voided only with
//! the records that write its `to`, as any rename.

mod check;

pub use check::check_append;

/// The renames an append voids, `(from, to)` → the voided rename's seq;
/// asked for only when a rename of the append gives a name that records
/// before it write (see "A rename corrected" in the module docs).
pub type Replaced<'a> = &'a dyn Fn() -> Result<BTreeMap<(String, String), u64>>;

use std::collections::BTreeMap;

use crate::error::{Error, Origin, Result};
use crate::events::key;
use crate::systems::compact::Interner;
use crate::systems::players::{PerNamespace, Rename, Renames, Seen};
use crate::systems::NAMESPACES;
use crate::time::{format_short, Micros};

/// How a name first appeared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum First {
    Event,
    Registered,
    RenamedTo,
    /// By a rename that says the name is meant (`distinct`).
    RenamedToDistinct,
}

impl First {
    /// Given by a rename: the renamed player's, no new player.
    fn is_rename(self) -> bool {
        matches!(self, First::RenamedTo | First::RenamedToDistinct)
    }
}

/// One name as written anywhere in the ledger.
#[derive(Debug, Clone)]
struct Written {
    /// Its events' seqs and `at` range (registrations and renames included).
    seen: Seen,
    /// The earliest `at` of a record giving the name: an event naming it,
    /// its registration, or a rename to it.
    since: Micros,
    /// The namespaces whose events name it (bits by index in `NAMESPACES`).
    systems: u32,
    first: First,
}

/// One player as `laurel players` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The name shown now.
    pub name: String,
    /// Its earlier names, oldest first.
    pub earlier: Vec<String>,
    pub systems: Vec<&'static str>,
    /// When the player was first named: registered, or in an event.
    pub first_at: Micros,
    /// The last date an event names them (registrations and renames
    /// included only when no system's event does).
    pub last_at: Micros,
}

/// Every name of the ledger, with the renames.
#[derive(Debug, Clone, Default)]
pub struct Players {
    written: BTreeMap<String, Written>,
    renames: Renames,
}

/// Names being merged ([`Players::merge_of`]): each [`Written`] by the
/// name's id in `names`.
#[derive(Default)]
struct Merging {
    names: Interner,
    written: Vec<Written>,
}

impl Merging {
    /// Note `name` as `seen`; a registration or rename of a name that
    /// events name moves only its first seq: its dates are its events'.
    fn add(&mut self, name: &str, seen: &Seen, systems: u32, how: First) {
        let id = self.names.intern(name) as usize;
        let Some(w) = self.written.get_mut(id) else {
            self.written.push(Written {
                seen: *seen,
                since: seen.first_at,
                systems,
                first: how,
            });
            return;
        };
        let earlier = (seen.first_seq, how) < (w.seen.first_seq, w.first);
        if earlier {
            w.first = how;
        }
        w.since = w.since.min(seen.first_at);
        match (how, w.systems) {
            (First::Event, _) | (_, 0) => w.seen.merge(seen),
            _ => w.seen.first_seq = w.seen.first_seq.min(seen.first_seq),
        }
        w.systems |= systems;
    }
}

/// A problem of rename `r`, at its record.
fn at_rename(r: &Rename, msg: String) -> Error {
    let origin = Origin {
        seq: Some(r.seq),
        kind: Some("ledger.player_renamed".into()),
        ..Origin::default()
    };
    Error::invalid(origin, msg)
}

impl Players {
    /// The namespaces' indexes merged.
    pub fn merge(indexes: &PerNamespace) -> Players {
        Players::merge_of(indexes, &|_| true)
    }

    /// [`Players::merge`] of the names `keep` takes (every rename is kept):
    /// what the players check reads of the names it needs. The names are
    /// gathered in an [`Interner`] and put in order once, at the end: a
    /// check of an append that brings every name (an import) merges tens of
    /// thousands, which an ordered map would each place by comparing names
    /// along a path of cache misses.
    fn merge_of(indexes: &PerNamespace, keep: &dyn Fn(&str) -> bool) -> Players {
        let mut m = Merging::default();
        for (ns, index) in indexes.0.iter().enumerate() {
            for (name, seen) in index.names().filter(|(n, _)| keep(n)) {
                m.add(name, seen, 1 << ns, First::Event);
            }
        }
        for index in &indexes.0 {
            for (name, seen) in index.registered().iter().filter(|(n, _)| keep(n)) {
                m.add(name, seen, 0, First::Registered);
            }
        }
        let renames = indexes.renames();
        for r in renames.by_seq().into_iter().filter(|r| keep(&r.to)) {
            let seen = Seen {
                first_seq: r.seq,
                first_at: r.at,
                last_at: r.at,
            };
            let how = match r.distinct {
                true => First::RenamedToDistinct,
                false => First::RenamedTo,
            };
            m.add(&r.to, &seen, 0, how);
        }
        let names = &m.names;
        let written = (0u32..)
            .zip(m.written)
            .map(|(id, w)| (names.name(id).to_string(), w));
        Players {
            written: written.collect(),
            renames: renames.clone(),
        }
    }

    /// The renames after seq `old` (an append's) whole, and the `to` of
    /// every earlier one, in seq order: a late event naming it, dated
    /// before the rename, would count as another player.
    fn check_renames(&self, old: u64, replaced: Replaced) -> Result<()> {
        for r in self.renames.by_seq() {
            match r.seq > old {
                true => self.check_rename(r, (old, replaced))?,
                false => self.check_renamed_to(r, false)?,
            }
        }
        Ok(())
    }

    /// A rename of this append: `from` is a player's name before it, both
    /// by seq (a record before it gave the name) and by date (a record
    /// giving it is dated at or before the rename: a player renamed before
    /// anything named them never bore the name), and
    /// [`Players::check_renamed_to`] by seq too, unless the append (its
    /// records after `old`) voids a rename of the same names (`replaced`)
    /// and every record before it that writes `to` came between that rename
    /// and the append (written under it): then by date only.
    fn check_rename(&self, r: &Rename, (old, replaced): (u64, Replaced)) -> Result<()> {
        let Some(from) = self
            .written
            .get(&r.from)
            .filter(|w| w.seen.first_seq <= r.seq)
        else {
            return Err(at_rename(
                r,
                format!("{:?} is not a player before this rename", r.from),
            ));
        };
        if from.since > r.at {
            return Err(at_rename(
                r,
                format!(
                    "{:?} is first named on {}, after this rename's `at`: date the rename on or after it",
                    r.from,
                    format_short(from.since)
                ),
            ));
        }
        let first = self.written.get(&r.to).map(|w| w.seen.first_seq);
        let replaces = match first.filter(|&first| first < r.seq) {
            // Only records of the ledger before the append, after the
            // voided rename: one this append brings before it is refused.
            Some(first) if first <= old => (replaced()?.get(&(r.from.clone(), r.to.clone())))
                .is_some_and(|&voided| voided < first),
            _ => false,
        };
        self.check_renamed_to(r, !replaces)
    }

    /// `to` is no player's name before rename `r`: no event dated before it
    /// names it (a late one would count as another player), nor, `by_seq`
    /// (a rename of this append that replaces none), any record before it.
    /// A stored or replacing rename whose new name an event dated before it
    /// writes says which name that event
    /// should write: most often the administrator typed the name the player
    /// has now for a result from before the rename.
    fn check_renamed_to(&self, r: &Rename, by_seq: bool) -> Result<()> {
        let Some(to) = self.written.get(&r.to).map(|w| w.seen) else {
            return Ok(());
        };
        let named = match (by_seq && to.first_seq < r.seq, to.first_at < r.at) {
            (true, _) => String::new(),
            (false, true) if !by_seq => {
                let (first, on) = (format_short(to.first_at), format_short(r.at));
                let then = self.renames.name_on(&r.from, to.first_at);
                return Err(at_rename(
                    r,
                    format!(
                        "{:?} is the name {:?} took on {on}, and an event dated {first}, \
                         before the rename, writes it: it would count as another player; an \
                         event dated before the rename writes the name the player had then, {then:?}",
                        r.to, r.from
                    ),
                ));
            }
            (false, true) => format!(" (an event dated {} names it)", format_short(to.first_at)),
            (false, false) => return Ok(()),
        };
        Err(at_rename(
            r,
            format!(
                "{:?} is already a player's name{named}; a rename gives a player a name nobody \
                 has (results recorded under a misspelt name go to the player they belong to \
                 by `laurel correct SEQ FILE --reason TEXT` of each record naming {:?})",
                r.to, r.from
            ),
        ))
    }

    /// When `name` was first given (see [`Written::since`]), or `None`
    /// when it is no player's name, now or earlier.
    pub fn given_on(&self, name: &str) -> Option<Micros> {
        self.written.get(name).map(|w| w.since)
    }

    /// The latest `at` of a record naming `name` itself (an event, its
    /// registration, or a rename to it), or `None` when it is no player's.
    pub fn last_named(&self, name: &str) -> Option<Micros> {
        self.written.get(name).map(|w| w.seen.last_at)
    }

    /// The root of `name` (the name the projections know its player by),
    /// or `None` when `name` is no player's.
    pub fn root_of(&self, name: &str) -> Option<String> {
        (self.written.contains_key(name)).then(|| self.renames.root_of(name).to_string())
    }

    /// The namespaces whose events name the player whose root is `root`,
    /// under any of its names: a bit per [`NAMESPACES`] entry.
    pub fn namespaces_of(&self, root: &str) -> u32 {
        (self.renames.chain(root).iter())
            .map(|n| self.written.get(*n).map_or(0, |w| w.systems))
            .fold(0, |bits, b| bits | b)
    }

    /// Who writes `name` itself (not a later name of its player written as
    /// it): the namespaces whose events do (a bit per [`NAMESPACES`] entry),
    /// the seq of the first record that writes it (an event, a registration
    /// or a rename), and the seq of a rename that renames it, if one does.
    pub fn writers_of(&self, name: &str) -> (u32, Option<u64>, Option<u64>) {
        let w = self.written.get(name);
        (
            w.map_or(0, |w| w.systems),
            w.map(|w| w.seen.first_seq),
            self.renames.retired(name).map(|(_, seq)| seq),
        )
    }

    /// The earliest `at` the index holds for the player whose root is
    /// `root`, under any of its names: that of its events, or of its
    /// registration or rename for a name no event names; `None` for a name
    /// that is no player's.
    pub fn first_at_of(&self, root: &str) -> Option<Micros> {
        (self.renames.chain(root).iter())
            .filter_map(|n| self.written.get(*n).map(|w| w.seen.first_at))
            .min()
    }

    /// The names nearest to `name`, for a "did you mean": those sharing its
    /// key, one edit from it or its words reordered, else the closest three
    /// by their keys ([`crate::events::nearest`], as every "did you mean").
    pub fn nearest(&self, name: &str) -> Vec<String> {
        let k: Vec<char> = key::key(name).chars().collect();
        let keyed: Vec<(Vec<char>, &String)> = (self.written.keys())
            .map(|n| (key::key(n).chars().collect(), n))
            .collect();
        let same = keyed.iter().find(|(nk, _)| *nk == k);
        let typo = || {
            keyed.iter().find(|(nk, n)| {
                crate::events::near::one_edit(&k, nk) || crate::events::near::reordered(name, n)
            })
        };
        if let Some((_, n)) = same.or_else(typo) {
            return vec![(*n).clone()];
        }
        let names = self.written.keys().map(String::as_str);
        let near = crate::events::nearest(name, names, key::key, 3);
        near.into_iter().map(str::to_string).collect()
    }

    /// Every player, by the name shown now (see [`Listed`]), in name order.
    pub fn list(&self) -> Vec<Listed> {
        // Per root: its row, and its names' latest date, those an event
        // writes first (a registration's or rename's date counts only for
        // a player no system's event names).
        let mut by_root: BTreeMap<String, (Listed, (bool, Micros))> = BTreeMap::new();
        for (name, w) in &self.written {
            let root = self.root_of(name).unwrap_or_else(|| name.clone());
            let systems = NAMESPACES.iter().enumerate();
            let systems = systems.filter(|(i, _)| w.systems & (1 << i) != 0);
            let (l, last) = by_root.entry(root.clone()).or_insert_with(|| {
                let l = Listed {
                    name: self.shown_name(&root),
                    earlier: Vec::new(),
                    systems: Vec::new(),
                    first_at: w.since,
                    last_at: w.seen.last_at,
                };
                (l, (false, Micros::MIN))
            });
            l.systems.extend(systems.map(|(_, ns)| *ns));
            l.systems.sort_unstable();
            l.systems.dedup();
            l.first_at = l.first_at.min(w.since);
            *last = (*last).max((w.systems != 0, w.seen.last_at));
        }
        for (root, (l, last)) in by_root.iter_mut() {
            l.last_at = last.1;
            let mut chain = self.renames.chain(root);
            chain.pop();
            l.earlier = chain.into_iter().map(str::to_string).collect();
        }
        let mut out: Vec<Listed> = by_root.into_values().map(|(l, _)| l).collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The seq of a rename of `from` to `to` folded, if one is.
    pub fn rename_of(&self, from: &str, to: &str) -> Option<u64> {
        (self.renames.into_iter())
            .find(|r| r.from == from && r.to == to)
            .map(|r| r.seq)
    }

    /// The name shown now for the player whose root is `root`.
    pub fn shown_name(&self, root: &str) -> String {
        self.renames.current(root).to_string()
    }

    /// The name the player whose root is `root` went by at `t`.
    pub fn name_on(&self, root: &str, t: Micros) -> String {
        self.renames.name_on(root, t)
    }
}

/// A name that nearly duplicates `known`, refused at `seq`.
fn refused(name: &str, known: &str, seq: u64) -> Error {
    let (origin, how) = (at_seq(seq), how_near(name, known));
    Error::invalid(
        origin,
        format!(
            "new player {name:?} looks like a typo of the known player «{known}» ({how}): \
             did you mean «{known}»? \
             If {name:?} is another player, register the name first: \
             `laurel players add {name:?}` (or a `ledger.player_registered` event before this line)"
        ),
    )
}

/// The refusal of a rename to `name`, which nearly duplicates another
/// player's name `known`.
fn refused_rename(name: &str, known: &str, seq: u64) -> Error {
    let (origin, how) = (at_seq(seq), how_near(name, known));
    Error::invalid(
        origin,
        format!(
            "a rename to {name:?} is refused: it looks like the name of another player, \
             «{known}» ({how}), and results misspelt for «{known}» would go to the renamed \
             player; if {name:?} is right as written, say so: add \"distinct\": true to the \
             rename (`laurel players rename FROM TO --distinct` writes one)"
        ),
    )
}

/// The refusal of a registration of `name`, which looks exactly like the
/// known name `known` ([`crate::events::key::look_alike`]).
fn refused_look_alike(name: &str, known: &str, seq: u64) -> Error {
    Error::invalid(
        at_seq(seq),
        format!(
            "new player {name:?} looks exactly like the known player «{known}» (letters \
             that look the same, as a Cyrillic «о» an «o», or a dotless «ı» an «i»): no table \
             could tell the two apart, so even a registration (or a rename saying \"distinct\") \
             is refused; give a name that shows differently"
        ),
    )
}

fn at_seq(seq: u64) -> Origin {
    Origin {
        seq: Some(seq),
        ..Origin::default()
    }
}

/// How `name` nearly duplicates `known`, in words.
fn how_near(name: &str, known: &str) -> &'static str {
    if key::key(name) == key::key(known) {
        "the same but for case, accents, spaces or look-alike letters"
    } else if crate::events::near::reordered(name, known) {
        "the same words in another order"
    } else {
        "one edit apart"
    }
}

#[cfg(test)]
mod tests {
    use super::check::tests::admit;
    use super::*;
    use serde_json::json;

    /// A rename dated after a player's last result is no result: `laurel
    /// players` lists the date of the last event naming the player, under
    /// either name; a player no event names lists their registration's.
    #[test]
    fn a_players_last_date_is_of_their_events_not_of_a_later_rename() {
        let mut indexes = PerNamespace::default();
        let seeded = |at: &str, player: &str| json!({"type": "mepbm.rating_seeded", "at": at, "player": player, "system": "valar", "value": 1500});
        admit(&mut indexes, 1, seeded("2024-01-02", "Ada Lovelace"));
        admit(&mut indexes, 2, seeded("2024-03-04", "Ada Lovelace"));
        let rename = json!({"type": "ledger.player_renamed", "at": "2024-06-01", "from": "Ada Lovelace", "to": "Ada King"});
        admit(&mut indexes, 3, rename);
        let registered = json!({"type": "ledger.player_registered", "at": "2024-07-01", "player": "Brian Kernighan"});
        admit(&mut indexes, 4, registered);
        let list = Players::merge(&indexes).list();
        let dates: Vec<(&str, String, String)> = (list.iter())
            .map(|l| {
                (
                    l.name.as_str(),
                    format_short(l.first_at),
                    format_short(l.last_at),
                )
            })
            .collect();
        assert_eq!(
            dates,
            [
                ("Ada King", "2024-01-02".into(), "2024-03-04".into()),
                ("Brian Kernighan", "2024-07-01".into(), "2024-07-01".into()),
            ]
        );
        // A result under the new name moves it.
        admit(&mut indexes, 5, seeded("2024-08-09", "Ada King"));
        let list = Players::merge(&indexes).list();
        assert_eq!(format_short(list[0].last_at), "2024-08-09");
    }
}
