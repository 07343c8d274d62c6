//! Standings: the seven tables, each with `rank`, `player` (team for
//! Ainur, `Nation (scenario)` for Top nations) and `score`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::num::{json_number, ratio};
use crate::output::{Report, Table};
use crate::systems::compact::name_key;
use crate::systems::{ranks, Selector};

use super::math::nazgul_percent;
use super::{params, Cx, ParKey, Ratings, State};

/// A Council category: table name, title, and its points.
type Category = (&'static str, &'static str, fn(&super::Council) -> i64);

/// `(name, value)` pairs sorted by value descending, then name; with ranks.
fn ranked<T: Clone>(mut rows: Vec<(String, i64, T)>) -> Vec<(usize, String, i64, T)> {
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let keys: Vec<i64> = rows.iter().map(|r| r.1).collect();
    ranks(&keys)
        .into_iter()
        .zip(rows)
        .map(|(rank, (n, v, t))| (rank, n, v, t))
        .collect()
}

fn report(system: &str, main: Table, extra: Vec<Table>) -> Report {
    Report {
        system: system.into(),
        main,
        extra,
    }
}

impl State {
    /// Valar, Maia or Istari: every rated player, highest first.
    pub(super) fn rating_table(
        &self,
        name: &str,
        title: &str,
        map: &Ratings,
        sel: &Selector,
    ) -> Report {
        let mut t = Table::new(
            name,
            &format!("{title} ratings"),
            &["rank", "player", "score", "games"],
        )
        .keep(sel);
        // The order of `ranked` (value descending, then name), sorted on
        // borrowed names: each name is copied once, into its cell. Names of
        // distinct ids differ, so an unstable sort gives that one order.
        // Ratings bunch up, so most comparisons reach the names: their
        // `name_key` first, the bytes only when it ties.
        let mut rows: Vec<(&str, i64, u32, u64)> = map
            .iter()
            .map(|(p, r)| {
                let name = self.names.name(p);
                (name, r.value, r.games, name_key(name))
            })
            .collect();
        rows.sort_unstable_by(|a, b| {
            let by_name = || a.3.cmp(&b.3).then_with(|| a.0.cmp(b.0));
            b.1.cmp(&a.1).then_with(by_name)
        });
        let keys: Vec<i64> = rows.iter().map(|r| r.1).collect();
        for (rank, (p, v, games, _)) in ranks(&keys).into_iter().zip(rows) {
            t.push_with(|| vec![json!(rank), json!(p), json!(v), json!(games)]);
        }
        report(name, t, vec![])
    }

