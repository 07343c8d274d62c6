//! The standings tables: every stored game scored for one system when the
//! table is rendered, each player's exact total, and scores shown as text and
//! JSON numbers.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive};
use serde_json::{json, Value};

use super::math::Score;
use super::store::GameView;
use super::{ranks_for, scores, State, System};
use crate::num::{decimal_trimmed, json_number, ratio};
use crate::output::{Report, Table};
use crate::systems::{ranks, Cx, Selector};
use crate::time;

/// `score` rounded half away from zero to `places` decimals, as an exact rational.
/// (`numer * 10^places / denom`, divided once: no gcd.)
fn rounded(score: &Score, places: u32) -> Option<crate::num::Rational> {
    let scale = 10u64.checked_pow(places)?;
    let d = score.denom(); // > 0
    let (q, m) = (score.numer() * scale).div_rem(d);
    // The remainder has the numerator's sign: at least half of d rounds away.
    let q = match m.magnitude() * 2u32 >= *d.magnitude() {
        true => q + m.signum(),
        false => q,
    };
    Some(ratio(q.to_i128()?, scale.into()))
}

/// A score as a JSON number: an integer when it is one, else `places` decimals.
pub(super) fn number(score: &Score, places: u32) -> Value {
    let places = if score.is_integer() { 0 } else { places };
    rounded(score, places).map_or(Value::Null, |r| json_number(r, places))
}

/// A score as text without trailing zeros (`0.4`, `0.1667`, `28034`).
pub(super) fn text(score: &Score, places: u32) -> String {
    let Some(r) = rounded(score, places) else {
        return score.to_string();
    };
    decimal_trimmed(r, places)
}

/// A player's exact total in one table: numerators summed per denominator,
/// and only at the end one rational over the denominators' lcm. (Adding
/// rationals one game at a time costs a gcd of the running total per game:
/// Sum-of-Squares denominators differ from game to game, so a season's total
/// has hundreds of digits.)
#[derive(Debug, Default)]
pub(super) struct Acc {
    /// Denominator → the sum of the numerators of the scores over it.
    by_denom: BTreeMap<BigInt, BigInt>,
    games: usize,
    /// Each game's (store index, position), in fold order: scored again
    /// only for the rows a table keeps.
    per_game: Vec<(u32, u32)>,
}

impl Acc {
    pub(super) fn add(&mut self, score: &Score) {
        match self.by_denom.get_mut(score.denom()) {
            Some(n) => *n += score.numer(),
            None => {
                self.by_denom
                    .insert(score.denom().clone(), score.numer().clone());
            }
        }
    }

    pub(super) fn total(&self) -> Score {
        let lcm = self
            .by_denom
            .keys()
            .fold(BigInt::from(1), |lcm, d| lcm.lcm(d));
        let numer: BigInt = self.by_denom.iter().map(|(d, n)| &lcm / d * n).sum();
        Score::new(numer, lcm)
    }
}

/// One table rendered from the store: standings, positions, refusals.
pub(super) struct Rendered {
    pub main: Table,
    pub games: Table,
    pub refused: Table,
    /// Each scored game's round and its players' scores (tournament view only).
    pub scored: Vec<Scored>,
}

/// One scored game of a tournament: its round and its players' scores.
pub(super) struct Scored {
    pub round: u32,
    pub scores: Vec<(u32, Score)>,
}

impl State {
    pub fn standings(&self, table: &str, sel: &Selector, _cx: &Cx) -> Result<Report, String> {
        let sys =
            System::from_name(table).ok_or_else(|| format!("unknown diplomacy table {table:?}"))?;
        let only = match &sel.tournament {
            None => None,
            Some(t) => Some((t, self.tournament_id(table, t)?)),
        };
        let r = self.render(sys, only.map(|(_, id)| id), sel);
        let main = match only {
            None => r.main,
            Some((t, _)) => self.tournament_table(sys, t, &r.scored),
        };
        let mut extra = vec![r.games];
        if sys == System::Fibonacci {
            extra.push(r.refused);
        }
        Ok(Report {
            system: table.to_string(),
            main,
            extra,
        })
    }

