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
//! Every page carries the site's title ([`Site::title`], `--title`) and, in its
//! footer, the clocks the tables were computed with (`--as-of`, and
//! `--known-at` when it cuts records off) and a link to the index's ledger
//! head, last update and verification. Only the index shows the head and the
//! last update: they change with every record appended, and a page whose
//! content an append leaves alone keeps its bytes (see "Rebuilding" below).
//! Tables show their columns' readable titles ([`crate::output::title`]).
//! A table's title is its `<caption>`, once: the page's `<h1>` names the
//! report, and no heading repeats a caption (a screen reader would read the
//! title twice, and it showed twice), as text output prints each title once.
//!
//! - `index.html`: the title, the last update (see [`Site::updated`]), the
//!   ledger head (seq and hash) that `export.jsonl` ends at, the clocks and the
//!   record the tables were computed from, how to verify the export against the
//!   head (README's Python script, quoted), every standings table that has rows
//!   (a table without any, or whose standings fail, is left out: a community's
//!   site lists what it plays) with its rows and pages, and links to the
//!   pages of the list of players.
//! - `players.html`, `players_2.html`, ...: every player, linked to their page,
//!   in name order, then every other subject with a page (grudge teams,
//!   nations: [`Site::players`]) under "Teams and nations", [`ROWS`] a page
//!   (none when there is no subject).
//! - `export.jsonl`: the same bytes as `laurel export` (the whole ledger, whatever
//!   the clocks say: the head above is its digest).
//! - `table-<table>.html`, and `table-<table>--<tournament>.html` for tables shown
//!   per tournament (`cards`, `sbr`) and for each tournament of a table that has
//!   them besides (Diplomacy's): the standings and the system's extra
//!   tables, over as many pages as they need (see "Pagination"); every
//!   `player` cell links to the player's page.
//! - `corrections.html`, `corrections_2.html`, ...: every `ledger.voided`
//!   (a correction's void too, with its reason), `ledger.player_renamed` and
//!   `ledger.rules_changed` up to the known-at cut-off (whatever the date
//!   cut-off, which the page names: when the ledger changed its mind is what
//!   an auditor reads here), in the order recorded, as `laurel log` labels
//!   them, [`ROWS`] a page (none when there is none); the index says how
//!   many. With `--systems`, a rule change or a void of another system's
//!   record is left out. Registrations are left out: they are many and
//!   change no value.
//! - `player-<name>.html`: one per subject that appears in any table's `player`
//!   column or in the audit trail (see "Player pages").
//!
//! # Pagination
//!
//! A page holds at most [`ROWS`] (1,000) rows of each table of a report, so
//! no page grows with the ledger (a whole table on one page would: CFR's has a
//! row per event score). Page 1 is
//! `table-cfr.html`, with the top of every table of the report (the standings'
//! first 1,000 places, the first 1,000 event scores); page `n` is
//! `table-cfr_n.html` ([`page_name`]: a slug never holds `_`), with rows
//! `1000·(n-1)+1` to `1000·n` of each. A report takes as many pages as its
//! longest table needs; a table whose rows ended earlier says on which page
//! they end. Each page of several links to the first, previous, next and last
//! pages and to those up to two away, above and below the tables. A player's
//! standings link to the page that holds their row.
//!
//! # Player pages
//!
//! Where the player stands in each table (rank and score, linked to the page
//! holding the row); an SVG line chart of their values over time, one panel
//! per charted system ([`crate::systems::charted`]: not a Space Base Race
//! match score, which starts again each match; x = a change's date, y = its
//! new value), each line through at
//! most [`POINTS`] of the system's changes, evenly spaced, the first and
//! the last among them, ending in a point at the latest value; and the latest
//! [`HISTORY`] changes with their formulas. Each page is a few tens of KB
//! whatever the history: a player's every change, each on its own line with
//! its formula, would grow with the log, and the whole history is in
//! `export.jsonl` (`laurel history NAME` lists it). A team's or nation's
//! page without a change of its own in the trail (a nation's par is folded
//! into its table, not recorded as a change) says its values are those of the
//! tables ([`pages::OWN_VALUES`]), not that nothing was recorded.
//!
//! # Rebuilding
//!
//! A site is built beside its directory and swapped in whole. A page whose
//! bytes equal those of the page of the same name in the site it replaces is
//! not written again but linked to that file ([`write_staged`]): it keeps its
//! modification time, so after an append only the pages whose content
//! changed are new files (the index always: it shows the head), and `site`
//! says how many pages are new or changed, unchanged and removed.
//! `export.jsonl` is written every time. So that an append changes few pages,
//! no page but the index shows what every append changes: the head, the last
//! update, a table's length (a table page says which rows it holds, the index
//! how many there are). A player seeded at the bottom of valar changes the
//! index, valar's last page, the new player's page and the pages of the list
//! of players from the new name on.
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
//! gives the one named later (see [`Outline::name_players`]) a `-2`, `-3`,
//! ... suffix.
//!
//! Everything that comes from events (names, tournaments, formulas, messages)
//! is escaped: pages and charts are written with maud's `html!`, which escapes
//! every value it is given. Pages are pure functions of a [`Site`], so they are
//! unit-tested on hand-made data.
//!
//! # Threads
//!
//! `laurel site` keeps both cores busy and what it holds bounded:
//!
//! - The audit fold reads the records on one thread and decodes and applies
//!   them on a worker per group of namespaces (see [`crate::fold`]); each
//!   worker hands its changes, batch by batch, to the [`crate::spill`]'s own
//!   thread, which encodes, compresses and writes them.
//! - Pages are written (or linked, see "Rebuilding") by a thread of their own
//!   ([`write_staged`]), in the order they are made, with at most a few
//!   waiting.
//! - The pages of a table and those of the players of one group of the trail
//!   are rendered on two threads (`ordered`) and handed on in list order;
//!   `laurel site` reads (decompresses and decodes) the next bucket of the
//!   trail on a thread of its own while one group's pages are made.
//!
//! Held at once, beyond one table's report (see [`Site::pages_staged`]) or
//! up to three buckets of the trail: a few pages rendered and not yet
//! written. The output does not depend on the threads: every page name is
//! given on the calling thread, in the order above, before any page naming
//! that player or table is rendered; a page is a pure function of the site,
//! the names and its own rows or changes; and pages reach the writer, and
//! so the disk, in the order a single thread makes them.
//!
//! The page HTML is in `pages`, the chart in `chart`, the page names and
//! what the index and player pages need of the tables in `outline`, the pages
//! of long tables in `paging`, rendering on two threads in `ordered`, and
//! writing the directory in `write`.

