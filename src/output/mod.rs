//! Query results as tables, rendered as aligned text, JSON or CSV.
//!
//! A system's [`Table`] keeps its rows packed
//! ([`crate::systems::rows::Rows`]: a few bytes a cell instead of a
//! `serde_json::Value`), and every rendering streams to a writer row by row, so
//! printing a table costs its packed rows and a buffer, not a `Value` per cell
//! and the whole text in one `String` (a 1M-event ledger's `standings cfr` has
//! a 1M-row table). [`render`] wraps the writers for callers that want a `String`.

mod print;
mod titles;

use std::io::{self, Write};

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;

use crate::systems::rows::Cell;
use crate::systems::table::{Report, Table};

pub use print::{state_line, write_csv, Print};
pub use titles::{blank, title};

/// What a query was computed against, echoed in every JSON answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stamp {
    pub as_of: Option<String>,
    pub known_at: u64,
    pub head: String,
    /// The rules file that pinned the fold's parameters (`--rules`): the
    /// answer is a what-if, not the ledger's own, and says so.
    pub rules: Option<String>,
    /// The tournament asked for (`--tournament`): a JSON answer names it, so
    /// that two tournaments' tables saved apart are told apart.
    pub tournament: Option<String>,
    /// `--known-at SEQ` named a record inside an append, not its last: the
    /// append's first and last seqs. An append is all or nothing, so no
    /// reader saw the ledger at `known_at`; `first - 1` and `last` are
    /// states one did. JSON says it as `"known_at_inside_append"`.
    pub inside_append: Option<(u64, u64)>,
    /// The parameters the rules file pins that recorded rule changes set
    /// (`group.name`): its value holds before those changes too. JSON says
    /// it as `"rules_over_changes"`.
    pub rules_over: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Table,
    Json,
    Csv,
}

/// The columns of a `history` table ([`change_row`]).
pub const CHANGE_COLUMNS: [&str; 6] = ["seq", "at", "system", "old", "new", "formula"];

/// An audit-trail change as a `history` row: its [`CHANGE_COLUMNS`].
pub fn change_row(c: &crate::systems::Change) -> Vec<Value> {
    vec![
        c.seq.into(),
        crate::time::format_short(c.at).into(),
        c.system.clone().into(),
        c.old.clone().map_or(Value::Null, Value::from),
        c.new.clone().into(),
        c.formula.clone().into(),
    ]
}

/// `s` with every character a terminal would act on (C0 and C1 controls, the
/// bidirectional overrides: [`crate::events::forbidden`]) written as a
/// `\u{..}` escape, and `keep` (e.g. `'\n'` in a message) left as it is.
/// Appends refuse such characters; this is what keeps anything that reaches
/// text output or stderr anyway (an argument echoed in a message) inert.
pub fn printable<'s>(s: &'s str, keep: &[char]) -> std::borrow::Cow<'s, str> {
    let bad = |c: char| !keep.contains(&c) && crate::events::forbidden(c);
    if !s.chars().any(bad) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match bad(c) {
            true => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            false => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The text of a cell (see [`Cell::write_text_at`]: with its column's
/// `places`, if the table fixes them) in `buf`, replacing its content,
/// [`printable`].
fn cell_text<'b>(c: &Cell, places: Option<u32>, buf: &'b mut Vec<u8>) -> &'b str {
    buf.clear();
    c.write_text_at(buf, places);
    // Strings are UTF-8 and JSON is written as UTF-8.
    let text = std::str::from_utf8(buf).unwrap_or_default();
    if let std::borrow::Cow::Owned(safe) = printable(text, &[]) {
        *buf = safe.into_bytes();
    }
    std::str::from_utf8(buf).unwrap_or_default()
}

/// What an empty cell of column `i` of `t` reads as ([`blank`]).
fn blank_of(t: &Table, i: usize) -> &'static str {
    t.columns.get(i).map_or("", |c| blank(&t.name, c))
}

