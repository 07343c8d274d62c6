//! `cards`: (not yet implemented) — see SPEC.md.

use crate::events::Record;
use crate::output::Report;
use crate::params::{Kind, ParamDef};

use super::{Cx, Projection, Selector};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["cards"];

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[ParamDef {
    system: "cards",
    name: "score_clamp",
    kind: Kind::Int,
    default: "50",
    doc: "system 2: score points are clamped to -N..N",
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
