//! Property tests: random valid streams fold deterministically; any split into
//! appends folds like one append; export → re-import gives the same events and rules;
//! the canonical form round-trips; answers served from checkpoints and tables
//! cut by `--limit` equal the full fold's answer (the rule computations at
//! their extremes are in `tests/it/extremes.rs`).
//!
//! Streams use event types whose validity does not depend on the rating systems'
//! rules: `mepbm.rating_seeded` for distinct players, `mepbm.monthly_tick` for
//! distinct months, `ledger.rules_changed` with valid parameters (from the live
//! parameter table) and `ledger.voided` of earlier, live, non-void records.

use crate::common;

use std::collections::BTreeSet;

use laurel::fold::{self, Query, Source};
use laurel::ledger::{Input, Ledger};
use laurel::systems::params::Range;
use proptest::prelude::*;
use serde_json::{json, Value};

/// One step of a stream, before it is given dates and targets.
#[derive(Debug, Clone)]
enum Op {
    Seed { system: usize, value: i64 },
    Tick,
    Rules { param: usize, bump: i64 },
    Void { pick: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..4usize, 1000..2200i64).prop_map(|(system, value)| Op::Seed { system, value }),
        2 => Just(Op::Tick),
        2 => (any::<usize>(), 0..5i64).prop_map(|(param, bump)| Op::Rules { param, bump }),
        2 => any::<usize>().prop_map(|pick| Op::Void { pick }),
    ]
}

/// A parameter value of the right kind, near the default (kept plausible).
fn param_value(range: Range, default: &str, bump: i64) -> Value {
    let d: Value = serde_json::from_str(default).unwrap();
    match range {
        Range::Int { .. } => json!(d.as_i64().unwrap_or(1) + bump),
        Range::OptInt { .. } => json!(d.as_i64().unwrap_or(0) + bump),
        Range::Decimal { .. } => json!(["0.5", "0.9", "0.95", "0.98", "1"][bump as usize % 5]),
        Range::Ints { .. } => d,
        Range::Choice(words) => json!(words[bump as usize % words.len()]),
    }
}

/// Turn ops plus day offsets into valid events (seq i + 1 for the i-th event).
fn stream(ops: &[(Op, u32)]) -> Vec<Value> {
    let defs: Vec<_> = (laurel::systems::PARAM_GROUPS.iter())
        .flat_map(|g| g.params)
        .collect();
    let (mut voided, mut voids) = (BTreeSet::new(), BTreeSet::new());
    // Ticks as (day, index): their months are given in fold order below.
    let mut ticks = Vec::new();
    let mut out = Vec::new();
    for (i, (op, day)) in ops.iter().enumerate() {
        let seq = i as u64 + 1;
        // Distinct `at` for every event keeps every event's content distinct.
        let at = format!("{}T{:02}:{:02}:00Z", date(*day), i / 60 % 24, i % 60);
        let seed = |system: usize, value: i64| {
            let systems = ["valar", "maia", "istari", "ainur"];
            json!({"type": "mepbm.rating_seeded", "at": at, "player": format!("p{i}"),
                   "system": systems[system], "value": value})
        };
        let mut e = match op {
            Op::Seed { system, value } => seed(*system, *value),
            Op::Tick => {
                ticks.push((*day, i));
                json!({"type": "mepbm.monthly_tick", "at": at})
            }
            Op::Rules { param, bump } => {
                let d = &defs[param % defs.len()];
                let mut params = json!({d.name: param_value(d.range, d.default, *bump)});
                // Out of the parameter's range (fibonacci.base is 0 or 1): the default.
                if laurel::systems::params::check_system(d.system, params.as_object().unwrap())
                    .is_err()
                {
                    params = json!({d.name: serde_json::from_str::<Value>(d.default).unwrap()});
                }
                json!({"type": "ledger.rules_changed", "at": at, "system": d.system,
                       "params": params})
            }
            Op::Void { pick } => {
                let live: Vec<u64> = (1..seq)
                    .filter(|s| !voided.contains(s) && !voids.contains(s))
                    .collect();
                if live.is_empty() {
                    seed(0, 1500)
                } else {
                    let target = live[pick % live.len()];
                    voided.insert(target);
                    voids.insert(seq);
                    json!({"type": "ledger.voided", "at": at, "target": target,
                           "reason": format!("correction {i}")})
                }
            }
        };
        if i % 3 == 0 {
            e["id"] = json!(format!("ev-{i}"));
        }
        out.push(e);
    }
    // Months tick in calendar order, each after it ended: months from
    // 2000-02 on, in the ticks' `(at, seq)` order (`at` sorts as (day, index)).
    ticks.sort_unstable();
    for (k, &(_, i)) in ticks.iter().enumerate() {
        let k = k + 1;
        out[i]["month"] = json!(format!("{}-{:02}", 2000 + k / 12, 1 + k % 12));
    }
    out
}

