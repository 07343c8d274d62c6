//! `laurel replay`: every table as if a rules file had always been in force, and
//! with `--diff` each subject's old and new score and rank.
//!
//! Decisions:
//! - **What is refolded.** Every parameter group of a rules file (`valar`,
//!   `cfr`, ...) belongs to one system ([`systems::namespace_of_group`]), and a
//!   system's rules read only its own groups. The systems whose groups the file
//!   pins at least one parameter of are *refolded*: folded from nothing with
//!   the file's parameters pinned (one namespace alone, or every namespace when
//!   the file touches several). Every other system's tables are the same under
//!   the file as without it, so they are taken from the ledger as it stands,
//!   which is what `standings` answers (from the latest checkpoint when one
//!   can serve), and never refolded. A file that pins nothing (`{}`) refolds
//!   nothing.
//! - **Without `--diff`** every table is printed: a refolded system's from the
//!   refold, the others' from the ledger as it stands. A report builds only the
//!   rows it prints (`--limit`, 100 for text unless told; `--table`), as
//!   `standings` does.
//! - **With `--diff`** a table of a system the file does not touch is reported
//!   once (not per tournament) as unchanged: text,
//!   its title and `unchanged: the rules file sets no parameter of NS`;
//!   JSON, its object with no rows and `"unchanged": true`; CSV, the header.
//!   So is a refolded table (of a tournament) in which no row moves: every
//!   subject on both sides with its score and rank (`unchanged: no row moves
//!   under the rules file`), where a list of zeros would bury the tables that
//!   moved (`valar.base` leaves maia's, istari's, nations' and nazgul's as
//!   they were). A refolded system's tables are compared per subject: the main table's
//!   `player`, `score` and `rank` cells as the ledger stands and under the
//!   file;
//!   largest absolute moves first, ties by name; only the rows kept (`--limit`)
//!   are built, the others counted. A table shown per tournament (`cards`,
//!   `sbr`) is compared per tournament, each titled with it; `--system` of
//!   one needs its `--tournament` (without, the table lists tournaments and
//!   scores no one), which is refused before anything is folded (a refold
//!   of a large ledger takes seconds). When nothing is refolded, the state the
//!   answer names is that of a fold of the one table's namespace (whose
//!   `--tournament` is checked), or of the ledger's own records (`ledger.*`).
//! - **Rules a stored record breaks are refused.** A refold (and `standings
//!   --rules`) checks every record it folds under the file's parameters, as an
//!   append checks a stored one (the rules of new input aside): a grudge game
//!   with fewer nations than `ainur.min_nations`, a match of more games than
//!   `sbr.games_per_match` has. The first such record in fold order is named,
//!   with the rule, and nothing is printed (exit 2): an append of a rules
//!   change dated before it is refused for the same record, and "as if the
//!   rules had always been in force" cannot score what they would have
//!   refused. A file that sets no parameter checks nothing.
//! - `LAUREL_CHECKPOINT_TRACE` also has replay say on stderr which systems it
//!   refolded and which it took as they stand.
//!
//! Folds: a file touching one system folds that namespace twice (the refold,
//! and the ledger as it stands, on a second reader, at the same time); a file
//! touching several folds every namespace both ways, the untouched ones too.
//! Memory: one report at a time, written and dropped before the next is built;
//! with `diff`, the two folded states are held together while the ledger's is
//! reduced to its main tables' (player, score, rank). The old scores are
//! checked before anything is written (a standings error for a table and
//! selector the state lists cannot happen).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use num_traits::{CheckedSub, Signed, Zero};
use serde_json::{json, Value};

use super::query::{check_tournament, namespace};
use super::{buffered, folded_only, selectors, state_line, stdout_error, write_answer, QueryArgs};
use crate::error::{Error, Result};
use crate::fold::Folded;
use crate::ledger::Ledger;
use crate::num::{json_number, parse_decimal, Rational};
use crate::output::{self, Format, Print, Stamp};
use crate::systems::table::{Report, Table};
use crate::systems::{self, Selector, NAMESPACES};

