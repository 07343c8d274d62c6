//! The commands of the `laurel` binary, as library functions over plain arguments.
//!
//! Each returns the text to print (or writes to the given writer) and an [`Error`]
//! whose [`Error::exit_code`] the binary exits with. Nothing here parses the
//! command line: `main.rs` does that with clap and calls these.
//!
//! Layout: this file holds the arguments and helpers every command shares and the
//! small ledger commands (init, append, import, verify, head, export);
//! [`check`](mod@check) the dry run of an append; [`events`](mod@events) the
//! event vocabulary; [`players`](mod@players) the players list, `players add`
//! and the names queries resolve; [`corrections`] holds `void` and `correct`,
//! [`log`](mod@log) the log (and the site's list of voids, renames and rule
//! changes, labelled as the log labels them); [`query`] holds the read-only
//! queries (standings, history, rules, fold),
//! [`replay`](mod@replay) the what-if replay and its diff, [`restore`](mod@restore)
//! a ledger rebuilt from its export, [`demo`](mod@demo) the
//! demo's tour, and [`publish`] what makes output beyond one table (site, gen,
//! bench).
//!
//! Clocks: a `--known-at` seq past the ledger's head (`--known-at 9999` of a
//! ledger whose last record is 42) is refused, exit 2, naming the head's
//! seq, by every command that folds (standings, history, players, rules,
//! replay, site): it names a state the ledger never was in, and answering
//! with the head, whose seq the answer's stamp would show, reads as if it
//! had been. A known-at *time* after the last append is taken as asked: the
//! ledger known at any moment since its last record is all of it (the
//! stamp's `known_at` names that record), as an `--as-of` after the last
//! event is the world as it stands.

mod check;
mod corrections;
mod demo;
mod events;
mod log;
mod players;
mod publish;
mod query;
mod replay;
mod restore;

pub use check::check;
pub use corrections::{correct, void};
pub use demo::{demo, write_samples};
pub use events::events;
pub use log::log;
pub use players::{players, players_add, players_rename};
pub use publish::{bench, gen, site, SiteArgs, DEFAULT_TITLE};
pub use query::{fold_all, history, rules, rules_template, standings};
pub use replay::replay;
pub use restore::restore;

use std::collections::BTreeSet;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Origin, Result};
use crate::fold::{self, Query};
use crate::ledger::{canonical, Input, Ledger, VerifyReport};
use crate::output::{self, Format, Print, Stamp};
use crate::systems::table::Report;
use crate::systems::{self, Selector};
use crate::time;

/// The two clocks and a what-if rules file, shared by every query.
#[derive(Debug, Clone, Default)]
pub struct QueryArgs {
    /// `--as-of DATE|TIME`: a plain date means the end of that day (UTC).
    pub as_of: Option<String>,
    /// `--known-at SEQ|TIME` (a seq past the head is refused: see the module docs).
    pub known_at: Option<String>,
    /// `--rules FILE` (standings, replay): pinned parameters.
    pub rules: Option<PathBuf>,
}

impl QueryArgs {
    /// The fold the arguments ask of `ledger`: a known-at time is the last
    /// seq recorded by then ([`Ledger::seq_recorded_by`]).
    fn query(&self, ledger: &Ledger) -> Result<Query> {
        let as_of = (self.as_of.as_ref())
            .map(|s| {
                time::parse_bound(s).ok_or_else(|| {
                    Error::Usage(format!(
                        "--as-of {s:?}: expected YYYY-MM-DD or an RFC 3339 timestamp{}",
                        time::why_not_a_time(s)
                    ))
                })
            })
            .transpose()?;
        let known_at = (self.known_at.as_ref())
            .map(|s| match s.parse::<u64>() {
                Ok(n) => Ok(n),
                Err(_) => match time::parse_bound(s) {
                    Some(t) => ledger.seq_recorded_by(t),
                    None => Err(Error::Usage(format!(
                        "--known-at {s:?}: expected a seq or a date/time{}",
                        time::why_not_a_time(s)
                    ))),
                },
            })
            .transpose()?;
        let rules = self.rules.as_deref().map(read_rules).transpose()?;
        // Under a rules file that sets a parameter, every record is checked
        // under it as stored (none is new input): see `fold`.
        let check = rules.as_ref().is_some_and(sets_a_parameter);
        Ok(Query {
            as_of,
            known_at,
            rules,
            check,
            fresh_from: u64::MAX,
            ..Query::default()
        })
    }