fn date(day: u32) -> String {
    let d = chrono::NaiveDate::from_ymd_opt(2003, 1, 1).unwrap() + chrono::Days::new(day as u64);
    d.format("%Y-%m-%d").to_string()
}

fn streams(max: usize) -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec((op(), 0..2000u32), 1..max).prop_map(|ops| stream(&ops))
}

/// Streams of Middle-earth seeds, monthly ticks and changes of the monthly
/// rules, and voids of them, dated anywhere.
fn one_system(max: usize) -> impl Strategy<Value = Vec<Value>> {
    let seed = (0..4usize, 1000..2200i64).prop_map(|(system, value)| Op::Seed { system, value });
    let void = any::<usize>().prop_map(|pick| Op::Void { pick });
    // The places of the monthly adjustment's parameters (what moves the
    // ratings of these streams) among every group's, as `stream` numbers them.
    let monthly: Vec<usize> = (laurel::systems::PARAM_GROUPS.iter())
        .flat_map(|g| g.params)
        .enumerate()
        .filter(|(_, d)| d.system == "monthly")
        .map(|(i, _)| i)
        .collect();
    let rules = (any::<usize>(), 0..5i64).prop_map(move |(pick, bump)| Op::Rules {
        param: monthly[pick % monthly.len()],
        bump,
    });
    let op = prop_oneof![8 => seed, 2 => Just(Op::Tick), 1 => rules, 2 => void];
    prop::collection::vec((op, 0..2000u32), 1..max).prop_map(|ops| stream(&ops))
}

/// Cut `n` events into consecutive non-empty parts at the given points.
fn parts(events: &[Value], cuts: &[usize]) -> Vec<Vec<Value>> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|c| c % events.len())
        .filter(|&c| c > 0)
        .collect();
    at.sort_unstable();
    at.dedup();
    let mut out = Vec::new();
    let mut start = 0;
    for c in at.into_iter().chain(std::iter::once(events.len())) {
        out.push(events[start..c].to_vec());
        start = c;
    }
    out
}

/// What a fold shows: the seqs it folds in its order (what its sink sees after
/// every record) and the parameters in force, as text.
fn folded_view(src: &dyn Source) -> (Vec<u64>, String) {
    let q = Query::default();
    let mut order = Vec::new();
    let mut put = |pos: fold::Pos, _: u64, _: fold::Snapshot| {
        order.push(pos.1);
        Ok(())
    };
    let sink = fold::Sink {
        marks: fold::Marks::Every(1),
        encode: |_, _, _| Ok(Vec::new()),
        put: &mut put,
    };
    fold::fold_from(src, &q, None, Some(sink)).unwrap();
    let f = fold::fold(src, &q).unwrap();
    let params: Vec<String> =
        f.cx.params
            .listing()
            .iter()
            .map(|(d, v)| format!("{}.{}={v}", d.system, d.name))
            .collect();
    (order, format!("{:?}\n{}", f.state, params.join("\n")))
}

fn append_lib(ledger: &Ledger, events: &[Value]) {
    let text = common::jsonl(events);
    let input = Input {
        name: "part".into(),
        reader: Box::new(std::io::Cursor::new(text.into_bytes())),
        first_line: 1,
    };
    ledger.append(vec![input]).unwrap();
}

/// Every record's (seq, event bytes); recorded_at, hash and prev left out.
fn records(ledger: &Ledger) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    ledger
        .for_each_record(1, &mut |r, _| {
            out.push((r.seq, r.event.to_vec()));
            Ok(())
        })
        .unwrap();
    out
}

/// Any JSON value without floats, as events may hold.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<String>().prop_map(Value::String),
        "[a-z\\\\\"\u{1}-\u{1f}é€😀]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_é😀\u{1}\\\\\"]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `v` as JSON text with every object's keys in reverse order and spaces
/// around every token: what a person might write.
fn loose_text(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let members: Vec<String> = m
                .iter()
                .rev()
                .map(|(k, v)| format!(" {} : {} ", json!(k), loose_text(v)))
                .collect();
            format!("{{ {} }}", members.join(","))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(loose_text).collect();
            format!("[ {} ]", items.join(" , "))
        }
        other => other.to_string(),
    }
}

