//! `cfr`: Championship Formula Racing driver rankings.
//!
//! # Events
//! - `cfr.series_defined {series, format: elimination|points}`, with the series' own
//!   tables, each optional (absent ones take the parameters): `final_points`,
//!   `heat_points`, `heat_decay` for an elimination series, `race_points`, `tier_offset`
//!   for a points series.
//! - `cfr.event_completed {series, event}` with, for an elimination event, `heats:
//!   [[{driver, place}]]` and `final: [{driver, place}]`, for a points event `races:
//!   [{tier, results: [{driver, place}]}]`. A place is 1, 2, 3 … or `"dnf"`.
//!
//! # Rules
//! Every driver of an event gets an event score, `100 * points / perfect` ([`math`]).
//! - **Elimination** (qualifying heats, then a final): final places 1–6 earn
//!   `final_points` 100, 60, 40, 30, 20, 10 (the WBC laurels rescaled to 100), heat
//!   places 1–4 `heat_points` 50, 30, 20, 15; worse places and dnf 0. A driver's best
//!   heat counts in full, the 2nd best times `heat_decay` (0.5), the 3rd times its
//!   square, and so on. Perfect is a final win plus a heat win decayed over the heats the
//!   event ran: 100 + 50 + 25 + 12.5 = 187.5 for 3 heats, so a heat win, a heat dnf and a
//!   final win score 150 / 187.5 → 80.
//! - **Points** (races, maybe in tiers): a result in tier t counts as the place
//!   `place + (t - 1) * tier_offset` (1: a tier-2 win counts as a 2nd) and earns its
//!   `race_points`; perfect is a win in every race the driver could run (see Decisions).
//! - **Ranking**: only the last `counted_events` (3) events of each series count. A
//!   driver's score is the mean of their scores over the counted events they took part
//!   in (a 0 counts), times `one_event_factor` (0.5) with one such event and
//!   `two_event_factor` (0.75) with two: event scores 80, 16, 0, 0, 31.88 give 25.58.
//!   Scores are shown, and rounded half away from zero, to `decimals` (2) places.
//! - Places of a heat, final or race run 1, 2, 3 … without repeats or gaps (a place
//!   missing before a later one is refused); any number of drivers may be dnf.
//!
//! Each `cfr.event_completed` is scored when it is folded, with the parameters in force
//! at its `at` (a series' own tables win over the parameters). The ranking is computed at
//! query time from the last `counted_events` events of each series in fold order, i.e.
//! by `(at, seq)`; because the fold engine drops everything after `--as-of`, the window
//! moves back with it: the state never stores a window, only each series' events.
//!
//! # Decisions
//! - **Event scores are rounded** to `decimals` (2) places when scored, and the ranking
//!   score is the mean of those rounded scores, as the published rankings do by hand
//!   (80, 16, 0, 0, 31.88 → 25.58): whoever redoes the sum from `laurel history` gets
//!   exactly the printed number.
//! - **Points tables are rescaled** so a win is 100: a series may give its own table
//!   (`race_points: [160, 120, ...]`); an event scores `100 * points / (races *
//!   race_points[0])`, which is `100 * points / (races * 100)` when the table starts at
//!   100. The default table is the WBC laurels scale `[100, 60, 40, 30, 20, 10]` (the
//!   published rules give none).
//! - **Races of a points event**: a driver's perfect score is a win in every race of each
//!   tier they drove in; a race of their tier they are missing from counts 0 (as a dnf
//!   would).
//! - **Ranking order**: score as shown (rounded), then more counted events, then best
//!   counted event, then name. Because the name breaks every remaining tie, ranks are
//!   never shared: the ranking seeds qualifying races, which needs a strict order.
//! - **Best finish** (a tie-free explanation column): the best place in a final or a
//!   points race (tier-adjusted: a tier-2 win shows as a 2nd), a final before a race at
//!   equal place; only a driver who never reached either shows a heat.
//! - A driver none of whose events is in a window any more has no score and is left out
//!   of the ranking (their events still show, not counted).
//! - A series is defined once; an elimination event needs heats and a final; tables must
//!   start with a positive win and never rise with place; `heat_decay` is from 0 to 1.
//! - `standings cfr` takes no `--tournament`.
//!
//! # The sample streams (`events/cfr_*.jsonl`)
//! `cfr_wbc` (WBC 2009-2012, 3 heats each: 2009 falls out of the window), `cfr_wbc_pbem`
//! (one 2-heat event: Turyko Suky's 40 → 20) and `cfr_pbem` (a points PBeM of the
//! rankings' author, two tiers of three races). Its table is not published, so the
//! stream documents one: `race_points: [160, 120, 88, 64, 45, 32, 25, 20, 15, 10, 6, 3]`;
//! Bruce Rae's 3rd, 5th and 8th make `100 * (88 + 45 + 20) / (3 * 160) = 31.875 → 31.88`,
//! and his five events `(0 + 16 + 80 + 0 + 31.88) / 5 = 25.576 → 25.58`.

