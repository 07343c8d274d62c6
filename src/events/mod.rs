//! Events: the envelope, the payload toolkit, and the one parser.
//!
//! An event is one flat JSON object: `type`, `at`, an optional `id`, and the
//! payload fields of its type. [`LineParser`] turns a line into a
//! [`Screened`] event: the typed event plus its canonical bytes. Every event
//! enters the crate through it (one pass of serde_json's parser writes the
//! canonical bytes and notes the line's problems, `canon.rs`; the payload is
//! then decoded from those bytes), so the envelope rules hold everywhere:
//!
//! - `type` is one of the vocabulary's [`Vocabulary::TYPES`]; unknown types are rejected;
//! - unknown, missing or mistyped payload fields are rejected, naming the field;
//! - no JSON floating-point number appears anywhere (fractions are decimal strings);
//! - strings are at most [`MAX_STRING`] bytes.
//!
//! Events are a public contract: a field's meaning never changes; new fields are
//! optional and new behaviour comes as new types.
//!
//! The typed events themselves are the systems' payload structs, gathered by
//! the registry into one enum (`systems::Event`): this layer is handed that
//! [`Vocabulary`] as a type parameter (its parser, records and schemas are
//! generic in it) and names no system; `systems` gives the crate's aliases
//! (`systems::Record`, `systems::Screened`, `systems::LineParser`,
//! `systems::GRAMMAR`).
//!
//! Storage reads an append's lines and a stored event's header through the
//! [`EventGrammar`] it is lent (it never names an event type). An append's
//! parser thread uses [`LineParser::parse`] for its first lines (so a small
//! append's bad payload is refused as it is read) and [`LineParser::screen`]
//! for the rest: everything above but the payload of a [`deferred`] type,
//! which its check fold decodes anyway (the append keeps the order in which
//! problems are reported).
//!
//! The vocabulary documents itself: [`schema`] derives each type's JSON Schema
//! from its payload struct (schemars), and `laurel events` prints those
//! schemas and the text it renders from them.
//!
//! # Adding an event type
//!
//! Say `ns.thing_done`, in the system `ns`:
//!
//! 1. **The struct.** In `src/systems/ns/events.rs`, a struct `ThingDone`
//!    deriving `Deserialize` and `JsonSchema`, with `#[serde(deny_unknown_fields)]`,
//!    and the line `"thing_done" => ThingDone` in its `payload_table!` (which
//!    gives parsing, `TYPES` and the schema). Its `///` doc: a first paragraph
//!    of one line, the type's meaning (`laurel events` lists it); then one
//!    paragraph per rule no schema can express (scores even, ids unique, what
//!    must come first), which `laurel events ns.thing_done` prints as rules.
//! 2. **Each field** gets a `///` line: its rule, printed beside the field.
//!    An optional field is `Option<T>` with `#[serde(default)]` (it shows as
//!    not required); a nested struct derives `JsonSchema` too and its fields
//!    show as `list[].field`. An integer field's range is a [`Bounds`]
//!    constant beside it, checked by the system's `check` and given to the
//!    schema as `#[schemars(range(min = B.min, max = B.max))]`; a list's
//!    length as `#[schemars(length(max = N))]` with the constant `check` uses.
//!    Identifiers are [`Ident`], dates [`When`], places [`Place`].
//! 3. **Its example.** The first event of the type in a sample stream
//!    (`events/*.jsonl`) is its example; a type no sample holds has one in
//!    its system's `EXAMPLES` (`ledger.*`: [`ledger::EXAMPLES`]), following a
//!    whole sample file. `tests/it/events.rs` appends every type's example after
//!    its setup and validates every sample line against the schema.
//! 4. **Its check** in the system's `check`, and a corpus case per rule
//!    (`tests/corpus/systems/`), where `laurel check` is compared with
//!    `append` too.
//!
//! A new field of an existing type is optional (`#[serde(default)]`): events
//! are a public contract. Step 2 alone makes it show in `laurel events`.

mod canon;
pub mod key;
pub mod ledger;
pub mod near;
mod payload;
mod scan;
pub mod schema;
mod skip;
mod text;

