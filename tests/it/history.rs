//! `history` through the binary, of what is not a plain player: a grudge
//! team, which Ainur rates (players.rs holds the players' own histories).

use crate::common;

use common::json;

/// A grudge team is no player, but Ainur rates it: its history answers.
/// Team Grey Company won game 251 for FP: 1500 → 1539, +39 = round(60 ×
/// (1450 / 1500) × (8 / 12)) = round(38.67).
#[test]
fn history_of_a_grudge_team_lists_its_ainur_changes() {
    let dir = common::ledger_with(&["mepbm_ainur.jsonl"]);
    let v = json(dir.path(), &["history", "Grey Company", "--format", "json"]);
    let rows = v["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{v}");
    assert_eq!(rows[0]["system"], "ainur");
    let said = "+39 = round(60 * (1450 / 1500) * (8 / 12)); 8 of the 12 nations that started on \
                FP not eliminated";
    assert!(
        rows[0]["formula"].as_str().unwrap().starts_with(said),
        "{v}"
    );
    assert_eq!(
        (&rows[0]["old"], &rows[0]["new"]),
        (&"1500".into(), &"1539".into()),
        "{v}"
    );
    let listed = json(dir.path(), &["players", "--format", "json"]);
    assert!(
        !listed.to_string().contains("Grey Company"),
        "a team is no player"
    );
    // Before their first change, a team and a player have an empty history;
    // a name that is nothing's is refused whatever the clocks.
    for (name, cut) in [
        ("Grey Company", "2003-06-05"),
        ("Grey Company", "2003-05-01"),
        ("Sam Reed", "2003-06-05"),
        ("Sam Reed", "2003-05-01"),
    ] {
        let v = json(
            dir.path(),
            &["history", name, "--as-of", cut, "--format", "json"],
        );
        assert_eq!(v["rows"], serde_json::json!([]), "{name} as of {cut}: {v}");
    }
    let args = ["history", "Nobody Atall", "--as-of", "2003-06-05"];
    let (code, _, err) = common::run(dir.path(), &args);
    assert_eq!(code, 2);
    assert!(err.contains("is not a player in this ledger"), "{err}");
}
