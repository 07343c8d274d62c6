//! Query results as tables, rendered as aligned text, JSON (SPEC §1.8) or CSV.

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};

/// One table: ordered columns (JSON keys) and rows of values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Short name, used as the key of extra tables in JSON (`"matches"`).
    pub name: String,
    /// Human title printed above the text table.
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

impl Table {
    pub fn new(name: &str, title: &str, columns: &[&str]) -> Self {
        Table {
            name: name.into(),
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Append a row; `cells` must match `columns` in length.
    pub fn push(&mut self, cells: Vec<Value>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
    }

    /// Rows as JSON objects keyed by column.
    pub fn json_rows(&self) -> Vec<Value> {
        self.rows
            .iter()
            .map(|r| {
                let m: Map<String, Value> = self
                    .columns
                    .iter()
                    .cloned()
                    .zip(r.iter().cloned())
                    .collect();
                Value::Object(m)
            })
            .collect()
    }
}

/// A system's standings: the main ranking (`rows` in JSON: each has `rank`,
/// `player` and `score`) plus any further tables the system explains itself with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub system: String,
    pub main: Table,
    pub extra: Vec<Table>,
}

/// What a query was computed against, echoed in every JSON answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stamp {
    pub as_of: Option<String>,
    pub known_at: u64,
    pub head: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Table,
    Json,
    Csv,
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`, ...: places in formulas and tables.
pub fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn cell_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Aligned text; numbers right-aligned.
pub fn render_text(t: &Table) -> String {
    let mut widths: Vec<usize> = t.columns.iter().map(|c| c.chars().count()).collect();
    for row in &t.rows {
        for (w, v) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell_text(v).chars().count());
        }
    }
    let line = |cells: Vec<(String, bool)>| -> String {
        let parts: Vec<String> = cells
            .into_iter()
            .zip(&widths)
            .map(|((s, right), w)| {
                if right {
                    format!("{s:>w$}")
                } else {
                    format!("{s:<w$}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = String::new();
    if !t.title.is_empty() {
        out.push_str(&format!("{}\n", t.title));
    }
    out.push_str(&line(
        t.columns.iter().map(|c| (c.clone(), false)).collect(),
    ));
    for row in &t.rows {
        out.push_str(&line(
            row.iter().map(|v| (cell_text(v), v.is_number())).collect(),
        ));
    }
    if t.rows.is_empty() {
        out.push_str("(no rows)\n");
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// RFC 4180 CSV with a header row of column keys.
pub fn render_csv(t: &Table) -> String {
    let mut out = t
        .columns
        .iter()
        .map(|c| csv_field(c))
        .collect::<Vec<_>>()
        .join(",")
        + "\n";
    for row in &t.rows {
        let cells: Vec<String> = row
            .iter()
            .map(|v| match v {
                Value::Array(_) | Value::Object(_) => csv_field(&v.to_string()),
                other => csv_field(&cell_text(other)),
            })
            .collect();
        out.push_str(&(cells.join(",") + "\n"));
    }
    out
}

/// The JSON object of SPEC §1.8.
pub fn report_json(r: &Report, stamp: &Stamp) -> Value {
    let mut obj = Map::new();
    obj.insert("system".into(), r.system.clone().into());
    obj.insert(
        "as_of".into(),
        stamp.as_of.clone().map_or(Value::Null, Value::from),
    );
    obj.insert("known_at".into(), stamp.known_at.into());
    obj.insert("head".into(), stamp.head.clone().into());
    obj.insert("rows".into(), Value::Array(r.main.json_rows()));
    if !r.extra.is_empty() {
        let tables: Map<String, Value> = r
            .extra
            .iter()
            .map(|t| (t.name.clone(), Value::Array(t.json_rows())))
            .collect();
        obj.insert("tables".into(), Value::Object(tables));
    }
    Value::Object(obj)
}

/// [`report_json`] serialized straight from the report, without building the
/// `Value` (a 60,000-row table made one `BTreeMap` per row). It must print
/// exactly what `report_json` would: keys in the order a `serde_json::Map`
/// (a `BTreeMap`) keeps them, the last of duplicate keys, the same values.
struct JsonReport<'a> {
    r: &'a Report,
    stamp: &'a Stamp,
}

impl Serialize for JsonReport<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (r, stamp) = (self.r, self.stamp);
        let extra = !r.extra.is_empty();
        // The keys in sorted order, as report_json's map holds them.
        let mut m = s.serialize_map(Some(5 + usize::from(extra)))?;
        m.serialize_entry("as_of", &stamp.as_of)?;
        m.serialize_entry("head", &stamp.head)?;
        m.serialize_entry("known_at", &stamp.known_at)?;
        m.serialize_entry("rows", &JsonRows(&r.main))?;
        m.serialize_entry("system", &r.system)?;
        if extra {
            m.serialize_entry("tables", &JsonTables(&r.extra))?;
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

/// A table's rows as [`Table::json_rows`] gives them.
struct JsonRows<'a>(&'a Table);

impl Serialize for JsonRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let columns = sorted_last(t.columns.iter().map(String::as_str));
        let mut seq = s.serialize_seq(Some(t.rows.len()))?;
        for row in &t.rows {
            let columns = &row_columns(t, row.len(), &columns);
            seq.serialize_element(&JsonRow { columns, row })?;
        }
        seq.end()
    }
}

/// One row: `columns` are (key, index of its cell in `row`), in key order.
struct JsonRow<'a> {
    columns: &'a [(&'a str, usize)],
    row: &'a [Value],
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

/// The pretty JSON of [`report_json`] written by hand: the bytes serde_json's
/// pretty printer (two-space indent, `": "`, empty `[]` and `{}`) writes for it,
/// a few times faster on a 60,000-row table. Only for reports whose cells are
/// all scalars (strings, numbers, booleans, null: every standings table's), so
/// no nesting below a row; `None` for any other, which takes the serde way.
fn pretty_json(r: &Report, stamp: &Stamp) -> Option<Vec<u8>> {
    let scalar = |v: &Value| !matches!(v, Value::Array(_) | Value::Object(_));
    let tables = std::iter::once(&r.main).chain(&r.extra);
    if !tables.flat_map(|t| &t.rows).flatten().all(scalar) {
        return None;
    }
    let mut out = Vec::with_capacity(json_size_guess(r));
    let w = &mut out;
    w.extend_from_slice(b"{\n  \"as_of\": ");
    serde_json::to_writer(&mut *w, &stamp.as_of).ok()?;
    w.extend_from_slice(b",\n  \"head\": ");
    serde_json::to_writer(&mut *w, &stamp.head).ok()?;
    w.extend_from_slice(format!(",\n  \"known_at\": {},\n  \"rows\": ", stamp.known_at).as_bytes());
    pretty_rows(w, &r.main, 1)?;
    w.extend_from_slice(b",\n  \"system\": ");
    serde_json::to_writer(&mut *w, &r.system).ok()?;
    if !r.extra.is_empty() {
        w.extend_from_slice(b",\n  \"tables\": ");
        let names = sorted_last(r.extra.iter().map(|t| t.name.as_str()));
        for (n, &(name, i)) in names.iter().enumerate() {
            w.extend_from_slice(if n == 0 { b"{\n    " } else { b",\n    " });
            serde_json::to_writer(&mut *w, name).ok()?;
            w.extend_from_slice(b": ");
            pretty_rows(w, &r.extra[i], 2)?;
        }
        w.extend_from_slice(b"\n  }");
    }
    w.extend_from_slice(b"\n}");
    Some(out)
}

/// [`JsonRows`] of `t` at nesting `depth` (the array's own line indent).
fn pretty_rows(w: &mut Vec<u8>, t: &Table, depth: usize) -> Option<()> {
    if t.rows.is_empty() {
        w.extend_from_slice(b"[]");
        return Some(());
    }
    let indent = |w: &mut Vec<u8>, d: usize| w.extend(std::iter::repeat_n(b' ', 2 * d));
    let all = sorted_last(t.columns.iter().map(String::as_str));
    w.push(b'[');
    for (n, row) in t.rows.iter().enumerate() {
        w.extend_from_slice(if n == 0 { b"\n" } else { b",\n" });
        indent(w, depth + 1);
        let columns = &row_columns(t, row.len(), &all);
        if columns.is_empty() {
            w.extend_from_slice(b"{}");
            continue;
        }
        for (c, &(key, i)) in columns.iter().enumerate() {
            w.extend_from_slice(if c == 0 { b"{\n" } else { b",\n" });
            indent(w, depth + 2);
            serde_json::to_writer(&mut *w, key).ok()?;
            w.extend_from_slice(b": ");
            serde_json::to_writer(&mut *w, &row[i]).ok()?;
        }
        w.push(b'\n');
        indent(w, depth + 1);
        w.push(b'}');
    }
    w.push(b'\n');
    indent(w, depth);
    w.push(b']');
    Some(())
}

/// About the bytes of a report's pretty JSON, so the output buffer is allocated
/// once (growing a 6 MB answer by doubling copied and touched twice that).
fn json_size_guess(r: &Report) -> usize {
    let table = |t: &Table| {
        let keys: usize = t.columns.iter().map(|c| c.len() + 16).sum();
        t.rows.len() * (keys + 24)
    };
    4096 + table(&r.main) + r.extra.iter().map(table).sum::<usize>()
}

/// The extra tables by name, as `report_json`'s `tables` object.
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

/// Render a report in the chosen format. CSV prints the main table only, then
/// each extra table after a blank line with a `# name` header line.
pub fn render(r: &Report, stamp: &Stamp, format: Format) -> String {
    match format {
        Format::Json => {
            if let Some(mut out) = pretty_json(r, stamp) {
                out.push(b'\n');
                if let Ok(text) = String::from_utf8(out) {
                    return text;
                }
            }
            let mut out = Vec::with_capacity(json_size_guess(r));
            let json = serde_json::to_writer_pretty(&mut out, &JsonReport { r, stamp });
            out.push(b'\n');
            // serde_json writes UTF-8 only; a failure prints an empty line, as before.
            let text = json.ok().and_then(|()| String::from_utf8(out).ok());
            text.unwrap_or_else(|| "\n".into())
        }
        Format::Csv => {
            let mut out = render_csv(&r.main);
            for t in &r.extra {
                out.push_str(&format!("\n# {}\n{}", t.name, render_csv(t)));
            }
            out
        }
        Format::Table => {
            let mut out = render_text(&r.main);
            for t in &r.extra {
                out.push('\n');
                out.push_str(&render_text(t));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .map(ordinal)
            .to_vec();
        let want = [
            "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn renders_all_three_formats() {
        let mut t = Table::new("valar", "Valar", &["rank", "player", "score"]);
        t.push(vec![json!(1), json!("Ann, B"), json!(1771)]);
        let r = Report {
            system: "valar".into(),
            main: t.clone(),
            extra: vec![],
        };
        let stamp = Stamp {
            as_of: None,
            known_at: 3,
            head: "ab".into(),
        };
        assert_eq!(render_csv(&t), "rank,player,score\n1,\"Ann, B\",1771\n");
        assert!(render_text(&t).contains("   1  Ann, B   1771"));
        let j = report_json(&r, &stamp);
        assert_eq!(j["rows"][0]["score"], json!(1771));
        assert_eq!(j["known_at"], json!(3));
        assert!(render(&r, &stamp, Format::Json).starts_with('{'));
    }

    #[test]
    fn streamed_json_prints_exactly_what_the_value_would() {
        let mut main = Table::new("m", "M", &["rank", "player", "score", "games"]);
        main.push(vec![json!(1), json!("Zoë \"Z\""), json!(-3), json!(null)]);
        main.push(vec![json!(2), json!("a"), json!([1, {"b": 2}]), json!(7)]);
        // Duplicate columns (the last wins) and a short row (zip stops early).
        let mut dup = Table::new("dup", "", &["x", "a", "x"]);
        dup.push(vec![json!(1), json!(2), json!(3)]);
        dup.push(vec![json!(4)]);
        let empty = Table::new("empty", "", &["a"]);
        let reports = [
            Report {
                system: "s".into(),
                main: main.clone(),
                extra: vec![],
            },
            Report {
                system: "s".into(),
                main: empty.clone(),
                extra: vec![dup.clone(), empty.clone(), Table::new("dup", "", &[])],
            },
            Report {
                system: "t".into(),
                main: Table::new("none", "", &[]),
                extra: vec![main, dup, empty],
            },
        ];
        for as_of in [None, Some("2020-01-01".to_string())] {
            let stamp = Stamp {
                as_of,
                known_at: u64::MAX,
                head: "ab".into(),
            };
            for r in &reports {
                let want = serde_json::to_string_pretty(&report_json(r, &stamp)).unwrap() + "\n";
                assert_eq!(render(r, &stamp, Format::Json), want);
            }
        }
    }

    /// The hand-written pretty printer (scalar cells only) against serde_json's
    /// on the report's `Value`: every kind of scalar, escapes, non-ASCII,
    /// duplicate columns, short and long rows, empty tables and rows.
    #[test]
    fn hand_written_json_prints_exactly_what_serde_json_would() {
        let mut main = Table::new("valar", "V", &["rank", "player", "score", "games"]);
        main.push(vec![
            json!(1),
            json!("Zoë \"Z\"\n\t\\ \u{1}"),
            json!(-3),
            json!(null),
        ]);
        main.push(vec![
            json!(2),
            json!("日本"),
            json!(u64::MAX),
            json!(i64::MIN),
        ]);
        main.push(vec![json!(3), json!(""), json!(1.5), json!(true)]);
        main.push(vec![json!(4)]);
        main.push(vec![
            json!(5),
            json!("x"),
            json!(0),
            json!(false),
            json!("extra"),
        ]);
        let mut dup = Table::new("dup", "", &["x", "a", "x"]);
        dup.push(vec![json!(1), json!(2), json!(3)]);
        dup.push(vec![json!(4)]);
        dup.push(vec![]);
        let mut none = Table::new("none", "", &[]);
        none.push(vec![json!(1)]);
        let empty = Table::new("empty", "", &["a"]);
        let reports = [
            Report {
                system: "valar".into(),
                main: main.clone(),
                extra: vec![],
            },
            Report {
                system: "s\"".into(),
                main: empty.clone(),
                extra: vec![
                    dup.clone(),
                    empty.clone(),
                    none.clone(),
                    Table::new("dup", "", &[]),
                ],
            },
            Report {
                system: "t".into(),
                main: none,
                extra: vec![main, dup, empty],
            },
        ];
        for as_of in [
            None,
            Some("2020-01-01".to_string()),
            Some("é\"".to_string()),
        ] {
            for known_at in [0, 7, u64::MAX] {
                let stamp = Stamp {
                    as_of: as_of.clone(),
                    known_at,
                    head: "ab\u{7f}".into(),
                };
                for r in &reports {
                    let want = serde_json::to_string_pretty(&report_json(r, &stamp)).unwrap();
                    let got = pretty_json(r, &stamp).expect("scalar cells take the fast way");
                    assert_eq!(String::from_utf8(got).unwrap(), want);
                    assert_eq!(render(r, &stamp, Format::Json), want + "\n");
                }
            }
        }
        let mut nested = Table::new("n", "", &["a"]);
        nested.push(vec![json!([1])]);
        let r = Report {
            system: "n".into(),
            main: nested,
            extra: vec![],
        };
        assert!(pretty_json(&r, &Stamp::default()).is_none());
    }
}
