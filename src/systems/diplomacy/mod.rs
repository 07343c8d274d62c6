//! `diplomacy`: finished Diplomacy games scored four ways (SPEC §5), so one ledger
//! can rank a tournament under any of them:
//!
//! - `fibonacci`: Fibonacci-Diplo, the seed's online adaptation of Carnage;
//! - `carnage`: face-to-face Carnage (rank points plus one point per center);
//! - `dss`: Draw-Size Scoring; `sos`: Sum-of-Squares (the seed's comparisons).
//!
//! Each game is scored when it is folded, with the parameters in force at its
//! `at` (so a `ledger.rules_changed` reaches later games only); a table is the sum
//! of a player's game scores. The math lives in [`math`], free of ledger types.
//!
//! Decisions where SPEC §5 and the seed are silent:
//!
//! - **Surrendered positions keep their place in every system's arithmetic** and
//!   their share goes to nobody: they take the last ranks (Fibonacci, Carnage),
//!   count in the draw size when they still hold centers (DSS: draws include all
//!   survivors, and a position in civil disorder survives), and their centers
//!   count in Σ centers² (SoS). This is the seed's own treatment ("ranks vacant
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
//! - **Fibonacci's minimum** (`fibonacci.min_powers`, 5) applies to solos too (the
//!   seed: "supports variants with five or more players"). A smaller game still
//!   appends; Fibonacci lists it in its `refused` table with the reason and scores
//!   it for nobody. A `fibonacci.base` other than 0 or 1 refuses games the same way.
//! - **Standings order**: total, then more games played, then player name (name
//!   only orders rows: players equal on total and games share a rank).
//! - **Display**: totals are exact; JSON shows Fibonacci, DSS and SoS to 4
//!   decimals, Carnage as an integer (or to 2 decimals when a tie split a point).

pub mod math;

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};
use serde_json::{json, Value};

use crate::events::diplomacy::{Event as DipEvent, GameEnded, Outcome, PowerResult};
use crate::events::{Event, Record};
use crate::num::{decimal_string, json_number, ratio};
use crate::output::{Report, Table};
use crate::params::{Kind, ParamDef};
use crate::time::{self, Micros};

use super::{Change, Cx, Projection, Selector};
use math::{Score, Seat};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["fibonacci", "carnage", "dss", "sos"];

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[
    ParamDef {
        system: "fibonacci",
        name: "base",
        kind: Kind::Int,
        default: "0",
        doc: "first element of the sequence: 0 (0, 1, 1, 2, 3, 5 ..., the seed's pseudocode) or 1 (1, 1, 2, 3, 5 ...)",
    },
    ParamDef {
        system: "fibonacci",
        name: "min_powers",
        kind: Kind::Int,
        default: "5",
        doc: "fewest powers a game needs to be scored by Fibonacci-Diplo (smaller games are listed as refused)",
    },
    ParamDef {
        system: "carnage",
        name: "rank_points",
        kind: Kind::Int,
        default: "1000",
        doc: "rank points per place: N x rank_points for 1st down to rank_points for Nth",
    },
    ParamDef {
        system: "carnage",
        name: "centers_total",
        kind: Kind::Int,
        default: "34",
        doc: "supply centres on the board: a solo's bonus, and the most centers a game may report",
    },
];

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
#[derive(Debug, Clone, Copy)]
struct Rules {
    base: i64,
    min_powers: i64,
    rank_points: i64,
    centers_total: i64,
}

impl Rules {
    fn read(cx: &Cx) -> Rules {
        let p = &cx.params;
        Rules {
            base: p.int("fibonacci", "base"),
            min_powers: p.int("fibonacci", "min_powers"),
            rank_points: p.int("carnage", "rank_points"),
            centers_total: p.int("carnage", "centers_total"),
        }
    }
}

/// A finished game as the scoring sees it (built from a checked event).
#[derive(Debug, Clone)]
struct Board {
    game: String,
    at: Micros,
    seats: Vec<Seat>,
    powers: Vec<String>,
    players: Vec<Option<String>>,
    /// The solo winner's index; `None` for a draw.
    winner: Option<usize>,
    ranks: Vec<(usize, usize)>,
}

