//! The read-only queries: `standings`, `history`, `rules`, and `fold` (what a full
//! replay measures).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::{fold_stamped, folded_only, write_answer, QueryArgs};
use crate::error::{Error, Result};
use crate::events::ledger as ledger_events;
use crate::fold::{self, Source};
use crate::ledger::Ledger;
use crate::output::{self, Print};
use crate::players::Players;
use crate::systems::table::{Report, Table};
use crate::systems::{self, Change, Cx, Event, Selector, State};
use crate::time::Micros;

/// `laurel standings TABLE`, written to `w` as it is rendered.
pub fn standings(
    path: &Path,
    table: &str,
    sel: &Selector,
    args: &QueryArgs,
    print: &Print,
    w: &mut dyn Write,
) -> Result<()> {
    let ledger = Ledger::read(path)?;
    // One table needs one projection: the other namespaces are not even decoded.
    // An unknown table is refused before anything is folded.
    let ns = namespace(table)?;
    // From the latest valid checkpoint at or before --as-of when one can serve.
    let (f, stamp) = folded_only(&ledger, args, Some(ns))?;
    check_tournament(&f.state, table, sel)?;
    // Only the rows printed are built: the tables of a large ledger cost far
    // more to format than to fold.
    let sel = Selector {
        table: print.table.clone(),
        rows: print.limit,
        ..sel.clone()
    };
    let report = f
        .state
        .standings(table, &sel, &f.cx)
        .map_err(Error::Usage)?;
    // The state is not needed to print the report: free it first.
    drop(f);
    write_answer(w, &ledger, args, report, &stamp, print)
}

/// The namespace of standings table `table`, or a usage error naming the
/// nearest table.
pub(super) fn namespace(table: &str) -> Result<&'static str> {
    systems::namespace_of(table).ok_or_else(|| {
        let nothing = State::default().standings(table, &Selector::default(), &Cx::default());
        Error::Usage(nothing.err().unwrap_or_default())
    })
}

/// A `--tournament` must name one of `table`'s tournaments; a table without
/// tournaments takes none. Refused with the nearest names (at most
/// [`LISTED`] known ones are listed).
pub(super) fn check_tournament(state: &State, table: &str, sel: &Selector) -> Result<()> {
    let Some(t) = &sel.tournament else {
        return Ok(());
    };
    let Some(known) = state.tournaments(table) else {
        return Err(Error::Usage(format!(
            "{table} takes no --tournament (got {t:?}): {table} has no tournaments; only cards, diplomacy and sbr tables do"
        )));
    };
    if known.contains(t) {
        return Ok(());
    }
    let hint = crate::events::did_you_mean(t, known.iter().map(String::as_str));
    let listed = match known.len() {
        0 => "none yet".to_string(),
        n if n <= LISTED => known.join(", "),
        n => format!("{n}: `laurel standings {table}` lists them"),
    };
    let ns = systems::namespace_of(table).unwrap_or(table);
    Err(Error::Usage(format!(
        "unknown {ns} tournament {t:?}{hint} (known: {listed})"
    )))
}

/// How many tournament names an unknown one's message lists at most.
const LISTED: usize = 12;

/// `laurel fold` (hidden, for `bench`): fold every projection as the query asks
/// and print how many records the ledger knew; what "full replay" measures.
pub fn fold_all(path: &Path, args: &QueryArgs) -> Result<String> {
    let ledger = Ledger::read(path)?;
    let f = ledger.fold(&args.query()?)?;
    let text = format!("folded every projection up to seq {}\n", f.known_at);
    f.discard();
    Ok(text)
}

