//! The parser thread of an append: inputs read and parsed in batches, with
//! their content keys and the midstates of their records' hashes.

use std::sync::mpsc::SyncSender;

use super::grammar::{Line, ParseLine, Refusal};
use super::lanes::Midstate;
use super::{canonical, chunk, lanes, Input};
use crate::error::{Error, Origin, Result};
use crate::input;
use crate::time::Micros;

/// Parsed events ready to be chained ([`incoming`], on the chaining thread);
/// an `Err` (a bad line) ends it.
type Batch = Vec<Result<Incoming>>;

/// A batch's lines as the parser thread parsed them: `(line, event or why not)`.
pub(super) type Lines = Vec<(u64, std::result::Result<Line, Refusal>)>;

/// What the parser thread sends: a batch of an input's parsed lines, or a
/// problem of the input itself, which ends the reading.
pub(super) enum Sent {
    Lines(Parsed),
    Problem(Error),
}

/// A batch of one input's lines, each parsed or refused (a refused one ends
/// the batch and the reading), and the content key and record midstate of
/// each parsed one, in order.
pub(super) struct Parsed {
    pub(super) file: usize,
    pub(super) lines: Lines,
    pub(super) keys: Vec<([u8; 16], Midstate)>,
}

/// The canonical events of a batch's parsed lines, in order.
fn canonical_events(lines: &Lines) -> Vec<&[u8]> {
    lines
        .iter()
        .filter_map(|(_, p)| p.as_ref().ok().map(|p| p.canonical.as_slice()))
        .collect()
}

/// The events of an append whose payloads the parser thread decodes whole
/// (the first ones; the check fold decodes the others, see
/// [`ParseLine::screened`]): a small append with a bad payload is
/// refused as its line is read, before the check fold, at the cost of
/// decoding these few twice.
pub(super) const EAGER: u64 = chunk::MAX_RECORDS as u64;

/// Events per batch: large enough to make the hand-over cheap, small enough
/// that the batches in flight stay a few MiB.
const BATCH: usize = 256;
pub(super) const IN_FLIGHT: usize = 8;

/// One parsed input event and its keys, ready to be chained and stored: what
/// the append's `Pending::add` needs of it, no more. The typed event is
/// dropped on the parser thread, which also hashes its content key and its
/// record's midstate.
pub(super) struct Incoming {
    /// Index of its input, and its line there.
    pub(super) file: usize,
    pub(super) line: u64,
    pub(super) id: Option<String>,
    pub(super) at: Micros,
    pub(super) kind: String,
    /// The target of a `ledger.voided`.
    pub(super) void: Option<u64>,
    pub(super) canonical: Vec<u8>,
    /// Its idempotency and content keys, and the midstate of its record's
    /// hash ([`canonical::record_heads`]).
    pub(super) keys: chunk::Keys,
}

/// The parser thread: read every input in order, parse its events and send
/// them in batches with their keys ([`ContentKeys`]), until the end
/// or a problem (sent last), or until the writing thread hangs up (it stopped
/// on a problem of its own).
///
/// Why the reading is here, not on the writing thread: that thread bounds the
/// import's writing phase, and this one has time to spare. Lines are parsed
/// straight from the reader's buffer.
pub(super) fn read_and_parse(
    inputs: Vec<Input<'_>>,
    parser: Box<dyn ParseLine>,
    tx: SyncSender<Sent>,
    names: &[String],
) {
    let mut out = Parsing {
        parser,
        keys: ContentKeys::default(),
        tx,
        file: 0,
        parsed: Vec::with_capacity(BATCH),
        taken: 0,
        stopped: false,
    };
    for (file, input) in inputs.into_iter().enumerate() {
        out.file = file;
        let before = input.first_line.saturating_sub(1);
        let read = input::read_events(input.reader, &mut |line, item| {
            out.take(line + before, item)
        });
        let problem = match read {
            Ok(Ok(())) => None,
            Ok(Err(bad)) => {
                let line = bad.line + before;
                Some(Error::invalid(origin(&names[file], line), bad.msg))
            }
            Err(_) if out.stopped => return,
            Err(e) => Some(e),
        };
        if out.send().is_err() {
            return;
        }
        if let Some(e) = problem {
            let _ = out.tx.send(Sent::Problem(e));
            return;
        }
    }
}

