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
//! Checkpoints store the state in the layout `checkpoint_bytes` writes (below).
//! [`Interner`] is the shared one of `systems::compact`.

use std::collections::{BTreeMap, BTreeSet};

use bincode::Options;

use crate::codec::{Reader, Writer};
use crate::systems::compact::IdMap;
use crate::systems::mepbm::events::Side;
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
#[derive(Debug, Clone, Copy)]
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
#[derive(Debug, Clone, Copy)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rating {
    pub value: i64,
    /// Games the subject was counted in (Istari: nations scored).
    pub games: u32,
}

/// Ratings of one system, by interned name: a dense `u32` slot per name (so a
/// lookup is two indexes) pointing into the packed ratings. Most players are rated
/// in some of the four systems only: a dense `Option<Rating>` per name and system
/// would cost 16 bytes each; this costs 4 plus 16 per rating held.
#[derive(Debug, Clone, Default)]
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

/// The checkpoint bytes of the mepbm state (section 1 of a checkpoint,
/// `ledger/checkpoint.rs`), in the primitives of [`crate::codec`]:
///
/// ```text
/// names, places, games   interners: bytes(all strings end to end), count,
///                        then each string's byte length (u); the lookup table
///                        is not stored (made from the names at the first lookup)
/// headers                count, then per game: u(flags: 1 ended, 2 grudge),
///                        [i(ended)], u(scenario), [u(fp team), u(ds team)],
///                        u(its slot count: slot_end - the previous slot_end)
/// slots                  count, then three columns: u(nation) each,
///                        u(player) each, one byte each: side | start << 2 |
///                        voted << 4 (side codes are 0..=2)
/// valar, maia, istari,   Ratings: count, u(slot + 1) each (0: none), count,
/// ainur                  then i(value) u(games) each
/// council                count, then per player in id order: u(id - previous
///                        id), i(team_player), i(played_nation), i(enemy_nation)
/// nazgul                 count, then per player: u(id - previous), u(won), u(played)
/// rest                   bytes(bincode varint of (odd_voters, teams, pars, months,
///                        categories))
/// ```
///
/// Columns (rather than one record after another) put alike bytes together:
/// the slots' nations repeat game after game and compress to little. Reading
/// allocates each vector once at its final size (a query decodes this
/// section before it folds).
/// Ids are checked against their interner, so a damaged section reads as
/// absent rather than panicking later.
impl super::State {
    /// The checkpoint section, in the layout above.
    pub fn checkpoint_bytes(&self) -> Vec<u8> {
        // About what it takes: a few bytes per slot, rating and name.
        let guess = 8 * self.slots.len() + 64 * self.names.len() + 4096;
        let mut w = Writer {
            buf: Vec::with_capacity(guess),
        };
        for n in [&self.names, &self.places, &self.games] {
            put_interner(&mut w, n);
        }
        put_headers(&mut w, &self.headers);
        put_slots(&mut w, &self.slots);
        for r in [&self.valar, &self.maia, &self.istari, &self.ainur] {
            put_ratings(&mut w, r);
        }
        self.put_rest(&mut w);
        w.buf
    }

    /// The layout's parts after the ratings.
    fn put_rest(&self, w: &mut Writer) {
        put_map(w, &self.council, |w, c| {
            w.i(c.team_player);
            w.i(c.played_nation);
            w.i(c.enemy_nation);
        });
        put_map(w, &self.nazgul, |w, t| {
            w.u(t.won.into());
            w.u(t.played.into());
        });
        let rest = (
            &self.odd_voters,
            &self.teams,
            &self.pars,
            &self.months,
            &self.categories,
        );
        w.bytes(
            &bincode::DefaultOptions::new()
                .serialize(&rest)
                .unwrap_or_default(),
        );
    }

