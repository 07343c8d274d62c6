//! Building blocks of the compact projection states (all five systems): an [`Interner`] (names become dense `u32` ids `0, 1, 2, …` in
//! first-seen order), LEB128 varints ([`put`], [`zigzag`]; read back with
//! [`crate::codec::Reader`]) for rows kept as bytes, and [`Kept`]: a value with its checkpoint bytes, kept
//! while it does not change ([`encode_map`] builds a section from them).
//!
//! Interner layout: every string once, end to end, in one buffer (`ends[i]` is where
//! string `i` ends; it starts where `i - 1` ends), so a name costs its bytes plus
//! 4, with no allocation per string. Lookup is an open-addressing table of
//! [`Slot`]s (16 bytes: id + 1, 0 for empty; the hash's low 32 bits; and the
//! name itself when it has at most 7 bytes, else where it lies in the buffer)
//! at most three quarters full, probed linearly (about 21 to 64 bytes of table
//! per name). A lookup of a short name (player, game, round and match ids)
//! reads one slot, no more: comparing through `ends` and the buffer would add
//! two cache misses to every lookup, and lookups are the largest single cost
//! of a replay.
//!
//! Invariants: the hash is FNV-1a 64, fixed here and independent of the Rust
//! release or process, so the same insertions give the same table
//! (deterministic). Serialized as `buf` and `ends` only: the table is made
//! from the names at the first lookup after they are read
//! ([`Interner::from_parts`]): the very table interning them builds. A query
//! that only names ids (most standings) never makes it.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// A state from its checkpoint section in bincode (varint), as the states
/// that do not lay out their own bytes write it; `None` if damaged. The limit
/// keeps a damaged length from asking for more memory than the bytes could
/// describe.
pub fn from_section<T: serde::de::DeserializeOwned>(b: &[u8]) -> Option<T> {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_limit(b.len() as u64 * 64 + 4096)
        .deserialize(b)
        .ok()
}

/// Strings numbered in order of first appearance.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    buf: String,
    /// End of string `i` in `buf`.
    ends: Vec<u32>,
    /// The lookup table, made at the first lookup after the names were read
    /// back (a query that only names ids never pays for it). Its length is 0
    /// or a power of two above `4 / 3 * ends.len()`.
    slots: OnceLock<Vec<Slot>>,
}

/// One place of the lookup table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Slot {
    /// `id + 1`; 0 marks an empty slot.
    id1: u32,
    /// The low 32 bits of the name's hash.
    hash: u32,
    /// The name: [`inline`]'s word when it has at most 7 bytes (top bit set),
    /// else its start in `buf` (low 32 bits) and length (next 31).
    key: u64,
}

/// Top bit of [`Slot::key`]: the name is inline.
const INLINE: u64 = 1 << 63;

/// A name of at most 7 bytes as one word: its bytes (little-endian), its
/// length in bits 56..59 and [`INLINE`]; distinct names give distinct words.
fn inline(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() > 7 {
        return None;
    }
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    Some(u64::from_le_bytes(w) | (b.len() as u64) << 56 | INLINE)
}

/// How an interner is serialized: its names and their ends.
#[derive(Serialize)]
#[serde(rename = "Interner")]
struct StoredRef<'a> {
    buf: &'a str,
    ends: &'a [u32],
}

#[derive(Deserialize)]
#[serde(rename = "Interner")]
struct Stored {
    buf: String,
    ends: Vec<u32>,
}

