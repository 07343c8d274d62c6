//! The payload toolkit of every system's `events.rs`: [`payload`] with
//! messages naming the field, the shared field types ([`Ident`], [`When`],
//! [`Place`]), [`Bounds`] (the range of an integer field) and
//! `payload_table!`, the event vocabulary of a namespace.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de::DeserializeOwned, Deserialize, Deserializer};

use super::text;
use crate::time::{self, Micros};

/// Deserialize a payload into `T`, naming the offending field on error
/// (and not serde_json's place in the bytes: the field says where).
pub(crate) fn payload<'de, T, D>(kind: &str, d: D) -> Result<T, String>
where
    T: DeserializeOwned,
    D: Deserializer<'de, Error = serde_json::Error>,
{
    serde_path_to_error::deserialize(d).map_err(|e| {
        let path = path_shown(e.path());
        // One segment: a field of the event itself, beside the envelope's.
        let top = e.path().iter().count() == 1;
        let inner = e.into_inner();
        let place = format!(" at line {} column {}", inner.line(), inner.column());
        let msg = inner.to_string();
        let inner = in_words(msg.strip_suffix(&place).unwrap_or(&msg), kind);
        let inner = unknown_field_shown(&inner, top);
        if path.is_empty() {
            format!("{kind}: {inner}")
        } else {
            format!("{kind}: field `{path}`: {inner}")
        }
    })
}

/// A payload field's path as a message shows it (`nations[0].nation`), each
/// key as [`super::canon::key_shown`] shows it.
fn path_shown(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&super::canon::key_shown(key));
            }
            Segment::Unknown => out.push_str(if out.is_empty() { "?" } else { ".?" }),
        }
    }
    out
}

/// serde's ``unknown field `K`, …`` with the key as
/// [`super::canon::key_shown`] shows it (a key may be 4096 bytes), and the
/// nearest of the fields serde lists, letter case aside, suggested: `ID`
/// hears of `id`, a power's `centres` of `centers`. Of the event itself
/// (`top`), the envelope's fields are named beside the payload's (`type`,
/// `at`, `id` are read before it) and are among those suggested.
fn unknown_field_shown(msg: &str, top: bool) -> String {
    const HEAD: &str = "unknown field `";
    let Some(rest) = msg.strip_prefix(HEAD) else {
        return msg.to_string();
    };
    let end = ["`, expected", "`, there are no fields"]
        .iter()
        .find_map(|tail| rest.rfind(tail));
    match end {
        Some(end) => {
            let key = &rest[..end];
            let shown = super::canon::key_shown(key);
            let shown = if shown == key {
                format!("`{key}`")
            } else {
                shown
            };
            let tail = &rest[end + 1..];
            let mut known: Vec<&str> = tail.split('`').skip(1).step_by(2).collect();
            if top {
                known.extend(["type", "at", "id"]);
            }
            let near = text::closest(&key.to_lowercase(), known.iter().copied());
            let hint = near
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            let envelope = if top {
                " (or the envelope's `type`, `at`, `id`)"
            } else {
                ""
            };
            format!("unknown field {shown}{tail}{envelope}{hint}")
        }
        None => msg.to_string(),
    }
}

/// serde's message about a field of event type `kind`, its Rust type names
/// in words: `expected i64` is `expected an integer` (with its range when
/// the value was an integer out of it), and an enum of names given anything
/// but a string points at `laurel events KIND`, which lists the names it
/// takes. A field given under two of its names (`player` and its alias
/// `name`; a key given twice is refused before decoding) is said to be so.
fn in_words(msg: &str, kind: &str) -> String {
    let range = |lo: i128, hi: i128| format!("expected an integer from {lo} to {hi}");
    let out_of_range = msg.starts_with("invalid value: integer");
    // Input holds no integer beyond ±MAX_EXACT (the canonical form's doubles).
    let exact = i128::from(crate::input::MAX_EXACT);
    let words = |rust: &str| match (rust, out_of_range) {
        ("i64", true) => range(-exact, exact),
        ("i32", true) => range(i32::MIN.into(), i32::MAX.into()),
        ("u32", true) => range(0, u32::MAX.into()),
        ("u64" | "usize", true) => range(0, exact),
        ("i64" | "i32", false) => "expected an integer".to_string(),
        (_, false) => "expected an integer from 0".to_string(),
        _ => format!("expected {rust}"),
    };
    for rust in ["i64", "i32", "u64", "u32", "usize"] {
        if let Some(head) = msg.strip_suffix(&format!("expected {rust}")) {
            return format!("{head}{}", words(rust));
        }
    }
    if let Some(field) = msg.strip_prefix("duplicate field ") {
        return format!(
            "{field} is given twice, under two of its names (`laurel events {kind}` \
             lists them): give it once"
        );
    }
    match msg.strip_suffix(NAMES) {
        Some(head) => format!("{head}one of the names `laurel events {kind}` lists"),
        None => msg.to_string(),
    }
}