/// Every column's width in terminal columns ([`shown_width`]): its title's or
/// its widest cell's.
fn text_widths(t: &Table) -> Vec<usize> {
    let titles = t.columns.iter().map(|c| title(&t.name, c));
    let mut widths: Vec<usize> = titles.map(|c| shown_width(&c)).collect();
    let mut buf = Vec::new();
    for row in t.rows.iter_cells() {
        for (i, (w, c)) in widths.iter_mut().zip(row).enumerate() {
            let n = match c {
                Cell::Str(s) => shown_width(&printable(s, &[])),
                Cell::Null => shown_width(blank_of(t, i)),
                other => shown_width(cell_text(&other, t.places_at(i), &mut buf)),
            };
            *w = (*w).max(n);
        }
    }
    widths
}

/// How many terminal columns `s` takes: two for a wide character (CJK,
/// most emoji), none for a combining mark, so that names of any script line
/// up in a text table.
pub fn shown_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// One text line: cells padded to `widths` (numbers right-aligned) and joined
/// by two spaces, trailing whitespace trimmed.
fn write_line<'c>(
    w: &mut dyn Write,
    line: &mut String,
    cells: impl Iterator<Item = (&'c str, bool)>,
    widths: &[usize],
) -> io::Result<()> {
    line.clear();
    for (i, ((s, right), w)) in cells.zip(widths).enumerate() {
        if i > 0 {
            line.push_str("  ");
        }
        // Padded by hand: `format!`'s widths stop at 65,535 (and panic
        // beyond), and a formula may be longer.
        let pad = w.saturating_sub(shown_width(s));
        let spaces = std::iter::repeat_n(' ', pad);
        match right {
            true => line.extend(spaces.chain(s.chars())),
            false => line.extend(s.chars().chain(spaces)),
        }
    }
    w.write_all(line.trim_end().as_bytes())?;
    w.write_all(b"\n")
}

/// Aligned text under the columns' [`title`]s; numbers right-aligned.
pub fn write_text(t: &Table, w: &mut dyn Write) -> io::Result<()> {
    let widths = text_widths(t);
    if !t.title.is_empty() {
        writeln!(w, "{}", printable(&t.title, &[]))?;
    }
    let mut line = String::new();
    let titles: Vec<_> = t.columns.iter().map(|c| title(&t.name, c)).collect();
    let header = titles.iter().map(|c| (c.as_ref(), false));
    write_line(w, &mut line, header, &widths)?;
    let mut texts: Vec<(Vec<u8>, bool)> = Vec::new();
    for row in t.rows.iter_cells() {
        let mut n = 0;
        for c in row {
            if n == texts.len() {
                texts.push((Vec::new(), false));
            }
            match c {
                Cell::Null => {
                    texts[n].0.clear();
                    (texts[n].0).extend_from_slice(blank_of(t, n).as_bytes());
                }
                _ => _ = cell_text(&c, t.places_at(n), &mut texts[n].0),
            }
            texts[n].1 = c.is_number();
            n += 1;
        }
        let cells = texts[..n]
            .iter()
            .map(|(b, right)| (std::str::from_utf8(b).unwrap_or_default(), *right));
        write_line(w, &mut line, cells, &widths)?;
    }
    if t.rows.is_empty() {
        w.write_all(b"(no rows)\n")?;
    }
    if let Some(line) = print::left_out_line(t) {
        writeln!(w, "{line}")?;
    }
    Ok(())
}

