//! Append-time validation of `cfr.*` events against the state folded so far.
//!
//! Every message names the series/event (and heat, final or race) and the rule.

use std::collections::BTreeSet;

use crate::num::{parse_decimal, Rational};
use crate::systems::cfr::events::{
    EventCompleted, Format, Placing, SeriesDefined, MAX_HEATS, PLACE, POINTS, TABLE_PLACES, TIER,
    TIER_OFFSET,
};
use crate::systems::params::DECIMAL_PLACES;
use crate::time::{format_short, Micros};

use super::{format_of_table, Series, SeriesDef, State, TABLE_PARAMS};
use crate::systems::Cx;

/// `cfr.series_defined`: defined once, with tables that fit its format.
pub fn series_defined(state: &State, d: &SeriesDefined) -> Result<(), String> {
    let name = &d.series.0;
    if let Some(s) = state.series_named(name) {
        return Err(format!(
            "cfr series {name:?}: already defined on {} (a series is defined once; to change \
             its definition: `laurel correct SEQ FILE --reason TEXT`, its SEQ in `laurel log`, \
             FILE holding the definition as it should be)",
            format_short(s.defined_at)
        ));
    }
    let def = SeriesDef::of(d);
    let wrong = |field: &&&str| def.sets(field) && format_of_table(field) != Some(d.format);
    if let Some(field) = TABLE_PARAMS.iter().find(wrong) {
        return Err(format!(
            "cfr series {name:?}: `{field}` does not apply to {} series",
            match d.format {
                Format::Elimination => "an elimination",
                Format::Points => "a points",
            }
        ));
    }
    for (field, table) in [
        ("final_points", &d.final_points),
        ("heat_points", &d.heat_points),
        ("race_points", &d.race_points),
    ] {
        if let Some(t) = table {
            points_table(name, field, t)?;
        }
    }
    if let Some(text) = &d.heat_decay {
        if parse_decimal(text).is_none() {
            return heat_decay_spelt_once(d);
        }
        let ok = parse_decimal(text)
            .is_some_and(|r| r >= Rational::from_integer(0) && r <= Rational::from_integer(1));
        if !ok {
            return Err(format!(
                "cfr series {name:?}: `heat_decay` {text:?} must be a decimal string from 0 to 1"
            ));
        }
        let places = text.trim().split_once('.').map_or(0, |(_, f)| f.len());
        if places > DECIMAL_PLACES {
            return Err(format!(
                "cfr series {name:?}: `heat_decay` {text:?} has {places} decimal places; \
                 at most {DECIMAL_PLACES}"
            ));
        }
    }
    if let Some(o) = d.tier_offset {
        if o < 0 {
            return Err(format!(
                "cfr series {name:?}: `tier_offset` must not be negative"
            ));
        }
        TIER_OFFSET
            .check(o)
            .map_err(|m| format!("cfr series {name:?}: {m}"))?;
    }
    Ok(())
}

/// A new `cfr.series_defined`'s `heat_decay` is a decimal spelt one way, as
/// a decimal parameter is ([`crate::num::misspelt`] says what is wrong); a
/// stored one is read as it was accepted.
pub fn heat_decay_spelt_once(d: &SeriesDefined) -> Result<(), String> {
    let Some(text) = &d.heat_decay else {
        return Ok(());
    };
    match crate::num::misspelt(text) {
        None => Ok(()),
        Some(why) => Err(format!(
            "cfr series {:?}: `heat_decay` {text:?} is not a decimal string: {why}",
            d.series.0
        )),
    }
}

pub fn format_name(f: Format) -> &'static str {
    match f {
        Format::Elimination => "elimination",
        Format::Points => "points",
    }
}

/// A points table: a positive win, no negative values, never rising with
/// place; at most [`TABLE_PLACES`] places, each within [`POINTS`].
fn points_table(series: &str, field: &str, t: &[i64]) -> Result<(), String> {
    let bad = if t.first().is_none_or(|&w| w <= 0) {
        Some("must start with a positive points value for a win".to_string())
    } else if t.iter().any(|&v| v < 0) {
        Some("must not hold negative points".into())
    } else if t.windows(2).any(|w| w[1] > w[0]) {
        Some("must not give a worse place more points than a better one".into())
    } else if t.len() > TABLE_PLACES {
        Some(format!(
            "has {} places; a table has at most {TABLE_PLACES}",
            t.len()
        ))
    } else {
        t.iter().find(|&&v| !POINTS.contains(v)).map(|v| {
            format!(
                "value {v} is out of range; allowed: an integer from {} to {}",
                POINTS.min, POINTS.max
            )
        })
    };
    match bad {
        Some(rule) => Err(format!("cfr series {series:?}: `{field}` {rule}")),
        None => Ok(()),
    }
}

