//! `cards`: the card-game league (SPEC §4, seed 003): time-limited tournaments run
//! side by side, each with its own point system; rounds are scheduled
//! independently of results, and results are accepted only for scheduled matches.
//!
//! - [`points`]: the pure point math (placements, shared places, score points).
//! - `check`: every rule of §4, enforced at append in `(at, seq)` order.
//! - `report`: `standings cards` (the tournaments) and `standings cards
//!   --tournament T` (points, total score, matches played).
//!
//! # Decisions where the SPEC is silent
//! - **Interval ends are inclusive, and a plain date means the whole day**: an
//!   `ends` at exactly midnight UTC (what `"2013-01-13"` parses to) covers that
//!   whole day, as `--as-of` does. `starts` means from that instant.
//! - **Scheduling time**: a round must be scheduled (`at`) no later than its end:
//!   a round drawn after it is over could never receive a result.
//! - A round needs at least one match; round ids are unique in a tournament,
//!   match ids unique in a round; player names must not be empty.
//! - **Table strength** is required in system 2 and rejected in system 1 (it has
//!   no meaning there). Two tables of a round may have the same strength: the
//!   seed only bounds it by 1 and the number of matches.
//! - A result lists each scheduled player exactly once (in any order).
//! - **Ranks**: players equal on points and total score share a rank (player id
//!   only orders them for display; it is not a sporting tie-break).
//! - The `score` column of a tournament's standings is the player's points (the
//!   ranking value, SPEC §1.8); `total_score` is the sum of match scores.
//! - `standings cards` without `--tournament` lists the tournaments: columns
//!   `tournament, point_system, starts, ends, rounds, matches, results, players,
//!   leader, leader_points` (no rank/player/score: it is not a ranking).
//! - Points are computed with the parameters in force at the result's `at`; a
//!   points table shorter than the number of places gives 0 for missing places and
//!   a non-positive `score_divisor` gives no score points (the fold never fails).

mod check;
pub mod points;
mod report;

use std::collections::BTreeMap;

use crate::events::cards::{Event as CardsEvent, MatchResult, RoundScheduled, TournamentCreated};
use crate::events::{Event, Record};
use crate::params::{Kind, ParamDef, Params};
use crate::time::{Micros, DAY};

use super::{Change, Cx, Projection};
use points::{Award, Rules};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["cards"];

const SYSTEM: &str = "cards";

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[
    ParamDef {
        system: SYSTEM,
        name: "system1_one_positive",
        kind: Kind::Ints,
        default: "[4, 1, 0]",
        doc: "system 1: points by place when the winner has the only positive score",
    },
    ParamDef {
        system: SYSTEM,
        name: "system1_otherwise",
        kind: Kind::Ints,
        default: "[3, 2, 0]",
        doc: "system 1: points by place when two or three scores are positive (0 counts)",
    },
    ParamDef {
        system: SYSTEM,
        name: "system2_three_one_positive",
        kind: Kind::Ints,
        default: "[40, 10, 0]",
        doc:
            "system 2, three players: placement points when the winner has the only positive score",
    },
    ParamDef {
        system: SYSTEM,
        name: "system2_three_otherwise",
        kind: Kind::Ints,
        default: "[30, 20, 0]",
        doc: "system 2, three players: placement points otherwise",
    },
    ParamDef {
        system: SYSTEM,
        name: "system2_four",
        kind: Kind::Ints,
        default: "[35, 25, 10, 0]",
        doc: "system 2, four players: placement points",
    },
    ParamDef {
        system: SYSTEM,
        name: "score_divisor",
        kind: Kind::Int,
        default: "10",
        doc: "system 2: score points are round(score / N)",
    },
    ParamDef {
        system: SYSTEM,
        name: "score_clamp",
        kind: Kind::Int,
        default: "50",
        doc: "system 2: score points are clamped to -N..N",
    },
];

/// The points tables in force.
fn rules(p: &Params) -> Rules {
    Rules {
        system1_one_positive: p.ints(SYSTEM, "system1_one_positive"),
        system1_otherwise: p.ints(SYSTEM, "system1_otherwise"),
        system2_three_one_positive: p.ints(SYSTEM, "system2_three_one_positive"),
        system2_three_otherwise: p.ints(SYSTEM, "system2_three_otherwise"),
        system2_four: p.ints(SYSTEM, "system2_four"),
        score_divisor: p.int(SYSTEM, "score_divisor"),
        score_clamp: p.int(SYSTEM, "score_clamp"),
    }
}

/// The last instant an interval ending at `t` covers: a plain date (midnight
/// UTC) covers its whole day.
pub fn inclusive_end(t: Micros) -> Micros {
    if t.rem_euclid(DAY) == 0 {
        t.saturating_add(DAY - 1)
    } else {
        t
    }
}

/// Every tournament, by id.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct State {
    tournaments: BTreeMap<String, Tournament>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Tournament {
    /// 1 or 2 (checked at append).
    system: i64,
    starts: Micros,
    ends: Micros,
    rounds: BTreeMap<String, Round>,
    /// Per player: the running totals.
    lines: BTreeMap<String, Line>,
    /// Every award, in fold order (the `matches` table).
    awards: Vec<AwardRow>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Round {
    starts: Micros,
    ends: Micros,
    matches: BTreeMap<String, Scheduled>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Scheduled {
    players: Vec<String>,
    strength: Option<i64>,
    /// A result has been folded for it.
    played: bool,
}

/// One player's standing in one tournament.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Line {
    points: i64,
    total_score: i64,
    matches: i64,
}

/// One player's award in one match, for the `matches` table.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct AwardRow {
    round: String,
    match_: String,
    player: String,
    score: i64,
    award: Award,
}

