//! Tests of the rule parameters: every default and range against its field, the
//! ranges' text, the value in force (pinned, else changed, else the default),
//! unknown names, a checkpoint's round trip, and the ranges stored rules
//! changes are read against, which only widen.

use super::*;
use serde_json::json;

impl Params {
    /// The JSON value in force of parameter `system.name` (`Null` for an unknown one).
    pub(crate) fn value(&self, system: &str, name: &str) -> Value {
        group(system)
            .and_then(|(i, g)| (g.write)(&self.typed[i]).remove(name))
            .unwrap_or(Value::Null)
    }
}

fn all_defs() -> impl Iterator<Item = &'static ParamDef> {
    PARAM_GROUPS.iter().flat_map(|g| g.params)
}

/// Each default is of its kind and in its range, and the group's struct
/// (built by `Default`) shows exactly the declared defaults.
#[test]
fn every_default_validates() {
    let fresh = Params::default();
    for d in all_defs() {
        let v: Value = serde_json::from_str(d.default).expect(d.name);
        check_value(d, &v, true).unwrap();
        assert_eq!(fresh.value(d.system, d.name), v, "{}.{}", d.system, d.name);
    }
    for g in PARAM_GROUPS {
        let names: Vec<&str> = g.params.iter().map(|d| d.name).collect();
        let shown: Vec<String> = (g.write)(&(g.read)(&Map::new()).unwrap())
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(shown, sorted, "{}", g.name);
        assert!(g.params.iter().all(|d| d.system == g.name));
        assert!(g.params.iter().all(|d| !d.doc.is_empty()), "{}", g.name);
    }
    let mut groups: Vec<&str> = PARAM_GROUPS.iter().map(|g| g.name).collect();
    groups.sort_unstable();
    groups.dedup();
    assert_eq!(groups.len(), PARAM_GROUPS.len(), "group names are unique");
}

/// The values at both ends of every range are accepted and fit the field's
/// type; one past either end is refused naming the parameter and its range.
#[test]
fn every_range_fits_its_field_and_is_enforced() {
    for d in all_defs() {
        let (lows, highs, outs) = match d.range {
            Range::Int { min, max } => (
                vec![json!(min)],
                vec![json!(max)],
                vec![json!(min as i128 - 1), json!(max as i128 + 1)],
            ),
            Range::OptInt { min, max } => (
                vec![json!(null), json!(min)],
                vec![json!(max)],
                vec![json!(min as i128 - 1), json!(max as i128 + 1)],
            ),
            Range::Decimal { min, max } => (
                vec![json!(min)],
                vec![json!(max)],
                vec![json!(format!("{max}1")), json!("-1"), json!("0.0000001")],
            ),
            Range::Ints {
                min_len,
                max_len,
                min,
                max,
                positive_first,
            } => {
                let mut low = vec![min; min_len.max(1)];
                low[0] = if positive_first { min.max(1) } else { min };
                let mut outs = vec![
                    json!(vec![max; max_len + 1]),
                    json!(vec![min as i128 - 1; min_len.max(1)]),
                    json!(vec![max as i128 + 1; min_len.max(1)]),
                    // Rising from one place to the next.
                    json!([max - 1, max]),
                ];
                if positive_first {
                    outs.push(json!(vec![0; min_len.max(1)]));
                }
                (vec![json!(low)], vec![json!(vec![max; max_len])], outs)
            }
            Range::Choice(words) => (
                vec![json!(words[0])],
                vec![json!(words[words.len() - 1])],
                vec![json!(format!("{}x", words[0])), json!("")],
            ),
        };
        for v in lows.into_iter().chain(highs) {
            let m = json!({ d.name: v }).as_object().unwrap().clone();
            check_input(d.system, &m).unwrap_or_else(|e| panic!("{v}: {e}"));
        }
        for v in outs {
            let m = json!({ d.name: v }).as_object().unwrap().clone();
            let e = check_input(d.system, &m).unwrap_err();
            let want = format!("{}.{}: ", d.system, d.name);
            assert!(e.starts_with(&want), "{e}");
            assert!(e.contains(&d.range.to_string()), "{e}");
        }
    }
}

