//! Unit tests of the cfr projection over in-memory event streams.

use super::score::{Entry, Finish};
use super::*;
use crate::fold::{fold, MemSource, Query};
use crate::num::{decimal_string, ratio};

const SERIES: &str =
    r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"s","format":"points"}"#;

/// A one-race points event of series `s`, results as `(driver, place)`.
fn race(event: &str, at: &str, results: &[(&str, u32)]) -> String {
    let r: Vec<String> = results
        .iter()
        .map(|(d, p)| format!(r#"{{"driver":"{d}","place":{p}}}"#))
        .collect();
    format!(
        r#"{{"type":"cfr.event_completed","at":"{at}","series":"s","event":"{event}","races":[{{"tier":1,"results":[{}]}}]}}"#,
        r.join(",")
    )
}

fn folded(lines: &[String], audit: bool) -> crate::fold::Folded {
    let src = MemSource::from_jsonl(&lines.join("\n")).expect("parses");
    let q = Query {
        audit,
        check: true,
        ..Query::default()
    };
    fold(&src, &q).expect("valid")
}

impl State {
    /// The event names of series `s`, in fold order.
    fn event_names(&self, s: &str) -> Vec<&str> {
        let s = self.series_named(s).expect("series");
        let names = s.events.iter().map(|&e| self.name_of(e));
        names.map(|n| self.event_names.name(n)).collect()
    }

    /// Every driver's result at the `i`th event of series `s`, by name.
    fn drivers_at(&self, s: &str, i: usize) -> BTreeMap<String, Entry> {
        let s = self.series_named(s).expect("series");
        let all = self.entries(s, s.events[i], true).into_iter();
        all.map(|(d, en)| (self.drivers.name(d).to_string(), en))
            .collect()
    }
}

fn score_of(f: &crate::fold::Folded, driver: &str) -> Option<String> {
    let cfr = &f.state.cfr;
    let r = cfr.ranking(&f.cx);
    let i = r
        .order
        .iter()
        .position(|(d, _)| cfr.drivers.name(*d) == driver);
    i.map(|i| decimal_string(r.line(cfr, i).score, 2))
}

#[test]
fn a_driver_whose_only_event_leaves_the_window_becomes_unranked() {
    let mut log = vec![
        SERIES.to_string(),
        race("1", "2013-02-01", &[("Zed", 1), ("Amy", 2)]),
    ];
    for (i, day) in ["2013-03-01", "2013-04-01", "2013-05-01"]
        .iter()
        .enumerate()
    {
        log.push(race(&format!("{}", i + 2), day, &[("Amy", 1)]));
    }
    let f = folded(&log, true);
    assert_eq!(score_of(&f, "Zed"), None);
    let last = f.cx.changes().iter().rfind(|c| c.subject == "Zed").unwrap();
    assert_eq!(last.old.as_deref(), Some("50.00"));
    assert_eq!(last.new, "unranked");
    assert!(last
        .formula
        .contains("s/1 left the window (last 3 s events)"));
    // Amy: 100, 100, 100 counted; her 60 of event 1 left
    assert_eq!(score_of(&f, "Amy").as_deref(), Some("100.00"));
}

#[test]
fn a_late_entered_event_takes_its_place_by_date() {
    // event "old" is appended last but dated first: it falls out of the window
    let log = vec![
        SERIES.to_string(),
        race("b", "2013-03-01", &[("Amy", 1)]),
        race("c", "2013-04-01", &[("Amy", 1)]),
        race("d", "2013-05-01", &[("Amy", 1)]),
        race("old", "2013-02-01", &[("Bob", 1), ("Amy", 2)]),
    ];
    let f = folded(&log, false);
    assert_eq!(score_of(&f, "Amy").as_deref(), Some("100.00"));
    let names: Vec<&str> = f.state.cfr.event_names("s");
    assert_eq!(names, ["old", "b", "c", "d"]);
}

#[test]
fn empty_or_winless_tables_and_an_empty_window_are_refused() {
    // A table without a positive win is refused too: a race's perfect
    // score, its divisor, is a win's points.
    for params in [
        r#"{"race_points":[]}"#,
        r#"{"race_points":[0]}"#,
        r#"{"counted_events":0}"#,
    ] {
        let log = [
            SERIES.to_string(),
            format!(
                r#"{{"type":"ledger.rules_changed","at":"2013-01-15","system":"cfr","params":{params}}}"#
            ),
        ];
        let src = MemSource::from_jsonl(&log.join("\n")).expect("parses");
        let q = Query {
            check: true,
            ..Query::default()
        };
        let e = fold(&src, &q).unwrap_err().to_string();
        assert!(e.contains("is out of range; allowed:"), "{e}");
    }
}

#[test]
fn a_series_table_overrides_the_parameters_and_decay_is_read_from_it() {
    let log = vec![
        r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"e","format":"elimination","final_points":[10],"heat_points":[10],"heat_decay":"1"}"#.to_string(),
        r#"{"type":"cfr.event_completed","at":"2013-02-01","series":"e","event":"1","heats":[[{"driver":"A","place":1}],[{"driver":"A","place":1}]],"final":[{"driver":"A","place":"dnf"}]}"#.to_string(),
    ];
    let f = folded(&log, false);
    let a = &f.state.cfr.drivers_at("e", 0)["A"];
    // perfect 10 + 10 + 10*1 = 30; A: two heat wins at full weight = 20
    let d = a.detail.as_ref().expect("asked for");
    assert_eq!((d.points, d.perfect), (ratio(20, 1), ratio(30, 1)));
    assert_eq!(a.score(), ratio(6667, 100));
    assert_eq!(a.finish.map(Finish::text).as_deref(), Some("1st heat"));
}

/// A table that stops building rows counts the rest by `driver_count`: it
/// must be the number of rows `entries` gives, at every event of the bundled
/// series (points and elimination, heats and finals, DNFs).
#[test]
fn driver_count_is_the_number_of_entries_at_every_event() {
    for text in [
        include_str!("../../../events/cfr_pbem.jsonl"),
        include_str!("../../../events/cfr_wbc.jsonl"),
        include_str!("../../../events/cfr_wbc_pbem.jsonl"),
    ] {
        let src = MemSource::from_jsonl(text).expect("parses");
        let st = fold(&src, &Query::default()).expect("valid").state.cfr;
        let mut events = 0;
        for s in &st.series {
            for &ev in &s.events {
                assert_eq!(st.driver_count(s, ev), st.entries(s, ev, false).len());
                events += 1;
            }
        }
        assert!(events > 0);
    }
}
