//! The JSON Schema (2020-12) of events, generated from the definitions that
//! validate them: each payload struct's schema is derived by schemars from
//! the struct itself (serde's renames, defaults and `deny_unknown_fields`;
//! its `///` docs as descriptions; ranges from the [`super::Bounds`]
//! constants and length limits through `#[schemars(...)]`), and the envelope
//! (`type`, `at`, `id`) is added here. `laurel events` prints these schemas,
//! and renders its text from them, so a field added to a payload struct with
//! a `///` line shows in both.
//!
//! A schema says what a line must look like; the rules that need the
//! ledger's state (a match scheduled before its result) or more than one
//! field (scores summing to zero) are the struct's doc, one rule a
//! paragraph, and are checked by the system's `check`.
//!
//! Subschemas are inlined (no `$defs` per payload), so two namespaces may
//! name their structs alike (`GameEnded`) without clashing; the schema of
//! one event line ([`line_schema`]) keeps one `$defs` entry per event type.

use schemars::generate::SchemaSettings;
use schemars::SchemaGenerator;
use serde_json::{json, Map, Value};

use super::{Vocabulary, MAX_STRING};

/// The dialect every schema declares.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// What a date or timestamp starts with (`YYYY-MM-DD`); laurel's own parser
/// decides the rest (RFC 3339 after the date, or nothing).
pub const DATE_PATTERN: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}";

/// What holds for every event, whatever its type.
pub fn envelope() -> String {
    format!(
        "Every event is one JSON object: `type`, `at` (when it happened), an optional \
         `id`, and the payload fields of its type; unknown fields are refused. Numbers \
         are integers (fractions are decimal strings such as \"0.5\"); strings are \
         printable and at most {MAX_STRING} bytes."
    )
}

const TYPE_DOC: &str = "The event type.";
const AT_DOC: &str = "When it happened: a date (YYYY-MM-DD, midnight UTC) or an RFC 3339 \
    timestamp, not after the time it is recorded (up to 14 hours ahead, for a date east of \
    UTC). Events fold in the order of `at`, then of recording.";
const ID_DOC: &str = "Optional idempotency key, unique in the ledger: the same event \
    appended again is skipped, other content under a recorded id is refused. Not empty, \
    no whitespace at either end, something that shows.";

/// The generator's settings: 2020-12, every subschema inlined.
fn generator() -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    SchemaGenerator::new(settings)
}

/// The payload schema of event type `kind` as schemars derives it; `None`
/// for an unknown type.
fn payload_schema<E: Vocabulary>(kind: &str) -> Option<Map<String, Value>> {
    let (ns, name) = kind.split_once('.')?;
    let mut generator = generator();
    let schema = match ns {
        "ledger" => super::ledger::schema(name, &mut generator),
        _ => E::schema(ns, name, &mut generator),
    }?;
    match schema.to_value() {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The schema of one event of type `kind`: the envelope's fields and the
/// payload's, every field not given refused. `None` for an unknown type.
pub fn event_schema<E: Vocabulary>(kind: &str) -> Option<Value> {
    let mut s = payload_schema::<E>(kind)?;
    s.remove("$schema");
    s.remove("title");
    let mut props = match s.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    props.insert(
        "type".into(),
        json!({"const": kind, "description": TYPE_DOC}),
    );
    props.insert(
        "at".into(),
        json!({"title": "date", "type": "string", "pattern": DATE_PATTERN, "description": AT_DOC}),
    );
    let id = json!({"title": "string", "type": ["string", "null"], "minLength": 1, "description": ID_DOC});
    props.insert("id".into(), id);
    let mut required = vec![json!("type"), json!("at")];
    if let Some(Value::Array(r)) = s.remove("required") {
        required.extend(r);
    }
    let mut out = Map::new();
    out.insert("$schema".into(), json!(DIALECT));
    out.insert("title".into(), json!(kind));
    out.extend(s);
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    out.insert("required".into(), Value::Array(required));
    out.insert("additionalProperties".into(), json!(false));
    Some(Value::Object(out))
}

/// The schema of one event line of any type: the envelope, then one of the
/// event types' schemas (in `$defs`, by type).
pub fn line_schema<E: Vocabulary>() -> Value {
    let mut defs = Map::new();
    for kind in E::TYPES {
        let mut s = event_schema::<E>(kind).expect("every type has a schema");
        if let Value::Object(m) = &mut s {
            m.remove("$schema");
        }
        defs.insert(kind.to_string(), s);
    }
    let refs: Vec<Value> = E::TYPES
        .iter()
        .map(|k| json!({"$ref": format!("#/$defs/{k}")}))
        .collect();
    json!({
        "$schema": DIALECT,
        "title": "laurel event",
        "description": envelope(),
        "type": "object",
        "required": ["type", "at"],
        "properties": {"type": {"enum": E::TYPES, "description": TYPE_DOC}},
        "oneOf": refs,
        "$defs": defs,
    })
}

/// The one-line meaning of event type `kind`: the first paragraph of its
/// payload struct's doc. `None` for an unknown type.
pub fn meaning<E: Vocabulary>(kind: &str) -> Option<String> {
    let s = payload_schema::<E>(kind)?;
    let doc = s.get("description").and_then(Value::as_str).unwrap_or("");
    Some(paragraphs(doc).into_iter().next().unwrap_or_default())
}

/// A doc's paragraphs, each on one line.
pub fn paragraphs(doc: &str) -> Vec<String> {
    doc.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect()
}