#[test]
fn ranges_read_as_text() {
    assert_eq!(Range::int(1..=9).to_string(), "an integer from 1 to 9");
    assert_eq!(
        Range::opt_int(0..=9).to_string(),
        "null (unset) or an integer from 0 to 9"
    );
    assert_eq!(
        Range::decimal("0"..="1").to_string(),
        "a decimal string from \"0\" to \"1\" with at most 6 decimal places"
    );
    assert_eq!(
        Range::ints(1..=3, 0..=5).to_string(),
        "an array of 1 to 3 integers, each from 0 to 5, never rising from one place to the next"
    );
    assert_eq!(
        Range::win_table(1..=3, 0..=5).to_string(),
        "an array of 1 to 3 integers, each from 0 to 5, never rising from one place to the next, \
         the first above 0"
    );
    assert_eq!(
        Range::choice(&["by_year", "tied"]).to_string(),
        "one of \"by_year\", \"tied\""
    );
}

/// Pinned beats changed beats the default, for every parameter, and the
/// last change of one parameter leaves the others alone.
#[test]
fn the_value_in_force_is_pinned_else_changed_else_the_default() {
    let defs: Vec<&ParamDef> = all_defs().collect();
    let ints: Vec<&&ParamDef> = defs
        .iter()
        .filter(|d| matches!(d.range, Range::Int { .. }))
        .collect();
    let (a, b) = (ints[0], ints[ints.len() - 1]);
    let in_range = |d: &ParamDef, k: i64| match d.range {
        Range::Int { min, max } => json!((min + k).min(max)),
        _ => unreachable!(),
    };
    let mut p = Params::pinned(&json!({ a.system: { a.name: in_range(a, 1) } }));
    p.change(
        a.system,
        json!({ a.name: in_range(a, 2) }).as_object().unwrap(),
    );
    p.change(
        b.system,
        json!({ b.name: in_range(b, 3) }).as_object().unwrap(),
    );
    p.change(
        b.system,
        json!({ b.name: in_range(b, 4) }).as_object().unwrap(),
    );
    assert_eq!(p.value(a.system, a.name), in_range(a, 1));
    assert_eq!(p.value(b.system, b.name), in_range(b, 4));
    let c = defs[1];
    let default: Value = serde_json::from_str(c.default).unwrap();
    assert_eq!(p.value(c.system, c.name), default);
    assert_eq!(p.value("nope", a.name), Value::Null);
    assert_eq!(p.value(a.system, "nope"), Value::Null);
    // A change that does not check changes nothing (nor the stamp).
    let stamp = p.stamp();
    p.change(b.system, json!({ b.name: "x" }).as_object().unwrap());
    assert_eq!(
        (p.value(b.system, b.name), p.stamp()),
        (in_range(b, 4), stamp)
    );
}

