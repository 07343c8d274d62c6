//! `sbr`: (not yet implemented) — see SPEC.md.

use crate::events::Record;
use crate::output::Report;
use crate::params::{Kind, ParamDef};

use super::{Cx, Projection, Selector};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["sbr"];

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[ParamDef {
    system: "sbr",
    name: "advance",
    kind: Kind::Int,
    default: "2",
    doc: "players per match who advance",
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
    /// Tournament ids, in id order.
    pub fn tournaments(&self) -> Vec<String> {
        Vec::new()
    }

    pub fn standings(&self, table: &str, _sel: &Selector, _cx: &Cx) -> Result<Report, String> {
        Err(format!("standings {table}: not implemented yet"))
    }
}
