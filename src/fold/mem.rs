//! A [`Source`] of records held in memory, for the unit and property tests:
//! a fold without a ledger. Each record is a chunk of its own, so the one
//! pass of `stream` reads them as it reads a ledger's chunks.

use serde_json::Value;

use super::stream::{self, Chunk};
use super::{Item, Keep, Source, Span};
use crate::error::{Error, Result};
use crate::events::ledger;
use crate::systems::{Event, Record};
use crate::time::Micros;

/// Records held in memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct MemSource {
    pub records: Vec<Record>,
}

impl MemSource {
    /// Parse JSON Lines text into records with seqs 1, 2, ... (recorded_at = at).
    pub fn from_jsonl(text: &str) -> std::result::Result<Self, String> {
        let mut records = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: Value =
                serde_json::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
            let p = crate::events::parse_event(v).map_err(|e| format!("line {}: {e}", i + 1))?;
            let seq = records.len() as u64 + 1;
            records.push(Record {
                seq,
                at: p.at,
                recorded_at: p.at,
                id: p.id,
                kind: p.kind,
                event: p.event.expect("parse_event decodes the payload"),
            });
        }
        Ok(MemSource { records })
    }
}

impl Simple for MemSource {
    fn entries(&self, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()> {
        for r in &self.records {
            let void_target = match &r.event {
                Event::Ledger(ledger::Event::Voided(v)) => Some(v.target),
                _ => None,
            };
            f(Entry {
                seq: r.seq,
                at: r.at,
                void_target,
            })?;
        }
        Ok(())
    }

    fn last_seq(&self) -> u64 {
        self.records.last().map_or(0, |r| r.seq)
    }

    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        for &s in seqs {
            if let Some(r) = self.records.get((s - 1) as usize) {
                f(r.clone())?;
            }
        }
        Ok(())
    }
}

/// A record's header: what a test source's spans are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub seq: u64,
    pub at: Micros,
    /// For a `ledger.voided` record, the seq it voids.
    pub void_target: Option<u64>,
}

/// A test source: entries and records, the rest of [`Source`] read from
/// them, each record a chunk of its own.
pub(crate) trait Simple {
    /// Every entry, in seq order.
    fn entries(&self, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()>;
    fn last_seq(&self) -> u64;
    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()>;
    /// Record `seq` as stored bytes and its `recorded_at`, for a source
    /// that hands them out undecoded, as a ledger does (the fold's workers
    /// decode them); `None`: handed out decoded.
    fn stored(&self, _seq: u64) -> Option<(Vec<u8>, Micros)> {
        None
    }
}

/// One record as a chunk: decoded, or its stored bytes.
struct One {
    entry: Entry,
    voids: Vec<(u64, u64)>,
    record: Option<Record>,
    bytes: Vec<u8>,
    recorded_at: Micros,
}

impl Chunk for One {
    fn first(&self) -> u64 {
        self.entry.seq
    }
    fn count(&self) -> usize {
        1
    }
    fn at(&self, _: usize) -> Micros {
        self.entry.at
    }
    fn voids(&self) -> &[(u64, u64)] {
        &self.voids
    }
    fn bytes(&self) -> usize {
        1
    }
    fn item(&self, seq: u64) -> Result<Item<'_>> {
        Ok(match &self.record {
            Some(r) => Item::Decoded(r.clone()),
            None => Item::Stored {
                seq,
                at: self.entry.at,
                recorded_at: self.recorded_at,
                bytes: &self.bytes,
            },
        })
    }
}

impl<T: Simple> Source for T {
    fn last_seq(&self) -> u64 {
        Simple::last_seq(self)
    }
    fn void_pairs(&self, f: &mut dyn FnMut(u64, u64) -> Result<()>) -> Result<()> {
        Simple::entries(self, &mut |e| e.void_target.map_or(Ok(()), |t| f(e.seq, t)))
    }
    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        Simple::records(self, seqs, f)
    }
    fn spans(&self) -> Result<Vec<Span>> {
        let mut spans = Vec::new();
        Simple::entries(self, &mut |e| {
            spans.push(Span {
                first: e.seq,
                last: e.seq,
                min_at: e.at,
                max_at: e.at,
                voids: voids_of(&e),
            });
            Ok(())
        })?;
        Ok(spans)
    }
    fn items_in_order(
        &self,
        spans: &[Span],
        keep: &Keep,
        f: &mut dyn FnMut(Item<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut entries = std::collections::BTreeMap::new();
        Simple::entries(self, &mut |e| {
            entries.insert(e.seq, e);
            Ok(())
        })?;
        let mut load = |seq: u64| {
            let missing = || Error::Corrupt(format!("record {seq} is missing"));
            let entry = *entries.get(&seq).ok_or_else(missing)?;
            let (record, bytes, recorded_at) = match Simple::stored(self, seq) {
                Some((bytes, recorded_at)) => (None, bytes, recorded_at),
                None => {
                    let mut one = None;
                    Simple::records(self, &[seq], &mut |r| {
                        one = Some(r);
                        Ok(())
                    })?;
                    (Some(one.ok_or_else(missing)?), Vec::new(), 0)
                }
            };
            let voids = voids_of(&entry);
            Ok(One {
                entry,
                voids,
                record,
                bytes,
                recorded_at,
            })
        };
        stream::run(spans, keep, &mut load, f)
    }
}

/// `(seq, target)` of the record of `e`, if it is a void.
fn voids_of(e: &Entry) -> Vec<(u64, u64)> {
    e.void_target.map(|t| (e.seq, t)).into_iter().collect()
}
