//! Unit tests of the fold engine over in-memory sources: fold order under both
//! clocks, voids, resuming (from a position, from a state sent later), the
//! checkpoint snapshots of a checked fold, audit trails (of one subject, merged
//! from the workers) and the errors of failed checks and undecodable records.

use super::*;

/// 700 monthly ticks, one a month from January 1950, each on the 2nd of the
/// month after; the one at line `bad` repeats the month before it (a failed
/// check).
fn ticks(bad: usize) -> MemSource {
    let text: String = (0..700)
        .map(|i| {
            let m = if i == bad { i - 1 } else { i };
            format!(
                "{{\"type\":\"mepbm.monthly_tick\",\"at\":\"{y}-{mo:02}-02\",\"month\":\"{py}-{pm:02}\"}}\n",
                y = 1950 + (i + 1) / 12,
                mo = 1 + (i + 1) % 12,
                py = 1950 + m / 12,
                pm = 1 + m % 12,
            )
        })
        .collect();
    MemSource::from_jsonl(&text).unwrap()
}

#[test]
fn two_thread_fold_reports_the_first_failed_check_and_stores_snapshots_in_order() {
    let q = Query {
        check: true,
        ..Query::default()
    };
    let fold_storing = |src: &MemSource| {
        let mut stored = Vec::new();
        let mut put = |pos: Pos, n: u64, _: Snapshot| {
            stored.push((pos.1, n));
            Ok(())
        };
        let sink = Sink {
            marks: Marks::Every(100),
            encode: |_, _, _| Ok(Vec::new()),
            put: &mut put,
        };
        let r = fold_from(src, &q, None, Some(sink)).map(|f| f.known_at);
        (r, stored)
    };
    for bad in [3, 255, 256, 300, 699] {
        let e = fold(&ticks(bad), &q).unwrap_err().to_string();
        assert!(e.contains(&format!("seq {}", bad + 1)), "{e}");
        let (with_sink, _) = fold_storing(&ticks(bad));
        assert_eq!(with_sink.unwrap_err().to_string(), e);
    }
    // A fold that succeeds stores every hundredth state, in fold order.
    let (known, stored) = fold_storing(&ticks(usize::MAX));
    assert_eq!(known.unwrap(), 700);
    let want: Vec<(u64, u64)> = (1..=7).map(|k| (k * 100, k * 100)).collect();
    assert_eq!(stored, want);
}

const LOG: &str = r#"
{"type":"mepbm.monthly_tick","at":"2003-03-01","month":"2003-02"}
{"type":"mepbm.monthly_tick","at":"2003-01-01","month":"2002-12"}
{"type":"ledger.voided","at":"2003-04-01","target":1,"reason":"typo"}
{"type":"mepbm.monthly_tick","at":"2003-02-01","month":"2003-01"}
"#;

/// The seqs a fold of `q` from `start` folds, in its order, and its known-at
/// seq: what its sink sees after every record.
fn fold_order(src: &dyn Source, q: &Query, start: Option<Start>) -> (Vec<u64>, u64) {
    let mut seqs = Vec::new();
    let mut put = |pos: Pos, _: u64, _: Snapshot| {
        seqs.push(pos.1);
        Ok(())
    };
    let sink = Sink {
        marks: Marks::Every(1),
        encode: |_, _, _| Ok(Vec::new()),
        put: &mut put,
    };
    let known = fold_from(src, q, start, Some(sink)).unwrap().known_at;
    (seqs, known)
}

#[test]
fn a_fold_orders_by_at_then_seq_and_honours_both_clocks() {
    let src = MemSource::from_jsonl(LOG).unwrap();
    let all = fold_order(&src, &Query::default(), None);
    assert_eq!(all, (vec![2, 4, 3], 4));
    let known = Query {
        known_at: Some(2),
        ..Query::default()
    };
    assert_eq!(fold_order(&src, &known, None), (vec![2, 1], 2));
    let as_of = Query {
        as_of: crate::time::parse_bound("2003-01-31"),
        ..Query::default()
    };
    assert_eq!(fold_order(&src, &as_of, None).0, vec![2]);
}