pub(crate) use canon::key_shown;
pub(crate) use payload::names_from_strings;
pub(crate) use payload::payload;
pub(crate) use payload::payload_table;
pub(crate) use payload::Name as EnumName;
pub use payload::{ident_written, Bounds, Ident, Place, When};

use std::marker::PhantomData;

use serde::{de::DeserializeOwned, Deserialize};
use serde_json::Value;

use crate::input;
use crate::ledger::grammar::{self, Header, Line, ParseLine, Refusal};
use crate::time::{self, Micros};

/// Longest string accepted in any field, in bytes.
pub const MAX_STRING: usize = 4096;

pub use text::{
    closest, did_you_mean, did_you_mean_type, forbidden, forbidden_char, forbidden_message,
    invisible, joins, nearest, shows,
};

/// The typed events the event layer parses and decodes: every system's payload
/// types and `ledger.*`, as one enum. The registry's `systems::Event` is the
/// one vocabulary; this layer names no system, it is handed the vocabulary as
/// a type parameter.
pub trait Vocabulary: Sized {
    /// Every type, `ns.name`: the systems' in registry order, then `ledger.*`.
    const TYPES: &'static [&'static str];
    /// A `ledger.*` event as one of the vocabulary.
    fn ledger(e: ledger::Event) -> Self;
    /// The `ledger.*` event it is, if it is one.
    fn as_ledger(&self) -> Option<&ledger::Event>;
    /// The payload of a system's event type `ns.name`; `None` for an unknown type.
    fn payload(ns: &str, name: &str, input: impl PayloadInput) -> Result<Option<Self>, String>;
    /// The JSON Schema of a system's event type `ns.name`'s payload; `None`
    /// for an unknown type.
    fn schema(
        ns: &str,
        name: &str,
        generator: &mut schemars::SchemaGenerator,
    ) -> Option<schemars::Schema>;
}

/// An event as it is folded: its place in the log and in domain time, and its payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Record<E> {
    pub seq: u64,
    /// Domain time (`at`), microseconds UTC.
    pub at: Micros,
    /// When it was appended, microseconds UTC: the wall clock's, or the
    /// head's `recorded_at` when that is later (it never goes back).
    pub recorded_at: Micros,
    pub id: Option<String>,
    /// The `type` string, e.g. `mepbm.game_ended`.
    pub kind: String,
    pub event: E,
}

/// Parse one event object built as a `serde_json::Value` (the crate's tests
/// build events so): what [`LineParser::parse`] makes of its JSON text, but
/// for a key given twice in that text, which the `Value` has already dropped.
#[cfg(test)]
pub(crate) fn parse_event<E: Vocabulary>(value: Value) -> Result<Screened<E>, String> {
    let c = canon::Reader::default().read(&value, 256);
    let c = c.map_err(|(e, _)| e.to_string())?;
    screened(c, false)
}

/// The canonical bytes of a JSON value: what an event with its content is
/// stored and hashed as (read as [`LineParser`] reads a line). A float in
/// it is written as `0`: an event holding one is refused.
pub fn to_canonical(value: &Value) -> Vec<u8> {
    match canon::Reader::default().read(value, 256) {
        Ok(c) => c.bytes,
        // A `Value` is a JSON value: it reads, whatever it holds.
        Err((e, _)) => unreachable!("a serde_json::Value did not read: {e}"),
    }
}

/// A validated event before it is given a seq: envelope, values and
/// canonical form checked, and its typed payload decoded (always, but by
/// [`LineParser::screen`] only when the append needs it there).
#[derive(Debug, Clone, PartialEq)]
pub struct Screened<E> {
    pub id: Option<String>,
    pub at: Micros,
    pub kind: String,
    /// `None`: a payload left for the append's check fold, which decodes it
    /// anyway (see [`deferred`]).
    pub event: Option<E>,
    /// The event's canonical form (JCS): what is stored and hashed.
    pub canonical: Vec<u8>,
}

