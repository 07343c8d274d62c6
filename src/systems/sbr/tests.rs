//! Unit tests of the sbr projection over in-memory event streams.

use serde_json::{json, Value};

use crate::fold::{fold, MemSource, Query};
use crate::systems::Selector;

const T: &str = "t1";

fn created() -> Value {
    json!({"type": "sbr.tournament_created", "at": "2014-10-25T09:00:00Z", "tournament": T})
}

/// A seeding game: `player` in red with `score`, three bots.
fn seed(player: &str, score: i64, minute: u32) -> Value {
    json!({"type": "sbr.game_played", "at": format!("2014-10-25T10:{minute:02}:00Z"),
        "tournament": T, "stage": "seeding", "match": format!("s-{player}"), "game": 1,
        "seats": [{"seat": "red", "player": player, "score": score},
                  {"seat": "yellow", "player": null}, {"seat": "green", "player": null},
                  {"seat": "blue", "player": null}]})
}

/// Game `game` of a match: players rotate one seat per game; `scores` in player order.
fn game(stage: &str, m: &str, game: usize, players: &[&str], scores: &[i64], hour: u32) -> Value {
    let colors = ["red", "yellow", "green", "blue"];
    let seats: Vec<Value> = (0..4)
        .map(|i| {
            let seat = colors[(i + game - 1) % 4];
            match players.get(i) {
                Some(p) => json!({"seat": seat, "player": p, "score": scores[i]}),
                None => json!({"seat": seat, "player": null}),
            }
        })
        .collect();
    json!({"type": "sbr.game_played", "at": format!("2014-10-25T{hour:02}:{:02}:00Z", game * 10),
        "tournament": T, "stage": stage, "match": m, "game": game, "seats": seats})
}

/// Four games of a match, each row of `scores` one player's four games.
fn full_match(
    stage: &str,
    m: &str,
    players: &[&str],
    scores: &[[i64; 4]],
    hour: u32,
) -> Vec<Value> {
    (1..=4)
        .map(|g| {
            let s: Vec<i64> = scores.iter().map(|row| row[g - 1]).collect();
            game(stage, m, g, players, &s, hour)
        })
        .collect()
}

fn jsonl(events: &[Value]) -> String {
    events.iter().map(|e| e.to_string() + "\n").collect()
}

/// Fold with append-time checks: Ok(state's standings JSON rows) or the first error.
fn run(events: &[Value]) -> Result<crate::systems::State, String> {
    let src = MemSource::from_jsonl(&jsonl(events))?;
    let q = Query {
        check: true,
        ..Query::default()
    };
    fold(&src, &q).map(|f| f.state).map_err(|e| e.to_string())
}

fn report(state: &crate::systems::State) -> crate::systems::table::Report {
    let sel = Selector::of(Some(T.into()));
    state.standings("sbr", &sel, &Default::default()).unwrap()
}

fn table(r: &crate::systems::table::Report, name: &str) -> Vec<Value> {
    r.extra
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no table {name}"))
        .json_rows()
}

fn seeded(players: &[(&str, i64)]) -> Vec<Value> {
    let mut v = vec![created()];
    v.extend(
        players
            .iter()
            .enumerate()
            .map(|(i, (p, s))| seed(p, *s, i as u32)),
    );
    v
}

const FOUR: [(&str, i64); 4] = [("a", 60), ("b", 50), ("c", 40), ("d", 30)];