/// The values an integer payload field may take, bounds included.
///
/// A system defines one beside the field (in its `events.rs`) and checks it in
/// its append-time check, which every decoded payload reaches whichever
/// decoder read it; the message names the field and the range, in the words of
/// a rule parameter's range: ``field `turn`: 5000 is out of range; allowed: an
/// integer from 0 to 1000``.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The field's name in the payload.
    pub field: &'static str,
    pub min: i64,
    pub max: i64,
}

impl Bounds {
    pub const fn new(field: &'static str, min: i64, max: i64) -> Bounds {
        Bounds { field, min, max }
    }

    pub fn contains(&self, v: i64) -> bool {
        (self.min..=self.max).contains(&v)
    }

    /// `v` if within the bounds, else the message naming field and range.
    pub fn check(&self, v: i64) -> Result<i64, String> {
        if self.contains(v) {
            return Ok(v);
        }
        Err(format!(
            "field `{}`: {v} is out of range; allowed: an integer from {} to {}",
            self.field, self.min, self.max
        ))
    }
}

/// An identifier written as a string or a non-negative integer (`"101"` or `101`).
/// Both spellings name the same thing; the canonical form keeps what was written.
/// Stored events are decoded by the same code, so what it refuses, a ledger
/// can never hold: only the empty string. A new one is held to more by the
/// append ([`ident_written`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Ident(pub String);

/// A new identifier (of field `field`) as written: not only whitespace, no
/// whitespace at either end (it would read as another in every table) and
/// something that shows ([`text::unpadded`]). Checked on the records an
/// append brings only: what a ledger holds is read as it was accepted.
pub fn ident_written(field: &str, id: &Ident) -> Result<(), String> {
    text::unpadded(|| format!("field `{field}`: identifier"), &id.0)
}

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

impl JsonSchema for Ident {
    fn schema_name() -> Cow<'static, str> {
        "Ident".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "id",
            "description": "An identifier: a string, not empty and without whitespace at either end, or a non-negative integer (\"101\" and 101 name the same thing).",
            "type": ["string", "integer"],
            "minLength": 1,
            "minimum": 0
        })
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
                "{s:?} is not a date (YYYY-MM-DD) or an RFC 3339 timestamp{}",
                time::why_not_a_time(&s)
            ))
        })
    }
}

impl JsonSchema for When {
    fn schema_name() -> Cow<'static, str> {
        "When".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "date",
            "description": "A date (YYYY-MM-DD) or an RFC 3339 timestamp, e.g. \"2013-01-06\" or \"2013-01-06T18:30:00Z\".",
            "type": "string",
            "pattern": super::schema::DATE_PATTERN
        })
    }
}

/// A finishing place: 1 to [`Place::MAX`], or `"dnf"`. A place beyond
/// the largest is read (the system's check names it with its heat or race)
/// up to `u32::MAX`; a larger number is refused here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    At(u32),
    Dnf,
}

impl Place {
    /// The largest place: a field of 10,000 finishers.
    pub const MAX: u32 = 10_000;

    /// The place's number; `None` for a dnf.
    pub fn at(self) -> Option<u32> {
        match self {
            Place::At(n) => Some(n),
            Place::Dnf => None,
        }
    }
}

impl<'de> Deserialize<'de> for Place {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        fn out_of_range<E: serde::de::Error>(n: impl std::fmt::Display) -> E {
            E::custom(format!(
                "{n} is out of range; allowed: a place from 1 to {} or \"dnf\"",
                Place::MAX
            ))
        }
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
                    _ => Err(out_of_range(n)),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Place, E> {
                Err(out_of_range(n))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Place {
    fn schema_name() -> Cow<'static, str> {
        "Place".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "place",
            "description": "A finishing place: 1, 2, 3 ... up to 10000, or \"dnf\" (did not finish).",
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": Place::MAX},
                {"const": "dnf"}
            ]
        })
    }
}