/// Is the payload of a `kind` event decoded by the append's check fold
/// rather than on its parser thread? Every known type but `ledger.*`: the
/// append needs a void's target before the fold, and the fold skips voided
/// records (so the append checks the payload of a record voided in its own
/// append itself).
pub fn deferred<E: Vocabulary>(kind: &str) -> bool {
    !kind.starts_with("ledger.") && E::TYPES.contains(&kind)
}

/// What an event's reader refuses in a JSON text that is not an event (a
/// rules file), with the event's words: the first key given twice in one
/// object, as a path (`valar.base`: such a text's meaning depends on the
/// reader, serde_json's `Value` keeps the last), and the message of the
/// first value no event may hold (a floating-point number, an integer
/// beyond the exact range, a string too long or holding a forbidden
/// character). Both `None` for text that is not JSON: the caller's parse
/// words that.
pub fn refused_in(json: &[u8]) -> (Option<String>, Option<String>) {
    match read_line(&mut canon::Reader::default(), json) {
        Ok(c) => (c.duplicate, c.refused),
        Err(_) => (None, None),
    }
}

/// Parse one input line: [`LineParser::parse`].
pub fn parse_line<E: Vocabulary>(line: &[u8]) -> Result<Screened<E>, LineError> {
    LineParser::default().parse(line)
}

/// Why one input line was refused.
#[derive(Debug)]
pub enum LineError {
    /// Not JSON at all (the input reader words the message), and the
    /// member or element it stopped in (``field `players[2]` ``), if any.
    Json(serde_json::Error, Option<String>),
    /// JSON, but not a valid event: the message names the field and the rule.
    Event(String),
}

/// Parses input lines into events.
///
/// One pass of serde_json's parser gives a line's canonical bytes, its
/// envelope and the first problem of its values (`canon.rs`); the typed
/// payload is then decoded from the canonical bytes, as the fold decodes a
/// stored event. Problems are reported in this order: the line is not JSON;
/// a key given twice; a value no event may hold; not an object; the
/// envelope (`type`, `at`, `id`); the payload. Within the first three, the
/// first in reading order; a payload's first problem in key order (it is
/// decoded from the canonical bytes, keys sorted).
pub struct LineParser<E> {
    reader: canon::Reader,
    vocabulary: PhantomData<fn() -> E>,
}

impl<E> Default for LineParser<E> {
    fn default() -> Self {
        LineParser {
            reader: canon::Reader::default(),
            vocabulary: PhantomData,
        }
    }
}

impl<E: Vocabulary> LineParser<E> {
    /// Parse one event from a JSON Lines line (or an array element's bytes).
    pub fn parse(&mut self, line: &[u8]) -> Result<Screened<E>, LineError> {
        let c = read_line(&mut self.reader, line).map_err(|(e, p)| LineError::Json(e, p))?;
        screened(c, false).map_err(LineError::Event)
    }

    /// [`LineParser::parse`] up to the payload: a line whose type is
    /// [`deferred`] has its envelope, values and canonical form checked here
    /// and its payload left undecoded. A line [`LineParser::parse`] refuses
    /// either is refused here with the same message, or passes with its
    /// payload deferred, and then decoding its canonical bytes
    /// ([`LineParser::parse`] again) gives that message.
    pub fn screen(&mut self, line: &[u8]) -> Result<Screened<E>, LineError> {
        let c = read_line(&mut self.reader, line).map_err(|(e, p)| LineError::Json(e, p))?;
        screened(c, true).map_err(LineError::Event)
    }

    /// The canonical bytes of one line without the typed parse (the bench's floor).
    pub fn canonical(&mut self, line: &[u8]) -> Result<Vec<u8>, serde_json::Error> {
        read_line(&mut self.reader, line)
            .map(|c| c.bytes)
            .map_err(|(e, _)| e)
    }
}

/// serde_json's error and the member or element it stopped in.
type Broken = (serde_json::Error, Option<String>);

