//! `laurel events [TYPE] [--format table|json]`: the event vocabulary, read
//! from the schemas of [`crate::events::schema`] (themselves derived from the
//! payload structs that validate events), so what it prints is what `append`
//! enforces.
//!
//! - Without TYPE: the envelope's rules and every type with its meaning (the
//!   first paragraph of its payload struct's doc). With `--format json`: the
//!   JSON Schema of one event line of any type.
//! - With TYPE: the type's rules (the other paragraphs of its doc), every field
//!   (nested ones as `scores[].score`) with its JSON type, whether it is
//!   required, its range and its rule (the field's doc), and an example. With
//!   `--format json`: the type's JSON Schema, the example under `examples`.
//!   TYPE may also be a namespace (`cards`): its types are listed.
//! - An unknown TYPE is a usage error (exit 2) with the nearest type.
//!
//! **Examples** are the first event of the type in the bundled sample streams
//! (`events/*.jsonl` in name order, [`crate::demo::BUNDLED`]), printed as
//! written there; the lines before it in its file are its setup (a result
//! needs its round scheduled), named with their types, so the example appends
//! as is on a ledger holding them. A type no sample holds has its example in
//! its system's `EXAMPLES` (`ledger.*`: [`crate::events::ledger::EXAMPLES`]),
//! after a whole sample file. `tests/it/events.rs`
//! appends every type's.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::events::schema::{self, envelope, paragraphs};
use crate::systems::{Event, TYPES};

