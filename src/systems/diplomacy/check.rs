//! Append-time validation of `diplomacy.game_ended`: every message names the
//! game, the power or field, and the rule broken.

use std::collections::{BTreeMap, BTreeSet};

use super::events::{GameEnded, Outcome, PowerResult, CENTERS_TOTAL, ELIMINATED};
use super::{params, State};
use crate::events::key::key;
use crate::events::Ident;
use crate::systems::players::check_power_name;
use crate::systems::Cx;
use crate::time::Micros;

/// Fewest powers any game may list (a structural bound, not a scoring rule).
pub(super) const MIN_POWERS: usize = 2;

/// Most powers a new game may list: far beyond any board played, and the
/// most whose scores stay in machine integers. A larger board's exact
/// fractions grow with it, and so does what every table shown costs; one
/// already stored is read and scored as accepted.
pub(super) const MAX_POWERS: usize = super::math::FIB_SMALL;

/// Every power of a new game gives its `player` (`null` for a surrendered
/// position): one left out is not read as surrendered (an input rule:
/// `RatingSystem::check_input`).
pub(super) fn players_given(g: &GameEnded) -> Result<(), String> {
    match g.powers.iter().find(|p| p.player.is_none()) {
        Some(p) => Err(format!(
            "game {}: power {} has no `player` field; give its player, or null for a \
             surrendered position",
            g.game, p.power
        )),
        None => Ok(()),
    }
}

/// A new game's board is no larger than [`MAX_POWERS`] (an input rule:
/// `RatingSystem::check_input`).
pub(super) fn board_size(g: &GameEnded) -> Result<(), String> {
    match g.powers.len() {
        n if n > MAX_POWERS => Err(format!(
            "game {} lists {n} powers; a game lists at most {MAX_POWERS}",
            g.game
        )),
        _ => Ok(()),
    }
}

impl State {
    pub(super) fn check_game(
        &self,
        (seq, at): (u64, Micros),
        g: &GameEnded,
        cx: &Cx,
    ) -> Result<(), String> {
        let id = &g.game;
        if let Some(first) = self.store.recorded(&id.0) {
            let once = "a game is recorded once";
            return Err(cx.second_result(&format!("game {id}"), once, (seq, first)));
        }
        if g.powers.len() < MIN_POWERS {
            return Err(format!(
                "game {id} lists {} power(s); a game needs at least {MIN_POWERS}",
                g.powers.len()
            ));
        }
        self.check_board(seq, g, cx)?;
        self.check_not_entered((seq, at), g, cx)?;
        check_powers(id, &g.powers)?;
        let board = match g.centers_total {
            Some(n) => Board::Given(
                CENTERS_TOTAL
                    .check(n)
                    .map_err(|m| format!("game {id}: {m}"))?,
            ),
            None => Board::Param(cx.params.get::<params::Carnage>().centers_total),
        };
        check_centers(id, &g.powers, board)?;
        check_result(id, g)?;
        check_draw(id, g)?;
        check_grouping(id, g)
    }

    /// A board is played once a round: a second game (record `seq`) at a
    /// tournament's round and board (the same game under another id) is
    /// refused when the append brings either game ([`Cx::brings`]).
    fn check_board(&self, seq: u64, g: &GameEnded, cx: &Cx) -> Result<(), String> {
        let (Some(t), Some(r), Some(b)) = (&g.tournament, &g.round, &g.board) else {
            return Ok(());
        };
        let Some((other, at)) = self.store.at_board(&t.0, &r.0, &b.0) else {
            return Ok(());
        };
        let (seq_of_other, hint) = match (cx.brings(at), cx.brings(seq)) {
            (false, false) => return Ok(()),
            (false, true) => (
                format!(" (seq {at})"),
                format!(" (to correct that game: `laurel correct {at} FILE --reason TEXT`)"),
            ),
            (true, _) => (String::new(), ", which this append brings".to_string()),
        };
        Err(format!(
            "game {}: board {b} of round {r} of tournament {t} was played already, as game \
             {other}{seq_of_other}; a board is played once a round{hint}",
            g.game
        ))
    }
}

