//! `mepbm`: Middle-earth PBM player and team ratings: Valar, Maia, Istari (with the
//! per-scenario "Top nations" pars), Ainur (grudge teams), Council of the Wise
//! (ballots), Nazgul (win percentage), and the monthly pull toward 1500.
//!
//! # Events
//! - `rating_seeded {player, system: valar|maia|istari|ainur, value}`: a starting rating.
//! - `game_started {game, scenario, positions: [{nation, player, side: FP|DS|neutral,
//!   category?}], grudge?: {FP: team, DS: team}}`; `nation_taken_over {game, nation, player}`;
//!   `allegiance_changed {game, nation, side: FP|DS}` (a neutral joins a side).
//! - `game_ended {game, turn, winner: FP|DS|draw, nations: [{nation, victory_points,
//!   eliminated}]}`; `vote_cast {game, voter, best_team_player: [≤ 3 players],
//!   best_played_nation: [≤ 3 nations], best_enemy_nation?}`.
//! - `grudge_team_registered {team, coordinator, members}`, `grudge_roster_changed {team,
//!   added, removed}`, `monthly_tick {month}`.
//!
//! # Ranges
//! Checked at append, the message naming the field and the values allowed
//! ([`events`] defines each beside its field): `rating_seeded.value` 1 to
//! 1,000,000 (a starting rating, as the `start` parameters); `game_ended.turn`
//! 0 to 1,000; `victory_points` 0 to 1,000,000. Ratings then move by the
//! formulas without a bound: [`math`] takes any `i64` rating, a rating
//! saturates at the ends of `i64`, and a change that would not fit is left out.
//!
//! # Rules
//! A position counts for the player controlling it at the game's end (the last takeover,
//! else the starter): a replaced player counts for nothing in that game, one who dropped
//! unreplaced still counts. A player plays one side of a game. Games fold in `(at, seq)`
//! order, so each formula reads the current ratings. Ratings are integers, each result
//! rounded once, to nearest, half away from zero, on the exact value ([`math`]). A game
//! that started with fewer than `small_game.min_positions` (20) positions is small: every
//! Valar, Maia, Istari and Ainur change is multiplied by `small_game.factor` (0.5) first.
//! - **Valar**: `round(45 + (TotLose - TotWin) / 150)` (`valar.base`, `valar.divisor`),
//!   at least `valar.min_change` when that is set (unset by default);
//!   TotWin and TotLose sum the current Valar rating of the controller of each position of
//!   the winning and losing side (a player with two positions counts twice). Each counted
//!   winner gains it once per game, each loser loses it, and so does a neutral that never
//!   joined a side (not summed in TotLose). A draw changes nothing.
//! - **Maia**: `round(TmAv / old * S * sqrt(turn))`, S `maia.win` 4, `maia.draw` 3,
//!   `maia.loss` 2, TmAv the mean current Maia rating over the positions of the player's
//!   side; an unaligned neutral scores as a loser with the losers' TmAv (on a draw, the
//!   mean of all aligned positions). Once per player per game.
//! - **Istari**: for each nation of `game_ended.nations`, in that order, its controller
//!   gets `round(VP - par)`, par the mean victory points of that (scenario, nation) over
//!   earlier games, or of that (scenario, category) when the position carries a
//!   `category` ([`pars`]: Fourth Age's "North Kingdom", "South Kingdom",
//!   "normal nation"); its first game sets the par and changes nothing. The pars then
//!   take in the game; they are the `nations` ("Top nations") table and never decay.
//! - **Ainur** (grudge teams): `round(60 * LoseOrig / WinOrig * ActiveWinNations /
//!   WinNationsAtStart)` (`ainur.base`), winner +, loser -, draw 0. A grudge game needs
//!   `ainur.min_nations` (10) nations a side at start and `ainur.min_members` (5) of each
//!   team's members on its side. A roster change costs `C * C`, C = max(|added|,
//!   |removed|), and must keep 5 original members and the coordinator.
//! - **Council of the Wise**: one ballot per counted FP or DS player per game, within
//!   `council.deadline_days` (14) of the end (of the end's day, for a plain date). Team players are other players of the
//!   voter's side, played nations nations of that side the voter does not control, the
//!   enemy a nation of the other side; each list distinct. `council.points` 3, 2, 1 by
//!   preference, `council.enemy` 3; a nation credits its controller at the end. Tables:
//!   the total, team player, played nation and enemy nation. Each credit is a `history`
//!   row of the total, naming the choice and the voter.
//! - **Nazgul**: `100 * won / played` over the games a player counted in (a draw is
//!   played, not won), scenario `bofa` excluded; never adjusted. Ties: more games won.
//!   Each counted game is a `history` row of the percentage, to one decimal.
//! - **Monthly**: each `monthly_tick` sets every Valar, Maia, Istari and Ainur rating to
//!   `round(0.98 * (R - 1500) + 1500)` (`monthly.factor`, `monthly.mean`): 1850 → 1843.
//!   The rules adjust "after each month": a tick is for a month that has ended by its
//!   `at`, months tick in calendar order, once each; a skipped month may be ticked
//!   late, before any later month. 9999-12 ends after the latest `at` an event may
//!   have (9999-12-31T23:59:59.999999Z), so its tick is refused saying so: 9999-11,
//!   ticked at 9999-12-01 or later, is the last month adjusted.
//!
//! Layout: [`math`] holds the formulas, `check` the validation, `apply` the fold, `pars`
//! what a par is kept for, `tables`
//! the standings, `store` the compact state: its memory grows with players and games
//! (about 50 bytes per mepbm event), not with ballots.
//!
//! # Decisions
//! - **Ratings start** at each system's `start` parameter (1500) the first time a player
//!   is counted; `rating_seeded` is rejected once the subject has a rating in that system
//!   (seed before the first game) and must be positive (Maia divides by it).
//! - **Sides.** A game needs an FP and a DS position at start. A player's side is that of
//!   the positions he controls *now*: a replaced player is free again. Only a neutral
//!   that has not joined a side may change allegiance, once. Taking over a nation you
//!   already control is rejected (it changes nothing: almost certainly a typo).
//! - **Results.** `game_ended.nations` may omit positions: an omitted nation has no
//!   Istari change and counts as active (not eliminated) for Ainur. Turns and victory
//!   points must be `>= 0`; nations must be in the game, once each.
//! - **Valar** is not clamped by default: if the winners were far stronger the change is
//!   negative and they lose points, as the formula says. That happens when TotWin passes
//!   TotLose by more than `45 * 150` = 6,750: winners totalling 19,000 against losers
//!   totalling 11,000 give `round(45 + (11000 - 19000) / 150)` = `round(-8.33)` = -8, so
//!   each winner loses 8 and each loser gains 8. `valar.min_change` floors the change:
//!   0 (the chess-like floor) makes that game `max(0, -8)` = 0, nobody moves; 5 makes it
//!   +5 to the winners, -5 to the losers. The floor applies after rounding (and after the
//!   small-game factor). Every counted player plays a game for the `games` column,
//!   draws included.
//! - **Ainur.** `WinNationsAtStart` and `ActiveWinNations` both count the nations that
//!   *started* on the winning side (the ratio never exceeds 1 when a neutral joins). A
//!   team member may not play a nation of the opposing side of a grudge game. The roster
//!   rule counts members present at registration ("original"); the coordinator must be
//!   one and can never be removed. A roster change must change someone. Roster costs
//!   are not halved (they belong to no game).
//! - **Council** ballots are in time up to and including the end plus 14 days, to the
//!   microsecond. A plain date (midnight UTC) is the whole day everywhere, as in the
//!   card league: a game ended `"2003-03-01"` takes ballots up to the end of 15 March
//!   (`2003-03-15T23:59:59.999999Z`), one ended at noon up to noon on the 15th. A ballot
//!   folded before its game's end is rejected. Points go
//!   to the nominee / the nation's controller at game end; never halved or adjusted.
//! - **Nazgul** excludes `bofa` case-insensitively: a name, not a number, so not a rule
//!   parameter. Ties go by more games won, then player name: no two rows share a
//!   rank (the name is the last tie-break, as in the rules).
//! - **Top nations** rank within each scenario by par, ties sharing a rank; the
//!   `player` column reads `Nation (scenario)`, or `Category (scenario, category)` for a
//!   category's par, so it is unique; `nation` or `category` names the row, the other
//!   is empty. A category's `games` counts its positions (a game with three normal
//!   nations adds three).
//! - **Nation counts.** The rules count "25 from 1650, 25 from 2950, 3 from Fourth Age
//!   and 5 from Bofa". A `game_started` of one of those scenarios (names compared
//!   ignoring ASCII case) is refused when its nations (categories, where given) with
//!   those the scenario has pars for (games ended before it in fold order) would pass
//!   that count: a misspelt nation shows as a 26th. There is no warning channel at
//!   append, so the count refuses. Other scenarios are not counted. A category must not
//!   be empty.
//! - **Monthly** applies to every subject holding a Valar, Maia, Istari or Ainur rating
//!   at the tick; unchanged values are not reported as changes. `month` is `YYYY-MM`;
//!   its tick's `at` is at or after midnight UTC on the first of the next month (a tick
//!   for 2003-05 at 15 January is refused); a month at or before the latest ticked one
//!   is refused (after 2003-01, neither 2003-01 again nor 1999-01). Ticks check in fold
//!   order, `(at, seq)`. The whole value rounds: 1425 becomes round(1426.5) = 1427, 1575
//!   becomes round(1573.5) = 1574.
//! - **Audit**: a change's `old` is the value the formula used (the start value for a new
//!   player; empty for a seed). A nation's first game is audited as `+0` with the reason.