/// `laurel history PLAYER [--system S]`: every change, oldest first, with formulas.
/// Changes made by records that were later voided are listed too, marked with the
/// void that took them away, so a correction shows both the old and the new value.
/// An unknown `--system` (not a standings table) is refused with the nearest one.
/// `PLAYER` may be any of a renamed player's names: the changes made under
/// each are listed. A subject that is not a player (a grudge team) has a
/// history too; a name that is neither a player's nor any subject's is
/// refused with the nearest players. A player's values change only from
/// their first record on (under any of their names), so the fold starts
/// from the latest checkpoint before it; a name a grudge team also bears,
/// or no player's, folds from the first record.
pub fn history(
    path: &Path,
    player: &str,
    system: Option<&str>,
    args: &QueryArgs,
    print: &Print,
    w: &mut dyn Write,
) -> Result<()> {
    let asked = system.map(namespace).transpose()?;
    let ledger = Ledger::read(path)?;
    let shown = player;
    // Who the name is comes from the players indexes alone, folded at the
    // same clocks (from a checkpoint where one serves): the audit fold then
    // gathers the changes of the player's first name, under which the
    // projections know every later one.
    let players = super::players::players_of(&ledger, args)?.0;
    let (root, not_a_player) = match super::players::resolve(&players, player) {
        Ok(root) => (root, None),
        Err(e) => (player.to_string(), Some(e)),
    };
    let player = root.as_str();
    let source = ledger.source()?;
    let voids = fold::voids(&source, &args.query()?)?;
    let (voided, last_voided) = voided_records(&source, &voids)?;
    let only = asked.or_else(|| one_namespace(&players, player, not_a_player.is_none(), voided));
    let since = (not_a_player.is_none())
        .then(|| players.first_at_of(player))
        .flatten();
    let (f, stamp) = audit_fold(&ledger, args, (player, only), since)?;
    let mine = |c: &Change| c.subject == player && system.is_none_or(|s| s == c.system);
    let mut rows: Vec<(Change, Value)> =
        f.cx.changes()
            .iter()
            .filter(|c| mine(c))
            .map(|c| (c.clone(), Value::Null))
            .collect();
    let voided = Voided {
        voids,
        only,
        last_at: last_voided,
    };
    rows.extend(voided_changes(&source, args, player, &voided, &mine)?);
    if let (true, Some(e)) = (rows.is_empty(), not_a_player) {
        return Err(e);
    }
    rows.sort_by_key(|(c, _)| (c.at, c.seq));
    let columns = [&output::CHANGE_COLUMNS[..], &["voided"]].concat();
    let mut t = Table::new("history", &format!("History of {shown}"), &columns);
    for (c, note) in rows {
        let mut row = output::change_row(&c);
        row.push(note);
        t.push(row);
    }
    let report = Report {
        system: "history".into(),
        main: t,
        extra: vec![],
    };
    write_answer(w, &ledger, args, report, &stamp, print)
}

/// The fold of `subject`'s changes, of namespace `only` or all: one
/// subject's only (the whole trail of a 1M-event ledger is 15 GB). A
/// player's values change only from their first record on (`since`, its
/// date), so it starts from the latest checkpoint before it that serves;
/// a grudge team of the same name may have changed earlier, and then it
/// folds again from the first record.
fn audit_fold(
    ledger: &Ledger,
    args: &QueryArgs,
    (subject, only): (&str, Option<&'static str>),
    since: Option<Micros>,
) -> Result<(fold::Folded, output::Stamp)> {
    let query = |since: Option<Micros>| -> Result<fold::Query> {
        let mut q = args.query()?;
        q.audit = true;
        q.audit_subject = Some(subject.to_string());
        q.only = only;
        q.subject_since = since;
        Ok(q)
    };
    let (f, stamp) = fold_stamped(ledger, args, query(since)?)?;
    if since.is_none() || !f.state.rates_non_player(subject) {
        return Ok((f, stamp));
    }
    f.discard();
    fold_stamped(ledger, args, query(None)?)
}

/// The one namespace a player's history needs folded, when one is enough.
/// A system's changes are about the players its events name, except in the
/// systems that also rate subjects that are not players
/// ([`systems::NON_PLAYER_NAMESPACES`]: grudge teams, which may share a
/// player's name). So the namespaces naming the player (under any of their
/// names, voided records included: `voided` holds the namespaces of every
/// voided record) and those are all that can hold the player's changes; when
/// that is one namespace, it alone is folded. A name that is no player's
/// folds every namespace.
fn one_namespace(
    players: &Players,
    root: &str,
    is_player: bool,
    voided: u32,
) -> Option<&'static str> {
    let named = players.namespaces_of(root) | voided | systems::NON_PLAYER_NAMESPACES;
    let one = systems::NAMESPACES.get(named.trailing_zeros() as usize)?;
    (is_player && named.count_ones() == 1).then_some(*one)
}