/// Run a writer into a `String` (writing to a `Vec` cannot fail; the bytes are UTF-8).
fn to_string(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = f(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The JSON object of a query (`system`, `as_of`, `known_at`, `head`, `rows`,
/// `tables`, `rules` when a rules file pinned the fold, `rules_over_changes`
/// when it pins parameters recorded rule changes set, `tournament` when one
/// was asked for, `known_at_inside_append`), serialized
/// straight from the report: keys in sorted order, as a
/// `serde_json::Map` (a `BTreeMap`) keeps them, the last of duplicate keys.
struct JsonReport<'a> {
    r: &'a Report,
    stamp: &'a Stamp,
}

impl Serialize for JsonReport<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (r, stamp) = (self.r, self.stamp);
        let extra = !r.extra.is_empty();
        // The keys in sorted order.
        let named = usize::from(stamp.rules.is_some())
            + usize::from(!stamp.rules_over.is_empty())
            + usize::from(stamp.tournament.is_some())
            + usize::from(stamp.inside_append.is_some());
        let mut m = s.serialize_map(Some(5 + usize::from(extra) + named))?;
        m.serialize_entry("as_of", &stamp.as_of)?;
        m.serialize_entry("head", &stamp.head)?;
        m.serialize_entry("known_at", &stamp.known_at)?;
        serialize_inside_append(&mut m, stamp)?;
        m.serialize_entry("rows", &JsonRows(&r.main))?;
        serialize_rules(&mut m, stamp)?;
        m.serialize_entry("system", &r.system)?;
        if extra {
            m.serialize_entry("tables", &JsonTables(&r.extra))?;
        }
        if let Some(tournament) = &stamp.tournament {
            m.serialize_entry("tournament", tournament)?;
        }
        m.end()
    }
}

/// The last index of each distinct key of `keys`, in sorted key order: the
/// entries a `BTreeMap` collected from `keys` (in order) keeps.
fn sorted_last<'a>(keys: impl Iterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
    let last: std::collections::BTreeMap<&str, usize> =
        keys.enumerate().map(|(i, k)| (k, i)).collect();
    last.into_iter().collect()
}

/// The columns of a row of `len` cells, `all` being [`sorted_last`] of every
/// column: `json_rows` zips columns with cells, so a short row has only the
/// first columns (and so, maybe, an earlier one of duplicate keys).
fn row_columns<'c, 'a: 'c>(
    t: &'a Table,
    len: usize,
    all: &'c [(&'a str, usize)],
) -> std::borrow::Cow<'c, [(&'a str, usize)]> {
    match len < t.columns.len() {
        true => sorted_last(t.columns[..len].iter().map(String::as_str)).into(),
        false => all.into(),
    }
}

/// A table's rows, each an object keyed by column.
struct JsonRows<'a>(&'a Table);

impl Serialize for JsonRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let columns = sorted_last(t.columns.iter().map(String::as_str));
        let mut seq = s.serialize_seq(Some(t.rows.len()))?;
        let mut row = Vec::new();
        for cells in t.rows.iter_cells() {
            row.clear();
            row.extend(cells);
            let columns = &row_columns(t, row.len(), &columns);
            seq.serialize_element(&JsonRow { columns, row: &row })?;
        }
        seq.end()
    }
}

/// One row: `columns` are (key, index of its cell in `row`), in key order.
struct JsonRow<'a> {
    columns: &'a [(&'a str, usize)],
    row: &'a [Cell<'a>],
}

impl Serialize for JsonRow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.columns.len()))?;
        for &(k, i) in self.columns {
            m.serialize_entry(k, &self.row[i])?;
        }
        m.end()
    }
}

/// The extra tables by name: a report's `tables` object.
struct JsonTables<'a>(&'a [Table]);

impl Serialize for JsonTables<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let names = sorted_last(self.0.iter().map(|t| t.name.as_str()));
        let mut m = s.serialize_map(Some(names.len()))?;
        for (name, i) in names {
            m.serialize_entry(name, &JsonRows(&self.0[i]))?;
        }
        m.end()
    }
}

/// Two spaces per level of nesting.
fn indent<W: Write + ?Sized>(w: &mut W, depth: usize) -> io::Result<()> {
    const SPACES: &[u8] = &[b' '; 64];
    let mut n = 2 * depth;
    while n > 0 {
        let k = n.min(SPACES.len());
        w.write_all(&SPACES[..k])?;
        n -= k;
    }
    Ok(())
}

/// Serialize a scalar or string compactly (as serde_json's pretty printer
/// writes a scalar).
fn json_scalar<W: Write + ?Sized, T: Serialize + ?Sized>(w: &mut W, v: &T) -> io::Result<()> {
    serde_json::to_writer(w, v).map_err(io::Error::from)
}

/// Writes through to `w`, indenting every line after the first by `depth`
/// levels: serde_json's pretty text of a value nested that deep (a JSON
/// string holds no raw newline, so every newline is between tokens).
struct Indented<'a> {
    w: &'a mut dyn Write,
    depth: usize,
}

