//! `laurel events [TYPE] [--format json]`: the event vocabulary, printed from
//! the definitions that validate events. Every type is listed with a meaning;
//! every type's example appends as is after the setup it names; every line of
//! the bundled streams validates against the printed JSON Schema, and corpus
//! lines whose fields have the wrong JSON type do not.

use crate::common;

use std::path::Path;

use common::{append_text, empty_ledger, events_dir, laurel};
use laurel::systems::TYPES;
use serde_json::Value;

fn events(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    laurel(dir.path())
        .arg("events")
        .args(args)
        .output()
        .expect("ran")
}

fn text(args: &[&str]) -> String {
    let out = events(args);
    assert!(
        out.status.success(),
        "laurel events {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn schema(args: &[&str]) -> Value {
    let mut full = args.to_vec();
    full.extend(["--format", "json"]);
    serde_json::from_str(&text(&full)).expect("JSON Schema")
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).expect("a valid 2020-12 schema")
}

#[test]
fn every_type_is_listed_with_its_meaning() {
    let out = text(&[]);
    for kind in TYPES {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(kind))
            .unwrap_or_else(|| panic!("{kind} not listed:\n{out}"));
        assert!(line.len() > kind.len() + 10, "{kind}: no meaning: {line:?}");
    }
    assert!(out.starts_with("Every event is one JSON object"), "{out}");
    // A namespace lists its own types only.
    let cards = text(&["cards"]);
    let listed: Vec<&str> = cards
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| TYPES.contains(w))
        .collect();
    assert_eq!(
        listed,
        [
            "cards.tournament_created",
            "cards.round_scheduled",
            "cards.match_result"
        ]
    );
}

/// The example of `kind` and the setup it names: (setup lines, example line).
fn example_of(kind: &str) -> (String, String) {
    let out = text(&[kind]);
    let mut lines = out.lines();
    let head = lines
        .by_ref()
        .find(|l| l.starts_with("Example ("))
        .unwrap_or_else(|| panic!("{kind}: no example:\n{out}"));
    let example = lines.next().unwrap().to_string();
    let setup = match head.split_once(" of events/") {
        None => {
            assert!(head.contains("on an empty ledger"), "{head}");
            String::new()
        }
        Some((before, after)) => {
            let file = after.split(':').next().unwrap();
            let last: usize = match before.rsplit_once("lines 1-") {
                Some((_, n)) => n.parse().unwrap(),
                None => 1,
            };
            let all = std::fs::read_to_string(events_dir().join(file)).unwrap();
            all.lines().take(last).collect::<Vec<_>>().join("\n")
        }
    };
    (setup, example)
}

#[test]
fn every_types_example_appends_as_is_after_the_setup_it_names() {
    for kind in TYPES {
        let (setup, example) = example_of(kind);
        let v: Value = serde_json::from_str(&example).unwrap();
        assert_eq!(v["type"], *kind, "{example}");
        let dir = empty_ledger();
        if !setup.is_empty() {
            let out = append_text(dir.path(), &setup);
            assert!(out.status.success(), "{kind} setup: {out:?}");
        }
        let out = append_text(dir.path(), &example);
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{kind}: {out:?}");
        assert!(said.starts_with("appended 1 event(s)"), "{kind}: {said}");
    }
}

fn bundled_lines() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(events_dir()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        for (i, line) in std::fs::read_to_string(&p).unwrap().lines().enumerate() {
            if !line.trim().is_empty() {
                let v = serde_json::from_str(line).unwrap();
                out.push((format!("{name}:{}", i + 1), v));
            }
        }
    }
    out
}

