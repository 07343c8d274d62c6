//! Middle-earth PBM ratings through the built binary: every worked example of the
//! published rules, the rules they leave implicit, every validation rule, and
//! snapshots of every table on the bundled streams.

use crate::common;

use std::path::Path;

use common::{append_ok, append_refused, empty_ledger, head, ledger_with, row, standings};
use serde_json::{json, Value};

const FILES: &[&str] = &[
    "mepbm_ainur.jsonl",
    "mepbm_istari.jsonl",
    "mepbm_maia.jsonl",
    "mepbm_monthly.jsonl",
    "mepbm_nazgul.jsonl",
    "mepbm_valar.jsonl",
];

fn score(v: &Value, player: &str) -> Value {
    row(v, player)["score"].clone()
}

/// The `history PLAYER` rows as JSON, restricted to one system.
fn history(dir: &Path, player: &str, system: &str) -> Vec<Value> {
    let v = common::json(dir, &["history", player, "--format", "json"]);
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["system"] == system)
        .cloned()
        .collect()
}

/// JSON Lines for a game: `fp`, `ds` and `neutral` positions held by players
/// `{game}-fp1`, ...; nations are named after their side too.
pub(crate) fn game_started(game: &str, at: &str, fp: usize, ds: usize, neutral: usize) -> String {
    let mut pos = Vec::new();
    for (side, n) in [("FP", fp), ("DS", ds), ("neutral", neutral)] {
        for i in 1..=n {
            let tag = format!("{}{i}", side.to_lowercase());
            pos.push(json!({"nation": format!("N-{tag}"), "player": format!("{game}-{tag}"), "side": side}));
        }
    }
    json!({"type": "mepbm.game_started", "at": at, "game": game, "scenario": "1000", "positions": pos})
        .to_string()
        + "\n"
}

pub(crate) fn game_ended(game: &str, at: &str, winner: &str, nations: Value) -> String {
    json!({"type": "mepbm.game_ended", "at": at, "game": game, "turn": 30, "winner": winner, "nations": nations})
        .to_string()
        + "\n"
}

// ---------------------------------------------------------------- worked examples

#[test]
fn valar_seed_game_gives_71() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let v = standings(dir.path(), &["valar"]);
    // Dwarf 1700 → 1771; Blind Sorcerer 1784 → 1713.
    assert_eq!(score(&v, "Hal Irwin"), json!(1771));
    assert_eq!(score(&v, "Ray Stone"), json!(1713));
    // Rhudaur stayed neutral: loses 71 whatever his rating (1620).
    assert_eq!(score(&v, "Zoe Baird"), json!(1549));
    // Fire King + Long Rider: one player, changed once (1600 - 71), one game.
    assert_eq!(score(&v, "Uma Vance"), json!(1529));
    assert_eq!(row(&v, "Uma Vance")["games"], json!(1));
    let uma = history(dir.path(), "Uma Vance", "valar");
    assert_eq!(uma.len(), 2, "a seed and one change: {uma:?}");
    // New players start at 1500.
    assert_eq!(score(&v, "Evan Ford"), json!(1571));
    assert_eq!(score(&v, "Tom Upton"), json!(1429));
}

#[test]
fn valar_change_is_audited_with_its_inputs() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rows = history(dir.path(), "Hal Irwin", "valar");
    let change = rows
        .iter()
        .find(|r| r["formula"].as_str().unwrap().starts_with("+71"))
        .expect("a +71 change");
    assert_eq!(change["old"], json!("1700"));
    assert_eq!(change["new"], json!("1771"));
    let f = change["formula"].as_str().unwrap();
    assert!(f.contains("+71 = round(45 + (19665 - 15768) / 150)"), "{f}");
}

#[test]
fn valar_what_if_base_50_gives_76() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rules = dir.path().join("r.json");
    std::fs::write(&rules, r#"{"valar": {"base": 50}}"#).unwrap();
    let v = standings(dir.path(), &["valar", "--rules", rules.to_str().unwrap()]);
    assert_eq!(score(&v, "Hal Irwin"), json!(1776));
    assert_eq!(score(&v, "Ray Stone"), json!(1708));
}