mod chart;
mod ordered;
mod outline;
mod pages;
mod paging;
mod write;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::Result;
use crate::output::Stamp;
use crate::systems::table::{Report, Table};
use crate::systems::Change;

#[cfg(test)]
use chart::chart;
pub use chart::POINTS;
pub use outline::{slug, Files, Outline};
pub(crate) use pages::render_player;
use pages::{listed, render_amendments, render_index, render_players, render_table, table_pages};
use pages::{AMENDMENTS, PLAYERS};
pub use pages::{HISTORY, VERIFY_SCRIPT};
use paging::page_count;
pub use paging::{page_name, ROWS};
pub use write::{write_staged, Written};

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
    /// `stamp.known_at`; `None` for an empty ledger or a cut at known-at 0). Not the latest event's
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
    /// Every name a player went by. The other subjects of the tables and
    /// the trail (a grudge team, a nation) have pages too, and are listed
    /// after the players, under a heading of their own: no list calls them
    /// players.
    pub players: BTreeSet<String>,
    /// Each renamed player's earlier names (by the name now), oldest first:
    /// on the player's page, so that a reader searching for an old name
    /// finds whose it was.
    pub earlier: BTreeMap<String, Vec<String>>,
    /// Every void, rename and rule change up to the known-at cut-off, as
    /// `laurel log` labels them (see "Pages").
    pub amendments: Table,
}

/// Where pages go: `put(file name, HTML)`, a whole page at a time.
pub type Put<'a> = dyn FnMut(String, String) -> Result<()> + 'a;

/// The audit trail in groups: `groups(page)` calls `page` once per group of
/// changes, in fold order, every change of a subject in one group.
pub type Groups<'a> = dyn FnMut(&mut dyn FnMut(&[Change]) -> Result<()>) -> Result<()> + 'a;

