//! `laurel replay`: every table as if a rules file had always been in force, and
//! with `--diff` each subject's old and new score and rank.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::query::{check_tournament, namespace};
use super::{buffered, folded_only, selectors, state_line, stdout_error, write_answer, QueryArgs};
use crate::error::{Error, Result};
use crate::ledger::Ledger;
use crate::output::{self, Format, Print, Report, Rows, Table};
use crate::systems::{self, Selector};

/// `laurel replay --rules FILE [--diff] [--system TABLE]`: every table (or one) as
/// if FILE's parameters had always been in force; with `diff`, per subject old and
/// new value and rank, largest moves first. JSON for several tables is one object:
/// `{"as_of", "known_at", "head", "tables": [<standings object>...]}`; CSV and
/// `--table` need one table (`--system`), as CSV is one table an invocation.
/// `--limit` cuts each table (with `diff`: the largest moves).
///
/// Memory: one folded state at a time and one table's report. Each report is
/// written and dropped before the next is built; with `diff`, the old fold
/// (the rules in force) is reduced to its main tables' (player, score, rank)
/// and dropped before the new one is folded. A failing table is refused before
/// anything is written, as when every report was built first (a standings
/// error for a table and selector the new state lists cannot happen).
pub fn replay(
    path: &Path,
    args: &QueryArgs,
    diff: bool,
    only: Option<(&str, &Selector)>,
    print: &Print,
    w: &mut dyn Write,
) -> Result<()> {
    if args.rules.is_none() {
        return Err(Error::Usage("replay needs --rules FILE".into()));
    }
    if only.is_none() && (print.format == Format::Csv || print.table.is_some()) {
        return Err(Error::Usage(
            "replay prints one CSV table or --table only for one standings table: add --system TABLE"
                .into(),
        ));
    }
    // An unknown table, a bad rules file or clock is refused before anything
    // is folded. One table needs only its namespace's projection, old and new.
    let ns = only.map(|(t, _)| namespace(t)).transpose()?;
    args.query()?;
    // One ledger, one head, for the old scores and the new.
    let ledger = Ledger::read(path)?;
    let mut old = match diff {
        true => Some(OldScores::fold(&ledger, args, only, ns)?),
        false => None,
    };
    let (new, stamp) = folded_only(&ledger, args, ns)?;
    if let Some((table, sel)) = only {
        check_tournament(&new.state, table, sel)?;
    }
    // With `diff`, each table's old scores are taken (freed once compared).
    let one = |old: &mut Option<OldScores>, table: &str, sel: &Selector| -> Result<Report> {
        let b = new
            .state
            .standings(table, sel, &new.cx)
            .map_err(Error::Usage)?;
        match old {
            None => Ok(b),
            Some(old) => Ok(diff_rows(
                table,
                &old.take(table, sel)?,
                &score_rows(&b.main),
            )),
        }
    };
    if let Some((table, sel)) = only {
        let r = one(&mut old, table, sel)?;
        return write_answer(w, &ledger, args, r, &stamp, print);
    }
    let all: Vec<(&str, Vec<Selector>)> = systems::tables()
        .into_iter()
        .map(|(table, _)| (table, selectors(&new.state, table)))
        .collect();
    if let Some(old) = &mut old {
        old.check(&all)?;
    }
    let line = state_line(&ledger, args, &stamp, print.format)?;
    buffered(w, |w| {
        w.write_all(line.as_bytes()).map_err(stdout_error)?;
        let mut many = output::Many::new(w, &stamp, print.format);
        for (table, sels) in &all {
            for sel in sels {
                let r = print
                    .shape(one(&mut old, table, sel)?)
                    .map_err(Error::Usage)?;
                many.write(&r).map_err(stdout_error)?;
            }
        }
        many.finish().map_err(stdout_error)
    })
}

/// What `replay --diff` compares with: per table and selector, the main
/// table's (player, score, rank) rows under the rules in force (or the error
/// its standings gave), so the old state need not be held while the new is
/// folded.
struct OldScores<'p> {
    /// The ledger, folded again for a selector the old state did not list.
    ledger: &'p Ledger,
    /// The query without the rules file.
    live: QueryArgs,
    by: BTreeMap<(String, Option<String>), std::result::Result<Rows, String>>,
}

impl<'p> OldScores<'p> {
    /// Fold with the rules in force (from a checkpoint when one serves) and keep
    /// `only`'s scores, or every table's under every selector the state lists.
    fn fold(
        ledger: &'p Ledger,
        args: &QueryArgs,
        only: Option<(&str, &Selector)>,
        ns: Option<&'static str>,
    ) -> Result<Self> {
        let live = QueryArgs {
            rules: None,
            ..args.clone()
        };
        let (old, _) = folded_only(ledger, &live, ns)?;
        let wanted: Vec<(&str, Selector)> = match only {
            Some((table, sel)) => vec![(table, sel.clone())],
            None => systems::tables()
                .into_iter()
                .flat_map(|(t, _)| selectors(&old.state, t).into_iter().map(move |s| (t, s)))
                .collect(),
        };
        let mut by = BTreeMap::new();
        for (table, sel) in wanted {
            let scores = old.state.standings(table, &sel, &old.cx);
            let key = (table.to_string(), sel.tournament);
            by.insert(key, scores.map(|r| score_rows(&r.main)));
        }
        Ok(OldScores { ledger, live, by })
    }

