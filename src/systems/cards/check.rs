//! Append-time validation. Every message names the tournament (and the round and
//! match when there is one) and the rule broken; the ledger prefixes it with the
//! file, line, id and type.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::systems::cards::events::{
    Event as CardsEvent, MatchResult, RoundScheduled, TournamentCreated, POINT_SYSTEM, SCORE,
};
use crate::systems::Cx;
use crate::time::{format_short, Micros};

use super::{inclusive_end, State, Tournament};

/// What a message is about: `tournament "t"`, then `, round "r"` and
/// `, match "m"` when there is one. A value, not a `String`: the checks of an
/// event that passes (nearly all of them) format no name.
#[derive(Clone, Copy)]
struct Named<'a> {
    tournament: &'a str,
    round: Option<&'a str>,
    match_: Option<&'a str>,
}

impl<'a> Named<'a> {
    fn tournament(tournament: &'a str) -> Self {
        Named {
            tournament,
            round: None,
            match_: None,
        }
    }

    fn with_round(self, r: &'a str) -> Self {
        Named {
            round: Some(r),
            ..self
        }
    }

    fn with_match(self, m: &'a str) -> Self {
        Named {
            match_: Some(m),
            ..self
        }
    }
}

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tournament {:?}", self.tournament)?;
        if let Some(r) = self.round {
            write!(f, ", round {r:?}")?;
        }
        if let Some(m) = self.match_ {
            write!(f, ", match {m:?}")?;
        }
        Ok(())
    }
}

impl State {
    /// `ev`, of record `seq` dated `at`, against the tournaments folded before it.
    pub(super) fn check_event(
        &self,
        (at, seq): (Micros, u64),
        ev: &CardsEvent,
        cx: &Cx,
    ) -> Result<(), String> {
        match ev {
            CardsEvent::TournamentCreated(e) => self.check_tournament(e, seq, cx),
            CardsEvent::RoundScheduled(e) => self.check_round(at, e),
            CardsEvent::MatchResult(e) => self.check_result((at, seq), e, cx),
        }
    }

    /// A tournament's id differs from every other in more than case, when
    /// the append brings either (see [`crate::systems::twins`]).
    fn check_tournament(&self, e: &TournamentCreated, seq: u64, cx: &Cx) -> Result<(), String> {
        let t = Named::tournament(&e.tournament.0);
        if self.tournaments.contains_key(&e.tournament.0) {
            return Err(format!("{t} already exists"));
        }
        (self.tournaments).check_twin((&e.tournament.0, seq), |s| cx.brings(s))?;
        if !POINT_SYSTEM.contains(e.point_system) {
            return Err(format!(
                "{t}: point_system must be 1 or 2, got {}",
                e.point_system
            ));
        }
        if e.starts > e.ends {
            return Err(format!(
                "{t}: starts {} is after ends {}",
                format_short(e.starts.0),
                format_short(e.ends.0)
            ));
        }
        Ok(())
    }

    /// The tournament an event refers to, known at its `at`.
    fn tournament(&self, id: &str, at: Micros) -> Result<&Tournament, String> {
        self.tournaments.get(id).map(|t| &**t).ok_or_else(|| {
            format!(
                "tournament {id:?} does not exist (no cards.tournament_created for it at or before {}){}",
                format_short(at),
                crate::events::did_you_mean(id, self.tournaments.keys().map(String::as_str))
            )
        })
    }

