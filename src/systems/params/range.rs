//! The values a parameter may take ([`Range`]), and the check of one value
//! against its definition, whose messages name `group.name` and show the
//! value cut to one line.

use std::fmt;
use std::ops::RangeInclusive;

use serde_json::Value;

use super::{ParamDef, DECIMAL_PLACES};
use crate::num::parse_decimal;

/// The values a parameter may take, bounds included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// An integer from `min` to `max`.
    Int { min: i64, max: i64 },
    /// Unset (`null`, the field is `None`) or an integer from `min` to `max`.
    OptInt { min: i64, max: i64 },
    /// A decimal string from `min` to `max` (decimal texts), with at most
    /// [`DECIMAL_PLACES`] decimal places.
    Decimal {
        min: &'static str,
        max: &'static str,
    },
    /// A points table by place: an array of `min_len` to `max_len`
    /// integers, each from `min` to `max`, never rising from one place to
    /// the next (a worse place never earns more than a better one, as the
    /// tables events define must not either); with `positive_first`, the
    /// first (a win) above 0.
    Ints {
        min_len: usize,
        max_len: usize,
        min: i64,
        max: i64,
        positive_first: bool,
    },
    /// One of the given words (a JSON string).
    Choice(&'static [&'static str]),
}

impl Range {
    pub const fn int(r: RangeInclusive<i64>) -> Range {
        Range::Int {
            min: *r.start(),
            max: *r.end(),
        }
    }

    /// `null` (unset) or an integer in `r`, for an `Option<i64>` field.
    pub const fn opt_int(r: RangeInclusive<i64>) -> Range {
        Range::OptInt {
            min: *r.start(),
            max: *r.end(),
        }
    }

    pub const fn decimal(r: RangeInclusive<&'static str>) -> Range {
        Range::Decimal {
            min: r.start(),
            max: r.end(),
        }
    }

    /// A points table of `len` places, each in `each`, never rising.
    pub const fn ints(len: RangeInclusive<usize>, each: RangeInclusive<i64>) -> Range {
        Range::table(len, each, false)
    }

    /// [`Range::ints`] whose first place (a win) earns more than 0.
    pub const fn win_table(len: RangeInclusive<usize>, each: RangeInclusive<i64>) -> Range {
        Range::table(len, each, true)
    }

    const fn table(
        len: RangeInclusive<usize>,
        each: RangeInclusive<i64>,
        positive_first: bool,
    ) -> Range {
        Range::Ints {
            min_len: *len.start(),
            max_len: *len.end(),
            min: *each.start(),
            max: *each.end(),
            positive_first,
        }
    }

    /// One of `words`.
    pub const fn choice(words: &'static [&'static str]) -> Range {
        Range::Choice(words)
    }

    /// Whether `v`, of this range's kind, is within it. New `input` must also
    /// be written as the range says: a table never rising (from a positive
    /// win); a decimal spelt one way is checked before ([`check_value`]). What
    /// was stored is read as it was accepted, so a ledger's meaning never
    /// changes under it.
    fn contains(&self, v: &Value, input: bool) -> bool {
        let int =
            |x: &Value, min: i64, max: i64| x.as_i64().is_some_and(|x| (min..=max).contains(&x));
        match *self {
            Range::Int { min, max } => int(v, min, max),
            Range::OptInt { min, max } => v.is_null() || int(v, min, max),
            Range::Decimal { min, max } => {
                let text = v.as_str().unwrap_or_default();
                let places = text.split_once('.').map_or(0, |(_, f)| f.len());
                match (parse_decimal(text), parse_decimal(min), parse_decimal(max)) {
                    (Some(x), Some(min), Some(max)) => {
                        places <= DECIMAL_PLACES && min <= x && x <= max
                    }
                    _ => false,
                }
            }
            Range::Ints {
                min_len,
                max_len,
                min,
                max,
                positive_first,
            } => v.as_array().is_some_and(|a| {
                let n: Vec<Option<i64>> = a.iter().map(Value::as_i64).collect();
                let shaped = n.windows(2).all(|w| w[1] <= w[0])
                    && (!positive_first || n.first().is_some_and(|&w| w > Some(0)));
                (min_len..=max_len).contains(&a.len())
                    && a.iter().all(|x| int(x, min, max))
                    && (!input || shaped)
            }),
            Range::Choice(words) => v.as_str().is_some_and(|w| words.contains(&w)),
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Range::Int { min, max } => write!(f, "an integer from {min} to {max}"),
            Range::OptInt { min, max } => {
                write!(f, "null (unset) or an integer from {min} to {max}")
            }
            Range::Decimal { min, max } => write!(
                f,
                "a decimal string from \"{min}\" to \"{max}\" with at most {DECIMAL_PLACES} decimal places"
            ),
            Range::Ints {
                min_len,
                max_len,
                min,
                max,
                positive_first,
            } => {
                write!(
                    f,
                    "an array of {min_len} to {max_len} integers, each from {min} to {max}, \
                     never rising from one place to the next"
                )?;
                match positive_first {
                    true => write!(f, ", the first above 0"),
                    false => Ok(()),
                }
            }
            Range::Choice(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
                write!(f, "one of {}", quoted.join(", "))
            }
        }
    }
}

/// The characters of a value a message shows: a rules file's value may be
/// any JSON (up to the rules file's size), and the message must stay one
/// readable line.
const VALUE_SHOWN: usize = 60;

/// `v` as JSON text, cut after [`VALUE_SHOWN`] characters with `…`.
fn shown(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(VALUE_SHOWN) {
        None => text,
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// Check one value against its definition: its kind, then its range (as
/// new `input` must meet it, or as a stored value was accepted).
pub(super) fn check_value(def: &ParamDef, v: &Value, input: bool) -> Result<(), String> {
    if let (Range::Decimal { .. }, Some(text), true) = (def.range, v.as_str(), input) {
        if let Some(why) = crate::num::misspelt(text) {
            let (system, name) = (def.system, def.name);
            let v = shown(v);
            return Err(format!(
                "{system}.{name}: {v} is not a decimal string: {why}"
            ));
        }
    }
    let (of_kind, want) = match def.range {
        Range::Int { .. } => (v.as_i64().is_some(), "an integer"),
        Range::OptInt { .. } => (v.is_null() || v.as_i64().is_some(), "null or an integer"),
        Range::Decimal { .. } => (
            v.as_str().and_then(parse_decimal).is_some(),
            "a decimal string such as \"0.98\"",
        ),
        Range::Ints { .. } => (
            (v.as_array()).is_some_and(|a| a.iter().all(|x| x.as_i64().is_some())),
            "an array of integers",
        ),
        Range::Choice(_) => (v.is_string(), "a string"),
    };
    if !of_kind {
        return Err(format!(
            "{}.{}: expected {want}, got {}",
            def.system,
            def.name,
            shown(v)
        ));
    }
    if !def.range.contains(v, input) {
        return Err(format!(
            "{}.{}: {} is out of range; allowed: {}",
            def.system,
            def.name,
            shown(v),
            def.range
        ));
    }
    Ok(())
}