/// The `Deserialize` of an enum of names (`Winner`, `Stage`...): a string
/// alone. The enum derives `Deserialize` (and `Serialize`, with `serialize:`)
/// with `#[serde(remote = "Self")]`, which makes the derived code an
/// associated function; the trait impl written here reads a string and hands
/// it to that code. serde's derive alone also reads the map form
/// (`{"FP":null}`), which the schema (`"type":"string"`) does not allow and
/// which would store one meaning as other bytes. Checkpoints (bincode, not
/// self-describing) go to the derived code directly. The enum also needs
/// `#[schemars(rename = "Name")]` (schemars names a remote type by its
/// path, `Self`). Call `serde::Deserialize::deserialize`, never the
/// derived associated `Name::deserialize`, which still reads the map form.
macro_rules! names_from_strings {
    ($($t:ty),* $(,)?) => {$(
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                if !d.is_human_readable() {
                    return <$t>::deserialize(d);
                }
                let name = d.deserialize_str($crate::events::EnumName)?;
                let name = serde::de::IntoDeserializer::<D::Error>::into_deserializer(name.as_str());
                <$t>::deserialize(name)
            }
        }
    )*};
    (serialize: $($t:ty),* $(,)?) => {
        $crate::events::names_from_strings!($($t),*);
        $(
            impl serde::Serialize for $t {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    <$t>::serialize(self, s)
                }
            }
        )*
    };
}
pub(crate) use names_from_strings;

/// The string an enum of names is read from ([`names_from_strings`]); any
/// other value is refused, pointing at `laurel events` (which [`in_words`]
/// makes `laurel events KIND`).
pub(crate) struct Name;

impl serde::de::Visitor<'_> for Name {
    type Value = String;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(NAMES)
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<String, E> {
        Ok(s.to_string())
    }
}

/// What a [`Name`] expects, in serde's messages.
const NAMES: &str = "one of the names `laurel events` lists";

/// A namespace's event vocabulary, each event named once (`"game_ended" =>
/// GameEnded`, the payload struct of the same name as the variant): the
/// `Event` enum, `TYPES` (`<ns>.<name>` in this order), `parse`, the payload
/// of an event name (`None` for a name the namespace does not know), and
/// `schema`, the JSON Schema of its payload struct (derived by schemars).
macro_rules! payload_table {
    ($ns:literal, { $($n:literal => $variant:ident),* $(,)? }) => {
        #[derive(Debug, Clone, PartialEq)]
        pub enum Event {
            $($variant($variant),)*
        }

        /// This namespace's event types.
        pub const TYPES: &[&str] = &[$(concat!($ns, ".", $n)),*];

        pub(crate) fn parse(
            name: &str,
            v: impl crate::events::PayloadInput,
        ) -> Result<Option<Event>, String> {
            match name {
                $($n => crate::events::PayloadInput::payload(v, concat!($ns, ".", $n)).map(|p| Some(Event::$variant(p))),)*
                _ => Ok(None),
            }
        }

        /// The JSON Schema of event `name`'s payload; `None` for a name the namespace does not know.
        pub(crate) fn schema(name: &str, generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
            match name {
                $($n => Some(generator.root_schema_for::<$variant>()),)*
                _ => None,
            }
        }
    };
}
pub(crate) use payload_table;

#[cfg(test)]
mod tests {
    use super::in_words;

    #[test]
    fn serde_type_names_read_as_words_with_the_range_an_integer_missed() {
        let kind = "diplomacy.game_ended";
        assert_eq!(
            in_words("invalid type: string \"10\", expected i64", kind),
            "invalid type: string \"10\", expected an integer"
        );
        assert_eq!(
            in_words("invalid value: integer `-1`, expected u64", kind),
            "invalid value: integer `-1`, expected an integer from 0 to 9007199254740991"
        );
        assert_eq!(
            in_words(&format!("invalid type: integer `3`, expected {}", super::NAMES), kind),
            "invalid type: integer `3`, expected one of the names `laurel events diplomacy.game_ended` lists"
        );
        assert_eq!(
            in_words("missing field `game`", kind),
            "missing field `game`"
        );
    }
}
