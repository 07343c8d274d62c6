//! `sbr`: the Space Base Race tournament (seed 002, SPEC §6).
//!
//! A tournament runs in three stages: **seeding** (each player one game in the
//! red seat against three bots; the score gives the seed rank), **group** and
//! **bracket** (matches of 4 games, each player once in each seat; match score =
//! sum of the games; ties broken by the best single game, then by seed rank; the
//! top 2 advance). Scores reset at each stage. The bracket's final match gives
//! places 1–3.
//!
//! Decisions where the seed and SPEC are silent (each one is tested):
//! - **Rounds.** A match's round within its stage is 1 + the most matches any of
//!   its players already played in that stage. The ledger does not impose the draw
//!   (the seed's Fig. 5 is not in the text): it checks that every player of a new
//!   match is entitled to it: seeded (group stage) or qualified (bracket), not in
//!   another unfinished match of the stage, and not eliminated in it.
//! - **Qualifiers** for the bracket are the players who advanced from their last
//!   group match. A group played down to one match sends its 1st and 2nd; a
//!   director may start the bracket after an earlier group round (the bundled
//!   16-player tournament plays two group rounds, then a four-player final).
//!   Once a stage has begun, no game of an earlier stage is accepted.
//! - **Bracket seeds** ("seeded by score in final match before brackets") rank the
//!   qualifiers by their score in their last group match, then by seed rank. In the
//!   bracket, that bracket seed is the seed tie-break; in the group stage it is the
//!   seeding rank. Equal seeding scores share a seed rank.
//! - **The final** is the completed bracket match that holds every qualifier not
//!   eliminated in another bracket match. Once it is complete the tournament is
//!   over and further games are rejected.
//! - **Bots** (`player: null`) fill seats; they never take a place, advance or
//!   need a score. A named player's seat needs `bases` or `score` (or both, agreeing).
//! - **Unbreakable ties** (equal score, best game and seed rank) share a place; a
//!   tie at the advancement cut lets every tied player through.
//! - **Final ranking** (the main table): podium first, then everyone else by how
//!   far they got (stage, then round), then place in their last match, score in
//!   it, best game in it and seed rank. `score` is the player's score in their last
//!   match (the seeding score for a player who only seeded).

mod check;
pub mod math;
mod report;

use std::collections::{BTreeMap, BTreeSet};

use crate::events::sbr::{Color, Event, GamePlayed, Stage};
use crate::events::{Event as AnyEvent, Record};
use crate::params::{Kind, ParamDef};
use crate::time::Micros;

use super::{Change, Cx, Projection, Selector};
use math::{advances, competition_ranks, rank_lines, Line};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["sbr"];

const SYS: &str = "sbr";

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[
    ParamDef {
        system: SYS,
        name: "bonus_multiplier",
        kind: Kind::Int,
        default: "3",
        doc: "multiplier of a base built on a bonus tile",
    },
    ParamDef {
        system: SYS,
        name: "games_per_match",
        kind: Kind::Int,
        default: "4",
        doc: "games in a group or bracket match (each player once in each seat)",
    },
    ParamDef {
        system: SYS,
        name: "advance",
        kind: Kind::Int,
        default: "2",
        doc: "players per match who advance",
    },
    ParamDef {
        system: SYS,
        name: "podium",
        kind: Kind::Int,
        default: "3",
        doc: "places the bracket's final match awards",
    },
];

/// One seat of a recorded game: who sat there and what they scored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeatResult {
    pub seat: Color,
    pub player: Option<String>,
    pub score: Option<i64>,
}

/// A group or bracket match (seeding games are kept as [`Seeded`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Match {
    pub id: String,
    pub stage: Stage,
    pub group: Option<String>,
    /// Position among the tournament's matches, by first game in fold order.
    pub order: u64,
    /// Round within the stage (see the module docs).
    pub round: u32,
    /// The named players (bots are not listed).
    pub players: BTreeSet<String>,
    /// Game number → seats.
    pub games: BTreeMap<i64, Vec<SeatResult>>,
}

impl Match {
    /// A player's (total, best game) over the games recorded so far.
    fn totals(&self, player: &str) -> (i64, i64) {
        let scores: Vec<i64> = self
            .games
            .values()
            .flatten()
            .filter(|s| s.player.as_deref() == Some(player))
            .map(|s| s.score.unwrap_or(0))
            .collect();
        (
            scores.iter().sum(),
            scores.iter().copied().max().unwrap_or(0),
        )
    }

