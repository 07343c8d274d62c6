//! laurel: an event-sourced, tamper-evident ratings ledger for game communities.
//!
//! Results go in as domain events ([`events`]); every event is appended to a
//! BLAKE3 hash-chained log in sled ([`ledger`]) and never changed; ratings and
//! standings are projections ([`systems`]), pure folds over the log ([`fold`]).
//! [`app`] holds the command implementations the `laurel` binary calls.
//!
//! See README.md, section "Architecture", for the code map and invariants.

pub mod app;
pub mod bench;
pub mod demo;
pub mod error;
pub mod events;
pub mod fold;
pub mod gen;
pub mod input;
pub mod ledger;
pub mod num;
pub mod output;
pub mod params;
pub mod site;
pub mod spill;
pub mod sysinfo;
pub mod systems;
pub mod time;

pub use error::{Error, Result};