mod check;
pub(crate) mod direct;
pub mod events;
pub(crate) mod gen;
pub mod math;
pub mod params;
mod store;
mod system;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::systems::cfr::events::{self as ev, EventCompleted, Format, SeriesDefined};

use crate::events::{Event, Place, Record};
use crate::num::{decimal_string, json_number, parse_decimal, Rational};
use crate::output::{Report, Table};
use crate::time::{format_short, Micros};

use super::{Change, Cx, Projection, Selector};
use params::Cfr;

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["cfr"];

const SYS: &str = "cfr";

/// Where a driver finished: the kind of race, in order of preference at equal place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
enum Stage {
    Final,
    Race,
    Heat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// One driver's result at one event, computed from the stored results when asked.
#[derive(Debug, Clone)]
struct Entry {
    points: Rational,
    perfect: Rational,
    /// `100 * points / perfect`, rounded to `decimals`.
    score: Rational,
    finish: Option<Finish>,
    /// The sum behind the score, e.g. `100 * (heats 50 + final 100 [1st]) / 187.5`;
    /// empty unless asked for.
    formula: String,
}

/// A scored event: where its name and results are in [`State::data`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Ev {
    at: Micros,
    seq: u64,
    /// Start of its bytes; they end where the next event's start.
    off: u64,
}

/// A series' definition as folded (the event's fields, owned and serializable:
/// the event type's identifiers only deserialize from JSON).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SeriesDef {
    series: String,
    format: Format,
    final_points: Option<Vec<i64>>,
    heat_points: Option<Vec<i64>>,
    heat_decay: Option<String>,
    race_points: Option<Vec<i64>>,
    tier_offset: Option<i64>,
}

impl SeriesDef {
    fn of(d: &SeriesDefined) -> Self {
        SeriesDef {
            series: d.series.0.clone(),
            format: d.format,
            final_points: d.final_points.clone(),
            heat_points: d.heat_points.clone(),
            heat_decay: d.heat_decay.clone(),
            race_points: d.race_points.clone(),
            tier_offset: d.tier_offset,
        }
    }
}

/// Past this many drivers (events), a series looks them up in a map, not a scan.
const SMALL: usize = 32;

// The maps are boxed so that a series without them (the usual case) carries an
// 8-byte `None` instead of a 48-byte empty map.
#[allow(clippy::box_collection)]
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Series {
    def: SeriesDef,
    defined_at: Micros,
    /// Indices into [`State::events`], in fold order, i.e. `(at, seq)`: the
    /// window is the last `counted_events`.
    events: Vec<u32>,
    /// The series' own driver numbers: index → driver in [`State::drivers`].
    drivers: Vec<u32>,
    driver_ids: Option<Box<BTreeMap<u32, u32>>>,
    /// The event names recorded, once there are more than [`SMALL`] events.
    event_ids: Option<Box<BTreeSet<u32>>>,
    /// The scoring tables last used: `(params stamp, id in State::tables)`.
    tables: Option<(u64, u32)>,
}

