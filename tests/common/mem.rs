//! Records held in memory as a [`Source`], for folds without a ledger.

use laurel::error::{Error, Result};
use laurel::events::{ledger, Event, Record};
use laurel::fold::{Entry, Item, Keep, Source, Span};
use serde_json::Value;

#[derive(Debug, Clone, Default)]
pub struct MemSource {
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
            let p = laurel::events::parse_event(v).map_err(|e| format!("line {}: {e}", i + 1))?;
            records.push(Record {
                seq: records.len() as u64 + 1,
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

impl Source for MemSource {
    fn entries(&self, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()> {
        for r in &self.records {
            let void_target = match &r.event {
                Event::Ledger(ledger::Event::Voided(v)) => Some(v.target),
                _ => None,
            };
            let (seq, at, recorded_at) = (r.seq, r.at, r.recorded_at);
            f(Entry {
                seq,
                at,
                recorded_at,
                void_target,
            })?;
        }
        Ok(())
    }

    fn last_seq(&self) -> u64 {
        self.records.last().map_or(0, |r| r.seq)
    }

    fn entries_in(&self, _: i64, _: i64, f: &mut dyn FnMut(Entry) -> Result<()>) -> Result<()> {
        self.entries(f)
    }

    fn void_pairs(&self, f: &mut dyn FnMut(u64, u64) -> Result<()>) -> Result<()> {
        self.entries(&mut |e| e.void_target.map_or(Ok(()), |t| f(e.seq, t)))
    }

    fn records(&self, seqs: &[u64], f: &mut dyn FnMut(Record) -> Result<()>) -> Result<()> {
        for &s in seqs {
            if let Some(r) = self.records.get((s - 1) as usize) {
                f(r.clone())?;
            }
        }
        Ok(())
    }

    fn items(&self, seqs: &[u64], f: &mut dyn FnMut(Item<'_>) -> Result<()>) -> Result<()> {
        self.records(seqs, &mut |rec| f(Item::Decoded(rec)))
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
        Err(Error::Storage("no chunks to read in one pass".into()))
    }
}
