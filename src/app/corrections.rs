//! Corrections: `laurel void SEQ... --reason TEXT` and `laurel correct SEQ FILE
//! --reason TEXT`. Both are one all-or-nothing append of `ledger.voided` events
//! (and, for `correct`, the replacement after them), checked like any append.
//!
//! The rules, and the decisions the rating documents leave open:
//!
//! - **Several seqs, one append.** `void 4 7 9` appends one `ledger.voided` per
//!   seq, in the order given, at the same `at`, with the same reason. A seq that
//!   is not an earlier record, is already voided, is itself a void, or is named
//!   twice (its two voids would be one event) refuses the whole command (exit 2, nothing written), and so does a
//!   void that later records depend on (a round whose results are recorded; a
//!   rename or registration whose name later events write: the fold's
//!   `voided_players`), as for a void appended from a file. `void` then names
//!   every record that depends on what it voids, directly or through another
//!   (up to 50, one dry run each), and the command that voids them together,
//!   rather than one dependent per attempt.
//! - **A void cannot be voided**: voids are final, so a wrong void is not undone;
//!   the voided event is appended again instead, under a new id if its copy would
//!   be an exact one (an exact copy of a record, voided or not, is "already
//!   recorded": appending the same file again never changes the ledger).
//! - **A `ledger.rules_changed` may be voided**: folds then use the rules in force
//!   without it, from its `at` on, for every event, as if it had never been
//!   recorded (the append is refused if an event no longer validates).
//! - **`correct` is a void and its replacement in one append**: the void first,
//!   then every event of FILE (one or more), so the replacement is validated
//!   against the ledger with SEQ voided and may reuse SEQ's id and the ids of its
//!   system (game, heat, match). The ledger is never without the result: the one
//!   commit writes both or neither. A FILE that adds no new event (empty, or
//!   every event already recorded) is refused, since the void would stand
//!   alone; so is one holding an exact copy of SEQ, beside other events or
//!   not (the copy adds nothing: SEQ would be gone, not replaced). Putting
//!   back what a correction replaced is a correction too, and its event, an
//!   exact copy of a voided record, takes a new id. A replacement is of SEQ's kind: FILE holds
//!   an event of SEQ's type, and every event of it is of SEQ's system (a
//!   Diplomacy result corrects a Diplomacy result; a game start may come with
//!   its takeovers). Anything else is refused, since the command would say
//!   "replaced" while SEQ's result is simply gone: to put another kind of
//!   event in its place, void SEQ and append it. The replacement takes its own place in fold
//!   order `(at, seq)`, after every earlier record with the same `at`: one that
//!   such records depend on (a tournament created the day its rounds are
//!   scheduled) is refused unless its `at` comes before theirs, and the message
//!   says so.
//! - **`--dry-run`** (both commands): the same append as a dry run
//!   ([`Ledger::dry_run`], what `laurel check` runs), with the same checks,
//!   messages and exit codes, on the ledger opened for reading; nothing is
//!   written. `laurel check FILE` cannot try a replacement (its id is
//!   recorded, with other content, until the void beside it).
//! - **The reason** is kept in each `ledger.voided`; `log` shows it beside the
//!   void and its target, `history` beside every change the voided record made.
//!   It must say something: one that is empty or only whitespace, longer than
//!   any event text may be, or holding a character no event text may (a
//!   newline), is refused before anything is read, naming `--reason`.
//! - **New players** of a correction are those its replacement names that SEQ
//!   did not: a player SEQ alone named was the ledger's before the correction,
//!   though the players index, which reads no voided record, dates them from
//!   the replacement.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;

use super::{append_summary, of_command, open_input};
use crate::error::{Error, Origin, Result};
use crate::events;
use crate::ledger::{AppendReport, Input, Ledger};
use crate::time;

