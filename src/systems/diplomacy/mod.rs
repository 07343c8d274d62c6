//! `diplomacy`: finished Diplomacy games scored four ways, so one ledger can rank a
//! tournament under any of them: `fibonacci` (Fibonacci-Diplo, an online adaptation of
//! Carnage), `carnage` (face-to-face Carnage), `dss` (Draw-Size Scoring) and `sos`
//! (Sum-of-Squares), the last two offered for comparison.
//!
//! # Events
//! - `diplomacy.game_ended {game, result: solo|draw, winner?: power, powers: [{power,
//!   player (null: a surrendered position never replaced), centers, eliminated?: year}]}`.
//!
//! # Ranges
//! Checked at append, naming the field and the values allowed: `centers` 0 or
//! more, all powers together at most the board's `carnage.centers_total`;
//! `eliminated` a year from 1 to 9999 ([`events::ELIMINATED`]).
//!
//! # Rules
//! Within a game, survivors rank by centers, eliminated powers after them by elimination
//! year (later is better), surrendered positions tied last; tied positions share the
//! ranks they span ([`math::shared_ranks`]).
//! - **Fibonacci-Diplo**: the Fibonacci sequence of length N, starting at
//!   `fibonacci.base` (0: 0, 1, 1, 2, 3, 5, 8 for 7 powers; 1: 1, 1, 2, 3, 5 …); rank r
//!   gets element N − r, tied positions the mean of their ranks' elements; score = that /
//!   the sum of the sequence, so a game's scores add up to 1. A game needs
//!   `fibonacci.min_powers` (5) powers. Centers 10, 8, 6, 5, 3, 2 and one eliminated
//!   give 0.40, 0.25, 0.15, 0.10, 0.05, 0.05, 0; two tied at 2nd–3rd get 0.20 each.
//! - **Carnage**: on a draw, rank points `carnage.rank_points` × N (1000 × N) for 1st
//!   down to 1000 for Nth (tied ranks split theirs), plus one point per center; on a
//!   solo the winner takes every rank point plus the board's `carnage.centers_total`
//!   (34): 28034 on a 7-player board.
//! - **Draw-Size Scoring**: on a k-way draw each surviving position gets 1/k.
//! - **Sum-of-Squares**: centers² / Σ centers² over every position.
//! - A solo scores 1 for the winner and 0 for the others in Fibonacci, DSS and SoS.
//! - Standings per system: the sum of a player's game scores, then more games played,
//!   then player.
//!
//! Each game is scored with the parameters in force at its `at` (so a
//! `ledger.rules_changed` reaches later games only); the math lives in [`math`].
//!
//! **State**: the fold keeps only the games, compactly ([`store`]: about 100
//! bytes a game, names interned) with the rule set each was folded under. Scores
//! are a pure function of those, so a table is scored when it is rendered
//! ([`report`]): per position in exact big rationals, per player summed by
//! denominator ([`report::Acc`]) and turned into one exact rational at the end.
//! Running totals and formula text are built only when the fold keeps an audit
//! trail (`history`).
//!
//! # Decisions
//!
//! - **Surrendered positions keep their place in every system's arithmetic** and
//!   their share goes to nobody: they take the last ranks (Fibonacci, Carnage),
//!   count in the draw size when they still hold centers (DSS: draws include all
//!   survivors, and a position in civil disorder survives), and their centers
//!   count in Σ centers² (SoS). This is Fibonacci-Diplo's own treatment ("ranks vacant
//!   positions as tied for last") carried to the other systems, so no system
//!   rewards the others for a player walking away.
//! - **A power with no centers must carry its elimination year** (unless the
//!   position was surrendered, which ranks last anyway): the year is what ranks it.
//! - **A solo winner holds strictly more centers than any other power**, survives,
//!   and is held by a player; a draw names no winner.
//! - **The board's centers** are `carnage.centers_total` (34): a game may not
//!   report more centers in all; the same parameter is Carnage's solo bonus.
//! - **One player, one power**: a player listed for two powers of one game is an
//!   error (the standings count games played per player).
//! - **Fibonacci's minimum** (`fibonacci.min_powers`, 5) applies to solos too (Fibonacci-Diplo
//!   "supports variants with five or more players"). A smaller game still
//!   appends; Fibonacci lists it in its `refused` table with the reason and scores
//!   it for nobody. `fibonacci.base` is 0 or 1 ([`params`] refuses any other).
//! - **Standings order**: total, then more games played, then player name (name
//!   only orders rows: players equal on total and games share a rank).
//! - **Display**: totals are exact; JSON shows Fibonacci, DSS and SoS to 4
//!   decimals, Carnage as an integer (or to 2 decimals when a tie split a point).

