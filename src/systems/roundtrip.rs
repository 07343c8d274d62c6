//! Checkpoint round trips: the states of cards, cfr, diplomacy and sbr, folded
//! from the bundled `events/<system>_*.jsonl`, go through bincode and come back
//! rendering the same tables and judging every event the same way.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{tables, Selector, State};
use crate::fold::{fold, Folded, MemSource, Query};
use crate::output::Report;

/// The bundled streams whose names start with `prefix`, folded with checks.
fn folded(prefix: &str) -> (MemSource, Folded) {
    let texts: Vec<&str> = crate::demo::BUNDLED
        .iter()
        .filter(|(name, _)| name.starts_with(prefix))
        .map(|(_, text)| *text)
        .collect();
    assert!(!texts.is_empty(), "no bundled {prefix} stream");
    let src = MemSource::from_jsonl(&texts.join("\n")).expect("parses");
    let q = Query {
        check: true,
        ..Query::default()
    };
    let f = fold(&src, &q).expect("valid");
    (src, f)
}

fn through_bincode<T: Serialize + DeserializeOwned>(t: &T) -> T {
    let bytes = bincode::serialize(t).expect("serializes");
    bincode::deserialize(&bytes).expect("deserializes")
}

/// Every table of namespace `ns`, and for a table listing tournaments, each
/// tournament's own standings.
fn reports(state: &State, ns: &str, f: &Folded) -> Vec<Report> {
    let mut out = Vec::new();
    for (table, _) in tables().into_iter().filter(|(_, n)| *n == ns) {
        let all = state.standings(table, &Selector::default(), &f.cx).unwrap();
        let lists_tournaments = all.main.columns.first().is_some_and(|c| c == "tournament");
        if lists_tournaments {
            for row in &all.main.rows {
                let sel = Selector {
                    tournament: row[0].as_str().map(str::to_string),
                };
                out.push(state.standings(table, &sel, &f.cx).unwrap());
            }
        }
        out.push(all);
    }
    out
}

/// Fold `prefix`'s streams, swap namespace `ns`'s state for its round trip
/// (`swap`), and compare every table and every event's check.
fn check_round_trip(prefix: &str, ns: &str, swap: impl Fn(&mut State, &State)) {
    let (src, f) = folded(prefix);
    let mut copy = f.state.clone();
    swap(&mut copy, &f.state);
    let (want, got) = (reports(&f.state, ns, &f), reports(&copy, ns, &f));
    let rows: usize = want.iter().map(|r| r.main.rows.len()).sum();
    assert!(rows > 0, "{ns}: the bundled events fold to empty tables");
    assert_eq!(want, got, "{ns}: tables differ after the round trip");
    // Lookups by name (interner indexes) still work: every event is judged alike
    // (most are refused now as already recorded, naming what they collide with).
    for rec in &src.records {
        assert_eq!(f.state.check(rec, &f.cx), copy.check(rec, &f.cx));
    }
}

#[test]
fn cards_state_round_trips_through_bincode() {
    check_round_trip("cards_", "cards", |c, s| {
        c.cards = through_bincode(&s.cards)
    });
}

#[test]
fn cfr_state_round_trips_through_bincode() {
    check_round_trip("cfr_", "cfr", |c, s| c.cfr = through_bincode(&s.cfr));
}

#[test]
fn diplomacy_state_round_trips_through_bincode() {
    check_round_trip("diplomacy_", "diplomacy", |c, s| {
        c.diplomacy = through_bincode(&s.diplomacy)
    });
}

#[test]
fn sbr_state_round_trips_through_bincode() {
    check_round_trip("sbr_", "sbr", |c, s| c.sbr = through_bincode(&s.sbr));
}
