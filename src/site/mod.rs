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
//! - `index.html`: the ledger head (seq and hash) that `export.jsonl` ends at, the
//!   clocks (`--as-of`, `--known-at`) and the record the tables were computed
//!   from, how to verify the export against the head (README's Python script,
//!   quoted), every standings table (a table whose standings fail is listed with
//!   its message, not linked), every player.
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
//! `ann-smith-1c0f3e5a`, `ann` → `ann`, `Ann` ≠ `ann`. Names are therefore stable
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
use outline::player_cells;
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
    /// The ledger head: the last record of `export.jsonl`.
    pub head_seq: u64,
    pub head_hash: String,
    /// What the tables were computed against (`--as-of`, `--known-at`).
    pub stamp: Stamp,
    /// Every table, reports and all (what [`Site::pages_in_groups`] renders;
    /// [`Site::pages_staged`] takes its tables from its `views` instead).
    pub tables: Vec<TableView>,
    /// The audit trail of the fold, in fold order (oldest first).
    pub changes: Vec<Change>,
    /// Subjects whose changes are not in `changes` but come to
    /// [`Site::pages_in_groups`] from elsewhere (`laurel site`: a [`crate::spill`]).
    pub spilled_subjects: BTreeSet<String>,
}

/// Where pages go: `put(file name, piece, last piece of the page?)`, a page's
/// pieces one after another.
pub type Put<'a> = dyn FnMut(&str, &str, bool) -> Result<()> + 'a;

/// The audit trail in groups: `groups(page)` calls `page` once per group of
/// changes, in fold order, every change of a subject in one group.
pub type Groups<'a> = dyn FnMut(&mut dyn FnMut(&[Change]) -> Result<()>) -> Result<()> + 'a;

impl Site {
    /// Every subject of a `player` column of any table, or of the audit trail, sorted.
    pub fn players(&self) -> Vec<String> {
        let mut all = self.trail_subjects();
        for t in &self.tables {
            if let Ok(r) = &t.standings {
                for table in std::iter::once(&r.main).chain(&r.extra) {
                    all.extend(player_cells(table));
                }
            }
        }
        all.into_iter().collect()
    }

    /// Every page: `(file name, HTML)`, index first (what [`write()`] writes; tests).
    pub fn pages(&self) -> Vec<(String, String)> {
        let mut pages = Vec::new();
        let mut html = String::new();
        let mut keep = |name: &str, piece: &str, last: bool| {
            html.push_str(piece);
            if last {
                pages.push((name.to_string(), std::mem::take(&mut html)));
            }
            Ok(())
        };
        // `keep` cannot fail, so neither can this.
        let _ = self.each_page(&mut keep);
        pages
    }

    /// Every subject with a change, kept or spilled.
    fn trail_subjects(&self) -> BTreeSet<String> {
        let mut all = self.spilled_subjects.clone();
        all.extend(self.changes.iter().map(|c| c.subject.clone()));
        all
    }

    /// Render every page, index first, handing each to `put` as soon as it is made,
    /// in pieces: `put(file name, piece, last piece?)`. The pages are never all held
    /// at once (100,000 generated events make 832 MB of them), nor is a big one
    /// (CFR's table page at 1M events). Returns the number of pages.
    pub fn each_page(&self, put: &mut Put<'_>) -> Result<usize> {
        self.pages_in_groups(put, &mut |page| page(&self.changes))
    }

    /// [`Site::each_page`] with the trail in groups: `groups` calls its argument
    /// once per group of changes (in fold order; every change of a subject in one
    /// group), `self.changes` included. The pages of the players in a group are
    /// made from it, then those of players without changes.
    pub fn pages_in_groups(&self, put: &mut Put<'_>, groups: &mut Groups<'_>) -> Result<usize> {
        let views =
            |each: &mut dyn FnMut(&TableView) -> Result<()>| self.tables.iter().try_for_each(each);
        self.pages_staged(views, put, groups)
    }

    /// [`Site::pages_in_groups`] with the tables from `views` instead of
    /// `self.tables`: `views(each)` makes every table in display order, one at a
    /// time, and calls `each` with it. It is called twice, and must make the same
    /// tables both times: the first pass outlines them (see [`Outline`]), the
    /// second renders their pages. So no two tables' reports need be held at
    /// once. Then `views` is dropped, and whatever it holds with it, before the
    /// player pages are made.
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
        outline.name_players(self.trail_subjects());
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

    /// Every player's page: those in each group of the trail (see
    /// [`Site::pages_in_groups`]), then those without changes. Returns how many.
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
        let trail = self.trail_subjects();
        let quiet: Vec<&str> = files
            .players()
            .map(|(p, _)| p)
            .filter(|p| !trail.contains(*p))
            .collect();
        drop(trail);
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

/// Write every page and `export.jsonl` (what `export` writes to it: the bytes of
/// `laurel export`) into `dir`, creating it; files of the same names are replaced,
/// others left alone. Each page is written as soon as it is rendered. Returns the
/// number of pages.
pub fn write(
    dir: &Path,
    site: &Site,
    export: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
) -> Result<usize> {
    let mut put = files_in(dir)?;
    let pages = site.each_page(&mut put)?;
    write_export(dir, export)?;
    Ok(pages)
}

/// [`write()`] with the tables from `views` and the trail in groups (see
/// [`Site::pages_staged`]).
pub fn write_staged(
    dir: &Path,
    site: &Site,
    views: impl FnMut(&mut dyn FnMut(&TableView) -> Result<()>) -> Result<()>,
    groups: &mut Groups<'_>,
    export: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
) -> Result<usize> {
    let mut put = files_in(dir)?;
    let pages = site.pages_staged(views, &mut put, groups)?;
    write_export(dir, export)?;
    Ok(pages)
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