    /// Top nations: per scenario, each nation's par (mean victory points).
    pub(super) fn nations_table(&self) -> Report {
        let mut t = Table::new(
            "nations",
            "Top nations (Istari pars by scenario)",
            &[
                "rank", "player", "score", "scenario", "nation", "category", "games", "total_vp",
            ],
        );
        // (name, is a category, sum, games)
        type Row<'a> = (&'a str, bool, i64, u32);
        let mut by_scenario: BTreeMap<&str, Vec<Row>> = BTreeMap::new();
        for (&(scenario, key), par) in &self.pars {
            let category = matches!(key, ParKey::Category(_));
            by_scenario
                .entry(self.places.name(scenario))
                .or_default()
                .push((self.places.name(key.id()), category, par.sum, par.games));
        }
        for (scenario, mut rows) in by_scenario {
            // Sort by par descending (cross-multiplied: exact), then name.
            let par = |r: &Row| ratio(r.2.into(), r.3.max(1).into());
            rows.sort_by(|a, b| {
                par(b)
                    .cmp(&par(a))
                    .then_with(|| (a.0, a.1).cmp(&(b.0, b.1)))
            });
            let keys: Vec<_> = rows.iter().map(par).collect();
            for (rank, r) in ranks(&keys).into_iter().zip(&rows) {
                let (nation, category, player) = match r.1 {
                    false => (r.0, "", format!("{} ({scenario})", r.0)),
                    true => ("", r.0, format!("{} ({scenario}, category)", r.0)),
                };
                t.push(vec![
                    json!(rank),
                    json!(player),
                    json_number(par(r), 2),
                    json!(scenario),
                    json!(nation),
                    json!(category),
                    json!(r.3),
                    json!(r.2),
                ]);
            }
        }
        report("nations", t, vec![])
    }

    /// Ainur: every registered or rated grudge team.
    pub(super) fn ainur_table(&self, cx: &Cx) -> Report {
        let start = cx.params.get::<params::Ainur>().start;
        let mut t = Table::new(
            "ainur",
            "Ainur ratings (grudge teams)",
            &["rank", "player", "score", "games", "coordinator", "members"],
        );
        let mut ids: Vec<u32> = self.teams.keys().copied().chain(self.ainur.ids()).collect();
        ids.sort_unstable();
        ids.dedup();
        let rows = ids
            .into_iter()
            .map(|n| {
                let r = self.ainur.get(n).copied();
                (
                    self.names.name(n).to_string(),
                    r.map_or(start, |r| r.value),
                    (n, r.map_or(0, |r| r.games)),
                )
            })
            .collect();
        for (rank, team, v, (id, games)) in ranked(rows) {
            let (coord, members) = match self.teams.get(&id) {
                Some(tm) => {
                    let mut members: Vec<u32> = tm.members.iter().copied().collect();
                    self.names.sort_by_name(&mut members);
                    let names: Vec<&str> = members.iter().map(|&m| self.names.name(m)).collect();
                    (json!(self.names.name(tm.coordinator)), json!(names))
                }
                None => (Value::Null, Value::Null),
            };
            t.push(vec![
                json!(rank),
                json!(team),
                json!(v),
                json!(games),
                coord,
                members,
            ]);
        }
        report("ainur", t, vec![])
    }

    /// Council of the Wise: the total, then each category as its own table.
    pub(super) fn council_table(&self, sel: &Selector) -> Report {
        let mut main = Table::new(
            "council",
            "Council of the Wise (ballot points)",
            &[
                "rank",
                "player",
                "score",
                "team_player",
                "played_nation",
                "enemy_nation",
            ],
        )
        .keep(sel);
        let rows = self
            .council
            .iter()
            .map(|(p, c)| {
                (
                    self.names.name(p).to_string(),
                    c.team_player + c.played_nation + c.enemy_nation,
                    *c,
                )
            })
            .collect();
        for (rank, p, v, c) in ranked(rows) {
            main.push(vec![
                json!(rank),
                json!(p),
                json!(v),
                json!(c.team_player),
                json!(c.played_nation),
                json!(c.enemy_nation),
            ]);
        }
        let cats: [Category; 3] = [
            ("team_player", "Best team player", |c| c.team_player),
            ("played_nation", "Best played nation", |c| c.played_nation),
            ("enemy_nation", "Best played enemy nation", |c| {
                c.enemy_nation
            }),
        ];
        let extra = cats
            .iter()
            .map(|(name, title, get)| {
                let mut t = Table::new(name, title, &["rank", "player", "score"]).keep(sel);
                let rows = self
                    .council
                    .iter()
                    .map(|(p, c)| (self.names.name(p).to_string(), get(c), ()))
                    .filter(|r| r.1 != 0)
                    .collect();
                for (rank, p, v, ()) in ranked(rows) {
                    t.push(vec![json!(rank), json!(p), json!(v)]);
                }
                t
            })
            .collect();
        report("council", main, extra)
    }

    /// Nazgul: win percentage, ties by games won; equal on both share a rank.
    pub(super) fn nazgul_table(&self, sel: &Selector) -> Report {
        let mut t = Table::new(
            "nazgul",
            "Nazgul (win percentage, bofa excluded)",
            &["rank", "player", "score", "won", "played"],
        )
        .keep(sel);
        let mut rows: Vec<(&str, u32, u32)> = self
            .nazgul
            .iter()
            .filter(|(_, n)| n.played > 0)
            .map(|(p, n)| (self.names.name(p), n.won, n.played))
            .collect();
        let key = |r: &(&str, u32, u32)| (nazgul_percent(r.1, r.2), r.1);
        rows.sort_by(|a, b| key(b).cmp(&key(a)).then_with(|| a.0.cmp(b.0)));
        let keys: Vec<_> = rows.iter().map(key).collect();
        for (rank, r) in ranks(&keys).into_iter().zip(&rows) {
            t.push(vec![
                json!(rank),
                json!(r.0),
                json_number(nazgul_percent(r.1, r.2), 1),
                json!(r.1),
                json!(r.2),
            ]);
        }
        report("nazgul", t, vec![])
    }
}

#[cfg(test)]
mod tests {
    use super::ranks;

    #[test]
    fn equal_keys_share_a_rank() {
        assert_eq!(ranks(&[9, 7, 7, 5]), vec![1, 2, 2, 4]);
        assert_eq!(ranks::<i32>(&[]), Vec::<usize>::new());
    }
}