impl Series {
    /// The series' number for driver `g`, numbering a new one.
    fn local(&mut self, g: u32) -> u32 {
        let found = match &self.driver_ids {
            Some(m) => m.get(&g).copied(),
            None => self.drivers.iter().position(|&x| x == g).map(|i| i as u32),
        };
        if let Some(l) = found {
            return l;
        }
        let l = self.drivers.len() as u32;
        self.drivers.push(g);
        match &mut self.driver_ids {
            Some(m) => {
                m.insert(g, l);
            }
            None if self.drivers.len() > SMALL => {
                let m = self.drivers.iter().enumerate();
                self.driver_ids = Some(Box::new(m.map(|(i, &g)| (g, i as u32)).collect()));
            }
            None => {}
        }
        l
    }
}

/// The CFR projection: every series and its events, stored compactly; scores
/// and formulas are computed from the stored results when a table (or the audit
/// trail) asks for them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    by_name: BTreeMap<String, u32>,
    series: Vec<Series>,
    /// Every scored event, in the order folded.
    events: Vec<Ev>,
    /// The events' results (see `store`).
    #[serde(with = "crate::systems::compact::bytes")]
    data: Vec<u8>,
    drivers: store::Interner,
    event_names: store::Interner,
    /// The distinct scoring tables events were scored with.
    tables: Vec<Tables>,
    table_ids: BTreeMap<Tables, u32>,
    /// With the audit trail only: every driver's counted events (not
    /// serialized: a checkpoint is a plain fold's state).
    #[serde(skip)]
    counting: Option<Box<Counting>>,
}

impl State {
    /// The checkpoint section: its bincode (the very bytes of `Serialize`),
    /// with the growing parts as columns (`ledger/patch.rs`).
    pub fn checkpoint_bytes(&self) -> bincode::Result<super::compact::Encoded> {
        /// `data` as `compact::bytes` writes it.
        struct Bytes<'a>(&'a [u8]);
        impl Serialize for Bytes<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                super::compact::bytes::serialize(self.0, s)
            }
        }
        let mut e = super::compact::Encoded::default();
        e.column(&self.by_name, self.by_name.len())?;
        e.column(&self.series, self.series.len())?;
        e.column(&self.events, self.events.len())?;
        e.column(&Bytes(&self.data), self.data.len())?;
        self.drivers.encode_columns(&mut e)?;
        self.event_names.encode_columns(&mut e)?;
        e.column(&self.tables, self.tables.len())?;
        e.field(&self.table_ids)?;
        Ok(e)
    }
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
                if self.by_name.contains_key(&d.series.0) {
                    return;
                }
                self.by_name
                    .insert(d.series.0.clone(), self.series.len() as u32);
                self.series.push(Series {
                    def: SeriesDef::of(d),
                    defined_at: rec.at,
                    events: Vec::new(),
                    drivers: Vec::new(),
                    driver_ids: None,
                    event_ids: None,
                    tables: None,
                });
            }
            Event::Cfr(ev::Event::EventCompleted(e)) => self.complete(rec, e, cx),
            _ => {}
        }
    }
}

/// The scoring tables of a series at one moment: its own, else the parameters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct Tables {
    final_points: Vec<i64>,
    heat_points: Vec<i64>,
    #[serde(with = "crate::num::serde_rational")]
    decay: Rational,
    race_points: Vec<i64>,
    tier_offset: i64,
    decimals: u32,
}

impl Tables {
    fn of(def: &SeriesDef, cx: &Cx) -> Tables {
        let p = cx.params.get::<Cfr>();
        let decay = def
            .heat_decay
            .as_deref()
            .and_then(parse_decimal)
            .unwrap_or_else(|| p.heat_decay.value());
        let or_param =
            |own: &Option<Vec<i64>>, param: &[i64]| own.as_deref().unwrap_or(param).to_vec();
        Tables {
            final_points: or_param(&def.final_points, &p.final_points),
            heat_points: or_param(&def.heat_points, &p.heat_points),
            decay,
            race_points: or_param(&def.race_points, &p.race_points),
            tier_offset: def.tier_offset.unwrap_or(p.tier_offset),
            decimals: p.decimals,
        }
    }
}