    /// The state [`Self::checkpoint_bytes`] wrote, or `None` if `b` is not
    /// exactly that (damaged, truncated, an id out of range).
    pub fn from_checkpoint(b: &[u8]) -> Option<Self> {
        let mut r = Reader::new(b);
        let names = take_interner(&mut r)?;
        let places = take_interner(&mut r)?;
        let games = take_interner(&mut r)?;
        let (n, p) = (names.len() as u64, places.len() as u64);
        let headers = take_headers(&mut r, n, p)?;
        let slots = take_slots(&mut r, n, p)?;
        let fits = headers.len() == games.len()
            && headers.last().map_or(0, |h| h.slot_end as usize) == slots.len();
        let valar = take_ratings(&mut r, n)?;
        let maia = take_ratings(&mut r, n)?;
        let istari = take_ratings(&mut r, n)?;
        let ainur = take_ratings(&mut r, n)?;
        let council = take_map(&mut r, n, |r| {
            Some(super::Council {
                team_player: r.i()?,
                played_nation: r.i()?,
                enemy_nation: r.i()?,
            })
        })?;
        let nazgul = take_map(&mut r, n, |r| {
            Some(super::Tally {
                won: r.u32()?,
                played: r.u32()?,
            })
        })?;
        let rest = r.bytes()?;
        let limit = rest.len() as u64 * 64 + 4096;
        let opts = bincode::DefaultOptions::new().with_limit(limit);
        let (odd_voters, teams, pars, months, categories): Rest = opts.deserialize(rest).ok()?;
        let (g, below) = (games.len() as u64, |i: &u32, n: u64| u64::from(*i) < n);
        let ids_fit = odd_voters.iter().all(|(gi, v)| below(gi, g) && below(v, n))
            && pars.keys().all(|(sc, k)| below(sc, p) && below(&k.id(), p))
            && (categories.iter())
                .all(|(&(gi, na), c)| below(&gi, g) && below(&na, p) && below(c, p))
            && teams.iter().all(|(t, team)| {
                let mut members = team.original.iter().chain(&team.members);
                below(t, n) && below(&team.coordinator, n) && members.all(|m| below(m, n))
            });
        (fits && ids_fit && r.is_empty()).then_some(())?;
        Some(super::State {
            names,
            places,
            games,
            headers,
            slots,
            odd_voters,
            valar,
            maia,
            istari,
            ainur,
            teams,
            pars,
            categories,
            council,
            nazgul,
            months,
        })
    }
}

fn put_interner(w: &mut Writer, n: &Interner) {
    let (buf, ends) = n.parts();
    w.bytes(buf.as_bytes());
    w.u(ends.len() as u64);
    let mut last = 0;
    for &e in ends {
        w.u((e - last).into());
        last = e;
    }
}

/// The small, irregular parts of the state, kept in bincode.
type Rest = (
    BTreeSet<(u32, u32)>,
    BTreeMap<u32, super::Team>,
    BTreeMap<(u32, super::ParKey), super::Par>,
    BTreeSet<String>,
    BTreeMap<(u32, u32), u32>,
);

/// Room for what a fold after the checkpoint adds to a vector of `n`: pages
/// are touched only when written, so spare capacity costs nothing until used,
/// while growing a full vector would copy it whole (the slots: megabytes).
fn room(n: usize) -> usize {
    n + n / 4 + 1024
}

fn take_interner(r: &mut Reader) -> Option<Interner> {
    let b = r.bytes()?;
    let mut buf = String::with_capacity(room(b.len()));
    buf.push_str(std::str::from_utf8(b).ok()?);
    let n = r.count()?;
    let mut ends = Vec::with_capacity(room(n));
    let mut end = 0u32;
    for _ in 0..n {
        end = end.checked_add(r.u32()?)?;
        ends.push(end);
    }
    Interner::from_parts(buf, ends)
}

fn put_headers(w: &mut Writer, headers: &[Header]) {
    w.u(headers.len() as u64);
    let mut last = 0;
    for h in headers {
        w.u(u64::from(h.ended.is_some()) | u64::from(h.grudge.is_some()) << 1);
        if let Some(t) = h.ended {
            w.i(t);
        }
        w.u(h.scenario.into());
        if let Some((fp, ds)) = h.grudge {
            w.u(fp.into());
            w.u(ds.into());
        }
        w.u((h.slot_end - last).into());
        last = h.slot_end;
    }
}

