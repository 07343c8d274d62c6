//! Compact storage of every folded game: what the tables are rendered from.
//!
//! A game costs about 120 bytes of state: its name once (in one shared buffer), a
//! 48-byte header (with its tournament, round and board, interned), and 8 bytes
//! per position (an interned player id, an interned
//! power id, the centers and the elimination year). Values that do not fit those
//! small fields (a 300th power name, 1000 centers, the year 40000) are kept
//! exactly in a side table, so nothing is ever clipped; so are the powers of a
//! draw vote that left survivors out (rare). Scores are not stored:
//! they are a pure function of the positions and the rules in force when the game
//! was folded, recomputed when a table is rendered.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::math::Seat;
use super::Rules;
use crate::time::Micros;

pub use crate::systems::compact::Interner;

/// `player` of a surrendered position.
const NO_PLAYER: u32 = u32::MAX;
/// `power` of a position kept in the side table.
const WIDE: u8 = u8::MAX;
/// `year` of a power that was not eliminated.
const NO_YEAR: i16 = i16::MIN;
/// A tournament, round or board not given.
const NONE: u32 = u32::MAX;

/// One position, 8 bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Slot {
    player: u32,
    power: u8,
    centers: u8,
    year: i16,
}

/// A position whose values do not fit a [`Slot`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Wide {
    power: u32,
    centers: i64,
    eliminated: Option<i64>,
}

/// One folded game's header; its name is id `i` of [`Store::games`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Header {
    at: Micros,
    seq: u64,
    /// End of its positions in [`Store::slots`].
    seat_end: u32,
    /// Solo winner's index within the game, or `u32::MAX` for a draw.
    winner: u32,
    /// The game was conceded to its winner (rather than soloed).
    concession: bool,
    /// Index into [`Store::rules`].
    rules: u32,
    /// Interned in [`Store::tournaments`], or [`NONE`].
    tournament: u32,
    /// Round and board, interned in [`Store::labels`], or [`NONE`].
    round: u32,
    board: u32,
}

/// A position as read back from the store.
#[derive(Debug, Clone, Copy)]
pub struct Position {
    pub power: u32,
    /// Interned player id; `None` for a surrendered position.
    pub player: Option<u32>,
    pub seat: Seat,
}

/// A game as read back from the store.
#[derive(Debug, Clone)]
pub struct GameView {
    pub name: u32,
    pub at: Micros,
    pub winner: Option<usize>,
    pub concession: bool,
    pub rules: Rules,
    /// Tournament (in [`Store::tournaments`]), round and board (in
    /// [`Store::labels`]), when given.
    pub tournament: Option<u32>,
    pub round: Option<u32>,
    pub board: Option<u32>,
    pub positions: Vec<Position>,
}

impl GameView {
    pub fn seats(&self) -> Vec<Seat> {
        self.positions.iter().map(|p| p.seat).collect()
    }
}

/// Every game folded, in fold order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Store {
    pub games: Interner,
    pub players: Interner,
    pub powers: Interner,
    pub tournaments: Interner,
    /// Round and board names.
    pub labels: Interner,
    headers: Vec<Header>,
    slots: Vec<Slot>,
    wide: BTreeMap<u32, Wide>,
    /// Game index → the indices of the positions sharing its draw, for a
    /// draw vote that left survivors out.
    partial_draws: BTreeMap<u32, Vec<u32>>,
    /// The distinct rule sets games were folded under (consecutive games share one).
    rules: Vec<Rules>,
    /// `(tournament, round, board)` → the game played there, for games that
    /// name all three: a board is played once a round.
    boards: BTreeMap<(u32, u32, u32), u32>,
}

/// A game as given to [`Store::push`] (positions apart).
pub struct NewGame<'a> {
    pub name: &'a str,
    pub at: Micros,
    pub seq: u64,
    pub winner: Option<usize>,
    pub concession: bool,
    /// The positions sharing the draw, when not every survivor.
    pub partial_draw: Option<Vec<u32>>,
    pub rules: Rules,
    pub tournament: Option<&'a str>,
    pub round: Option<&'a str>,
    pub board: Option<&'a str>,
}

/// A position as given to [`Store::push`].
pub struct NewPosition<'a> {
    pub power: &'a str,
    pub player: Option<&'a str>,
    pub centers: i64,
    pub eliminated: Option<i64>,
}

impl Store {
    pub fn len(&self) -> usize {
        self.headers.len()
    }

    /// How many positions the stored games hold in all.
    pub fn positions(&self) -> usize {
        self.slots.len()
    }