mod apply;
mod check;
pub mod events;
pub(crate) mod gen;
pub mod math;
pub mod params;
mod pars;
mod store;
mod system;
mod tables;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::systems::mepbm::events::{Event, Side};
use crate::systems::table::Report;
use crate::systems::Record;

use super::{Cx, Projection, Selector};
use crate::systems::compact::IdMap;
use store::{Header, Interner, Ratings, Slot};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &[
    "valar", "maia", "istari", "nations", "ainur", "council", "nazgul",
];

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Team {
    coordinator: u32,
    /// Members at registration, sorted ids: the rule of 5 counts these.
    original: Vec<u32>,
    members: BTreeSet<u32>,
}

/// Council of the Wise points of one player, by category.
#[derive(Debug, Clone, Copy, Default)]
struct Council {
    team_player: i64,
    played_nation: i64,
    enemy_nation: i64,
}

impl Council {
    /// The Council table's score: every category's points.
    fn total(&self) -> i64 {
        (self.team_player)
            .saturating_add(self.played_nation)
            .saturating_add(self.enemy_nation)
    }
}

/// Games counted for Nazgul.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    won: u32,
    played: u32,
}

/// What a par is kept for within a scenario: a nation, or a category of
/// nations (a position's `category`, as Fourth Age's "North Kingdom"); ids
/// in `places`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
enum ParKey {
    Nation(u32),
    Category(u32),
}

