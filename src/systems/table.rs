//! The tables a rating system builds: a [`Table`] of packed rows
//! ([`super::rows`]) and a [`Report`], a system's main ranking with the
//! tables that explain it. How they are printed (text, JSON, CSV, the site)
//! is the concern of the layers above: a system only fills them.

use serde_json::Value;

use super::rows::Rows;
use super::Selector;

/// One table: ordered columns (JSON keys) and rows of values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Short name, used as the key of extra tables in JSON (`"matches"`).
    pub name: String,
    /// Human title printed above the text table.
    pub title: String,
    /// Machine keys, stable for scripts: JSON keys and the CSV header. Text
    /// and the site show each one's readable title instead.
    pub columns: Vec<String>,
    pub rows: Rows,
    /// Rows `--limit` left out; a text table says so.
    pub left_out: usize,
    /// At most this many rows are kept ([`Table::keep`]): further pushes are
    /// only counted in `left_out`, and [`Table::push_with`] does not even
    /// build them. `None`: every row.
    pub limit: Option<usize>,
    /// Per column, the decimals its numbers (its arrays' and objects' too)
    /// are shown with in text, CSV and the site ([`Table::with_places`]);
    /// `None` as [`super::rows::Cell::write_text`] writes them. JSON keeps
    /// the numbers.
    pub places: Vec<Option<u32>>,
}

impl Table {
    pub fn new(name: &str, title: &str, columns: &[&str]) -> Self {
        Table {
            name: name.into(),
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Rows::default(),
            left_out: 0,
            limit: None,
            places: vec![None; columns.len()],
        }
    }

    /// The table, showing every number of `columns` with exactly `places`
    /// decimals ([`super::rows::Cell::write_text_at`]): a score column
    /// reads alike from row to row.
    pub fn with_places(mut self, columns: &[&str], places: u32) -> Self {
        for (c, p) in self.columns.iter().zip(&mut self.places) {
            if columns.contains(&c.as_str()) {
                *p = Some(places);
            }
        }
        self
    }

    /// The decimals column `i`'s numbers are shown with, if the table fixes them.
    pub fn places_at(&self, i: usize) -> Option<u32> {
        self.places.get(i).copied().flatten()
    }

    /// The table, keeping only the rows `sel` asks for: its first
    /// [`Selector::rows`], none when `sel` names another table. The rows a
    /// system builds for a 1M-event ledger (a row per CFR event score) cost far
    /// more to format than to fold, so a system builds only what is printed.
    pub fn keep(mut self, sel: &Selector) -> Self {
        let other = sel.table.as_ref().is_some_and(|t| *t != self.name);
        self.limit = if other { Some(0) } else { sel.rows };
        self
    }

    /// Is the table holding all the rows it keeps? Further rows are only counted.
    pub fn full(&self) -> bool {
        self.limit.is_some_and(|n| self.rows.len() >= n)
    }

    /// Append a row (or count it, when [`Table::full`]); `cells` must match
    /// `columns` in length.
    pub fn push(&mut self, cells: Vec<Value>) {
        self.push_with(|| cells);
    }

    /// [`Table::push`] of the row `cells` builds, built only if it is kept.
    pub fn push_with(&mut self, cells: impl FnOnce() -> Vec<Value>) {
        if self.full() {
            self.left_out += 1;
            return;
        }
        let cells = cells();
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
    }

    /// Count `n` rows left out without building them; only once [`Table::full`].
    pub fn skip(&mut self, n: usize) {
        debug_assert!(self.full());
        self.left_out += n;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    impl Table {
        /// Rows as JSON objects keyed by column.
        pub(crate) fn json_rows(&self) -> Vec<Value> {
            self.rows
                .iter()
                .map(|r| {
                    let m: Map<String, Value> = self.columns.iter().cloned().zip(r).collect();
                    Value::Object(m)
                })
                .collect()
        }
    }

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
}
