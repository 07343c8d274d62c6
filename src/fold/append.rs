//! The append as the crate offers it: the ledger's append
//! ([`Ledger::append_checked`]) with the check fold ([`Ledger::check_fold`])
//! as its check. Storage writes the records beyond the head and commits
//! them; whether the ledger is still valid with them is the fold's answer,
//! so the ledger never calls the fold: it is handed it here.

use crate::error::Result;
use crate::ledger::{AppendReport, Input, Ledger};

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
        self.append_checked(inputs, accept, &Ledger::check_fold)
    }

    /// What [`Ledger::append`] would do with `inputs`: the same report, or
    /// the same error, with nothing written (`laurel check`; see
    /// [`Ledger::dry_run_checked`]). The report's head is the one the append
    /// would have made but for its `recorded_at`, which is the wall clock's.
    pub fn dry_run(&self, inputs: Vec<Input<'_>>) -> Result<AppendReport> {
        self.dry_run_checked(inputs, &Ledger::check_fold)
    }
}