/// The namespaces of the records `voids` voids (voided seq → its void's),
/// a bit per [`systems::NAMESPACES`] entry, and the latest `at` among them.
fn voided_records(source: &dyn Source, voids: &BTreeMap<u64, u64>) -> Result<(u32, Micros)> {
    let targets: Vec<u64> = voids.keys().copied().collect();
    let (mut bits, mut last) = (0, Micros::MIN);
    source.records(&targets, &mut |r| {
        bits |= systems::ns_index(&r.event).map_or(0, |i| 1 << i);
        last = last.max(r.at);
        Ok(())
    })?;
    Ok((bits, last))
}

/// The voids inside a history's clocks (voided seq → the seq of its void),
/// the one namespace the history folds, if one, and the latest `at` of a
/// voided record.
struct Voided {
    voids: BTreeMap<u64, u64>,
    only: Option<&'static str>,
    last_at: Micros,
}

/// The changes voided records made (folded as if not voided), each with a note
/// naming the void and its reason as `log` shows them: `voided by #10: reason "…"`.
/// A change carries the record whose fold made it, so the fold stops after
/// the latest voided record (`as_of` its `at`): what follows changes none of
/// theirs.
fn voided_changes(
    source: &dyn Source,
    args: &QueryArgs,
    subject: &str,
    voided: &Voided,
    keep: &dyn Fn(&Change) -> bool,
) -> Result<Vec<(Change, Value)>> {
    let Voided {
        voids,
        only,
        last_at,
    } = voided;
    if voids.is_empty() {
        return Ok(Vec::new());
    }
    let mut q = args.query()?;
    let mut reasons = BTreeMap::new();
    let void_seqs: Vec<u64> = voids.values().copied().collect();
    source.records(&void_seqs, &mut |r| {
        if let Event::Ledger(ledger_events::Event::Voided(v)) = &r.event {
            reasons.insert(r.seq, v.reason.clone());
        }
        Ok(())
    })?;
    q.audit = true;
    q.audit_subject = Some(subject.to_string());
    q.keep_voided = true;
    q.only = *only;
    q.as_of = Some(q.as_of.map_or(*last_at, |a| a.min(*last_at)));
    let all = fold::fold(source, &q)?;
    let noted = all.cx.changes().iter().filter(|c| keep(c)).filter_map(|c| {
        let v = voids.get(&c.seq)?;
        let reason = reasons.get(v).cloned().unwrap_or_default();
        let quoted = serde_json::to_string(&reason).unwrap_or_default();
        Some((c.clone(), json!(format!("voided by #{v}: reason {quoted}"))))
    });
    Ok(noted.collect())
}

/// `laurel rules`: every parameter, its default, the value in force, its doc
/// line and the values it may take.
pub fn rules(path: &Path, args: &QueryArgs, print: &Print, w: &mut dyn Write) -> Result<()> {
    let ledger = Ledger::read(path)?;
    let (f, stamp) = folded_only(&ledger, args, None)?;
    let mut t = Table::new(
        "rules",
        "Rule parameters",
        &["system", "param", "default", "in_force", "doc", "allowed"],
    );
    for (d, v) in f.cx.params.listing() {
        let default: Value = serde_json::from_str(d.default).unwrap_or(Value::Null);
        t.push(vec![
            json!(d.system),
            json!(d.name),
            default,
            v,
            json!(d.doc),
            json!(d.range.to_string()),
        ]);
    }
    let report = Report {
        system: "rules".into(),
        main: t,
        extra: vec![],
    };
    write_answer(w, &ledger, args, report, &stamp, print)
}