fn decimals(cx: &Cx) -> u32 {
    cx.params.get::<Cfr>().decimals
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

/// Score every driver of an elimination event that ran `heats` heats; drivers
/// are the series' numbers.
fn score_elimination(
    t: &Tables,
    heats: usize,
    logs: Vec<(u32, HeatLog)>,
    formulas: bool,
) -> Vec<(u32, Entry)> {
    let perfect = math::elimination_perfect(&t.final_points, &t.heat_points, t.decay, heats);
    logs.into_iter()
        .map(|(driver, log)| {
            let entry = elimination_entry(t, &log, perfect, heats, formulas);
            (driver, entry)
        })
        .collect()
}

fn elimination_entry(
    t: &Tables,
    log: &HeatLog,
    perfect: Rational,
    n_heats: usize,
    formulas: bool,
) -> Entry {
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
    let formula = if formulas {
        let final_term = log.final_.map_or(String::new(), |p| {
            let pts = math::table_points(&t.final_points, place_opt(p));
            format!(" + final {pts} {}", place_text(p))
        });
        format!(
            "100 * ({}{final_term}) / {} (perfect: final win + heat win over {n_heats} heats)",
            heat_terms(t, &log.heats),
            num(perfect),
        )
    } else {
        String::new()
    };
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

/// Score every driver of a points event (races per tier in `per_tier`).
fn score_points(
    t: &Tables,
    per_tier: &BTreeMap<i64, usize>,
    logs: Vec<(u32, RaceLog)>,
    formulas: bool,
) -> Vec<(u32, Entry)> {
    logs.into_iter()
        .map(|(driver, log)| (driver, points_entry(t, per_tier, &log, formulas)))
        .collect()
}

/// The log of driver `d` in `logs`, made on first sight (`slot`: d → index).
fn log_of<'a, L: Default>(logs: &'a mut Vec<(u32, L)>, slot: &mut [u32], d: u32) -> &'a mut L {
    let i = match slot.get(d as usize) {
        Some(&i) if i != u32::MAX => i as usize,
        _ => {
            if let Some(s) = slot.get_mut(d as usize) {
                *s = logs.len() as u32;
            }
            logs.push((d, L::default()));
            logs.len() - 1
        }
    };
    &mut logs[i].1
}

fn points_entry(
    t: &Tables,
    per_tier: &BTreeMap<i64, usize>,
    log: &RaceLog,
    formulas: bool,
) -> Entry {
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
    let formula = if formulas {
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
        format!(
            "100 * ({}) / ({possible} races * {}) [{}]",
            terms.join(" + "),
            math::table_points(&t.race_points, Some(1)),
            shown.join(", ")
        )
    } else {
        String::new()
    };
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
    cx.params.get::<Cfr>().counted_events
}

fn label(series: &str, event: &str) -> String {
    format!("{series}/{event}")
}

/// A counted event of a driver: (event, its series, score, finish).
type CountedAt = (u32, u32, Rational, Option<Finish>);

/// With the audit trail only: every driver's counted events for a window of
/// `n`, kept up to date as events are pushed.
#[derive(Debug, Clone, Default)]
struct Counting {
    n: usize,
    counted: BTreeMap<u32, Vec<CountedAt>>,
}

impl State {
    /// The series named `name`.
    fn series_named(&self, name: &str) -> Option<&Series> {
        self.by_name.get(name).map(|&i| &self.series[i as usize])
    }

    /// The event of `s` named `name`, if recorded.
    fn find_event(&self, s: &Series, name: &str) -> Option<&Ev> {
        let id = self.event_names.get(name)?;
        if s.event_ids.as_ref().is_some_and(|set| !set.contains(&id)) {
            return None;
        }
        let i = s.events.iter().find(|&&i| self.name_of(i) == id)?;
        Some(&self.events[*i as usize])
    }

    /// Event `ev`'s name, in [`State::event_names`]: its first stored number.
    fn name_of(&self, ev: u32) -> u32 {
        let off = self.events[ev as usize].off as usize;
        store::Reader::new(&self.data[off..]).u() as u32
    }

