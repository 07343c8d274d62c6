//! The card-game league through the built binary: the league's recap lines
//! and the system-2 example on the bundled streams, the standings order, every
//! append-time rule (exit 2, a clear message, head unchanged) and snapshots.

use crate::common;

use std::path::Path;

use common::{append_text, empty_ledger, head, laurel, ledger_with, row, standings};
use serde_json::{json, Value};

const LEAGUE: &str = "cards-2013-league";
const MASTERS: &str = "cards-2013-masters";

fn tournament_standings(dir: &Path, t: &str) -> Value {
    standings(dir, &["cards", "--tournament", t])
}

/// The placement points of each match of a standings JSON, best first, by
/// "round/match": the form of the league's recap lines.
fn recap(v: &Value, column: &str) -> Vec<(String, Vec<i64>)> {
    let mut out: Vec<(String, Vec<i64>)> = Vec::new();
    for r in v["tables"]["matches"].as_array().expect("matches table") {
        let key = format!(
            "{}/{}",
            r["round"].as_str().unwrap(),
            r["match"].as_str().unwrap()
        );
        let pts = r[column].as_i64().expect("integer points");
        match out.last_mut() {
            Some((k, list)) if *k == key => list.push(pts),
            _ => out.push((key, vec![pts])),
        }
    }
    for (_, list) in &mut out {
        list.sort_unstable_by(|a, b| b.cmp(a));
    }
    out
}

fn lines(pairs: &[(&str, &[i64])]) -> Vec<(String, Vec<i64>)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_vec()))
        .collect()
}

#[test]
fn system1_recap_lines_on_the_league_stream() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let v = tournament_standings(dir.path(), LEAGUE);
    assert_eq!(
        recap(&v, "points"),
        lines(&[
            ("1/A", &[4, 1, 0]), // different scores, 2 negative
            ("1/B", &[4, 1, 1]), // 2 same negative scores
            ("1/C", &[3, 3, 3]), // all scored 0
            ("2/A", &[3, 2, 0]), // different scores, 2 positive
            ("2/B", &[3, 3, 0]), // 2 same positive scores
            ("2/C", &[4, 1, 0]),
        ])
    );
}

#[test]
fn system2_recap_lines_on_the_masters_stream() {
    let dir = ledger_with(&["cards_masters.jsonl"]);
    let v = tournament_standings(dir.path(), MASTERS);
    assert_eq!(
        recap(&v, "placement"),
        lines(&[
            ("1/A", &[35, 25, 10, 0]),  // different scores
            ("1/B", &[18, 18, 18, 18]), // all scored 0
            ("1/C", &[23, 23, 23, 0]),  // first 3 scored the same
            ("1/D", &[35, 12, 12, 12]), // last 3 scored the same
            ("2/A", &[30, 30, 5, 5]),   // first 2 same, last 2 same
            ("2/B", &[30, 30, 10, 0]),  // first 2 same, last 2 different
            ("2/C", &[35, 18, 18, 0]),  // second and third the same
            ("2/D", &[35, 25, 5, 5]),   // last 2 the same
            ("3/A", &[40, 10, 0]),      // three players: different scores, 2 negative
            ("3/B", &[40, 5, 5]),       // 2 same negative scores
            ("3/C", &[17, 17, 17]),     // all scored 0
            ("3/D", &[30, 20, 0]),      // different scores, 2 positive
            ("3/E", &[25, 25, 0]),      // 2 same positive scores
            ("4/A", &[40, 10, 0]),
            ("4/B", &[35, 25, 10, 0]),
        ])
    );
}