    /// The interned id of tournament `t`, or an error naming the known ones.
    fn tournament_id(&self, table: &str, t: &str) -> Result<u32, String> {
        self.store.tournaments.get(t).ok_or_else(|| {
            let known = self.tournaments();
            format!(
                "standings {table}: unknown diplomacy tournament {t:?} (known: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        })
    }

    /// Score every stored game for `sys` (only tournament `only`'s, if given), in
    /// fold order.
    fn render(&self, sys: System, only: Option<u32>, sel: &Selector) -> Rendered {
        let st = &self.store;
        let mut games = games_table(sys).keep(sel);
        let mut refused = Table::new(
            "refused",
            "Fibonacci-Diplo: games not scored",
            &["game", "at", "powers", "reason"],
        );
        let mut scored = Vec::new();
        let mut accs: Vec<Option<Acc>> = Vec::new();
        accs.resize_with(st.players.len(), || None);
        for i in 0..st.len() {
            let g = st.game(i);
            if only.is_some() && g.tournament != only {
                continue;
            }
            let name = st.games.name(g.name);
            let scores = match scores(sys, &g, name) {
                Ok(scores) => scores,
                Err(reason) => {
                    refused.push(vec![
                        json!(name),
                        json!(time::format_short(g.at)),
                        json!(g.positions.len()),
                        json!(reason),
                    ]);
                    continue;
                }
            };
            for (k, (p, score)) in g.positions.iter().zip(&scores).enumerate() {
                let Some(player) = p.player else { continue };
                let acc = accs[player as usize].get_or_insert_with(Acc::default);
                acc.add(score);
                acc.games += 1;
                acc.per_game.push((i as u32, k as u32));
            }
            match games.full() {
                true => games.skip(g.positions.len()),
                false => self.game_rows(sys, &g, &scores, &mut games),
            }
            if let (Some(_), Some(round)) = (only, g.round) {
                let players = g.positions.iter().map(|p| p.player);
                let scores = players.zip(scores).filter_map(|(p, s)| Some((p?, s)));
                scored.push(Scored {
                    round,
                    scores: scores.collect(),
                });
            }
        }
        let totals: Vec<(&str, Score, Acc)> = accs
            .into_iter()
            .enumerate()
            .filter_map(|(id, acc)| {
                let acc = acc?;
                Some((st.players.name(id as u32), acc.total(), acc))
            })
            .collect();
        Rendered {
            main: self.main_table(sys, totals, sel),
            games,
            refused,
            scored,
        }
    }

    /// Total, then more games, then name; equal totals and games share a rank.
    /// `per_game` is a list of `{"game", "score"}` objects, oldest game first.
    fn main_table(&self, sys: System, mut order: Vec<(&str, Score, Acc)>, sel: &Selector) -> Table {
        order.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then(b.2.games.cmp(&a.2.games))
                .then(a.0.cmp(b.0))
        });
        let mut t = Table::new(
            sys.name(),
            &format!("{} standings (sum over games)", sys.title()),
            &["rank", "player", "score", "games", "per_game"],
        )
        .keep(sel);
        let keys: Vec<_> = order.iter().map(|(_, sum, acc)| (sum, acc.games)).collect();
        for (rank, (player, sum, acc)) in ranks(&keys).into_iter().zip(&order) {
            t.push_with(|| {
                vec![
                    json!(rank),
                    json!(player),
                    number(sum, sys.places()),
                    json!(acc.games),
                    Value::Array(
                        acc.per_game
                            .iter()
                            .map(|&(i, k)| self.game_score(sys, i, k))
                            .collect(),
                    ),
                ]
            });
        }
        t
    }

    /// `{"game", "score"}` of position `k` of stored game `i`, scored for `sys`.
    fn game_score(&self, sys: System, i: u32, k: u32) -> Value {
        let g = self.store.game(i as usize);
        let name = self.store.games.name(g.name);
        let score = scores(sys, &g, name)
            .ok()
            .and_then(|s| s.get(k as usize).map(|s| number(s, sys.places())));
        json!({"game": name, "score": score.unwrap_or(Value::Null)})
    }

    /// The `games` rows of one game, best rank first.
    fn game_rows(&self, sys: System, g: &GameView, scores: &[Score], games: &mut Table) {
        let st = &self.store;
        let ranks = ranks_for(sys, &g.seats(), &g.rules);
        let label = |id: Option<u32>, names: &crate::systems::compact::Interner| {
            id.map_or(Value::Null, |id| json!(names.name(id)))
        };
        let result = match (g.winner, g.concession) {
            (None, _) => "draw",
            (Some(_), false) => "solo",
            (Some(_), true) => "concession",
        };
        let mut order: Vec<usize> = (0..g.positions.len()).collect();
        order.sort_by(|&a, &b| {
            (ranks[a].0, st.powers.name(g.positions[a].power))
                .cmp(&(ranks[b].0, st.powers.name(g.positions[b].power)))
        });
        for k in order {
            let p = &g.positions[k];
            let (best, worst) = ranks[k];
            let shown = if best == worst {
                best.to_string()
            } else {
                format!("{best}-{worst}")
            };
            games.push(vec![
                json!(st.games.name(g.name)),
                json!(time::format_short(g.at)),
                label(g.tournament, &st.tournaments),
                label(g.round, &st.labels),
                label(g.board, &st.labels),
                json!(result),
                json!(st.powers.name(p.power)),
                p.player
                    .map_or(Value::Null, |id| json!(st.players.name(id))),
                json!(p.seat.centers),
                p.seat.eliminated.map_or(Value::Null, Value::from),
                json!(best),
                json!(shown),
                number(&scores[k], sys.places()),
            ]);
        }
    }
}

fn games_table(sys: System) -> Table {
    Table::new(
        "games",
        &format!("{}: every scored position", sys.title()),
        &[
            "game",
            "at",
            "tournament",
            "round",
            "board",
            "result",
            "power",
            "player",
            "centers",
            "eliminated",
            "rank",
            "ranks",
            "score",
        ],
    )
}