/// The parser thread's batch being filled, and where it goes.
struct Parsing {
    parser: Box<dyn ParseLine>,
    keys: ContentKeys,
    tx: SyncSender<Sent>,
    file: usize,
    parsed: Lines,
    /// Events parsed so far, every input together.
    taken: u64,
    /// A bad line was sent, or the writing thread hung up: read no further.
    stopped: bool,
}

impl Parsing {
    /// Parse one event; a bad one is sent at once, ending its batch, and
    /// stops the reading. The `Err` returned only stops `read_events`:
    /// [`read_and_parse`] sees `stopped` and reports nothing more.
    fn take(&mut self, line: u64, bytes: &[u8]) -> Result<()> {
        let p = match self.taken < EAGER {
            true => self.parser.whole(bytes),
            false => self.parser.screened(bytes),
        };
        self.taken += 1;
        let bad = p.is_err();
        self.parsed.push((line, p));
        if bad || self.parsed.len() >= BATCH {
            self.send()?;
        }
        if bad {
            self.stopped = true;
            return Err(parser_gone());
        }
        Ok(())
    }

    /// Hash the batch's keys and send it (if it has anything).
    fn send(&mut self) -> Result<()> {
        if self.parsed.is_empty() {
            return Ok(());
        }
        let lines = std::mem::replace(&mut self.parsed, Vec::with_capacity(BATCH));
        let batch = Parsed {
            file: self.file,
            keys: self.keys.of(&lines),
            lines,
        };
        if self.tx.send(Sent::Lines(batch)).is_err() {
            self.stopped = true;
            return Err(parser_gone());
        }
        Ok(())
    }
}

/// The content keys of a batch of events and the midstates of their records'
/// hashes, hashed together across BLAKE3's SIMD lanes ([`lanes`]) rather than
/// one event at a time, on the parser thread.
#[derive(Default)]
pub(super) struct ContentKeys {
    lanes: lanes::Lanes,
    hashes: Vec<[u8; 32]>,
    heads: Vec<Midstate>,
    scratch: Vec<u8>,
}

impl ContentKeys {
    pub(super) fn of(&mut self, lines: &Lines) -> Vec<([u8; 16], Midstate)> {
        let events = canonical_events(lines);
        self.lanes.hash(&events, &mut self.hashes);
        canonical::record_heads(&mut self.lanes, &events, &mut self.scratch, &mut self.heads);
        let keys = self.hashes.iter().map(chunk::content_key);
        keys.zip(self.heads.iter().copied()).collect()
    }
}

/// A batch as the chaining thread takes it: each parsed line with its
/// content key and record midstate, in order.
pub(super) fn incoming(parsed: Parsed, names: &[String]) -> Batch {
    let Parsed { file, lines, keys } = parsed;
    let mut keys = keys.into_iter();
    lines
        .into_iter()
        .map(|(line, p)| {
            let p = p.map_err(|r| refused(&names[file], line, r))?;
            // One key per parsed event, in order.
            let missing = || Error::Storage("a content key is missing".into());
            let (k, head) = keys.next().ok_or_else(missing)?;
            Ok(Incoming::new(file, line, p, (k, head)))
        })
        .collect()
}

pub(super) fn origin(name: &str, line: u64) -> Origin {
    Origin {
        file: Some(name.to_string()),
        line: Some(line),
        ..Origin::default()
    }
}

/// The error of a line refused as `r` says, at `line` of input `name`.
pub(super) fn refused(name: &str, line: u64, r: Refusal) -> Error {
    let origin = Origin {
        kind: r.kind,
        id: r.id,
        ..origin(name, line)
    };
    Error::invalid(origin, r.msg)
}

fn parser_gone() -> Error {
    Error::Storage("the append's parser thread stopped".into())
}

impl Incoming {
    fn new(file: usize, line: u64, parsed: Line, (content, head): ([u8; 16], Midstate)) -> Self {
        let idem = parsed
            .id
            .as_deref()
            .map(chunk::idem_of_id)
            .unwrap_or(content);
        Incoming {
            file,
            line,
            id: parsed.id,
            at: parsed.at,
            kind: parsed.kind,
            void: parsed.void,
            canonical: parsed.canonical,
            keys: chunk::Keys {
                idem,
                content,
                head,
            },
        }
    }
}
