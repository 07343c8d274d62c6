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
    let (f, mut stamp) = folded_only(&ledger, args, Some(ns))?;
    check_tournament(&f.state, table, sel, args)?;
    stamp.tournament = sel.tournament.clone();
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
/// nearest table (or, for a system's name, its tables).
pub(super) fn namespace(table: &str) -> Result<&'static str> {
    let of_system: Vec<&str> = (systems::tables().into_iter())
        .filter(|(t, ns)| *ns == table && *t != table)
        .map(|(t, _)| t)
        .collect();
    if !of_system.is_empty() {
        return Err(Error::Usage(format!(
            "{table:?} is a system, not a standings table: its tables are {}",
            of_system.join(", ")
        )));
    }
    systems::namespace_of(table).ok_or_else(|| {
        let nothing = State::default().standings(table, &Selector::default(), &Cx::default());
        Error::Usage(nothing.err().unwrap_or_default())
    })
}

/// A `--tournament` must name one of `table`'s tournaments; a table without
/// tournaments takes none. Refused with the nearest names (at most
/// [`LISTED`] known ones are listed), known by `--as-of` when one is given: a
/// tournament created after it is not one yet.
pub(super) fn check_tournament(
    state: &State,
    table: &str,
    sel: &Selector,
    args: &QueryArgs,
) -> Result<()> {
    let Some(t) = &sel.tournament else {
        return Ok(());
    };
    let Some(known) = state.tournaments(table) else {
        let mut with: Vec<&str> = (systems::tables().into_iter())
            .filter(|(t, _)| State::default().tournaments(t).is_some())
            .map(|(_, ns)| ns)
            .collect();
        with.dedup();
        return Err(Error::Usage(format!(
            "{table} takes no --tournament (got {t:?}): {table} has no tournaments; only {} tables do",
            with.join(", ")
        )));
    };
    if known.contains(t) {
        return Ok(());
    }
    let hint = crate::events::did_you_mean(t, known.iter().map(String::as_str));
    let ns = systems::namespace_of(table).unwrap_or(table);
    let then = (args.as_of.as_deref()).map_or(String::new(), |d| format!(" by --as-of {d}"));
    Err(Error::Usage(format!(
        "unknown {ns} tournament {t:?}{hint} (known{then}: {})",
        listed(&known, table)
    )))
}

/// `table`'s tournaments `known` as a message lists them: every one, up to
/// [`LISTED`]; past that, how many and where to see them.
fn listed(known: &[String], table: &str) -> String {
    match known.len() {
        0 => "none yet".to_string(),
        n if n <= LISTED => known.join(", "),
        n => format!("{n}: `laurel standings {table}` lists them"),
    }
}

/// How many tournament names an unknown one's message lists at most.
const LISTED: usize = 12;

/// `laurel fold` (hidden, for `bench`): fold every projection as the query asks
/// and print how many records the ledger knew; what "full replay" measures.
pub fn fold_all(path: &Path, args: &QueryArgs) -> Result<String> {
    let ledger = Ledger::read(path)?;
    let f = args.fold(&ledger, &args.query(&ledger)?)?;
    let text = format!("folded every projection up to seq {}\n", f.known_at);
    f.discard();
    Ok(text)
}

