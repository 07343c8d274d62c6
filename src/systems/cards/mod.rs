//! `cards`: the card-game league: time-limited tournaments run side by side, each with
//! its own point system; rounds are scheduled independently of results, and results are
//! accepted only for scheduled matches.
//!
//! # Events
//! - `cards.tournament_created {tournament, point_system: 1|2, starts, ends}`.
//! - `cards.round_scheduled {tournament, round, starts, ends, matches: [{match, players,
//!   table_strength?}]}`: rounds may be scheduled all at the start or one at a time.
//! - `cards.match_result {tournament, round, match, scores: [{player, score}]}`.
//!
//! # Ranges
//! Checked at append, naming the field and the values allowed: `point_system`
//! 1 or 2; `table_strength` 1 to the number of matches in the round; `score`
//! an even integer from -1,000,000 to 1,000,000 ([`events::SCORE`]).
//!
//! # Rules
//! - A result is for a scheduled match, once, with exactly its players; its `at` lies in
//!   the round's interval, and the round within the tournament's. A player plays at most
//!   one match per round. A point system 1 match seats exactly 3 players; a system 2
//!   match 3 or 4, with a `table_strength` from 1 to the number of matches in the round.
//! - Scores are even integers summing to zero; 0 counts as positive. Players are placed
//!   by score.
//! - **System 1**: 4, 1, 0 by place when one score is positive (`system1_one_positive`),
//!   else 3, 2, 0 (`system1_otherwise`); tied players all get the points of the best
//!   place they share (60, -30, -30 → 4, 1, 1).
//! - **System 2**: placement points 40, 10, 0 (`system2_three_one_positive`) or 30, 20, 0
//!   (`system2_three_otherwise`) for three players, 35, 25, 10, 0 (`system2_four`) for
//!   four; tied players get the mean of the places they share, rounded half away from
//!   zero (0, 0, 0 → 17 each). Plus the match's `table_strength`, plus score points
//!   `round(score / 10)` clamped to -50..50 (`score_divisor`, `score_clamp`): scores 620,
//!   -44, -576 at table strength 3 earn 40 + 3 + 50 = 93, 10 + 3 - 4 = 9, 0 + 3 - 50 = -47.
//! - **Standings**: points, then total score, then player id.
//!
//! Layout: [`points`] holds the pure point math (placements, shared places, score
//! points); `check` enforces the rules at append in `(at, seq)` order; `report` renders
//! `standings cards` (the tournaments) and `standings cards --tournament T` (points,
//! total score, matches played).
//!
//! # Decisions
//! - **Interval ends are inclusive, and a plain date means the whole day**: an `ends` at
//!   exactly midnight UTC (what `"2013-01-13"` parses to) covers that whole day, as
//!   `--as-of` does. `starts` means from that instant.
//! - **Scheduling time**: a round must be scheduled (`at`) no later than its end: a round
//!   drawn after it is over could never receive a result.
//! - A round needs at least one match; round ids are unique in a tournament, match ids
//!   unique in a round; player names must not be empty.
//! - **Table strength** is required in system 2 and rejected in system 1 (it has no
//!   meaning there). Two tables of a round may have the same strength: the rules only
//!   bound it by 1 and the number of matches.
//! - A result lists each scheduled player exactly once (in any order).
//! - **Ranks**: players equal on points and total score share a rank (player id only
//!   orders them for display; it is not a sporting tie-break).
//! - The `score` column of a tournament's standings is the player's points (the ranking
//!   value every system's rows carry), titled "Points"; `total_score` is the sum of
//!   match scores.
//! - `standings cards` without `--tournament` lists the tournaments (table
//!   `tournaments`): columns `tournament, point_system, starts, ends, rounds,
//!   matches, results, players, player, score, sharing_first`, where `players`
//!   counts those with a result (its standings' rows; one scheduled but yet to
//!   play is not among them), `player` and `score`
//!   are the tournament's first place (shown as "First place"), the first row
//!   of its standings, and their score there (points): named as every
//!   table's player and score are, so a script reads any table's rows alike.
//!   No `rank`: tournaments are listed by id, not ranked (the first place's
//!   rank is 1). Players sharing first place (equal points and total score):
//!   the first by player id, as the standings order them, and `sharing_first`
//!   says how many share it (1: alone). None before a result.
//! - Points are computed with the parameters in force at the result's `at`
//!   ([`params`]: tables of 1 to 4 places, `score_divisor` at least 1); a points
//!   table shorter than the number of places gives 0 for missing places.

mod check;
pub mod events;
pub(crate) mod gen;
pub mod params;
pub mod points;
mod report;
mod system;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::systems::cards::events::{
    Event as CardsEvent, MatchResult, RoundScheduled, TournamentCreated,
};
use crate::systems::{Event, Record};
use crate::time::{inclusive_end, Micros};

