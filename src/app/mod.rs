//! The commands of the `laurel` binary, as library functions over plain arguments.
//!
//! Each returns the text to print (or writes to the given writer) and an [`Error`]
//! whose [`Error::exit_code`] the binary exits with. Nothing here parses the
//! command line: `main.rs` does that with clap and calls these.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::events::{ledger as ledger_events, Event};
use crate::fold::{self, KnownAt, Query, Source};
use crate::ledger::{canonical, Input, Ledger};
use crate::output::{self, Format, Report, Rows, Stamp, Table};
use crate::site::TableView;
use crate::spill::{self, Spill};
use crate::systems::{self, Change, Cx, Selector, State};
use crate::time;

/// The two clocks and a what-if rules file, shared by every query.
#[derive(Debug, Clone, Default)]
pub struct QueryArgs {
    /// `--as-of DATE|TIME`: a plain date means the end of that day (UTC).
    pub as_of: Option<String>,
    /// `--known-at SEQ|TIME`.
    pub known_at: Option<String>,
    /// `--rules FILE` (standings, replay): pinned parameters.
    pub rules: Option<PathBuf>,
}

impl QueryArgs {
    fn query(&self) -> Result<Query> {
        let as_of = match &self.as_of {
            None => None,
            Some(s) => Some(time::parse_bound(s).ok_or_else(|| {
                Error::Usage(format!(
                    "--as-of {s:?}: expected YYYY-MM-DD or an RFC 3339 timestamp"
                ))
            })?),
        };
        let known_at = match &self.known_at {
            None => None,
            Some(s) => Some(match s.parse::<u64>() {
                Ok(n) => KnownAt::Seq(n),
                Err(_) => KnownAt::Time(time::parse_bound(s).ok_or_else(|| {
                    Error::Usage(format!("--known-at {s:?}: expected a seq or a date/time"))
                })?),
            }),
        };
        let rules = match &self.rules {
            None => None,
            Some(p) => Some(read_rules(p)?),
        };
        Ok(Query {
            as_of,
            known_at,
            rules,
            ..Query::default()
        })
    }
}

fn read_rules(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Usage(format!("{}: invalid JSON: {e}", path.display())))?;
    crate::params::check_rules(&v).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    Ok(v)
}

pub fn init(path: &Path) -> Result<String> {
    Ledger::init(path)?;
    Ok(format!(
        "initialised an empty ledger at {}\n",
        path.display()
    ))
}

fn open_input(name: &str) -> Result<Input<'static>> {
    let reader: Box<dyn std::io::BufRead + Send> = if name == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let f = std::fs::File::open(name).map_err(|e| Error::io(name, e))?;
        let f = crate::input::DropBehind::new(f);
        Box::new(BufReader::with_capacity(256 * 1024, f))
    };
    Ok(Input {
        name: name.to_string(),
        reader,
    })
}

fn append_summary(r: &crate::ledger::AppendReport) -> String {
    let mut s = format!("appended {} event(s)", r.appended);
    if r.already_recorded > 0 {
        s.push_str(&format!(
            "; {} already recorded (nothing added for them)",
            r.already_recorded
        ));
    }
    format!("{s}\nhead {}\n", r.head)
}

/// `laurel append FILE|-`.
pub fn append(path: &Path, file: &str) -> Result<String> {
    let ledger = Ledger::open(path)?;
    let report = ledger.append(vec![open_input(file)?])?;
    Ok(append_summary(&report))
}

/// The `*.json` / `*.jsonl` files directly under `dir`, in name order.
pub fn event_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let io = |e| Error::io(dir.display().to_string(), e);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("json" | "jsonl")
                )
        })
        .collect();
    files.sort();
    Ok(files)
}

/// `laurel import DIR`: every file as one all-or-nothing append.
pub fn import(path: &Path, dir: &Path) -> Result<String> {
    let ledger = Ledger::open(path)?;
    let inputs = event_files(dir)?
        .iter()
        .map(|p| open_input(&p.display().to_string()))
        .collect::<Result<Vec<_>>>()?;
    let n = inputs.len();
    let report = ledger.append(inputs)?;
    Ok(format!("{n} file(s): {}", append_summary(&report)))
}

