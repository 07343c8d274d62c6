//! The players index: which player names each namespace's events mention,
//! when first and last, and the `ledger.*` events about players
//! (`ledger.player_registered`, `ledger.player_renamed`). A projection folded
//! like the systems' states: one [`Index`] per namespace, held by
//! [`super::State`], folded on the worker of that namespace, stored as a
//! checkpoint section of its own; `crate::players` merges them into the
//! ledger-wide list and runs the near-duplicate check of an append.
//!
//! **Renames.** A system's projection knows a player by one name only: the
//! name the player first had (the *root*). From a `ledger.player_renamed
//! {from, to}` on, in fold order, every name of an event that is a later name
//! of a player is written as its root before the system sees the event
//! ([`Index::admit`]); tables then show each root as the player's name at the
//! end of the fold ([`Renames::shown`], [`PerNamespace::show_renamed`], which
//! every standings table goes through). So a rename never splits a player's
//! ratings, and a state checkpointed before a rename stays valid after it.
//! After the rename, `from` is refused in events (the message names `to`):
//! one person, one current name. [`Renames`] is the one resolver of a
//! player's names (root, name now, the chain between, the name at a date):
//! the fold, the tables, `crate::players` and its check all ask it.
//!
//! Every namespace's index holds the registrations and renames (they reach
//! every worker), and only its own namespace's names.
//!
//! **Names as written.** A new player name (first written by an append,
//! in an event, a registration or as a rename's `to`) is not empty, has no
//! whitespace at either end and no run of whitespace inside ([`check_name`]):
//! `" Anna"` and `"Anna  Black"` are typos no community means, refused naming
//! the name to write instead; and it shows something: a name of combining
//! marks, joiners and variation selectors alone (`"\u{301}"`) shows as
//! nothing in a table (the players check of an append,
//! `crate::players`); a new grudge team's name is held to the same rules
//! ([`check_team_name`]). It holds no code point Unicode has not assigned, and
//! a zero-width joiner or non-joiner only between two characters that are
//! not ASCII (in the scripts and emoji that use them; "An\u{200D}n" would
//! look like "Ann"). Like every event string, it holds no invisible character
//! (`"Bo\u{200B}"`, [`crate::events::invisible`]): the event layer refuses it.
//! A name a ledger already holds stays as it was accepted, and a rename may
//! mend it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::compact::Interner;
use crate::events::ledger::Event as LedgerEvent;
use crate::systems::table::{Report, Table};
use crate::systems::Record;
use crate::time::Micros;

/// When a name was seen: the smallest seq and the `at` range of the events
/// naming it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub first_seq: u64,
    pub first_at: Micros,
    pub last_at: Micros,
}

impl Seen {
    fn new(seq: u64, at: Micros) -> Self {
        Seen {
            first_seq: seq,
            first_at: at,
            last_at: at,
        }
    }

    /// Widen to include an event at `at` with `seq`.
    pub fn add(&mut self, seq: u64, at: Micros) {
        self.first_seq = self.first_seq.min(seq);
        self.first_at = self.first_at.min(at);
        self.last_at = self.last_at.max(at);
    }

    /// Both ranges together.
    pub fn merge(&mut self, other: &Seen) {
        self.first_seq = self.first_seq.min(other.first_seq);
        self.first_at = self.first_at.min(other.first_at);
        self.last_at = self.last_at.max(other.last_at);
    }
}

/// One `ledger.player_renamed`, as folded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rename {
    pub seq: u64,
    pub at: Micros,
    pub from: String,
    pub to: String,
    /// The rename says `to` is meant though close to another player's name.
    pub distinct: bool,
}

/// The renames of a ledger, as folded: the one resolver of a player's
/// names. A rename gives a name nobody had and renames a name not renamed
/// away, so each player's names form one chain, root first; every walk is
/// bounded by the number of renames all the same (the renames of an input
/// being checked are not known to be sound yet).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Renames {
    /// Every rename folded, in fold order.
    list: Vec<Rename>,
    /// A later name → the player's root.
    root: BTreeMap<String, String>,
    /// A name renamed away → (the name it became, the rename's seq).
    retired: BTreeMap<String, (String, u64)>,
}