impl Serialize for Interner {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StoredRef {
            buf: &self.buf,
            ends: &self.ends,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Interner {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let st = Stored::deserialize(d)?;
        Interner::from_parts(st.buf, st.ends)
            .ok_or_else(|| serde::de::Error::custom("names that do not end where `ends` says"))
    }
}

/// FNV-1a, 64 bits: stable across builds (see the module docs).
fn hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Interner {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The string numbered `id`; empty for an id never handed out (which
    /// only a checkpoint laurel did not write can hold).
    pub fn name(&self, id: u32) -> &str {
        name_in(&self.buf, &self.ends, id)
    }

    pub fn get(&self, s: &str) -> Option<u32> {
        self.find(s, hash(s)).ok()
    }

    pub fn intern(&mut self, s: &str) -> u32 {
        let h = hash(s);
        match self.find(s, h) {
            Ok(id) => id,
            Err(_) => {
                let id = u32::try_from(self.ends.len()).expect("fewer than 2^32 names");
                self.buf.push_str(s);
                let end = u32::try_from(self.buf.len()).expect("names fit in 4 GiB");
                self.ends.push(end);
                let slots = self.slots.get_mut().expect("find made the table");
                if 3 * slots.len() < 4 * self.ends.len() {
                    self.grow();
                } else {
                    place(slots, &self.buf, &self.ends, id, h);
                }
                id
            }
        }
    }

    /// Load the first table slot of each of `names` before they are looked
    /// up one by one: the loads do not depend on each other, so their cache
    /// misses overlap instead of following one another (a lookup in a table
    /// of tens of thousands of names mostly waits for its slot).
    pub fn prefetch<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        let slots = self.slots();
        if slots.is_empty() {
            return;
        }
        let mask = slots.len() - 1;
        let touched = names
            .into_iter()
            .fold(0u32, |acc, s| acc ^ slots[hash(s) as usize & mask].id1);
        std::hint::black_box(touched);
    }

    /// `ids` sorted by their names (the order tables and audits use).
    pub fn sort_by_name(&self, ids: &mut [u32]) {
        let mut keyed: Vec<(u64, u32)> = ids
            .iter()
            .map(|&id| (name_key(self.name(id)), id))
            .collect();
        keyed.sort_unstable_by(|a, b| {
            let by_name = || self.name(a.1).cmp(self.name(b.1));
            a.0.cmp(&b.0).then_with(by_name)
        });
        for (slot, (_, id)) in ids.iter_mut().zip(keyed) {
            *slot = id;
        }
    }

    /// `Ok(id)` of `s`, or `Err(())` when it is not interned.
    fn find(&self, s: &str, h: u64) -> Result<u32, ()> {
        let slots = self.slots();
        if slots.is_empty() {
            return Err(());
        }
        let short = inline(s);
        let mask = slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let slot = slots[i];
            if slot.id1 == 0 {
                return Err(());
            }
            if slot.hash == h as u32 && self.holds(slot, s, short) {
                return Ok(slot.id1 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Is `slot`'s name `s` (whose [`inline`] word is `short`)?
    fn holds(&self, slot: Slot, s: &str, short: Option<u64>) -> bool {
        match short {
            Some(w) => slot.key == w,
            None if slot.key & INLINE != 0 => false,
            None => {
                let (start, len) = (slot.key as u32 as usize, (slot.key >> 32) as usize);
                len == s.len() && self.buf.as_bytes().get(start..start + len) == Some(s.as_bytes())
            }
        }
    }

    /// The lookup table, made now if it is not yet.
    fn slots(&self) -> &[Slot] {
        self.slots.get_or_init(|| table(&self.buf, &self.ends))
    }

    /// Remake the table at two to four times the names, in id order
    /// (deterministic).
    fn grow(&mut self) {
        let size = (2 * self.ends.len()).next_power_of_two().max(16);
        self.slots = OnceLock::from(placed(&self.buf, &self.ends, size));
    }

    /// The strings end to end and where each ends: all a checkpoint stores
    /// (`systems::mepbm` store); the table is made from them at the first
    /// lookup after [`Interner::from_parts`].
    pub fn parts(&self) -> (&str, &[u32]) {
        (&self.buf, &self.ends)
    }

    /// The interner holding `buf` cut at `ends`, with the very table that
    /// interning them one by one builds: growth doubles the table from 16 slots
    /// whenever it would be over three quarters full, and then (as after every
    /// growth) ids sit in id order, so the table is a function of the names
    /// alone. `None` unless `ends` rises to `buf.len()` on char boundaries.
    pub fn from_parts(buf: String, ends: Vec<u32>) -> Option<Self> {
        let mut last = 0;
        for &e in &ends {
            let e = e as usize;
            if e < last || !buf.is_char_boundary(e) {
                return None;
            }
            last = e;
        }
        if last != buf.len() {
            return None;
        }
        Some(Interner {
            buf,
            ends,
            slots: OnceLock::new(),
        })
    }
}

/// The table interning `ends.len()` names one by one builds: growth doubles
/// it from 16 slots whenever it would be over three quarters full, and then
/// (as after every growth) ids sit in id order, so the table is a function
/// of the names alone. Empty for no names.
fn table(buf: &str, ends: &[u32]) -> Vec<Slot> {
    if ends.is_empty() {
        return Vec::new();
    }
    let mut size = 16;
    while 3 * size < 4 * ends.len() {
        size *= 2;
    }
    placed(buf, ends, size)
}

/// A table of `size` slots with every id placed in id order.
fn placed(buf: &str, ends: &[u32], size: usize) -> Vec<Slot> {
    let mut slots = vec![Slot::default(); size];
    for id in 0..ends.len() as u32 {
        let h = hash(name_in(buf, ends, id));
        place(&mut slots, buf, ends, id, h);
    }
    slots
}

/// Name `id` of `buf` cut at `ends` (see [`Interner::name`]).
fn name_in<'a>(buf: &'a str, ends: &[u32], id: u32) -> &'a str {
    let i = id as usize;
    let start = i.checked_sub(1).and_then(|j| ends.get(j));
    let start = start.map_or(0, |&e| e as usize);
    let end = ends.get(i).map_or(start, |&e| e as usize);
    buf.get(start..end).unwrap_or("")
}

/// Put `id` (hash `h`) in the first free slot of its probe sequence.
fn place(slots: &mut [Slot], buf: &str, ends: &[u32], id: u32, h: u64) {
    let name = name_in(buf, ends, id);
    let key = inline(name).unwrap_or_else(|| {
        let end = ends[id as usize];
        let len = u32::try_from(name.len()).ok().filter(|l| *l < 1 << 31);
        let len = len.expect("a name under 2 GiB");
        u64::from(end - len) | u64::from(len) << 32
    });
    let mask = slots.len() - 1;
    let mut i = h as usize & mask;
    while slots[i].id1 != 0 {
        i = (i + 1) & mask;
    }
    slots[i] = Slot {
        id1: id + 1,
        hash: h as u32,
        key,
    };
}

/// A map keyed by interned ids, held densely: a lookup is one index where a
/// `BTreeMap<u32, V>` walks a tree (a replay looks a player up in mepbm's
/// council and Nazgul tallies millions of times, mostly cache misses).
///
/// Memory is one `Option<V>` per id up to the largest key.
#[derive(Debug, Clone)]
pub struct IdMap<V> {
    slots: Vec<Option<V>>,
    len: usize,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<V> IdMap<V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of `id`, created by `new` if it has none.
    pub fn get_or_insert_with(&mut self, id: u32, new: impl FnOnce() -> V) -> &mut V {
        let slot = self.slot(id);
        if slot.is_none() {
            self.len += 1;
        }
        self.slots[id as usize].get_or_insert_with(new)
    }

    fn insert(&mut self, id: u32, v: V) {
        if self.slot(id).replace(v).is_none() {
            self.len += 1;
        }
    }

    fn slot(&mut self, id: u32) -> &mut Option<V> {
        let i = id as usize;
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        &mut self.slots[i]
    }

    /// Entries in ascending id order (as a `BTreeMap` iterates).
    pub fn iter(&self) -> impl Iterator<Item = (u32, &V)> + '_ {
        (self.slots.iter().enumerate()).filter_map(|(i, v)| Some((i as u32, v.as_ref()?)))
    }
}

/// Later entries replace earlier ones with the same id, as in a `BTreeMap`.
impl<V> FromIterator<(u32, V)> for IdMap<V> {
    fn from_iter<I: IntoIterator<Item = (u32, V)>>(entries: I) -> Self {
        let mut m = IdMap::default();
        entries.into_iter().for_each(|(id, v)| m.insert(id, v));
        m
    }
}

impl<V: Default> IdMap<V> {
    /// The value of `id`, created as `V::default()` if it has none.
    pub fn entry_or_default(&mut self, id: u32) -> &mut V {
        self.get_or_insert_with(id, V::default)
    }
}

pub use crate::codec::{put, zigzag};

/// `#[serde(with = "compact::bytes")]` for a `Vec<u8>` field: written with
/// `serialize_bytes` (one copy) instead of a sequence of `u8`s (a call per
/// byte): a varint length, then the bytes.
pub mod bytes {
    use serde::de::{Deserializer, Visitor};
    use serde::Serializer;

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_byte_buf(Bytes)
    }

