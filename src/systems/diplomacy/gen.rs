//! Diplomacy games for the generator: one result per game, solo or draw, with
//! eliminations and surrendered powers.

use super::check::STANDARD_POWERS as POWERS;
use crate::systems::gen::{result, stamp, Planned, System, World};
use serde_json::{json, Value};

impl World {
    pub(crate) fn diplomacy_game(&mut self, t: i64) -> Vec<Planned> {
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
        vec![result(t, v)]
    }
}
