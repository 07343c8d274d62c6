//! The typed event vocabulary and its one parser.
//!
//! An event is one flat JSON object: `type`, `at`, an optional `id`, and the
//! payload fields of its type. [`parse_event`] turns a parsed JSON value into a
//! [`Parsed`] event: the typed [`Event`] plus its canonical bytes. That is the only
//! way events enter the crate, so the envelope rules hold everywhere:
//!
//! - `type` is one of [`TYPES`]; unknown types are rejected;
//! - unknown, missing or mistyped payload fields are rejected, naming the field;
//! - no JSON floating-point number appears anywhere (fractions are decimal strings);
//! - strings are at most [`MAX_STRING`] bytes.
//!
//! Events are a public contract: a field's meaning never changes; new fields are
//! optional and new behaviour comes as new types.
//!
//! An append's parser thread uses [`LineParser::screen`]: everything above but
//! the payload of a [`deferred`] type, which its check fold decodes (about 30% of
//! the parser thread's CPU was decoding payloads that the fold decoded again;
//! `ledger::append` keeps the order in which problems are reported).

pub mod cards;
pub mod cfr;
pub mod diplomacy;
mod direct;
mod dupkeys;
pub mod ledger;
pub mod mepbm;
pub mod sbr;
mod scan;

use serde::{de::DeserializeOwned, Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::time::{self, Micros};

/// Longest string accepted in any field, in bytes.
pub const MAX_STRING: usize = 4096;

/// A character no event string may hold: the C0 and C1 controls (a newline,
/// ESC, NUL...) and the bidirectional overrides, which let a name rewrite the
/// terminal or the order of what is shown around it.
pub fn forbidden_char(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        c.is_control()
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
            || ('\u{202A}'..='\u{202E}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    })
}

/// The message for a string at `what` holding [`forbidden_char`] `c`.
fn forbidden_message(what: &str, c: char) -> String {
    format!(
        "{what}: holds the control character U+{:04X}; names and text must be printable",
        c as u32
    )
}

/// Every event type laurel accepts.
pub const TYPES: &[&str] = &[
    "mepbm.rating_seeded",
    "mepbm.game_started",
    "mepbm.nation_taken_over",
    "mepbm.allegiance_changed",
    "mepbm.game_ended",
    "mepbm.vote_cast",
    "mepbm.grudge_team_registered",
    "mepbm.grudge_roster_changed",
    "mepbm.monthly_tick",
    "cfr.series_defined",
    "cfr.event_completed",
    "cards.tournament_created",
    "cards.round_scheduled",
    "cards.match_result",
    "diplomacy.game_ended",
    "sbr.tournament_created",
    "sbr.game_played",
    "ledger.voided",
    "ledger.rules_changed",
];

/// A typed event, by namespace.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Mepbm(mepbm::Event),
    Cfr(cfr::Event),
    Cards(cards::Event),
    Diplomacy(diplomacy::Event),
    Sbr(sbr::Event),
    Ledger(ledger::Event),
}

/// An event as it is folded: its place in the log and in domain time, and its payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub seq: u64,
    /// Domain time (`at`), microseconds UTC.
    pub at: Micros,
    /// Wall clock at append, microseconds UTC.
    pub recorded_at: Micros,
    pub id: Option<String>,
    /// The `type` string, e.g. `mepbm.game_ended`.
    pub kind: String,
    pub event: Event,
}

/// A validated event before it is given a seq.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub id: Option<String>,
    pub at: Micros,
    pub kind: String,
    pub event: Event,
    /// The event's canonical form (JCS): what is stored and hashed.
    pub canonical: Vec<u8>,
}

/// Parse one event object. The error message names the field and the rule.
pub fn parse_event(value: Value) -> Result<Parsed, String> {
    check_values(&value, "")?;
    let canonical = crate::ledger::canonical::to_vec(&value);
    let (id, at, kind, event) = typed(value)?;
    Ok(Parsed {
        id,
        at,
        kind,
        event,
        canonical,
    })
}

/// An input event as the append's parser thread leaves it: envelope, values
/// and canonical form checked, and its typed payload decoded only when the
/// append needs it there (see [`LineParser::screen`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Screened {
    pub id: Option<String>,
    pub at: Micros,
    pub kind: String,
    /// `None`: a payload left for the append's check fold, which decodes it
    /// anyway (see [`deferred`]).
    pub event: Option<Event>,
    pub canonical: Vec<u8>,
}

impl From<Parsed> for Screened {
    fn from(p: Parsed) -> Self {
        Screened {
            id: p.id,
            at: p.at,
            kind: p.kind,
            event: Some(p.event),
            canonical: p.canonical,
        }
    }
}

/// Is the payload of a `kind` event decoded by the append's check fold
/// rather than on its parser thread? Every known type but `ledger.*`: the
/// append needs a void's target before the fold, and the fold skips voided
/// records (so `ledger::append` checks the payload of a record voided in its
/// own append itself).
pub fn deferred(kind: &str) -> bool {
    !kind.starts_with("ledger.") && TYPES.contains(&kind)
}

/// Parse one input line through `serde_json::Value` and [`parse_event`],
/// refusing a key given twice in one object (which `Value` would keep the
/// last of).
pub fn parse_line(line: &[u8]) -> Result<Parsed, LineError> {
    let value: Value = serde_json::from_slice(line).map_err(LineError::Json)?;
    if let Some(key) = dupkeys::first_duplicate(line) {
        let msg = format!("`{key}` appears twice: give each field once");
        return Err(LineError::Event(msg));
    }
    parse_event(value).map_err(LineError::Event)
}

/// Why one input line was refused.
#[derive(Debug)]
pub enum LineError {
    /// Not JSON at all (the input reader words the message).
    Json(serde_json::Error),
    /// JSON, but not a valid event: the message of [`parse_event`].
    Event(String),
}

/// Parses input lines into events, reusing scratch space between lines.
///
/// The fast path goes from the line's bytes straight to the canonical bytes and
/// then to the typed event (as the fold decodes stored events), without a
/// `serde_json::Value`. Anything it does not handle exactly, valid or not (see
/// `scan`), goes through `serde_json::Value` and [`parse_event`]: so results and
/// error messages are those of [`parse_event`] either way.
#[derive(Default)]
pub struct LineParser {
    canon: scan::Canon,
}

impl LineParser {
    /// Parse one event from a JSON Lines line (or an array element's bytes).
    pub fn parse(&mut self, line: &[u8]) -> Result<Parsed, LineError> {
        if let Some(p) = self.fast(line) {
            return Ok(p);
        }
        self.slow(line)
    }

    /// [`LineParser::parse`] up to the payload: a line whose type is
    /// [`deferred`] has its envelope, values and canonical form checked here
    /// and its payload left undecoded. A line [`LineParser::parse`] refuses
    /// either is refused here with the same message, or passes with its
    /// payload deferred, and then decoding its canonical bytes
    /// ([`LineParser::parse`] again) gives that message.
    pub fn screen(&mut self, line: &[u8]) -> Result<Screened, LineError> {
        if let Some(s) = self.fast_envelope(line) {
            if deferred(&s.kind) {
                return Ok(s);
            }
            if let Some(event) = fast_payload(&s.kind, &s.canonical) {
                let event = Some(event);
                return Ok(Screened { event, ..s });
            }
        }
        self.slow(line).map(Screened::from)
    }