/// `laurel history PLAYER [--system S]`: every change, oldest first, with formulas.
/// A player or grudge team that `--as-of` cuts off before any change has an
/// empty history; a name that is nothing's in the ledger as known at
/// `--known-at` (all of it, without) is refused, as in a copy of the ledger
/// cut there.
/// Changes made by records that were later voided are listed too, marked with the
/// void that took them away, so a correction shows both the old and the new value.
/// An unknown `--system` (not a standings table) is refused with the nearest one.
/// `PLAYER` may be any of a renamed player's names, given before or after
/// `--as-of`: the changes made under each are listed. A subject that is not
/// a player (a grudge team) has a history too; a name that is neither a player's nor any subject's is
/// refused with the nearest players. A player's values change only from
/// their first record on (under any of their names), so the fold starts
/// from the latest checkpoint before it; a grudge team's name, or no
/// player's, folds from the first record.
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
    let (players, root, not_a_player) = who(&ledger, player, args)?;
    let player = root.as_str();
    let source = ledger.source()?;
    let voids = fold::voids(&source, &args.query(&ledger)?)?;
    let voided = voided_records(&source, &voids, (&players, &root))?;
    // A name that is no player's and no subject's, even voided, is refused
    // before the audit fold: a mistyped name costs one fold from a checkpoint.
    let rated_known =
        not_a_player.is_none() || super::players::is_rated_known(&ledger, shown, args)?;
    if !rated_known && !voided.names_subject() {
        if let Some(e) = not_a_player {
            return Err(e);
        }
    }
    let only = asked
        .or_else(|| one_namespace(&players, player, not_a_player.is_none(), voided.namespaces));
    let since = (not_a_player.is_none())
        .then(|| players.first_at_of(player))
        .flatten();
    let subject = (player, only);
    let (f, stamp) = audit_fold(&ledger, args, args.query(&ledger)?, subject, since)?;
    // A grudge team at the clocks, with or without changes yet.
    let rated = not_a_player.is_some() && f.state.rates_non_player(player);
    let mine = |c: &Change| c.subject == player && system.is_none_or(|s| s == c.system);
    let mut rows: Vec<(Change, Value)> =
        f.cx.changes()
            .iter()
            .filter(|c| mine(c))
            .map(|c| (c.clone(), Value::Null))
            .collect();
    f.discard();
    let noted = voided_changes(&ledger, args, (subject, since), &voided, &mine)?;
    rows.extend(not_listed(&rows, noted));
    // The name the player goes by now, or went by at `--as-of`, for the title.
    let as_of = args.query(&ledger)?.as_of;
    let now = match (&not_a_player, as_of) {
        (None, None) => players.shown_name(player),
        // Before the player was named at all, no name was theirs then.
        (None, Some(t)) if players.given_on(player).is_some_and(|since| since > t) => {
            shown.to_string()
        }
        (None, Some(t)) => players.name_on(player, t),
        (Some(_), _) => shown.to_string(),
    };
    if let (true, Some(e)) = (rows.is_empty(), not_a_player) {
        if !rated && !rated_known {
            return Err(e);
        }
    }
    rows.sort_by_key(|(c, _)| (c.at, c.seq));
    // The formula, the widest, last: the voided note is beside the values.
    let (before, formula) = output::CHANGE_COLUMNS.split_at(5);
    let columns = [before, &["voided"], formula].concat();
    let title = match (now == shown || now.is_empty(), as_of) {
        (true, _) => format!("History of {shown}"),
        (false, Some(_)) => format!("History of {shown} (called {now} then)"),
        (false, None) => format!("History of {shown} (now {now})"),
    };
    let mut t = Table::new("history", &title, &columns);
    for (c, note) in rows {
        let mut row = output::change_row(&c);
        row.insert(5, note);
        t.push(row);
    }
    let report = Report {
        system: "history".into(),
        main: t,
        extra: vec![],
    };
    write_answer(w, &ledger, args, report, &stamp, print)
}

/// The changes of `noted` that no row of `rows` shows already: a value
/// computed under a voided rule change that came out the same without it
/// is the live row.
fn not_listed(rows: &[(Change, Value)], noted: Vec<(Change, Value)>) -> Vec<(Change, Value)> {
    let key = |c: &Change| {
        (
            c.seq,
            c.system.clone(),
            c.old.clone(),
            c.new.clone(),
            c.formula.clone(),
        )
    };
    let shown: std::collections::BTreeSet<_> = rows.iter().map(|(c, _)| key(c)).collect();
    noted
        .into_iter()
        .filter(|(c, _)| !shown.contains(&key(c)))
        .collect()
}

/// Who `name` is: the players indexes alone, as the ledger knew them at
/// `--known-at`, whatever `--as-of` says (from a checkpoint where one
/// serves), since a name a player was given later still names them (the
/// name asked for is usually the one they go by now); the player's root
/// (their first name, under which the projections know every later one),
/// or `name` itself and why it is no player's. A name given after the
/// known-at cut is refused as a copy of the ledger cut there refuses it,
/// word for word: an answer at a cut tells nothing of later records.
fn who(ledger: &Ledger, name: &str, args: &QueryArgs) -> Result<(Players, String, Option<Error>)> {
    let known = QueryArgs {
        as_of: None,
        ..args.clone()
    };
    let players = super::players::players_of(ledger, &known)?.0;
    Ok(match super::players::resolve(&players, name) {
        Ok(root) => (players, root, None),
        Err(e) => (players, name.to_string(), Some(e)),
    })
}

