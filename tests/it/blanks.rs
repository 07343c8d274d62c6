//! Empty cells that say something: a Diplomacy position surrendered and never
//! replaced has no player, which text and the site say in words, JSON keeps as
//! null and CSV as an empty field; the site links no player from it.

use crate::common;

use common::{ledger_with, run, standings};
use serde_json::Value;

const GAME: &str = "diplomacy-2024-r4";

#[test]
fn a_surrendered_position_reads_surrendered_in_text_and_on_the_site_only() {
    let dir = ledger_with(&["diplomacy_solo_surrender.jsonl"]);
    let games = ["standings", "fibonacci", "--table", "games"];
    let text = run(dir.path(), &games).1;
    let line = |t: &str| {
        t.lines()
            .find(|l| l.contains(GAME) && l.contains("Russia"))
            .map(str::to_string)
    };
    assert!(
        line(&text).is_some_and(|l| l.contains("Russia   (surrendered)")),
        "{text}"
    );
    let csv = run(dir.path(), &[&games[..], &["--format", "csv"]].concat()).1;
    assert!(line(&csv).is_some_and(|l| l.contains(",Russia,,")), "{csv}");
    let json = standings(dir.path(), &["fibonacci"]);
    let rows = json["tables"]["games"].as_array().unwrap();
    let russia = rows
        .iter()
        .find(|r| r["game"] == GAME && r["power"] == "Russia");
    assert_eq!(russia.map(|r| &r["player"]), Some(&Value::Null));
    let site = dir.path().join("site");
    let out = common::laurel(dir.path())
        .arg("site")
        .arg(&site)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let html = std::fs::read_to_string(site.join("table-fibonacci.html")).unwrap();
    assert!(
        html.contains("<td>Russia<td>(surrendered)<td"),
        "no plain cell"
    );
    assert!(
        !html.contains(">(surrendered)</a>"),
        "a link from a surrendered position"
    );
}
