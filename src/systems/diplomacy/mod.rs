//! `diplomacy`: finished Diplomacy games scored four ways, so one ledger can rank a
//! tournament under any of them: `fibonacci` (Fibonacci-Diplo, an online adaptation of
//! Carnage), `carnage` (face-to-face Carnage and the variants tournaments use), `dss`
//! (Draw-Size Scoring) and `sos` (Sum-of-Squares), the last two offered for comparison.
//!
//! # Events
//! - `diplomacy.game_ended {game, result: solo|draw|concession, winner?: power,
//!   draw?: [power…], centers_total?, tournament?, round?, board?, powers: [{power,
//!   player (null: a surrendered position never replaced), centers, eliminated?: year}]}`.
//!   `draw` lists the powers sharing a draw (default every survivor); a concession is
//!   scored as a solo for `winner`; `centers_total` is the board's supply centres
//!   (default the `carnage.centers_total` parameter).
//!
//! # Ranges
//! Checked at append, naming the field and the values allowed: `centers` 0 or
//! more, all powers together at most the board's `centers_total`; `eliminated` a
//! year from 1 to 9999 ([`events::ELIMINATED`]); `centers_total` 1 to 1,000,000
//! ([`events::CENTERS_TOTAL`]); a new game lists 2 to 150 powers (`check`'s
//! `MAX_POWERS`: a game stored before that bound is read as it was accepted).
//!
//! # Rules
//! Within a game, survivors rank by centers, eliminated powers after them by elimination
//! year (later is better), surrendered positions tied last; tied positions share the
//! ranks they span ([`math::shared_ranks`]) and the mean of those ranks' points, exact
//! (no rounding: a tie of two on 4004 and 3003 gets 3503.5).
//! - **Fibonacci-Diplo**: the Fibonacci sequence of length N, starting at
//!   `fibonacci.base` (0: 0, 1, 1, 2, 3, 5, 8 for 7 powers; 1: 1, 1, 2, 3, 5 …); rank r
//!   gets element N − r, tied positions the mean of their ranks' elements; score = that /
//!   the sum of the sequence, so a game's scores add up to 1. A game needs
//!   `fibonacci.min_powers` (5) powers with base 0 and one fewer with base 1 (the seed:
//!   "five players or more (4 if you use 1-based)"; the 1-based sequence of N is the
//!   0-based one of N + 1 without its 0). Centers 10, 8, 6, 5, 3, 2 and one eliminated
//!   give 0.40, 0.25, 0.15, 0.10, 0.05, 0.05, 0; two tied at 2nd–3rd get 0.20 each.
//! - **Carnage**: on a draw, rank points `carnage.rank_points` × N (1000 × N) for 1st
//!   down to 1000 for Nth (tied ranks split theirs), plus `carnage.centre_points` (1) per
//!   center, plus `carnage.leader_bonus` (0) per centre a sole board-topper leads the
//!   second by (nothing when the top is shared). `carnage.eliminated` ranks eliminated
//!   powers `"by_year"` (default) or `"tied"`: all share the places below the survivors
//!   ("dead equal"; surrendered positions stay last). On a solo the winner takes every
//!   rank point plus `centre_points` × the board's centres (28034 on a 7-player board of
//!   34), the others 0. The variants of dipvis: "Carnage with elimination order" is the
//!   default, "with dead equal" is `eliminated: "tied"`, "Carnage 2023" is
//!   `leader_bonus: 300`, "Center-count Carnage" is `rank_points: 1001, centre_points:
//!   500` (dipvis gives its soloist 39028 and each other power 1000; laurel's soloist
//!   takes the same 45028 in all, the others 0).
//! - **Draw-Size Scoring**: on a k-way draw each position sharing it gets 1/k.
//! - **Sum-of-Squares**: centers² / Σ centers² over every position.
//! - A solo or a concession scores 1 for the winner and 0 for the others in Fibonacci,
//!   DSS and SoS.
//! - Standings per system: the sum of a player's game scores, then more games played,
//!   then player.
//!
//! # Draw votes
//! A `draw` that leaves survivors out changes **Draw-Size Scoring** only: the k powers
//! in it get 1/k, survivors left out 0 (as dipvis does). **Fibonacci-Diplo**,
//! **Carnage** and **Sum-of-Squares** ignore the vote and score every position by its
//! rank and centres, as on any draw: Carnage and SoS do so in dipvis, and Fibonacci
//! derives from Carnage, whose rank points go to every position of a drawn game.
//!
//! # Tournaments
//! A game may name its `tournament`, its `round` in it (required with a tournament)
//! and its `board` (optional). `standings <table>` is the global table
//! over every game; `standings <table> --tournament T` is T's standings in that
//! system: a player's score in a round is their best game of the round (a player who
//! sat at two boards of one round counts the better, as dipvis's "best game counts"),
//! their total the sum of their best `diplomacy_tournament.best_rounds` rounds (0: every
//! round; an equal score counts the earlier round), ranked by total, then rounds played,
//! then player. Its columns: `rank, player, score, rounds`, one `round R` per round in
//! the order the rounds were first played (null: not played), `dropped` (the rounds not
//! counted). `best_rounds` is the one in force at the tournament's latest game. Its
//! `games` table lists the tournament's games only. Tables are not shown per tournament
//! by `demo` and `replay`: they show the global tables.
//!
//! Each game is scored with the parameters in force at its `at` (so a
//! `ledger.rules_changed` reaches later games only); the math lives in [`math`].
//!
//! **State**: the fold keeps only the games, compactly ([`store`]: about 120
//! bytes a game, names interned) with the rule set each was folded under. Scores
//! are a pure function of those, so a table is scored when it is rendered
//! ([`report`], [`tournament`]): per position as an exact fraction of machine
//! integers ([`exact::Exact`]; big rationals only for a Fibonacci board past
//! [`math::FIB_SMALL`] powers), per player into a running total
//! ([`exact::Total`]) that keeps it exact over a `u64` common denominator
//! while that fits, and from then on places it between two fixed-point bounds.
//! Players are ordered by their bounds (an exact total's are its own floor);
//! only totals whose bounds meet are compared exactly ([`order`]), and only
//! the rows a table shows have their games
//! scored again for `per_game`. Running totals and formula text are built only
//! when the fold keeps an audit trail (`history`, [`audit`]): each formula names the game's tournament,
//! round and board, the power, its rank and centres.
//!
//! # Decisions
//!
//! - **Surrendered positions keep their place in every system's arithmetic** and
//!   their share goes to nobody: they take the last ranks (Fibonacci, Carnage),
//!   count in the draw size when they still hold centers and no `draw` says otherwise
//!   (DSS: a position in civil disorder survives), and their centers count in
//!   Σ centers² (SoS). This is Fibonacci-Diplo's own treatment ("ranks vacant
//!   positions as tied for last") carried to the other systems, so no system
//!   rewards the others for a player walking away.
//! - **A power with no centers must carry its elimination year** (unless the
//!   position was surrendered, which ranks last anyway): the year is what ranks it.
//! - **A solo winner holds strictly more centers than any other power**, survives,
//!   and is held by a player; a draw names no winner. **A concession's winner**
//!   survives and is held by a player, whatever its centres.
//! - **A draw vote** belongs to a draw and lists two or more distinct powers of the
//!   game, each holding centres (a surrendered one may be listed); a game given to one
//!   power is a concession.
//! - **A tournament game names its round**; a round or a board needs a tournament.
//!   Round and board names are the event's, shown as given.
//! - **The board's centers** are the game's `centers_total`, else
//!   `carnage.centers_total` (34): a game may not report more centers in all; the same
//!   number is Carnage's solo bonus.
//! - **Carnage's leader bonus** goes to the one position with the most centres, by its
//!   lead over the next position's centres (any position: a surrendered one holds
//!   centres too); a surrendered board-topper's bonus goes to nobody.
//! - **One player, one power**: a player listed for two powers of one game is an
//!   error (the standings count games played per player).
//! - **Fibonacci's minimum** applies to solos too (Fibonacci-Diplo "supports variants
//!   with five or more players"). A smaller game still appends; Fibonacci lists it in
//!   its `refused` table with the reason and scores it for nobody. `fibonacci.base` is
//!   0 or 1 ([`params`] refuses any other).
//! - **Standings order**: total, then more games played, then player name (name
//!   only orders rows: players equal on total and games share a rank).
//! - **Scores are not stored.** A table is scored from the stored games at
//!   query time, in machine integers, rather than kept as running totals in the
//!   state: the state and its checkpoint bytes stay the games alone, a rule
//!   change or an `--as-of` needs no second copy of any total, and scoring a
//!   million-event ledger's games this way takes a fraction of the query.
//!   Exactness holds for every input validation admits: each system's bounds
//!   are in [`math`], every step of a total is checked, and a step that would
//!   overflow goes on in big integers ([`exact`]).
//! - **Display**: totals are exact; JSON shows Fibonacci, DSS and SoS to 4
//!   decimals, Carnage as an integer (or to 2 decimals when a tie split a point).
//!   Text, CSV and the site show every score of a table (a player's total,
//!   their `per_game` scores, the `games` table's, a tournament's totals and
//!   rounds) with one number of decimals, rounded half away from zero:
//!   Fibonacci, DSS and SoS 4 (`1.3000` beside `1.0071`, `1.0000` for a
//!   solo), Carnage none, or 2 in a table where a tie split a point (odd
//!   `rank_points` split in two: `3503.50` beside `7010.00`). `history`
//!   shows each value as its table would: 4 decimals, or a Carnage value
//!   whole or with 2 (each change alone: a history may hold both).

