//! A table's rows, packed: one byte string per row instead of a
//! `Vec<serde_json::Value>` (32 bytes a cell plus a heap string per text cell:
//! about 600 bytes a row of CFR's 10-column event table, a row per event).
//!
//! Layout (in memory only, never stored or hashed): the rows' bytes are
//! appended to blocks. A row never spans two blocks, and a block never grows
//! once allocated (no reallocation copies a large buffer: growing one `Vec`
//! by doubling would touch twice the bytes at the last step); each block
//! doubles the last, from [`FIRST_BLOCK`] bytes (a replay holds thousands of
//! small tables) up to [`BLOCK`]. `ends[i]` is row `i`'s (block, end offset);
//! a row starts where the previous one ended in the same block, else at 0. A
//! row is its cells back to back, each a tag byte then its payload:
//!
//! | tag | cell | payload |
//! |-----|------|---------|
//! | 0 | `null` | none |
//! | 1, 2 | `false`, `true` | none |
//! | 3 | a non-negative integer (`u64`) | LEB128 |
//! | 4 | a negative integer `i` (`i64`) | LEB128 of `!i` |
//! | 5 | a float | 8 bytes, little-endian `f64` bits |
//! | 6 | a string | LEB128 byte length, then its UTF-8 |
//! | 7 | an array | LEB128 byte length of its body, then its elements as cells |
//! | 8 | an object | LEB128 byte length of its body, then key (a string cell) and value cells, keys in order |
//!
//! Arrays and objects are packed like rows, so a list cell (a player's score
//! per game) costs a few bytes an element, not a `Value` tree.
//!
//! Invariant: decoding a row gives back exactly the `Value`s pushed (numbers
//! keep their kind: `u64`, negative `i64` or `f64`), so every rendering prints
//! what it printed from the `Value`s themselves.

use serde::{Serialize, Serializer};
use serde_json::{Number, Value};

use crate::codec;

/// A table's first block, in bytes: a replay holds thousands of small tables.
const FIRST_BLOCK: usize = 256;
/// The largest block (each doubles the last up to it): a million rows take
/// about a hundred.
const BLOCK: usize = 1 << 20;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UINT: u8 = 3;
const NEG: u8 = 4;
const FLOAT: u8 = 5;
const STR: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

/// The rows of a [`super::table::Table`], packed (see the module docs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rows {
    blocks: Vec<Vec<u8>>,
    /// Per row: its block and the offset in it where the row ends.
    ends: Vec<(u32, u32)>,
}

