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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::codec;
use crate::error::{Error, Result};
use crate::output::{Report, Stamp, Table};
use crate::systems::Change;
use crate::time;

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

/// HTML-escape text for element content and double- or single-quoted attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A file-name-safe slug of `name` (see the module docs for the scheme).
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    s.truncate(48);
    let s = s.trim_end_matches('-').to_string();
    if s == name && !s.is_empty() {
        return s;
    }
    let tag = &blake3::hash(name.as_bytes()).to_hex()[..8];
    if s.is_empty() {
        tag.to_string()
    } else {
        format!("{s}-{tag}")
    }
}

/// Where pages go: `put(file name, piece, last piece of the page?)`, a page's
/// pieces one after another.
pub type Put<'a> = dyn FnMut(&str, &str, bool) -> Result<()> + 'a;

/// The audit trail in groups: `groups(page)` calls `page` once per group of
/// changes, in fold order, every change of a subject in one group.
pub type Groups<'a> = dyn FnMut(&mut dyn FnMut(&[Change]) -> Result<()>) -> Result<()> + 'a;

/// The file name of every page, unique within one site.
#[derive(Debug, Clone, Default)]
pub struct Files {
    players: BTreeMap<String, String>,
    tables: BTreeMap<(String, Option<String>), String>,
}

impl Files {
    /// Assign names: tables in display order, then players in name order.
    /// (`Site::pages_staged` names them through its own [`Outline`].)
    #[cfg(test)]
    pub fn new(site: &Site) -> Self {
        let mut outline = Outline::default();
        site.tables.iter().for_each(|t| outline.add(t));
        outline.name_players(site.trail_subjects());
        outline.files
    }

    /// Every player ([`Site::players`]) in name order, with their page.
    pub fn players(&self) -> impl Iterator<Item = (&str, &str)> {
        self.players.iter().map(|(p, f)| (p.as_str(), f.as_str()))
    }

    pub fn player(&self, name: &str) -> Option<&str> {
        self.players.get(name).map(String::as_str)
    }

    pub fn table(&self, table: &str, tournament: Option<&str>) -> Option<&str> {
        self.tables
            .get(&(table.to_string(), tournament.map(str::to_string)))
            .map(String::as_str)
    }
}

/// A table as the index lists it: its main table's row count, or its error.
#[derive(Debug, Clone, PartialEq)]
struct Listed {
    table: String,
    tournament: Option<String>,
    rows: std::result::Result<usize, String>,
}

/// What the index, the links and the player pages need of the tables, gathered
/// one table at a time ([`Outline::add`]), so that a table's report can be
/// dropped once it is read: keeping every report (CFR's event table has a row
/// per event score) held a 1M-event site at 890 MB.
#[derive(Debug)]
pub struct Outline {
    tables: Vec<Listed>,
    /// The table pages' names so far; the players' once [`Outline::name_players`] ran.
    files: Files,
    used: BTreeSet<String>,
    /// Every subject of any table's `player` column.
    players: BTreeSet<String>,
    /// Each player's place in every table (see [`Places`]).
    places: BTreeMap<String, Places>,
}

impl Default for Outline {
    fn default() -> Self {
        Outline {
            tables: Vec::new(),
            files: Files::default(),
            used: ["index.html", "export.jsonl"].map(String::from).into(),
            players: BTreeSet::new(),
            places: BTreeMap::new(),
        }
    }
}

impl Outline {
    /// The next table in display order: listed, named (a table whose standings
    /// fail has no page; a table and tournament seen before keeps its name), its
    /// players and their places noted.
    pub fn add(&mut self, view: &TableView) {
        self.tables.push(Listed {
            table: view.table.clone(),
            tournament: view.tournament.clone(),
            rows: view
                .standings
                .as_ref()
                .map(|r| r.main.rows.len())
                .map_err(String::clone),
        });
        let Ok(r) = &view.standings else { return };
        let key = (view.table.clone(), view.tournament.clone());
        if !self.files.tables.contains_key(&key) {
            let base = match &view.tournament {
                Some(tn) => format!("table-{}--{}", slug(&view.table), slug(tn)),
                None => format!("table-{}", slug(&view.table)),
            };
            let name = self.unique(base);
            self.files.tables.insert(key, name);
        }
        for table in std::iter::once(&r.main).chain(&r.extra) {
            self.players.extend(player_cells(table));
        }
        self.note_places(&r.main);
    }

    /// Each row's player, rank and score (the last column of each name, as
    /// JSON keeps it), under the table just listed.
    fn note_places(&mut self, main: &Table) {
        let table = self.tables.len() - 1;
        let col = |name: &str| main.columns.iter().rposition(|c| c == name);
        let (player, rank, score) = (col("player"), col("rank"), col("score"));
        let text = |row: &[Value], i: Option<usize>| {
            i.and_then(|i| row.get(i))
                .map(cell_text)
                .unwrap_or_default()
        };
        for row in main.rows.iter() {
            // A row without a player is on nobody's page.
            let name = text(&row, player);
            if !name.is_empty() {
                let places = self.places.entry(name).or_default();
                places.push(table, &text(&row, rank), &text(&row, score));
            }
        }
    }

    /// `base.html`, or `base-2.html`, ... if that is taken.
    fn unique(&mut self, base: String) -> String {
        let mut name = format!("{base}.html");
        let mut n = 2;
        while !self.used.insert(name.clone()) {
            name = format!("{base}-{n}.html");
            n += 1;
        }
        name
    }

