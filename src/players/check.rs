//! The players check of an append (see the [module docs](super)), at the cost
//! of the names the append brings, not of every name of the ledger.
//!
//! The names an append brings are few beside the ledger's, so the check
//! merges only what it needs from the namespaces' indexes: the names written
//! after the old head (and the renames' names), then the known names that
//! nearly duplicate one of them. The near-duplicate index is built over the
//! new names alone; every known name is probed against it once
//! ([`Near::matching`]), which costs a key per known name and no sort, no
//! map of every name. The answer is the one an index over every name gives:
//! the names are ordered by first seq (then how they first appeared, then
//! the name), every known name comes before every new one, and a new name
//! is judged against every earlier name it nearly duplicates, those with the
//! same key first, then those one edit apart or reordered: a refusal cites the first that
//! refuses it, whichever of two near names ("jose garcia", "Jose Garcia")
//! came first.

use std::collections::{BTreeMap, BTreeSet};

use super::{refused, First, Players, Replaced, Written};
use crate::error::{Result, Stage, REFUSALS_SHOWN};
use crate::events::key;
use crate::events::near::Near;
use crate::systems::compact::Interner;
use crate::systems::players::PerNamespace;
use crate::systems::NAMESPACES;

/// A name's place in the order the check reads names in.
type Rank<'a> = (u64, First, &'a str);

/// The players check of an append whose first record is `old + 1`: the
/// names its records mention first, in order (a rename's `to` is no new
/// player), or the refusal of each name refused (a typo of a known name,
/// say), by seq: one run names them all, up to [`REFUSALS_SHOWN`].
/// `replaced`: the renames the append voids ([`Replaced`]).
pub fn check_append(indexes: &PerNamespace, old: u64, replaced: Replaced) -> Result<Vec<String>> {
    if let Some(e) = team_clash(indexes, old).or_else(|| team_names(indexes, old)) {
        return Err(e);
    }
    let touched = written_after(indexes, old);
    // The renames' names too, for their check ([`Players::check_renames`]):
    // renames are few. Checked even when the append brings no new name: a
    // late event may name a rename's `to`, already written after it.
    let renamed: BTreeSet<&str> = (indexes.renames().iter())
        .flat_map(|r| [r.from.as_str(), r.to.as_str()])
        .collect();
    if touched.is_empty() && renamed.is_empty() {
        return Ok(Vec::new());
    }
    let p = Players::merge_of(indexes, &|n| {
        touched.get(n).is_some() || renamed.contains(n)
    });
    let mut order: Vec<(&String, &Written)> = (p.written.iter())
        .filter(|(_, w)| w.seen.first_seq > old)
        .collect();
    order.sort_by_key(|(name, w)| rank(name, w));
    let renames = p.check_renames(old, replaced).err();
    if order.is_empty() {
        return renames.map_or(Ok(Vec::new()), Err);
    }
    let near = Near::new(order.iter().map(|(name, _)| name.as_str()));
    let known = Known::of(indexes, old, &near);
    let mut new = Vec::new();
    // Every name refused, up to the most one error names.
    let mut found = Vec::new();
    for (i, (name, w)) in (0u32..).zip(&order) {
        if found.len() > REFUSALS_SHOWN {
            break;
        }
        if let Err(msg) = crate::systems::players::check_name(name) {
            found.push(refused_at(w.seen.first_seq, msg));
            continue;
        }
        let mine: Vec<&str> = (near.near_before(name, i).into_iter())
            .map(|id| order[id as usize].0.as_str())
            .collect();
        let like = known.near_names(i, name, &mine);
        if let Some(e) = like.iter().find_map(|like| typo_of(&p, (name, w), like)) {
            found.push(e);
            continue;
        }
        if !w.first.is_rename() {
            new.push(name.to_string());
        }
    }
    refusals(renames, found).map_or(Ok(new), Err)
}

