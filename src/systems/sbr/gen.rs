//! Space Base Race tournaments for the generator: seeding games against bots, group
//! matches, a bracket and the final.

use super::math::PIECES;
use crate::systems::gen::{plain, result, stamp, Planned, Rng, System, World, DAY, HOUR};
use serde_json::{json, Value};

const COLORS: [&str; 4] = ["red", "yellow", "green", "blue"];

impl World {
    pub(crate) fn sbr_tournament(&mut self, t: i64) -> Vec<Planned> {
        let n = self.next_id(System::Sbr);
        let tour = format!("sbr-{n}");
        let size = match self.rng.below(4) {
            0 => 8,
            3 => 32,
            _ => 16,
        };
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
            ev.push(result(
                at,
                json!({"type": "sbr.game_played", "id": format!("{tour}-s{}", i + 1),
                "at": stamp(at), "tournament": tour, "stage": "seeding",
                "match": format!("s{}", i + 1), "game": 1, "seats": seats}),
            ));
        }
        seeds.sort_by_key(|b| std::cmp::Reverse(b.0));
        // rank[i] = seed rank of player i (0 = best)
        let mut rank = vec![0usize; size];
        for (r, &(_, i)) in seeds.iter().enumerate() {
            rank[i] = r;
        }
        let by_seed: Vec<usize> = seeds.iter().map(|s| s.1).collect();
        // Groups of 16 formed from the seeding as the ledger forms them, each
        // played down to one match; its top 2 reach the bracket's final.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (&p, g) in by_seed.iter().zip(super::math::snake_groups(size, 16)) {
            let g = g as usize - 1;
            groups.resize(groups.len().max(g + 1), Vec::new());
            groups[g].push(p);
        }
        let mut finalists: Vec<Vec<usize>> = Vec::new();
        for (g, members) in groups.iter().enumerate() {
            let mut at = t + DAY;
            finalists.push(self.sbr_group(
                &tour,
                g + 1,
                members,
                &players,
                &rank,
                &mut at,
                &mut ev,
            ));
        }
        let fin: Vec<usize> = match finalists.as_slice() {
            [a, b] => vec![a[0], b[1], b[0], a[1]],
            _ => finalists.concat(),
        };
        let mut at = t + 3 * DAY;
        let rng = &mut self.rng;
        sbr_match(
            rng, &mut ev, &tour, "bracket", "final", &fin, &players, &rank, &mut at,
        );
        ev
    }
}

/// A player's bases in one game, and the score they make.
impl World {
    /// Group `g` (its `members` in seeding order) played down to one match:
    /// round 1 deals them into matches of 4 in snake order, each later round
    /// pairs the matches before it (their 1st and 2nd); the last match's 1st
    /// and 2nd are returned, in that order.
    #[allow(clippy::too_many_arguments)]
    fn sbr_group(
        &mut self,
        tour: &str,
        g: usize,
        members: &[usize],
        players: &[String],
        rank: &[usize],
        at: &mut i64,
        ev: &mut Vec<Planned>,
    ) -> Vec<usize> {
        let tables = members.len().div_ceil(4);
        let mut round: Vec<Vec<usize>> = vec![Vec::new(); tables];
        for (k, &p) in members.iter().enumerate() {
            let lap = k / tables;
            let i = if lap.is_multiple_of(2) {
                k % tables
            } else {
                tables - 1 - k % tables
            };
            round[i].push(p);
        }
        let mut r = 1;
        loop {
            let mut advanced = Vec::new();
            for (i, table) in round.iter().enumerate() {
                let id = format!("g{g}-r{r}-m{}", i + 1);
                let top = sbr_match(
                    &mut self.rng,
                    ev,
                    tour,
                    "group",
                    &id,
                    table,
                    players,
                    rank,
                    at,
                );
                advanced.push(top[..2.min(top.len())].to_vec());
            }
            if advanced.len() == 1 {
                return advanced.remove(0);
            }
            round = advanced
                .chunks(2)
                .map(|pair| match pair {
                    [a, b] => vec![a[0], b[1], b[0], a[1]],
                    _ => pair.concat(),
                })
                .collect();
            r += 1;
            *at += HOUR;
        }
    }
}

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
        let mut sorted = sum[..table.len()].to_vec();
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
        // Bots fill the seats of a table of fewer than 4.
        for i in table.len()..4 {
            let c = (i + g) % 4;
            seats.push((
                c,
                json!({"seat": COLORS[c], "player": null, "score": rng.range(20, 80)}),
            ));
        }
        seats.sort_by_key(|s| s.0);
        let seats: Vec<Value> = seats.into_iter().map(|s| s.1).collect();
        *at += 40 * 60;
        ev.push(result(
            *at,
            json!({"type": "sbr.game_played", "id": format!("{tour}-{id}-{}", g + 1),
            "at": stamp(*at), "tournament": tour, "stage": stage, "match": id,
            "game": g + 1, "seats": seats}),
        ));
    }
    *at += 2 * HOUR;
    let mut order: Vec<usize> = (0..table.len()).collect();
    order.sort_by(|&a, &b| {
        sum[b]
            .cmp(&sum[a])
            .then(best[b].cmp(&best[a]))
            .then(rank[table[a]].cmp(&rank[table[b]]))
    });
    order.into_iter().map(|i| table[i]).collect()
}
