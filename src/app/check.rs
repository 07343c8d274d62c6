//! `laurel check FILE|-`: a dry run of `laurel append FILE|-`; `laurel
//! check DIR`, of `laurel import DIR` (the same files, in the same order).
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
//! anyway, so nothing depends on the check's answer staying true. Damage to
//! the writer's store that the append's open would meet and a reader can
//! see ([`Ledger::writer_store_damage`]) is reported as the append would.

use std::path::Path;

use super::{append_summary, import_inputs, open_input};
use crate::error::Result;
use crate::ledger::Ledger;

/// `laurel check FILE|DIR|-`.
pub fn check(path: &Path, file: &str) -> Result<String> {
    let ledger = Ledger::read(path)?;
    // What the append's open would refuse, as far as a reader can tell.
    if let Some(damage) = ledger.writer_store_damage() {
        return Err(crate::error::Error::Corrupt(damage));
    }
    let dir = Path::new(file);
    let (inputs, files) = match file != "-" && dir.is_dir() {
        true => {
            let inputs = import_inputs(dir)?;
            let n = inputs.len();
            (inputs, format!("{n} file(s): "))
        }
        false => (vec![open_input(file)?], String::new()),
    };
    let report = ledger.dry_run(inputs)?;
    Ok(format!("{files}{}", append_summary(&report, true)))
}