impl State {
    /// A tournament a game names for the first time is not one already
    /// known written another way: the same letters and digits but for case,
    /// accents, spaces and signs ("Autumn Cup" for `autumn-cup`, [`letters`]),
    /// or the game would start a tournament of its own, silently. Names a
    /// letter apart are two tournaments (`group-a`, `group-b`).
    ///
    /// Known: named by a game before it in fold order (dated before it, or
    /// recorded before it on the same date), as every rule of a game is
    /// judged; a tournament renamed by corrections is corrected earliest
    /// game first. The known names' letters are kept as they are interned
    /// ([`super::Letters`]): each costs one key, however many games an
    /// append brings. An input rule (`RatingSystem::check_input`): games
    /// stored before are read as accepted.
    pub(super) fn check_new_tournament(&self, g: &GameEnded) -> Result<(), String> {
        let Some(t) = &g.tournament else {
            return Ok(());
        };
        let known = &self.store.tournaments;
        if known.get(&t.0).is_some() {
            return Ok(());
        }
        match self.letters.known_as(known, &letters(&t.0)) {
            Some(other) => Err(format!(
                "game {}: tournament {:?} is new, but a game dated before it names {other:?}, \
                 written another way (case, accents, spaces or signs); write the tournament \
                 one way",
                g.game, t.0
            )),
            None => Ok(()),
        }
    }
}

impl State {
    /// A game is entered once: a game (record `seq`) that ended when one
    /// before it did, with the same powers, players and centres (in any
    /// order), is that game entered again under another id, and would count
    /// twice. Another game that ended the same way at the same time is told
    /// to give its time to the minute. Found among the games of the same
    /// `at` alone (stored in fold order, which is date order). It binds when
    /// the append brings either game ([`Cx::brings`]): games stored before
    /// are read as accepted.
    fn check_not_entered(
        &self,
        (seq, at): (u64, Micros),
        g: &GameEnded,
        cx: &Cx,
    ) -> Result<(), String> {
        let s = &self.store;
        let ended_then = s.ended_at(at);
        let Some(mine) = (!ended_then.is_empty())
            .then(|| self.interned_positions(g))
            .flatten()
        else {
            return Ok(());
        };
        let same = ended_then.into_iter().find(|&i| {
            let mut theirs: Vec<_> = (s.game(i).positions.iter())
                .map(|p| (p.power, p.player, p.seat.centers))
                .collect();
            theirs.sort_unstable();
            theirs == mine
        });
        let Some(i) = same else {
            return Ok(());
        };
        let name = s.games.name(i as u32);
        let first = s.recorded(name).unwrap_or_default();
        let (which, hint) = match (cx.brings(first), cx.brings(seq)) {
            (false, false) => return Ok(()),
            (false, true) => (
                format!("(record {first})"),
                format!(" (to correct game {name}: `laurel correct {first} FILE --reason TEXT`)"),
            ),
            (true, _) => ("(which this append brings)".to_string(), String::new()),
        };
        Err(format!(
            "game {}: game {name} {which} ended at the same time with the same powers, \
             players and centres: a game is entered once{hint}; if this is another game, give \
             its `at` to the minute it ended",
            g.game
        ))
    }

    /// `g`'s positions as (power, player, centres) of the interned names,
    /// sorted; `None` if a power or player is new (no stored game has it).
    fn interned_positions(&self, g: &GameEnded) -> Option<Vec<(u32, Option<u32>, i64)>> {
        let s = &self.store;
        let mut mine = Vec::with_capacity(g.powers.len());
        for p in &g.powers {
            let player = match p.player() {
                Some(name) => Some(s.players.get(name)?),
                None => None,
            };
            mine.push((s.powers.get(&p.power)?, player, p.centers));
        }
        mine.sort_unstable();
        Some(mine)
    }
}

