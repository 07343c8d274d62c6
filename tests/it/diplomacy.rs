//! Diplomacy scoring through the built binary: the worked examples, every
//! validation rule, parameters, history and snapshots of every table.

use crate::common;

use common::{append_text, head, json, laurel, ledger_with, standings};
use serde_json::{json, Value};

const ALL: &[&str] = &[
    "diplomacy_draws.jsonl",
    "diplomacy_small_boards.jsonl",
    "diplomacy_solo_surrender.jsonl",
];

/// The `games` rows of one game, in table order (best rank first).
fn game_rows(v: &Value, game: &str) -> Vec<Value> {
    v["tables"]["games"]
        .as_array()
        .expect("games table")
        .iter()
        .filter(|r| r["game"] == game)
        .cloned()
        .collect()
}

/// `(power, score)` of each position of a game.
fn scores_by_power(v: &Value, game: &str) -> Vec<(String, Value)> {
    game_rows(v, game)
        .into_iter()
        .map(|r| (r["power"].as_str().unwrap().to_string(), r["score"].clone()))
        .collect()
}

fn pairs(list: &[(&str, Value)]) -> Vec<(String, Value)> {
    list.iter()
        .map(|(p, s)| (p.to_string(), s.clone()))
        .collect()
}

#[test]
fn worked_example_gives_40_25_15_10_5_5_0() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let v = standings(dir.path(), &["fibonacci"]);
    assert_eq!(
        scores_by_power(&v, "diplomacy-2024-r1"),
        pairs(&[
            ("Austria", json!(0.4)),
            ("England", json!(0.25)),
            ("France", json!(0.15)),
            ("Germany", json!(0.1)),
            ("Italy", json!(0.05)),
            ("Russia", json!(0.05)),
            ("Turkey", json!(0)),
        ])
    );
}

#[test]
fn a_tie_at_second_and_third_shares_0_20() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let v = standings(dir.path(), &["fibonacci"]);
    let rows = game_rows(&v, "diplomacy-2024-r2");
    let tied: Vec<(&Value, &Value, &Value)> = rows
        .iter()
        .filter(|r| r["centers"] == 7)
        .map(|r| (&r["rank"], &r["ranks"], &r["score"]))
        .collect();
    assert_eq!(
        tied,
        vec![(&json!(2), &json!("2-3"), &json!(0.2)); 2],
        "{rows:?}"
    );
    // Carnage splits the tied ranks too: (6000 + 5000) / 2 + 7 centers.
    let c = standings(dir.path(), &["carnage"]);
    let tied: Vec<Value> = game_rows(&c, "diplomacy-2024-r2")
        .into_iter()
        .filter(|r| r["centers"] == 7)
        .map(|r| r["score"].clone())
        .collect();
    assert_eq!(tied, vec![json!(5507), json!(5507)]);
    // Standings: both games summed, ties broken by games played then shared.
    assert_eq!(common::row(&v, "Mireille Dufour")["score"], json!(0.6));
    assert_eq!(common::row(&v, "Mireille Dufour")["games"], json!(2));
    assert_eq!(
        common::row(&v, "Mireille Dufour")["per_game"],
        json!([
            {"game": "diplomacy-2024-r1", "score": 0.4},
            {"game": "diplomacy-2024-r2", "score": 0.2}
        ])
    );
}

#[test]
fn a_solo_gives_one_and_zeros_and_carnage_28034() {
    let dir = ledger_with(&["diplomacy_solo_surrender.jsonl"]);
    let game = "diplomacy-2024-r3";
    for (table, top) in [
        ("fibonacci", json!(1)),
        ("dss", json!(1)),
        ("sos", json!(1)),
        ("carnage", json!(28034)),
    ] {
        let v = standings(dir.path(), &[table]);
        let got = scores_by_power(&v, game);
        assert_eq!(got[0], ("France".to_string(), top), "{table}");
        assert!(
            got[1..].iter().all(|(_, s)| *s == json!(0)),
            "{table}: {got:?}"
        );
        assert_eq!(got.len(), 7, "{table}");
    }
}

