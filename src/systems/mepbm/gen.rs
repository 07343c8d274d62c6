//! Middle-earth PBM games for the generator: sides, neutrals, takeovers, ballots,
//! grudge games between registered teams with their roster changes, and the
//! monthly tick.

use crate::systems::gen::{name, plain, result, stamp, Planned, System, Team, World, DAY, HOUR};
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

/// One nation of a game: who controls it, its side at the start, and
/// whether its player is a grudge team's member.
struct Seat {
    nation: &'static str,
    player: String,
    side: &'static str,
    member: bool,
}

/// A game as it is being planned: its name, seats and span, and the events
/// planned so far.
struct Game {
    name: String,
    seats: Vec<Seat>,
    start: i64,
    end: i64,
    events: Vec<Planned>,
}

impl Game {
    fn push(&mut self, at: i64, v: Value) {
        self.events.push(plain(at, v));
    }
}

impl World {
    /// One Middle-earth game from `t`: its start, takeovers, allegiance
    /// changes, end and ballots, and a grudge team's roster change after it.
    pub(crate) fn mepbm_game(&mut self, t: i64) -> Vec<Planned> {
        let n = self.next_id(System::Mepbm);
        let small = self.rng.permille(200);
        // A grudge game between two free teams, about one full game in eight.
        let grudge = match !small && self.teams.len() >= 2 && self.rng.permille(125) {
            true => self.free_teams(t),
            false => None,
        };
        let scenario = match grudge {
            Some(_) => "1650",
            None => *self.rng.pick(&SCENARIOS),
        };
        // Bofa has five nations: two a side and a neutral.
        let (n_side, n_neutral) = match (scenario, small) {
            ("bofa", _) => (2, 1),
            (_, true) => (6, 2),
            (_, false) => (10, 5),
        };
        let (seats, mut taken) = self.seats(nations(scenario), grudge, n_side, n_neutral);
        let mut game = Game {
            name: format!("{}", 100 + n),
            seats,
            start: t,
            end: t,
            events: Vec::new(),
        };
        self.game_started(&mut game, scenario, grudge);
        let turns = self.rng.range(12, 45);
        game.end = t + turns * 7 * DAY + self.rng.range(0, DAY - 1);
        self.takeovers(&mut game, &mut taken);
        self.allegiances(&mut game);
        self.game_ended(&mut game, turns);
        self.ballots(&mut game);
        if let Some((a, b)) = grudge {
            for i in [a, b] {
                self.teams[i].free_at = game.end + 30 * DAY;
                if self.rng.permille(400) {
                    self.roster_change(&mut game, i);
                }
            }
        }
        game.events
    }

    /// The setup at the stream's start: grudge teams (one per 20,000 events,
    /// 2 to 24), a few seeded ratings, and the first monthly tick (last: each
    /// tick plans the next).
    pub(crate) fn mepbm_setup(&mut self, n: u64) -> Vec<Planned> {
        let mut setup = Vec::new();
        let teams = (n / 20_000).clamp(2, 24) as usize;
        for i in 0..teams {
            let members: Vec<String> = (0..7)
                .map(|_| {
                    self.next_member += 1;
                    name('m', self.next_member)
                })
                .collect();
            let team = Team {
                name: format!("team-{}", i + 1),
                coordinator: members[0].clone(),
                original: members.clone(),
                members,
                free_at: self.start,
            };
            let at = self.start + 60 * (i as i64 + 1);
            setup.push(plain(
                at,
                json!({"type": "mepbm.grudge_team_registered", "id": format!("reg-{}", team.name),
                    "at": stamp(at), "team": team.name, "coordinator": team.coordinator,
                    "members": team.members}),
            ));
            self.teams.push(team);
        }
        let seeded = (self.players / 25).min(400);
        for k in 0..seeded {
            let at = self.start + 2 * HOUR + k as i64;
            let system = *self.rng.pick(&["valar", "maia", "istari"]);
            let value = self.rng.range(1350, 1800);
            setup.push(plain(
                at,
                json!({"type": "mepbm.rating_seeded", "id": format!("seed-{k}-{system}"),
                    "at": stamp(at), "player": name('p', k), "system": system, "value": value}),
            ));
        }
        let at = self.start + 31 * DAY;
        setup.push(plain(at, tick(at)));
        setup
    }