use super::compact::{self, Interner};
use super::twins::ById;
use super::{Change, Cx, Projection};
use crate::codec::Reader;
use points::{Award, Rules};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["cards"];

const SYSTEM: &str = "cards";

/// Every tournament, by id, stored compactly: names (players, round and
/// match ids) are interned once for the whole state, a round keeps its matches
/// as small fixed rows over one list of seated player ids, and a tournament's
/// awards (the `matches` table) are varint rows. A result costs about 10 bytes
/// per player, a scheduled match about 30 bytes plus 4 per seat.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    tournaments: ById<compact::Kept<Tournament>>,
    /// Player, round and match names.
    names: Interner,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Tournament {
    /// 1 or 2 (checked at append).
    system: i64,
    starts: Micros,
    ends: Micros,
    /// By round name id.
    rounds: BTreeMap<u32, Round>,
    /// Per player name id: the running totals.
    lines: BTreeMap<u32, Line>,
    /// Every award, in fold order (the `matches` table): see [`AwardRow`].
    #[serde(with = "crate::systems::compact::bytes")]
    awards: Vec<u8>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Round {
    starts: Micros,
    ends: Micros,
    /// In schedule order.
    matches: Vec<Scheduled>,
    /// Every match's players, end to end, in schedule order.
    seats: Vec<u32>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Scheduled {
    /// Match name id.
    name: u32,
    /// Its players are `seats[first..first + len]` of its round.
    first: u32,
    len: u32,
    strength: Option<i64>,
    /// The seq of the result folded for it.
    result: Option<u64>,
}

impl Scheduled {
    /// Has a result been folded for it?
    fn played(&self) -> bool {
        self.result.is_some()
    }
}

impl Round {
    fn find(&self, name: u32) -> Option<usize> {
        self.matches.iter().position(|m| m.name == name)
    }

    fn players(&self, m: &Scheduled) -> &[u32] {
        &self.seats[m.first as usize..(m.first + m.len) as usize]
    }
}

/// One player's standing in one tournament.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Line {
    points: i64,
    total_score: i64,
    matches: i64,
}

/// One player's award in one match, for the `matches` table. Stored in
/// [`Tournament::awards`] as varints, in this order: round, match and player
/// name ids, then zigzag score, the two places, and zigzag placement,
/// strength and score points.
#[derive(Debug, Clone)]
struct AwardRow {
    round: u32,
    match_: u32,
    player: u32,
    score: i64,
    award: Award,
}

impl AwardRow {
    fn write(&self, out: &mut Vec<u8>) {
        let a = &self.award;
        for id in [self.round, self.match_, self.player] {
            compact::put(out, id.into());
        }
        compact::put(out, compact::zigzag(self.score));
        compact::put(out, a.places.0 as u64);
        compact::put(out, a.places.1 as u64);
        for v in [a.placement, a.strength, a.score_points] {
            compact::put(out, compact::zigzag(v));
        }
    }

    fn read(r: &mut Reader) -> Option<AwardRow> {
        let (round, match_, player) = (r.u32()?, r.u32()?, r.u32()?);
        let score = r.i()?;
        let places = (r.u()? as usize, r.u()? as usize);
        Some(AwardRow {
            round,
            match_,
            player,
            score,
            award: Award {
                places,
                placement: r.i()?,
                strength: r.i()?,
                score_points: r.i()?,
            },
        })
    }

    /// Every row of `bytes`, in order.
    fn all(bytes: &[u8]) -> Vec<AwardRow> {
        let mut r = Reader::new(bytes);
        std::iter::from_fn(|| AwardRow::read(&mut r)).collect()
    }
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        match &rec.event {
            Event::Cards(ev) => self.check_event((rec.at, rec.seq), ev, cx),
            _ => Ok(()),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        let Event::Cards(ev) = &rec.event else {
            return;
        };
        match ev {
            CardsEvent::TournamentCreated(e) => self.create(e, rec.seq),
            CardsEvent::RoundScheduled(e) => self.schedule(e),
            CardsEvent::MatchResult(e) => self.result(rec, e, cx),
        }
    }
}

impl State {
    /// The checkpoint section: the bincode of the state (as serde writes it),
    /// with each unchanged tournament's bytes reused ([`compact::Kept`]).
    pub fn checkpoint_bytes(&self) -> bincode::Result<Vec<u8>> {
        use bincode::Options;
        let names = bincode::DefaultOptions::new().serialize(&self.names)?;
        let mut out = Vec::new();
        compact::encode_map(&mut out, &self.tournaments, names.len())?;
        out.extend_from_slice(&names);
        Ok(out)
    }

    /// Tournament ids, in id order.
    pub fn tournaments(&self) -> Vec<String> {
        self.tournaments.keys().cloned().collect()
    }

    fn create(&mut self, e: &TournamentCreated, seq: u64) {
        self.tournaments.insert(&e.tournament.0, seq, || {
            Tournament {
                system: e.point_system,
                starts: e.starts.0,
                ends: e.ends.0,
                rounds: BTreeMap::new(),
                lines: BTreeMap::new(),
                awards: Vec::new(),
            }
            .into()
        });
    }

    fn schedule(&mut self, e: &RoundScheduled) {
        let State { tournaments, names } = self;
        let Some(t) = tournaments.get_mut(&e.tournament.0) else {
            return;
        };
        let round = names.intern(&e.round.0);
        if t.rounds.contains_key(&round) {
            return;
        }
        let mut r = Round {
            starts: e.starts.0,
            ends: e.ends.0,
            matches: Vec::with_capacity(e.matches.len()),
            seats: Vec::new(),
        };
        names.prefetch(
            e.matches
                .iter()
                .flat_map(|m| &m.players)
                .map(String::as_str),
        );
        for m in &e.matches {
            let first = r.seats.len() as u32;
            r.seats.extend(m.players.iter().map(|p| names.intern(p)));
            let name = names.intern(&m.match_.0);
            if r.find(name).is_some() {
                continue; // a repeated match id (refused at append)
            }
            r.matches.push(Scheduled {
                name,
                first,
                len: r.seats.len() as u32 - first,
                strength: m.table_strength,
                result: None,
            });
        }
        t.rounds.insert(round, r);
    }

    /// Fold a result: every player's award, totals and audit line. A result that
    /// does not fit its schedule (impossible after the append checks) is ignored.
    fn result(&mut self, rec: &Record, e: &MatchResult, cx: &mut Cx) {
        let State { tournaments, names } = self;
        let players = e.scores.iter().map(|s| s.player.as_str());
        names.prefetch(players.chain([e.round.0.as_str(), e.match_.0.as_str()]));
        let Some(t) = tournaments.get_mut(&e.tournament.0) else {
            return;
        };
        let (Some(round), Some(match_)) = (names.get(&e.round.0), names.get(&e.match_.0)) else {
            return;
        };
        let Some(r) = t.rounds.get_mut(&round) else {
            return;
        };
        let Some(mi) = r.find(match_) else {
            return;
        };
        let m = r.matches[mi];
        let Some(players) = same_players(names, r.players(&m), e) else {
            return;
        };
        if m.played() {
            return;
        }
        r.matches[mi].result = Some(rec.seq);
        let rules = cx.params.shared::<Rules>();
        let system = t.system;
        let scores: Vec<i64> = e.scores.iter().map(|s| s.score).collect();
        let awards = points::awards(system, &scores, m.strength.unwrap_or(0), &rules);
        for ((ps, award), player) in e.scores.iter().zip(awards).zip(players) {
            let line = t.lines.entry(player).or_default();
            let old = (line.matches > 0).then(|| line.points.to_string());
            line.points = line.points.saturating_add(award.total());
            line.total_score = line.total_score.saturating_add(ps.score);
            line.matches += 1;
            let new = line.points;
            cx.audit(&ps.player, || Change {
                seq: rec.seq,
                at: rec.at,
                system: SYSTEM.into(),
                subject: ps.player.clone(),
                old,
                new: new.to_string(),
                formula: formula(e, system, &scores, ps.score, &award, &rules),
            });
            let row = AwardRow {
                round,
                match_,
                player,
                score: ps.score,
                award,
            };
            row.write(&mut t.awards);
        }
    }
}

/// The result's players' ids, in its order, when they are exactly the
/// scheduled ones (the same multiset: each once after the append checks);
/// `None` otherwise. Matches seat 3 or 4, so counting beats sorting copies.
fn same_players(names: &Interner, scheduled: &[u32], e: &MatchResult) -> Option<Vec<u32>> {
    let ids: Vec<u32> = e
        .scores
        .iter()
        .map(|s| names.get(&s.player))
        .collect::<Option<_>>()?;
    let count = |v: &[u32], x: u32| v.iter().filter(|&&y| y == x).count();
    let same =
        ids.len() == scheduled.len() && ids.iter().all(|&x| count(&ids, x) == count(scheduled, x));
    same.then_some(ids)
}

/// The audit formula of one award, with every input, e.g.
/// `tournament T, round 3, match B: +93 = 40 + 3 + 50; placement 40: 1st of 3,
/// table 40,10,0 (one positive score); table strength 3; score points 50 =
/// clamp(round(620 / 10), -50, 50)`.
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
        let parts = (first..=last).map(|p| points::table_at(choice.table, p));
        format!(
            " tied, round(({}) / {})",
            crate::num::sum_text(parts),
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
        "{head} = {}; {placement}; table strength {}; score points {} = clamp(round({score} / {}), -{c}, {c})",
        crate::num::sum_text([a.placement, a.strength, a.score_points]),
        a.strength,
        a.score_points,
        rules.score_divisor,
        c = rules.score_clamp.unsigned_abs()
    )
}

#[cfg(test)]
mod tests;
