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
//! # Ranges
//! Checked at append, naming the field and the values allowed ([`events`]
//! defines each): a points table (`final_points`, `heat_points`, `race_points`)
//! has 1 to 100 places of 0 to 1,000,000 points, as the parameters do;
//! `tier_offset` 0 to 1,000; `heat_decay` a decimal from 0 to 1 with at most 6
//! places, spelt as a decimal parameter is (`"0.5"`, not `"00.5"`, `"+0.5"` or
//! `" 0.5"`: binding new input only, a stored one reads as accepted); an elimination event runs 1 to 100 heats; `tier` 1 to 1,000; `place`
//! 1 to 10,000 ([`events::PLACE`]), gaps allowed. Event scores lie from 0 to 100 for
//! tables that never rise with place.
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
//! - Places of a heat, final or race never repeat (two drivers on one place are
//!   refused) but may skip: a historic result may list only its top finishers, or a
//!   driver "finishing 7th" whose six betters are not tracked. Any number of drivers may
//!   be dnf.
//!
//! Each `cfr.event_completed` is scored when it is folded, with the parameters in force
//! at its `at` (a series' own tables win over the parameters). The ranking is computed at
//! query time from the last `counted_events` events of each series in fold order, i.e.
//! by `(at, seq)`; because the fold engine drops everything after `--as-of`, the window
//! moves back with it: the state never stores a window, only each series' events.
//!
//! # Decisions
//! - **A gap in the places** changes nothing in the scoring: the seed's formula reads a
//!   driver's points off the table by the place given, so a 5th listed after a 1st and
//!   a 2nd earns `final_points[4]` (20) or `race_points[4]`, a 7th in a heat earns
//!   nothing (heat points stop at 4th), and the perfect score does not depend on who
//!   else is listed. Turyko Suky's WBC PBeM entered with only the top finishers known
//!   (heat 2: 1st, 2nd and his 7th; final: 1st, 2nd and his 5th) still scores
//!   `(50 + 0.5 * 0 + 20) / 175` → 40.
//! - **Event scores are rounded** to `decimals` (2) places when scored, and the ranking
//!   score is the mean of those rounded scores, as the published rankings do by hand
//!   (80, 16, 0, 0, 31.88 → 25.58): whoever redoes the sum from `laurel history` gets
//!   exactly the printed number. A factor multiplies that mean, and the product is
//!   rounded once: one event of 58.67 ranks 29.34 (58.67 × 0.5 = 29.335), not the
//!   29.33 half of the unrounded 58.667 would give.
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
//! - **An event is entered once**: an event whose results (every heat, final and race,
//!   driver for driver, place for place) are those of an event of its series at the same
//!   `at` is that event entered again under another name, which would count twice and
//!   push an older event out of the window: refused, naming the first (a rule of input:
//!   events stored before are read as accepted). Another event that ended the same way
//!   gives its `at` to the minute.
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
pub mod events;
pub(crate) mod gen;
pub mod math;
pub mod params;
mod report;
mod score;
mod store;
mod system;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::systems::cfr::events::{self as ev, EventCompleted, Format, SeriesDefined};

use crate::systems::{Event, Record};
use crate::time::Micros;

use super::{Change, Cx, Projection, Selector};
use report::Counting;
use score::Tables;

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["cfr"];

const SYS: &str = "cfr";

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
    /// A stamp is this process's ([`crate::systems::params::Params::stamp`]),
    /// which another's may equal for other rules: a checkpoint stores none,
    /// and whatever one holds there is forgotten when read back.
    #[serde(serialize_with = "no_stamp", deserialize_with = "forget_stamp")]
    tables: Option<(u64, u32)>,
}

impl Series {
    /// The series' number for driver `g`, if it has one.
    fn local_of(&self, g: u32) -> Option<u32> {
        match &self.driver_ids {
            Some(m) => m.get(&g).copied(),
            None => self.drivers.iter().position(|&x| x == g).map(|i| i as u32),
        }
    }