/// Record `seq` as `correct` reads it: its type, and the player names it
/// writes (a system's event's, a registration's, a rename's new name); none
/// if it cannot be read (the void's own check refuses it).
fn kind_and_names(ledger: &Ledger, seq: u64) -> (Option<String>, BTreeSet<String>) {
    use crate::events::ledger::Event as LedgerEvent;
    let read = ledger.record_fields(&[seq].into(), |r| {
        let kind = events::stored_kind(r.event).ok().map(str::to_string);
        let rec = events::decode_stored::<crate::systems::Event>(r.event, r.seq, r.at, r.at);
        (kind, rec.ok())
    });
    let Some((kind, rec)) = read.into_values().next() else {
        return (None, BTreeSet::new());
    };
    let mut named = BTreeSet::new();
    match rec.map(|r| r.event) {
        Some(crate::systems::Event::Ledger(LedgerEvent::PlayerRegistered(r))) => {
            named.insert(r.player);
        }
        Some(crate::systems::Event::Ledger(LedgerEvent::PlayerRenamed(r))) => {
            named.insert(r.to);
        }
        Some(mut event) => {
            crate::systems::names_of(&mut event, &mut |n| {
                named.insert(n.clone());
            });
        }
        None => {}
    }
    (kind, named)
}

/// The input of one `ledger.voided` per target, in order, named `name` in
/// messages (its line `k` voids the `k`-th target).
fn voids_input(name: &str, targets: &[u64], reason: &str) -> Input<'static> {
    let at = time::format(time::now());
    let lines: String = targets
        .iter()
        .map(|t| {
            let ev = json!({"type": "ledger.voided", "at": at, "target": t, "reason": reason});
            format!("{ev}\n")
        })
        .collect();
    Input {
        name: name.into(),
        reader: Box::new(std::io::Cursor::new(lines.into_bytes())),
        first_line: 1,
    }
}

/// Refuse a seq of `targets` that names no record of a ledger whose last is
/// `last`, before anything else is checked: the replacement or the void
/// would otherwise be judged first, and refused for something else.
fn recorded(command: &str, targets: &[u64], last: u64) -> Result<()> {
    let Some(t) = targets.iter().find(|&&t| t == 0 || t > last) else {
        return Ok(());
    };
    let held = match last {
        0 => "the ledger holds no record yet".to_string(),
        _ => format!("the ledger's records are 1 to {last} (`laurel log` lists them)"),
    };
    Err(Error::Usage(format!(
        "{command}: there is no record {t}: {held}; nothing is written"
    )))
}

/// `--reason` as every void keeps it: some printable text.
fn check_reason(reason: &str) -> Result<()> {
    if reason.trim().is_empty() {
        return Err(Error::Usage(
            "--reason is empty or only whitespace: say why the record is voided; nothing is written"
                .into(),
        ));
    }
    if reason.len() > events::MAX_STRING {
        return Err(Error::Usage(format!(
            "--reason is {} bytes, longer than the limit of {} (every event text's); nothing \
             is written",
            reason.len(),
            events::MAX_STRING
        )));
    }
    match events::forbidden_char(reason) {
        Some(c) => Err(Error::Usage(format!(
            "{}; nothing is written",
            events::forbidden_message("--reason", c)
        ))),
        None => Ok(()),
    }
}

/// "4, 7 and 9".
fn seq_list(targets: &[impl ToString]) -> String {
    let all: Vec<String> = targets.iter().map(ToString::to_string).collect();
    match all.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => all.concat(),
    }
}

/// `laurel void SEQ... --reason TEXT`: one `ledger.voided` per seq, one append.
pub fn void(path: &Path, targets: &[u64], reason: &str, dry: bool) -> Result<String> {
    if targets.is_empty() {
        return Err(Error::Usage("void: name at least one seq".into()));
    }
    check_reason(reason)?;
    let mut seen = std::collections::BTreeSet::new();
    if let Some(twice) = targets.iter().find(|t| !seen.insert(**t)) {
        return Err(Error::Usage(format!(
            "void: seq {twice} is named twice; nothing is written"
        )));
    }
    let ledger = opened(path, dry)?;
    recorded("void", targets, ledger.head()?.seq)?;
    let input = vec![voids_input("laurel void", targets, reason)];
    let report = match append_or_try(&ledger, input, &|_| Ok(()), dry) {
        Err(e @ Error::Dependent { .. }) => Err(every_dependent(&ledger, targets, e, dry)),
        other => other,
    }
    .map_err(of_command("laurel void"))?;
    let noun = if targets.len() == 1 {
        "record"
    } else {
        "records"
    };
    Ok(format!(
        "{} {noun} {}\n{}",
        if dry { "would void" } else { "voided" },
        seq_list(&what_they_were(&ledger, targets)),
        append_summary(&report, dry)
    ))
}