fn keys_sorted(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            let keys: Vec<&String> = m.keys().collect();
            keys.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes())
                && m.values().all(keys_sorted)
        }
        Value::Array(a) => a.iter().all(keys_sorted),
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn canonical_form_round_trips_sorted_and_equals_serde_json(v in json_value()) {
        let bytes = laurel::events::to_canonical(&v);
        let text = std::str::from_utf8(&bytes).unwrap();
        prop_assert_eq!(text, serde_json::to_string(&v).unwrap());
        let back: Value = serde_json::from_slice(&bytes).unwrap();
        prop_assert_eq!(&back, &v);
        prop_assert_eq!(laurel::events::to_canonical(&back), bytes.clone());
        prop_assert!(keys_sorted(&back));
        prop_assert!(!bytes.contains(&b'\n'), "no insignificant whitespace");
    }

    #[test]
    fn text_with_keys_out_of_order_reads_to_the_canonical_form(v in json_value()) {
        let text = loose_text(&v);
        let mut parser = laurel::systems::LineParser::default();
        let read = parser.canonical(text.as_bytes()).unwrap();
        prop_assert_eq!(&read, &laurel::events::to_canonical(&v), "{}", text);
        prop_assert_eq!(read, serde_json::to_vec(&v).unwrap());
    }

    #[test]
    fn random_valid_streams_fold_deterministically_in_at_seq_order(events in streams(40)) {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::init(&dir.path().join("l")).unwrap();
        append_lib(&ledger, &events);
        let (a, b) = (ledger.source().unwrap(), ledger.source().unwrap());
        let (order, view) = folded_view(&a);
        prop_assert_eq!((order.clone(), view), folded_view(&b));
        // The fold takes every live record, in (at, seq) order.
        let seqs: Vec<u64> = (1..=a.last_seq()).collect();
        let mut stored = Vec::new();
        a.records(&seqs, &mut |r| {
            stored.push(r);
            Ok(())
        }).unwrap();
        let voided: BTreeSet<u64> = stored.iter().filter_map(|r| match &r.event {
            laurel::systems::Event::Ledger(laurel::events::ledger::Event::Voided(v)) => Some(v.target),
            _ => None,
        }).collect();
        let mut model: Vec<(i64, u64)> = stored.iter()
            .filter(|r| !voided.contains(&r.seq))
            .map(|r| (r.at, r.seq))
            .collect();
        model.sort_unstable();
        prop_assert_eq!(order, model.into_iter().map(|(_, s)| s).collect::<Vec<_>>());
    }

    #[test]
    fn any_split_of_appends_folds_like_one_append(
        events in streams(24),
        cuts in prop::collection::vec(any::<usize>(), 0..4),
    ) {
        let (one_dir, split_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let one = Ledger::init(&one_dir.path().join("l")).unwrap();
        append_lib(&one, &events);
        let split = Ledger::init(&split_dir.path().join("l")).unwrap();
        for part in parts(&events, &cuts) {
            append_lib(&split, &part);
        }
        prop_assert_eq!(records(&one), records(&split));
        prop_assert_eq!(folded_view(&one.source().unwrap()), folded_view(&split.source().unwrap()));
        prop_assert!(split.verify(None).unwrap().problems.is_empty());
    }
}

/// `laurel rules --format json` with the head hash (which covers recorded_at) removed.
fn rules_json(dir: &std::path::Path) -> Value {
    let mut v = common::json(dir, &["rules", "--format", "json"]);
    v.as_object_mut().unwrap().remove("head");
    v
}