/// One line's value, canonical, with nothing after it.
/// A line is checked to be UTF-8 once, whole, so the parser need not check
/// each string; one that is not is read by the byte parser, whose error
/// names the place.
fn read_line(reader: &mut canon::Reader, line: &[u8]) -> Result<canon::Canonical, Broken> {
    fn whole<'de, R: serde_json::de::Read<'de>>(
        reader: &mut canon::Reader,
        mut de: serde_json::Deserializer<R>,
        size: usize,
    ) -> Result<canon::Canonical, Broken> {
        let c = reader.read(&mut de, size)?;
        de.end().map(|()| c).map_err(|e| (e, None))
    }
    match std::str::from_utf8(line) {
        Ok(text) => whole(reader, serde_json::Deserializer::from_str(text), line.len()),
        Err(_) => whole(
            reader,
            serde_json::Deserializer::from_slice(line),
            line.len(),
        ),
    }
}

/// What a line of `laurel export` (a record: its event, hash, prev,
/// recorded_at and seq) is told when given as an event.
const EXPORTED: &str = "missing field `type`: this is a record of `laurel export`, whose \
    event is its `event` member; an append takes events (`jq -c .event FILE` gives them; \
    appended anew, they get a new `recorded_at`, so the head differs from the exported one's)";

/// The event of a value read canonical: its problems in the order
/// [`LineParser`] gives; `defer`: a [`deferred`] type's payload is left
/// undecoded.
fn screened<E: Vocabulary>(c: canon::Canonical, defer: bool) -> Result<Screened<E>, String> {
    if let Some(path) = c.duplicate {
        return Err(format!("`{path}` appears twice: give each field once"));
    }
    if let Some(msg) = c.refused {
        return Err(msg);
    }
    if !c.object {
        return Err("an event must be a JSON object".into());
    }
    let env = c.envelope;
    let kind = match text_field("type", env.kind)? {
        Some(kind) => kind,
        // Keys sorted: `event` comes first, then `hash`, `prev`, ...
        None if c.bytes.starts_with(br#"{"event":{"#)
            && c.bytes.windows(8).any(|w| w == br#","hash":"#) =>
        {
            return Err(EXPORTED.into())
        }
        None => return Err("missing field `type`".into()),
    };
    // The type first: the fields an event needs depend on it.
    if !E::TYPES.contains(&kind.as_str()) {
        return Err(unknown_type::<E>(&kind));
    }
    let at_text = text_field("at", env.at)?.ok_or("missing field `at`")?;
    let at = time::parse_input(&at_text).ok_or_else(|| {
        format!("field `at`: {at_text:?} is not a date (YYYY-MM-DD) or an RFC 3339 timestamp to the microsecond, in the years 0000 to 9999 (UTC), without a leap second{}", time::why_not_a_time(&at_text))
    })?;
    let id = match env.id {
        Some(canon::Field::Null) | None => None,
        other => text_field("id", other)?,
    };
    if let Some(id) = &id {
        text::unpadded(|| "field `id`:".into(), id)?;
    }
    let event = match defer && deferred::<E>(&kind) {
        true => None,
        false => Some(dispatch(&kind, Input(&c.bytes))?.ok_or_else(|| unknown_type::<E>(&kind))?),
    };
    Ok(Screened {
        id,
        at,
        kind,
        event,
        canonical: c.bytes,
    })
}

/// An envelope field's text; `None` when it is absent.
fn text_field(key: &str, field: Option<canon::Field>) -> Result<Option<String>, String> {
    match field {
        None => Ok(None),
        Some(canon::Field::Text(s)) => Ok(Some(s)),
        Some(canon::Field::Null) => Err(format!("field `{key}`: expected a string, found null")),
        Some(canon::Field::Other(what)) => {
            Err(format!("field `{key}`: expected a string, found {what}"))
        }
    }
}

/// The event layer as storage sees it ([`grammar::Grammar`]), lent to the
/// ledger's append and `verify`: lines read by a [`LineParser`], headers by
/// [`stored_header`].
pub struct EventGrammar<E>(PhantomData<fn() -> E>);

impl<E> EventGrammar<E> {
    /// The grammar of vocabulary `E` (a `const`, so it can be lent as a
    /// `'static` reference).
    pub const fn new() -> Self {
        EventGrammar(PhantomData)
    }
}

impl<E> Default for EventGrammar<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Vocabulary + 'static> grammar::Grammar for EventGrammar<E> {
    fn parser(&self) -> Box<dyn ParseLine> {
        Box::<LineParser<E>>::default()
    }

    fn header<'a>(&self, stored: &'a [u8]) -> Result<Header<'a>, String> {
        stored_header(stored)
    }

    fn names(&self, stored: &[u8]) -> (Option<String>, Option<String>) {
        named::<E>(stored)
    }
}