    /// The fold `q` asks for (made by [`QueryArgs::query`]). Under a rules
    /// file that sets a parameter, a table is scored only if every record
    /// folded is one those rules accept, as an append checks a stored record:
    /// a rules change dated before a record that its rules refuse is refused
    /// at append, so scoring it under those rules as if they had always been
    /// in force would score what they forbid (a grudge game with too few
    /// nations, a match of too many games). The first record they refuse
    /// (by seq) is named, with why (exit 2): the others may follow from it.
    fn fold(&self, ledger: &Ledger, q: &Query) -> Result<fold::Folded> {
        let Some(path) = self.rules.as_ref().filter(|_| q.check) else {
            return fold_known(ledger, q);
        };
        fold_known(ledger, q).map_err(|e| under_rules(path, e.first_refusal()))
    }
}

/// `e`, a refusal of a stored record by rules file `path`, named as the
/// file's: the record would not be valid under those rules.
fn under_rules(path: &Path, e: Error) -> Error {
    let Error::Invalid { origin, msg } = e else {
        return e;
    };
    let Some(seq) = origin.seq else {
        return Error::Invalid { origin, msg };
    };
    let Origin { kind, id, .. } = *origin;
    let record = Origin {
        kind,
        id,
        ..Origin::default()
    };
    let file = Origin {
        file: Some(path.display().to_string()),
        ..Origin::default()
    };
    Error::invalid(
        file,
        format!(
            "record {seq} ({record}) would not be valid under these rules: {msg}; a table is \
             scored under rules only if they accept every record it folds"
        ),
    )
}

/// Does rules file `rules` (checked) set at least one parameter?
fn sets_a_parameter(rules: &Value) -> bool {
    !touched(rules).is_empty()
}

/// The namespaces whose parameters rules file `rules` (checked) sets: a
/// fold of the others answers as the ledger's own rules do.
fn touched(rules: &Value) -> BTreeSet<&'static str> {
    (rules.as_object().into_iter().flatten())
        .filter(|(_, params)| params.as_object().is_some_and(|p| !p.is_empty()))
        .filter_map(|(group, _)| systems::namespace_of_group(group))
        .collect()
}

/// The most bytes a rules file may hold: every parameter of every system
/// at its longest fits in a few kilobytes, and a file without end (a
/// device, a pipe that never closes) must not be read into memory whole.
const RULES_MAX: u64 = 1 << 20;

/// The bytes of rules file `path`, refused (exit 2) past [`RULES_MAX`].
fn rules_bytes(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let io = |e| Error::io(path.display().to_string(), e);
    let mut read = Vec::new();
    (std::fs::File::open(path).map_err(io)?)
        .take(RULES_MAX + 1)
        .read_to_end(&mut read)
        .map_err(io)?;
    if read.len() as u64 > RULES_MAX {
        return Err(Error::Usage(format!(
            "--rules {}: longer than {RULES_MAX} bytes; a rules file sets a few parameters, \
             {{system: {{parameter: value}}}} (`laurel rules --template` writes one)",
            path.display()
        )));
    }
    Ok(read)
}