/// `names` and `places`: how many names and places there are (ids below).
fn take_headers(r: &mut Reader, names: u64, places: u64) -> Option<Vec<Header>> {
    let id = |r: &mut Reader, below: u64| r.u32().filter(|&i| u64::from(i) < below);
    let n = r.count()?;
    let mut out = Vec::with_capacity(room(n));
    let mut end = 0u32;
    for _ in 0..n {
        let flags = r.u().filter(|&f| f < 4)?;
        let ended = match flags & 1 {
            1 => Some(r.i()?),
            _ => None,
        };
        let scenario = id(r, places)?;
        let grudge = match flags & 2 {
            2 => Some((id(r, names)?, id(r, names)?)),
            _ => None,
        };
        end = end.checked_add(r.u32()?)?;
        out.push(Header {
            ended,
            scenario,
            grudge,
            slot_end: end,
        });
    }
    Some(out)
}

fn put_slots(w: &mut Writer, slots: &[Slot]) {
    w.u(slots.len() as u64);
    for s in slots {
        w.u(s.nation.into());
    }
    for s in slots {
        w.u(s.player.into());
    }
    for s in slots {
        w.buf.push(s.side | s.start << 2 | u8::from(s.voted) << 4);
    }
}

fn take_slots(r: &mut Reader, names: u64, places: u64) -> Option<Vec<Slot>> {
    let n = r.count()?;
    let mut out = Vec::with_capacity(room(n));
    for _ in 0..n {
        let nation = r.u32().filter(|&i| u64::from(i) < places)?;
        out.push(Slot {
            nation,
            player: 0,
            side: 0,
            start: 0,
            voted: false,
        });
    }
    for s in &mut out {
        s.player = r.u32().filter(|&i| u64::from(i) < names)?;
    }
    for s in &mut out {
        let b = r.u().filter(|&b| b < 32 && b & 3 < 3 && b >> 2 & 3 < 3)? as u8;
        (s.side, s.start, s.voted) = (b & 3, b >> 2 & 3, b >> 4 == 1);
    }
    Some(out)
}

fn put_ratings(w: &mut Writer, r: &Ratings) {
    w.u(r.slot.len() as u64);
    for &s in &r.slot {
        w.u(s.wrapping_add(1).into());
    }
    w.u(r.values.len() as u64);
    for v in &r.values {
        w.i(v.value);
        w.u(v.games.into());
    }
}

/// Ratings by name id: at most `names` of them, each slot pointing at a value.
fn take_ratings(r: &mut Reader, names: u64) -> Option<Ratings> {
    let n = r.count().filter(|&n| n as u64 <= names)?;
    let mut slot = Vec::with_capacity(room(n));
    for _ in 0..n {
        slot.push(r.u32()?.wrapping_sub(1));
    }
    let m = r.count()?;
    let mut values = Vec::with_capacity(room(m));
    for _ in 0..m {
        values.push(Rating {
            value: r.i()?,
            games: r.u32()?,
        });
    }
    let ok = slot.iter().all(|&s| s == NONE || (s as usize) < m);
    ok.then_some(Ratings { slot, values })
}

/// A map by name id: count, then each id as the gap from the previous one.
fn put_map<V>(w: &mut Writer, m: &IdMap<V>, put: impl Fn(&mut Writer, &V)) {
    w.u(m.len() as u64);
    let mut last = 0;
    for (k, v) in m.iter() {
        w.u((k - last).into());
        put(w, v);
        last = k;
    }
}

/// What [`put_map`] wrote; ids strictly rising and below `names`.
fn take_map<V>(
    r: &mut Reader,
    names: u64,
    take: impl Fn(&mut Reader) -> Option<V>,
) -> Option<IdMap<V>> {
    let n = r.count()?;
    let mut out = Vec::with_capacity(n);
    let mut last: Option<u32> = None;
    for _ in 0..n {
        let gap = r.u32()?;
        let k = match last {
            None => gap,
            Some(l) => l.checked_add(gap).filter(|_| gap > 0)?,
        };
        (u64::from(k) < names).then_some(())?;
        out.push((k, take(r)?));
        last = Some(k);
    }
    // Sorted input: the map is built in one pass.
    Some(out.into_iter().collect())
}
