//! `laurel gen`: a deterministic, realistic, valid synthetic event stream.
//!
//! The stream mixes the five systems the way a long-lived community ledger would:
//! many players, Middle-earth PBM games (with takeovers, neutrals joining sides,
//! ballots within 14 days, grudge games between registered teams, one monthly tick
//! per month), CFR series, card-game tournaments, Diplomacy games and Space Base
//! Race tournaments, each following its system's rules so that the whole stream
//! appends cleanly into a fresh ledger.
//!
//! How it works: every *activity* (one game, tournament or series) is planned in
//! full when it starts, as a short list of `(at, event)` pairs; a heap merges the
//! activities by `at`, and each activity's slot starts a new one when its last
//! event is written. Memory is bounded by the number of concurrent activities,
//! never by `--events`. About 1% of results are held back and written a little
//! later than events with a later `at` ("late results"); their `at` is unchanged,
//! so they take their place in the `(at, seq)` fold order.
//!
//! Determinism: one splitmix64 generator seeded by `--seed`; no clocks, no hash
//! maps. The same `(events, seed, systems)` always prints the same bytes.
//!
//! Names: players are `p` and members of grudge teams `m`, each with a
//! five-digit number and a check letter ([`name`]), so no two names are one
//! edit apart and an append's near-duplicate check (`crate::players`)
//! accepts every one of them.
//!
//! Layout: this file holds the generator's shared parts (the PRNG, options, the
//! world of players and teams) and the driver [`generate`]; each system's activity
//! planner is an `impl World` block in its folder (`src/systems/<ns>/gen.rs`). It
//! sits with the systems, whose events it plans: the planners use its toolkit and
//! it calls them, inside one layer.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use serde_json::Value;

use crate::systems::mepbm::gen::{next_month, tick};

/// A small, fast, deterministic PRNG (splitmix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5851_F42D_4C95_7F2D)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n.max(1))) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1).max(1) as u64) as i64
    }

    /// True with probability `percent / 1000`.
    pub fn permille(&mut self, p: u64) -> bool {
        self.below(1000) < p
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

/// The five systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum System {
    Mepbm,
    Cfr,
    Cards,
    Diplomacy,
    Sbr,
}

impl System {
    pub const ALL: [System; 5] = [
        System::Mepbm,
        System::Cfr,
        System::Cards,
        System::Diplomacy,
        System::Sbr,
    ];

    pub fn parse(s: &str) -> Option<System> {
        Some(match s {
            "mepbm" => System::Mepbm,
            "cfr" => System::Cfr,
            "cards" => System::Cards,
            "diplomacy" => System::Diplomacy,
            "sbr" => System::Sbr,
            _ => return None,
        })
    }

    /// Share of the stream, mean events per activity, mean duration in days.
    fn shape(self) -> (f64, f64, f64) {
        match self {
            System::Mepbm => (0.50, 38.0, 330.0),
            System::Cfr => (0.05, 21.0, 280.0),
            System::Cards => (0.22, 30.0, 40.0),
            System::Diplomacy => (0.08, 1.0, 0.0),
            System::Sbr => (0.15, 32.0, 3.0),
        }
    }
}

/// The most events a stream may have. The activities running at once grow
/// with the stream (its span is capped at 9,000 days), and each is planned
/// ahead, so memory grows with the stream: far more would hold gigabytes
/// before the first line is written.
pub const MAX_EVENTS: u64 = 10_000_000;

/// What to generate.
#[derive(Debug, Clone)]
pub struct Options {
    pub events: u64,
    pub seed: u64,
    pub systems: Vec<System>,
}

pub(crate) const DAY: i64 = 86_400;
pub(crate) const HOUR: i64 = 3_600;
/// 2000-01-01T00:00:00Z: where a stream starts, unless it is long.
const START: i64 = 946_684_800;
/// 2024-01-01T00:00:00Z: every stream ends before it.
const END_BY: i64 = 1_704_067_200;

/// The days a stream of `n` events is planned over: about one per 110
/// events, from 2 to about 25 years.
fn span_days(n: u64) -> f64 {
    (n as f64 / 110.0).clamp(730.0, 9_000.0)
}

