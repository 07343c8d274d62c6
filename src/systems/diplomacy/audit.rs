//! The audit trail (`history`): each player's score of each game in every
//! table, with the sum behind it and the game's tournament, round, board,
//! power, rank and centres, so a person can redo it by hand.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::Signed;

use super::math::{self, Exact, Score};
use super::report::text;
use super::store::{GameView, Store};
use super::{ranks_for, scores, Rules, State, System, SYSTEMS};
use crate::systems::Record;
use crate::systems::{Change, Cx};

/// Running totals for the audit trail: table → player id → (sum, games).
pub(super) type AuditTotals = [BTreeMap<u32, (Score, usize)>; 4];

/// A stored game with its names resolved, as the formulas show it.
struct Board<'a> {
    view: &'a GameView,
    name: &'a str,
    /// `tournament T, round 2, board B, ` (empty outside a tournament).
    place: String,
    powers: Vec<&'a str>,
}

impl<'a> Board<'a> {
    fn new(st: &'a Store, view: &'a GameView) -> Board<'a> {
        let mut place = String::new();
        let parts = [
            (
                "tournament",
                view.tournament.map(|t| st.tournaments.name(t)),
            ),
            ("round", view.round.map(|r| st.labels.name(r))),
            ("board", view.board.map(|b| st.labels.name(b))),
        ];
        for (what, name) in parts {
            if let Some(name) = name {
                place.push_str(&format!("{what} {name}, "));
            }
        }
        Board {
            view,
            name: st.games.name(view.name),
            place,
            powers: view
                .positions
                .iter()
                .map(|p| st.powers.name(p.power))
                .collect(),
        }
    }

    fn n(&self) -> usize {
        self.view.positions.len()
    }

    fn seats(&self) -> Vec<math::Seat> {
        self.view.seats()
    }
}

impl State {
    /// The audit trail of the game just stored: every player's change in every table.
    pub(super) fn audit_game(&mut self, rec: &Record, cx: &mut Cx) {
        let view = self.store.game(self.store.len() - 1);
        // Totals are per player: a game none of whose players is audited (the
        // `history` of someone else) changes nothing the trail shows.
        let st = &self.store;
        let audited =
            |p: &super::store::Position| p.player.is_some_and(|id| cx.audits(st.players.name(id)));
        if !view.positions.iter().any(audited) {
            return;
        }
        let board = Board::new(st, &view);
        let totals = self.audit.get_or_insert_with(Default::default);
        for (t, sys) in SYSTEMS.into_iter().enumerate() {
            let Ok(scores) = scores(sys, &view, st.games.name(view.name)) else {
                continue;
            };
            for (i, score) in scores.iter().map(Exact::big).enumerate() {
                let Some(id) = view.positions[i].player else {
                    continue;
                };
                let player = st.players.name(id);
                let total = totals[t].entry(id).or_default();
                let old = (total.1 > 0).then(|| total.0.clone());
                total.0 += &score;
                total.1 += 1;
                let new = &total.0;
                cx.audit(player, || Change {
                    seq: rec.seq,
                    at: rec.at,
                    system: sys.name().into(),
                    subject: player.to_string(),
                    old: old.map(|o| text(&o, sys)),
                    new: text(new, sys),
                    formula: format!(
                        "{}{} = {}",
                        if score.is_negative() { "" } else { "+" },
                        text(&score, sys),
                        explain(sys, &board, i)
                    ),
                });
            }
        }
    }
}

/// The sum behind seat `i`'s score, and where it was earned.
fn explain(sys: System, b: &Board, i: usize) -> String {
    let r = &b.view.rules;
    let expr = match b.view.winner {
        Some(w) if w != i && b.view.concession => format!("0 (conceded to {})", b.powers[w]),
        Some(w) if w != i => format!("0 ({} soloed)", b.powers[w]),
        Some(_) if sys == System::Carnage => {
            let c = &r.carnage;
            let all: i128 = math::carnage_rank_points(b.n(), c.rank_points).iter().sum();
            format!(
                "{all} + {}{} ({}: every rank point, {} x (1 + ... + {}), plus the board's centers)",
                times(c.centre_points),
                c.centers_total,
                if b.view.concession { "concession" } else { "solo" },
                c.rank_points,
                b.n()
            )
        }
        Some(_) if b.view.concession => "1 (concession)".to_string(),
        Some(_) => "1 (solo)".to_string(),
        None => explain_draw(sys, b, i),
    };
    let seat = &b.view.positions[i].seat;
    let (best, worst) = ranks_for(sys, &b.seats(), r)[i];
    let place = if best == worst {
        format!("rank {best} of {}", b.n())
    } else {
        format!("ranks {best}-{worst} of {}", b.n())
    };
    format!(
        "{expr} [{}game {}, {}: {place}, {} centers]",
        b.place, b.name, b.powers[i], seat.centers
    )
}

/// `500 x ` before a count of centres, nothing for 1 point a centre.
fn times(points: i64) -> String {
    if points == 1 {
        String::new()
    } else {
        format!("{points} x ")
    }
}

fn explain_draw(sys: System, b: &Board, i: usize) -> String {
    let seats = b.seats();
    let seat = &seats[i];
    let r: &Rules = &b.view.rules;
    let ranks = ranks_for(sys, &seats, r)[i];
    match sys {
        System::Fibonacci => {
            let seq: Vec<BigInt> = math::fibonacci_sequence(b.n(), r.base);
            let total: BigInt = seq.iter().sum();
            let picked = math::elements_for_ranks(&seq, ranks);
            format!("{} / {total}", mean_text(&picked))
        }
        System::Carnage => {
            let c = &r.carnage;
            let points = math::carnage_rank_points(b.n(), c.rank_points);
            let picked = math::elements_for_ranks(&points, ranks);
            let bonus = match math::sole_leader(&seats) {
                Some((l, lead)) if l == i && c.leader_bonus > 0 => {
                    format!(" + {} x {lead} (lead over second)", c.leader_bonus)
                }
                _ => String::new(),
            };
            format!(
                "{} + {}{} centers{bonus}",
                mean_text(&picked),
                times(c.centre_points),
                seat.centers
            )
        }
        System::Dss => {
            let k = seats.iter().filter(|s| s.in_draw).count();
            match (seat.in_draw, seat.survives()) {
                (true, _) => format!("1 / {k} ({k}-way draw)"),
                (false, true) => format!("0 (left out of the {k}-way draw)"),
                (false, false) => format!("0 (out of the {k}-way draw)"),
            }
        }
        System::Sos => {
            let total: i64 = seats.iter().map(|s| s.centers * s.centers).sum();
            format!("{}^2 / {total} (sum of centers^2)", seat.centers)
        }
    }
}

/// `8`, or `(5 + 3) / 2` for tied ranks.
fn mean_text<T: std::fmt::Display>(picked: &[T]) -> String {
    match picked {
        [one] => one.to_string(),
        many => {
            let terms: Vec<String> = many.iter().map(|x| x.to_string()).collect();
            format!("({}) / {}", terms.join(" + "), many.len())
        }
    }
}