fn read_rules(path: &Path) -> Result<Value> {
    if path.is_dir() {
        return Err(Error::Usage(format!(
            "--rules {}: a directory; give a JSON file of {{system: {{parameter: value}}}} \
             (`laurel rules` lists the parameters)",
            path.display()
        )));
    }
    let read = rules_bytes(path)?;
    let bytes = crate::input::without_bom(&read);
    if let Some(msg) = crate::input::marked(bytes) {
        return Err(Error::Usage(format!("{}: {msg}", path.display())));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = read.len() - bytes.len() + e.valid_up_to() + 1; // counted from 1
        Error::Usage(format!(
            "{}: invalid JSON: byte {at} is not UTF-8; laurel reads UTF-8",
            path.display()
        ))
    })?;
    let v: Value = serde_json::from_str(text)
        .map_err(|e| Error::Usage(format!("{}: invalid JSON: {e}", path.display())))?;
    // As in events: a key given twice has no one meaning, and a value no
    // event may hold (`1.5`, `-0`, `15e2`) is refused in the same words.
    let (twice, refused) = crate::events::refused_in(text.as_bytes());
    if let Some(key) = twice {
        return Err(Error::Usage(format!(
            "{}: `{key}` appears twice: give each system and parameter once",
            path.display()
        )));
    }
    if let (Some(msg), true) = (refused, v.is_object()) {
        return Err(Error::Usage(format!("{}: {msg}", path.display())));
    }
    crate::systems::params::check_rules(&v)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
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
    } else if Path::new(name).is_dir() {
        return Err(Error::Usage(format!(
            "{name} is a directory: `laurel import {name}` appends every *.json and *.jsonl file \
             in it (`laurel check {name}` checks them, writing nothing)"
        )));
    } else {
        let f = std::fs::File::open(name).map_err(|e| Error::io(name, e))?;
        let f = crate::input::DropBehind::new(f);
        Box::new(BufReader::with_capacity(256 * 1024, f))
    };
    Ok(Input {
        name: name.to_string(),
        reader,
        first_line: 1,
    })
}

/// `e` as the user of a command that writes its own input (`laurel void`,
/// named `name` in messages) reads it: a refusal of one of that input's
/// lines names the command, not a line of a file the user never wrote
/// (`laurel void, ledger.voided: record 4 is already voided`).
pub(crate) fn of_command(name: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| {
        e.each_refusal(|mut e| {
            if let Some(origin) = e.origin_mut().filter(|o| o.file.as_deref() == Some(name)) {
                origin.line = None;
            }
            e
        })
    }
}

/// What an append did, or a dry run found it would do: the one rendering of
/// [`crate::ledger::AppendReport`], for `append`, `import`, `void` and `check`.
/// `dry`: the report of a dry run (`laurel check`), whose head is not moved.
pub(crate) fn append_summary(r: &crate::ledger::AppendReport, dry: bool) -> String {
    let (did, kept) = match dry {
        false => ("appended", "nothing added for them"),
        true => ("ok: would append", "nothing would be added for them"),
    };
    let mut s = format!("{did} {} event(s)", r.appended);
    if r.appended == 0 && r.already_recorded == 0 && r.repeated == 0 {
        // Most likely the wrong file: say so rather than look like success.
        s.push_str(": the input holds no event");
    }
    if r.already_recorded > 0 {
        s.push_str(&format!(
            "; {} already recorded ({kept})",
            r.already_recorded
        ));
    }
    if r.already_voided > 0 {
        s.push_str(&format!(
            "; {} of them exact copies of voided records",
            r.already_voided
        ));
    }
    if let Some([(f0, l0), (f1, l1)]) = &r.first_repeat {
        let copy = match (f0 == f1, f0.as_str()) {
            (true, "-") => format!("line {l1} repeats line {l0} of standard input"),
            (true, _) => format!("line {l1} repeats line {l0} of {f0}"),
            (false, _) => format!("{f1}:{l1} repeats {f0}:{l0}"),
        };
        s.push_str(&format!(
            "; {} given twice in the input, counted once ({copy})",
            r.repeated
        ));
    }
    s.push('\n');
    let width = r.kinds.values().map(|n| n.to_string().len()).max();
    for (kind, n) in &r.kinds {
        s.push_str(&format!("  {n:>w$} {kind}\n", w = width.unwrap_or(1)));
    }
    s.push_str(&new_players_line(&r.new_players));
    s.push_str(&voided_copies_line(r));
    match dry {
        false => s.push_str(&format!("head {}\n", r.head)),
        true => s.push_str("nothing written: the ledger is unchanged\n"),
    }
    s
}