/// No renames, for an index of none ([`PerNamespace::renames`]).
static NO_RENAMES: Renames = Renames {
    list: Vec::new(),
    root: BTreeMap::new(),
    retired: BTreeMap::new(),
};

impl Renames {
    /// Fold rename `r` in: its `to` is a later name of `from`'s root.
    fn admit(&mut self, r: Rename) {
        let root = self.root_of(&r.from).to_string();
        self.root.insert(r.to.clone(), root);
        self.retired.insert(r.from.clone(), (r.to.clone(), r.seq));
        self.list.push(r);
    }

    /// What a rename may not do, knowing the renames before it: rename a
    /// name already renamed away, or to a name that is, or was, a player's.
    fn check(&self, from: &str, to: &str) -> Result<(), String> {
        if from == to {
            return Err(format!("renames {from:?} to itself"));
        }
        if let Some((to, _)) = self.retired.get(from) {
            let now = self.current(to);
            return Err(format!(
                "player {from:?} was already renamed to {to:?}; rename {now:?}"
            ));
        }
        if self.bears(to) {
            return Err(format!("{to:?} is already a name of a player"));
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Every rename, in fold order.
    pub fn iter(&self) -> std::slice::Iter<'_, Rename> {
        self.list.iter()
    }

    /// Every rename, in seq order (input order).
    pub fn by_seq(&self) -> Vec<&Rename> {
        let mut out: Vec<&Rename> = self.list.iter().collect();
        out.sort_by_key(|r| r.seq);
        out
    }

    /// Is `name` given or given up by a rename?
    pub fn bears(&self, name: &str) -> bool {
        self.root.contains_key(name) || self.retired.contains_key(name)
    }

    /// The root of `name` (itself when it is no later name).
    pub fn root_of<'s>(&'s self, name: &'s str) -> &'s str {
        self.root.get(name).map_or(name, String::as_str)
    }

    /// What `name` was renamed to, and the seq of that rename, if it was.
    pub fn retired(&self, name: &str) -> Option<(&str, u64)> {
        self.retired.get(name).map(|(to, seq)| (to.as_str(), *seq))
    }

    /// The name a player bearing `name` bears now: `name` followed along
    /// the renames.
    pub fn current<'a>(&'a self, name: &'a str) -> &'a str {
        self.chain(name).last().copied().unwrap_or(name)
    }

    /// The names of the player bearing `name`, from its root to the name
    /// it bears now.
    pub fn chain<'a>(&'a self, name: &'a str) -> Vec<&'a str> {
        let mut out = vec![self.root_of(name)];
        while let (Some((to, _)), true) = (
            self.retired.get(out[out.len() - 1]),
            out.len() <= self.list.len(),
        ) {
            out.push(to);
        }
        out
    }

    /// Each renamed player's root → the name shown for it now (its last name).
    pub fn shown(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for r in &self.list {
            out.insert(self.root_of(&r.to).to_string(), r.to.clone());
        }
        out
    }

    /// The name the player called `name` (any of their names) had at `t`:
    /// the `to` of the latest of their renames dated at or before it, or
    /// their root.
    pub fn name_on(&self, name: &str, t: Micros) -> String {
        let root = self.root_of(name);
        (self.list.iter())
            .filter(|r| self.root_of(&r.to) == root && r.at <= t)
            .max_by_key(|r| (r.at, r.seq))
            .map_or_else(|| root.to_string(), |r| r.to.clone())
    }
}

impl<'a> IntoIterator for &'a Renames {
    type Item = &'a Rename;
    type IntoIter = std::slice::Iter<'a, Rename>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

/// One namespace's players index (see the module docs).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Index {
    /// Names as written in this namespace's events (roots and later names).
    names: Interner,
    /// By id of `names`.
    seen: Vec<Seen>,
    /// Registered name → its first registration.
    registered: BTreeMap<String, Seen>,
    /// Every rename folded (its fields here, between `registered` and
    /// `teams`, are the section's bytes they always were).
    renames: Renames,
    /// Teams this namespace's events register (subjects that are not
    /// players: [`super::team_of`]) → the seq of the first registration.
    teams: BTreeMap<String, u64>,
}

impl Index {
    /// Fold the player side of `rec` in: a `ledger.*` event about players is
    /// recorded; a system's event has its later names written as roots (with
    /// `check`, a name renamed away is refused) and its names noted.
    pub fn admit(&mut self, rec: &mut Record, check: bool) -> Result<(), String> {
        let (seq, at) = (rec.seq, rec.at);
        if let super::Event::Ledger(e) = &rec.event {
            return self.ledger(e, seq, at, check);
        }
        if let Some(team) = super::team_of(&rec.event) {
            self.teams.entry(team.to_string()).or_insert(seq);
        }
        let mut refused = None;
        let renamed = !self.renames.is_empty();

        super::names_of(&mut rec.event, &mut |name: &mut String| {
            if renamed {
                if let (true, Some((to, by))) = (check, self.renames.retired(name)) {
                    let now = self.renames.current(to);
                    refused.get_or_insert_with(|| match (now == to, by > seq) {
                        // A rename recorded after this record, dated before it.
                        (_, true) => format!(
                            "player {name:?} is renamed to {to:?} by a later record dated \
                             before this one; from a rename's date on, the old name is \
                             refused: date the rename after every record naming {name:?} \
                             (this one is dated {}; `laurel log` shows the others)",
                            crate::time::format_short(at)
                        ),
                        (true, false) => {
                            format!("player {name:?} was renamed to {to:?}; write {to:?}")
                        }
                        (false, false) => format!(
                            "player {name:?} was renamed to {to:?}, now {now:?}; write {now:?}"
                        ),
                    });
                }
                note(&mut self.names, &mut self.seen, name, seq, at);
                if let Some(root) = self.renames.root.get(name.as_str()) {
                    name.clone_from(root);
                }
            } else {
                note(&mut self.names, &mut self.seen, name, seq, at);
            }
        });
        refused.map_or(Ok(()), Err)
    }