/// `laurel verify [--expect SEQ:HASH]`.
pub fn verify(path: &Path, expect: Option<&str>) -> Result<String> {
    let expect = match expect {
        None => None,
        Some(s) => Some(parse_expect(s)?),
    };
    let ledger = Ledger::open(path)?;
    let report = ledger.verify(expect)?;
    if let Some((seq, _)) = report.problems.first() {
        let all: Vec<String> = report
            .problems
            .iter()
            .map(|(s, m)| format!("seq {s}: {m}"))
            .collect();
        return Err(Error::Tampered {
            seq: *seq,
            msg: all.join("; "),
        });
    }
    let mut out = format!(
        "ok: {} record(s), chain verified\nhead {}\n",
        report.records, report.head
    );
    if let Some((s, h)) = expect {
        out.push_str(&format!(
            "published head {s}:{} is in the chain\n",
            canonical::hex(&h)
        ));
    }
    Ok(out)
}

fn parse_expect(s: &str) -> Result<(u64, [u8; 32])> {
    let bad = || Error::Usage(format!("--expect {s:?}: expected SEQ:HASH (64 hex digits)"));
    let (seq, hash) = s.split_once(':').ok_or_else(bad)?;
    Ok((
        seq.parse().map_err(|_| bad())?,
        canonical::parse_hex(hash).ok_or_else(bad)?,
    ))
}

pub fn head(path: &Path) -> Result<String> {
    Ok(format!("{}\n", Ledger::open(path)?.head()?))
}

/// `laurel export`: one canonical JSON line per record.
pub fn export(path: &Path, w: &mut dyn Write) -> Result<()> {
    Ledger::open(path)?.export(w)
}

/// `laurel log`: one human line per record.
pub fn log(path: &Path, w: &mut dyn Write) -> Result<()> {
    #[derive(serde::Deserialize)]
    struct Peek {
        #[serde(rename = "type")]
        kind: String,
        id: Option<String>,
    }
    let ledger = Ledger::open(path)?;
    ledger.for_each_record(&mut |r, recorded_at| {
        let peek: Peek = serde_json::from_slice(r.event)
            .map_err(|e| Error::Corrupt(format!("record {}: {e}", r.seq)))?;
        let line = format!(
            "{:>6}  {}  {:<28} {:<20} {}  (recorded {})\n",
            r.seq,
            time::format_short(r.at),
            peek.kind,
            peek.id.unwrap_or_default(),
            &canonical::hex(&r.hash)[..16],
            recorded_at
        );
        w.write_all(line.as_bytes())
            .map_err(|e| Error::io("stdout", e))
    })
}

/// A fold of one namespace's projection (`only`), or of every one (`None`),
/// with its stamp (what it was computed against).
fn folded_only(
    ledger: &Ledger,
    args: &QueryArgs,
    only: Option<&'static str>,
) -> Result<(fold::Folded, Stamp)> {
    let mut q = args.query()?;
    q.only = only;
    fold_stamped(ledger, args, q)
}

fn fold_stamped(ledger: &Ledger, args: &QueryArgs, q: Query) -> Result<(fold::Folded, Stamp)> {
    let f = ledger.fold(&q)?;
    let hash = ledger.hash_at(f.known_at)?;
    let stamp = Stamp {
        as_of: args.as_of.clone(),
        known_at: f.known_at,
        head: canonical::hex(&hash),
    };
    Ok((f, stamp))
}

/// `laurel standings TABLE`, written to `w` as it is rendered.
pub fn standings(
    path: &Path,
    table: &str,
    sel: &Selector,
    args: &QueryArgs,
    format: Format,
    w: &mut dyn Write,
) -> Result<()> {
    let ledger = Ledger::open(path)?;
    // One table needs one projection: the other namespaces are not even decoded.
    // An unknown table is refused before anything is folded.
    let Some(ns) = systems::namespace_of(table) else {
        let nothing = State::default().standings(table, sel, &Cx::default());
        return Err(Error::Usage(nothing.err().unwrap_or_default()));
    };
    // From the latest valid checkpoint at or before --as-of when one can serve.
    let (f, stamp) = folded_only(&ledger, args, Some(ns))?;
    // Nothing more is read: let sled's cache go before the report is built.
    drop(ledger);
    let report = f.state.standings(table, sel, &f.cx).map_err(Error::Usage)?;
    // The state is not needed to print the report: free it first.
    drop(f);
    buffered(w, |w| {
        output::write_report(w, &report, &stamp, format).map_err(stdout_error)
    })
}