impl<E: Vocabulary> ParseLine for LineParser<E> {
    fn whole(&mut self, line: &[u8]) -> Result<Line, Refusal> {
        let parsed = self.parse(line);
        parsed
            .map(Screened::line)
            .map_err(|e| refusal::<E>(line, e))
    }

    fn screened(&mut self, line: &[u8]) -> Result<Line, Refusal> {
        let screened = self.screen(line);
        screened
            .map(Screened::line)
            .map_err(|e| refusal::<E>(line, e))
    }
}

/// The refusal of `line` for `e`: its message, and the `type` and `id` the
/// line gives when they can be read ([`named`]). The message then leaves
/// out the type it would start with (a payload's `kind: field …`): the
/// append names it beside the file and line.
fn refusal<E: Vocabulary>(line: &[u8], e: LineError) -> Refusal {
    let (kind, id) = named::<E>(line);
    let msg = e.message();
    let msg = match kind.as_deref().and_then(|k| msg.strip_prefix(k)) {
        Some(rest) if rest.starts_with(": ") => rest[2..].to_string(),
        _ => msg,
    };
    Refusal { msg, kind, id }
}

/// The `type` (one of `E`'s: an unknown type is the message's) and the
/// non-empty string `id` of an event's bytes, each `None` where the bytes do
/// not give one: read again, leniently, only for a refusal's message.
fn named<E: Vocabulary>(bytes: &[u8]) -> (Option<String>, Option<String>) {
    #[derive(Deserialize)]
    struct Named {
        #[serde(rename = "type")]
        kind: Option<Value>,
        id: Option<Value>,
    }
    let Ok(n) = serde_json::from_slice::<Named>(bytes) else {
        return (None, None);
    };
    let text = |v: Option<Value>| match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    };
    let kind = text(n.kind).filter(|k| E::TYPES.contains(&k.as_str()));
    (kind, text(n.id))
}

impl<E: Vocabulary> Screened<E> {
    /// What storage keeps of it: the envelope, a void's target and the
    /// canonical bytes (a `ledger.*` payload is never deferred, so a void's
    /// target is always read).
    fn line(self) -> Line {
        let void = match self.event.as_ref().and_then(E::as_ledger) {
            Some(ledger::Event::Voided(v)) => Some(v.target),
            _ => None,
        };
        Line {
            id: self.id,
            at: self.at,
            kind: self.kind,
            void,
            canonical: self.canonical,
        }
    }
}

impl LineError {
    /// The message a refused line is reported with.
    pub fn message(self) -> String {
        match self {
            LineError::Json(e, place) => input::invalid_json(&e, place.as_deref()),
            LineError::Event(m) => m,
        }
    }
}

/// Decode a stored event (its canonical bytes, checked at append) into a
/// [`Record`]; `at` comes from the record's header. Its `type` is found from
/// its end ([`guess_stored_kind`]; bytes where it is not are not laid out as
/// laurel stores events), then one serde pass reads the payload and keeps
/// `type` and `id` on the way ([`decode_stored_guessed`]).
pub fn decode_stored<E: Vocabulary>(
    bytes: &[u8],
    seq: u64,
    at: Micros,
    recorded_at: Micros,
) -> Result<Record<E>, String> {
    let kind = guess_stored_kind(bytes).ok_or(NOT_CANONICAL)?;
    decode_stored_guessed(bytes, kind, seq, at, recorded_at)
}

