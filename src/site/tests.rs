use serde_json::json;

use super::chart::{fmt_num, nice_ticks};
use super::outline::{Outline, Places};
use super::*;
use crate::output::Table;
use crate::time;

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

    /// Every page: `(file name, HTML)`, index first.
    fn pages(&self) -> Vec<(String, String)> {
        let (mut pages, mut html) = (Vec::new(), String::new());
        self.each_page(&mut |name, piece, last| {
            html.push_str(piece);
            if last {
                pages.push((name.to_string(), std::mem::take(&mut html)));
            }
            Ok(())
        })
        .unwrap();
        pages
    }

    /// The file names: tables in display order, then players in name order.
    fn files(&self) -> Files {
        let mut outline = Outline::default();
        self.tables.iter().for_each(|t| outline.add(t));
        outline.name_players(self.site.spilled_subjects.clone());
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
        },
        spilled_subjects: BTreeSet::new(),
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
    spill.take(whole.changes.clone()).unwrap();
    let buckets = spill.finish(Vec::new()).unwrap();
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
    for p in players {
        assert!(index.contains(&escape(p)), "index lists {p}");
    }
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
    let index = &pages[0].1;
    let listed = index.matches("<tr><td><a href=\"table-").count();
    assert_eq!(listed, 2, "valar and cards: {index}");
    assert!(!index.contains("nazgul") && !index.contains("maia"));
    assert!(!pages.iter().any(|(n, _)| n.contains("nazgul")));
    assert!(!index.contains("No table has results yet."));
    s.tables
        .retain(|t| !matches!(&t.standings, Ok(r) if !r.main.rows.is_empty()));
    let index = &s.pages()[0].1;
    assert!(
        index.contains("<p>No table has results yet.</p>"),
        "{index}"
    );
}

/// The site's title is on every page (escaped), in the header and the
/// `<title>`; the last update and the head are in every footer.
#[test]
fn every_page_has_the_title_the_last_update_and_the_head() {
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
            footer.contains(
                "Last updated <time datetime=\"2003-03-02T10:11:12.5Z\">2003-03-02 10:11 UTC</time>"
            ),
            "{name}"
        );
        assert!(footer.contains(&format!(
            "Ledger head 7 <code class=\"hash\">{}</code>",
            "ab".repeat(32)
        )));
    }
    let index = &sample().pages()[0].1;
    assert!(index.contains(&format!("<h1>{title}</h1>")));
    assert!(index.contains("<time id=\"updated\" datetime=\"2003-03-02T10:11:12.5Z\">"));
    let empty = Site::default();
    let page = render_player(&empty, &Files::default(), "x", &[], "");
    assert!(
        page.contains("Last updated never (the ledger is empty)"),
        "{page}"
    );
}

/// Column headers are the readable titles; the keys stay in JSON and CSV.
#[test]
fn column_headers_are_readable_titles() {
    let pages = sample().pages();
    let valar = &pages
        .iter()
        .find(|(n, _)| n == "table-valar.html")
        .unwrap()
        .1;
    assert!(valar.contains(
        "<th scope=\"col\">Rank</th><th scope=\"col\">Player</th><th scope=\"col\">Rating</th>"
    ));
    let files = sample().files();
    let ann = files.player("Ann Smith").unwrap();
    let ann = &pages.iter().find(|(n, _)| n == ann).unwrap().1;
    assert!(
        ann.contains(
            "<th scope=\"col\">Record</th><th scope=\"col\">Date</th><th scope=\"col\">Table</th>"
        ),
        "{ann}"
    );
}