#[test]
fn every_bundled_line_validates_against_the_printed_schemas() {
    let line_schema = validator(&schema(&[]));
    let lines = bundled_lines();
    assert!(lines.len() > 150, "{} lines", lines.len());
    for (at, v) in &lines {
        let errors: Vec<String> = line_schema.iter_errors(v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{at}: {errors:?}");
    }
    // Each type's own schema takes that type's lines and its example.
    for kind in TYPES {
        let s = schema(&[kind]);
        let one = validator(&s);
        let of_kind = lines.iter().filter(|(_, v)| v["type"] == *kind);
        for (at, v) in of_kind {
            assert!(one.is_valid(v), "{at} against {kind}'s schema");
        }
        let example = &s["examples"][0];
        assert!(one.is_valid(example), "{kind}: its example");
    }
}

/// Corpus cases whose refused line has a field of the wrong JSON type (or a
/// missing or unknown one): the schema refuses that line too.
const WRONG_SHAPES: &[&str] = &[
    "envelope_at_array",
    "envelope_at_boolean",
    "envelope_at_integer",
    "envelope_at_null",
    "envelope_id_array",
    "envelope_id_boolean",
    "envelope_id_empty",
    "envelope_id_object",
    "envelope_type_boolean",
    "envelope_type_integer",
    "envelope_missing_type",
    "envelope_missing_at",
    "envelope_missing_payload_field",
    "envelope_unknown_field",
    "envelope_unknown_field_nested",
    "envelope_unknown_type",
    "payload_array_expected",
    "payload_empty_identifier",
    "payload_integer_as_string",
    "payload_negative_identifier",
    "payload_null_for_required_field",
    "payload_string_as_integer",
    "payload_unknown_enum_value",
    "ledger_voided_target_as_string",
    "ledger_voided_missing_reason",
];

#[test]
fn corpus_lines_with_fields_of_the_wrong_shape_fail_the_schema() {
    let line_schema = validator(&schema(&[]));
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    for name in WRONG_SHAPES {
        let expect = std::fs::read_to_string(corpus.join(format!("{name}.expect"))).unwrap();
        let n: usize = expect.lines().next().unwrap()[5..].trim().parse().unwrap();
        let file = std::fs::read_to_string(corpus.join(format!("{name}.jsonl"))).unwrap();
        let lines: Vec<&str> = file.lines().collect();
        let bad: Value = serde_json::from_str(lines[n - 1]).unwrap();
        assert!(
            !line_schema.is_valid(&bad),
            "{name}: line {n} passes the schema"
        );
        for good in &lines[..n - 1] {
            let v: Value = serde_json::from_str(good).unwrap();
            assert!(line_schema.is_valid(&v), "{name}: {good} fails the schema");
        }
    }
}

#[test]
fn a_types_fields_show_type_required_range_and_rule_from_the_definitions() {
    let out = text(&["cards.match_result"]);
    let row = |field: &str| {
        let l = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(field));
        l.unwrap_or_else(|| panic!("no {field} row:\n{out}"))
            .to_string()
    };
    let score = laurel::systems::cards::events::SCORE;
    let range = format!("{} to {}", score.min, score.max);
    let s = row("scores[].score");
    let words: Vec<&str> = s.split_whitespace().collect();
    assert_eq!(&words[1..3], ["integer", "yes"], "{s}");
    assert!(s.contains(&range) && s.contains("An even number"), "{s}");
    assert!(row("id").contains(" no "), "{out}");
    assert!(row("match").contains(" yes "), "{out}");
    assert!(out.contains("Rules:\n") && out.contains("Scores are even and sum to zero."));
    // An optional field, a nested array, a range of items.
    let cfr = text(&["cfr.series_defined"]);
    let fp = cfr
        .lines()
        .find(|l| l.trim_start().starts_with("final_points"))
        .unwrap();
    assert!(
        fp.contains(" no ") && fp.contains("1 to 100 items; each 0 to 1000000"),
        "{fp}"
    );
}

#[test]
fn an_unknown_type_exits_2_with_the_nearest_one() {
    let out = events(&["cards.match_reslt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            r#"unknown event type "cards.match_reslt"; did you mean "cards.match_result"?"#
        ),
        "{err}"
    );
    let out = events(&["zzz", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("did you mean"));
}

#[test]
fn an_appended_event_of_an_unknown_type_is_told_the_nearest_type_before_any_field() {
    let dir = empty_ledger();
    for (line, want) in [
        (
            r#"{"type":"cfr.event_complete"}"#,
            r#"-:1: unknown event type "cfr.event_complete"; did you mean "cfr.event_completed"? (`laurel events` lists every type)"#,
        ),
        (
            r#"{"type":"bogus"}"#,
            r#"-:1: unknown event type "bogus" (`laurel events` lists every type)"#,
        ),
    ] {
        let out = append_text(dir.path(), line);
        assert_eq!(out.status.code(), Some(2), "{line}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{err}");
    }
}