/// The lines of an append that copy voided records, which stay voided
/// (an import run again brings no voided event back): named, since one
/// re-entered after a void meant to restore it is then missing from every
/// table. Nothing when there is none.
fn voided_copies_line(r: &crate::ledger::AppendReport) -> String {
    if r.voided_copies.is_empty() {
        return String::new();
    }
    let named: Vec<String> = (r.voided_copies.iter())
        .map(|(file, line, seq)| format!("{file}:{line} (#{seq})"))
        .collect();
    let more = r.already_voided.saturating_sub(named.len() as u64);
    let more = match more {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "not appended, copies of voided records, which stay voided: {}{more}; to append one \
         again, give it a new `id`\n",
        named.join(", ")
    )
}

/// "2 new players: Ada Lovelace, Brian Kernighan" and a line end (past
/// [`NAMES_SHOWN`] names, how many more); nothing when the append names no
/// one for the first time.
fn new_players_line(names: &[String]) -> String {
    let shown = names[..names.len().min(NAMES_SHOWN)].join(", ");
    let more = match names.len().saturating_sub(NAMES_SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more (`laurel players` lists them)"),
    };
    match names.len() {
        0 => String::new(),
        1 => format!("1 new player: {shown}\n"),
        n => format!("{n} new players: {shown}{more}\n"),
    }
}

/// How many new players an append's report names.
const NAMES_SHOWN: usize = 20;

/// `laurel append FILE|-`.
pub fn append(path: &Path, file: &str) -> Result<String> {
    // The input first: a file that does not open leaves the ledger unopened.
    let input = open_input(file)?;
    let ledger = Ledger::open(path)?;
    let report = ledger.append(vec![input])?;
    Ok(append_summary(&report, false))
}

/// The `*.json` / `*.jsonl` files directly under `dir` (the extension in
/// any case), in name order, but hidden ones (a name starting with `.`: an
/// editor's lock or backup file). One of those names that is not a regular file
/// (a directory, a FIFO, a link to nothing) or not UTF-8 refuses the import:
/// skipping it would import less than the directory shows.
pub fn event_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let io = |e| Error::io(dir.display().to_string(), e);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let p = entry.map_err(io)?.path();
        let ext = p.extension().map(|e| e.to_string_lossy().to_lowercase());
        let hidden = p
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."));
        if hidden || !matches!(ext.as_deref(), Some("json" | "jsonl")) {
            continue;
        }
        let refused = |what: &str| {
            Err(Error::Usage(format!(
                "import: {} {what}; nothing is imported",
                p.display()
            )))
        };
        if p.to_str().is_none() {
            return refused("has a name that is not UTF-8: rename it");
        }
        match std::fs::metadata(&p) {
            Err(_) if p.is_symlink() => return refused("is a symbolic link to nothing"),
            Err(e) => return Err(Error::io(p.display().to_string(), e)),
            Ok(m) if !m.is_file() => return refused("is not a regular file"),
            Ok(_) => files.push(p),
        }
    }
    files.sort();
    Ok(files)
}

/// `laurel import DIR`: every file as one all-or-nothing append.
pub fn import(path: &Path, dir: &Path) -> Result<String> {
    let inputs = import_inputs(dir)?;
    let ledger = Ledger::open(path)?;
    let n = inputs.len();
    let report = ledger.append(inputs)?;
    Ok(format!("{n} file(s): {}", append_summary(&report, false)))
}