    fn slow(&mut self, line: &[u8]) -> Result<Parsed, LineError> {
        parse_line(line)
    }

    /// The canonical bytes of one line without the typed parse (the bench's floor).
    pub fn canonical(&mut self, line: &[u8]) -> Result<Vec<u8>, serde_json::Error> {
        let mut out = Vec::with_capacity(line.len());
        if self.canon.object(line, &mut out).is_some() {
            return Ok(out);
        }
        let value: Value = serde_json::from_slice(line)?;
        Ok(crate::ledger::canonical::to_vec(&value))
    }

    fn fast(&mut self, line: &[u8]) -> Option<Parsed> {
        let s = self.fast_envelope(line)?;
        let event = fast_payload(&s.kind, &s.canonical)?;
        Some(Parsed {
            id: s.id,
            at: s.at,
            kind: s.kind,
            event,
            canonical: s.canonical,
        })
    }

    /// The fast path's canonical bytes and envelope (`event` left `None`), or
    /// `None` for the slow path.
    fn fast_envelope(&mut self, line: &[u8]) -> Option<Screened> {
        let mut canonical = Vec::with_capacity(line.len());
        let env = self.canon.object(line, &mut canonical)?;
        let text = |r: std::ops::Range<usize>| scan::string_at(&canonical[r]);
        let kind = text(env.kind?)?;
        // Borrowed, not copied into a `String` first: in one profile of a
        // 1M-event import (`perf`, 299 Hz) the parser thread's samples in
        // `fast_envelope` itself went from 51 to 22.
        let at = time::parse(&scan::str_at(&canonical[env.at?])?)?;
        let id = match env.id {
            Some(r) if &canonical[r.clone()] != b"null" => Some(text(r)?),
            _ => None,
        };
        if id.as_deref() == Some("") {
            return None;
        }
        Some(Screened {
            id,
            at,
            kind,
            event: None,
            canonical,
        })
    }
}

/// The typed payload of canonical bytes whose envelope is checked, or `None`
/// for the slow path.
fn fast_payload(kind: &str, canonical: &[u8]) -> Option<Event> {
    match direct::decode(kind, canonical) {
        Some((_, event)) => Some(event),
        None => dispatch(kind, Stored(canonical)).ok()?,
    }
}

/// Decode a stored event (already checked at append) into a [`Record`].
pub fn decode_stored(bytes: &[u8], seq: u64, recorded_at: Micros) -> Result<Record, String> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let (id, at, kind, event) = typed(value)?;
    Ok(Record {
        seq,
        at,
        recorded_at,
        id,
        kind,
        event,
    })
}

/// [`decode_stored`] for the fold's hot path: `at` comes from the record's
/// header, and the payload is decoded straight from the bytes (no
/// intermediate `serde_json::Value`): by `direct` when it can (the type
/// [`guess_stored_kind`] finds is checked there), else by serde, skipping the
/// envelope fields.
pub fn decode_stored_fast(
    bytes: &[u8],
    seq: u64,
    at: Micros,
    recorded_at: Micros,
) -> Result<Record, String> {
    let direct = guess_stored_kind(bytes).and_then(|k| {
        let kind = std::str::from_utf8(&bytes[k]).ok()?;
        direct_record(kind, bytes, seq, at, recorded_at)
    });
    direct.map_or_else(|| decode_stored_serde(bytes, seq, at, recorded_at), Ok)
}

/// The record `direct` decodes, if it does (see its module docs).
fn direct_record(
    kind: &str,
    bytes: &[u8],
    seq: u64,
    at: Micros,
    recorded_at: Micros,
) -> Option<Record> {
    let (id, event) = direct::decode(kind, bytes)?;
    Some(Record {
        seq,
        at,
        recorded_at,
        id,
        kind: kind.to_owned(),
        event,
    })
}

/// [`decode_stored_fast`] by serde alone: the reference every faster decode
/// agrees with (result or message).
fn decode_stored_serde(
    bytes: &[u8],
    seq: u64,
    at: Micros,
    recorded_at: Micros,
) -> Result<Record, String> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(default, borrow)]
        id: Option<std::borrow::Cow<'a, str>>,
    }
    let env: Envelope = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let event = stored_payload(&env.kind, bytes)?;
    Ok(Record {
        seq,
        at,
        recorded_at,
        id: env.id.map(|c| c.into_owned()),
        kind: env.kind.into_owned(),
        event,
    })
}

/// Where a stored event's `type` and `id` strings sit in its bytes (between the
/// quotes), found by [`stored_envelope`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEnvelope {
    pub kind: std::ops::Range<usize>,
    pub id: Option<std::ops::Range<usize>>,
}

/// The envelope of a stored event by a byte scan (`scan`), without serde: the
/// parallel fold reads the `type` on its reading thread to route the record,
/// and its worker then decodes only the payload ([`decode_stored_with`]).
///
/// `None` unless the bytes are plain: one well-formed object, no escaped key,
/// exactly one `type` (a string without escapes, valid UTF-8) and at most one
/// `id` (`null` or such a string). Then serde_json reads the same `type` and
/// `id`; anything else goes the serde way ([`decode_stored_fast`]).
pub fn stored_envelope(bytes: &[u8]) -> Option<StoredEnvelope> {
    let (mut kind, mut id, mut plain) = (None, None, true);
    scan::each_member(bytes, |k, v| {
        let slot = match k.raw {
            _ if k.escaped => {
                plain = false;
                return;
            }
            b"type" => &mut kind,
            b"id" => &mut id,
            _ => return,
        };
        plain &= slot.replace(v).is_none();
    })?;
    let span = |v: &[u8]| -> Option<std::ops::Range<usize>> {
        let inner = v.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        std::str::from_utf8(inner).ok()?;
        if inner.contains(&b'\\') {
            return None;
        }
        let start = inner.as_ptr() as usize - bytes.as_ptr() as usize;
        Some(start..start + inner.len())
    };
    let kind = span(kind?)?;
    let id = match id {
        None | Some(b"null") => None,
        Some(v) => Some(span(v)?),
    };
    plain.then_some(StoredEnvelope { kind, id })
}