    /// Two distinct teams free at `t`, if there are two.
    fn free_teams(&mut self, t: i64) -> Option<(usize, usize)> {
        let free: Vec<usize> = (0..self.teams.len())
            .filter(|&i| self.teams[i].free_at < t)
            .collect();
        if free.len() < 2 {
            return None;
        }
        let a = free[self.rng.below(free.len() as u64) as usize];
        let mut b = a;
        while b == a {
            b = free[self.rng.below(free.len() as u64) as usize];
        }
        Some((a, b))
    }

    /// The seats of a game: `n_side` nations a side (a grudge team's members
    /// among theirs), then `n_neutral` neutrals; and every player taken.
    fn seats(
        &mut self,
        pool: &Nations,
        grudge: Option<(usize, usize)>,
        n_side: usize,
        n_neutral: usize,
    ) -> (Vec<Seat>, Vec<String>) {
        let mut seats = Vec::new();
        let mut taken: Vec<String> = Vec::new();
        for (side, nations) in [("FP", pool.fp), ("DS", pool.ds)] {
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
            for (nation, (player, member)) in nations[..n_side].iter().zip(players) {
                seats.push(Seat {
                    nation,
                    player,
                    side,
                    member,
                });
            }
        }
        let neutrals = self.distinct(n_neutral, &mut taken);
        for (nation, player) in pool.neutral[..n_neutral].iter().zip(neutrals) {
            seats.push(Seat {
                nation,
                player,
                side: "neutral",
                member: false,
            });
        }
        (seats, taken)
    }

    /// The game's start: its scenario, positions and grudge teams.
    fn game_started(&self, game: &mut Game, scenario: &str, grudge: Option<(usize, usize)>) {
        let positions: Vec<Value> = game
            .seats
            .iter()
            .map(|s| json!({"nation": s.nation, "player": s.player, "side": s.side}))
            .collect();
        let (g, at) = (&game.name, game.start);
        let mut started = json!({"type": "mepbm.game_started", "id": format!("me-{g}-start"),
            "at": stamp(at), "game": g, "scenario": scenario, "positions": positions});
        if let Some((a, b)) = grudge {
            started["grudge"] = json!({"FP": self.teams[a].name, "DS": self.teams[b].name});
        }
        game.push(at, started);
    }

    /// Takeovers: a fresh player replaces a non-member controller.
    fn takeovers(&mut self, game: &mut Game, taken: &mut Vec<String>) {
        let (start, end) = (game.start, game.end);
        let takeovers = self.rng.below(4);
        for k in 0..takeovers {
            let i = self.rng.below(game.seats.len() as u64) as usize;
            if game.seats[i].member {
                continue;
            }
            let newp = self.distinct(1, taken).remove(0);
            // Increasing times, so the last planned takeover is the last folded.
            let slice = (end - start) / (takeovers as i64 + 1);
            let at = start + slice * k as i64 + self.rng.range(DAY, slice);
            let g = &game.name;
            let v = json!({"type": "mepbm.nation_taken_over", "id": format!("me-{g}-to{k}"),
                "at": stamp(at), "game": g, "nation": game.seats[i].nation, "player": newp});
            game.push(at, v);
            game.seats[i].player = newp;
        }
    }

    /// Neutrals may join a side.
    fn allegiances(&mut self, game: &mut Game) {
        let (start, end) = (game.start, game.end);
        let mut planned = Vec::new();
        for (i, seat) in game.seats.iter().enumerate() {
            if seat.side == "neutral" && self.rng.permille(500) {
                let at = start + self.rng.range(DAY, end - start - DAY);
                let side = if self.rng.permille(500) { "FP" } else { "DS" };
                let g = &game.name;
                let v = json!({"type": "mepbm.allegiance_changed", "id": format!("me-{g}-al{i}"),
                    "at": stamp(at), "game": g, "nation": seat.nation, "side": side});
                planned.push(plain(at, v));
            }
        }
        game.events.extend(planned);
    }