impl ParKey {
    fn id(self) -> u32 {
        match self {
            ParKey::Nation(i) | ParKey::Category(i) => i,
        }
    }
}

/// Per (scenario, nation or category): the sum and count of victory points scored.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct Par {
    sum: i64,
    games: u32,
}

/// The mepbm projection. Memory grows with players and games (see [`store`]).
#[derive(Debug, Clone, Default)]
pub struct State {
    /// Players and teams (the rated subjects).
    names: Interner,
    /// Nations and scenarios: few, so looking one up stays in cache.
    places: Interner,
    /// Game ids; id `i` is `headers[i]`.
    games: Interner,
    headers: Vec<Header>,
    /// Every game's positions, game after game (see [`store`]).
    slots: Vec<Slot>,
    /// Counted ballots of players who control no nation of the game, as
    /// (game, voter): only a filtered fold could apply one (checks refuse them).
    odd_voters: BTreeSet<(u32, u32)>,
    valar: Ratings,
    maia: Ratings,
    istari: Ratings,
    /// Grudge team ratings (only once seeded, played or charged).
    ainur: Ratings,
    teams: BTreeMap<u32, Team>,
    /// By (scenario, nation or category).
    pars: BTreeMap<(u32, ParKey), Par>,
    /// The category of a position that carries one: (game, nation) to category.
    categories: BTreeMap<(u32, u32), u32>,
    /// By player id.
    council: IdMap<Council>,
    nazgul: IdMap<Tally>,
    months: BTreeSet<String>,
}