#[test]
fn takeovers_drops_and_neutrals() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let v = standings(dir.path(), &["valar"]);
    // The Cloud Lord's starter was replaced: untouched, no game.
    assert_eq!(score(&v, "Oscar Page"), json!(1480));
    assert_eq!(row(&v, "Oscar Page")["games"], json!(0));
    assert!(history(dir.path(), "Oscar Page", "maia").is_empty());
    // His replacement is counted: 1050 - 71.
    assert_eq!(score(&v, "Pia Quinn"), json!(979));
    // Dog Lord dropped two turns before the end and was not replaced: counted.
    assert_eq!(score(&v, "Ned Owen"), json!(1329));
    // Harad joined FP: a winner (1200 + 71); Dunlendings joined DS: a loser.
    assert_eq!(score(&v, "Kim Lowe"), json!(1271));
    assert_eq!(score(&v, "Xena Zell"), json!(1172));
    // Nazgul agrees: joined neutrals count for their side, Rhudaur lost.
    let n = standings(dir.path(), &["nazgul"]);
    assert_eq!(row(&n, "Kim Lowe")["won"], json!(1));
    assert_eq!(row(&n, "Zoe Baird")["won"], json!(0));
    assert_eq!(row(&n, "Zoe Baird")["played"], json!(1));
    assert!(n["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["player"] != "Oscar Page"));
}

#[test]
fn maia_seed_examples() {
    let dir = ledger_with(&["mepbm_maia.jsonl"]);
    let v = standings(dir.path(), &["maia"]);
    assert_eq!(score(&v, "Mabel Reyes"), json!(1275));
    assert_eq!(score(&v, "Lars Olsen"), json!(1264));
    let f = history(dir.path(), "Mabel Reyes", "maia")[1]["formula"].clone();
    assert!(
        f.as_str()
            .unwrap()
            .starts_with("+25 = round(1400 / 1250 * 4 * sqrt(30))"),
        "{f}"
    );
}

#[test]
fn istari_seed_example() {
    let dir = ledger_with(&["mepbm_istari.jsonl"]);
    let v = standings(dir.path(), &["istari"]);
    assert_eq!(score(&v, "Isolde Marsh"), json!(1700));
    let rows = history(dir.path(), "Isolde Marsh", "istari");
    let steps: Vec<Value> = rows.iter().map(|r| r["new"].clone()).collect();
    assert_eq!(steps, vec![json!("1600"), json!("1550"), json!("1700")]);
    // A par is its games' VP over their number, not reduced.
    let formula = rows[1]["formula"].as_str().unwrap();
    assert!(
        formula.starts_with("-50 = round(1050 - 2200/2) (Woodmen: VP - par)"),
        "{formula}"
    );
    // The first game of a nation only sets its par.
    assert_eq!(score(&v, "Aldo Finn"), json!(1500));
    let n = standings(dir.path(), &["nations"]);
    // Woodmen: (1000 + 1200 + 1050) / 3.
    assert_eq!(score(&n, "Woodmen (1650)"), json!(1083.33));
    assert_eq!(row(&n, "Northmen (1650)")["games"], json!(3));
    assert_eq!(score(&n, "Northmen (1650)"), json!(1200.0));
}

#[test]
fn istari_pars_as_of_before_the_final_game() {
    let dir = ledger_with(&["mepbm_istari.jsonl"]);
    let n = standings(dir.path(), &["nations", "--as-of", "2003-12-12"]);
    assert_eq!(score(&n, "Woodmen (1650)"), json!(1100.0));
    assert_eq!(score(&n, "Northmen (1650)"), json!(1150.0));
}

#[test]
fn ainur_seed_example() {
    let dir = ledger_with(&["mepbm_ainur.jsonl"]);
    let v = standings(dir.path(), &["ainur"]);
    assert_eq!(score(&v, "Grey Company"), json!(1539));
    assert_eq!(score(&v, "Iron Crown"), json!(1411));
    assert_eq!(v["rows"][0]["rank"], json!(1));
}

#[test]
fn ainur_roster_change_costs_c_squared() {
    let dir = ledger_with(&["mepbm_ainur.jsonl"]);
    append_ok(
        dir.path(),
        r#"{"type":"mepbm.grudge_roster_changed","at":"2004-02-02","team":"Grey Company","added":["Ula Voss","Vin Wolfe"],"removed":["Hew Jory"]}"#,
    );
    let v = standings(dir.path(), &["ainur"]);
    assert_eq!(score(&v, "Grey Company"), json!(1535)); // 1539 - 2 * 2
    let row = row(&v, "Grey Company");
    let members = row["members"].as_array().unwrap();
    assert!(members.contains(&json!("Vin Wolfe")));
    assert!(!members.contains(&json!("Hew Jory")));
}

#[test]
fn nazgul_four_of_five_is_80_percent() {
    let dir = ledger_with(&["mepbm_nazgul.jsonl"]);
    let v = standings(dir.path(), &["nazgul"]);
    let nora = row(&v, "Nora Quill");
    assert_eq!(nora["score"], json!(80.0));
    assert_eq!(
        (nora["won"].clone(), nora["played"].clone()),
        (json!(4), json!(5))
    );
    // Each counted game is a history row; the bofa game is none.
    let rows = history(dir.path(), "Nora Quill", "nazgul");
    let news: Vec<&str> = rows.iter().map(|r| r["new"].as_str().unwrap()).collect();
    assert_eq!(news, ["100.0", "100.0", "66.7", "75.0", "80.0"]);
    let last = rows[4]["formula"].as_str().unwrap();
    assert!(
        last.starts_with("80.0 = 100 * 4 won / 5 played  [game "),
        "{last}"
    );
}

#[test]
fn monthly_1850_to_1843_to_1836_and_exact_halves() {
    let dir = ledger_with(&["mepbm_monthly.jsonl"]);
    let one = standings(dir.path(), &["valar", "--as-of", "2004-02-01"]);
    assert_eq!(score(&one, "Moira Finch"), json!(1843));
    let two = standings(dir.path(), &["valar"]);
    assert_eq!(score(&two, "Moira Finch"), json!(1836));
    // 0.98 * 75 = 73.5 exactly → 74 (floating point would give 73): 1575 → 1574.
    let m = standings(dir.path(), &["maia", "--as-of", "2004-02-01"]);
    assert_eq!(score(&m, "Hugo Pratt"), json!(1574));
    assert_eq!(
        score(&standings(dir.path(), &["maia"]), "Hugo Pratt"),
        json!(1573)
    );
}

#[test]
fn council_points_by_preference() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let v = standings(dir.path(), &["council"]);
    // Ray Stone: team 3 (Wes), nation 3 (Wes: Blind Sorcerer), enemy 3 + 3.
    let ray = row(&v, "Ray Stone");
    assert_eq!(ray["score"], json!(12));
    assert_eq!(ray["enemy_nation"], json!(6));
    assert_eq!(v["rows"][0]["player"], json!("Ray Stone"));
    // Hal and Ivy tie on 9 and share rank 2.
    assert_eq!(row(&v, "Hal Irwin")["rank"], json!(2));
    assert_eq!(row(&v, "Ivy Jones")["rank"], json!(2));
    assert_eq!(row(&v, "Gus Hale")["rank"], json!(4));
    let team = &v["tables"]["team_player"];
    assert_eq!(
        team[0],
        json!({"rank": 1, "player": "Gus Hale", "score": 4})
    );
    // Each ballot's points are a history row, naming the choice and the voter.
    let rows = history(dir.path(), "Ray Stone", "council");
    let steps: Vec<(&str, &str)> = (rows.iter())
        .map(|r| (r["old"].as_str().unwrap(), r["new"].as_str().unwrap()))
        .collect();
    assert_eq!(steps, [("0", "3"), ("3", "6"), ("6", "9"), ("9", "12")]);
    let formula = rows[3]["formula"].as_str().unwrap();
    assert_eq!(
        formula,
        "+3: best played nation (Blind Sorcerer), 1st choice, on Wes Young's ballot  [game 224]"
    );
}