impl Projection for State {
    fn check(&self, rec: &Record, _cx: &Cx) -> Result<(), String> {
        match &rec.event {
            Event::Cards(ev) => self.check_event(rec.at, ev),
            _ => Ok(()),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        let Event::Cards(ev) = &rec.event else {
            return;
        };
        match ev {
            CardsEvent::TournamentCreated(e) => self.create(e),
            CardsEvent::RoundScheduled(e) => self.schedule(e),
            CardsEvent::MatchResult(e) => self.result(rec, e, cx),
        }
    }
}

impl State {
    /// Tournament ids, in id order.
    pub fn tournaments(&self) -> Vec<String> {
        self.tournaments.keys().cloned().collect()
    }

    fn create(&mut self, e: &TournamentCreated) {
        self.tournaments
            .entry(e.tournament.0.clone())
            .or_insert_with(|| Tournament {
                system: e.point_system,
                starts: e.starts.0,
                ends: e.ends.0,
                rounds: BTreeMap::new(),
                lines: BTreeMap::new(),
                awards: Vec::new(),
            });
    }

    fn schedule(&mut self, e: &RoundScheduled) {
        let Some(t) = self.tournaments.get_mut(&e.tournament.0) else {
            return;
        };
        let matches = e
            .matches
            .iter()
            .map(|m| {
                let s = Scheduled {
                    players: m.players.clone(),
                    strength: m.table_strength,
                    played: false,
                };
                (m.match_.0.clone(), s)
            })
            .collect();
        t.rounds.entry(e.round.0.clone()).or_insert(Round {
            starts: e.starts.0,
            ends: e.ends.0,
            matches,
        });
    }

    /// Fold a result: every player's award, totals and audit line. A result that
    /// does not fit its schedule (impossible after the append checks) is ignored.
    fn result(&mut self, rec: &Record, e: &MatchResult, cx: &mut Cx) {
        let Some(t) = self.tournaments.get_mut(&e.tournament.0) else {
            return;
        };
        let system = t.system;
        let Some(m) = t
            .rounds
            .get_mut(&e.round.0)
            .and_then(|r| r.matches.get_mut(&e.match_.0))
        else {
            return;
        };
        if m.played || !same_players(&m.players, e) {
            return;
        }
        m.played = true;
        let strength = m.strength.unwrap_or(0);
        let rules = rules(&cx.params);
        let scores: Vec<i64> = e.scores.iter().map(|s| s.score).collect();
        let awards = points::awards(system, &scores, strength, &rules);
        for (ps, award) in e.scores.iter().zip(awards) {
            let line = t.lines.entry(ps.player.clone()).or_default();
            let old = (line.matches > 0).then(|| line.points.to_string());
            line.points = line.points.saturating_add(award.total());
            line.total_score = line.total_score.saturating_add(ps.score);
            line.matches += 1;
            let new = line.points;
            cx.audit(|| Change {
                seq: rec.seq,
                at: rec.at,
                system: SYSTEM.into(),
                subject: ps.player.clone(),
                old,
                new: new.to_string(),
                formula: formula(e, system, &scores, ps.score, &award, &rules),
            });
            t.awards.push(AwardRow {
                round: e.round.0.clone(),
                match_: e.match_.0.clone(),
                player: ps.player.clone(),
                score: ps.score,
                award,
            });
        }
    }
}

/// Do the result's players equal the scheduled ones (each exactly once)?
fn same_players(scheduled: &[String], e: &MatchResult) -> bool {
    let mut a: Vec<&str> = scheduled.iter().map(String::as_str).collect();
    let mut b: Vec<&str> = e.scores.iter().map(|s| s.player.as_str()).collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// The audit formula of one award, with every input, e.g.
/// `tournament T, round 3, match B: +93 = 40 + 3 + 50; placement 40: 1st of 3, table 40,10,0 (one positive score); table strength 3; score points 50 = clamp(round(620 / 10), -50, 50)`.
fn formula(
    e: &MatchResult,
    system: i64,
    scores: &[i64],
    score: i64,
    a: &Award,
    rules: &Rules,
) -> String {
    let choice = rules.choose(system, scores);
    let table = choice
        .table
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let (first, last) = a.places;
    let tied = if first == last {
        String::new()
    } else if choice.share == points::Share::Best {
        " tied, best shared place".to_string()
    } else {
        let parts: Vec<String> = (first..=last)
            .map(|p| points::table_at(choice.table, p).to_string())
            .collect();
        format!(
            " tied, round(({}) / {})",
            parts.join(" + "),
            last - first + 1
        )
    };
    let placement = format!(
        "placement {}: {} of {} by score {score}{tied}, table {table} ({})",
        a.placement,
        points::place_text(a.places),
        scores.len(),
        choice.why
    );
    let head = format!(
        "tournament {}, round {}, match {}: {:+}",
        e.tournament,
        e.round,
        e.match_,
        a.total()
    );
    if system == 1 {
        return format!("{head} = {placement}");
    }
    format!(
        "{head} = {} + {} + {}; {placement}; table strength {}; score points {} = clamp(round({score} / {}), -{c}, {c})",
        a.placement,
        a.strength,
        a.score_points,
        a.strength,
        a.score_points,
        rules.score_divisor,
        c = rules.score_clamp.unsigned_abs()
    )
}

#[cfg(test)]
mod tests;
