//! The fold's context ([`Cx`]): the rules in force, the audit trail when
//! one is kept (with the rules given named in each formula), and what a
//! check's refusal blames.

use super::params::Params;
use super::Change;

/// Another record a check's refusal names, by seq.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Other {
    /// The refusal is this record's, not the one checked.
    Blamed(u64),
    /// The record checked clashes with this one, brought by the same append
    /// (which says where it is: it has no seq to name yet).
    Clashes(u64),
}

/// The fold's context: the rules in force and, when asked, the audit trail.
#[derive(Debug, Clone, Default)]
pub struct Cx {
    pub params: Params,
    audit: Option<Vec<Change>>,
    /// Keep only changes to this subject (`history` of one player). Without it an
    /// audit keeps every change of every player, which grows with the log.
    audit_subject: Option<String>,
    /// In an append's check fold, the seq of its first record (0: every
    /// record is new): see [`Cx::brings`].
    fresh_from: u64,
    /// The other record a check's last refusal names ([`Cx::second_result`]).
    other: std::cell::Cell<Option<Other>>,
    /// Per table: the parameters' stamp and the text an audit formula ends
    /// with under them (the values given of its system's groups,
    /// [`Params::given_text`]), made once per rule change.
    rules_shown: std::collections::BTreeMap<String, (u64, String)>,
}

impl Cx {
    pub fn new(params: Params, audit: bool) -> Self {
        Cx {
            params,
            audit: audit.then(Vec::new),
            audit_subject: None,
            fresh_from: 0,
            other: std::cell::Cell::new(None),
            rules_shown: std::collections::BTreeMap::new(),
        }
    }

    /// Records from seq `fresh_from` on are what the append being checked
    /// brings.
    pub fn with_fresh_from(mut self, fresh_from: u64) -> Self {
        self.fresh_from = fresh_from;
        self
    }

    /// Does the append being checked bring record `seq`? A rule between two
    /// records that a ledger written before the rule may break binds only
    /// when the append brings one of them: what a ledger holds never turns
    /// invalid, and a late record that would break it is refused all the same.
    pub fn brings(&self, seq: u64) -> bool {
        seq >= self.fresh_from
    }

    /// The refusal of a second result for `what` (``game "g1"``), found
    /// checking record `seq`, the first being record `first` (before it in
    /// the fold's order); `once` is the rule broken. Worded by which of the
    /// two the append brings: a record it brings has no seq yet to name or
    /// correct. A recorded result displaced by a new one dated before it is
    /// the one already recorded: the refusal is the new one's
    /// ([`Other::Blamed`]), as when it is dated after. Two the append brings
    /// are told apart by where they are in its input ([`Other::Clashes`]).
    pub fn second_result(&self, what: &str, once: &str, (seq, first): (u64, u64)) -> String {
        let recorded = |at: u64| {
            format!(
                "{what} already has a result, recorded at seq {at}; {once} \
                 (to correct it: `laurel correct {at} FILE --reason TEXT`, FILE holding the corrected result)"
            )
        };
        match (self.brings(seq), self.brings(first)) {
            (_, false) => recorded(first),
            (true, true) => {
                self.other.set(Some(Other::Clashes(first)));
                format!(
                    "{what} has a result in another event of this append, dated at or before \
                     this one; {once}"
                )
            }
            (false, true) => {
                self.other.set(Some(Other::Blamed(first)));
                recorded(seq)
            }
        }
    }

    /// The other record the last refusal names, if any: taken, so that it
    /// is reported once.
    pub fn take_other(&self) -> Option<Other> {
        self.other.take()
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
            let mut c = change();
            debug_assert_eq!(c.subject, subject);
            // A formula computed under rules given names them.
            let stamp = self.params.stamp();
            if stamp != 0 {
                let shown = self.rules_shown.entry(c.system.clone()).or_default();
                if shown.0 != stamp {
                    // The table's own group and its system's groups that
                    // are no other table's: a rating's formula reads its
                    // table's group and those of the events that move it
                    // (a small game's factor, a monthly decay), never
                    // another table's (Valar's base is no Maia rule).
                    let ns = super::namespace_of(&c.system);
                    let of = |group: &str| {
                        ns.is_some()
                            && super::namespace_of_group(group) == ns
                            && (group == c.system || super::namespace_of(group).is_none())
                    };
                    *shown = (stamp, self.params.given_text(of));
                }
                c.formula.push_str(&shown.1);
            }
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