pub mod events;
pub(crate) mod gen;
pub mod math;
pub mod params;
mod report;
mod store;
mod system;

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigInt;
use num_traits::Signed;
use serde::{Deserialize, Serialize};

use crate::events::{Event, Record};
use crate::systems::diplomacy::events::{
    Event as DipEvent, GameEnded, Outcome, PowerResult, ELIMINATED,
};

use super::{Change, Cx, Projection};
use math::{Score, Seat};
use report::text;

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["fibonacci", "carnage", "dss", "sos"];

/// Fewest powers any game may list (a structural bound, not a scoring rule).
const MIN_POWERS: usize = 2;

/// The four scoring systems, one per table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum System {
    Fibonacci,
    Carnage,
    Dss,
    Sos,
}

const SYSTEMS: [System; 4] = [System::Fibonacci, System::Carnage, System::Dss, System::Sos];

impl System {
    fn name(self) -> &'static str {
        match self {
            System::Fibonacci => "fibonacci",
            System::Carnage => "carnage",
            System::Dss => "dss",
            System::Sos => "sos",
        }
    }

    fn title(self) -> &'static str {
        match self {
            System::Fibonacci => "Fibonacci-Diplo",
            System::Carnage => "Carnage",
            System::Dss => "Draw-Size Scoring",
            System::Sos => "Sum-of-Squares",
        }
    }

    fn from_name(table: &str) -> Option<System> {
        SYSTEMS.into_iter().find(|s| s.name() == table)
    }

    /// Decimals shown for a non-integer score.
    fn places(self) -> u32 {
        match self {
            System::Carnage => 2,
            _ => 4,
        }
    }
}

/// The parameters in force when a game is folded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Rules {
    base: i64,
    min_powers: i64,
    rank_points: i64,
    centers_total: i64,
}

impl Rules {
    fn read(cx: &Cx) -> Rules {
        let (f, c) = (
            cx.params.get::<params::Fibonacci>(),
            cx.params.get::<params::Carnage>(),
        );
        Rules {
            base: f.base,
            min_powers: f.min_powers,
            rank_points: c.rank_points,
            centers_total: c.centers_total,
        }
    }
}

/// A finished game as the scoring sees it (built from a checked event).
#[derive(Debug, Clone)]
struct Board {
    game: String,
    seats: Vec<Seat>,
    powers: Vec<String>,
    players: Vec<Option<String>>,
    /// The solo winner's index; `None` for a draw.
    winner: Option<usize>,
    ranks: Vec<(usize, usize)>,
}

impl Board {
    /// `winner`: the index of the solo winner among `g.powers`.
    fn from_event(g: &GameEnded, winner: Option<usize>) -> Board {
        let seats: Vec<Seat> = g.powers.iter().map(seat).collect();
        Board {
            game: g.game.0.clone(),
            ranks: math::shared_ranks(&seats),
            seats,
            powers: g.powers.iter().map(|p| p.power.clone()).collect(),
            players: g.powers.iter().map(|p| p.player.clone()).collect(),
            winner,
        }
    }

    fn n(&self) -> usize {
        self.seats.len()
    }
}

fn seat(p: &PowerResult) -> Seat {
    Seat {
        centers: p.centers,
        eliminated: p.eliminated,
        surrendered: p.player.is_none(),
    }
}