/// [`decode_stored_fast`] given the envelope [`stored_envelope`] found: one
/// serde pass over the payload instead of two. The same record, or, on any
/// error, exactly [`decode_stored_fast`]'s error (it runs again for the message).
pub fn decode_stored_with(
    bytes: &[u8],
    env: &StoredEnvelope,
    seq: u64,
    at: Micros,
    recorded_at: Micros,
) -> Result<Record, String> {
    // `stored_envelope` checked that both are UTF-8.
    let text = |r: &std::ops::Range<usize>| std::str::from_utf8(&bytes[r.clone()]).ok();
    let (Some(kind), id) = (text(&env.kind), env.id.as_ref().map(text)) else {
        return decode_stored_serde(bytes, seq, at, recorded_at);
    };
    if let Some(rec) = direct_record(kind, bytes, seq, at, recorded_at) {
        return Ok(rec);
    }
    match (stored_payload(kind, bytes), id) {
        (Ok(event), None) => Ok(Record {
            seq,
            at,
            recorded_at,
            id: None,
            kind: kind.to_owned(),
            event,
        }),
        (Ok(event), Some(Some(id))) => Ok(Record {
            seq,
            at,
            recorded_at,
            id: Some(id.to_owned()),
            kind: kind.to_owned(),
            event,
        }),
        _ => decode_stored_serde(bytes, seq, at, recorded_at),
    }
}

/// The `type` of a stored event, guessed from its end: canonical bytes sort
/// the keys, so `type` is mostly the last or near it. The last `"type":"` that
/// follows `{` or `,`, with a string value without escapes, and after it only
/// members and the closing `}` (checked by `scan`): in a well-formed object
/// that is the top-level `type` (a nested one would need a second closing
/// bracket after it, and inside a string every `"` is escaped). A malformed
/// object fails to decode whatever is guessed: [`decode_stored_guessed`] then
/// gives exactly [`decode_stored_fast`]'s error.
pub fn guess_stored_kind(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    const KEY: &[u8] = b"\"type\":\"";
    let at = bytes.windows(KEY.len()).rposition(|w| w == KEY)?;
    if !matches!(bytes.get(at.checked_sub(1)?), Some(b'{' | b',')) {
        return None;
    }
    let start = at + KEY.len();
    let len = bytes[start..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\')?;
    let end = start + len;
    (bytes[end] == b'"' && scan::members_to_end(&bytes[end + 1..])).then_some(start..end)
}

/// Decode a stored event whose `type` [`guess_stored_kind`] found at `kind`,
/// in one serde pass that keeps `type` and `id` on the way: the same record as
/// [`decode_stored_fast`], or its error (it runs again when anything is off).
/// A record whose `type` is not the guess (only a malformed one could be) is
/// an error: the fold routed it by the guess.
pub fn decode_stored_guessed(
    bytes: &[u8],
    kind: std::ops::Range<usize>,
    seq: u64,
    at: Micros,
    recorded_at: Micros,
) -> Result<Record, String> {
    let guess = std::str::from_utf8(&bytes[kind]).ok();
    if let Some(rec) = guess.and_then(|g| direct_record(g, bytes, seq, at, recorded_at)) {
        return Ok(rec);
    }
    let mut cap = skip::Capture::default();
    let event = guess.map(|g| dispatch(g, Capturing(bytes, &mut cap)));
    let id = match (cap.twice, cap.id) {
        (false, None) => Some(None),
        (false, Some(id)) => Some(id),
        (true, _) => None,
    };
    let rec = match (event, cap.kind, id) {
        (Some(Ok(Some(event))), Some(kind), Some(id)) if Some(kind.as_str()) == guess => Record {
            seq,
            at,
            recorded_at,
            id,
            kind,
            event,
        },
        _ => decode_stored_serde(bytes, seq, at, recorded_at)?,
    };
    match Some(rec.kind.as_str()) == guess {
        true => Ok(rec),
        false => Err(format!("its type {:?} is not where it was read", rec.kind)),
    }
}

/// What a stored record's header repeats from its event: `at`, `id` and, for a
/// `ledger.voided`, the target. The `id` is borrowed from the event when it has
/// no escapes (`verify` reads one header per record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredHeader<'a> {
    pub at: Micros,
    pub id: Option<std::borrow::Cow<'a, str>>,
    pub void_target: Option<u64>,
}

/// Read only the envelope of a stored event (`type`, `at`, `id`, a void's
/// `target`), skipping the payload without building it: what `verify` compares
/// with the record's header, once per record. A byte scan (`scan`), first the
/// whitespace-free one stored (canonical) events allow, then the general one;
/// anything unusual (escapes in these fields, duplicates, malformed bytes) is
/// decoded by serde_json instead, for its result or its message.
pub fn stored_header(bytes: &[u8]) -> Result<StoredHeader<'_>, String> {
    stored_header_fast(bytes).map_or_else(|| stored_header_serde(bytes), Ok)
}

/// [`stored_header`] of an event as laurel stores it (canonical: keys sorted,
/// each once), reading only what the header needs: the members up to `id`
/// from the front and `type` from the end ([`guess_stored_kind`]), skipping
/// the rest of the payload, which was most of `verify`'s scanning. Anything
/// else (a void, whose `target` sits past `id`; keys out of order; escapes)
/// takes [`stored_header`]. Same answer for every canonical event (unit test
/// below); a stored event out of canonical form can only come from a rewrite
/// with recomputed hashes, and a fold that decodes it still refuses it.
pub fn stored_header_sorted(bytes: &[u8]) -> Result<StoredHeader<'_>, String> {
    stored_header_ends(bytes).map_or_else(|| stored_header(bytes), Ok)
}

fn stored_header_ends(bytes: &[u8]) -> Option<StoredHeader<'_>> {
    let kind = guess_stored_kind(bytes)?;
    if &bytes[kind] == b"ledger.voided" {
        return None;
    }
    let mut f = HeaderFields::default();
    scan::sorted_members_through(bytes, b"id", |k, v| f.take(k.raw, v))?;
    // Rising keys cannot repeat one; `at_and_id` checks anyway.
    let (at, id) = f.at_and_id()?;
    Some(StoredHeader {
        at,
        id,
        void_target: None,
    })
}

/// The raw value bytes of the envelope's members, as a scan meets them.
#[derive(Default)]
struct HeaderFields<'a> {
    kind: Option<&'a [u8]>,
    at: Option<&'a [u8]>,
    id: Option<&'a [u8]>,
    target: Option<&'a [u8]>,
    dup: bool,
}

impl<'a> HeaderFields<'a> {
    fn take(&mut self, key: &[u8], v: &'a [u8]) {
        let slot = match key {
            b"type" => &mut self.kind,
            b"at" => &mut self.at,
            b"id" => &mut self.id,
            b"target" => &mut self.target,
            _ => return,
        };
        self.dup |= slot.replace(v).is_some();
    }

    /// `at` and `id` decoded; `None` if either is off or any field came twice.
    fn at_and_id(&self) -> Option<(Micros, Option<std::borrow::Cow<'a, str>>)> {
        if self.dup {
            return None;
        }
        let at = time::parse(&scan::str_at(self.at?)?)?;
        let id = match self.id {
            None | Some(b"null") => None,
            Some(v) => Some(scan::str_at(v)?),
        };
        Some((at, id))
    }

    /// The members of `bytes`: the compact scan, or else the general one.
    fn of(bytes: &'a [u8]) -> Option<Self> {
        let mut f = HeaderFields::default();
        if scan::each_member_compact(bytes, |k, v| f.take(k.raw, v)).is_none() {
            f = HeaderFields::default();
            scan::each_member(bytes, |k, v| f.take(k.raw, v))?;
        }
        Some(f)
    }
}

