//! What a printed answer is beyond its tables: which of a report's tables are
//! printed (`--table`), how many rows of each (`--limit`), the line naming the
//! ledger state a text answer starts with, and CSV.
//!
//! Decisions:
//! - `--limit N` keeps the first N rows of every table of the report (so a
//!   standings answer shows the top N); a text table ends with a line saying
//!   how many rows were left out; JSON and CSV hold the first N rows and
//!   nothing more (their shape does not change with the flag). `--limit all`
//!   keeps every row. The text of `standings`, `players` and `replay` keeps 100 rows
//!   unless told: a large community's rankings run to tens of thousands of
//!   rows. A report keeps only the rows it prints: `standings` hands the limit
//!   and `--table` to the system ([`crate::systems::Selector`]), which builds
//!   no other row ([`crate::systems::table::Table::keep`]).
//! - `--table NAME` narrows a report to one of its tables (the main table's
//!   name or an extra table's, e.g. `matches`), printed as the main table in
//!   every format. CSV is one table per invocation: without `--table`, the
//!   main table.
//! - CSV is RFC 4180, written by the `csv` crate: a header row of the column
//!   keys, records ended by CRLF, a field quoted when it holds a comma, a
//!   quote or a line break.
//! - The state line names the head the query read (its seq and the first 8
//!   hex digits of its hash), then only the clocks the query was given:
//!   `ledger at seq 1234 (3fa2b1c0…) · as of 2003-06-30 (end of day, UTC) · known at
//!   seq 1200 (5e5e5e5e…)`, and `, recorded by TIME` after it when `--known-at` gave a
//!   time (a date is the end of its day, as for `--as-of`);
//!   an answer folded with a rules file's parameters (`--rules`) ends it with
//!   `· what-if: rules of FILE, not the ledger's`, and its JSON holds
//!   `"rules": "FILE"`, so that a what-if table is never taken for the
//!   ledger's own. When the file pins a parameter a recorded rule change
//!   sets, the line adds `, whose valar.base holds over the whole history,
//!   before the rule changes that set it too` (JSON
//!   `"rules_over_changes": ["valar.base"]`): the what-if then also undoes
//!   those changes.

use std::io::{self, Write};

use super::{cell_text, Format, Report, Stamp, Table};
use crate::systems::rows::Cell;

/// How an answer is printed: its format, `--limit` and `--table`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Print {
    pub format: Format,
    /// At most this many rows of each table.
    pub limit: Option<usize>,
    /// Only this table of the report.
    pub table: Option<String>,
}

impl Print {
    /// `r` narrowed to `--table` (CSV: to its main table without it) and cut
    /// to `--limit`; an unknown table name is an error naming the report's
    /// tables.
    pub fn shape(&self, r: Report) -> Result<Report, String> {
        let mut r = match &self.table {
            Some(name) => r.only(name)?,
            None if self.format == Format::Csv => Report { extra: vec![], ..r },
            None => r,
        };
        if let Some(n) = self.limit {
            r.limit(n);
        }
        Ok(r)
    }
}

impl Report {
    /// The names of the report's tables, the main one first.
    pub fn table_names(&self) -> Vec<&str> {
        let extra = self.extra.iter().map(|t| t.name.as_str());
        std::iter::once(self.main.name.as_str())
            .chain(extra)
            .collect()
    }

    /// The report with only its table `name` (the first of that name), as
    /// its main table.
    pub fn only(mut self, name: &str) -> Result<Report, String> {
        if self.main.name == name {
            self.extra.clear();
            return Ok(self);
        }
        match self.extra.iter().position(|t| t.name == name) {
            Some(i) => Ok(Report {
                system: self.system,
                main: self.extra.swap_remove(i),
                extra: vec![],
            }),
            None => {
                let names = self.table_names();
                let hint = crate::events::did_you_mean(name, names.iter().copied());
                Err(format!(
                    "--table {name:?}: no such table in this answer{hint} (its tables: {})",
                    names.join(", ")
                ))
            }
        }
    }

    /// Keep the first `n` rows of every table; each counts the rows it left out.
    pub fn limit(&mut self, n: usize) {
        for t in std::iter::once(&mut self.main).chain(&mut self.extra) {
            t.left_out += t.rows.len().saturating_sub(n);
            t.rows.truncate(n);
        }
    }
}