/// Where a stream of `n` events starts: 2000-01-01, or the first of a year
/// as much earlier as a long stream needs to end before 2024 (the
/// activities running at its end stretch its planned span by up to about
/// 30%; a million events start in 1991): an append refuses an event dated
/// after the time it is recorded, so a generated stream must lie in the
/// past. The first of a year, as the monthly tick expects: it ticks the
/// month before its `at`.
pub(crate) fn start_of(n: u64) -> i64 {
    use chrono::Datelike;
    let latest = END_BY - (1.3 * span_days(n)) as i64 * DAY;
    let year = chrono::DateTime::from_timestamp(latest, 0).map_or(2000, |d| d.year());
    let first = chrono::NaiveDate::from_ymd_opt(year, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map_or(START, |d| d.and_utc().timestamp());
    START.min(first)
}

/// `YYYY-MM-DDTHH:MM:SSZ` (or a plain date at midnight) of `secs` since 1970.
pub fn stamp(secs: i64) -> String {
    crate::time::format_short(secs * 1_000_000)
}

/// One planned event.
pub(crate) struct Planned {
    pub(crate) at: i64,
    pub(crate) json: String,
    /// A result that may be written late.
    pub(crate) result: bool,
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Queued {
    json: String,
    /// The slot to restart when this, the activity's last event, is written.
    respawn: Option<usize>,
    result: bool,
}

struct Slot {
    system: System,
    /// Days between the end of one activity and the start of the next.
    gap: f64,
}

pub(crate) struct Team {
    pub(crate) name: String,
    pub(crate) coordinator: String,
    pub(crate) members: Vec<String>,
    /// The members at registration (the roster rule counts these).
    pub(crate) original: Vec<String>,
    /// The team may play or change its roster after this time.
    pub(crate) free_at: i64,
}

/// A generated name: `prefix` (`p` or `m`), `n` in five digits or more, and
/// a check letter, `a` to `k`: the digits' sum plus their count plus 3 for
/// `m`, modulo 11. Any one edit of a name changes that sum by 1 to 10 (a
/// digit replaced: by 1 to 9; `p` for `m`: by 3; a digit inserted or
/// deleted: by the digit plus 1), never by a multiple of 11, so the check
/// letter would have to change too: no two names are one edit apart.
pub(crate) fn name(prefix: char, n: u64) -> String {
    let digits = format!("{n:05}");
    let sum: u64 = digits.bytes().map(|b| u64::from(b - b'0')).sum();
    let code = sum + digits.len() as u64 + if prefix == 'm' { 3 } else { 0 };
    format!("{prefix}{digits}{}", char::from(b'a' + (code % 11) as u8))
}

/// The generator's world: players, teams and counters shared by activities.
pub(crate) struct World {
    pub(crate) rng: Rng,
    pub(crate) players: u64,
    pub(crate) teams: Vec<Team>,
    pub(crate) next_member: u64,
    pub(crate) counters: [u64; 5],
    /// The stream's first instant ([`start_of`]).
    pub(crate) start: i64,
}

impl World {
    pub(crate) fn player(&mut self) -> String {
        name('p', self.rng.below(self.players))
    }

    /// `k` distinct players not in `taken`.
    pub(crate) fn distinct(&mut self, k: usize, taken: &mut Vec<String>) -> Vec<String> {
        let mut out = Vec::with_capacity(k);
        while out.len() < k {
            let p = self.player();
            if !taken.contains(&p) {
                taken.push(p.clone());
                out.push(p);
            }
        }
        out
    }

    pub(crate) fn next_id(&mut self, s: System) -> u64 {
        let i = s as usize;
        self.counters[i] += 1;
        self.counters[i]
    }

    fn plan(&mut self, s: System, t: i64) -> Vec<Planned> {
        match s {
            System::Mepbm => self.mepbm_game(t),
            System::Cfr => self.cfr_series(t),
            System::Cards => self.cards_tournament(t),
            System::Diplomacy => self.diplomacy_game(t),
            System::Sbr => self.sbr_tournament(t),
        }
    }
}

pub(crate) fn plain(at: i64, v: Value) -> Planned {
    Planned {
        at,
        json: v.to_string(),
        result: false,
    }
}

/// A result at `at`: it may be written late.
pub(crate) fn result(at: i64, v: Value) -> Planned {
    Planned {
        at,
        json: v.to_string(),
        result: true,
    }
}

/// The events waiting to be written, by `at`, then in the order planned.
#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Reverse<(i64, u64, Queued)>>,
    order: u64,
}

impl Queue {
    /// Queue an activity's events; its last one restarts `slot` once written.
    fn push_all(&mut self, mut plan: Vec<Planned>, slot: Option<usize>) {
        plan.sort_by_key(|p| p.at);
        let last = plan.len().saturating_sub(1);
        for (i, p) in plan.into_iter().enumerate() {
            self.order += 1;
            let queued = Queued {
                json: p.json,
                respawn: if i == last { slot } else { None },
                result: p.result,
            };
            self.heap.push(Reverse((p.at, self.order, queued)));
        }
    }
}

/// The slot of the monthly tick, which plans the next tick when written.
const TICK_SLOT: usize = usize::MAX;

/// Write `opts.events` events as JSON Lines to `out`.
pub fn generate(opts: &Options, out: &mut dyn Write) -> io::Result<()> {
    let n = opts.events;
    let mut systems = opts.systems.clone();
    if systems.is_empty() {
        systems = System::ALL.to_vec();
    }
    systems.sort();
    systems.dedup();
    let mut w = World {
        rng: Rng::new(opts.seed),
        players: (n / 12).clamp(60, 60_000),
        teams: Vec::new(),
        next_member: 0,
        counters: [0; 5],
        start: start_of(n),
    };
    let mut queue = Queue::default();
    if systems.contains(&System::Mepbm) {
        let mut setup = w.mepbm_setup(n);
        // The tick is the last setup event; it respawns the ticker.
        if let Some(tick) = setup.pop() {
            queue.push_all(setup, None);
            queue.push_all(vec![tick], Some(TICK_SLOT));
        }
    }
    let slots = w.start_slots(&systems, n, &mut queue);
    w.write(n, queue, &slots, out)
}

impl World {
    /// Every system's activities, each a slot that restarts once its
    /// activity's last event is written: as many as keep the system's share
    /// of the `n` events over the stream's span (about one day per 110
    /// events, between 2 and 25 years, which the activities' own lengths
    /// stretch by about a quarter: see [`start_of`]). Each slot's first
    /// activity is queued.
    fn start_slots(&mut self, systems: &[System], n: u64, queue: &mut Queue) -> Vec<Slot> {
        let span_days = span_days(n);
        let rate = n as f64 / span_days;
        let share_total: f64 = systems.iter().map(|s| s.shape().0).sum();
        let mut slots: Vec<Slot> = Vec::new();
        for &s in systems {
            let (share, events, days) = s.shape();
            let r = rate * share / share_total;
            let count = ((r * days / events).round() as usize).max(1);
            let cycle = count as f64 * events / r;
            let gap = (cycle - days).max(0.0);
            for _ in 0..count {
                let i = slots.len();
                slots.push(Slot { system: s, gap });
                let first = self.start
                    + DAY
                    + (self.rng.below(1_000_000) as f64 / 1e6 * cycle * DAY as f64) as i64;
                let plan = self.plan(s, first);
                queue.push_all(plan, Some(i));
            }
        }
        slots
    }

    /// Write `n` events from `queue` in `at` order, restarting each slot's
    /// activity when its last event is written; one result in a hundred is
    /// held back and written 20 to 2,000 events late.
    fn write(
        &mut self,
        n: u64,
        mut queue: Queue,
        slots: &[Slot],
        out: &mut dyn Write,
    ) -> io::Result<()> {
        // Late results: (release after this many written, json).
        let mut late: Vec<(u64, String)> = Vec::new();
        let mut written = 0u64;
        while written + (late.len() as u64) < n {
            let Some(Reverse((at, _, q))) = queue.heap.pop() else {
                break;
            };
            match q.respawn {
                Some(TICK_SLOT) => {
                    let next = next_month(at);
                    queue.push_all(vec![plain(next, tick(next))], Some(TICK_SLOT));
                }
                Some(s) => {
                    let slot = &slots[s];
                    let gap = slot.gap * (0.5 + self.rng.below(1000) as f64 / 1000.0);
                    let start = at + HOUR + (gap * DAY as f64) as i64;
                    let plan = self.plan(slot.system, start);
                    queue.push_all(plan, Some(s));
                }
                None => {}
            }
            if q.result && self.rng.permille(10) {
                let after = written + self.rng.range(20, 2_000) as u64;
                late.push((after, q.json));
                continue;
            }
            line(out, &q.json)?;
            written += 1;
            let mut i = 0;
            while i < late.len() {
                if late[i].0 <= written {
                    let (_, j) = late.swap_remove(i);
                    line(out, &j)?;
                    written += 1;
                } else {
                    i += 1;
                }
            }
        }
        late.sort_by_key(|l| l.0);
        for (_, j) in late {
            line(out, &j)?;
        }
        out.flush()
    }
}

fn line(out: &mut dyn Write, json: &str) -> io::Result<()> {
    out.write_all(json.as_bytes())?;
    out.write_all(b"\n")
}

#[cfg(test)]
pub(crate) use tests::stream;

#[cfg(test)]
mod tests {
    use super::*;

    use crate::systems::cards::gen::table_sizes;

    /// A generated stream of `events` (all systems) as text: for unit tests.
    pub(crate) fn stream(events: u64, seed: u64) -> String {
        let opts = Options {
            events,
            seed,
            systems: vec![],
        };
        let mut out = Vec::new();
        generate(&opts, &mut out).expect("writing to memory");
        String::from_utf8(out).expect("generated text is UTF-8")
    }

    #[test]
    fn same_seed_same_bytes_and_exact_count() {
        let opts = Options {
            events: 500,
            seed: 7,
            systems: vec![],
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        generate(&opts, &mut a).unwrap();
        generate(&opts, &mut b).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.iter().filter(|&&c| c == b'\n').count(), 500);
        let other = Options { seed: 8, ..opts };
        let mut c = Vec::new();
        generate(&other, &mut c).unwrap();
        assert_ne!(a, c);
    }

    /// Streams up to the longest planned span start on 2000-01-01; longer
    /// ones on the first of an earlier year, far enough back that the
    /// stretched span ends before 2024 (a million events: 1991 to 2020).
    #[test]
    fn long_streams_start_early_enough_to_end_before_2024() {
        assert_eq!(start_of(3_000), START);
        assert_eq!(start_of(700_000), START);
        let first = |n: u64| crate::time::format_short(start_of(n) * 1_000_000);
        assert_eq!(first(1_000_000), "1991-01-01");
        assert_eq!(first(MAX_EVENTS), "1991-01-01");
        let stretched = (1.3 * span_days(MAX_EVENTS)) as i64 * DAY;
        assert!(start_of(MAX_EVENTS) + stretched < END_BY);
    }

    #[test]
    fn generated_names_are_never_near_duplicates() {
        let players = (0..60_000).map(|n| name('p', n));
        let names: Vec<String> = players.chain((0..120_000).map(|n| name('m', n))).collect();
        let near = crate::events::near::Near::new(names.iter().map(String::as_str));
        for (i, n) in (0u32..).zip(&names) {
            assert!(
                near.near_before(n, i).is_empty(),
                "{n} is near an earlier name"
            );
        }
        assert_eq!(name('p', 1), "p00001g", "digits 1, five of them, p: 6");
        assert_eq!(
            name('m', 123_456),
            "m123456i",
            "21 + 6 + 3 = 30: 8 modulo 11"
        );
    }

    #[test]
    fn card_tables_cover_every_player() {
        for n in 7..=20 {
            let s = table_sizes(n, 2);
            assert_eq!(s.iter().sum::<usize>(), n);
            assert!(s.iter().all(|&k| k == 3 || k == 4));
        }
    }
}