/// One cell of a packed row, borrowed.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    Null,
    Bool(bool),
    UInt(u64),
    Neg(i64),
    Float(f64),
    Str(&'a str),
    /// An array: its elements.
    Array(Cells<'a>),
    /// An object: its keys (string cells) and values, alternating, keys in order.
    Object(Cells<'a>),
}

impl<'a> Cell<'a> {
    pub fn is_number(&self) -> bool {
        matches!(self, Cell::UInt(_) | Cell::Neg(_) | Cell::Float(_))
    }

    /// The `Value` this cell was pushed as.
    pub fn to_value(&self) -> Value {
        match *self {
            Cell::Null => Value::Null,
            Cell::Bool(b) => Value::Bool(b),
            Cell::UInt(u) => Value::Number(u.into()),
            Cell::Neg(i) => Value::Number(i.into()),
            Cell::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
            Cell::Str(s) => Value::String(s.to_string()),
            Cell::Array(ref items) => Value::Array(items.clone().map(|c| c.to_value()).collect()),
            Cell::Object(_) => Value::Object(
                self.entries()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// An object's (key, value) pairs in key order; nothing for other cells.
    pub fn entries(&self) -> impl Iterator<Item = (&'a str, Cell<'a>)> + '_ {
        let mut cells = match self {
            Cell::Object(c) => c.clone(),
            _ => Cells { bytes: &[] },
        };
        std::iter::from_fn(move || {
            let key = match cells.next()? {
                Cell::Str(k) => k,
                _ => "",
            };
            Some((key, cells.next().unwrap_or(Cell::Null)))
        })
    }

    /// The text of a cell in text, CSV and the site: nothing for `null`, a
    /// string as it is, a boolean as `yes` or `no` (CFR's "Counted": a person
    /// reads the column, JSON keeps `true`), an integer as JSON writes it, a decimal with two
    /// places at least ([`write_decimal`]); an array as its elements' texts
    /// joined by `"; "`, an object (a labelled value such as
    /// `{"game": "g1", "score": 0.1}`) as its values' texts in key order joined
    /// by `": "` (`g1: 0.10`).
    pub fn write_text(&self, out: &mut Vec<u8>) {
        self.write_text_at(out, None);
    }

    /// [`Cell::write_text`], every number (in arrays and objects too) with
    /// exactly `places` decimals when given, rounded half away from zero
    /// ([`crate::num::decimal_string`]) from the decimal JSON writes: `1`,
    /// `0.1` and `1.0071` at 4 places are `1.0000`, `0.1000`, `1.0071`.
    pub fn write_text_at(&self, out: &mut Vec<u8>, places: Option<u32>) {
        let joined = |out: &mut Vec<u8>, cells: &mut dyn Iterator<Item = Cell>, sep: &[u8]| {
            for (i, c) in cells.enumerate() {
                if i > 0 {
                    out.extend_from_slice(sep);
                }
                c.write_text_at(out, places);
            }
        };
        match (self, places) {
            (Cell::Null, _) => {}
            (Cell::Str(s), _) => out.extend_from_slice(s.as_bytes()),
            (Cell::Array(items), _) => joined(out, &mut items.clone(), b"; "),
            (Cell::Object(_), _) => joined(out, &mut self.entries().map(|(_, v)| v), b": "),
            (number, Some(places)) if number.is_number() && write_fixed(out, number, places) => {}
            (Cell::Float(x), _) => write_decimal(out, *x),
            (Cell::Bool(b), _) => out.extend_from_slice(if *b { b"yes" } else { b"no" }),
            // Serializing a scalar into a Vec cannot fail.
            (other, _) => serde_json::to_writer(out, other).unwrap_or_default(),
        }
    }

    /// [`Cell::write_text`] as a `String`.
    pub fn text(&self) -> String {
        self.text_at(None)
    }

    /// [`Cell::write_text_at`] as a `String`.
    pub fn text_at(&self, places: Option<u32>) -> String {
        let mut out = Vec::new();
        self.write_text_at(&mut out, places);
        // Strings are UTF-8 and JSON is written as UTF-8.
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Number cell `c` with exactly `places` decimals: the decimal JSON writes,
/// read exactly and rounded by [`crate::num::decimal_string`]. False (and
/// nothing written) for a number that is no plain decimal (an exponent form).
fn write_fixed(out: &mut Vec<u8>, c: &Cell, places: u32) -> bool {
    let Ok(json) = serde_json::to_string(c) else {
        return false;
    };
    match crate::num::parse_decimal(&json) {
        Some(r) => out.extend_from_slice(crate::num::decimal_string(r, places).as_bytes()),
        None => return false,
    }
    true
}

/// A decimal as text shows it: JSON's shortest digits, with at least two
/// decimals (`80.00` beside `62.84`: a table's decimal scores read alike;
/// the systems round them to two places or more, and a value a system keeps
/// whole is an integer, shown as one). An exponent form stays as it is.
fn write_decimal(out: &mut Vec<u8>, x: f64) {
    let start = out.len();
    // Serializing a float into a Vec cannot fail.
    serde_json::to_writer(&mut *out, &x).unwrap_or_default();
    let written = &out[start..];
    if written.contains(&b'e') || written.contains(&b'E') {
        return;
    }
    let decimals = match written.iter().position(|&b| b == b'.') {
        Some(dot) => written.len() - dot - 1,
        None => {
            out.push(b'.');
            0
        }
    };
    out.extend(std::iter::repeat_n(b'0', 2usize.saturating_sub(decimals)));
}

/// Serialized exactly as the `Value` it was pushed as.
impl Serialize for Cell<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Cell::Null => s.serialize_unit(),
            Cell::Bool(b) => s.serialize_bool(b),
            Cell::UInt(u) => s.serialize_u64(u),
            Cell::Neg(i) => s.serialize_i64(i),
            Cell::Float(f) => s.serialize_f64(f),
            Cell::Str(t) => s.serialize_str(t),
            Cell::Array(ref items) => s.collect_seq(items.clone()),
            Cell::Object(_) => s.collect_map(self.entries()),
        }
    }
}

/// A number's tag and payload, by the kind serde_json keeps it as.
enum Num {
    UInt(u64),
    Neg(i64),
    Float(f64),
}

fn num(n: &Number) -> Num {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => Num::UInt(u),
        (None, Some(i)) => Num::Neg(i),
        _ => Num::Float(n.as_f64().unwrap_or_default()),
    }
}

/// The bytes [`encode`] writes for `v`.
fn encoded_len(v: &Value) -> usize {
    1 + match v {
        Value::Null | Value::Bool(_) => 0,
        Value::Number(n) => match num(n) {
            Num::UInt(u) => codec::len(u),
            Num::Neg(i) => codec::len(!i as u64),
            Num::Float(_) => 8,
        },
        Value::String(s) => codec::len(s.len() as u64) + s.len(),
        Value::Array(_) | Value::Object(_) => {
            let body = body_len(v);
            codec::len(body as u64) + body
        }
    }
}

/// The bytes of an array's or object's body: its cells (an object's keys as
/// string cells).
fn body_len(v: &Value) -> usize {
    let key = |k: &String| 1 + codec::len(k.len() as u64) + k.len();
    match v {
        Value::Array(items) => items.iter().map(encoded_len).sum(),
        Value::Object(m) => m.iter().map(|(k, v)| key(k) + encoded_len(v)).sum(),
        _ => 0,
    }
}

fn encode_str(s: &str, out: &mut Vec<u8>) {
    out.push(STR);
    codec::put(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn encode(v: Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(b) => out.push(if b { TRUE } else { FALSE }),
        Value::Number(n) => match num(&n) {
            Num::UInt(u) => {
                out.push(UINT);
                codec::put(out, u);
            }
            Num::Neg(i) => {
                out.push(NEG);
                codec::put(out, !i as u64);
            }
            Num::Float(f) => {
                out.push(FLOAT);
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
        },
        Value::String(s) => encode_str(&s, out),
        v @ Value::Array(_) | v @ Value::Object(_) => {
            out.push(if v.is_array() { ARRAY } else { OBJECT });
            codec::put(out, body_len(&v) as u64);
            match v {
                Value::Array(items) => items.into_iter().for_each(|c| encode(c, out)),
                Value::Object(m) => m.into_iter().for_each(|(k, c)| {
                    encode_str(&k, out);
                    encode(c, out);
                }),
                _ => {}
            }
        }
    }
}

impl Rows {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Keep the first `n` rows.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        self.ends.truncate(n);
        let Some(&(b, end)) = self.ends.last() else {
            self.blocks.clear();
            return;
        };
        self.blocks.truncate(b as usize + 1);
        // The next row starts where the last kept one ends.
        self.blocks[b as usize].truncate(end as usize);
    }

    /// Room for `n` more rows' places (their bytes are allocated block by block).
    pub fn reserve(&mut self, n: usize) {
        self.ends.reserve(n);
    }

    /// Append a row.
    pub fn push(&mut self, cells: Vec<Value>) {
        let need: usize = cells.iter().map(encoded_len).sum();
        let fits = self
            .blocks
            .last()
            .is_some_and(|b| b.len() + need <= b.capacity());
        if !fits {
            let next = self.blocks.last().map_or(FIRST_BLOCK, |b| 2 * b.capacity());
            let cap = need.max(next.min(BLOCK));
            self.blocks.push(Vec::with_capacity(cap));
        }
        let b = self.blocks.len() - 1;
        let block = &mut self.blocks[b];
        for v in cells {
            encode(v, block);
        }
        // A block is at least one row's bytes: a row of 4 GiB is not a table's.
        let end = u32::try_from(block.len()).expect("a table row under 4 GiB");
        self.ends.push((b as u32, end));
    }

    /// Row `i`'s bytes.
    fn raw(&self, i: usize) -> &[u8] {
        let (b, end) = self.ends[i];
        let start = match i.checked_sub(1).map(|p| self.ends[p]) {
            Some((pb, pend)) if pb == b => pend,
            _ => 0,
        };
        &self.blocks[b as usize][start as usize..end as usize]
    }

    /// Row `i`'s cells.
    pub fn cells(&self, i: usize) -> Cells<'_> {
        Cells { bytes: self.raw(i) }
    }

    /// Row `i` as the `Value`s pushed.
    pub fn row(&self, i: usize) -> Vec<Value> {
        self.cells(i).map(|c| c.to_value()).collect()
    }

    /// Every row as its `Value`s, decoded one at a time.
    pub fn iter(&self) -> impl Iterator<Item = Vec<Value>> + '_ {
        (0..self.len()).map(|i| self.row(i))
    }

    /// Every row's cells, borrowed.
    pub fn iter_cells(&self) -> impl Iterator<Item = Cells<'_>> + '_ {
        (0..self.len()).map(|i| self.cells(i))
    }
}

impl FromIterator<Vec<Value>> for Rows {
    fn from_iter<I: IntoIterator<Item = Vec<Value>>>(iter: I) -> Self {
        let mut rows = Rows::default();
        for r in iter {
            rows.push(r);
        }
        rows
    }
}

/// The cells of one packed row (or of an array or object cell).
#[derive(Debug, Clone, PartialEq)]
pub struct Cells<'a> {
    bytes: &'a [u8],
}