/// The refusal of new name `name`, written first as `w` says, that nearly
/// duplicates the earlier name `like` (the check asks of every one it
/// nearly duplicates, so the answer does not hang on which came first): a
/// name an event brings is a typo
/// unless registered; a rename's new name is refused only when `like` is
/// another player's (a rename mending a misspelt name of one's own is what
/// renames are for): results misspelt for `like` would go to the renamed
/// player; a registered name, or one a rename says is `distinct`, only when
/// it looks exactly like `like`.
fn typo_of(p: &Players, (name, w): (&str, &Written), like: &str) -> Option<crate::error::Error> {
    let seq = w.seen.first_seq;
    match w.first {
        First::Event => Some(refused(name, like, seq)),
        // A rename mending the player's own name is what renames are for.
        First::RenamedTo | First::RenamedToDistinct if p.root_of(name) == p.root_of(like) => None,
        First::RenamedTo => Some(super::refused_rename(name, like, seq)),
        // Said to be meant, but no table could tell the two apart.
        First::Registered | First::RenamedToDistinct if key::look_alike(name, like) => {
            Some(super::refused_look_alike(name, like, seq))
        }
        First::Registered | First::RenamedToDistinct => None,
    }
}

/// A team and a player bearing one name, the later of the two brought by
/// this append (records after `old`), the earliest such: refused, since a
/// team's changes would read as the player's (their history, their page).
/// A player's name is one another namespace's events write, or one a
/// registration or a rename gives or gives up; the team's own namespace
/// judges its own events (a team's rating is seeded under its name).
fn team_clash(indexes: &PerNamespace, old: u64) -> Option<crate::error::Error> {
    let mut first: Option<(u64, String)> = None;
    for (ns, own) in indexes.0.iter().enumerate() {
        for (team, &team_seq) in own.teams() {
            let others = (indexes.0.iter().enumerate())
                .filter(|&(j, _)| j != ns)
                .filter_map(|(j, i)| {
                    (i.seen(team)).map(|s| (s.first_seq, format!("{} event", NAMESPACES[j])))
                });
            let registered = own.registered().get(team);
            let given = (registered.map(|s| (s.first_seq, "registration".to_string())))
                .into_iter()
                .chain(
                    (own.renames().iter())
                        .filter(|r| r.to == *team || r.from == *team)
                        .map(|r| (r.seq, "rename".to_string())),
                );
            let Some((player_seq, by)) = others.chain(given).min() else {
                continue;
            };
            let at = player_seq.max(team_seq);
            if at <= old || first.as_ref().is_some_and(|(s, _)| *s <= at) {
                continue;
            }
            let msg = match team_seq > player_seq {
                true => format!(
                    "team {team:?} of {}: a player bears that name (its {by} at seq \
                     {player_seq}); a team needs a name of its own",
                    NAMESPACES[ns]
                ),
                false => format!(
                    "{team:?} is the name of a team of {} (seq {team_seq}); a player needs a \
                     name of its own",
                    NAMESPACES[ns]
                ),
            };
            first = Some((at, msg));
        }
    }
    first.map(|(seq, msg)| refused_at(seq, msg))
}

/// The first team this append names (after `old`) whose name is written as
/// no name may be ([`crate::systems::players::check_team_name`]), by seq.
fn team_names(indexes: &PerNamespace, old: u64) -> Option<crate::error::Error> {
    let new = (indexes.0.iter())
        .flat_map(|own| own.teams())
        .filter(|(_, &seq)| seq > old);
    let refused = new.filter_map(|(team, &seq)| {
        let msg = crate::systems::players::check_team_name(team).err()?;
        Some((seq, msg))
    });
    refused.min().map(|(seq, msg)| refused_at(seq, msg))
}

/// The refusal `msg` of record `seq`: a new name written as no name may
/// be ([`crate::systems::players::check_name`]'s message), or a team's and
/// a player's name clashing.
fn refused_at(seq: u64, msg: String) -> crate::error::Error {
    let origin = crate::error::Origin {
        seq: Some(seq),
        ..Default::default()
    };
    crate::error::Error::invalid(origin, msg)
}

/// A renames' problem and the new names refused, as one refusal in input
/// order (the rename's first at the same seq): each name, up to
/// [`REFUSALS_SHOWN`] (one more in `names` says the check stopped there).
fn refusals(
    renames: Option<crate::error::Error>,
    mut names: Vec<crate::error::Error>,
) -> Option<crate::error::Error> {
    if let Some(r) = renames {
        let at = names.partition_point(|n| n.origin_seq() < r.origin_seq());
        names.insert(at, r);
    }
    let more = names.len() > REFUSALS_SHOWN;
    names.truncate(REFUSALS_SHOWN);
    (!names.is_empty()).then(|| crate::error::Error::several(names, more, Stage::Names))
}