/// The inputs `laurel import DIR` appends (and `laurel check DIR` checks):
/// its event files, in name order.
fn import_inputs(dir: &Path) -> Result<Vec<Input<'static>>> {
    if dir.is_file() {
        let name = dir.display();
        return Err(Error::Usage(format!(
            "{name} is a file: `laurel append {name}` appends it (`laurel import` takes a \
             directory of event files)"
        )));
    }
    let files = event_files(dir)?;
    if files.is_empty() {
        return Err(Error::Usage(format!(
            "no *.json or *.jsonl file directly under {}: nothing to import",
            dir.display()
        )));
    }
    files
        .iter()
        .map(|p| open_input(&p.display().to_string()))
        .collect()
}

/// A report's problems as one error naming each (exit 1), after `lead`
/// if given, if it has any.
pub(crate) fn no_problem(report: &VerifyReport, lead: Option<&str>) -> Result<()> {
    let Some((seq, _)) = report.problems.first() else {
        return Ok(());
    };
    let all: Vec<String> = (report.problems.iter())
        .map(|(s, m)| format!("seq {s}: {m}"))
        .collect();
    let all = all.join("; ");
    Err(Error::Tampered {
        seq: *seq,
        msg: lead.map_or_else(|| all.clone(), |lead| format!("{lead}: {all}")),
    })
}

/// `laurel verify [--expect HEAD]`: HEAD as `SEQ:HASH`, or as `head` prints
/// it (`SEQ HASH`), or as `verify` prints it (`head SEQ HASH`). After the
/// chain, the writer's store is looked at as a reader can (its files
/// there, whole where they carry a checksum): a ledger that verifies but
/// cannot take its next append is reported damaged (exit 1).
pub fn verify(path: &Path, expect: Option<&str>) -> Result<String> {
    let expect = match expect {
        None => None,
        Some(s) => Some(parse_expect(s)?),
    };
    let ledger = Ledger::read(path)?;
    let report = ledger.verify(expect)?;
    no_problem(&report, None)?;
    if let Some(damage) = ledger.writer_store_damage() {
        return Err(Error::Corrupt(format!(
            "the chain verifies ({} record(s), head {}), but {damage}",
            report.records, report.head
        )));
    }
    let mut checkpoints = match report.checkpoints {
        0 => "no checkpoint to check".to_string(),
        n => format!("{n} checkpoint(s) equal to a fold of the records"),
    };
    if let Some(why) = ledger.checkpoints_unlisted() {
        checkpoints.push_str(&format!(
            " ({why}: every fold starts from nothing; make it a directory laurel can read, \
             or remove it: the next append writes checkpoints again)"
        ));
    }
    if report.damaged_checkpoints > 0 {
        checkpoints.push_str(&format!(
            "; {} checkpoint(s) unusable, damaged or made on a damaged one: no fold \
             uses them (a cache: the answers come from the records; removing them is safe)",
            report.damaged_checkpoints
        ));
    }
    let mut out = format!(
        "ok: {} record(s), chain verified, {checkpoints}\nhead {}\n",
        report.records, report.head
    );
    if let Some((s, h)) = expect {
        out.push_str(&format!(
            "published head {s}:{} is in the chain\n",
            canonical::hex(&h)
        ));
    }
    if let Some(seq) = report.unfinished {
        out.push_str(&format!(
            "note: {} is named after the head: the segment of an append running now or of \
             one that did not finish (the next append clears it), or HEAD put back by one \
             append (the next append refuses the directory; `verify --expect` with a head \
             published since tells)\n",
            crate::ledger::segment::file_of(path, seq).display()
        ));
    }
    Ok(out)
}

/// A published head as `--expect` takes it (see [`verify`]).
pub(super) fn parse_expect(s: &str) -> Result<(u64, [u8; 32])> {
    let bad = || {
        Error::Usage(format!(
            "--expect {s:?}: expected SEQ:HASH or SEQ HASH (64 hex digits), as `laurel head` prints it"
        ))
    };
    let t = s.trim();
    let t = t.strip_prefix("head ").unwrap_or(t).trim_start();
    let (seq, hash) = t
        .split_once(':')
        .or_else(|| t.split_once(char::is_whitespace))
        .ok_or_else(bad)?;
    let (seq, hash) = (seq.trim(), hash.trim());
    Ok((
        seq.parse().map_err(|_| bad())?,
        canonical::parse_hex(hash).ok_or_else(bad)?,
    ))
}

