//! The static site rendered in a real browser: headless Chromium (Debian's
//! `chromium` package, which `.ci/run` installs) loads the pages from disk and
//! the assertions run on the DOM it serialises (`--dump-dom`), not on our source.
//!
//! Without Chromium the tests print a note and pass, so that developers without
//! it can run the suite; with `CI` set they fail instead. `LAUREL_CHROMIUM`
//! names another binary.
//!
//! Screenshots of a player page: `$TMPDIR/laurel-site-player-sample.png` (the
//! hand-made site below) and `$TMPDIR/laurel-site-player.png` (the bundled
//! events' player with the most changes, once the rating systems record some).
//! `LAUREL_SITE_KEEP=DIR` also writes the hand-made site into DIR.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use laurel::output::Stamp;
use laurel::site::{Site, TableView};
use laurel::systems::table::{Report, Table};
use laurel::systems::Change;
use serde_json::json;

/// The Chromium binary, or None (after a note) when it is missing outside CI.
fn chromium() -> Option<PathBuf> {
    // LAUREL_CHROMIUM, when set, is the only candidate.
    let candidates: Vec<PathBuf> = match std::env::var_os("LAUREL_CHROMIUM") {
        Some(p) => vec![PathBuf::from(p)],
        None => ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .map(PathBuf::from)
            .to_vec(),
    };
    for c in candidates {
        if c.is_file() {
            return Some(c);
        }
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "CI is set but Chromium is missing: install Debian's `chromium` package \
             (apt-get install -y chromium), or set LAUREL_CHROMIUM"
        );
    }
    eprintln!("note: chromium not found (/usr/bin/chromium); skipping the browser test");
    None
}

/// Run Chromium headless on `file` with `extra` flags, a fresh profile, and a
/// time limit; returns what it printed on stdout.
fn run_chromium(bin: &Path, file: &Path, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let stdout_path = profile.path().join("stdout.html");
    let stdout = std::fs::File::create(&stdout_path).unwrap();
    let url = format!("file://{}", file.canonicalize().unwrap().display());
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("p").display()
        ))
        .args(extra)
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed on {url}: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish rendering {url} within 90 s");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    std::fs::read_to_string(&stdout_path).unwrap()
}

fn dump_dom(bin: &Path, file: &Path) -> String {
    let dom = run_chromium(bin, file, &["--dump-dom".to_string()]);
    assert!(
        dom.contains("</html>"),
        "no DOM for {}: {dom:?}",
        file.display()
    );
    dom
}

/// Render several pages at once (two at a time: the machines are small).
fn dump_doms(bin: &Path, dir: &Path, files: &[String]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for pair in files.chunks(2) {
        std::thread::scope(|s| {
            let handles: Vec<_> = pair
                .iter()
                .map(|f| s.spawn(move || (f.clone(), dump_dom(bin, &dir.join(f)))))
                .collect();
            for h in handles {
                let (f, dom) = h.join().unwrap();
                out.insert(f, dom);
            }
        });
    }
    out
}

fn screenshot(bin: &Path, file: &Path, png: &Path) {
    let _ = std::fs::remove_file(png);
    run_chromium(
        bin,
        file,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1000,1300".to_string(),
            "--hide-scrollbars".to_string(),
        ],
    );
    let bytes = std::fs::read(png).expect("screenshot written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    assert!(
        bytes.len() > 10_000,
        "a PNG with content: {} bytes",
        bytes.len()
    );
    eprintln!("screenshot of {}: {}", file.display(), png.display());
}

