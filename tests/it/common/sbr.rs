//! Space Base Race helpers shared by its test files: a match table's rows,
//! a refused append, seeding games and the games of a match.

use std::path::Path;

use serde_json::Value;

use super::{append_text, head};

/// (player, score, advanced) of a match table, best first.
pub fn match_rows(v: &Value, m: &str) -> Vec<(String, i64, bool)> {
    v["tables"][format!("match_{m}")]
        .as_array()
        .unwrap_or_else(|| panic!("no match {m}"))
        .iter()
        .map(|r| {
            (
                r["player"].as_str().unwrap().to_string(),
                r["score"].as_i64().unwrap(),
                r["advanced"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// The players of `rows` who advanced.
pub fn adv(rows: &[(String, i64, bool)]) -> Vec<&str> {
    rows.iter().filter(|r| r.2).map(|r| r.0.as_str()).collect()
}

/// Appending `line` fails with exit 2, a message containing every `needles`,
/// and leaves the head unchanged.
pub fn rejected(dir: &Path, line: &str, needles: &[&str]) {
    let before = head(dir);
    let out = append_text(dir, line);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
    assert_eq!(head(dir), before);
}

/// A seeding game of `player` scoring `score`, at minute `i` past 10:00.
pub fn seed_line(t: &str, i: usize, player: &str, score: i64) -> String {
    format!(
        r#"{{"type":"sbr.game_played","at":"2015-03-01T10:{i:02}:00Z","tournament":"{t}","stage":"seeding","match":"s{i}","game":1,"seats":[{{"seat":"red","player":"{player}","score":{score}}},{{"seat":"yellow","player":null}},{{"seat":"green","player":null}},{{"seat":"blue","player":null}}]}}"#
    )
}

/// Game `game` of match `m` (stage `stage`) at hour `h`: `players` in seats
/// rotated by the game number, each scoring as given; bots fill the rest.
pub fn match_game(
    t: &str,
    stage: &str,
    m: &str,
    h: u32,
    game: usize,
    players: &[(&str, i64)],
) -> String {
    let colors = ["red", "yellow", "green", "blue"];
    let mut seats = vec![String::new(); 4];
    for (i, seat) in seats.iter_mut().enumerate() {
        *seat = format!(
            r#"{{"seat":"{}","player":null}}"#,
            colors[(i + game - 1) % 4]
        );
    }
    for (i, (p, s)) in players.iter().enumerate() {
        seats[i] = format!(
            r#"{{"seat":"{}","player":"{p}","score":{s}}}"#,
            colors[(i + game - 1) % 4]
        );
    }
    format!(
        r#"{{"type":"sbr.game_played","at":"2015-03-0{}T{h:02}:{:02}:00Z","tournament":"{t}","stage":"{stage}","match":"{m}","game":{game},"seats":[{}]}}"#,
        if stage == "bracket" { 3 } else { 2 },
        game * 10,
        seats.join(",")
    )
}

/// All four games of a match: player `k` scores `scores[k]` in each game.
pub fn full_match(t: &str, stage: &str, m: &str, h: u32, players: &[(&str, i64)]) -> String {
    (1..=4)
        .map(|g| match_game(t, stage, m, h, g, players) + "\n")
        .collect()
}

/// Game line `line` giving `group`.
pub fn with_group(line: &str, group: &str) -> String {
    line.replacen(
        r#","seats":"#,
        &format!(r#","group":"{group}","seats":"#),
        1,
    )
}
