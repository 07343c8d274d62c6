//! The parser thread of an append: inputs read and parsed in batches, with
//! their content keys and the midstates of their records' hashes.

use std::sync::mpsc::SyncSender;

use super::grammar::{Line, ParseLine, Refusal};
use super::lanes::Midstate;
use super::{canonical, chunk, lanes, Input};
use crate::error::{Error, Origin, Result, Stage, REFUSALS_SHOWN};
use crate::input;
use crate::time::Micros;

/// A batch's lines as the parser thread parsed them: `(line, event)`.
pub(super) type Lines = Vec<(u64, Line)>;

/// What the parser thread sends: a batch of an input's parsed lines, or the
/// refusal of the input, sent last.
pub(super) enum Sent {
    Lines(Parsed),
    Problem(Error),
}

/// A batch of one input's parsed lines, and the content key and record
/// midstate of each, in order.
pub(super) struct Parsed {
    pub(super) file: usize,
    pub(super) lines: Lines,
    pub(super) keys: Vec<([u8; 16], Midstate)>,
}

/// The canonical events of a batch's parsed lines, in order.
fn canonical_events(lines: &Lines) -> Vec<&[u8]> {
    lines.iter().map(|(_, p)| p.canonical.as_slice()).collect()
}

/// The events of an append whose payloads the parser thread decodes whole
/// (the first ones; the check fold decodes the others, see
/// [`ParseLine::screened`]): a small append with a bad payload is
/// refused as its line is read, before the check fold, at the cost of
/// decoding these few twice.
pub(super) const EAGER: u64 = chunk::MAX_RECORDS as u64;

/// Lines read past the first refused one at most: a run names the refusals
/// of an administrator's file whole, and one of a large import stops soon
/// after its first refusal rather than reading it all.
pub(super) const LOOK_AHEAD: u64 = 10_000;

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
/// them in batches with their keys ([`ContentKeys`]), until the end, or until
/// the writing thread hangs up (it stopped on a problem of its own).
///
/// A refused line stops the sending, not the reading: the lines after it are
/// parsed too, so that one run names every line refused, in input and line
/// order (up to [`REFUSALS_SHOWN`], and within [`LOOK_AHEAD`] lines of the
/// first), sent last as one problem ([`Error::several`]). A problem of an
/// input itself (an over-long line, an array's broken syntax) ends the
/// reading there. Rules that need the
/// ledger (names, schedules, results) are the check fold's: it runs only on
/// input whose every line reads.
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
        name: String::new(),
        parsed: Vec::with_capacity(BATCH),
        taken: 0,
        refused: Vec::new(),
        first_refused: None,
        stopped: false,
    };
    for (file, input) in inputs.into_iter().enumerate() {
        (out.file, out.name) = (file, names[file].clone());
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
            Err(_) if out.is_full() => None,
            Err(e) => Some(e),
        };
        let ended = problem.is_some() || out.is_full();
        // The lines before a problem of the input are checked before it.
        if out.send().is_err() {
            return;
        }
        match problem {
            // Among other refusals, it says that nothing after it was read.
            Some(e) if !out.refused.is_empty() => out.refused.push(stopped_at(e)),
            problem => out.refused.extend(problem),
        }
        if ended {
            break;
        }
    }
    if !out.refused.is_empty() {
        let more = out.is_full();
        out.refused.truncate(REFUSALS_SHOWN);
        let _ = out.tx.send(Sent::Problem(Error::several(
            out.refused,
            more,
            Stage::Reading,
        )));
    }
}

/// The parser thread's batch being filled, and where it goes.
struct Parsing {
    parser: Box<dyn ParseLine>,
    keys: ContentKeys,
    tx: SyncSender<Sent>,
    file: usize,
    /// The input's name, as messages give it.
    name: String,
    parsed: Lines,
    /// Events parsed so far, every input together.
    taken: u64,
    /// The refusals of the lines refused so far, in order: once there is
    /// one, nothing more is sent but them.
    refused: Vec<Error>,
    /// How many events had been read at the first refused line.
    first_refused: Option<u64>,
    /// The writing thread hung up: read no further, report nothing.
    stopped: bool,
}

impl Parsing {
    /// Parse one event: a parsed one joins the batch (sent when full), a
    /// refused one the refusals. The `Err` returned only stops
    /// `read_events`: [`read_and_parse`] sees why (`stopped`, or
    /// [`Parsing::is_full`]).
    fn take(&mut self, line: u64, bytes: &[u8]) -> Result<()> {
        // Once a line is refused nothing is written: the lines after it are
        // decoded whole, for every refusal a field of theirs makes.
        let p = match self.taken < EAGER || self.first_refused.is_some() {
            true => self.parser.whole(bytes),
            false => self.parser.screened(bytes),
        };
        self.taken += 1;
        match p {
            Err(r) => {
                // What comes before the first refused line is checked as
                // before it: an id given twice there is reported first.
                self.send()?;
                self.refused.push(refused(&self.name, line, r));
                self.first_refused.get_or_insert(self.taken);
            }
            Ok(p) if self.refused.is_empty() => self.parsed.push((line, p)),
            Ok(_) => {}
        }
        if self.parsed.len() >= BATCH {
            self.send()?;
        }
        match self.is_full() {
            true => Err(parser_gone()),
            false => Ok(()),
        }
    }

    /// Has the reading gone as far as a run reports: more lines refused
    /// than it names, or [`LOOK_AHEAD`] lines read past the first refused?
    fn is_full(&self) -> bool {
        let far = (self.first_refused).is_some_and(|first| self.taken - first >= LOOK_AHEAD);
        self.refused.len() > REFUSALS_SHOWN || far
    }

    /// Hash the batch's keys and send it (if it has anything, and no line
    /// was refused: the append fails anyway).
    fn send(&mut self) -> Result<()> {
        if self.parsed.is_empty() || !self.refused.is_empty() {
            self.parsed.clear();
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
pub(super) fn incoming(parsed: Parsed) -> Result<Vec<Incoming>> {
    let Parsed { file, lines, keys } = parsed;
    // One key per parsed event, in order.
    if keys.len() != lines.len() {
        return Err(Error::Internal("a content key is missing".into()));
    }
    let keyed = lines.into_iter().zip(keys);
    Ok(keyed
        .map(|((line, p), keys)| Incoming::new(file, line, p, keys))
        .collect())
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

/// Problem `e` of an input, which ended the reading, as a refusal among
/// others says it.
fn stopped_at(e: Error) -> Error {
    match e {
        Error::Invalid { origin, msg } => Error::Invalid {
            origin,
            msg: format!("{msg}; the reading stopped there"),
        },
        e => e,
    }
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
