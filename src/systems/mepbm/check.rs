//! Append-time validation: each check names the game / nation / player / team
//! and the rule broken. Checks run in fold order against the state so far.

use std::collections::{BTreeMap, BTreeSet};

use crate::systems::mepbm::events::{
    AllegianceChanged, GameEnded, GameStarted, GrudgeRosterChanged, GrudgeTeamRegistered,
    MonthlyTick, NationTakenOver, Rated, RatingSeeded, Side, VoteCast, BALLOT_CHOICES, SEED_VALUE,
    TURN, VICTORY_POINTS,
};
use crate::time::{self, Micros, DAY};

use super::store::Slot;
use super::{params, Cx, State, Team};

pub(super) fn side_name(s: Side) -> &'static str {
    match s {
        Side::Fp => "FP",
        Side::Ds => "DS",
        Side::Neutral => "neutral",
    }
}

/// Reject empty or duplicate names; `what` names the list in the error.
fn distinct<'a>(
    what: impl Fn() -> String,
    names: impl Iterator<Item = &'a str>,
) -> Result<(), String> {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for n in names {
        if n.trim().is_empty() {
            return Err(format!("{}: names must not be empty", what()));
        }
        if !seen.insert(n) {
            return Err(format!("{}: {n:?} is listed twice", what()));
        }
    }
    Ok(())
}

/// `names` as `&str`s.
fn strs(names: &[String]) -> impl Iterator<Item = &str> {
    names.iter().map(String::as_str)
}

impl State {
    /// Game `id`, started earlier in fold order: its index.
    fn game(&self, id: &str) -> Result<usize, String> {
        self.game_index(id).ok_or_else(|| {
            format!("unknown game {id}: no game_started for it at or before this time")
        })
    }

    /// Game `id`, started and not yet ended (for takeovers and allegiance changes).
    fn running(&self, id: &str, what: impl Fn() -> String) -> Result<usize, String> {
        let g = self.game(id)?;
        match self.headers[g].ended {
            Some(t) => Err(format!(
                "game {id} ended on {}: no {} after the end",
                time::format_short(t),
                what()
            )),
            None => Ok(g),
        }
    }

    /// The slot of `nation` in game `g`, or the error naming it.
    fn slot(&self, g: usize, id: &str, nation: &str) -> Result<&Slot, String> {
        let slots = self.slots_of(g);
        self.find_nation(slots, nation)
            .map(|i| &slots[i])
            .ok_or_else(|| self.not_in_game(slots, nation, id))
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
        SEED_VALUE
            .check(e.value)
            .map_err(|m| format!("{name} seed of {}: {m}", e.player))?;
        if let Some(r) = self.names.get(&e.player).and_then(|id| map.get(id)) {
            return Err(format!(
                "{} already has a {name} rating ({}): a seed must come before the first game",
                e.player, r.value
            ));
        }
        Ok(())
    }

