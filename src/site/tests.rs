use serde_json::json;

use super::chart::{fmt_num, nice_ticks, trimmed, POINTS};
use super::outline::{Outline, Places};
use super::pages::OWN_VALUES;
use super::*;
use crate::systems::table::Table;
use crate::time;

mod chart;

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

/// A site with its tables and audit trail in memory.
#[derive(Clone, Default)]
struct Sample {
    site: Site,
    tables: Vec<TableView>,
    changes: Vec<Change>,
}

impl Sample {
    /// `site` naming every subject of `changes`.
    fn new(site: Site, tables: Vec<TableView>, changes: Vec<Change>) -> Self {
        let spilled_subjects = changes.iter().map(|c| c.subject.clone()).collect();
        Sample {
            site: Site {
                spilled_subjects,
                ..site
            },
            tables,
            changes,
        }
    }

    /// Render every page (see [`Site::pages_staged`]), the trail in one group.
    fn each_page(&self, put: &mut Put<'_>) -> Result<usize> {
        let views =
            |each: &mut dyn FnMut(&TableView) -> Result<()>| self.tables.iter().try_for_each(each);
        self.site
            .pages_staged(views, put, &mut |page| page(&self.changes))
    }

    /// Every page: `(file name, HTML)`, in the order made.
    fn pages(&self) -> Vec<(String, String)> {
        let mut pages = Vec::new();
        self.each_page(&mut |name, html| {
            pages.push((name.to_string(), html.to_string()));
            Ok(())
        })
        .unwrap();
        pages
    }

    /// The file names: players with changes in name order, then tables in
    /// display order (each followed by its players not named yet).
    fn files(&self) -> Files {
        let mut outline = Outline::default();
        outline.name_players(self.site.spilled_subjects.iter().cloned());
        self.tables.iter().for_each(|t| outline.add(t));
        outline.files
    }
}

fn sample() -> Sample {
    let site = Site {
        title: "Spring & <League>".into(),
        updated: Some("2003-03-02T10:11:12.5Z".into()),
        head_seq: 7,
        head_hash: "ab".repeat(32),
        stamp: Stamp {
            as_of: Some("2003-03-01".into()),
            known_at: 6,
            head: "cd".repeat(32),
            rules: None,
            tournament: None,
            inside_append: None,
            rules_over: Vec::new(),
        },
        spilled_subjects: BTreeSet::new(),
        players: [NASTY, "Ann Smith", "Ann <Jones>", "Only In Audit", "ann"]
            .map(str::to_string)
            .into(),
        earlier: [("Ann Smith".to_string(), vec!["Ann <Jones>".to_string()])].into(),
        amendments: amendments(&[
            (
                5,
                "2003-02-02",
                "ledger.rules_changed",
                r#"valar {"base":50}: reason "<b>new</b> base""#,
            ),
            (
                8,
                "2003-02-25",
                "ledger.voided",
                r#"#3 (valar.x g1): reason "swapped & wrong""#,
            ),
        ]),
    };
    let tables = vec![
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
    ];
    let changes = vec![
        change(1, "2003-01-10", "valar", NASTY, "1500"),
        change(2, "2003-01-10", "valar", "Ann Smith", "1500"),
        change(3, "2003-02-01", "valar", NASTY, "1571"),
        change(4, "2003-02-01", "maia", NASTY, "12"),
        change(5, "2003-02-20", "valar", NASTY, "1600"),
        change(6, "2003-02-21", "valar", "Only In Audit", "W"),
    ];
    Sample::new(site, tables, changes)
}

/// An amendments table ([`Site::amendments`]) of `(seq, at, type, what)` rows.
fn amendments(rows: &[(u64, &str, &str, &str)]) -> Table {
    let mut t = Table::new(
        "amendments",
        "Corrections, renames and rule changes",
        &["seq", "at", "type", "what"],
    );
    for (seq, at, kind, what) in rows {
        t.push(vec![json!(seq), json!(at), json!(kind), json!(what)]);
    }
    t
}

/// The page of `pages` named `name`.
fn page_named<'p>(pages: &'p [(String, String)], name: &str) -> &'p str {
    let page = pages.iter().find(|(n, _)| n == name);
    &page.unwrap_or_else(|| panic!("no page {name}")).1
}

/// The index of `pages`.
fn index_of(pages: &[(String, String)]) -> &str {
    page_named(pages, "index.html")
}

/// Every `href="..."` of an HTML text, unescaped (`&amp;` only).
fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|s| s.replace("&amp;", "&"))
        .collect()
}

