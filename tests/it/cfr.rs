//! CFR driver rankings through the built binary: the worked examples,
//! the window of the last 3 events, the few-events factors, the tie-breaks and
//! every validation rule.

use crate::common;

use std::path::Path;

use assert_cmd::Command;
use common::{append_text, head, laurel, ledger_with, row, standings};
use serde_json::{json, Value};

const ALL: &[&str] = &["cfr_pbem.jsonl", "cfr_wbc.jsonl", "cfr_wbc_pbem.jsonl"];

/// The row of `events` for one driver at one event.
fn event_row<'a>(v: &'a Value, series: &str, event: &str, driver: &str) -> &'a Value {
    v["tables"]["events"]
        .as_array()
        .and_then(|rows| {
            rows.iter()
                .find(|r| r["series"] == series && r["event"] == event && r["player"] == driver)
        })
        .unwrap_or_else(|| panic!("no event row {series}/{event} {driver}"))
}

fn players(v: &Value) -> Vec<String> {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["player"].as_str().expect("player").to_string())
        .collect()
}

#[test]
fn wbc_2012_heat_win_dnf_and_final_win_scores_80() {
    let dir = ledger_with(&["cfr_wbc.jsonl"]);
    let v = standings(dir.path(), &["cfr"]);
    let r = event_row(&v, "wbc", "2012", "Bruce Rae");
    assert_eq!(r["points"], json!(150.0));
    assert_eq!(r["perfect"], json!(187.5));
    assert_eq!(r["score"], json!(80.0));
    assert_eq!(r["finish"], json!("1st final"));
}

#[test]
fn a_heat_second_and_nothing_else_scores_16() {
    let dir = ledger_with(&["cfr_wbc.jsonl"]);
    let v = standings(dir.path(), &["cfr"]);
    let r = event_row(&v, "wbc", "2011", "Bruce Rae");
    assert_eq!(
        (r["points"].clone(), r["score"].clone()),
        (json!(30.0), json!(16.0))
    );
}

#[test]
fn turyko_suky_scores_40_halved_to_20_as_his_only_event() {
    let dir = ledger_with(&["cfr_wbc_pbem.jsonl"]);
    let v = standings(dir.path(), &["cfr"]);
    let e = event_row(&v, "wbc-pbem", "2012", "Turyko Suky");
    assert_eq!(e["points"], json!(70.0));
    assert_eq!(e["perfect"], json!(175.0));
    assert_eq!(e["score"], json!(40.0));
    let r = row(&v, "Turyko Suky");
    assert_eq!(r["score"], json!(20.0));
    assert_eq!(r["mean"], json!(40.0));
    assert_eq!(r["factor"], json!(0.5));
    assert_eq!(r["events"], json!(1));
}