/// `laurel replay --rules FILE [--diff] [--system TABLE]`: every table (or one) as
/// if FILE's parameters had always been in force; with `diff`, per subject old and
/// new value and rank, largest moves first. JSON for several tables is one object:
/// `{"as_of", "known_at", "head", "tables": [<standings object>...]}`; CSV and
/// `--table` need one table (`--system`), as CSV is one table an invocation.
/// `--limit` cuts each table (with `diff`: the largest moves). See the module
/// docs for what is refolded.
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
    // is folded. One table needs only its namespace's projection.
    let ns = only.map(|(t, _)| namespace(t)).transpose()?;
    if let (true, Some((table, sel))) = (diff, only) {
        needs_tournament(table, sel)?;
    }
    // One ledger, one head, for the state as it stands and the refold.
    let ledger = Ledger::read(path)?;
    let q = args.query(&ledger)?;
    let split = Split::of(q.rules.as_ref().unwrap_or(&Value::Null), ns);
    split.trace();
    let run = Run {
        path,
        ledger: &ledger,
        args,
        split: &split,
        print,
    };
    match diff {
        true => run.diff(only, w),
        false => run.tables(only, w),
    }
}

/// The namespaces a replay shows, split into those it refolds under the rules
/// file and those it takes as they stand (in [`NAMESPACES`] order).
struct Split {
    refold: Vec<&'static str>,
    kept: Vec<&'static str>,
    /// The parameters the rules file sets, as (group, name).
    set: Vec<(String, String)>,
}

impl Split {
    /// The namespaces shown (`ns`, or every one), split by whether `rules`
    /// pins a parameter of theirs.
    fn of(rules: &Value, ns: Option<&'static str>) -> Split {
        let touched = super::touched(rules);
        let shown = NAMESPACES.iter().filter(|n| ns.is_none_or(|o| o == **n));
        let (refold, kept) = shown.partition(|n| touched.contains(*n));
        let groups = rules.as_object().into_iter().flatten();
        let set = (groups.filter_map(|(g, p)| Some((g, p.as_object()?))))
            .flat_map(|(g, p)| p.keys().map(|k| (g.clone(), k.clone())))
            .collect();
        Split { refold, kept, set }
    }

    /// Why no row of namespace `ns`'s refolded tables moves: and, for each
    /// parameter the rules file sets that no value of `state` reads, why.
    fn nothing_moves(&self, state: &systems::State, ns: &str) -> String {
        let why: Vec<String> = (self.set.iter())
            .filter(|(g, _)| systems::namespace_of_group(g) == Some(ns))
            .filter_map(|(g, p)| Some(format!("{g}.{p}: {}", state.overridden(g, p)?)))
            .collect();
        match why.is_empty() {
            true => NOTHING_MOVES.to_string(),
            false => format!("{NOTHING_MOVES}; {}", why.join("; ")),
        }
    }

    fn refolds(&self, ns: &str) -> bool {
        self.refold.contains(&ns)
    }

    /// `LAUREL_CHECKPOINT_TRACE`: which namespaces are refolded, which kept.
    fn trace(&self) {
        if !crate::sysinfo::switch_on(crate::fold::TRACE_ENV) {
            return;
        }
        let list = |v: &[&str]| match v.is_empty() {
            true => "none".to_string(),
            false => v.join(", "),
        };
        eprintln!(
            "replay: refolded under the rules file: {}; taken as they stand: {}",
            list(&self.refold),
            list(&self.kept)
        );
    }
}