// ---------------------------------------------------------------- implicit rules

#[test]
fn a_game_of_19_positions_earns_half() {
    let dir = empty_ledger();
    // 10 FP beat 9 DS, everyone new at 1500: 45 + (13500 - 15000) / 150 = 35,
    // halved 17.5 → 18 (half away from zero). Maia: 0.5 * 4 * sqrt(30) = 10.95 → 11.
    let text = game_started("g19", "2003-01-04", 10, 9, 0)
        + &game_ended("g19", "2003-06-07", "FP", json!([]));
    append_ok(dir.path(), &text);
    // A 20-position game earns in full: 45 + 0 = 45.
    let text = game_started("g20", "2003-01-04", 10, 10, 0)
        + &game_ended("g20", "2003-06-07", "FP", json!([]));
    append_ok(dir.path(), &text);
    let v = standings(dir.path(), &["valar"]);
    assert_eq!(score(&v, "g19-fp1"), json!(1518));
    assert_eq!(score(&v, "g19-ds1"), json!(1482));
    assert_eq!(score(&v, "g20-fp1"), json!(1545));
    let m = standings(dir.path(), &["maia"]);
    assert_eq!(score(&m, "g19-fp1"), json!(1511));
    assert_eq!(score(&m, "g20-fp1"), json!(1522));
    let f = history(dir.path(), "g19-fp1", "valar")[0]["formula"].clone();
    assert!(
        f.as_str()
            .unwrap()
            .contains("round(0.5 * (45 + (13500 - 15000) / 150))"),
        "{f}"
    );
}