#[test]
fn a_surrendered_position_ranks_last_and_scores_no_player() {
    let dir = ledger_with(&["diplomacy_solo_surrender.jsonl"]);
    let game = "diplomacy-2024-r4";
    let f = standings(dir.path(), &["fibonacci"]);
    let rows = game_rows(&f, game);
    let last = rows.last().unwrap();
    // Russia holds 4 centers, as many as Germany and more than France, yet ranks 7th.
    assert_eq!(
        (
            &last["power"],
            &last["player"],
            &last["centers"],
            &last["rank"],
            &last["score"]
        ),
        (
            &json!("Russia"),
            &Value::Null,
            &json!(4),
            &json!(7),
            &json!(0)
        )
    );
    assert_eq!(rows[3]["power"], "Germany");
    assert_eq!(rows[3]["score"], json!(0.1));
    // Carnage gives the vacant seat its 1000 + 4, and nobody collects them.
    let c = standings(dir.path(), &["carnage"]);
    assert_eq!(game_rows(&c, game).last().unwrap()["score"], json!(1004));
    for table in ["fibonacci", "carnage", "dss", "sos"] {
        let v = standings(dir.path(), &[table]);
        let rows = v["rows"].as_array().unwrap();
        assert!(rows.iter().all(|r| r["player"].is_string()), "{table}");
        assert_eq!(rows.len(), 7, "{table}: seven players over two games");
    }
    // DSS: the vacant survivor counts in the 6-way draw; its sixth is lost.
    let d = standings(dir.path(), &["dss"]);
    assert_eq!(
        common::row(&d, "Priya Raman")["per_game"],
        json!([
            {"game": "diplomacy-2024-r3", "score": 0},
            {"game": "diplomacy-2024-r4", "score": 0.1667}
        ])
    );
}

#[test]
fn four_powers_are_refused_by_fibonacci_but_scored_by_the_others() {
    let dir = ledger_with(&["diplomacy_small_boards.jsonl"]);
    let game = "diplomacy-2024-four";
    let f = standings(dir.path(), &["fibonacci"]);
    let refused = f["tables"]["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0]["game"], game);
    assert_eq!(refused[0]["powers"], 4);
    assert_eq!(
        refused[0]["reason"],
        "game diplomacy-2024-four has 4 powers; Fibonacci-Diplo with base 0 needs at least 5 (fibonacci.min_powers 5, one fewer with base 1)"
    );
    assert!(game_rows(&f, game).is_empty());
    // Mireille and Oskar played only the 4-power game: Fibonacci has no row for them.
    let players: Vec<&Value> = f["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["player"])
        .collect();
    assert!(
        !players.contains(&&json!("Mireille Dufour")) && players.len() == 5,
        "{players:?}"
    );
    // The 5-power game is scored: 0, 1, 1, 2, 3 = 7; Carthage and Rome tie 1st-2nd at 5/14.
    assert_eq!(
        scores_by_power(&f, "diplomacy-2024-ancmed"),
        pairs(&[
            ("Carthage", json!(0.3571)),
            ("Rome", json!(0.3571)),
            ("Greece", json!(0.1429)),
            ("Persia", json!(0.1429)),
            ("Egypt", json!(0)),
        ])
    );
    let expect = [
        (
            "carnage",
            [json!(4012), json!(3010), json!(2008), json!(1004)],
        ),
        ("dss", [json!(0.25), json!(0.25), json!(0.25), json!(0.25)]),
        // 144, 100, 64, 16 over 324.
        (
            "sos",
            [json!(0.4444), json!(0.3086), json!(0.1975), json!(0.0494)],
        ),
    ];
    for (table, want) in expect {
        let v = standings(dir.path(), &[table]);
        let got: Vec<Value> = scores_by_power(&v, game)
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(got, want, "{table}");
        assert!(v["tables"].get("refused").is_none(), "{table}");
    }
}

#[test]
fn a_four_power_game_appends_on_its_own() {
    let dir = common::empty_ledger();
    common::append_ok(dir.path(), FOUR);
    let f = standings(dir.path(), &["fibonacci"]);
    assert_eq!(f["rows"], json!([]));
    assert_eq!(f["tables"]["refused"][0]["game"], "dip-test-four");
    let c = standings(dir.path(), &["carnage"]);
    assert_eq!(common::row(&c, "w")["score"], json!(4010));
}

const FOUR: &str = r#"{"type":"diplomacy.game_ended","at":"2024-06-01","game":"dip-test-four","result":"draw","powers":[{"power":"North","player":"n","centers":9},{"power":"East","player":"e","centers":8},{"power":"South","player":"s","centers":7},{"power":"West","player":"w","centers":10}]}"#;

/// A one-line game for the validation tests: `powers` is the JSON array text.
fn game(id: &str, at: &str, result: &str, winner: Option<&str>, powers: &str) -> String {
    let winner = winner.map_or(String::new(), |w| format!(r#","winner":"{w}""#));
    format!(
        r#"{{"type":"diplomacy.game_ended","at":"{at}","game":"{id}","result":"{result}"{winner},"powers":{powers}}}"#
    )
}

fn p(power: &str, player: &str, centers: i64) -> String {
    format!(r#"{{"power":"{power}","player":"{player}","centers":{centers}}}"#)
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

/// Appending `text` to a ledger holding the draws file fails with exit 2, a
/// message containing every `needles`, and leaves the head as it was.
fn refused(text: &str, needles: &[&str]) {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let before = head(dir.path());
    let out = append_text(dir.path(), text);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for n in needles {
        assert!(err.contains(n), "missing {n:?} in: {err}");
    }
    assert_eq!(head(dir.path()), before);
}

#[test]
fn a_game_needs_two_powers() {
    refused(
        &game(
            "dip-v1",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 3)]),
        ),
        &["game dip-v1 lists 1 power(s); a game needs at least 2"],
    );
}

#[test]
fn power_names_are_unique() {
    refused(
        &game(
            "dip-v2",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 3), p("X", "b", 3)]),
        ),
        &["game dip-v2: power X is listed twice"],
    );
}

