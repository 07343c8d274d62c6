//! Scoring one CFR event: each driver's points, perfect score, event score,
//! best finish and (when asked) the formula behind them, computed from the
//! results stored in [`State::data`](super::State) with the scoring tables in
//! force when the event was folded.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::events::Format;
use crate::events::Place;
use crate::num::{decimal_trimmed, parse_decimal, Rational};
use crate::systems::table::ordinal;

use super::params::Cfr;
use super::{math, store, Cx, Series, SeriesDef, State};

/// Where a driver finished: the kind of race, in order of preference at equal place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
enum Stage {
    Final,
    Race,
    Heat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Finish {
    stage: Stage,
    place: u32,
}

impl Finish {
    /// Smaller is better: any final or race before a heat, then place, then stage.
    fn key(self) -> (bool, u32, Stage) {
        (self.stage == Stage::Heat, self.place, self.stage)
    }

    pub(super) fn text(self) -> String {
        let stage = match self.stage {
            Stage::Final => "final",
            Stage::Race => "race",
            Stage::Heat => "heat",
        };
        format!("{} {stage}", ordinal(self.place.into()))
    }
}

pub(super) fn best_finish(a: Option<Finish>, b: Option<Finish>) -> Option<Finish> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.key() < x.key() { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// One driver's result at one event, computed from the stored results when asked.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// `100 * points / perfect`, rounded to `decimals`, in [`math::UNIT`]s.
    pub(super) units: i128,
    pub(super) finish: Option<Finish>,
    /// Points, perfect and formula: only when asked for.
    pub(super) detail: Option<Detail>,
}

/// What an event score is made of, for the events table and the audit trail.
#[derive(Debug, Clone)]
pub(super) struct Detail {
    pub(super) points: Rational,
    pub(super) perfect: Rational,
    /// The sum behind the score, e.g. `100 * (heats 50 + final 100 [1st]) / 187.5`.
    pub(super) formula: String,
}

impl Entry {
    /// The event score as an exact rational.
    pub(super) fn score(&self) -> Rational {
        math::from_units(self.units)
    }

    /// The formula behind the score (empty unless asked for).
    pub(super) fn formula(&self) -> &str {
        self.detail.as_ref().map_or("", |d| d.formula.as_str())
    }
}

/// The scoring tables of a series at one moment: its own, else the parameters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(super) struct Tables {
    final_points: Vec<i64>,
    heat_points: Vec<i64>,
    decay: Rational,
    race_points: Vec<i64>,
    tier_offset: i64,
    decimals: u32,
}