    /// Make sure every table under each of its selectors has its old scores,
    /// or fail as the first (in `all`'s order) whose old standings fail. The
    /// selectors the old state did not list (tournaments only the new rules
    /// let in) are scored from one more fold, not one fold each.
    fn check(&mut self, all: &[(&str, Vec<Selector>)]) -> Result<()> {
        let key = |table: &str, sel: &Selector| (table.to_string(), sel.tournament.clone());
        let missing: Vec<(&str, &Selector)> = all
            .iter()
            .flat_map(|(t, sels)| sels.iter().map(move |s| (*t, s)))
            .filter(|&(t, s)| !self.by.contains_key(&key(t, s)))
            .collect();
        if let Some(&(first, _)) = missing.first() {
            let ns = systems::namespace_of(first);
            let ns = ns.filter(|_| missing.iter().all(|(t, _)| systems::namespace_of(t) == ns));
            let (old, _) = folded_only(self.ledger, &self.live, ns)?;
            for (table, sel) in missing {
                let scores = old.state.standings(table, sel, &old.cx);
                self.by
                    .insert(key(table, sel), scores.map(|r| score_rows(&r.main)));
            }
        }
        let failed = all
            .iter()
            .flat_map(|(t, sels)| sels.iter().map(move |s| key(t, s)))
            .find_map(|k| self.by[&k].as_ref().err().cloned());
        failed.map_or(Ok(()), |e| Err(Error::Usage(e)))
    }

    /// The old scores of `table` under `sel` (after [`OldScores::check`]),
    /// taken out: each is compared once.
    fn take(&mut self, table: &str, sel: &Selector) -> Result<Rows> {
        match self.by.remove(&(table.to_string(), sel.tournament.clone())) {
            Some(Ok(rows)) => Ok(rows),
            Some(Err(e)) => Err(Error::Usage(e)),
            None => Err(Error::Usage(format!("replay: {table} was not folded"))),
        }
    }
}

/// A main table's `player` (as text), `score` and `rank` cells, one row each:
/// what the table's JSON rows have under those keys (`null` if a row has none).
fn score_rows(main: &Table) -> Rows {
    main.rows
        .iter()
        .map(|row| {
            // The JSON rows zip the columns with the cells: the last of a
            // duplicate key among the row's first columns wins.
            let cols = &main.columns[..row.len().min(main.columns.len())];
            let at = |key: &str| {
                let i = cols.iter().rposition(|c| c == key);
                i.map_or(Value::Null, |i| row[i].clone())
            };
            vec![json!(cell(&at("player"))), at("score"), at("rank")]
        })
        .collect()
}

/// A subject's name, score and rank.
type Score = (String, Value, Value);

/// Old and new score and rank per subject ([`score_rows`] of each), largest
/// absolute moves first (ties by name).
fn diff_rows(table: &str, old: &Rows, new: &Rows) -> Report {
    let decode = |rows: &Rows| -> Vec<Score> {
        let score = |r: Vec<Value>| {
            let mut r = r.into_iter();
            let mut next = || r.next().unwrap_or(Value::Null);
            (cell(&next()), next(), next())
        };
        rows.iter().map(score).collect()
    };
    let (a, b) = (decode(old), decode(new));
    // The first row of each subject (a subject listed twice keeps its first).
    fn first(v: &[Score]) -> BTreeMap<&str, &Score> {
        let mut m: BTreeMap<&str, &Score> = BTreeMap::new();
        v.iter().for_each(|r| {
            m.entry(r.0.as_str()).or_insert(r);
        });
        m
    }
    let (fa, fb) = (first(&a), first(&b));
    let subjects: BTreeSet<&str> = fa.keys().chain(fb.keys()).copied().collect();
    let num = |r: Option<&&Score>| r.and_then(|r| r.1.as_f64()).unwrap_or(0.0);
    let score = |r: Option<&&Score>| r.map_or(Value::Null, |r| r.1.clone());
    let rank = |r: Option<&&Score>| r.map_or(Value::Null, |r| r.2.clone());
    let mut lines: Vec<(f64, &str, Vec<Value>)> = subjects
        .into_iter()
        .map(|s| {
            let (o, n) = (fa.get(s), fb.get(s));
            let delta = num(n) - num(o);
            let row = vec![
                json!(s),
                score(o),
                score(n),
                round2(delta),
                rank(o),
                rank(n),
            ];
            (delta, s, row)
        })
        .collect();
    lines.sort_by(|x, y| y.0.abs().total_cmp(&x.0.abs()).then_with(|| x.1.cmp(y.1)));
    let mut t = Table::new(
        table,
        &format!("{table}: replay diff (old → new)"),
        &["player", "old_score", "score", "delta", "old_rank", "rank"],
    );
    t.rows = lines.into_iter().map(|(_, _, r)| r).collect();
    Report {
        system: table.to_string(),
        main: t,
        extra: vec![],
    }
}

fn round2(x: f64) -> Value {
    serde_json::Number::from_f64((x * 100.0).round() / 100.0).map_or(Value::Null, Value::Number)
}

fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
