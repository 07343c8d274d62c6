//! The event files under `events/`, compiled into the binary so that `laurel demo`
//! runs from any directory. A test checks this list against the folder.

/// `(file name, contents)`, in name order (the order `demo` appends them).
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "ledger_tour.jsonl",
        include_str!("../events/ledger_tour.jsonl"),
    ),
    (
        "mepbm_ainur.jsonl",
        include_str!("../events/mepbm_ainur.jsonl"),
    ),
    (
        "mepbm_istari.jsonl",
        include_str!("../events/mepbm_istari.jsonl"),
    ),
    (
        "mepbm_maia.jsonl",
        include_str!("../events/mepbm_maia.jsonl"),
    ),
    (
        "mepbm_monthly.jsonl",
        include_str!("../events/mepbm_monthly.jsonl"),
    ),
    (
        "mepbm_nazgul.jsonl",
        include_str!("../events/mepbm_nazgul.jsonl"),
    ),
    (
        "mepbm_valar.jsonl",
        include_str!("../events/mepbm_valar.jsonl"),
    ),
];