/// One system's scores for a game, or why the system refuses it.
fn scores(sys: System, b: &Board, r: &Rules) -> Result<Vec<Score>, String> {
    match refusal(sys, b.n(), &b.game, r) {
        Some(reason) => Err(reason),
        None => Ok(big_scores(sys, &b.seats, b.winner, r)),
    }
}

/// The scores of a game the system does not refuse, as big rationals.
fn big_scores(sys: System, seats: &[Seat], winner: Option<usize>, r: &Rules) -> Vec<Score> {
    let n = seats.len();
    match (sys, winner) {
        (System::Carnage, Some(w)) => math::carnage_solo(n, w, r.rank_points, r.centers_total),
        (_, Some(w)) => math::solo(n, w),
        (System::Fibonacci, None) => math::fibonacci_draw(seats, r.base),
        (System::Carnage, None) => math::carnage_draw(seats, r.rank_points),
        (System::Dss, None) => math::dss_draw(seats),
        (System::Sos, None) => math::sos_draw(seats),
    }
}

/// The sum behind seat `i`'s score, so a person can redo it by hand.
fn explain(sys: System, b: &Board, r: &Rules, i: usize) -> String {
    let expr = match b.winner {
        Some(w) if w != i => format!("0 ({} soloed)", b.powers[w]),
        Some(_) if sys == System::Carnage => {
            let all: BigInt = math::carnage_rank_points(b.n(), r.rank_points).iter().sum();
            format!(
                "{all} + {} (solo: every rank point, {} x (1 + ... + {}), plus the board's centers)",
                r.centers_total,
                r.rank_points,
                b.n()
            )
        }
        Some(_) => "1 (solo)".to_string(),
        None => explain_draw(sys, b, r, i),
    };
    let seat = &b.seats[i];
    let (best, worst) = b.ranks[i];
    let place = if best == worst {
        format!("rank {best} of {}", b.n())
    } else {
        format!("ranks {best}-{worst} of {}", b.n())
    };
    format!(
        "{expr} [game {}, {}: {place}, {} centers]",
        b.game, b.powers[i], seat.centers
    )
}

fn explain_draw(sys: System, b: &Board, r: &Rules, i: usize) -> String {
    let seat = &b.seats[i];
    match sys {
        System::Fibonacci => {
            let seq = math::fibonacci_sequence(b.n(), r.base);
            let total: BigInt = seq.iter().sum();
            let picked = math::elements_for_ranks(&seq, b.ranks[i]);
            format!("{} / {total}", mean_text(&picked))
        }
        System::Carnage => {
            let points = math::carnage_rank_points(b.n(), r.rank_points);
            let picked = math::elements_for_ranks(&points, b.ranks[i]);
            format!("{} + {} centers", mean_text(&picked), seat.centers)
        }
        System::Dss => {
            let k = b.seats.iter().filter(|s| s.survives()).count();
            if seat.survives() {
                format!("1 / {k} ({k}-way draw)")
            } else {
                format!("0 (out of the {k}-way draw)")
            }
        }
        System::Sos => {
            let total: i64 = b.seats.iter().map(|s| s.centers * s.centers).sum();
            format!("{}^2 / {total} (sum of centers^2)", seat.centers)
        }
    }
}

/// `8`, or `(5 + 3) / 2` for tied ranks.
fn mean_text(picked: &[BigInt]) -> String {
    match picked {
        [one] => one.to_string(),
        many => {
            let terms: Vec<String> = many.iter().map(|x| x.to_string()).collect();
            format!("({}) / {}", terms.join(" + "), many.len())
        }
    }
}

/// Why a table does not score a game of `n` powers, if it does not.
fn refusal(sys: System, n: usize, game: &str, r: &Rules) -> Option<String> {
    if sys != System::Fibonacci {
        return None;
    }
    if (n as i64) < r.min_powers {
        return Some(format!(
            "game {game} has {n} powers; Fibonacci-Diplo needs at least {} (fibonacci.min_powers)",
            r.min_powers
        ));
    }
    if r.base != 0 && r.base != 1 {
        return Some(format!("fibonacci.base is {}; it must be 0 or 1", r.base));
    }
    None
}