impl State {
    /// Game `id`'s index, if it was started.
    fn game_index(&self, id: &str) -> Option<usize> {
        self.games.get(id).map(|i| i as usize)
    }

    /// The slots of game `i`.
    fn slots_of(&self, i: usize) -> &[Slot] {
        &self.slots[self.slot_range(i)]
    }

    fn slot_range(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 {
            0
        } else {
            self.headers[i - 1].slot_end as usize
        };
        start..self.headers[i].slot_end as usize
    }

    /// The slot of `nation` among `slots`, by position.
    fn find_nation(&self, slots: &[Slot], nation: &str) -> Option<usize> {
        let id = self.places.get(nation)?;
        slots.iter().position(|s| s.nation == id)
    }

    /// "Not in game `id`" for `nation`, with the nearest nation of `slots`.
    fn not_in_game(&self, slots: &[Slot], nation: &str, id: &str) -> String {
        let names = slots.iter().map(|s| self.places.name(s.nation));
        let hint = crate::events::did_you_mean(nation, names);
        format!("nation {nation} is not in game {id}{hint}")
    }

    /// The side `player` is counted on in `slots` (None: controls nothing).
    fn side_in(&self, slots: &[Slot], player: &str) -> Option<Side> {
        let id = self.names.get(player)?;
        slots.iter().find(|s| s.player == id).map(Slot::side)
    }
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        let crate::systems::Event::Mepbm(ev) = &rec.event else {
            return Ok(());
        };
        match ev {
            Event::RatingSeeded(e) => self.check_seeded(e),
            Event::GameStarted(e) => self.check_started(e, cx),
            Event::NationTakenOver(e) => self.check_takeover(e),
            Event::AllegianceChanged(e) => self.check_allegiance(e),
            Event::GameEnded(e) => self.check_ended(e),
            Event::VoteCast(e) => self.check_vote(e, rec.at, cx),
            Event::GrudgeTeamRegistered(e) => self.check_registered(e, cx),
            Event::GrudgeRosterChanged(e) => self.check_roster(e, cx),
            Event::MonthlyTick(e) => self.check_tick(e, rec.at),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        let crate::systems::Event::Mepbm(ev) = &rec.event else {
            return;
        };
        match ev {
            Event::RatingSeeded(e) => self.apply_seeded(e, rec, cx),
            Event::GameStarted(e) => self.apply_started(e),
            Event::NationTakenOver(e) => self.apply_takeover(e),
            Event::AllegianceChanged(e) => self.apply_allegiance(e),
            Event::GameEnded(e) => self.apply_ended(e, rec, cx),
            Event::VoteCast(e) => self.apply_vote(e, rec, cx),
            Event::GrudgeTeamRegistered(e) => self.apply_registered(e),
            Event::GrudgeRosterChanged(e) => self.apply_roster(e, rec, cx),
            Event::MonthlyTick(e) => self.apply_tick(e, rec, cx),
        }
    }
}

impl State {
    /// The standings table `table`, one of [`TABLES`].
    pub fn standings(&self, table: &str, sel: &Selector, cx: &Cx) -> Result<Report, String> {
        match table {
            "valar" => Ok(self.rating_table("valar", "Valar", &self.valar, sel)),
            "maia" => Ok(self.rating_table("maia", "Maia", &self.maia, sel)),
            "istari" => Ok(self.rating_table("istari", "Istari", &self.istari, sel)),
            "nations" => Ok(self.nations_table()),
            "ainur" => Ok(self.ainur_table(cx)),
            "council" => Ok(self.council_table(sel)),
            "nazgul" => Ok(self.nazgul_table(sel)),
            _ => Err(format!("mepbm has no table {table:?}")),
        }
    }
}
