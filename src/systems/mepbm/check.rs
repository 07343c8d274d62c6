//! Append-time validation: each check names the game / nation / player / team
//! and the rule broken. Checks run in fold order against the state so far.

use std::collections::{BTreeMap, BTreeSet};

use crate::events::mepbm::{
    AllegianceChanged, GameEnded, GameStarted, GrudgeRosterChanged, GrudgeTeamRegistered,
    MonthlyTick, NationTakenOver, Rated, RatingSeeded, Side, VoteCast,
};
use crate::time::{self, Micros, DAY};

use super::{Cx, Game, State};

pub(super) fn side_name(s: Side) -> &'static str {
    match s {
        Side::Fp => "FP",
        Side::Ds => "DS",
        Side::Neutral => "neutral",
    }
}

/// Reject duplicates in a list of names.
fn distinct(what: &str, names: &[String]) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for n in names {
        if n.trim().is_empty() {
            return Err(format!("{what}: names must not be empty"));
        }
        if !seen.insert(n) {
            return Err(format!("{what}: {n:?} is listed twice"));
        }
    }
    Ok(())
}

impl State {
    /// The game, started earlier in fold order.
    fn game(&self, id: &str) -> Result<&Game, String> {
        self.games.get(id).ok_or_else(|| {
            format!("unknown game {id}: no game_started for it at or before this time")
        })
    }

    /// The game, started and not yet ended (for takeovers and allegiance changes).
    fn running(&self, id: &str, what: &str) -> Result<&Game, String> {
        let g = self.game(id)?;
        match g.ended {
            Some(t) => Err(format!(
                "game {id} ended on {}: no {what} after the end",
                time::format_short(t)
            )),
            None => Ok(g),
        }
    }

    pub(super) fn check_seeded(&self, e: &RatingSeeded) -> Result<(), String> {
        let (name, map) = match e.system {
            Rated::Valar => ("valar", &self.valar),
            Rated::Maia => ("maia", &self.maia),
            Rated::Istari => ("istari", &self.istari),
            Rated::Ainur => ("ainur", &self.ainur),
        };
        if e.player.trim().is_empty() {
            return Err("rating_seeded: player must not be empty".into());
        }
        if e.value <= 0 {
            return Err(format!(
                "{name} rating of {} must be positive, got {}",
                e.player, e.value
            ));
        }
        if let Some(r) = map.get(&e.player) {
            return Err(format!(
                "{} already has a {name} rating ({}): a seed must come before the first game",
                e.player, r.value
            ));
        }
        Ok(())
    }

    pub(super) fn check_started(&self, e: &GameStarted, cx: &Cx) -> Result<(), String> {
        let id = &e.game.0;
        if self.games.contains_key(id) {
            return Err(format!("game {id} was already started"));
        }
        let nations: Vec<String> = e.positions.iter().map(|p| p.nation.clone()).collect();
        distinct(&format!("game {id} positions"), &nations)?;
        let players: Vec<String> = e.positions.iter().map(|p| p.player.clone()).collect();
        if players.iter().any(|p| p.trim().is_empty()) {
            return Err(format!("game {id}: every position needs a player"));
        }
        let count = |s: Side| e.positions.iter().filter(|p| p.side == s).count();
        if count(Side::Fp) == 0 || count(Side::Ds) == 0 {
            return Err(format!(
                "game {id} needs at least one FP and one DS position (FP {}, DS {})",
                count(Side::Fp),
                count(Side::Ds)
            ));
        }
        let mut sides: BTreeMap<&str, (Side, &str)> = BTreeMap::new();
        for p in &e.positions {
            if let Some((s, other)) = sides.insert(&p.player, (p.side, &p.nation)) {
                if s != p.side {
                    return Err(format!(
                        "player {} is on two sides of game {id}: {} ({other}) and {} ({}); a player plays one side only",
                        p.player,
                        side_name(s),
                        side_name(p.side),
                        p.nation
                    ));
                }
            }
        }
        match &e.grudge {
            Some(g) => self.check_grudge(e, &g.fp, &g.ds, cx),
            None => Ok(()),
        }
    }