#[test]
fn a_resumed_fold_takes_what_follows_the_position_within_the_known_at_cut_and_a_sink_sees_every_step(
) {
    let src = MemSource::from_jsonl(LOG).unwrap();
    let at = |seq: usize| src.records[seq - 1].at;
    let start = || {
        Some(Start {
            state: Resume::Ready(Box::default()),
            params: Params::default(),
            after: (at(2), 2),
            folded: 1,
        })
    };
    let q = Query::default();
    assert_eq!(fold_order(&src, &q, start()), (vec![4, 3], 4));
    let as_of = Query {
        as_of: crate::time::parse_bound("2003-02-15"),
        ..Query::default()
    };
    assert_eq!(fold_order(&src, &as_of, start()).0, vec![4]);
    // A known-at seq: only the records and voids at or below it.
    let known = |n| Query {
        known_at: Some(n),
        ..Query::default()
    };
    assert_eq!(fold_order(&src, &known(2), start()), (vec![1], 2));
    assert_eq!(fold_order(&src, &known(3), start()), (vec![3], 3));
    assert_eq!(fold_order(&src, &known(9), start()), (vec![4, 3], 4));
    let mut seen = Vec::new();
    let mut put = |pos: Pos, n: u64, _: Snapshot| {
        seen.push((pos, n));
        Ok(())
    };
    let sink = Sink {
        marks: Marks::Every(1),
        encode: |_, _, _| Ok(Vec::new()),
        put: &mut put,
    };
    fold_from(&src, &q, None, Some(sink)).unwrap();
    assert_eq!(
        seen,
        vec![((at(2), 2), 1), ((at(4), 4), 2), ((at(3), 3), 3)]
    );
}

#[test]
fn voids_must_target_an_earlier_live_record() {
    let src = MemSource::from_jsonl(&format!(
        "{LOG}{}",
        r#"{"type":"ledger.voided","at":"2003-04-01","target":1,"reason":"again"}"#
    ))
    .unwrap();
    let q = Query {
        check: true,
        ..Query::default()
    };
    let e = fold(&src, &q).unwrap_err().to_string();
    assert!(e.contains("already voided") && e.contains("seq 5"), "{e}");
}

/// Records as a ledger hands them out: stored canonical bytes, decoded by
/// the fold (`Source::items`), with the bytes of some replaced.
struct Stored {
    mem: MemSource,
    bytes: Vec<Vec<u8>>,
}

impl Stored {
    fn generated(events: u64) -> Stored {
        let text = crate::systems::gen::stream(events, 5);
        let lines = text.lines().filter(|l| !l.trim().is_empty());
        let canonical = |l: &str| {
            let v: Value = serde_json::from_str(l).unwrap();
            crate::events::parse_event::<crate::systems::Event>(v)
                .unwrap()
                .canonical
        };
        Stored {
            bytes: lines.map(canonical).collect(),
            mem: MemSource::from_jsonl(&text).unwrap(),
        }
    }
}

impl mem::Simple for Stored {
    fn entries(&self, f: &mut dyn FnMut(mem::Entry) -> Result<()>) -> Result<()> {
        mem::Simple::entries(&self.mem, f)
    }
    fn last_seq(&self) -> u64 {
        Source::last_seq(&self.mem)
    }
    /// Decoded as a ledger decodes them (`Source::records`; the fold reads
    /// [`mem::Simple::stored`]'s bytes).
    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        for &seq in seqs {
            let r = &self.mem.records[seq as usize - 1];
            let bytes = &self.bytes[seq as usize - 1];
            let rec = crate::events::decode_stored(bytes, seq, r.at, r.recorded_at)
                .map_err(|e| Error::Corrupt(format!("record {seq} cannot be decoded: {e}")))?;
            f(rec)?;
        }
        Ok(())
    }
    fn stored(&self, seq: u64) -> Option<(Vec<u8>, Micros)> {
        let r = self.mem.records.get(seq as usize - 1)?;
        Some((self.bytes[seq as usize - 1].clone(), r.recorded_at))
    }
}