    /// The game's end: the winner and each nation's victory points.
    fn game_ended(&mut self, game: &mut Game, turns: i64) {
        let rng = &mut self.rng;
        let winner = match rng.below(20) {
            0..=8 => "FP",
            9..=17 => "DS",
            _ => "draw",
        };
        let nations: Vec<Value> = game
            .seats
            .iter()
            .map(|s| {
                let eliminated = rng.permille(120);
                let vp = if eliminated {
                    rng.range(0, 400)
                } else {
                    rng.range(300, 2800)
                };
                json!({"nation": s.nation, "victory_points": vp, "eliminated": eliminated})
            })
            .collect();
        let (g, end) = (&game.name, game.end);
        let v = json!({"type": "mepbm.game_ended", "id": format!("me-{g}-end"),
            "at": stamp(end), "game": g, "turn": turns, "winner": winner, "nations": nations});
        game.events.push(result(end, v));
    }

    /// Ballots: counted players of FP or DS, within 14 days.
    fn ballots(&mut self, game: &mut Game) {
        let rng = &mut self.rng;
        let seats = &game.seats;
        let mut voters: Vec<(&str, &str)> = Vec::new();
        for s in seats.iter().filter(|s| s.side != "neutral") {
            if !voters.iter().any(|v| v.0 == s.player) {
                voters.push((&s.player, s.side));
            }
        }
        let mut planned = Vec::new();
        for (voter, side) in voters {
            if !rng.permille(400) {
                continue;
            }
            let mut mates: Vec<&str> = Vec::new();
            let mut my_nations: Vec<&str> = Vec::new();
            let mut enemies: Vec<&str> = Vec::new();
            for s in seats {
                if s.side == side && s.player != voter {
                    if !mates.contains(&s.player.as_str()) {
                        mates.push(&s.player);
                    }
                    my_nations.push(s.nation);
                } else if s.side != side && s.side != "neutral" {
                    enemies.push(s.nation);
                }
            }
            rng.shuffle(&mut mates);
            rng.shuffle(&mut my_nations);
            let k1 = rng.range(1, 3) as usize;
            let k2 = rng.range(0, 3) as usize;
            let at = game.end + rng.range(HOUR, 13 * DAY);
            let g = &game.name;
            let mut v = json!({"type": "mepbm.vote_cast", "id": format!("me-{g}-v-{voter}"),
                "at": stamp(at), "game": g, "voter": voter,
                "best_team_player": &mates[..k1.min(mates.len())],
                "best_played_nation": &my_nations[..k2.min(my_nations.len())]});
            if rng.permille(700) {
                v["best_enemy_nation"] = json!(rng.pick(&enemies));
            }
            planned.push(plain(at, v));
        }
        game.events.extend(planned);
    }

    /// Team `i` changes its roster some weeks after a grudge game: never the
    /// coordinator (`members[0]`); an original member only while at least 5
    /// originals would remain.
    fn roster_change(&mut self, game: &mut Game, i: usize) {
        let at = game.end + 20 * DAY + self.rng.range(0, DAY);
        let team = &self.teams[i];
        let originals = team
            .members
            .iter()
            .filter(|m| team.original.contains(m))
            .count();
        let candidates: Vec<usize> = (1..team.members.len())
            .filter(|&k| originals > 5 || !team.original.contains(&team.members[k]))
            .collect();
        if candidates.is_empty() {
            return;
        }
        let out_i = candidates[self.rng.below(candidates.len() as u64) as usize];
        self.next_member += 1;
        let added = name('m', self.next_member);
        let team = &mut self.teams[i];
        let removed = team.members.remove(out_i);
        team.members.push(added.clone());
        let v = json!({"type": "mepbm.grudge_roster_changed",
            "id": format!("me-{}-roster-{}", game.name, team.name),
            "at": stamp(at), "team": team.name, "added": [added], "removed": [removed]});
        game.push(at, v);
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