#[test]
fn centers_are_not_negative() {
    refused(
        &game(
            "dip-v3",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 3), p("Y", "b", -1)]),
        ),
        &["game dip-v3: power Y has -1 centers; centers cannot be negative"],
    );
}

#[test]
fn centers_stay_within_the_board() {
    refused(
        &game(
            "dip-v4",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 30), p("Y", "b", 5)]),
        ),
        &["game dip-v4: the powers hold 35 centers in all, more than the board's 34"],
    );
}

#[test]
fn a_solo_winner_exists() {
    refused(
        &game(
            "dip-v5",
            "2024-06-01",
            "solo",
            Some("Z"),
            &list(&[p("X", "a", 18), p("Y", "b", 3)]),
        ),
        &["game dip-v5: solo winner Z is not one of the game's powers (X, Y)"],
    );
    refused(
        &game(
            "dip-v5",
            "2024-06-01",
            "solo",
            None,
            &list(&[p("X", "a", 18), p("Y", "b", 3)]),
        ),
        &["game dip-v5: result is solo but no winner is named"],
    );
}

#[test]
fn a_solo_winner_survives_holds_a_player_and_tops_the_board() {
    let dead = r#"{"power":"Y","player":"b","centers":0,"eliminated":1905}"#.to_string();
    refused(
        &game(
            "dip-v6",
            "2024-06-01",
            "solo",
            Some("Y"),
            &list(&[p("X", "a", 18), dead]),
        ),
        &["game dip-v6: solo winner Y holds no centers; a winner survives the game"],
    );
    let vacant = r#"{"power":"Y","player":null,"centers":18}"#.to_string();
    refused(
        &game(
            "dip-v6",
            "2024-06-01",
            "solo",
            Some("Y"),
            &list(&[p("X", "a", 3), vacant]),
        ),
        &["game dip-v6: solo winner Y is a surrendered position"],
    );
    refused(
        &game(
            "dip-v6",
            "2024-06-01",
            "solo",
            Some("X"),
            &list(&[p("X", "a", 9), p("Y", "b", 12)]),
        ),
        &["game dip-v6: solo winner X holds 9 centers but Y holds 12"],
    );
}

#[test]
fn a_draw_has_no_winner() {
    refused(
        &game(
            "dip-v7",
            "2024-06-01",
            "draw",
            Some("X"),
            &list(&[p("X", "a", 9), p("Y", "b", 9)]),
        ),
        &["game dip-v7: result is draw but winner X is named; a draw has no winner"],
    );
}