impl Board {
    /// `None` when the event does not fit (a solo without a listed winner).
    fn from_event(g: &GameEnded, at: Micros) -> Option<Board> {
        let seats: Vec<Seat> = g.powers.iter().map(seat).collect();
        let winner = match g.result {
            Outcome::Draw => None,
            Outcome::Solo => Some(
                g.powers
                    .iter()
                    .position(|p| Some(&p.power) == g.winner.as_ref())?,
            ),
        };
        Some(Board {
            game: g.game.0.clone(),
            at,
            ranks: math::shared_ranks(&seats),
            seats,
            powers: g.powers.iter().map(|p| p.power.clone()).collect(),
            players: g.powers.iter().map(|p| p.player.clone()).collect(),
            winner,
        })
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
    let n = b.n();
    Ok(match (sys, b.winner) {
        (System::Fibonacci, _) if (n as i64) < r.min_powers => {
            return Err(format!(
                "game {} has {n} powers; Fibonacci-Diplo needs at least {} (fibonacci.min_powers)",
                b.game, r.min_powers
            ))
        }
        (System::Fibonacci, _) if r.base != 0 && r.base != 1 => {
            return Err(format!("fibonacci.base is {}; it must be 0 or 1", r.base))
        }
        (System::Carnage, Some(w)) => math::carnage_solo(n, w, r.rank_points, r.centers_total),
        (_, Some(w)) => math::solo(n, w),
        (System::Fibonacci, None) => math::fibonacci_draw(&b.seats, r.base),
        (System::Carnage, None) => math::carnage_draw(&b.seats, r.rank_points),
        (System::Dss, None) => math::dss_draw(&b.seats),
        (System::Sos, None) => math::sos_draw(&b.seats),
    })
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

/// `score` rounded half away from zero to `places` decimals, as an exact rational.
fn rounded(score: &Score, places: u32) -> Option<crate::num::Rational> {
    let scale = 10i128.checked_pow(places)?;
    let n = (score * Score::from_integer(BigInt::from(scale)))
        .round()
        .to_integer()
        .to_i128()?;
    Some(ratio(n, scale))
}

/// A score as a JSON number: an integer when it is one, else `places` decimals.
fn number(score: &Score, places: u32) -> Value {
    let places = if score.is_integer() { 0 } else { places };
    rounded(score, places).map_or(Value::Null, |r| json_number(r, places))
}

/// A score as text without trailing zeros (`0.4`, `0.1667`, `28034`).
fn text(score: &Score, places: u32) -> String {
    let Some(r) = rounded(score, places) else {
        return score.to_string();
    };
    let s = decimal_string(r, places);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// One position's result in one system.
#[derive(Debug, Clone)]
struct Row {
    game: String,
    at: Micros,
    power: String,
    player: Option<String>,
    centers: i64,
    eliminated: Option<i64>,
    ranks: (usize, usize),
    score: Score,
}

/// A game a system would not score.
#[derive(Debug, Clone)]
struct Refusal {
    game: String,
    at: Micros,
    powers: usize,
    reason: String,
}

/// A player's running total in one system.
#[derive(Debug, Clone, Default)]
struct Total {
    sum: Score,
    /// `(game, score)` in fold order.
    games: Vec<(String, Score)>,
}

/// Everything one system has folded.
#[derive(Debug, Clone, Default)]
struct Tally {
    players: BTreeMap<String, Total>,
    rows: Vec<Row>,
    refused: Vec<Refusal>,
}

impl Tally {
    fn record(
        &mut self,
        sys: System,
        b: &Board,
        r: &Rules,
        scores: Vec<Score>,
        rec: &Record,
        cx: &mut Cx,
    ) {
        let mut rows = Vec::with_capacity(scores.len());
        for (i, score) in scores.into_iter().enumerate() {
            if let Some(player) = &b.players[i] {
                let total = self.players.entry(player.clone()).or_default();
                let old = (!total.games.is_empty()).then(|| total.sum.clone());
                total.sum += &score;
                total.games.push((b.game.clone(), score.clone()));
                let new = total.sum.clone();
                let places = sys.places();
                cx.audit(|| Change {
                    seq: rec.seq,
                    at: rec.at,
                    system: sys.name().into(),
                    subject: player.clone(),
                    old: old.map(|o| text(&o, places)),
                    new: text(&new, places),
                    formula: format!(
                        "{}{} = {}",
                        if score.is_negative() { "" } else { "+" },
                        text(&score, places),
                        explain(sys, b, r, i)
                    ),
                });
            }
            rows.push(Row {
                game: b.game.clone(),
                at: b.at,
                power: b.powers[i].clone(),
                player: b.players[i].clone(),
                centers: b.seats[i].centers,
                eliminated: b.seats[i].eliminated,
                ranks: b.ranks[i],
                score,
            });
        }
        // Games stay in fold order; within a game, best rank first.
        rows.sort_by(|a, b| (a.ranks.0, &a.power).cmp(&(b.ranks.0, &b.power)));
        self.rows.extend(rows);
    }
}

#[derive(Debug, Clone, Default)]
pub struct State {
    /// Every game folded, with the seq that recorded it: a game is recorded once.
    games: BTreeMap<String, u64>,
    fibonacci: Tally,
    carnage: Tally,
    dss: Tally,
    sos: Tally,
}

impl State {
    fn tally(&self, sys: System) -> &Tally {
        match sys {
            System::Fibonacci => &self.fibonacci,
            System::Carnage => &self.carnage,
            System::Dss => &self.dss,
            System::Sos => &self.sos,
        }
    }

    fn tally_mut(&mut self, sys: System) -> &mut Tally {
        match sys {
            System::Fibonacci => &mut self.fibonacci,
            System::Carnage => &mut self.carnage,
            System::Dss => &mut self.dss,
            System::Sos => &mut self.sos,
        }
    }

    fn check_game(&self, g: &GameEnded, cx: &Cx) -> Result<(), String> {
        let id = &g.game;
        if let Some(seq) = self.games.get(&id.0) {
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
        check_centers(id, &g.powers, Rules::read(cx).centers_total)?;
        check_result(id, g)
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
        if self.games.contains_key(&g.game.0) {
            return;
        }
        let Some(board) = Board::from_event(g, rec.at) else {
            return;
        };
        self.games.insert(board.game.clone(), rec.seq);
        let rules = Rules::read(cx);
        for sys in SYSTEMS {
            let tally = self.tally_mut(sys);
            match scores(sys, &board, &rules) {
                Ok(s) => tally.record(sys, &board, &rules, s, rec, cx),
                Err(reason) => tally.refused.push(Refusal {
                    game: board.game.clone(),
                    at: board.at,
                    powers: board.n(),
                    reason,
                }),
            }
        }
    }
}

impl State {
    pub fn standings(&self, table: &str, sel: &Selector, _cx: &Cx) -> Result<Report, String> {
        let sys =
            System::from_name(table).ok_or_else(|| format!("unknown diplomacy table {table:?}"))?;
        if let Some(t) = &sel.tournament {
            return Err(format!(
                "standings {table}: diplomacy games are not grouped by tournament (got --tournament {t})"
            ));
        }
        let tally = self.tally(sys);
        let mut extra = vec![games_table(sys, tally)];
        if sys == System::Fibonacci {
            extra.push(refused_table(tally));
        }
        Ok(Report {
            system: table.to_string(),
            main: main_table(sys, tally),
            extra,
        })
    }
}

/// Total, then more games, then name; equal totals and games share a rank.
fn main_table(sys: System, tally: &Tally) -> Table {
    let mut order: Vec<(&String, &Total)> = tally.players.iter().collect();
    order.sort_by(|a, b| {
        b.1.sum
            .cmp(&a.1.sum)
            .then(b.1.games.len().cmp(&a.1.games.len()))
            .then(a.0.cmp(b.0))
    });
    let mut t = Table::new(
        sys.name(),
        &format!("{} standings (sum over games)", sys.title()),
        &["rank", "player", "score", "games", "per_game"],
    );
    let mut rank = 0;
    for (i, (player, total)) in order.iter().enumerate() {
        let tied = i > 0 && {
            let prev = order[i - 1].1;
            prev.sum == total.sum && prev.games.len() == total.games.len()
        };
        if !tied {
            rank = i + 1;
        }
        let per_game: Vec<String> = total
            .games
            .iter()
            .map(|(g, s)| format!("{g}: {}", text(s, sys.places())))
            .collect();
        t.push(vec![
            json!(rank),
            json!(player),
            number(&total.sum, sys.places()),
            json!(total.games.len()),
            json!(per_game.join("; ")),
        ]);
    }
    t
}

/// Every scored position, game by game, best rank first.
fn games_table(sys: System, tally: &Tally) -> Table {
    let mut t = Table::new(
        "games",
        &format!("{}: every scored position", sys.title()),
        &[
            "game",
            "at",
            "power",
            "player",
            "centers",
            "eliminated",
            "rank",
            "ranks",
            "score",
        ],
    );
    for r in &tally.rows {
        let ranks = if r.ranks.0 == r.ranks.1 {
            r.ranks.0.to_string()
        } else {
            format!("{}-{}", r.ranks.0, r.ranks.1)
        };
        t.push(vec![
            json!(r.game),
            json!(time::format_short(r.at)),
            json!(r.power),
            r.player.clone().map_or(Value::Null, Value::from),
            json!(r.centers),
            r.eliminated.map_or(Value::Null, Value::from),
            json!(r.ranks.0),
            json!(ranks),
            number(&r.score, sys.places()),
        ]);
    }
    t
}

/// Games Fibonacci-Diplo would not score, with the reason.
fn refused_table(tally: &Tally) -> Table {
    let mut t = Table::new(
        "refused",
        "Fibonacci-Diplo: games not scored",
        &["game", "at", "powers", "reason"],
    );
    for r in &tally.refused {
        t.push(vec![
            json!(r.game),
            json!(time::format_short(r.at)),
            json!(r.powers),
            json!(r.reason),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::{fold, MemSource, Query};

    fn game(id: &str, at: &str, result: &str, winner: Option<&str>, powers: &str) -> String {
        let winner = winner.map_or(String::new(), |w| format!(r#","winner":"{w}""#));
        format!(
            r#"{{"type":"diplomacy.game_ended","at":"{at}","game":"{id}","result":"{result}"{winner},"powers":{powers}}}"#
        )
    }

    const SPEC: &str = r#"[{"power":"Austria","player":"A","centers":10},{"power":"England","player":"B","centers":8},{"power":"France","player":"C","centers":6},{"power":"Germany","player":"D","centers":5},{"power":"Italy","player":"E","centers":3},{"power":"Russia","player":"F","centers":2},{"power":"Turkey","player":"G","centers":0,"eliminated":1907}]"#;

    fn folded(lines: &[String], audit: bool) -> crate::fold::Folded {
        let src = MemSource::from_jsonl(&lines.join("\n")).unwrap();
        let q = Query {
            check: true,
            audit,
            ..Query::default()
        };
        fold(&src, &q).unwrap()
    }

    fn check_err(lines: &[String]) -> String {
        let src = MemSource::from_jsonl(&lines.join("\n")).unwrap();
        let q = Query {
            check: true,
            ..Query::default()
        };
        fold(&src, &q).unwrap_err().to_string()
    }

    #[test]
    fn spec_example_through_the_fold() {
        let f = folded(&[game("g1", "2024-03-09", "draw", None, SPEC)], true);
        let r = f
            .state
            .diplomacy
            .standings("fibonacci", &Selector::default(), &f.cx)
            .unwrap();
        let rows = r.main.json_rows();
        let scores: Vec<String> = rows.iter().map(|r| r["score"].to_string()).collect();
        assert_eq!(scores, ["0.4", "0.25", "0.15", "0.1", "0.05", "0.05", "0"]);
        assert_eq!(rows[0]["player"], "A");
        // Fifth and sixth are equal on score and games: they share rank 5.
        assert_eq!(rows[5]["rank"], 5);
        let change =
            f.cx.changes()
                .iter()
                .find(|c| c.subject == "B" && c.system == "fibonacci")
                .unwrap();
        assert_eq!(
            change.formula,
            "+0.25 = 5 / 20 [game g1, England: rank 2 of 7, 8 centers]"
        );
        let carn =
            f.cx.changes()
                .iter()
                .find(|c| c.subject == "A" && c.system == "carnage")
                .unwrap();
        assert_eq!(
            carn.formula,
            "+7010 = 7000 + 10 centers [game g1, Austria: rank 1 of 7, 10 centers]"
        );
    }

    #[test]
    fn validation_names_game_power_and_rule() {
        let bad = |powers: &str, result: &str, winner: Option<&str>| {
            check_err(&[game("g9", "2024-01-01", result, winner, powers)])
        };
        let two = |a: &str, b: &str| format!("[{a},{b}]");
        let p = |power: &str, player: &str, centers: i64| {
            format!(r#"{{"power":"{power}","player":"{player}","centers":{centers}}}"#)
        };
        let e = bad(&format!("[{}]", p("X", "a", 3)), "draw", None);
        assert!(e.contains("game g9 lists 1 power(s)"), "{e}");
        let e = bad(&two(&p("X", "a", 3), &p("X", "b", 3)), "draw", None);
        assert!(e.contains("power X is listed twice"), "{e}");
        let e = bad(&two(&p("X", "a", 3), &p("Y", "b", -1)), "draw", None);
        assert!(e.contains("power Y has -1 centers"), "{e}");
        let e = bad(&two(&p("X", "a", 30), &p("Y", "b", 5)), "draw", None);
        assert!(e.contains("35 centers in all") && e.contains("34"), "{e}");
        let e = bad(&two(&p("X", "a", 3), &p("Y", "a", 5)), "draw", None);
        assert!(e.contains("player a plays both X and Y"), "{e}");
        let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 0)), "draw", None);
        assert!(
            e.contains("power Y holds no centers but has no elimination year"),
            "{e}"
        );
        let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 2)), "solo", Some("Z"));
        assert!(
            e.contains("solo winner Z is not one of the game's powers (X, Y)"),
            "{e}"
        );
        let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 3)), "solo", Some("X"));
        assert!(e.contains("but Y holds 3"), "{e}");
        let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 2)), "draw", Some("X"));
        assert!(e.contains("a draw has no winner"), "{e}");
        let e = bad(&two(&p("X", "a", 3), &p("Y", "b", 2)), "solo", None);
        assert!(e.contains("no winner is named"), "{e}");
    }
}
