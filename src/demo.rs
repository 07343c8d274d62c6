//! The event files under `events/`, compiled into the binary so that `laurel demo`
//! runs from any directory: each system's samples ([`crate::systems::samples`])
//! and the ledger's own tour. A test checks this list against the folder.

use std::sync::LazyLock;

/// The `ledger.*` tour, the one sample that belongs to no system.
const LEDGER_TOUR: (&str, &str) = (
    "ledger_tour.jsonl",
    include_str!("../events/ledger_tour.jsonl"),
);

/// `(file name, contents)`, in name order (the order `demo` appends them).
pub static BUNDLED: LazyLock<Vec<(&str, &str)>> = LazyLock::new(|| {
    let mut all: Vec<(&str, &str)> = crate::systems::samples().collect();
    all.push(LEDGER_TOUR);
    all.sort_by_key(|(name, _)| *name);
    all
});