/// `s` as the pages write text: markup and double quotes escaped.
fn escape(s: &str) -> String {
    maud::html! { (s) }.into_string()
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
    // A name spelling another's hashed slug is hashed too.
    let hashed = slug("a.b");
    assert!(hashed.starts_with("a-b-"));
    assert_ne!(slug(&hashed), hashed);
    assert_ne!(slug(&hashed[4..]), hashed[4..], "a bare tag is hashed too");
    assert_eq!(slug("deadbeefs"), "deadbeefs");
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
    let placed = whole.changes.iter().cloned().enumerate();
    spill
        .take(placed.map(|(i, c)| (i as u64, c)).collect())
        .unwrap();
    let buckets = spill.finish().unwrap();
    let site = Site {
        spilled_subjects: buckets.subjects.clone(),
        ..whole.site.clone()
    };
    let views =
        |each: &mut dyn FnMut(&TableView) -> Result<()>| whole.tables.iter().try_for_each(each);
    let mut pages = BTreeMap::new();
    let mut groups = 0;
    let n = site
        .pages_staged(
            views,
            &mut |name, html| {
                let twice = pages.insert(name.to_string(), html.to_string());
                assert!(twice.is_none(), "{name} twice");
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

/// Tables made one at a time, once each, by `views`: the pages are those of
/// every table in memory; the table pages come before `views` (and what it
/// owns) is dropped, the index and the player pages after.
#[test]
fn staged_tables_are_made_once_and_dropped_before_the_player_pages() {
    use std::{cell::Cell, rc::Rc};
    struct State(Rc<Cell<bool>>);
    impl Drop for State {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let whole = sample();
    let site = whole.site.clone();
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
    let mut put = |name: String, html: String| {
        assert_eq!(freed.get(), !name.starts_with("table-"), "{name}");
        pages.insert(name.to_string(), html.to_string());
        Ok(())
    };
    let n = site
        .pages_staged(views, &mut put, &mut |page| page(&whole.changes))
        .unwrap();
    assert!(freed.get());
    assert_eq!(made.get(), whole.tables.len());
    assert_eq!(n, pages.len());
    assert_eq!(pages, whole.pages().into_iter().collect::<BTreeMap<_, _>>());
}

/// A player's places come back as pushed, lengths of one byte or more.
#[test]
fn places_are_packed_and_read_back() {
    let long = "é".repeat(200);
    let pushed = [
        (0, 0, "1", "1500.5"),
        (127, 128, "", ""),
        (128, 5, long.as_str(), NASTY),
        (70_000, 1 << 40, "\u{0}\n\t", "x"),
    ];
    let mut places = Places::default();
    for (table, row, rank, score) in pushed {
        places.push(table, row, rank, score);
    }
    assert_eq!(places.iter().collect::<Vec<_>>(), pushed);
}

/// A table of 2,500 rows and an extra one of 1,200 take three pages of
/// [`ROWS`] (1,000) rows each: the first at the table's name with the top rows,
/// each linking to the others; together they hold every row once, in order. A
/// player's standing links to the page holding their row.
#[test]
fn a_big_table_is_split_into_pages_of_rows() {
    let mut site = sample();
    let mut big = Table::new("valar", "Valar ratings", &["rank", "player", "score"]);
    for i in 0..2_500 {
        big.push(vec![
            (i + 1).into(),
            format!("p{i}").into(),
            (9000 - i).into(),
        ]);
    }
    let mut extra = Table::new("games", "Games", &["game"]);
    for i in 0..1_200 {
        extra.push(vec![format!("g{i}").into()]);
    }
    site.tables[0].standings = Ok(Report {
        system: "valar".into(),
        main: big,
        extra: vec![extra],
    });
    let pages = site.pages();
    let page = |name: &str| page_named(&pages, name);
    let names = [
        "table-valar.html",
        "table-valar_2.html",
        "table-valar_3.html",
    ];
    assert!(!pages.iter().any(|(n, _)| n == "table-valar_4.html"));
    let (mut players, mut games) = (Vec::new(), Vec::new());
    for (k, name) in names.iter().enumerate() {
        let html = page(name);
        assert!(html.contains(&format!("Page {} of 3:", k + 1)), "{name}");
        for other in names.iter().filter(|n| *n != name) {
            assert!(
                html.contains(&format!("href=\"{other}\"")),
                "{name} links {other}"
            );
        }
        for row in html.split("<tr>").skip(1) {
            let row = row.split("</tbody>").next().unwrap();
            if let Some(p) = row.split(".html\">").nth(1) {
                players.push(p.split('<').next().unwrap().to_string());
            } else if let Some(g) = row.strip_prefix("<td>g") {
                games.push(g.trim().parse::<usize>().unwrap());
            }
        }
    }
    let want: Vec<String> = (0..2_500).map(|i| format!("p{i}")).collect();
    assert_eq!(players, want, "every row once, in order, the top first");
    assert_eq!(games, (0..1_200).collect::<Vec<_>>());
    assert!(page(names[0]).contains("Rows 1–1000."));
    assert!(page(names[2]).contains("Rows 2001–2500."));
    // The extra table ended on page 2: page 3 says where its rows are.
    let ends = format!("Games ends on <a href=\"{}\">page 2</a>.", names[1]);
    assert!(page(names[2]).contains(&ends), "{}", page(names[2]));
    // p1500 is row 1501: on page 2.
    let files = site.files();
    let p = page(files.player("p1500").unwrap());
    assert!(
        p.contains("<li><a href=\"table-valar_2.html\">valar</a>: rank 1501"),
        "{p}"
    );
}

#[test]
fn a_name_spelling_a_hashed_slug_gets_a_page_of_its_own() {
    // "ann-smith-<tag of 'Ann Smith'>" as a literal name is hashed itself.
    let literal = slug("Ann Smith");
    let changes = vec![
        change(1, "2003-01-01", "valar", "Ann Smith", "1"),
        change(2, "2003-01-01", "valar", &literal, "1"),
    ];
    let files = Sample::new(Site::default(), Vec::new(), changes).files();
    let (a, b) = (
        files.player("Ann Smith").unwrap(),
        files.player(&literal).unwrap(),
    );
    assert_ne!(a, b);
    assert_eq!(a, format!("player-{literal}.html"));
    assert_eq!(b, format!("player-{}.html", slug(&literal)));
}

/// A subject that is no player (a grudge team, a nation) is listed after
/// the players, under a heading of its own, and the index says how many.
#[test]
fn the_list_of_players_lists_teams_and_nations_after_them_under_their_own_heading() {
    let mut site = sample();
    site.site.players.remove("Ann Smith");
    let pages = site.pages();
    let list = page_named(&pages, "players.html");
    let at = |text: &str| {
        list.find(text)
            .unwrap_or_else(|| panic!("{text} in {list}"))
    };
    assert!(at("Only In Audit</a>") < at("<h2 id=\"others\">Teams and nations</h2>"));
    assert!(at("<h2 id=\"others\">") < at("Ann Smith</a>"));
    assert_eq!(list.matches("<h2").count(), 1);
    let index = index_of(&pages);
    assert!(index.contains("Players (3)"), "{index}");
    assert!(index.contains("then the teams and nations (1)"), "{index}");
    assert!(
        index.contains("– Ann Smith</a>"),
        "the last listed: {index}"
    );
    // Without one, no such heading.
    let pages = sample().pages();
    let list = page_named(&pages, "players.html");
    assert!(!list.contains("Teams and nations"));
}

/// The page of a subject that is no player and has no change of its own in
/// the trail (a nation: its par is folded into the tables) says where its
/// values are, not "No rating changes recorded."; a player without changes
/// still reads that.
#[test]
fn a_team_or_nation_without_changes_of_its_own_points_to_the_tables() {
    let mut site = sample();
    site.site.players.remove("ann");
    let files = site.files();
    let pages = site.pages();
    let page = |name: &str| page_named(&pages, files.player(name).unwrap());
    let nation = page("ann");
    assert!(nation.contains(OWN_VALUES), "{nation}");
    assert!(!nation.contains("No rating changes recorded."), "{nation}");
    let mut site = sample();
    site.site.players.remove("Only In Audit");
    let with_changes = site.pages();
    assert!(with_changes
        .iter()
        .all(|(_, html)| !html.contains(OWN_VALUES)));
    let player = sample().pages();
    assert!(player.iter().all(|(_, html)| !html.contains(OWN_VALUES)));
    assert!(player
        .iter()
        .any(|(_, html)| html.contains("No rating changes recorded.")));
}

/// The page of corrections lists every void, rename and rule change with
/// its reason, escaped, over pages of [`ROWS`]; the index says how many and
/// links to it. Without any, no page and no link.
#[test]
fn the_corrections_page_lists_the_amendments_and_the_index_counts_them() {
    let pages = sample().pages();
    let page = page_named(&pages, "corrections.html");
    for what in [
        r#"valar {"base":50}: reason "<b>new</b> base""#,
        r##"#3 (valar.x g1): reason "swapped & wrong""##,
    ] {
        assert!(page.contains(&escape(what)), "{what} in {page}");
    }
    assert!(!page.contains("<b>new</b>"), "{page}");
    // The sample's tables are as of a date: the list is not cut by it.
    assert!(
        page.contains("The tables are as of 2003-03-01; this list is of what was recorded"),
        "{page}"
    );
    let index = index_of(&pages);
    assert!(
        index.contains("Corrections, renames and rule changes (2)"),
        "{index}"
    );
    assert!(index.contains(r#"href="corrections.html""#), "{index}");
    let mut many = sample();
    let rows: Vec<_> = (1..=ROWS as u64 + 1)
        .map(|s| (s, "2003-01-01", "ledger.voided", "#1"))
        .collect();
    many.site.amendments = amendments(&rows);
    let pages = many.pages();
    let second = page_named(&pages, "corrections_2.html");
    assert!(
        second.contains("<h1>Corrections, renames and rule changes, page 2 of 2</h1>"),
        "{second}"
    );
    assert_eq!(
        second.matches("<tr>").count() + second.matches("<tr ").count(),
        2,
        "{second}"
    );
    let mut none = sample();
    none.site.amendments = amendments(&[]);
    let pages = none.pages();
    assert!(pages.iter().all(|(n, _)| !n.starts_with("corrections")));
    let index = index_of(&pages);
    assert!(
        index.contains("Corrections, renames and rule changes (0)"),
        "{index}"
    );
    assert!(!index.contains("corrections.html"), "{index}");
}

#[test]
fn every_page_exists_and_every_link_resolves() {
    let site = sample();
    let pages = site.pages();
    let names: BTreeSet<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), pages.len(), "unique file names");
    // index + valar + cards/tournament + 4 players (maia's Err has no page).
    let files = site.files();
    let players: Vec<&str> = files.players().map(|(p, _)| p).collect();
    assert_eq!(
        players,
        vec![
            "<b>Bold</b> & \"Q\" 'A'",
            "Ann Smith",
            "Only In Audit",
            "ann"
        ]
    );
    // index + valar + cards/tournament + players.html + corrections.html + 4
    // players (maia's Err has no page).
    assert_eq!(pages.len(), 1 + 2 + 1 + 1 + 4, "{names:?}");
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
    let index = index_of(&pages);
    let list = page_named(&pages, "players.html");
    for p in &players {
        let link = format!(
            "<li><a href=\"{}\">{}</a></li>",
            files.player(p).unwrap(),
            escape(p)
        );
        assert!(list.contains(&link), "players.html lists {p}");
    }
    let (first, last) = (players[0], players[players.len() - 1]);
    assert!(index.contains(&format!(
        "<li><a href=\"players.html\">{} – {}</a></li>",
        escape(first),
        escape(last)
    )));
    // The failing table is left out: no entry, no page.
    assert!(!index.contains("maia"), "{index}");
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
    let files = sample().files();
    let nasty = &pages
        .iter()
        .find(|(n, _)| Some(n.as_str()) == files.player(NASTY))
        .unwrap()
        .1;
    assert!(nasty.contains("<h1>&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;Q&quot; 'A'</h1>"));
    assert!(nasty.contains("1571 = &lt;3&gt; &amp; more"));
    // A renamed player's page names the earlier names, escaped.
    let ann = &pages
        .iter()
        .find(|(n, _)| Some(n.as_str()) == files.player("Ann Smith"))
        .unwrap()
        .1;
    assert!(
        ann.contains("<p class=\"meta\">Earlier names: Ann &lt;Jones&gt;</p>"),
        "{ann}"
    );
    assert!(!nasty.contains("Earlier names"));
}

/// One series per system with numeric values, its line through them, a point
/// at its latest value.
#[test]
fn the_chart_has_a_line_per_system_and_a_point_at_its_latest_value() {
    let site = sample();
    let mine: Vec<&Change> = site.changes.iter().filter(|c| c.subject == NASTY).collect();
    let svg = chart(NASTY, &mine).into_string();
    assert_eq!(svg.matches("<circle class=\"pt\"").count(), 2);
    assert_eq!(svg.matches("<g class=\"series\"").count(), 2);
    assert!(svg.contains("<title>valar: 1600 on 2003-02-20 (record 5)</title>"));
    assert!(svg.contains("<title>maia: 12 on 2003-02-01 (record 4)</title>"));
    // valar's line: three changes, from 1500 on the first day to 1600 on the last.
    let valar = svg.split("data-system=\"valar\"").nth(1).unwrap();
    let line = first_points(valar);
    assert_eq!(line.split(' ').count(), 3, "{line}");
    assert!(
        svg.contains(">date (UTC)</text>")
            && svg.contains("<g class=\"series\" data-system=\"maia\">")
            && svg.contains("font-weight=\"bold\">maia</text>")
    );
    assert!(svg.contains(">2003-01-10</text>") && svg.contains(">2003-02-20</text>"));
    // One point at a single date still draws.
    let one = change(9, "2003-01-01", "cfr", "x", "7");
    assert_eq!(
        chart("x", &[&one])
            .into_string()
            .matches("class=\"pt\"")
            .count(),
        1
    );
    // Non-numeric values stay in the table only.
    let w = change(9, "2003-01-01", "cfr", "x", "W");
    assert!(chart("x", &[&w])
        .into_string()
        .contains("No numeric values"));
    assert!(chart("x", &[]).into_string().contains("No rating changes"));
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
fn the_quoted_script_is_the_readme_one() {
    let readme = include_str!("../../README.md");
    for line in VERIFY_SCRIPT.lines().filter(|l| !l.trim().is_empty()) {
        assert!(readme.contains(line), "README lacks: {line}");
    }
}

/// The index lists only tables with rows: a table whose standings fail or that
/// has none is not mentioned; with none left it says so.
#[test]
fn the_index_lists_only_tables_with_rows() {
    let mut s = sample();
    s.tables.push(TableView {
        table: "nazgul".into(),
        tournament: None,
        standings: Ok(report("nazgul", &[])),
    });
    let pages = s.pages();
    let index = index_of(&pages);
    let listed = index.matches("<tr><td><a href=\"table-").count();
    assert_eq!(listed, 2, "valar and cards: {index}");
    assert!(!index.contains("nazgul") && !index.contains("maia"));
    assert!(!pages.iter().any(|(n, _)| n.contains("nazgul")));
    assert!(!index.contains("No table has results yet."));
    s.tables
        .retain(|t| !matches!(&t.standings, Ok(r) if !r.main.rows.is_empty()));
    let index = index_of(&s.pages()).to_string();
    assert!(
        index.contains("<p>No table has results yet.</p>"),
        "{index}"
    );
}

/// The site's title is on every page (escaped), in the header and the
/// `<title>`; the index shows the last update and the head; every other page's
/// footer has the clocks and links to them, so that an append that leaves a
/// page's content alone leaves its bytes alone.
#[test]
fn every_page_has_the_title_and_only_the_index_the_last_update_and_the_head() {
    let title = "Spring &amp; &lt;League&gt;";
    for (name, html) in sample().pages() {
        assert!(
            html.contains(&format!("<a href=\"index.html\">{title}</a>")),
            "{name}"
        );
        let want = match name.as_str() {
            "index.html" => format!("<title>{title}</title>"),
            _ => format!(" · {title}</title>"),
        };
        assert!(html.contains(&want), "{name}");
        let footer = html.split("<footer>").nth(1).unwrap();
        assert!(
            footer.starts_with(
                "Tables as of <strong>2003-03-01</strong>, from records 1–6 \
                 (known-at cut-off). The ledger head, the last update and how to verify are on \
                 the <a href=\"index.html#verify\">index</a>.</footer>"
            ),
            "{name}: {footer}"
        );
        let index = name == "index.html";
        assert_eq!(html.contains(&"ab".repeat(32)), index, "{name}");
        assert_eq!(html.contains("2003-03-02T10:11:12.5Z"), index, "{name}");
    }
    let index = index_of(&sample().pages()).to_string();
    assert!(index.contains(&format!("<h1>{title}</h1>")));
    assert!(index.contains("<time id=\"updated\" datetime=\"2003-03-02T10:11:12.5Z\">"));
    let empty = Sample::new(Site::default(), Vec::new(), Vec::new()).pages();
    assert!(
        index_of(&empty).contains("Last updated: never (the ledger is empty)"),
        "{empty:?}"
    );
}

/// Column headers are the readable titles; the keys stay in JSON and CSV.
#[test]
fn column_headers_are_readable_titles() {
    let pages = sample().pages();
    let valar = page_named(&pages, "table-valar.html");
    assert!(valar.contains(
        "<th scope=\"col\">Rank</th><th scope=\"col\">Player</th><th scope=\"col\">Rating</th>"
    ));
    let files = sample().files();
    let ann = files.player("Ann Smith").unwrap();
    let ann = page_named(&pages, ann);
    assert!(
        ann.contains(
            "<th scope=\"col\">Record</th><th scope=\"col\">Date</th><th scope=\"col\">Table</th>"
        ),
        "{ann}"
    );
}

/// The `points` of the first polyline in `svg`.
fn first_points(svg: &str) -> &str {
    let after = svg.split("points=\"").nth(1).unwrap();
    after.split('"').next().unwrap()
}
