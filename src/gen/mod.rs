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

use crate::systems::sbr::math::PIECES;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use serde_json::{json, Value};

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

/// What to generate.
#[derive(Debug, Clone)]
pub struct Options {
    pub events: u64,
    pub seed: u64,
    pub systems: Vec<System>,
}

const DAY: i64 = 86_400;
const HOUR: i64 = 3_600;
/// 2000-01-01T00:00:00Z.
const START: i64 = 946_684_800;

/// `YYYY-MM-DDTHH:MM:SSZ` (or a plain date at midnight).
pub fn stamp(secs: i64) -> String {
    let dt = chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default();
    if secs % DAY == 0 {
        dt.format("%Y-%m-%d").to_string()
    } else {
        dt.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    }
}

/// One planned event.
struct Planned {
    at: i64,
    json: String,
    /// A result that may be written late.
    result: bool,
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

const FP_NATIONS: [&str; 10] = [
    "Woodmen",
    "Northmen",
    "Eothraim",
    "Arthedain",
    "Cardolan",
    "Northern Gondor",
    "Southern Gondor",
    "Dwarves",
    "Sinda Elves",
    "Noldo Elves",
];
const DS_NATIONS: [&str; 10] = [
    "Witch-king",
    "Dragon Lord",
    "Dog Lord",
    "Cloud Lord",
    "Blind Sorcerer",
    "Ice King",
    "Quiet Avenger",
    "Fire King",
    "Long Rider",
    "Dark Lieutenants",
];
const NEUTRALS: [&str; 5] = ["Dunlendings", "Rhudaur", "Easterlings", "Corsairs", "Harad"];
const SCENARIOS: [&str; 4] = ["1650", "2950", "1000", "bofa"];
const POWERS: [&str; 7] = [
    "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey",
];
const COLORS: [&str; 4] = ["red", "yellow", "green", "blue"];

struct Team {
    name: String,
    coordinator: String,
    members: Vec<String>,
    /// The members at registration (the roster rule counts these).
    original: Vec<String>,
    /// The team may play or change its roster after this time.
    free_at: i64,
}

/// The generator's world: players, teams and counters shared by activities.
struct World {
    rng: Rng,
    players: u64,
    teams: Vec<Team>,
    next_member: u64,
    counters: [u64; 5],
}

impl World {
    fn player(&mut self) -> String {
        format!("p{:05}", self.rng.below(self.players))
    }

