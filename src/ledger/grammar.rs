//! What storage asks of the event layer, handed in by the layers above it:
//! an append's lines read into canonical bytes and the header fields a record
//! stores beside them ([`ParseLine`]), and a stored event's header read back
//! for `verify` ([`Grammar::header`]). The ledger knows bytes and these
//! fields (a void's target among them: voids are the ledger's own), never a
//! payload; the event layer (`events`) implements both, and `fold` lends them
//! to the append and `verify`.

use std::borrow::Cow;

use crate::time::Micros;

/// One input line as an append stores it: its canonical bytes and what the
/// record's header repeats of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The idempotency key given, if any.
    pub id: Option<String>,
    /// Domain time, microseconds UTC.
    pub at: Micros,
    /// The `type` string (the append's report counts each).
    pub kind: String,
    /// The target of a `ledger.voided`.
    pub void: Option<u64>,
    /// The event's canonical form: what is stored and hashed.
    pub canonical: Vec<u8>,
}

/// What a stored record's header repeats from its event: `at`, `id` and, for a
/// `ledger.voided`, the target. The `id` is borrowed from the event when it has
/// no escapes (`verify` reads one header per record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header<'a> {
    /// Domain time, microseconds UTC.
    pub at: Micros,
    /// The idempotency key given, if any.
    pub id: Option<Cow<'a, str>>,
    pub void_target: Option<u64>,
}

/// Why an input line was refused: the message, and the event's `type` (a
/// known one) and `id` when the line gives them, which the append reports
/// beside its file and line (the message names neither).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refusal {
    pub msg: String,
    pub kind: Option<String>,
    pub id: Option<String>,
}

/// Reads an append's input lines, keeping scratch space between them (one
/// per thread). A refused line's `Err` is what the append reports, with its
/// file and line.
pub trait ParseLine: Send {
    /// The whole line, its payload decoded.
    fn whole(&mut self, line: &[u8]) -> Result<Line, Refusal>;
    /// [`ParseLine::whole`] up to the payload, where the event layer leaves
    /// it to the check fold (which decodes it anyway): a line `whole`
    /// refuses either is refused here with the same message, or passes, and
    /// then `whole` of its canonical bytes gives that message.
    fn screened(&mut self, line: &[u8]) -> Result<Line, Refusal>;
}

/// The event layer as storage sees it.
pub trait Grammar: Sync {
    /// A parser of input lines.
    fn parser(&self) -> Box<dyn ParseLine>;
    /// The header fields of a stored event (its canonical bytes), or why
    /// they cannot be read.
    fn header<'a>(&self, stored: &'a [u8]) -> Result<Header<'a>, String>;
    /// The `type` and `id` of a stored event, as far as they can be read:
    /// what a refusal of its record names beside the message.
    fn names(&self, stored: &[u8]) -> (Option<String>, Option<String>);
}