#[test]
fn a_draw_changes_no_valar_and_is_played_not_won() {
    let dir = empty_ledger();
    let text = game_started("gd", "2003-01-04", 10, 10, 1)
        + &game_ended("gd", "2003-06-07", "draw", json!([]));
    append_ok(dir.path(), &text);
    let v = standings(dir.path(), &["valar"]);
    assert_eq!(score(&v, "gd-fp1"), json!(1500));
    // The unaligned neutral does not change either: a draw has no change at all.
    assert_eq!(score(&v, "gd-neutral1"), json!(1500));
    let n = standings(dir.path(), &["nazgul"]);
    assert_eq!(row(&n, "gd-fp1")["won"], json!(0));
    assert_eq!(row(&n, "gd-fp1")["played"], json!(1));
    assert_eq!(row(&n, "gd-fp1")["score"], json!(0.0));
    // Maia: a draw scores 3 for FP and DS, the neutral scores a loss (2).
    let m = standings(dir.path(), &["maia"]);
    assert_eq!(score(&m, "gd-fp1"), json!(1516)); // 3 * sqrt(30) = 16.43
    assert_eq!(score(&m, "gd-neutral1"), json!(1511)); // 2 * sqrt(30) = 10.95
}

#[test]
fn bofa_is_not_in_nazgul() {
    let dir = ledger_with(&["mepbm_nazgul.jsonl"]);
    let v = standings(dir.path(), &["nazgul"]);
    // Game 266 (bofa) was Nora's only loss on FP: it must not count.
    let all: u64 = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["played"].as_u64().unwrap())
        .sum();
    assert_eq!(all, 20, "5 counted games of 4 players each");
}