    fn ledger(&mut self, e: &LedgerEvent, seq: u64, at: Micros, check: bool) -> Result<(), String> {
        match e {
            LedgerEvent::PlayerRegistered(r) => {
                let s = self.registered.entry(r.player.clone());
                s.and_modify(|s| s.add(seq, at))
                    .or_insert(Seen::new(seq, at));
            }
            LedgerEvent::PlayerRenamed(r) => {
                if check {
                    self.renames.check(&r.from, &r.to)?;
                }
                self.renames.admit(Rename {
                    seq,
                    at,
                    from: r.from.clone(),
                    to: r.to.clone(),
                    distinct: r.distinct,
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// A new registration (record `seq`) names a new player: not a name
    /// that an earlier record (by seq) folded before it gave, in this
    /// namespace's events, a registration or a rename (to it, or away from
    /// it). A record appended later and dated before it (an older result of
    /// the player's, a rename whose own check then speaks) is not held
    /// against it; a stored registration is read as it was accepted.
    pub fn check_registration(&self, name: &str, seq: u64) -> Result<(), String> {
        let before = |s: &Seen| s.first_seq < seq;
        if let Some((to, _)) = self.renames.retired(name).filter(|(_, s)| *s < seq) {
            let now = self.renames.current(to);
            return Err(format!(
                "{name:?} was a player's name until renamed (now {now:?}); a registration names a new player"
            ));
        }
        let given = self.seen(name).is_some_and(before)
            || self.registered.get(name).is_some_and(before)
            || (self.renames.iter()).any(|r| r.to == name && r.seq < seq);
        match given {
            true => Err(format!(
                "{name:?} is already a player's name; a registration names a new player"
            )),
            false => Ok(()),
        }
    }

    /// Is `name` a player's here: written by this namespace's events,
    /// registered, or given or given up by a rename?
    pub fn bears(&self, name: &str) -> bool {
        self.seen(name).is_some() || self.registered.contains_key(name) || self.renames.bears(name)
    }

    /// Every name of this namespace's events, with when it was seen.
    pub fn names(&self) -> impl Iterator<Item = (&str, &Seen)> + '_ {
        let ids = 0..u32::try_from(self.seen.len()).unwrap_or(u32::MAX);
        ids.zip(&self.seen).map(|(id, s)| (self.names.name(id), s))
    }

    /// When events of this namespace named `name` as written (`None`: never).
    pub fn seen(&self, name: &str) -> Option<&Seen> {
        self.names
            .get(name)
            .and_then(|id| self.seen.get(id as usize))
    }

    pub fn registered(&self) -> &BTreeMap<String, Seen> {
        &self.registered
    }

    pub fn renames(&self) -> &Renames {
        &self.renames
    }

    /// The teams this namespace's events register, with the seq of each
    /// one's first registration.
    pub fn teams(&self) -> &BTreeMap<String, u64> {
        &self.teams
    }

    /// The checkpoint section's bytes.
    pub fn checkpoint(&self) -> Result<Vec<u8>, String> {
        use bincode::Options;
        bincode::DefaultOptions::new()
            .serialize(self)
            .map_err(|e| e.to_string())
    }

    /// From [`Index::checkpoint`]'s bytes; `None` if damaged.
    pub fn restore(bytes: &[u8]) -> Option<Self> {
        let index: Index = super::compact::from_section(bytes)?;
        (index.seen.len() == index.names.len()).then_some(index)
    }
}

/// A player name as written: not empty, no whitespace at either end, no run
/// of whitespace inside, something that shows (see the [module docs](self)).
pub fn check_name(name: &str) -> Result<(), String> {
    written_as("player name", name)
}

/// A grudge team's new name, held to the rules of a player's
/// ([`check_name`]): it stands in the same tables.
pub fn check_team_name(name: &str) -> Result<(), String> {
    written_as("team name", name)
}

/// A Diplomacy power's name, held to the rules of a player's
/// ([`check_name`]): a `winner` or `draw` names it exactly as listed.
pub fn check_power_name(name: &str) -> Result<(), String> {
    written_as("power name", name)
}

/// A new name (`noun`: "player name") as written: see [`check_name`].
fn written_as(noun: &str, name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err(format!("a {noun} must not be empty"));
    }
    let trimmed = name.trim();
    // One pass and no allocation for a name as it should be: every name of
    // every event an append checks comes here.
    let mut after_space = false;
    let spaced = name.chars().all(|c| {
        let fine = match c.is_whitespace() {
            true => c == ' ' && !after_space,
            false => true,
        };
        after_space = c.is_whitespace();
        fine
    });
    if !spaced || trimmed.len() != name.len() {
        let single = trimmed.split_whitespace().collect::<Vec<_>>().join(" ");
        return Err(match trimmed.len() != name.len() {
            true => format!("{noun} {name:?} begins or ends with whitespace: write {single:?}"),
            false => format!(
                "{noun} {name:?} has whitespace other than one space between words: \
                 write {single:?}"
            ),
        });
    }
    if !name.chars().any(crate::events::shows) {
        return Err(format!(
            "{noun} {name:?} shows nothing: it holds only combining marks, joiners or \
             variation selectors; a name needs a letter, digit or symbol of its own"
        ));
    }
    match name.is_ascii() {
        true => Ok(()),
        false => unassigned(noun, name).and_then(|()| joined(noun, name)),
    }
}

/// A new name holds no code point Unicode has not assigned: no font shows
/// it, and a later Unicode may give it a decomposition or a look-alike, so
/// the name's key (what the near-duplicate check compares) could change
/// under a ledger that accepted it.
fn unassigned(noun: &str, name: &str) -> Result<(), String> {
    use unicode_general_category::{get_general_category, GeneralCategory};
    match (name.chars()).find(|&c| get_general_category(c) == GeneralCategory::Unassigned) {
        None => Ok(()),
        Some(c) => Err(format!(
            "{noun} {name:?} holds U+{:04X}, a code point Unicode has not assigned: \
             no font shows it",
            c as u32
        )),
    }
}

/// A zero-width joiner or non-joiner in a new name stands between two
/// characters that are not ASCII: it joins the letters of the scripts that
/// use it (Arabic, the Indic scripts, after a virama) and the parts of an
/// emoji. Beside a Latin letter, a digit or a space, at either end, or
/// beside another joiner or a variation selector it changes nothing a reader sees, so "Ann" and "An\u{200D}n" would
/// be two names no table tells apart.
fn joined(noun: &str, name: &str) -> Result<(), String> {
    let chars: Vec<char> = name.chars().collect();
    let lone = |i: usize| {
        let joinable = |c: &char| !(c.is_ascii() || c.is_whitespace() || crate::events::joins(*c));
        let shown = |c: Option<&char>| c.is_some_and(joinable);
        !(shown(i.checked_sub(1).and_then(|j| chars.get(j))) && shown(chars.get(i + 1)))
    };
    let zero_width = |c: char| matches!(c, '\u{200C}' | '\u{200D}');
    match (0..chars.len()).find(|&i| zero_width(chars[i]) && lone(i)) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{noun} {name:?} holds a zero-width joiner U+{:04X} that joins nothing (it \
             stands beside a Latin letter, a digit, a space, another joiner or at an \
             end): write the name without it",
            chars[i] as u32
        )),
    }
}

/// A player name not empty and not only whitespace: what every name of a
/// record must be, stored or new.
pub fn not_empty(name: &str) -> Result<(), String> {
    match name.trim().is_empty() {
        true => Err("a player name must not be empty".into()),
        false => Ok(()),
    }
}

/// Note `name` seen at `(seq, at)`.
fn note(names: &mut Interner, seen: &mut Vec<Seen>, name: &str, seq: u64, at: Micros) {
    let id = names.intern(name) as usize;
    match seen.get_mut(id) {
        Some(s) => s.add(seq, at),
        None => seen.push(Seen::new(seq, at)),
    }
}

/// One [`Index`] per namespace, in [`super::NAMESPACES`] order.
#[derive(Debug, Clone)]
pub struct PerNamespace(pub Vec<Index>);

impl Default for PerNamespace {
    fn default() -> Self {
        PerNamespace(vec![Index::default(); super::NAMESPACES.len()])
    }
}

impl PerNamespace {
    /// [`Index::check_registration`] in every index (a fold worker holds
    /// its own namespace's names; the others are empty there).
    pub fn check_registration(&self, name: &str, seq: u64) -> Result<(), String> {
        (self.0.iter()).try_for_each(|i| i.check_registration(name, seq))
    }

