//! The standings tables: every stored game scored for one system when the
//! table is rendered, each player's exact total, and scores shown as text and
//! JSON numbers.

use std::cell::RefCell;
use std::collections::BTreeMap;

use num_traits::ToPrimitive;
use serde_json::{json, Value};

use super::exact::exact_sum;
use super::math::{self, Exact, Score};
use super::order::{Entries, Ranked};
use super::store::GameView;
use super::{ranks_for, scores, State, System};
use crate::num::{decimal_string, json_number, ratio, round_scaled};
use crate::systems::table::{Report, Table};
use crate::systems::{ranks, Cx, Selector};
use crate::time;

/// `score` rounded half away from zero to `places` decimals, as an exact rational.
fn rounded(score: &Score, places: u32) -> Option<crate::num::Rational> {
    let scale = 10i128.checked_pow(places)?;
    Some(ratio(round_scaled(score, places).to_i128()?, scale))
}

/// A score as a JSON number: an integer when it is one, else `places` decimals.
pub(super) fn number(score: &Score, places: u32) -> Value {
    let places = if score.is_integer() { 0 } else { places };
    rounded(score, places).map_or(Value::Null, |r| json_number(r, places))
}

/// A score of `sys` as text, as its table shows it: `0.4000`, `0.1667` (4
/// decimals), a whole Carnage score `28034`, a split one `3503.50` (see
/// [`System::shown_places`]).
pub(super) fn text(score: &Score, sys: System) -> String {
    let places = sys.shown_places(score.is_integer());
    let Some(r) = rounded(score, places) else {
        return score.to_string();
    };
    decimal_string(r, places)
}

/// The scores of the large boards a table has scored again, by game
/// ([`State::player_scores`]).
type LargeBoards = RefCell<BTreeMap<u32, Option<Vec<Exact>>>>;

/// One table rendered from the store: standings, positions, refusals.
pub(super) struct Rendered {
    pub main: Table,
    pub games: Table,
    pub refused: Table,
    /// Is every score of the games scored a whole number?
    pub whole: bool,
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
        // Every score of the report with one number of decimals.
        let places = sys.shown_places(r.whole);
        let main = match only {
            None => r.main.with_places(&["score", "per_game"], places),
            Some((t, _)) => self.tournament_table(sys, t, &r.scored, places),
        };
        let mut extra = vec![r.games.with_places(&["score"], places)];
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
        let mut whole = true;
        let mut entries = Entries::new(st.players.len(), st.positions());
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
            whole &= scores.iter().all(Exact::is_whole);
            for (k, (p, score)) in g.positions.iter().zip(&scores).enumerate() {
                if let Some(player) = p.player {
                    entries.add(player, i as u32, k as u32, score);
                }
            }
            match games.full() {
                true => games.skip(g.positions.len()),
                false => self.game_rows(sys, &g, &scores, &mut games),
            }
            if let (Some(_), Some(round)) = (only, g.round) {
                let players = g.positions.iter().map(|p| p.player);
                let scores = players.zip(scores).filter_map(|(p, s)| Some((p?, s.big())));
                scored.push(Scored {
                    round,
                    scores: scores.collect(),
                });
            }
        }
        Rendered {
            main: self.main_table(sys, &entries, sel),
            games,
            refused,
            whole,
            scored,
        }
    }

    /// Total, then more games, then name; equal totals and games share a rank.
    /// `per_game` is a list of `{"game", "score"}` objects, oldest game first.
    fn main_table(&self, sys: System, entries: &Entries, sel: &Selector) -> Table {
        let st = &self.store;
        let name = |id: u32| st.players.name(id);
        let large = LargeBoards::default();
        let order = entries.order(name, |id| self.total(sys, entries, id, &large));
        let mut t = Table::new(
            sys.name(),
            &format!("{} standings (sum over games)", sys.title()),
            &["rank", "player", "score", "games", "per_game"],
        )
        .keep(sel);
        let games = |r: &Ranked| entries.acc(r.player).games;
        let keys: Vec<_> = order.iter().map(|r| (r.class, games(r))).collect();
        for (rank, r) in ranks(&keys).into_iter().zip(&order) {
            t.push_with(|| {
                let per_game = entries.games_of(r.player);
                let scores = self.player_scores(sys, &per_game, &large);
                let total = self.total(sys, entries, r.player, &large);
                let per_game = per_game.iter().zip(&scores).map(|(&(i, _), s)| {
                    let score = s.as_ref().map(|s| number(&s.big(), sys.places()));
                    let game = st.games.name(st.game(i as usize).name);
                    json!({"game": game, "score": score.unwrap_or(Value::Null)})
                });
                vec![
                    json!(rank),
                    json!(name(r.player)),
                    number(&total, sys.places()),
                    json!(games(r)),
                    Value::Array(per_game.collect()),
                ]
            });
        }
        t
    }

    /// A player's exact total: the running one if it stayed in machine
    /// integers, else their games scored again and summed.
    fn total(&self, sys: System, entries: &Entries, player: u32, large: &LargeBoards) -> Score {
        entries.acc(player).total.exact().unwrap_or_else(|| {
            let scores = self.player_scores(sys, &entries.games_of(player), large);
            exact_sum(&scores.into_iter().flatten().collect::<Vec<_>>())
        })
    }

    /// The scores behind a player's `per_game` entries (`None`: a game the
    /// system refuses; a player's entries hold only games it scored, so
    /// none is `None` and a total sums every one). A board of more than
    /// [`math::FIB_SMALL`] powers is scored once per table however many of
    /// its players ask (`large`): scored once per player, a board of N
    /// powers would cost N times N big fractions.
    fn player_scores(
        &self,
        sys: System,
        per_game: &[(u32, u32)],
        large: &LargeBoards,
    ) -> Vec<Option<Exact>> {
        let st = &self.store;
        let score = |i: u32| {
            let g = st.game(i as usize);
            scores(sys, &g, st.games.name(g.name)).ok()
        };
        (per_game.iter())
            .map(|&(i, k)| {
                let k = k as usize;
                if st.game(i as usize).positions.len() <= math::FIB_SMALL {
                    let mut scores = score(i)?;
                    return (k < scores.len()).then(|| scores.swap_remove(k));
                }
                let mut large = large.borrow_mut();
                let scores = large.entry(i).or_insert_with(|| score(i));
                scores.as_ref()?.get(k).cloned()
            })
            .collect()
    }

    /// The `games` rows of one game, best rank first.
    fn game_rows(&self, sys: System, g: &GameView, scores: &[Exact], games: &mut Table) {
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
                number(&scores[k].big(), sys.places()),
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
