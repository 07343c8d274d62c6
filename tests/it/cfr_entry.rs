//! How a CFR event is entered: after its series is defined, and once (under
//! one name): the same results at the same date under another event name
//! are refused as the event entered again.

use crate::common;

use common::{append_ok, append_refused, empty_ledger, events_dir, head};

/// The last event of the bundled WBC stream (record 5, `wbc/2012`), given
/// another event name and id.
fn wbc_2012_again(event: &str, at: &str) -> String {
    let text = std::fs::read_to_string(events_dir().join("cfr_wbc.jsonl")).unwrap();
    let last = text.lines().last().unwrap();
    let mut v: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(v["event"], "2012");
    v["event"] = event.into();
    v["id"] = format!("{event}-id").into();
    v["at"] = at.into();
    v.to_string()
}

fn wbc() -> tempfile::TempDir {
    let dir = empty_ledger();
    let text = std::fs::read_to_string(events_dir().join("cfr_wbc.jsonl")).unwrap();
    append_ok(dir.path(), &text);
    dir
}

#[test]
fn an_event_entered_again_under_another_name_is_refused_naming_the_first() {
    let dir = wbc();
    append_refused(
        dir.path(),
        &wbc_2012_again("2012-b", "2012-08-04"),
        &[
            "cfr event wbc/2012-b: event wbc/2012 (record 5) has the same date and the same \
             results: an event is entered once (to correct event 2012: `laurel correct 5 FILE \
             --reason TEXT`); if this is another event, give its `at` to the minute it ended",
        ],
    );
    // Both in one append: the first is named as this append's.
    let two = format!(
        "{}\n{}",
        wbc_2012_again("2013", "2013-08-04"),
        wbc_2012_again("2013-b", "2013-08-04")
    );
    append_refused(
        dir.path(),
        &two,
        &["event wbc/2013 (which this append brings) has the same date and the same results"],
    );
}

/// The same results listed in another order: dnf drivers swapped, a
/// heat whose places skip (kept as given) listed backwards, the heats
/// swapped; a points event's races reversed.
#[test]
fn an_event_entered_again_with_its_drivers_in_another_order_is_refused() {
    let dir = empty_ledger();
    let defined =
        r#"{"type":"cfr.series_defined","at":"2020-01-01","series":"s","format":"elimination"}"#;
    let event = |name: &str, heat: &str, fin: &str| {
        format!(
            r#"{{"type":"cfr.event_completed","at":"2020-02-01","series":"s","event":"{name}","heats":[{heat}],"final":{fin}}}"#
        )
    };
    let heat = r#"[{"driver":"Ann","place":1},{"driver":"Bob","place":3}]"#;
    let backwards = r#"[{"driver":"Bob","place":3},{"driver":"Ann","place":1}]"#;
    let fin = r#"[{"driver":"Ann","place":1},{"driver":"Cy","place":"dnf"},{"driver":"Di","place":"dnf"}]"#;
    let swapped = r#"[{"driver":"Ann","place":1},{"driver":"Di","place":"dnf"},{"driver":"Cy","place":"dnf"}]"#;
    // Two heats: the second Eve's where the first is Bob's.
    let other = heat.replace("Bob", "Eve");
    append_ok(
        dir.path(),
        &format!("{defined}\n{}", event("a", &format!("{heat},{other}"), fin)),
    );
    for (heats, fin) in [
        (format!("{heat},{other}"), swapped),
        (format!("{backwards},{other}"), fin),
        (format!("{other},{heat}"), fin),
    ] {
        append_refused(
            dir.path(),
            &event("b", &heats, fin),
            &["event s/a (record 2) has the same date and the same results"],
        );
    }
    // A points event of the bundled stream, its races reversed.
    let pbem = std::fs::read_to_string(events_dir().join("cfr_pbem.jsonl")).unwrap();
    append_ok(dir.path(), &pbem);
    let mut v: serde_json::Value = serde_json::from_str(pbem.lines().last().unwrap()).unwrap();
    v["races"].as_array_mut().unwrap().reverse();
    v["event"] = "again".into();
    v["id"] = "again-id".into();
    let said = "has the same date and the same results";
    append_refused(dir.path(), &v.to_string(), &[said]);
}

#[test]
fn the_same_results_on_another_date_or_time_are_another_event() {
    let dir = wbc();
    let (seq, _) = head(dir.path());
    append_ok(dir.path(), &wbc_2012_again("2013", "2013-08-04"));
    append_ok(
        dir.path(),
        &wbc_2012_again("2013-evening", "2013-08-04T20:00:00Z"),
    );
    assert_eq!(head(dir.path()).0, seq + 2);
}

#[test]
fn an_event_dated_before_its_series_says_when_the_series_is_needed() {
    let dir = empty_ledger();
    let text = [
        r#"{"type":"cfr.series_defined","at":"2026-12-01","series":"club","format":"points"}"#,
        r#"{"type":"cfr.event_completed","at":"2026-04-12","series":"club","event":"r1","races":[{"tier":1,"results":[{"driver":"Ana Costa","place":1}]}]}"#,
    ]
    .join("\n");
    append_refused(
        dir.path(),
        &text,
        &[
            "cfr event club/r1: series \"club\" is not defined at 2026-04-12, the event's date \
             (a cfr.series_defined dated no later defines it; if one is dated after it, \
             correct its date: `laurel correct SEQ FILE --reason TEXT`, its SEQ in `laurel log`)",
        ],
    );
}
