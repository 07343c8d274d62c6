//! `laurel site DIR`: the static website, generated from real ledgers through the
//! binary. Rendering on hand-made data is unit-tested in `src/site/tests.rs`; the
//! rendered DOM is checked in headless Chromium by `tests/it/site_browser.rs`.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::laurel;

fn site(ledger: &Path, out: &Path, extra: &[&str]) {
    laurel(ledger)
        .arg("site")
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

/// Every `href="..."` of an HTML text (file part, `&amp;` unescaped).
fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(|s| s.replace("&amp;", "&"))
        .map(|s| s.split('#').next().unwrap_or_default().to_string())
        .collect()
}

fn html_files(out: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn export_stdout(ledger: &Path) -> Vec<u8> {
    let out = laurel(ledger).arg("export").output().unwrap();
    assert!(out.status.success());
    out.stdout
}

#[test]
fn site_of_the_bundled_events_has_every_table_player_and_link() {
    let ledger = common::bundled();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("site");
    site(ledger.path(), &dir, &[]);

    // export.jsonl is byte for byte `laurel export`, and ends at the head shown.
    let export = std::fs::read(dir.join("export.jsonl")).unwrap();
    assert_eq!(export, export_stdout(ledger.path()));
    let (seq, hash) = common::head(ledger.path());
    let last: serde_json::Value =
        serde_json::from_slice(export.split(|b| *b == b'\n').nth(seq as usize - 1).unwrap())
            .unwrap();
    assert_eq!(last["hash"], hash.as_str());

    let pages = html_files(&dir);
    let names: BTreeSet<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    let index = &pages.iter().find(|(n, _)| n == "index.html").unwrap().1;
    assert!(index.contains(&format!("id=\"head-hash\">{hash}</code>")));
    assert!(index.contains(&format!("id=\"head-seq\">{seq}</strong>")));
    assert!(index.contains("python3 verify.py export.jsonl"));

    // Every table has rows from the bundled events, and a page.
    for (table, _) in laurel::systems::tables() {
        let linked = names.iter().any(|n| {
            *n == format!("table-{table}.html") || n.starts_with(&format!("table-{table}--"))
        });
        assert!(linked, "table {table} is missing from the index");
    }
    // Every page is reachable from the index (players through the list of
    // players it links), and every link resolves.
    let list = &pages.iter().find(|(n, _)| n == "players.html").unwrap().1;
    let mut linked: BTreeSet<String> = hrefs(index).into_iter().collect();
    linked.extend(hrefs(list));
    for n in &names {
        assert!(
            *n == "index.html" || linked.contains(*n),
            "{n} not linked from the index"
        );
    }
    for (name, html) in &pages {
        for h in hrefs(html) {
            assert!(
                h.is_empty() || dir.join(&h).is_file(),
                "{name}: broken link {h:?}"
            );
        }
        assert!(!html.contains("<script"), "{name}");
    }
    // Every player named in a table or a history has a page.
    let players = pages
        .iter()
        .filter(|(n, _)| n.starts_with("player-"))
        .count();
    assert_eq!(
        list.matches("<li><a href=\"player-").count(),
        players,
        "one entry in the list of players per player page"
    );
    assert!(index.contains("<li><a href=\"players.html\">"));
}

#[test]
fn clocks_are_shown_and_the_export_is_still_the_whole_ledger() {
    let ledger = common::bundled();
    let out = tempfile::tempdir().unwrap();
    site(
        ledger.path(),
        out.path(),
        &["--as-of", "2003-12-31", "--known-at", "1"],
    );
    let index = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert!(index.contains("id=\"as-of\">2003-12-31</strong>"));
    let export = export_stdout(ledger.path());
    assert_eq!(
        std::fs::read(out.path().join("export.jsonl")).unwrap(),
        export
    );
    let first: serde_json::Value =
        serde_json::from_slice(export.split(|b| *b == b'\n').next().unwrap()).unwrap();
    let h1 = first["hash"].as_str().unwrap();
    assert!(index.contains(&format!(
        "records 1–1 (known-at cut-off); record 1 has hash <code class=\"hash\">{h1}</code>"
    )));
    let (_, head) = common::head(ledger.path());
    assert!(index.contains(&format!("id=\"head-hash\">{head}</code>")));
}

#[test]
fn names_from_events_are_escaped_everywhere() {
    let dir = common::empty_ledger();
    let nasty = r#"<b>Bold</b> & \"Q\" 'A'"#;
    let events = format!(
        r#"{{"type":"cfr.series_defined","at":"2012-08-01","series":"WBC <&>","format":"elimination"}}
{{"type":"cfr.event_completed","at":"2012-08-02","series":"WBC <&>","event":"2012","heats":[[{{"driver":"{nasty}","place":1}},{{"driver":"Ann","place":2}}]],"final":[{{"driver":"{nasty}","place":1}},{{"driver":"Ann","place":2}}]}}
"#
    );
    let out = common::append_text(dir.path(), &events);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let site_dir = tempfile::tempdir().unwrap();
    site(dir.path(), site_dir.path(), &[]);
    for (name, html) in html_files(site_dir.path()) {
        for raw in ["<b>", "<&>"] {
            assert!(!html.contains(raw), "{name} contains raw {raw:?}");
        }
        if name.starts_with("player-") && html.contains("Bold") {
            assert!(html.contains("<h1>&lt;b&gt;Bold&lt;/b&gt; &amp; &quot;Q&quot; 'A'</h1>"));
        }
    }
}

#[test]
fn demo_says_how_to_build_the_site() {
    let out = laurel(Path::new("/nonexistent"))
        .arg("demo")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("laurel site site/"), "{text}");
}

