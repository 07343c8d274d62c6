//! The event files under `events/`, compiled into the binary so that `laurel demo`
//! runs from any directory. A test checks this list against the folder.

/// `(file name, contents)`, in name order (the order `demo` appends them).
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "ledger_tour.jsonl",
        include_str!("../events/ledger_tour.jsonl"),
    ),
    (
        "sbr_mars_2014.jsonl",
        include_str!("../events/sbr_mars_2014.jsonl"),
    ),
];
