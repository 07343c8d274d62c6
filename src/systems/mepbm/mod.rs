//! `mepbm`: Middle-earth PBM player and team ratings (SPEC §2): Valar, Maia,
//! Istari (with the per-scenario "Top nations" pars), Ainur (grudge teams),
//! Council of the Wise (ballots), Nazgul (win percentage), and the monthly pull
//! toward 1500.
//!
//! Layout: [`math`] holds the pure formulas, `check` the append-time validation,
//! `apply` the fold, `tables` the standings.
//!
//! # Decisions where SPEC §2 is silent
//! - **Ratings start** at the `start` parameter of each system (1500) the first
//!   time a player is counted; `rating_seeded` sets an approximate starting value
//!   and is rejected once the subject already has a rating in that system (seed
//!   before the first game), and must be positive (Maia divides by it).
//! - **Sides.** A game needs at least one FP and one DS position at start. A
//!   player's side is the side of the positions he controls *now*: a replaced
//!   player is free again. Only a neutral that has not joined a side may change
//!   allegiance, and only once. Taking over a nation you already control is
//!   rejected (it changes nothing and is almost certainly a typo).
//! - **Results.** `game_ended.nations` may omit positions: an omitted nation has
//!   no Istari change and counts as active (not eliminated) for Ainur. Turns and
//!   victory points must be `>= 0`; nations must be in the game, once each.
//! - **Valar** is not clamped: if the winners were far stronger the change can be
//!   negative, and the winners then lose points, exactly as the formula says.
//!   Every counted player plays a game for the `games` column, draws included.
//! - **Ainur.** `WinNationsAtStart` and `ActiveWinNations` both count the nations
//!   that *started* on the winning side (so the ratio never exceeds 1 when a
//!   neutral joins). A team member may not play a nation of the opposing side of
//!   a grudge game. The roster rule counts members present at registration
//!   ("original"); the coordinator must be a member at registration and can
//!   never be removed. A roster change must change someone. Roster costs are
//!   not halved (they belong to no game).
//! - **Council** ballots are in time up to and including `game_ended.at` plus
//!   14 days (to the microsecond); a ballot folded before its game's end is
//!   rejected. Points are credited to the nominee / the nation's controller at
//!   game end when the ballot is folded; they are never halved or adjusted.
//! - **Nazgul** excludes the scenario `bofa` (case-insensitive): a name, not a
//!   number, so not a rule parameter. Rows tied on percentage and on games won
//!   share a rank (listed by player name): the name orders, it does not rank.
//! - **Top nations** rank within each scenario by par, ties sharing a rank; the
//!   table's `player` column reads `Nation (scenario)` so it is unique.
//! - **Monthly** applies to every subject holding a Valar, Maia, Istari or Ainur
//!   rating at the tick; unchanged values are not reported as changes. `month`
//!   must be `YYYY-MM`. The whole value rounds, as SPEC writes it: 1425 becomes
//!   round(1426.5) = 1427, 1575 becomes round(1573.5) = 1574.
//! - **Audit**: each change's `old` is the value used by the formula (the start
//!   value for a new player), except a seed, whose `old` is empty. A nation's
//!   first game is audited as `+0` with the reason (it sets the par).

mod apply;
mod check;
pub mod math;
mod tables;

use std::collections::{BTreeMap, BTreeSet};

use crate::events::mepbm::{Event, Side};
use crate::events::Record;
use crate::output::Report;
use crate::params::{Kind, ParamDef};
use crate::time::Micros;

use super::{Cx, Projection, Selector};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &[
    "valar", "maia", "istari", "nations", "ainur", "council", "nazgul",
];

const fn int(
    system: &'static str,
    name: &'static str,
    default: &'static str,
    doc: &'static str,
) -> ParamDef {
    ParamDef {
        system,
        name,
        kind: Kind::Int,
        default,
        doc,
    }
}

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[
    int("valar", "base", "45", "constant of the Valar change"),
    int(
        "valar",
        "divisor",
        "150",
        "divisor of the rating difference (TotLose - TotWin)",
    ),
    int("valar", "start", "1500", "Valar rating of a new player"),
    int("maia", "win", "4", "Maia score S of a win"),
    int("maia", "draw", "3", "Maia score S of a draw"),
    int("maia", "loss", "2", "Maia score S of a loss"),
    int("maia", "start", "1500", "Maia rating of a new player"),
    int("istari", "start", "1500", "Istari rating of a new player"),
    int("ainur", "base", "60", "constant of the Ainur change"),
    int(
        "ainur",
        "start",
        "1500",
        "Ainur rating of a new grudge team",
    ),
    int(
        "ainur",
        "min_nations",
        "10",
        "nations a side a grudge game needs at start",
    ),
    int(
        "ainur",
        "min_members",
        "5",
        "original members a grudge team keeps, and members on its side in a grudge game",
    ),
    int(
        "small_game",
        "min_positions",
        "20",
        "a game starting with fewer positions earns small_game.factor",
    ),
    ParamDef {
        system: "small_game",
        name: "factor",
        kind: Kind::Decimal,
        default: "\"0.5\"",
        doc: "multiplier of every Valar, Maia, Istari and Ainur change of a small game",
    },
    ParamDef {
        system: "monthly",
        name: "factor",
        kind: Kind::Decimal,
        default: "\"0.98\"",
        doc: "monthly pull toward the mean: round(factor * (R - mean) + mean)",
    },
    int(
        "monthly",
        "mean",
        "1500",
        "the value the monthly adjustment pulls toward",
    ),
    int(
        "council",
        "deadline_days",
        "14",
        "days after game end a ballot may be cast",
    ),
    ParamDef {
        system: "council",
        name: "points",
        kind: Kind::Ints,
        default: "[3, 2, 1]",
        doc: "points of the 1st, 2nd and 3rd team-player and played-nation choices",
    },
    int(
        "council",
        "enemy",
        "3",
        "points of the best played enemy nation",
    ),
];