    fn check_grudge(&self, e: &GameStarted, fp: &str, ds: &str, cx: &Cx) -> Result<(), String> {
        let id = &e.game.0;
        if fp == ds {
            return Err(format!(
                "grudge game {id}: team {fp} cannot play both sides"
            ));
        }
        let min = cx.params.int("ainur", "min_nations");
        let count = |s: Side| e.positions.iter().filter(|p| p.side == s).count() as i64;
        if count(Side::Fp) < min || count(Side::Ds) < min {
            return Err(format!(
                "grudge game {id} needs at least {min} nations a side at start (FP {}, DS {})",
                count(Side::Fp),
                count(Side::Ds)
            ));
        }
        for (team, side, enemy) in [(fp, Side::Fp, Side::Ds), (ds, Side::Ds, Side::Fp)] {
            let t = self.teams.get(team).ok_or_else(|| {
                format!("grudge game {id}: unknown grudge team {team} (register it first)")
            })?;
            if let Some(p) = e
                .positions
                .iter()
                .find(|p| p.side == enemy && t.members.contains(&p.player))
            {
                return Err(format!(
                    "grudge game {id}: {} of team {team} ({}) plays {} for {}",
                    p.player,
                    side_name(side),
                    p.nation,
                    side_name(enemy)
                ));
            }
            let on_side: BTreeSet<&String> = e
                .positions
                .iter()
                .filter(|p| p.side == side && t.members.contains(&p.player))
                .map(|p| &p.player)
                .collect();
            let need = cx.params.int("ainur", "min_members");
            if (on_side.len() as i64) < need {
                return Err(format!(
                    "grudge game {id}: team {team} has {} members on its side {} (needs {need})",
                    on_side.len(),
                    side_name(side)
                ));
            }
        }
        Ok(())
    }

    /// Would `player` controlling `nation` (on `side`) be on two sides of `g`?
    fn one_side(g: &Game, id: &str, player: &str, nation: &str, side: Side) -> Result<(), String> {
        match g
            .controlled_by(player)
            .find(|(n, p)| n.as_str() != nation && p.side != side)
        {
            Some((other, p)) => Err(format!(
                "player {player} would be on two sides of game {id}: {} ({other}) and {} ({nation}); a player plays one side only",
                side_name(p.side),
                side_name(side)
            )),
            None => Ok(()),
        }
    }

