//! Compact storage of the mepbm state: interned names and every game's positions.
//!
//! Memory grows with players and games, not with the events about them:
//! - every name is stored once in an [`Interner`] and referred to by a `u32` id:
//!   players and teams in `names`, nations and scenarios in `places`, game ids
//!   in `games`, where game id `i` is also the index of its [`Header`];
//! - a game is a 40-byte [`Header`] plus one 12-byte [`Slot`] per position, all
//!   games' slots in one `Vec` (a game's positions are contiguous, in nation-name
//!   order, because a game's positions are all given by its `game_started`);
//! - an ended game keeps its slots frozen (the controllers and sides at its end):
//!   ballots read them, and no deadline can be relied on to drop them since
//!   `council.deadline_days` may be raised later. Who voted is one bit on the
//!   voter's first slot, so ballots add nothing.
//!
//! The state is serialized for checkpoints with serde (bincode): the layout is
//! these structs' fields in declaration order. [`Interner`] is the shared one of
//! `systems::compact`.

use serde::{Deserialize, Serialize};

use crate::events::mepbm::Side;
use crate::time::Micros;

/// Names are interned as in the other compact states.
pub(super) use crate::systems::compact::Interner;

/// A side as stored (the event type is not serializable): 0 FP, 1 DS, 2 neutral.
pub(super) fn side_code(s: Side) -> u8 {
    match s {
        Side::Fp => 0,
        Side::Ds => 1,
        Side::Neutral => 2,
    }
}

pub(super) fn side_of_code(c: u8) -> Side {
    match c {
        0 => Side::Fp,
        1 => Side::Ds,
        _ => Side::Neutral,
    }
}

/// One position of a game, 12 bytes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct Slot {
    /// Interned nation name (in `places`).
    pub nation: u32,
    /// Interned player controlling it now (the last takeover, else the starter).
    pub player: u32,
    /// [`side_code`] now: a neutral that joined a side has that side.
    side: u8,
    /// [`side_code`] at game start.
    start: u8,
    /// Set on the first slot (in nation order) of a player whose ballot counted.
    pub voted: bool,
}

impl Slot {
    pub(super) fn new(nation: u32, player: u32, side: Side) -> Self {
        Slot {
            nation,
            player,
            side: side_code(side),
            start: side_code(side),
            voted: false,
        }
    }

    pub(super) fn side(&self) -> Side {
        side_of_code(self.side)
    }

    pub(super) fn start_side(&self) -> Side {
        side_of_code(self.start)
    }

    pub(super) fn set_side(&mut self, s: Side) {
        self.side = side_code(s);
    }
}

/// One game; its id is its index in [`super::State`]'s `headers`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct Header {
    /// When it ended, once it has.
    pub ended: Option<Micros>,
    /// Interned scenario name (in `places`).
    pub scenario: u32,
    /// Grudge teams (interned): (FP team, DS team).
    pub grudge: Option<(u32, u32)>,
    /// End of its slots in `slots` (its start is the end of the previous game).
    pub slot_end: u32,
}

/// One rated subject in one system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Rating {
    pub value: i64,
    /// Games the subject was counted in (Istari: nations scored).
    pub games: u32,
}

/// Ratings of one system, by interned name: a dense `u32` slot per name (so a
/// lookup is two indexes) pointing into the packed ratings. Most players are rated
/// in some of the four systems only: a dense `Option<Rating>` per name and system
/// would cost 16 bytes each; this costs 4 plus 16 per rating held.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Ratings {
    /// Index into `values` by name id; [`NONE`] for a name without a rating.
    slot: Vec<u32>,
    values: Vec<Rating>,
}

const NONE: u32 = u32::MAX;

impl Ratings {
    pub(super) fn get(&self, id: u32) -> Option<&Rating> {
        let ix = *self.slot.get(id as usize)?;
        self.values.get(ix as usize)
    }

    pub(super) fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    /// `id`'s rating, created as `new` if it has none.
    pub(super) fn entry(&mut self, id: u32, new: Rating) -> &mut Rating {
        let i = id as usize;
        if self.slot.len() <= i {
            self.slot.resize(i + 1, NONE);
        }
        if self.slot[i] == NONE {
            self.slot[i] = self.values.len() as u32;
            self.values.push(new);
        }
        &mut self.values[self.slot[i] as usize]
    }

    /// Rated subjects in id order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &Rating)> + '_ {
        self.slot
            .iter()
            .enumerate()
            .filter(|(_, &ix)| ix != NONE)
            .map(|(i, &ix)| (i as u32, &self.values[ix as usize]))
    }

    pub(super) fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.iter().map(|(id, _)| id)
    }

    /// Every rating, in no particular order.
    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut Rating> + '_ {
        self.values.iter_mut()
    }

    pub(super) fn get_mut(&mut self, id: u32) -> Option<&mut Rating> {
        let ix = *self.slot.get(id as usize)?;
        self.values.get_mut(ix as usize)
    }
}