/// A tournament's name as [`State::check_new_tournament`] compares it: its
/// key's letters and digits.
pub(super) fn letters(name: &str) -> String {
    key(name).chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Where a game's supply-centre count comes from.
#[derive(Clone, Copy)]
enum Board {
    /// The game's `centers_total`.
    Given(i64),
    /// The `carnage.centers_total` parameter.
    Param(i64),
}

/// The seven powers of the standard board.
pub(crate) const STANDARD_POWERS: [&str; 7] = [
    "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey",
];

/// Their [`key`]s, in the same order (a unit test holds them to it).
pub(super) const STANDARD_KEYS: [&str; 7] = [
    "austria", "england", "france", "germany", "italy", "russia", "turkey",
];

/// A new game's power names are written as a player's are (no space at
/// either end, [`check_power_name`]), and two names whose keys are equal
/// ([`key`]: case, accents, spacing and letters of another script that look
/// alike do not count) are one power listed twice: "Austria", "austria" and
/// a Cyrillic "Аustria" are not three powers. A game played on the standard
/// board is told by its names ([`misspelt_standard_power`]): a name a few
/// letters from one of its powers is refused there, unless the game gives
/// `centers_total` (a variant's board). Input rules
/// (`RatingSystem::check_input`): a game stored before is read as accepted.
pub(super) fn power_names(g: &GameEnded) -> Result<(), String> {
    let id = &g.game;
    let mut names: BTreeMap<String, &str> = BTreeMap::new();
    for p in &g.powers {
        let power = p.power.as_str();
        check_power_name(power).map_err(|m| format!("game {id}: {m}"))?;
        if let Some(other) = names.insert(key(power), power) {
            return Err(format!(
                "game {id}: powers {other:?} and {power:?} are one name written two ways \
                 (case, accents, spacing or look-alike letters); list each power once"
            ));
        }
    }
    match misspelt_standard_power(&names).filter(|_| g.centers_total.is_none()) {
        Some((typo, meant)) => Err(format!(
            "game {id}: power {typo:?} is not a power of the standard board, which the \
             game's six other powers are; did you mean {meant:?}? (a variant's game names \
             its board by giving `centers_total`)"
        )),
        None => Ok(()),
    }
}

/// In a game of seven powers (by [`key`]) six of which are the standard
/// board's, the seventh when it is a few letters from the standard power the
/// game does not list ("Austira" beside England, France, ... Turkey):
/// `(name, power)`. A guess from the names: a game that gives its board's
/// `centers_total` is taken as a variant's and not judged so
/// ([`power_names`]), nor is a board of another size.
fn misspelt_standard_power<'a>(
    names: &BTreeMap<String, &'a str>,
) -> Option<(&'a str, &'static str)> {
    if names.len() != STANDARD_POWERS.len() {
        return None;
    }
    let mut odd = names
        .keys()
        .filter(|k| !STANDARD_KEYS.contains(&k.as_str()));
    let typo = odd.next()?;
    if odd.next().is_some() {
        return None;
    }
    let missing =
        (STANDARD_KEYS.iter().zip(STANDARD_POWERS)).find(|(k, _)| !names.contains_key(**k));
    let (k, power) = missing?;
    crate::events::closest(typo, [*k])?;
    Some((names[typo], power))
}

