//! `laurel demo [--all]`: the bundled events ([`crate::demo::BUNDLED`]) in a
//! temporary ledger, then a short tour or every table. `laurel demo --write
//! DIR` writes those files into DIR instead, so the README's tour runs
//! anywhere, not only in a clone ([`write_samples`]).
//!
//! The tour visits each community ([`crate::demo::stops`]): its main table's
//! title, the sentence saying what it means, its top [`TOP`] rows under
//! readable column titles, and the command that prints all of it; then the
//! commands to go further, the history one naming the first stop's leader. A
//! table shown per tournament (`cards`, `sbr`) is shown for its first
//! tournament with rows; a community without any rows yet says so.

use std::io::Write;
use std::path::Path;

use super::{folded_only, selectors, QueryArgs};
use crate::error::{Error, Result};
use crate::fold;
use crate::ledger::{Input, Ledger};
use crate::output::{self, Format};
use crate::systems;
use crate::systems::table::Table;

/// Rows of each community's table the tour shows.
const TOP: usize = 5;
/// The tour leaves out a column with a cell longer than this (lists such as
/// `per_game`), other than rank, player and score: its lines fit a terminal.
const NARROW: usize = 24;
/// Where the tour's sentences wrap.
const WRAP: usize = 88;

/// `laurel demo [--all]`: the bundled events in a temporary ledger, then a
/// short tour (each community's main table, its top [`TOP`] rows under readable
/// titles and one sentence on what it means, then the commands to go further)
/// or, with `all`, every table.
pub fn demo(w: &mut dyn Write, all: bool) -> Result<()> {
    let dir = tempfile::tempdir().map_err(|e| Error::io("temporary directory", e))?;
    let path = dir.path().join("laurel.db");
    let ledger = Ledger::init(&path)?;
    let inputs = crate::demo::BUNDLED
        .iter()
        .map(|(name, text)| Input {
            name: format!("events/{name}"),
            reader: Box::new(text.as_bytes()),
            first_line: 1,
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
    match all {
        true => every_table(&f, &stamp, &mut out),
        false => tour(&f, &mut out),
    }
    w.write_all(out.as_bytes())
        .map_err(|e| Error::io("stdout", e))
}

/// `laurel demo --write DIR`: the bundled event files, written into `dir`
/// (made if missing). A file already there holding the same bytes is left
/// alone; one holding anything else is refused before any file is written
/// (exit 2): laurel does not overwrite a file it did not write. Each file is
/// created new (never through a link, never over a file that appeared since
/// the check), and one whose write fails is removed, so a run again finds
/// only whole files.
pub fn write_samples(dir: &Path) -> Result<String> {
    if dir.exists() && !dir.is_dir() {
        let msg = format!("{}: not a directory; give one to write into", dir.display());
        return Err(Error::Usage(msg));
    }
    let bundled = &crate::demo::BUNDLED;
    let mut fresh = Vec::new();
    for (name, text) in bundled.iter() {
        let path = dir.join(name);
        match std::fs::read(&path) {
            Ok(held) if held == text.as_bytes() => {}
            Ok(_) => return Err(taken(&path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => fresh.push((path, text)),
            Err(e) => return Err(Error::io(path.display().to_string(), e)),
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    for (path, text) in &fresh {
        create_new(path, text.as_bytes())?;
    }
    Ok(format!(
        "wrote {} of the {} sample file(s) into {} ({} already there)\n\
         next: laurel init && laurel import {}\n",
        fresh.len(),
        bundled.len(),
        dir.display(),
        bundled.len() - fresh.len(),
        dir.display()
    ))
}

/// The refusal of a sample file's place that holds something else.
fn taken(path: &Path) -> Error {
    Error::Usage(format!(
        "{}: already there, with other contents; nothing written \
         (write the samples into an empty directory)",
        path.display()
    ))
}

/// Write `bytes` to `path`, a file that must not exist yet; removed if the
/// write fails.
fn create_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |e| Error::io(path.display().to_string(), e);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    let mut file = file.map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => taken(path),
        _ => io(e),
    })?;
    file.write_all(bytes).map_err(|e| {
        let _ = std::fs::remove_file(path);
        io(e)
    })
}

/// `demo --all`: every table, and every tournament of the tables shown per
/// tournament, under a `== standings TABLE ==` line.
fn every_table(f: &fold::Folded, stamp: &output::Stamp, out: &mut String) {
    for (table, _) in systems::tables() {
        for sel in selectors(&f.state, table) {
            out.push_str(&format!(
                "== standings {table}{} ==\n",
                tournament_arg(&sel)
            ));
            match f.state.standings(table, &sel, &f.cx) {
                Ok(r) => out.push_str(&output::render(&r, stamp, Format::Table)),
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
}

/// ` --tournament T` for a tournament's selector, else nothing.
fn tournament_arg(sel: &systems::Selector) -> String {
    (sel.tournament.as_ref())
        .map(|t| format!(" --tournament {t}"))
        .unwrap_or_default()
}

/// The short tour: a stop per community ([`crate::demo::stops`]), then the
/// commands to go further, naming the first stop's leading player.
fn tour(f: &fold::Folded, out: &mut String) {
    let mut player = None;
    for stop in crate::demo::stops() {
        let first = tour_stop(f, &stop, out);
        player = player.or(first);
    }
    let player = player.unwrap_or_else(|| "PLAYER".into());
    let go = [
        (
            "laurel init && laurel import events",
            "the same events in ./laurel.db (`laurel demo --write events` writes them)",
        ),
        (
            "laurel standings valar",
            "a whole table; --format json or csv for scripts",
        ),
        (
            &format!("laurel history {}", shell_quoted(&player)),
            "every change to one player, with its formula",
        ),
        (
            "laurel standings valar --as-of 2003-01-31",
            "a table as it stood at the end of that day",
        ),
        (
            "laurel replay --rules FILE --diff",
            "what-if: other rule parameters (laurel rules), who moves",
        ),
        (
            "laurel site site/ --title \"Middle-earth PBM\" --systems mepbm",
            "a static website for one community",
        ),
        ("laurel events", "the event vocabulary, to write your own"),
        ("laurel demo --all", "every table of this demo"),
    ];
    out.push_str("Go further:\n");
    for (cmd, what) in go {
        out.push_str(&format!("  {cmd}\n      {what}\n"));
    }
}

/// One stop: the community, its table's top rows and what the table means.
/// Returns the leading player.
fn tour_stop(f: &fold::Folded, stop: &crate::demo::Stop, out: &mut String) -> Option<String> {
    let shown = selectors(&f.state, stop.table).into_iter().find_map(|sel| {
        let r = f.state.standings(stop.table, &sel, &f.cx).ok()?;
        (!r.main.rows.is_empty()).then_some((sel, r))
    });
    let Some((sel, r)) = shown else {
        out.push_str(&format!("{}: no results yet\n\n", stop.community));
        return None;
    };
    let n = r.main.rows.len();
    let title = match r.main.title.is_empty() {
        true => stop.table,
        false => r.main.title.as_str(),
    };
    out.push_str(&format!(
        "== {} ==\n{} (top {} of {n})\n",
        stop.community,
        output::printable(title, &[]),
        n.min(TOP)
    ));
    wrap(stop.meaning, out);
    let top = narrow_top(&r.main);
    let leader = top.rows.iter().next().and_then(|row| {
        let i = top.columns.iter().position(|c| c == "player")?;
        row.get(i)?.as_str().map(str::to_string)
    });
    let mut text = Vec::new();
    // Writing to a Vec cannot fail; the text is UTF-8.
    let _ = output::write_text(&top, &mut text);
    out.push_str(&String::from_utf8_lossy(&text));
    let others: Vec<&str> = systems::tables()
        .into_iter()
        .filter(|(t, ns)| *ns == stop.namespace && *t != stop.table)
        .map(|(t, _)| t)
        .collect();
    let also = match others.is_empty() {
        true => String::new(),
        false => format!(" (also {})", others.join(", ")),
    };
    out.push_str(&format!(
        "all of it: laurel standings {}{}{also}\n\n",
        stop.table,
        tournament_arg(&sel)
    ));
    leader
}

/// `s` as one shell word: in single quotes, each `'` written `'\\''`.
fn shell_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `text` in lines of at most [`WRAP`] characters (a longer word stays whole).
fn wrap(text: &str, out: &mut String) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WRAP {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
}

/// The first [`TOP`] rows of `t`, untitled, without the columns [`NARROW`] leaves out.
fn narrow_top(t: &Table) -> Table {
    let rows: Vec<Vec<serde_json::Value>> = t.rows.iter().take(TOP).collect();
    let width = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.chars().count(),
        serde_json::Value::Null => 0,
        other => other.to_string().chars().count(),
    };
    let keep: Vec<usize> = (0..t.columns.len())
        .filter(|&i| {
            matches!(t.columns[i].as_str(), "rank" | "player" | "score")
                || rows.iter().all(|r| r.get(i).map_or(0, width) <= NARROW)
        })
        .collect();
    let columns: Vec<&str> = keep.iter().map(|&i| t.columns[i].as_str()).collect();
    let mut top = Table::new(&t.name, "", &columns);
    // Scores keep the decimals their table fixes.
    top.places = keep.iter().map(|&i| t.places_at(i)).collect();
    for row in rows {
        top.push(keep.iter().filter_map(|&i| row.get(i).cloned()).collect());
    }
    top
}