/// The seqs of the records of `src` no void targets, in `(at, seq)` order:
/// the fold order, as a model gives it.
fn live_in_at_seq_order(src: &MemSource) -> Vec<u64> {
    let voided: std::collections::BTreeSet<u64> = (src.records.iter())
        .filter_map(|r| match &r.event {
            Event::Ledger(ledger::Event::Voided(v)) => Some(v.target),
            _ => None,
        })
        .collect();
    let mut live: Vec<Pos> = (src.records.iter())
        .filter(|r| !voided.contains(&r.seq))
        .map(|r| (r.at, r.seq))
        .collect();
    live.sort_unstable();
    live.into_iter().map(|(_, seq)| seq).collect()
}

/// Snapshots of a checked fold, one section from each namespace's worker,
/// equal the state of a plain fold of the records before them.
#[test]
fn snapshots_of_the_checked_fold_per_namespace_are_the_states_at_their_places() {
    use super::checkpoint::encode_section;
    let src = Stored::generated(3000);
    let (order, _) = fold_order(&src, &Query::default(), None);
    assert_eq!(order, live_in_at_seq_order(&src.mem));
    let mut stored = Vec::new();
    let mut put = |pos: Pos, n: u64, s: Snapshot| {
        stored.push((pos, n, s));
        Ok(())
    };
    let sink = Sink {
        marks: Marks::Every(700),
        encode: encode_section,
        put: &mut put,
    };
    let checked = Query {
        check: true,
        ..Query::default()
    };
    let whole = fold_from(&src, &checked, None, Some(sink)).unwrap();
    assert_eq!(
        tables_of(&whole),
        tables_of(&fold(&src, &Query::default()).unwrap())
    );
    let ns: Vec<u64> = stored.iter().map(|s| s.1).collect();
    assert_eq!(ns, vec![700, 1400, 2100, 2800]);
    for (pos, n, sections) in stored {
        let seq = order[n as usize - 1];
        assert_eq!(pos.1, seq);
        // (Not assert_eq: a state is too many bytes to print.)
        assert!(
            sections == state_at(&src, &order, n),
            "snapshot at {n} is not the state there"
        );
    }
}

/// The snapshot of the fold of the first `n` records of `order`, fold
/// order of `src`.
fn state_at(src: &Stored, order: &[u64], n: u64) -> Snapshot {
    let prefix = Prefix {
        src,
        keep: order[..n as usize].iter().copied().collect(),
    };
    let f = fold(&prefix, &Query::default()).unwrap();
    (0..1 + 2 * crate::systems::NAMESPACES.len())
        .map(|i| Some(super::checkpoint::encode_section(&f.state, &f.cx.params, i).unwrap()))
        .collect()
}

/// With [`Marks::At`], the snapshot at a place holds the state of the
/// records that sort at or before it, whether one stands there or not (a
/// record voided since leaves its place bare); places with nothing folded
/// between them get the same; a place past the last record gets its
/// snapshot at the end.
#[test]
fn snapshots_at_places_hold_the_state_of_what_sorts_at_or_before_them() {
    use super::checkpoint::encode_section;
    let src = Stored::generated(3000);
    let (order, _) = fold_order(&src, &Query::default(), None);
    let mut at = std::collections::BTreeMap::new();
    src.records(&order, &mut |r| {
        at.insert(r.seq, r.at);
        Ok(())
    })
    .unwrap();
    let pos = |n: usize| (at[&order[n - 1]], order[n - 1]);
    // The first record from `n` on that the next one follows by 3 µs or more.
    let gap = |n: usize| {
        (n..order.len())
            .find(|&k| pos(k).0 + 2 < pos(k + 1).0)
            .unwrap()
    };
    let (bare, twice) = (gap(1400), gap(2100));
    let places = vec![
        pos(700),
        (pos(bare + 1).0 - 1, 0),
        (pos(twice + 1).0 - 2, 0),
        (pos(twice + 1).0 - 1, 0),
        (Micros::MAX - 1, 0),
    ];
    let mut stored = Vec::new();
    let mut put = |pos: Pos, n: u64, s: Snapshot| {
        stored.push((pos, n, s));
        Ok(())
    };
    let sink = Sink {
        marks: Marks::At(places.clone()),
        encode: encode_section,
        put: &mut put,
    };
    fold_from(&src, &Query::default(), None, Some(sink)).unwrap();
    let got: Vec<(Pos, u64)> = stored.iter().map(|s| (s.0, s.1)).collect();
    let n = |k: usize| k as u64;
    let want = [
        (places[0], 700),
        (places[1], n(bare)),
        (places[2], n(twice)),
        (places[3], n(twice)),
        (places[4], 3000),
    ];
    assert_eq!(got, want);
    for (_, n, sections) in stored {
        assert!(
            sections == state_at(&src, &order, n),
            "snapshot at {n} is not the state there"
        );
    }
}

