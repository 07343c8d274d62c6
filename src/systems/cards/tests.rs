//! Fold-level tests: validation and standings over in-memory records.

use crate::fold::{fold, MemSource, Query};
use crate::systems::Selector;
use crate::time::DAY;

use super::*;

impl State {
    /// Player `p`'s line in tournament `t` (panics when there is none).
    fn line(&self, t: &str, p: &str) -> Line {
        let id = self.names.get(p).expect("a known player");
        self.tournaments[t].lines[&id]
    }
}

fn folded(text: &str) -> Result<crate::fold::Folded, String> {
    let src = MemSource::from_jsonl(text)?;
    let q = Query {
        check: true,
        audit: true,
        ..Query::default()
    };
    fold(&src, &q).map_err(|e| e.to_string())
}

const BASE: &str = r#"
{"type":"cards.tournament_created","at":"2013-01-01","tournament":"t","point_system":2,"starts":"2013-01-01","ends":"2013-06-30"}
{"type":"cards.round_scheduled","at":"2013-01-02","tournament":"t","round":"1","starts":"2013-01-07","ends":"2013-01-13","matches":[{"match":"a","players":["ann","bob","cy"],"table_strength":3},{"match":"b","players":["dee","eve","fay","gus"],"table_strength":1},{"match":"c","players":["hal","ivy","jo"],"table_strength":2}]}
{"type":"cards.match_result","at":"2013-01-13","tournament":"t","round":"1","match":"a","scores":[{"player":"ann","score":620},{"player":"bob","score":-44},{"player":"cy","score":-576}]}
"#;

#[test]
fn a_system2_result_adds_strength_and_clamped_score_points() {
    let f = folded(BASE).unwrap();
    let line = |p| f.state.cards.line("t", p);
    assert_eq!(line("ann").points, 93);
    assert_eq!(line("bob").points, 9);
    assert_eq!(line("cy").points, -47);
    assert_eq!(line("cy").total_score, -576);
    let ann = &f.cx.changes()[0];
    assert_eq!(ann.subject, "ann");
    assert_eq!(ann.new, "93");
    assert_eq!(ann.old, None);
    assert_eq!(
        ann.formula,
        "tournament t, round 1, match a: +93 = 40 + 3 + 50; placement 40: 1st of 3 by score 620, \
         table 40,10,0 (one positive score); table strength 3; score points 50 = clamp(round(620 / 10), -50, 50)"
    );
    assert!(f.cx.changes()[1]
        .formula
        .contains("score points -4 = clamp(round(-44 / 10), -50, 50)"));
}

#[test]
fn tied_formulas_show_the_shared_places() {
    let text = format!(
        "{BASE}{}",
        r#"{"type":"cards.match_result","at":"2013-01-10","tournament":"t","round":"1","match":"b","scores":[{"player":"dee","score":60},{"player":"eve","score":-20},{"player":"fay","score":-20},{"player":"gus","score":-20}]}"#
    );
    let f = folded(&text).unwrap();
    let eve = f.cx.changes().iter().find(|c| c.subject == "eve").unwrap();
    assert!(
        eve.formula
            .contains("placement 12: 2nd-4th of 4 by score -20 tied, round((25 + 10 + 0) / 3)"),
        "{}",
        eve.formula
    );
    assert_eq!(eve.new, "11"); // 12 + 1 - 2
}

#[test]
fn a_rules_change_applies_from_its_at() {
    let text = format!(
        "{BASE}{}\n{}",
        r#"{"type":"ledger.rules_changed","at":"2013-01-09","system":"cards","params":{"score_clamp":20}}"#,
        r#"{"type":"cards.match_result","at":"2013-01-08","tournament":"t","round":"1","match":"c","scores":[{"player":"hal","score":620},{"player":"ivy","score":-44},{"player":"jo","score":-576}]}"#
    );
    let f = folded(&text).unwrap();
    let line = |p| f.state.cards.line("t", p);
    // match c folded before the change: clamp 50; match a after it: clamp 20.
    assert_eq!(line("hal").points, 40 + 2 + 50);
    assert_eq!(line("ann").points, 40 + 3 + 20);
}

#[test]
fn a_result_before_its_round_is_scheduled_is_rejected() {
    let text = format!(
        "{BASE}{}",
        r#"{"type":"cards.match_result","at":"2013-01-01","tournament":"t","round":"1","match":"c","scores":[{"player":"hal","score":0},{"player":"ivy","score":0},{"player":"jo","score":0}]}"#
    );
    let e = folded(&text).unwrap_err();
    assert!(
        e.contains("round \"1\" is not scheduled at 2013-01-01"),
        "{e}"
    );
}

#[test]
fn inclusive_end_covers_a_plain_dates_day() {
    let d = crate::time::parse("2013-01-13").unwrap();
    assert_eq!(inclusive_end(d), d + DAY - 1);
    let t = crate::time::parse("2013-01-13T18:00:00Z").unwrap();
    assert_eq!(inclusive_end(t), t);
}

#[test]
fn ranks_are_shared_only_on_equal_points_and_total_score() {
    let text = r#"
{"type":"cards.tournament_created","at":"2013-01-01","tournament":"t","point_system":1,"starts":"2013-01-01","ends":"2013-06-30"}
{"type":"cards.round_scheduled","at":"2013-01-02","tournament":"t","round":"1","starts":"2013-01-07","ends":"2013-01-13","matches":[{"match":"a","players":["ann","bob","cy"]},{"match":"b","players":["dee","eve","fay"]}]}
{"type":"cards.match_result","at":"2013-01-08","tournament":"t","round":"1","match":"a","scores":[{"player":"ann","score":20},{"player":"bob","score":20},{"player":"cy","score":-40}]}
{"type":"cards.match_result","at":"2013-01-08","tournament":"t","round":"1","match":"b","scores":[{"player":"dee","score":40},{"player":"eve","score":0},{"player":"fay","score":-40}]}
"#;
    let f = folded(text).unwrap();
    let r = f
        .state
        .cards
        .standings("cards", &Selector::of(Some("t".into())), &f.cx)
        .unwrap();
    let got: Vec<(i64, String, i64)> = r
        .main
        .json_rows()
        .iter()
        .map(|row| {
            (
                row["rank"].as_i64().unwrap(),
                row["player"].as_str().unwrap().to_string(),
                row["score"].as_i64().unwrap(),
            )
        })
        .collect();
    let want = [
        (1, "dee", 3), // 3 points, total 40
        (2, "ann", 3), // 3 points, total 20: shares 2nd with bob
        (2, "bob", 3),
        (4, "eve", 2),
        (5, "cy", 0), // 0 points, total -40, shares with fay
        (5, "fay", 0),
    ];
    let want: Vec<(i64, String, i64)> = want
        .iter()
        .map(|(r, p, s)| (*r, p.to_string(), *s))
        .collect();
    assert_eq!(got, want);
}