    /// The id of series `si`'s scoring tables under the parameters in force.
    fn tables_id(&mut self, si: usize, cx: &Cx) -> u32 {
        let stamp = cx.params.stamp();
        if let Some((st, id)) = self.series[si].tables {
            if st == stamp {
                return id;
            }
        }
        let t = Tables::of(&self.series[si].def, cx);
        let id = match self.table_ids.get(&t) {
            Some(&id) => id,
            None => {
                let id = self.tables.len() as u32;
                self.tables.push(t.clone());
                self.table_ids.insert(t, id);
                id
            }
        };
        self.series[si].tables = Some((stamp, id));
        id
    }

    /// Fold one completed event: store its results, then (with the audit trail)
    /// audit every driver whose ranking inputs changed (its drivers, and those
    /// of the event leaving the window).
    fn complete(&mut self, rec: &Record, e: &EventCompleted, cx: &mut Cx) {
        let Some(&si) = self.by_name.get(&e.series.0) else {
            return;
        };
        let si = si as usize;
        if self.find_event(&self.series[si], &e.event.0).is_some() {
            return;
        }
        let tables = self.tables_id(si, cx);
        let name = self.event_names.intern(&e.event.0);
        let off = self.data.len() as u64;
        let State {
            series,
            data,
            drivers,
            ..
        } = self;
        let s = &mut series[si];
        store::put(data, name.into());
        store::put(data, tables.into());
        let format = s.def.format;
        let heats = e.heats.iter().flatten().flatten();
        let finals = e.final_.iter().flatten();
        let raced = e.races.iter().flatten().flat_map(|r| &r.results);
        drivers.prefetch(heats.chain(finals).chain(raced).map(|p| p.driver.as_str()));
        let mut id = |d: &str| s.local(drivers.intern(d));
        match format {
            Format::Elimination => {
                let heats = e.heats.as_deref().unwrap_or_default();
                store::put(data, heats.len() as u64);
                for heat in heats {
                    store::put_list(data, heat, &mut id);
                }
                store::put_list(data, e.final_.as_deref().unwrap_or_default(), &mut id);
            }
            Format::Points => {
                let races = e.races.as_deref().unwrap_or_default();
                store::put(data, races.len() as u64);
                for r in races {
                    store::put(data, store::zigzag(r.tier));
                    store::put_list(data, &r.results, &mut id);
                }
            }
        }
        let idx = self.events.len() as u32;
        self.events.push(Ev {
            at: rec.at,
            seq: rec.seq,
            off,
        });
        if cx.auditing() {
            self.audit_push(rec, si, idx, cx);
        }
        let s = &self.series[si];
        if s.event_ids.is_none() && s.events.len() >= SMALL {
            let names = s.events.iter().map(|&i| self.name_of(i)).collect();
            self.series[si].event_ids = Some(Box::new(names));
        }
        let s = &mut self.series[si];
        s.events.push(idx);
        if let Some(set) = &mut s.event_ids {
            set.insert(name);
        }
    }

    /// Every driver's result at event `ev` (global driver ids, unordered),
    /// with formulas only when `formulas`.
    fn entries(&self, s: &Series, ev: u32, formulas: bool) -> Vec<(u32, Entry)> {
        let e = self.events[ev as usize];
        let end = self
            .events
            .get(ev as usize + 1)
            .map_or(self.data.len() as u64, |n| n.off);
        let mut r = store::Reader::new(&self.data[e.off as usize..end as usize]);
        r.u(); // the name
        let t = &self.tables[r.u() as usize];
        let mut slot = vec![u32::MAX; s.drivers.len()];
        let scored = match s.def.format {
            Format::Elimination => {
                let heats = r.u() as usize;
                let mut logs: Vec<(u32, HeatLog)> = Vec::new();
                for _ in 0..heats {
                    r.list(|d, p| log_of(&mut logs, &mut slot, d).heats.push(p));
                }
                r.list(|d, p| log_of(&mut logs, &mut slot, d).final_ = Some(p));
                score_elimination(t, heats, logs, formulas)
            }
            Format::Points => {
                let races = r.u() as usize;
                let mut per_tier: BTreeMap<i64, usize> = BTreeMap::new();
                let mut logs: Vec<(u32, RaceLog)> = Vec::new();
                for i in 0..races {
                    let tier = r.i();
                    *per_tier.entry(tier).or_default() += 1;
                    r.list(|d, p| {
                        let eff = place_opt(p).map(|p| math::tier_place(p, tier, t.tier_offset));
                        let log = log_of(&mut logs, &mut slot, d);
                        log.tiers.insert(tier);
                        log.results.push((i + 1, eff));
                    });
                }
                score_points(t, &per_tier, logs, formulas)
            }
        };
        scored
            .into_iter()
            .map(|(d, en)| (s.drivers[d as usize], en))
            .collect()
    }

