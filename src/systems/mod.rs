//! Rating systems: one module per community, each a projection folded over the log.
//!
//! Every module follows the same shape (after skillratings): pure math functions
//! first, unit-tested against the worked examples of the community's published
//! rules; then a `State` that implements [`Projection`]:
//!
//! - [`Projection::check`] validates an event against the state folded so far and
//!   says which rule it breaks. It runs at append time, in fold order, so a ledger
//!   is valid at every step of its `(at, seq)` order.
//! - [`Projection::apply`] folds an event in. It cannot fail: whatever reaches it
//!   was checked when it was appended (a filtered fold such as `--as-of` only ever
//!   drops a suffix of time or of seqs, which keeps the checked invariants).
//!
//! Rule constants are parameters ([`crate::params`]), never literals in the math, so
//! `ledger.rules_changed` and `replay --rules` reach them: each system declares its
//! groups in its `params.rs`, [`PARAM_GROUPS`] lists them all, and rule code reads
//! typed fields from [`Cx::params`] (`cx.params.get::<Sbr>().advance`).

pub mod cards;
pub mod cfr;
pub mod compact;
pub mod diplomacy;
pub mod mepbm;
#[cfg(test)]
mod roundtrip;
pub mod sbr;

use std::sync::OnceLock;

use crate::events::{Event, Record};
use crate::output::Report;
use crate::params::{GroupDef, ParamDef, Params};
use crate::time::Micros;

/// One change to a subject's value, with the formula that produced it (`laurel history`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    pub seq: u64,
    pub at: Micros,
    /// The table that changed, e.g. `valar`.
    pub system: String,
    /// Player, team, driver... whose value changed.
    pub subject: String,
    /// Value before (None: first appearance).
    pub old: Option<String>,
    pub new: String,
    /// The inputs of the formula, so anyone can redo the sum:
    /// `+71 = round(45 + (19665 - 15768)/150)`.
    pub formula: String,
}

/// The fold's context: the rules in force and, when asked, the audit trail.
#[derive(Debug, Clone, Default)]
pub struct Cx {
    pub params: Params,
    audit: Option<Vec<Change>>,
    /// Keep only changes to this subject (`history` of one player). Without it an
    /// audit keeps every change of every player: about 15 GB at 1M events.
    audit_subject: Option<String>,
}

impl Cx {
    pub fn new(params: Params, audit: bool) -> Self {
        Cx {
            params,
            audit: audit.then(Vec::new),
            audit_subject: None,
        }
    }

    /// Audit only the changes to `subject` (None: every change).
    pub fn with_audit_subject(mut self, subject: Option<String>) -> Self {
        self.audit_subject = subject;
        self
    }

    /// Record a change to `subject`; the closure only runs when the audit keeps
    /// that subject, so a plain fold (or another player's history) does not pay
    /// for formatting formulas.
    pub fn audit(&mut self, subject: &str, change: impl FnOnce() -> Change) {
        if !self.audits(subject) {
            return;
        }
        if let Some(log) = &mut self.audit {
            let c = change();
            debug_assert_eq!(c.subject, subject);
            log.push(c);
        }
    }

    /// [`Cx::audit`] with the subject looked up only when an audit trail is
    /// kept: a name out of an interner costs a cache miss or two, paid by
    /// every plain fold when computed up front.
    pub fn audit_of<'s>(
        &mut self,
        subject: impl FnOnce() -> &'s str,
        change: impl FnOnce() -> Change,
    ) {
        if self.auditing() {
            self.audit(subject(), change);
        }
    }

    /// Is an audit trail being kept?
    pub fn auditing(&self) -> bool {
        self.audit.is_some()
    }

    /// The one subject the audit keeps, if it keeps only one.
    pub fn audit_subject(&self) -> Option<&str> {
        self.audit_subject.as_deref()
    }

    /// Would a change to `subject` be kept?
    pub fn audits(&self, subject: &str) -> bool {
        self.audit.is_some() && self.audit_subject.as_deref().is_none_or(|s| s == subject)
    }

    pub fn changes(&self) -> &[Change] {
        self.audit.as_deref().unwrap_or(&[])
    }

    /// Replace the audit trail (when one is kept): the parallel fold's trails
    /// of its workers, merged.
    pub fn set_changes(&mut self, changes: Vec<Change>) {
        if let Some(log) = &mut self.audit {
            *log = changes;
        }
    }

    /// The audit trail, moved out (the context keeps auditing into an empty one).
    pub fn take_changes(&mut self) -> Vec<Change> {
        self.audit.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

/// A projection: validation plus fold, over the events of one namespace.
pub trait Projection {
    /// Does `rec` keep the ledger valid, given everything folded before it?
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String>;
    /// Fold `rec` in. Never fails; events of other namespaces are ignored.
    fn apply(&mut self, rec: &Record, cx: &mut Cx);
}

/// Every namespace with a projection, in a fixed order: `State::split_off` and
/// `State::absorb` name a projection by its index here.
pub const NAMESPACES: [&str; 5] = ["mepbm", "cfr", "cards", "diplomacy", "sbr"];

/// What `standings` may narrow a table to.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub tournament: Option<String>,
}