/// The records of `src` with these seqs (a prefix of fold order).
struct Prefix<'a> {
    src: &'a Stored,
    keep: std::collections::BTreeSet<u64>,
}

impl mem::Simple for Prefix<'_> {
    fn entries(&self, f: &mut dyn FnMut(mem::Entry) -> Result<()>) -> Result<()> {
        mem::Simple::entries(self.src, &mut |e| match self.keep.contains(&e.seq) {
            true => f(e),
            false => Ok(()),
        })
    }
    fn last_seq(&self) -> u64 {
        self.keep.last().copied().unwrap_or(0)
    }
    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        Source::records(self.src, seqs, f)
    }
}

/// 3,000 generated events, the audit query, and their plain and audited folds.
fn plain_and_audited() -> (Stored, Query, Folded, Folded) {
    let src = Stored::generated(3000);
    let plain = fold(&src, &Query::default()).unwrap();
    let audit = Query {
        audit: true,
        ..Query::default()
    };
    let audited = fold(&src, &audit).unwrap();
    (src, audit, plain, audited)
}

fn tables_of(f: &Folded) -> Vec<String> {
    let sel = crate::systems::Selector::default();
    let table = |(t, _): (&str, &str)| format!("{:?}", f.state.standings(t, &sel, &f.cx));
    crate::systems::tables().into_iter().map(table).collect()
}

/// `history PLAYER` folds with `audit_subject`: the same state as a plain fold
/// (mepbm's tick takes another path for the others), and exactly the full
/// trail's changes to that subject.
#[test]
fn an_audit_of_one_subject_is_the_full_trail_filtered_and_changes_no_state() {
    use crate::systems::Change;
    use std::collections::BTreeMap;
    let (src, audit, plain, full) = plain_and_audited();
    // The subject with the most changes in each system.
    let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for c in full.cx.changes() {
        *counts.entry((&c.system, &c.subject)).or_default() += 1;
    }
    let mut best: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for ((system, subject), n) in counts {
        let b = best.entry(system).or_insert((0, subject));
        if n > b.0 {
            *b = (n, subject);
        }
    }
    assert!(best.len() >= 8, "systems audited: {:?}", best.keys());
    for (n, subject) in best.into_values() {
        let q = Query {
            audit_subject: Some(subject.to_string()),
            ..audit.clone()
        };
        let one = fold(&src, &q).unwrap();
        let expected: Vec<&Change> = full
            .cx
            .changes()
            .iter()
            .filter(|c| c.subject == subject)
            .collect();
        let got: Vec<&Change> = one.cx.changes().iter().collect();
        assert!(expected.len() >= n);
        assert_eq!(got, expected, "{subject}");
        assert_eq!(tables_of(&one), tables_of(&plain), "{subject}");
    }
}