/// Running totals for the audit trail: table → player id → (sum, games).
type AuditTotals = [BTreeMap<u32, (Score, usize)>; 4];

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// Every game folded, in fold order: a game is recorded once.
    store: store::Store,
    /// Kept only when the fold keeps an audit trail (not serialized: a
    /// checkpoint is a plain fold's state).
    #[serde(skip)]
    audit: Option<Box<AuditTotals>>,
}

impl State {
    /// The checkpoint section: its bincode (the store: the rest is not
    /// serialized).
    pub fn checkpoint_bytes(&self) -> bincode::Result<Vec<u8>> {
        use bincode::Options;
        bincode::DefaultOptions::new().serialize(&self.store)
    }

    fn check_game(&self, g: &GameEnded, cx: &Cx) -> Result<(), String> {
        let id = &g.game;
        if let Some(seq) = self.store.recorded(&id.0) {
            return Err(format!(
                "game {id} already has a result, recorded at seq {seq}; a game is recorded once \
                 (to correct it, void that record and append the corrected result)"
            ));
        }
        if g.powers.len() < MIN_POWERS {
            return Err(format!(
                "game {id} lists {} power(s); a game needs at least {MIN_POWERS}",
                g.powers.len()
            ));
        }
        check_powers(id, &g.powers)?;
        check_centers(
            id,
            &g.powers,
            cx.params.get::<params::Carnage>().centers_total,
        )?;
        check_result(id, g)
    }

    /// The audit trail of one game: every player's change in every table.
    fn audit_game(&mut self, board: &Board, rules: &Rules, rec: &Record, cx: &mut Cx) {
        // Totals are per player: a game none of whose players is audited (the
        // `history` of someone else) changes nothing the trail shows.
        if !board.players.iter().flatten().any(|p| cx.audits(p)) {
            return;
        }
        let totals = self.audit.get_or_insert_with(Default::default);
        for (t, sys) in SYSTEMS.into_iter().enumerate() {
            let Ok(scores) = scores(sys, board, rules) else {
                continue;
            };
            for (i, score) in scores.into_iter().enumerate() {
                let Some(player) = &board.players[i] else {
                    continue;
                };
                let id = self.store.players.get(player).unwrap_or(u32::MAX);
                let total = totals[t].entry(id).or_default();
                let old = (total.1 > 0).then(|| total.0.clone());
                total.0 += &score;
                total.1 += 1;
                let new = &total.0;
                let places = sys.places();
                cx.audit(player, || Change {
                    seq: rec.seq,
                    at: rec.at,
                    system: sys.name().into(),
                    subject: player.clone(),
                    old: old.map(|o| text(&o, places)),
                    new: text(new, places),
                    formula: format!(
                        "{}{} = {}",
                        if score.is_negative() { "" } else { "+" },
                        text(&score, places),
                        explain(sys, board, rules, i)
                    ),
                });
            }
        }
    }
}

/// Names, players, centers and elimination years, power by power.
fn check_powers(id: &crate::events::Ident, powers: &[PowerResult]) -> Result<(), String> {
    let mut names = BTreeSet::new();
    let mut players: BTreeMap<&str, &str> = BTreeMap::new();
    for p in powers {
        let power = &p.power;
        if power.trim().is_empty() {
            return Err(format!("game {id}: a power needs a name"));
        }
        if !names.insert(power.as_str()) {
            return Err(format!(
                "game {id}: power {power} is listed twice; power names are unique within a game"
            ));
        }
        if let Some(player) = &p.player {
            if player.trim().is_empty() {
                return Err(format!(
                    "game {id}: power {power}: player must be a name, or null for a surrendered position"
                ));
            }
            if let Some(other) = players.insert(player, power) {
                return Err(format!(
                    "game {id}: player {player} plays both {other} and {power}; a player holds one power in a game"
                ));
            }
        }
        if p.centers < 0 {
            return Err(format!(
                "game {id}: power {power} has {} centers; centers cannot be negative",
                p.centers
            ));
        }
        match (p.centers, p.eliminated) {
            (c, Some(year)) if c > 0 => {
                return Err(format!(
                    "game {id}: power {power} is eliminated in {year} but holds {c} centers; \
                     an eliminated power has no centers"
                ))
            }
            (0, None) if p.player.is_some() => {
                return Err(format!(
                    "game {id}: power {power} holds no centers but has no elimination year; \
                     give `eliminated` (the year it lost its last center) so it can be ranked"
                ))
            }
            _ => {}
        }
        if let Some(year) = p.eliminated {
            ELIMINATED
                .check(year)
                .map_err(|m| format!("game {id}: power {power}: {m}"))?;
        }
    }
    Ok(())
}

