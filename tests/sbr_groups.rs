//! Space Base Race groups through the built binary: the optional group
//! label, the names a group match may hold, and how groups rank.

mod common;

use common::sbr::{adv, match_games, match_rows, rejected};
use common::{append_text, standings};
use serde_json::json;

/// Six seeded players (anna 50 to fynn 0, one group) after round 1: match
/// A (anna, bert, cleo) labelled group 1, match B (dora, emil, fynn) not.
fn six_after_round_one() -> tempfile::TempDir {
    let dir = common::empty_ledger();
    let d = dir.path();
    let mut text = vec![
        r#"{"type":"sbr.tournament_created","at":"2015-03-01T09:00:00Z","tournament":"t"}"#
            .to_string(),
    ];
    for (i, p) in ["anna", "bert", "cleo", "dora", "emil", "fynn"]
        .iter()
        .enumerate()
    {
        text.push(format!(
            r#"{{"type":"sbr.game_played","at":"2015-03-01T10:{i:02}:00Z","tournament":"t","stage":"seeding","match":"s-{p}","game":1,"seats":[{{"seat":"red","player":"{p}","score":{}}},{{"seat":"yellow","player":null}},{{"seat":"green","player":null}},{{"seat":"blue","player":null}}]}}"#,
            60 - 10 * i
        ));
    }
    text.push(match_games(
        "A",
        "group",
        11,
        &[("anna", 30), ("bert", 20), ("cleo", 10)],
        |_| Some("1"),
    ));
    text.push(match_games(
        "B",
        "group",
        12,
        &[("dora", 30), ("emil", 20), ("fynn", 10)],
        |_| None,
    ));
    let out = append_text(d, &text.join("\n"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// `group` is optional game by game: a player's first match may give it and
/// their next leave it out, or the other way round (the players' group is the
/// one formed from the seeding). A bracket game names no group.
#[test]
fn a_group_label_given_in_some_matches_only_and_none_in_the_bracket() {
    let dir = six_after_round_one();
    let d = dir.path();
    let final_ = [("anna", 30), ("bert", 20), ("dora", 10), ("emil", 5)];
    let c = match_games("C", "group", 13, &final_, |game| (game == 1).then_some("1"));
    let out = append_text(d, &c);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = |label: Option<&'static str>| {
        match_games(
            "F",
            "bracket",
            14,
            &[("anna", 30), ("bert", 20)],
            move |_| label,
        )
    };
    rejected(
        d,
        &f(Some("1")),
        &["`group` belongs to group-stage games only"],
    );
    let out = append_text(d, &f(None));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = standings(d, &["sbr", "--tournament", "t"]);
    assert_eq!(adv(&match_rows(&v, "C")), ["anna", "bert"]);
    assert_eq!(v["rows"][0]["player"], json!("anna"));
}

/// A typo'd name in a group match hears of the seeded name it is near.
#[test]
fn a_typod_name_in_a_group_match_hears_of_the_nearest_seeded_one() {
    let dir = six_after_round_one();
    let d = dir.path();
    let typo = match_games(
        "C",
        "group",
        13,
        &[("anna", 1), ("bert", 1), ("dora", 1), ("emill", 1)],
        |_| None,
    );
    rejected(
        d,
        &typo,
        &["player emill has no seeding game", "did you mean \"emil\"?"],
    );
}

/// A group's qualifiers rank above every player eliminated in a group, and
/// a group played down in fewer rounds is as far on: with groups of 6, eight
/// players make group 1 (seeds 1, 4-8: two rounds) and group 2 (seeds 2
/// and 3: one match), as the seeding table shows; group 2's pair ranks with
/// group 1's, and group 1's last-round losers above its first-round ones.
#[test]
fn qualifiers_rank_above_the_eliminated_whatever_their_groups_rounds() {
    let dir = common::empty_ledger();
    let d = dir.path();
    let mut text = vec![
        r#"{"type":"ledger.rules_changed","at":"2015-01-01","system":"sbr","params":{"group_size":6}}"#.to_string(),
        r#"{"type":"sbr.tournament_created","at":"2015-03-01T09:00:00Z","tournament":"t"}"#.to_string(),
    ];
    for i in 1..=8 {
        text.push(format!(
            r#"{{"type":"sbr.game_played","at":"2015-03-01T10:{i:02}:00Z","tournament":"t","stage":"seeding","match":"s{i}","game":1,"seats":[{{"seat":"red","player":"p{i}","score":{}}},{{"seat":"yellow","player":null}},{{"seat":"green","player":null}},{{"seat":"blue","player":null}}]}}"#,
            90 - 10 * i
        ));
    }
    let none = |_| None;
    text.push(match_games(
        "A",
        "group",
        11,
        &[("p1", 30), ("p4", 20), ("p5", 10)],
        none,
    ));
    text.push(match_games(
        "B",
        "group",
        12,
        &[("p6", 30), ("p7", 20), ("p8", 10)],
        none,
    ));
    text.push(match_games(
        "X",
        "group",
        13,
        &[("p2", 30), ("p3", 20)],
        none,
    ));
    let c = [("p1", 40), ("p4", 30), ("p6", 20), ("p7", 10)];
    text.push(match_games("C", "group", 14, &c, none));
    let out = append_text(d, &text.join("\n"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = standings(d, &["sbr", "--tournament", "t"]);
    let order: Vec<&str> = (v["rows"].as_array().unwrap().iter())
        .map(|r| r["player"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["p1", "p2", "p4", "p3", "p6", "p7", "p5", "p8"]);
    // The seeding table gives the draw: seeds 2 and 3 in group 2.
    let groups: Vec<(&str, i64)> = (v["tables"]["seeding"].as_array().unwrap().iter())
        .map(|r| (r["player"].as_str().unwrap(), r["group"].as_i64().unwrap()))
        .collect();
    let want = [1, 2, 2, 1, 1, 1, 1, 1].map(|g| g as i64);
    let names: Vec<String> = (1..=8).map(|i| format!("p{i}")).collect();
    let want: Vec<(&str, i64)> = names.iter().map(String::as_str).zip(want).collect();
    assert_eq!(groups, want);
}