/// Every projection, folded together.
#[derive(Debug, Clone, Default)]
pub struct State {
    pub mepbm: mepbm::State,
    pub cfr: cfr::State,
    pub cards: cards::State,
    pub diplomacy: diplomacy::State,
    pub sbr: sbr::State,
}

impl State {
    pub fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        match &rec.event {
            Event::Mepbm(_) => self.mepbm.check(rec, cx),
            Event::Cfr(_) => self.cfr.check(rec, cx),
            Event::Cards(_) => self.cards.check(rec, cx),
            Event::Diplomacy(_) => self.diplomacy.check(rec, cx),
            Event::Sbr(_) => self.sbr.check(rec, cx),
            Event::Ledger(_) => Ok(()),
        }
    }

    pub fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        match &rec.event {
            Event::Mepbm(_) => self.mepbm.apply(rec, cx),
            Event::Cfr(_) => self.cfr.apply(rec, cx),
            Event::Cards(_) => self.cards.apply(rec, cx),
            Event::Diplomacy(_) => self.diplomacy.apply(rec, cx),
            Event::Sbr(_) => self.sbr.apply(rec, cx),
            Event::Ledger(_) => {}
        }
    }

    /// Move the projection of namespace `NAMESPACES[ns]` into a `State` of its
    /// own (the rest default), leaving a default one here: the parallel fold
    /// folds each namespace on its own thread (projections are independent).
    pub fn split_off(&mut self, ns: usize) -> State {
        let mut part = State::default();
        part.absorb(self, ns);
        part
    }

    /// Move the projection of namespace `NAMESPACES[ns]` from `part` into `self`.
    pub fn absorb(&mut self, part: &mut State, ns: usize) {
        use std::mem::take;
        match ns {
            0 => self.mepbm = take(&mut part.mepbm),
            1 => self.cfr = take(&mut part.cfr),
            2 => self.cards = take(&mut part.cards),
            3 => self.diplomacy = take(&mut part.diplomacy),
            _ => self.sbr = take(&mut part.sbr),
        }
    }

    /// The standings table `table` (a name from [`tables`]).
    pub fn standings(&self, table: &str, sel: &Selector, cx: &Cx) -> Result<Report, String> {
        match namespace_of(table) {
            Some("mepbm") => self.mepbm.standings(table, sel, cx),
            Some("cfr") => self.cfr.standings(table, sel, cx),
            Some("cards") => self.cards.standings(table, sel, cx),
            Some("diplomacy") => self.diplomacy.standings(table, sel, cx),
            Some("sbr") => self.sbr.standings(table, sel, cx),
            _ => Err(format!(
                "unknown standings table {table:?} (known: {})",
                tables()
                    .iter()
                    .map(|(t, _)| *t)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// Every standings table, with the namespace that produces it, in display order.
pub fn tables() -> Vec<(&'static str, &'static str)> {
    let per_ns: [(&'static str, &'static [&'static str]); 5] = [
        ("mepbm", mepbm::TABLES),
        ("cfr", cfr::TABLES),
        ("cards", cards::TABLES),
        ("diplomacy", diplomacy::TABLES),
        ("sbr", sbr::TABLES),
    ];
    per_ns
        .iter()
        .flat_map(|(ns, ts)| ts.iter().map(move |t| (*t, *ns)))
        .collect()
}

/// The namespace whose events a table is folded from.
pub fn namespace_of(table: &str) -> Option<&'static str> {
    tables()
        .into_iter()
        .find(|(t, _)| *t == table)
        .map(|(_, ns)| ns)
}

/// Every group of rule parameters, system by system (each declared in the
/// system's `params.rs`): the vocabulary of `ledger.rules_changed` and rules
/// files, in the order `laurel rules` lists them.
pub const PARAM_GROUPS: &[GroupDef] = &[
    GroupDef::of::<mepbm::params::Valar>(),
    GroupDef::of::<mepbm::params::Maia>(),
    GroupDef::of::<mepbm::params::Istari>(),
    GroupDef::of::<mepbm::params::Ainur>(),
    GroupDef::of::<mepbm::params::SmallGame>(),
    GroupDef::of::<mepbm::params::Monthly>(),
    GroupDef::of::<mepbm::params::Council>(),
    GroupDef::of::<cfr::params::Cfr>(),
    GroupDef::of::<cards::params::Cards>(),
    GroupDef::of::<diplomacy::params::Fibonacci>(),
    GroupDef::of::<diplomacy::params::Carnage>(),
    GroupDef::of::<sbr::params::Sbr>(),
];

/// Every rule parameter of every group of [`PARAM_GROUPS`], in its order.
pub fn param_defs() -> &'static [ParamDef] {
    static ALL: OnceLock<Vec<ParamDef>> = OnceLock::new();
    ALL.get_or_init(|| {
        PARAM_GROUPS
            .iter()
            .flat_map(|g| g.params)
            .copied()
            .collect()
    })
}