    /// The event's label, `series/event`.
    fn label_of(&self, s: &Series, ev: u32) -> String {
        label(&s.def.series, self.event_names.name(self.name_of(ev)))
    }

    fn counted(&self, s: &Series, ev: u32, score: Rational, finish: Option<Finish>) -> Counted {
        let e = &self.events[ev as usize];
        Counted {
            label: self.label_of(s, ev),
            at: e.at,
            seq: e.seq,
            score,
            finish,
        }
    }

    /// The audit trail of pushing event `idx` (already stored, not yet in its
    /// series' list): a change for each driver of the new event and of the event
    /// leaving the window.
    fn audit_push(&mut self, rec: &Record, si: usize, idx: u32, cx: &mut Cx) {
        let n = counted_events(cx);
        if self.counting.as_ref().is_none_or(|c| c.n != n) {
            self.counting = Some(Box::new(self.count_all(n)));
        }
        let s = &self.series[si];
        let leaving = s
            .events
            .len()
            .checked_sub(n)
            .filter(|_| n > 0)
            .map(|i| s.events[i]);
        // Formulas cost text for every driver of the event: `history` of one
        // player asks for them only when that player drove in it.
        let all = cx.audit_subject().is_none();
        let mut new_entries = self.entries(s, idx, all);
        let left: Vec<u32> = leaving.map_or(Vec::new(), |l| {
            self.entries(s, l, false)
                .into_iter()
                .map(|(d, _)| d)
                .collect()
        });
        let mut affected: BTreeMap<&str, u32> = BTreeMap::new();
        for &(d, _) in &new_entries {
            affected.insert(self.drivers.name(d), d);
        }
        for &d in &left {
            affected.insert(self.drivers.name(d), d);
        }
        // Only the drivers whose changes the audit keeps (`history` of one player).
        affected.retain(|name, _| cx.audits(name));
        let drove = |d: &u32| new_entries.iter().any(|(g, _)| g == d);
        if !all && affected.values().any(drove) {
            new_entries = self.entries(s, idx, true);
        }
        let f = Factors::of(cx);
        let Some(mut counting) = self.counting.take() else {
            return;
        };
        let before: Vec<Option<Line>> = affected
            .values()
            .map(|&d| self.line_of(&counting, d, &f))
            .collect();
        if let Some(l) = leaving {
            for &d in &left {
                if let Some(v) = counting.counted.get_mut(&d) {
                    v.retain(|&(ev, ..)| ev != l);
                }
            }
        }
        if n > 0 {
            for (d, en) in &new_entries {
                let v = counting.counted.entry(*d).or_default();
                v.push((idx, si as u32, en.score, en.finish));
            }
        }
        let after: Vec<Option<Line>> = affected
            .values()
            .map(|&d| self.line_of(&counting, d, &f))
            .collect();
        let series = self.series[si].def.series.clone();
        let s = &self.series[si];
        let new_label = self.label_of(s, idx);
        let left_label = leaving.map(|l| self.label_of(s, l));
        let d = f.decimals;
        let mut changes = Vec::new();
        for ((&name, &driver), (before, after)) in affected.iter().zip(before.iter().zip(&after)) {
            let scored = new_entries
                .iter()
                .find(|(g, _)| *g == driver)
                .map(|(_, en)| format!("{new_label} {} = {}", num(en.score), en.formula));
            let gone = left_label
                .as_ref()
                .filter(|_| left.contains(&driver))
                .map(|l| format!("{l} left the window (last {n} {series} events)"));
            let old = before.as_ref().map(|l| decimal_string(l.score, d));
            let (new, total) = match after {
                Some(l) => {
                    let new = decimal_string(l.score, d);
                    let total = format!("score {new} = {}", l.formula());
                    (new, total)
                }
                None => ("unranked".to_string(), "no counted event".to_string()),
            };
            let parts: Vec<String> = scored.into_iter().chain(gone).chain([total]).collect();
            changes.push(Change {
                seq: rec.seq,
                at: rec.at,
                system: SYS.into(),
                subject: name.to_string(),
                old,
                new,
                formula: parts.join("; "),
            });
        }
        self.counting = Some(counting);
        for c in changes {
            let subject = c.subject.clone();
            cx.audit(&subject, || c);
        }
    }