    fn complete(&self, cx: &Cx) -> bool {
        self.games.len() as i64 >= cx.params.int(SYS, "games_per_match")
    }
}

/// A player's seeding game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seeded {
    pub score: i64,
    pub match_id: String,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Tournament {
    pub id: String,
    pub created: Micros,
    /// The latest stage with a game (stages only move forward).
    pub stage: Option<Stage>,
    pub seeds: BTreeMap<String, Seeded>,
    pub matches: BTreeMap<String, Match>,
}

/// How a player's part in one stage stands after their last match of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    Playing,
    Advanced,
    Eliminated,
}

impl Tournament {
    /// Seed ranks from the seeding games (equal scores share a rank).
    pub fn seed_ranks(&self) -> BTreeMap<String, u32> {
        let keys: Vec<(String, i64)> = self
            .seeds
            .iter()
            .map(|(p, s)| (p.clone(), s.score))
            .collect();
        competition_ranks(&keys)
    }

    /// A player's matches in a stage, oldest first.
    pub fn matches_of(&self, stage: Stage, player: &str) -> Vec<&Match> {
        let mut v: Vec<&Match> = self
            .matches
            .values()
            .filter(|m| m.stage == stage && m.players.contains(player))
            .collect();
        v.sort_by_key(|m| m.order);
        v
    }

    /// A match ranked: (place, line) best first, with the stage's seed tie-break.
    pub fn ranked(&self, m: &Match, cx: &Cx) -> Vec<(u32, Line)> {
        let seeds = match m.stage {
            Stage::Bracket => self.bracket_seeds(cx),
            _ => self.seed_ranks(),
        };
        let lines: Vec<Line> = m
            .players
            .iter()
            .map(|p| {
                let (total, best) = m.totals(p);
                Line {
                    player: p.clone(),
                    total,
                    best,
                    seed: seeds.get(p).copied(),
                }
            })
            .collect();
        rank_lines(&lines)
    }

    /// A player's place in a match (None: not in it).
    pub fn place_in(&self, m: &Match, player: &str, cx: &Cx) -> Option<u32> {
        self.ranked(m, cx)
            .into_iter()
            .find(|(_, l)| l.player == player)
            .map(|(p, _)| p)
    }

    /// Where a player stands in a stage after their last match of it.
    pub fn standing(&self, stage: Stage, player: &str, cx: &Cx) -> Option<Standing> {
        let last = *self.matches_of(stage, player).last()?;
        Some(self.standing_in(last, player, cx))
    }

    fn standing_in(&self, m: &Match, player: &str, cx: &Cx) -> Standing {
        if !m.complete(cx) {
            return Standing::Playing;
        }
        let place = self.place_in(m, player, cx).unwrap_or(u32::MAX);
        if advances(place, cx.params.int(SYS, "advance")) {
            Standing::Advanced
        } else {
            Standing::Eliminated
        }
    }

    /// Players who advanced from their last group match: the bracket's entrants.
    pub fn qualifiers(&self, cx: &Cx) -> Vec<String> {
        let players: BTreeSet<&String> = self
            .matches
            .values()
            .filter(|m| m.stage == Stage::Group)
            .flat_map(|m| &m.players)
            .collect();
        players
            .into_iter()
            .filter(|p| self.standing(Stage::Group, p, cx) == Some(Standing::Advanced))
            .cloned()
            .collect()
    }

    /// A qualifier's score in their last group match ("the final match before brackets").
    pub fn last_group_score(&self, player: &str) -> i64 {
        self.matches_of(Stage::Group, player)
            .last()
            .map_or(0, |m| m.totals(player).0)
    }

    /// Bracket seeds: qualifiers by last group match score, then seed rank.
    pub fn bracket_seeds(&self, cx: &Cx) -> BTreeMap<String, u32> {
        let seeds = self.seed_ranks();
        let keys: Vec<(String, (i64, std::cmp::Reverse<u32>))> = self
            .qualifiers(cx)
            .into_iter()
            .map(|p| {
                let seed = seeds.get(&p).copied().unwrap_or(u32::MAX);
                let score = self.last_group_score(&p);
                (p, (score, std::cmp::Reverse(seed)))
            })
            .collect();
        competition_ranks(&keys)
    }

