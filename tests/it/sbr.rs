//! Space Base Race through the built binary: the bundled tournament's numbers,
//! snapshots of every table, and every validation rule (exit 2, head unchanged).

use crate::common;

use common::sbr::{adv, full_match, match_game, match_rows, rejected, seed_line};
use common::{append_text, head, ledger_with, standings};
use serde_json::{json, Value};

const MARS: &str = "sbr_mars_2014.jsonl";

fn mars() -> Value {
    let dir = ledger_with(&[MARS]);
    standings(dir.path(), &["sbr", "--tournament", "mars-2014"])
}

#[test]
fn bundled_tournament_podium_and_advancement_as_hand_checked() {
    let v = mars();
    // Seeding: Curiosity 62 = F 5×3 + I5 5×3 + L5 + N + P + T5 + U + V5 (6×5) + I2 2.
    let seeding = &v["tables"]["seeding"];
    assert_eq!(seeding[0]["player"], "Curiosity");
    assert_eq!(seeding[0]["score"], 62);
    assert_eq!(seeding[15]["player"], "Pioneer");
    assert_eq!(seeding[15]["score"], 28);
    // Group round 1: top 2 of each match.
    assert_eq!(adv(&match_rows(&v, "A")), ["Curiosity", "Spirit"]);
    assert_eq!(adv(&match_rows(&v, "B")), ["Voyager", "Opportunity"]);
    assert_eq!(adv(&match_rows(&v, "C")), ["Cassini", "Galileo"]);
    assert_eq!(adv(&match_rows(&v, "D")), ["Rosetta", "Juno"]);
    // Round 2.
    assert_eq!(
        match_rows(&v, "E"),
        [
            ("Cassini".into(), 197, true),
            ("Curiosity".into(), 185, true),
            ("Juno".into(), 176, false),
            ("Opportunity".into(), 164, false)
        ]
    );
    assert_eq!(adv(&match_rows(&v, "F")), ["Rosetta", "Voyager"]);
    // Round 3, the group final (G): 51+55+49+52 = 207, 53+50+48+51 = 202,
    // 47+49+52+46 = 194, 45+48+47+50 = 190: Cassini and Rosetta are 1st and
    // 2nd of group 1, the only players to reach the bracket.
    assert_eq!(adv(&match_rows(&v, "G")), ["Cassini", "Rosetta"]);
    // Bracket seeds: score in the last group match (207, 202).
    let bs: Vec<(&str, i64)> = v["tables"]["bracket_seeding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["player"].as_str().unwrap(), r["score"].as_i64().unwrap()))
        .collect();
    assert_eq!(bs, [("Cassini", 207), ("Rosetta", 202)]);
    // The bracket's final, the two against two bots: Rosetta 49+53+47+51 =
    // 200, Cassini 52+48+50+46 = 196; two players, so two podium places.
    let top: Vec<(i64, &str, i64, &str)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .take(5)
        .map(|r| {
            (
                r["rank"].as_i64().unwrap(),
                r["player"].as_str().unwrap(),
                r["score"].as_i64().unwrap(),
                r["result"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        top,
        [
            (1, "Rosetta", 200, "1st place"),
            (2, "Cassini", 196, "2nd place"),
            (3, "Voyager", 194, "eliminated"),
            (4, "Curiosity", 190, "eliminated"),
            (5, "Galileo", 182, "eliminated"),
        ]
    );
    assert_eq!(v["rows"].as_array().unwrap().len(), 16);
    assert_eq!(v["rows"][15]["player"], "Pioneer");
}

#[test]
fn tie_on_match_score_is_broken_by_best_game() {
    // Match B: Kepler and Opportunity both 170; Opportunity's best game 52 > 45,
    // so the worse seed (10 against 7) advances.
    let v = mars();
    let b = &v["tables"]["match_B"];
    assert_eq!(
        (
            b[1]["player"].clone(),
            b[1]["score"].clone(),
            b[1]["best_game"].clone()
        ),
        (json!("Opportunity"), json!(170), json!(52))
    );
    assert_eq!(
        (
            b[2]["player"].clone(),
            b[2]["score"].clone(),
            b[2]["best_game"].clone()
        ),
        (json!("Kepler"), json!(170), json!(45))
    );
    assert_eq!(
        (b[1]["seed"].clone(), b[2]["seed"].clone()),
        (json!(10), json!(7))
    );
}

#[test]
fn tie_on_score_and_best_game_is_broken_by_seed() {
    // Match F: Voyager and Galileo both 182 with a best game of 47; seed 2 beats 6.
    let v = mars();
    let f = &v["tables"]["match_F"];
    for (i, player, seed, advanced) in [(1, "Voyager", 2, true), (2, "Galileo", 6, false)] {
        assert_eq!(f[i]["player"], player);
        assert_eq!(f[i]["score"], 182);
        assert_eq!(f[i]["best_game"], 47);
        assert_eq!(f[i]["seed"], seed);
        assert_eq!(f[i]["advanced"], advanced);
        assert_eq!(f[i]["rank"], i + 1);
    }
}

/// A bracket match's tie-break seed is the bracket seed, a column of its
/// own (`bracket_seed`, "Bracket seed"); `seed` ("Seeding rank") is the
/// seeding rank wherever it is shown: Rosetta is seeding rank 5 and bracket
/// seed 2, under two titles.
#[test]
fn the_bracket_seed_and_the_seeding_rank_are_two_columns() {
    let v = mars();
    let rosetta = |rows: &Value| -> Value {
        let rows = rows.as_array().unwrap();
        rows.iter()
            .find(|r| r["player"] == "Rosetta")
            .unwrap()
            .clone()
    };
    let fin = rosetta(&v["tables"]["match_final"]);
    assert_eq!((&fin["bracket_seed"], fin.get("seed")), (&json!(2), None));
    assert_eq!(rosetta(&v["rows"])["seed"], json!(5));
    assert_eq!(rosetta(&v["tables"]["match_D"])["seed"], json!(5));
    assert_eq!(rosetta(&v["tables"]["bracket_seeding"])["seed"], json!(5));
    assert!(rosetta(&v["tables"]["match_D"])
        .get("bracket_seed")
        .is_none());
    let dir = ledger_with(&[MARS]);
    let text = |table: &str| {
        let out = common::laurel(dir.path())
            .args([
                "standings",
                "sbr",
                "--tournament",
                "mars-2014",
                "--table",
                table,
            ])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().nth(2).unwrap().to_string()
    };
    assert!(
        text("match_final").contains("  Bracket seed  "),
        "{}",
        text("match_final")
    );
    assert!(!text("match_final").contains("Seeding rank"));
    for table in ["sbr", "match_D", "bracket_seeding"] {
        assert!(
            text(table).contains("Seeding rank"),
            "{table}: {}",
            text(table)
        );
    }
}

/// The list's rows name each tournament's champion as every table names a
/// player and a score (`player`, `score`: the final's winner and their score
/// in it, the final ranking's first row); none before the final.
#[test]
fn the_list_of_tournaments_names_the_champion_as_player_and_score() {
    let dir = ledger_with(&[MARS]);
    let list = standings(dir.path(), &["sbr"]);
    let first = &mars()["rows"][0];
    let row = &list["rows"][0];
    assert_eq!(
        (&row["player"], &row["score"]),
        (&json!("Rosetta"), &json!(200))
    );
    assert_eq!(
        (&first["player"], &first["score"]),
        (&row["player"], &row["score"])
    );
    let text = common::laurel(dir.path())
        .args(["standings", "sbr"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let header = text.lines().nth(2).unwrap();
    assert!(header.ends_with("Matches  First place  Score"), "{header}");
    let created = r#"{"type":"sbr.tournament_created","at":"2014-10-25","tournament":"t"}"#;
    let dir = common::ledger_of(created);
    let row = &standings(dir.path(), &["sbr"])["rows"][0];
    assert_eq!(
        (&row["player"], &row["score"]),
        (&json!(null), &json!(null))
    );
}

#[test]
fn snapshots_of_every_table() {
    let dir = ledger_with(&[MARS]);
    let list = standings(dir.path(), &["sbr"]);
    let full = standings(dir.path(), &["sbr", "--tournament", "mars-2014"]);
    let csv = common::laurel(dir.path())
        .args([
            "standings",
            "sbr",
            "--tournament",
            "mars-2014",
            "--format",
            "csv",
        ])
        .output()
        .expect("ran");
    assert!(csv.status.success());
    let csv = String::from_utf8(csv.stdout).expect("utf8");
    assert!(csv.starts_with("rank,player,score,"), "{csv}");
    common::insta_settings().bind(|| {
        insta::assert_json_snapshot!("tournaments", list);
        insta::assert_json_snapshot!("mars_2014", full);
        insta::assert_snapshot!("mars_2014_csv", csv);
    });
}

#[test]
fn history_shows_each_game_with_its_pieces() {
    let dir = ledger_with(&[MARS]);
    let v = common::json(dir.path(), &["history", "Voyager", "--format", "json"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["new"], "58");
    assert!(rows[0]["formula"]
        .as_str()
        .unwrap()
        .starts_with("seeding score 58 = I5 5×3 + L5 5×3 + F 5"));
    let last = rows.last().unwrap();
    assert_eq!(last["new"], "194");
    assert!(last["formula"]
        .as_str()
        .unwrap()
        .contains("match G complete: place 3"));
}

/// A small tournament `t` with four seeded players and game 1 of group match m1.
const SMALL: &str = r#"
{"type":"sbr.tournament_created","at":"2015-03-01T09:00:00Z","tournament":"t"}
{"type":"sbr.game_played","at":"2015-03-01T10:00:00Z","tournament":"t","stage":"seeding","match":"s1","game":1,"seats":[{"seat":"red","player":"ann","score":40},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}
{"type":"sbr.game_played","at":"2015-03-01T10:10:00Z","tournament":"t","stage":"seeding","match":"s2","game":1,"seats":[{"seat":"red","player":"bob","score":30},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}
{"type":"sbr.game_played","at":"2015-03-01T11:00:00Z","tournament":"t","stage":"group","match":"m1","game":1,"seats":[{"seat":"red","player":"ann","score":20},{"seat":"yellow","player":"bob","score":10},{"seat":"green","player":null},{"seat":"blue","player":null}]}
"#;

fn small() -> tempfile::TempDir {
    let dir = common::empty_ledger();
    let out = append_text(dir.path(), SMALL);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn group_game(game: u32, seats: &str) -> String {
    format!(
        r#"{{"type":"sbr.game_played","at":"2015-03-01T11:{:02}:00Z","tournament":"t","stage":"group","match":"m1","game":{game},"seats":[{seats}]}}"#,
        game * 10
    )
}

const BOTS_GB: &str = r#"{"seat":"green","player":null},{"seat":"blue","player":null}"#;

#[test]
fn a_game_score_is_recomputed_from_its_pieces() {
    let dir = small();
    // Only bases: X 5×3 + I5 5 + V3 3 + I1 1×3 = 26 becomes the seeding score.
    let ok = r#"{"type":"sbr.game_played","at":"2015-03-01T10:20:00Z","tournament":"t","stage":"seeding","match":"s3","game":1,"seats":[{"seat":"red","player":"cy","bases":[{"piece":"X","bonus":true},{"piece":"I5","bonus":false},{"piece":"V3","bonus":false},{"piece":"I1","bonus":true}]},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    assert!(append_text(dir.path(), ok).status.success());
    let v = standings(dir.path(), &["sbr", "--tournament", "t"]);
    let cy = v["tables"]["seeding"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == "cy")
        .cloned()
        .unwrap();
    assert_eq!(cy["score"], 26);
    // A reported score that disagrees with the bases is refused.
    let bad = ok
        .replace("\"s3\"", "\"s4\"")
        .replace("\"cy\",", "\"di\",\"score\":27,");
    rejected(
        dir.path(),
        &bad,
        &[
            "tournament t, seeding match s4, game 1",
            "player di (red seat): score 27 does not agree with its bases (X 5×3 + I5 5 + V3 3 + I1 1×3 = 26)",
        ],
    );
}

#[test]
fn pieces_come_from_the_set_once_each() {
    let dir = small();
    let seat = |bases: &str| {
        group_game(
            2,
            &format!(
                r#"{{"seat":"yellow","player":"ann","bases":[{bases}]}},{{"seat":"green","player":"bob","score":5}},{{"seat":"blue","player":null}},{{"seat":"red","player":null}}"#
            ),
        )
    };
    rejected(
        dir.path(),
        &seat(r#"{"piece":"Q9","bonus":false}"#),
        &[
            "match m1, game 2",
            "player ann (yellow seat): piece \"Q9\" is not one of the 21 bases",
        ],
    );
    rejected(
        dir.path(),
        &seat(r#"{"piece":"W","bonus":false},{"piece":"W","bonus":true}"#),
        &["player ann (yellow seat): piece W is placed twice"],
    );
}

#[test]
fn seats_are_red_yellow_green_blue_each_once() {
    let dir = small();
    let line = group_game(
        2,
        r#"{"seat":"red","player":"ann","score":1},{"seat":"red","player":"bob","score":1},{"seat":"green","player":null},{"seat":"blue","player":null}"#,
    );
    rejected(
        dir.path(),
        &line,
        &["seats must be red, yellow, green and blue, each once (got red, red, green, blue)"],
    );
    let twice = group_game(
        2,
        &format!(
            r#"{{"seat":"yellow","player":"ann","score":1}},{{"seat":"red","player":"ann","score":1}},{BOTS_GB}"#
        ),
    );
    rejected(dir.path(), &twice, &["player ann holds two seats"]);
}

#[test]
fn each_player_once_in_each_seat_and_the_same_players_all_match() {
    let dir = small();
    // ann already played red in game 1.
    let line = group_game(
        2,
        &format!(
            r#"{{"seat":"red","player":"ann","score":1}},{{"seat":"yellow","player":"bob","score":1}},{BOTS_GB}"#
        ),
    );
    rejected(
        dir.path(),
        &line,
        &["player ann already played the red seat in match m1 (each player plays each seat once)"],
    );
    let other = group_game(
        2,
        r#"{"seat":"yellow","player":"ann","score":1},{"seat":"green","player":null},{"seat":"blue","player":null},{"seat":"red","player":null}"#,
    );
    rejected(
        dir.path(),
        &other,
        &["match m1 is played by ann, bob; this game has ann (a match keeps the same players)"],
    );
}

/// `group` is optional game by game: a later game of a match whose first
/// game left it out may give it, when it is the players' group; a game may
/// leave out the group another gave.
#[test]
fn a_later_game_may_give_the_group_the_first_left_out() {
    let dir = small();
    let seats = |g: &str| {
        format!(
            r#"{{"seat":"yellow","player":"ann","score":1}},{{"seat":"red","player":"bob","score":1}},{BOTS_GB}],"group":"{g}""#
        )
    };
    let game2 = |g: &str| group_game(2, &seats(g)).replace("]}", "}");
    rejected(
        dir.path(),
        &game2("2"),
        &["group 2 is not the players' group: ann is in group 1"],
    );
    let out = append_text(dir.path(), &game2("1"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game3 = group_game(
        3,
        r#"{"seat":"green","player":"ann","score":1},{"seat":"blue","player":"bob","score":1},{"seat":"red","player":null},{"seat":"yellow","player":null}"#,
    );
    let out = append_text(dir.path(), &game3);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A match's Advanced is blank (null) until the match is complete; with a
/// podium of 0 the final ranking's title says there is none.
#[test]
fn advanced_is_blank_until_a_match_is_complete_and_a_podium_of_0_says_none() {
    let dir = small();
    let v = standings(dir.path(), &["sbr", "--tournament", "t"]);
    let rows = v["tables"]["match_m1"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["advanced"].is_null()), "{rows:?}");
    let mars = ledger_with(&[MARS]);
    let rules = mars.path().join("podium0.json");
    std::fs::write(&rules, r#"{"sbr": {"podium": 0}}"#).unwrap();
    let out = common::laurel(mars.path())
        .args(["standings", "sbr", "--tournament", "mars-2014", "--rules"])
        .arg(&rules)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Tournament mars-2014: final ranking (no podium)"),
        "{text}"
    );
}

#[test]
fn a_game_is_recorded_once() {
    let dir = small();
    let line = group_game(
        1,
        &format!(
            r#"{{"seat":"yellow","player":"ann","score":1}},{{"seat":"red","player":"bob","score":1}},{BOTS_GB}"#
        ),
    );
    rejected(
        dir.path(),
        &line,
        &["game 1 of match m1 is already recorded"],
    );
    let five = group_game(
        5,
        &format!(
            r#"{{"seat":"yellow","player":"ann","score":1}},{{"seat":"red","player":"bob","score":1}},{BOTS_GB}"#
        ),
    );
    rejected(
        dir.path(),
        &five,
        &["game must be 1 to 4 (a match is 4 games)"],
    );
}

#[test]
fn stages_in_order_and_entitled_players_only() {
    let dir = small();
    let seeding_late = r#"{"type":"sbr.game_played","at":"2015-03-01T12:00:00Z","tournament":"t","stage":"seeding","match":"s9","game":1,"seats":[{"seat":"red","player":"eve","score":40},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    rejected(
        dir.path(),
        seeding_late,
        &[
            "tournament t, seeding match s9",
            "already in its group stage; a seeding game comes too late",
        ],
    );
    let bracket = r#"{"type":"sbr.game_played","at":"2015-03-01T12:00:00Z","tournament":"t","stage":"bracket","match":"f","game":1,"seats":[{"seat":"red","player":"ann","score":40},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    rejected(
        dir.path(),
        bracket,
        &["player ann was not 1st or 2nd of group 1"],
    );
    let unseeded = r#"{"type":"sbr.game_played","at":"2015-03-01T12:00:00Z","tournament":"t","stage":"group","match":"m2","game":1,"seats":[{"seat":"red","player":"zed","score":40},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    rejected(dir.path(), unseeded, &["player zed has no seeding game"]);
    let busy = unseeded.replace("zed", "bob");
    rejected(
        dir.path(),
        &busy,
        &["player bob is still playing match m1 (1 of 4 games recorded at or before this game's `at`)"],
    );
}

#[test]
fn seeding_is_one_game_in_red_against_bots() {
    let dir = small();
    let two = r#"{"type":"sbr.game_played","at":"2015-03-01T10:30:00Z","tournament":"t","stage":"seeding","match":"s5","game":1,"seats":[{"seat":"red","player":"cy","score":40},{"seat":"yellow","player":"di","score":3},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    rejected(
        dir.path(),
        two,
        &["a seeding game has one player, in the red seat, against three bots"],
    );
    let again = r#"{"type":"sbr.game_played","at":"2015-03-01T10:30:00Z","tournament":"t","stage":"seeding","match":"s6","game":1,"seats":[{"seat":"red","player":"ann","score":40},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    rejected(
        dir.path(),
        again,
        &["player ann is already seeded (seeding game s1)"],
    );
}

#[test]
fn games_need_their_tournament_first() {
    let dir = common::empty_ledger();
    // The game's `at` is before the tournament's creation: in fold order it finds none.
    let text = r#"{"type":"sbr.tournament_created","at":"2015-03-01T09:00:00Z","tournament":"u"}
{"type":"sbr.game_played","at":"2015-02-28T10:00:00Z","tournament":"u","stage":"seeding","match":"s1","game":1,"seats":[{"seat":"red","player":"ann","score":40},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    rejected(
        dir.path(),
        text,
        &[
            "tournament u is not created at 2015-02-28T10:00:00Z, the game's date (an \
             sbr.tournament_created dated no later creates it; if one is dated after it, \
             correct its date",
        ],
    );
    assert_eq!(head(dir.path()).0, 0);
    let dup = small();
    rejected(
        dup.path(),
        r#"{"type":"sbr.tournament_created","at":"2015-03-02","tournament":"t"}"#,
        &["tournament t is already created"],
    );
}

#[test]
fn no_game_after_the_final() {
    let dir = ledger_with(&[MARS]);
    let late = r#"{"type":"sbr.game_played","at":"2014-10-27T10:00:00Z","tournament":"mars-2014","stage":"bracket","match":"final2","game":1,"seats":[{"seat":"red","player":"Cassini","score":40},{"seat":"yellow","player":null},{"seat":"green","player":null},{"seat":"blue","player":null}]}"#;
    rejected(
        dir.path(),
        late,
        &["tournament mars-2014, bracket match final2, game 1: the tournament is over: its final match final is complete"],
    );
}

/// 20 seeded players p01 (100) … p20 (81), and p21 tied with p20 at 81.
fn twenty_one() -> tempfile::TempDir {
    let dir = common::empty_ledger();
    let mut text =
        r#"{"type":"sbr.tournament_created","at":"2015-03-01T09:00:00Z","tournament":"g"}"#
            .to_string()
            + "\n";
    for i in 1..=20 {
        text += &(seed_line("g", i, &format!("p{i:02}"), 101 - i as i64) + "\n");
    }
    // Equal seeding scores: p20 and p21 both 81, ordered by name.
    text += &(seed_line("g", 21, "p21", 81) + "\n");
    let out = append_text(dir.path(), &text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn groups_of_16_are_formed_from_the_seeding_in_snake_order() {
    let dir = twenty_one();
    let d = dir.path();
    // 21 seeded: ceil(21 / 16) = 2 groups. Snake: p01 → 1, p02 → 2, p03 → 2,
    // p04 → 1, p05 → 1, p06 → 2, p07 → 2, p08 → 1, p09 → 1 (group 2 is full at
    // its 21 - 16 = 5 players with p10), p10 → 2, then p11 … p21 → 1.
    // Group 2: p02, p03, p06, p07, p10 and 11 bots.
    let g2 = [("p02", 60), ("p03", 50), ("p06", 40), ("p07", 30)];
    let out = append_text(d, &match_game("g", "group", "b1", 11, 1, &g2));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // p01 and p10 are in different groups.
    rejected(
        d,
        &match_game("g", "group", "x1", 11, 1, &[("p01", 60), ("p10", 50)]),
        &["players p01 (group 1) and p10 (group 2) are in different groups (groups of 16"],
    );
    // `group`, when given, must name the players' group.
    let named = match_game("g", "group", "x2", 11, 1, &[("p04", 60), ("p05", 50)])
        .replace(r#""game":1,"#, r#""game":1,"group":"2","#);
    rejected(
        d,
        &named,
        &["group 2 is not the players' group: p04 is in group 1"],
    );
    // The tie at 81: p20 before p21 by name, so p20 is the 20th seed and
    // p21 the 21st; both fall in group 1 (group 2 filled at the 10th).
    let tie = match_game(
        "g",
        "group",
        "a9",
        11,
        1,
        &[("p20", 60), ("p21", 50), ("p11", 5)],
    );
    let out = append_text(d, &tie);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn only_the_1st_and_2nd_of_a_group_enter_the_bracket() {
    let dir = twenty_one();
    let d = dir.path();
    // Group 2 (p02, p03, p06, p07; p10 is its fifth) plays round 1 with p10
    // against bots, then its group final.
    let mut text = full_match(
        "g",
        "group",
        "b1",
        11,
        &[("p02", 60), ("p03", 50), ("p06", 40), ("p07", 30)],
    );
    text += &full_match("g", "group", "b2", 11, &[("p10", 45)]);
    let out = append_text(d, &text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Group 2 has not played down to one match (p02, p03 from b1 and p10 from
    // b2 are still in): nobody of it is 1st or 2nd yet.
    rejected(
        d,
        &match_game("g", "bracket", "f", 10, 1, &[("p02", 60)]),
        &["player p02 was not 1st or 2nd of group 2 (the top 2 of a group played down to one match)"],
    );
    // The group final: p10 240 (4 × 60), p02 200, p03 160 → p10 and p02.
    let fin = full_match(
        "g",
        "group",
        "b3",
        14,
        &[("p02", 50), ("p03", 40), ("p10", 60)],
    );
    let out = append_text(d, &fin);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // p03 was 3rd of the group final: refused; p06 went out in round 1.
    rejected(
        d,
        &match_game("g", "bracket", "f", 10, 1, &[("p10", 60), ("p03", 50)]),
        &["player p03 was not 1st or 2nd of group 2"],
    );
    rejected(
        d,
        &match_game("g", "bracket", "f", 10, 1, &[("p06", 60)]),
        &["player p06 was not 1st or 2nd of group 2"],
    );
    // Group 1 has played nothing: p01 is not 1st or 2nd of it.
    rejected(
        d,
        &match_game("g", "bracket", "f", 10, 1, &[("p01", 60)]),
        &["player p01 was not 1st or 2nd of group 1"],
    );
    let out = append_text(
        d,
        &match_game("g", "bracket", "f", 10, 1, &[("p10", 60), ("p02", 50)]),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
