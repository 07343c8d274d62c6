//! `cfr`: Championship Formula Racing driver rankings (SPEC §3, seed
//! `000_fdd37e71ae680242.txt`).
//!
//! Each `cfr.event_completed` is scored when it is folded, with the parameters in
//! force at its `at` (a series' own tables win over the parameters): every driver
//! gets an event score, `100 * points / perfect`, rounded to `decimals` places. A
//! driver's ranking score is computed at query time from the last
//! `counted_events` events of each series in fold order, i.e. by `(at, seq)`;
//! because the fold engine drops everything after `--as-of`, the window moves
//! back with it: the state never stores a window, only each series' events.
//!
//! # Decisions where SPEC §3 is silent
//! - **Event scores are rounded** to `decimals` (2) places when scored, and the
//!   ranking score is the mean of those rounded scores, as the seed does by hand
//!   (80, 16, 0, 0, 31.88 → 25.58): whoever redoes the sum from `laurel history`
//!   gets exactly the printed number.
//! - **Points tables are rescaled** so a win is 100: a series may give its own
//!   table (`race_points: [160, 120, ...]`); an event scores
//!   `100 * points / (races * race_points[0])`, which is SPEC's formula when the
//!   table starts at 100. The default table is the WBC laurels scale
//!   `[100, 60, 40, 30, 20, 10]` (the seed gives none).
//! - **Races of a points event**: a driver's perfect score is a win in every race
//!   of each tier they drove in; a race of their tier they are missing from
//!   counts 0 (as a dnf would).
//! - **Ranking order**: score as shown (rounded), then more counted events, then
//!   best counted event, then name. Because the name breaks every remaining tie,
//!   ranks are never shared: the ranking seeds qualifying races, which needs a
//!   strict order.
//! - **Best finish** (a tie-free explanation column): the best place in a final or
//!   a points race (tier-adjusted: a tier-2 win shows as a 2nd), a final before a
//!   race at equal place; only a driver who never reached either shows a heat.
//! - A driver none of whose events is in a window any more has no score and is
//!   left out of the ranking (their events still show, not counted).
//! - A series is defined once; an elimination event needs heats and a final;
//!   tables must start with a positive win and never rise with place.
//! - `standings cfr` takes no `--tournament`.
//!
//! # The sample streams (`events/cfr_*.jsonl`)
//! `cfr_wbc` (WBC 2009-2012, 3 heats each: 2009 falls out of the window),
//! `cfr_wbc_pbem` (one 2-heat event: Turyko Suky's 40 → 20) and `cfr_pbem`
//! (the author's points PBeM, two tiers of three races). The seed does not
//! give that PBeM's table, so the stream documents one:
//! `race_points: [160, 120, 88, 64, 45, 32, 25, 20, 15, 10, 6, 3]`; Bruce Rae's
//! 3rd, 5th and 8th make `100 * (88 + 45 + 20) / (3 * 160) = 31.875 → 31.88`,
//! and his five events `(0 + 16 + 80 + 0 + 31.88) / 5 = 25.576 → 25.58`.

mod check;
pub mod math;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::events::cfr::{self as ev, EventCompleted, Format, Placing, SeriesDefined};
use crate::events::{Event, Place, Record};
use crate::num::{decimal_string, json_number, parse_decimal, Rational};
use crate::output::{Report, Table};
use crate::params::{Kind, ParamDef};
use crate::time::{format_short, Micros};

use super::{Change, Cx, Projection, Selector};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["cfr"];

const SYS: &str = "cfr";