    /// The bracket's final: the completed bracket match holding every qualifier
    /// not eliminated in another bracket match.
    pub fn final_match(&self, cx: &Cx) -> Option<&Match> {
        let qualifiers = self.qualifiers(cx);
        let mut bracket: Vec<&Match> = self
            .matches
            .values()
            .filter(|m| m.stage == Stage::Bracket && m.complete(cx) && !m.players.is_empty())
            .collect();
        bracket.sort_by_key(|m| std::cmp::Reverse(m.order));
        bracket.into_iter().find(|fin| {
            qualifiers.iter().all(|q| {
                fin.players.contains(q)
                    || self.matches.values().any(|m| {
                        m.stage == Stage::Bracket
                            && m.id != fin.id
                            && m.players.contains(q)
                            && self.standing_in(m, q, cx) == Standing::Eliminated
                    })
            })
        })
    }
}

/// The Space Base Race projection: every tournament, by id.
#[derive(Debug, Clone, Default)]
pub struct State {
    tournaments: BTreeMap<String, Tournament>,
}

fn sbr_event(rec: &Record) -> Option<&Event> {
    match &rec.event {
        AnyEvent::Sbr(e) => Some(e),
        _ => None,
    }
}

/// A seat's score: from its bases when given (the rule), else as reported.
fn seat_score(seat: &crate::events::sbr::Seat, cx: &Cx) -> Option<i64> {
    match &seat.bases {
        Some(bases) => {
            let refs: Vec<math::BaseRef> =
                bases.iter().map(|b| (b.piece.as_str(), b.bonus)).collect();
            math::game_score(&refs, cx.params.int(SYS, "bonus_multiplier"))
                .ok()
                .or(seat.score)
        }
        None => seat.score,
    }
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        match sbr_event(rec) {
            Some(Event::TournamentCreated(t)) => match self.tournaments.get(&t.tournament.0) {
                Some(_) => Err(format!(
                    "tournament {} is already created (a tournament is created once)",
                    t.tournament
                )),
                None => Ok(()),
            },
            Some(Event::GamePlayed(g)) => check::game(self.tournaments.get(&g.tournament.0), g, cx),
            None => Ok(()),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        match sbr_event(rec) {
            Some(Event::TournamentCreated(t)) => {
                self.tournaments
                    .entry(t.tournament.0.clone())
                    .or_insert_with(|| Tournament {
                        id: t.tournament.0.clone(),
                        created: rec.at,
                        ..Tournament::default()
                    });
            }
            Some(Event::GamePlayed(g)) => {
                if let Some(t) = self.tournaments.get_mut(&g.tournament.0) {
                    apply_game(t, g, rec, cx);
                }
            }
            None => {}
        }
    }
}

fn apply_game(t: &mut Tournament, g: &GamePlayed, rec: &Record, cx: &mut Cx) {
    t.stage = t.stage.max(Some(g.stage));
    if g.stage == Stage::Seeding {
        apply_seeding(t, g, rec, cx);
    } else {
        apply_match_game(t, g, rec, cx);
    }
}

fn apply_seeding(t: &mut Tournament, g: &GamePlayed, rec: &Record, cx: &mut Cx) {
    let Some(seat) = g.seats.iter().find(|s| s.player.is_some()) else {
        return;
    };
    let (Some(player), Some(score)) = (seat.player.clone(), seat_score(seat, cx)) else {
        return;
    };
    let formula = format!(
        "seeding score {score} = {} (tournament {}, seeding game {})",
        seat_formula(seat, cx),
        t.id,
        g.match_
    );
    let old = t.seeds.get(&player).map(|s| s.score.to_string());
    t.seeds.insert(
        player.clone(),
        Seeded {
            score,
            match_id: g.match_.0.clone(),
        },
    );
    cx.audit(|| Change {
        seq: rec.seq,
        at: rec.at,
        system: SYS.into(),
        subject: player,
        old,
        new: score.to_string(),
        formula,
    });
}

fn seat_formula(seat: &crate::events::sbr::Seat, cx: &Cx) -> String {
    match &seat.bases {
        Some(bases) => {
            let refs: Vec<math::BaseRef> =
                bases.iter().map(|b| (b.piece.as_str(), b.bonus)).collect();
            math::score_formula(&refs, cx.params.int(SYS, "bonus_multiplier"))
        }
        None => "score as reported (no bases given)".into(),
    }
}

