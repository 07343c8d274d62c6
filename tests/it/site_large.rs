//! `laurel site DIR` of generated ledgers larger than a page: tables split
//! into pages, a rebuild after one append rewriting only the pages that
//! changed, and two builds of one ledger being the same files.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::laurel;

use super::site::tables_of;

/// A ledger of `n` events of `laurel gen` (seed `seed`).
fn generated(n: u64, seed: u64) -> tempfile::TempDir {
    let dir = common::empty_ledger();
    let events = dir.path().join("events.jsonl");
    std::fs::write(&events, common::gen(n, seed)).unwrap();
    laurel(dir.path())
        .arg("append")
        .arg(&events)
        .assert()
        .success();
    dir
}

/// `laurel site` into `out`: its stdout.
fn site_said(ledger: &Path, out: &Path) -> String {
    let o = laurel(ledger).arg("site").arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// 6,000 generated events: CFR has about 5,000 event scores, so its page is
/// split in pages of 1,000 rows of each table: `table-cfr.html` with the top of
/// the ranking and the first event scores, then `table-cfr_2.html`, ...; each
/// links to the first, previous, next and last; over all pages every table has
/// exactly the rows `standings cfr --limit all` has, in its order. No page of
/// the site is over 5 MB (none is over 1 MB at this size), no table page holds
/// more than 1,000 rows of a table, no player page lists more than the latest
/// 10 changes.
#[test]
fn a_table_longer_than_a_page_is_split_into_pages_holding_every_row_once() {
    let ledger = generated(6_000, 5);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("site");
    site_said(ledger.path(), &dir);
    let cfr = common::json(
        ledger.path(),
        &["standings", "cfr", "--format", "json", "--limit", "all"],
    );
    let main = cfr["rows"].as_array().unwrap();
    let events = cfr["tables"]["events"].as_array().unwrap().len();
    let series = cfr["tables"]["series"].as_array().unwrap().len();
    assert!(events > 2 * laurel::site::ROWS, "{events} event scores");
    let pages = events.div_ceil(laurel::site::ROWS);

    let page = |n: usize| {
        let name = laurel::site::page_name("table-cfr.html", n);
        std::fs::read_to_string(dir.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert!(!dir.join(format!("table-cfr_{}.html", pages + 1)).exists());
    let (mut rows, mut ranked) = ([0; 3], Vec::new());
    for n in 1..=pages {
        let html = page(n);
        assert!(html.contains(&format!("Page {n} of {pages}:")), "page {n}");
        for k in [1, pages].into_iter().filter(|k| *k != n) {
            let link = laurel::site::page_name("table-cfr.html", k);
            assert!(
                html.contains(&format!("href=\"{link}\"")),
                "page {n} links {link}"
            );
        }
        if n > 1 {
            let prev = laurel::site::page_name("table-cfr.html", n - 1);
            assert!(html.contains(&format!("<a href=\"{prev}\" rel=\"prev\">previous</a>")));
        }
        if n < pages {
            let next = format!("table-cfr_{}.html", n + 1);
            assert!(html.contains(&format!("<a href=\"{next}\" rel=\"next\">next</a>")));
        }
        for (caption, n_rows, players) in tables_of(&html) {
            assert!(
                n_rows <= laurel::site::ROWS,
                "page {n}, {caption}: {n_rows} rows"
            );
            let t = ["ranking", "event scores", "series"]
                .iter()
                .position(|w| caption.contains(w))
                .unwrap_or_else(|| panic!("{caption}"));
            rows[t] += n_rows;
            if t == 0 {
                ranked.extend(players);
            }
        }
    }
    assert_eq!(rows, [main.len(), events, series], "rows over all pages");
    let want: Vec<&str> = main.iter().map(|r| r["player"].as_str().unwrap()).collect();
    assert_eq!(
        ranked, want,
        "page 1 holds the top, the pages the ranking in order"
    );
    assert!(page(1).contains("Rows 1–1000."));

    let mut biggest = (0, String::new());
    for e in std::fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let size = e.metadata().unwrap().len();
        if name.ends_with(".html") && size > biggest.0 {
            biggest = (size, name.clone());
        }
        if name.starts_with("player-") {
            let html = std::fs::read_to_string(e.path()).unwrap();
            let history = html.split("class=\"history\"").nth(1).unwrap();
            let shown = history
                .split("</table>")
                .next()
                .unwrap()
                .matches("<tr><td")
                .count();
            assert!(shown <= laurel::site::HISTORY, "{name}: {shown} changes");
        }
    }
    assert!(biggest.0 < 1 << 20, "{biggest:?}");
}

/// Every file of `dir` with its modification time and bytes.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, (std::time::SystemTime, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let modified = e.metadata().unwrap().modified().unwrap();
            (name, (modified, std::fs::read(e.path()).unwrap()))
        })
        .collect()
}

