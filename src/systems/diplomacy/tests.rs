use serde_json::{json, Value};

use super::exact::exact_sum;
use super::report::{number, text};
use super::*;
use crate::fold::{fold, MemSource, Query};
use crate::systems::Selector;
use math::frac;

fn game(id: &str, at: &str, result: &str, winner: Option<&str>, powers: &str) -> String {
    let winner = winner.map_or(String::new(), |w| format!(r#","winner":"{w}""#));
    format!(
        r#"{{"type":"diplomacy.game_ended","at":"{at}","game":"{id}","result":"{result}"{winner},"powers":{powers}}}"#
    )
}

const WORKED_EXAMPLE: &str = r#"[{"power":"Austria","player":"A","centers":10},{"power":"England","player":"B","centers":8},{"power":"France","player":"C","centers":6},{"power":"Germany","player":"D","centers":5},{"power":"Italy","player":"E","centers":3},{"power":"Russia","player":"F","centers":2},{"power":"Turkey","player":"G","centers":0,"eliminated":1907}]"#;

fn folded(lines: &[String], audit: bool) -> crate::fold::Folded {
    let src = MemSource::from_jsonl(&lines.join("\n")).unwrap();
    let q = Query {
        check: true,
        audit,
        ..Query::default()
    };
    fold(&src, &q).unwrap()
}

fn check_err(lines: &[String]) -> String {
    let src = MemSource::from_jsonl(&lines.join("\n")).unwrap();
    let q = Query {
        check: true,
        ..Query::default()
    };
    fold(&src, &q).unwrap_err().to_string()
}

#[test]
fn worked_example_through_the_fold() {
    let f = folded(
        &[game("g1", "2024-03-09", "draw", None, WORKED_EXAMPLE)],
        true,
    );
    let r = f
        .state
        .diplomacy
        .standings("fibonacci", &Selector::default(), &f.cx)
        .unwrap();
    let rows = r.main.json_rows();
    let scores: Vec<String> = rows.iter().map(|r| r["score"].to_string()).collect();
    assert_eq!(scores, ["0.4", "0.25", "0.15", "0.1", "0.05", "0.05", "0"]);
    assert_eq!(rows[0]["player"], "A");
    // Fifth and sixth are equal on score and games: they share rank 5.
    assert_eq!(rows[5]["rank"], 5);
    let change =
        f.cx.changes()
            .iter()
            .find(|c| c.subject == "B" && c.system == "fibonacci")
            .unwrap();
    assert_eq!(
        change.formula,
        "+0.2500 = 5 / 20 [game g1, England: rank 2 of 7, 8 centers]"
    );
    let carn =
        f.cx.changes()
            .iter()
            .find(|c| c.subject == "A" && c.system == "carnage")
            .unwrap();
    assert_eq!(
        carn.formula,
        "+7010 = 7000 + 10 centers [game g1, Austria: rank 1 of 7, 10 centers]"
    );
}

/// Every table's scores of the scoring rules' example board, and of a solo, as the tables
/// show them: exact totals, JSON numbers rounded to the table's decimals
/// (an integer when the score is one), per-game text without trailing zeros.
#[test]
fn scores_show_as_the_worked_examples() {
    let solo = r#"[{"power":"Austria","player":"A","centers":18},{"power":"England","player":"B","centers":8},{"power":"France","player":"C","centers":4},{"power":"Germany","player":"D","centers":2},{"power":"Italy","player":"E","centers":1},{"power":"Russia","player":"F","centers":1},{"power":"Turkey","player":"G","centers":0,"eliminated":1905}]"#;
    let f = folded(
        &[
            game("g1", "2024-03-09", "draw", None, WORKED_EXAMPLE),
            game("g2", "2024-03-10", "solo", Some("Austria"), solo),
        ],
        false,
    );
    let table = |t: &str| {
        let r = f
            .state
            .diplomacy
            .standings(t, &Selector::default(), &f.cx)
            .unwrap();
        let rows = r.main.json_rows();
        let row = |p: &str| rows.iter().find(|r| r["player"] == p).unwrap().clone();
        let (a, g) = (row("A"), row("G"));
        let shown = |r: &Value| (r["score"].to_string(), r["per_game"].clone());
        (shown(&a), shown(&g))
    };
    let (a, g) = table("fibonacci");
    assert_eq!(
        a,
        (
            "1.4".into(),
            json!([{"game": "g1", "score": 0.4}, {"game": "g2", "score": 1}])
        )
    );
    assert_eq!(
        g,
        (
            "0".into(),
            json!([{"game": "g1", "score": 0}, {"game": "g2", "score": 0}])
        )
    );
    // Carnage: 7000 + 10 centers, then the solo's 28000 + 34.
    let (a, g) = table("carnage");
    assert_eq!(
        a,
        (
            "35044".into(),
            json!([{"game": "g1", "score": 7010}, {"game": "g2", "score": 28034}])
        )
    );
    assert_eq!(
        g,
        (
            "1000".into(),
            json!([{"game": "g1", "score": 1000}, {"game": "g2", "score": 0}])
        )
    );
    // DSS: a 6-way draw gives 1/6 (0.1667 to four decimals).
    let (a, g) = table("dss");
    assert_eq!(
        a,
        (
            "1.1667".into(),
            json!([{"game": "g1", "score": 0.1667}, {"game": "g2", "score": 1}])
        )
    );
    assert_eq!(
        g,
        (
            "0".into(),
            json!([{"game": "g1", "score": 0}, {"game": "g2", "score": 0}])
        )
    );
    // SoS: 100 / 238 = 0.42016...
    let (a, _) = table("sos");
    assert_eq!(
        a,
        (
            "1.4202".into(),
            json!([{"game": "g1", "score": 0.4202}, {"game": "g2", "score": 1}])
        )
    );
}

/// A total is exact whatever the denominators: Sum-of-Squares' differ
/// from game to game, and an exact half rounds away from zero only once,
/// on the total.
#[test]
fn totals_are_exact_over_many_denominators() {
    let mut scores = Vec::new();
    let mut sum = frac(0, 1);
    for c in 1..300i128 {
        scores.push(Exact::new(c, c * c + 1));
        sum += frac(c, c * c + 1);
    }
    scores.push(Exact::new(-3, 7));
    sum += frac(-3, 7);
    assert_eq!(exact_sum(&scores), sum);
    assert_eq!(exact_sum(&[]), frac(0, 1));
    let mut halves = vec![Exact::new(1, 6); 3];
    halves.push(Exact::new(1, 20_000));
    let halves = exact_sum(&halves);
    assert_eq!(halves, frac(10_001, 20_000));
    assert_eq!(text(&halves, System::Sos), "0.5001");
    assert_eq!(number(&halves, 4), json!(0.5001));
    assert_eq!(text(&frac(-1, 20_000), System::Dss), "-0.0001");
    assert_eq!(text(&frac(1, 2), System::Fibonacci), "0.5000");
    assert_eq!(text(&frac(1, 1), System::Fibonacci), "1.0000");
    assert_eq!(text(&frac(7, 2), System::Carnage), "3.50");
    assert_eq!(text(&frac(7, 1), System::Carnage), "7");
    assert_eq!(number(&frac(7, 2), 2), json!(3.5));
    assert_eq!(number(&frac(14, 2), 2), json!(7));
}

#[test]
fn the_store_keeps_values_too_wide_for_its_small_fields() {
    let mut st = store::Store::default();
    let powers: Vec<String> = (0..300).map(|i| format!("P{i}")).collect();
    let rules = Rules {
        base: 0,
        min_powers: 5,
        carnage: math::CarnageRules {
            rank_points: 1000,
            centre_points: 1,
            eliminated: params::Eliminated::ByYear,
            leader_bonus: 0,
            centers_total: 100_000,
        },
        best_rounds: 0,
    };
    let centers = |i: usize| if i == 299 { 70_000 } else { (i % 3) as i64 };
    let year = |i: usize| match i % 3 {
        0 => Some([1907, -40_000, i64::from(i16::MIN), i64::MAX][i % 4]),
        _ => None,
    };
    st.push(
        store::NewGame {
            name: "big",
            at: 5,
            seq: 9,
            winner: Some(299),
            concession: false,
            partial_draw: Some(vec![1, 299]),
            rules,
            tournament: Some("t"),
            round: Some("r"),
            board: None,
        },
        powers.iter().enumerate().map(|(i, p)| store::NewPosition {
            power: p,
            player: (i % 5 != 0).then_some(p.as_str()),
            centers: centers(i),
            eliminated: year(i),
        }),
    );
    assert_eq!(st.recorded("big"), Some(9));
    assert_eq!(st.recorded("small"), None);
    let g = st.game(0);
    assert_eq!((g.at, g.winner, g.rules), (5, Some(299), rules));
    assert_eq!((g.tournament, g.round, g.board), (Some(0), Some(0), None));
    for (i, p) in g.positions.iter().enumerate() {
        assert_eq!(st.powers.name(p.power), powers[i]);
        assert_eq!(
            p.player.map(|id| st.players.name(id)),
            (i % 5 != 0).then_some(powers[i].as_str())
        );
        assert_eq!(p.seat.centers, centers(i));
        assert_eq!(p.seat.eliminated, year(i));
        assert_eq!(p.seat.in_draw, i == 1 || i == 299);
    }
    // A 300-power solo: every rank point plus the board's centers.
    let got: Vec<_> = game_scores(System::Carnage, &g.seats(), g.winner, &rules)
        .iter()
        .map(Exact::big)
        .collect();
    assert_eq!(got[299], frac(1000 * 300 * 301 / 2 + 100_000, 1));
    assert_eq!(text(&got[299], System::Carnage), "45250000");
}

#[test]
fn validation_names_game_power_and_rule() {
    let bad = |powers: &str, result: &str, winner: Option<&str>| {
        check_err(&[game("g9", "2024-01-01", result, winner, powers)])
    };
    let two = |a: &str, b: &str| format!("[{a},{b}]");
    let p = |power: &str, player: &str, centers: i64| {
        format!(r#"{{"power":"{power}","player":"{player}","centers":{centers}}}"#)
    };
    let e = bad(&format!("[{}]", p("X", "a", 3)), "draw", None);
    assert!(e.contains("game g9 lists 1 power(s)"), "{e}");
    let e = bad(&two(&p("X", "a", 3), &p("X", "b", 3)), "draw", None);
    assert!(e.contains("power X is listed twice"), "{e}");
    let e = bad(&two(&p("X", "a", 3), &p("Y", "b", -1)), "draw", None);
    assert!(e.contains("power Y has -1 centers"), "{e}");
    let e = bad(&two(&p("X", "a", 30), &p("Y", "b", 5)), "draw", None);
    assert!(e.contains("35 centers in all") && e.contains("34"), "{e}");
    let e = bad(&two(&p("X", "a", 3), &p("Y", "a", 5)), "draw", None);
    assert!(e.contains("player a plays both X and Y"), "{e}");
    let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 0)), "draw", None);
    assert!(
        e.contains("power Y holds no centers but has no elimination year"),
        "{e}"
    );
    let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 2)), "solo", Some("Z"));
    assert!(
        e.contains("solo winner Z is not one of the game's powers (X, Y)"),
        "{e}"
    );
    let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 3)), "solo", Some("X"));
    assert!(e.contains("but Y holds 3"), "{e}");
    let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 2)), "draw", Some("X"));
    assert!(e.contains("a draw has no winner"), "{e}");
    let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 2)), "solo", None);
    assert!(e.contains("no winner is named"), "{e}");
}

#[test]
fn the_standard_keys_are_the_standard_powers_keys() {
    let keys = check::STANDARD_POWERS.map(crate::events::key::key);
    assert_eq!(keys, check::STANDARD_KEYS);
}