#[test]
fn a_system2_match_adds_table_strength_and_clamped_score_points() {
    let dir = ledger_with(&["cards_masters.jsonl"]);
    let v = tournament_standings(dir.path(), MASTERS);
    let m: Vec<&Value> = v["tables"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["round"] == "4" && r["match"] == "A")
        .collect();
    let got: Vec<(Value, Value, Value, Value, Value)> = m
        .iter()
        .map(|r| {
            (
                r["score"].clone(),
                r["placement"].clone(),
                r["table_strength"].clone(),
                r["score_points"].clone(),
                r["points"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (json!(620), json!(40), json!(3), json!(50), json!(93)),
            (json!(-44), json!(10), json!(3), json!(-4), json!(9)),
            (json!(-576), json!(0), json!(3), json!(-50), json!(-47)),
        ]
    );
    // Ana: 45 + 34 + 51 + 93 over four rounds.
    assert_eq!(row(&v, "Ana")["score"], json!(223));
    assert_eq!(row(&v, "Ana")["total_score"], json!(770));
    assert_eq!(row(&v, "Cleo")["score"], json!(10));
}

#[test]
fn history_shows_the_formula_with_its_inputs() {
    let dir = ledger_with(&["cards_masters.jsonl"]);
    let v = common::json(dir.path(), &["history", "Boris", "--format", "json"]);
    let last = v["rows"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["old"], json!("79"));
    assert_eq!(last["new"], json!("88"));
    assert_eq!(
        last["formula"],
        json!(
            "tournament cards-2013-masters, round 4, match A: +9 = 10 + 3 - 4; placement 10: 2nd of 3 by score -44, \
             table 40,10,0 (one positive score); table strength 3; score points -4 = clamp(round(-44 / 10), -50, 50)"
        )
    );
}

#[test]
fn standings_order_by_points_then_total_score_then_player() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let v = tournament_standings(dir.path(), LEAGUE);
    let got: Vec<(i64, String, i64, i64, i64)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rank"].as_i64().unwrap(),
                r["player"].as_str().unwrap().to_string(),
                r["score"].as_i64().unwrap(),
                r["total_score"].as_i64().unwrap(),
                r["matches"].as_i64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(i64, &str, i64, i64, i64)> = vec![
        (1, "Ana", 7, 100, 2),
        (2, "Dario", 6, 60, 2),
        (3, "Cleo", 4, 40, 2), // three on 4 points: total score decides
        (4, "Boris", 4, 0, 2),
        (5, "Edith", 4, -10, 2),
        (6, "Greta", 3, -40, 2), // equal points and total: shared rank, player order
        (6, "Hugo", 3, -40, 2),
        (8, "Ines", 3, -60, 2),
        (9, "Farid", 2, -50, 2),
    ];
    let want: Vec<(i64, String, i64, i64, i64)> = want
        .into_iter()
        .map(|(a, p, b, c, d)| (a, p.to_string(), b, c, d))
        .collect();
    assert_eq!(got, want);
    for r in v["rows"].as_array().unwrap() {
        assert!(
            r.get("points").is_none(),
            "the points are the score, once: {r}"
        );
    }
}

#[test]
fn as_of_shows_the_league_after_round_one() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let v = standings(
        dir.path(),
        &["cards", "--tournament", LEAGUE, "--as-of", "2013-01-31"],
    );
    assert_eq!(row(&v, "Ana")["score"], json!(4));
    assert_eq!(row(&v, "Greta")["score"], json!(3));
    assert_eq!(v["rows"][0]["player"], json!("Ana"));
    assert_eq!(v["rows"].as_array().unwrap().len(), 9);
    assert_eq!(v["tables"]["matches"].as_array().unwrap().len(), 9);
    // The answer names its tournament (and a list, none).
    assert_eq!(v["tournament"], json!(LEAGUE));
    assert_eq!(standings(dir.path(), &["cards"]).get("tournament"), None);
}