#[test]
fn a_late_result_takes_its_place_in_history() {
    // A game whose end is entered after a later monthly tick is folded first.
    let dir = empty_ledger();
    append_ok(
        dir.path(),
        r#"{"type":"mepbm.monthly_tick","at":"2003-07-01","month":"2003-06"}"#,
    );
    let text = game_started("gl", "2003-01-04", 10, 10, 0)
        + &game_ended("gl", "2003-06-07", "FP", json!([]));
    append_ok(dir.path(), &text);
    // 1545 then pulled: round(0.98 * 45 + 1500) = round(1544.1) = 1544.
    let v = standings(dir.path(), &["valar"]);
    assert_eq!(score(&v, "gl-fp1"), json!(1544));
}

// ---------------------------------------------------------------- validation

fn valar_ledger() -> tempfile::TempDir {
    ledger_with(&["mepbm_valar.jsonl"])
}

#[test]
fn rejects_unknown_games_and_nations() {
    let dir = valar_ledger();
    let d = dir.path();
    append_refused(
        d,
        r#"{"type":"mepbm.nation_taken_over","at":"2003-01-01","game":"999","nation":"Dwarves","player":"X"}"#,
        &["unknown game 999", "mepbm.nation_taken_over"],
    );
    append_refused(
        d,
        r#"{"type":"mepbm.nation_taken_over","at":"2003-01-01","game":"224","nation":"Balrog","player":"X"}"#,
        &["nation Balrog is not in game 224"],
    );
    append_refused(
        d,
        &game_ended("224", "2003-04-01", "FP", json!([])).replace("224", "998"),
        &["unknown game 998"],
    );
    // An end dated before its start finds no game.
    let text = game_started("g1", "2003-05-01", 1, 1, 0)
        + &game_ended("g1", "2003-04-01", "FP", json!([]));
    append_refused(d, &text, &["unknown game g1"]);
    let text = game_started("g2", "2003-05-01", 1, 1, 0)
        + &game_ended(
            "g2",
            "2003-06-01",
            "FP",
            json!([{"nation": "Dwarves", "victory_points": 1, "eliminated": false}]),
        );
    append_refused(d, &text, &["nation Dwarves is not in game g2"]);
}

#[test]
fn rejects_a_game_started_or_ended_twice() {
    let dir = valar_ledger();
    let d = dir.path();
    append_refused(
        d,
        &game_started("224", "2003-05-01", 1, 1, 0),
        &["game 224 was already started"],
    );
    append_refused(
        d,
        &game_ended("224", "2003-05-01", "DS", json!([])),
        &["game 224 already ended on 2003-03-15"],
    );
}

#[test]
fn rejects_takeovers_and_allegiance_changes_after_the_end() {
    let dir = valar_ledger();
    let d = dir.path();
    append_refused(
        d,
        r#"{"type":"mepbm.nation_taken_over","at":"2003-03-16","game":"224","nation":"Dwarves","player":"New Guy"}"#,
        &["game 224 ended on 2003-03-15", "takeover of Dwarves"],
    );
    append_refused(
        d,
        r#"{"type":"mepbm.allegiance_changed","at":"2003-03-16","game":"224","nation":"Rhudaur","side":"DS"}"#,
        &[
            "game 224 ended on 2003-03-15",
            "allegiance change of Rhudaur",
        ],
    );
}

#[test]
fn rejects_a_player_on_two_sides() {
    let dir = empty_ledger();
    let d = dir.path();
    let two = r#"{"type":"mepbm.game_started","at":"2003-01-04","game":"g","scenario":"1650","positions":[
        {"nation":"Dwarves","player":"Ann","side":"FP"},{"nation":"Witch-king","player":"Ann","side":"DS"}]}"#
        .replace('\n', "");
    append_refused(
        d,
        &two,
        &[
            "player Ann is on two sides of game g",
            "FP (Dwarves)",
            "DS (Witch-king)",
        ],
    );
    append_ok(d, &game_started("g", "2003-01-04", 2, 2, 2));
    append_refused(
        d,
        r#"{"type":"mepbm.nation_taken_over","at":"2003-02-01","game":"g","nation":"N-ds1","player":"g-fp1"}"#,
        &["player g-fp1 would be on two sides of game g"],
    );
    append_refused(
        d,
        r#"{"type":"mepbm.allegiance_changed","at":"2003-02-02","game":"g","nation":"N-fp1","side":"DS"}"#,
        &["nation N-fp1 of game g started FP: only a neutral changes allegiance"],
    );
}

