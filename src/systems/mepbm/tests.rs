//! The state round-trips through bincode (checkpoints store it so): every
//! table, and every check against it, is the same after the trip.

use crate::fold::{fold, MemSource, Query};
use crate::systems::{Cx, Projection, Selector};

use super::{State, TABLES};

/// The bundled `events/mepbm_*.jsonl`, in name order, as one stream.
fn mepbm_events() -> String {
    let files: Vec<&str> = crate::demo::BUNDLED
        .iter()
        .filter(|(name, _)| name.starts_with("mepbm_"))
        .map(|(_, text)| *text)
        .collect();
    assert!(files.len() >= 5, "the mepbm sample streams are bundled");
    files.concat()
}

fn tables(s: &State, cx: &Cx) -> Vec<crate::output::Report> {
    TABLES
        .iter()
        .map(|t| s.standings(t, &Selector::default(), cx).unwrap())
        .collect()
}

#[test]
fn state_round_trips_through_bincode() {
    let src = MemSource::from_jsonl(&mepbm_events()).unwrap();
    let q = Query {
        check: true,
        ..Query::default()
    };
    let folded = fold(&src, &q).unwrap();
    let state = folded.state.mepbm;
    let cx = folded.cx;
    let bytes = bincode::serialize(&state).unwrap();
    let back: State = bincode::deserialize(&bytes).unwrap();
    let before = tables(&state, &cx);
    assert!(before.iter().all(|r| !r.main.json_rows().is_empty()));
    assert_eq!(before, tables(&back, &cx));
    // Every event again, checked against the folded state: the same verdicts
    // (duplicates of games, ballots, teams and months are refused alike).
    let mut refused = 0;
    for rec in &src.records {
        let verdict = state.check(rec, &cx);
        refused += usize::from(verdict.is_err());
        assert_eq!(verdict, back.check(rec, &cx), "seq {}", rec.seq);
    }
    assert!(refused > 0);
}

/// `apply` cannot fail, so it ignores a game started again (the append
/// refuses one): the game keeps its first start, found with one lookup.
#[test]
fn a_game_started_twice_keeps_its_first_start() {
    let src = MemSource::from_jsonl(&mepbm_events()).unwrap();
    let folded = fold(&src, &Query::default()).unwrap();
    let (mut state, mut cx) = (folded.state.mepbm, folded.cx);
    let shape = |s: &State, cx: &Cx| (tables(s, cx), s.games.len(), s.slots.len());
    let before = shape(&state, &cx);
    let mut again = 0;
    for rec in src
        .records
        .iter()
        .filter(|r| r.kind == "mepbm.game_started")
    {
        state.apply(rec, &mut cx);
        again += 1;
    }
    assert!(again >= 5, "the samples start games");
    assert_eq!(before, shape(&state, &cx));
}