/// A name's [`Rank`].
fn rank<'a>(name: &'a str, w: &Written) -> Rank<'a> {
    (w.seen.first_seq, w.first, name)
}

/// Every name written after seq `old`: in a namespace's events, registered,
/// or either name of a rename. Interned, not ordered: the check only asks
/// whether a name is one of them, for every name of the ledger when the
/// append brings them all.
fn written_after(indexes: &PerNamespace, old: u64) -> Interner {
    let mut out = Interner::default();
    for index in &indexes.0 {
        let named = index.names().filter(|(_, s)| s.first_seq > old);
        for (n, _) in named {
            out.intern(n);
        }
        let registered = index.registered().iter();
        for (n, _) in registered.filter(|(_, s)| s.first_seq > old) {
            out.intern(n);
        }
        for r in index.renames().iter().filter(|r| r.seq > old) {
            out.intern(&r.from);
            out.intern(&r.to);
        }
    }
    out
}

/// The known names (first written at or before the old head) that nearly
/// duplicate a new one: for each new name's id in the check's order, the
/// known ones with the same key and those one edit apart or reordered, each
/// in that order.
struct Known {
    same: BTreeMap<u32, Vec<String>>,
    typo: BTreeMap<u32, Vec<String>>,
}

impl Known {
    /// Probe every known name of `indexes` against `near` (the new names).
    fn of(indexes: &PerNamespace, old: u64, near: &Near) -> Known {
        let mut known: Vec<&str> = Vec::new();
        for index in &indexes.0 {
            let named = index.names().filter(|(_, s)| s.first_seq <= old);
            known.extend(named.map(|(n, _)| n));
            let registered = index.registered().iter();
            known.extend(
                registered
                    .filter(|(_, s)| s.first_seq <= old)
                    .map(|(n, _)| n.as_str()),
            );
            let renamed = index.renames().iter().filter(|r| r.seq <= old);
            known.extend(renamed.map(|r| r.to.as_str()));
        }
        let mut hits: Vec<(u32, bool, &str)> = Vec::new();
        near.matching(known, &mut |id, same, name| hits.push((id, same, name)));
        let wanted: BTreeSet<&str> = hits.iter().map(|h| h.2).collect();
        let p = Players::merge_of(indexes, &|n| wanted.contains(n));
        let mut found: BTreeMap<(u32, bool), BTreeSet<Rank>> = BTreeMap::new();
        for (id, same, name) in hits {
            if let Some(w) = p.written.get(name) {
                found.entry((id, same)).or_default().insert(rank(name, w));
            }
        }
        let (mut same, mut typo) = (BTreeMap::new(), BTreeMap::new());
        for ((id, is_same), ranks) in found {
            let to = if is_same { &mut same } else { &mut typo };
            to.insert(id, ranks.into_iter().map(|r| r.2.to_string()).collect());
        }
        Known { same, typo }
    }

