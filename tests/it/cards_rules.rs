//! The card-game league's append-time rules through the built binary: each
//! rule broken once on a small base of two tournaments (exit 2, a clear
//! message, head unchanged), and a replay under a smaller score clamp.

use crate::common;

use std::path::Path;

use common::{append_text, empty_ledger, head, ledger_with, row};
use serde_json::{json, Value};

/// Two tournaments, one per point system, each with round "1" scheduled.
const BASE: &str = r#"
{"type":"cards.tournament_created","at":"2013-12-01","tournament":"v1","point_system":1,"starts":"2014-01-01","ends":"2014-06-30"}
{"type":"cards.round_scheduled","at":"2013-12-01","tournament":"v1","round":"1","starts":"2014-01-06","ends":"2014-01-19","matches":[{"match":"A","players":["a","b","c"]},{"match":"B","players":["d","e","f"]}]}
{"type":"cards.tournament_created","at":"2013-12-01","tournament":"v2","point_system":2,"starts":"2014-01-01","ends":"2014-06-30"}
{"type":"cards.round_scheduled","at":"2013-12-01","tournament":"v2","round":"1","starts":"2014-01-06","ends":"2014-01-19","matches":[{"match":"A","players":["a","b","c","d"],"table_strength":1},{"match":"B","players":["e","f","g"],"table_strength":2}]}
"#;

fn base() -> tempfile::TempDir {
    common::ledger_of(BASE)
}

/// Appending `events` fails with exit 2, a message containing every needle, and
/// nothing written.
fn rejected(dir: &Path, events: &[Value], needles: &[&str]) {
    let text: String = events.iter().map(|e| format!("{e}\n")).collect();
    common::append_refused(dir, &text, needles);
}

fn result(t: &str, r: &str, m: &str, at: &str, scores: &[(&str, i64)]) -> Value {
    let scores: Vec<Value> = scores
        .iter()
        .map(|(p, s)| json!({"player": p, "score": s}))
        .collect();
    json!({"type": "cards.match_result", "at": at, "tournament": t, "round": r, "match": m, "scores": scores})
}

fn round(t: &str, r: &str, at: &str, span: (&str, &str), matches: Value) -> Value {
    json!({"type": "cards.round_scheduled", "at": at, "tournament": t, "round": r,
           "starts": span.0, "ends": span.1, "matches": matches})
}

fn tournament(t: &str, system: i64, starts: &str, ends: &str) -> Value {
    json!({"type": "cards.tournament_created", "at": "2013-12-01", "tournament": t,
           "point_system": system, "starts": starts, "ends": ends})
}

const V1A: &str = "tournament \"v1\", round \"1\", match \"A\"";
const AT: &str = "2014-01-08";