#[test]
fn unknown_systems_and_parameters_are_errors() {
    assert!(check_rules(&json!({"nope": {}}))
        .unwrap_err()
        .contains("unknown rule system"));
    let first = PARAM_GROUPS[0].name;
    let e = check_rules(&json!({first: {"zzz": 1}})).unwrap_err();
    assert!(e.contains("unknown parameter"), "{e}");
    assert!(check_rules(&json!([1])).is_err());
    let e = check_rules(&json!({"cfr": {"counted_event": 2}})).unwrap_err();
    assert!(
        e.contains(r#"unknown parameter cfr.counted_event; did you mean "counted_events"?"#),
        "{e}"
    );
    let e = check_rules(&json!({"valr": {}})).unwrap_err();
    assert!(
        e.contains(r#"unknown rule system "valr"; did you mean "valar"?"#),
        "{e}"
    );
    let groups = "the rules of diplomacy are the groups fibonacci, carnage, diplomacy_tournament";
    for given in ["diplomacy", "Diplomacy"] {
        let e = check_rules(&json!({given: {}})).unwrap_err();
        assert!(e.contains(groups), "{e}");
    }
}

/// A checkpoint's bytes read back to the same values, typed groups included.
#[test]
fn params_round_trip_through_bincode() {
    let d = all_defs()
        .find(|d| matches!(d.range, Range::Decimal { .. }))
        .unwrap();
    let mut p = Params::default();
    p.change(d.system, json!({ d.name: "0.25" }).as_object().unwrap());
    let back: Params = bincode::deserialize(&bincode::serialize(&p).unwrap()).unwrap();
    assert_eq!(format!("{back:?}"), format!("{p:?}"));
    assert_eq!(back.value(d.system, d.name), json!("0.25"));
    assert_ne!(back.stamp(), 0);
}

/// The range every parameter's stored values are read against
/// ([`check_system`]) in this ledger format: a stored `ledger.rules_changed`
/// was appended through [`check_input`], so it checks as long as none of
/// these narrows and no parameter goes. Widen one (or add a parameter) and
/// add it here; a tighter bound binds new input only, through
/// [`check_input`] (as a table's shape and a decimal's spelling do).
const STORED_RANGES: &[(&str, &str, Range)] = &[
    ("valar", "base", Range::int(0..=10_000)),
    ("valar", "divisor", Range::int(1..=1_000_000)),
    ("valar", "min_change", Range::opt_int(-10_000..=10_000)),
    ("valar", "start", Range::int(0..=1_000_000)),
    ("maia", "win", Range::int(0..=1_000)),
    ("maia", "draw", Range::int(0..=1_000)),
    ("maia", "loss", Range::int(0..=1_000)),
    ("maia", "start", Range::int(1..=1_000_000)),
    ("istari", "start", Range::int(0..=1_000_000)),
    ("ainur", "base", Range::int(0..=10_000)),
    ("ainur", "start", Range::int(1..=1_000_000)),
    ("ainur", "min_nations", Range::int(0..=1_000)),
    ("ainur", "min_members", Range::int(0..=1_000)),
    ("small_game", "min_positions", Range::int(0..=1_000)),
    ("small_game", "factor", Range::decimal("0"..="1")),
    ("monthly", "factor", Range::decimal("0"..="1")),
    ("monthly", "mean", Range::int(0..=1_000_000)),
    ("council", "deadline_days", Range::int(0..=36_500)),
    ("council", "points", Range::ints(1..=3, 0..=1_000)),
    ("council", "enemy", Range::int(0..=1_000)),
    ("cfr", "final_points", Range::ints(1..=100, 0..=1_000_000)),
    ("cfr", "heat_points", Range::ints(1..=100, 0..=1_000_000)),
    ("cfr", "heat_decay", Range::decimal("0"..="1")),
    ("cfr", "race_points", Range::ints(1..=100, 0..=1_000_000)),
    ("cfr", "tier_offset", Range::int(0..=1_000)),
    ("cfr", "counted_events", Range::int(1..=1_000)),
    ("cfr", "one_event_factor", Range::decimal("0"..="1")),
    ("cfr", "two_event_factor", Range::decimal("0"..="1")),
    ("cfr", "decimals", Range::int(0..=9)),
    (
        "cards",
        "system1_one_positive",
        Range::ints(1..=4, 0..=1_000_000),
    ),
    (
        "cards",
        "system1_otherwise",
        Range::ints(1..=4, 0..=1_000_000),
    ),
    (
        "cards",
        "system2_three_one_positive",
        Range::ints(1..=4, 0..=1_000_000),
    ),
    (
        "cards",
        "system2_three_otherwise",
        Range::ints(1..=4, 0..=1_000_000),
    ),
    ("cards", "system2_four", Range::ints(1..=4, 0..=1_000_000)),
    ("cards", "score_divisor", Range::int(1..=1_000_000)),
    ("cards", "score_clamp", Range::int(0..=1_000_000)),
    ("fibonacci", "base", Range::int(0..=1)),
    ("fibonacci", "min_powers", Range::int(2..=1_000)),
    ("carnage", "rank_points", Range::int(0..=1_000_000)),
    ("carnage", "centers_total", Range::int(1..=1_000_000)),
    ("carnage", "centre_points", Range::int(0..=1_000_000)),
    ("carnage", "eliminated", Range::choice(&["by_year", "tied"])),
    ("carnage", "leader_bonus", Range::int(0..=1_000_000)),
    ("diplomacy_tournament", "best_rounds", Range::int(0..=1_000)),
    ("sbr", "bonus_multiplier", Range::int(1..=1_000)),
    ("sbr", "games_per_match", Range::int(1..=100)),
    ("sbr", "advance", Range::int(0..=100)),
    ("sbr", "podium", Range::int(0..=100)),
    ("sbr", "group_size", Range::int(1..=10_000)),
];

/// Does `now` read every value `was` read, as a stored value is read (a
/// table's shape, a decimal's spelling aside: those bind input)?
fn reads_all_of(now: &Range, was: &Range) -> bool {
    let dec = |t: &str| parse_decimal(t).expect("a decimal bound");
    match (*now, *was) {
        (Range::Int { min, max } | Range::OptInt { min, max }, Range::Int { min: a, max: b })
        | (Range::OptInt { min, max }, Range::OptInt { min: a, max: b }) => min <= a && b <= max,
        (Range::Decimal { min, max }, Range::Decimal { min: a, max: b }) => {
            dec(min) <= dec(a) && dec(b) <= dec(max)
        }
        (
            Range::Ints {
                min_len,
                max_len,
                min,
                max,
                ..
            },
            Range::Ints {
                min_len: la,
                max_len: lb,
                min: a,
                max: b,
                ..
            },
        ) => min_len <= la && lb <= max_len && min <= a && b <= max,
        (Range::Choice(now), Range::Choice(was)) => was.iter().all(|w| now.contains(w)),
        _ => false,
    }
}

/// Every rules change a ledger of this format holds still checks: no
/// parameter's stored range narrowed, none went, no decimal place was taken
/// away. So [`Params::change`] never meets one that does not check but in a
/// ledger written by a laurel of wider ranges (see the module docs).
#[test]
fn the_ranges_stored_rules_changes_are_read_against_only_widen() {
    const { assert!(DECIMAL_PLACES >= 6) };
    assert!(!reads_all_of(&Range::int(1..=9), &Range::int(0..=9)));
    assert!(!reads_all_of(
        &Range::decimal("0"..="0.9"),
        &Range::decimal("0"..="1")
    ));
    assert!(!reads_all_of(
        &Range::choice(&["a"]),
        &Range::choice(&["a", "b"])
    ));
    assert!(reads_all_of(&Range::opt_int(0..=9), &Range::int(1..=9)));
    for (system, name, was) in STORED_RANGES {
        let now = all_defs().find(|d| d.system == *system && d.name == *name);
        let now = now.unwrap_or_else(|| {
            panic!("{system}.{name} went: stored changes of it no longer check")
        });
        assert!(
            reads_all_of(&now.range, was),
            "{system}.{name} narrowed from {was} to {}: stored changes may no longer check; bind the new bound to input (check_input)",
            now.range
        );
    }
    let pinned = |d: &&ParamDef| {
        STORED_RANGES
            .iter()
            .any(|(s, n, _)| *s == d.system && *n == d.name)
    };
    let unpinned: Vec<String> = all_defs()
        .filter(|d| !pinned(d))
        .map(|d| format!("{}.{}", d.system, d.name))
        .collect();
    assert!(unpinned.is_empty(), "add to STORED_RANGES: {unpinned:?}");
    // check_input asks all that check_system does: what an append accepted, a fold reads.
    for d in all_defs() {
        let v: Value = serde_json::from_str(d.default).unwrap();
        for v in [
            v,
            json!("00.5"),
            json!([2, 5]),
            json!(0),
            json!(-1),
            json!(null),
        ] {
            let m = json!({ d.name: v }).as_object().unwrap().clone();
            if check_input(d.system, &m).is_ok() {
                check_system(d.system, &m).unwrap();
            }
        }
    }
}

#[test]
fn an_audit_formula_names_the_values_given_of_the_groups_asked_pinned_over_set() {
    let mut p = Params::default();
    let carnage = |g: &str| g == "carnage";
    assert_eq!(p.given_text(carnage), "");
    let set = json!({"leader_bonus": 300, "eliminated": "tied"});
    p.change("carnage", set.as_object().unwrap());
    p.change("fibonacci", json!({"base": 1}).as_object().unwrap());
    assert_eq!(
        p.given_text(carnage),
        " [rules given: carnage.eliminated=tied, carnage.leader_bonus=300]"
    );
    assert_eq!(p.given_text(|g| g == "valar"), "");
    assert_eq!(
        p.given_text(|g| g != "valar"),
        " [rules given: carnage.eliminated=tied, carnage.leader_bonus=300, fibonacci.base=1]"
    );
    let mut pinned = Params::pinned(&json!({"carnage": {"leader_bonus": 50}}));
    pinned.change("carnage", set.as_object().unwrap());
    assert_eq!(
        pinned.given_text(carnage),
        " [rules given: carnage.eliminated=tied, carnage.leader_bonus=50]"
    );
}
