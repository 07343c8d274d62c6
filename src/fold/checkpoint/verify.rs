//! `verify`'s check of the checkpoints.
//!
//! A checkpoint is a cache that no hash of the chain covers: its header
//! names the head it was made at, and nothing but folding the records again
//! shows that its sections hold their fold. A checkpoint written by anyone
//! but laurel (a forged one, with a genuine head in its header) would change
//! every answer folded from it while the chain verifies. So `verify` folds
//! the records again, from nothing, and compares at each checkpoint a fold
//! may start from: every section it stores must be, byte for byte, the
//! section the fold encodes there (sections encode deterministically: the
//! state's maps are ordered). A checkpoint that no fold can use (bound to
//! records the chain no longer holds, or damaged: it reads as absent) is
//! not compared, nor one of another layout (its sections' names are not
//! this laurel's); the damaged ones (a header or a section that does not
//! read back) are counted, for `verify` to say so. A section that reads back
//! but differs is a problem, whether or not it decodes.
//!
//! Which fold: a checkpoint usable by a fold of the whole ledger (what every
//! append leaves behind) against the fold of the whole ledger; one bound to
//! an earlier head and usable only by `--known-at` cuts against the fold of
//! the records up to that head, one fold per such head.

use std::collections::BTreeMap;

use super::{encode_section, names};
use crate::error::Result;
use crate::fold::view::View;
use crate::fold::{Marks, Pos, Query, Sink, Snapshot};
use crate::ledger::checkpoint::Header;
use crate::ledger::Ledger;

/// What [`Ledger::verify_checkpoints`] found: `(seq of its position, what
/// differs)` for each checkpoint that does not hold the fold, in position
/// order; how many were compared whole (none of their sections damaged); how
/// many are damaged.
pub struct Checked {
    pub problems: Vec<(u64, String)>,
    pub compared: usize,
    pub damaged: usize,
}

impl Ledger {
    /// Every checkpoint a fold may start from, compared with the fold of the
    /// records it was made from (see the module docs).
    pub fn verify_checkpoints(&self) -> Result<Checked> {
        let head = self.head()?.seq;
        let mut by_head: BTreeMap<u64, Vec<Header>> = BTreeMap::new();
        let all = self.all_checkpoints()?;
        let damaged = self.listed_checkpoints()? - all.len();
        for h in all {
            let upto = match self.usable(&h, head)? {
                true => head,
                false if self.usable(&h, h.head.seq)? => h.head.seq,
                false => continue,
            };
            by_head.entry(upto).or_default().push(h);
        }
        let mut all = Checked {
            problems: Vec::new(),
            compared: 0,
            damaged,
        };
        for (upto, headers) in by_head {
            let found = self.compare_with_fold(upto, headers)?;
            all.problems.extend(found.problems);
            all.compared += found.compared;
            all.damaged += found.damaged;
        }
        all.problems.sort();
        Ok(all)
    }

    /// Fold the records `1..=upto` from nothing and compare, at each of
    /// `headers`' positions (ascending), the state with its stored sections:
    /// the problems, how many checkpoints had a section to compare and how
    /// many have a damaged one.
    fn compare_with_fold(&self, upto: u64, headers: Vec<Header>) -> Result<Checked> {
        let names = names();
        let (mut problems, mut compared, mut damaged) = (Vec::new(), 0, 0);
        let mut next = headers.iter().peekable();
        let mut put = |pos: Pos, _folded: u64, made: Snapshot| -> Result<()> {
            while let Some(h) = next.next_if(|h| h.pos <= pos) {
                let (differs, any, broken) = self.differing(h, &names, &made)?;
                // A damaged one is counted once, as damaged, however many
                // of its sections read back.
                compared += usize::from(any && !broken);
                damaged += usize::from(broken);
                if !differs.is_empty() {
                    let what = format!(
                        "the checkpoint there does not hold the fold of the records before it (sections {}): laurel did not write it, or it was changed since; removing {} (a cache) gives every answer from the records alone, and the next append makes checkpoints anew",
                        differs.join(", "),
                        self.files_dir().display()
                    );
                    problems.push((h.pos.1, what));
                }
            }
            Ok(())
        };
        let sink = Sink {
            marks: Marks::At(headers.iter().map(|h| h.pos).collect()),
            encode: encode_section,
            put: &mut put,
        };
        let view = View::new(self, upto);
        super::super::fold_from(&view, &Query::default(), None, Some(sink))?.discard();
        Ok(Checked {
            problems,
            compared,
            damaged,
        })
    }

    /// The names of `h`'s stored sections whose bytes differ from the fold's
    /// `made` (a section's name carries the layout it was written under, so
    /// equal names mean one layout: `super::LAYOUT`); whether any section was
    /// compared; whether one is damaged. A section the checkpoint lacks is
    /// not compared (one of another layout among them), nor one that does not
    /// read back (damage: a fold then does not use the checkpoint).
    fn differing(
        &self,
        h: &Header,
        names: &[String],
        made: &Snapshot,
    ) -> Result<(Vec<String>, bool, bool)> {
        let (mut differs, mut any, mut broken) = (Vec::new(), false, false);
        for (name, made) in names.iter().zip(made) {
            let (Some(made), Some(_)) = (made, h.index(name)) else {
                continue;
            };
            let Some(stored) = self.raw_section(h, name)? else {
                broken = true;
                continue;
            };
            any = true;
            if stored != *made {
                differs.push(name.clone());
            }
        }
        Ok((differs, any, broken))
    }
}
