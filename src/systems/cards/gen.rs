//! Card-game tournaments for the generator: weekly rounds of three- and four-player
//! tables whose scores sum to zero.

use crate::systems::gen::{plain, result, stamp, Planned, System, World, DAY, HOUR};
use serde_json::{json, Value};

impl World {
    pub(crate) fn cards_tournament(&mut self, t: i64) -> Vec<Planned> {
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
                ev.push(result(
                    at,
                    json!({"type": "cards.match_result", "id": format!("{tour}-{id}"),
                    "at": stamp(at), "tournament": tour, "round": format!("{r}"),
                    "match": id, "scores": sc}),
                ));
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
}

/// Table sizes for a card round: threes, or threes and fours in point system 2.
pub(crate) fn table_sizes(n: usize, system: i64) -> Vec<usize> {
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