mod audit;
mod check;
pub mod events;
mod exact;
pub(crate) mod gen;
pub mod math;
mod order;
pub mod params;
mod report;
mod store;
mod system;
mod tournament;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::systems::compact::Interner;
use crate::systems::diplomacy::events::{Event as DipEvent, Outcome};
use crate::systems::{Event, Record};

use super::{Cx, Projection};
use math::{CarnageRules, Exact, Seat};
use store::GameView;

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["fibonacci", "carnage", "dss", "sos"];

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

    /// Decimals every score of a table is shown with as text, `whole` when
    /// every score it holds is a whole number: [`System::places`], but
    /// none for a Carnage table of whole scores (see "Display" in the
    /// module docs).
    fn shown_places(self, whole: bool) -> u32 {
        match (self, whole) {
            (System::Carnage, true) => 0,
            _ => self.places(),
        }
    }
}

/// The parameters in force when a game is folded, with its board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Rules {
    base: i64,
    min_powers: i64,
    carnage: CarnageRules,
    best_rounds: i64,
}

impl Rules {
    /// The rules for a game whose board has `centers_total` centres (`None`:
    /// the `carnage.centers_total` parameter).
    fn read(cx: &Cx, centers_total: Option<i64>) -> Rules {
        let (f, c) = (
            cx.params.get::<params::Fibonacci>(),
            cx.params.get::<params::Carnage>(),
        );
        Rules {
            base: f.base,
            min_powers: f.min_powers,
            carnage: CarnageRules {
                rank_points: c.rank_points,
                centre_points: c.centre_points,
                eliminated: c.eliminated,
                leader_bonus: c.leader_bonus,
                centers_total: centers_total.unwrap_or(c.centers_total),
            },
            best_rounds: cx.params.get::<params::Tournament>().best_rounds,
        }
    }
}