#[test]
fn the_base_accepts_a_valid_result() {
    let dir = base();
    let out = append_text(
        dir.path(),
        &result("v1", "1", "A", AT, &[("c", -40), ("a", 60), ("b", -20)]).to_string(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(head(dir.path()).0, 5);
}

#[test]
fn scores_must_be_even() {
    let dir = base();
    let ev = result("v1", "1", "A", AT, &[("a", 61), ("b", -21), ("c", -40)]);
    rejected(
        dir.path(),
        &[ev],
        &[V1A, "score 61 of player \"a\" is odd", "even"],
    );
}

#[test]
fn scores_must_sum_to_zero() {
    let dir = base();
    let ev = result("v1", "1", "A", AT, &[("a", 60), ("b", -20), ("c", -20)]);
    rejected(
        dir.path(),
        &[ev],
        &[V1A, "sum to zero", "60 - 20 - 20 = 20"],
    );
}

#[test]
fn a_result_lists_exactly_the_scheduled_players() {
    let dir = base();
    let stranger = result("v1", "1", "A", AT, &[("a", 60), ("b", -20), ("x", -40)]);
    rejected(
        dir.path(),
        &[stranger],
        &[V1A, "player \"x\" is not scheduled in this match"],
    );
    let missing = result("v1", "1", "A", AT, &[("a", 40), ("b", -40)]);
    rejected(
        dir.path(),
        &[missing],
        &[V1A, "no score for scheduled player \"c\""],
    );
    let twice = result(
        "v1",
        "1",
        "A",
        AT,
        &[("a", 40), ("a", -40), ("b", 0), ("c", 0)],
    );
    rejected(dir.path(), &[twice], &[V1A, "player \"a\" has two scores"]);
}

#[test]
fn one_match_per_player_per_round() {
    let dir = base();
    let ev = round(
        "v1",
        "2",
        "2013-12-01",
        ("2014-02-03", "2014-02-16"),
        json!([{"match": "A", "players": ["a", "b", "c"]}, {"match": "B", "players": ["c", "d", "e"]}]),
    );
    rejected(
        dir.path(),
        &[ev],
        &[
            "tournament \"v1\", round \"2\"",
            "player \"c\" is in match \"A\" and match \"B\"",
            "at most one match per round",
        ],
    );
    let same_match = round(
        "v1",
        "2",
        "2013-12-01",
        ("2014-02-03", "2014-02-16"),
        json!([{"match": "A", "players": ["a", "b", "a"]}]),
    );
    rejected(
        dir.path(),
        &[same_match],
        &[
            "tournament \"v1\", round \"2\", match \"A\"",
            "player \"a\" is listed twice; a match seats each player once",
        ],
    );
}

#[test]
fn system1_matches_have_exactly_three_players() {
    let dir = base();
    let ev = round(
        "v1",
        "2",
        "2013-12-01",
        ("2014-02-03", "2014-02-16"),
        json!([{"match": "A", "players": ["a", "b", "c", "d"]}]),
    );
    rejected(
        dir.path(),
        &[ev],
        &[
            "tournament \"v1\", round \"2\", match \"A\"",
            "point system 1 matches have exactly 3 players, got 4",
        ],
    );
}

#[test]
fn system2_matches_have_three_or_four_players() {
    let dir = base();
    for players in [json!(["a", "b"]), json!(["a", "b", "c", "d", "e"])] {
        let n = players.as_array().unwrap().len();
        let ev = round(
            "v2",
            "2",
            "2013-12-01",
            ("2014-02-03", "2014-02-16"),
            json!([{"match": "A", "players": players, "table_strength": 1}]),
        );
        let msg = format!("point system 2 matches have 3 or 4 players, got {n}");
        rejected(
            dir.path(),
            &[ev],
            &["tournament \"v2\", round \"2\", match \"A\"", &msg],
        );
    }
}

#[test]
fn table_strength_runs_from_one_to_the_number_of_matches() {
    let dir = base();
    let matches = |a: Value, b: Value| {
        json!([{"match": "A", "players": ["a", "b", "c"], "table_strength": a},
               {"match": "B", "players": ["d", "e", "f"], "table_strength": b}])
    };
    let span = ("2014-02-03", "2014-02-16");
    let zero = round("v2", "2", "2013-12-01", span, matches(json!(0), json!(1)));
    rejected(
        dir.path(),
        &[zero],
        &[
            "tournament \"v2\", round \"2\", match \"A\"",
            "table_strength 0 is out of range: 1 to 2",
        ],
    );
    let three = round("v2", "2", "2013-12-01", span, matches(json!(1), json!(3)));
    rejected(
        dir.path(),
        &[three],
        &["match \"B\"", "table_strength 3 is out of range: 1 to 2"],
    );
    let missing = round(
        "v2",
        "2",
        "2013-12-01",
        span,
        json!([{"match": "A", "players": ["a", "b", "c"]}]),
    );
    rejected(
        dir.path(),
        &[missing],
        &["match \"A\"", "point system 2 needs a table_strength"],
    );
    let in_system1 = round(
        "v1",
        "2",
        "2013-12-01",
        span,
        json!([{"match": "A", "players": ["a", "b", "c"], "table_strength": 1}]),
    );
    rejected(
        dir.path(),
        &[in_system1],
        &[
            "tournament \"v1\"",
            "table_strength is for point system 2 only",
        ],
    );
}

#[test]
fn one_result_per_match() {
    let dir = base();
    let first = result("v1", "1", "A", AT, &[("a", 60), ("b", -20), ("c", -40)]);
    let again = result(
        "v1",
        "1",
        "A",
        "2014-01-09",
        &[("a", 0), ("b", 0), ("c", 0)],
    );
    // In one append: the valid first result is not written either.
    rejected(
        dir.path(),
        &[first.clone(), again.clone()],
        &[
            "-:2, cards.match_result",
            V1A,
            "has a result in another event of this append",
            "a match has one result (the other: -:1)",
        ],
    );
    assert!(append_text(dir.path(), &first.to_string()).status.success());
    let seq = head(dir.path()).0;
    let named = format!(
        "already has a result, recorded at seq {seq}; a match has one result (to correct it: \
         `laurel correct {seq} FILE --reason TEXT`, FILE holding the corrected result)"
    );
    rejected(dir.path(), &[again], &[V1A, &named]);
}

#[test]
fn results_only_for_scheduled_matches() {
    let dir = base();
    let no_match = result("v1", "1", "Z", AT, &[("a", 0), ("b", 0), ("c", 0)]);
    rejected(
        dir.path(),
        &[no_match],
        &[
            "tournament \"v1\", round \"1\", match \"Z\" is not in the round's schedule",
            "(the round's matches: \"A\", \"B\")",
        ],
    );
    // A match written in another case: the one meant is named.
    let lower = result("v1", "1", "a", AT, &[("a", 0), ("b", 0), ("c", 0)]);
    rejected(dir.path(), &[lower], &["did you mean \"A\"?"]);
    let no_round = result("v1", "9", "A", AT, &[("a", 0), ("b", 0), ("c", 0)]);
    rejected(
        dir.path(),
        &[no_round],
        &[
            "tournament \"v1\", round \"9\" is not scheduled at 2014-01-08",
            "(rounds scheduled by then: \"1\")",
        ],
    );
    let no_tournament = result("zz", "1", "A", AT, &[("a", 0), ("b", 0), ("c", 0)]);
    rejected(
        dir.path(),
        &[no_tournament],
        &["tournament \"zz\" does not exist"],
    );
}

#[test]
fn a_result_dated_before_its_round_was_scheduled_finds_no_round() {
    let dir = empty_ledger();
    let lines = [
        tournament("v3", 1, "2014-01-01", "2014-06-30"),
        round(
            "v3",
            "1",
            "2014-01-10",
            ("2014-01-06", "2014-01-19"),
            json!([{"match": "A", "players": ["a", "b", "c"]}]),
        ),
        result(
            "v3",
            "1",
            "A",
            "2014-01-08",
            &[("a", 0), ("b", 0), ("c", 0)],
        ),
    ];
    rejected(
        dir.path(),
        &lines,
        &[
            "tournament \"v3\", round \"1\" is not scheduled at 2014-01-08",
            "(no rounds scheduled by then); if its cards.round_scheduled has a later `at`, \
             date that on or before the result",
        ],
    );
}

#[test]
fn results_fall_within_the_round() {
    let dir = base();
    let early = result(
        "v1",
        "1",
        "A",
        "2014-01-05T23:59:59Z",
        &[("a", 0), ("b", 0), ("c", 0)],
    );
    rejected(
        dir.path(),
        &[early],
        &[V1A, "result at 2014-01-05T23:59:59Z is outside the round's interval 2014-01-06 .. 2014-01-19"],
    );
    let late = result(
        "v1",
        "1",
        "A",
        "2014-01-20",
        &[("a", 0), ("b", 0), ("c", 0)],
    );
    rejected(dir.path(), &[late], &[V1A, "outside the round's interval"]);
    // The last day of the round counts in full.
    let last_evening = result(
        "v1",
        "1",
        "A",
        "2014-01-19T22:00:00Z",
        &[("a", 0), ("b", 0), ("c", 0)],
    );
    assert!(append_text(dir.path(), &last_evening.to_string())
        .status
        .success());
}

#[test]
fn rounds_fall_within_the_tournament() {
    let dir = base();
    let m = json!([{"match": "A", "players": ["a", "b", "c"]}]);
    let before = round(
        "v1",
        "2",
        "2013-12-01",
        ("2013-12-30", "2014-01-12"),
        m.clone(),
    );
    rejected(
        dir.path(),
        &[before],
        &["tournament \"v1\", round \"2\"", "the round 2013-12-30 .. 2014-01-12 is not within the tournament 2014-01-01 .. 2014-06-30"],
    );
    let after = round(
        "v1",
        "2",
        "2013-12-01",
        ("2014-06-20", "2014-07-01"),
        m.clone(),
    );
    rejected(dir.path(), &[after], &["is not within the tournament"]);
    let backwards = round(
        "v1",
        "2",
        "2013-12-01",
        ("2014-02-16", "2014-02-03"),
        m.clone(),
    );
    rejected(
        dir.path(),
        &[backwards],
        &["round \"2\": starts 2014-02-16 is after ends 2014-02-03"],
    );
    let drawn_late = round(
        "v1",
        "2",
        "2014-02-20",
        ("2014-02-03", "2014-02-16"),
        m.clone(),
    );
    rejected(
        dir.path(),
        &[drawn_late],
        &["scheduled at 2014-02-20, after the round ends (2014-02-16)"],
    );
    let again = round(
        "v1",
        "1",
        "2013-12-01",
        ("2014-02-03", "2014-02-16"),
        m.clone(),
    );
    rejected(
        dir.path(),
        &[again],
        &["tournament \"v1\", round \"1\" is already scheduled"],
    );
    let empty = round(
        "v1",
        "2",
        "2013-12-01",
        ("2014-02-03", "2014-02-16"),
        json!([]),
    );
    rejected(
        dir.path(),
        &[empty],
        &["round \"2\": a round must schedule at least one match"],
    );
    let no_tournament = round("zz", "1", "2013-12-01", ("2014-02-03", "2014-02-16"), m);
    rejected(
        dir.path(),
        &[no_tournament],
        &["tournament \"zz\" does not exist"],
    );
}

#[test]
fn tournaments_are_unique_with_a_known_point_system_and_ordered_dates() {
    let dir = base();
    rejected(
        dir.path(),
        &[tournament("v1", 1, "2015-01-01", "2015-12-31")],
        &["tournament \"v1\" already exists"],
    );
    rejected(
        dir.path(),
        &[tournament("v9", 3, "2015-01-01", "2015-12-31")],
        &["tournament \"v9\": point_system must be 1 or 2, got 3"],
    );
    rejected(
        dir.path(),
        &[tournament("v9", 1, "2015-12-31", "2015-01-01")],
        &["tournament \"v9\": starts 2015-12-31 is after ends 2015-01-01"],
    );
}

#[test]
fn replay_with_a_smaller_score_clamp_moves_only_the_clamped_players() {
    let dir = ledger_with(&["cards_masters.jsonl"]);
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, r#"{"cards": {"score_clamp": 20}}"#).unwrap();
    let v = common::json(
        dir.path(),
        &[
            "replay",
            "--rules",
            rules.to_str().unwrap(),
            "--diff",
            "--system",
            "cards",
            "--tournament",
            "cards-2013-masters",
            "--format",
            "json",
        ],
    );
    // Round 4 match A: Ana 620 → +20 instead of +50; Cleo -576 → -20 instead of -50.
    assert_eq!(row(&v, "Ana")["old_score"], json!(223));
    assert_eq!(row(&v, "Ana")["score"], json!(193));
    assert_eq!(row(&v, "Cleo")["score"], json!(40));
    assert_eq!(row(&v, "Boris")["score"], row(&v, "Boris")["old_score"]);
}

#[test]
fn the_tournament_list_says_how_many_share_first_place() {
    let dir = base();
    let a = result("v1", "1", "A", AT, &[("a", 60), ("b", -20), ("c", -40)]);
    let b = result("v1", "1", "B", AT, &[("d", 60), ("e", -20), ("f", -40)]);
    let out = append_text(dir.path(), &format!("{a}\n{b}\n"));
    assert!(out.status.success(), "{out:?}");
    let v = common::standings(dir.path(), &["cards"]);
    let v1 = &v["rows"][0];
    assert_eq!(
        (&v1["tournament"], &v1["player"]),
        (&json!("v1"), &json!("a"))
    );
    assert_eq!((&v1["score"], &v1["sharing_first"]), (&json!(4), &json!(2)));
    let v2 = &v["rows"][1];
    assert_eq!(
        (&v2["player"], &v2["sharing_first"]),
        (&Value::Null, &Value::Null)
    );
    let text = common::run(dir.path(), &["standings", "cards"]).1;
    assert!(text.contains("Sharing first"), "{text}");
}