    /// Every name new name `name` (id `id`) nearly duplicates among the
    /// names before it, as an index over every name lists them (known names
    /// all come first): those with the same key, then those one edit apart
    /// or of the same words reordered.
    /// `mine`: those among the new names before it ([`Near::near_before`]).
    fn near_names<'a>(&'a self, id: u32, name: &str, mine: &[&'a str]) -> Vec<&'a str> {
        let key = (!mine.is_empty()).then(|| key::key(name));
        let (same, typo): (Vec<&str>, Vec<&str>) =
            (mine.iter().copied()).partition(|m| key.as_deref() == Some(&key::key(m)));
        let known = |m: &'a BTreeMap<u32, Vec<String>>| {
            (m.get(&id).into_iter().flatten()).map(String::as_str)
        };
        let known_same = known(&self.same);
        (known_same.chain(same).chain(known(&self.typo)).chain(typo)).collect()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::systems::NAMESPACES;

    /// The check as an index over every name decides it: the whole ledger's
    /// names merged and ordered, each new one written as a name must be and
    /// looked up among all before it, every problem in input order (up to
    /// the most one refusal names); the append's renames checked, and every
    /// earlier one's `to`, unless the append writes no name (nothing new can
    /// name a `to`).
    fn over_every_name(indexes: &PerNamespace, old: u64) -> Result<Vec<String>> {
        let p = Players::merge(indexes);
        let mut order: Vec<(&String, &Written)> = p.written.iter().collect();
        order.sort_by_key(|(name, w)| rank(name, w));
        let near = Near::new(order.iter().map(|(name, _)| name.as_str()));
        let renames = p.check_renames(old, &|| Ok(BTreeMap::new())).err();
        let (mut new, mut found) = (Vec::new(), Vec::new());
        for (i, (name, w)) in (0u32..).zip(&order) {
            if w.seen.first_seq <= old || found.len() > REFUSALS_SHOWN {
                continue;
            }
            let problem = match crate::systems::players::check_name(name) {
                Err(msg) => Some(refused_at(w.seen.first_seq, msg)),
                Ok(()) => (near.near_before(name, i).into_iter())
                    .find_map(|id| typo_of(&p, (name, w), order[id as usize].0)),
            };
            match problem {
                Some(e) => found.push(e),
                None if !w.first.is_rename() => new.push(name.to_string()),
                None => {}
            }
        }
        refusals(renames, found).map_or(Ok(new), Err)
    }

    /// A name from a small alphabet, so that many nearly duplicate others:
    /// case, accents, spaces, digits and one-letter changes.
    fn name(r: &mut u64) -> String {
        const PARTS: [&str; 10] = [
            "Ada", "ada", "Adá", "Lovelace", "Lovelce", " ", "1", "2", "x", "Zoë",
        ];
        let mut next = || {
            *r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*r >> 33) as usize
        };
        let n = 1 + next() % 4;
        (0..n)
            .map(|_| PARTS[next() % PARTS.len()])
            .collect::<String>()
            .trim()
            .to_string()
    }

    /// Fold the record of `json` at `seq` into the indexes that see it.
    pub(in crate::players) fn admit(indexes: &mut PerNamespace, seq: u64, json: serde_json::Value) {
        let mut rec = crate::systems::players::record_of(seq, json);
        let ns = rec
            .kind
            .split_once('.')
            .map_or("", |(ns, _)| ns)
            .to_string();
        for (i, index) in indexes.0.iter_mut().enumerate() {
            if ns == "ledger" || NAMESPACES[i] == ns {
                let _ = index.admit(&mut rec, false);
            }
        }
    }

    /// Random ledgers of near-duplicate names in two namespaces, with
    /// registrations and renames, cut anywhere: the check over the new names
    /// answers as the one over every name, refusal (and the name it cites)
    /// or list of new players alike.
    #[test]
    fn checking_the_new_names_answers_as_an_index_of_every_name() {
        let mut refusals = 0;
        for seed in 0..300u64 {
            let mut r = seed;
            let mut indexes = PerNamespace::default();
            let mut names: Vec<String> = Vec::new();
            let records = 30;
            for seq in 1..=records {
                let a = name(&mut r).replace('"', "");
                let at = format!("2024-01-{:02}T00:00:00Z", 1 + (r >> 40) % 28);
                if a.is_empty() {
                    continue;
                }
                let json = match (r >> 20) % 6 {
                    0 => {
                        serde_json::json!({"type": "ledger.player_registered", "at": at, "player": a})
                    }
                    1 if !names.is_empty() => {
                        let from = names[(r >> 24) as usize % names.len()].clone();
                        serde_json::json!({"type": "ledger.player_renamed", "at": at, "from": from, "to": a})
                    }
                    2 | 3 => {
                        serde_json::json!({"type": "mepbm.rating_seeded", "at": at, "player": a, "system": "valar", "value": 1500})
                    }
                    _ => {
                        serde_json::json!({"type": "cards.match_result", "at": at, "tournament": "t", "round": "1", "match": "m", "scores": [{"player": a, "score": 1}]})
                    }
                };
                admit(&mut indexes, seq, json);
                names.push(a);
            }
            for old in [0, 5, 15, 25, records - 1] {
                let want = over_every_name(&indexes, old).map_err(|e| e.to_string());
                let got =
                    check_append(&indexes, old, &|| Ok(BTreeMap::new())).map_err(|e| e.to_string());
                refusals += u32::from(want.is_err());
                assert_eq!(got, want, "seed {seed}, old {old}");
            }
        }
        assert!(
            refusals > 100,
            "the names must nearly duplicate often: {refusals}"
        );
    }
}
