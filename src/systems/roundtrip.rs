//! Checkpoint round trips: the states of every system, folded
//! from the bundled `events/<system>_*.jsonl`, go through their checkpoint
//! sections and come back rendering the same tables and judging every event
//! the same way.

use super::{tables, RatingSystem, Selector, State};
use crate::fold::{fold, Folded, MemSource, Query};
use crate::systems::table::Report;

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

/// `t` written as its checkpoint section and read back; the copy writes
/// the very same bytes (nothing lost or reordered).
fn through_section<T: RatingSystem>(t: &T) -> T {
    let bytes = t.checkpoint().expect("a section");
    let back = T::restore(&bytes).expect("reads back");
    assert_eq!(back.checkpoint().expect("a section"), bytes);
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
                let sel = Selector::of(row[0].as_str().map(str::to_string));
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
fn cards_state_round_trips_through_section() {
    check_round_trip("cards_", "cards", |c, s| {
        c.cards = through_section(&s.cards)
    });
}

#[test]
fn cfr_state_round_trips_through_section() {
    check_round_trip("cfr_", "cfr", |c, s| c.cfr = through_section(&s.cfr));
}

#[test]
fn diplomacy_state_round_trips_through_section() {
    check_round_trip("diplomacy_", "diplomacy", |c, s| {
        c.diplomacy = through_section(&s.diplomacy)
    });
}

#[test]
fn sbr_state_round_trips_through_section() {
    check_round_trip("sbr_", "sbr", |c, s| c.sbr = through_section(&s.sbr));
}

/// The tournament ids by case are derived, never stored: a state read back
/// from its checkpoint section knows them again, and refuses a new
/// tournament whose id differs from a known one in case alone.
#[test]
fn tournament_ids_by_case_come_back_with_a_checkpoint() {
    let twins = [
        (
            "cards_",
            r#"{"type":"cards.tournament_created","at":"2030-01-01","tournament":"Cards-2013-League","point_system":1,"starts":"2030-01-01","ends":"2030-03-31"}"#,
        ),
        (
            "sbr_",
            r#"{"type":"sbr.tournament_created","at":"2030-01-01","tournament":"MARS-2014"}"#,
        ),
    ];
    for (prefix, line) in twins {
        let (_, f) = folded(prefix);
        let mut copy = f.state.clone();
        let back = |bytes: Result<Vec<u8>, String>| bytes.expect("a section");
        copy.cards = RatingSystem::restore(&back(f.state.cards.checkpoint())).expect("cards");
        copy.sbr = RatingSystem::restore(&back(f.state.sbr.checkpoint())).expect("sbr");
        let rec = &MemSource::from_jsonl(line).expect("parses").records[0];
        let refused = copy.check(rec, &f.cx).expect_err(prefix);
        assert!(
            refused.contains("differs from it in case alone"),
            "{refused}"
        );
    }
}

#[test]
fn mepbm_state_round_trips_through_its_checkpoint_section() {
    check_round_trip("mepbm_", "mepbm", |c, s| {
        c.mepbm = through_section(&s.mepbm)
    });
}

/// A generated stream has what the bundled one lacks in bulk (takeovers,
/// allegiance changes, ballots, grudge teams, monthly ticks): every table and
/// every event's check come out the same after the round trip, and the copy
/// folds the rest of the stream to the same tables as the original.
#[test]
fn a_generated_mepbm_state_round_trips_mid_fold() {
    let src = MemSource::from_jsonl(&crate::systems::gen::stream(4000, 11)).expect("parses");
    // Fold up to the middle of the stream's time, then apply the rest in fold
    // order, to the original and to the copy.
    let mut rest: Vec<&crate::systems::Record> = src.records.iter().collect();
    rest.sort_by_key(|r| (r.at, r.seq));
    let mid = rest[rest.len() / 2].at;
    rest.retain(|r| r.at > mid);
    let q = Query {
        check: true,
        as_of: Some(mid),
        ..Query::default()
    };
    let mut f = fold(&src, &q).expect("valid");
    let mut copy = f.state.clone();
    copy.mepbm = through_section(&f.state.mepbm);
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
    assert_eq!(
        f.state.mepbm.checkpoint_bytes(),
        copy.mepbm.checkpoint_bytes()
    );
}

/// Damage reads as absent, never as a panic: every truncation, and a byte
/// flipped at every position (a flip may still decode: the checkpoint's zstd
/// checksum is what catches those).
#[test]
fn a_damaged_mepbm_checkpoint_reads_as_absent_without_panicking() {
    let (_, f) = folded("mepbm_");
    let bytes = f.state.mepbm.checkpoint_bytes();
    assert!(super::mepbm::State::from_checkpoint(&bytes).is_some());
    for n in 0..bytes.len() {
        assert!(
            super::mepbm::State::from_checkpoint(&bytes[..n]).is_none(),
            "{n}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(super::mepbm::State::from_checkpoint(&longer).is_none());
    for i in 0..bytes.len() {
        for bit in [0x01, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= bit;
            if let Some(s) = super::mepbm::State::from_checkpoint(&b) {
                // Whatever decoded must render without panicking.
                let _ = reports(
                    &State {
                        mepbm: s,
                        ..State::default()
                    },
                    "mepbm",
                    &f,
                );
            }
        }
    }
}
