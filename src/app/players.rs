//! `laurel players` (the list), `laurel players add NAME`, and the player
//! names other commands resolve (`history`).

use std::io::Write;
use std::path::Path;

use serde_json::json;

use super::{append_summary, fold_stamped, QueryArgs};
use crate::error::{Error, Result};
use crate::ledger::{Input, Ledger};
use crate::output::{Print, Stamp};
use crate::players::Players;
use crate::systems::table::{Report, Table};
use crate::time;

/// The ledger's players as `args` folds them (the players indexes alone: no
/// system applies a record), with the stamp of that fold.
pub(super) fn players_of(ledger: &Ledger, args: &QueryArgs) -> Result<(Players, Stamp)> {
    let mut q = args.query(ledger)?;
    q.players_only = true;
    let (f, stamp) = fold_stamped(ledger, args, q)?;
    let players = Players::merge(&f.state.players);
    f.discard();
    Ok((players, stamp))
}

/// `laurel players`: every player by the name shown now, with earlier
/// names, the systems whose events name them and their first and last dates.
pub fn players(path: &Path, args: &QueryArgs, print: &Print, w: &mut dyn Write) -> Result<()> {
    let ledger = Ledger::read(path)?;
    let (players, stamp) = players_of(&ledger, args)?;
    let columns = ["player", "systems", "first", "last", "earlier_names"];
    let mut t = Table::new("players", "Players", &columns);
    for p in players.list() {
        t.push(vec![
            json!(p.name),
            json!(p.systems),
            json!(time::format_short(p.first_at)),
            json!(time::format_short(p.last_at)),
            json!(p.earlier),
        ]);
    }
    let report = Report {
        system: "players".into(),
        main: t,
        extra: vec![],
    };
    super::write_answer(w, &ledger, args, report, &stamp, print)
}

/// `laurel players add NAME [--at DATE]`: append a `ledger.player_registered`
/// dated `at` (today, UTC, by default), so that `NAME` is accepted even if it
/// looks like a typo of a known name. A name that is already a player's
/// (now or before a rename) is refused and nothing is appended: running the
/// command twice registers once.
pub fn players_add(path: &Path, name: &str, at: Option<&str>) -> Result<String> {
    let ledger = Ledger::open(path)?;
    let (players, _) = players_of(&ledger, &QueryArgs::default())?;
    if let Some(since) = players.given_on(name) {
        return Err(Error::Usage(format!(
            "players add: {name:?} is already a player's name (since {}); nothing appended",
            time::format_short(since)
        )));
    }
    let at = day_or_today(at);
    let ev = json!({"type": "ledger.player_registered", "at": at, "player": name});
    let what = format!("the registration of {name:?}");
    append_one(&ledger, "players add", &ev, &what)
}

/// `laurel players rename FROM TO [--at DATE] [--distinct] [--reason TEXT]`:
/// append a `ledger.player_renamed` dated `at` (today, UTC, by default);
/// `distinct` says `TO` is meant though it nearly duplicates another
/// player's name; `reason` says why. The append's checks judge it (`FROM` a
/// player's, `TO` nobody's).
pub fn players_rename(
    path: &Path,
    names: (&str, &str),
    at: Option<&str>,
    (distinct, reason): (bool, Option<&str>),
) -> Result<String> {
    if reason.is_some_and(|r| r.trim().is_empty()) {
        return Err(Error::Usage(
            "players rename: --reason is empty or only whitespace: say why, or leave it out; \
             nothing appended"
                .into(),
        ));
    }
    let ledger = Ledger::open(path)?;
    let ((from, to), at) = (names, day_or_today(at));
    // A `FROM` nobody bears, said with the nearest names (the append would
    // refuse it without them).
    let (players, _) = players_of(&ledger, &QueryArgs::default())?;
    if let Err(Error::Usage(why)) = resolve(&players, from) {
        return Err(Error::Usage(format!(
            "players rename: {why}; nothing appended"
        )));
    }
    too_early(&players, from, &at)?;
    let mut ev = json!({"type": "ledger.player_renamed", "at": at, "from": from, "to": to});
    if distinct {
        ev["distinct"] = json!(true);
    }
    if let Some(reason) = reason {
        ev["reason"] = json!(reason);
    }
    let what = format!("the rename of {from:?} to {to:?}");
    let said = append_one(&ledger, "players rename", &ev, &what)?;
    Ok(format!("renamed {from:?} to {to:?} from {at}\n{said}"))
}