    /// Name the player pages, once every table is added: the tables' players and
    /// `trail` (every subject with a change), in name order.
    pub fn name_players(&mut self, mut trail: BTreeSet<String>) {
        trail.append(&mut self.players);
        for p in trail {
            let name = self.unique(format!("player-{}", slug(&p)));
            self.files.players.insert(p, name);
        }
        // Only the players' and tables' names are looked up from here on.
        self.used = BTreeSet::new();
    }

    /// A player's "Standings" list items from their places (rank and score in
    /// every published table, tables in display order, rows in rank order).
    /// Gathering them in one pass over the tables keeps `site` linear: scanning
    /// every table for each player took 535 s of CPU at 100,000 events.
    fn standing(&self, places: &Places) -> String {
        let mut lines = String::new();
        for (i, rank, score) in places.iter() {
            let t = &self.tables[i];
            let (table, tournament) = (&t.table, t.tournament.as_deref());
            // A table with places has a page (its standings did not fail).
            let file = self.files.table(table, tournament).unwrap_or_default();
            let _ = writeln!(
                lines,
                "<li><a href=\"{}\">{}</a>: rank {}, score {}</li>",
                escape(file),
                escape(&label(table, tournament)),
                escape(rank),
                escape(score)
            );
        }
        lines
    }
}

/// A player's places, packed: per table row naming them, the table's index in
/// the outline, then the rank's and the score's text, each after its length
/// (LEB128): a few bytes plus the texts, where a finished list item is about
/// 80 (100,000 generated events: 106,146 places, 8.2 MB of list items).
#[derive(Debug, Default)]
struct Places(Vec<u8>);

impl Places {
    fn push(&mut self, table: usize, rank: &str, score: &str) {
        codec::put(&mut self.0, table as u64);
        for s in [rank, score] {
            codec::put(&mut self.0, s.len() as u64);
            self.0.extend_from_slice(s.as_bytes());
        }
    }

    /// `(table, rank, score)`, in the order pushed.
    fn iter(&self) -> impl Iterator<Item = (usize, &str, &str)> {
        let mut rest = self.0.as_slice();
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let table = codec::take(&mut rest) as usize;
            Some((table, take_text(&mut rest), take_text(&mut rest)))
        })
    }
}

fn take_text<'a>(bytes: &mut &'a [u8]) -> &'a str {
    let len = codec::take(bytes) as usize;
    let (text, rest) = bytes.split_at(len.min(bytes.len()));
    *bytes = rest;
    // Only whole `&str`s were pushed.
    std::str::from_utf8(text).unwrap_or_default()
}

/// The text of a table cell.
fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Tables whose `player` column names subjects.
fn player_cells(t: &Table) -> impl Iterator<Item = String> + '_ {
    let col = t.columns.iter().position(|c| c == "player");
    t.rows
        .iter()
        .filter_map(move |r| col.and_then(|i| r.into_iter().nth(i)))
        .map(|v| cell_text(&v))
        .filter(|s| !s.is_empty())
}

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