fn stored_header_fast(bytes: &[u8]) -> Option<StoredHeader<'_>> {
    let f = HeaderFields::of(bytes)?;
    let (at, id) = f.at_and_id()?;
    let void_target = match &*scan::str_at(f.kind?)? {
        "ledger.voided" => Some(std::str::from_utf8(f.target?).ok()?.parse().ok()?),
        _ => None,
    };
    Some(StoredHeader {
        at,
        id,
        void_target,
    })
}

fn stored_header_serde(bytes: &[u8]) -> Result<StoredHeader<'_>, String> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        at: std::borrow::Cow<'a, str>,
        #[serde(default, borrow)]
        id: Option<std::borrow::Cow<'a, str>>,
        #[serde(default)]
        target: Option<Value>,
    }
    let env: Envelope = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let at =
        time::parse(&env.at).ok_or_else(|| format!("field `at`: {:?} is not a date", env.at))?;
    let void_target = match (&*env.kind, env.target) {
        ("ledger.voided", Some(t)) => Some(t.as_u64().ok_or("field `target`: not a seq")?),
        ("ledger.voided", None) => return Err("ledger.voided: missing field `target`".into()),
        _ => None,
    };
    Ok(StoredHeader {
        at,
        id: env.id,
        void_target,
    })
}

/// The `type` of a stored event, skipping everything else: a byte scan
/// (`scan`, as [`stored_header`]); anything unusual (a duplicate or escaped
/// `type`, malformed bytes) is decoded by serde_json instead, for its result
/// or its message. A one-namespace fold asks this of every record it skips.
pub fn stored_kind(bytes: &[u8]) -> Result<String, String> {
    stored_kind_fast(bytes).map_or_else(|| stored_kind_serde(bytes), Ok)
}

fn stored_kind_fast(bytes: &[u8]) -> Option<String> {
    let (mut kind, mut dup) = (None, false);
    scan::each_member(bytes, |k, v| {
        if k.raw == b"type" {
            dup |= kind.replace(v).is_some();
        }
    })?;
    match dup {
        true => None,
        false => scan::string_at(kind?),
    }
}

fn stored_kind_serde(bytes: &[u8]) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
    }
    let k: Kind = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    Ok(k.kind.into_owned())
}

fn stored_payload(kind: &str, bytes: &[u8]) -> Result<Event, String> {
    dispatch(kind, Stored(bytes))?.ok_or_else(|| format!("unknown event type {kind:?}"))
}

/// The payload parser of `kind`'s namespace; `None` for an unknown type.
fn dispatch(kind: &str, input: impl PayloadInput) -> Result<Option<Event>, String> {
    let (ns, name) = kind.split_once('.').unwrap_or(("", kind));
    match ns {
        "mepbm" => mepbm::parse(name, input).map(|e| e.map(Event::Mepbm)),
        "cfr" => cfr::parse(name, input).map(|e| e.map(Event::Cfr)),
        "cards" => cards::parse(name, input).map(|e| e.map(Event::Cards)),
        "diplomacy" => diplomacy::parse(name, input).map(|e| e.map(Event::Diplomacy)),
        "sbr" => sbr::parse(name, input).map(|e| e.map(Event::Sbr)),
        "ledger" => ledger::parse(name, input).map(|e| e.map(Event::Ledger)),
        _ => Ok(None),
    }
}

/// Where a payload is deserialised from: a parsed object (input, with field
/// paths in errors) or stored canonical bytes (the fold's fast path).
pub(crate) trait PayloadInput {
    fn payload<T: DeserializeOwned>(self, kind: &str) -> Result<T, String>;
}

impl PayloadInput for Value {
    fn payload<T: DeserializeOwned>(self, kind: &str) -> Result<T, String> {
        payload(kind, self)
    }
}

/// A stored event's canonical bytes.
pub(crate) struct Stored<'a>(&'a [u8]);

impl PayloadInput for Stored<'_> {
    fn payload<T: DeserializeOwned>(self, kind: &str) -> Result<T, String> {
        let mut de = serde_json::Deserializer::from_slice(self.0);
        let envelope = skip::SkipEnvelope(&mut de, None);
        T::deserialize(envelope).map_err(|e| format!("{kind}: {e}"))
    }
}

/// A stored event's canonical bytes, read to the end, keeping the envelope's
/// `type` and `id` on the way (the one-pass decode of [`decode_stored_guessed`]).
struct Capturing<'a, 'c>(&'a [u8], &'c mut skip::Capture);

impl PayloadInput for Capturing<'_, '_> {
    fn payload<T: DeserializeOwned>(self, kind: &str) -> Result<T, String> {
        let mut de = serde_json::Deserializer::from_slice(self.0);
        let t = T::deserialize(skip::SkipEnvelope(&mut de, Some(self.1)));
        let t = t.and_then(|t| de.end().map(|()| t));
        t.map_err(|e| format!("{kind}: {e}"))
    }
}

/// A deserializer adaptor that hides the envelope fields (`type`, `at`, `id`)
/// of the top-level object from a payload type with `deny_unknown_fields`,
/// and, given a [`skip::Capture`], keeps `type` and `id` there.
mod skip {
    use std::borrow::Cow;

    use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
    use serde::Deserializer;

    /// The envelope fields met at the top level: `type`, `id` (`Some(None)`
    /// for `null`), and whether either came twice.
    #[derive(Debug, Default)]
    pub struct Capture {
        pub kind: Option<String>,
        pub id: Option<Option<String>>,
        pub twice: bool,
    }

    pub struct SkipEnvelope<'c, D>(pub D, pub Option<&'c mut Capture>);

    impl<'de, D: Deserializer<'de>> Deserializer<'de> for SkipEnvelope<'_, D> {
        type Error = D::Error;
        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
            self.0.deserialize_any(SkipVisitor(v, self.1))
        }
        fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
            self.0.deserialize_map(SkipVisitor(v, self.1))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            fields: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, D::Error> {
            self.0
                .deserialize_struct(name, fields, SkipVisitor(v, self.1))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct enum identifier ignored_any
        }
    }

    struct SkipVisitor<'c, V>(V, Option<&'c mut Capture>);

    impl<'de, V: Visitor<'de>> Visitor<'de> for SkipVisitor<'_, V> {
        type Value = V::Value;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            self.0.expecting(f)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
            self.0.visit_map(SkipMap(map, self.1))
        }
    }

    struct SkipMap<'c, A>(A, Option<&'c mut Capture>);

    struct Key<'de>(Cow<'de, str>);

    impl<'de> de::Deserialize<'de> for Key<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct KV;
            impl<'de> Visitor<'de> for KV {
                type Value = Key<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a key")
                }
                fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Borrowed(s)))
                }
                fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Owned(s.to_string())))
                }
            }
            d.deserialize_str(KV)
        }
    }

    impl<'de, A: MapAccess<'de>> SkipMap<'_, A> {
        /// Consume the value of envelope field `key`, keeping it if capturing.
        fn envelope(&mut self, key: &str) -> Result<(), A::Error> {
            let Some(cap) = self.1.as_deref_mut() else {
                return self.0.next_value::<IgnoredAny>().map(|_| ());
            };
            match key {
                "type" => {
                    let v = self.0.next_value::<Cow<'de, str>>()?;
                    cap.twice |= cap.kind.replace(v.into_owned()).is_some();
                }
                "id" => {
                    let v = self.0.next_value::<Option<Cow<'de, str>>>()?;
                    cap.twice |= cap.id.replace(v.map(Cow::into_owned)).is_some();
                }
                _ => {
                    self.0.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
    }

    impl<'de, A: MapAccess<'de>> MapAccess<'de> for SkipMap<'_, A> {
        type Error = A::Error;
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, A::Error> {
            loop {
                let Some(key) = self.0.next_key::<Key<'de>>()? else {
                    return Ok(None);
                };
                if matches!(&*key.0, "type" | "at" | "id") {
                    self.envelope(&key.0)?;
                    continue;
                }
                return seed
                    .deserialize(de::value::CowStrDeserializer::<A::Error>::new(key.0))
                    .map(Some);
            }
        }
        fn next_value_seed<V: DeserializeSeed<'de>>(
            &mut self,
            seed: V,
        ) -> Result<V::Value, A::Error> {
            self.0.next_value_seed(seed)
        }
    }
}