/// `laurel head`: `HEAD`, once the record it names reads back with that
/// hash, its content hashed again (a head is published: not that of a
/// ledger whose last record was removed or changed). The rest of the chain
/// is `verify`'s to check.
pub fn head(path: &Path) -> Result<String> {
    let ledger = Ledger::read(path)?;
    let head = ledger.head()?;
    let (stored, again) = ledger.hashes_at(head.seq)?;
    if stored != head.hash || again != head.hash {
        let seq = head.seq;
        return Err(Error::Tampered {
            seq,
            msg: format!(
                "HEAD names record {seq} with hash {}, but record {seq}'s content hashes to {}: \
                 the ledger was changed since; `laurel verify` names every problem",
                canonical::hex(&head.hash),
                canonical::hex(&again)
            ),
        });
    }
    Ok(format!("{head}\n"))
}

/// `laurel export`: one canonical JSON line per record.
pub fn export(path: &Path, w: &mut dyn Write) -> Result<()> {
    Ledger::read(path)?.export_to(w, "stdout")
}

/// A fold of one namespace's projection (`only`), or of every one (`None`),
/// with its stamp (what it was computed against).
fn folded_only(
    ledger: &Ledger,
    args: &QueryArgs,
    only: Option<&'static str>,
) -> Result<(fold::Folded, Stamp)> {
    let mut q = args.query(ledger)?;
    q.only = only;
    fold_stamped(ledger, args, q)
}

fn fold_stamped(ledger: &Ledger, args: &QueryArgs, mut q: Query) -> Result<(fold::Folded, Stamp)> {
    let what_if = is_what_if(&q);
    if !what_if {
        // The ledger's own answer, from its checkpoints like any other.
        (q.rules, q.check) = (None, false);
    }
    let f = args.fold(ledger, &q)?;
    let hash = ledger.hash_at(f.known_at)?;
    let stamp = Stamp {
        as_of: args.as_of.as_deref().map(time::shown_bound),
        known_at: f.known_at,
        head: canonical::hex(&hash),
        rules: args
            .rules
            .as_ref()
            .filter(|_| what_if)
            .map(|p| p.display().to_string()),
        tournament: None,
        inside_append: match args.known_at.as_deref().map(str::parse::<u64>) {
            Some(Ok(seq)) => inside_an_append(ledger, seq)?,
            _ => None,
        },
        rules_over: (f.cx.params.pinned_over_changes().into_iter())
            .filter(|(group, _)| {
                q.only
                    .is_none_or(|ns| systems::namespace_of_group(group) == Some(ns))
            })
            .map(|(group, name)| format!("{group}.{name}"))
            .collect(),
    };
    Ok((f, stamp))
}

/// Does `q`'s rules file set a parameter of what it folds (namespace
/// `q.only`, or any)? Only then is its answer a what-if, marked as one
/// ([`Stamp::rules`]); a table the file sets nothing of is the ledger's own.
fn is_what_if(q: &Query) -> bool {
    let Some(rules) = &q.rules else { return false };
    let touched = touched(rules);
    q.only
        .map_or(!touched.is_empty(), |ns| touched.contains(ns))
}

/// `ledger`'s fold of `q`, whose known-at seq, if one is given, is not past
/// the ledger's head (see the module docs).
fn fold_known(ledger: &Ledger, q: &Query) -> Result<fold::Folded> {
    let last = ledger.head()?.seq;
    let holds = |n| match last {
        0 => format!("--known-at {n}: the ledger holds no record yet"),
        _ => format!("--known-at {n}: the ledger's last record is seq {last}"),
    };
    match q.known_at {
        Some(n) if n > last => Err(Error::Usage(holds(n))),
        _ => ledger.fold(q),
    }
}