/// The one fold of `set`'s namespaces: `only` for one, every one for several.
fn only_of(set: &[&'static str]) -> Option<&'static str> {
    match set {
        [one] => Some(one),
        _ => None,
    }
}

/// The query without the rules file: the ledger as it stands.
fn live(args: &QueryArgs) -> QueryArgs {
    QueryArgs {
        rules: None,
        ..args.clone()
    }
}

/// One replay: the ledger, the query, what is refolded and how to print.
struct Run<'a> {
    path: &'a Path,
    ledger: &'a Ledger,
    args: &'a QueryArgs,
    split: &'a Split,
    print: &'a Print,
}

impl Run<'_> {
    /// Without `diff`: every table shown (or `only`), each from the refold
    /// or the ledger as it stands, building only the rows printed.
    fn tables(&self, only: Option<(&str, &Selector)>, w: &mut dyn Write) -> Result<()> {
        let new = match self.split.refold.is_empty() {
            true => None,
            false => Some(folded_only(
                self.ledger,
                self.args,
                only_of(&self.split.refold),
            )?),
        };
        let old = match self.split.kept.is_empty() {
            true => None,
            false => Some(folded_only(
                self.ledger,
                &live(self.args),
                only_of(&self.split.kept),
            )?),
        };
        let Some(stamp) = new.as_ref().or(old.as_ref()).map(|(_, s)| s.clone()) else {
            return Err(Error::Usage("replay: no namespace to show".into()));
        };
        // Every namespace shown is in one of the two folds.
        let side = |table: &str| -> Result<&Folded> {
            let ns = systems::namespace_of(table).unwrap_or_default();
            let pick = if self.split.refolds(ns) { &new } else { &old };
            let not = || Error::Usage(format!("replay: {table} was not folded"));
            pick.as_ref().map(|(f, _)| f).ok_or_else(not)
        };
        let one = |table: &str, sel: &Selector| -> Result<Report> {
            let f = side(table)?;
            let sel = Selector {
                table: self.print.table.clone(),
                rows: self.print.limit,
                ..sel.clone()
            };
            f.state.standings(table, &sel, &f.cx).map_err(Error::Usage)
        };
        if let Some((table, sel)) = only {
            check_tournament(&side(table)?.state, table, sel, self.args)?;
            let r = one(table, sel)?;
            return write_answer(w, self.ledger, self.args, r, &stamp, self.print);
        }
        let all = (systems::tables().into_iter())
            .map(|(table, _)| Ok((table, selectors(&side(table)?.state, table))))
            .collect::<Result<Vec<(&str, Vec<Selector>)>>>()?;
        let line = state_line(self.ledger, self.args, &stamp, self.print.format)?;
        buffered(w, |w| {
            w.write_all(line.as_bytes()).map_err(stdout_error)?;
            let mut many = output::Many::new(w, &stamp, self.print.format);
            for (table, sels) in &all {
                for sel in sels {
                    let r = self.print.shape(one(table, sel)?).map_err(Error::Usage)?;
                    many.write(&r).map_err(stdout_error)?;
                }
            }
            many.finish().map_err(stdout_error)
        })
    }

    /// With `diff`: the refolded namespaces' tables compared with the ledger
    /// as it stands, the others reported unchanged.
    fn diff(&self, only: Option<(&str, &Selector)>, w: &mut dyn Write) -> Result<()> {
        let refold = only_of(&self.split.refold);
        // Nothing refolded: the state named is the ledger's as it stands, a
        // fold of `only`'s namespace (its `--tournament` must be one of its
        // tournaments) or else of the ledger's own records alone.
        if self.split.refold.is_empty() {
            let ns = only.map(|(t, _)| systems::namespace_of(t).unwrap_or("ledger"));
            let (f, stamp) = folded_only(self.ledger, &live(self.args), ns.or(Some("ledger")))?;
            if let Some((table, sel)) = only {
                check_tournament(&f.state, table, sel, self.args)?;
            }
            f.discard();
            return self.write_diffs(only, &stamp, None, w);
        }
        let wanted = self.wanted(only);
        // The old scores are folded beside the refold, from a second reader
        // of the same head (the refold keeps about one core busy); if the
        // head moved in between, after it, from this reader.
        let head = self.ledger.head()?;
        let (path, live) = (self.path, live(self.args));
        let (beside, refolded) = std::thread::scope(|scope| {
            let (live, wanted) = (live.clone(), wanted.clone());
            let beside = scope.spawn(move || -> Result<Option<OldScores>> {
                let other = Ledger::read(path)?;
                match other.head()? == head {
                    true => OldScores::fold(&other, live, &wanted, refold).map(Some),
                    false => Ok(None),
                }
            });
            let refolded = folded_only(self.ledger, self.args, refold);
            let beside = beside.join().map_err(|_| {
                Error::Internal("replay: the thread folding the old scores failed".into())
            });
            (beside, refolded)
        });
        let mut old = match beside?? {
            Some(old) => old,
            None => OldScores::fold(self.ledger, live, &wanted, refold)?,
        };
        let (new, stamp) = refolded?;
        if let Some((table, sel)) = only {
            check_tournament(&new.state, table, sel, self.args)?;
        }
        self.write_diffs(only, &stamp, Some((&new, &mut old)), w)
    }

    /// The tables and selectors whose old scores a diff of `only` (or of
    /// every table) compares with: `only`, or every refolded table under
    /// every selector the old state lists (`None`).
    fn wanted(&self, only: Option<(&str, &Selector)>) -> Wanted {
        let all = systems::tables().into_iter();
        match only {
            Some((table, sel)) => (all.filter(|(t, _)| *t == table))
                .map(|(t, _)| (t, Some(sel.clone())))
                .collect(),
            None => (all.filter(|(_, ns)| self.split.refolds(ns)))
                .map(|(t, _)| (t, None))
                .collect(),
        }
    }

    /// Write the diff of `only`, or of every table: the refolded ones from
    /// `folds` (the refold and the old scores), the others as unchanged.
    fn write_diffs(
        &self,
        only: Option<(&str, &Selector)>,
        stamp: &Stamp,
        mut folds: Option<(&Folded, &mut OldScores)>,
        w: &mut dyn Write,
    ) -> Result<()> {
        let limit = self.print.limit;
        let refolded = |table: &str| {
            let ns = systems::namespace_of(table).unwrap_or_default();
            self.split.refolds(ns)
        };
        // `only`, or every table in display order: each refolded one under
        // each of its selectors, each other one once (`None`).
        let all: Vec<(&str, Option<Vec<Selector>>)> = match only {
            Some((table, sel)) => vec![(table, refolded(table).then(|| vec![sel.clone()]))],
            None => (systems::tables().into_iter())
                .map(|(table, _)| {
                    let sels = match (refolded(table), &folds) {
                        (true, Some((new, _))) => Some(selectors(&new.state, table)),
                        _ => None,
                    };
                    (table, sels)
                })
                .collect(),
        };
        if let Some((_, old)) = folds.as_mut() {
            old.check(self.ledger, &all)?;
        }
        // Why a refolded table whose rows all stand still is unchanged.
        let reasons: BTreeMap<&str, String> = match &folds {
            Some((new, _)) => (self.split.refold.iter())
                .map(|ns| (*ns, self.split.nothing_moves(&new.state, ns)))
                .collect(),
            None => BTreeMap::new(),
        };
        let still = |table: &str| -> &str {
            let ns = systems::namespace_of(table).unwrap_or_default();
            reasons.get(ns).map_or(NOTHING_MOVES, String::as_str)
        };
        let mut one = |table: &str, sel: &Selector| -> Result<(Report, bool)> {
            let Some((new, old)) = folds.as_mut() else {
                return Err(Error::Usage(format!("replay: {table} was not folded")));
            };
            let new = main_scores(new, table, sel).map_err(Error::Usage)?;
            let of = (table, sel.tournament.as_deref());
            Ok(diff_rows(of, &old.take(table, sel)?, &new, limit))
        };
        if let Some((table, sel)) = only {
            let ns = systems::namespace_of(table).unwrap_or_default();
            if !refolded(table) {
                return self.write_unchanged(table, None, &unchanged_reason(ns), stamp, w);
            }
            let (r, moved) = one(table, sel)?;
            if !moved {
                let of = sel.tournament.as_deref();
                return self.write_unchanged(table, of, still(table), stamp, w);
            }
            return write_answer(w, self.ledger, self.args, r, stamp, self.print);
        }
        let line = state_line(self.ledger, self.args, stamp, self.print.format)?;
        buffered(w, |w| {
            w.write_all(line.as_bytes()).map_err(stdout_error)?;
            let mut many = output::Many::new(w, stamp, self.print.format);
            for (table, sels) in &all {
                let Some(sels) = sels else {
                    let ns = systems::namespace_of(table).unwrap_or_default();
                    many.unchanged(&diff_table(table, None), &unchanged_reason(ns))
                        .map_err(stdout_error)?;
                    continue;
                };
                // A table shown per tournament, of none: nothing to compare.
                if sels.is_empty() {
                    many.unchanged(&diff_table(table, None), still(table))
                        .map_err(stdout_error)?;
                }
                for sel in sels {
                    let (r, moved) = one(table, sel)?;
                    if !moved {
                        let t = diff_table(table, sel.tournament.as_deref());
                        many.unchanged(&t, still(table)).map_err(stdout_error)?;
                        continue;
                    }
                    let r = self.print.shape(r).map_err(Error::Usage)?;
                    many.write(&r).map_err(stdout_error)?;
                }
            }
            many.finish().map_err(stdout_error)
        })
    }

    /// `--system TABLE --diff` of a table (of `tournament`) unchanged, for
    /// `reason`.
    fn write_unchanged(
        &self,
        table: &str,
        tournament: Option<&str>,
        reason: &str,
        stamp: &Stamp,
        w: &mut dyn Write,
    ) -> Result<()> {
        let empty = Report {
            system: table.to_string(),
            main: diff_table(table, tournament),
            extra: vec![],
        };
        // `--table` is checked as for a diff.
        let t = self.print.shape(empty).map_err(Error::Usage)?.main;
        let line = state_line(self.ledger, self.args, stamp, self.print.format)?;
        let format = self.print.format;
        buffered(w, |w| {
            w.write_all(line.as_bytes()).map_err(stdout_error)?;
            output::write_unchanged(w, &t, reason, stamp, (format, 0)).map_err(stdout_error)?;
            match format {
                Format::Json => w.write_all(b"\n").map_err(stdout_error),
                _ => Ok(()),
            }
        })
    }
}