impl Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut start = 0;
        if self.depth > 0 {
            for end in memchr::memchr_iter(b'\n', buf) {
                self.w.write_all(&buf[start..=end])?;
                indent(self.w, self.depth)?;
                start = end + 1;
            }
        }
        self.w.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// A report's pretty JSON (the text serde_json's pretty printer gives its
/// `Value`) as the value of a key at nesting `depth`, without
/// the final newline. Written through a buffer of its own, so serde_json's
/// many small writes are not each a dynamic call on `w`.
pub fn write_json(w: &mut dyn Write, r: &Report, stamp: &Stamp, depth: usize) -> io::Result<()> {
    let json = JsonReport { r, stamp };
    let mut out = io::BufWriter::with_capacity(64 * 1024, Indented { w, depth });
    serde_json::to_writer_pretty(&mut out, &json).map_err(io::Error::from)?;
    out.flush()
}

/// `"rules"` and `"rules_over_changes"` of a what-if, in key order.
fn serialize_rules<M: SerializeMap>(m: &mut M, stamp: &Stamp) -> Result<(), M::Error> {
    if let Some(rules) = &stamp.rules {
        m.serialize_entry("rules", rules)?;
    }
    if !stamp.rules_over.is_empty() {
        m.serialize_entry("rules_over_changes", &stamp.rules_over)?;
    }
    Ok(())
}

/// `"known_at_inside_append": {"first", "last"}` when the stamp has one.
fn serialize_inside_append<M: SerializeMap>(m: &mut M, stamp: &Stamp) -> Result<(), M::Error> {
    match stamp.inside_append {
        Some((first, last)) => m.serialize_entry(
            "known_at_inside_append",
            &serde_json::json!({"first": first, "last": last}),
        ),
        None => Ok(()),
    }
}

/// The JSON object of a table reported as unchanged ([`write_unchanged`]):
/// a report's keys with no rows, and `"unchanged": true`.
struct JsonUnchanged<'a> {
    t: &'a Table,
    stamp: &'a Stamp,
}

impl Serialize for JsonUnchanged<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let stamp = self.stamp;
        // The keys in sorted order.
        let named = usize::from(stamp.rules.is_some())
            + usize::from(!stamp.rules_over.is_empty())
            + usize::from(stamp.inside_append.is_some());
        let mut m = s.serialize_map(Some(6 + named))?;
        m.serialize_entry("as_of", &stamp.as_of)?;
        m.serialize_entry("head", &stamp.head)?;
        m.serialize_entry("known_at", &stamp.known_at)?;
        serialize_inside_append(&mut m, stamp)?;
        m.serialize_entry("rows", &[] as &[Value])?;
        serialize_rules(&mut m, stamp)?;
        m.serialize_entry("system", &self.t.name)?;
        m.serialize_entry("unchanged", &true)?;
        m.end()
    }
}

/// A table reported as unchanged instead of by its rows, with the reason
/// (`replay --diff` of a system the rules file sets no parameter of): text,
/// its title and `unchanged: REASON`; JSON, a report's object (nested
/// `depth` deep, without the final newline) with no rows and
/// `"unchanged": true`; CSV, the columns' header.
pub fn write_unchanged(
    w: &mut dyn Write,
    t: &Table,
    reason: &str,
    stamp: &Stamp,
    (format, depth): (Format, usize),
) -> io::Result<()> {
    match format {
        Format::Json => {
            let json = JsonUnchanged { t, stamp };
            let mut out = io::BufWriter::new(Indented { w, depth });
            serde_json::to_writer_pretty(&mut out, &json).map_err(io::Error::from)?;
            out.flush()
        }
        Format::Csv => {
            let header = Table {
                rows: Default::default(),
                ..t.clone()
            };
            write_csv(&header, w)
        }
        Format::Table => {
            writeln!(w, "{}", printable(&t.title, &[]))?;
            writeln!(w, "unchanged: {}", printable(reason, &[]))
        }
    }
}