/// `laurel events [TYPE]`: the text, or the JSON Schema when `json`.
pub fn events(kind: Option<&str>, json: bool) -> Result<String> {
    let Some(kind) = kind else {
        return Ok(match json {
            true => pretty(&with_examples(schema::line_schema::<Event>())),
            false => list(TYPES),
        });
    };
    let in_ns: Vec<&str> = TYPES
        .iter()
        .copied()
        .filter(|t| t.split_once('.').is_some_and(|(ns, _)| ns == kind))
        .collect();
    if !in_ns.is_empty() && !json {
        return Ok(list(&in_ns));
    }
    let Some(mut s) = schema::event_schema::<Event>(kind) else {
        let hint = crate::events::did_you_mean_type(kind, TYPES.iter().copied());
        return Err(Error::Usage(format!(
            "unknown event type {kind:?}{hint} (`laurel events` lists them)"
        )));
    };
    if json {
        add_example(kind, &mut s);
        return Ok(pretty(&s));
    }
    Ok(describe(kind, &s))
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// The envelope's rules and `kinds` with their meanings.
fn list(kinds: &[&str]) -> String {
    let mut out = format!("{}\n\n", wrap(&envelope(), 88));
    let width = kinds.iter().map(|k| k.len()).max().unwrap_or(0);
    for kind in kinds {
        let meaning = schema::meaning::<Event>(kind).unwrap_or_default();
        let _ = writeln!(out, "{kind:<width$}  {meaning}");
    }
    out.push_str(
        "\n`laurel events TYPE` shows a type's fields, ranges, rules and an example;\n\
         `--format json` prints JSON Schema (2020-12) for editors.\n",
    );
    out
}

/// One type: its meaning, rules, fields and example.
fn describe(kind: &str, s: &Value) -> String {
    let doc = s.get("description").and_then(Value::as_str).unwrap_or("");
    let mut paras = paragraphs(doc).into_iter();
    let mut out = format!("{kind}: {}\n", paras.next().unwrap_or_default());
    let rules: Vec<String> = paras.collect();
    if !rules.is_empty() {
        out.push_str("\nRules:\n");
        for r in rules {
            let _ = writeln!(out, "  - {r}");
        }
    }
    let mut rows = vec![[
        "field".to_string(),
        "type".into(),
        "required".into(),
        "range".into(),
        "rule".into(),
    ]];
    fields("", s, &mut rows);
    out.push_str("\nFields:\n");
    out.push_str(&columns(&rows));
    match example(kind) {
        Some(e) => {
            let _ = write!(out, "\nExample ({}):\n{}\n", e.setup(), e.text);
        }
        None => out.push_str("\nNo example: no bundled sample stream holds this type.\n"),
    }
    out
}

/// Rows (field, type, required, range, rule) for the properties of object
/// schema `s`, nested objects and arrays of objects after their field.
fn fields(prefix: &str, s: &Value, rows: &mut Vec<[String; 5]>) {
    let Some(props) = s.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = (s.get("required").and_then(Value::as_array))
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // The envelope first, then the payload's fields by name.
    let envelope = ["type", "at", "id"]
        .into_iter()
        .filter(|_| prefix.is_empty());
    let names = envelope.chain(
        props
            .keys()
            .map(String::as_str)
            .filter(|n| !prefix.is_empty() || !matches!(*n, "type" | "at" | "id")),
    );
    for name in names {
        let Some(f) = props.get(name) else { continue };
        let path = format!("{prefix}{name}");
        let rule = f.get("description").and_then(Value::as_str).unwrap_or("");
        let rule = paragraphs(rule).join(" ");
        let req = if required.contains(&name) {
            "yes"
        } else {
            "no"
        };
        rows.push([path.clone(), type_of(f), req.into(), range_of(f), rule]);
        let (inner, suffix) = element(f);
        fields(&format!("{path}{suffix}."), inner, rows);
    }
}

/// The object inside `s` whose fields are listed under it, with the path
/// suffix to them: `s` itself, or its items (`[]`, `[][]`), past a `null`
/// alternative.
fn element(s: &Value) -> (&Value, String) {
    let s = non_null(s);
    match s.get("items") {
        Some(items) => {
            let (inner, suffix) = element(items);
            (inner, format!("[]{suffix}"))
        }
        None => (s, String::new()),
    }
}

/// `s` without a `null` alternative (`anyOf: [X, {type: null}]` → X).
fn non_null(s: &Value) -> &Value {
    let alts = s.get("anyOf").and_then(Value::as_array);
    let not_null = |a: &&Value| a.get("type") != Some(&Value::String("null".into()));
    match alts.map(|a| a.iter().filter(not_null).collect::<Vec<_>>()) {
        Some(v) if v.len() == 1 => v[0],
        _ => s,
    }
}

/// A field's JSON type, in words.
fn type_of(s: &Value) -> String {
    let nullable = |t: String| {
        let alts = s.get("anyOf").and_then(Value::as_array);
        let null_alt =
            alts.is_some_and(|a| a.iter().any(|x| x.get("type") == Some(&"null".into())));
        let types = s.get("type").and_then(Value::as_array);
        let null_type = types.is_some_and(|a| a.contains(&"null".into()));
        match null_alt || null_type {
            true => format!("{t} or null"),
            false => t,
        }
    };
    let inner = non_null(s);
    if let Some(c) = inner.get("const") {
        return c.to_string();
    }
    if let Some(title) = inner.get("title").and_then(Value::as_str) {
        return nullable(title.to_string());
    }
    let consts: Option<Vec<String>> = match (inner.get("enum"), inner.get("oneOf")) {
        (Some(Value::Array(e)), _) => Some(e.iter().map(Value::to_string).collect()),
        (_, Some(Value::Array(alts))) => alts
            .iter()
            .map(|a| Some(a.get("const")?.to_string()))
            .collect(),
        _ => None,
    };
    if let Some(c) = consts {
        return nullable(c.join(" | "));
    }
    let basic: Vec<&str> = match inner.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => vec!["any"],
    };
    let words: Vec<String> = basic
        .iter()
        .map(|t| match (*t, inner.get("items")) {
            ("array", Some(items)) => format!("array of {}", type_of(items)),
            (t, _) => t.to_string(),
        })
        .collect();
    nullable(words.join(" or "))
}