    /// Driver `d`'s ranking line from `c`.
    fn line_of(&self, c: &Counting, d: u32, f: &Factors) -> Option<Line> {
        let events = c.counted.get(&d).map_or(Vec::new(), |v| {
            v.iter()
                .map(|&(ev, si, score, finish)| {
                    self.counted(&self.series[si as usize], ev, score, finish)
                })
                .collect()
        });
        make_line(events, f)
    }

    /// Every driver's counted events for a window of `n`.
    fn count_all(&self, n: usize) -> Counting {
        let mut c = Counting {
            n,
            counted: BTreeMap::new(),
        };
        for (si, s) in self.series.iter().enumerate() {
            for &ev in &s.events[s.events.len().saturating_sub(n)..] {
                for (d, en) in self.entries(s, ev, false) {
                    let v = c.counted.entry(d).or_default();
                    v.push((ev, si as u32, en.score, en.finish));
                }
            }
        }
        c
    }

    /// Ranking lines of every driver with a counted event (or only of `only`).
    fn lines(&self, only: Option<&BTreeSet<String>>, cx: &Cx) -> BTreeMap<String, Line> {
        let n = counted_events(cx);
        let mut per_driver: BTreeMap<&str, Vec<Counted>> = BTreeMap::new();
        for &si in self.by_name.values() {
            let s = &self.series[si as usize];
            for &ev in &s.events[s.events.len().saturating_sub(n)..] {
                for (d, en) in self.entries(s, ev, false) {
                    let driver = self.drivers.name(d);
                    if only.is_some_and(|o| !o.contains(driver)) {
                        continue;
                    }
                    let c = self.counted(s, ev, en.score, en.finish);
                    per_driver.entry(driver).or_default().push(c);
                }
            }
        }
        let f = Factors::of(cx);
        per_driver
            .into_iter()
            .filter_map(|(driver, events)| Some((driver.to_string(), make_line(events, &f)?)))
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
        // score, then more events, then best event, then name
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
                num(cx.params.get::<Cfr>().one_event_factor.value()),
                num(cx.params.get::<Cfr>().two_event_factor.value()),
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
        let mut all: Vec<(&Series, &Ev, u32, bool)> = Vec::new();
        for &si in self.by_name.values() {
            let s = &self.series[si as usize];
            let first_counted = s.events.len().saturating_sub(n);
            for (i, &ev) in s.events.iter().enumerate() {
                all.push((s, &self.events[ev as usize], ev, i >= first_counted));
            }
        }
        all.sort_by_key(|(s, ev, _, _)| (ev.at, ev.seq, &s.def.series));
        for (s, ev, idx, counted) in all {
            let name = &s.def.series;
            let mut drivers: Vec<(&str, Entry)> = self
                .entries(s, idx, true)
                .into_iter()
                .map(|(g, en)| (self.drivers.name(g), en))
                .collect();
            drivers.sort_by(|a, b| b.1.score.cmp(&a.1.score).then(a.0.cmp(b.0)));
            let event = self.event_names.name(self.name_of(idx));
            for (driver, en) in drivers {
                t.push(vec![
                    json!(name),
                    json!(event),
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
        for (name, &si) in &self.by_name {
            let s = &self.series[si as usize];
            let window: Vec<&str> = s.events[s.events.len().saturating_sub(n)..]
                .iter()
                .map(|&e| self.event_names.name(self.name_of(e)))
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

/// The ranking parameters in force, read once per table or audited event.
struct Factors {
    one: Rational,
    two: Rational,
    decimals: u32,
}

impl Factors {
    fn of(cx: &Cx) -> Self {
        let p = cx.params.get::<Cfr>();
        Factors {
            one: p.one_event_factor.value(),
            two: p.two_event_factor.value(),
            decimals: p.decimals,
        }
    }
}

/// A driver's ranking line from their counted events; `None` without any.
fn make_line(mut events: Vec<Counted>, f: &Factors) -> Option<Line> {
    events.sort_by_key(|c| (c.at, c.seq));
    let scores: Vec<Rational> = events.iter().map(|c| c.score).collect();
    let (mean, factor, score) = math::driver_score(&scores, f.one, f.two)?;
    let best = scores.iter().copied().max()?;
    let finish = events.iter().fold(None, |b, c| best_finish(b, c.finish));
    Some(Line {
        events,
        mean,
        factor,
        score: math::round_to(score, f.decimals),
        best,
        finish,
    })
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

    impl State {
        /// The event names of series `s`, in fold order.
        fn event_names(&self, s: &str) -> Vec<&str> {
            let s = self.series_named(s).expect("series");
            let names = s.events.iter().map(|&e| self.name_of(e));
            names.map(|n| self.event_names.name(n)).collect()
        }

        /// Every driver's result at the `i`th event of series `s`, by name.
        fn drivers_at(&self, s: &str, i: usize) -> BTreeMap<String, Entry> {
            let s = self.series_named(s).expect("series");
            let all = self.entries(s, s.events[i], true).into_iter();
            all.map(|(d, en)| (self.drivers.name(d).to_string(), en))
                .collect()
        }
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
        let names: Vec<&str> = f.state.cfr.event_names("s");
        assert_eq!(names, ["old", "b", "c", "d"]);
    }

    #[test]
    fn a_zero_table_from_a_rules_change_scores_zero_without_panicking() {
        let log = vec![
            SERIES.to_string(),
            r#"{"type":"ledger.rules_changed","at":"2013-01-15","system":"cfr","params":{"race_points":[0],"counted_events":1}}"#.to_string(),
            race("1", "2013-02-01", &[("Amy", 1)]),
        ];
        let f = folded(&log, true);
        let ev = f.state.cfr.drivers_at("s", 0);
        assert_eq!(ev["Amy"].score, Rational::zero());
        let r = f
            .state
            .cfr
            .standings("cfr", &Selector::default(), &f.cx)
            .unwrap();
        assert_eq!(r.main.rows.len(), 1);
    }

    #[test]
    fn empty_tables_and_an_empty_window_are_refused() {
        for params in [r#"{"race_points":[]}"#, r#"{"counted_events":0}"#] {
            let log = [
                SERIES.to_string(),
                format!(
                    r#"{{"type":"ledger.rules_changed","at":"2013-01-15","system":"cfr","params":{params}}}"#
                ),
            ];
            let src = MemSource::from_jsonl(&log.join("\n")).expect("parses");
            let q = Query {
                check: true,
                ..Query::default()
            };
            let e = fold(&src, &q).unwrap_err().to_string();
            assert!(e.contains("is out of range; allowed:"), "{e}");
        }
    }

    #[test]
    fn a_series_table_overrides_the_parameters_and_decay_is_read_from_it() {
        let log = vec![
            r#"{"type":"cfr.series_defined","at":"2013-01-01","series":"e","format":"elimination","final_points":[10],"heat_points":[10],"heat_decay":"1"}"#.to_string(),
            r#"{"type":"cfr.event_completed","at":"2013-02-01","series":"e","event":"1","heats":[[{"driver":"A","place":1}],[{"driver":"A","place":1}]],"final":[{"driver":"A","place":"dnf"}]}"#.to_string(),
        ];
        let f = folded(&log, false);
        let a = &f.state.cfr.drivers_at("e", 0)["A"];
        // perfect 10 + 10 + 10*1 = 30; A: two heat wins at full weight = 20
        assert_eq!((a.points, a.perfect), (ratio(20, 1), ratio(30, 1)));
        assert_eq!(a.score, ratio(6667, 100));
        assert_eq!(a.finish.map(Finish::text).as_deref(), Some("1st heat"));
    }
}
