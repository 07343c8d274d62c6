//! The event files under `events/`, compiled into the binary so that `laurel demo`
//! runs from any directory. A test checks this list against the folder.

/// `(file name, contents)`, in name order (the order `demo` appends them).
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "cards_league.jsonl",
        include_str!("../events/cards_league.jsonl"),
    ),
    (
        "cards_masters.jsonl",
        include_str!("../events/cards_masters.jsonl"),
    ),
    ("cfr_pbem.jsonl", include_str!("../events/cfr_pbem.jsonl")),
    ("cfr_wbc.jsonl", include_str!("../events/cfr_wbc.jsonl")),
    (
        "cfr_wbc_pbem.jsonl",
        include_str!("../events/cfr_wbc_pbem.jsonl"),
    ),
    (
        "diplomacy_draws.jsonl",
        include_str!("../events/diplomacy_draws.jsonl"),
    ),
    (
        "diplomacy_small_boards.jsonl",
        include_str!("../events/diplomacy_small_boards.jsonl"),
    ),
    (
        "diplomacy_solo_surrender.jsonl",
        include_str!("../events/diplomacy_solo_surrender.jsonl"),
    ),
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
        "mepbm_late_1.jsonl",
        include_str!("../events/mepbm_late_1.jsonl"),
    ),
    (
        "mepbm_late_2.jsonl",
        include_str!("../events/mepbm_late_2.jsonl"),
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
    (
        "sbr_mars_2014.jsonl",
        include_str!("../events/sbr_mars_2014.jsonl"),
    ),
];
