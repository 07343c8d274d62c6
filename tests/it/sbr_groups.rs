//! Space Base Race groups through the built binary: the optional group
//! label, the names a group match may hold, and how groups rank.

use crate::common;

use common::sbr::{adv, full_match, match_rows, rejected, seed_line, with_group};
use common::{append_text, standings};

const CREATED: &str =
    r#"{"type":"sbr.tournament_created","at":"2015-03-01T09:00:00Z","tournament":"t"}"#;

/// Append `text`, which must be accepted.
fn appended(d: &std::path::Path, text: &str) {
    let out = append_text(d, text);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
}

/// The games of `full_match`, those `label` picks (by game number) giving
/// group 1.
fn labelled(text: &str, label: impl Fn(usize) -> bool) -> String {
    let game = |(i, l): (usize, &str)| match label(i + 1) {
        true => with_group(l, "1"),
        false => l.to_string(),
    };
    text.lines()
        .enumerate()
        .map(game)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Six seeded players (anna 60 to fynn 10, one group) after round 1: match
/// A (anna, bert, cleo) labelled group 1, match B (dora, emil, fynn) not.
fn six_after_round_one() -> tempfile::TempDir {
    let dir = common::empty_ledger();
    let d = dir.path();
    let mut text = vec![CREATED.to_string()];
    let names = ["anna", "bert", "cleo", "dora", "emil", "fynn"];
    for (i, p) in names.iter().enumerate() {
        text.push(seed_line("t", i + 1, p, 60 - 10 * i as i64));
    }
    let a = full_match(
        "t",
        "group",
        "A",
        11,
        &[("anna", 30), ("bert", 20), ("cleo", 10)],
    );
    text.push(labelled(&a, |_| true));
    text.push(full_match(
        "t",
        "group",
        "B",
        12,
        &[("dora", 30), ("emil", 20), ("fynn", 10)],
    ));
    appended(d, &text.join("\n"));
    dir
}

/// `group` is optional game by game: a player's first match may give it and
/// their next leave it out, or the other way round (the players' group is the
/// one formed from the seeding). A bracket game names no group.
#[test]
fn a_group_label_given_in_some_matches_only_and_none_in_the_bracket() {
    let dir = six_after_round_one();
    let d = dir.path();
    // Round 1 left four in the group: no qualifiers, no bracket seeds yet.
    let v = standings(d, &["sbr", "--tournament", "t"]);
    assert!(v["tables"]["bracket_seeding"].is_null());
    let last = [("anna", 30), ("bert", 20), ("dora", 10), ("emil", 5)];
    let c = full_match("t", "group", "C", 13, &last);
    appended(d, &labelled(&c, |game| game == 1));
    let f = full_match("t", "bracket", "F", 14, &[("anna", 30), ("bert", 20)]);
    rejected(
        d,
        &labelled(&f, |_| true),
        &["`group` belongs to group-stage games only"],
    );
    appended(d, &f);
    let v = standings(d, &["sbr", "--tournament", "t"]);
    assert_eq!(adv(&match_rows(&v, "C")), ["anna", "bert"]);
    assert_eq!(v["rows"][0]["player"], "anna");
}

/// A typo'd name in a group match hears of the seeded name it is near.
#[test]
fn a_typod_name_in_a_group_match_hears_of_the_nearest_seeded_one() {
    let dir = six_after_round_one();
    let typo = [("anna", 1), ("bert", 1), ("dora", 1), ("emill", 1)];
    rejected(
        dir.path(),
        &full_match("t", "group", "C", 13, &typo),
        &["player emill has no seeding game", "did you mean \"emil\"?"],
    );
}

/// A group's qualifiers rank above every player eliminated in a group, and
/// a group played down in fewer rounds is as far on: with groups of 6, eight
/// players make group 1 (seeds 1, 4-8: two rounds) and group 2 (seeds 2
/// and 3: one match), as the seeding table shows; group 2's pair ranks with
/// group 1's, and group 1's last-round losers above its first-round ones;
/// with both groups played down, the bracket seeds are shown.
#[test]
fn qualifiers_rank_above_the_eliminated_whatever_their_groups_rounds() {
    let dir = common::empty_ledger();
    let d = dir.path();
    let mut text = vec![
        r#"{"type":"ledger.rules_changed","at":"2015-01-01","system":"sbr","params":{"group_size":6}}"#.to_string(),
        CREATED.to_string(),
    ];
    for i in 1..=8 {
        text.push(seed_line("t", i, &format!("p{i}"), 90 - 10 * i as i64));
    }
    text.push(full_match(
        "t",
        "group",
        "A",
        11,
        &[("p1", 30), ("p4", 20), ("p5", 10)],
    ));
    text.push(full_match(
        "t",
        "group",
        "B",
        12,
        &[("p6", 30), ("p7", 20), ("p8", 10)],
    ));
    text.push(full_match("t", "group", "X", 13, &[("p2", 30), ("p3", 20)]));
    let c = [("p1", 40), ("p4", 30), ("p6", 20), ("p7", 10)];
    text.push(full_match("t", "group", "C", 14, &c));
    appended(d, &text.join("\n"));
    let v = standings(d, &["sbr", "--tournament", "t"]);
    let order: Vec<&str> = (v["rows"].as_array().unwrap().iter())
        .map(|r| r["player"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["p1", "p2", "p4", "p3", "p6", "p7", "p5", "p8"]);
    // Every group has sent its qualifiers: the bracket seeds are shown before
    // the bracket begins (score in the last group match, then seed).
    let seeds: Vec<&str> = (v["tables"]["bracket_seeding"].as_array().unwrap().iter())
        .map(|r| r["player"].as_str().unwrap())
        .collect();
    assert_eq!(seeds, ["p1", "p2", "p4", "p3"]);
    // The seeding table gives the draw: seeds 2 and 3 in group 2.
    let groups: Vec<(String, i64)> = (v["tables"]["seeding"].as_array().unwrap().iter())
        .map(|r| {
            (
                r["player"].as_str().unwrap().to_string(),
                r["group"].as_i64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, i64)> = [1, 2, 2, 1, 1, 1, 1, 1]
        .into_iter()
        .enumerate()
        .map(|(i, g)| (format!("p{}", i + 1), g))
        .collect();
    assert_eq!(groups, want);
}

/// Bracket seeds order qualifiers as their group match did: equal scores
/// (80 each) go by best game in that match (bert's 35 over anna's 20)
/// before seed rank (anna 1, bert 2), so the match's 1st is bracket seed 1.
#[test]
fn bracket_seeds_break_an_equal_score_by_best_game_before_seed_rank() {
    let dir = common::empty_ledger();
    let d = dir.path();
    let mut text = vec![CREATED.to_string()];
    for (i, p) in ["anna", "bert", "cleo", "dora"].iter().enumerate() {
        text.push(seed_line("t", i + 1, p, 60 - 10 * i as i64));
    }
    for g in 1..=4 {
        let bert = if g == 1 { 35 } else { 15 };
        let players = [("anna", 20), ("bert", bert), ("cleo", 10), ("dora", 5)];
        text.push(common::sbr::match_game("t", "group", "G", 11, g, &players));
    }
    appended(d, &text.join("\n"));
    let v = standings(d, &["sbr", "--tournament", "t"]);
    assert_eq!(adv(&match_rows(&v, "G")), ["bert", "anna"]);
    let seeds: Vec<(&str, i64, i64, i64)> = (v["tables"]["bracket_seeding"].as_array())
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_i64().unwrap();
            (
                r["player"].as_str().unwrap(),
                n("rank"),
                n("score"),
                n("best_game"),
            )
        })
        .collect();
    assert_eq!(seeds, [("bert", 1, 80, 35), ("anna", 2, 80, 20)]);
}
