//! The HTML of the pages: the skeleton every page shares, the index, the
//! standings pages and the player pages. Written with maud's `html!`, which
//! escapes every value it is given (names, tournaments, formulas, messages:
//! whatever comes from events); only the stylesheet is inserted as written.
//! Table cells and rows leave out their optional end tags (`td;`, `tr;`): a
//! third of the bytes of a large table.

use std::ops::Range;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::chart::chart;
use super::outline::{Files, Outline};
use super::paging::{page_count, page_name, pager, ROWS};
use super::{Site, TableView};
use crate::output::{blank, change_row, title, CHANGE_COLUMNS};
use crate::systems::rows::Cell;
use crate::systems::table::{Report, Table};
use crate::systems::Change;

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

/// The page skeleton around `body`: its `<title>` is the page's and the
/// site's (the site's alone on the index), the header links to the index by
/// the site's title; the footer gives the clocks the tables were computed
/// with, and links to the index's ledger head, last update and verification
/// (only the index carries those: they change with every record appended,
/// and a page whose content did not change keeps its bytes).
fn page(title: &str, site: &Site, body: Markup) -> String {
    html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            head {
                "\n" meta charset="utf-8";
                "\n" meta name="viewport" content="width=device-width, initial-scale=1";
                "\n" meta http-equiv="Content-Security-Policy"
                    content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";
                "\n" meta name="generator" content={ "laurel " (env!("CARGO_PKG_VERSION")) };
                "\n" title { (title) @if title != site.title { " · " (site.title) } }
                "\n" style { "\n" (PreEscaped(CSS)) }
                "\n"
            }
            "\n"
            body {
                "\n" a.skip href="#main" { "Skip to content" }
                "\n" header {
                    nav aria-label="Site" {
                        a href="index.html" { (site.title) } ": tables, players and how to verify"
                    }
                }
                "\n" main #main { "\n" (body) }
                "\n" footer {
                    (clocks(site)) ". The ledger head, the last update and how to verify are on the "
                    a href="index.html#verify" { "index" } "."
                }
                "\n"
            }
            "\n"
        }
        "\n"
    }
    .into_string()
}