fn apply_match_game(t: &mut Tournament, g: &GamePlayed, rec: &Record, cx: &mut Cx) {
    let id = g.match_.0.clone();
    if !t.matches.contains_key(&id) {
        let m = new_match(t, g);
        t.matches.insert(id.clone(), m);
    }
    let seats: Vec<SeatResult> = g
        .seats
        .iter()
        .map(|s| SeatResult {
            seat: s.seat,
            player: s.player.clone(),
            score: seat_score(s, cx),
        })
        .collect();
    let Some(m) = t.matches.get_mut(&id) else {
        return;
    };
    if m.games.contains_key(&g.game) {
        return;
    }
    let before: BTreeMap<String, i64> = m
        .players
        .iter()
        .map(|p| (p.clone(), m.totals(p).0))
        .collect();
    m.games.insert(g.game, seats);
    if cx.auditing() {
        audit_game(t, g, &before, rec, cx);
    }
}

/// A match opened by its first game: its players and round.
fn new_match(t: &Tournament, g: &GamePlayed) -> Match {
    let players: BTreeSet<String> = g.seats.iter().filter_map(|s| s.player.clone()).collect();
    let round = 1 + players
        .iter()
        .map(|p| t.matches_of(g.stage, p).len() as u32)
        .max()
        .unwrap_or(0);
    Match {
        id: g.match_.0.clone(),
        stage: g.stage,
        group: g.group.as_ref().map(|x| x.0.clone()),
        order: t.matches.len() as u64,
        round,
        players,
        games: BTreeMap::new(),
    }
}

/// One change per player of the game (their match total) and, when the game
/// completes the match, one per player with their place and whether they advance.
fn audit_game(
    t: &Tournament,
    g: &GamePlayed,
    before: &BTreeMap<String, i64>,
    rec: &Record,
    cx: &mut Cx,
) {
    let Some(m) = t.matches.get(&g.match_.0) else {
        return;
    };
    let mut changes = Vec::new();
    for seat in &g.seats {
        let Some(p) = &seat.player else { continue };
        let old = before.get(p).copied().unwrap_or(0);
        let new = m.totals(p).0;
        changes.push(Change {
            seq: rec.seq,
            at: rec.at,
            system: SYS.into(),
            subject: p.clone(),
            old: (g.game != 1 || old != 0).then(|| old.to_string()),
            new: new.to_string(),
            formula: format!(
                "{:+} = {} (tournament {}, {} match {}, game {}, {} seat)",
                new - old,
                seat_formula(seat, cx),
                t.id,
                stage_name(m.stage),
                m.id,
                g.game,
                color_name(seat.seat)
            ),
        });
    }
    if m.complete(cx) {
        changes.extend(completion_changes(t, m, rec, cx));
    }
    for c in changes {
        cx.audit(|| c);
    }
}

fn completion_changes(t: &Tournament, m: &Match, rec: &Record, cx: &Cx) -> Vec<Change> {
    let advance = cx.params.int(SYS, "advance");
    let is_final = t.final_match(cx).is_some_and(|f| f.id == m.id);
    t.ranked(m, cx)
        .into_iter()
        .map(|(place, l)| {
            let verdict = if is_final {
                "final place".to_string()
            } else if advances(place, advance) {
                format!("top {advance} advance: advances")
            } else {
                format!("top {advance} advance: eliminated")
            };
            Change {
                seq: rec.seq,
                at: rec.at,
                system: SYS.into(),
                subject: l.player.clone(),
                old: Some(l.total.to_string()),
                new: l.total.to_string(),
                formula: format!(
                    "match {} complete: place {place} (score {}, best game {}, seed {}); {verdict}",
                    m.id,
                    l.total,
                    l.best,
                    l.seed.map_or("-".into(), |s| s.to_string())
                ),
            }
        })
        .collect()
}

pub(crate) fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::Seeding => "seeding",
        Stage::Group => "group",
        Stage::Bracket => "bracket",
    }
}

pub(crate) fn color_name(c: Color) -> &'static str {
    match c {
        Color::Red => "red",
        Color::Yellow => "yellow",
        Color::Green => "green",
        Color::Blue => "blue",
    }
}

impl State {
    /// Tournament ids, in id order.
    pub fn tournaments(&self) -> Vec<String> {
        self.tournaments.keys().cloned().collect()
    }

    pub fn standings(
        &self,
        table: &str,
        sel: &Selector,
        cx: &Cx,
    ) -> Result<crate::output::Report, String> {
        report::standings(&self.tournaments, table, sel, cx)
    }
}

#[cfg(test)]
mod tests;