/// `site` spills every player's trail to the temporary directory (`src/spill.rs`)
/// and removes it when done.
#[test]
fn site_leaves_no_spilled_trail_behind() {
    let ledger = common::bundled();
    let tmp = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    laurel(ledger.path())
        .env("TMPDIR", tmp.path())
        .arg("site")
        .arg(out.path().join("site"))
        .assert()
        .success();
    assert!(out.path().join("site/index.html").is_file());
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A full disk printed "No space left on device (os error 28)" twice: the I/O
/// error's message names its cause, and the binary printed the cause chain too.
#[test]
fn an_io_error_names_its_cause_once() {
    let ledger = common::bundled();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = laurel(ledger.path())
        .arg("site")
        .arg(file.join("site"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("I/O error on"), "{err}");
    assert_eq!(err.matches("os error").count(), 1, "{err}");
}

/// The text between `open` and the next `close` after it, or "".
fn between<'a>(html: &'a str, open: &str, close: &str) -> &'a str {
    html.split_once(open)
        .and_then(|(_, rest)| rest.split_once(close))
        .map_or("", |(inside, _)| inside)
}

/// The table pages the index links to.
fn linked_tables(index: &str) -> BTreeSet<String> {
    hrefs(index)
        .into_iter()
        .filter(|h| h.starts_with("table-"))
        .collect()
}

/// Every `player` of a standings table's JSON, its extra tables' included.
fn players_of(ledger: &Path, table: &str) -> BTreeSet<String> {
    let v = common::json(ledger, &["standings", table, "--format", "json"]);
    let mut rows: Vec<&serde_json::Value> = v["rows"].as_array().unwrap().iter().collect();
    if let Some(extra) = v["tables"].as_object() {
        rows.extend(extra.values().flat_map(|t| t.as_array().unwrap()));
    }
    rows.iter()
        .filter_map(|r| r["player"].as_str())
        .map(str::to_string)
        .collect()
}