    struct Bytes;

    impl<'de> Visitor<'de> for Bytes {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("bytes")
        }

        fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
    }
}

/// A value with its checkpoint encoding, kept until the value changes.
///
/// Why: the check fold encodes every state every `N / 20` records, and most of
/// a cards or sbr state is tournaments that no longer change: encoding each
/// anew at every checkpoint would be a visible part of an import's CPU, for
/// the same bytes as the last time.
///
/// Invariant: the bytes are those of the value as it is. Every `&mut` access
/// goes through `DerefMut`, which drops them first; clones and deserialized
/// values start without. Serialized as the value alone (`transparent`), so a
/// state holding `Kept` values keeps its checkpoint layout.
#[derive(Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Kept<T> {
    value: T,
    #[serde(skip)]
    encoded: std::sync::OnceLock<Vec<u8>>,
}

impl<T> Kept<T> {
    pub fn new(value: T) -> Self {
        Kept {
            value,
            encoded: std::sync::OnceLock::new(),
        }
    }
}

impl<T> From<T> for Kept<T> {
    fn from(value: T) -> Self {
        Kept::new(value)
    }
}

impl<T> std::ops::Deref for Kept<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> std::ops::DerefMut for Kept<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.encoded.take();
        &mut self.value
    }
}

impl<T: Clone> Clone for Kept<T> {
    fn clone(&self) -> Self {
        Kept::new(self.value.clone())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Kept<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value.fmt(f)
    }
}