/// Every `href` of a serialised DOM: the file part, entities undone.
fn hrefs(dom: &str) -> Vec<String> {
    dom.split(" href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(unescape)
        .map(|s| s.split('#').next().unwrap_or_default().to_string())
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// `(file, player name)` of every player link of the DOM of a page of the
/// list of players.
fn player_links(list_dom: &str) -> Vec<(String, String)> {
    list_dom
        .split("<li><a href=\"")
        .skip(1)
        .filter(|s| s.starts_with("player-"))
        .filter_map(|s| {
            let (file, rest) = s.split_once("\">")?;
            let (name, _) = rest.split_once("</a>")?;
            Some((unescape(file), unescape(name)))
        })
        .collect()
}

/// The chart's points (one a series, at its latest value) and the points
/// its lines go through.
fn chart_points(dom: &str) -> (usize, usize) {
    let line_points = dom
        .split("<polyline ")
        .skip(1)
        .map(|l| {
            let pts = l.split("points=\"").nth(1).unwrap_or_default();
            pts.split('"').next().unwrap_or_default().split(' ').count()
        })
        .sum();
    (dom.matches("<circle class=\"pt\"").count(), line_points)
}

/// A chart's lines go through at most this many changes of a system.
const LINE_POINTS: usize = 60;

fn assert_links_resolve(dir: &Path, doms: &BTreeMap<String, String>) -> usize {
    let mut n = 0;
    for (page, dom) in doms {
        for h in hrefs(dom) {
            assert!(
                h.is_empty() || dir.join(&h).is_file(),
                "{page}: link {h:?} does not resolve"
            );
            n += 1;
        }
    }
    n
}

#[test]
fn bundled_site_in_chromium_shows_the_head_charts_every_charted_change_and_links_resolve() {
    let Some(bin) = chromium() else { return };
    let ledger = common::empty_ledger();
    common::laurel(ledger.path())
        .arg("import")
        .arg(common::events_dir())
        .assert()
        .success();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("site");
    common::laurel(ledger.path())
        .arg("site")
        .arg(&dir)
        .assert()
        .success();
    let (seq, hash) = common::head(ledger.path());

    let index = dump_dom(&bin, &dir.join("index.html"));
    assert!(
        index.contains(&format!(
            "<code class=\"hash\" id=\"head-hash\">{hash}</code>"
        )),
        "the head hash is shown on the index"
    );
    assert!(index.contains(&format!("id=\"head-seq\">{seq}</strong>")));

    // Which pages to render: every table page, and the players with the most
    // changes (at most 8, so the test stays fast on big example sets).
    let linked: BTreeSet<String> = hrefs(&index).into_iter().collect();
    let tables: Vec<String> = linked
        .iter()
        .filter(|h| h.starts_with("table-"))
        .cloned()
        .collect();
    // Subject pages also exist for nations (Top nations); `history` is a
    // player's, so the pages checked are those of the names `laurel players`
    // lists.
    let listed = common::json(ledger.path(), &["players", "--format", "json"]);
    let known: BTreeSet<String> = listed["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["player"].as_str().map(String::from))
        .collect();
    assert!(known.len() > 50, "{} players", known.len());
    // Per player: changes, and numeric ones per charted system (a Space
    // Base Race match score is in the history only).
    type Numeric = BTreeMap<String, usize>;
    let list = dump_dom(&bin, &dir.join("players.html"));
    let mut players: Vec<(usize, Numeric, String, String)> = player_links(&list)
        .into_iter()
        .filter(|(_, name)| known.contains(name))
        .map(|(file, name)| {
            let h = common::json(ledger.path(), &["history", &name, "--format", "json"]);
            let rows = h["rows"].as_array().unwrap();
            let mut numeric = Numeric::new();
            for r in rows {
                let number = r["new"]
                    .as_str()
                    .is_some_and(|v| v.trim().parse::<f64>().is_ok());
                if number && laurel::systems::charted(r["system"].as_str().unwrap()) {
                    *numeric
                        .entry(r["system"].as_str().unwrap().into())
                        .or_default() += 1;
                }
            }
            (rows.len(), numeric, file, name)
        })
        .collect();
    players.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
    players.truncate(8);
    let mut files = tables.clone();
    files.extend(players.iter().map(|p| p.2.clone()));
    let mut doms = dump_doms(&bin, &dir, &files);
    for (changes, numeric, file, name) in &players {
        let (points, line) = chart_points(&doms[file]);
        let drawn: usize = numeric.values().map(|n| (*n).min(LINE_POINTS)).sum();
        assert_eq!(
            (points, line),
            (numeric.len(), drawn),
            "{name}: a point per system and its line's points vs numeric changes of \
             `laurel history` ({changes} changes)"
        );
        eprintln!("{name}: {points} chart point(s), {line} on lines, {changes} change(s) in `laurel history`");
    }
    doms.insert("index.html".into(), index);
    doms.insert("players.html".into(), list);
    let links = assert_links_resolve(&dir, &doms);
    eprintln!(
        "bundled site: head {seq}, {} page(s) rendered, {} table page(s), {} player page(s) checked, {links} link(s) resolve",
        doms.len(),
        tables.len(),
        players.len()
    );
    if let Some((_, _, file, _)) = players.iter().find(|p| p.0 > 0) {
        screenshot(
            &bin,
            &dir.join(file),
            &std::env::temp_dir().join("laurel-site-player.png"),
        );
    }
}

/// A hand-made site with changes in two systems, while the real systems are
/// not there to produce them: what a published month looks like. The site,
/// its tables and its audit trail.
fn sample() -> (Site, Vec<TableView>, Vec<Change>) {
    let at = |d: &str| laurel::time::parse(d).unwrap();
    let mut changes = Vec::new();
    let mut seq = 10;
    let mut push = |date: &str, system: &str, who: &str, old: Option<i64>, new: i64, f: &str| {
        seq += 1;
        changes.push(Change {
            seq,
            at: at(date),
            system: system.into(),
            subject: who.into(),
            old: old.map(|o| o.to_string()),
            new: new.to_string(),
            formula: f.into(),
        });
    };
    let ann = "Ann Smith";
    let nasty = r#"<b>Bold</b> & "Q" 'A'"#;
    let valar = [
        ("2003-01-10", 1500, 1571),
        ("2003-02-14", 1571, 1608),
        ("2003-03-21", 1608, 1587),
        ("2003-05-02", 1587, 1655),
        ("2003-06-30", 1655, 1690),
    ];
    for (d, old, new) in valar {
        let delta = new - old;
        push(
            d,
            "valar",
            ann,
            Some(old),
            new,
            &format!("valar {delta:+} = round(45 + (19665 - 15768)/150) × share"),
        );
        push(
            d,
            "valar",
            nasty,
            Some(3000 - old),
            3000 - new,
            &format!("valar {:+} = round(45 - …) & <more>", -delta),
        );
    }
    for (i, d) in ["2003-01-10", "2003-03-21", "2003-06-30"]
        .iter()
        .enumerate()
    {
        let p = 4 * (i as i64 + 1);
        push(d, "maia", ann, (i > 0).then(|| p - 4), p, "maia +4 = win");
    }
    let mut valar_t = Table::new("valar", "Valar ratings", &["rank", "player", "score"]);
    valar_t.push(vec![json!(1), json!(nasty), json!(1310)]);
    valar_t.push(vec![json!(2), json!(ann), json!(1690)]);
    let mut maia_t = Table::new("maia", "Maia points", &["rank", "player", "score"]);
    maia_t.push(vec![json!(1), json!(ann), json!(12)]);
    let site = Site {
        title: "Middle-earth PBM".into(),
        updated: Some("2003-07-01T09:30:00Z".into()),
        head_seq: 42,
        head_hash: "5e".repeat(32),
        stamp: Stamp {
            as_of: Some("2003-06-30".into()),
            known_at: 42,
            head: "5e".repeat(32),
            rules: None,
            tournament: None,
            inside_append: None,
            rules_over: Vec::new(),
        },
        spilled_subjects: changes.iter().map(|c| c.subject.clone()).collect(),
        players: changes.iter().map(|c| c.subject.clone()).collect(),
        earlier: Default::default(),
        amendments: Table::new("amendments", "Amendments", &["seq", "at", "type", "what"]),
    };
    let tables = vec![
        TableView {
            table: "valar".into(),
            tournament: None,
            standings: Ok(Report {
                system: "valar".into(),
                main: valar_t,
                extra: vec![],
            }),
        },
        TableView {
            table: "maia".into(),
            tournament: None,
            standings: Ok(Report {
                system: "maia".into(),
                main: maia_t,
                extra: vec![],
            }),
        },
        TableView {
            table: "cfr".into(),
            tournament: None,
            standings: Err("standings cfr: not implemented yet".into()),
        },
    ];
    (site, tables, changes)
}

/// Write the sample site into `dir`.
fn write_sample(dir: &Path, (site, tables, changes): &(Site, Vec<TableView>, Vec<Change>)) {
    let views = |each: &mut dyn FnMut(&TableView) -> laurel::error::Result<()>| {
        tables.iter().try_for_each(each)
    };
    laurel::site::write_staged(dir, site, views, &mut |page| page(changes), &mut |_| Ok(()))
        .unwrap();
}

#[test]
fn sample_site_in_chromium_escapes_names_and_charts_every_change_of_every_system() {
    let Some(bin) = chromium() else { return };
    let sample = sample();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path();
    write_sample(dir, &sample);
    // LAUREL_SITE_KEEP=DIR: also write the sample site there, to look at it.
    if let Some(keep) = std::env::var_os("LAUREL_SITE_KEEP") {
        write_sample(Path::new(&keep), &sample);
    }

    let index = dump_dom(&bin, &dir.join("index.html"));
    assert!(index.contains(&format!("id=\"head-hash\">{}</code>", "5e".repeat(32))));
    // A table without rows (here its standings fail) is not listed.
    assert!(!index.contains("standings cfr: not implemented yet"));
    assert!(index.contains("<h1>Middle-earth PBM</h1>"));
    let list = dump_dom(&bin, &dir.join("players.html"));
    let players = player_links(&list);
    assert_eq!(
        players.iter().map(|p| p.1.as_str()).collect::<Vec<_>>(),
        vec![r#"<b>Bold</b> & "Q" 'A'"#, "Ann Smith"],
        "names survive escaping and parsing intact"
    );
    let mut files: Vec<String> = players.iter().map(|p| p.0.clone()).collect();
    files.extend([
        "table-valar.html".to_string(),
        "table-maia.html".to_string(),
    ]);
    let doms = dump_doms(&bin, dir, &files);
    for (file, name) in &players {
        let dom = &doms[file];
        let mine = || sample.2.iter().filter(|c| &c.subject == name);
        let systems: BTreeSet<&str> = mine().map(|c| c.system.as_str()).collect();
        let expected = (systems.len(), mine().count());
        assert_eq!(chart_points(dom), expected, "{name}");
        eprintln!("{name}: (points, line points) {expected:?}");
        // No element was injected: the name is text in the rendered DOM.
        assert!(
            !dom.contains("<b>"),
            "{name}: markup from a name was parsed"
        );
        assert!(dom.contains(&format!(
            "<h1>{}</h1>",
            name.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        )));
    }
    let ann = &doms[&players[1].0];
    assert_eq!(
        ann.matches("<g class=\"series\"").count(),
        2,
        "valar and maia"
    );
    assert!(ann.contains("<title>valar: 1690 on 2003-06-30 (record 19)</title>"));
    let mut all = doms.clone();
    all.insert("index.html".into(), index);
    all.insert("players.html".into(), list);
    let links = assert_links_resolve(dir, &all);
    assert!(links > 10);
    eprintln!(
        "sample site: {} page(s) rendered, {links} link(s) resolve",
        all.len()
    );
    screenshot(
        &bin,
        &dir.join(&players[1].0),
        &std::env::temp_dir().join("laurel-site-player-sample.png"),
    );
}
