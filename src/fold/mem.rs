//! A [`Source`] of records held in memory, for the unit and property tests:
//! a fold without a ledger. It has no chunk
//! summaries, so a fold over it plans first.

use serde_json::Value;

use super::{Entry, Item, Keep, Source, Span};
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
                recorded_at: r.recorded_at,
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

/// A test source: entries and records, the rest of [`Source`] read from them
/// (no chunk summaries: a fold plans first).
pub(crate) trait Simple {
    fn entries(&self, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()>;
    fn last_seq(&self) -> u64;
    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()>;
    fn items(&self, seqs: &[u64], f: &mut dyn FnMut(Item<'_>) -> Result<()>) -> Result<()> {
        Simple::records(self, seqs, &mut |rec| f(Item::Decoded(rec)))
    }
}

impl<T: Simple> Source for T {
    fn entries(&self, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()> {
        Simple::entries(self, f)
    }
    fn last_seq(&self) -> u64 {
        Simple::last_seq(self)
    }
    fn entries_in(
        &self,
        _: Micros,
        _: Micros,
        f: &mut dyn FnMut(Entry) -> Result<()>,
    ) -> Result<()> {
        Simple::entries(self, f)
    }
    fn void_pairs(&self, f: &mut dyn FnMut(u64, u64) -> Result<()>) -> Result<()> {
        Simple::entries(self, &mut |e| e.void_target.map_or(Ok(()), |t| f(e.seq, t)))
    }
    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        Simple::records(self, seqs, f)
    }
    fn items(&self, seqs: &[u64], f: &mut dyn FnMut(Item<'_>) -> Result<()>) -> Result<()> {
        Simple::items(self, seqs, f)
    }
    fn spans(&self) -> Result<Option<Vec<Span>>> {
        Ok(None)
    }
    fn items_in_order(
        &self,
        _: &[Span],
        _: &Keep,
        _: &mut dyn FnMut(Item<'_>) -> Result<()>,
    ) -> Result<()> {
        Err(Error::Internal(
            "this source has no chunks to read in one pass".into(),
        ))
    }
}
