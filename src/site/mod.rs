//! `laurel site DIR`: a static website of the rankings.
//!
//! The site is plain HTML with one inline stylesheet and inline SVG charts: no
//! server, no JavaScript, no network fetches (every page carries a
//! Content-Security-Policy that forbids scripts and any outside resource), so it
//! can be hosted anywhere or opened from disk. It is deterministic: the same
//! ledger and clocks give byte-identical files (no generation timestamp).
//!
//! # Pages
//!
//! Every page carries the site's title ([`Site::title`], `--title`), the ledger
//! head and the last update (see [`Site::updated`]) in its footer; tables show
//! their columns' readable titles ([`crate::output::title`]).
//!
//! - `index.html`: the title, the last update, the ledger head (seq and hash)
//!   that `export.jsonl` ends at, the clocks (`--as-of`, `--known-at`) and the
//!   record the tables were computed from, how to verify the export against the
//!   head (README's Python script, quoted), every standings table that has rows
//!   (a table without any, or whose standings fail, is left out: a community's
//!   site lists what it plays), every player.
//! - `export.jsonl`: the same bytes as `laurel export` (the whole ledger, whatever
//!   the clocks say: the head above is its digest).
//! - `table-<table>.html`, and `table-<table>--<tournament>.html` for tables shown
//!   per tournament (`cards`, `sbr`): the standings and the system's extra
//!   tables; every `player` cell links to the player's page.
//! - `player-<name>.html`: one per subject that appears in any table's `player`
//!   column or in the audit trail: where they stand in each table (links back),
//!   an SVG line chart of every value over time (one point per change: x = the
//!   change's date, y = its new value, one series per system) and the `history`
//!   table with formulas.
//!
//! # File names
//!
//! [`slug`]: ASCII letters and digits are kept (lowercased), every run of other
//! characters becomes one `-`, leading and trailing `-` are dropped, and the
//! result is cut at 48 characters. If that is not exactly the name (case,
//! spaces, punctuation or non-ASCII were changed, or it was cut), `-` and the first
//! 8 hex digits of the BLAKE3 hash of the name are appended: `Ann Smith` →
//! `ann-smith-1c0f3e5a`, `ann` → `ann`, `Ann` ≠ `ann`. A name that already ends
//! like that (`a-b-08b91858`) is hashed as well, so it never takes the page of
//! the name whose slug it spells. Names are therefore stable
//! from one month's site to the next and unique in practice, and safe on every
//! file system (lowercase only, so case-insensitive ones too). The prefixes
//! keep tables, players and `index.html` apart; a slug never contains `--`, which
//! separates table from tournament. Should two names still collide, [`Files`]
//! gives the later one (in name order) a `-2`, `-3`, ... suffix.
//!
//! Everything that comes from events (names, tournaments, formulas, messages)
//! goes through [`escape`]. Pages are pure functions of a [`Site`], so they are
//! unit-tested on hand-made data.
//!
//! The page HTML is in `pages`, the chart in `chart`, and the page names and
//! what the index and player pages need of the tables in `outline`.

mod chart;
mod outline;
mod pages;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;

use crate::error::{Error, Result};
use crate::output::{Report, Stamp};
use crate::systems::Change;

pub use chart::chart;
pub use outline::{slug, Files, Outline};
pub use pages::{escape, render_player, PIECE, VERIFY_SCRIPT};
use pages::{render_index, render_table};

/// One standings page: a table, narrowed to a tournament where the table is
/// shown per tournament, and what its standings returned.
#[derive(Debug, Clone, PartialEq)]
pub struct TableView {
    pub table: String,
    pub tournament: Option<String>,
    pub standings: std::result::Result<Report, String>,
}

impl TableView {
    /// `cards — tournament T1`, or just `valar`.
    pub fn label(&self) -> String {
        label(&self.table, self.tournament.as_deref())
    }
}

fn label(table: &str, tournament: Option<&str>) -> String {
    match tournament {
        Some(t) => format!("{table} — tournament {t}"),
        None => table.to_string(),
    }
}

/// Everything the site is rendered from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Site {
    /// The site's name, on every page (`laurel site --title`).
    pub title: String,
    /// When the ledger last changed, as far as the tables go: the
    /// `recorded_at` of the last record they were computed from (record
    /// `stamp.known_at`; `None` for an empty ledger). Not the latest event's
    /// `at`: a result entered late, a correction or a rule change alters the
    /// tables without a later `at`, and the site was updated then.
    pub updated: Option<String>,
    /// The ledger head: the last record of `export.jsonl`.
    pub head_seq: u64,
    pub head_hash: String,
    /// What the tables were computed against (`--as-of`, `--known-at`).
    pub stamp: Stamp,
    /// Every subject with a change in the audit trail (the changes themselves
    /// come to [`Site::pages_staged`] in groups: `laurel site` reads them back
    /// from a [`crate::spill`]).
    pub spilled_subjects: BTreeSet<String>,
}

