//! Middle-earth PBM rules as the published document states them, through the
//! built binary: monthly ticks after their month and in calendar order, the
//! ballot deadline counted from the end of a plain date, the Valar floor
//! `valar.min_change`, Fourth Age categories and the scenarios' nation counts.

use crate::common;

use std::path::Path;

use common::{append_text, empty_ledger, head, ledger_with, row, standings};
use serde_json::{json, Value};

fn score(v: &Value, player: &str) -> Value {
    row(v, player)["score"].clone()
}

/// Append `text`, expect exit code 2, a message containing every `needles`
/// string, and an unchanged head.
fn rejects(dir: &Path, text: &str, needles: &[&str]) {
    let before = head(dir);
    let out = append_text(dir, text);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "expected exit 2, stderr: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} missing from: {err}");
    }
    assert_eq!(head(dir), before, "head moved after a rejected append");
}

fn accepts(dir: &Path, text: &str) {
    let out = append_text(dir, text);
    assert!(
        out.status.success(),
        "append failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn tick(at: &str, month: &str) -> String {
    json!({"type": "mepbm.monthly_tick", "at": at, "month": month}).to_string() + "\n"
}

fn seed(player: &str, system: &str, value: i64) -> String {
    json!({"type": "mepbm.rating_seeded", "at": "2003-01-02", "player": player,
        "system": system, "value": value})
    .to_string()
        + "\n"
}

// ---------------------------------------------------------------- monthly ticks

#[test]
fn a_tick_before_its_month_has_ended_is_refused() {
    let dir = empty_ledger();
    let d = dir.path();
    accepts(d, &seed("Moira Finch", "valar", 1850));
    rejects(
        d,
        &tick("2003-01-15", "2003-05"),
        &[
            "month 2003-05 has not ended at 2003-01-15",
            "its tick comes at 2003-06-01 or later",
        ],
    );
    // The last microsecond of January is still January.
    rejects(
        d,
        &tick("2003-01-31T23:59:59.999999Z", "2003-01"),
        &["month 2003-01 has not ended"],
    );
    accepts(d, &tick("2003-02-01", "2003-01"));
    // 1850 → round(0.98 * 350 + 1500) = round(1843) = 1843.
    assert_eq!(score(&standings(d, &["valar"]), "Moira Finch"), json!(1843));
}

#[test]
fn months_tick_in_calendar_order_once_each() {
    let dir = empty_ledger();
    let d = dir.path();
    accepts(d, &seed("Moira Finch", "valar", 1850));
    accepts(d, &tick("2003-02-01", "2003-01"));
    rejects(
        d,
        &tick("2003-02-02", "1999-01"),
        &[
            "month 1999-01 comes before 2003-01, already ticked",
            "calendar order",
        ],
    );
    rejects(
        d,
        &tick("2003-02-02", "2003-01"),
        &["month 2003-01 was already ticked"],
    );
    // Refused ticks change nothing: one tick, 1850 → 1843 (the issue's
    // accepted-everything run ended at 1829 after three).
    assert_eq!(score(&standings(d, &["valar"]), "Moira Finch"), json!(1843));
}

#[test]
fn a_skipped_month_is_ticked_late_in_order() {
    let dir = empty_ledger();
    let d = dir.path();
    accepts(d, &seed("Moira Finch", "valar", 1850));
    // February and March are ticked on 10 April, in order: accepted.
    accepts(
        d,
        &(tick("2003-04-10", "2003-02") + &tick("2003-04-10T00:00:01Z", "2003-03")),
    );
    // January comes after them in the calendar's past: refused now.
    rejects(
        d,
        &tick("2003-04-11", "2003-01"),
        &["month 2003-01 comes before 2003-03"],
    );
    // 1850 → 1843 → round(0.98 * 343 + 1500) = round(1836.14) = 1836.
    assert_eq!(score(&standings(d, &["valar"]), "Moira Finch"), json!(1836));
}

/// 9999-12 ends after the latest `at` an event may have: its tick is
/// refused saying it never can be, and which month is the last that can;
/// 9999-11's says when it comes, and a tick dated then is refused today, as
/// every event dated after the time it is recorded.
#[test]
fn the_last_month_ticked_is_9999_11_and_a_tick_of_9999_12_says_why_not() {
    let dir = empty_ledger();
    let d = dir.path();
    accepts(d, &seed("Moira Finch", "valar", 1850));
    rejects(
        d,
        &tick("2003-02-01", "9999-11"),
        &["its tick comes at 9999-12-01 or later"],
    );
    rejects(
        d,
        &tick("9999-12-01", "9999-11"),
        &["`at` 9999-12-01 is after the time it is recorded"],
    );
    rejects(
        d,
        &tick("2003-02-01", "9999-12"),
        &[
            "month 9999-12 ends with the year 9999, after the latest `at` an event may have \
             (9999-12-31T23:59:59.999999Z): it can never be ticked; 9999-11 is the last month \
             that can be, at 9999-12-01 or later",
        ],
    );
}

// ---------------------------------------------------------------- ballot deadline

/// A two-nation game `g` ended at `ended`, Ann (FP, Woodmen) beating Bob (DS).
fn small_game(ended: &str) -> String {
    let start = json!({"type": "mepbm.game_started", "at": "2003-01-05", "game": "g",
        "scenario": "1000", "positions": [
            {"nation": "Woodmen", "player": "Ann", "side": "FP"},
            {"nation": "Northmen", "player": "Cy", "side": "FP"},
            {"nation": "Witch-king", "player": "Bob", "side": "DS"}]});
    let end = json!({"type": "mepbm.game_ended", "at": ended, "game": "g", "turn": 9,
        "winner": "FP", "nations": []});
    format!("{start}\n{end}\n")
}

fn ann_ballot(at: &str) -> String {
    json!({"type": "mepbm.vote_cast", "at": at, "game": "g", "voter": "Ann",
        "best_team_player": ["Cy"], "best_played_nation": ["Northmen"],
        "best_enemy_nation": "Witch-king"})
    .to_string()
        + "\n"
}

#[test]
fn a_ballot_deadline_counts_from_the_end_of_a_plain_dates_day() {
    let dir = empty_ledger();
    let d = dir.path();
    // Ended "2003-03-01": the whole day, so the 14 days run from the end of
    // 1 March to the end of 15 March (2003-03-15T23:59:59.999999Z).
    accepts(d, &small_game("2003-03-01"));
    rejects(
        d,
        &ann_ballot("2003-03-16T00:00:00Z"),
        &[
            "ballot of Ann for game g is late",
            "deadline the end of 2003-03-15",
        ],
    );
    accepts(d, &ann_ballot("2003-03-15T00:00:01Z"));
    // Ann's choices: Cy 3, Northmen 3 (to Cy), Witch-king 3 (to Bob).
    let v = standings(d, &["council"]);
    assert_eq!(score(&v, "Cy"), json!(6));
}

#[test]
fn a_ballot_deadline_after_a_timed_end_is_to_the_microsecond() {
    let dir = empty_ledger();
    let d = dir.path();
    // Ended at noon on 1 March: the deadline is noon on 15 March.
    accepts(d, &small_game("2003-03-01T12:00:00Z"));
    rejects(
        d,
        &ann_ballot("2003-03-15T12:00:01Z"),
        &["deadline 2003-03-15T12:00:00Z"],
    );
    accepts(d, &ann_ballot("2003-03-15T12:00:00Z"));
}

// ---------------------------------------------------------------- valar.min_change

/// A small game (3 positions, factor 0.5): Fav (Valar 9000, FP) and Cy (FP)
/// beat Dog (DS, 1500).
fn favourite_game() -> String {
    seed("Fav", "valar", 9000)
        + &seed("Cy", "valar", 1500)
        + &json!({"type": "mepbm.game_started", "at": "2003-02-01", "game": "f",
            "scenario": "1000", "positions": [
                {"nation": "Woodmen", "player": "Fav", "side": "FP"},
                {"nation": "Northmen", "player": "Cy", "side": "FP"},
                {"nation": "Witch-king", "player": "Dog", "side": "DS"}]})
        .to_string()
        + "\n"
        + &json!({"type": "mepbm.game_ended", "at": "2003-03-01", "game": "f", "turn": 20,
            "winner": "FP", "nations": []})
        .to_string()
        + "\n"
}

#[test]
fn by_default_winners_far_stronger_lose_valar_points() {
    let dir = empty_ledger();
    let d = dir.path();
    accepts(d, &favourite_game());
    // TotWin 9000 + 1500 = 10500, TotLose 1500:
    // round(0.5 * (45 + (1500 - 10500) / 150)) = round(0.5 * -15) = round(-7.5) = -8.
    let v = standings(d, &["valar"]);
    assert_eq!(score(&v, "Fav"), json!(8992));
    assert_eq!(score(&v, "Cy"), json!(1492));
    assert_eq!(score(&v, "Dog"), json!(1508));
}

#[test]
fn valar_min_change_0_keeps_winners_from_losing_points() {
    let dir = empty_ledger();
    let d = dir.path();
    accepts(
        d,
        r#"{"type":"ledger.rules_changed","at":"2003-01-01","system":"valar","params":{"min_change":0}}"#,
    );
    accepts(d, &favourite_game());
    // max(0, -8) = 0: nobody moves.
    let v = standings(d, &["valar"]);
    assert_eq!(score(&v, "Fav"), json!(9000));
    assert_eq!(score(&v, "Dog"), json!(1500));
    // A floor of 5 gives the winners 5 and takes 5 from the loser.
    let dir = empty_ledger();
    let d = dir.path();
    accepts(
        d,
        r#"{"type":"ledger.rules_changed","at":"2003-01-01","system":"valar","params":{"min_change":5}}"#,
    );
    accepts(d, &favourite_game());
    let v = standings(d, &["valar"]);
    assert_eq!(score(&v, "Fav"), json!(9005));
    assert_eq!(score(&v, "Dog"), json!(1495));
}

/// With `valar.divisor` 1, Ann (one FP position) and Bob (100 DS
/// positions) swap wins and the change grows about a hundredfold a game,
/// until it passes what a rating holds: that game changes no one, and its
/// history row says why (not that the divisor is 1).
#[test]
fn a_valar_change_past_the_range_of_ratings_changes_no_one_and_says_so() {
    let dir = empty_ledger();
    let d = dir.path();
    let mut text = r#"{"type":"ledger.rules_changed","at":"2000-01-01","system":"valar","params":{"divisor":1}}"#.to_string() + "\n";
    let mut positions = vec![json!({"nation": "F", "player": "Ann", "side": "FP"})];
    positions.extend(
        (0..100).map(|i| json!({"nation": format!("D{i}"), "player": "Bob", "side": "DS"})),
    );
    for g in 0..12 {
        let (start, end) = (
            format!("2001-{:02}-01", g + 1),
            format!("2001-{:02}-15", g + 1),
        );
        let winner = if g % 2 == 0 { "FP" } else { "DS" };
        text += &(json!({"type": "mepbm.game_started", "at": start, "game": format!("g{g}"),
            "scenario": "1000", "positions": positions})
        .to_string()
            + "\n");
        text += &(json!({"type": "mepbm.game_ended", "at": end, "game": format!("g{g}"),
            "turn": 10, "winner": winner, "nations": []})
        .to_string()
            + "\n");
    }
    accepts(d, &text);
    let v = common::json(
        d,
        &["history", "Ann", "--system", "valar", "--format", "json"],
    );
    let formulas: Vec<&str> = (v["rows"].as_array().unwrap().iter())
        .filter_map(|r| r["formula"].as_str())
        .collect();
    assert_eq!(formulas.len(), 12, "{formulas:?}");
    let past: Vec<&&str> = (formulas.iter())
        .filter(|f| f.contains("passes the range of ratings"))
        .collect();
    assert!(!past.is_empty(), "{formulas:?}");
    assert!(
        formulas.iter().all(|f| !f.contains("valar.divisor is")),
        "{formulas:?}"
    );
}

// ---------------------------------------------------------------- Fourth Age

fn pos(nation: &str, player: &str, side: &str, category: &str) -> Value {
    json!({"nation": nation, "player": player, "side": side, "category": category})
}

fn fourth_age(game: &str, at: &str, positions: Vec<Value>, vps: &[(&str, i64)]) -> String {
    let start = json!({"type": "mepbm.game_started", "at": at, "game": game,
        "scenario": "Fourth Age", "positions": positions});
    let nations: Vec<Value> = vps
        .iter()
        .map(|(n, vp)| json!({"nation": n, "victory_points": vp, "eliminated": false}))
        .collect();
    let end = json!({"type": "mepbm.game_ended", "at": format!("{at}T12:00:00Z"), "game": game,
        "turn": 20, "winner": "FP", "nations": nations});
    format!("{start}\n{end}\n")
}

#[test]
fn fourth_age_pars_are_kept_per_category() {
    let dir = empty_ledger();
    let d = dir.path();
    let first = fourth_age(
        "a",
        "2003-01-10",
        vec![
            pos("Arnor", "Ann", "FP", "North Kingdom"),
            pos("Gondor", "Bob", "FP", "South Kingdom"),
            pos("Rhun", "Cid", "DS", "normal nation"),
            pos("Khand", "Dan", "DS", "normal nation"),
        ],
        &[
            ("Arnor", 1000),
            ("Gondor", 800),
            ("Rhun", 600),
            ("Khand", 400),
        ],
    );
    accepts(d, &first);
    // Each category's first game sets its par: North Kingdom 1000,
    // South Kingdom 800, normal nation (600 + 400) / 2 = 500.
    let second = fourth_age(
        "b",
        "2003-02-10",
        vec![
            pos("Cardolan", "Eve", "FP", "North Kingdom"),
            pos("Harad", "Fay", "DS", "South Kingdom"),
            pos("Umbar", "Gus", "DS", "normal nation"),
        ],
        &[("Cardolan", 1100), ("Harad", 700), ("Umbar", 650)],
    );
    accepts(d, &second);
    // A small game (3 positions): round(0.5 * (VP - par)).
    let istari = standings(d, &["istari"]);
    assert_eq!(score(&istari, "Ann"), json!(1500));
    assert_eq!(score(&istari, "Eve"), json!(1550)); // 0.5 * (1100 - 1000)
    assert_eq!(score(&istari, "Fay"), json!(1450)); // 0.5 * (700 - 800)
    assert_eq!(score(&istari, "Gus"), json!(1575)); // 0.5 * (650 - 500)
                                                    // Top nations lists the categories: North Kingdom (1000 + 1100) / 2 =
                                                    // 1050, South Kingdom (800 + 700) / 2 = 750, normal nation
                                                    // (600 + 400 + 650) / 3 = 550; `games` counts positions.
    let n = standings(d, &["nations"]);
    let nk = row(&n, "North Kingdom (Fourth Age, category)");
    assert_eq!(
        (nk["rank"].clone(), nk["score"].clone(), nk["games"].clone()),
        (json!(1), json!(1050.0), json!(2))
    );
    assert_eq!(nk["category"], json!("North Kingdom"));
    assert_eq!(nk["nation"], json!(""));
    let sk = row(&n, "South Kingdom (Fourth Age, category)");
    assert_eq!(
        (sk["rank"].clone(), sk["score"].clone()),
        (json!(2), json!(750.0))
    );
    let nn = row(&n, "normal nation (Fourth Age, category)");
    assert_eq!(
        (nn["rank"].clone(), nn["score"].clone(), nn["games"].clone()),
        (json!(3), json!(550.0), json!(3))
    );
    assert_eq!(
        n["rows"].as_array().unwrap().len(),
        3,
        "no nation rows: {n}"
    );
}

#[test]
fn a_fourth_category_or_a_sixth_bofa_nation_is_refused() {
    let dir = empty_ledger();
    let d = dir.path();
    let four = json!({"type": "mepbm.game_started", "at": "2003-01-10", "game": "a",
        "scenario": "fourth age", "positions": [
            pos("Arnor", "Ann", "FP", "North Kingdom"),
            pos("Gondor", "Bob", "FP", "South Kingdom"),
            pos("Rhun", "Cid", "DS", "normal nation"),
            pos("Khand", "Dan", "DS", "Kingdom of the East")]});
    rejects(
        d,
        &four.to_string(),
        &[
            "game a: scenario fourth age has 3 nations",
            "0 rated before and this game's new category Kingdom of the East, category North Kingdom",
            "make 4",
        ],
    );
    let empty = json!({"type": "mepbm.game_started", "at": "2003-01-10", "game": "a",
        "scenario": "1000", "positions": [
            pos("Arnor", "Ann", "FP", " "), pos("Rhun", "Cid", "DS", "x")]});
    rejects(
        d,
        &empty.to_string(),
        &["nation Arnor: a category must not be empty"],
    );
    let bofa = |game: &str, month: u32, nations: &[&str]| {
        let positions: Vec<Value> = nations
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let side = if i % 2 == 0 { "FP" } else { "DS" };
                json!({"nation": n, "player": format!("{game}-{i}"), "side": side})
            })
            .collect();
        let start = json!({"type": "mepbm.game_started", "at": format!("2003-{month:02}-01"), "game": game,
            "scenario": "BOFA", "positions": positions});
        let end = json!({"type": "mepbm.game_ended", "at": format!("2003-{month:02}-20"), "game": game,
            "turn": 10, "winner": "FP", "nations": nations.iter()
                .map(|n| json!({"nation": n, "victory_points": 10, "eliminated": false}))
                .collect::<Vec<_>>()});
        format!("{start}\n{end}\n")
    };
    accepts(
        d,
        &bofa("b1", 2, &["Elves", "Goblins", "Men", "Wargs", "Dwarves"]),
    );
    // A misspelt nation in a later game is a sixth: refused, naming it.
    rejects(
        d,
        &bofa("b2", 4, &["Elves", "Goblins", "Dwarfs"]),
        &[
            "scenario BOFA has 5 nations",
            "5 rated before and this game's new Dwarfs make 6",
        ],
    );
}

#[test]
fn a_misspelt_1650_nation_is_refused_after_the_bundled_game() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let d = dir.path();
    let g = json!({"type": "mepbm.game_started", "at": "2003-06-01", "game": "z",
        "scenario": "1650", "positions": [
            {"nation": "Woodman", "player": "Ann", "side": "FP"},
            {"nation": "Witch-king", "player": "Bob", "side": "DS"}]});
    rejects(
        d,
        &g.to_string(),
        &[
            "scenario 1650 has 25 nations",
            "25 rated before and this game's new Woodman make 26",
        ],
    );
}