/// A query's fold from a state another thread hands over later
/// (`Resume::Later`, while a checkpoint decodes) folds what `fold_from` folds
/// from that state, for every namespace and for one; a state that never
/// comes (the checkpoint was damaged) fails the fold rather than hang it.
#[test]
fn a_fold_from_a_state_sent_later_equals_one_from_the_state_and_fails_without_it() {
    let src = Stored::generated(3000);
    let (order, _) = fold_order(&src, &Query::default(), None);
    let at = src.mem.records[order[1500] as usize - 1].at;
    let head = Query {
        as_of: Some(at),
        ..Query::default()
    };
    let head = fold(&src, &head).unwrap();
    let later = |state: Option<State>| {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        if let Some(state) = state {
            tx.send(state).unwrap();
        }
        Start {
            state: Resume::Later(rx),
            params: head.cx.params.clone(),
            after: (at, u64::MAX),
            folded: 0,
        }
    };
    let tables_in = |f: &Folded, only: Option<&str>| -> Vec<String> {
        let sel = crate::systems::Selector::default();
        let mine = |t: &&str| only.is_none_or(|o| crate::systems::namespace_of(t) == Some(o));
        let tables = crate::systems::tables().into_iter().map(|(t, _)| t);
        let table = |t: &str| format!("{:?}", f.state.standings(t, &sel, &f.cx));
        tables.filter(mine).map(table).collect()
    };
    for only in [None, Some("mepbm"), Some("cards")] {
        let q = Query {
            only,
            ..Query::default()
        };
        let start = Start {
            state: Resume::Ready(Box::new(head.state.clone())),
            params: head.cx.params.clone(),
            after: (at, u64::MAX),
            folded: 0,
        };
        let want = fold_from(&src, &q, Some(start), None).unwrap();
        let got = fold_from(&src, &q, Some(later(Some(head.state.clone()))), None).unwrap();
        assert_eq!(tables_in(&got, only), tables_in(&want, only), "{only:?}");
        let full = fold(&src, &q).unwrap();
        assert_eq!(tables_in(&got, only), tables_in(&full, only), "{only:?}");
        assert!(
            tables_in(&got, only).iter().any(|t| t.len() > 200),
            "{only:?}"
        );
        let e = fold_from(&src, &q, Some(later(None)), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("could not be decoded"), "{only:?}: {e}");
    }
}

/// A trail sink that keeps every change it is handed, with its record's index.
struct Collect(Vec<Placed>);

impl TrailSink for Collect {
    fn take(&mut self, changes: Vec<Placed>) -> Result<()> {
        self.0.extend(changes);
        Ok(())
    }
}

/// `audit` with a [`Trail`]: the query of `site`'s fold, whose workers hand
/// their changes on as they go.
fn piped(audit: &Query) -> (Query, Arc<Mutex<Collect>>) {
    let sink = Arc::new(Mutex::new(Collect(Vec::new())));
    let q = Query {
        trail: Some(Trail(sink.clone())),
        ..audit.clone()
    };
    (q, sink)
}

/// `history`'s fold merges its workers' trails by fold index; `site`'s hands
/// them on, batch by batch from each worker: sorted by index, stably, the
/// changes handed on are `history`'s trail, change for change and in order,
/// within a record too, and the fold keeps none.
#[test]
fn the_trail_handed_on_sorted_by_index_is_the_merged_trail() {
    let (src, audit, _, merged) = plain_and_audited();
    let (q, sink) = piped(&audit);
    let piped = fold(&src, &q).unwrap();
    assert!(piped.cx.changes().is_empty());
    let mut trail = std::mem::take(&mut sink.lock().unwrap().0);
    trail.sort_by_key(|(place, _)| *place);
    let trail: Vec<Change> = trail.into_iter().map(|(_, c)| c).collect();
    let systems: std::collections::BTreeSet<&str> =
        trail.iter().map(|c| c.system.as_str()).collect();
    assert!(systems.len() >= 8, "{systems:?}");
    assert_eq!(merged.cx.changes(), trail.as_slice());
}