/// The list's rows name each tournament's first place as every table names
/// a player and a score (`player`, `score`: the first row of its standings,
/// points as score); the text shows them under "First place" and "Score".
#[test]
fn standings_without_a_tournament_list_the_tournaments() {
    let dir = ledger_with(&["cards_league.jsonl", "cards_masters.jsonl"]);
    let v = standings(dir.path(), &["cards"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["tournament"], json!(LEAGUE));
    assert_eq!(rows[1]["tournament"], json!(MASTERS));
    assert_eq!(rows[1]["point_system"], json!(2));
    assert_eq!(rows[1]["matches"], json!(16));
    assert_eq!(rows[1]["results"], json!(15));
    let first = &tournament_standings(dir.path(), MASTERS)["rows"][0];
    assert_eq!(
        (&rows[1]["player"], &rows[1]["score"]),
        (&json!("Ana"), &json!(223))
    );
    assert_eq!(
        (&first["player"], &first["score"]),
        (&json!("Ana"), &json!(223))
    );
    let text = laurel(dir.path())
        .args(["standings", "cards"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let header = text.lines().nth(2).unwrap();
    assert!(
        header.ends_with("Players  First place  Score  Sharing first"),
        "{header}"
    );
    let empty = empty_ledger();
    common::append_ok(
        empty.path(),
        r#"{"type":"cards.tournament_created","at":"2013-01-01","tournament":"t","point_system":1,"starts":"2013-01-01","ends":"2013-12-31"}"#,
    );
    let none = &standings(empty.path(), &["cards"])["rows"][0];
    assert_eq!(
        (&none["player"], &none["score"]),
        (&json!(null), &json!(null))
    );
}

#[test]
fn csv_and_text_formats() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let out = laurel(dir.path())
        .args([
            "standings",
            "cards",
            "--tournament",
            LEAGUE,
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("rank,player,score,total_score,matches\r\n1,Ana,7,100,2\r\n"),
        "{text}"
    );
    // One table: the ranking; --table picks another.
    assert!(!text.contains("round,match"), "{text}");
    let out = laurel(dir.path())
        .args(["standings", "cards", "--tournament", LEAGUE])
        .args(["--format", "csv", "--table", "matches"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("round,match,player,score,place,points\r\n"),
        "{text}"
    );
    let out = laurel(dir.path())
        .args(["standings", "cards", "--tournament", LEAGUE])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Rank  Player  Points  Total score  Matches\n")
            && text.contains("   6  Hugo         3          -40        2"),
        "{text}"
    );
}

#[test]
fn an_unknown_tournament_is_a_usage_error() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let out = laurel(dir.path())
        .args(["standings", "cards", "--tournament", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown cards tournament \"nope\" (known: cards-2013-league)"),
        "{err}"
    );
}

/// Before its creation a tournament is no tournament of the answer: the
/// message says it is unknown by that `--as-of`, not unknown at all.
#[test]
fn a_tournament_asked_before_its_creation_is_unknown_by_that_as_of() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let out = laurel(dir.path())
        .args(["standings", "cards", "--tournament", "cards-2013-league"])
        .args(["--as-of", "2012-01-01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let want =
        r#"unknown cards tournament "cards-2013-league" (known by --as-of 2012-01-01: none yet)"#;
    assert!(err.contains(want), "{err}");
}

#[test]
fn a_void_and_a_corrected_result_recompute_the_standings() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    // seq 4 is round 1 match A: Ana 60, Boris -20, Cleo -40.
    laurel(dir.path())
        .args(["void", "4", "--reason", "scores swapped"])
        .assert()
        .success();
    let fixed = r#"{"type":"cards.match_result","id":"cards-league-r1-A-fixed","at":"2013-01-09T19:30:00Z","tournament":"cards-2013-league","round":"1","match":"A","scores":[{"player":"Ana","score":-20},{"player":"Boris","score":60},{"player":"Cleo","score":-40}]}"#;
    assert!(append_text(dir.path(), fixed).status.success());
    let v = tournament_standings(dir.path(), LEAGUE);
    assert_eq!(row(&v, "Ana")["score"], json!(4)); // 1 + 3
    assert_eq!(row(&v, "Boris")["score"], json!(7)); // 4 + 3
}

#[test]
fn voiding_a_round_that_has_results_is_rejected() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let before = head(dir.path());
    // seq 2 schedules round 1, whose three results depend on it.
    let out = laurel(dir.path())
        .args(["void", "2", "--reason", "wrong draw"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("round \"1\" is not scheduled"), "{err}");
    assert_eq!(head(dir.path()), before);
}

#[test]
fn all_bundled_streams_append_together() {
    let dir = empty_ledger();
    laurel(dir.path())
        .arg("import")
        .arg(common::events_dir())
        .assert()
        .success();
    let alone = ledger_with(&["cards_masters.jsonl"]);
    assert_eq!(
        tournament_standings(dir.path(), MASTERS)["rows"],
        tournament_standings(alone.path(), MASTERS)["rows"]
    );
}

#[test]
fn snapshots_of_every_table() {
    let dir = ledger_with(&["cards_league.jsonl", "cards_masters.jsonl"]);
    let list = standings(dir.path(), &["cards"]);
    let league = tournament_standings(dir.path(), LEAGUE);
    let masters = tournament_standings(dir.path(), MASTERS);
    common::insta_settings().bind(|| {
        insta::assert_json_snapshot!("tournaments", list);
        insta::assert_json_snapshot!("league", league);
        insta::assert_json_snapshot!("masters", masters);
    });
}

// ---------------------------------------------------------------------------
// Validation: every rule at append (exit 2, message, head unchanged).
