//! The fold of the bundled mepbm samples (the checkpoint round trip is
//! `systems::roundtrip`'s).

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

fn tables(s: &State, cx: &Cx) -> Vec<crate::systems::table::Report> {
    TABLES
        .iter()
        .map(|t| s.standings(t, &Selector::default(), cx).unwrap())
        .collect()
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