/// A diff of a table shown per tournament (`cards`, `sbr`, whose table
/// without `--tournament` lists tournaments and scores no one) needs the
/// tournament to compare. Whether a table is shown so is its system's,
/// whatever the ledger holds (an empty state says it), so this is refused
/// before anything is folded; the tournaments' names would need a fold, so
/// the message says where to find them.
fn needs_tournament(table: &str, sel: &Selector) -> Result<()> {
    let per_tournament = systems::State::default().shown_per(table).is_some();
    match (per_tournament, &sel.tournament) {
        (true, None) => Err(Error::Usage(format!(
            "replay --diff --system {table} compares one tournament: add --tournament T \
             (`laurel standings {table}` lists them), or leave out --system to compare them all"
        ))),
        _ => Ok(()),
    }
}

/// Why a refolded table is reported unchanged: every row has the score and
/// rank it had.
const NOTHING_MOVES: &str = "no row moves under the rules file (every score and rank as before)";

/// Why a table of namespace `ns` is unchanged.
fn unchanged_reason(ns: &str) -> String {
    format!("the rules file sets no parameter of {ns}")
}

/// `table`'s main table under `sel` in `f` reduced to [`score_rows`]: every
/// row of it, and no row of the report's other tables.
fn main_scores(f: &Folded, table: &str, sel: &Selector) -> std::result::Result<Vec<Score>, String> {
    let main_only = Selector {
        table: Some(table.to_string()),
        rows: None,
        ..sel.clone()
    };
    let r = f.state.standings(table, &main_only, &f.cx)?;
    // A main table named otherwise than its table was left empty: build it whole.
    let r = match r.main.name == table {
        true => r,
        false => f
            .state
            .standings(table, &Selector::of(sel.tournament.clone()), &f.cx)?,
    };
    Ok(score_rows(&r.main))
}