    /// `k` distinct players not in `taken`.
    fn distinct(&mut self, k: usize, taken: &mut Vec<String>) -> Vec<String> {
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

    fn next_id(&mut self, s: System) -> u64 {
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

    // ---- mepbm -------------------------------------------------------------

    fn mepbm_game(&mut self, t: i64) -> Vec<Planned> {
        let n = self.next_id(System::Mepbm);
        let game = format!("{}", 100 + n);
        let rng = &mut self.rng;
        let small = rng.permille(200);
        let (n_side, n_neutral) = if small { (6, 2) } else { (10, 5) };
        // A grudge game between two free teams, about one full game in eight.
        let mut grudge: Option<(usize, usize)> = None;
        if !small && self.teams.len() >= 2 && rng.permille(125) {
            let free: Vec<usize> = (0..self.teams.len())
                .filter(|&i| self.teams[i].free_at < t)
                .collect();
            if free.len() >= 2 {
                let a = free[rng.below(free.len() as u64) as usize];
                let mut b = a;
                while b == a {
                    b = free[rng.below(free.len() as u64) as usize];
                }
                grudge = Some((a, b));
            }
        }
        let scenario = if grudge.is_some() {
            "1650"
        } else {
            *rng.pick(&SCENARIOS)
        };
        // positions: (nation, controller, original side, is team member)
        let mut pos: Vec<(String, String, &'static str, bool)> = Vec::new();
        let mut taken: Vec<String> = Vec::new();
        for (side, nations) in [("FP", &FP_NATIONS[..]), ("DS", &DS_NATIONS[..])] {
            let nations = &nations[..n_side];
            let team = grudge.map(|(a, b)| if side == "FP" { a } else { b });
            let members: Vec<String> = team
                .map(|i| self.teams[i].members.clone())
                .unwrap_or_default();
            taken.extend(members.iter().cloned());
            let others = self.distinct(n_side - members.len().min(n_side), &mut taken);
            let mut players: Vec<(String, bool)> = members
                .into_iter()
                .map(|m| (m, true))
                .chain(others.into_iter().map(|p| (p, false)))
                .collect();
            // Sometimes one player runs two nations of the same side.
            if grudge.is_none() && self.rng.permille(150) {
                let last = players.len() - 1;
                players[last] = players[0].clone();
            }
            self.rng.shuffle(&mut players);
            for (nation, (p, member)) in nations.iter().zip(players) {
                pos.push((nation.to_string(), p, side, member));
            }
        }
        for (nation, p) in NEUTRALS[..n_neutral]
            .iter()
            .zip(self.distinct(n_neutral, &mut taken))
        {
            pos.push((nation.to_string(), p, "neutral", false));
        }
        let mut ev = Vec::new();
        let start = t;
        let positions: Vec<Value> = pos
            .iter()
            .map(|(n, p, s, _)| json!({"nation": n, "player": p, "side": s}))
            .collect();
        let mut started = json!({"type": "mepbm.game_started", "id": format!("me-{game}-start"),
            "at": stamp(start), "game": game, "scenario": scenario, "positions": positions});
        if let Some((a, b)) = grudge {
            started["grudge"] = json!({"FP": self.teams[a].name, "DS": self.teams[b].name});
        }
        ev.push(plain(start, started));
        let rng = &mut self.rng;
        let turns = rng.range(12, 45);
        let end = start + turns * 7 * DAY + rng.range(0, DAY - 1);
        // Takeovers: a fresh player replaces a non-member controller.
        let takeovers = rng.below(4);
        for k in 0..takeovers {
            let i = self.rng.below(pos.len() as u64) as usize;
            if pos[i].3 {
                continue;
            }
            let newp = self.distinct(1, &mut taken).remove(0);
            // Increasing times, so the last planned takeover is the last folded.
            let slice = (end - start) / (takeovers as i64 + 1);
            let at = start + slice * k as i64 + self.rng.range(DAY, slice);
            ev.push(plain(
                at,
                json!({"type": "mepbm.nation_taken_over", "id": format!("me-{game}-to{k}"),
                    "at": stamp(at), "game": game, "nation": pos[i].0, "player": newp}),
            ));
            pos[i].1 = newp;
        }
        // Neutrals may join a side.
        for (i, p) in pos.iter().enumerate() {
            if p.2 == "neutral" && self.rng.permille(500) {
                let at = start + self.rng.range(DAY, end - start - DAY);
                let side = if self.rng.permille(500) { "FP" } else { "DS" };
                ev.push(plain(
                    at,
                    json!({"type": "mepbm.allegiance_changed", "id": format!("me-{game}-al{i}"),
                        "at": stamp(at), "game": game, "nation": p.0, "side": side}),
                ));
            }
        }
        let rng = &mut self.rng;
        let winner = match rng.below(20) {
            0..=8 => "FP",
            9..=17 => "DS",
            _ => "draw",
        };
        let nations: Vec<Value> = pos
            .iter()
            .map(|p| {
                let eliminated = rng.permille(120);
                let vp = if eliminated {
                    rng.range(0, 400)
                } else {
                    rng.range(300, 2800)
                };
                json!({"nation": p.0, "victory_points": vp, "eliminated": eliminated})
            })
            .collect();
        ev.push(Planned {
            at: end,
            json: json!({"type": "mepbm.game_ended", "id": format!("me-{game}-end"),
                "at": stamp(end), "game": game, "turn": turns, "winner": winner, "nations": nations})
            .to_string(),
            result: true,
        });
        // Ballots: counted players of FP or DS, within 14 days.
        let mut voters: Vec<(&str, &str)> = Vec::new();
        for p in pos.iter().filter(|p| p.2 != "neutral") {
            if !voters.iter().any(|v| v.0 == p.1) {
                voters.push((&p.1, p.2));
            }
        }
        for (voter, side) in voters {
            if !rng.permille(400) {
                continue;
            }
            let mut mates: Vec<&str> = Vec::new();
            let mut my_nations: Vec<&str> = Vec::new();
            let mut enemies: Vec<&str> = Vec::new();
            for p in &pos {
                if p.2 == side && p.1 != voter {
                    if !mates.contains(&p.1.as_str()) {
                        mates.push(&p.1);
                    }
                    my_nations.push(&p.0);
                } else if p.2 != side && p.2 != "neutral" {
                    enemies.push(&p.0);
                }
            }
            rng.shuffle(&mut mates);
            rng.shuffle(&mut my_nations);
            let k1 = rng.range(1, 3) as usize;
            let k2 = rng.range(0, 3) as usize;
            let at = end + rng.range(HOUR, 13 * DAY);
            let mut v = json!({"type": "mepbm.vote_cast", "id": format!("me-{game}-v-{voter}"),
                "at": stamp(at), "game": game, "voter": voter,
                "best_team_player": &mates[..k1.min(mates.len())],
                "best_played_nation": &my_nations[..k2.min(my_nations.len())]});
            if rng.permille(700) {
                v["best_enemy_nation"] = json!(rng.pick(&enemies));
            }
            ev.push(plain(at, v));
        }
        // A grudge team changes its roster some weeks after the game.
        if let Some((a, b)) = grudge {
            for i in [a, b] {
                self.teams[i].free_at = end + 30 * DAY;
                if self.rng.permille(400) {
                    let at = end + 20 * DAY + self.rng.range(0, DAY);
                    let team = &mut self.teams[i];
                    // Never the coordinator (members[0]); an original member only
                    // while at least 5 originals would remain.
                    let originals = team
                        .members
                        .iter()
                        .filter(|m| team.original.contains(m))
                        .count();
                    let candidates: Vec<usize> = (1..team.members.len())
                        .filter(|&k| originals > 5 || !team.original.contains(&team.members[k]))
                        .collect();
                    if candidates.is_empty() {
                        continue;
                    }
                    let out_i = candidates[self.rng.below(candidates.len() as u64) as usize];
                    let removed = team.members.remove(out_i);
                    self.next_member += 1;
                    let added = format!("m{:05}", self.next_member);
                    team.members.push(added.clone());
                    ev.push(plain(
                        at,
                        json!({"type": "mepbm.grudge_roster_changed",
                            "id": format!("me-{game}-roster-{}", team.name),
                            "at": stamp(at), "team": team.name, "added": [added], "removed": [removed]}),
                    ));
                }
            }
        }
        ev
    }

    // ---- cfr ---------------------------------------------------------------

    fn cfr_series(&mut self, t: i64) -> Vec<Planned> {
        let n = self.next_id(System::Cfr);
        let series = format!("cfr{n}");
        let rng = &mut self.rng;
        let elimination = rng.permille(650);
        let mut ev = Vec::new();
        let def = if elimination {
            json!({"type": "cfr.series_defined", "id": format!("{series}-def"), "at": stamp(t),
                "series": series, "format": "elimination"})
        } else {
            json!({"type": "cfr.series_defined", "id": format!("{series}-def"), "at": stamp(t),
                "series": series, "format": "points",
                "race_points": [100, 75, 60, 50, 40, 30, 20, 10], "tier_offset": 1})
        };
        ev.push(plain(t, def));
        let mut taken = Vec::new();
        let drivers = self.distinct(24, &mut taken);
        let rng = &mut self.rng;
        let mut at = t;
        for e in 1..=20 {
            at += rng.range(7 * DAY, 21 * DAY);
            let mut v = json!({"type": "cfr.event_completed", "id": format!("{series}-e{e}"),
                "at": stamp(at), "series": series, "event": format!("{e}")});
            if elimination {
                let heats: Vec<Value> = (0..rng.range(2, 3))
                    .map(|_| placings(rng, &drivers, 6, 8))
                    .collect();
                v["heats"] = json!(heats);
                v["final"] = placings(rng, &drivers, 6, 6);
            } else {
                let races: Vec<Value> = (0..rng.range(3, 6))
                    .map(|_| {
                        let tier = if rng.permille(300) { 2 } else { 1 };
                        json!({"tier": tier, "results": placings(rng, &drivers, 6, 10)})
                    })
                    .collect();
                v["races"] = json!(races);
            }
            ev.push(Planned {
                at,
                json: v.to_string(),
                result: true,
            });
        }
        ev
    }

    // ---- cards -------------------------------------------------------------

    fn cards_tournament(&mut self, t: i64) -> Vec<Planned> {
        let n = self.next_id(System::Cards);
        let tour = format!("league-{n}");
        let rng = &mut self.rng;
        let system = if rng.permille(500) { 1 } else { 2 };
        let count = if system == 1 {
            3 * rng.range(3, 6) as usize
        } else {
            rng.range(7, 20) as usize
        };
        let rounds = rng.range(3, 6);
        let starts = (t / DAY + 1) * DAY;
        // A plain date: the whole last day, as the last round's `ends` is.
        let ends = starts + rounds * 7 * DAY - DAY;
        let mut ev = vec![plain(
            t,
            json!({"type": "cards.tournament_created", "id": format!("{tour}-created"),
                "at": stamp(t), "tournament": tour, "point_system": system,
                "starts": stamp(starts), "ends": stamp(ends)}),
        )];
        let mut taken = Vec::new();
        let mut players = self.distinct(count, &mut taken);
        let rng = &mut self.rng;
        for r in 1..=rounds {
            let rs = starts + (r - 1) * 7 * DAY;
            let re = rs + 6 * DAY;
            rng.shuffle(&mut players);
            let sizes = table_sizes(count, system);
            let mut strengths: Vec<i64> = (1..=sizes.len() as i64).collect();
            rng.shuffle(&mut strengths);
            let mut matches = Vec::new();
            let mut at_sched = rs - 12 * HOUR;
            if r == 1 {
                at_sched = at_sched.max(t + HOUR);
            }
            let mut i = 0;
            for (m, &size) in sizes.iter().enumerate() {
                let table = &players[i..i + size];
                i += size;
                let id = format!("r{r}m{}", m + 1);
                let mut mv = json!({"match": id, "players": table});
                if system == 2 {
                    mv["table_strength"] = json!(strengths[m]);
                }
                matches.push(mv);
                let mut scores: Vec<i64> = (1..size).map(|_| 2 * rng.range(-40, 40)).collect();
                scores.push(-scores.iter().sum::<i64>());
                let sc: Vec<Value> = table
                    .iter()
                    .zip(&scores)
                    .map(|(p, s)| json!({"player": p, "score": s}))
                    .collect();
                let at = rs + rng.range(HOUR, re - rs - HOUR);
                ev.push(Planned {
                    at,
                    json: json!({"type": "cards.match_result", "id": format!("{tour}-{id}"),
                        "at": stamp(at), "tournament": tour, "round": format!("{r}"),
                        "match": id, "scores": sc})
                    .to_string(),
                    result: true,
                });
            }
            at_sched = at_sched.min(rs);
            ev.push(plain(
                at_sched,
                json!({"type": "cards.round_scheduled", "id": format!("{tour}-r{r}"),
                    "at": stamp(at_sched), "tournament": tour, "round": format!("{r}"),
                    "starts": stamp(rs), "ends": stamp(re), "matches": matches}),
            ));
        }
        ev
    }

    // ---- diplomacy ---------------------------------------------------------

    fn diplomacy_game(&mut self, t: i64) -> Vec<Planned> {
        let n = self.next_id(System::Diplomacy);
        let mut taken = Vec::new();
        let players = self.distinct(7, &mut taken);
        let rng = &mut self.rng;
        let solo = rng.permille(150);
        let surrendered = if rng.permille(60) {
            Some(rng.below(7) as usize)
        } else {
            None
        };
        let mut order: Vec<usize> = (0..7).filter(|&i| Some(i) != surrendered).collect();
        rng.shuffle(&mut order);
        let n_elim = rng.range(0, 2) as usize;
        let survivors: Vec<usize> = order[n_elim..].to_vec();
        let mut centers = [0i64; 7];
        let mut total: i64 = 34 - rng.range(0, 4);
        if let Some(s) = surrendered {
            centers[s] = rng.range(0, 2);
            total -= centers[s];
        }
        let winner = if solo { Some(survivors[0]) } else { None };
        if let Some(w) = winner {
            centers[w] = rng.range(18, 22);
            total -= centers[w];
        }
        let rest: Vec<usize> = survivors
            .iter()
            .copied()
            .filter(|&i| Some(i) != winner)
            .collect();
        for &i in &rest {
            centers[i] = 1;
            total -= 1;
        }
        while total > 0 && !rest.is_empty() {
            let i = *rng.pick(&rest);
            if centers[i] < 17 {
                centers[i] += 1;
            }
            total -= 1;
        }
        let powers: Vec<Value> = (0..7)
            .map(|i| {
                let player = if Some(i) == surrendered {
                    Value::Null
                } else {
                    json!(players[i])
                };
                let mut p = json!({"power": POWERS[i], "player": player, "centers": centers[i]});
                if order[..n_elim].contains(&i) {
                    p["eliminated"] = json!(rng.range(1903, 1912));
                }
                p
            })
            .collect();
        let mut v = json!({"type": "diplomacy.game_ended", "id": format!("dip-{n}"),
            "at": stamp(t), "game": format!("dip-{n}"),
            "result": if solo { "solo" } else { "draw" }, "powers": powers});
        if let Some(w) = winner {
            v["winner"] = json!(POWERS[w]);
        }
        vec![Planned {
            at: t,
            json: v.to_string(),
            result: true,
        }]
    }

    // ---- sbr ---------------------------------------------------------------

    fn sbr_tournament(&mut self, t: i64) -> Vec<Planned> {
        let n = self.next_id(System::Sbr);
        let tour = format!("sbr-{n}");
        let size = if self.rng.permille(500) { 8 } else { 16 };
        let mut taken = Vec::new();
        let players = self.distinct(size, &mut taken);
        let mut ev = vec![plain(
            t,
            json!({"type": "sbr.tournament_created", "id": format!("{tour}-created"),
                "at": stamp(t), "tournament": tour}),
        )];
        let rng = &mut self.rng;
        // Seeding: one game each against three bots, distinct scores.
        let mut seeds: Vec<(i64, usize)> = Vec::new();
        for (i, p) in players.iter().enumerate() {
            let (bases, score) = loop {
                let (b, s) = sbr_bases(rng);
                if !seeds.iter().any(|x| x.0 == s) {
                    break (b, s);
                }
            };
            seeds.push((score, i));
            // The seeded player sits in red against three bots.
            let seat = 0;
            let seats: Vec<Value> = (0..4)
                .map(|c| {
                    if c == seat {
                        json!({"seat": COLORS[c], "player": p, "bases": bases, "score": score})
                    } else {
                        json!({"seat": COLORS[c], "player": null, "score": rng.range(20, 80)})
                    }
                })
                .collect();
            let at = t + HOUR + i as i64 * 600;
            ev.push(Planned {
                at,
                json: json!({"type": "sbr.game_played", "id": format!("{tour}-s{}", i + 1),
                    "at": stamp(at), "tournament": tour, "stage": "seeding",
                    "match": format!("s{}", i + 1), "game": 1, "seats": seats})
                .to_string(),
                result: true,
            });
        }
        seeds.sort_by_key(|b| std::cmp::Reverse(b.0));
        // rank[i] = seed rank of player i (0 = best)
        let mut rank = vec![0usize; size];
        for (r, &(_, i)) in seeds.iter().enumerate() {
            rank[i] = r;
        }
        let by_seed: Vec<usize> = seeds.iter().map(|s| s.1).collect();
        let groups = size / 4;
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups];
        for (k, &p) in by_seed.iter().enumerate() {
            let round = k / groups;
            let g = if round % 2 == 0 {
                k % groups
            } else {
                groups - 1 - k % groups
            };
            members[g].push(p);
        }
        let mut at = t + DAY;
        let mut advanced: Vec<Vec<usize>> = Vec::new();
        for (g, table) in members.iter().enumerate() {
            let id = format!("g{}", g + 1);
            advanced.push(sbr_match(
                rng, &mut ev, &tour, "group", &id, table, &players, &rank, &mut at,
            ));
        }
        at = t + 2 * DAY;
        let finalists: Vec<usize> = if groups == 2 {
            vec![
                advanced[0][0],
                advanced[1][1],
                advanced[1][0],
                advanced[0][1],
            ]
        } else {
            let semi1 = vec![
                advanced[0][0],
                advanced[1][1],
                advanced[2][0],
                advanced[3][1],
            ];
            let semi2 = vec![
                advanced[1][0],
                advanced[0][1],
                advanced[3][0],
                advanced[2][1],
            ];
            let a = sbr_match(
                rng, &mut ev, &tour, "bracket", "b1", &semi1, &players, &rank, &mut at,
            );
            let b = sbr_match(
                rng, &mut ev, &tour, "bracket", "b2", &semi2, &players, &rank, &mut at,
            );
            vec![a[0], b[0], a[1], b[1]]
        };
        sbr_match(
            rng, &mut ev, &tour, "bracket", "final", &finalists, &players, &rank, &mut at,
        );
        ev
    }
}

fn plain(at: i64, v: Value) -> Planned {
    Planned {
        at,
        json: v.to_string(),
        result: false,
    }
}

/// Table sizes for a card round: threes, or threes and fours in point system 2.
fn table_sizes(n: usize, system: i64) -> Vec<usize> {
    if system == 1 {
        return vec![3; n / 3];
    }
    let fours = match n % 3 {
        0 => 0,
        1 => 1,
        _ => 2,
    };
    let mut v = vec![4; fours];
    v.extend(std::iter::repeat_n(3, (n - 4 * fours) / 3));
    v
}

/// Distinct drivers with places 1..k, some dnf.
fn placings(rng: &mut Rng, drivers: &[String], lo: i64, hi: i64) -> Value {
    let k = rng.range(lo, hi) as usize;
    let mut pool: Vec<&String> = drivers.iter().collect();
    rng.shuffle(&mut pool);
    let mut place = 0;
    let v: Vec<Value> = pool[..k]
        .iter()
        .map(|d| {
            if rng.permille(80) {
                json!({"driver": d, "place": "dnf"})
            } else {
                place += 1;
                json!({"driver": d, "place": place})
            }
        })
        .collect();
    json!(v)
}

/// A player's bases in one game, and the score they make.
fn sbr_bases(rng: &mut Rng) -> (Vec<Value>, i64) {
    let mut idx: Vec<usize> = (0..PIECES.len()).collect();
    rng.shuffle(&mut idx);
    let k = rng.range(6, 21) as usize;
    let mut score = 0;
    let bases = idx[..k]
        .iter()
        .map(|&i| {
            let bonus = rng.permille(100);
            score += PIECES[i].1 * if bonus { 3 } else { 1 };
            json!({"piece": PIECES[i].0, "bonus": bonus})
        })
        .collect();
    (bases, score)
}

/// One 4-game match (each player once per seat); returns the players by place.
#[allow(clippy::too_many_arguments)]
fn sbr_match(
    rng: &mut Rng,
    ev: &mut Vec<Planned>,
    tour: &str,
    stage: &str,
    id: &str,
    table: &[usize],
    players: &[String],
    rank: &[usize],
    at: &mut i64,
) -> Vec<usize> {
    // Draw the four games until no two players tie on match score: the ledger's
    // tie-breaks (best game, then a stage-dependent seed) then never decide who
    // advances, so the generator and the ledger always agree.
    let (games, sum, best) = loop {
        let mut sum = [0i64; 4];
        let mut best = [0i64; 4];
        let games: Vec<Vec<(Vec<Value>, i64)>> = (0..4)
            .map(|_| {
                (0..table.len())
                    .map(|i| {
                        let (bases, score) = sbr_bases(rng);
                        sum[i] += score;
                        best[i] = best[i].max(score);
                        (bases, score)
                    })
                    .collect()
            })
            .collect();
        let mut sorted = sum;
        sorted.sort_unstable();
        if sorted.windows(2).all(|w| w[0] != w[1]) {
            break (games, sum, best);
        }
    };
    let with_bases = rng.permille(300);
    for (g, game) in games.into_iter().enumerate() {
        let mut seats: Vec<(usize, Value)> = Vec::new();
        for (i, (&p, (bases, score))) in table.iter().zip(game).enumerate() {
            let c = (i + g) % 4;
            // Many directors record only the score; some record the bases too.
            let seat = if with_bases {
                json!({"seat": COLORS[c], "player": players[p], "bases": bases, "score": score})
            } else {
                json!({"seat": COLORS[c], "player": players[p], "score": score})
            };
            seats.push((c, seat));
        }
        seats.sort_by_key(|s| s.0);
        let seats: Vec<Value> = seats.into_iter().map(|s| s.1).collect();
        *at += 40 * 60;
        ev.push(Planned {
            at: *at,
            json: json!({"type": "sbr.game_played", "id": format!("{tour}-{id}-{}", g + 1),
                "at": stamp(*at), "tournament": tour, "stage": stage, "match": id,
                "game": g + 1, "seats": seats})
            .to_string(),
            result: true,
        });
    }
    *at += 2 * HOUR;
    let mut order: Vec<usize> = (0..4).collect();
    order.sort_by(|&a, &b| {
        sum[b]
            .cmp(&sum[a])
            .then(best[b].cmp(&best[a]))
            .then(rank[table[a]].cmp(&rank[table[b]]))
    });
    order.into_iter().map(|i| table[i]).collect()
}

/// Write `opts.events` events as JSON Lines to `out`; returns the bytes written.
pub fn generate(opts: &Options, out: &mut dyn Write) -> io::Result<u64> {
    let n = opts.events;
    let mut systems = opts.systems.clone();
    if systems.is_empty() {
        systems = System::ALL.to_vec();
    }
    systems.sort();
    systems.dedup();
    let mut out = Counting {
        inner: out,
        bytes: 0,
    };
    let mut w = World {
        rng: Rng::new(opts.seed),
        players: (n / 12).clamp(60, 60_000),
        teams: Vec::new(),
        next_member: 0,
        counters: [0; 5],
    };
    // The stream spans about one day per 110 events, between 2 and 25 years.
    let span_days = (n as f64 / 110.0).clamp(730.0, 9_000.0);
    let rate = n as f64 / span_days;
    let share_total: f64 = systems.iter().map(|s| s.shape().0).sum();
    let mut heap: BinaryHeap<Reverse<(i64, u64, Queued)>> = BinaryHeap::new();
    let mut order = 0u64;
    let mut push_all = |heap: &mut BinaryHeap<_>, mut plan: Vec<Planned>, slot: Option<usize>| {
        plan.sort_by_key(|p| p.at);
        let last = plan.len().saturating_sub(1);
        for (i, p) in plan.into_iter().enumerate() {
            order += 1;
            heap.push(Reverse((
                p.at,
                order,
                Queued {
                    json: p.json,
                    respawn: if i == last { slot } else { None },
                    result: p.result,
                },
            )));
        }
    };
    // Setup at the start: grudge teams and a few seeded ratings.
    let mut setup = Vec::new();
    if systems.contains(&System::Mepbm) {
        let teams = (n / 20_000).clamp(2, 24) as usize;
        for i in 0..teams {
            let members: Vec<String> = (0..7)
                .map(|_| {
                    w.next_member += 1;
                    format!("m{:05}", w.next_member)
                })
                .collect();
            let team = Team {
                name: format!("team-{}", i + 1),
                coordinator: members[0].clone(),
                original: members.clone(),
                members,
                free_at: START,
            };
            let at = START + 60 * (i as i64 + 1);
            setup.push(plain(
                at,
                json!({"type": "mepbm.grudge_team_registered", "id": format!("reg-{}", team.name),
                    "at": stamp(at), "team": team.name, "coordinator": team.coordinator,
                    "members": team.members}),
            ));
            w.teams.push(team);
        }
        let seeded = (w.players / 25).min(400);
        for k in 0..seeded {
            let at = START + 2 * HOUR + k as i64;
            let system = *w.rng.pick(&["valar", "maia", "istari"]);
            let value = w.rng.range(1350, 1800);
            setup.push(plain(
                at,
                json!({"type": "mepbm.rating_seeded", "id": format!("seed-{k}-{system}"),
                    "at": stamp(at), "player": format!("p{k:05}"), "system": system, "value": value}),
            ));
        }
        // The first monthly tick; each tick schedules the next.
        let at = START + 31 * DAY;
        setup.push(plain(at, tick(at)));
    }
    let tick_slot = usize::MAX;
    {
        let mut s = std::mem::take(&mut setup);
        if let Some(p) = s.pop() {
            // The tick is the last setup event; it respawns the ticker.
            push_all(&mut heap, s, None);
            push_all(&mut heap, vec![p], Some(tick_slot));
        }
    }
    let mut slots: Vec<Slot> = Vec::new();
    for &s in &systems {
        let (share, events, days) = s.shape();
        let r = rate * share / share_total;
        let count = ((r * days / events).round() as usize).max(1);
        let cycle = count as f64 * events / r;
        let gap = (cycle - days).max(0.0);
        for _ in 0..count {
            let i = slots.len();
            slots.push(Slot { system: s, gap });
            let first =
                START + DAY + (w.rng.below(1_000_000) as f64 / 1e6 * cycle * DAY as f64) as i64;
            let plan = w.plan(s, first);
            push_all(&mut heap, plan, Some(i));
        }
    }
    // Late results: (release after this many written, json).
    let mut late: Vec<(u64, String)> = Vec::new();
    let mut written = 0u64;
    while written + (late.len() as u64) < n {
        let Some(Reverse((at, _, q))) = heap.pop() else {
            break;
        };
        match q.respawn {
            Some(s) if s == tick_slot => {
                let next = next_month(at);
                push_all(&mut heap, vec![plain(next, tick(next))], Some(tick_slot));
            }
            Some(s) => {
                let slot = &slots[s];
                let gap = slot.gap * (0.5 + w.rng.below(1000) as f64 / 1000.0);
                let start = at + HOUR + (gap * DAY as f64) as i64;
                let plan = w.plan(slot.system, start);
                push_all(&mut heap, plan, Some(s));
            }
            None => {}
        }
        if q.result && w.rng.permille(10) {
            let after = written + w.rng.range(20, 2_000) as u64;
            late.push((after, q.json));
            continue;
        }
        line(&mut out, &q.json)?;
        written += 1;
        let mut i = 0;
        while i < late.len() {
            if late[i].0 <= written {
                let (_, j) = late.swap_remove(i);
                line(&mut out, &j)?;
                written += 1;
            } else {
                i += 1;
            }
        }
    }
    late.sort_by_key(|l| l.0);
    for (_, j) in late {
        line(&mut out, &j)?;
    }
    out.flush()?;
    Ok(out.bytes)
}

fn line(out: &mut Counting<'_>, json: &str) -> io::Result<()> {
    out.write_all(json.as_bytes())?;
    out.write_all(b"\n")
}

struct Counting<'a> {
    inner: &'a mut dyn Write,
    bytes: u64,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The monthly tick written at `at` (the first of a month) for the month before.
fn tick(at: i64) -> Value {
    let dt = chrono::DateTime::from_timestamp(at - DAY, 0).unwrap_or_default();
    let month = dt.format("%Y-%m").to_string();
    json!({"type": "mepbm.monthly_tick", "id": format!("tick-{month}"), "at": stamp(at), "month": month})
}

/// Midnight on the first of the month after `at`.
fn next_month(at: i64) -> i64 {
    use chrono::Datelike;
    let d = chrono::DateTime::from_timestamp(at, 0)
        .unwrap_or_default()
        .date_naive();
    let (y, m) = if d.month() == 12 {
        (d.year() + 1, 1)
    } else {
        (d.year(), d.month() + 1)
    };
    chrono::NaiveDate::from_ymd_opt(y, m, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc().timestamp())
        .unwrap_or(at + 31 * DAY)
}

/// A generated stream of `events` (all systems) as text: for unit tests.
#[cfg(test)]
pub fn stream(events: u64, seed: u64) -> String {
    let opts = Options {
        events,
        seed,
        systems: vec![],
    };
    let mut out = Vec::new();
    generate(&opts, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("generated text is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn card_tables_cover_every_player() {
        for n in 7..=20 {
            let s = table_sizes(n, 2);
            assert_eq!(s.iter().sum::<usize>(), n);
            assert!(s.iter().all(|&k| k == 3 || k == 4));
        }
    }
}