/// Where pages go: `put(file name, piece, last piece of the page?)`, a page's
/// pieces one after another.
pub type Put<'a> = dyn FnMut(&str, &str, bool) -> Result<()> + 'a;

/// The audit trail in groups: `groups(page)` calls `page` once per group of
/// changes, in fold order, every change of a subject in one group.
pub type Groups<'a> = dyn FnMut(&mut dyn FnMut(&[Change]) -> Result<()>) -> Result<()> + 'a;

impl Site {
    /// Render every page, index first, handing each to `put` as soon as it is
    /// made, in pieces: `put(file name, piece, last piece?)`. The pages are never
    /// all held at once (a large ledger makes hundreds of MB of them), nor is a
    /// big one (CFR's table page at 1M events). Returns the number of pages.
    ///
    /// `views(each)` makes every table in display order, one at a time, and
    /// calls `each` with it. It is called twice, and must make the same tables
    /// both times: the first pass outlines them (see [`Outline`]), the second
    /// renders their pages. So no two tables' reports need be held at once.
    /// Then `views` is dropped, and whatever it holds with it, before the player
    /// pages are made: those of the players in each group of `groups` (see
    /// [`Groups`]) from it, then those of players without changes.
    pub fn pages_staged(
        &self,
        mut views: impl FnMut(&mut dyn FnMut(&TableView) -> Result<()>) -> Result<()>,
        put: &mut Put<'_>,
        groups: &mut Groups<'_>,
    ) -> Result<usize> {
        let mut outline = Outline::default();
        views(&mut |view| {
            outline.add(view);
            Ok(())
        })?;
        outline.name_players(self.spilled_subjects.clone());
        put("index.html", &render_index(self, &outline), true)?;
        let mut n = 1;
        views(&mut |view| {
            n += self.table_page(&outline.files, view, put)?;
            Ok(())
        })?;
        drop(views);
        Ok(n + self.player_pages(&mut outline, put, groups)?)
    }

    /// A table's page, if it has one (its standings did not fail): the number
    /// of pages made, 0 or 1.
    fn table_page(&self, files: &Files, view: &TableView, put: &mut Put<'_>) -> Result<usize> {
        let (Some(f), Ok(r)) = (
            files.table(&view.table, view.tournament.as_deref()),
            &view.standings,
        ) else {
            return Ok(0);
        };
        render_table(self, files, (view, r), &mut |piece, last| {
            put(f, piece, last)
        })?;
        Ok(1)
    }

    /// Every player's page: those in each group of the trail, then those
    /// without changes. Returns how many.
    fn player_pages(
        &self,
        outline: &mut Outline,
        put: &mut Put<'_>,
        groups: &mut Groups<'_>,
    ) -> Result<usize> {
        // Each player's places are dropped once their page is made.
        let mut places = std::mem::take(&mut outline.places);
        let (outline, files) = (&*outline, &outline.files);
        let mut n = 0;
        let mut player = |p: &str, changes: &[&Change]| -> Result<()> {
            let lines = places
                .remove(p)
                .map_or_else(String::new, |mine| outline.standing(&mine));
            if let Some(f) = files.player(p) {
                put(f, &render_player(self, files, p, changes, &lines), true)?;
                n += 1;
            }
            Ok(())
        };
        // The players (every table's, named by `Outline::name_players`) without changes.
        let quiet: Vec<&str> = files
            .players()
            .map(|(p, _)| p)
            .filter(|p| !self.spilled_subjects.contains(*p))
            .collect();
        groups(&mut |changes| {
            let mut by_subject: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
            for c in changes {
                by_subject.entry(&c.subject).or_default().push(c);
            }
            by_subject
                .into_iter()
                .try_for_each(|(p, cs)| player(p, &cs))
        })?;
        for p in quiet {
            player(p, &[])?;
        }
        Ok(n)
    }
}

/// Write every page (see [`Site::pages_staged`]) and `export.jsonl` (what
/// `export` writes to it: the bytes of `laurel export`) into `dir`, creating it;
/// files of the same names are replaced, others left alone. Each page is
/// written as soon as it is rendered. Returns the number of pages.
pub fn write_staged(
    dir: &Path,
    site: &Site,
    views: impl FnMut(&mut dyn FnMut(&TableView) -> Result<()>) -> Result<()>,
    groups: &mut Groups<'_>,
    export: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
) -> Result<usize> {
    build_beside(dir, |stage| {
        let mut put = files_in(stage)?;
        let pages = site.pages_staged(views, &mut put, groups)?;
        write_export(stage, export)?;
        Ok(pages)
    })
}