/// The tables whose old scores a diff compares with, each under one
/// selector or (`None`) under every selector the old state lists.
type Wanted = Vec<(&'static str, Option<Selector>)>;

/// What `replay --diff` compares with: per table and selector, the main
/// table's (player, score, rank) rows as the ledger stands (or the error its
/// standings gave), so that state need not be held while the refold runs.
struct OldScores {
    /// The query without the rules file.
    live: QueryArgs,
    /// The namespace folded (`None`: every one).
    ns: Option<&'static str>,
    by: BTreeMap<(String, Option<String>), std::result::Result<Vec<Score>, String>>,
}

impl OldScores {
    /// Fold `ns` (every namespace for `None`) of `ledger` as it stands (from
    /// a checkpoint when one serves) and keep the scores of the `wanted` tables.
    fn fold(
        ledger: &Ledger,
        live: QueryArgs,
        wanted: &Wanted,
        ns: Option<&'static str>,
    ) -> Result<Self> {
        let (old, _) = folded_only(ledger, &live, ns)?;
        let mut by = BTreeMap::new();
        for (table, sel) in wanted {
            let sels = match sel {
                Some(sel) => vec![sel.clone()],
                None => selectors(&old.state, table),
            };
            for sel in sels {
                let key = (table.to_string(), sel.tournament.clone());
                by.insert(key, main_scores(&old, table, &sel));
            }
        }
        old.discard();
        Ok(OldScores { live, ns, by })
    }

    /// Make sure every refolded table (those with selectors in `all`) under
    /// each of its selectors has its old scores, or fail as the first (in
    /// `all`'s order) whose old standings fail. The selectors the old state
    /// did not list (tournaments only the new rules let in) are scored from
    /// one more fold, not one fold each.
    fn check(&mut self, ledger: &Ledger, all: &[(&str, Option<Vec<Selector>>)]) -> Result<()> {
        let key = |table: &str, sel: &Selector| (table.to_string(), sel.tournament.clone());
        let each =
            || (all.iter()).flat_map(|(t, sels)| sels.iter().flatten().map(move |s| (*t, s)));
        let missing: Vec<(&str, &Selector)> = each()
            .filter(|&(t, s)| !self.by.contains_key(&key(t, s)))
            .collect();
        if !missing.is_empty() {
            let (old, _) = folded_only(ledger, &self.live, self.ns)?;
            for (table, sel) in missing {
                self.by
                    .insert(key(table, sel), main_scores(&old, table, sel));
            }
            old.discard();
        }
        let failed = each().find_map(|(t, s)| self.by[&key(t, s)].as_ref().err().cloned());
        failed.map_or(Ok(()), |e| Err(Error::Usage(e)))
    }

    /// The old scores of `table` under `sel` (after [`OldScores::check`]),
    /// taken out: each is compared once.
    fn take(&mut self, table: &str, sel: &Selector) -> Result<Vec<Score>> {
        match self.by.remove(&(table.to_string(), sel.tournament.clone())) {
            Some(Ok(rows)) => Ok(rows),
            Some(Err(e)) => Err(Error::Usage(e)),
            None => Err(Error::Usage(format!("replay: {table} was not folded"))),
        }
    }
}

/// A main table's `player` (as text), `score` and `rank` cells, one row each:
/// what the table's JSON rows have under those keys (`null` if a row has none).
fn score_rows(main: &Table) -> Vec<Score> {
    let mut cells = Vec::new();
    (main.rows.iter_cells())
        .map(|row| {
            cells.clear();
            cells.extend(row);
            // The JSON rows zip the columns with the cells: the last of a
            // duplicate key among the row's first columns wins.
            let cols = &main.columns[..cells.len().min(main.columns.len())];
            let at = |key: &str| {
                let i = cols.iter().rposition(|c| c == key);
                i.map_or(Value::Null, |i| cells[i].to_value())
            };
            (cell(&at("player")), at("score"), at("rank"))
        })
        .collect()
}

/// A subject's name, score and rank.
type Score = (String, Value, Value);

/// The (empty) table of `table`'s diff, of one `tournament` or of none.
fn diff_table(table: &str, tournament: Option<&str>) -> Table {
    let of = match tournament {
        Some(t) => format!("{table} — tournament {t}"),
        None => table.to_string(),
    };
    Table::new(
        table,
        &format!("{of}: replay diff (old → new)"),
        &["player", "old_score", "score", "delta", "old_rank", "rank"],
    )
}

/// The first row of each subject (a subject listed twice keeps its first),
/// by name.
fn by_name(rows: &[Score]) -> Vec<&Score> {
    let mut v: Vec<&Score> = rows.iter().collect();
    // Stable: of a subject's rows, the first stays first, and is kept.
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v.dedup_by(|later, kept| later.0 == kept.0);
    v
}

/// Each subject of `old` or `new` (by name) with its rows on either side.
fn pairs<'s>(old: &[&'s Score], new: &[&'s Score]) -> Vec<Pair<'s>> {
    let (mut a, mut b) = (old.iter().peekable(), new.iter().peekable());
    let mut out = Vec::with_capacity(old.len().max(new.len()));
    loop {
        let next = match (a.peek(), b.peek()) {
            (None, None) => return out,
            (Some(x), Some(y)) => x.0.cmp(&y.0),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
        };
        out.push(match next {
            std::cmp::Ordering::Less => (a.next().copied(), None),
            std::cmp::Ordering::Greater => (None, b.next().copied()),
            std::cmp::Ordering::Equal => (a.next().copied(), b.next().copied()),
        });
    }
}

/// A subject's old and new rows, either maybe missing.
type Pair<'s> = (Option<&'s Score>, Option<&'s Score>);

/// The subject of a pair.
fn name<'s>((o, n): Pair<'s>) -> &'s str {
    o.or(n).map_or("", |r| r.0.as_str())
}