#[test]
fn a_fold_handing_its_trail_on_equals_a_plain_one_and_the_first_bad_record_wins() {
    let (src, audit, plain, _) = plain_and_audited();
    let (audit, _) = piped(&audit);
    let handed = fold(&src, &audit).unwrap();
    assert_eq!(tables_of(&plain), tables_of(&handed));
    let params = |f: &Folded| format!("{:?}", f.cx.params);
    assert_eq!(params(&plain), params(&handed));
    // Break two records of different namespaces: whichever comes first in
    // fold order is the error, the same with the trail handed on.
    let (order, _) = fold_order(&src, &Query::default(), None);
    let ns = |src: &Stored, seq: u64| {
        let kind = &src.mem.records[seq as usize - 1].kind;
        kind.split_once('.').unwrap().0.to_string()
    };
    let first = order[1000];
    let other = |&&s: &&u64| ns(&src, s) != ns(&src, first) && ns(&src, s) != "ledger";
    let second = *order[1001..].iter().find(other).unwrap();
    let missing = |seq: u64| {
        let kind = &src.mem.records[seq as usize - 1].kind;
        format!(r#"{{"type":"{kind}"}}"#).into_bytes()
    };
    let damages = [
        (b"{".to_vec(), missing(second)),
        (missing(first), b"{".to_vec()),
    ];
    for (a, b) in damages {
        let mut src = Stored::generated(3000);
        src.bytes[first as usize - 1] = a;
        src.bytes[second as usize - 1] = b;
        let e = fold(&src, &Query::default()).unwrap_err().to_string();
        assert!(
            e.contains(&format!("record {first} cannot be decoded")),
            "{e}"
        );
        assert_eq!(e, fold(&src, &audit).unwrap_err().to_string());
    }
}

/// A fold of one namespace has one worker, whose records the reader decodes
/// (`parallel::route`): its tables equal the full fold's, and the first of its
/// records that does not decode is the error, while a record of another
/// namespace that would not decode either is skipped unread.
#[test]
fn a_fold_of_one_namespace_equals_the_full_one_and_names_its_first_bad_record() {
    let src = Stored::generated(3000);
    let plain = fold(&src, &Query::default()).unwrap();
    let sel = crate::systems::Selector::default();
    let shown = |f: &Folded, t: &str| format!("{:?}", f.state.standings(t, &sel, &f.cx));
    for ns in crate::systems::NAMESPACES {
        let one = fold(
            &src,
            &Query {
                only: Some(ns),
                ..Query::default()
            },
        )
        .unwrap();
        for (t, _) in crate::systems::tables()
            .into_iter()
            .filter(|(_, n)| *n == ns)
        {
            assert_eq!(shown(&one, t), shown(&plain, t), "{t}");
        }
    }
    let (order, _) = fold_order(&src, &Query::default(), None);
    let kind = |seq: u64| src.mem.records[seq as usize - 1].kind.clone();
    let at = 1000
        + order[1000..]
            .iter()
            .position(|&s| kind(s).starts_with("mepbm."))
            .unwrap();
    let (first, before) = (order[at], &order[..at]);
    let other = *before
        .iter()
        .rev()
        .find(|&&s| !kind(s).starts_with("mepbm.") && !kind(s).starts_with("ledger."))
        .unwrap();
    let mut damaged = Stored::generated(3000);
    for seq in [other, first] {
        damaged.bytes[seq as usize - 1] = format!(r#"{{"type":"{}"}}"#, kind(seq)).into_bytes();
    }
    let mepbm = Query {
        only: Some("mepbm"),
        ..Query::default()
    };
    let e = fold(&damaged, &mepbm).unwrap_err().to_string();
    assert!(
        e.contains(&format!("record {first} cannot be decoded")),
        "{e}"
    );
    let e = fold(&damaged, &Query::default()).unwrap_err().to_string();
    assert!(
        e.contains(&format!("record {other} cannot be decoded")),
        "{e}"
    );
}

/// A trail sink that refuses whatever it is handed (the spill on a full disk).
struct Refuse;

impl TrailSink for Refuse {
    fn take(&mut self, _: Vec<Placed>) -> Result<()> {
        Err(Error::Storage("the trail's disk is full".into()))
    }
}

/// A record that does not decode comes before a failure to hand the trail on
/// after the last record, whether the reader decodes it (one worker) or its
/// worker does (several).
#[test]
fn an_undecodable_record_comes_before_a_trail_that_fails_at_the_end() {
    let src = Stored::generated(3000);
    let (order, _) = fold_order(&src, &Query::default(), None);
    let kind = |seq: u64| src.mem.records[seq as usize - 1].kind.clone();
    let mut mepbm = order.iter().filter(|&&s| kind(s).starts_with("mepbm."));
    let bad = *mepbm.nth(5).unwrap();
    let mut damaged = Stored::generated(3000);
    damaged.bytes[bad as usize - 1] = format!(r#"{{"type":"{}"}}"#, kind(bad)).into_bytes();
    for only in [Some("mepbm"), None] {
        let q = Query {
            audit: true,
            only,
            trail: Some(Trail(Arc::new(Mutex::new(Refuse)))),
            ..Query::default()
        };
        let e = fold(&damaged, &q).unwrap_err().to_string();
        assert!(
            e.contains(&format!("record {bad} cannot be decoded")),
            "{only:?}: {e}"
        );
    }
}