#[test]
fn eliminated_powers_hold_no_centers_and_have_a_year() {
    let bad = r#"{"power":"Y","player":"b","centers":2,"eliminated":1905}"#.to_string();
    refused(
        &game("dip-v8", "2024-06-01", "draw", None, &list(&[p("X", "a", 9), bad])),
        &["game dip-v8: power Y is eliminated in 1905 but holds 2 centers; an eliminated power has no centers"],
    );
    refused(
        &game(
            "dip-v8",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 9), p("Y", "b", 0)]),
        ),
        &["game dip-v8: power Y holds no centers but has no elimination year"],
    );
}

#[test]
fn a_game_has_a_survivor() {
    let gone = |power: &str, player: &str| {
        format!(r#"{{"power":"{power}","player":"{player}","centers":0,"eliminated":1910}}"#)
    };
    refused(
        &game(
            "dip-v9",
            "2024-06-01",
            "draw",
            None,
            &list(&[gone("X", "a"), gone("Y", "b")]),
        ),
        &["game dip-v9: no power holds a center"],
    );
}

#[test]
fn a_player_holds_one_power_and_has_a_name() {
    refused(
        &game(
            "dip-v10",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 9), p("Y", "a", 9)]),
        ),
        &["game dip-v10: player a plays both X and Y"],
    );
    refused(
        &game(
            "dip-v10",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 9), p("Y", "", 9)]),
        ),
        &["game dip-v10: power Y: player must be a name, or null for a surrendered position"],
    );
}

#[test]
fn a_game_is_recorded_once() {
    let two = list(&[p("X", "a", 9), p("Y", "b", 9)]);
    // Already in the ledger (the draws file: record 1, dated 2024-03-09),
    // given again dated after it or before (then it folds first): the new
    // line is refused by its place, naming record 1.
    let reg = r#"{"type":"ledger.player_registered","at":"2001-01-01","player":"Zed Quill"}"#;
    for at in ["2024-05-01", "2024-01-01"] {
        let again = game("diplomacy-2024-r1", at, "draw", None, &two);
        refused(
            &format!("{reg}\n{again}\n"),
            &[
                "-:2, diplomacy.game_ended: game diplomacy-2024-r1 already has a result, \
               recorded at seq 1; a game is recorded once (to correct it: `laurel correct 1 FILE --reason TEXT`",
            ],
        );
    }
    // Twice in one append: nothing of it is written.
    let v1 = game("dip-v11", "2024-06-01", "draw", None, &two);
    let v2 = game("dip-v11", "2024-06-02", "draw", None, &two);
    refused(
        &format!("{v1}\n{v2}\n"),
        &[
            "-:2, diplomacy.game_ended: game dip-v11 has a result in another event of this \
           append, dated at or before this one; a game is recorded once",
        ],
    );
}

#[test]
fn a_corrected_game_is_a_void_plus_the_new_result() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    // Seq 1 is round 1; it had England and France swapped.
    laurel(dir.path())
        .args(["void", "1", "--reason", "England and France swapped"])
        .assert()
        .success();
    let fixed = game(
        "diplomacy-2024-r1",
        "2024-03-09",
        "draw",
        None,
        &list(&[
            p("Austria", "Mireille Dufour", 10),
            p("England", "Ines Carvalho", 8),
            p("France", "Bartholomew Okafor", 6),
            p("Germany", "Tobias Lindqvist", 5),
            p("Italy", "Oskar Wendt", 3),
            p("Russia", "Priya Raman", 2),
            r#"{"power":"Turkey","player":"Dmitri Volkov","centers":0,"eliminated":1907}"#.into(),
        ]),
    );
    common::append_ok(dir.path(), &fixed);
    let v = standings(dir.path(), &["fibonacci"]);
    assert_eq!(
        common::row(&v, "Ines Carvalho")["per_game"],
        json!([
            {"game": "diplomacy-2024-r1", "score": 0.25},
            {"game": "diplomacy-2024-r2", "score": 0.05}
        ])
    );
}

