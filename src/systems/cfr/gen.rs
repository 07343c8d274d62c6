//! CFR series for the generator: points or elimination format, twenty events each.

use crate::systems::gen::{plain, result, stamp, Planned, Rng, System, World, DAY};
use serde_json::{json, Value};

impl World {
    pub(crate) fn cfr_series(&mut self, t: i64) -> Vec<Planned> {
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
            ev.push(result(at, v));
        }
        ev
    }
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
