//! The output formats pinned on small tables: text alignment, CSV quoting, JSON shape.

use super::*;
use serde_json::{json, Map};

fn render_text(t: &Table) -> String {
    to_string(|w| write_text(t, w))
}

fn render_csv(t: &Table) -> String {
    to_string(|w| write_csv(t, w))
}

/// The JSON object of a query as a `Value`.
fn report_json(r: &Report, stamp: &Stamp) -> Value {
    let mut obj = Map::new();
    obj.insert("system".into(), r.system.clone().into());
    obj.insert(
        "as_of".into(),
        stamp.as_of.clone().map_or(Value::Null, Value::from),
    );
    obj.insert("known_at".into(), stamp.known_at.into());
    if let Some((first, last)) = stamp.inside_append {
        obj.insert(
            "known_at_inside_append".into(),
            json!({"first": first, "last": last}),
        );
    }
    obj.insert("head".into(), stamp.head.clone().into());
    if let Some(tournament) = &stamp.tournament {
        obj.insert("tournament".into(), tournament.clone().into());
    }
    if let Some(rules) = &stamp.rules {
        obj.insert("rules".into(), rules.clone().into());
    }
    if !stamp.rules_over.is_empty() {
        obj.insert("rules_over_changes".into(), json!(stamp.rules_over));
    }
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
        rules: None,
        tournament: None,
        inside_append: None,
        rules_over: Vec::new(),
    };
    assert_eq!(render_csv(&t), "rank,player,score\r\n1,\"Ann, B\",1771\r\n");
    // Text shows the columns' titles (Valar's score is its rating); CSV the keys.
    assert!(render_text(&t).contains("Rank  Player  Rating\n   1  Ann, B    1771\n"));
    let j = report_json(&r, &stamp);
    assert_eq!(j["rows"][0]["score"], json!(1771));
    assert_eq!(j["known_at"], json!(3));
    assert!(render(&r, &stamp, Format::Json).starts_with('{'));
}

#[test]
fn a_cell_wider_than_format_widths_allow_is_padded_whole() {
    let long = "x".repeat(70_000);
    let mut t = Table::new("history", "History", &["seq", "formula"]);
    t.push(vec![json!(1), json!(long)]);
    t.push(vec![json!(22), json!("short")]);
    let text = render_text(&t);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].ends_with(&long), "{}", &lines[2][..40]);
    assert_eq!(lines[3], "    22  short");
    assert!(
        lines[1].starts_with("Record  Formula"),
        "{}",
        lines[1].trim_end()
    );
}

/// A name of wide characters (two terminal columns each) or with a
/// combining mark (none) is padded by the columns it takes, so the
/// next column starts at one place on every line.
#[test]
fn names_of_any_script_line_up_by_the_columns_they_take() {
    let mut t = Table::new("valar", "Valar", &["player", "score"]);
    for name in ["Ann", "名字", "Zoe\u{301}", "🎲 Dice"] {
        t.push(vec![json!(name), json!(1700)]);
    }
    let text = render_text(&t);
    // The header and each row end with the right-aligned score column.
    let ends: Vec<usize> = text.lines().skip(1).map(shown_width).collect();
    assert_eq!(ends, [15; 5], "{text}");
}

#[test]
fn an_unchanged_table_prints_its_title_and_reason_or_a_json_object_without_rows() {
    let t = Table::new("cfr", "cfr: diff", &["player", "score"]);
    let stamp = Stamp {
        as_of: None,
        known_at: 7,
        head: "ab".into(),
        rules: None,
        tournament: None,
        inside_append: None,
        rules_over: Vec::new(),
    };
    let r = Report {
        system: "valar".into(),
        main: Table::new("valar", "Valar", &["player"]),
        extra: vec![],
    };
    let json = to_string(|w| {
        let mut many = Many::new(w, &stamp, Format::Json);
        many.write(&r)?;
        many.unchanged(&t, "no cfr parameter")?;
        many.finish()
    });
    let want = json!({
        "as_of": null, "head": "ab", "known_at": 7,
        "tables": [
            {"as_of": null, "head": "ab", "known_at": 7, "rows": [], "system": "valar"},
            {"as_of": null, "head": "ab", "known_at": 7, "rows": [], "system": "cfr", "unchanged": true},
        ],
    });
    assert_eq!(json, serde_json::to_string_pretty(&want).unwrap() + "\n");
    let text =
        to_string(|w| write_unchanged(w, &t, "no cfr parameter", &stamp, (Format::Table, 0)));
    assert_eq!(text, "cfr: diff\nunchanged: no cfr parameter\n");
    let csv = to_string(|w| write_unchanged(w, &t, "", &stamp, (Format::Csv, 0)));
    assert_eq!(csv, "player,score\r\n");
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
    let clocks = [
        (None, None),
        (Some("2020-01-01".to_string()), None),
        (None, Some("what \"if\".json".to_string())),
    ];
    for (as_of, rules) in clocks {
        // A tournament asked for, with the date.
        let tournament = as_of.as_ref().map(|_| "league \"1\"".to_string());
        // A known-at inside an append, with the rules file.
        let inside_append = rules.as_ref().map(|_| (4, u64::MAX));
        let rules_over = rules.iter().map(|_| "valar.base".to_string()).collect();
        let stamp = Stamp {
            as_of,
            known_at: u64::MAX,
            head: "ab".into(),
            rules,
            tournament,
            inside_append,
            rules_over,
        };
        for r in &reports {
            let want = serde_json::to_string_pretty(&report_json(r, &stamp)).unwrap() + "\n";
            assert_eq!(render(r, &stamp, Format::Json), want);
        }
        // Several reports: each is the pretty JSON of its value nested
        // in the `tables` array.
        for n in 0..=reports.len() {
            let all: Vec<Value> = reports[..n]
                .iter()
                .map(|r| report_json(r, &stamp))
                .collect();
            let mut want = json!({
                "as_of": stamp.as_of,
                "head": stamp.head,
                "known_at": stamp.known_at,
                "tables": all,
            });
            if let Some(rules) = &stamp.rules {
                want["rules"] = json!(rules);
            }
            if !stamp.rules_over.is_empty() {
                want["rules_over_changes"] = json!(stamp.rules_over);
            }
            let want = serde_json::to_string_pretty(&want).unwrap() + "\n";
            let got = to_string(|w| {
                let mut many = Many::new(w, &stamp, Format::Json);
                for r in &reports[..n] {
                    many.write(r)?;
                }
                many.finish()
            });
            assert_eq!(got, want);
        }
    }
}