/// `cfr.event_completed`: a defined series, its format, once (under one
/// name: see [`not_entered`]), well-formed results.
pub fn event_completed(
    state: &State,
    e: &EventCompleted,
    (seq, at): (u64, Micros),
    cx: &Cx,
) -> Result<(), String> {
    // the messages below follow "cfr event SERIES/EVENT": built only on failure
    let label = || format!("{}/{}", e.series, e.event);
    let series = state.series_named(&e.series.0).ok_or_else(|| {
        let known = state.by_name.keys().map(String::as_str);
        format!(
            "cfr event {}: series {:?} is not defined at {}, the event's date{} (a \
             cfr.series_defined dated no later defines it; if one is dated after it, correct \
             its date: `laurel correct SEQ FILE --reason TEXT`, its SEQ in `laurel log`)",
            label(),
            e.series.0,
            format_short(at),
            crate::events::did_you_mean(&e.series.0, known)
        )
    })?;
    if let Some(prev) = state.find_event(series, &e.event.0) {
        let what = format!("cfr event {}", label());
        let once = "an event is recorded once";
        return Err(cx.second_result(&what, once, (seq, prev.seq)));
    }
    not_entered(state, series, e, (seq, at), cx)
        .map_err(|rest| format!("cfr event {}{rest}", label()))?;
    match series.def.format {
        Format::Elimination => elimination(e),
        Format::Points => points(e),
    }
    .map_err(|rest| format!("cfr event {}{rest}", label()))
}

/// An event is entered once: one (record `seq`) whose results are those of
/// an event of its series folded at the same `at`, under another name, is
/// that event entered again and would count twice (pushing an older one out
/// of the window). Another event that ended the same way at the same time is
/// told to give its time to the minute. It binds when the append brings
/// the later event ([`Cx::brings`]): events stored before are read as
/// accepted.
fn not_entered(
    state: &State,
    series: &Series,
    e: &EventCompleted,
    (seq, at): (u64, Micros),
    cx: &Cx,
) -> Result<(), String> {
    // The other event folded first at the same `at`: its seq is the lower.
    if !cx.brings(seq) {
        return Ok(());
    }
    let Some(ev) = state.same_results(series, at, e) else {
        return Ok(());
    };
    let name = state.event_names.name(state.name_of(ev));
    let first = state.events[ev as usize].seq;
    let (which, hint) = match cx.brings(first) {
        false => (
            format!("(record {first})"),
            format!(" (to correct event {name}: `laurel correct {first} FILE --reason TEXT`)"),
        ),
        true => ("(which this append brings)".to_string(), String::new()),
    };
    Err(format!(
        ": event {}/{name} {which} has the same date and the same results: an event is \
         entered once{hint}; if this is another event, give its `at` to the minute it ended",
        e.series
    ))
}

fn elimination(e: &EventCompleted) -> Result<(), String> {
    if e.races.is_some() {
        return Err(": `races` belong to a points series; this series is an \
             elimination series (heats and a final)"
            .into());
    }
    let heats = e.heats.as_deref().unwrap_or_default();
    let Some(fin) = &e.final_ else {
        return Err(": an elimination event needs its `final`".into());
    };
    if heats.is_empty() {
        return Err(": a final without heats (an elimination event runs \
             qualifying heats before its final)"
            .into());
    }
    if heats.len() > MAX_HEATS {
        return Err(format!(
            ": {} heats; an elimination event runs at most {MAX_HEATS}",
            heats.len()
        ));
    }
    for (i, heat) in heats.iter().enumerate() {
        results(heat).map_err(|rule| format!(", heat {}: {rule}", i + 1))?;
    }
    results(fin).map_err(|rule| format!(", final: {rule}"))
}

fn points(e: &EventCompleted) -> Result<(), String> {
    if e.heats.is_some() || e.final_.is_some() {
        return Err(
            ": `heats` and `final` belong to an elimination series; this \
             series is a points series (races)"
                .into(),
        );
    }
    let races = e.races.as_deref().unwrap_or_default();
    if races.is_empty() {
        return Err(": a points event needs at least one race".into());
    }
    for (i, race) in races.iter().enumerate() {
        let what = || format!("race {} (tier {})", i + 1, race.tier);
        if race.tier < 1 {
            return Err(format!(", {}: tiers are numbered from 1", what()));
        }
        TIER.check(race.tier)
            .map_err(|m| format!(", race {}: {m}", i + 1))?;
        results(&race.results).map_err(|rule| format!(", {}: {rule}", what()))?;
    }
    Ok(())
}

/// One heat, final or race: drivers named once, each place (within [`PLACE`])
/// held by one driver at most; places may skip (only the top finishers may be
/// known), and any number of drivers may be dnf. The error is the broken rule
/// alone.
fn results(list: &[Placing]) -> Result<(), String> {
    if list.is_empty() {
        return Err("no drivers".into());
    }
    let mut seen = BTreeSet::new();
    for p in list {
        if p.driver.trim().is_empty() {
            return Err("a driver has no name".into());
        }
        if !seen.insert(p.driver.as_str()) {
            return Err(format!("driver {:?} is listed twice", p.driver));
        }
    }
    let mut places = BTreeSet::new();
    for p in list {
        let Some(at) = p.place.at() else {
            continue;
        };
        PLACE
            .check(at.into())
            .map_err(|m| format!("driver {:?}: {m}", p.driver))?;
        if !places.insert(at) {
            return Err(format!("place {at} is given twice (only dnf may repeat)"));
        }
    }
    Ok(())
}