/// Print one report as `print` asks: narrowed and cut ([`Print::shape`]), a
/// text answer led by the line naming the ledger state.
fn write_answer(
    w: &mut dyn Write,
    ledger: &Ledger,
    args: &QueryArgs,
    report: Report,
    stamp: &Stamp,
    print: &Print,
) -> Result<()> {
    let report = print.shape(report).map_err(Error::Usage)?;
    let line = state_line(ledger, args, stamp, print.format)?;
    buffered(w, |w| {
        w.write_all(line.as_bytes()).map_err(stdout_error)?;
        output::write_report(w, &report, stamp, print.format).map_err(stdout_error)
    })
}

/// A text answer's first line, naming the head read and the clocks given
/// ([`output::state_line`]); nothing for JSON (its stamp says it) and CSV.
fn state_line(ledger: &Ledger, args: &QueryArgs, stamp: &Stamp, format: Format) -> Result<String> {
    if format != Format::Table {
        return Ok(String::new());
    }
    let head = ledger.head()?;
    let hash = canonical::hex(&head.hash);
    let given = args.known_at.as_deref();
    let mut line = output::state_line(head.seq, &hash, stamp, given);
    // A known-at before the first record: an empty answer that is no
    // empty ledger (`--as-of` is the clock of when events happened).
    let a_time = args
        .known_at
        .as_ref()
        .is_some_and(|k| k.parse::<u64>().is_err());
    if a_time && stamp.known_at == 0 && head.seq > 0 {
        if let Some(first) = ledger.recorded_at(1)? {
            line.push_str(&format!(
                " · nothing was recorded by then (record 1 was recorded at {first}; \
                 --as-of cuts by when events happened)"
            ));
        }
    }
    Ok(line + "\n")
}

/// The append (its first and last seqs) that brought record `seq` when
/// `seq` is not its last ([`Stamp::inside_append`]).
fn inside_an_append(ledger: &Ledger, seq: u64) -> Result<Option<(u64, u64)>> {
    Ok(ledger.append_of(seq)?.filter(|&(_, last)| last > seq))
}

/// Run `f` on `w` through a buffer (stdout is line-buffered), then flush.
fn buffered(w: &mut dyn Write, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut bw = std::io::BufWriter::with_capacity(256 * 1024, w);
    f(&mut bw)?;
    bw.flush().map_err(stdout_error)
}

/// A failed write of a command's output.
fn stdout_error(e: std::io::Error) -> Error {
    Error::io("stdout", e)
}

/// The selectors a table is shown under in `demo` and `replay`: one per
/// tournament for tournament tables, else just the whole table.
pub(crate) fn selectors(state: &systems::State, table: &str) -> Vec<Selector> {
    let Some(tournaments) = state.shown_per(table) else {
        return vec![Selector::default()];
    };
    tournaments
        .into_iter()
        .map(|t| Selector::of(Some(t)))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::ledger::{AppendReport, Head};

    #[test]
    fn voided_copies_are_named_up_to_the_first_few_then_counted() {
        let copies = (1..=5)
            .map(|i| ("a.jsonl".to_string(), i, 10 + i))
            .collect();
        let r = AppendReport {
            appended: 0,
            already_recorded: 7,
            already_voided: 7,
            voided_copies: copies,
            repeated: 0,
            first_repeat: None,
            head: Head::default(),
            kinds: Default::default(),
            new_players: Vec::new(),
        };
        let line = super::voided_copies_line(&r);
        assert!(
            line.starts_with("not appended, copies of voided records, which stay voided: a.jsonl:1 (#11), a.jsonl:2 (#12), a.jsonl:3 (#13), a.jsonl:4 (#14), a.jsonl:5 (#15) and 2 more; "),
            "{line}"
        );
        let none = AppendReport {
            already_voided: 0,
            voided_copies: Vec::new(),
            ..r
        };
        assert_eq!(super::voided_copies_line(&none), "");
    }
}