/// The envelope fields and the typed payload of an event object.
fn typed(value: Value) -> Result<(Option<String>, Micros, String, Event), String> {
    let Value::Object(mut map) = value else {
        return Err("an event must be a JSON object".into());
    };
    let kind = take_string(&mut map, "type")?.ok_or("missing field `type`")?;
    let at_text = take_string(&mut map, "at")?.ok_or("missing field `at`")?;
    let at = time::parse(&at_text).ok_or_else(|| {
        format!("field `at`: {at_text:?} is not a date (YYYY-MM-DD) or an RFC 3339 timestamp")
    })?;
    let id = take_string(&mut map, "id")?;
    if id.as_deref() == Some("") {
        return Err("field `id`: must not be empty".into());
    }
    let event = parse_payload(&kind, map)?;
    Ok((id, at, kind, event))
}

fn parse_payload(kind: &str, map: Map<String, Value>) -> Result<Event, String> {
    dispatch(kind, Value::Object(map))?
        .ok_or_else(|| format!("unknown event type {kind:?} (known: {})", TYPES.join(", ")))
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.remove(key) {
        None | Some(Value::Null) if key == "id" => Ok(None),
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "field `{key}`: expected a string, found {}",
            json_kind(&other)
        )),
    }
}

/// Reject floats, integers out of range, oversized strings and control
/// characters anywhere in the event, naming the path.
fn check_values(v: &Value, path: &str) -> Result<(), String> {
    let at = |p: &str| {
        if p.is_empty() {
            "event".to_string()
        } else {
            format!("field `{p}`")
        }
    };
    match v {
        Value::Number(n) if n.as_f64().is_some_and(beyond_64_bits) && n.is_f64() => Err(format!(
            "{}: integer out of range (about {:e}); integers must lie between {} and {}",
            at(path),
            n.as_f64().unwrap_or_default(),
            i64::MIN,
            u64::MAX
        )),
        Value::Number(n) if !(n.is_i64() || n.is_u64()) => Err(format!(
            "{}: {n} is a floating-point number; laurel accepts only integers \
             (write fractions as decimal strings, e.g. \"0.98\")",
            at(path)
        )),
        Value::String(s) if forbidden_char(s).is_some() => Err(forbidden_message(
            &at(path),
            forbidden_char(s).unwrap_or('\0'),
        )),
        Value::String(s) if s.len() > MAX_STRING => Err(format!(
            "{}: string of {} bytes is longer than the limit of {MAX_STRING}",
            at(path),
            s.len()
        )),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| check_values(item, &format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().try_for_each(|(k, item)| {
            if k.len() > MAX_STRING {
                return Err(format!("{}: key longer than {MAX_STRING} bytes", at(path)));
            }
            if let Some(c) = forbidden_char(k) {
                return Err(forbidden_message(&format!("{}: a key", at(path)), c));
            }
            let sub = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            check_values(item, &sub)
        }),
        _ => Ok(()),
    }
}

/// Is `f` an integer too wide for 64 bits (what serde_json reads such a
/// literal as), rather than a fraction?
fn beyond_64_bits(f: f64) -> bool {
    f.fract() == 0.0 && f.abs() >= 9.2e18
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Deserialize a payload into `T`, naming the offending field on error.
pub(crate) fn payload<T: DeserializeOwned>(kind: &str, v: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if path == "." || path.is_empty() {
            format!("{kind}: {inner}")
        } else {
            format!("{kind}: field `{path}`: {inner}")
        }
    })
}

/// An identifier written as a string or a non-negative integer (`"101"` or `101`).
/// Both spellings name the same thing; the canonical form keeps what was written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Ident(pub String);

