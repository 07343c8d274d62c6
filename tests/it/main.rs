//! The integration tests, one binary: the built `laurel` run against temporary ledgers
//! (`common` holds the shared helpers), and the library's public API where a test
//! needs its parts. One module per capability.

mod common;

mod again;
mod blanks;
mod cards;
mod cards_rules;
mod cfr;
mod cfr_entry;
mod check;
mod ckpt;
mod cli;
mod corpus;
mod corrections;
mod corrupt;
mod crash;
mod demo;
mod diplomacy;
mod diplomacy_tournament;
mod diplomacy_variants;
mod events;
mod extremes;
mod fuzz;
mod history;
mod ledger;
mod log;
mod memory;
mod mepbm;
mod mepbm_output;
mod mepbm_seed;
mod names;
mod params;
mod perf;
mod players;
mod props;
mod readers;
mod readme;
mod refusals;
mod replay;
mod restore;
mod sbr;
mod sbr_groups;
mod shell;
mod site;
mod site_browser;
mod site_large;
mod storage;
mod streaming;
mod timetravel;
mod trust;