    pub(super) fn check_takeover(&self, e: &NationTakenOver) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.running(id, &format!("takeover of {}", e.nation))?;
        let pos = g
            .positions
            .get(&e.nation)
            .ok_or_else(|| format!("nation {} is not in game {id}", e.nation))?;
        if e.player.trim().is_empty() {
            return Err(format!(
                "takeover of {} in game {id}: player must not be empty",
                e.nation
            ));
        }
        if pos.controller == e.player {
            return Err(format!(
                "{} already controls {} in game {id}",
                e.player, e.nation
            ));
        }
        Self::one_side(g, id, &e.player, &e.nation, pos.side)
    }

    pub(super) fn check_allegiance(&self, e: &AllegianceChanged) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.running(id, &format!("allegiance change of {}", e.nation))?;
        let pos = g
            .positions
            .get(&e.nation)
            .ok_or_else(|| format!("nation {} is not in game {id}", e.nation))?;
        if pos.start_side != Side::Neutral {
            return Err(format!(
                "nation {} of game {id} started {}: only a neutral changes allegiance",
                e.nation,
                side_name(pos.start_side)
            ));
        }
        if pos.side != Side::Neutral {
            return Err(format!(
                "neutral {} of game {id} already joined {}",
                e.nation,
                side_name(pos.side)
            ));
        }
        let side = super::apply::aligned(e.side);
        Self::one_side(g, id, &pos.controller, &e.nation, side)
    }

    pub(super) fn check_ended(&self, e: &GameEnded) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.game(id)?;
        if let Some(t) = g.ended {
            return Err(format!(
                "game {id} already ended on {}: a game ends once",
                time::format_short(t)
            ));
        }
        if e.turn < 0 {
            return Err(format!(
                "game {id}: turn must not be negative, got {}",
                e.turn
            ));
        }
        let nations: Vec<String> = e.nations.iter().map(|n| n.nation.clone()).collect();
        distinct(&format!("game {id} results"), &nations)?;
        for n in &e.nations {
            if !g.positions.contains_key(&n.nation) {
                return Err(format!("nation {} is not in game {id}", n.nation));
            }
            if n.victory_points < 0 {
                return Err(format!(
                    "game {id}: victory points of {} must not be negative, got {}",
                    n.nation, n.victory_points
                ));
            }
        }
        Ok(())
    }

    pub(super) fn check_vote(&self, e: &VoteCast, at: Micros, cx: &Cx) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.game(id)?;
        let ended = g
            .ended
            .ok_or_else(|| format!("game {id} has not ended: ballots open at its game_ended"))?;
        let days = cx.params.int("council", "deadline_days");
        let deadline = ended.saturating_add(days.saturating_mul(DAY));
        if at > deadline {
            return Err(format!(
                "ballot of {} for game {id} is late: cast {}, deadline {} ({days} days after the end on {})",
                e.voter,
                time::format_short(at),
                time::format_short(deadline),
                time::format_short(ended)
            ));
        }
        let side = match g.side_of(&e.voter) {
            None => {
                return Err(format!(
                    "{} was not counted in game {id} (controlled no nation at the end): no ballot",
                    e.voter
                ))
            }
            Some(Side::Neutral) => {
                return Err(format!(
                    "{} played an unaligned neutral in game {id}: only FP and DS players vote",
                    e.voter
                ))
            }
            Some(s) => s,
        };
        if g.voters.contains(&e.voter) {
            return Err(format!(
                "{} already voted in game {id}: one ballot per player",
                e.voter
            ));
        }
        Self::check_nominees(g, id, &e.voter, side, e)
    }

    fn check_nominees(
        g: &Game,
        id: &str,
        voter: &str,
        side: Side,
        e: &VoteCast,
    ) -> Result<(), String> {
        let ctx = format!("ballot of {voter} for game {id}");
        let (s, max) = (side_name(side), 3);
        for (category, n) in [
            ("best team player", e.best_team_player.len()),
            ("best played nation", e.best_played_nation.len()),
        ] {
            if n > max {
                return Err(format!(
                    "{ctx}: {n} choices for {category}; at most {max} per category"
                ));
            }
        }
        distinct(&format!("{ctx}, best team player"), &e.best_team_player)?;
        distinct(&format!("{ctx}, best played nation"), &e.best_played_nation)?;
        for p in &e.best_team_player {
            if p == voter {
                return Err(format!("{ctx}: no vote for oneself ({voter})"));
            }
            if g.side_of(p) != Some(side) {
                return Err(format!(
                    "{ctx}: best team player {p} is not a player of the voter's side {s} at the end"
                ));
            }
        }
        for n in &e.best_played_nation {
            let pos = g
                .positions
                .get(n)
                .ok_or_else(|| format!("{ctx}: nation {n} is not in game {id}"))?;
            if pos.side != side {
                return Err(format!(
                    "{ctx}: best played nation {n} is {}, not the voter's side {s}",
                    side_name(pos.side)
                ));
            }
            if pos.controller == voter {
                return Err(format!(
                    "{ctx}: {voter} controls {n}: no vote for one's own nation"
                ));
            }
        }
        if let Some(n) = &e.best_enemy_nation {
            let pos = g
                .positions
                .get(n)
                .ok_or_else(|| format!("{ctx}: nation {n} is not in game {id}"))?;
            if pos.side == side || pos.side == Side::Neutral {
                return Err(format!(
                    "{ctx}: best enemy nation {n} is {}, not the side opposing {s}",
                    side_name(pos.side)
                ));
            }
        }
        Ok(())
    }

    pub(super) fn check_registered(&self, e: &GrudgeTeamRegistered, cx: &Cx) -> Result<(), String> {
        let team = &e.team;
        if team.trim().is_empty() {
            return Err("grudge team name must not be empty".into());
        }
        if self.teams.contains_key(team) {
            return Err(format!("grudge team {team} is already registered"));
        }
        distinct(&format!("grudge team {team} members"), &e.members)?;
        let min = cx.params.int("ainur", "min_members");
        if (e.members.len() as i64) < min {
            return Err(format!(
                "grudge team {team} has {} members: a team needs at least {min}",
                e.members.len()
            ));
        }
        if !e.members.contains(&e.coordinator) {
            return Err(format!(
                "grudge team {team}: coordinator {} must be one of its members",
                e.coordinator
            ));
        }
        Ok(())
    }

    pub(super) fn check_roster(&self, e: &GrudgeRosterChanged, cx: &Cx) -> Result<(), String> {
        let team = &e.team;
        let t = self
            .teams
            .get(team)
            .ok_or_else(|| format!("unknown grudge team {team}"))?;
        distinct(&format!("grudge team {team}, added"), &e.added)?;
        distinct(&format!("grudge team {team}, removed"), &e.removed)?;
        if e.added.is_empty() && e.removed.is_empty() {
            return Err(format!("roster change of {team} changes nobody"));
        }
        if let Some(p) = e.added.iter().find(|p| t.members.contains(*p)) {
            return Err(format!("{p} is already a member of {team}"));
        }
        if let Some(p) = e.removed.iter().find(|p| !t.members.contains(*p)) {
            return Err(format!("{p} is not a member of {team}"));
        }
        if e.removed.contains(&t.coordinator) {
            return Err(format!(
                "grudge team {team} cannot remove its coordinator {}: a team keeps its coordinator",
                t.coordinator
            ));
        }
        let kept = t
            .original
            .iter()
            .filter(|p| t.members.contains(*p) && !e.removed.contains(p))
            .count();
        let min = cx.params.int("ainur", "min_members");
        if (kept as i64) < min {
            return Err(format!(
                "roster change of {team} leaves {kept} of its original members (the rule of {min} needs at least {min})"
            ));
        }
        Ok(())
    }

    pub(super) fn check_tick(&self, e: &MonthlyTick) -> Result<(), String> {
        let m = &e.month;
        let ok = m.len() == 7
            && time::parse(&format!("{m}-01")).is_some()
            && m.as_bytes().get(4) == Some(&b'-');
        if !ok {
            return Err(format!("monthly tick: month must be YYYY-MM, got {m:?}"));
        }
        if self.months.contains(m) {
            return Err(format!(
                "month {m} was already ticked: one adjustment per month"
            ));
        }
        Ok(())
    }
}