    /// `report` with each renamed player's root shown as the player's name
    /// now: every text cell equal to a root is replaced (the renames are in
    /// every namespace's index). A cell that merely equals a renamed
    /// player's first name (a tournament named after them) is replaced too.
    pub fn show_renamed(&self, report: Report) -> Report {
        let shown = self.shown();
        if shown.is_empty() {
            return report;
        }
        let rename = |t: Table| {
            let mut out = Table {
                rows: Default::default(),
                ..t.clone()
            };
            for row in t.rows.iter() {
                out.push(row.into_iter().map(|v| rename_value(v, &shown)).collect());
            }
            out
        };
        Report {
            system: report.system,
            main: rename(report.main),
            extra: report.extra.into_iter().map(rename).collect(),
        }
    }

    /// Each renamed player's root → the name shown for it now ([`Renames::shown`]).
    pub fn shown(&self) -> BTreeMap<String, String> {
        self.renames().shown()
    }

    /// The ledger's renames: every namespace's index folds every rename,
    /// so the index that holds the most holds them all (one a fold did not
    /// reach holds none, or those of the checkpoint it was read from).
    pub fn renames(&self) -> &Renames {
        (self.0.iter())
            .map(Index::renames)
            .rev()
            .max_by_key(|r| r.list.len())
            .unwrap_or(&NO_RENAMES)
    }

