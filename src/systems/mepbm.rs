//! `mepbm`: (not yet implemented) — see SPEC.md §2.

use crate::events::Record;
use crate::output::Report;
use crate::params::{Kind, ParamDef};

use super::{Cx, Projection, Selector};

/// Standings tables this module produces.
pub const TABLES: &[&str] = &[
    "valar", "maia", "istari", "nations", "ainur", "council", "nazgul",
];

/// Rule parameters, with the seed's values as defaults.
pub const PARAMS: &[ParamDef] = &[
    ParamDef {
        system: "valar",
        name: "base",
        kind: Kind::Int,
        default: "45",
        doc: "constant of the Valar change",
    },
    ParamDef {
        system: "valar",
        name: "divisor",
        kind: Kind::Int,
        default: "150",
        doc: "divisor of the rating difference",
    },
    ParamDef {
        system: "monthly",
        name: "factor",
        kind: Kind::Decimal,
        default: "\"0.98\"",
        doc: "monthly pull toward the mean",
    },
];

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
