//! The event files under `events/`, compiled into the binary so that `laurel demo`
//! runs from any directory: each system's samples ([`crate::systems::samples`])
//! and the ledger's own tour. A test checks this list against the folder.
//!
//! Also the stops of the tour `laurel demo` prints ([`stops`]): per community,
//! its main table and one sentence on what it means.

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

/// One stop of `laurel demo`'s tour: a community and the table that shows it
/// best, with one sentence on what that table means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    /// The rating system's namespace.
    pub namespace: &'static str,
    /// Who plays it, as the community calls itself.
    pub community: &'static str,
    /// Its main table (shown for one tournament where it is shown per tournament).
    pub table: &'static str,
    /// What the table means, in one sentence.
    pub meaning: &'static str,
}

/// The tour's stops, one per community.
const STOPS: &[Stop] = &[
    Stop {
        namespace: "mepbm",
        community: "Middle-earth PBM",
        table: "valar",
        meaning: "After each game every winner gains, and every loser loses, \
                  45 + (losing side's ratings - winning side's) / 150 points, \
                  so an upset moves ratings most.",
    },
    Stop {
        namespace: "cfr",
        community: "Championship Formula Racing",
        table: "cfr",
        meaning: "Each driver's mean event score (a win is 100) over the last 3 \
                  events of each series; one event counts half, two three quarters.",
    },
    Stop {
        namespace: "cards",
        community: "Card-game league",
        table: "cards",
        meaning: "Points for each match by finishing place (point system 2 adds \
                  table strength and score points), ties broken by total score.",
    },
    Stop {
        namespace: "diplomacy",
        community: "Diplomacy",
        table: "fibonacci",
        meaning: "Fibonacci-Diplo: each game shares 1 point by board rank along a \
                  Fibonacci sequence (a solo takes all), summed over games; \
                  Carnage, Draw-Size and Sum-of-Squares score the same games.",
    },
    Stop {
        namespace: "sbr",
        community: "Space Base Race",
        table: "sbr",
        meaning: "A tournament's final ranking: the podium from the bracket's \
                  final match, then everyone by the last stage they reached.",
    },
];

/// The tour: one stop per rating system, in registry order. A system
/// without an entry in the list above still gets one: its first table,
/// under its namespace, with the table's own title as the only explanation.
pub fn stops() -> Vec<Stop> {
    crate::systems::NAMESPACES
        .iter()
        .filter_map(|&ns| {
            let listed = STOPS.iter().find(|s| s.namespace == ns).copied();
            listed.or_else(|| {
                let (table, _) = crate::systems::tables().into_iter().find(|t| t.1 == ns)?;
                Some(Stop {
                    namespace: ns,
                    community: ns,
                    table,
                    meaning: "",
                })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed stop names a registered system and one of its tables.
    #[test]
    fn every_stop_is_a_table_of_its_system() {
        for s in STOPS {
            assert_eq!(crate::systems::namespace_of(s.table), Some(s.namespace));
        }
        let all = stops();
        assert_eq!(all.len(), crate::systems::NAMESPACES.len());
        assert!(all.iter().all(|s| !s.meaning.is_empty()), "a sentence each");
    }
}