/// Append to `out` the bincode of `map` in the checkpoints' options (varint):
/// the very bytes of serializing the map whole (bincode writes a map as its
/// length, then each key and value, with no framing between), but each
/// value's bytes are its kept ones, made on first use. `out` grows once, by
/// the exact size plus `then` bytes (what the caller appends next), rather
/// than doubling a buffer of up to 16 MB.
pub fn encode_map<T: Serialize>(
    out: &mut Vec<u8>,
    map: &std::collections::BTreeMap<String, Kept<T>>,
    then: usize,
) -> bincode::Result<()> {
    use bincode::Options;
    let o = bincode::DefaultOptions::new();
    let mut parts = Vec::with_capacity(map.len());
    let mut size = o.serialized_size(&(map.len() as u64))?;
    for (k, v) in map {
        let bytes = match v.encoded.get() {
            Some(b) => b,
            None => {
                let b = o.serialize(&v.value)?;
                v.encoded.get_or_init(|| b)
            }
        };
        size += o.serialized_size(k.as_str())? + bytes.len() as u64;
        parts.push((k.as_str(), bytes.as_slice()));
    }
    out.reserve_exact(size as usize + then);
    o.serialize_into(&mut *out, &(map.len() as u64))?;
    for (k, bytes) in parts {
        o.serialize_into(&mut *out, k)?;
        out.extend_from_slice(bytes);
    }
    Ok(())
}

/// An integer that orders names as their bytes do, as far as it tells them
/// apart: the first 8 bytes, big-endian, zero-padded. `name_key(a) <
/// name_key(b)` implies `a < b`; equal keys leave it to the names themselves.
/// Why: sorting a 60,000-row table on names spent its time following pointers
/// to them and comparing them byte by byte (most names differ in 8 bytes).
pub fn name_key(s: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s.as_bytes()[..n]);
    u64::from_be_bytes(b)
}

#[cfg(test)]
mod tests;
