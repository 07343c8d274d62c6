//! `laurel check FILE|-`: a dry run of `laurel append FILE|-`.
//!
//! The append itself in its dry-run mode ([`Ledger::dry_run`]): the same
//! parser, idempotency index and check fold against the ledger as it
//! stands, so the same messages and exit codes; on success the append's own
//! report ([`super::append_summary`]) of what it would add. Nothing in the
//! ledger's directory is written.
//!
//! No writer lock: `check` opens the ledger as a reader ([`Ledger::read`]),
//! so it runs beside an append, on a read-only copy and on a full disk, and
//! answers for the head it read when it started. An append committed while
//! it runs is not seen; the append that follows a check validates again
//! anyway, so nothing depends on the check's answer staying true.

use std::path::Path;

use super::{append_summary, open_input};
use crate::error::Result;
use crate::ledger::Ledger;

/// `laurel check FILE|-`.
pub fn check(path: &Path, file: &str) -> Result<String> {
    let ledger = Ledger::read(path)?;
    let report = ledger.dry_run(vec![open_input(file)?])?;
    Ok(append_summary(&report, true))
}