/// Rule parameters, with the seed's values as defaults (names as in SPEC §3).
pub const PARAMS: &[ParamDef] = &[
    ParamDef {
        system: SYS,
        name: "final_points",
        kind: Kind::Ints,
        default: "[100, 60, 40, 30, 20, 10]",
        doc: "elimination final points by place (WBC laurels rescaled to 100)",
    },
    ParamDef {
        system: SYS,
        name: "heat_points",
        kind: Kind::Ints,
        default: "[50, 30, 20, 15]",
        doc: "elimination heat points by place (half the final's, places 1-4)",
    },
    ParamDef {
        system: SYS,
        name: "heat_decay",
        kind: Kind::Decimal,
        default: "\"0.5\"",
        doc: "weight of a driver's 2nd best heat (3rd best: squared, ...)",
    },
    ParamDef {
        system: SYS,
        name: "race_points",
        kind: Kind::Ints,
        default: "[100, 60, 40, 30, 20, 10]",
        doc: "points-series race points by place; rescaled so that a win is 100",
    },
    ParamDef {
        system: SYS,
        name: "tier_offset",
        kind: Kind::Int,
        default: "1",
        doc: "places added per tier below the first (a tier-2 win counts as a 2nd)",
    },
    ParamDef {
        system: SYS,
        name: "counted_events",
        kind: Kind::Int,
        default: "3",
        doc: "events per series that count (the newest by date)",
    },
    ParamDef {
        system: SYS,
        name: "one_event_factor",
        kind: Kind::Decimal,
        default: "\"0.5\"",
        doc: "score factor for a driver with one counted event",
    },
    ParamDef {
        system: SYS,
        name: "two_event_factor",
        kind: Kind::Decimal,
        default: "\"0.75\"",
        doc: "score factor for a driver with two counted events",
    },
    ParamDef {
        system: SYS,
        name: "decimals",
        kind: Kind::Int,
        default: "2",
        doc: "decimal places of event scores and of the ranking score",
    },
];

/// Where a driver finished: the kind of race, in order of preference at equal place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Final,
    Race,
    Heat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Finish {
    stage: Stage,
    place: u32,
}

impl Finish {
    /// Smaller is better: any final or race before a heat, then place, then stage.
    fn key(self) -> (bool, u32, Stage) {
        (self.stage == Stage::Heat, self.place, self.stage)
    }

    fn text(self) -> String {
        let stage = match self.stage {
            Stage::Final => "final",
            Stage::Race => "race",
            Stage::Heat => "heat",
        };
        format!("{} {stage}", crate::output::ordinal(self.place.into()))
    }
}

fn best_finish(a: Option<Finish>, b: Option<Finish>) -> Option<Finish> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.key() < x.key() { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// One driver's result at one event.
#[derive(Debug, Clone)]
struct Entry {
    points: Rational,
    perfect: Rational,
    /// `100 * points / perfect`, rounded to `decimals`.
    score: Rational,
    finish: Option<Finish>,
    /// The sum behind the score, e.g. `100 * (heats 50 + final 100 [1st]) / 187.5`.
    formula: String,
}

/// A scored event of a series.
#[derive(Debug, Clone)]
struct Scored {
    event: String,
    at: Micros,
    seq: u64,
    drivers: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone)]
struct Series {
    def: SeriesDefined,
    defined_at: Micros,
    /// In fold order, i.e. `(at, seq)`: the window is the last `counted_events`.
    events: Vec<Scored>,
}

/// The CFR projection: every series and its scored events.
#[derive(Debug, Clone, Default)]
pub struct State {
    series: BTreeMap<String, Series>,
}