/// When the ledger last changed ([`Site::updated`]): a `<time id="updated">`
/// showing the minute in UTC, or "never" for an empty ledger or a cut
/// before its first record.
fn updated(site: &Site) -> Markup {
    let Some(at) = &site.updated else {
        return match site.head_seq {
            0 => html! { "never (the ledger is empty)" },
            _ => html! { "never (no record by the known-at cut-off)" },
        };
    };
    let shown = match (at.get(..10), at.get(11..16)) {
        (Some(day), Some(minute)) => format!("{day} {minute} UTC"),
        _ => at.clone(),
    };
    html! { time #updated datetime=(at) { (shown) } }
}

/// The records `1..=k` a known-at cut leaves, in words.
fn records_used(k: u64) -> String {
    match k {
        0 => "no record".into(),
        k => format!("records 1–{k}"),
    }
}

/// The clocks the tables were computed with: `--as-of`, and `--known-at`
/// when it cuts records off.
fn clocks(site: &Site) -> Markup {
    html! {
        @match &site.stamp.as_of {
            Some(a) => { "Tables as of " strong { (a) } }
            None => { "Tables with every event (no as-of cut-off)" }
        }
        @if site.stamp.known_at < site.head_seq {
            ", from " (records_used(site.stamp.known_at)) " (known-at cut-off)"
        }
    }
}

/// `<thead>` with one `<th scope="col">` per column of `t`, by its
/// [`title`].
fn column_headers(t: &Table) -> Markup {
    html! {
        thead { tr { @for c in &t.columns { th scope="col" { (title(&t.name, c)) } } } }
    }
}

/// Rows `rows` of `t`, as a table.
fn html_table((t, caption): (&Table, &str), rows: Range<usize>, files: &Files) -> Markup {
    html! {
        div.scroll { table {
            "\n" caption { (caption) } "\n" (column_headers(t)) "\n"
            tbody {
                "\n"
                @for i in rows.clone() {
                    tr;
                    @for (j, (col, v)) in t.columns.iter().zip(t.rows.cells(i)).enumerate() {
                        @let null = matches!(v, Cell::Null);
                        @let text = match null {
                            true => blank(&t.name, col).to_string(),
                            false => v.text_at(t.places_at(j)),
                        };
                        // An empty cell's words name no player.
                        @match (col == "player" && !null).then(|| files.player(&text)).flatten() {
                            Some(f) => { td; a href=(f) { (text) } }
                            None => { td class=[v.is_number().then_some("n")]; (text) }
                        }
                    }
                    "\n"
                }
                @if rows.is_empty() {
                    tr; td colspan=(t.columns.len().max(1)); "(no rows)" "\n"
                }
            }
        } }
        "\n"
    }
}

/// `index.html`.
/// `listed`: the subjects the list of players lists ([`listed`]).
pub(super) fn render_index(site: &Site, outline: &Outline, listed: &Listed) -> String {
    let (listed, players) = (&listed.0, listed.1);
    let others = listed.len() - players;
    let (k, cut) = (site.stamp.known_at, site.stamp.known_at < site.head_seq);
    let body = html! {
        h1 { (site.title) } "\n"
        p { "Last updated: " (updated(site)) "." } "\n"
        p {
            "Ledger head: record " strong #head-seq { (site.head_seq) } ", hash "
            code.hash #head-hash { (site.head_hash) }
        } "\n"
        p {
            "As of: "
            @match &site.stamp.as_of {
                Some(a) => { strong #as-of { (a) } }
                None => { strong #as-of { "no cut-off" } " (every event)" }
            }
            ". Tables computed from " (records_used(k)) @if cut { " (known-at cut-off)" }
            @if k > 0 { "; record " (k) " has hash " code.hash { (site.stamp.head) } }
            "."
        } "\n"
        h2 #tables { "Standings" } "\n"
        @if outline.tables.is_empty() {
            p { "No table has results yet." } "\n"
        } @else {
            (index_tables(outline))
        }
        h2 #players { "Players (" (players) ")" } "\n"
        @if listed.is_empty() {
            p { "No player appears in any table or change yet." } "\n"
        } @else {
            (index_players(listed, others))
        }
        @let amended = site.amendments.rows.len();
        h2 #amendments { (AMENDMENTS_TITLE) " (" (amended) ")" } "\n"
        @if amended == 0 {
            p { "None recorded." } "\n"
        } @else {
            p {
                a href=(AMENDMENTS) { "Every void, rename and rule change" }
                ", in the order recorded, with its reason."
            } "\n"
        }
        (verify(site))
    };
    page(&site.title, site, body)
}

/// The index's section on verifying the publication: the export, the script,
/// the head it must print.
fn verify(site: &Site) -> Markup {
    let (k, s) = (site.stamp.known_at, site.head_seq);
    html! {
        h2 #verify { "Verify this publication" } "\n"
        p {
            "The ledger is a hash chain: every record's BLAKE3 hash covers the one before it, so\n\
             the head above is a digest of the whole history these tables were computed from.\n"
            a href="export.jsonl" { "export.jsonl" }
            " holds every record, one canonical JSON line each\n(the same bytes as "
            code { "laurel export" }
            "). To check it without laurel, recompute\neach hash with this script from laurel's \
             README (section “Verifying a ledger without\nlaurel”), saved as "
            code { "verify.py" } ":"
        } "\n"
        pre { code { (VERIFY_SCRIPT) } } "\n"
        p {
            code { "python3 verify.py export.jsonl" } " must print "
            code.hash { (s) " " (site.head_hash) } ".\nThe tables used " (records_used(k))
            @if k > 0 {
                ": line " (k) " of the export carries the hash\n"
                code.hash { (site.stamp.head) } " given above"
            }
            ". Whoever holds the ledger can also run\n"
            code { "laurel verify --expect " (s) ":" (site.head_hash) }
            " to check that this published head is\nstill in the chain, later records included."
        } "\n"
    }
}

/// The first page of the list of players.
pub const PLAYERS: &str = "players.html";

/// The subjects with a page as the list of players lists them, each with
/// its page: the players in name order, then the others ([`Site::players`]);
/// and how many are players.
pub(super) type Listed<'a> = (Vec<(&'a str, &'a str)>, usize);

/// The subjects of `files` as the list of players lists them ([`Listed`]).
pub(super) fn listed<'a>(site: &Site, files: &'a Files) -> Listed<'a> {
    let (mut players, others): (Vec<_>, Vec<_>) = files
        .players()
        .partition(|(p, _)| site.players.contains(*p));
    let n = players.len();
    players.extend(others);
    (players, n)
}

/// The index's links to the pages of the list of players (`listed`, of
/// which `others` are not players), each with the first and last name it
/// holds.
fn index_players(listed: &[(&str, &str)], others: usize) -> Markup {
    let names: Vec<&str> = listed.iter().map(|(p, _)| *p).collect();
    html! {
        p {
            "Every player, in name order"
            @if others > 0 { ", then the teams and nations (" (others) ")" }
            ", " (ROWS) " a page:"
        } "\n"
        ul.players {
            "\n"
            @for (n, chunk) in names.chunks(ROWS).enumerate() {
                li {
                    a href=(page_name(PLAYERS, n + 1)) {
                        (chunk[0]) " – " (chunk[chunk.len() - 1])
                    }
                }
                "\n"
            }
        }
        "\n"
    }
}

/// Page `n` of the `count` pages of the list of players: each linked to their
/// page, [`ROWS`] a page, in name order, then the other subjects under a
/// heading of their own (see [`listed`]).
pub(super) fn render_players(site: &Site, listed: &Listed, (n, count): (usize, usize)) -> String {
    let title = match count {
        1 => "Players".to_string(),
        _ => format!("Players, page {n} of {count}"),
    };
    let pager = pager(PLAYERS, n, count);
    let (listed, players) = (&listed.0, listed.1);
    let first = (n - 1) * ROWS;
    let page_of = |range: std::ops::Range<usize>| {
        let (from, to) = (range.start.max(first), range.end.min(first + ROWS));
        listed.get(from..to.max(from)).unwrap_or_default()
    };
    let (mine, others) = (page_of(0..players), page_of(players..listed.len()));
    let body = html! {
        h1 { (title) } "\n"
        (pager)
        @if !mine.is_empty() {
            ul.players {
                "\n"
                @for (p, f) in mine { li { a href=(f) { (p) } } "\n" }
            }
        }
        @if !others.is_empty() {
            h2 #others { "Teams and nations" } "\n"
            p { "Rated in a table, but not players." } "\n"
            ul.players {
                "\n"
                @for (p, f) in others { li { a href=(f) { (p) } } "\n" }
            }
        }
        "\n"
        (pager)
    };
    page(&title, site, body)
}

/// The first page of the corrections, renames and rule changes
/// ([`Site::amendments`]).
pub const AMENDMENTS: &str = "corrections.html";

/// Its heading, and the index's.
const AMENDMENTS_TITLE: &str = "Corrections, renames and rule changes";

/// Page `n` of the `count` pages of the corrections, renames and rule
/// changes ([`Site::amendments`]), [`ROWS`] a page, in the order recorded;
/// with `--as-of`, a sentence says the list is not cut by date.
pub(super) fn render_amendments(site: &Site, files: &Files, (n, count): (usize, usize)) -> String {
    let t = &site.amendments;
    let title = match count {
        1 => AMENDMENTS_TITLE.to_string(),
        _ => format!("{AMENDMENTS_TITLE}, page {n} of {count}"),
    };
    let len = t.rows.len();
    let rows = ((n - 1) * ROWS).min(len)..(n * ROWS).min(len);
    let pager = pager(AMENDMENTS, n, count);
    let body = html! {
        h1 { (title) } "\n"
        p {
            "Every void (a correction voids the record it replaces, with its reason), \
             rename and rule change recorded, in the order recorded, as "
            code { "laurel log" } " shows them; every record is in "
            a href="export.jsonl" { "export.jsonl" } "."
            @if let Some(as_of) = &site.stamp.as_of {
                " The tables are as of " (as_of) "; this list is of what was recorded, \
                 whatever its date."
            }
        } "\n"
        (pager)
        (html_table((t, &t.title), rows, files))
        (pager)
        p { a href="index.html" { "Index" } } "\n"
    };
    page(&title, site, body)
}

/// The index's list of tables: each linked to its (first) page, with its
/// tournament, title, rows and pages.
fn index_tables(outline: &Outline) -> Markup {
    html! {
        div.scroll { table {
            "\n" caption { "Standings tables" } "\n"
            thead { tr {
                th scope="col" { "Table" } th scope="col" { "Tournament" }
                th scope="col" { "Ranking" } th scope="col" { "Rows" } th scope="col" { "Pages" }
            } }
            "\n"
            tbody {
                "\n"
                @for t in &outline.tables {
                    // Every listed table has a page.
                    @let file = (outline.files)
                        .table(&t.table, t.tournament.as_deref())
                        .unwrap_or_default();
                    tr {
                        td { a href=(file) { (t.table) } }
                        td { (t.tournament.as_deref().unwrap_or("")) }
                        td { (t.title) }
                        td.n { (t.rows) }
                        td.n { (t.pages) }
                    }
                    "\n"
                }
            }
        } }
        "\n"
    }
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
    let pager = pager(first, n, count);
    let body = html! {
        h1 { (title) } "\n"
        (pager)
        @for (t, caption) in tables {
            (page_of_table((t, caption), files, first, n))
        }
        (pager)
        p { a href="index.html#tables" { "All tables" } } "\n"
    };
    page(&title, site, body)
}

/// Table `t`'s rows on page `n`: all of them when it fits a page; else its
/// slice, said so; a table whose rows ended on an earlier page says where.
fn page_of_table((t, caption): (&Table, &str), files: &Files, first: &str, n: usize) -> Markup {
    let len = t.rows.len();
    let start = (n - 1) * ROWS;
    // Not its length: a row more would change every later page.
    let end = (start + ROWS).min(len);
    if start >= len && n > 1 {
        let last = page_count(len);
        return html! {
            p.meta {
                (caption) " ends on " a href=(page_name(first, last)) { "page " (last) } "."
            }
            "\n"
        };
    }
    html! {
        // Not "of {len}": a row more would change every page (the index has the count).
        @if len > ROWS { p.meta { "Rows " (start + 1) "–" (end) "." } "\n" }
        (html_table((t, caption), start..end, files))
    }
}

/// The most recent changes a player's page lists (see [`crate::site`],
/// "Player pages").
pub const HISTORY: usize = 10;

/// What the page of a subject that is no player (a nation, a grudge team)
/// says where the trail records no change of its own: its values (a nation's
/// par, a team's points) are folded into the tables, not the trail.
pub(crate) const OWN_VALUES: &str =
    "No changes of its own in the audit trail: its values are those of the tables above.";

/// A player's page: where they stand (`standing`: their list items from
/// `Outline::standing`), the chart of every change, the latest [`HISTORY`]
/// changes with formulas.
pub(crate) fn render_player(
    site: &Site,
    files: &Files,
    name: &str,
    changes: &[&Change],
    standing: Option<Markup>,
) -> String {
    let shown = &changes[changes.len().saturating_sub(HISTORY)..];
    let mut t = Table::new("history", &format!("History of {name}"), &CHANGE_COLUMNS);
    shown.iter().for_each(|c| t.push(change_row(c)));
    let body = html! {
        h1 { (name) } "\n"
        @if let Some(earlier) = site.earlier.get(name) {
            p.meta { "Earlier names: " (earlier.join("; ")) } "\n"
        }
        h2 { "Standings" } "\n"
        @match standing {
            None => { p { "Not in any published table." } "\n" }
            Some(items) => { ul { "\n" (items) } "\n" }
        }
        h2 { "Ratings over time" } "\n"
        @if changes.is_empty() && !site.players.contains(name) {
            p { (OWN_VALUES) } "\n"
        } @else {
            (chart(name, changes))
        }
        h2 { "History" } "\n"
        @if shown.len() < changes.len() {
            p.meta {
                "The latest " (shown.len()) " of " (changes.len()) " changes. Every change is in "
                a href="export.jsonl" { "export.jsonl" } "; " code { "laurel history" }
                " lists them all with their formulas."
            }
            "\n"
        }
        (history_table(&t, name, files))
        p { a href="players.html" { "All players" } } "\n"
    };
    page(name, site, body)
}

/// The history table: like [`html_table`], with the system linked to its table
/// (when it has a single page); the stylesheet aligns its numbers (record, old,
/// new: columns 1, 4 and 5) and sets its formulas (column 6) in monospace.
fn history_table(t: &Table, name: &str, files: &Files) -> Markup {
    html! {
        div.scroll { table.history {
            "\n" caption { "Changes to " (name) "’s values, oldest first, with their record and formula" } "\n"
            (column_headers(t)) "\n"
            tbody {
                "\n"
                @for row in t.rows.iter_cells() {
                    tr;
                    @for (col, v) in t.columns.iter().zip(row) {
                        @let text = v.text();
                        @match (col == "system").then(|| files.table(&text, None)).flatten() {
                            Some(f) => { td; a href=(f) { (text) } }
                            None => { td; (text) }
                        }
                    }
                    "\n"
                }
                @if t.rows.is_empty() {
                    tr; td colspan="6"; "(no changes recorded)" "\n"
                }
            }
        } }
        "\n"
    }
}
