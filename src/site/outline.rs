//! Page names and what the index and player pages need of the tables:
//! [`slug`], [`Files`], [`Outline`] and each player's packed [`Places`].

use std::collections::{BTreeMap, BTreeSet};

use maud::{html, Markup};

use super::pages::table_pages;
use super::paging::{page_name, page_of};
use super::{label, TableView};
use crate::codec;
use crate::systems::rows::Cell;
use crate::systems::table::Table;

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
    if s == name && !s.is_empty() && !looks_hashed(&s) {
        return s;
    }
    let tag = &blake3::hash(name.as_bytes()).to_hex()[..8];
    if s.is_empty() {
        tag.to_string()
    } else {
        format!("{s}-{tag}")
    }
}

/// Does `s` end as a hashed slug does (`-` or nothing, then 8 lowercase hex
/// digits)? Such a name is hashed too, so it cannot take the page of the name
/// whose hashed slug it spells (`a-b-08b91858` and `a.b`).
fn looks_hashed(s: &str) -> bool {
    let b = s.as_bytes();
    let tail = b.len().checked_sub(8).map(|i| &b[i..]);
    let hex = tail.is_some_and(|t| t.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
    hex && (b.len() == 8 || b[b.len() - 9] == b'-')
}

/// The file name of every page, unique within one site.
#[derive(Debug, Clone, Default)]
pub struct Files {
    pub(super) players: BTreeMap<String, String>,
    pub(super) tables: BTreeMap<(String, Option<String>), String>,
}

impl Files {
    /// Every player (of any table or the trail) in name order, with their page.
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

/// A table as the index lists it: its main table's row count.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Listed {
    pub(super) table: String,
    pub(super) tournament: Option<String>,
    /// The main table's title ("Valar ratings").
    pub(super) title: String,
    pub(super) rows: usize,
    /// Its pages (see [`table_pages`]).
    pub(super) pages: usize,
}

/// What the index, the links and the player pages need of the tables, gathered
/// one table at a time ([`Outline::add`]), so that a table's report can be
/// dropped once it is read: keeping every report (CFR's event table has a row
/// per event score) would hold memory that grows with the log.
#[derive(Debug)]
pub struct Outline {
    pub(super) tables: Vec<Listed>,
    /// The pages' names so far: the players' and tables' named until now.
    pub(super) files: Files,
    used: BTreeSet<String>,
    /// Each player's place in every table (see [`Places`]).
    pub(super) places: BTreeMap<String, Places>,
}

impl Default for Outline {
    fn default() -> Self {
        Outline {
            tables: Vec::new(),
            files: Files::default(),
            used: ["index.html", "export.jsonl", "players.html"]
                .map(String::from)
                .into(),
            places: BTreeMap::new(),
        }
    }
}

impl Outline {
    /// The next table in display order: listed, named (a table and tournament
    /// seen before keeps its name), its players named (see
    /// [`Outline::name_players`]) and their places noted. A table without rows
    /// (its standings failed, or nothing has been recorded for it) is left
    /// out: no entry, no page.
    pub fn add(&mut self, view: &TableView) {
        let r = match &view.standings {
            Ok(r) if !r.main.rows.is_empty() => r,
            _ => return,
        };
        self.tables.push(Listed {
            table: view.table.clone(),
            tournament: view.tournament.clone(),
            title: r.main.title.clone(),
            rows: r.main.rows.len(),
            pages: table_pages(r),
        });
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
            self.name_players(player_cells(table));
        }
        self.note_places(&r.main);
    }

    /// Each row's player, rank and score (the last column of each name, as
    /// JSON keeps it), under the table just listed.
    fn note_places(&mut self, main: &Table) {
        let table = self.tables.len() - 1;
        let col = |name: &str| main.columns.iter().rposition(|c| c == name);
        let (player, rank, score) = (col("player"), col("rank"), col("score"));
        let text = |row: &[Cell], i: Option<usize>| {
            i.and_then(|i| Some(row.get(i)?.text_at(main.places_at(i))))
                .unwrap_or_default()
        };
        for (i, row) in main.rows.iter_cells().enumerate() {
            let row: Vec<Cell> = row.collect();
            // A row without a player is on nobody's page.
            let name = text(&row, player);
            if !name.is_empty() {
                let places = self.places.entry(name).or_default();
                places.push(table, i, &text(&row, rank), &text(&row, score));
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

    /// Name the pages of `players` not named yet, in the order given: first
    /// every subject with a change (in name order), then each table's players
    /// as the table is added. A page is `player-<slug>.html`, the first free
    /// of `-2`, `-3`, ... added in the rare case of a clash (see [`slug`]).
    pub fn name_players(&mut self, players: impl IntoIterator<Item = String>) {
        for p in players {
            if !self.files.players.contains_key(&p) {
                let name = self.unique(format!("player-{}", slug(&p)));
                self.files.players.insert(p, name);
            }
        }
    }

    /// A player's "Standings" list items from their places (rank and score in
    /// every published table, tables in display order, rows in rank order,
    /// each linked to the page holding the row), gathered in one pass over the
    /// tables: `site` stays linear. `None` without any place.
    pub(super) fn standing(&self, places: &Places) -> Option<Markup> {
        let mut places = places.iter().peekable();
        places.peek()?;
        Some(html! {
            @for (i, row, rank, score) in places {
                @let t = &self.tables[i];
                @let (table, tournament) = (&t.table, t.tournament.as_deref());
                // Every listed table has a page.
                @let file = self.files.table(table, tournament).unwrap_or_default();
                li {
                    a href=(page_name(file, page_of(row))) { (label(table, tournament)) }
                    ": rank " (rank) ", score " (score)
                }
                "\n"
            }
        })
    }
}

/// A player's places, packed: per table row naming them, the table's index in
/// the outline and the row's, then the rank's and the score's text, each after
/// its length (LEB128): a few bytes plus the texts, where a finished list item
/// is about 80.
#[derive(Debug, Default)]
pub(super) struct Places(codec::Writer);

impl Places {
    pub(super) fn push(&mut self, table: usize, row: usize, rank: &str, score: &str) {
        self.0.u(table as u64);
        self.0.u(row as u64);
        self.0.bytes(rank.as_bytes());
        self.0.bytes(score.as_bytes());
    }

    /// `(table, row, rank, score)`, in the order pushed.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, usize, &str, &str)> {
        // Only whole `&str`s were pushed.
        fn text<'a>(r: &mut codec::Reader<'a>) -> Option<&'a str> {
            std::str::from_utf8(r.bytes()?).ok()
        }
        let mut r = codec::Reader::new(&self.0.buf);
        std::iter::from_fn(move || {
            let (table, row) = (r.u()? as usize, r.u()? as usize);
            Some((table, row, text(&mut r)?, text(&mut r)?))
        })
    }
}

/// Tables whose `player` column names subjects.
fn player_cells(t: &Table) -> impl Iterator<Item = String> + '_ {
    let col = t.columns.iter().position(|c| c == "player");
    t.rows
        .iter_cells()
        .filter_map(move |mut r| col.and_then(|i| r.nth(i)))
        .map(|c| c.text())
        .filter(|s| !s.is_empty())
}