impl std::fmt::Display for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Checkpoints (bincode, not self-describing) store the string as serialized.
        if !d.is_human_readable() {
            return String::deserialize(d).map(Ident);
        }
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Ident;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a non-empty string or a non-negative integer")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Ident, E> {
                if s.is_empty() {
                    return Err(E::custom("identifier must not be empty"));
                }
                Ok(Ident(s.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Ident, E> {
                Ok(Ident(n.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Ident, E> {
                if n < 0 {
                    return Err(E::custom("identifier must not be negative"));
                }
                Ok(Ident(n.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A date or RFC 3339 timestamp inside a payload (e.g. a round's `starts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct When(pub Micros);

impl<'de> Deserialize<'de> for When {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        time::parse(&s).map(When).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{s:?} is not a date (YYYY-MM-DD) or an RFC 3339 timestamp"
            ))
        })
    }
}

/// A finishing place: a positive integer, or `"dnf"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    At(u32),
    Dnf,
}

impl<'de> Deserialize<'de> for Place {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Place;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a place (1, 2, ...) or \"dnf\"")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Place, E> {
                match s {
                    "dnf" => Ok(Place::Dnf),
                    _ => Err(E::custom(format!(
                        "{s:?} is not a place (1, 2, ...) or \"dnf\""
                    ))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Place, E> {
                match u32::try_from(n) {
                    Ok(p) if p >= 1 => Ok(Place::At(p)),
                    _ => Err(E::custom(format!("place {n} is out of range (1 or more)"))),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Place, E> {
                Err(E::custom(format!("place {n} is out of range (1 or more)")))
            }
        }
        d.deserialize_any(V)
    }
}

/// Map an event name to its payload type, for the per-namespace `parse` functions.
macro_rules! payload_table {
    ($ns:literal, $name:expr, $v:expr, { $($n:literal => $variant:ident),* $(,)? }) => {
        match $name {
            $($n => crate::events::PayloadInput::payload($v, concat!($ns, ".", $n)).map(|p| Some(Event::$variant(p))),)*
            _ => Ok(None),
        }
    };
}
pub(crate) use payload_table;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        parse_event(v).unwrap_err()
    }

    #[test]
    fn envelope_rules_name_the_field() {
        assert!(err(json!({"type": "nope.x", "at": "2003-01-01"})).contains("unknown event type"));
        assert!(err(json!({"at": "2003-01-01"})).contains("`type`"));
        assert!(err(json!({"type": "mepbm.monthly_tick"})).contains("`at`"));
        let e = err(
            json!({"type": "mepbm.monthly_tick", "at": "2003-01-01", "month": "2003-01", "x": 1}),
        );
        assert!(e.contains("unknown field `x`"), "{e}");
        let e = err(json!({"type": "mepbm.monthly_tick", "at": "2003-01-01"}));
        assert!(e.contains("missing field `month`"), "{e}");
        let e = err(json!({"type": "mepbm.rating_seeded", "at": "2003-01-01",
            "player": "a", "system": "valar", "value": "x"}));
        assert!(e.contains("field `value`"), "{e}");
        let e = err(json!({"type": "mepbm.rating_seeded", "at": "2003-01-01",
            "player": "a", "system": "valar", "value": 1.5}));
        assert!(e.contains("`value`") && e.contains("floating-point"), "{e}");
    }

    #[test]
    fn fast_stored_decode_equals_the_input_parse() {
        let gen = crate::gen::stream(400, 3);
        let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
        for line in bundled.chain(gen.lines()).filter(|l| !l.trim().is_empty()) {
            let p = parse_event(serde_json::from_str(line).unwrap()).unwrap();
            let slow = decode_stored(&p.canonical, 3, 9).unwrap();
            let fast = decode_stored_fast(&p.canonical, 3, p.at, 9).unwrap();
            assert_eq!(slow, fast, "{line}");
            let h = stored_header(&p.canonical).unwrap();
            let id = h.id.map(std::borrow::Cow::into_owned);
            assert_eq!((h.at, id), (slow.at, slow.id), "{line}");
        }
    }

    /// Every way the parallel fold decodes a stored event, against the serde
    /// one: the same record, or the same error.
    fn decode_every_way(bytes: &[u8]) -> Result<Record, String> {
        let want = decode_stored_serde(bytes, 3, 7, 9);
        let fast = decode_stored_fast(bytes, 3, 7, 9);
        assert_eq!(fast, want, "fast: {}", String::from_utf8_lossy(bytes));
        if let Some(kind) = guess_stored_kind(bytes) {
            let got = decode_stored_guessed(bytes, kind.clone(), 3, 7, 9);
            assert_eq!(
                got,
                want,
                "guessed {kind:?}: {}",
                String::from_utf8_lossy(bytes)
            );
        }
        if let Some(env) = stored_envelope(bytes) {
            let got = decode_stored_with(bytes, &env, 3, 7, 9);
            assert_eq!(got, want, "scanned: {}", String::from_utf8_lossy(bytes));
        }
        want
    }

    #[test]
    fn one_pass_stored_decodes_equal_the_serde_one() {
        let gen = crate::gen::stream(400, 3);
        let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
        let (mut guessed, mut scanned) = (0, 0);
        for line in bundled.chain(gen.lines()).filter(|l| !l.trim().is_empty()) {
            let p = parse_event(serde_json::from_str(line).unwrap()).unwrap();
            decode_every_way(&p.canonical).unwrap();
            guessed += usize::from(guess_stored_kind(&p.canonical).is_some());
            scanned += usize::from(stored_envelope(&p.canonical).is_some());
        }
        // Canonical events go the fast ways (a key after `type` is no obstacle).
        assert!(guessed > 400 && scanned > 400, "{guessed} {scanned}");
        let tick = r#""at":"2003-01-01T00:00:00Z","month":"2003-01""#;
        let odd = [
            // A key after `type` (refused by the payload), an escaped id, a null id.
            format!(r#"{{{tick},"type":"mepbm.monthly_tick","zz":1}}"#),
            format!(r#"{{{tick},"id":"a\"b","type":"mepbm.monthly_tick"}}"#),
            format!(r#"{{"id":null,{tick},"type":"mepbm.monthly_tick"}}"#),
            // Escaped or repeated envelope fields, a wrong id.
            format!(r#"{{{tick},"type":"mepbm.monthly\u005ftick"}}"#),
            format!(r#"{{{tick},"typ\u0065":"cfr.x","type":"mepbm.monthly_tick"}}"#),
            format!(r#"{{{tick},"type":"cfr.x","type":"mepbm.monthly_tick"}}"#),
            format!(r#"{{"id":"a","id":"b",{tick},"type":"mepbm.monthly_tick"}}"#),
            format!(r#"{{"id":5,{tick},"type":"mepbm.monthly_tick"}}"#),
            // A nested `type` last; malformed and trailing bytes.
            format!(r#"{{{tick},"type":"mepbm.monthly_tick","x":{{"type":"cfr.x"}}}}"#),
            format!(r#"{{"a":{{{tick},"type":"mepbm.monthly_tick"}}"#),
            format!(r#"{{{tick},"type":"mepbm.monthly_tick"}}{{"type":"cfr.x"}}"#),
            format!(r#"{{"x":{{{tick}}},"type":"mepbm.monthly_tick"}}"#),
            format!(r#"{{{tick},"type":"mepbm.nope"}}"#),
            format!(r#"{{{tick},"type":"mepbm.monthly_tick""#),
        ];
        let ok: Vec<bool> = odd
            .iter()
            .map(|o| decode_every_way(o.as_bytes()).is_ok())
            .collect();
        let want = [
            false, true, true, true, false, false, false, false, false, false, false, false, false,
            false,
        ];
        assert_eq!(ok, want);
        assert!(guess_stored_kind(odd[8].as_bytes()).is_none());
        assert!(guess_stored_kind(odd[0].as_bytes()).is_some());
    }

    /// Verify's header read from the ends answers as the full scan on every
    /// canonical event (bundled, generated, voids and events without `id`),
    /// and leaves to it what is not laid out canonically.
    #[test]
    fn the_header_read_from_the_ends_equals_the_full_scan_on_canonical_events() {
        let gen = crate::gen::stream(2000, 11);
        let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
        let void = r#"{"at":"2003-02-01","reason":"typo","target":7,"type":"ledger.voided"}"#;
        let no_id = r#"{"at":"2003-01-01","month":"2003-01","type":"mepbm.monthly_tick"}"#;
        let lines = bundled.chain(gen.lines()).chain([void, no_id]);
        let (mut fast, mut ids) = (0, 0);
        for line in lines.filter(|l| !l.trim().is_empty()) {
            let p = parse_event(serde_json::from_str(line).unwrap()).unwrap();
            let want = stored_header(&p.canonical).unwrap();
            let got = stored_header_sorted(&p.canonical).unwrap();
            assert_eq!(
                (got.at, &got.id, got.void_target),
                (want.at, &want.id, want.void_target),
                "{line}"
            );
            fast += usize::from(stored_header_ends(&p.canonical).is_some());
            ids += usize::from(want.id.is_some());
        }
        assert!(fast > 2000 && ids > 2000, "{fast} {ids}");
        let tick = r#""at":"2003-01-01T00:00:00Z","month":"2003-01""#;
        let not_canonical = [
            // `id` before `at`, a repeated `at`, an escaped key, a void. (An `id`
            // after a key above it is not noticed: the scan has stopped there.)
            format!(r#"{{"id":"a",{tick},"type":"mepbm.monthly_tick"}}"#),
            format!(r#"{{"at":"2001-01-01",{tick},"type":"mepbm.monthly_tick"}}"#),
            r#"{"\u0061t":"2001-01-01","type":"mepbm.monthly_tick"}"#.to_string(),
            r#"{"at":"2003-02-01","target":7,"type":"ledger.voided"}"#.to_string(),
        ];
        for o in &not_canonical {
            assert!(stored_header_ends(o.as_bytes()).is_none(), "{o}");
        }
        // Left to the full scan, which reads every member.
        let late_id = stored_header_sorted(not_canonical[0].as_bytes()).unwrap();
        assert_eq!(late_id.id.as_deref(), Some("a"));
    }

    /// `direct` takes the common generated events, and wherever it answers it
    /// answers as serde: on every generated and bundled event, and on many
    /// mutations of each (bytes changed, dropped or repeated; any outcome).
    #[test]
    fn direct_decode_agrees_with_serde_and_takes_the_common_types() {
        let gen = crate::gen::stream(600, 5);
        let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
        let (mut direct, mut total, mut mutated) = (0, 0, 0);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let edits: &[&[u8]] = &[
            b"", b"\\\\", b" ", b"0", b"-", b".5", b"null", b"\\\"", b",", b"}",
        ];
        for line in bundled.chain(gen.lines()).filter(|l| !l.trim().is_empty()) {
            let p = parse_event(serde_json::from_str(line).unwrap()).unwrap();
            let taken = direct::decode(&p.kind, &p.canonical).is_some();
            if direct::TYPES.contains(&p.kind.as_str()) {
                assert!(taken, "{line}");
                (direct, total) = (direct + 1, total + 1);
            }
            decode_every_way(&p.canonical).unwrap();
            for _ in 0..12 {
                let mut b = p.canonical.clone();
                let at = next(b.len());
                let cut = next(3).min(b.len() - at);
                b.splice(at..at + cut, edits[next(edits.len())].iter().copied());
                if let Some((id, event)) = direct::decode(&p.kind, &b) {
                    mutated += 1;
                    let want = decode_stored_serde(&b, 3, 7, 9).unwrap();
                    let b = String::from_utf8_lossy(&b);
                    assert_eq!((id, event), (want.id, want.event), "{b}");
                }
                let _ = decode_every_way(&b);
            }
        }
        assert!(direct == total && total > 600, "{direct} of {total}");
        assert!(mutated > 100, "{mutated}");
        direct_odd_cases();
    }

    /// Odd but valid records, and invalid ones: `direct` leaves them to serde.
    fn direct_odd_cases() {
        let kind = "mepbm.allegiance_changed";
        let odd = [
            r#"{"at":"2003-01-01","game":7,"id":null,"nation":"N","side":"FP","type":"mepbm.allegiance_changed"}"#,
            r#"{"at":"2003-01-01","game":"7","nation":"N\u0041","side":"FP","type":"mepbm.allegiance_changed"}"#,
            r#"{"at":"2003-01-01", "game":"7","nation":"N","side":"FP","type":"mepbm.allegiance_changed"}"#,
            r#"{"at":"2003-01-01","game":"7","nation":"N","side":"FP","type":"mepbm.allegiance_changed"} "#,
        ];
        for o in odd {
            let want = decode_stored_serde(o.as_bytes(), 3, 7, 9).unwrap();
            assert_eq!(decode_every_way(o.as_bytes()).unwrap(), want);
        }
        assert!(direct::decode(kind, odd[0].as_bytes()).is_some());
        assert!(odd[1..]
            .iter()
            .all(|o| direct::decode(kind, o.as_bytes()).is_none()));
        let ended = |fields: &str| {
            format!(r#"{{"at":"2003-01-01",{fields},"type":"mepbm.game_ended","winner":"FP"}}"#)
        };
        let bad = [
            r#""game":"7","nations":[],"turn":-0"#,
            r#""game":"7","nations":[],"turn":1.0"#,
            r#""game":"7","nations":[],"turn":01"#,
            r#""game":"7","nations":[],"turn":1,"turn":2"#,
            r#""game":"","nations":[],"turn":1"#,
            r#""game":-1,"nations":[],"turn":1"#,
            r#""game":18446744073709551616,"nations":[],"turn":1"#,
            r#""game":"7","nations":[],"turn":9223372036854775808"#,
            r#""game":"7","nations":[],"turn":1,"x":1"#,
        ];
        for b in bad.map(ended) {
            assert!(
                direct::decode("mepbm.game_ended", b.as_bytes()).is_none(),
                "{b}"
            );
            decode_every_way(b.as_bytes()).unwrap_err();
        }
        let edge = ended(r#""game":18446744073709551615,"nations":[],"turn":-9223372036854775808"#);
        assert!(direct::decode("mepbm.game_ended", edge.as_bytes()).is_some());
        decode_every_way(edge.as_bytes()).unwrap();
    }

    /// The slow path on its own: serde_json::Value, then `parse_event`.
    fn slow(line: &[u8]) -> Result<Parsed, String> {
        parse_line(line).map_err(|e| match e {
            LineError::Json(e) => format!("json: {e}"),
            LineError::Event(m) => m,
        })
    }

    /// Assert the line parser's result (and canonical form) equal the slow
    /// path's; return whether it took the fast path.
    fn fast_equals_slow(parser: &mut LineParser, line: &[u8]) -> bool {
        let got = parser.parse(line).map_err(|e| match e {
            LineError::Json(e) => format!("json: {e}"),
            LineError::Event(m) => m,
        });
        assert_eq!(got, slow(line), "{}", String::from_utf8_lossy(line));
        let canon = parser.canonical(line).ok();
        let want = serde_json::from_slice::<Value>(line).ok();
        assert_eq!(canon, want.map(|v| crate::ledger::canonical::to_vec(&v)));
        screen_agrees(parser, line);
        parser.fast(line).is_some()
    }

    /// `screen`'s promise: the line's `parse` result, at once or (a deferred
    /// payload) from parsing the canonical bytes it keeps.
    fn screen_agrees(parser: &mut LineParser, line: &[u8]) {
        let msg = |e: LineError| match e {
            LineError::Json(e) => format!("json: {e}"),
            LineError::Event(m) => m,
        };
        let want = parser.parse(line).map(Screened::from).map_err(msg);
        let got = match parser.screen(line).map_err(msg) {
            Ok(s) if s.event.is_none() => {
                assert!(deferred(&s.kind), "{s:?}");
                let later = parser.parse(&s.canonical).map(Screened::from);
                later
                    .map_err(msg)
                    .inspect(|p| assert_eq!(p.canonical, s.canonical))
            }
            other => other,
        };
        assert_eq!(got, want, "{}", String::from_utf8_lossy(line));
    }

    /// The parser thread's saving: `screen` decodes no payload but `ledger.*`
    /// ones (the bundled events have both kinds).
    #[test]
    fn screen_defers_every_payload_but_ledger_ones() {
        let mut parser = LineParser::default();
        let (mut kept, mut left) = (0, 0);
        let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
        let gen = crate::gen::stream(2000, 7);
        for line in bundled.chain(gen.lines()).filter(|l| l.starts_with('{')) {
            let s = parser.screen(line.as_bytes()).unwrap();
            assert_eq!(s.event.is_none(), !s.kind.starts_with("ledger."), "{line}");
            match s.event {
                Some(_) => kept += 1,
                None => left += 1,
            }
        }
        assert!(kept > 0 && left > 1000, "{kept} decoded, {left} deferred");
    }

    #[test]
    fn line_parser_agrees_with_the_value_path_and_takes_the_fast_one() {
        let gen = crate::gen::stream(2000, 7);
        let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
        let mut parser = LineParser::default();
        for line in bundled.chain(gen.lines()).filter(|l| l.starts_with('{')) {
            assert!(
                fast_equals_slow(&mut parser, line.as_bytes()),
                "slow: {line}"
            );
        }
    }

    #[test]
    fn line_parser_agrees_with_the_value_path_on_odd_and_bad_input() {
        let tick = r#""type":"mepbm.monthly_tick","at":"2003-01-01""#;
        let long = "x".repeat(MAX_STRING);
        let rules = |p: &str| {
            format!(
                r#"{{"type":"ledger.rules_changed","at":"2003-01-01","system":"valar","params":{p}}}"#
            )
        };
        let cases = [
            format!(r#"{{{tick},"month":"2003-01"}}"#),
            format!(r#" {{ {tick} , "month" : "2003-01" , "id" : null }} "#),
            format!(r#"{{{tick},"month":"2003-01","id":"a\"\u00e9\/\ud83d\ude00"}}"#),
            rules(r#"{"z":[1,-2,{"b":true,"a":null}],"a":"0.5","m":[]}"#),
            r#"{"type":"ledger.voided","at":"2003-01-01T10:00:00+02:00","target":3,"reason":"r"}"#
                .to_string(),
            format!(r#"{{{tick},"month":"2003-01","id":""}}"#),
            format!(r#"{{{tick},"month":"2003-01","id":5}}"#),
            // Payloads `screen` defers, refused when decoded.
            format!(r#"{{{tick},"month":"2003-01","factor":"0.9"}}"#),
            format!(r#"{{{tick}}}"#),
            format!(r#"{{{tick},"month":5}}"#),
            r#"{"type":"cards.match_result","at":"2003-01-01","players":[]}"#.into(),
            format!(r#"{{{tick},"month":"2003-01","month":"2003-02"}}"#),
            format!(r#"{{{tick},"mo\u006eth":"2003-01"}}"#),
            r#"{"type":"mepbm.monthly\u005ftick","at":"2003-01-01","month":"2003-01"}"#.to_string(),
            format!(r#"{{{tick},"month":"2003-01",}}"#),
            format!(r#"{{{tick},"month":"2003-01"}} x"#),
            format!(r#"{{{tick},"month":"{long}"}}"#),
            format!(r#"{{{tick},"month":"{long}x"}}"#),
            format!(r#"{{{tick},"month":"{}\u0041"}}"#, &long[1..]),
            format!(r#"{{{tick},"month":"{}\""}}"#, &long[1..]),
            rules(r#"{"k":-0}"#),
            rules(r#"{"k":1.5}"#),
            rules(r#"{"k":1e3}"#),
            rules(r#"{"k":01}"#),
            rules(r#"{"k":18446744073709551616}"#),
            rules(r#"{"k":-9223372036854775809}"#),
            rules(r#"{"k":[1 2]}"#),
            rules(r#"{"k":tru}"#),
            r#"{"type":"ledger.voided","at":"2003-02-30","target":3,"reason":"r"}"#.into(),
            r#"{"type":"nope.x","at":"2003-01-01"}"#.into(),
            r#"{"type":5,"at":"2003-01-01"}"#.into(),
            r#"{"at":"2003-01-01"}"#.into(),
            r#"[1,2]"#.into(),
            r#"{"a":"\ud800"}"#.into(),
            format!("{{\"a\":{}1{}}}", "[".repeat(70), "]".repeat(70)),
            "{\"a\":\"tab\there\"}".into(),
            rules(r#"{"k":-999999999999999999,"m":999999999999999999,"n":-1,"o":0}"#),
            rules(r#"{"k":18446744073709551615,"m":-9223372036854775808}"#),
            rules(r#"{"k":-0000000000000000001}"#),
        ];
        let mut parser = LineParser::default();
        let fast: Vec<bool> = cases
            .iter()
            .map(|c| fast_equals_slow(&mut parser, c.as_bytes()))
            .collect();
        // Valid events take the fast path (escaped values and strings at the
        // limit included); refused or unusual ones (an escaped key, a
        // duplicate key) go the slow way.
        let valid = [0, 1, 2, 3, 4, 13, 16, 18, 19, 36, 37];
        let want: Vec<bool> = (0..cases.len()).map(|i| valid.contains(&i)).collect();
        assert_eq!(fast, want);
        assert!(!fast_equals_slow(&mut parser, b"{\"a\":\"\xff\"}"));
    }

    #[test]
    fn stored_header_scan_agrees_with_serde() {
        let cases: [&[u8]; 7] = [
            br#"{"at":"2003-01-01","id":"x","type":"mepbm.monthly_tick"}"#,
            br#"{"at":"2003-01-01","id":null,"reason":"r","target":4,"type":"ledger.voided"}"#,
            br#"{"at":"2003-01-01","reason":"r","target":-4,"type":"ledger.voided"}"#,
            br#"{"at":"2003-01-01","reason":"r","type":"ledger.voided"}"#,
            br#"{"at":"2003-01-01","at":"2003-01-02","type":"t"}"#,
            br#"{"at":"2003-01-01","type":"t","x":[}"#,
            br#"{"at":"2003-13-01","type":"t"}"#,
        ];
        for c in cases {
            let serde = stored_header_serde(c);
            if let Some(f) = stored_header_fast(c) {
                assert_eq!(Ok(f), serde, "{}", String::from_utf8_lossy(c));
            }
            assert_eq!(stored_header(c), serde);
        }
        assert!(stored_header_fast(cases[0]).is_some());
        assert!(stored_header_fast(cases[1]).is_some());
    }

    #[test]
    fn canonical_form_sorts_keys_and_keeps_content() {
        let p = parse_event(
            json!({"type": "mepbm.monthly_tick", "month": "2003-01", "at": "2003-02-01"}),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(p.canonical).unwrap(),
            r#"{"at":"2003-02-01","month":"2003-01","type":"mepbm.monthly_tick"}"#
        );
    }
}
