//! Standings: the seven tables, each with `rank`, `player` (team for
//! Ainur, `Nation (scenario)` for Top nations) and `score`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::num::{json_number, ratio};
use crate::systems::compact::name_key;
use crate::systems::table::{Report, Table};
use crate::systems::{ranks, Selector};

use super::math::nazgul_percent;
use super::{params, Cx, ParKey, Ratings, State};

/// A Council category: table name, title, and its points.
type Category = (&'static str, &'static str, fn(&super::Council) -> i64);

/// Rows `(name, key, extra)` sorted by key descending, then name, each with
/// its rank (equal keys share one): the first `limit` of them (all for
/// `None`), and how many are left out. Only the rows kept are sorted: the
/// others are set apart by one selection, as a table holds its top rows
/// alone (`--limit`), which are the first rows of the whole sort, with the
/// same ranks (a row's rank depends only on the rows before it). Names of
/// distinct ids differ, so an unstable sort gives that one order; ratings
/// bunch up, so most comparisons reach the names: their `name_key` first,
/// the bytes only when it ties. Rows borrow their names: a name is copied
/// once, into a cell of a kept row.
fn ranked<K: Ord, T>(
    rows: Vec<(&str, K, T)>,
    limit: Option<usize>,
) -> (Vec<(usize, &str, K, T)>, usize) {
    let mut rows: Vec<(u64, &str, K, T)> = rows
        .into_iter()
        .map(|(name, k, t)| (name_key(name), name, k, t))
        .collect();
    let order = |a: &(u64, &str, K, T), b: &(u64, &str, K, T)| {
        let by_name = || a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1));
        b.2.cmp(&a.2).then_with(by_name)
    };
    let kept = limit.map_or(rows.len(), |n| n.min(rows.len()));
    let left_out = rows.len() - kept;
    if kept == 0 {
        return (Vec::new(), left_out);
    }
    if left_out > 0 {
        rows.select_nth_unstable_by(kept - 1, order);
        rows.truncate(kept);
    }
    rows.sort_unstable_by(order);
    let keys: Vec<&K> = rows.iter().map(|r| &r.2).collect();
    let places = ranks(&keys);
    let out = (places.into_iter().zip(rows))
        .map(|(rank, (_, name, k, t))| (rank, name, k, t))
        .collect();
    (out, left_out)
}

/// Push `rows` into `t`, ranked ([`ranked`]): the rows it keeps are sorted
/// and built by `cells`, the others only counted.
fn fill<K: Ord, T>(
    t: &mut Table,
    rows: Vec<(&str, K, T)>,
    mut cells: impl FnMut(usize, &str, K, T) -> Vec<Value>,
) {
    let (top, left_out) = ranked(rows, t.limit);
    for (rank, name, k, x) in top {
        t.push_with(|| cells(rank, name, k, x));
    }
    t.left_out += left_out;
}

/// A Nazgul key: the win percentage `100 * won / played` (`played > 0`),
/// compared by cross-multiplication (exact, no division), then games won.
#[derive(Clone, Copy, Debug)]
struct WinShare {
    won: u32,
    played: u32,
}

impl WinShare {
    /// Of a player who played (the order is a ratio's only for `played > 0`).
    fn of(won: u32, played: u32) -> Self {
        debug_assert!(played > 0, "a win share of no game");
        WinShare { won, played }
    }
}

impl Ord for WinShare {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        let (a, b) = (u64::from(self.won), u64::from(o.won));
        (a * u64::from(o.played))
            .cmp(&(b * u64::from(self.played)))
            .then(self.won.cmp(&o.won))
    }
}

