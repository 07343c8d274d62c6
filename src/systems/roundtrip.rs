//! Checkpoint round trips: the state of each system, folded from the bundled
//! `events/<system>_*.jsonl`, goes through its checkpoint section
//! ([`State::section`], [`State::from_sections`]) and comes back rendering the
//! same tables and judging every event the same way.

use super::{tables, Selector, State, NAMESPACES};
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

/// `state`'s projection of namespace `ns` through its checkpoint section, the
/// rest of the state empty.
fn through_section(state: &State, ns: &str) -> State {
    let i = NAMESPACES
        .iter()
        .position(|n| *n == ns)
        .expect("a namespace");
    let bytes = state.section(i).expect("serializes");
    let back = State::from_sections(&[(ns.to_string(), bytes.clone())], Some(ns)).expect("decodes");
    // Nothing is lost or reordered: the copy writes the very same bytes.
    assert_eq!(back.section(i).unwrap(), bytes);
    back
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

/// Fold `prefix`'s streams, take namespace `ns`'s state through its section,
/// and compare every table and every event's check.
fn check_round_trip(prefix: &str, ns: &str) {
    let (src, f) = folded(prefix);
    let copy = through_section(&f.state, ns);
    let (want, got) = (reports(&f.state, ns, &f), reports(&copy, ns, &f));
    let rows: usize = want.iter().map(|r| r.main.rows.len()).sum();
    assert!(rows > 0, "{ns}: the bundled events fold to empty tables");
    assert_eq!(want, got, "{ns}: tables differ after the round trip");
    // Lookups by name (interner indexes) still work: every event of `ns` is
    // judged alike (most are refused now as already recorded, naming what
    // they collide with).
    for rec in src.records.iter().filter(|r| r.kind.starts_with(ns)) {
        assert_eq!(f.state.check(rec, &f.cx), copy.check(rec, &f.cx));
    }
}

#[test]
fn every_state_round_trips_through_its_section() {
    for ns in NAMESPACES {
        check_round_trip(&format!("{ns}_"), ns);
    }
}

/// A generated stream has what the bundled one lacks in bulk (takeovers,
/// allegiance changes, ballots, grudge teams, monthly ticks): every table and
/// every event's check come out the same after the round trip, and the copy
/// folds the rest of the stream to the same tables as the original.
#[test]
fn a_generated_mepbm_state_round_trips_mid_fold() {
    let src = MemSource::from_jsonl(&crate::gen::stream(4000, 11)).expect("parses");
    // Fold up to the middle of the stream's time, then apply the rest in fold
    // order, to the original and to the copy.
    let mut rest: Vec<&crate::events::Record> = src.records.iter().collect();
    rest.sort_by_key(|r| (r.at, r.seq));
    let mid = rest[rest.len() / 2].at;
    rest.retain(|r| r.at > mid);
    let q = Query {
        check: true,
        as_of: Some(mid),
        ..Query::default()
    };
    let mut f = fold(&src, &q).expect("valid");
    let mut copy = through_section(&f.state, "mepbm");
    let (want, got) = (reports(&f.state, "mepbm", &f), reports(&copy, "mepbm", &f));
    assert!(want.iter().map(|r| r.main.rows.len()).sum::<usize>() > 0);
    assert_eq!(want, got);
    let mut cx = f.cx.clone();
    let mut mepbm = 0;
    for rec in rest.into_iter().filter(|r| r.kind.starts_with("mepbm.")) {
        assert_eq!(f.state.check(rec, &f.cx), Ok(()), "the stream is valid");
        assert_eq!(copy.check(rec, &cx), Ok(()));
        f.state.apply(rec, &mut f.cx);
        copy.apply(rec, &mut cx);
        mepbm += 1;
    }
    assert!(mepbm > 100, "{mepbm} mepbm events after the round trip");
    assert_eq!(reports(&f.state, "mepbm", &f), reports(&copy, "mepbm", &f));
    assert!(f.state.section(0).unwrap() == copy.section(0).unwrap());
}

/// A cut or lengthened section reads as absent (the checkpoint's zstd
/// checksum catches changed bytes before they are decoded).
#[test]
fn a_cut_section_reads_as_absent() {
    let (_, f) = folded("mepbm_");
    let bytes = f.state.section(0).unwrap();
    let read = |b: &[u8]| State::from_sections(&[("mepbm".into(), b.to_vec())], None);
    assert!(
        read(&bytes).is_none(),
        "the other namespaces' sections are missing"
    );
    let read = |b: &[u8]| State::from_sections(&[("mepbm".into(), b.to_vec())], Some("mepbm"));
    assert!(read(&bytes).is_some());
    for n in 0..bytes.len() {
        assert!(read(&bytes[..n]).is_none(), "{n}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(read(&longer).is_none());
}