impl Tables {
    pub(super) fn of(def: &SeriesDef, cx: &Cx) -> Tables {
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

pub(super) fn decimals(cx: &Cx) -> u32 {
    cx.params.get::<Cfr>().decimals
}

/// Exact decimal text without trailing zeros (`187.5`, `80`), for formulas.
pub(super) fn num(r: Rational) -> String {
    decimal_trimmed(r, 6)
}

fn place_text(p: Place) -> String {
    match p {
        Place::At(n) => ordinal(n.into()),
        Place::Dnf => "dnf".into(),
    }
}

/// One driver's results at an elimination event.
#[derive(Debug, Default)]
struct HeatLog {
    heats: Vec<Place>,
    /// `None`: did not reach the final.
    final_: Option<Place>,
}

/// A driver's entry at an elimination event that ran `n_heats` heats, with
/// its points, perfect and formula when `formulas`.
fn elimination_entry(t: &Tables, log: &HeatLog, n_heats: usize, formulas: bool) -> Entry {
    let heat_places: Vec<Option<u32>> = log.heats.iter().map(|&p| p.at()).collect();
    let fin = log.final_.map(Place::at);
    let (fp, hp) = (&t.final_points, &t.heat_points);
    let e = math::Elimination::new((fp, hp), t.decay, &heat_places, fin, n_heats);
    let units = e.units(t.decimals);
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
    let detail = formulas.then(|| {
        let (points, perfect) = e.shown();
        let final_term = log.final_.map_or(String::new(), |p| {
            let pts = math::table_points(fp, p.at());
            format!(" + final {pts} {}", place_text(p))
        });
        let heats = match n_heats {
            1 => "1 heat".to_string(),
            n => format!("{n} heats"),
        };
        let formula = format!(
            "100 * ({}{final_term}) / {} (perfect: final win + heat win over {heats})",
            heat_terms(t, &log.heats),
            num(perfect),
        );
        Detail {
            points,
            perfect,
            formula,
        }
    });
    Entry {
        units,
        finish,
        detail,
    }
}

/// `heats 50 + 30*0.5 [1st, 2nd, dnf]`: decayed heat points, best first.
fn heat_terms(t: &Tables, places: &[Place]) -> String {
    let mut pts: Vec<i128> = places
        .iter()
        .map(|&p| math::table_points(&t.heat_points, p.at()))
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
    let points: i128 = pts.iter().sum();
    let win = math::table_points(&t.race_points, Some(1));
    let perfect = win * possible as i128;
    let finish = log.results.iter().filter_map(|&(_, p)| p).min();
    let detail = formulas.then(|| {
        let shown: Vec<String> = log
            .results
            .iter()
            .map(|&(n, p)| format!("race {n} {}", p.map_or("dnf".into(), |n| ordinal(n.into()))))
            .collect();
        let terms: Vec<String> = pts.iter().map(i128::to_string).collect();
        let formula = format!(
            "100 * ({}) / ({possible} races * {win}) [{}]",
            terms.join(" + "),
            shown.join(", ")
        );
        Detail {
            points: Rational::from_integer(points),
            perfect: Rational::from_integer(perfect),
            formula,
        }
    });
    Entry {
        units: math::points_units(points, perfect, t.decimals),
        finish: finish.map(|place| Finish {
            stage: Stage::Race,
            place,
        }),
        detail,
    }
}

impl State {
    /// Event `ev`'s stored results.
    fn reader(&self, ev: u32) -> store::Reader<'_> {
        let e = self.events[ev as usize];
        let end = self
            .events
            .get(ev as usize + 1)
            .map_or(self.data.len() as u64, |n| n.off);
        store::Reader::new(&self.data[e.off as usize..end as usize])
    }

    /// `f(local driver id)` for each result at event `ev` (a driver may come
    /// more than once: a heat and the final), without scoring.
    fn each_driver(&self, s: &Series, ev: u32, mut f: impl FnMut(u32)) {
        let mut r = self.reader(ev);
        r.u(); // the name
        r.u(); // the table
        let mut one = |d: u32, _| f(d);
        match s.def.format {
            Format::Elimination => {
                // The heats, then the final.
                for _ in 0..=r.count() {
                    r.list(&mut one);
                }
            }
            Format::Points => {
                for _ in 0..r.count() {
                    r.i(); // the tier
                    r.list(&mut one);
                }
            }
        }
    }

    /// How many drivers have a result at event `ev` (the rows
    /// [`State::entries`] gives), without scoring them.
    pub(super) fn driver_count(&self, s: &Series, ev: u32) -> usize {
        let mut seen = vec![false; s.drivers.len()];
        let mut n = 0;
        self.each_driver(s, ev, |d| {
            if let Some(seen) = seen.get_mut(d as usize).filter(|s| !**s) {
                *seen = true;
                n += 1;
            }
        });
        n
    }

    /// Did driver `g` (global id) drive at event `ev`?
    pub(super) fn drove(&self, s: &Series, ev: u32, g: u32) -> bool {
        let mut found = false;
        self.each_driver(s, ev, |d| found |= s.drivers.get(d as usize) == Some(&g));
        found
    }

    /// Every driver's result at event `ev` (global driver ids, unordered),
    /// with formulas only when `formulas`.
    pub(super) fn entries(&self, s: &Series, ev: u32, formulas: bool) -> Vec<(u32, Entry)> {
        let mut r = self.reader(ev);
        r.u(); // the name
        let t = &self.tables[r.u() as usize];
        let mut slot = vec![u32::MAX; s.drivers.len()];
        let scored: Vec<(u32, Entry)> = match s.def.format {
            Format::Elimination => {
                let heats = r.count();
                let mut logs: Vec<(u32, HeatLog)> = Vec::new();
                for _ in 0..heats {
                    r.list(|d, p| log_of(&mut logs, &mut slot, d).heats.push(p));
                }
                r.list(|d, p| log_of(&mut logs, &mut slot, d).final_ = Some(p));
                (logs.into_iter())
                    .map(|(d, log)| (d, elimination_entry(t, &log, heats, formulas)))
                    .collect()
            }
            Format::Points => {
                let races = r.count();
                let mut per_tier: BTreeMap<i64, usize> = BTreeMap::new();
                let mut logs: Vec<(u32, RaceLog)> = Vec::new();
                for i in 0..races {
                    let tier = r.i();
                    *per_tier.entry(tier).or_default() += 1;
                    r.list(|d, p| {
                        let eff = p.at().map(|p| math::tier_place(p, tier, t.tier_offset));
                        let log = log_of(&mut logs, &mut slot, d);
                        log.tiers.insert(tier);
                        log.results.push((i + 1, eff));
                    });
                }
                (logs.into_iter())
                    .map(|(d, log)| (d, points_entry(t, &per_tier, &log, formulas)))
                    .collect()
            }
        };
        scored
            .into_iter()
            .map(|(d, en)| (s.drivers[d as usize], en))
            .collect()
    }
}