    pub(super) fn check_started(&self, e: &GameStarted, cx: &Cx) -> Result<(), String> {
        let id = &e.game.0;
        if self.game_index(id).is_some() {
            return Err(format!("game {id} was already started"));
        }
        distinct(
            || format!("game {id} positions"),
            e.positions.iter().map(|p| p.nation.as_str()),
        )?;
        if e.positions.iter().any(|p| p.player.trim().is_empty()) {
            return Err(format!("game {id}: every position needs a player"));
        }
        self.check_pars(e)?;
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

    /// Is `player` a member of `team` now?
    fn is_member(&self, team: &Team, player: &str) -> bool {
        self.names
            .get(player)
            .is_some_and(|id| team.members.contains(&id))
    }

    fn check_grudge(&self, e: &GameStarted, fp: &str, ds: &str, cx: &Cx) -> Result<(), String> {
        let id = &e.game.0;
        if fp == ds {
            return Err(format!(
                "grudge game {id}: team {fp} cannot play both sides"
            ));
        }
        let ainur = cx.params.get::<params::Ainur>();
        let min = ainur.min_nations;
        let count = |s: Side| e.positions.iter().filter(|p| p.side == s).count() as i64;
        if count(Side::Fp) < min || count(Side::Ds) < min {
            return Err(format!(
                "grudge game {id} needs at least {min} nations a side at start (FP {}, DS {})",
                count(Side::Fp),
                count(Side::Ds)
            ));
        }
        for (team, side, enemy) in [(fp, Side::Fp, Side::Ds), (ds, Side::Ds, Side::Fp)] {
            let t = self
                .names
                .get(team)
                .and_then(|t| self.teams.get(&t))
                .ok_or_else(|| {
                    format!("grudge game {id}: unknown grudge team {team} (register it first)")
                })?;
            if let Some(p) = e
                .positions
                .iter()
                .find(|p| p.side == enemy && self.is_member(t, &p.player))
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
                .filter(|p| p.side == side && self.is_member(t, &p.player))
                .map(|p| &p.player)
                .collect();
            let need = ainur.min_members;
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

    /// Would `player` controlling `nation` (on `side`) be on two sides of game `g`?
    fn one_side(
        &self,
        g: usize,
        id: &str,
        player: &str,
        nation: &str,
        side: Side,
    ) -> Result<(), String> {
        let Some(pid) = self.names.get(player) else {
            return Ok(());
        };
        let nid = self.places.get(nation);
        match self
            .slots_of(g)
            .iter()
            .find(|s| s.player == pid && Some(s.nation) != nid && s.side() != side)
        {
            Some(s) => Err(format!(
                "player {player} would be on two sides of game {id}: {} ({}) and {} ({nation}); a player plays one side only",
                side_name(s.side()),
                self.places.name(s.nation),
                side_name(side)
            )),
            None => Ok(()),
        }
    }

    pub(super) fn check_takeover(&self, e: &NationTakenOver) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.running(id, || format!("takeover of {}", e.nation))?;
        let pos = self.slot(g, id, &e.nation)?;
        if e.player.trim().is_empty() {
            return Err(format!(
                "takeover of {} in game {id}: player must not be empty",
                e.nation
            ));
        }
        if self.names.name(pos.player) == e.player {
            return Err(format!(
                "{} already controls {} in game {id}",
                e.player, e.nation
            ));
        }
        self.one_side(g, id, &e.player, &e.nation, pos.side())
    }

    pub(super) fn check_allegiance(&self, e: &AllegianceChanged) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.running(id, || format!("allegiance change of {}", e.nation))?;
        let pos = self.slot(g, id, &e.nation)?;
        if pos.start_side() != Side::Neutral {
            return Err(format!(
                "nation {} of game {id} started {}: only a neutral changes allegiance",
                e.nation,
                side_name(pos.start_side())
            ));
        }
        if pos.side() != Side::Neutral {
            return Err(format!(
                "neutral {} of game {id} already joined {}",
                e.nation,
                side_name(pos.side())
            ));
        }
        let side = super::apply::aligned(e.side);
        self.one_side(g, id, self.names.name(pos.player), &e.nation, side)
    }

    pub(super) fn check_ended(&self, e: &GameEnded) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.game(id)?;
        if let Some(t) = self.headers[g].ended {
            return Err(format!(
                "game {id} already ended on {}: a game ends once (to correct it: \
                 `laurel correct SEQ FILE --reason TEXT`, SEQ being its end's as `laurel log` shows it)",
                time::format_short(t)
            ));
        }
        TURN.check(e.turn).map_err(|m| format!("game {id}: {m}"))?;
        distinct(
            || format!("game {id} results"),
            e.nations.iter().map(|n| n.nation.as_str()),
        )?;
        for n in &e.nations {
            self.slot(g, id, &n.nation)?;
            VICTORY_POINTS
                .check(n.victory_points)
                .map_err(|m| format!("game {id}, nation {}: {m}", n.nation))?;
        }
        Ok(())
    }