/// Old and new score and rank per subject ([`score_rows`] of each), largest
/// absolute moves first (ties by name); only the first `limit` rows are
/// built, the others counted as left out.
fn diff_rows(
    (table, tournament): (&str, Option<&str>),
    old: &[Score],
    new: &[Score],
    limit: Option<usize>,
) -> (Report, bool) {
    let score = |r: Option<&Score>| r.map_or(Value::Null, |r| r.1.clone());
    let rank = |r: Option<&Score>| r.map_or(Value::Null, |r| r.2.clone());
    let mut lines: Vec<(Option<Move>, Pair)> = pairs(&by_name(old), &by_name(new))
        .into_iter()
        .map(|(o, n)| (change(o, n), (o, n)))
        .collect();
    let size = |m: &Option<Move>| m.map_or(Rational::zero(), |(d, _)| d.abs());
    lines.sort_by(|x, y| (size(&y.0).cmp(&size(&x.0))).then_with(|| name(x.1).cmp(name(y.1))));
    // A row moves when its score or rank does, or it is on one side only.
    let still = |(m, (o, n)): &(Option<Move>, Pair)| {
        m.is_some_and(|(d, _)| d.is_zero()) && o.is_some() && n.is_some() && rank(*o) == rank(*n)
    };
    let moved = !lines.iter().all(still);
    let mut t = diff_table(table, tournament);
    t.limit = limit;
    for (moved, (o, n)) in lines {
        t.push_with(|| {
            vec![
                json!(name((o, n))),
                score(o),
                score(n),
                moved.map_or(Value::Null, |(d, places)| json_number(d, places)),
                rank(o),
                rank(n),
            ]
        });
    }
    let report = Report {
        system: table.to_string(),
        main: t,
        extra: vec![],
    };
    (report, moved)
}

