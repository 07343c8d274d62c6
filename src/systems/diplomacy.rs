//! `diplomacy`: (not yet implemented) — see SPEC.md.

use crate::events::Record;
use crate::output::Report;
use crate::params::{Kind, ParamDef};

use super::{Cx, Projection, Selector};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["fibonacci", "carnage", "dss", "sos"];

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[ParamDef {
    system: "carnage",
    name: "centers_total",
    kind: Kind::Int,
    default: "34",
    doc: "supply centres on the board",
}];

#[derive(Debug, Clone, Default)]
pub struct State {}

impl Projection for State {
    fn check(&self, _rec: &Record, _cx: &Cx) -> Result<(), String> {
        Ok(())
    }

    fn apply(&mut self, _rec: &Record, _cx: &mut Cx) {}
}

impl State {
    pub fn standings(&self, table: &str, _sel: &Selector, _cx: &Cx) -> Result<Report, String> {
        Err(format!("standings {table}: not implemented yet"))
    }
}