    /// The games (fold order) that ended at `at`. Games are stored in fold
    /// order, which is date order.
    pub fn ended_at(&self, at: Micros) -> std::ops::Range<usize> {
        let from = self.headers.partition_point(|h| h.at < at);
        from..from + self.headers[from..].partition_point(|h| h.at == at)
    }

    /// The seq that recorded game `name`, if it was folded.
    pub fn recorded(&self, name: &str) -> Option<u64> {
        self.games.get(name).map(|id| self.headers[id as usize].seq)
    }

    /// The game recorded at board `board` of round `round` of tournament
    /// `tournament`: its name and seq.
    pub fn at_board(&self, tournament: &str, round: &str, board: &str) -> Option<(&str, u64)> {
        let t = self.tournaments.get(tournament)?;
        let (r, b) = (self.labels.get(round)?, self.labels.get(board)?);
        let &i = self.boards.get(&(t, r, b))?;
        Some((self.games.name(i), self.headers[i as usize].seq))
    }

    /// Add a game not yet in the store.
    pub fn push<'a>(&mut self, g: NewGame, positions: impl Iterator<Item = NewPosition<'a>>) {
        let id = self.games.intern(g.name);
        debug_assert_eq!(id as usize, self.headers.len());
        if self.rules.last() != Some(&g.rules) {
            self.rules.push(g.rules);
        }
        let mut label = |l: Option<&str>| l.map_or(NONE, |l| self.labels.intern(l));
        let (round, board) = (label(g.round), label(g.board));
        let tournament = g.tournament.map_or(NONE, |t| self.tournaments.intern(t));
        if [tournament, round, board].iter().all(|&x| x != NONE) {
            self.boards.insert((tournament, round, board), id);
        }
        if let Some(draw) = g.partial_draw {
            self.partial_draws.insert(id, draw);
        }
        for p in positions {
            let power = self.powers.intern(p.power);
            let player = p.player.map_or(NO_PLAYER, |s| self.players.intern(s));
            let year = match p.eliminated {
                None => Some(NO_YEAR),
                Some(y) => i16::try_from(y).ok().filter(|&y| y != NO_YEAR),
            };
            let small = (
                u8::try_from(power).ok().filter(|&x| x != WIDE),
                u8::try_from(p.centers).ok(),
                year,
            );
            let slot = match small {
                (Some(power), Some(centers), Some(year)) => Slot {
                    player,
                    power,
                    centers,
                    year,
                },
                _ => {
                    let at = u32::try_from(self.slots.len()).expect("fewer than 2^32 positions");
                    self.wide.insert(
                        at,
                        Wide {
                            power,
                            centers: p.centers,
                            eliminated: p.eliminated,
                        },
                    );
                    Slot {
                        player,
                        power: WIDE,
                        centers: 0,
                        year: 0,
                    }
                }
            };
            self.slots.push(slot);
        }
        self.headers.push(Header {
            at: g.at,
            seq: g.seq,
            seat_end: u32::try_from(self.slots.len()).expect("fewer than 2^32 positions"),
            winner: g.winner.map_or(u32::MAX, |w| w as u32),
            concession: g.concession,
            rules: (self.rules.len() - 1) as u32,
            tournament,
            round,
            board,
        });
    }

    /// Game `i` (fold order) as stored.
    pub fn game(&self, i: usize) -> GameView {
        let h = &self.headers[i];
        let start = if i == 0 {
            0
        } else {
            self.headers[i - 1].seat_end
        };
        let partial = self.partial_draws.get(&(i as u32));
        let positions = (start..h.seat_end)
            .map(|at| {
                let s = self.slots[at as usize];
                let player = (s.player != NO_PLAYER).then_some(s.player);
                let (power, centers, eliminated) = if s.power == WIDE {
                    let w = self.wide[&at];
                    (w.power, w.centers, w.eliminated)
                } else {
                    let year = (s.year != NO_YEAR).then_some(i64::from(s.year));
                    (u32::from(s.power), i64::from(s.centers), year)
                };
                let in_draw = match partial {
                    Some(draw) => draw.contains(&(at - start)),
                    None => centers > 0,
                };
                Position {
                    power,
                    player,
                    seat: Seat {
                        centers,
                        eliminated,
                        surrendered: player.is_none(),
                        in_draw,
                    },
                }
            })
            .collect();
        let given = |x: u32| (x != NONE).then_some(x);
        GameView {
            name: i as u32,
            at: h.at,
            winner: (h.winner != u32::MAX).then_some(h.winner as usize),
            concession: h.concession,
            rules: self.rules[h.rules as usize],
            tournament: given(h.tournament),
            round: given(h.round),
            board: given(h.board),
            positions,
        }
    }
}