/// Run `f` on `w` through a buffer (stdout is line-buffered), then flush.
fn buffered(w: &mut dyn Write, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut bw = std::io::BufWriter::with_capacity(256 * 1024, w);
    f(&mut bw)?;
    bw.flush().map_err(stdout_error)
}

/// A failed write of a command's output (the message the binary gave when it
/// printed the whole text at the end).
fn stdout_error(e: std::io::Error) -> Error {
    Error::Usage(format!("stdout: {e}"))
}

/// `laurel fold` (hidden, for `bench`): fold every projection as the query asks
/// and print how many records the ledger knew; what "full replay" measures.
pub fn fold_all(path: &Path, args: &QueryArgs) -> Result<String> {
    let ledger = Ledger::open(path)?;
    let f = ledger.fold(&args.query()?)?;
    let text = format!("folded every projection up to seq {}\n", f.known_at);
    f.discard();
    Ok(text)
}

/// `laurel history PLAYER [--system S]`: every change, oldest first, with formulas.
/// Changes made by records that were later voided are listed too, marked with the
/// void that took them away, so a correction shows both the old and the new value.
pub fn history(
    path: &Path,
    player: &str,
    system: Option<&str>,
    args: &QueryArgs,
    format: Format,
) -> Result<String> {
    let ledger = Ledger::open(path)?;
    let mut q = args.query()?;
    q.audit = true;
    // One player's changes only: the whole trail of a 1M-event ledger is 15 GB.
    q.audit_subject = Some(player.to_string());
    let (f, stamp) = fold_stamped(&ledger, args, q)?;
    let mine = |c: &Change| c.subject == player && system.is_none_or(|s| s == c.system);
    let mut rows: Vec<(Change, Value)> =
        f.cx.changes()
            .iter()
            .filter(|c| mine(c))
            .map(|c| (c.clone(), Value::Null))
            .collect();
    rows.extend(voided_changes(&ledger, args, player, &mine)?);
    rows.sort_by_key(|(c, _)| (c.at, c.seq));
    let columns = ["seq", "at", "system", "old", "new", "formula", "voided"];
    let mut t = Table::new("history", &format!("History of {player}"), &columns);
    for (c, note) in rows {
        let old = c.old.map_or(Value::Null, Value::from);
        t.push(vec![
            json!(c.seq),
            json!(time::format_short(c.at)),
            json!(c.system),
            old,
            json!(c.new),
            json!(c.formula),
            note,
        ]);
    }
    let report = Report {
        system: "history".into(),
        main: t,
        extra: vec![],
    };
    Ok(output::render(&report, &stamp, format))
}

/// The changes voided records made (folded as if not voided), each with a note
/// naming the void and its reason.
fn voided_changes(
    ledger: &Ledger,
    args: &QueryArgs,
    subject: &str,
    keep: &dyn Fn(&Change) -> bool,
) -> Result<Vec<(Change, Value)>> {
    let source = ledger.source()?;
    let mut q = args.query()?;
    let voids = fold::voids(&source, &q)?;
    if voids.is_empty() {
        return Ok(Vec::new());
    }
    let mut reasons = std::collections::BTreeMap::new();
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
    let all = fold::fold(&source, &q)?;
    let noted = all.cx.changes().iter().filter(|c| keep(c)).filter_map(|c| {
        let v = voids.get(&c.seq)?;
        let reason = reasons.get(v).cloned().unwrap_or_default();
        Some((c.clone(), json!(format!("voided by seq {v}: {reason}"))))
    });
    Ok(noted.collect())
}