/// One rated subject in one system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Rating {
    value: i64,
    /// Games the subject was counted in (Istari: nations scored).
    games: u32,
}

/// One position of a game.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Pos {
    /// The player controlling it now (the last takeover, else the starter).
    controller: String,
    /// The side now: a neutral that joined a side has that side.
    side: Side,
    /// The side at game start.
    start_side: Side,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Game {
    scenario: String,
    /// Positions by nation.
    positions: BTreeMap<String, Pos>,
    /// Grudge teams: (FP team, DS team).
    grudge: Option<(String, String)>,
    /// When it ended, once it has.
    ended: Option<Micros>,
    /// Players whose ballot was counted.
    voters: BTreeSet<String>,
}

impl Game {
    /// Nations controlled by `player`, with their current sides.
    fn controlled_by<'a>(
        &'a self,
        player: &'a str,
    ) -> impl Iterator<Item = (&'a String, &'a Pos)> + 'a {
        self.positions
            .iter()
            .filter(move |(_, p)| p.controller == player)
    }

    /// The side `player` is counted on (None: controls nothing).
    fn side_of(&self, player: &str) -> Option<Side> {
        self.controlled_by(player).map(|(_, p)| p.side).next()
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Team {
    coordinator: String,
    /// Members at registration: the rule of 5 counts these.
    original: BTreeSet<String>,
    members: BTreeSet<String>,
}

/// Council of the Wise points of one player, by category.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct Council {
    team_player: i64,
    played_nation: i64,
    enemy_nation: i64,
}

/// Games counted for Nazgul.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct Tally {
    won: u32,
    played: u32,
}

/// Per (scenario, nation): the sum and count of victory points scored.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct Par {
    sum: i64,
    games: u32,
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct State {
    games: BTreeMap<String, Game>,
    valar: BTreeMap<String, Rating>,
    maia: BTreeMap<String, Rating>,
    istari: BTreeMap<String, Rating>,
    /// Grudge team ratings (only once seeded, played or charged).
    ainur: BTreeMap<String, Rating>,
    teams: BTreeMap<String, Team>,
    pars: BTreeMap<(String, String), Par>,
    council: BTreeMap<String, Council>,
    nazgul: BTreeMap<String, Tally>,
    months: BTreeSet<String>,
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        let crate::events::Event::Mepbm(ev) = &rec.event else {
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
            Event::MonthlyTick(e) => self.check_tick(e),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        let crate::events::Event::Mepbm(ev) = &rec.event else {
            return;
        };
        match ev {
            Event::RatingSeeded(e) => self.apply_seeded(e, rec, cx),
            Event::GameStarted(e) => self.apply_started(e),
            Event::NationTakenOver(e) => self.apply_takeover(e),
            Event::AllegianceChanged(e) => self.apply_allegiance(e),
            Event::GameEnded(e) => self.apply_ended(e, rec, cx),
            Event::VoteCast(e) => self.apply_vote(e, cx),
            Event::GrudgeTeamRegistered(e) => self.apply_registered(e),
            Event::GrudgeRosterChanged(e) => self.apply_roster(e, rec, cx),
            Event::MonthlyTick(e) => self.apply_tick(e, rec, cx),
        }
    }
}

impl State {
    /// The standings table `table`, one of [`TABLES`].
    pub fn standings(&self, table: &str, _sel: &Selector, cx: &Cx) -> Result<Report, String> {
        match table {
            "valar" => Ok(self.rating_table("valar", "Valar", &self.valar)),
            "maia" => Ok(self.rating_table("maia", "Maia", &self.maia)),
            "istari" => Ok(self.rating_table("istari", "Istari", &self.istari)),
            "nations" => Ok(self.nations_table()),
            "ainur" => Ok(self.ainur_table(cx)),
            "council" => Ok(self.council_table()),
            "nazgul" => Ok(self.nazgul_table()),
            _ => Err(format!("mepbm has no table {table:?}")),
        }
    }
}