    fn check_round(&self, at: Micros, e: &RoundScheduled) -> Result<(), String> {
        let t = self.tournament(&e.tournament.0, at)?;
        let name = Named::tournament(&e.tournament.0).with_round(&e.round.0);
        if self
            .names
            .get(&e.round.0)
            .is_some_and(|r| t.rounds.contains_key(&r))
        {
            return Err(format!("{name} is already scheduled"));
        }
        check_round_dates(name, at, e, t)?;
        if e.matches.is_empty() {
            return Err(format!("{name}: a round must schedule at least one match"));
        }
        let mut match_ids = BTreeSet::new();
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        for m in &e.matches {
            let mname = name.with_match(&m.match_.0);
            if !match_ids.insert(m.match_.0.as_str()) {
                return Err(format!("{mname} is scheduled twice in the round"));
            }
            check_player_count(mname, t.system, m.players.len())?;
            check_strength(mname, t.system, m.table_strength, e.matches.len())?;
            for p in &m.players {
                if p.is_empty() {
                    return Err(format!("{mname}: a player name must not be empty"));
                }
                if m.players.iter().filter(|q| *q == p).count() > 1 {
                    return Err(format!(
                        "{mname}: player {p:?} is listed twice; a match seats each player once"
                    ));
                }
                if let Some(other) = seen.insert(p, &m.match_.0) {
                    return Err(format!(
                        "{name}: player {p:?} is in match {other:?} and match {:?}; \
                         each player plays at most one match per round",
                        m.match_.0
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_result(
        &self,
        (at, seq): (Micros, u64),
        e: &MatchResult,
        cx: &Cx,
    ) -> Result<(), String> {
        let t = self.tournament(&e.tournament.0, at)?;
        let rname = Named::tournament(&e.tournament.0).with_round(&e.round.0);
        let round = self.names.get(&e.round.0).and_then(|r| t.rounds.get(&r));
        let round = round.ok_or_else(|| {
            let rounds = t.rounds.keys().map(|&r| self.names.name(r));
            format!(
                "{rname} is not scheduled at {}: results may only be entered for scheduled \
                 matches{}; if its cards.round_scheduled has a later `at`, date that on or \
                 before the result",
                format_short(at),
                listed("rounds scheduled by then", rounds, &e.round.0)
            )
        })?;
        let name = rname.with_match(&e.match_.0);
        let m = self.names.get(&e.match_.0).and_then(|id| round.find(id));
        let m = round.matches[m.ok_or_else(|| {
            let matches = round.matches.iter().map(|m| self.names.name(m.name));
            format!(
                "{name} is not in the round's schedule: results may only be entered for \
                 scheduled matches{}",
                listed("the round's matches", matches, &e.match_.0)
            )
        })?];
        if let Some(first) = m.result {
            let once = "a match has one result";
            return Err(cx.second_result(&name.to_string(), once, (seq, first)));
        }
        if at < round.starts || at > inclusive_end(round.ends) {
            return Err(format!(
                "{name}: result at {} is outside the round's interval {} .. {}",
                format_short(at),
                format_short(round.starts),
                format_short(round.ends)
            ));
        }
        let scheduled: Vec<&str> = round
            .players(&m)
            .iter()
            .map(|&p| self.names.name(p))
            .collect();
        check_result_players(name, &scheduled, e)?;
        check_scores(name, e)
    }
}

/// ` (WHAT: "a", "b"; did you mean "b"?)` of the names `all` beside `given`,
/// or ` (no WHAT)`; at most 10 named.
fn listed<'n>(what: &str, all: impl Iterator<Item = &'n str> + Clone, given: &str) -> String {
    let names: Vec<String> = all.clone().take(10).map(|n| format!("{n:?}")).collect();
    if names.is_empty() {
        let none = what.replacen("the round's ", "", 1);
        return format!(" (no {none})");
    }
    let more = if all.clone().count() > 10 {
        ", …"
    } else {
        ""
    };
    let hint = crate::events::did_you_mean(given, all);
    format!(" ({what}: {}{more}{hint})", names.join(", "))
}

/// The round's interval is ordered, inside the tournament's, and drawn in time.
fn check_round_dates(
    name: Named,
    at: Micros,
    e: &RoundScheduled,
    t: &Tournament,
) -> Result<(), String> {
    let (starts, ends) = (e.starts.0, e.ends.0);
    if starts > ends {
        return Err(format!(
            "{name}: starts {} is after ends {}",
            format_short(starts),
            format_short(ends)
        ));
    }
    if starts < t.starts || inclusive_end(ends) > inclusive_end(t.ends) {
        return Err(format!(
            "{name}: the round {} .. {} is not within the tournament {} .. {}",
            format_short(starts),
            format_short(ends),
            format_short(t.starts),
            format_short(t.ends)
        ));
    }
    if at > inclusive_end(ends) {
        return Err(format!(
            "{name}: scheduled at {}, after the round ends ({}); a round is drawn before it is over",
            format_short(at),
            format_short(ends)
        ));
    }
    Ok(())
}

fn check_player_count(name: Named, system: i64, n: usize) -> Result<(), String> {
    match (system, n) {
        (1, 3) | (2, 3 | 4) => Ok(()),
        (1, _) => Err(format!(
            "{name}: point system 1 matches have exactly 3 players, got {n}"
        )),
        _ => Err(format!(
            "{name}: point system 2 matches have 3 or 4 players, got {n}"
        )),
    }
}

fn check_strength(
    name: Named,
    system: i64,
    strength: Option<i64>,
    matches: usize,
) -> Result<(), String> {
    match (system, strength) {
        (1, None) => Ok(()),
        (1, Some(_)) => Err(format!(
            "{name}: table_strength is for point system 2 only; this tournament uses system 1"
        )),
        (_, None) => Err(format!(
            "{name}: point system 2 needs a table_strength (1 to {matches}, the number of matches in the round)"
        )),
        (_, Some(s)) if s < 1 || s > matches as i64 => Err(format!(
            "{name}: table_strength {s} is out of range: 1 to {matches} (the number of matches in the round)"
        )),
        _ => Ok(()),
    }
}

/// Exactly the scheduled players, each once.
fn check_result_players(name: Named, scheduled: &[&str], e: &MatchResult) -> Result<(), String> {
    let mut given = BTreeSet::new();
    for s in &e.scores {
        if !given.insert(s.player.as_str()) {
            return Err(format!("{name}: player {:?} has two scores", s.player));
        }
        if !scheduled.contains(&s.player.as_str()) {
            return Err(format!(
                "{name}: player {:?} is not scheduled in this match (scheduled: {})",
                s.player,
                scheduled.join(", ")
            ));
        }
    }
    if let Some(missing) = scheduled.iter().find(|p| !given.contains(**p)) {
        return Err(format!(
            "{name}: no score for scheduled player {missing:?}; a result lists exactly the scheduled players"
        ));
    }
    Ok(())
}

/// Even scores within [`SCORE`], summing to zero.
fn check_scores(name: Named, e: &MatchResult) -> Result<(), String> {
    for s in &e.scores {
        SCORE
            .check(s.score)
            .map_err(|m| format!("{name}: player {:?}: {m}", s.player))?;
    }
    if let Some(odd) = e.scores.iter().find(|s| s.score % 2 != 0) {
        return Err(format!(
            "{name}: score {} of player {:?} is odd; every score must be an even number",
            odd.score, odd.player
        ));
    }
    let sum: i128 = e.scores.iter().map(|s| i128::from(s.score)).sum();
    if sum != 0 {
        return Err(format!(
            "{name}: scores must sum to zero, but {} = {sum}",
            crate::num::sum_text(e.scores.iter().map(|s| s.score))
        ));
    }
    Ok(())
}