impl PartialOrd for WinShare {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for WinShare {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}

impl Eq for WinShare {}

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
        let rows = map
            .iter()
            .map(|(p, r)| (self.names.name(p), r.value, r.games))
            .collect();
        fill(&mut t, rows, |rank, p, v, games| {
            vec![json!(rank), json!(p), json!(v), json!(games)]
        });
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
                    self.names.name(n),
                    r.map_or(start, |r| r.value),
                    (n, r.map_or(0, |r| r.games)),
                )
            })
            .collect();
        fill(&mut t, rows, |rank, team, v, (id, games)| {
            let (coord, members) = match self.teams.get(&id) {
                Some(tm) => {
                    let mut members: Vec<u32> = tm.members.iter().copied().collect();
                    self.names.sort_by_name(&mut members);
                    let names: Vec<&str> = members.iter().map(|&m| self.names.name(m)).collect();
                    (json!(self.names.name(tm.coordinator)), json!(names))
                }
                None => (Value::Null, Value::Null),
            };
            vec![
                json!(rank),
                json!(team),
                json!(v),
                json!(games),
                coord,
                members,
            ]
        });
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
            .map(|(p, c)| (self.names.name(p), c.total(), *c))
            .collect();
        fill(&mut main, rows, |rank, p, v, c| {
            vec![
                json!(rank),
                json!(p),
                json!(v),
                json!(c.team_player),
                json!(c.played_nation),
                json!(c.enemy_nation),
            ]
        });
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
                    .map(|(p, c)| (self.names.name(p), get(c), ()))
                    .filter(|r| r.1 != 0)
                    .collect();
                fill(&mut t, rows, |rank, p, v, ()| {
                    vec![json!(rank), json!(p), json!(v)]
                });
                t
            })
            .collect();
        report("council", main, extra)
    }

    /// Nazgul: win percentage, ties by more games won, then player: the
    /// name breaks every remaining tie, so no two rows share a rank.
    pub(super) fn nazgul_table(&self, sel: &Selector) -> Report {
        let mut t = Table::new(
            "nazgul",
            "Nazgul (win percentage, bofa excluded)",
            &["rank", "player", "score", "won", "played"],
        )
        .with_places(&["score"], 1)
        .keep(sel);
        let rows = self
            .nazgul
            .iter()
            .filter(|(_, n)| n.played > 0)
            .map(|(p, n)| (self.names.name(p), WinShare::of(n.won, n.played), ()))
            .collect();
        let mut place = 0;
        fill(&mut t, rows, |_, p, w, ()| {
            place += 1;
            vec![
                json!(place),
                json!(p),
                json_number(nazgul_percent(w.won, w.played), 1),
                json!(w.won),
                json!(w.played),
            ]
        });
        report("nazgul", t, vec![])
    }
}

#[cfg(test)]
mod tests {
    use super::{ranked, ranks, WinShare};

    #[test]
    fn equal_keys_share_a_rank() {
        assert_eq!(ranks(&[9, 7, 7, 5]), vec![1, 2, 2, 4]);
        assert_eq!(ranks::<i32>(&[]), Vec::<usize>::new());
    }

    #[test]
    fn ranked_rows_go_by_key_descending_then_name_with_shared_ranks() {
        // Names longer than 8 bytes that share their first 8 reach the bytes.
        let rows = vec![
            ("zed", 5, 'a'),
            ("anna", 7, 'b'),
            ("player-long-b", 5, 'c'),
            ("player-long-a", 5, 'd'),
            ("bo", 3, 'e'),
        ];
        let got: Vec<(usize, &str, i32)> = ranked(rows.clone(), None)
            .0
            .into_iter()
            .map(|(rank, name, k, _)| (rank, name, k))
            .collect();
        let want = vec![
            (1, "anna", 7),
            (2, "player-long-a", 5),
            (2, "player-long-b", 5),
            (2, "zed", 5),
            (5, "bo", 3),
        ];
        assert_eq!(got, want);
        // A limit keeps the first rows of that order, with the same ranks,
        // and counts the others.
        for limit in 0..=want.len() + 1 {
            let (top, left_out) = ranked(rows.clone(), Some(limit));
            let top: Vec<(usize, &str, i32)> = top.into_iter().map(|r| (r.0, r.1, r.2)).collect();
            let kept = limit.min(want.len());
            assert_eq!(
                (top.as_slice(), left_out),
                (&want[..kept], want.len() - kept)
            );
        }
    }

    #[test]
    fn a_limited_ranking_is_the_top_of_the_whole_one() {
        // 2,000 rows over 17 keys: long runs of ties; distinct names (7,919
        // is invertible modulo the prime 2,003) of 11 bytes sharing their
        // first 8 in runs, so comparisons reach the bytes.
        let names: Vec<String> = (0..2_000u32)
            .map(|i| format!("player-{:04}", i * 7_919 % 2_003))
            .collect();
        let rows: Vec<(&str, u32, u32)> = (0..2_000u32)
            .map(|i| (names[i as usize].as_str(), i * 31 % 17, i))
            .collect();
        let (all, none_out) = ranked(rows.clone(), None);
        assert_eq!((all.len(), none_out), (2_000, 0));
        for limit in [1, 2, 117, 118, 999, 1_999, 2_000] {
            let (top, left_out) = ranked(rows.clone(), Some(limit));
            assert_eq!(top.as_slice(), &all[..limit], "limit {limit}");
            assert_eq!(left_out, 2_000 - limit);
        }
    }

    #[test]
    fn a_win_share_orders_by_exact_percentage_then_games_won() {
        let w = WinShare::of;
        // 2/3 = 66.7 % is above 3/5 = 60 %, though it won fewer games.
        assert!(w(2, 3) > w(3, 5));
        // 1/3 and 2/6 are the same percentage: more games won is above.
        assert!(w(2, 6) > w(1, 3));
        assert_eq!(w(2, 6), w(2, 6));
        assert_ne!(w(1, 3), w(2, 6));
        // No overflow at the largest counts.
        assert!(w(u32::MAX, u32::MAX) > w(u32::MAX - 1, u32::MAX));
    }
}