/// Set every file of `dir` as modified at `t`.
fn touch_all(dir: &Path, t: std::time::SystemTime) {
    for e in std::fs::read_dir(dir).unwrap() {
        let f = std::fs::File::options()
            .append(true)
            .open(e.unwrap().path())
            .unwrap();
        f.set_modified(t).unwrap();
    }
}

/// Rebuilding a site writes only the pages whose bytes change; the others are
/// the files they were (same modification time). Built twice: nothing new.
/// After a new player is seeded at the bottom of valar: exactly the pages whose
/// bytes differ from the last site's are new files (the index, the last page
/// of valar, the new player's, ...), a few out of hundreds. Voiding that seed
/// removes the player's page, and `site` says so.
#[test]
fn a_rebuild_rewrites_only_the_pages_that_changed() {
    let ledger = generated(3_000, 9);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("site");
    let first = site_said(ledger.path(), &dir);
    // Every file but export.jsonl and the site's list of files is a page.
    let pages = snapshot(&dir).len() - 2;
    assert!(first.starts_with(&format!(
        "wrote {pages} page(s) and export.jsonl to {}: {pages} new or changed, 0 unchanged, 0 removed\n",
        dir.display()
    )), "{first}");
    let long_ago =
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    touch_all(&dir, long_ago);
    let again = site_said(ledger.path(), &dir);
    assert!(
        again.contains(&format!(
            ": 0 new or changed, {pages} unchanged, 0 removed\n"
        )),
        "{again}"
    );
    let kept = snapshot(&dir);
    let rewritten: Vec<&String> = kept
        .iter()
        .filter(|(_, (t, _))| *t != long_ago)
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        rewritten,
        ["export.jsonl"],
        "only the export is written again"
    );

    common::append_ok(
        ledger.path(),
        r#"{"at":"2025-01-01T00:00:00Z","id":"seed-newcomer","player":"newcomer","system":"valar","type":"mepbm.rating_seeded","value":1}"#,
    );
    let fresh = out.path().join("fresh");
    site_said(ledger.path(), &fresh);
    let said = site_said(ledger.path(), &dir);
    let (now, fresh) = (snapshot(&dir), snapshot(&fresh));
    let bytes: std::collections::BTreeMap<_, _> = now.iter().map(|(n, (_, b))| (n, b)).collect();
    assert_eq!(
        bytes,
        fresh.iter().map(|(n, (_, b))| (n, b)).collect(),
        "the same site"
    );
    let changed: BTreeSet<&String> = now
        .iter()
        .filter(|(n, (_, b))| kept.get(*n).is_none_or(|(_, old)| old != b))
        .map(|(n, _)| n)
        .collect();
    let rewritten: BTreeSet<&String> = now
        .iter()
        .filter(|(_, (t, _))| *t != long_ago)
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        rewritten, changed,
        "written again: exactly the files whose bytes changed"
    );
    for page in [
        "index.html",
        "export.jsonl",
        ".laurel-site",
        "player-newcomer.html",
    ] {
        assert!(
            changed.contains(&page.to_string()),
            "{page} changed: {changed:?}"
        );
    }
    assert!(
        changed.iter().any(|n| n.starts_with("table-valar")),
        "{changed:?}"
    );
    let (n, pages) = (changed.len() - 2, now.len() - 2);
    assert!(n * 20 < pages, "{n} of {pages} pages changed: {changed:?}");
    assert!(
        said.contains(&format!(
            ": {n} new or changed, {} unchanged, 0 removed\n",
            pages - n
        )),
        "{said}"
    );

    let (seq, _) = common::head(ledger.path());
    laurel(ledger.path())
        .args(["void", &seq.to_string(), "--reason", "entered by mistake"])
        .assert()
        .success();
    let said = site_said(ledger.path(), &dir);
    assert!(!dir.join("player-newcomer.html").exists());
    assert!(said.contains(", 1 removed\n"), "{said}");
}

/// Pages are rendered on two threads and written on a third, the trail
/// spilled and read back on threads of their own: two builds of one ledger
/// into new directories are the same files, byte for byte, tables of several
/// pages and the players of many buckets of the trail included.
#[test]
fn two_builds_of_one_ledger_are_the_same_files() {
    let ledger = generated(6_000, 5);
    let out = tempfile::tempdir().unwrap();
    let (a, b) = (out.path().join("a"), out.path().join("b"));
    site_said(ledger.path(), &a);
    site_said(ledger.path(), &b);
    let bytes = |d: &Path| -> std::collections::BTreeMap<String, Vec<u8>> {
        snapshot(d).into_iter().map(|(n, (_, b))| (n, b)).collect()
    };
    let (first, second) = (bytes(&a), bytes(&b));
    assert!(
        first.keys().any(|n| n.starts_with("table-cfr_2")),
        "a table of several pages"
    );
    let players = first.keys().filter(|n| n.starts_with("player-")).count();
    assert!(players > 300, "{players} player pages");
    assert!(first == second, "the two builds differ");
}