/// `standings valar --format json` minus the head, or the error while it is not
/// implemented: the same either way for both ledgers.
fn standings_or_error(dir: &std::path::Path) -> (bool, String) {
    let out = common::laurel(dir)
        .args(["standings", "valar", "--format", "json"])
        .output()
        .unwrap();
    if !out.status.success() {
        return (false, String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_object_mut().unwrap().remove("head");
    (true, v.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn export_then_reimport_gives_the_same_events_rules_and_standings(
        events in streams(30),
        cuts in prop::collection::vec(any::<usize>(), 0..3),
    ) {
        let first = common::empty_ledger();
        for part in parts(&events, &cuts) {
            let out = common::append_text(first.path(), &common::jsonl(&part));
            prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let exported = common::exported_events(first.path());
        prop_assert_eq!(exported.len(), events.len());
        let again = common::empty_ledger();
        let mut text = exported.join("\n");
        text.push('\n');
        let out = common::append_text(again.path(), &text);
        prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        prop_assert_eq!(common::exported_events(again.path()), exported);
        prop_assert_eq!(rules_json(again.path()), rules_json(first.path()));
        prop_assert_eq!(standings_or_error(again.path()), standings_or_error(first.path()));
        // Re-importing the export once more adds nothing.
        let out = common::append_text(again.path(), &text);
        prop_assert!(String::from_utf8_lossy(&out.stdout).contains("appended 0 event(s)"));
    }

    #[test]
    fn restore_of_an_export_gives_every_record_back_byte_for_byte(
        events in streams(30),
        cuts in prop::collection::vec(any::<usize>(), 0..4),
    ) {
        let first = common::empty_ledger();
        for part in parts(&events, &cuts).iter().filter(|p| !p.is_empty()) {
            let out = common::append_text(first.path(), &common::jsonl(part));
            prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let export = common::ok(first.path(), &["export"]);
        let file = first.path().join("export.jsonl");
        std::fs::write(&file, &export).unwrap();
        let again = tempfile::tempdir().unwrap();
        let out = common::laurel(again.path()).arg("restore").arg(&file).output().unwrap();
        prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        prop_assert_eq!(common::ok(again.path(), &["export"]), export);
        prop_assert_eq!(standings_or_error(again.path()), standings_or_error(first.path()));
    }
}

// Indexed answers: what a query answers from a checkpoint, and the first rows
// of a table built alone, equal the full fold's answer.

/// `laurel ARGS --format json` with `head` removed ([`outcome`]), which
/// must succeed.
fn answer(dir: &std::path::Path, args: &[&str], full: bool) -> Value {
    let (code, text) = outcome(dir, args, full);
    assert_eq!(code, Some(0), "{args:?}: {text}");
    serde_json::from_str(&text).unwrap()
}

/// `v` with each table's rows cut to the first `n`.
fn first_rows(mut v: Value, n: usize) -> Value {
    if let Some(rows) = v.get_mut("rows").and_then(Value::as_array_mut) {
        rows.truncate(n);
    }
    if let Some(tables) = v.get_mut("tables").and_then(Value::as_object_mut) {
        for t in tables.values_mut() {
            if let Some(rows) = t.as_array_mut() {
                rows.truncate(n);
            }
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    /// Half the streams hold only Middle-earth events and voids of them (no
    /// rule change): every part dated before a checkpoint is then appended
    /// by the check fold of that one system, which makes the later
    /// checkpoints again in place. A player's history folds from the
    /// checkpoint before their first record.
    #[test]
    fn indexed_answers_equal_the_full_fold_with_late_events_and_voids(
        events in prop_oneof![streams(40), one_system(40)],
        cuts in prop::collection::vec(any::<usize>(), 1..4),
        day in 0..2000u32,
        n in 1..6usize,
        player in any::<usize>(),
    ) {
        let dir = common::empty_ledger();
        for part in parts(&events, &cuts) {
            let out = common::laurel(dir.path())
                .args(["append", "-"])
                .env("LAUREL_CHECKPOINT_EVERY", "4")
                .write_stdin(common::jsonl(&part))
                .output()
                .unwrap();
            prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        // The answers compared below are not all folds from nothing: with
        // a dozen records, the latest answer starts from a checkpoint.
        let trace = common::laurel(dir.path())
            .args(["standings", "valar"])
            .env("LAUREL_CHECKPOINT_TRACE", "1")
            .env_remove("LAUREL_NO_CHECKPOINTS")
            .output()
            .unwrap();
        let resumed = String::from_utf8_lossy(&trace.stderr).contains("resumed after");
        prop_assert!(resumed || events.len() < 12, "{}", String::from_utf8_lossy(&trace.stderr));
        let as_of = date(day);
        for table in ["valar", "maia", "istari", "ainur", "council", "nazgul"] {
            for clock in [vec![], vec!["--as-of", as_of.as_str()]] {
                let args: Vec<&str> = ["standings", table].into_iter().chain(clock).collect();
                let full = answer(dir.path(), &args, true);
                prop_assert_eq!(&answer(dir.path(), &args, false), &full, "{:?}", args);
                let n = n.to_string();
                let cut: Vec<&str> = args.iter().copied().chain(["--limit", n.as_str()]).collect();
                let limited = answer(dir.path(), &cut, false);
                prop_assert_eq!(limited, first_rows(full, n.parse().unwrap()), "{:?}", cut);
            }
        }
        let seed = format!("p{}", player % events.len());
        for clock in [vec![], vec!["--as-of", as_of.as_str()]] {
            let args: Vec<&str> = ["history", seed.as_str()].into_iter().chain(clock).collect();
            let full = outcome(dir.path(), &args, true);
            prop_assert_eq!(outcome(dir.path(), &args, false), full, "{:?}", args);
        }
    }
}

/// Streams whose records mostly come in `at` order (three days apart), a
/// tenth of them late (dated up to 800 days early): known-at cuts that some
/// checkpoints serve and others do not.
fn mostly_rising(max: usize) -> impl Strategy<Value = Vec<Value>> {
    let step = (op(), 0..800u32, prop::bool::weighted(0.1));
    prop::collection::vec(step, 1..max).prop_map(|steps| {
        let ops: Vec<(Op, u32)> = (steps.into_iter().enumerate())
            .map(|(i, (op, early, late))| {
                let day = 800 + 3 * i as u32;
                (op, if late { day - early } else { day })
            })
            .collect();
        stream(&ops)
    })
}

/// `laurel ARGS --format json` (checkpoints every 4 records, or none with
/// `full`): its exit code and its answer without `head`, or its message.
fn outcome(dir: &std::path::Path, args: &[&str], full: bool) -> (Option<i32>, String) {
    let mut c = common::laurel(dir);
    c.args(args).args(["--format", "json"]);
    c.env("LAUREL_CHECKPOINT_EVERY", "4");
    match full {
        true => c.env("LAUREL_NO_CHECKPOINTS", "1"),
        false => c.env_remove("LAUREL_NO_CHECKPOINTS"),
    };
    let out = c.output().unwrap();
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        let msg = msg.replace(dir.to_str().unwrap(), "DIR");
        return (out.status.code(), msg);
    }
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // What differs between a ledger and its cut: the hash, and the append
    // the known-at record came in (the cut holds one).
    let v_map = v.as_object_mut().unwrap();
    v_map.remove("head");
    v_map.remove("known_at_inside_append");
    (out.status.code(), v.to_string())
}

/// A fresh ledger holding `parts`, appended one after another (checkpoints
/// every 4 records); `None` if an append is refused.
fn appended(parts: &[Vec<Value>]) -> Option<tempfile::TempDir> {
    let dir = common::empty_ledger();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        let out = common::laurel(dir.path())
            .args(["append", "-"])
            .env("LAUREL_CHECKPOINT_EVERY", "4")
            .write_stdin(common::jsonl(part))
            .output()
            .unwrap();
        if !out.status.success() {
            return None;
        }
    }
    Some(dir)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// `--known-at K` answers what the ledger held at record K answers: from
    /// checkpoints (when one serves the cut) as from nothing, and as a
    /// ledger of only the records `1..=K` answers without a cut.
    #[test]
    fn known_at_answers_equal_the_full_fold_and_the_ledger_cut_at_k(
        events in prop_oneof![streams(40), mostly_rising(40)],
        cuts in prop::collection::vec(any::<usize>(), 1..4),
        known in any::<usize>(),
        day in 0..2000u32,
        player in any::<usize>(),
    ) {
        let dir = appended(&parts(&events, &cuts)).expect("a valid stream appends");
        let k = known % (events.len() + 2);
        let past = k as u64 > common::head(dir.path()).0;
        // The ledger of the records up to K, in one append; a prefix that
        // would not be accepted alone is not compared with.
        let upto = events[..k.min(events.len())].to_vec();
        let cut_ledger = appended(&[upto]);
        let (k, as_of) = (k.to_string(), date(day));
        let seed = format!("p{}", player % events.len());
        let mut asked: Vec<Vec<&str>> = Vec::new();
        for table in ["valar", "maia", "istari", "ainur", "council", "nazgul"] {
            asked.push(vec!["standings", table]);
            asked.push(vec!["standings", table, "--as-of", as_of.as_str()]);
        }
        asked.push(vec!["players"]);
        asked.push(vec!["rules"]);
        asked.push(vec!["history", seed.as_str()]);
        for args in asked {
            let known: Vec<&str> = args.iter().copied().chain(["--known-at", k.as_str()]).collect();
            let fast = outcome(dir.path(), &known, false);
            prop_assert_eq!(&fast, &outcome(dir.path(), &known, true), "{:?}", known);
            if past {
                // A seq past the head is no state the ledger was in: refused.
                prop_assert_eq!(fast.0, Some(2), "{:?}", known);
                prop_assert!(fast.1.contains("the ledger's last record is seq"), "{}", fast.1);
            } else if let Some(cut) = &cut_ledger {
                prop_assert_eq!(&fast, &outcome(cut.path(), &args, false), "{:?} of the cut ledger", args);
            }
        }
    }
}
