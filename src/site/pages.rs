//! The HTML of the pages: the skeleton every page shares, the index, the
//! standings pages and the player pages.

use std::fmt::Write as _;
use std::ops::Range;

use super::chart::chart;
use super::outline::{Files, Outline};
use super::paging::{page_count, page_name, pager, ROWS};
use super::{Site, TableView};
use crate::output::{change_row, title, CHANGE_COLUMNS};
use crate::systems::table::{Report, Table};
use crate::systems::Change;

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
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.history td:nth-child(6){font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
table.history td:nth-child(1),table.history td:nth-child(4),table.history td:nth-child(5){text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.error{color:#8a1c1c}
.meta{color:#374151}
figure{margin:1rem 0}
svg.chart{width:100%;min-width:30rem;height:auto;max-width:48rem;display:block}
svg.chart text{font:12px system-ui,sans-serif;fill:#1a1a1a}
ul.players{columns:14rem;padding-left:1.2rem}
nav.pages{margin:1rem 0}
nav.pages a,nav.pages strong{padding:0 .15rem}
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
    format!("{}{body}{}", page_head(title, site), page_tail(site))
}

/// A page up to its body: its `<title>` is the page's and the site's
/// (the site's alone on the index), the header links to the index by the
/// site's title.
fn page_head(title: &str, site: &Site) -> String {
    let full = match title == site.title {
        true => escape(title),
        false => format!("{} · {}", escape(title), escape(&site.title)),
    };
    format!(
        r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:">
<meta name="generator" content="laurel {version}">
<title>{full}</title>
<style>
{CSS}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><nav aria-label="Site"><a href="index.html">{site_title}</a>: tables, players and how to verify</nav></header>
<main id="main">
"##,
        version = env!("CARGO_PKG_VERSION"),
        site_title = escape(&site.title),
    )
}

/// A page after its body: the clocks the tables were computed with, and a
/// link to the index's ledger head, last update and verification (only the
/// index carries those: they change with every record appended, and a page
/// whose content did not change keeps its bytes).
fn page_tail(site: &Site) -> String {
    format!(
        "</main>\n<footer>{clocks}. The ledger head, the last update and how to verify \
         are on the <a href=\"index.html#verify\">index</a>.</footer>\n</body>\n</html>\n",
        clocks = clocks(site),
    )
}

/// When the ledger last changed ([`Site::updated`]): a `<time>` (with
/// `attrs`) showing the minute in UTC, or "never" for an empty ledger.
fn updated(site: &Site, attrs: &str) -> String {
    let Some(at) = &site.updated else {
        return "never (the ledger is empty)".to_string();
    };
    let shown = match (at.get(..10), at.get(11..16)) {
        (Some(day), Some(minute)) => format!("{day} {minute} UTC"),
        _ => at.clone(),
    };
    format!(
        "<time{attrs} datetime=\"{}\">{}</time>",
        escape(at),
        escape(&shown)
    )
}

/// The clocks the tables were computed with: `--as-of`, and `--known-at`
/// when it cuts records off.
fn clocks(site: &Site) -> String {
    let as_of = match &site.stamp.as_of {
        Some(a) => format!("Tables as of <strong>{}</strong>", escape(a)),
        None => "Tables with every event (no as-of cut-off)".to_string(),
    };
    match site.stamp.known_at < site.head_seq {
        true => format!(
            "{as_of}, from records 1–{k} (known-at cut-off)",
            k = site.stamp.known_at
        ),
        false => as_of,
    }
}

/// `<thead>` with one `<th scope="col">` per column of `t`, by its
/// [`title`], then the opening `<tbody>`.
fn column_headers(out: &mut String, t: &Table) {
    out.push_str("<thead><tr>");
    for c in &t.columns {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape(&title(&t.name, c)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
}

/// Rows `rows` of `t`, as a table appended to `out`. Cells and rows leave out
/// their optional end tags (`</td>`, `</tr>`): a third of the bytes of a
/// large table.
fn html_table(out: &mut String, (t, caption): (&Table, &str), rows: Range<usize>, files: &Files) {
    out.push_str("<div class=\"scroll\"><table>\n");
    let _ = writeln!(out, "<caption>{}</caption>", escape(caption));
    column_headers(out, t);
    for i in rows.clone() {
        out.push_str("<tr>");
        for (col, v) in t.columns.iter().zip(t.rows.cells(i)) {
            let text = v.text();
            let class = if v.is_number() { " class=\"n\"" } else { "" };
            match (col == "player").then(|| files.player(&text)).flatten() {
                Some(f) => write!(out, "<td><a href=\"{}\">{}</a>", escape(f), escape(&text)),
                None => write!(out, "<td{class}>{}", escape(&text)),
            }
            .unwrap_or_default();
        }
        out.push('\n');
    }
    if rows.is_empty() {
        let _ = writeln!(
            out,
            "<tr><td colspan=\"{}\">(no rows)",
            t.columns.len().max(1)
        );
    }
    out.push_str("</tbody></table></div>\n");
}

/// `index.html`.
pub(super) fn render_index(site: &Site, outline: &Outline) -> String {
    let files = &outline.files;
    let mut b = String::new();
    let _ = writeln!(b, "<h1>{}</h1>", escape(&site.title));
    let _ = writeln!(
        b,
        "<p>Last updated: {}.</p>",
        updated(site, " id=\"updated\"")
    );
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
    if outline.tables.is_empty() {
        b.push_str("<p>No table has results yet.</p>\n");
    } else {
        index_tables(&mut b, outline);
    }

    let players = files.players.len();
    let _ = writeln!(b, "<h2 id=\"players\">Players ({players})</h2>");
    if players == 0 {
        b.push_str("<p>No player appears in any table or change yet.</p>\n");
    } else {
        index_players(&mut b, files);
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
    page(&site.title, site, &b)
}

/// The first page of the list of players.
pub const PLAYERS: &str = "players.html";

/// The index's links to the pages of the list of players, each with the
/// first and last name it holds.
fn index_players(b: &mut String, files: &Files) {
    let _ = writeln!(
        b,
        "<p>Every player, in name order, {ROWS} a page:</p>\n<ul class=\"players\">"
    );
    let names: Vec<&str> = files.players().map(|(p, _)| p).collect();
    for (n, chunk) in names.chunks(ROWS).enumerate() {
        let (first, last) = (chunk[0], chunk[chunk.len() - 1]);
        let _ = writeln!(
            b,
            "<li><a href=\"{}\">{} – {}</a></li>",
            escape(&page_name(PLAYERS, n + 1)),
            escape(first),
            escape(last)
        );
    }
    b.push_str("</ul>\n");
}

/// Page `n` of the `count` pages of the list of players: each linked to their
/// page, [`ROWS`] a page, in name order.
pub(super) fn render_players(site: &Site, files: &Files, (n, count): (usize, usize)) -> String {
    let title = match count {
        1 => "Players".to_string(),
        _ => format!("Players, page {n} of {count}"),
    };
    let mut b = format!("<h1>{title}</h1>\n");
    let pager = pager(PLAYERS, n, count);
    b.push_str(&pager);
    b.push_str("<ul class=\"players\">\n");
    for (p, f) in files.players().skip((n - 1) * ROWS).take(ROWS) {
        let _ = writeln!(b, "<li><a href=\"{}\">{}</a></li>", escape(f), escape(p));
    }
    b.push_str("</ul>\n");
    b.push_str(&pager);
    page(&title, site, &b)
}

/// The index's list of tables: each linked to its (first) page, with its
/// tournament, title, rows and pages.
fn index_tables(b: &mut String, outline: &Outline) {
    b.push_str(
        "<div class=\"scroll\"><table>\n<caption>Standings tables</caption>\n\
         <thead><tr><th scope=\"col\">Table</th><th scope=\"col\">Tournament</th>\
         <th scope=\"col\">Ranking</th><th scope=\"col\">Rows</th><th scope=\"col\">Pages</th>\
         </tr></thead>\n<tbody>\n",
    );
    for t in &outline.tables {
        // Every listed table has a page.
        let file = (outline.files)
            .table(&t.table, t.tournament.as_deref())
            .unwrap_or_default();
        let _ = writeln!(
            b,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td></tr>",
            escape(file),
            escape(&t.table),
            escape(t.tournament.as_deref().unwrap_or("")),
            escape(&t.title),
            t.rows,
            t.pages
        );
    }
    b.push_str("</tbody></table></div>\n");
}

/// The pages of a standings report: as many as its longest table needs
/// ([`ROWS`] rows of each table a page).
pub(super) fn table_pages(report: &Report) -> usize {
    std::iter::once(&report.main)
        .chain(&report.extra)
        .map(|t| page_count(t.rows.len()))
        .max()
        .unwrap_or(1)
}

/// Page `n` of the `count` pages of a standings report, whose first page is
/// `first`: rows `(n-1)·ROWS ..` of each of its tables.
pub(super) fn render_table(
    site: &Site,
    files: &Files,
    (view, report): (&TableView, &Report),
    first: &str,
    (n, count): (usize, usize),
) -> String {
    let label = view.label();
    let title = match count {
        1 => format!("Standings: {label}"),
        _ => format!("Standings: {label}, page {n} of {count}"),
    };
    let mut b = page_head(&title, site);
    let _ = writeln!(b, "<h1>{}</h1>", escape(&title));
    let pager = pager(first, n, count);
    b.push_str(&pager);
    let main_caption = match report.main.title.is_empty() {
        true => label,
        false => report.main.title.clone(),
    };
    let tables = std::iter::once((&report.main, main_caption.as_str())).chain(
        (report.extra.iter()).map(|t| match t.title.is_empty() {
            true => (t, t.name.as_str()),
            false => (t, t.title.as_str()),
        }),
    );
    for (i, (t, caption)) in tables.enumerate() {
        if i > 0 {
            let _ = writeln!(b, "<h2>{}</h2>", escape(caption));
        }
        page_of_table(&mut b, (t, caption), files, first, n);
    }
    b.push_str(&pager);
    b.push_str("<p><a href=\"index.html#tables\">All tables</a></p>\n");
    b.push_str(&page_tail(site));
    b
}

/// Table `t`'s rows on page `n`: all of them when it fits a page; else its
/// slice, said so; a table whose rows ended on an earlier page says where.
fn page_of_table(
    b: &mut String,
    (t, caption): (&Table, &str),
    files: &Files,
    first: &str,
    n: usize,
) {
    let len = t.rows.len();
    let start = (n - 1) * ROWS;
    // Not its length: a row more would change every later page.
    let end = (start + ROWS).min(len);
    if start >= len && n > 1 {
        let last = page_count(len);
        let _ = writeln!(
            b,
            "<p class=\"meta\">{} ends on <a href=\"{}\">page {last}</a>.</p>",
            escape(caption),
            escape(&page_name(first, last))
        );
        return;
    }
    // Not "of {len}": a row more would change every page (the index has the count).
    if len > ROWS {
        let _ = writeln!(b, "<p class=\"meta\">Rows {}–{end}.</p>", start + 1);
    }
    html_table(b, (t, caption), start..end, files);
}

/// The most recent changes a player's page lists (see [`crate::site`],
/// "Player pages").
pub const HISTORY: usize = 10;

/// A player's page: where they stand (`standing`: their list items from
/// `Outline::standing`), the chart of every change, the latest [`HISTORY`]
/// changes with formulas.
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
    let shown = &changes[changes.len().saturating_sub(HISTORY)..];
    let mut t = Table::new("history", &format!("History of {name}"), &CHANGE_COLUMNS);
    shown.iter().for_each(|c| t.push(change_row(c)));
    b.push_str("<h2>History</h2>\n");
    if shown.len() < changes.len() {
        let _ = writeln!(
            b,
            "<p class=\"meta\">The latest {} of {} changes. Every change is in \
             <a href=\"export.jsonl\">export.jsonl</a>; <code>laurel history</code> lists \
             them all with their formulas.</p>",
            shown.len(),
            changes.len()
        );
    }
    history_table(&mut b, &t, name, files);
    b.push_str("<p><a href=\"players.html\">All players</a></p>\n");
    page(name, site, &b)
}

/// The history table: like [`html_table`], with the system linked to its table
/// (when it has a single page); the stylesheet aligns its numbers (record, old,
/// new: columns 1, 4 and 5) and sets its formulas (column 6) in monospace.
fn history_table(out: &mut String, t: &Table, name: &str, files: &Files) {
    out.push_str("<div class=\"scroll\"><table class=\"history\">\n");
    let _ = writeln!(
        out,
        "<caption>Changes to {}’s values, oldest first, with their record and formula</caption>",
        escape(name)
    );
    column_headers(out, t);
    for row in t.rows.iter_cells() {
        out.push_str("<tr>");
        for (col, v) in t.columns.iter().zip(row) {
            let text = v.text();
            let inner = match (col == "system")
                .then(|| files.table(&text, None))
                .flatten()
            {
                Some(f) => format!("<a href=\"{}\">{}</a>", escape(f), escape(&text)),
                None => escape(&text),
            };
            let _ = write!(out, "<td>{inner}");
        }
        out.push('\n');
    }
    if t.rows.is_empty() {
        out.push_str("<tr><td colspan=\"6\">(no changes recorded)\n");
    }
    out.push_str("</tbody></table></div>\n");
}