    pub(super) fn check_vote(&self, e: &VoteCast, at: Micros, cx: &Cx) -> Result<(), String> {
        let id = &e.game.0;
        let g = self.game(id)?;
        let ended = self.headers[g].ended.ok_or_else(|| {
            format!(
                "game {id} has not ended by this ballot ({}): ballots count from its \
                 mepbm.game_ended on, which folds first when dated before the ballot, or at \
                 the same `at` and recorded before it",
                time::format_short(at)
            )
        })?;
        let days = cx.params.get::<params::Council>().deadline_days;
        let deadline = time::inclusive_end(ended).saturating_add(days.saturating_mul(DAY));
        if at > deadline {
            return Err(format!(
                "ballot of {} for game {id} is late: cast {}, deadline {} ({days} days after the end on {})",
                e.voter,
                time::format_short(at),
                time::format_end(deadline),
                time::format_short(ended)
            ));
        }
        let slots = self.slots_of(g);
        let side = match self.side_in(slots, &e.voter) {
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
        if self.voted(g, &e.voter) {
            return Err(format!(
                "{} already voted in game {id}: one ballot per player",
                e.voter
            ));
        }
        self.check_nominees(g, id, &e.voter, side, e)
    }

    /// Was `voter`'s ballot in game `g` counted?
    fn voted(&self, g: usize, voter: &str) -> bool {
        let Some(v) = self.names.get(voter) else {
            return false;
        };
        let first = self.slots_of(g).iter().find(|s| s.player == v);
        match first {
            Some(s) => s.voted,
            None => self.odd_voters.contains(&(g as u32, v)),
        }
    }

    fn check_nominees(
        &self,
        g: usize,
        id: &str,
        voter: &str,
        side: Side,
        e: &VoteCast,
    ) -> Result<(), String> {
        let ctx = || format!("ballot of {voter} for game {id}");
        let (s, max) = (side_name(side), BALLOT_CHOICES);
        for (category, n) in [
            ("best team player", e.best_team_player.len()),
            ("best played nation", e.best_played_nation.len()),
        ] {
            if n > max {
                return Err(format!(
                    "{}: {n} choices for {category}; at most {max} per category",
                    ctx()
                ));
            }
        }
        distinct(
            || format!("{}, best team player", ctx()),
            strs(&e.best_team_player),
        )?;
        distinct(
            || format!("{}, best played nation", ctx()),
            strs(&e.best_played_nation),
        )?;
        let slots = self.slots_of(g);
        for p in &e.best_team_player {
            if p == voter {
                return Err(format!("{}: no vote for oneself ({voter})", ctx()));
            }
            if self.side_in(slots, p) != Some(side) {
                return Err(format!(
                    "{}: best team player {p} is not a player of the voter's side {s} at the end",
                    ctx()
                ));
            }
        }
        for n in &e.best_played_nation {
            let pos = self
                .find_nation(slots, n)
                .map(|i| &slots[i])
                .ok_or_else(|| format!("{}: {}", ctx(), self.not_in_game(slots, n, id)))?;
            if pos.side() != side {
                return Err(format!(
                    "{}: best played nation {n} is {}, not the voter's side {s}",
                    ctx(),
                    side_name(pos.side())
                ));
            }
            if self.names.name(pos.player) == voter {
                return Err(format!(
                    "{}: {voter} controls {n}: no vote for one's own nation",
                    ctx()
                ));
            }
        }
        if let Some(n) = &e.best_enemy_nation {
            let pos = self
                .find_nation(slots, n)
                .map(|i| &slots[i])
                .ok_or_else(|| format!("{}: {}", ctx(), self.not_in_game(slots, n, id)))?;
            if pos.side() == side || pos.side() == Side::Neutral {
                return Err(format!(
                    "{}: best enemy nation {n} is {}, not the side opposing {s}",
                    ctx(),
                    side_name(pos.side())
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
        if self.team(team).is_some() {
            return Err(format!("grudge team {team} is already registered"));
        }
        distinct(|| format!("grudge team {team} members"), strs(&e.members))?;
        let min = cx.params.get::<params::Ainur>().min_members;
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

    /// Grudge team `name`, if registered.
    fn team(&self, name: &str) -> Option<&Team> {
        self.names.get(name).and_then(|id| self.teams.get(&id))
    }

    pub(super) fn check_roster(&self, e: &GrudgeRosterChanged, cx: &Cx) -> Result<(), String> {
        let team = &e.team;
        let t = self
            .team(team)
            .ok_or_else(|| format!("unknown grudge team {team}"))?;
        distinct(|| format!("grudge team {team}, added"), strs(&e.added))?;
        distinct(|| format!("grudge team {team}, removed"), strs(&e.removed))?;
        if e.added.is_empty() && e.removed.is_empty() {
            return Err(format!("roster change of {team} changes nobody"));
        }
        if let Some(p) = e.added.iter().find(|p| self.is_member(t, p)) {
            return Err(format!("{p} is already a member of {team}"));
        }
        if let Some(p) = e.removed.iter().find(|p| !self.is_member(t, p)) {
            return Err(format!("{p} is not a member of {team}"));
        }
        let coordinator = self.names.name(t.coordinator);
        if e.removed.iter().any(|p| p == coordinator) {
            return Err(format!(
                "grudge team {team} cannot remove its coordinator {coordinator}: a team keeps its coordinator"
            ));
        }
        let kept = t
            .original
            .iter()
            .filter(|&&p| {
                t.members.contains(&p) && !e.removed.iter().any(|r| r == self.names.name(p))
            })
            .count();
        let min = cx.params.get::<params::Ainur>().min_members;
        if (kept as i64) < min {
            return Err(format!(
                "roster change of {team} leaves {kept} of its original members (the rule of {min} needs at least {min})"
            ));
        }
        Ok(())
    }

    pub(super) fn check_tick(&self, e: &MonthlyTick, at: Micros) -> Result<(), String> {
        // A new tick's month is also written exactly as `YYYY-MM`
        // (`month_written`, a rule of input): months are ordered as text.
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
        if let Some(last) = self.months.last().filter(|&last| last > m) {
            return Err(format!(
                "month {m} comes before {last}, already ticked: months tick in calendar order \
                 (a late tick of {m} is dated before the tick of {last}: `laurel log --type \
                 mepbm.monthly_tick` shows when that is)"
            ));
        }
        let end = month_end(m).ok_or_else(|| format!("monthly tick: no month {m}"))?;
        if at >= end {
            Ok(())
        } else if !time::in_input_years(end) {
            Err(format!(
                "month {m} ends with the year 9999, after the latest `at` an event may have \
                 (9999-12-31T23:59:59.999999Z): it can never be ticked; 9999-11 is the last \
                 month that can be, at 9999-12-01 or later"
            ))
        } else {
            Err(format!(
                "month {m} has not ended at {}: its tick comes at {} or later",
                time::format_short(at),
                time::format_short(end)
            ))
        }
    }
}

/// The first instant after month `m` (`YYYY-MM`, already checked): midnight
/// UTC on the first of the next month (10000-01-01 after 9999-12, which no
/// new `at` reaches: a tick of 9999-12 is refused saying so, one stored at a
/// later instant reads as accepted).
fn month_end(m: &str) -> Option<Micros> {
    let year: i32 = m.get(..4)?.parse().ok()?;
    let month: u32 = m.get(5..)?.parse().ok()?;
    match month {
        12 => time::first_of_month(year + 1, 1),
        _ => time::first_of_month(year, month + 1),
    }
}

/// A new tick's `month` is written `YYYY-MM`: four ASCII digits, a hyphen,
/// two digits. Months are ordered by their text, so a signed year
/// (`+003-01`, which the date parser takes) would sort before every month
/// and let a month tick twice. A rule of input: a stored tick is read as
/// it was accepted.
pub(super) fn month_written(m: &str) -> Result<(), String> {
    let b = m.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    match b.len() == 7 && digits(0..4) && b[4] == b'-' && digits(5..7) {
        true => Ok(()),
        false => Err(format!(
            "monthly tick: month must be YYYY-MM (four digits, a hyphen, two digits), got {m:?}"
        )),
    }
}