#[test]
fn rejects_a_neutral_on_two_sides_through_allegiance() {
    let dir = empty_ledger();
    let d = dir.path();
    append_ok(d, &game_started("g", "2003-01-04", 2, 2, 2));
    // neutral1 takes over neutral2 too (both neutral: fine), then neutral2 joins DS.
    append_ok(
        d,
        r#"{"type":"mepbm.nation_taken_over","at":"2003-02-01","game":"g","nation":"N-neutral2","player":"g-neutral1"}"#,
    );
    append_refused(
        d,
        r#"{"type":"mepbm.allegiance_changed","at":"2003-02-02","game":"g","nation":"N-neutral2","side":"DS"}"#,
        &["player g-neutral1 would be on two sides of game g"],
    );
}

#[test]
fn rejects_negative_turns_and_victory_points() {
    let dir = empty_ledger();
    let d = dir.path();
    append_ok(d, &game_started("g", "2003-01-04", 1, 1, 0));
    let neg_turn =
        game_ended("g", "2003-05-01", "FP", json!([])).replace("\"turn\":30", "\"turn\":-1");
    append_refused(
        d,
        &neg_turn,
        &["game g: field `turn`: -1 is out of range; allowed: an integer from 0 to 1000"],
    );
    append_refused(
        d,
        &game_ended(
            "g",
            "2003-05-01",
            "FP",
            json!([{"nation": "N-fp1", "victory_points": -5, "eliminated": false}]),
        ),
        &[
            "game g, nation N-fp1: field `victory_points`: -5 is out of range; allowed: an \
           integer from 0 to 1000000",
        ],
    );
}

/// A grudge game of `fp` v `ds` nations, Team A on FP and Team B on DS: the
/// first 7 positions of a side are held by members `a1`..`a7` (`b1`..`b7`),
/// the rest by allies `ax8`, ... (`bx8`, ...).
fn grudge(fp: usize, ds: usize) -> String {
    let mut pos = Vec::new();
    for (side, n, team) in [("FP", fp, "a"), ("DS", ds, "b")] {
        for i in 1..=n {
            let player = if i <= 7 {
                format!("{team}{i}")
            } else {
                format!("{team}x{i}")
            };
            pos.push(json!({"nation": format!("{side}{i}"), "player": player, "side": side}));
        }
    }
    json!({"type": "mepbm.game_started", "at": "2003-03-01", "game": "gg", "scenario": "1650",
        "positions": pos, "grudge": {"FP": "Team A", "DS": "Team B"}})
    .to_string()
}

