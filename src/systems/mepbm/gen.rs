//! Middle-earth PBM games for the generator: sides, neutrals, takeovers, ballots,
//! grudge games between registered teams with their roster changes, and the
//! monthly tick.

use crate::gen::{plain, result, stamp, Planned, System, World, DAY, HOUR};
use serde_json::{json, Value};

/// Each scenario's nations, by side; a game draws from its scenario's lists so
/// a scenario never has more nations than the seed gives it (25 in 1650 and
/// 2950, 5 in Bofa), also beside the bundled sample games.
struct Nations {
    fp: &'static [&'static str],
    ds: &'static [&'static str],
    neutral: &'static [&'static str],
}

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
const N1650: Nations = Nations {
    fp: &[
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
    ],
    ds: &DS_NATIONS,
    neutral: &NEUTRALS,
};
const N2950: Nations = Nations {
    fp: &[
        "Woodmen",
        "Northmen",
        "Eothraim",
        "Gondor",
        "Dwarves",
        "Sinda Elves",
        "Noldo Elves",
        "Silvan Elves",
        "Dunedain Rangers",
        "Blue Mountains",
    ],
    ds: &DS_NATIONS,
    neutral: &NEUTRALS,
};
const BOFA: Nations = Nations {
    fp: &["Dwarves", "Elves"],
    ds: &["Goblins", "Dragon"],
    neutral: &["Men"],
};

fn nations(scenario: &str) -> &'static Nations {
    match scenario {
        "2950" => &N2950,
        "bofa" => &BOFA,
        _ => &N1650,
    }
}

const SCENARIOS: [&str; 4] = ["1650", "2950", "1000", "bofa"];

impl World {
    pub(crate) fn mepbm_game(&mut self, t: i64) -> Vec<Planned> {
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
        // Bofa has five nations: two a side and a neutral.
        let (n_side, n_neutral) = if scenario == "bofa" {
            (2, 1)
        } else {
            (n_side, n_neutral)
        };
        // positions: (nation, controller, original side, is team member)
        let mut pos: Vec<(String, String, &'static str, bool)> = Vec::new();
        let mut taken: Vec<String> = Vec::new();
        let pool = nations(scenario);
        for (side, nations) in [("FP", pool.fp), ("DS", pool.ds)] {
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
        for (nation, p) in pool.neutral[..n_neutral]
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
        ev.push(result(
            end,
            json!({"type": "mepbm.game_ended", "id": format!("me-{game}-end"),
            "at": stamp(end), "game": game, "turn": turns, "winner": winner, "nations": nations}),
        ));
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
                    let added = crate::gen::name('m', self.next_member);
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
}

/// The monthly tick written at `at` (the first of a month) for the month before.
pub(crate) fn tick(at: i64) -> Value {
    let dt = chrono::DateTime::from_timestamp(at - DAY, 0).unwrap_or_default();
    let month = dt.format("%Y-%m").to_string();
    json!({"type": "mepbm.monthly_tick", "id": format!("tick-{month}"), "at": stamp(at), "month": month})
}

/// Midnight on the first of the month after `at`.
pub(crate) fn next_month(at: i64) -> i64 {
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