/// One system's scores for a stored game, or why the system refuses it.
fn scores(sys: System, g: &GameView, name: &str) -> Result<Vec<Exact>, String> {
    match refusal(sys, g.positions.len(), name, &g.rules) {
        Some(reason) => Err(reason),
        None => Ok(game_scores(sys, &g.seats(), g.winner, &g.rules)),
    }
}

/// The scores of a game the system does not refuse. A concession is scored as
/// a solo for the power conceded to.
fn game_scores(sys: System, seats: &[Seat], winner: Option<usize>, r: &Rules) -> Vec<Exact> {
    let n = seats.len();
    match (sys, winner) {
        (System::Carnage, Some(w)) => math::carnage_solo(n, w, &r.carnage),
        (_, Some(w)) => math::solo(n, w),
        (System::Fibonacci, None) => math::fibonacci_draw(seats, r.base),
        (System::Carnage, None) => math::carnage_draw(seats, &r.carnage),
        (System::Dss, None) => math::dss_draw(seats),
        (System::Sos, None) => math::sos_draw(seats),
    }
}

/// The ranks each seat shares in `sys`: Carnage ranks eliminated powers as
/// `carnage.eliminated` says, the others by year.
fn ranks_for(sys: System, seats: &[Seat], r: &Rules) -> Vec<(usize, usize)> {
    match sys {
        System::Carnage => math::ranks_with(seats, r.carnage.eliminated),
        _ => math::shared_ranks(seats),
    }
}