#[test]
fn base_one_applies_from_its_rules_change_on() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let rules = r#"{"type":"ledger.rules_changed","at":"2024-03-09T12:00:00Z","system":"fibonacci","params":{"base":1}}"#;
    common::append_ok(dir.path(), rules);
    let v = standings(dir.path(), &["fibonacci"]);
    // Round 1 keeps base 0 (8/20); round 2 uses 1, 1, 2, 3, 5, 8, 13 = 33: 13/33.
    assert_eq!(scores_by_power(&v, "diplomacy-2024-r1")[0].1, json!(0.4));
    assert_eq!(scores_by_power(&v, "diplomacy-2024-r2")[0].1, json!(0.3939));
    // Last place gets 1/33 under base 1.
    assert_eq!(scores_by_power(&v, "diplomacy-2024-r2")[6].1, json!(0.0303));
    // A base other than 0 or 1 is refused at append, with the values allowed.
    let out = append_text(
        dir.path(),
        r#"{"type":"ledger.rules_changed","at":"2024-03-09T18:00:00Z","system":"fibonacci","params":{"base":2}}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fibonacci.base: 2 is out of range; allowed: an integer from 0 to 1"),
        "{err}"
    );
}

#[test]
fn carnage_and_fibonacci_parameters_come_from_a_rules_file() {
    let dir = ledger_with(ALL);
    let rules = dir.path().join("rules.json");
    std::fs::write(
        &rules,
        r#"{"carnage": {"rank_points": 100, "centers_total": 35}, "fibonacci": {"min_powers": 4}}"#,
    )
    .unwrap();
    let rules = rules.to_str().unwrap();
    let c = standings(dir.path(), &["carnage", "--rules", rules]);
    // Solo: 100 x (1 + ... + 7) + 35.
    assert_eq!(scores_by_power(&c, "diplomacy-2024-r3")[0].1, json!(2835));
    assert_eq!(scores_by_power(&c, "diplomacy-2024-r1")[0].1, json!(710));
    // With min_powers 4 the 4-power game is scored: 0, 1, 1, 2 = 4.
    let f = standings(dir.path(), &["fibonacci", "--rules", rules]);
    assert_eq!(f["tables"]["refused"], json!([]));
    let got: Vec<Value> = scores_by_power(&f, "diplomacy-2024-four")
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    assert_eq!(got, vec![json!(0.5), json!(0.25), json!(0.25), json!(0)]);
}

#[test]
fn every_parameter_is_listed_by_rules() {
    let dir = common::empty_ledger();
    let v = json(dir.path(), &["rules", "--format", "json"]);
    let ours: Vec<(Value, Value, Value)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            ["fibonacci", "carnage", "diplomacy_tournament"]
                .contains(&r["system"].as_str().unwrap())
        })
        .map(|r| {
            (
                r["system"].clone(),
                r["param"].clone(),
                r["default"].clone(),
            )
        })
        .collect();
    assert_eq!(
        ours,
        vec![
            (json!("fibonacci"), json!("base"), json!(0)),
            (json!("fibonacci"), json!("min_powers"), json!(5)),
            (json!("carnage"), json!("rank_points"), json!(1000)),
            (json!("carnage"), json!("centers_total"), json!(34)),
            (json!("carnage"), json!("centre_points"), json!(1)),
            (json!("carnage"), json!("eliminated"), json!("by_year")),
            (json!("carnage"), json!("leader_bonus"), json!(0)),
            (
                json!("diplomacy_tournament"),
                json!("best_rounds"),
                json!(0)
            ),
        ]
    );
}

#[test]
fn history_shows_each_game_with_its_formula() {
    let dir = ledger_with(ALL);
    let v = json(
        dir.path(),
        &[
            "history",
            "Tobias Lindqvist",
            "--system",
            "carnage",
            "--format",
            "json",
        ],
    );
    let rows = v["rows"].as_array().unwrap();
    let lines: Vec<(Value, Value, Value)> = rows
        .iter()
        .map(|r| (r["old"].clone(), r["new"].clone(), r["formula"].clone()))
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(
        lines[0],
        (
            Value::Null,
            json!("4005"),
            json!("+4005 = 4000 + 5 centers [game diplomacy-2024-r1, Germany: rank 4 of 7, 5 centers]")
        )
    );
    // The solo, in fold (at) order: third.
    assert_eq!(
        lines[2],
        (
            json!("6007"),
            json!("34041"),
            json!("+28034 = 28000 + 34 (solo: every rank point, 1000 x (1 + ... + 7), plus the board's centers) [game diplomacy-2024-r3, France: rank 1 of 7, 18 centers]")
        )
    );
    let f = json(
        dir.path(),
        &[
            "history",
            "Priya Raman",
            "--system",
            "fibonacci",
            "--format",
            "json",
        ],
    );
    let tie = &f["rows"][1];
    assert_eq!(
        tie["formula"],
        "+0.2000 = (5 + 3) / 2 / 20 [game diplomacy-2024-r2, France: ranks 2-3 of 7, 7 centers]"
    );
    assert_eq!(
        (&tie["old"], &tie["new"]),
        (&json!("0.0500"), &json!("0.2500"))
    );
}