/// The `type` of a stored event, guessed from its end: canonical bytes sort
/// the keys, so `type` is mostly the last or near it. The last `"type":"` that
/// follows `{` or `,`, with a string value without escapes, and after it only
/// members and the closing `}` (checked by `scan`): in a well-formed object
/// that is the top-level `type` (a nested one has a second closing bracket
/// after it, and is passed over; inside a string every `"` is escaped). A
/// malformed object fails to decode whatever is guessed
/// ([`decode_stored_guessed`]).
pub fn guess_stored_kind(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    let mut before = bytes.len();
    while let Some(at) = bytes[..before]
        .windows(TYPE_KEY.len())
        .rposition(|w| w == TYPE_KEY)
    {
        before = at + TYPE_KEY.len() - 1;
        if let Some(kind) = kind_at(bytes, at) {
            return Some(kind);
        }
    }
    None
}

const TYPE_KEY: &[u8] = b"\"type\":\"";

/// The `type` whose key starts at `at`, if it is the top-level one.
fn kind_at(bytes: &[u8], at: usize) -> Option<std::ops::Range<usize>> {
    if !matches!(bytes.get(at.checked_sub(1)?), Some(b'{' | b',')) {
        return None;
    }
    let start = at + TYPE_KEY.len();
    let len = bytes[start..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\')?;
    let end = start + len;
    (bytes[end] == b'"' && scan::members_to_end(&bytes[end + 1..])).then_some(start..end)
}

/// Decode a stored event whose `type` [`guess_stored_kind`] found at `kind`,
/// in one serde pass that keeps `type` and `id` on the way. A record whose
/// `type` is not the guess (only a malformed one could be), or that gives
/// `type` or `id` twice, is not laid out as laurel stores events: the fold
/// routed it by the guess.
pub fn decode_stored_guessed<E: Vocabulary>(
    bytes: &[u8],
    kind: std::ops::Range<usize>,
    seq: u64,
    at: Micros,
    recorded_at: Micros,
) -> Result<Record<E>, String> {
    let guess = std::str::from_utf8(&bytes[kind]).map_err(|_| NOT_CANONICAL)?;
    let mut cap = skip::Capture::default();
    let event = dispatch(guess, Capturing(bytes, &mut cap))?
        .ok_or_else(|| format!("unknown event type {guess:?}"))?;
    let kind = match (cap.kind, cap.twice) {
        (Some(kind), false) => kind,
        _ => return Err(NOT_CANONICAL.into()),
    };
    if kind != guess {
        return Err(format!("its type {kind:?} is not where it was read"));
    }
    Ok(Record {
        seq,
        at,
        recorded_at,
        id: cap.id.flatten(),
        kind,
        event,
    })
}

/// How a stored event is laid out: what [`stored_header`] and the decode
/// refuse otherwise.
pub const NOT_CANONICAL: &str =
    "not laid out as laurel stores events (one object, keys sorted, each once, no whitespace)";

/// Read only the envelope of a stored event (`type`, `at`, `id`, a void's
/// `target`): what `verify` compares with the record's header, once per
/// record. Events are stored canonical (keys sorted, each once, no
/// whitespace), so `type` is read from the end ([`guess_stored_kind`]) and the
/// members from the front up to `id` (up to `target` for a void), and the rest
/// of the payload is not read. What it reads must be laid out so (keys rising,
/// each once, no whitespace), or the event is refused: laurel wrote it
/// otherwise. An `id` after a key above it is not seen (the read stopped
/// there); such bytes are not an event laurel wrote either, and a fold that
/// decodes them refuses them.
pub fn stored_header(bytes: &[u8]) -> Result<Header<'_>, String> {
    let kind = guess_stored_kind(bytes).ok_or(NOT_CANONICAL)?;
    let void = &bytes[kind] == b"ledger.voided";
    let (mut at, mut id, mut target) = (None, None, None);
    let last: &[u8] = if void { b"target" } else { b"id" };
    scan::sorted_members_through(bytes, last, |k, v| match k.raw {
        b"at" => at = Some(v),
        b"id" => id = Some(v),
        b"target" => target = Some(v),
        _ => {}
    })
    .ok_or(NOT_CANONICAL)?;
    let at_text =
        scan::str_at(at.ok_or("missing field `at`")?).ok_or("field `at`: not a string")?;
    let at =
        time::parse(&at_text).ok_or_else(|| format!("field `at`: {at_text:?} is not a date"))?;
    let id = match id {
        None | Some(b"null") => None,
        Some(v) => Some(scan::str_at(v).ok_or("field `id`: not a string")?),
    };
    let void_target = match (void, target) {
        (false, _) => None,
        (true, Some(t)) => {
            let seq = std::str::from_utf8(t).ok().and_then(|t| t.parse().ok());
            Some(seq.ok_or("field `target`: not a seq")?)
        }
        (true, None) => return Err("ledger.voided: missing field `target`".into()),
    };
    Ok(Header {
        at,
        id,
        void_target,
    })
}