/// `laurel rules`: every parameter, its default, the value in force, its doc
/// line and the values it may take.
pub fn rules(path: &Path, args: &QueryArgs, format: Format) -> Result<String> {
    let ledger = Ledger::open(path)?;
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
    Ok(output::render(&report, &stamp, format))
}

/// `laurel void SEQ --reason TEXT`: append a `ledger.voided`.
pub fn void(path: &Path, target: u64, reason: &str) -> Result<String> {
    let ledger = Ledger::open(path)?;
    let ev = json!({"type": "ledger.voided", "at": time::format(time::now()), "target": target, "reason": reason});
    let line = ev.to_string();
    let input = Input {
        name: "laurel void".into(),
        reader: Box::new(line.as_bytes()),
    };
    let report = ledger.append(vec![input])?;
    Ok(append_summary(&report))
}

/// `laurel replay --rules FILE [--diff] [--system TABLE]`: every table (or one) as
/// if FILE's parameters had always been in force; with `diff`, per subject old and
/// new value and rank, largest moves first. JSON for several tables is one object:
/// `{"as_of", "known_at", "head", "tables": [<standings object>...]}`.
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
    format: Format,
    w: &mut dyn Write,
) -> Result<()> {
    if args.rules.is_none() {
        return Err(Error::Usage("replay needs --rules FILE".into()));
    }
    // A bad rules file or clock is refused before anything is folded.
    args.query()?;
    let ledger = Ledger::open(path)?;
    // One table needs only its namespace's projection, old and new.
    let ns = only.and_then(|(t, _)| systems::namespace_of(t));
    let mut old = match diff {
        true => Some(OldScores::fold(path, &ledger, args, only, ns)?),
        false => None,
    };
    let (new, stamp) = folded_only(&ledger, args, ns)?;
    // Nothing more is read: let sled's cache go before the reports are built.
    drop(ledger);
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
        return buffered(w, |w| {
            output::write_report(w, &r, &stamp, format).map_err(stdout_error)
        });
    }
    let all: Vec<(&str, Vec<Selector>)> = systems::tables()
        .into_iter()
        .map(|(table, _)| (table, selectors(&new.state, table)))
        .collect();
    if let Some(old) = &mut old {
        old.check(&all)?;
    }
    buffered(w, |w| {
        let mut many = output::Many::new(w, &stamp, format);
        for (table, sels) in &all {
            for sel in sels {
                many.write(&one(&mut old, table, sel)?)
                    .map_err(stdout_error)?;
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
    /// The ledger, opened again for a selector the old state did not list.
    path: &'p Path,
    /// The query without the rules file.
    live: QueryArgs,
    by: BTreeMap<(String, Option<String>), std::result::Result<Rows, String>>,
}

impl<'p> OldScores<'p> {
    /// Fold with the rules in force (from a checkpoint when one serves) and keep
    /// `only`'s scores, or every table's under every selector the state lists.
    fn fold(
        path: &'p Path,
        ledger: &Ledger,
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
        Ok(OldScores { path, live, by })
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
            let ledger = Ledger::open(self.path)?;
            let (old, _) = folded_only(&ledger, &self.live, ns)?;
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

/// The selectors a table is shown under in `demo` and `replay`: one per
/// tournament for tournament tables, else just the whole table.
pub(crate) fn selectors(state: &systems::State, table: &str) -> Vec<Selector> {
    let tournaments = match table {
        "cards" => state.cards.tournaments(),
        "sbr" => state.sbr.tournaments(),
        _ => return vec![Selector::default()],
    };
    tournaments
        .into_iter()
        .map(|t| Selector {
            tournament: Some(t),
        })
        .collect()
}

/// A main table's `player` (as text), `score` and `rank` cells, one row each:
/// what [`Table::json_rows`] has under those keys (`null` if a row has none).
fn score_rows(main: &Table) -> Rows {
    main.rows
        .iter()
        .map(|row| {
            // json_rows zips the columns with the cells: the last of a
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

/// `laurel demo`: the bundled events in a temporary ledger, and every table.
pub fn demo(w: &mut dyn Write) -> Result<()> {
    let dir = tempfile::tempdir().map_err(|e| Error::io("temporary directory", e))?;
    let path = dir.path().join("laurel.db");
    let ledger = Ledger::init(&path)?;
    let inputs = crate::demo::BUNDLED
        .iter()
        .map(|(name, text)| Input {
            name: format!("events/{name}"),
            reader: Box::new(text.as_bytes()),
        })
        .collect();
    let report = ledger.append(inputs)?;
    let mut out = format!(
        "laurel demo: {} bundled file(s), {} events in a temporary ledger\nhead {}\n\n",
        crate::demo::BUNDLED.len(),
        report.appended,
        report.head
    );
    let (f, stamp) = folded_only(&ledger, &QueryArgs::default(), None)?;
    for (table, _) in systems::tables() {
        for sel in selectors(&f.state, table) {
            out.push_str(&format!(
                "== standings {table}{} ==\n",
                sel.tournament
                    .as_ref()
                    .map(|t| format!(" --tournament {t}"))
                    .unwrap_or_default()
            ));
            match f.state.standings(table, &sel, &f.cx) {
                Ok(r) => out.push_str(&output::render(&r, &stamp, Format::Table)),
                Err(e) => out.push_str(&format!("({e})\n")),
            }
            out.push('\n');
        }
    }
    out.push_str(
        "Verify it yourself: `laurel export` prints every record; recompute each BLAKE3 hash\n",
    );
    out.push_str("as README.md shows and compare the last with the head above.\n");
    out.push_str("Publish it as a static website: `laurel init && laurel import events && laurel site site/`.\n");
    w.write_all(out.as_bytes())
        .map_err(|e| Error::io("stdout", e))
}

/// `laurel site DIR`: a static website of every table and player, with the
/// export and the head to verify it by (see [`crate::site`]).
pub fn site(path: &Path, dir: &Path, args: &QueryArgs) -> Result<String> {
    let ledger = Ledger::open(path)?;
    let mut q = args.query()?;
    // Every player's trail (a page each), spilled to disk by subject as the fold
    // goes and read back a bucket at a time (see README "Memory bound").
    q.audit = true;
    let spill = Arc::new(Mutex::new(Spill::new()?));
    q.trail = Some(fold::Trail(spill.clone()));
    let (mut f, stamp) = fold_stamped(&ledger, args, q)?;
    let head = ledger.head()?;
    let spill = Arc::into_inner(spill)
        .and_then(|m| m.into_inner().ok())
        .ok_or_else(|| Error::Storage("the audit trail's sink failed".into()))?;
    let mut buckets = spill.finish(f.cx.take_changes())?;
    // This fold was for the trail: the tables are made from folds of their own.
    drop(f);
    let site = crate::site::Site {
        head_seq: head.seq,
        head_hash: canonical::hex(&head.hash),
        stamp,
        tables: Vec::new(),
        changes: Vec::new(),
        spilled_subjects: std::mem::take(&mut buckets.subjects),
    };
    let views = |each: &mut dyn FnMut(&TableView) -> Result<()>| table_views(&ledger, args, each);
    let export_path = dir.join("export.jsonl").display().to_string();
    let mut export = |w: &mut dyn Write| ledger.export_to(w, &export_path);
    let mut groups = |page: &mut dyn FnMut(&[Change]) -> Result<()>| {
        (0..spill::BUCKETS).try_for_each(|i| page(&buckets.read(i)?))
    };
    let pages = crate::site::write_staged(dir, &site, views, &mut groups, &mut export)?;
    Ok(format!(
        "wrote {pages} page(s) and export.jsonl to {}\nhead {head}\nopen {}\n",
        dir.display(),
        dir.join("index.html").display()
    ))
}

/// Every standings table of the site in display order, handed to `each` one at
/// a time (`Site::pages_staged` asks twice). Each namespace's projection is
/// folded on its own, from the latest checkpoint that serves (as `standings`
/// does), and dropped once its tables are made: one projection and one report
/// are held at a time. With the whole state kept beside CFR's report (a row per
/// event score), a 1M-event site peaked at 550 MB.
fn table_views(
    ledger: &Ledger,
    args: &QueryArgs,
    each: &mut dyn FnMut(&TableView) -> Result<()>,
) -> Result<()> {
    for tables in systems::tables().chunk_by(|a, b| a.1 == b.1) {
        let (f, _) = folded_only(ledger, args, Some(tables[0].1))?;
        for &(table, _) in tables {
            views_of(&f, table, each)?;
        }
    }
    Ok(())
}

/// `table` from `f`, or one per tournament for the tables shown per tournament
/// (a table without any tournament yet is listed with that error).
fn views_of(
    f: &fold::Folded,
    table: &str,
    each: &mut dyn FnMut(&TableView) -> Result<()>,
) -> Result<()> {
    let sels = selectors(&f.state, table);
    if sels.is_empty() {
        each(&TableView {
            table: table.into(),
            tournament: None,
            standings: Err(format!("standings {table}: no tournament recorded yet")),
        })?;
    }
    for sel in sels {
        each(&TableView {
            table: table.into(),
            tournament: sel.tournament.clone(),
            standings: f.state.standings(table, &sel, &f.cx),
        })?;
    }
    Ok(())
}

/// `laurel gen`: a synthetic event stream on `w`.
pub fn gen(events: u64, seed: u64, systems: &[String], w: &mut dyn Write) -> Result<()> {
    let systems = systems
        .iter()
        .map(|s| {
            crate::gen::System::parse(s).ok_or_else(|| {
                Error::Usage(format!(
                    "--systems: unknown system {s:?} (known: mepbm, cfr, cards, diplomacy, sbr)"
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let opts = crate::gen::Options {
        events,
        seed,
        systems,
    };
    let mut bw = std::io::BufWriter::with_capacity(256 * 1024, w);
    crate::gen::generate(&opts, &mut bw).map_err(|e| Error::io("stdout", e))?;
    bw.flush().map_err(|e| Error::io("stdout", e))
}

/// `laurel bench`: measure the performance figures against the floor.
pub fn bench(events: u64, seed: u64, exe: PathBuf, keep: bool, w: &mut dyn Write) -> Result<()> {
    let opts = crate::bench::Options {
        events,
        seed,
        exe,
        keep,
    };
    crate::bench::run_bench(&opts, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `dir`, by name.
    fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect()
    }

    /// `laurel site` (tables made twice, one at a time, each namespace folded on
    /// its own; the trail spilled) writes the files that every table and change
    /// of one audited fold, held in memory, make. 12,000 events: the tables' folds
    /// start from the checkpoint at 10,000.
    #[test]
    fn the_staged_site_is_the_site_from_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("ledger");
        let text = crate::gen::stream(12_000, 11);
        let ledger = Ledger::init(&path).unwrap();
        let input = Input {
            name: "gen".into(),
            reader: Box::new(text.as_bytes()),
        };
        ledger.append(vec![input]).unwrap();
        drop(ledger);
        let args = QueryArgs::default();
        site(&path, &tmp.path().join("staged"), &args).unwrap();

        let ledger = Ledger::open(&path).unwrap();
        let mut q = args.query().unwrap();
        q.audit = true;
        let (mut f, stamp) = fold_stamped(&ledger, &args, q).unwrap();
        let mut tables = Vec::new();
        for (table, _) in systems::tables() {
            views_of(&f, table, &mut |v| {
                tables.push(v.clone());
                Ok(())
            })
            .unwrap();
        }
        let head = ledger.head().unwrap();
        let whole = crate::site::Site {
            head_seq: head.seq,
            head_hash: canonical::hex(&head.hash),
            stamp,
            tables,
            changes: f.cx.take_changes(),
            spilled_subjects: BTreeSet::new(),
        };
        let per_tournament = whole.tables.iter().filter(|t| t.tournament.is_some());
        assert!(per_tournament.count() >= 2, "a tournament table or two");
        let memory = tmp.path().join("memory");
        crate::site::write(&memory, &whole, &mut |w| ledger.export_to(w, "export")).unwrap();
        let (staged, memory) = (files(&tmp.path().join("staged")), files(&memory));
        assert!(staged.len() > 50, "{} files", staged.len());
        assert!(staged == memory, "the sites differ");
    }
}