/// Turyko Suky's WBC PBeM as a historic result where only the top finishers
/// are known: heat 2 lists its 1st, 2nd and his 7th, the final its 1st, 2nd
/// and his 5th.
#[test]
fn places_with_gaps_score_by_the_place_given() {
    let dir = common::empty_ledger();
    let d = dir.path();
    let text = r#"{"type":"cfr.series_defined","at":"2012-03-01","series":"wbc-pbem","format":"elimination"}
{"type":"cfr.event_completed","at":"2012-12-15","series":"wbc-pbem","event":"2012","heats":[[{"driver":"Turyko Suky","place":1},{"driver":"Hank Ruiz","place":2}],[{"driver":"Ivy Stone","place":1},{"driver":"Kim Voss","place":2},{"driver":"Turyko Suky","place":7}]],"final":[{"driver":"Ivy Stone","place":1},{"driver":"Hank Ruiz","place":2},{"driver":"Turyko Suky","place":5}]}
{"type":"cfr.series_defined","at":"2012-03-01","series":"pbem","format":"points"}
{"type":"cfr.event_completed","at":"2012-12-20","series":"pbem","event":"2012","races":[{"tier":1,"results":[{"driver":"Al","place":1},{"driver":"Bo","place":2},{"driver":"Cy","place":5}]}]}
"#;
    let out = append_text(d, text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = standings(d, &["cfr"]);
    // The gaps change nothing: a place earns its table's points as given.
    // Heats 50 (his win) + 0.5 * 0 (a 7th earns no heat points), final 5th 20:
    // 70 of a perfect 100 + 50 + 25 = 175 → 40, as with every place known;
    // his only event: 20.
    let e = event_row(&v, "wbc-pbem", "2012", "Turyko Suky");
    assert_eq!(
        (
            e["points"].clone(),
            e["perfect"].clone(),
            e["score"].clone()
        ),
        (json!(70.0), json!(175.0), json!(40.0))
    );
    assert_eq!(row(&v, "Turyko Suky")["score"], json!(20.0));
    // Hank Ruiz: heat 2nd 30, final 2nd 60: 90 / 175 = 51.428… → 51.43.
    assert_eq!(
        event_row(&v, "wbc-pbem", "2012", "Hank Ruiz")["score"],
        json!(51.43)
    );
    // A points race listing 1st, 2nd and 5th: Cy's 5th earns race_points[4]
    // = 20 of a perfect 100 → 20; halved as his only event → 10.
    let cy = event_row(&v, "pbem", "2012", "Cy");
    assert_eq!(
        (cy["points"].clone(), cy["score"].clone()),
        (json!(20.0), json!(20.0))
    );
    assert_eq!(row(&v, "Cy")["score"], json!(10.0));
    assert_eq!(cy["finish"], json!("5th race"));
}

#[test]
fn the_documented_points_table_gives_bruce_31_88() {
    // race_points [160, 120, 88, ...]: 3rd 88 + 5th 45 + 8th 20 = 153 of 3 * 160
    let dir = ledger_with(&["cfr_pbem.jsonl"]);
    let v = standings(dir.path(), &["cfr"]);
    let e = event_row(&v, "cfr-pbem", "2012", "Bruce Rae");
    assert_eq!(e["points"], json!(153.0));
    assert_eq!(e["perfect"], json!(480.0));
    assert_eq!(e["score"], json!(31.88));
    // a tier-2 win shows as a 2nd (Grant Guillard, as in the published rankings)
    assert_eq!(row(&v, "Grant Guillard")["best_finish"], json!("2nd race"));
    let g = event_row(&v, "cfr-pbem", "2012", "Grant Guillard");
    assert_eq!(g["points"], json!(328.0)); // 120 + 120 + 88
}

#[test]
fn bruce_rae_80_16_0_0_31_88_averages_25_58() {
    let dir = ledger_with(ALL);
    let v = standings(dir.path(), &["cfr"]);
    let r = row(&v, "Bruce Rae");
    assert_eq!(r["score"], json!(25.58));
    assert_eq!(r["mean"], json!(25.576));
    assert_eq!(r["events"], json!(5));
    assert_eq!(r["best_event"], json!(80.0));
    assert_eq!(
        r["scores"],
        json!([
            {"event": "wbc/2010", "score": 0.0},
            {"event": "wbc/2011", "score": 16.0},
            {"event": "wbc/2012", "score": 80.0},
            {"event": "wbc-pbem/2012", "score": 0.0},
            {"event": "cfr-pbem/2012", "score": 31.88}
        ])
    );
}

#[test]
fn a_series_with_four_events_counts_only_the_newest_three() {
    let dir = ledger_with(&["cfr_wbc.jsonl"]);
    let v = standings(dir.path(), &["cfr"]);
    let s = &v["tables"]["series"][0];
    assert_eq!(
        (s["events"].clone(), s["counted"].clone()),
        (json!(4), json!(3))
    );
    assert_eq!(s["window"], json!(["2010", "2011", "2012"]));
    assert_eq!(
        event_row(&v, "wbc", "2009", "Bruce Rae")["counted"],
        json!(false)
    );
    assert_eq!(
        event_row(&v, "wbc", "2010", "Bruce Rae")["counted"],
        json!(true)
    );
    // Bruce's 48 of 2009 is out: (0 + 16 + 80) / 3 = 32
    assert_eq!(row(&v, "Bruce Rae")["score"], json!(32.0));
    assert_eq!(row(&v, "Bruce Rae")["events"], json!(3));
}

#[test]
fn the_window_moves_back_with_as_of() {
    let dir = ledger_with(ALL);
    let v = standings(dir.path(), &["cfr", "--as-of", "2011-12-31"]);
    let wbc = v["tables"]["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["series"] == "wbc")
        .unwrap()
        .clone();
    assert_eq!(wbc["window"], json!(["2009", "2010", "2011"]));
    // the PBeM series are not yet defined then
    assert_eq!(v["tables"]["series"].as_array().unwrap().len(), 1);
    // (48 + 0 + 16) / 3 = 21.333
    assert_eq!(row(&v, "Bruce Rae")["score"], json!(21.33));
    assert_eq!(
        row(&v, "Bruce Rae")["scores"],
        json!([
            {"event": "wbc/2009", "score": 48.0},
            {"event": "wbc/2010", "score": 0.0},
            {"event": "wbc/2011", "score": 16.0}
        ])
    );
}

#[test]
fn a_driver_with_two_events_loses_25_percent() {
    let dir = ledger_with(ALL);
    let v = standings(dir.path(), &["cfr"]);
    let r = row(&v, "Grant Guillard");
    // (56 + 68.33) / 2 = 62.165; * 0.75 = 46.62375
    assert_eq!(r["events"], json!(2));
    assert_eq!(r["mean"], json!(62.165));
    assert_eq!(r["factor"], json!(0.75));
    assert_eq!(r["score"], json!(46.62));
}

/// One-race events of a points series (default table 100, 60, 40, 30, 20, 10)
/// built so that five drivers score 30.00 and differ only by the tie-breaks.
const TIES: &str = r#"
{"type":"cfr.series_defined","id":"cfr-t","at":"2013-01-01","series":"tie","format":"points"}
{"type":"cfr.event_completed","id":"cfr-t1","at":"2013-02-01","series":"tie","event":"e1","races":[{"tier":1,"results":[{"driver":"Eve","place":1},{"driver":"Cat","place":2},{"driver":"Ann","place":3},{"driver":"Bob","place":4},{"driver":"Dan","place":5}]}]}
{"type":"cfr.event_completed","id":"cfr-t2","at":"2013-03-01","series":"tie","event":"e2","races":[{"tier":1,"results":[{"driver":"Eve","place":1},{"driver":"Dan","place":2},{"driver":"Ann","place":3},{"driver":"Bob","place":4},{"driver":"Gus","place":5},{"driver":"Cat","place":6}]}]}
{"type":"cfr.event_completed","id":"cfr-t3","at":"2013-04-01","series":"tie","event":"e3","races":[{"tier":1,"results":[{"driver":"Eve","place":1},{"driver":"Gus","place":2},{"driver":"Fay","place":3},{"driver":"Bob","place":4},{"driver":"Cat","place":5},{"driver":"Dan","place":6}]}]}
"#;

#[test]
fn tied_scores_order_by_more_events_then_best_event_then_name() {
    let dir = common::empty_ledger();
    let out = append_text(dir.path(), TIES);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = standings(dir.path(), &["cfr"]);
    // Cat, Dan: 60+10+20 / 3 (best 60); Bob 30*3 / 3 (best 30);
    // Gus (20+60)/2 * 0.75, Ann (40+40)/2 * 0.75: all 30.00
    assert_eq!(
        players(&v),
        ["Eve", "Cat", "Dan", "Bob", "Gus", "Ann", "Fay"]
    );
    let ranks: Vec<Value> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rank"].clone())
        .collect();
    assert_eq!(ranks, (1..=7).map(|n| json!(n)).collect::<Vec<_>>());
    for name in ["Cat", "Dan", "Bob", "Gus", "Ann"] {
        assert_eq!(row(&v, name)["score"], json!(30.0), "{name}");
    }
    assert_eq!(row(&v, "Fay")["score"], json!(20.0));
    assert_eq!(row(&v, "Eve")["score"], json!(100.0));
}

#[test]
fn history_shows_each_change_with_its_sum() {
    let dir = ledger_with(ALL);
    let v = common::json(dir.path(), &["history", "Bruce Rae", "--format", "json"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0]["old"], Value::Null);
    assert_eq!(rows[0]["new"], json!("24.00"));
    let last = &rows[5];
    assert_eq!(
        (last["old"].clone(), last["new"].clone()),
        (json!("24.00"), json!("25.58"))
    );
    assert_eq!(
        last["formula"],
        json!("cfr-pbem/2012 31.88 = 100 * (88 + 45 + 20) / (3 races * 160) [race 1 3rd, race 2 5th, race 3 8th]; score 25.58 = (0 + 16 + 80 + 0 + 31.88) / 5")
    );
    let f2012 = rows[3]["formula"].as_str().unwrap();
    assert!(
        f2012.starts_with(
            "wbc/2012 80 = 100 * (heats 50 + 0*0.5 [1st, dnf] + final 100 1st) / 187.5"
        ),
        "{f2012}"
    );
    assert!(
        f2012.contains(
            "wbc/2009 left the window (last 3 wbc events); score 32.00 = (0 + 16 + 80) / 3"
        ),
        "{f2012}"
    );
}

#[test]
fn drivers_of_an_event_leaving_the_window_get_a_history_line() {
    let dir = ledger_with(&["cfr_wbc.jsonl"]);
    // Mia Xu: 2009 0, 2010 0, 2011 0, 2012 8 → (0 + 0 + 8) / 3; 2009 leaves.
    let v = common::json(dir.path(), &["history", "Mia Xu", "--format", "json"]);
    let last = v["rows"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["new"], json!("2.67"));
    assert!(last["formula"]
        .as_str()
        .unwrap()
        .contains("wbc/2009 left the window"));
}

#[test]
fn history_lists_the_scores_a_rule_change_moves_and_keeps_them_once_voided() {
    let dir = ledger_with(ALL);
    let change = r#"{"type":"ledger.rules_changed","at":"2013-03-01","system":"cfr","params":{"one_event_factor":"1"}}"#;
    let out = append_text(dir.path(), change);
    assert!(out.status.success());
    let seq = head(dir.path()).0;
    let rows_of = |driver: &str| {
        let v = common::json(dir.path(), &["history", driver, "--format", "json"]);
        v["rows"].as_array().unwrap().clone()
    };
    // Turyko Suky's one event, 40, was halved; from the change on it counts whole.
    let rows = rows_of("Turyko Suky");
    let moved = rows.iter().find(|r| r["seq"] == json!(seq)).expect("a row");
    assert_eq!(
        (&moved["old"], &moved["new"]),
        (&json!("20.00"), &json!("40.00"))
    );
    assert_eq!(
        moved["formula"],
        json!(
            r#"rules changed: cfr {"one_event_factor":"1"}; score 40.00 = (40) / 1 [rules given: cfr.one_event_factor=1]"#
        )
    );
    // Bruce Rae's five events take no factor: nothing moved.
    assert!(rows_of("Bruce Rae").iter().all(|r| r["seq"] != json!(seq)));
    // Shown with three places, 40 is still 40: no row.
    let places = r#"{"type":"ledger.rules_changed","at":"2013-03-02","system":"cfr","params":{"decimals":3}}"#;
    assert!(append_text(dir.path(), places).status.success());
    let rows = rows_of("Turyko Suky");
    assert!(rows.iter().all(|r| r["seq"] != json!(seq + 1)), "{rows:?}");
    let void = laurel(dir.path())
        .args(["void", &seq.to_string(), "--reason", "wrong"])
        .output()
        .unwrap();
    assert!(void.status.success());
    let rows = rows_of("Turyko Suky");
    let moved = rows
        .iter()
        .find(|r| r["seq"] == json!(seq))
        .expect("the voided row");
    assert_eq!(moved["new"], json!("40.00"));
    assert!(moved["voided"]
        .as_str()
        .unwrap()
        .starts_with(&format!("voided by #{}", seq + 2)));
    let now = standings(dir.path(), &["cfr"]);
    assert_eq!(row(&now, "Turyko Suky")["score"], json!(20.0));
}

#[test]
fn rule_parameters_reach_the_ranking() {
    let dir = ledger_with(ALL);
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, r#"{"cfr": {"counted_events": 4}}"#).unwrap();
    let v = standings(dir.path(), &["cfr", "--rules", rules.to_str().unwrap()]);
    // 2009's 48 counts again: (48 + 0 + 16 + 80 + 0 + 31.88) / 6 = 29.313
    assert_eq!(row(&v, "Bruce Rae")["score"], json!(29.31));
    // a rules change from its date on: one-event factor 1 as of 2013
    let out = append_text(
        dir.path(),
        r#"{"type":"ledger.rules_changed","id":"cfr-rules-2013","at":"2013-03-01","system":"cfr","params":{"one_event_factor":"1"}}"#,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = standings(dir.path(), &["cfr"]);
    assert_eq!(row(&v, "Turyko Suky")["score"], json!(40.0));
    let before = standings(dir.path(), &["cfr", "--as-of", "2013-02-28"]);
    assert_eq!(row(&before, "Turyko Suky")["score"], json!(20.0));
}

#[test]
fn table_and_csv_formats_show_the_ranking() {
    let dir = ledger_with(ALL);
    let out = laurel(dir.path())
        .args(["standings", "cfr"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Bruce Rae") && text.contains("25.58"),
        "{text}"
    );
    // Scores are shown with two decimals, whole ones too.
    assert!(text.contains("wbc/2011: 80.00;"), "{text}");
    let out = laurel(dir.path())
        .args(["standings", "cfr", "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        csv.starts_with("rank,player,score,events,mean,factor,best_event,best_finish,scores\r\n"),
        "{csv}"
    );
    assert!(
        csv.contains("7,Bruce Rae,25.58,5,25.5760,1.00,80.00,1st final,"),
        "{csv}"
    );
    // One table: the ranking (the events and series tables with --table).
    assert!(!csv.contains("series,format"), "{csv}");
}

/// With `decimals` 3 from a rules file, every score of the ranking and of
/// the events table shows three places, whole ones too, and the mean of
/// the scores two more; the answer says it is a what-if, in text and JSON,
/// but not a table of a system the file sets nothing of.
#[test]
fn scores_show_the_decimals_in_force_and_a_rules_file_marks_a_what_if() {
    let dir = ledger_with(ALL);
    let rules = dir.path().join("three.json");
    std::fs::write(&rules, r#"{"cfr": {"decimals": 3}}"#).unwrap();
    let rules = rules.to_str().unwrap();
    let text = |args: &[&str]| common::ok(dir.path(), args);
    let ranking = text(&["standings", "cfr", "--rules", rules]);
    let first = ranking.lines().next().unwrap();
    assert!(
        first.ends_with(&format!(" · what-if: rules of {rules}, not the ledger's")),
        "{first}"
    );
    let bruce = ranking.lines().find(|l| l.contains("Bruce Rae")).unwrap();
    assert!(
        bruce.contains(" 80.000  1st final ")
            && bruce.contains(" 25.57500 ")
            && bruce.contains("wbc/2010: 0.000; wbc/2011: 16.000; wbc/2012: 80.000;"),
        "{bruce}"
    );
    let events = text(&["standings", "cfr", "--rules", rules, "--table", "events"]);
    let row = events
        .lines()
        .find(|l| l.contains("2009") && l.contains("Eli Marsh"));
    assert!(
        row.is_some_and(|r| r.contains(" 80.000  150.00 ")),
        "{events}"
    );
    let json = standings(dir.path(), &["cfr", "--rules", rules]);
    assert_eq!(json["rules"], json!(rules));
    assert!(standings(dir.path(), &["cfr"]).get("rules").is_none());
    // A table the file sets nothing of is the ledger's own: no mark.
    let valar = text(&["standings", "valar", "--rules", rules]);
    assert!(!valar.contains("what-if"), "{valar}");
    let json = standings(dir.path(), &["valar", "--rules", rules]);
    assert!(json.get("rules").is_none(), "{json}");
}

#[test]
fn no_tournament_selector_for_cfr() {
    let dir = ledger_with(&["cfr_wbc.jsonl"]);
    let out = laurel(dir.path())
        .args(["standings", "cfr", "--tournament", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes no --tournament"));
}

#[test]
fn demo_appends_every_bundled_file_together() {
    let out = Command::cargo_bin("laurel")
        .unwrap()
        .args(["demo", "--all"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("== standings cfr ==") && text.contains("25.58"),
        "{text}"
    );
}

// ---- snapshots ---------------------------------------------------------------

#[test]
fn snapshots_of_the_bundled_streams() {
    let dir = ledger_with(ALL);
    let all = standings(dir.path(), &["cfr"]);
    let back = standings(dir.path(), &["cfr", "--as-of", "2011-12-31"]);
    common::insta_settings().bind(|| {
        insta::assert_json_snapshot!("standings", all);
        insta::assert_json_snapshot!("standings_as_of_2011", back);
    });
    for (file, name) in [
        ("cfr_wbc.jsonl", "wbc_only"),
        ("cfr_wbc_pbem.jsonl", "wbc_pbem_only"),
        ("cfr_pbem.jsonl", "pbem_only"),
    ] {
        let d = ledger_with(&[file]);
        let v = standings(d.path(), &["cfr"]);
        common::insta_settings().bind(|| insta::assert_json_snapshot!(name, v));
    }
}

// ---- validation ----------------------------------------------------------------

/// Append `text` to a ledger holding the WBC and PBeM streams and expect a
/// rejection naming `needles`, with nothing written.
fn rejected(text: &str, needles: &[&str]) {
    let dir = ledger_with(ALL);
    rejected_in(dir.path(), text, needles);
}

fn rejected_in(dir: &Path, text: &str, needles: &[&str]) {
    let before = head(dir);
    let out = append_text(dir, text);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "expected exit 2: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
    assert_eq!(head(dir), before, "head moved after a rejected append");
}

const HEAT: &str = r#"[{"driver":"A","place":1},{"driver":"B","place":2}]"#;

fn elim(series: &str, event: &str, at: &str, heats: &str, fin: &str) -> String {
    format!(
        r#"{{"type":"cfr.event_completed","at":"{at}","series":"{series}","event":"{event}","heats":{heats},"final":{fin}}}"#
    )
}

#[test]
fn an_event_of_an_unknown_series_is_rejected() {
    rejected(
        &elim("wbc-euro", "2013", "2013-05-01", &format!("[{HEAT}]"), HEAT),
        &[
            "cfr event wbc-euro/2013",
            "series \"wbc-euro\" is not defined",
        ],
    );
}

#[test]
fn an_event_dated_before_its_series_is_rejected() {
    let text = format!(
        "{}\n{}",
        r#"{"type":"cfr.series_defined","at":"2013-06-01","series":"late","format":"elimination"}"#,
        elim("late", "x", "2013-05-01", &format!("[{HEAT}]"), HEAT)
    );
    let dir = common::empty_ledger();
    let said = "series \"late\" is not defined at 2013-05-01, the event's date";
    rejected_in(dir.path(), &text, &["cfr event late/x", said]);
}

#[test]
fn results_of_the_wrong_format_are_rejected() {
    rejected(
        r#"{"type":"cfr.event_completed","at":"2013-08-03","series":"wbc","event":"2013","races":[{"tier":1,"results":[{"driver":"A","place":1}]}]}"#,
        &["cfr event wbc/2013", "`races` belong to a points series"],
    );
    rejected(
        &elim("cfr-pbem", "2013", "2014-02-01", &format!("[{HEAT}]"), HEAT),
        &["cfr event cfr-pbem/2013", "belong to an elimination series"],
    );
}

#[test]
fn a_driver_twice_in_one_heat_or_race_is_rejected() {
    let heat = r#"[[{"driver":"A","place":1},{"driver":"A","place":2}]]"#;
    rejected(
        &elim("wbc", "2013", "2013-08-03", heat, HEAT),
        &["cfr event wbc/2013, heat 1", "driver \"A\" is listed twice"],
    );
    rejected(
        r#"{"type":"cfr.event_completed","at":"2014-02-01","series":"cfr-pbem","event":"2013","races":[{"tier":1,"results":[{"driver":"A","place":1}]},{"tier":2,"results":[{"driver":"B","place":1},{"driver":"B","place":"dnf"}]}]}"#,
        &[
            "cfr event cfr-pbem/2013, race 2 (tier 2)",
            "driver \"B\" is listed twice",
        ],
    );
}

#[test]
fn two_drivers_on_one_place_are_rejected_but_dnf_may_repeat() {
    let rep = r#"[{"driver":"A","place":1},{"driver":"B","place":1}]"#;
    rejected(
        &elim("wbc", "2013", "2013-08-03", &format!("[{HEAT}]"), rep),
        &[
            "cfr event wbc/2013, final",
            "place 1 is given twice (only dnf may repeat)",
        ],
    );
    let skip = r#"[[{"driver":"A","place":1},{"driver":"B","place":3},{"driver":"C","place":3}]]"#;
    rejected(
        &elim("wbc", "2013", "2013-08-03", skip, HEAT),
        &["cfr event wbc/2013, heat 1", "place 3 is given twice"],
    );
    let far = r#"[{"driver":"A","place":1},{"driver":"B","place":10001}]"#;
    rejected(
        &elim("wbc", "2013", "2013-08-03", &format!("[{HEAT}]"), far),
        &[
            "final",
            "driver \"B\": field `place`: 10001 is out of range; allowed: an integer from 1 to 10000",
        ],
    );
    let dir = ledger_with(ALL);
    let dnfs =
        r#"[[{"driver":"A","place":1},{"driver":"B","place":"dnf"},{"driver":"C","place":"dnf"}]]"#;
    let out = append_text(dir.path(), &elim("wbc", "2013", "2013-08-03", dnfs, HEAT));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_final_without_heats_is_rejected() {
    rejected(
        &elim("wbc", "2013", "2013-08-03", "[]", HEAT),
        &["cfr event wbc/2013", "a final without heats"],
    );
    rejected(
        r#"{"type":"cfr.event_completed","at":"2013-08-03","series":"wbc","event":"2013","final":[{"driver":"A","place":1}]}"#,
        &["a final without heats"],
    );
    rejected(
        &format!(
            r#"{{"type":"cfr.event_completed","at":"2013-08-03","series":"wbc","event":"2013","heats":[{HEAT}]}}"#
        ),
        &["cfr event wbc/2013", "needs its `final`"],
    );
}

/// A formula of an event of one heat says "over 1 heat".
#[test]
fn one_heat_is_one_heat_in_the_formula() {
    let dir = ledger_with(ALL);
    let out = append_text(
        dir.path(),
        &elim("wbc", "2013", "2013-08-03", &format!("[{HEAT}]"), HEAT),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = standings(dir.path(), &["cfr"]);
    let formula = event_row(&v, "wbc", "2013", "A")["formula"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        formula.ends_with("(perfect: final win + heat win over 1 heat)"),
        "{formula}"
    );
}

#[test]
fn an_event_recorded_twice_is_rejected() {
    // Dated after the recorded one or before it (then it folds first): the
    // new line is refused, naming the recorded one (seq 7).
    for at in ["2012-08-05", "2009-08-01"] {
        rejected(
            &elim("wbc", "2012", at, &format!("[{HEAT}]"), HEAT),
            &[
                "-:1, cfr.event_completed: cfr event wbc/2012 already has a result, recorded at \
               seq 7; an event is recorded once (to correct it: `laurel correct 7 FILE --reason TEXT`",
            ],
        );
    }
}

#[test]
fn a_series_defined_twice_or_with_bad_tables_is_rejected() {
    rejected(
        r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"wbc","format":"points"}"#,
        &["cfr series \"wbc\"", "already defined on 2009-07-01"],
    );
    rejected(
        r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"x","format":"points","heat_points":[50]}"#,
        &[
            "cfr series \"x\"",
            "`heat_points` does not apply to a points series",
        ],
    );
    rejected(
        r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"x","format":"points","race_points":[10,20]}"#,
        &["cfr series \"x\"", "`race_points`", "worse place"],
    );
    rejected(
        r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"x","format":"elimination","heat_decay":"1.5"}"#,
        &["cfr series \"x\"", "`heat_decay`"],
    );
    rejected(
        r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"x","format":"points","race_points":[]}"#,
        &["positive points value for a win"],
    );
}

#[test]
fn a_points_race_in_tier_zero_is_rejected() {
    rejected(
        r#"{"type":"cfr.event_completed","at":"2014-02-01","series":"cfr-pbem","event":"2013","races":[{"tier":0,"results":[{"driver":"A","place":1}]}]}"#,
        &[
            "cfr event cfr-pbem/2013, race 1 (tier 0)",
            "tiers are numbered from 1",
        ],
    );
}

/// A series' cached scoring tables are keyed by a stamp of the process that
/// folded them: a checkpoint read back by another process, whose stamps for
/// other rules may be equal, scores later events under the rules in force.
/// Here the later process takes the checkpoint (late rule changes fold cfr
/// alone from it): each answer from checkpoints equals the fold from
/// nothing, ev2 scored 100/90/80.
#[test]
fn checkpoints_read_back_score_under_the_rules_in_force_not_a_cached_table() {
    let dir = common::empty_ledger();
    let d = dir.path();
    let seed = |i: u32| {
        format!(
            r#"{{"type":"mepbm.rating_seeded","at":"2010-03-{}","player":"p{i}","system":"valar","value":1500}}"#,
            10 + i
        )
    };
    let race = |at: &str, ev: &str, order: [&str; 3]| {
        let results: Vec<Value> = (1..=3)
            .zip(order)
            .map(|(place, driver)| json!({"driver": driver, "place": place}))
            .collect();
        json!({"type": "cfr.event_completed", "at": at, "series": "pts", "event": ev,
            "races": [{"tier": 1, "results": results}]})
        .to_string()
    };
    let rules = |at: &str, params: Value| {
        json!({"type": "ledger.rules_changed", "at": at, "system": "cfr", "params": params})
            .to_string()
    };
    let series =
        r#"{"type":"cfr.series_defined","at":"2010-01-01","series":"pts","format":"points"}"#;
    let base: Vec<String> = std::iter::once(series.to_string())
        .chain((0..8).map(seed))
        .chain([race("2010-04-01", "ev2", ["Boris", "Celia", "Anna"])])
        .collect();
    let late = [
        rules("2010-01-01T12:00:00Z", json!({"decimals": 2})),
        rules("2010-01-02", json!({"race_points": [100, 10, 5]})),
        race("2010-02-01", "ev1", ["Anna", "Boris", "Celia"]),
        rules("2010-03-01", json!({"race_points": [100, 90, 80]})),
    ];
    for part in [base.join("\n"), late.join("\n")] {
        laurel(d)
            .args(["append", "-"])
            .env("LAUREL_CHECKPOINT_EVERY", "4")
            .write_stdin(part)
            .assert()
            .success();
    }
    let answer = |full: bool| {
        let mut c = laurel(d);
        c.args(["standings", "cfr", "--format", "json"]);
        if full {
            c.env("LAUREL_NO_CHECKPOINTS", "1");
        }
        serde_json::from_slice::<Value>(&c.output().unwrap().stdout).unwrap()
    };
    let from_checkpoints = answer(false);
    assert_eq!(from_checkpoints, answer(true));
    let celia = event_row(&from_checkpoints, "pts", "ev2", "Celia");
    assert_eq!(celia["points"], json!(90.0));
}