/// Teams A and B, 8 members each (`a1`..`a8`), coordinators `a1` and `b1`.
fn teams(dir: &Path) {
    let members = |t: &str| (1..=8).map(|i| format!("{t}{i}")).collect::<Vec<_>>();
    let text = [("Team A", "a"), ("Team B", "b")]
        .iter()
        .map(|(team, t)| {
            json!({"type": "mepbm.grudge_team_registered", "at": "2003-01-01", "team": team,
                "coordinator": format!("{t}1"), "members": members(t)})
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    append_ok(dir, &text);
}

#[test]
fn rejects_small_grudge_games_and_misplaced_teams() {
    let dir = empty_ledger();
    let d = dir.path();
    teams(d);
    append_refused(
        d,
        &grudge(9, 12),
        &["grudge game gg needs at least 10 nations a side at start (FP 9, DS 12)"],
    );
    // Allies on three of Team A's seats: its side holds only 4 of its members.
    let text = grudge(10, 10)
        .replace("\"a5\"", "\"z5\"")
        .replace("\"a6\"", "\"z6\"")
        .replace("\"a7\"", "\"z7\"");
    append_refused(
        d,
        &text,
        &["grudge game gg: team Team A has 4 members on its side FP (needs 5)"],
    );
    // A Team B member (b8 does not play for B) playing for FP.
    let text = grudge(10, 10).replace("\"ax10\"", "\"b8\"");
    append_refused(d, &text, &["b8 of team Team B (DS) plays FP10 for FP"]);
    append_ok(d, &grudge(10, 10));
}

#[test]
fn rejects_roster_changes_that_break_the_rule_of_5() {
    let dir = empty_ledger();
    let d = dir.path();
    teams(d);
    append_refused(
        d,
        r#"{"type":"mepbm.grudge_roster_changed","at":"2003-02-01","team":"Team A","added":["n1","n2","n3","n4"],"removed":["a4","a5","a6","a7"]}"#,
        &[
            "roster change of Team A leaves 4 of its original members",
            "rule of 5",
        ],
    );
    append_refused(
        d,
        r#"{"type":"mepbm.grudge_roster_changed","at":"2003-02-01","team":"Team A","added":["n1"],"removed":["a1"]}"#,
        &["cannot remove its coordinator a1"],
    );
    append_refused(
        d,
        r#"{"type":"mepbm.grudge_roster_changed","at":"2003-02-01","team":"Team Z","added":["n1"],"removed":[]}"#,
        &["unknown grudge team Team Z"],
    );
    // Two swaps keep 6 originals: allowed, costs 2 * 2.
    append_ok(
        d,
        r#"{"type":"mepbm.grudge_roster_changed","at":"2003-02-01","team":"Team A","added":["n1","n2"],"removed":["a6","a7"]}"#,
    );
    // A later change may not drop below 5 originals either.
    append_refused(
        d,
        r#"{"type":"mepbm.grudge_roster_changed","at":"2003-02-02","team":"Team A","added":[],"removed":["a4","a5"]}"#,
        &["leaves 4 of its original members"],
    );
    assert_eq!(score(&standings(d, &["ainur"]), "Team A"), json!(1496));
}

fn ballot(voter: &str, at: &str, team: Value, nations: Value, enemy: Value) -> String {
    json!({"type": "mepbm.vote_cast", "at": at, "game": "224", "voter": voter,
        "best_team_player": team, "best_played_nation": nations, "best_enemy_nation": enemy})
    .to_string()
}

#[test]
fn rejects_bad_ballots() {
    let dir = valar_ledger();
    let d = dir.path();
    let (t, n, e) = (json!(["Bea Carr"]), json!(["Northmen"]), json!("Ice King"));
    // 14 days after the end of 2003-03-15 (a plain date: the whole day) is
    // the end of 2003-03-29; the next day is late.
    append_refused(
        d,
        &ballot("Alan Birch", "2003-03-30", t.clone(), n.clone(), e.clone()),
        &[
            "ballot of Alan Birch for game 224 is late",
            "deadline the end of 2003-03-29",
        ],
    );
    append_refused(
        d,
        &ballot("Hal Irwin", "2003-03-20", t.clone(), n.clone(), e.clone()),
        &["Hal Irwin already voted in game 224"],
    );
    append_refused(
        d,
        &ballot(
            "Alan Birch",
            "2003-03-20",
            json!(["Alan Birch"]),
            n.clone(),
            e.clone(),
        ),
        &["no vote for oneself (Alan Birch)"],
    );
    append_refused(
        d,
        &ballot(
            "Alan Birch",
            "2003-03-20",
            t.clone(),
            json!(["Woodmen"]),
            e.clone(),
        ),
        &["Alan Birch controls Woodmen"],
    );
    append_refused(
        d,
        &ballot(
            "Alan Birch",
            "2003-03-20",
            t.clone(),
            json!(["Ice King"]),
            e.clone(),
        ),
        &["best played nation Ice King is DS, not the voter's side FP"],
    );
    append_refused(
        d,
        &ballot(
            "Alan Birch",
            "2003-03-20",
            t.clone(),
            n.clone(),
            json!("Dwarves"),
        ),
        &["best enemy nation Dwarves is FP, not the side opposing FP"],
    );
    append_refused(
        d,
        &ballot(
            "Alan Birch",
            "2003-03-20",
            json!(["Ray Stone"]),
            n.clone(),
            e.clone(),
        ),
        &["best team player Ray Stone is not a player of the voter's side FP"],
    );
    append_refused(
        d,
        &ballot("Zoe Baird", "2003-03-20", json!([]), json!([]), Value::Null),
        &["Zoe Baird played an unaligned neutral in game 224"],
    );
    append_refused(
        d,
        &ballot(
            "Oscar Page",
            "2003-03-20",
            json!([]),
            json!([]),
            Value::Null,
        ),
        &["Oscar Page was not counted in game 224"],
    );
    // On the deadline itself is in time.
    append_ok(d, &ballot("Alan Birch", "2003-03-29", t, n, e));
}

#[test]
fn rejects_a_ballot_before_the_end() {
    let dir = empty_ledger();
    let d = dir.path();
    append_ok(d, &game_started("224", "2003-01-04", 2, 2, 0));
    append_refused(
        d,
        &ballot(
            "224-fp1",
            "2003-02-01",
            json!(["224-fp2"]),
            json!([]),
            Value::Null,
        ),
        &["game 224 has not ended"],
    );
}

#[test]
fn rejects_a_duplicate_monthly_tick_and_a_second_seed() {
    let dir = ledger_with(&["mepbm_monthly.jsonl"]);
    let d = dir.path();
    append_refused(
        d,
        r#"{"type":"mepbm.monthly_tick","at":"2004-06-01","month":"2004-01"}"#,
        &["month 2004-01 was already ticked"],
    );
    append_refused(
        d,
        r#"{"type":"mepbm.monthly_tick","at":"2004-06-01","month":"2004-13"}"#,
        &["month must be YYYY-MM"],
    );
    append_refused(
        d,
        r#"{"type":"mepbm.rating_seeded","at":"2004-06-01","player":"Moira Finch","system":"valar","value":1700}"#,
        &["Moira Finch already has a valar rating (1836)"],
    );
}

#[test]
fn nothing_is_written_when_one_event_of_an_append_fails() {
    let dir = empty_ledger();
    let d = dir.path();
    let text = game_started("g", "2003-01-04", 1, 1, 0)
        + &game_ended("g", "2003-05-01", "FP", json!([]))
        + &game_ended("g", "2003-05-02", "DS", json!([]));
    append_refused(d, &text, &["game g already ended"]);
    assert_eq!(head(d).0, 0);
}

// ---------------------------------------------------------------- snapshots

fn snap(name: &str, v: Value) {
    common::insta_settings().bind(|| insta::assert_json_snapshot!(name, v));
}

#[test]
fn snapshots_of_each_example() {
    let cases: &[(&str, &[&str])] = &[
        (
            "mepbm_valar.jsonl",
            &["valar", "maia", "istari", "nations", "council", "nazgul"],
        ),
        ("mepbm_maia.jsonl", &["maia"]),
        ("mepbm_istari.jsonl", &["istari", "nations"]),
        ("mepbm_ainur.jsonl", &["ainur"]),
        ("mepbm_nazgul.jsonl", &["nazgul"]),
        ("mepbm_monthly.jsonl", &["valar", "maia"]),
    ];
    for (file, tables) in cases {
        let dir = ledger_with(&[file]);
        let stem = file.trim_end_matches(".jsonl");
        for t in *tables {
            snap(&format!("{stem}__{t}"), standings(dir.path(), &[t]));
        }
    }
}

#[test]
fn snapshots_of_every_table_on_all_streams() {
    let mut files = vec!["ledger_tour.jsonl"];
    files.extend_from_slice(FILES);
    let dir = ledger_with(&files);
    for t in [
        "valar", "maia", "istari", "nations", "ainur", "council", "nazgul",
    ] {
        snap(&format!("all__{t}"), standings(dir.path(), &[t]));
    }
}
