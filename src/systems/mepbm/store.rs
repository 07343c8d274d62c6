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
//! these structs' fields in declaration order. The hash in [`Interner`] is FNV-1a
//! (defined here, so stable across Rust versions), which keeps a serialized index
//! valid for any build that reads it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::events::mepbm::Side;
use crate::time::Micros;

/// Strings interned to dense ids `0, 1, 2, …` in first-seen order, each stored
/// once in a shared buffer (no per-string allocation).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Interner {
    buf: String,
    /// End of string `i` in `buf` (its start is the end of `i - 1`).
    ends: Vec<u32>,
    /// FNV-1a hash of a string → its id; a string whose hash is already taken by
    /// a different string (a 64-bit collision) goes to `spill`.
    index: BTreeMap<u64, u32>,
    spill: BTreeMap<Box<str>, u32>,
}

/// FNV-1a, 64 bits: stable, so a serialized index stays valid.
fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Interner {
    pub(super) fn name(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.buf[start..self.ends[i] as usize]
    }

    pub(super) fn get(&self, s: &str) -> Option<u32> {
        match self.index.get(&hash(s)) {
            Some(&id) if self.name(id) == s => Some(id),
            Some(_) => self.spill.get(s).copied(),
            None => None,
        }
    }

    pub(super) fn intern(&mut self, s: &str) -> u32 {
        let h = hash(s);
        if let Some(&id) = self.index.get(&h) {
            if self.name(id) == s {
                return id;
            }
            if let Some(&id) = self.spill.get(s) {
                return id;
            }
            let id = self.push(s);
            self.spill.insert(s.into(), id);
            return id;
        }
        let id = self.push(s);
        self.index.insert(h, id);
        id
    }

    fn push(&mut self, s: &str) -> u32 {
        let id = u32::try_from(self.ends.len()).expect("fewer than 2^32 names");
        self.buf.push_str(s);
        self.ends
            .push(u32::try_from(self.buf.len()).expect("names fit in 4 GiB"));
        id
    }

    /// `ids` sorted by their names (the order the SPEC's tables and audits use).
    pub(super) fn sort_by_name(&self, ids: &mut [u32]) {
        ids.sort_unstable_by(|&a, &b| self.name(a).cmp(self.name(b)));
    }
}

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

/// Ratings of one system, indexed by interned name: dense, since `names` holds
/// only players and teams, so a lookup is an index and the monthly tick a scan
/// of one `Vec`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Ratings {
    by_id: Vec<Option<Rating>>,
}

impl Ratings {
    pub(super) fn get(&self, id: u32) -> Option<&Rating> {
        self.by_id.get(id as usize).and_then(Option::as_ref)
    }

    pub(super) fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    /// `id`'s rating, created as `new` if it has none.
    pub(super) fn entry(&mut self, id: u32, new: Rating) -> &mut Rating {
        let i = id as usize;
        if self.by_id.len() <= i {
            self.by_id.resize(i + 1, None);
        }
        self.by_id[i].get_or_insert(new)
    }

    /// Rated subjects in id order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &Rating)> + '_ {
        self.by_id
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().map(|r| (i as u32, r)))
    }

    pub(super) fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.iter().map(|(id, _)| id)
    }

    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut Rating> + '_ {
        self.by_id.iter_mut().flatten()
    }

    pub(super) fn get_mut(&mut self, id: u32) -> Option<&mut Rating> {
        self.by_id.get_mut(id as usize).and_then(Option::as_mut)
    }
}