/// Names, players, centers and elimination years, power by power.
fn check_powers(id: &Ident, powers: &[PowerResult]) -> Result<(), String> {
    let mut names = BTreeSet::new();
    let mut players: BTreeMap<&str, &str> = BTreeMap::new();
    for p in powers {
        let power = &p.power;
        if power.trim().is_empty() {
            return Err(format!("game {id}: a power name must not be empty"));
        }
        if !names.insert(power.as_str()) {
            return Err(format!(
                "game {id}: power {power} is listed twice; power names are unique within a game"
            ));
        }
        if let Some(player) = p.player() {
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
        check_centers_and_year(id, p)?;
    }
    Ok(())
}

fn check_centers_and_year(id: &Ident, p: &PowerResult) -> Result<(), String> {
    let power = &p.power;
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
        (0, None) if p.player().is_some() => {
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
    Ok(())
}

/// The board's total bounds the centers reported, and someone survives.
fn check_centers(id: &Ident, powers: &[PowerResult], board: Board) -> Result<(), String> {
    let total = powers
        .iter()
        .fold(0i64, |acc, p| acc.saturating_add(p.centers));
    let (max, source) = match board {
        Board::Given(n) => (n, "the game's centers_total"),
        Board::Param(n) => (n, "carnage.centers_total"),
    };
    if total > max {
        return Err(format!(
            "game {id}: the powers hold {total} centers in all, more than the board's {max} \
             ({source})"
        ));
    }
    if total == 0 {
        return Err(format!(
            "game {id}: no power holds a center; a finished game has at least one survivor"
        ));
    }
    Ok(())
}

/// A solo or a concession names a surviving, held winner (a solo's tops the
/// board); a draw names none.
fn check_result(id: &Ident, g: &GameEnded) -> Result<(), String> {
    let (word, winner) = match (g.result, &g.winner) {
        (Outcome::Draw, None) => return Ok(()),
        (Outcome::Draw, Some(w)) => {
            return Err(format!(
                "game {id}: result is draw but winner {w} is named; a draw has no winner"
            ))
        }
        (Outcome::Solo, None) | (Outcome::Concession, None) => {
            return Err(format!(
                "game {id}: result is {} but no winner is named",
                result_word(g.result)
            ))
        }
        (Outcome::Solo, Some(w)) => ("solo winner", w),
        (Outcome::Concession, Some(w)) => ("winner of the concession", w),
    };
    let w = power(id, g, winner, word)?;
    if w.centers == 0 {
        return Err(format!(
            "game {id}: {word} {winner} holds no centers; a winner survives the game"
        ));
    }
    if w.player().is_none() {
        return Err(format!(
            "game {id}: {word} {winner} is a surrendered position (player null); a winner needs a player"
        ));
    }
    if g.result == Outcome::Concession {
        return Ok(());
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

fn result_word(r: Outcome) -> &'static str {
    match r {
        Outcome::Solo => "solo",
        Outcome::Draw => "draw",
        Outcome::Concession => "concession",
    }
}

/// The power named `name`, written as the game lists it, or an error listing
/// the game's powers: one written another way ("france") is told how the game
/// writes it, a near one hears of it.
fn power<'g>(
    id: &Ident,
    g: &'g GameEnded,
    name: &str,
    what: &str,
) -> Result<&'g PowerResult, String> {
    g.powers.iter().find(|p| p.power == name).ok_or_else(|| {
        let names: Vec<&str> = g.powers.iter().map(|p| p.power.as_str()).collect();
        let written = names.iter().find(|&&p| key(p) == key(name));
        let hint = match written {
            Some(p) => format!("; write it as the game's powers do: {p:?}"),
            None => crate::events::did_you_mean(name, names.iter().copied()),
        };
        format!(
            "game {id}: {what} {name} is not one of the game's powers ({}){hint}",
            names.join(", ")
        )
    })
}

/// A draw vote belongs to a draw and lists two or more distinct survivors.
fn check_draw(id: &Ident, g: &GameEnded) -> Result<(), String> {
    let Some(draw) = &g.draw else {
        return Ok(());
    };
    if g.result != Outcome::Draw {
        return Err(format!(
            "game {id}: result is {} but `draw` lists powers; only a draw has a draw vote",
            result_word(g.result)
        ));
    }
    if draw.len() < 2 {
        return Err(format!(
            "game {id}: `draw` lists {} power(s); a draw is shared by at least two \
             (a game given to one power is result \"concession\")",
            draw.len()
        ));
    }
    let mut seen = BTreeSet::new();
    for name in draw {
        let p = power(id, g, name, "draw member")?;
        if !seen.insert(name.as_str()) {
            return Err(format!(
                "game {id}: `draw` lists {name} twice; each power shares a draw once"
            ));
        }
        if p.centers == 0 {
            return Err(format!(
                "game {id}: draw member {name} holds no centers; only survivors share a draw"
            ));
        }
    }
    Ok(())
}

/// A tournament game names its round; a round or a board belongs to a tournament.
fn check_grouping(id: &Ident, g: &GameEnded) -> Result<(), String> {
    match (&g.tournament, &g.round, &g.board) {
        (Some(t), None, _) => Err(format!(
            "game {id}: tournament {t} but no round; a tournament game names its round"
        )),
        (None, Some(_), _) | (None, _, Some(_)) => Err(format!(
            "game {id}: round and board belong to a tournament; give `tournament` too"
        )),
        _ => Ok(()),
    }
}