/// Each of `targets` as `4 (cards.match_result r1-A)`: its type and id, so
/// that whoever voided by seq sees which records went.
fn what_they_were(ledger: &Ledger, targets: &[u64]) -> Vec<String> {
    let seqs = targets.iter().copied().collect();
    let found = ledger.record_fields(&seqs, |r| {
        let kind = events::stored_kind(r.event).unwrap_or_default().to_string();
        let header = events::stored_header(r.event).ok();
        match header.and_then(|h| h.id) {
            Some(id) => format!("{kind} {id}"),
            None => kind,
        }
    });
    (targets.iter())
        .map(|t| match found.get(t) {
            Some(what) => format!("{t} ({what})"),
            None => t.to_string(),
        })
        .collect()
}

/// The most records [`every_dependent`] looks for: each costs a dry run.
const DEPENDENTS_SOUGHT: usize = 50;

/// `refused`, a refusal of voiding `targets` because a stored record
/// depends on one of them, with every record that does, directly or through
/// another (up to [`DEPENDENTS_SOUGHT`]), and the command that voids them
/// together: found by voiding the record each dry run blames along with the
/// targets and running it again, until one passes. A dependent that cannot be
/// voided (another refusal) ends the search.
fn every_dependent(ledger: &Ledger, targets: &[u64], mut refused: Error, dry: bool) -> Error {
    let Error::Dependent { msg, record, .. } = &mut refused else {
        return refused;
    };
    let mut all = targets.to_vec();
    let mut seq = *record;
    let complete = loop {
        if all.len() - targets.len() == DEPENDENTS_SOUGHT || all.contains(&seq) {
            break false;
        }
        all.push(seq);
        match ledger.dry_run(vec![voids_input("laurel void", &all, "dependents")]) {
            Ok(_) => break true,
            Err(Error::Dependent { record, .. }) => seq = record,
            Err(_) => break false,
        }
    };
    let found = match &all[targets.len()..] {
        [one] => format!("record {one} depends"),
        more => format!("records {} depend", seq_list(more)),
    };
    msg.push_str(&match complete {
        true => {
            let seqs: Vec<String> = all.iter().map(u64::to_string).collect();
            format!(
                "; in all, {found} on what it voids: `laurel void {} --reason TEXT{}` voids \
                 them together",
                seqs.join(" "),
                if dry { " --dry-run" } else { "" }
            )
        }
        false => format!("; {found} on what it voids, and maybe more"),
    });
    refused
}

/// `laurel correct SEQ FILE --reason TEXT`: void SEQ and append FILE's events
/// in one append (see the module docs).
pub fn correct(path: &Path, target: u64, file: &str, reason: &str, dry: bool) -> Result<String> {
    check_reason(reason)?;
    // The input first: a file that does not open leaves the ledger unopened.
    let input = open_input(file)?;
    let ledger = opened(path, dry)?;
    recorded("correct", &[target], ledger.head()?.seq)?;
    let inputs = vec![voids_input("laurel correct", &[target], reason), input];
    let (kind, named) = kind_and_names(&ledger, target);
    let accept = |r: &AppendReport| {
        not_a_copy(r, target)?;
        adds_something(r, target, file)?;
        match &kind {
            Some(kind) => of_its_kind(r, target, kind, file),
            // Not a record laurel can read: the void's own check refuses it.
            None => Ok(()),
        }
    };
    let mut report = (append_or_try(&ledger, inputs, &accept, dry))
        .map_err(|mut e| {
            // `correct` takes one seq: the way is `void`, which names them
            // all; not when the replacement, not the void, is blamed.
            let blames_void = |o: &crate::error::Origin| o.kind.as_deref() == Some("ledger.voided");
            if let Error::Dependent { msg, origin, .. } = &mut e {
                if !blames_void(origin) {
                    return e;
                }
                msg.push_str(&format!(
                    "; `laurel correct` replaces one record: `laurel void {target} --reason TEXT` \
                     names every record that depends on it, to void with it before appending \
                     the replacement"
                ));
            }
            e
        })
        .map_err(of_command("laurel correct"))?;
    // The players SEQ named were the ledger's before: no new players.
    report.new_players.retain(|n| !named.contains(n));
    let did = match dry {
        true => format!("would void record {target} and append its replacement"),
        false => format!("voided record {target} and appended its replacement"),
    };
    Ok(format!("{did}\n{}", append_summary(&report, dry)))
}