    /// The series' number for driver `g`, numbering a new one.
    fn local(&mut self, g: u32) -> u32 {
        if let Some(l) = self.local_of(g) {
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
    /// With the audit trail only: every driver's counted events, kept current
    /// for the one subject of a one-subject audit (not serialized: a
    /// checkpoint is a plain fold's state).
    #[serde(skip)]
    counting: Option<Box<Counting>>,
}

/// A series' cached tables as a checkpoint stores them: none.
fn no_stamp<S: serde::Serializer>(_: &Option<(u64, u32)>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_none()
}

/// A series' cached tables as a checkpoint is read back: none, whatever it
/// stored.
fn forget_stamp<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<(u64, u32)>, D::Error> {
    <Option<(u64, u32)> as serde::Deserialize>::deserialize(d).map(|_| None)
}

impl State {
    /// The checkpoint section: its bincode (varint).
    pub fn checkpoint_bytes(&self) -> bincode::Result<Vec<u8>> {
        use bincode::Options;
        bincode::DefaultOptions::new().serialize(self)
    }
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        match &rec.event {
            Event::Cfr(ev::Event::SeriesDefined(d)) => check::series_defined(self, d),
            Event::Cfr(ev::Event::EventCompleted(e)) => {
                check::event_completed(self, e, (rec.seq, rec.at), cx)
            }
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

/// The results an event of `format` stores (as [`put_results`] writes
/// them) as what they say: each heat, final or race (with its tier) as its
/// (place, driver) pairs sorted, `dnf` first; the heats sorted, the final
/// last; the races sorted. The same results however their drivers, heats
/// or races were listed: the scores read neither order (a driver's best
/// heat counts first, a perfect score is a win in every race of a tier).
fn results_key(bytes: &[u8], format: Format) -> Vec<(i64, Vec<(u32, u32)>)> {
    let mut r = store::Reader::new(bytes);
    let list = |r: &mut store::Reader, tier: i64| {
        let mut pairs = Vec::new();
        r.list(|d, p| {
            let place = match p {
                crate::events::Place::Dnf => 0,
                crate::events::Place::At(n) => n.saturating_add(1),
            };
            pairs.push((place, d));
        });
        pairs.sort_unstable();
        (tier, pairs)
    };
    let mut lists: Vec<_> = match format {
        Format::Elimination => (0..r.count()).map(|_| list(&mut r, 0)).collect(),
        Format::Points => (0..r.count())
            .map(|_| {
                let tier = r.i();
                list(&mut r, tier)
            })
            .collect(),
    };
    lists.sort_unstable();
    if format == Format::Elimination {
        // The final, after the heats: tier -1 sorts it apart from them.
        lists.push(list(&mut r, -1));
    }
    lists
}

/// Write `e`'s results as an event of `format` stores them (after its name
/// and tables id), `id` numbering its drivers.
fn put_results(
    data: &mut Vec<u8>,
    format: Format,
    e: &EventCompleted,
    id: &mut impl FnMut(&str) -> u32,
) {
    match format {
        Format::Elimination => {
            let heats = e.heats.as_deref().unwrap_or_default();
            store::put(data, heats.len() as u64);
            for heat in heats {
                store::put_list(data, heat, id);
            }
            store::put_list(data, e.final_.as_deref().unwrap_or_default(), id);
        }
        Format::Points => {
            let races = e.races.as_deref().unwrap_or_default();
            store::put(data, races.len() as u64);
            for r in races {
                store::put(data, store::zigzag(r.tier));
                store::put_list(data, &r.results, id);
            }
        }
    }
}

impl SeriesDef {
    /// Whether the series sets table parameter `param` itself.
    fn sets(&self, param: &str) -> bool {
        match param {
            "final_points" => self.final_points.is_some(),
            "heat_points" => self.heat_points.is_some(),
            "heat_decay" => self.heat_decay.is_some(),
            "race_points" => self.race_points.is_some(),
            "tier_offset" => self.tier_offset.is_some(),
            _ => false,
        }
    }
}

/// The parameters a series may set for itself, its tables: each applies to
/// one format ([`format_of_table`]).
const TABLE_PARAMS: [&str; 5] = [
    "final_points",
    "heat_points",
    "heat_decay",
    "race_points",
    "tier_offset",
];

/// The format of the series whose table parameter `param` is, if it is one.
fn format_of_table(param: &str) -> Option<Format> {
    match param {
        "final_points" | "heat_points" | "heat_decay" => Some(Format::Elimination),
        "race_points" | "tier_offset" => Some(Format::Points),
        _ => None,
    }
}

impl State {
    /// Why table parameter `param` changes no event's score: every series
    /// of its format sets its own (one at least), if so.
    fn overridden(&self, param: &str) -> Option<String> {
        let format = format_of_table(param)?;
        let of_format: Vec<&Series> = (self.series.iter())
            .filter(|s| s.def.format == format)
            .collect();
        if of_format.is_empty() || !of_format.iter().all(|s| s.def.sets(param)) {
            return None;
        }
        let names: Vec<String> = (of_format.iter().take(3))
            .map(|s| format!("{:?}", s.def.series))
            .collect();
        let more = match of_format.len() - names.len() {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        Some(format!(
            "every {} series sets its own {param} ({}{more}), so it reaches only a series \
             defined later without one (a series' own table is changed by correcting its \
             cfr.series_defined)",
            check::format_name(format),
            names.join(", ")
        ))
    }

    /// The event (its index in [`State::events`]) of series `s` folded at
    /// `at` (in fold order, so among the last of the series) whose results
    /// are `e`'s, if one is: `e` entered
    /// again under another name. `None` too when a driver of `e` never drove
    /// in the series.
    fn same_results(&self, s: &Series, at: Micros, e: &EventCompleted) -> Option<u32> {
        let then = s.events.iter().rev();
        let then: Vec<u32> = then
            .take_while(|&&i| self.events[i as usize].at >= at)
            .copied()
            .collect();
        if then.is_empty() {
            return None;
        }
        let mut known = true;
        let mut mine = Vec::new();
        put_results(&mut mine, s.def.format, e, &mut |d: &str| {
            let local = self.drivers.get(d).and_then(|g| s.local_of(g));
            known &= local.is_some();
            local.unwrap_or(u32::MAX)
        });
        if !known {
            return None;
        }
        let mine = results_key(&mine, s.def.format);
        (then.into_iter()).find(|&i| results_key(self.results_bytes(i), s.def.format) == mine)
    }

    /// Event `ev`'s stored results: its bytes after its name and tables id.
    fn results_bytes(&self, ev: u32) -> &[u8] {
        let i = ev as usize;
        let end = (self.events.get(i + 1)).map_or(self.data.len(), |n| n.off as usize);
        let bytes = &self.data[self.events[i].off as usize..end];
        let mut r = crate::codec::Reader::new(bytes);
        let (_name, _tables) = (r.u(), r.u());
        r.rest()
    }

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
        put_results(data, format, e, &mut |d: &str| s.local(drivers.intern(d)));
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
}

#[cfg(test)]
mod tests;