/// The line a text answer starts with (see the module docs), without its
/// newline: the ledger's head (`head_seq`, `head_hash` in hex), the as-of
/// the query was given, and the seq it was known at when `--known-at` was
/// given (`known_at_given`: as given, a seq or a time).
pub fn state_line(
    head_seq: u64,
    head_hash: &str,
    stamp: &Stamp,
    known_at_given: Option<&str>,
) -> String {
    let prefix = |h: &str| h.get(..8).unwrap_or(h).to_string();
    let mut line = format!("ledger at seq {head_seq} ({}…)", prefix(head_hash));
    if let Some(as_of) = &stamp.as_of {
        line.push_str(&format!(" · as of {}", bound(as_of)));
    }
    if let Some(given) = known_at_given {
        line.push_str(&format!(
            " · known at seq {} ({}…)",
            stamp.known_at,
            prefix(&stamp.head)
        ));
        if given.parse::<u64>().is_err() {
            let shown = crate::time::shown_bound(given);
            line.push_str(&format!(", recorded by {}", bound(&shown)));
        }
    }
    if let Some((first, last)) = stamp.inside_append {
        let seq = stamp.known_at;
        line.push_str(&format!(
            " · record {seq} came in one append with records {first} to {last} (all or \
             nothing): no reader saw the ledger at {seq}; --known-at {} or {last} shows a \
             state one did",
            first - 1
        ));
    }
    if let Some(rules) = &stamp.rules {
        line.push_str(&format!(
            " · what-if: rules of {}, not the ledger's",
            super::printable(rules, &[])
        ));
    }
    if !stamp.rules_over.is_empty() {
        let (hold, it) = match stamp.rules_over.len() {
            1 => ("holds", "it"),
            _ => ("hold", "them"),
        };
        line.push_str(&format!(
            ", whose {} {hold} over the whole history, before the rule changes that set {it} too",
            stamp.rules_over.join(", ")
        ));
    }
    line
}

/// A clock's bound as the state line shows it: a date says it is the end
/// of that day in UTC.
fn bound(shown: &str) -> String {
    let shown = super::printable(shown, &[]);
    match crate::time::is_date(&shown) {
        true => format!("{shown} (end of day, UTC)"),
        false => shown.into_owned(),
    }
}

/// The text line after a table whose rows `--limit` cut, if it did.
pub(super) fn left_out_line(t: &Table) -> Option<String> {
    match t.left_out {
        0 => None,
        1 => Some("… 1 more row left out (--limit all shows every row)".into()),
        n => Some(format!(
            "… {n} more rows left out (--limit all shows every row)"
        )),
    }
}

/// One RFC 4180 table: a header row of column keys, then a record per row
/// (cells as [`crate::systems::rows::Cell::write_text`] gives them), CRLF line ends.
/// A text cell that a spreadsheet would take for a formula (it begins with
/// `=`, `+`, `-` or `@`: a player named `=HYPERLINK(…)`, a history formula
/// `+71 = …`) is written with a leading `'`, which spreadsheets show as
/// text; numbers, and text that is a plain number (`-12`, a history's old
/// value), are written as they are. (Tabs and line breaks never start a
/// cell: [`cell_text`] writes them as `\u{..}`.)
pub fn write_csv(t: &Table, w: &mut dyn Write) -> io::Result<()> {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(w);
    out.write_record(&t.columns)?;
    let mut fields: Vec<Vec<u8>> = Vec::new();
    for row in t.rows.iter_cells() {
        let mut n = 0;
        for c in row {
            if n == fields.len() {
                fields.push(Vec::new());
            }
            // The buffer holds the cell's text afterwards.
            cell_text(&c, t.places_at(n), &mut fields[n]);
            let text = !matches!(c, Cell::UInt(_) | Cell::Neg(_) | Cell::Float(_));
            let formula = fields[n].first().is_some_and(|b| FORMULA_START.contains(b));
            if text && formula && !plain_number(&fields[n]) {
                fields[n].insert(0, b'\'');
            }
            n += 1;
        }
        out.write_record(&fields[..n])?;
    }
    out.flush()
}

/// The first bytes that make a spreadsheet read a cell as a formula.
const FORMULA_START: &[u8] = b"=+-@";