#[test]
fn ties_share_a_rank_only_when_total_and_games_are_equal() {
    let dir = ledger_with(ALL);
    let v = standings(dir.path(), &["dss"]);
    let ranks: Vec<(Value, Value, Value, Value)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rank"].clone(),
                r["player"].clone(),
                r["score"].clone(),
                r["games"].clone(),
            )
        })
        .collect();
    // 1/6 x 3 + 1/4 = 3/4 for both; 1/6 x 2 + 1/4 = 7/12 for both.
    assert_eq!(
        ranks[2],
        (json!(3), json!("Mireille Dufour"), json!(0.75), json!(5))
    );
    assert_eq!(
        ranks[3],
        (json!(3), json!("Priya Raman"), json!(0.75), json!(5))
    );
    assert_eq!(
        ranks[4],
        (json!(5), json!("Dmitri Volkov"), json!(0.5833), json!(5))
    );
    assert_eq!(
        ranks[5],
        (json!(5), json!("Oskar Wendt"), json!(0.5833), json!(5))
    );
}

#[test]
fn more_games_break_an_equal_total() {
    let dir = common::empty_ledger();
    // Two 2-power DSS draws: a plays twice (1/2 + 1/2 = 1), c wins once (1).
    let text = [
        game(
            "dip-t1",
            "2024-06-01",
            "draw",
            None,
            &list(&[p("X", "a", 9), p("Y", "b", 9)]),
        ),
        game(
            "dip-t2",
            "2024-06-02",
            "draw",
            None,
            &list(&[p("X", "a", 9), p("Y", "d", 9)]),
        ),
        game(
            "dip-t3",
            "2024-06-03",
            "solo",
            Some("X"),
            &list(&[p("X", "c", 18), p("Y", "e", 9)]),
        ),
    ]
    .join(
        "
",
    );
    common::append_ok(dir.path(), &text);
    let v = standings(dir.path(), &["dss"]);
    let top: Vec<(Value, Value)> = v["rows"].as_array().unwrap()[..2]
        .iter()
        .map(|r| (r["rank"].clone(), r["player"].clone()))
        .collect();
    assert_eq!(top, vec![(json!(1), json!("a")), (json!(2), json!("c"))]);
}

#[test]
fn as_of_folds_only_the_games_ended_by_then() {
    let dir = ledger_with(ALL);
    let v = standings(dir.path(), &["carnage", "--as-of", "2024-03-09"]);
    assert_eq!(common::row(&v, "Mireille Dufour")["score"], json!(7010));
    assert_eq!(common::row(&v, "Tobias Lindqvist")["games"], json!(1));
}

#[test]
fn csv_and_text_formats_print_the_table() {
    let dir = ledger_with(&["diplomacy_draws.jsonl"]);
    let out = laurel(dir.path())
        .args(["standings", "carnage", "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("rank,player,score,games,per_game"));
    assert_eq!(
        lines.next(),
        Some("1,Mireille Dufour,12517,2,diplomacy-2024-r1: 7010; diplomacy-2024-r2: 5507")
    );
    // One table: the standings (the games with --table games).
    assert!(!csv.contains("game,at,power"), "{csv}");
    let out = laurel(dir.path())
        .args(["standings", "sos"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap().starts_with("ledger at seq "),
        "{text}"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("Sum-of-Squares standings"),
        "{text}"
    );
}

#[test]
fn snapshots_of_every_table() {
    let dir = ledger_with(ALL);
    for table in ["fibonacci", "carnage", "dss", "sos"] {
        let v = standings(dir.path(), &[table]);
        common::insta_settings().bind(|| insta::assert_json_snapshot!(table, v));
    }
}