/// A renamed player has one page, under the name the tables show now, with
/// the changes made under every name, and one line in the list of players.
#[test]
fn a_renamed_player_has_one_page_under_the_name_shown_now() {
    let ledger = common::ledger_of(concat!(
        r#"{"type":"mepbm.rating_seeded","at":"2024-01-01","player":"Ada King","system":"valar","value":1600}"#,
        "\n",
        r#"{"type":"mepbm.monthly_tick","at":"2024-02-01","month":"2024-01"}"#,
        "\n",
        r#"{"type":"ledger.player_renamed","at":"2024-02-15","from":"Ada King","to":"Ada Queen"}"#,
        "\n",
        r#"{"type":"mepbm.monthly_tick","at":"2024-03-01","month":"2024-02"}"#,
        "\n",
    ));
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("site");
    site(ledger.path(), &dir, &[]);
    let pages: Vec<(String, String)> = html_files(&dir)
        .into_iter()
        .filter(|(f, _)| f.starts_with("player-"))
        .collect();
    assert_eq!(
        pages.len(),
        1,
        "{:?}",
        pages.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    let (file, html) = &pages[0];
    assert!(file.starts_with("player-ada-queen-"), "{file}");
    assert_eq!(
        html.matches("monthly adjustment 2024-0").count(),
        2,
        "both ticks"
    );
    assert!(html.contains("rank 1") && html.contains("Earlier names: Ada King</p>"));
    let list = std::fs::read_to_string(dir.join("players.html")).unwrap();
    assert!(
        list.contains("Ada Queen") && !list.contains("Ada King"),
        "{list}"
    );
}

/// `--title` and `--systems mepbm`: the title on every page, only the Middle-earth
/// tables, and only their players (exactly those of the seven tables).
#[test]
fn a_site_for_one_community_has_its_title_tables_and_players_only() {
    let ledger = common::bundled();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("site");
    site(
        ledger.path(),
        &dir,
        &["--title", "Middle-earth <PBM>", "--systems", "mepbm"],
    );
    let pages = html_files(&dir);
    let index = &pages.iter().find(|(n, _)| n == "index.html").unwrap().1;
    assert!(index.contains("<h1>Middle-earth &lt;PBM&gt;</h1>"));
    for (name, html) in &pages {
        let title = between(html, "<title>", "</title>");
        assert!(
            title.ends_with("Middle-earth &lt;PBM&gt;"),
            "{name}: {title}"
        );
    }
    let mepbm = [
        "valar", "maia", "istari", "nations", "ainur", "council", "nazgul",
    ];
    let want: BTreeSet<String> = mepbm.iter().map(|t| format!("table-{t}.html")).collect();
    assert_eq!(linked_tables(index), want);
    let tables = pages
        .iter()
        .filter(|(n, _)| n.starts_with("table-"))
        .count();
    assert_eq!(tables, mepbm.len(), "no page of another community's table");

    let players: BTreeSet<String> = mepbm
        .iter()
        .flat_map(|t| players_of(ledger.path(), t))
        .collect();
    let list = &pages.iter().find(|(n, _)| n == "players.html").unwrap().1;
    let listed: BTreeSet<String> = list
        .split("<li><a href=\"player-")
        .skip(1)
        .map(|s| between(s, "\">", "</a>"))
        .map(str::to_string)
        .collect();
    assert_eq!(listed, players);
    for other in ["Eli Marsh", "Ana", "Tobias Lindqvist", "Cassini"] {
        assert!(!listed.contains(other), "{other} plays elsewhere");
    }
    let player_pages = pages
        .iter()
        .filter(|(n, _)| n.starts_with("player-"))
        .count();
    assert_eq!(player_pages, players.len());

    // A table name chooses just that table, and names may be mixed.
    let two = out.path().join("two");
    site(ledger.path(), &two, &["--systems", "valar,cards"]);
    let index = std::fs::read_to_string(two.join("index.html")).unwrap();
    let want = [
        "table-cards--cards-2013-league.html",
        "table-cards--cards-2013-masters.html",
        "table-valar.html",
    ];
    assert_eq!(linked_tables(&index), want.map(String::from).into());
}

#[test]
fn an_unknown_system_is_refused_with_the_nearest_name_and_nothing_written() {
    let ledger = common::bundled();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("site");
    let o = laurel(ledger.path())
        .arg("site")
        .arg(&dir)
        .args(["--systems", "mepbm,valr"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("unknown system or table \"valr\"; did you mean \"valar\"?"),
        "{err}"
    );
    assert!(!dir.exists());
}

/// A card league's ledger: the index lists the league's tables and nothing
/// else (every other table has no rows), and no page is made for them.
#[test]
fn the_index_lists_only_tables_with_rows() {
    let ledger = common::ledger_with(&["cards_league.jsonl"]);
    let out = tempfile::tempdir().unwrap();
    site(ledger.path(), out.path(), &[]);
    let index = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    let want = ["table-cards--cards-2013-league.html".to_string()];
    assert_eq!(linked_tables(&index), want.into());
    let pages = html_files(out.path());
    let tables: Vec<&str> = pages
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| n.starts_with("table-"))
        .collect();
    assert_eq!(tables, ["table-cards--cards-2013-league.html"]);
    let listed = between(&index, "<tbody>", "</tbody>");
    for (table, _) in laurel::systems::tables() {
        if table != "cards" {
            assert!(!listed.contains(table), "{table} listed: {listed}");
        }
    }
}

/// Column headers are readable titles on the pages, while JSON keeps the
/// keys; the index gives the last update (the `recorded_at` of the last
/// record folded) and the head, and every footer links to them.
#[test]
fn titles_are_readable_and_the_index_shows_the_last_update_and_head() {
    let ledger = common::bundled();
    let out = tempfile::tempdir().unwrap();
    site(ledger.path(), out.path(), &[]);
    let cfr = std::fs::read_to_string(out.path().join("table-cfr.html")).unwrap();
    let head = between(&cfr, "<thead>", "</thead>");
    assert!(
        head.contains(">Best finish</th>") && head.contains(">Rank</th>"),
        "{head}"
    );
    assert!(!cfr.contains(">best_finish<"));
    let v = common::json(ledger.path(), &["standings", "cfr", "--format", "json"]);
    assert!(
        v["rows"][0].get("best_finish").is_some(),
        "JSON keeps the key"
    );
    let valar = std::fs::read_to_string(out.path().join("table-valar.html")).unwrap();
    assert!(between(&valar, "<thead>", "</thead>").contains(">Rating</th>"));

    let (seq, hash) = common::head(ledger.path());
    let export = export_stdout(ledger.path());
    let last = export.split(|b| *b == b'\n').nth(seq as usize - 1).unwrap();
    let last: serde_json::Value = serde_json::from_slice(last).unwrap();
    let recorded = last["recorded_at"].as_str().unwrap();
    let shown = format!("{} {} UTC", &recorded[..10], &recorded[11..16]);
    // Only the index shows the last update and the head (they change with
    // every append); every page's footer links to them.
    for (name, html) in html_files(out.path()) {
        let footer = between(&html, "<footer>", "</footer>");
        assert!(
            footer.contains("<a href=\"index.html#verify\">index</a>"),
            "{name}: {footer}"
        );
        let index = name == "index.html";
        assert_eq!(html.contains(recorded), index, "{name}");
        assert_eq!(html.contains(&hash), index, "{name}");
    }
    let index = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert!(index.contains(&format!("record <strong id=\"head-seq\">{seq}</strong>")));
    assert!(index.contains(&format!(
        "<time id=\"updated\" datetime=\"{recorded}\">{shown}</time>"
    )));
    assert!(index.contains(&format!("id=\"head-hash\">{hash}</code>")));
}

/// A table page titles each table once, by its caption: the CFR page's
/// event scores and series tables are not headed by their caption again.
#[test]
fn each_table_is_titled_once_by_its_caption() {
    let ledger = common::bundled();
    let out = tempfile::tempdir().unwrap();
    site(ledger.path(), out.path(), &[]);
    let mut captions = 0;
    for (name, html) in html_files(out.path()) {
        for (caption, _, _) in tables_of(&html) {
            captions += 1;
            let shown = format!(">{caption}<");
            assert_eq!(html.matches(&shown).count(), 1, "{name}: {caption}");
        }
    }
    let cfr = std::fs::read_to_string(out.path().join("table-cfr.html")).unwrap();
    assert_eq!(
        tables_of(&cfr).len(),
        3,
        "the ranking, event scores, series"
    );
    assert!(captions > 20, "{captions}");
}

/// With `--known-at`, the last update is the `recorded_at` of the last record
/// the tables include, not the head's.
#[test]
fn the_last_update_follows_known_at() {
    let ledger = common::ledger_with(&["cards_league.jsonl", "cards_masters.jsonl"]);
    let export = export_stdout(ledger.path());
    let records: Vec<serde_json::Value> = export
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let first = &records[0]["recorded_at"];
    let cut = records
        .iter()
        .take_while(|r| r["recorded_at"] == *first)
        .count();
    let last = &records[records.len() - 1]["recorded_at"];
    assert!(cut < records.len() && first != last, "two appends");
    for (known_at, want) in [(cut.to_string(), first), (records.len().to_string(), last)] {
        let out = tempfile::tempdir().unwrap();
        site(ledger.path(), out.path(), &["--known-at", &known_at]);
        let index = std::fs::read_to_string(out.path().join("index.html")).unwrap();
        let want = format!(
            "<time id=\"updated\" datetime=\"{}\">",
            want.as_str().unwrap()
        );
        assert!(index.contains(&want), "--known-at {known_at}");
    }
    // Cut before the first record: no update yet, no record used, and the
    // ledger is not called empty.
    let out = tempfile::tempdir().unwrap();
    site(ledger.path(), out.path(), &["--known-at", "0"]);
    let index = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert!(
        index.contains("Last updated: never (no record by the known-at cut-off).")
            && index.contains("Tables computed from no record (known-at cut-off).")
            && index.contains("The tables used no record.")
            && !index.contains("1–0"),
        "{index}"
    );
}

/// Per `<caption>` of a page, in order: the caption, the rows of its table
/// and the player each row links to.
pub(crate) fn tables_of(html: &str) -> Vec<(String, usize, Vec<String>)> {
    html.split("<caption>")
        .skip(1)
        .map(|t| {
            let caption = t.split("</caption>").next().unwrap().to_string();
            let rows: Vec<&str> = t
                .split("</table>")
                .next()
                .unwrap()
                .split("<tr><td")
                .skip(1)
                .collect();
            let players = rows
                .iter()
                .filter_map(|r| r.split(".html\">").nth(1))
                .map(|p| p.split('<').next().unwrap().to_string())
                .collect();
            (caption, rows.len(), players)
        })
        .collect()
}