/// Refuse a rename dated before a record naming `from`: from a rename's
/// date on the old name is refused, so the append would refuse it too, but
/// for the first such record only. This names the last, and the day to
/// give instead (the day after it: a record dated at the rename's own
/// instant folds before it, but a day is what `--at` takes). An `at` that
/// does not read as a time is left to the append to refuse.
fn too_early(players: &Players, from: &str, at: &str) -> Result<()> {
    let (Some(rename), Some(last)) = (time::parse_input(at), players.last_named(from)) else {
        return Ok(());
    };
    if rename >= last {
        return Ok(());
    }
    let after = time::format_short(last.div_euclid(time::DAY) * time::DAY + time::DAY);
    Err(Error::Usage(format!(
        "players rename: a record dated {} names {from:?}; from a rename's date on the old name \
         is refused, so the rename is dated after every record naming it (`--at {after}` or \
         later); nothing appended",
        time::format_short(last)
    )))
}

/// `at` as given, or today (UTC) as a date.
fn day_or_today(at: Option<&str>) -> String {
    let today = || time::format_short(time::now() / time::DAY * time::DAY);
    at.map_or_else(today, str::to_string)
}

/// Append the one event `ev` a `laurel players` command (`command`) writes,
/// `what` naming it in a refusal.
fn append_one(
    ledger: &Ledger,
    command: &str,
    ev: &serde_json::Value,
    what: &str,
) -> Result<String> {
    let line = ev.to_string();
    let input = Input {
        name: format!("laurel {command}"),
        reader: Box::new(line.as_bytes()),
        first_line: 1,
    };
    // An exact copy of a voided record adds nothing (a re-import never
    // brings a voided event back): the command would have done nothing.
    let not_a_copy = |r: &crate::ledger::AppendReport| match r.already_voided {
        0 => Ok(()),
        _ => Err(Error::Usage(format!(
            "{command}: {what} dated {} was voided, and an exact copy of a voided record is \
             not appended again; give another date (`--at`); nothing appended",
            ev["at"].as_str().unwrap_or_default()
        ))),
    };
    let report = (ledger.append_if(vec![input], &not_a_copy))
        .map_err(super::of_command(&format!("laurel {command}")))?;
    Ok(append_summary(&report, false))
}

/// Is `name`, no player's, a rated subject's (a grudge team) in the ledger
/// as known at `args`' known-at, whatever its `--as-of`? A known-at cut
/// answers as the ledger held then, so a name first recorded after it is
/// nothing's, as in a copy of the ledger cut there. One fold from the
/// latest checkpoint, without audit trails: a name nobody bears is refused
/// at that cost, not at a fold of the whole log.
pub(super) fn is_rated_known(ledger: &Ledger, name: &str, args: &QueryArgs) -> Result<bool> {
    let now = QueryArgs {
        as_of: None,
        ..args.clone()
    };
    let (f, _) = super::folded_only(ledger, &now, None)?;
    let rated = f.state.rates_non_player(name);
    f.discard();
    Ok(rated)
}

/// The root of player `name` among `players` (the name the projections and
/// their audit trails know the player by), or a usage error suggesting the
/// nearest names.
pub(crate) fn resolve(players: &Players, name: &str) -> Result<String> {
    if let Some(root) = players.root_of(name) {
        return Ok(root);
    }
    let near = players.nearest(name);
    let hint = match near.as_slice() {
        [] => String::new(),
        names => {
            let quoted: Vec<String> = names.iter().map(|n| format!("«{n}»")).collect();
            format!("; did you mean {}?", quoted.join(" or "))
        }
    };
    Err(Error::Usage(format!(
        "{name:?} is not a player in this ledger{hint} (`laurel players` lists them)"
    )))
}