/// Run `build` on a new directory beside `dir` (`.NAME.building-PID` in the
/// same parent, so a rename moves it), then put that directory in `dir`'s
/// place: readers of `dir` see the old site or the new one, never a mix, and
/// no page of the old one survives. A failed build removes its directory;
/// a killed one's is removed by the next build beside the same `dir`.
///
/// `dir` must be new, empty, or a site (it holds `index.html` and
/// `export.jsonl`): any other directory is refused, not replaced.
fn build_beside<T>(dir: &Path, build: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let (parent, name) = target_parts(dir)?;
    remove_stale(&parent, &name);
    let pid = std::process::id();
    let stage = parent.join(format!(".{name}.building-{pid}"));
    let io = |p: &Path| {
        let shown = p.display().to_string();
        move |e| Error::io(shown, e)
    };
    if stage.exists() {
        std::fs::remove_dir_all(&stage).map_err(io(&stage))?;
    }
    std::fs::create_dir_all(&stage).map_err(io(&stage))?;
    let built = match build(&stage) {
        Ok(t) => t,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&stage);
            return Err(e);
        }
    };
    if !dir.exists() {
        std::fs::rename(&stage, dir).map_err(io(dir))?;
        return Ok(built);
    }
    let old = parent.join(format!(".{name}.old-{pid}"));
    std::fs::rename(dir, &old).map_err(io(dir))?;
    if let Err(e) = std::fs::rename(&stage, dir) {
        let _ = std::fs::rename(&old, dir);
        return Err(io(dir)(e));
    }
    std::fs::remove_dir_all(&old).map_err(io(&old))?;
    Ok(built)
}

/// `dir`'s parent and name, once `dir` is known to be new, empty or a site.
fn target_parts(dir: &Path) -> Result<(std::path::PathBuf, String)> {
    let name = dir.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let Some(name) = name.filter(|n| n != "." && n != "..") else {
        return Err(Error::Usage(format!(
            "site: {} is not a directory name; give one, e.g. `laurel site public`",
            dir.display()
        )));
    };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        let is_site = dir.join("index.html").is_file() && dir.join("export.jsonl").is_file();
        if entries.next().is_some() && !is_site {
            return Err(Error::Usage(format!(
                "site: {} holds files and is not a laurel site (no index.html and \
                 export.jsonl); give a new or empty directory",
                dir.display()
            )));
        }
    } else if dir.exists() {
        return Err(Error::Usage(format!(
            "site: {} is not a directory",
            dir.display()
        )));
    }
    Ok((parent, name))
}

/// Remove what killed builds beside `parent/name` left: `.NAME.building-PID`
/// and `.NAME.old-PID` directories whose process is gone (on systems without
/// `/proc` nothing is removed: a live build's directory must not be).
fn remove_stale(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let proc_fs = Path::new("/proc/self").exists();
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&format!(".{name}.")))
        else {
            continue;
        };
        let pid = rest
            .strip_prefix("building-")
            .or_else(|| rest.strip_prefix("old-"))
            .and_then(|p| p.parse::<u32>().ok());
        let gone = pid.is_some_and(|p| {
            proc_fs && p != std::process::id() && !Path::new(&format!("/proc/{p}")).exists()
        });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A [`Put`] that writes each page to its file in `dir` (created).
fn files_in(dir: &Path) -> Result<impl FnMut(&str, &str, bool) -> Result<()> + '_> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let mut open: Option<std::io::BufWriter<std::fs::File>> = None;
    Ok(move |name: &str, piece: &str, last: bool| {
        let p = dir.join(name);
        let io = |e| Error::io(p.display().to_string(), e);
        let w = match &mut open {
            Some(w) => w,
            None => open.insert(std::io::BufWriter::new(
                std::fs::File::create(&p).map_err(io)?,
            )),
        };
        w.write_all(piece.as_bytes()).map_err(io)?;
        if last {
            w.flush().map_err(io)?;
            open = None;
        }
        Ok(())
    })
}

fn write_export(
    dir: &Path,
    export: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    let p = dir.join("export.jsonl");
    let io = |e| Error::io(p.display().to_string(), e);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&p).map_err(io)?);
    export(&mut w)?;
    w.flush().map_err(io)
}

#[cfg(test)]
mod tests;