/// The `type` of a stored event, skipping everything else: found from its
/// end ([`guess_stored_kind`]).
pub fn stored_kind(bytes: &[u8]) -> Result<&str, String> {
    let kind = guess_stored_kind(bytes).ok_or(NOT_CANONICAL)?;
    std::str::from_utf8(&bytes[kind]).map_err(|_| NOT_CANONICAL.into())
}

/// The payload parser of `kind`'s namespace; `None` for an unknown type.
fn dispatch<E: Vocabulary>(kind: &str, input: impl PayloadInput) -> Result<Option<E>, String> {
    let (ns, name) = kind.split_once('.').unwrap_or(("", kind));
    match ns {
        "ledger" => ledger::parse(name, input).map(|e| e.map(E::ledger)),
        _ => E::payload(ns, name, input),
    }
}

/// Where a payload is deserialised from: an input event's canonical bytes
/// (with field paths in errors) or a stored event's.
pub trait PayloadInput {
    fn payload<T: DeserializeOwned>(self, kind: &str) -> Result<T, String>;
}

/// An input event's canonical bytes, decoded with the path of the field a
/// message is about.
struct Input<'a>(&'a [u8]);

impl PayloadInput for Input<'_> {
    fn payload<T: DeserializeOwned>(self, kind: &str) -> Result<T, String> {
        let mut de = serde_json::Deserializer::from_slice(self.0);
        payload(kind, skip::SkipEnvelope(&mut de, None))
    }
}

/// A stored event's canonical bytes, read to the end, keeping the envelope's
/// `type` and `id` on the way (the decode of [`decode_stored_guessed`]).
struct Capturing<'a, 'c>(&'a [u8], &'c mut skip::Capture);

impl PayloadInput for Capturing<'_, '_> {
    /// Stored bytes are UTF-8 (canonical JSON): checked once, whole, so the
    /// parser need not check each string; bytes that are not take the byte
    /// parser, which checks the strings it reads and names the first it
    /// refuses.
    fn payload<T: DeserializeOwned>(self, kind: &str) -> Result<T, String> {
        let t = match std::str::from_utf8(self.0) {
            Ok(text) => capture(&mut serde_json::Deserializer::from_str(text), self.1),
            Err(_) => capture(&mut serde_json::Deserializer::from_slice(self.0), self.1),
        };
        t.map_err(|e| format!("{kind}: {e}"))
    }
}

/// `T` read from `de` to the end, keeping the envelope's `type` and `id` in `cap`.
fn capture<'de, R: serde_json::de::Read<'de>, T: DeserializeOwned>(
    de: &mut serde_json::Deserializer<R>,
    cap: &mut skip::Capture,
) -> serde_json::Result<T> {
    let t = T::deserialize(skip::SkipEnvelope(&mut *de, Some(cap)))?;
    de.end().map(|()| t)
}

/// The message for an event of type `kind`, which the vocabulary lacks: the
/// nearest type, if one is near, and where to find them all.
fn unknown_type<E: Vocabulary>(kind: &str) -> String {
    let hint = text::did_you_mean_type(kind, E::TYPES.iter().copied());
    format!("unknown event type {kind:?}{hint} (`laurel events` lists every type)")
}

#[cfg(test)]
mod tests;