/// Is `b` a plain decimal number: `-`, digits, at most one `.` among them?
fn plain_number(b: &[u8]) -> bool {
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    let dots = digits.iter().filter(|&&c| c == b'.').count();
    digits.first().is_some_and(u8::is_ascii_digit)
        && digits.last().is_some_and(u8::is_ascii_digit)
        && dots <= 1
        && digits.iter().all(|&c| c.is_ascii_digit() || c == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn csv_text_cells_a_spreadsheet_would_run_begin_with_a_quote_and_numbers_do_not() {
        let mut t = Table::new("t", "T", &["player", "score", "formula"]);
        t.push(vec![
            json!("=HYPERLINK(\"http://x\",\"y\")"),
            json!(-2),
            json!("+71 = round(45)"),
        ]);
        t.push(vec![json!("@SUM(A1)"), json!(-0.5), json!("-3 = x")]);
        t.push(vec![json!("Ada"), json!(3), json!("a=b")]);
        t.push(vec![json!("-12"), json!("-1.5"), json!("-")]);
        let mut out = Vec::new();
        write_csv(&t, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "player,score,formula\r\n\
             \"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-2,'+71 = round(45)\r\n\
             '@SUM(A1),-0.50,'-3 = x\r\n\
             Ada,3,a=b\r\n\
             -12,-1.5,'-\r\n"
        );
    }

    fn report() -> Report {
        let mut main = Table::new("cards", "Cards", &["rank", "player"]);
        let mut matches = Table::new("matches", "Matches", &["round", "players"]);
        for i in 1..=5u64 {
            main.push(vec![json!(i), json!(format!("p{i}"))]);
            matches.push(vec![json!(i), json!(["a", "b, c"])]);
        }
        Report {
            system: "cards".into(),
            main,
            extra: vec![matches, Table::new("rounds", "Rounds", &["round"])],
        }
    }

    #[test]
    fn limit_keeps_the_first_rows_of_every_table_and_counts_the_rest() {
        let mut r = report();
        r.limit(2);
        assert_eq!(r.main.rows.len(), 2);
        assert_eq!(r.main.left_out, 3);
        assert_eq!(r.extra[0].rows.row(1), vec![json!(2), json!(["a", "b, c"])]);
        assert_eq!((r.extra[1].rows.len(), r.extra[1].left_out), (0, 0));
        // Rows pushed after a cut follow the kept ones.
        r.main.push(vec![json!(9), json!("z")]);
        assert_eq!(r.main.rows.row(2), vec![json!(9), json!("z")]);
        assert_eq!(
            left_out_line(&r.main).unwrap(),
            "… 3 more rows left out (--limit all shows every row)"
        );
    }

    #[test]
    fn only_picks_a_table_by_name_and_refuses_an_unknown_one() {
        assert_eq!(report().table_names(), ["cards", "matches", "rounds"]);
        let m = report().only("matches").unwrap();
        assert_eq!((m.main.name.as_str(), m.extra.len()), ("matches", 0));
        let e = report().only("matchs").unwrap_err();
        assert!(e.contains("did you mean \"matches\"?"), "{e}");
        assert!(e.contains("(its tables: cards, matches, rounds)"), "{e}");
    }

    #[test]
    fn csv_is_one_rfc_4180_table() {
        let print = Print {
            format: Format::Csv,
            ..Print::default()
        };
        let r = print.shape(report()).unwrap();
        let mut out = Vec::new();
        super::super::write_report(&mut out, &r, &Stamp::default(), Format::Csv).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("rank,player\r\n1,p1\r\n"), "{text}");
        assert_eq!(text.lines().count(), 6);
        let t = Print {
            table: Some("matches".into()),
            ..print
        };
        let mut out = Vec::new();
        let r = t.shape(report()).unwrap();
        write_csv(&r.main, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\r\n1,\"a; b, c\"\r\n"), "{text}");
    }

    #[test]
    fn the_state_line_names_only_the_clocks_given() {
        let mut stamp = Stamp {
            as_of: None,
            known_at: 12,
            head: "ab".repeat(32),
            rules: None,
            tournament: None,
            inside_append: None,
            rules_over: Vec::new(),
        };
        let head = "3fa2b1c0".repeat(8);
        assert_eq!(
            state_line(1234, &head, &stamp, None),
            "ledger at seq 1234 (3fa2b1c0…)"
        );
        stamp.as_of = Some("2003-06-30".into());
        assert_eq!(
            state_line(1234, &head, &stamp, Some("12")),
            "ledger at seq 1234 (3fa2b1c0…) · as of 2003-06-30 (end of day, UTC) · known at seq \
             12 (abababab…)"
        );
        stamp.as_of = Some("2003-06-30T12:00:00Z".into());
        assert_eq!(
            state_line(1234, &head, &stamp, Some("2003-07-01T09:00:00+01:00")),
            "ledger at seq 1234 (3fa2b1c0…) · as of 2003-06-30T12:00:00Z · known at seq 12 \
             (abababab…), recorded by 2003-07-01T08:00:00Z"
        );
        assert!(state_line(1234, &head, &stamp, Some("2003-07-01"))
            .ends_with(", recorded by 2003-07-01 (end of day, UTC)"));
        stamp.rules = Some("what-if.json".into());
        assert_eq!(
            state_line(1234, &head, &stamp, None),
            "ledger at seq 1234 (3fa2b1c0…) · as of 2003-06-30T12:00:00Z · what-if: rules of \
             what-if.json, not the ledger's"
        );
    }
}