/// The new score less the old, exactly, at the larger of their numbers of
/// decimals (a side missing, or without a score, counts as 0): `0.1667` to
/// `0.1429` moves by `-0.0238`, and `1.000` to `2.005` by `1.005`. `None`
/// when a score is not a plain decimal (the tables write none such: the
/// change is then left blank rather than guessed).
fn change(o: Option<&Score>, n: Option<&Score>) -> Option<Move> {
    let exact = |r: Option<&Score>| -> Option<Move> {
        let text = match r.map(|r| &r.1) {
            None | Some(Value::Null) => return Some((Rational::zero(), 0)),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return None,
        };
        let places = text.split_once('.').map_or(0, |(_, f)| f.len());
        Some((parse_decimal(&text)?, u32::try_from(places).ok()?))
    };
    let ((old, p), (new, q)) = (exact(o)?, exact(n)?);
    Some((new.checked_sub(&old)?, p.max(q)))
}

/// A change of score: exact, and the decimals it is shown at.
type Move = (Rational, u32);

fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{change, diff_rows};

    fn moved(old: Value, new: Value) -> Value {
        let (o, n) = (
            ("p".to_string(), old, json!(1)),
            ("p".to_string(), new, json!(1)),
        );
        shown(change(Some(&o), Some(&n)))
    }

    fn shown(m: Option<super::Move>) -> Value {
        let (d, places) = m.unwrap();
        crate::num::json_number(d, places)
    }

    /// A row moves when its score or its rank does, or it is on one side
    /// only; a table of rows that all stand still is said unchanged.
    #[test]
    fn a_row_moves_by_score_rank_or_being_on_one_side_only() {
        let row = |p: &str, score: i64, rank: i64| (p.to_string(), json!(score), json!(rank));
        let old = [row("a", 10, 1), row("b", 5, 2)];
        let moved = |new: &[(String, Value, Value)]| diff_rows(("t", None), &old, new, None).1;
        assert!(!moved(&old));
        assert!(moved(&[row("a", 10, 1), row("b", 5, 1)]), "a rank");
        assert!(moved(&[row("a", 10, 1), row("b", 6, 2)]), "a score");
        assert!(moved(&[row("a", 10, 1)]), "b on the old side only");
        assert!(
            moved(&[row("a", 10, 1), row("b", 5, 2), row("c", 0, 3)]),
            "c new"
        );
        assert!(!diff_rows(("t", None), &[], &[], None).1, "no rows");
    }

    /// A change is the exact difference at the scores' own decimals: not
    /// rounded to two places, nor from floats.
    #[test]
    fn a_change_is_exact_at_the_scores_decimals() {
        assert_eq!(moved(json!(0.1667), json!(0.1429)), json!(-0.0238));
        assert_eq!(moved(json!(0.2), json!(0.197)), json!(-0.003));
        assert_eq!(moved(json!(1.0), json!(2.005)), json!(1.005));
        assert_eq!(moved(json!(7012), json!(7013)), json!(1));
        assert_eq!(
            moved(json!(i64::MIN), json!(i64::MAX)),
            json!(18446744073709551615.0)
        );
        let new = ("p".to_string(), json!(0.25), json!(1));
        assert_eq!(shown(change(None, Some(&new))), json!(0.25));
        let unscored = ("p".to_string(), Value::Null, json!(1));
        assert_eq!(shown(change(Some(&unscored), Some(&new))), json!(0.25));
        // An exponent is no plain decimal: the change is left blank.
        let big = ("p".to_string(), json!(1e300), json!(1));
        assert_eq!(change(Some(&big), Some(&new)), None);
    }
}