const CSS: &str = r#":root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1a1a1a;background:#fff}
header{background:#f3f4f6;border-bottom:1px solid #c4c8cf}
header nav,main,footer{max-width:62rem;margin:0 auto;padding:0 1rem}
header nav{padding:.5rem 1rem}
a{color:#0b4f9c}
a:focus-visible{outline:3px solid #8a4b00;outline-offset:2px}
.skip{position:absolute;left:-9999px}
.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.25rem .5rem}
h1{font-size:1.6rem;line-height:1.25;margin:1rem 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
code,pre,.hash{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
.hash{overflow-wrap:anywhere;word-break:break-all}
pre{background:#f3f4f6;padding:.75rem;overflow-x:auto;font-size:.85rem}
.scroll{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{padding:.3rem .6rem;border-bottom:1px solid #c4c8cf;text-align:left;vertical-align:top}
th{background:#f3f4f6}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.formula{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
.error{color:#8a1c1c}
.meta{color:#374151}
figure{margin:1rem 0}
svg.chart{width:100%;min-width:30rem;height:auto;max-width:48rem;display:block}
svg.chart text{font:12px system-ui,sans-serif;fill:#1a1a1a}
ul.players{columns:14rem;padding-left:1.2rem}
footer{border-top:1px solid #c4c8cf;margin-top:2rem;padding-top:1rem;padding-bottom:1rem;color:#374151;font-size:.9rem}
@media (max-width:40rem){body{font-size:15px}th,td{padding:.25rem .4rem}h1{font-size:1.3rem}}
@media print{header,.skip{display:none}body{font-size:10.5pt;color:#000}a{color:#000;text-decoration:none}
.scroll{overflow:visible}thead{display:table-header-group}tr,figure{break-inside:avoid}pre{white-space:pre-wrap}
th{background:none}main,footer{max-width:none;padding:0}}
"#;

/// The README's outside-verification script ("Verifying a ledger without laurel").
pub const VERIFY_SCRIPT: &str = r#"import json, sys
from blake3 import blake3          # pip install blake3

prev, seq = "0" * 64, 0
for line in open(sys.argv[1], encoding="utf-8"):
    rec = json.loads(line)
    stored = rec.pop("hash")
    assert rec["prev"] == prev and rec["seq"] == seq + 1, f"chain broken at {rec['seq']}"
    canon = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert blake3(canon.encode()).hexdigest() == stored, f"record {rec['seq']} was changed"
    prev, seq = stored, rec["seq"]
print(seq, prev)                   # must equal the published head
"#;

/// The page skeleton around `body` (already HTML).
fn page(title: &str, site: &Site, body: &str) -> String {
    format!("{}{body}{}", page_head(title), page_tail(site))
}

/// A page up to its body.
fn page_head(title: &str) -> String {
    format!(
        r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:">
<meta name="generator" content="laurel {version}">
<title>{title} · laurel</title>
<style>
{CSS}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><nav aria-label="Site"><a href="index.html">Ledger, tables and players</a></nav></header>
<main id="main">
"##,
        version = env!("CARGO_PKG_VERSION"),
        title = escape(title),
    )
}

/// A page after its body.
fn page_tail(site: &Site) -> String {
    format!(
        "</main>\n<footer>{stamp}</footer>\n</body>\n</html>\n",
        stamp = stamp_line(site),
    )
}

fn stamp_line(site: &Site) -> String {
    let as_of = match &site.stamp.as_of {
        Some(a) => format!("as of <strong>{}</strong>", escape(a)),
        None => "with every event (no as-of cut-off)".to_string(),
    };
    format!(
        "Tables {as_of}, computed from records 1–{k} (record {k}: <code class=\"hash\">{h}</code>). \
         Ledger head {s} <code class=\"hash\">{hh}</code>; <a href=\"index.html#verify\">how to verify</a>.",
        k = site.stamp.known_at,
        h = escape(&site.stamp.head),
        s = site.head_seq,
        hh = escape(&site.head_hash),
    )
}

/// `<thead>` with one `<th scope="col">` per column, then the opening `<tbody>`.
fn column_headers(out: &mut String, columns: &[String]) {
    out.push_str("<thead><tr>");
    for c in columns {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape(c));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
}

/// A table, appended to `out`; `emit` takes what `out` holds each time it passes
/// [`PIECE`] bytes, so a table of a million rows (CFR's event scores at 1M
/// events) is never one string.
fn html_table(
    out: &mut String,
    (t, caption): (&Table, &str),
    files: &Files,
    emit: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<()> {
    out.push_str("<div class=\"scroll\"><table>\n");
    let _ = writeln!(out, "<caption>{}</caption>", escape(caption));
    column_headers(out, &t.columns);
    for row in &t.rows {
        out.push_str("<tr>");
        for (col, v) in t.columns.iter().zip(&row) {
            let text = cell_text(v);
            let class = if v.is_number() { " class=\"num\"" } else { "" };
            let inner = match files.player(&text).filter(|_| col == "player") {
                Some(f) => format!("<a href=\"{}\">{}</a>", escape(f), escape(&text)),
                None => escape(&text),
            };
            let _ = write!(out, "<td{class}>{inner}</td>");
        }
        out.push_str("</tr>\n");
        if out.len() >= PIECE {
            emit(out)?;
            out.clear();
        }
    }
    if t.rows.is_empty() {
        let _ = writeln!(
            out,
            "<tr><td colspan=\"{}\">(no rows)</td></tr>",
            t.columns.len().max(1)
        );
    }
    out.push_str("</tbody></table></div>\n");
    Ok(())
}

/// Bytes of a page held before they are handed on (see [`html_table`]).
pub const PIECE: usize = 256 * 1024;

/// `index.html`.
fn render_index(site: &Site, outline: &Outline) -> String {
    let files = &outline.files;
    let mut b = String::new();
    b.push_str("<h1>Ratings ledger</h1>\n");
    let _ = writeln!(
        b,
        "<p>Ledger head: record <strong id=\"head-seq\">{}</strong>, hash \
         <code class=\"hash\" id=\"head-hash\">{}</code></p>",
        site.head_seq,
        escape(&site.head_hash)
    );
    let as_of = match &site.stamp.as_of {
        Some(a) => format!("<strong id=\"as-of\">{}</strong>", escape(a)),
        None => "<strong id=\"as-of\">no cut-off</strong> (every event)".to_string(),
    };
    let _ = writeln!(
        b,
        "<p>As of: {as_of}. Tables computed from records 1–{k}{known}; \
         record {k} has hash <code class=\"hash\">{h}</code>.</p>",
        k = site.stamp.known_at,
        known = if site.stamp.known_at < site.head_seq {
            " (known-at cut-off)"
        } else {
            ""
        },
        h = escape(&site.stamp.head),
    );

    b.push_str("<h2 id=\"tables\">Standings</h2>\n");
    b.push_str(
        "<div class=\"scroll\"><table>\n<caption>Standings tables</caption>\n\
         <thead><tr><th scope=\"col\">table</th><th scope=\"col\">tournament</th>\
         <th scope=\"col\">status</th></tr></thead>\n<tbody>\n",
    );
    for t in &outline.tables {
        let tournament = escape(t.tournament.as_deref().unwrap_or(""));
        match (&t.rows, files.table(&t.table, t.tournament.as_deref())) {
            (Ok(rows), Some(f)) => {
                let _ = writeln!(
                    b,
                    "<tr><td><a href=\"{}\">{}</a></td><td>{tournament}</td><td>{} row(s)</td></tr>",
                    escape(f),
                    escape(&t.table),
                    rows
                );
            }
            (Err(e), _) => {
                let _ = writeln!(
                    b,
                    "<tr><td>{}</td><td>{tournament}</td><td class=\"error\">{}</td></tr>",
                    escape(&t.table),
                    escape(e)
                );
            }
            (Ok(_), None) => {}
        }
    }
    b.push_str("</tbody></table></div>\n");

    let players = files.players.len();
    let _ = writeln!(b, "<h2 id=\"players\">Players ({players})</h2>");
    if players == 0 {
        b.push_str("<p>No player appears in any table or change yet.</p>\n");
    } else {
        b.push_str("<ul class=\"players\">\n");
        for (p, f) in files.players() {
            let _ = writeln!(b, "<li><a href=\"{}\">{}</a></li>", escape(f), escape(p));
        }
        b.push_str("</ul>\n");
    }

    let head = format!("{} {}", site.head_seq, escape(&site.head_hash));
    let _ = write!(
        b,
        r#"<h2 id="verify">Verify this publication</h2>
<p>The ledger is a hash chain: every record's BLAKE3 hash covers the one before it, so
the head above is a digest of the whole history these tables were computed from.
<a href="export.jsonl">export.jsonl</a> holds every record, one canonical JSON line each
(the same bytes as <code>laurel export</code>). To check it without laurel, recompute
each hash with this script from laurel's README (section &ldquo;Verifying a ledger without
laurel&rdquo;), saved as <code>verify.py</code>:</p>
<pre><code>{script}</code></pre>
<p><code>python3 verify.py export.jsonl</code> must print <code class="hash">{head}</code>.
The tables used records 1–{k}: line {k} of the export carries the hash
<code class="hash">{h}</code> given above. Whoever holds the ledger can also run
<code>laurel verify --expect {s}:{hh}</code> to check that this published head is
still in the chain, later records included.</p>
"#,
        script = escape(VERIFY_SCRIPT),
        k = site.stamp.known_at,
        h = escape(&site.stamp.head),
        s = site.head_seq,
        hh = escape(&site.head_hash),
    );
    page("Ratings ledger", site, &b)
}

/// A standings page, in pieces: `emit(piece, last)`.
fn render_table(
    site: &Site,
    files: &Files,
    (view, report): (&TableView, &Report),
    emit: &mut dyn FnMut(&str, bool) -> Result<()>,
) -> Result<()> {
    let mut b = page_head(&format!("Standings: {}", view.label()));
    let _ = writeln!(b, "<h1>Standings: {}</h1>", escape(&view.label()));
    let _ = writeln!(b, "<p class=\"meta\">{}</p>", stamp_line(site));
    let caption = if report.main.title.is_empty() {
        view.label()
    } else {
        report.main.title.clone()
    };
    let mut more = |piece: &str| emit(piece, false);
    html_table(&mut b, (&report.main, &caption), files, &mut more)?;
    for t in &report.extra {
        let caption = if t.title.is_empty() {
            &t.name
        } else {
            &t.title
        };
        let _ = writeln!(b, "<h2>{}</h2>", escape(caption));
        html_table(&mut b, (t, caption), files, &mut more)?;
    }
    b.push_str("<p><a href=\"index.html#tables\">All tables</a></p>\n");
    b.push_str(&page_tail(site));
    emit(&b, true)
}

/// A player's page: where they stand (`standing`: their list items from
/// `Outline::standing`), the chart, the history with formulas.
pub fn render_player(
    site: &Site,
    files: &Files,
    name: &str,
    changes: &[&Change],
    standing: &str,
) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "<h1>{}</h1>", escape(name));
    b.push_str("<h2>Standings</h2>\n");
    if standing.is_empty() {
        b.push_str("<p>Not in any published table.</p>\n");
    } else {
        let _ = write!(b, "<ul>\n{standing}</ul>\n");
    }
    b.push_str("<h2>Ratings over time</h2>\n");
    b.push_str(&chart(name, changes));
    let mut t = Table::new(
        "history",
        &format!("History of {name}"),
        &["seq", "at", "system", "old", "new", "formula"],
    );
    for c in changes {
        t.push(vec![
            c.seq.into(),
            time::format_short(c.at).into(),
            c.system.clone().into(),
            c.old.clone().map_or(Value::Null, Value::from),
            c.new.clone().into(),
            c.formula.clone().into(),
        ]);
    }
    b.push_str("<h2>History</h2>\n");
    b.push_str(&history_table(&t, name, files));
    b.push_str("<p><a href=\"index.html#players\">All players</a></p>\n");
    page(name, site, &b)
}

/// The history table: like [`html_table`], with the system linked to its table
/// (when it has a single page) and formulas in monospace.
fn history_table(t: &Table, name: &str, files: &Files) -> String {
    let mut out = String::from("<div class=\"scroll\"><table class=\"history\">\n");
    let _ = writeln!(
        out,
        "<caption>Every change to {}’s values, oldest first, with its record and formula</caption>",
        escape(name)
    );
    column_headers(&mut out, &t.columns);
    for row in &t.rows {
        out.push_str("<tr>");
        for (col, v) in t.columns.iter().zip(&row) {
            let text = cell_text(v);
            let (class, inner) = match col.as_str() {
                "seq" | "old" | "new" => (" class=\"num\"", escape(&text)),
                "formula" => (" class=\"formula\"", escape(&text)),
                "system" => match files.table(&text, None) {
                    Some(f) => (
                        "",
                        format!("<a href=\"{}\">{}</a>", escape(f), escape(&text)),
                    ),
                    None => ("", escape(&text)),
                },
                _ => ("", escape(&text)),
            };
            let _ = write!(out, "<td{class}>{inner}</td>");
        }
        out.push_str("</tr>\n");
    }
    if t.rows.is_empty() {
        out.push_str("<tr><td colspan=\"6\">(no changes recorded)</td></tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// Series colours (contrast at least 3:1 on white) and dash patterns, so a
/// series is told apart without colour too.
const COLOURS: &[&str] = &[
    "#0072b2", "#c0392b", "#1b7f4b", "#7a3e9d", "#8a5a00", "#1a1a1a", "#b0306a", "#31606e",
];
const DASHES: &[&str] = &["", "6 3", "2 3", "8 3 2 3", "12 4", "4 4"];

/// Chart geometry (SVG user units): one panel per system, stacked, sharing
/// the date axis.
const W: f64 = 640.0;
const PANEL: f64 = 150.0;
const GAP: f64 = 58.0;
const LEFT: f64 = 68.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 48.0;

/// Rounded ticks covering `[lo, hi]`: `(first, last, step)`.
fn nice_ticks(lo: f64, hi: f64) -> (f64, f64, f64) {
    let (lo, hi) = if hi - lo < 1e-9 {
        let pad = (lo.abs() * 0.05).max(1.0);
        (lo - pad, hi + pad)
    } else {
        (lo, hi)
    };
    let rough = (hi - lo) / 4.0;
    let mag = 10f64.powf(rough.log10().floor());
    let norm = rough / mag;
    let step = mag
        * if norm <= 1.0 {
            1.0
        } else if norm <= 2.0 {
            2.0
        } else if norm <= 5.0 {
            5.0
        } else {
            10.0
        };
    ((lo / step).floor() * step, (hi / step).ceil() * step, step)
}

fn fmt_num(x: f64, step: f64) -> String {
    let places = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    let s = format!("{x:.places$}");
    if s.starts_with('-') && s.trim_start_matches(['-', '0', '.']).is_empty() {
        s[1..].to_string()
    } else {
        s
    }
}

/// The inline SVG line chart of `changes` (one subject's, oldest first): one
/// point (`circle.pt`, with a `<title>`) per change whose new value is a number,
/// one series per system. Systems have their own scales (a rating near 1500 and
/// points near 10), so each series gets its own panel and y axis; the panels are
/// stacked in one SVG and share the date axis.
pub fn chart(name: &str, changes: &[&Change]) -> String {
    let mut series: BTreeMap<&str, Vec<(i64, f64, &Change)>> = BTreeMap::new();
    let mut skipped = 0;
    for c in changes {
        match c.new.trim().parse::<f64>() {
            Ok(y) if y.is_finite() => series.entry(&c.system).or_default().push((c.at, y, c)),
            _ => skipped += 1,
        }
    }
    if series.is_empty() {
        return if changes.is_empty() {
            "<p>No rating changes recorded.</p>\n".to_string()
        } else {
            "<p>No numeric values to chart; see the history below.</p>\n".to_string()
        };
    }
    let (mut x0, mut x1) = (i64::MAX, i64::MIN);
    for (x, _, _) in series.values().flatten() {
        (x0, x1) = (x0.min(*x), x1.max(*x));
    }
    if x0 == x1 {
        (x0, x1) = (x0 - time::DAY, x1 + time::DAY);
    }
    let pw = W - LEFT - RIGHT;
    let px = |x: i64| LEFT + (x - x0) as f64 / (x1 - x0) as f64 * pw;
    let panels = series.len() as f64;
    let h = TOP + panels * PANEL + (panels - 1.0) * GAP + BOTTOM;
    let n: usize = series.values().map(Vec::len).sum();
    let title = format!("Ratings of {name} over time");
    let desc = format!(
        "{n} change(s) in {} system(s): {}",
        series.len(),
        series
            .iter()
            .map(|(s, p)| format!("{s} ({} point(s))", p.len()))
            .collect::<Vec<_>>()
            .join(", ")
    );

    let mut s = String::new();
    let _ = writeln!(
        s,
        "<figure>\n<div class=\"scroll\"><svg class=\"chart\" viewBox=\"0 0 {W} {h}\" role=\"img\" \
         aria-labelledby=\"chart-title chart-desc\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <title id=\"chart-title\">{}</title>\n<desc id=\"chart-desc\">{}</desc>",
        escape(&title),
        escape(&desc)
    );
    for (i, (system, pts)) in series.iter().enumerate() {
        let top = TOP + i as f64 * (PANEL + GAP);
        let bottom = top + PANEL;
        let colour = COLOURS[i % COLOURS.len()];
        let dash = DASHES[i % DASHES.len()];
        let dash_attr = if dash.is_empty() {
            String::new()
        } else {
            format!(" stroke-dasharray=\"{dash}\"")
        };
        let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
        for (_, y, _) in pts {
            (y0, y1) = (y0.min(*y), y1.max(*y));
        }
        let (ylo, yhi, ystep) = nice_ticks(y0, y1);
        let py = |y: f64| top + (yhi - y) / (yhi - ylo) * PANEL;
        let _ = writeln!(
            s,
            "<g class=\"series\" data-system=\"{sys}\">\n\
             <text class=\"panel-title\" x=\"{LEFT}\" y=\"{:.1}\" font-weight=\"bold\">{sys}</text>",
            top - 8.0,
            sys = escape(system),
        );
        // Grid and y ticks.
        let mut y = ylo;
        let mut guard = 0;
        while y <= yhi + ystep * 1e-6 && guard < 50 {
            let yy = py(y);
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#d9dce1\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                LEFT + pw,
                LEFT - 6.0,
                yy + 4.0,
                fmt_num(y, ystep)
            );
            y += ystep;
            guard += 1;
        }
        // x ticks: up to five dates, ends included.
        let mut last = String::new();
        for k in 0..5 {
            let t = x0 + ((x1 - x0) as f64 * k as f64 / 4.0) as i64;
            let label = time::format_short(t - t.rem_euclid(time::DAY));
            if label == last {
                continue;
            }
            let xx = px(t);
            let anchor = match k {
                0 => "start",
                4 => "end",
                _ => "middle",
            };
            let _ = writeln!(
                s,
                "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{bottom:.1}\" y2=\"{:.1}\" stroke=\"#1a1a1a\"/>\
                 <text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{label}</text>",
                bottom + 5.0,
                bottom + 19.0,
            );
            last = label;
        }
        // Axes and the y label.
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{top:.1}\" y2=\"{bottom:.1}\" stroke=\"#1a1a1a\"/>\
             <line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{bottom:.1}\" y2=\"{bottom:.1}\" stroke=\"#1a1a1a\"/>\n\
             <text class=\"axis-label\" transform=\"translate(14 {:.1}) rotate(-90)\" \
             text-anchor=\"middle\">{}</text>",
            LEFT + pw,
            top + PANEL / 2.0,
            escape(system),
        );
        let line: Vec<String> = pts
            .iter()
            .map(|(x, y, _)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash_attr} points=\"{}\"/>",
            line.join(" ")
        );
        for (x, y, c) in pts {
            let _ = writeln!(
                s,
                "<circle class=\"pt\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{colour}\">\
                 <title>{}: {} on {} (record {})</title></circle>",
                px(*x),
                py(*y),
                escape(system),
                escape(c.new.trim()),
                time::format_short(c.at),
                c.seq
            );
        }
        s.push_str("</g>\n");
    }
    let _ = writeln!(
        s,
        "<text class=\"axis-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">date (UTC)</text>\n</svg></div>",
        LEFT + pw / 2.0,
        h - 6.0,
    );
    let _ = write!(
        s,
        "<figcaption>{}: one panel per system, one point per change (x: date, y: the new \
         value; hover a point for its value and record). {}.",
        escape(&title),
        escape(&desc)
    );
    if skipped > 0 {
        let _ = write!(
            s,
            " {skipped} change(s) with a non-numeric value are in the history only."
        );
    }
    s.push_str("</figcaption>\n</figure>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NASTY: &str = "<b>Bold</b> & \"Q\" 'A'";

    fn change(seq: u64, at: &str, system: &str, subject: &str, new: &str) -> Change {
        Change {
            seq,
            at: time::parse(at).unwrap(),
            system: system.into(),
            subject: subject.into(),
            old: None,
            new: new.into(),
            formula: format!("{new} = <{seq}> & more"),
        }
    }

    fn report(table: &str, players: &[&str]) -> Report {
        let mut t = Table::new(
            table,
            &format!("{table} standings"),
            &["rank", "player", "score"],
        );
        for (i, p) in players.iter().enumerate() {
            t.push(vec![json!(i + 1), json!(p), json!(100 - i)]);
        }
        Report {
            system: table.into(),
            main: t,
            extra: vec![],
        }
    }

    pub(crate) fn sample() -> Site {
        Site {
            head_seq: 7,
            head_hash: "ab".repeat(32),
            stamp: Stamp {
                as_of: Some("2003-03-01".into()),
                known_at: 6,
                head: "cd".repeat(32),
            },
            tables: vec![
                TableView {
                    table: "valar".into(),
                    tournament: None,
                    standings: Ok(report("valar", &[NASTY, "Ann Smith"])),
                },
                TableView {
                    table: "maia".into(),
                    tournament: None,
                    standings: Err("standings maia: <not> implemented yet".into()),
                },
                TableView {
                    table: "cards".into(),
                    tournament: Some("Spring & <Fall>".into()),
                    standings: Ok(report("cards", &["ann"])),
                },
            ],
            changes: vec![
                change(1, "2003-01-10", "valar", NASTY, "1500"),
                change(2, "2003-01-10", "valar", "Ann Smith", "1500"),
                change(3, "2003-02-01", "valar", NASTY, "1571"),
                change(4, "2003-02-01", "maia", NASTY, "12"),
                change(5, "2003-02-20", "valar", NASTY, "1600"),
                change(6, "2003-02-21", "valar", "Only In Audit", "W"),
            ],
            spilled_subjects: BTreeSet::new(),
        }
    }

    /// Every `href="..."` of an HTML text, unescaped (`&amp;` only).
    fn hrefs(html: &str) -> Vec<String> {
        html.split("href=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .map(|s| s.replace("&amp;", "&"))
            .collect()
    }

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(NASTY),
            "&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;Q&quot; &#39;A&#39;"
        );
    }

    #[test]
    fn slugs_are_safe_stable_and_distinct() {
        assert_eq!(slug("ann"), "ann");
        assert_eq!(slug("valar"), "valar");
        let ann = slug("Ann Smith");
        assert!(ann.starts_with("ann-smith-") && ann.len() == "ann-smith-".len() + 8);
        assert_eq!(ann, slug("Ann Smith"), "stable");
        assert_ne!(slug("Ann"), slug("ann"));
        assert_ne!(slug("a b"), slug("a_b"));
        for s in [NASTY, "", "Éowyn", "../etc/passwd", "CON", &"x".repeat(300)] {
            let g = slug(s);
            assert!(!g.is_empty() && g.len() <= 57, "{s:?} -> {g:?}");
            assert!(
                g.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{s:?} -> {g:?}"
            );
            assert!(!g.contains("--") && !g.starts_with('-'), "{g}");
        }
        assert_eq!(
            slug("CON"),
            format!("con-{}", &blake3::hash(b"CON").to_hex()[..8])
        );
    }

    /// `laurel site` spills the trail and renders player pages a bucket at a
    /// time: the same files, byte for byte, as from the trail in memory.
    #[test]
    fn pages_from_a_spilled_trail_are_the_pages_from_memory() {
        use crate::fold::TrailSink;
        let whole = sample();
        let mut spill = crate::spill::Spill::new().unwrap();
        spill.take(whole.changes.clone()).unwrap();
        let buckets = spill.finish(Vec::new()).unwrap();
        let site = Site {
            changes: Vec::new(),
            spilled_subjects: buckets.subjects.clone(),
            ..whole.clone()
        };
        let mut pages = BTreeMap::new();
        let mut groups = 0;
        let n = site
            .pages_in_groups(
                &mut |name, piece, last| {
                    let page: &mut String = pages.entry(name.to_string()).or_default();
                    assert!(!page.ends_with("</html>\n"), "{name} twice");
                    page.push_str(piece);
                    assert!(last || piece.len() >= PIECE, "{name}: a short piece");
                    Ok(())
                },
                &mut |page| {
                    (0..crate::spill::BUCKETS).try_for_each(|i| {
                        let cs = buckets.read(i)?;
                        groups += usize::from(!cs.is_empty());
                        page(&cs)
                    })
                },
            )
            .unwrap();
        assert!(
            groups >= 2,
            "the sample's subjects fall in {groups} bucket(s)"
        );
        assert_eq!(n, pages.len());
        assert_eq!(pages, whole.pages().into_iter().collect::<BTreeMap<_, _>>());
    }

    /// Tables made one at a time, twice, by `views`: the pages are those of
    /// every table in memory; the table pages come before `views` (and what it
    /// owns) is dropped, the player pages after.
    #[test]
    fn staged_tables_are_made_twice_and_dropped_before_the_player_pages() {
        use std::{cell::Cell, rc::Rc};
        struct State(Rc<Cell<bool>>);
        impl Drop for State {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let whole = sample();
        let site = Site {
            tables: Vec::new(),
            ..whole.clone()
        };
        let (freed, made) = (Rc::new(Cell::new(false)), Rc::new(Cell::new(0)));
        let (state, tables, count) = (State(freed.clone()), whole.tables.clone(), made.clone());
        let views = move |each: &mut dyn FnMut(&TableView) -> Result<()>| {
            let _owned = &state;
            tables.iter().try_for_each(|t| {
                count.set(count.get() + 1);
                each(&t.clone())
            })
        };
        let mut pages = BTreeMap::new();
        let mut put = |name: &str, piece: &str, last: bool| {
            assert_eq!(freed.get(), name.starts_with("player-"), "{name}");
            let page: &mut String = pages.entry(name.to_string()).or_default();
            page.push_str(piece);
            assert!(last || piece.len() >= PIECE);
            Ok(())
        };
        let n = site
            .pages_staged(views, &mut put, &mut |page| page(&whole.changes))
            .unwrap();
        assert!(freed.get());
        assert_eq!(made.get(), 2 * whole.tables.len());
        assert_eq!(n, pages.len());
        assert_eq!(pages, whole.pages().into_iter().collect::<BTreeMap<_, _>>());
    }

    /// A player's places come back as pushed, lengths of one byte or more.
    #[test]
    fn places_are_packed_and_read_back() {
        let long = "é".repeat(200);
        let pushed = [
            (0, "1", "1500.5"),
            (127, "", ""),
            (128, long.as_str(), NASTY),
            (70_000, "\u{0}\n\t", "x"),
        ];
        let mut places = Places::default();
        for (table, rank, score) in pushed {
            places.push(table, rank, score);
        }
        assert_eq!(places.iter().collect::<Vec<_>>(), pushed);
    }

    /// A table page bigger than [`PIECE`] is handed on in pieces, never whole,
    /// and every row arrives once, in order.
    #[test]
    fn a_big_table_page_is_written_in_pieces() {
        let mut site = sample();
        let mut big = Table::new("valar", "Valar ratings", &["rank", "player", "score"]);
        for i in 0..20_000 {
            big.push(vec![
                (i + 1).into(),
                format!("p{i}").into(),
                (2000 - i).into(),
            ]);
        }
        site.tables[0].standings = Ok(Report {
            system: "valar".into(),
            main: big,
            extra: vec![],
        });
        let (mut pieces, mut html) = (0, String::new());
        site.each_page(&mut |name, piece, last| {
            if name == "table-valar.html" {
                pieces += 1;
                html.push_str(piece);
                assert!(last || piece.len() >= PIECE);
            }
            Ok(())
        })
        .unwrap();
        assert!(pieces >= 4, "{pieces} piece(s) for {} bytes", html.len());
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
        let rows: Vec<usize> = (0..20_000)
            .map(|i| html.find(&format!(">p{i}</a></td>")).expect("every row"))
            .collect();
        assert!(rows.windows(2).all(|w| w[0] < w[1]), "rows in order");
    }

    #[test]
    fn colliding_slugs_get_a_counter() {
        // "ann-smith-<tag of 'Ann Smith'>" as a literal name slugs to itself.
        let literal = slug("Ann Smith");
        let site = Site {
            changes: vec![
                change(1, "2003-01-01", "valar", "Ann Smith", "1"),
                change(2, "2003-01-01", "valar", &literal, "1"),
            ],
            ..Site::default()
        };
        let files = Files::new(&site);
        let (a, b) = (
            files.player("Ann Smith").unwrap(),
            files.player(&literal).unwrap(),
        );
        assert_ne!(a, b);
        // Name order: "Ann Smith" sorts first and keeps the plain name.
        assert_eq!(a, format!("player-{literal}.html"));
        assert_eq!(b, format!("player-{literal}-2.html"));
    }

    #[test]
    fn every_page_exists_and_every_link_resolves() {
        let site = sample();
        let pages = site.pages();
        let names: BTreeSet<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.len(), pages.len(), "unique file names");
        // index + valar + cards/tournament + 4 players (maia's Err has no page).
        assert_eq!(
            site.players(),
            vec![
                "<b>Bold</b> & \"Q\" 'A'",
                "Ann Smith",
                "Only In Audit",
                "ann"
            ]
        );
        assert_eq!(pages.len(), 1 + 2 + 4, "{names:?}");
        assert!(names.contains("table-valar.html"));
        assert!(names
            .iter()
            .any(|n| n.starts_with("table-cards--spring-fall-")));
        for (name, html) in &pages {
            for h in hrefs(html) {
                let file = h.split('#').next().unwrap();
                assert!(
                    file.is_empty() || file == "export.jsonl" || names.contains(file),
                    "{name}: broken link {h}"
                );
            }
        }
        let index = &pages[0].1;
        for p in site.players() {
            assert!(index.contains(&escape(&p)), "index lists {p}");
        }
        // The failing table is listed with its message, and not linked.
        assert!(index.contains("standings maia: &lt;not&gt; implemented yet"));
        assert!(!names.iter().any(|n| n.contains("maia")));
        assert!(index.contains(&"ab".repeat(32)) && index.contains(&"cd".repeat(32)));
        assert!(index.contains("2003-03-01"));
        assert!(index.contains("href=\"export.jsonl\""));
    }

    #[test]
    fn nothing_from_events_is_unescaped() {
        for (name, html) in sample().pages() {
            for raw in ["<b>", "<not>", "<Fall>", "<1>", "& more", "& \""] {
                assert!(!html.contains(raw), "{name} contains raw {raw:?}");
            }
        }
        let pages = sample().pages();
        let files = Files::new(&sample());
        let nasty = &pages
            .iter()
            .find(|(n, _)| Some(n.as_str()) == files.player(NASTY))
            .unwrap()
            .1;
        assert!(nasty.contains("<h1>&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;Q&quot; &#39;A&#39;</h1>"));
        assert!(nasty.contains("1571 = &lt;3&gt; &amp; more"));
    }

    #[test]
    fn the_chart_has_one_point_per_numeric_change() {
        let site = sample();
        let mine: Vec<&Change> = site.changes.iter().filter(|c| c.subject == NASTY).collect();
        let svg = chart(NASTY, &mine);
        assert_eq!(svg.matches("<circle class=\"pt\"").count(), 4);
        assert_eq!(svg.matches("<g class=\"series\"").count(), 2);
        assert!(svg.contains("<title>valar: 1571 on 2003-02-01 (record 3)</title>"));
        assert!(
            svg.contains(">date (UTC)</text>")
                && svg.contains("rotate(-90)\" text-anchor=\"middle\">maia</text>")
        );
        assert!(svg.contains(">2003-01-10</text>") && svg.contains(">2003-02-20</text>"));
        // One point at a single date still draws.
        let one = change(9, "2003-01-01", "cfr", "x", "7");
        assert_eq!(chart("x", &[&one]).matches("class=\"pt\"").count(), 1);
        // Non-numeric values stay in the table only.
        let w = change(9, "2003-01-01", "cfr", "x", "W");
        assert!(chart("x", &[&w]).contains("No numeric values"));
        assert!(chart("x", &[]).contains("No rating changes"));
    }

    #[test]
    fn pages_are_accessible_and_print_friendly() {
        for (name, html) in sample().pages() {
            assert!(
                html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"),
                "{name}"
            );
            assert!(html.contains("name=\"viewport\""), "{name}");
            assert!(html.contains("@media print"), "{name}");
            assert!(html.contains("default-src 'none'"), "{name}");
            assert!(!html.contains("<script"), "{name}");
            assert!(
                !html.contains("http://") || !html.contains("src=\"http"),
                "{name}"
            );
            let tables = html.matches("<table").count();
            assert_eq!(html.matches("<caption>").count(), tables, "{name}");
            assert!(!html.contains("<th>"), "{name}: headers have scope");
        }
    }

    #[test]
    fn pages_are_deterministic() {
        assert_eq!(sample().pages(), sample().pages());
    }

    #[test]
    fn nice_ticks_cover_the_range() {
        assert_eq!(nice_ticks(1500.0, 1600.0), (1500.0, 1600.0, 50.0));
        let (lo, hi, step) = nice_ticks(3.0, 3.0);
        assert!(lo < 3.0 && hi > 3.0 && step > 0.0);
        assert_eq!(fmt_num(0.5, 0.1), "0.5");
        assert_eq!(fmt_num(-0.0, 1.0), "0");
    }

    #[test]
    fn the_quoted_script_is_the_readme_one() {
        let readme = include_str!("../README.md");
        for line in VERIFY_SCRIPT.lines().filter(|l| !l.trim().is_empty()) {
            assert!(readme.contains(line), "README lacks: {line}");
        }
    }
}