impl Projection for State {
    fn check(&self, rec: &Record, _cx: &Cx) -> Result<(), String> {
        match &rec.event {
            Event::Cfr(ev::Event::SeriesDefined(d)) => check::series_defined(self, d),
            Event::Cfr(ev::Event::EventCompleted(e)) => check::event_completed(self, e),
            _ => Ok(()),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        match &rec.event {
            Event::Cfr(ev::Event::SeriesDefined(d)) => {
                self.series.entry(d.series.0.clone()).or_insert(Series {
                    def: d.clone(),
                    defined_at: rec.at,
                    events: Vec::new(),
                });
            }
            Event::Cfr(ev::Event::EventCompleted(e)) => self.complete(rec, e, cx),
            _ => {}
        }
    }
}

/// The scoring tables of a series at one moment: its own, else the parameters.
struct Tables {
    final_points: Vec<i64>,
    heat_points: Vec<i64>,
    decay: Rational,
    race_points: Vec<i64>,
    tier_offset: i64,
    decimals: u32,
}

impl Tables {
    fn of(def: &SeriesDefined, cx: &Cx) -> Tables {
        let p = &cx.params;
        let decay = def
            .heat_decay
            .as_deref()
            .and_then(parse_decimal)
            .unwrap_or_else(|| p.decimal(SYS, "heat_decay"));
        Tables {
            final_points: def
                .final_points
                .clone()
                .unwrap_or_else(|| p.ints(SYS, "final_points")),
            heat_points: def
                .heat_points
                .clone()
                .unwrap_or_else(|| p.ints(SYS, "heat_points")),
            decay,
            race_points: def
                .race_points
                .clone()
                .unwrap_or_else(|| p.ints(SYS, "race_points")),
            tier_offset: def.tier_offset.unwrap_or_else(|| p.int(SYS, "tier_offset")),
            decimals: decimals(cx),
        }
    }
}

fn decimals(cx: &Cx) -> u32 {
    cx.params.int(SYS, "decimals").clamp(0, 9) as u32
}

/// Exact decimal text without trailing zeros (`187.5`, `80`), for formulas.
fn num(r: Rational) -> String {
    let s = decimal_string(r, 6);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn place_text(p: Place) -> String {
    match p {
        Place::At(n) => crate::output::ordinal(n.into()),
        Place::Dnf => "dnf".into(),
    }
}

fn place_opt(p: Place) -> Option<u32> {
    match p {
        Place::At(n) => Some(n),
        Place::Dnf => None,
    }
}

/// One driver's results at an elimination event.
#[derive(Debug, Default)]
struct HeatLog {
    heats: Vec<Place>,
    /// `None`: did not reach the final.
    final_: Option<Place>,
}

/// Score every driver of an elimination event.
fn score_elimination(t: &Tables, e: &EventCompleted) -> BTreeMap<String, Entry> {
    let heats = e.heats.as_deref().unwrap_or_default();
    let mut logs: BTreeMap<&str, HeatLog> = BTreeMap::new();
    for p in heats.iter().flatten() {
        logs.entry(&p.driver).or_default().heats.push(p.place);
    }
    for p in e.final_.as_deref().unwrap_or_default() {
        logs.entry(&p.driver).or_default().final_ = Some(p.place);
    }
    let perfect = math::elimination_perfect(&t.final_points, &t.heat_points, t.decay, heats.len());
    logs.into_iter()
        .map(|(driver, log)| {
            (
                driver.to_string(),
                elimination_entry(t, &log, perfect, heats.len()),
            )
        })
        .collect()
}

fn elimination_entry(t: &Tables, log: &HeatLog, perfect: Rational, n_heats: usize) -> Entry {
    let heat_places: Vec<Option<u32>> = log.heats.iter().map(|&p| place_opt(p)).collect();
    let fin = log.final_.map(place_opt);
    let points =
        math::elimination_points(&t.final_points, &t.heat_points, t.decay, &heat_places, fin);
    let finish = match fin.flatten() {
        Some(place) => Some(Finish {
            stage: Stage::Final,
            place,
        }),
        None => heat_places.iter().flatten().min().map(|&place| Finish {
            stage: Stage::Heat,
            place,
        }),
    };
    let final_term = log.final_.map_or(String::new(), |p| {
        let pts = math::table_points(&t.final_points, place_opt(p));
        format!(" + final {pts} {}", place_text(p))
    });
    let formula = format!(
        "100 * ({}{final_term}) / {} (perfect: final win + heat win over {n_heats} heats)",
        heat_terms(t, &log.heats),
        num(perfect),
    );
    Entry {
        points,
        perfect,
        score: math::round_to(math::event_score(points, perfect), t.decimals),
        finish,
        formula,
    }
}

/// `heats 50 + 30*0.5 [1st, 2nd, dnf]`: decayed heat points, best first.
fn heat_terms(t: &Tables, places: &[Place]) -> String {
    let mut pts: Vec<i128> = places
        .iter()
        .map(|&p| math::table_points(&t.heat_points, place_opt(p)))
        .collect();
    pts.sort_unstable_by(|a, b| b.cmp(a));
    let terms: Vec<String> = pts
        .iter()
        .enumerate()
        .map(|(i, p)| match i {
            0 => p.to_string(),
            _ => format!("{p}*{}", num(math::decay_weight(t.decay, i))),
        })
        .collect();
    let names: Vec<String> = places.iter().map(|&p| place_text(p)).collect();
    if terms.is_empty() {
        return "heats 0 [none]".into();
    }
    format!("heats {} [{}]", terms.join(" + "), names.join(", "))
}

/// One driver's results at a points event.
#[derive(Debug, Default)]
struct RaceLog {
    /// Tiers the driver raced in: their perfect is a win in every race of these.
    tiers: BTreeSet<i64>,
    /// `(race number, tier-adjusted place or None for dnf)`.
    results: Vec<(usize, Option<u32>)>,
}

/// Score every driver of a points event.
fn score_points(t: &Tables, e: &EventCompleted) -> BTreeMap<String, Entry> {
    let races = e.races.as_deref().unwrap_or_default();
    let mut per_tier: BTreeMap<i64, usize> = BTreeMap::new();
    for r in races {
        *per_tier.entry(r.tier).or_default() += 1;
    }
    let mut logs: BTreeMap<&str, RaceLog> = BTreeMap::new();
    for (i, r) in races.iter().enumerate() {
        for Placing { driver, place } in &r.results {
            let eff = place_opt(*place).map(|p| math::tier_place(p, r.tier, t.tier_offset));
            let log = logs.entry(driver).or_default();
            log.tiers.insert(r.tier);
            log.results.push((i + 1, eff));
        }
    }
    logs.into_iter()
        .map(|(driver, log)| (driver.to_string(), points_entry(t, &per_tier, &log)))
        .collect()
}

fn points_entry(t: &Tables, per_tier: &BTreeMap<i64, usize>, log: &RaceLog) -> Entry {
    let possible: usize = log
        .tiers
        .iter()
        .map(|tier| per_tier.get(tier).copied().unwrap_or(0))
        .sum();
    let pts: Vec<i128> = log
        .results
        .iter()
        .map(|&(_, p)| math::table_points(&t.race_points, p))
        .collect();
    let points = Rational::from_integer(pts.iter().sum());
    let perfect = math::points_perfect(&t.race_points, possible);
    let finish = log.results.iter().filter_map(|&(_, p)| p).min();
    let shown: Vec<String> = log
        .results
        .iter()
        .map(|&(n, p)| {
            format!(
                "race {n} {}",
                p.map_or("dnf".into(), |n| crate::output::ordinal(n.into()))
            )
        })
        .collect();
    let terms: Vec<String> = pts.iter().map(i128::to_string).collect();
    let formula = format!(
        "100 * ({}) / ({possible} races * {}) [{}]",
        terms.join(" + "),
        math::table_points(&t.race_points, Some(1)),
        shown.join(", ")
    );
    Entry {
        points,
        perfect,
        score: math::round_to(math::event_score(points, perfect), t.decimals),
        finish: finish.map(|place| Finish {
            stage: Stage::Race,
            place,
        }),
        formula,
    }
}

/// A driver's counted event, as it enters the average.
#[derive(Debug, Clone)]
struct Counted {
    label: String,
    at: Micros,
    seq: u64,
    score: Rational,
    finish: Option<Finish>,
}

/// A driver's ranking line: counted events and the score made from them.
#[derive(Debug, Clone)]
struct Line {
    events: Vec<Counted>,
    mean: Rational,
    factor: Rational,
    /// `mean * factor`, rounded to `decimals`: what is shown and ranked.
    score: Rational,
    best: Rational,
    finish: Option<Finish>,
}

impl Line {
    /// `(80 + 16 + 0 + 0 + 31.88) / 5`, with `* 0.75` when a factor applies.
    fn formula(&self) -> String {
        let terms: Vec<String> = self.events.iter().map(|c| num(c.score)).collect();
        let factor = if self.factor == Rational::from_integer(1) {
            String::new()
        } else {
            format!(" * {}", num(self.factor))
        };
        format!("({}) / {}{factor}", terms.join(" + "), self.events.len())
    }
}

fn counted_events(cx: &Cx) -> usize {
    usize::try_from(cx.params.int(SYS, "counted_events")).unwrap_or(0)
}

fn label(series: &str, event: &str) -> String {
    format!("{series}/{event}")
}

impl State {
    /// Fold one completed event: score it, then audit every driver whose ranking
    /// inputs changed (its drivers, and those of the event leaving the window).
    fn complete(&mut self, rec: &Record, e: &EventCompleted, cx: &mut Cx) {
        let Some(series) = self.series.get(&e.series.0) else {
            return;
        };
        if series.events.iter().any(|x| x.event == e.event.0) {
            return;
        }
        let t = Tables::of(&series.def, cx);
        let drivers = match series.def.format {
            Format::Elimination => score_elimination(&t, e),
            Format::Points => score_points(&t, e),
        };
        let scored = Scored {
            event: e.event.0.clone(),
            at: rec.at,
            seq: rec.seq,
            drivers,
        };
        if cx.auditing() {
            self.push_audited(rec, &e.series.0, scored, cx);
        } else {
            self.push(&e.series.0, scored);
        }
    }

    /// Push `scored` and record a change for each driver whose inputs changed:
    /// those of the new event and those of the event leaving the window.
    fn push_audited(&mut self, rec: &Record, series: &str, scored: Scored, cx: &mut Cx) {
        let n = counted_events(cx);
        let leaving = self.series.get(series).and_then(|s| {
            let i = s.events.len().checked_sub(n).filter(|_| n > 0)?;
            s.events.get(i).cloned()
        });
        let mut affected: BTreeSet<String> = scored.drivers.keys().cloned().collect();
        if let Some(old) = &leaving {
            affected.extend(old.drivers.keys().cloned());
        }
        let before = self.lines(Some(&affected), cx);
        let new_event = scored.clone();
        self.push(series, scored);
        let after = self.lines(Some(&affected), cx);
        let d = decimals(cx);
        for driver in affected {
            let scored = new_event.drivers.get(&driver).map(|en| {
                let l = label(series, &new_event.event);
                format!("{l} {} = {}", num(en.score), en.formula)
            });
            let left = leaving
                .as_ref()
                .filter(|o| o.drivers.contains_key(&driver))
                .map(|o| {
                    let l = label(series, &o.event);
                    format!("{l} left the window (last {n} {series} events)")
                });
            let old = before.get(&driver).map(|l| decimal_string(l.score, d));
            let (new, total) = match after.get(&driver) {
                Some(l) => {
                    let new = decimal_string(l.score, d);
                    let total = format!("score {new} = {}", l.formula());
                    (new, total)
                }
                None => ("unranked".to_string(), "no counted event".to_string()),
            };
            let parts: Vec<String> = scored.into_iter().chain(left).chain([total]).collect();
            let formula = parts.join("; ");
            cx.audit(|| Change {
                seq: rec.seq,
                at: rec.at,
                system: SYS.into(),
                subject: driver,
                old,
                new,
                formula,
            });
        }
    }

    fn push(&mut self, series: &str, scored: Scored) {
        if let Some(s) = self.series.get_mut(series) {
            s.events.push(scored);
        }
    }

    /// Ranking lines of every driver with a counted event (or only of `only`).
    fn lines(&self, only: Option<&BTreeSet<String>>, cx: &Cx) -> BTreeMap<String, Line> {
        let n = counted_events(cx);
        let mut per_driver: BTreeMap<String, Vec<Counted>> = BTreeMap::new();
        for (name, s) in &self.series {
            let window = &s.events[s.events.len().saturating_sub(n)..];
            for ev in window {
                for (driver, en) in &ev.drivers {
                    if only.is_some_and(|o| !o.contains(driver)) {
                        continue;
                    }
                    per_driver.entry(driver.clone()).or_default().push(Counted {
                        label: label(name, &ev.event),
                        at: ev.at,
                        seq: ev.seq,
                        score: en.score,
                        finish: en.finish,
                    });
                }
            }
        }
        let one = cx.params.decimal(SYS, "one_event_factor");
        let two = cx.params.decimal(SYS, "two_event_factor");
        let d = decimals(cx);
        per_driver
            .into_iter()
            .filter_map(|(driver, mut events)| {
                events.sort_by_key(|c| (c.at, c.seq));
                let scores: Vec<Rational> = events.iter().map(|c| c.score).collect();
                let (mean, factor, score) = math::driver_score(&scores, one, two)?;
                let best = scores.iter().copied().max()?;
                let finish = events.iter().fold(None, |b, c| best_finish(b, c.finish));
                let line = Line {
                    events,
                    mean,
                    factor,
                    score: math::round_to(score, d),
                    best,
                    finish,
                };
                Some((driver, line))
            })
            .collect()
    }

    /// `laurel standings cfr`: the ranking, then every event score and the series.
    pub fn standings(&self, table: &str, sel: &Selector, cx: &Cx) -> Result<Report, String> {
        if table != "cfr" {
            return Err(format!("unknown cfr table {table:?}"));
        }
        if let Some(t) = &sel.tournament {
            return Err(format!(
                "standings cfr takes no --tournament (got {t:?}): the ranking spans every series"
            ));
        }
        let d = decimals(cx);
        let mut lines: Vec<(String, Line)> = self.lines(None, cx).into_iter().collect();
        // score, then more events, then best event, then name (SPEC §3)
        lines.sort_by(|(an, a), (bn, b)| {
            b.score
                .cmp(&a.score)
                .then(b.events.len().cmp(&a.events.len()))
                .then(b.best.cmp(&a.best))
                .then(an.cmp(bn))
        });
        let mut main = Table::new(
            "cfr",
            &format!(
                "CFR driver ranking (mean of the last {} events of each series; 1 event x{}, 2 events x{})",
                counted_events(cx),
                num(cx.params.decimal(SYS, "one_event_factor")),
                num(cx.params.decimal(SYS, "two_event_factor")),
            ),
            &[
                "rank", "player", "score", "events", "mean", "factor", "best_event", "best_finish",
                "scores",
            ],
        );
        for (i, (driver, l)) in lines.iter().enumerate() {
            let scores: Vec<String> = l
                .events
                .iter()
                .map(|c| format!("{} {}", c.label, decimal_string(c.score, d)))
                .collect();
            main.push(vec![
                json!(i + 1),
                json!(driver),
                json_number(l.score, d),
                json!(l.events.len()),
                json_number(l.mean, d + 2),
                json_number(l.factor, 4),
                json_number(l.best, d),
                l.finish.map_or(Value::Null, |f| json!(f.text())),
                json!(scores.join(", ")),
            ]);
        }
        Ok(Report {
            system: "cfr".into(),
            main,
            extra: vec![self.events_table(cx), self.series_table(cx)],
        })
    }

    /// Every driver's score at every event, oldest event first, with its sum.
    fn events_table(&self, cx: &Cx) -> Table {
        let (n, d) = (counted_events(cx), decimals(cx));
        let mut t = Table::new(
            "events",
            "CFR event scores (counted: among the last events of its series)",
            &[
                "series", "event", "at", "player", "score", "points", "perfect", "counted",
                "finish", "formula",
            ],
        );
        let mut all: Vec<(&str, usize, &Scored, bool)> = Vec::new();
        for (name, s) in &self.series {
            let first_counted = s.events.len().saturating_sub(n);
            for (i, ev) in s.events.iter().enumerate() {
                all.push((name, i, ev, i >= first_counted));
            }
        }
        all.sort_by_key(|(name, _, ev, _)| (ev.at, ev.seq, *name));
        for (name, _, ev, counted) in all {
            let mut drivers: Vec<(&String, &Entry)> = ev.drivers.iter().collect();
            drivers.sort_by(|a, b| b.1.score.cmp(&a.1.score).then(a.0.cmp(b.0)));
            for (driver, en) in drivers {
                t.push(vec![
                    json!(name),
                    json!(ev.event),
                    json!(format_short(ev.at)),
                    json!(driver),
                    json_number(en.score, d),
                    json_number(en.points, 4),
                    json_number(en.perfect, 4),
                    json!(counted),
                    en.finish.map_or(Value::Null, |f| json!(f.text())),
                    json!(en.formula),
                ]);
            }
        }
        t
    }

    /// Each series, its format and which of its events are in the window.
    fn series_table(&self, cx: &Cx) -> Table {
        let n = counted_events(cx);
        let mut t = Table::new(
            "series",
            "CFR series",
            &["series", "format", "defined", "events", "counted", "window"],
        );
        for (name, s) in &self.series {
            let window: Vec<&str> = s.events[s.events.len().saturating_sub(n)..]
                .iter()
                .map(|e| e.event.as_str())
                .collect();
            t.push(vec![
                json!(name),
                json!(check::format_name(s.def.format)),
                json!(format_short(s.defined_at)),
                json!(s.events.len()),
                json!(window.len()),
                json!(window.join(", ")),
            ]);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::{fold, MemSource, Query};
    use crate::num::ratio;
    use num_traits::Zero;

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

    fn score_of(f: &crate::fold::Folded, driver: &str) -> Option<String> {
        let lines = f.state.cfr.lines(None, &f.cx);
        lines.get(driver).map(|l| decimal_string(l.score, 2))
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
        let names: Vec<&str> = f.state.cfr.series["s"]
            .events
            .iter()
            .map(|e| e.event.as_str())
            .collect();
        assert_eq!(names, ["old", "b", "c", "d"]);
    }

    #[test]
    fn empty_tables_from_a_rules_change_score_zero_without_panicking() {
        let log = vec![
            SERIES.to_string(),
            r#"{"type":"ledger.rules_changed","at":"2013-01-15","system":"cfr","params":{"race_points":[],"counted_events":0}}"#.to_string(),
            race("1", "2013-02-01", &[("Amy", 1)]),
        ];
        let f = folded(&log, true);
        let ev = &f.state.cfr.series["s"].events[0];
        assert_eq!(ev.drivers["Amy"].score, Rational::zero());
        // no window at all: nobody is ranked, the report is still made
        let r = f
            .state
            .cfr
            .standings("cfr", &Selector::default(), &f.cx)
            .unwrap();
        assert!(r.main.rows.is_empty());
        assert_eq!(r.extra[0].rows.len(), 1);
    }

    #[test]
    fn a_series_table_overrides_the_parameters_and_decay_is_read_from_it() {
        let log = vec![
            r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"e","format":"elimination","final_points":[10],"heat_points":[10],"heat_decay":"1"}"#.to_string(),
            r#"{"type":"cfr.event_completed","at":"2013-02-01","series":"e","event":"1","heats":[[{"driver":"A","place":1}],[{"driver":"A","place":1}]],"final":[{"driver":"A","place":"dnf"}]}"#.to_string(),
        ];
        let f = folded(&log, false);
        let a = &f.state.cfr.series["e"].events[0].drivers["A"];
        // perfect 10 + 10 + 10*1 = 30; A: two heat wins at full weight = 20
        assert_eq!((a.points, a.perfect), (ratio(20, 1), ratio(30, 1)));
        assert_eq!(a.score, ratio(6667, 100));
        assert_eq!(a.finish.map(Finish::text).as_deref(), Some("1st heat"));
    }
}
