//! The ledger's operations that need what lies above storage, as the crate
//! offers them: the append ([`Ledger::append_checked`]) lent the event
//! grammar ([`GRAMMAR`]) and the check fold ([`Ledger::check_fold`]),
//! and `verify` ([`Ledger::verify_lent`]) lent the grammar, then the
//! checkpoints checked against the fold. Storage writes
//! the records beyond the head and commits them; how a line reads and whether
//! the ledger is still valid with it are the event layer's and the fold's
//! answers, so the ledger never calls either: they are lent here.

use crate::error::Result;
use crate::ledger::{AppendReport, Input, Ledger, Lent, VerifyReport};
use crate::systems::GRAMMAR;

/// What an append is lent: the event grammar and the check fold.
const LENT: Lent<'static> = Lent {
    grammar: &GRAMMAR,
    check: &Ledger::check_fold,
};

/// What a restore's appends are lent: the check fold of records accepted
/// once, which the rules of input do not judge again.
const RECORDED: Lent<'static> = Lent {
    grammar: &GRAMMAR,
    check: &Ledger::check_fold_recorded,
};

impl Ledger {
    /// Append the events of `inputs`, in order, as one all-or-nothing append:
    /// written beyond the head, the whole ledger folded with every check, then
    /// committed. An append that fails gives back what it wrote (see
    /// [`Ledger::append_checked`]).
    pub fn append(&self, inputs: Vec<Input<'_>>) -> Result<AppendReport> {
        self.append_if(inputs, &|_| Ok(()))
    }

    /// [`Ledger::append`], committed only if `accept` takes its report once
    /// every record is written and validated (else its error is returned and
    /// nothing is written): how `laurel correct` refuses a replacement that adds
    /// nothing, which would leave the void alone.
    pub fn append_if(
        &self,
        inputs: Vec<Input<'_>>,
        accept: &dyn Fn(&AppendReport) -> Result<()>,
    ) -> Result<AppendReport> {
        self.append_checked(inputs, accept, LENT, None)
    }

    /// [`Ledger::append`] of records accepted once, each recorded at
    /// `recorded_at` (not before the head's) instead of now: how `laurel
    /// restore` writes each append of an export again, record for record.
    /// The ledger's rules judge them; the rules of input, which may have
    /// tightened since they were recorded, do not
    /// ([`Ledger::check_fold_recorded`]).
    pub fn append_recorded(
        &self,
        inputs: Vec<Input<'_>>,
        recorded_at: crate::time::Micros,
    ) -> Result<AppendReport> {
        self.append_checked(inputs, &|_| Ok(()), RECORDED, Some(recorded_at))
    }

    /// What [`Ledger::append`] would do with `inputs`: the same report, or
    /// the same error, with nothing written (`laurel check`; see
    /// [`Ledger::dry_run_checked`]). The report's head is the one the append
    /// would have made but for its `recorded_at`, which is taken when records
    /// are written.
    pub fn dry_run(&self, inputs: Vec<Input<'_>>) -> Result<AppendReport> {
        self.dry_run_checked(inputs, LENT)
    }

    /// The chain alone, as [`Ledger::verify`] checks it first (no
    /// checkpoint): what `site` checks before it publishes a head.
    pub fn verify_chain(&self) -> Result<VerifyReport> {
        self.verify_lent(None, &GRAMMAR)
    }

    /// Check the whole chain: every record's hash and header, the links
    /// between chunks, the published index and fingerprints; with `expect`,
    /// that a published head (seq, hash) is still in it. Then, if it
    /// verifies, every checkpoint a fold may use against the fold of the
    /// records ([`Ledger::verify_checkpoints`]).
    pub fn verify(&self, expect: Option<(u64, [u8; 32])>) -> Result<VerifyReport> {
        let mut report = self.verify_lent(expect, &GRAMMAR)?;
        if report.problems.is_empty() {
            let checked = self.verify_checkpoints()?;
            report.problems = checked.problems;
            report.checkpoints = checked.compared;
            report.damaged_checkpoints = checked.damaged;
        }
        Ok(report)
    }
}