#[test]
fn match_tie_on_score_goes_to_the_best_single_game() {
    let mut ev = seeded(&FOUR);
    // b and c both 170; c's best game 52 beats b's 45.
    ev.extend(full_match(
        "group",
        "m1",
        &["a", "b", "c", "d"],
        &[
            [48, 51, 46, 50],
            [40, 45, 43, 42],
            [38, 52, 41, 39],
            [35, 30, 37, 33],
        ],
        13,
    ));
    let r = report(&run(&ev).unwrap());
    let m = table(&r, "match_m1");
    let order: Vec<(&str, i64, bool)> = m
        .iter()
        .map(|r| {
            (
                r["player"].as_str().unwrap(),
                r["score"].as_i64().unwrap(),
                r["advanced"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            ("a", 195, true),
            ("c", 170, true),
            ("b", 170, false),
            ("d", 135, false)
        ]
    );
}

#[test]
fn match_tie_on_score_and_best_game_goes_to_the_better_seed() {
    let mut ev = seeded(&FOUR);
    // b (seed 2) and c (seed 3): 182 each, best game 47 each.
    ev.extend(full_match(
        "group",
        "m1",
        &["c", "b", "a", "d"],
        &[
            [44, 47, 46, 45],
            [46, 47, 45, 44],
            [52, 48, 50, 49],
            [43, 40, 42, 41],
        ],
        13,
    ));
    let r = report(&run(&ev).unwrap());
    let m = table(&r, "match_m1");
    assert_eq!(m[1]["player"], "b");
    assert_eq!(
        (m[1]["rank"].clone(), m[1]["seed"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(m[2]["player"], "c");
    assert_eq!(
        (m[2]["score"].clone(), m[2]["best_game"].clone()),
        (json!(182), json!(47))
    );
    assert_eq!(m[2]["result"], "eliminated");
}

#[test]
fn the_final_gives_the_podium_and_ends_the_tournament() {
    let mut ev = seeded(&FOUR);
    ev.extend(full_match(
        "group",
        "g1",
        &["a", "b", "c", "d"],
        &[[50; 4], [40; 4], [30; 4], [20; 4]],
        12,
    ));
    // a and b qualified; the final has two bots as fillers.
    ev.extend(full_match(
        "bracket",
        "fin",
        &["b", "a"],
        &[[41; 4], [40; 4]],
        15,
    ));
    let state = run(&ev).unwrap();
    let r = report(&state);
    let rows = r.main.json_rows();
    let podium: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["player"].as_str().unwrap(), r["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        podium,
        [
            ("b", "1st place"),
            ("a", "2nd place"),
            ("c", "eliminated"),
            ("d", "eliminated")
        ]
    );
    assert_eq!(rows[0]["score"], 164);
    // Scores reset per stage: b's final score is the final's 4 × 41 only.
    let mut late = ev.clone();
    late.push(game("bracket", "fin2", 1, &["a"], &[10], 16));
    let e = run(&late).unwrap_err();
    assert!(
        e.contains("the tournament is over: its final match fin is complete"),
        "{e}"
    );
}

#[test]
fn stages_run_in_order_and_players_must_be_entitled() {
    let mut ev = seeded(&FOUR);
    ev.extend(full_match(
        "group",
        "g1",
        &["a", "b", "c", "d"],
        &[[50; 4], [40; 4], [30; 4], [20; 4]],
        12,
    ));
    // A seeding game after the group stage began.
    let mut late_seed = ev.clone();
    late_seed.push(seed("e", 10, 59));
    late_seed.last_mut().unwrap()["at"] = json!("2014-10-25T14:00:00Z");
    let e = run(&late_seed).unwrap_err();
    assert!(
        e.contains("already in its group stage; a seeding game comes too late"),
        "{e}"
    );
    // c was eliminated (3rd) in g1: not 1st or 2nd of its group, not in the bracket.
    let mut bad = ev.clone();
    bad.push(game("bracket", "fin", 1, &["a", "c"], &[1, 2], 15));
    let e = run(&bad).unwrap_err();
    assert!(e.contains("player c was not 1st or 2nd of group 1"), "{e}");
    // c cannot play another group match either.
    let mut again = ev.clone();
    again.push(game("group", "g2", 1, &["a", "c"], &[1, 2], 15));
    let e = run(&again).unwrap_err();
    assert!(
        e.contains("player c was eliminated in match g1 (place 3; the top 2 advance)"),
        "{e}"
    );
    // An unseeded player cannot play the group stage.
    let mut unseeded = seeded(&FOUR);
    unseeded.push(game("group", "g1", 1, &["a", "zed"], &[1, 2], 12));
    let e = run(&unseeded).unwrap_err();
    assert!(e.contains("player zed has no seeding game"), "{e}");
}

#[test]
fn a_player_cannot_start_a_match_while_one_is_unfinished() {
    let mut ev = seeded(&FOUR);
    ev.push(game("group", "g1", 1, &["a", "b"], &[10, 20], 12));
    ev.push(game("group", "g2", 1, &["a", "c"], &[10, 20], 13));
    let e = run(&ev).unwrap_err();
    assert!(
        e.contains("player a is still playing match g1 (1 of 4 games recorded at or before this game's `at`)"),
        "{e}"
    );
}

#[test]
fn equal_seeding_scores_share_a_seed_rank() {
    let ev = seeded(&[("a", 40), ("b", 40), ("c", 30)]);
    let r = report(&run(&ev).unwrap());
    let s = table(&r, "seeding");
    let ranks: Vec<(Value, Value)> = s
        .iter()
        .map(|r| (r["player"].clone(), r["rank"].clone()))
        .collect();
    assert_eq!(
        ranks,
        [
            (json!("a"), json!(1)),
            (json!("b"), json!(1)),
            (json!("c"), json!(3))
        ]
    );
    // The main ranking of a tournament still seeding ranks by seeding score.
    let main = r.main.json_rows();
    assert_eq!(
        (main[1]["rank"].clone(), main[2]["rank"].clone()),
        (json!(1), json!(3))
    );
}

#[test]
fn bonus_multiplier_is_a_rule_parameter() {
    let mut ev = vec![created()];
    let mut g = seed("a", 0, 0);
    g["seats"][0] = json!({"seat": "red", "player": "a",
        "bases": [{"piece": "X", "bonus": true}, {"piece": "I3", "bonus": false}]});
    ev.push(g.clone());
    let state = run(&ev).unwrap();
    assert_eq!(table(&report(&state), "seeding")[0]["score"], 18); // 5×3 + 3
    ev.insert(
        1,
        json!({"type": "ledger.rules_changed", "at": "2014-10-25T09:30:00Z",
            "system": "sbr", "params": {"bonus_multiplier": 2}}),
    );
    let state = run(&ev).unwrap();
    assert_eq!(table(&report(&state), "seeding")[0]["score"], 13); // 5×2 + 3
}

#[test]
fn unknown_tournament_is_a_clear_error_and_listing_names_all() {
    let state = run(&seeded(&FOUR)).unwrap();
    let e = state
        .standings("sbr", &Selector::of(Some("zz".into())), &Default::default())
        .unwrap_err();
    assert!(
        e.contains("unknown sbr tournament \"zz\" (known: t1)"),
        "{e}"
    );
    let list = state
        .standings("sbr", &Selector::default(), &Default::default())
        .unwrap();
    let rows = list.main.json_rows();
    assert_eq!(rows[0]["tournament"], "t1");
    assert_eq!(rows[0]["players"], 4);
    assert_eq!(rows[0]["stage"], "seeding");
    assert_eq!(state.sbr.tournaments(), vec!["t1".to_string()]);
}