/// Why a table does not score a game of `n` powers, if it does not. Fibonacci
/// needs `min_powers` powers with base 0 and one fewer with base 1: the
/// 1-based sequence of N is the 0-based one of N + 1 without its 0.
fn refusal(sys: System, n: usize, game: &str, r: &Rules) -> Option<String> {
    if sys != System::Fibonacci {
        return None;
    }
    if r.base != 0 && r.base != 1 {
        return Some(format!("fibonacci.base is {}; it must be 0 or 1", r.base));
    }
    let needed = r.min_powers - r.base;
    if (n as i64) < needed {
        return Some(format!(
            "game {game} has {n} powers; Fibonacci-Diplo with base {} needs at least {needed} \
             (fibonacci.min_powers {}, one fewer with base 1)",
            r.base, r.min_powers
        ));
    }
    None
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// Every game folded, in fold order: a game is recorded once.
    store: store::Store,
    /// Kept only when the fold keeps an audit trail (not serialized: a
    /// checkpoint is a plain fold's state).
    #[serde(skip)]
    audit: Option<Box<audit::AuditTotals>>,
    /// The known tournaments by their letters, for an input rule (not
    /// serialized: grown from the store when asked).
    #[serde(skip)]
    letters: Letters,
}

/// The store's tournaments by [`check::letters`] of their names, filled as
/// [`Letters::known_as`] is asked: tournaments are interned with ids in
/// order, so the map covers the first `covered` of them and grows by those
/// interned since. A clone starts empty and fills again.
#[derive(Debug, Default)]
struct Letters(std::sync::Mutex<(BTreeMap<String, u32>, u32)>);

impl Clone for Letters {
    fn clone(&self) -> Self {
        Letters::default()
    }
}

impl Letters {
    /// The known tournament (of `known`) whose letters are `letters`, if any.
    fn known_as<'k>(&self, known: &'k Interner, letters: &str) -> Option<&'k str> {
        let mut guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (map, covered) = &mut *guard;
        let len = u32::try_from(known.len()).unwrap_or(u32::MAX);
        if *covered > len {
            // Never so (a store only grows), but then fill again.
            map.clear();
            *covered = 0;
        }
        for id in *covered..len {
            map.entry(check::letters(known.name(id))).or_insert(id);
        }
        *covered = len;
        map.get(letters).map(|&id| known.name(id))
    }
}

impl State {
    /// The checkpoint section: its bincode (the store: the rest is not
    /// serialized).
    pub fn checkpoint_bytes(&self) -> bincode::Result<Vec<u8>> {
        use bincode::Options;
        bincode::DefaultOptions::new().serialize(&self.store)
    }

    /// The tournaments games were grouped in, in first-seen order.
    pub fn tournaments(&self) -> Vec<String> {
        let t = &self.store.tournaments;
        (0..t.len() as u32).map(|i| t.name(i).to_string()).collect()
    }
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        match &rec.event {
            Event::Diplomacy(DipEvent::GameEnded(g)) => self.check_game((rec.seq, rec.at), g, cx),
            _ => Ok(()),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        let Event::Diplomacy(DipEvent::GameEnded(g)) = &rec.event else {
            return;
        };
        if self.store.recorded(&g.game.0).is_some() {
            return;
        }
        let position = |name: &str| g.powers.iter().position(|p| p.power == name);
        let winner = match g.result {
            Outcome::Draw => None,
            Outcome::Solo | Outcome::Concession => {
                let Some(w) = g.winner.as_deref().and_then(position) else {
                    return;
                };
                Some(w)
            }
        };
        let partial_draw = g.draw.as_ref().map(|names| {
            let mut at: Vec<u32> = (names.iter())
                .filter_map(|n| position(n).map(|i| i as u32))
                .collect();
            at.sort_unstable();
            at
        });
        let players = g.powers.iter().filter_map(|p| p.player());
        self.store.players.prefetch(players);
        self.store.push(
            store::NewGame {
                name: &g.game.0,
                at: rec.at,
                seq: rec.seq,
                winner,
                concession: g.result == Outcome::Concession,
                partial_draw,
                rules: Rules::read(cx, g.centers_total),
                tournament: g.tournament.as_ref().map(|t| t.0.as_str()),
                round: g.round.as_ref().map(|r| r.0.as_str()),
                board: g.board.as_ref().map(|b| b.0.as_str()),
            },
            g.powers.iter().map(|p| store::NewPosition {
                power: &p.power,
                player: p.player(),
                centers: p.centers,
                eliminated: p.eliminated,
            }),
        );
        if cx.auditing() {
            self.audit_game(rec, cx);
        }
    }
}

#[cfg(test)]
mod tests;