impl Site {
    /// Render every page, handing each to `put` as soon as it is made: the
    /// tables' pages, the index, the players' pages. The pages are never all
    /// held at once (a large ledger makes gigabytes of them); one is at most
    /// [`ROWS`] rows of each table of a report. Returns the number of pages.
    ///
    /// `views(each)` makes every table in display order, one at a time, and
    /// calls `each` with it: each table is outlined (see [`Outline`]) and its
    /// pages rendered before the next is made, so no two tables' reports are
    /// held at once, and none is made twice. The players of
    /// [`Site::spilled_subjects`] are named first, those of the tables when
    /// their table comes (see [`Outline::name_players`]), so every link is
    /// known when its page is rendered. Then `views` is dropped, and whatever
    /// it holds with it, before the player pages are made: those of the
    /// players in each group of `groups` (see [`Groups`]) from it, then those
    /// of players without changes.
    pub fn pages_staged(
        &self,
        mut views: impl FnMut(&mut dyn FnMut(&TableView) -> Result<()>) -> Result<()>,
        put: &mut Put<'_>,
        groups: &mut Groups<'_>,
    ) -> Result<usize> {
        let mut outline = Outline::default();
        outline.name_players(self.spilled_subjects.iter().cloned());
        let mut n = 1;
        views(&mut |view| {
            outline.add(view);
            n += self.table_page(&outline.files, view, put)?;
            Ok(())
        })?;
        drop(views);
        let listed = listed(self, &outline.files);
        put("index.html".into(), render_index(self, &outline, &listed))?;
        let count = page_count(listed.0.len());
        for k in 1..=count.min(listed.0.len()) {
            let html = render_players(self, &listed, (k, count));
            put(page_name(PLAYERS, k), html)?;
            n += 1;
        }
        drop(listed);
        let amended = self.amendments.rows.len();
        let count = page_count(amended);
        for k in 1..=count.min(amended) {
            let html = render_amendments(self, &outline.files, (k, count));
            put(page_name(AMENDMENTS, k), html)?;
            n += 1;
        }
        Ok(n + self.player_pages(&mut outline, put, groups)?)
    }

    /// A table's pages, if it has any (its standings did not fail and it
    /// has rows), rendered on two threads ([`ordered`]): the number of pages
    /// made.
    fn table_page(&self, files: &Files, view: &TableView, put: &mut Put<'_>) -> Result<usize> {
        let (Some(f), Ok(r)) = (
            files.table(&view.table, view.tournament.as_deref()),
            &view.standings,
        ) else {
            return Ok(0);
        };
        let count = table_pages(r);
        let page = |i: usize| {
            let n = i + 1;
            let html = render_table(self, files, (view, r), f, (n, count));
            Some((page_name(f, n), html))
        };
        ordered::in_order(count, &page, put)
    }

    /// Every player's page: those in each group of the trail, then those
    /// without changes, each list rendered on two threads ([`ordered`]).
    /// Returns how many.
    fn player_pages(
        &self,
        outline: &mut Outline,
        put: &mut Put<'_>,
        groups: &mut Groups<'_>,
    ) -> Result<usize> {
        // Each group's players' places are dropped once their pages are made.
        let mut places = std::mem::take(&mut outline.places);
        let (outline, files) = (&*outline, &outline.files);
        let page = |places: &BTreeMap<String, _>, p: &str, changes: &[&Change]| {
            let f = files.player(p)?;
            let standing = places.get(p).and_then(|mine| outline.standing(mine));
            Some((
                f.to_string(),
                render_player(self, files, p, changes, standing),
            ))
        };
        // The players (every table's, named by `Outline::name_players`) without changes.
        let quiet: Vec<&str> = files
            .players()
            .map(|(p, _)| p)
            .filter(|p| !self.spilled_subjects.contains(*p))
            .collect();
        let mut n = 0;
        groups(&mut |changes| {
            // Grouped through a hash map (a change's subject is looked up once,
            // not compared along a tree's path), then put in name order.
            let mut at: HashMap<&str, usize> = HashMap::new();
            let mut by_subject: Vec<(&str, Vec<&Change>)> = Vec::new();
            for c in changes {
                let i = *at.entry(&c.subject).or_insert_with(|| {
                    by_subject.push((&c.subject, Vec::new()));
                    by_subject.len() - 1
                });
                by_subject[i].1.push(c);
            }
            by_subject.sort_unstable_by(|a, b| a.0.cmp(b.0));
            let render = |i: usize| page(&places, by_subject[i].0, &by_subject[i].1);
            n += ordered::in_order(by_subject.len(), &render, put)?;
            for (p, _) in &by_subject {
                places.remove(*p);
            }
            Ok(())
        })?;
        n += ordered::in_order(quiet.len(), &|i| page(&places, quiet[i], &[]), put)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