/// The board's total bounds the centers reported, and someone survives.
fn check_centers(
    id: &crate::events::Ident,
    powers: &[PowerResult],
    board: i64,
) -> Result<(), String> {
    let total = powers
        .iter()
        .fold(0i64, |acc, p| acc.saturating_add(p.centers));
    if total > board {
        return Err(format!(
            "game {id}: the powers hold {total} centers in all, more than the board's {board} \
             (carnage.centers_total)"
        ));
    }
    if total == 0 {
        return Err(format!(
            "game {id}: no power holds a center; a finished game has at least one survivor"
        ));
    }
    Ok(())
}

/// A solo names a surviving, held, board-topping winner; a draw names none.
fn check_result(id: &crate::events::Ident, g: &GameEnded) -> Result<(), String> {
    let winner = match (g.result, &g.winner) {
        (Outcome::Draw, None) => return Ok(()),
        (Outcome::Draw, Some(w)) => {
            return Err(format!(
                "game {id}: result is draw but winner {w} is named; a draw has no winner"
            ))
        }
        (Outcome::Solo, None) => {
            return Err(format!("game {id}: result is solo but no winner is named"))
        }
        (Outcome::Solo, Some(w)) => w,
    };
    let Some(w) = g.powers.iter().find(|p| &p.power == winner) else {
        let names: Vec<&str> = g.powers.iter().map(|p| p.power.as_str()).collect();
        return Err(format!(
            "game {id}: solo winner {winner} is not one of the game's powers ({})",
            names.join(", ")
        ));
    };
    if w.centers == 0 {
        return Err(format!(
            "game {id}: solo winner {winner} holds no centers; a winner survives the game"
        ));
    }
    if w.player.is_none() {
        return Err(format!(
            "game {id}: solo winner {winner} is a surrendered position (player null); a solo needs a player"
        ));
    }
    if let Some(rival) = g
        .powers
        .iter()
        .find(|p| &p.power != winner && p.centers >= w.centers)
    {
        return Err(format!(
            "game {id}: solo winner {winner} holds {} centers but {} holds {}; \
             a solo winner holds more centers than any other power",
            w.centers, rival.power, rival.centers
        ));
    }
    Ok(())
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        match &rec.event {
            Event::Diplomacy(DipEvent::GameEnded(g)) => self.check_game(g, cx),
            _ => Ok(()),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        let Event::Diplomacy(DipEvent::GameEnded(g)) = &rec.event else {
            return;
        };
        if self.store.recorded(&g.game.0).is_some() {
            return;
        }
        let winner = match g.result {
            Outcome::Draw => None,
            Outcome::Solo => {
                let Some(w) = g
                    .powers
                    .iter()
                    .position(|p| Some(&p.power) == g.winner.as_ref())
                else {
                    return;
                };
                Some(w)
            }
        };
        let rules = Rules::read(cx);
        let players = g.powers.iter().filter_map(|p| p.player.as_deref());
        self.store.players.prefetch(players);
        self.store.push(
            &g.game.0,
            rec.at,
            rec.seq,
            winner,
            rules,
            g.powers.iter().map(|p| store::NewPosition {
                power: &p.power,
                player: p.player.as_deref(),
                centers: p.centers,
                eliminated: p.eliminated,
            }),
        );
        if cx.auditing() {
            self.audit_game(&Board::from_event(g, winner), &rules, rec, cx);
        }
    }
}

#[cfg(test)]
mod tests;