    /// Move namespace `ns`'s index from `part` into `self`.
    pub fn absorb(&mut self, part: &mut PerNamespace, ns: usize) {
        if let (Some(mine), Some(theirs)) = (self.0.get_mut(ns), part.0.get_mut(ns)) {
            *mine = std::mem::take(theirs);
        }
    }
}

fn rename_value(v: Value, shown: &BTreeMap<String, String>) -> Value {
    match v {
        Value::String(s) => Value::String(shown.get(&s).cloned().unwrap_or(s)),
        Value::Array(items) => items.into_iter().map(|i| rename_value(i, shown)).collect(),
        v => v,
    }
}

/// Record `seq` of the event `json` (which must read), for tests.
#[cfg(test)]
pub(crate) fn record_of(seq: u64, json: Value) -> Record {
    let s = crate::events::parse_event(json).expect("a valid event");
    Record {
        seq,
        at: s.at,
        recorded_at: 0,
        id: s.id,
        kind: s.kind.clone(),
        event: s.event.expect("decoded"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index that folded `events` (JSON), one seq each from 1, checked.
    fn folded(events: &[serde_json::Value]) -> Index {
        let mut index = Index::default();
        for (seq, json) in (1u64..).zip(events) {
            let mut rec = record_of(seq, json.clone());
            index.admit(&mut rec, true).expect("admitted");
        }
        index
    }

    fn renames_twice() -> Index {
        use serde_json::json;
        folded(&[
            json!({"type": "mepbm.rating_seeded", "at": "2024-01-01", "player": "Ada", "system": "valar", "value": 1500}),
            json!({"type": "ledger.player_registered", "at": "2024-01-02", "player": "Bo"}),
            json!({"type": "ledger.player_renamed", "at": "2024-02-01", "from": "Ada", "to": "Ada King"}),
            json!({"type": "ledger.player_renamed", "at": "2024-03-01", "from": "Ada King", "to": "Ada Byron"}),
            json!({"type": "mepbm.rating_seeded", "at": "2024-03-02", "player": "Ada Byron", "system": "maia", "value": 1500}),
        ])
    }

    /// Every name of a player renamed twice leads to its root, its name now
    /// and the chain between; the name at a date is the one it had then.
    #[test]
    fn renames_resolve_a_chain_from_any_of_its_names() {
        let index = renames_twice();
        let r = index.renames();
        for name in ["Ada", "Ada King", "Ada Byron"] {
            assert_eq!(r.root_of(name), "Ada");
            assert_eq!(r.current(name), "Ada Byron");
            assert_eq!(r.chain(name), ["Ada", "Ada King", "Ada Byron"]);
        }
        assert_eq!((r.current("Bo"), r.chain("Bo")), ("Bo", vec!["Bo"]));
        let on = |date: &str| r.name_on("Ada Byron", crate::time::parse_bound(date).unwrap());
        assert_eq!(on("2024-01-15"), "Ada");
        assert_eq!(on("2024-02-15"), "Ada King");
        assert_eq!(on("2024-03-15"), "Ada Byron");
        let shown = r.shown();
        assert_eq!(shown.len(), 1);
        assert_eq!(shown.get("Ada").map(String::as_str), Some("Ada Byron"));
        assert_eq!(r.retired("Ada King").map(|(to, _)| to), Some("Ada Byron"));
        assert!(r.bears("Ada") && r.bears("Ada Byron") && !r.bears("Bo"));
        // A rename of a name renamed away, or to a name a rename gave, is refused.
        assert!(r
            .check("Ada King", "Ada Queen")
            .unwrap_err()
            .contains("rename \"Ada Byron\""));
        assert!(r.check("Bo", "Ada King").is_err());
        assert!(r.check("Bo", "Bo Peep").is_ok());
    }

    /// A checkpoint section's bytes are what ledgers hold: an index with
    /// renames encodes to the bytes it always did.
    #[test]
    fn an_index_with_renames_encodes_to_the_same_bytes() {
        let bytes = renames_twice().checkpoint().unwrap();
        let pinned = "4b67fbe8a3e1ed6dc879439e011064a02d709dacd70d90a05145e618e5d3d244";
        assert_eq!(blake3::hash(&bytes).to_hex().as_str(), pinned);
        let back = Index::restore(&bytes).expect("reads back");
        assert_eq!(back.checkpoint().unwrap(), bytes);
    }
}