/// Write a report in the chosen format: text and JSON every table, CSV the
/// main table (one RFC 4180 table: [`Print::shape`] picks it).
pub fn write_report(
    w: &mut dyn Write,
    r: &Report,
    stamp: &Stamp,
    format: Format,
) -> io::Result<()> {
    match format {
        Format::Json => {
            write_json(w, r, stamp, 0)?;
            w.write_all(b"\n")
        }
        Format::Csv => write_csv(&r.main, w),
        Format::Table => {
            write_text(&r.main, w)?;
            for t in &r.extra {
                w.write_all(b"\n")?;
                write_text(t, w)?;
            }
            Ok(())
        }
    }
}

/// [`write_report`] into a `String`.
pub fn render(r: &Report, stamp: &Stamp, format: Format) -> String {
    to_string(|w| write_report(w, r, stamp, format))
}

/// Several reports one at a time (so only one need be in memory): JSON is
/// one object `{"as_of", "head", "known_at", "tables": [<report>...]}` (the
/// pretty JSON of that object's `Value`: keys sorted, each report indented
/// as its element); text, the reports' texts separated by a blank line. CSV
/// is one table per invocation, so a caller with several reports asks for one.
pub struct Many<'a> {
    w: &'a mut dyn Write,
    stamp: &'a Stamp,
    format: Format,
    written: usize,
}

impl<'a> Many<'a> {
    pub fn new(w: &'a mut dyn Write, stamp: &'a Stamp, format: Format) -> Self {
        Many {
            w,
            stamp,
            format,
            written: 0,
        }
    }

    /// Write the next report.
    pub fn write(&mut self, r: &Report) -> io::Result<()> {
        self.next()?;
        match self.format {
            Format::Json => write_json(self.w, r, self.stamp, 2),
            other => write_report(self.w, r, self.stamp, other),
        }
    }

    /// Write the next report as table `t` unchanged, with the reason
    /// ([`write_unchanged`]).
    pub fn unchanged(&mut self, t: &Table, reason: &str) -> io::Result<()> {
        self.next()?;
        write_unchanged(self.w, t, reason, self.stamp, (self.format, 2))
    }

    /// What comes before the next report: the JSON object's head before the
    /// first, a separator before every other.
    fn next(&mut self) -> io::Result<()> {
        let (w, stamp) = (&mut *self.w, self.stamp);
        match (self.format, self.written) {
            (Format::Json, 0) => {
                json_head(w, stamp)?;
                w.write_all(b"\n    ")?;
            }
            (Format::Json, _) => w.write_all(b",\n    ")?,
            (_, 0) => {}
            (_, _) => w.write_all(b"\n")?,
        }
        self.written += 1;
        Ok(())
    }

    /// Close the JSON object (nothing to do for other formats).
    pub fn finish(self) -> io::Result<()> {
        if self.format != Format::Json {
            return Ok(());
        }
        if self.written == 0 {
            json_head(self.w, self.stamp)?;
            return self.w.write_all(b"]\n}\n");
        }
        self.w.write_all(b"\n  ]\n}\n")
    }
}

/// [`Many`]'s JSON object up to the `[` that opens its `tables`.
fn json_head(w: &mut dyn Write, stamp: &Stamp) -> io::Result<()> {
    w.write_all(b"{\n  \"as_of\": ")?;
    json_scalar(w, &stamp.as_of)?;
    w.write_all(b",\n  \"head\": ")?;
    json_scalar(w, &stamp.head)?;
    write!(w, ",\n  \"known_at\": {}", stamp.known_at)?;
    if let Some(rules) = &stamp.rules {
        w.write_all(b",\n  \"rules\": ")?;
        json_scalar(w, rules)?;
    }
    if !stamp.rules_over.is_empty() {
        w.write_all(b",\n  \"rules_over_changes\": ")?;
        let mut nested = Indented { w, depth: 1 };
        serde_json::to_writer_pretty(&mut nested, &stamp.rules_over).map_err(io::Error::from)?;
    }
    w.write_all(b",\n  \"tables\": [")
}

#[cfg(test)]
mod tests;