impl<'a> Cells<'a> {
    fn byte(&mut self) -> u8 {
        let (b, rest) = self.bytes.split_first().unwrap_or((&0, &[]));
        self.bytes = rest;
        *b
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.bytes.split_at(n.min(self.bytes.len()));
        self.bytes = rest;
        head
    }

    /// A varint; a malformed one (never written by [`Rows`]) ends
    /// the cells.
    fn varint(&mut self) -> u64 {
        let mut r = codec::Reader::new(self.bytes);
        let v = r.u();
        self.bytes = if v.is_some() { r.rest() } else { &[] };
        v.unwrap_or(0)
    }

    fn u64_le(&mut self) -> u64 {
        let mut a = [0u8; 8];
        let got = self.take(8);
        a[..got.len()].copy_from_slice(got);
        u64::from_le_bytes(a)
    }

    /// The body of an array or object cell.
    fn body(&mut self) -> Cells<'a> {
        let n = self.varint() as usize;
        Cells {
            bytes: self.take(n),
        }
    }
}

impl<'a> Iterator for Cells<'a> {
    type Item = Cell<'a>;

    fn next(&mut self) -> Option<Cell<'a>> {
        if self.bytes.is_empty() {
            return None;
        }
        Some(match self.byte() {
            NULL => Cell::Null,
            FALSE => Cell::Bool(false),
            TRUE => Cell::Bool(true),
            UINT => Cell::UInt(self.varint()),
            NEG => Cell::Neg(!(self.varint() as i64)),
            FLOAT => Cell::Float(f64::from_bits(self.u64_le())),
            STR => {
                let n = self.varint() as usize;
                // Pushed from a `String`: always UTF-8.
                Cell::Str(std::str::from_utf8(self.take(n)).unwrap_or_default())
            }
            ARRAY => Cell::Array(self.body()),
            _ => Cell::Object(self.body()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    impl<'a> IntoIterator for &'a Rows {
        type Item = Vec<Value>;
        type IntoIter = Box<dyn Iterator<Item = Vec<Value>> + 'a>;

        fn into_iter(self) -> Self::IntoIter {
            Box::new(self.iter())
        }
    }

    #[test]
    fn rows_decode_to_exactly_what_was_pushed() {
        let big = "x".repeat(3 * BLOCK);
        let pushed = vec![
            vec![
                json!(null),
                json!(true),
                json!(false),
                json!(0),
                json!(u64::MAX),
            ],
            vec![
                json!(-1),
                json!(i64::MIN),
                json!(1.5),
                json!(-0.25),
                json!(1e300),
            ],
            vec![],
            vec![
                json!(""),
                json!("Zoë \"Z\"\n日本"),
                json!([1, {"a": 2}]),
                json!({}),
            ],
            vec![json!(big), json!(127), json!(128), json!(16384)],
            vec![json!("after the big one")],
            vec![
                json!([[1, [2, []]], {"k": {"j": [null, "s"]}, "a": -1.5}]),
                json!(3),
            ],
        ];
        let rows: Rows = pushed.iter().cloned().collect();
        assert_eq!(rows.len(), pushed.len());
        let got: Vec<Vec<Value>> = rows.iter().collect();
        assert_eq!(got, pushed);
        // Numbers keep their kind (u64, negative i64, f64), which JSON prints.
        for (a, b) in got.iter().flatten().zip(pushed.iter().flatten()) {
            assert_eq!(a.to_string(), b.to_string());
        }
        let cells: Vec<bool> = rows.cells(1).map(|c| c.is_number()).collect();
        assert_eq!(cells, [true; 5]);
    }

    #[test]
    fn many_rows_fill_blocks_without_spanning_them() {
        let mut rows = Rows::default();
        let row = |i: u64| {
            vec![
                json!(i),
                json!(format!("player {i}")),
                json!(-(i as i64) - 1),
            ]
        };
        for i in 0..100_000 {
            rows.push(row(i));
        }
        assert!(rows.blocks.len() > 1);
        // Doubling from FIRST_BLOCK, then BLOCK each; none ever grew.
        let caps: Vec<usize> = rows.blocks.iter().map(Vec::capacity).collect();
        assert_eq!(caps[0], FIRST_BLOCK);
        assert!(caps.windows(2).all(|w| w[1] == (2 * w[0]).min(BLOCK)));
        assert_eq!(*caps.last().unwrap(), BLOCK);
        for i in [0, 1, 50_000, 99_999] {
            assert_eq!(rows.row(i as usize), row(i));
        }
        assert_eq!(rows.iter().count(), 100_000);
    }

    #[test]
    fn cell_text_is_the_values_text_with_two_decimals_at_least() {
        let rows: Rows = [vec![
            json!(null),
            json!("a b"),
            json!(2.50),
            json!(-7),
            json!([1]),
            json!(["Ann, B", "Bo"]),
            json!([{"game": "g1", "score": 0.1}, {"game": "g2", "score": 0.05}]),
            json!({}),
            json!([]),
            json!(80.0),
            json!(47.2525),
            json!(1e-7),
        ]]
        .into_iter()
        .collect();
        let texts: Vec<String> = rows
            .cells(0)
            .map(|c| {
                let mut out = Vec::new();
                c.write_text(&mut out);
                String::from_utf8(out).unwrap()
            })
            .collect();
        assert_eq!(
            texts,
            [
                "",
                "a b",
                "2.50",
                "-7",
                "1",
                "Ann, B; Bo",
                "g1: 0.10; g2: 0.05",
                "",
                "",
                "80.00",
                "47.2525",
                "1e-7"
            ]
        );
    }
}