/// The ledger at `path`, opened to append, or, for a dry run, to read (no
/// lock: it runs beside a writer, as `laurel check` does).
fn opened(path: &Path, dry: bool) -> Result<Ledger> {
    match dry {
        true => Ledger::read(path),
        false => Ledger::open(path),
    }
}

/// The append of `inputs`, committed only if `accept` takes its report; with
/// `dry`, the same append as a dry run, writing nothing.
fn append_or_try(
    ledger: &Ledger,
    inputs: Vec<crate::ledger::Input<'_>>,
    accept: &dyn Fn(&AppendReport) -> Result<()>,
    dry: bool,
) -> Result<AppendReport> {
    match dry {
        true => ledger.dry_run(inputs).and_then(|r| accept(&r).map(|()| r)),
        false => ledger.append_if(inputs, accept),
    }
}

/// Refuse a correction whose FILE holds no event of SEQ's type (`kind`), or
/// one of another system.
fn of_its_kind(r: &AppendReport, target: u64, kind: &str, file: &str) -> Result<()> {
    let system = |k: &str| k.split('.').next().unwrap_or_default().to_string();
    let added = (r.kinds.iter()).filter(|(k, _)| k.as_str() != "ledger.voided");
    let others: Vec<&str> = (added.clone())
        .filter(|(k, _)| system(k) != system(kind))
        .map(|(k, _)| k.as_str())
        .collect();
    let why = match (added.clone().any(|(k, _)| k == kind), others.is_empty()) {
        (true, true) => return Ok(()),
        (_, false) => format!(
            "it holds {} (record {target} is a {kind})",
            others.join(", ")
        ),
        (false, true) => format!("it holds no {kind}, the type of record {target}"),
    };
    let origin = Origin {
        file: Some(file.to_string()),
        ..Origin::default()
    };
    Err(Error::invalid(
        origin,
        format!(
            "not a replacement for record {target}: {why}; a correction replaces a record with \
             one of its kind; nothing is written (to put other events in its place: \
             laurel void {target} --reason TEXT, then laurel append FILE)"
        ),
    ))
}

/// Refuse a correction whose FILE holds an exact copy of SEQ: the copy is
/// already recorded, so nothing would stand in SEQ's place once voided (and
/// the events beside it would replace a result that did not change). The
/// copies an append names are its first few: a file of more copies of
/// voided records than that before SEQ's is refused as one that adds
/// nothing, or not of its kind.
fn not_a_copy(r: &AppendReport, target: u64) -> Result<()> {
    let Some((file, line, _)) = r.voided_copies.iter().find(|c| c.2 == target) else {
        return Ok(());
    };
    let origin = Origin {
        file: Some(file.clone()),
        line: Some(*line),
        ..Origin::default()
    };
    Err(Error::invalid(
        origin,
        format!(
            "an exact copy of record {target}, the record to correct: its replacement says \
             what should have been recorded instead; nothing is written (to void it alone: \
             laurel void {target} --reason TEXT)"
        ),
    ))
}

/// Refuse a correction whose FILE adds no event beside the void (which is
/// always new: a second void of one record is refused before this), naming
/// the first copy of a voided record it holds, if any.
fn adds_something(r: &AppendReport, target: u64, file: &str) -> Result<()> {
    if r.appended >= 2 {
        return Ok(());
    }
    let why = match (r.already_recorded, r.already_voided) {
        (0, _) => "it holds no event".to_string(),
        (n, 0) => format!("its {n} event(s) are already recorded"),
        (n, v) => {
            let first = (r.voided_copies.first())
                .map(|(f, l, seq)| format!(", {f}:{l} of record {seq}"))
                .unwrap_or_default();
            format!(
                "its {n} event(s) are already recorded ({v} of them exact copies of voided \
                 records{first}: give the replacement a new id or other content)"
            )
        }
    };
    let origin = Origin {
        file: Some(file.to_string()),
        ..Origin::default()
    };
    Err(Error::invalid(
        origin,
        format!("no replacement for record {target}: {why}; nothing is written (to void it alone: laurel void {target} --reason TEXT)"),
    ))
}

#[cfg(test)]
mod tests {
    use super::seq_list;

    #[test]
    fn seq_lists_read_as_english() {
        assert_eq!(seq_list(&[4]), "4");
        assert_eq!(seq_list(&[4, 7]), "4 and 7");
        assert_eq!(seq_list(&[4, 7, 9]), "4, 7 and 9");
    }
}
