//! Space Base Race helpers shared by its test files: a match table's rows,
//! a refused append, the games of a whole match.

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

/// The 4 games of match `m` of stage `stage` between `players` (name,
/// score each game), each once in each seat, bots in the seats left;
/// `label(game)` is the `group` a game gives, if any.
pub fn match_games(
    m: &str,
    stage: &str,
    hour: u32,
    players: &[(&str, u32)],
    label: impl Fn(u32) -> Option<&'static str>,
) -> String {
    let colors = ["red", "yellow", "green", "blue"];
    (1..=4u32)
        .map(|game| {
            let seats: Vec<String> = (0..4)
                .map(|seat| {
                    let who = players.iter().enumerate().find(|(i, _)| (i + game as usize) % 4 == seat);
                    match who {
                        Some((_, (p, score))) => format!(
                            r#"{{"seat":"{}","player":"{p}","score":{score}}}"#,
                            colors[seat]
                        ),
                        None => format!(r#"{{"seat":"{}","player":null}}"#, colors[seat]),
                    }
                })
                .collect();
            let group = label(game).map_or(String::new(), |g| format!(r#","group":"{g}""#));
            format!(
                r#"{{"type":"sbr.game_played","at":"2015-03-01T{hour:02}:{:02}:00Z","tournament":"t","stage":"{stage}","match":"{m}","game":{game}{group},"seats":[{}]}}"#,
                game * 10,
                seats.join(",")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