/// A field's range: its bounds, its number of items, its pattern.
fn range_of(s: &Value) -> String {
    let s = non_null(s);
    let num = |k: &str| s.get(k).and_then(Value::as_i64);
    let mut parts = Vec::new();
    let bounds = |lo: Option<i64>, hi: Option<i64>, unit: &str| match (lo, hi) {
        (Some(a), Some(b)) if a == b => Some(format!("{a}{unit}")),
        (Some(a), Some(b)) => Some(format!("{a} to {b}{unit}")),
        (Some(a), None) => Some(format!(">= {a}{unit}")),
        (None, Some(b)) => Some(format!("<= {b}{unit}")),
        (None, None) => None,
    };
    let titled = s.get("title").is_some();
    if !titled {
        parts.extend(bounds(num("minimum"), num("maximum"), ""));
    }
    parts.extend(bounds(num("minItems"), num("maxItems"), " items"));
    if let Some(items) = s.get("items").map(non_null) {
        if items.get("title").is_none() {
            let each = bounds(
                items.get("minimum").and_then(Value::as_i64),
                items.get("maximum").and_then(Value::as_i64),
                "",
            );
            parts.extend(each.map(|b| format!("each {b}")));
        }
    }
    if let (false, Some(p)) = (titled, s.get("pattern").and_then(Value::as_str)) {
        parts.push(format!("matches {p}"));
    }
    parts.join("; ")
}

/// Rows as aligned columns (the last one unpadded).
fn columns(rows: &[[String; 5]]) -> String {
    let mut widths = [0usize; 5];
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::from("  ");
        for (i, c) in r.iter().enumerate() {
            match i {
                4 => line.push_str(c),
                _ => {
                    let _ = write!(line, "{c:<w$}  ", w = widths[i]);
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `text` folded into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut len = 0;
    for word in text.split_whitespace() {
        if len > 0 && len + 1 + word.len() > width {
            out.push('\n');
            len = 0;
        } else if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(word);
        len += word.len();
    }
    out
}

/// A type's example: its first event in the bundled samples.
struct Example {
    file: &'static str,
    /// Its line in `file` (1-based); one past the end for an example that
    /// follows the whole file.
    line: usize,
    text: String,
    /// The types of the lines before it in `file`, with their counts.
    before: BTreeMap<String, usize>,
}

impl Example {
    /// What the example needs first, in words.
    fn setup(&self) -> String {
        if self.line == 1 {
            return "appends as is on an empty ledger".into();
        }
        let kinds: Vec<String> = self
            .before
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let lines = match self.line {
            2 => "line 1".to_string(),
            n => format!("lines 1-{}", n - 1),
        };
        format!(
            "appends as is after {lines} of events/{}: {}",
            self.file,
            kinds.join(", ")
        )
    }
}

/// The `type` of a sample line.
fn kind_of(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).ok()?;
    Some(v.get("type")?.as_str()?.to_string())
}

/// The first event of type `kind` in the bundled samples, else the
/// system's own example of it, which follows a whole sample file.
fn example(kind: &str) -> Option<Example> {
    let bundled = crate::demo::BUNDLED.iter().copied();
    for (file, contents) in bundled.clone() {
        if let Some(e) = find(kind, file, contents.lines()) {
            return Some(e);
        }
    }
    let mut own = crate::systems::examples().chain(crate::events::ledger::EXAMPLES.iter().copied());
    let (after, text) = own.find(|(_, l)| kind_of(l).as_deref() == Some(kind))?;
    let (file, contents) = bundled.into_iter().find(|(f, _)| *f == after)?;
    find(kind, file, contents.lines().chain([text]))
}

/// The first line of type `kind` among `lines` (of sample `file`), with the
/// types of the lines before it.
fn find<'a>(
    kind: &str,
    file: &'static str,
    lines: impl Iterator<Item = &'a str>,
) -> Option<Example> {
    let mut before = BTreeMap::new();
    for (i, text) in lines.enumerate() {
        let Some(k) = kind_of(text) else { continue };
        if k == kind {
            return Some(Example {
                file,
                line: i + 1,
                text: text.to_string(),
                before,
            });
        }
        *before.entry(k).or_default() += 1;
    }
    None
}

/// `s` (an event's schema) with its example under `examples`.
fn add_example(kind: &str, s: &mut Value) {
    let parsed = example(kind).and_then(|e| serde_json::from_str::<Value>(&e.text).ok());
    if let (Some(v), Value::Object(m)) = (parsed, s) {
        m.insert("examples".into(), Value::Array(vec![v]));
    }
}

/// The line schema with every type's example in its `$defs` entry.
fn with_examples(mut s: Value) -> Value {
    if let Some(Value::Object(defs)) = s.get_mut("$defs") {
        for (kind, def) in defs.iter_mut() {
            add_example(kind, def);
        }
    }
    s
}