/// The fold of `subject`'s changes, of namespace `only` or all, at `base`'s
/// clocks: one subject's only (the whole trail grows with the log). A player's values change only from their first record on
/// (`since`, its date), so it starts from the latest checkpoint before it
/// that serves; a grudge team of the same name may have changed earlier,
/// and then it folds again from the first record.
fn audit_fold(
    ledger: &Ledger,
    args: &QueryArgs,
    base: fold::Query,
    (subject, only): (&str, Option<&'static str>),
    since: Option<Micros>,
) -> Result<(fold::Folded, output::Stamp)> {
    let query = |since: Option<Micros>| -> fold::Query {
        let mut q = base.clone();
        q.audit = true;
        q.audit_subject = Some(subject.to_string());
        q.only = only;
        q.subject_since = since;
        q
    };
    let (f, stamp) = fold_stamped(ledger, args, query(since))?;
    if since.is_none() || !f.state.rates_non_player(subject) {
        return Ok((f, stamp));
    }
    f.discard();
    fold_stamped(ledger, args, query(None))
}

/// The one namespace a player's history needs folded, when one is enough.
/// A system's changes are about the players its events name, except in the
/// systems that also rate subjects that are not players
/// ([`systems::NON_PLAYER_NAMESPACES`]: grudge teams, which may share a
/// player's name). So only those and the namespaces naming the player
/// (under any of their names, voided records included: `voided` holds the
/// namespaces of every voided record) can hold the player's changes; when
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

/// The records voided within a history's clocks.
struct Voided {
    /// Their namespaces, a bit per [`systems::NAMESPACES`] entry.
    namespaces: u32,
    /// Those of each run of voids (one after another, as `laurel void` and
    /// `laurel correct` write them), by the seq of its first void.
    runs: BTreeMap<u64, VoidRun>,
    /// Each void's reason, by the void's seq.
    reasons: BTreeMap<u64, String>,
}

/// The records one run of voids voided, by seq.
type VoidRun = BTreeMap<u64, VoidedRecord>;

/// A record a void voided, as a history reads it.
#[derive(Clone, Copy)]
struct VoidedRecord {
    /// The seq of its void.
    void: u64,
    at: Micros,
    /// The namespace whose values it may change ([`systems::concerned_ns`]:
    /// a rule change's is its group's; `None` for another `ledger.*` record,
    /// which changes no value itself).
    ns: Option<usize>,
    /// Does it name the subject?
    names: bool,
    /// Is it a rule change? Every later value of its namespace was
    /// computed under it while it stood.
    rule: bool,
}

impl Voided {
    /// Does a voided record name the subject?
    fn names_subject(&self) -> bool {
        self.runs
            .values()
            .flat_map(|run| run.values())
            .any(|r| r.names)
    }
}

/// The records `voids` voids (voided seq → its void's), with their voids'
/// reasons, grouped by runs of voids with consecutive seqs. Runs, not
/// appends: the same records give the same history however they were
/// appended (a ledger and its export imported in one append answer alike).
/// `root` is the subject: whether a record names it (under any of its names)
/// is noted.
fn voided_records(
    source: &dyn Source,
    voids: &BTreeMap<u64, u64>,
    (players, root): (&Players, &str),
) -> Result<Voided> {
    let mut reasons = BTreeMap::new();
    let void_seqs: Vec<u64> = voids.values().copied().collect();
    source.records(&void_seqs, &mut |r| {
        if let Event::Ledger(ledger_events::Event::Voided(v)) = &r.event {
            reasons.insert(r.seq, v.reason.clone());
        }
        Ok(())
    })?;
    let mut targets = BTreeMap::new();
    let target_seqs: Vec<u64> = voids.keys().copied().collect();
    source.records(&target_seqs, &mut |mut r| {
        let mut names = false;
        systems::names_of(&mut r.event, &mut |n: &mut String| {
            // A name only voided records hold is no player's: itself.
            names |= players.root_of(n).map_or(n == root, |r| r == root);
        });
        let rule = matches!(
            r.event,
            Event::Ledger(ledger_events::Event::RulesChanged(_))
        );
        let record = VoidedRecord {
            void: 0, // its void's, below
            at: r.at,
            ns: systems::concerned_ns(&r.event),
            names,
            rule,
        };
        targets.insert(r.seq, record);
        Ok(())
    })?;
    let by_void: BTreeMap<u64, u64> = voids.iter().map(|(t, v)| (*v, *t)).collect();
    let mut runs: BTreeMap<u64, VoidRun> = BTreeMap::new();
    let (mut namespaces, mut run) = (0, (0, 0));
    for (void, target) in by_void {
        let unread = VoidedRecord {
            void,
            at: Micros::MIN,
            ns: None,
            names: false,
            rule: false,
        };
        let record = targets
            .get(&target)
            .map_or(unread, |r| VoidedRecord { void, ..*r });
        namespaces |= record.ns.map_or(0, |i| 1 << i);
        // (first void, last void) of the run this void continues or starts.
        run = match void == run.1 + 1 {
            true => (run.0, void),
            false => (void, void),
        };
        runs.entry(run.0).or_default().insert(target, record);
    }
    Ok(Voided {
        namespaces,
        runs,
        reasons,
    })
}

/// The changes voided records made, each with a note naming the void and
/// its reason as `log` shows them: `voided by #10: reason "…"`. What a
/// voided record changed is what it changed while it stood: in the fold of
/// the ledger known just before its run of voids, one fold per run. Only
/// the runs that may have changed the subject are folded: those voiding a
/// record that names it, or one of a system whose records change subjects
/// they do not name ([`systems::UNNAMED_NAMESPACES`]). The fold stops after
/// the latest record the run voided (`as_of` its `at`):
/// what follows changes none of theirs; and it starts from a checkpoint
/// before the earliest of them and the player's first date, where one
/// serves. A voided rule change made no change itself (but where a system
/// audits what one moves at once: the CFR window), yet every value of its
/// namespace from its `at` on was computed under it while it stood: those
/// are listed too, to the end (as of the query's `--as-of`), noted
/// `computed under the rule change #N, voided by #V: reason "…"`, but for
/// the ones that came out the same without it.
fn voided_changes(
    ledger: &Ledger,
    args: &QueryArgs,
    ((subject, only), since): ((&str, Option<&'static str>), Option<Micros>),
    voided: &Voided,
    keep: &dyn Fn(&Change) -> bool,
) -> Result<Vec<(Change, Value)>> {
    let folded =
        |ns: Option<usize>| ns.is_some_and(|i| only.is_none_or(|o| systems::NAMESPACES[i] == o));
    let unnamed =
        |ns: Option<usize>| ns.is_some_and(|i| systems::UNNAMED_NAMESPACES & (1 << i) != 0);
    let mut out = Vec::new();
    for (first_void, run) in &voided.runs {
        let targets: BTreeMap<u64, VoidedRecord> = (run.iter())
            .filter(|(_, r)| folded(r.ns))
            .map(|(t, r)| (*t, *r))
            .collect();
        let concerns = run.values().any(|r| r.names || r.rule || unnamed(r.ns));
        let (Some(first), Some(last), true) = (
            targets.values().map(|r| r.at).min(),
            targets.values().map(|r| r.at).max(),
            concerns,
        ) else {
            continue;
        };
        // A voided rule change changed every later value while it stood.
        let rule = targets.iter().find(|(_, r)| r.rule);
        let mut q = args.query(ledger)?;
        q.known_at = Some(first_void - 1);
        if rule.is_none() {
            q.as_of = Some(q.as_of.map_or(last, |a| a.min(last)));
        }
        let since = since.map(|s| s.min(first));
        let (f, _) = audit_fold(ledger, args, q, (subject, only), since)?;
        let note = |r: &VoidedRecord| {
            let reason = voided.reasons.get(&r.void).map_or("", String::as_str);
            format!("voided by #{}: {}", r.void, super::log::reason_said(reason))
        };
        for c in f.cx.changes().iter().filter(|c| keep(c)) {
            let said = match (targets.get(&c.seq), rule) {
                (Some(r), _) => note(r),
                (None, Some((seq, r))) if c.at >= r.at => {
                    format!("computed under the rule change #{seq}, {}", note(r))
                }
                _ => continue,
            };
            out.push((c.clone(), json!(said)));
        }
        f.discard();
    }
    Ok(out)
}

/// `laurel rules --template`: the values in force (at the head, or the
/// clocks asked) as a rules file, `{system: {param: value}}`, which `replay
/// --rules` reads; a person edits a value to ask a what-if, and the file as
/// printed replays to no change at the same clocks (one printed `--as-of` a
/// date before a rule change pins the value before it). A replay pins the file's values for the
/// whole history, so a parameter a recorded rule change sets is left out
/// (pinned, its value after the change would rescore what came before it),
/// and named on stderr: given by hand, it is a what-if like any edit.
pub fn rules_template(path: &Path, args: &QueryArgs, w: &mut dyn Write) -> Result<()> {
    let ledger = Ledger::read(path)?;
    let (f, _) = folded_only(&ledger, args, None)?;
    let mut file = serde_json::Map::new();
    let mut left_out = Vec::new();
    for (d, v) in f.cx.params.listing() {
        if f.cx.params.is_changed(d.system, d.name) {
            left_out.push(format!("{}.{}", d.system, d.name));
            continue;
        }
        let group = file.entry(d.system).or_insert_with(|| json!({}));
        if let Some(group) = group.as_object_mut() {
            group.insert(d.name.to_string(), v);
        }
    }
    let text = serde_json::to_string_pretty(&Value::Object(file)).unwrap_or_default();
    writeln!(w, "{text}").map_err(super::stdout_error)?;
    if !left_out.is_empty() {
        eprintln!(
            "note: left out {}, which recorded rule changes set (`laurel log --type \
             ledger.rules_changed`): a value given in the file holds over the whole history, \
             before those changes too",
            left_out.join(", ")
        );
    }
    Ok(())
}

/// `laurel rules`: every parameter, its default, the value in force, its doc
/// line and the values it may take; then those in force that no value reads
/// now, with why (a CFR table every series of its format sets for itself).
/// Where there is no ledger yet (a new administrator reading the rules
/// before `laurel init`), the defaults, as an empty ledger has them, after a
/// line saying so.
pub fn rules(path: &Path, args: &QueryArgs, print: &Print, w: &mut dyn Write) -> Result<()> {
    let ledger = match Ledger::read(path) {
        Err(Error::NoLedger(_)) if args.as_of.is_none() && args.known_at.is_none() => {
            return rules_without_ledger(path, print, w);
        }
        read => read?,
    };
    let (f, stamp) = folded_only(&ledger, args, None)?;
    let report = rules_report(&f.cx.params, Some(&f.state));
    write_answer(w, &ledger, args, report, &stamp, print)
}

/// [`rules`] where there is no ledger: the defaults.
fn rules_without_ledger(path: &Path, print: &Print, w: &mut dyn Write) -> Result<()> {
    let report = rules_report(&systems::params::Params::default(), None);
    let report = print.shape(report).map_err(Error::Usage)?;
    let stamp = output::Stamp {
        head: "0".repeat(64),
        ..output::Stamp::default()
    };
    if print.format == output::Format::Table {
        let line = format!(
            "no ledger at {} yet: every parameter at its default, in force until a rule change \
             sets it\n",
            path.display()
        );
        w.write_all(line.as_bytes()).map_err(super::stdout_error)?;
    }
    output::write_report(w, &report, &stamp, print.format).map_err(super::stdout_error)
}

/// The rules table of `params` in force, and, given the `state` folded with
/// them, the parameters no value reads.
fn rules_report(params: &systems::params::Params, state: Option<&State>) -> Report {
    let mut t = Table::new(
        "rules",
        "Rule parameters",
        &["system", "param", "default", "in_force", "allowed", "doc"],
    );
    // A parameter in force that no value reads (every subject it would
    // apply to sets its own) is listed after them, with why.
    let mut vain = Table::new(
        "overridden",
        "Parameters no value reads now",
        &["system", "param", "why"],
    );
    for (d, v) in params.listing() {
        let default: Value = serde_json::from_str(d.default).unwrap_or(Value::Null);
        if let Some(why) = state.and_then(|s| s.overridden(d.system, d.name)) {
            vain.push(vec![json!(d.system), json!(d.name), json!(why)]);
        }
        t.push(vec![
            json!(d.system),
            json!(d.name),
            default,
            v,
            json!(d.range.to_string()),
            json!(d.doc),
        ]);
    }
    Report {
        system: "rules".into(),
        main: t,
        extra: (!vain.rows.is_empty())
            .then_some(vain)
            .into_iter()
            .collect(),
    }
}
