//! The canonical form of an event, read in one pass of serde_json's parser.
//!
//! [`Reader::read`] drives any serde deserializer (an input line's bytes, or a
//! `serde_json::Value` the crate built) through one visitor that writes the
//! value's canonical bytes as it goes and notes, on the way:
//!
//! - the top-level `type`, `at` and `id`, as written ([`Envelope`]);
//! - the first key given twice in one object, in reading order: valid JSON
//!   whose meaning depends on the reader (serde_json's `Value` keeps the
//!   last), so an event holding one is refused, naming the key;
//! - the first value no event may hold, in reading order: a floating-point
//!   number, an integer beyond ±(2^53 − 1) ([`MAX_EXACT`]: what RFC 8785's
//!   numbers, doubles, keep exact), a string or key over [`MAX_STRING`]
//!   bytes, a string or key holding a [`forbidden_char`].
//!
//! JSON syntax, UTF-8 and nesting depth are serde_json's: its error is the
//! reader's, and it wins over anything noted (the whole line is read first).
//!
//! The canonical form (RFC 8785 JCS for float-free JSON): no whitespace,
//! object keys sorted by their UTF-8 bytes (Python's `sort_keys=True`, which
//! differs from JCS's UTF-16 order only for keys mixing characters above
//! U+FFFF with U+E000 to U+FFFF, which laurel's vocabulary never uses),
//! strings escaped as serde_json escapes them (the ledger's `write_str`),
//! integers in decimal. It is written here, not left to `serde_json::to_vec`,
//! because serde_json's map is sorted only while no dependency enables its
//! `preserve_order` feature, and the hash chain must not change because a
//! dependency did. The visitor takes numbers as serde_json gives them
//! without its `arbitrary_precision` feature (`u64`, `i64`, `f64`); with it
//! they would come as maps, and every event with an integer would fail the
//! tests.

use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::text::{forbidden_char, forbidden_message, may_lead_forbidden};
use super::MAX_STRING;
use crate::input::MAX_EXACT;
use crate::ledger::canonical::write_str;

/// What a top-level envelope field held.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Field {
    Text(String),
    Null,
    /// Anything else, in words (`a number`).
    Other(&'static str),
}

/// The top-level `type`, `at` and `id` of an object, as written (the last
/// of a key given twice: the event is refused then anyway).
#[derive(Debug, Default)]
pub(crate) struct Envelope {
    pub kind: Option<Field>,
    pub at: Option<Field>,
    pub id: Option<Field>,
}

/// One value read: its canonical bytes and what was noted on the way.
#[derive(Debug, Default)]
pub(crate) struct Canonical {
    pub bytes: Vec<u8>,
    /// Is the value an object?
    pub object: bool,
    pub envelope: Envelope,
    /// The first key given twice in one object, as a path (`players[0].name`).
    pub duplicate: Option<String>,
    /// The message of the first value no event may hold.
    pub refused: Option<String>,
}

/// Reads values canonical, reusing its scratch space from one to the next.
#[derive(Default)]
pub(crate) struct Reader {
    st: State,
}

impl Reader {
    /// Read one value from `d`: its canonical bytes and notes, or `d`'s
    /// error and the innermost member or element it stopped in (``field
    /// `players[2]` ``), if not the value itself. A caller reading a line's bytes checks that nothing follows
    /// it (`Deserializer::end`). `size`: the bytes expected (the output's
    /// first capacity).
    pub fn read<'de, D: Deserializer<'de>>(
        &mut self,
        d: D,
        size: usize,
    ) -> Result<Canonical, (D::Error, Option<String>)> {
        let st = &mut self.st;
        st.out = Vec::with_capacity(size);
        st.keys.clear();
        st.members.clear();
        st.keys_read = 0;
        // A read that failed half-way left its notes.
        st.envelope = Envelope::default();
        st.duplicate = None;
        st.refused = None;
        st.broken = None;
        let walk = Walk {
            st: &mut *st,
            path: &Path::Root,
            field: None,
        };
        let object = walk.deserialize(d).map_err(|e| (e, st.broken.take()))?;
        Ok(Canonical {
            bytes: std::mem::take(&mut st.out),
            object,
            envelope: std::mem::take(&mut st.envelope),
            duplicate: st.duplicate.take().map(|(_, path)| path),
            refused: st.refused.take(),
        })
    }
}

/// Where a value lies in the event, rendered only for a message; a key is
/// its range in `State::keys`.
enum Path<'p> {
    Root,
    Key(&'p Path<'p>, Range<usize>),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    /// `players[0].name`, its keys read from `keys` ([`key_shown`]).
    fn render(&self, keys: &str) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(Path::Root, k) => key_shown(&keys[k.clone()]),
            Path::Key(up, k) => format!("{}.{}", up.render(keys), key_shown(&keys[k.clone()])),
            Path::Index(up, i) => format!("{}[{i}]", up.render(keys)),
        }
    }

    /// The path as a message starts: `event` or ``field `a.b` ``.
    fn at(&self, keys: &str) -> String {
        match self {
            Path::Root => "event".to_string(),
            p => format!("field `{}`", p.render(keys)),
        }
    }
}

/// The characters of a path where a read stopped a message shows.
const PATH_SHOWN: usize = 80;

/// The characters of a key a message shows.
const KEY_SHOWN: usize = 40;

/// A key as a message shows it: as it is when it is a plain name (letters,
/// digits, `_`, at most [`KEY_SHOWN`] characters), else JSON-quoted and cut
/// after [`KEY_SHOWN`] characters, so that no key can break a message's line
/// or make it long, and `a.b` is told from `a` then `b`.
pub(crate) fn key_shown(k: &str) -> String {
    let plain = |c: char| (c.is_alphanumeric() || c == '_') && !super::forbidden(c);
    if !k.is_empty() && k.chars().count() <= KEY_SHOWN && k.chars().all(plain) {
        return k.to_string();
    }
    crate::error::quoted_cut(k, KEY_SHOWN)
}

/// A member of an object being read: its key's range in `State::keys`, the
/// range of `"key":value` in the output, and its key's place in reading order.
struct Member {
    key: Range<usize>,
    span: Range<usize>,
    ordinal: usize,
}

/// The visitor's state, shared down the value.
#[derive(Default)]
struct State {
    out: Vec<u8>,
    /// The keys of the objects open, unescaped, one after another.
    keys: String,
    /// The members of the objects open, innermost last.
    members: Vec<Member>,
    scratch: Vec<u8>,
    keys_read: usize,
    envelope: Envelope,
    /// The first duplicate: the reading ordinal of its second occurrence, and its path.
    duplicate: Option<(usize, String)>,
    refused: Option<String>,
    /// The innermost value a failed read stopped in, as a path.
    broken: Option<String>,
}

impl State {
    /// Note the first value no event may hold: `msg` given where it is.
    fn refuse(&mut self, path: &Path, msg: impl FnOnce(String) -> String) {
        if self.refused.is_none() {
            self.refused = Some(msg(path.at(&self.keys)));
        }
    }

    /// Note `path` as where a read stopped when it `failed` there and not
    /// inside (the innermost value is noted first, as the error rises). A
    /// path deeper than a message line holds (128 nested arrays) is cut.
    fn stopped_in(&mut self, path: &Path, failed: bool) {
        if failed && self.broken.is_none() {
            let mut at = path.at(&self.keys);
            if let Some((cut, _)) = at.char_indices().nth(PATH_SHOWN) {
                at.truncate(cut);
                at.push_str("…`");
            }
            self.broken = Some(at);
        }
    }

    /// A string's canonical form, noting one no event may hold.
    fn string(&mut self, s: &str, path: &Path) {
        if plain(s, &mut self.out) {
            return;
        }
        if s.len() > MAX_STRING {
            let n = s.len();
            self.refuse(path, |at| {
                format!("{at}: string of {n} bytes is longer than the limit of {MAX_STRING}")
            });
        } else if let Some(c) = forbidden_char(s) {
            self.refuse(path, |at| forbidden_message(&at, c));
        }
        write_str(s, &mut self.out);
    }

    /// The key at `key` in `keys`, of the object at `path`: noted if no
    /// event may hold it, then written.
    fn key(&mut self, key: Range<usize>, path: &Path) {
        let k = &self.keys[key];
        if plain(k, &mut self.out) {
            return;
        }
        let (long, bad) = (k.len() > MAX_STRING, forbidden_char(k));
        write_str(k, &mut self.out);
        if !long && bad.is_none() {
            return;
        }
        let shown = key_shown(k);
        if long {
            self.refuse(path, |at| {
                format!("{at}: key {shown} is longer than the limit of {MAX_STRING} bytes")
            });
        } else if let Some(c) = bad {
            self.refuse(path, |at| {
                forbidden_message(&format!("{at}: key {shown}"), c)
            });
        }
    }

    /// The members from `mark` on, written from `body` in reading order, put
    /// in key order; notes a key given twice.
    fn sort_members(&mut self, mark: usize, body: usize, path: &Path) {
        let keys = &self.keys;
        let key = |m: &Member| &keys.as_bytes()[m.key.clone()];
        let mine = &mut self.members[mark..];
        if mine.windows(2).all(|w| key(&w[0]) < key(&w[1])) {
            return;
        }
        mine.sort_by(|a, b| key(a).cmp(key(b)).then(a.ordinal.cmp(&b.ordinal)));
        let twice = mine.windows(2).filter(|w| key(&w[0]) == key(&w[1]));
        if let Some(w) = twice.min_by_key(|w| w[1].ordinal) {
            let (ordinal, key) = (w[1].ordinal, w[1].key.clone());
            if self.duplicate.as_ref().is_none_or(|(o, _)| ordinal < *o) {
                self.duplicate = Some((ordinal, Path::Key(path, key).render(keys)));
            }
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.out[body..]);
        self.out.truncate(body);
        for (i, m) in mine.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            let span = m.span.start - body..m.span.end - body;
            self.out.extend_from_slice(&self.scratch[span]);
        }
    }
}

/// Most strings and keys need no escape and hold no byte that may start a
/// forbidden character: one look at each byte tells, and such a one is
/// written quoted as is (`true`).
fn plain(s: &str, out: &mut Vec<u8>) -> bool {
    if s.len() > MAX_STRING || s.bytes().any(|b| PLAIN_NOT[usize::from(b)]) {
        return false;
    }
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
    true
}

/// The bytes a string is looked at closer for: those that need an escape
/// (`"`, `\`; the C0 controls are among the next) and those that may start
/// a forbidden character.
static PLAIN_NOT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b == b'"' as usize || b == b'\\' as usize || may_lead_forbidden(b as u8);
        b += 1;
    }
    t
};

/// Which envelope field a top-level value is.
#[derive(Clone, Copy)]
enum Slot {
    Kind,
    At,
    Id,
}

/// One value at `path`; `field`: the envelope field it is, if any. Its
/// result: whether the value was an object.
struct Walk<'s, 'p> {
    st: &'s mut State,
    path: &'p Path<'p>,
    field: Option<Slot>,
}

impl Walk<'_, '_> {
    fn note(&mut self, f: impl FnOnce() -> Field) {
        let Some(slot) = self.field else { return };
        let env = &mut self.st.envelope;
        let place = match slot {
            Slot::Kind => &mut env.kind,
            Slot::At => &mut env.at,
            Slot::Id => &mut env.id,
        };
        *place = Some(f());
    }

    fn scalar(mut self, what: &'static str, bytes: &[u8]) -> bool {
        self.note(|| match what {
            "null" => Field::Null,
            other => Field::Other(other),
        });
        self.st.out.extend_from_slice(bytes);
        false
    }

    fn text(mut self, s: &str) -> bool {
        self.note(|| Field::Text(s.to_string()));
        self.st.string(s, self.path);
        false
    }

    fn integer(mut self, n: impl serde::Serialize + Into<i128> + Copy) -> bool {
        self.note(|| Field::Other("a number"));
        if n.into().unsigned_abs() > u128::from(MAX_EXACT) {
            self.st
                .refuse(self.path, |at| inexact_message(&at, n.into()));
        }
        // Writing an integer into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.st.out, &n);
        false
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<bool, E> {
        let bytes: &[u8] = if b { b"true" } else { b"false" };
        Ok(self.scalar("a boolean", bytes))
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(self.scalar("null", b"null"))
    }

    fn visit_none<E: de::Error>(self) -> Result<bool, E> {
        self.visit_unit()
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<bool, E> {
        Ok(self.integer(n))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<bool, E> {
        Ok(self.integer(n))
    }

    /// What serde_json reads as a float: a fraction, an exponent, `-0`, or
    /// an integer too wide for 64 bits.
    fn visit_f64<E: de::Error>(mut self, f: f64) -> Result<bool, E> {
        self.note(|| Field::Other("a number"));
        self.st.refuse(self.path, |at| float_message(&at, f));
        self.st.out.push(b'0');
        Ok(false)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<bool, E> {
        Ok(self.text(s))
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<bool, A::Error> {
        self.note(|| Field::Other("an object"));
        let top = matches!(self.path, Path::Root);
        let (mark, keys_mark) = (self.st.members.len(), self.st.keys.len());
        self.st.out.push(b'{');
        let body = self.st.out.len();
        while let Some(k) = map.next_key_seed(KeySeed(&mut self.st.keys))? {
            let key = k..self.st.keys.len();
            let st = &mut *self.st;
            let ordinal = st.keys_read;
            st.keys_read += 1;
            if st.members.len() > mark {
                st.out.push(b',');
            }
            let start = st.out.len();
            st.key(key.clone(), self.path);
            st.out.push(b':');
            let field = match &st.keys[key.clone()] {
                "type" if top => Some(Slot::Kind),
                "at" if top => Some(Slot::At),
                "id" if top => Some(Slot::Id),
                _ => None,
            };
            let path = Path::Key(self.path, key.clone());
            let read = map.next_value_seed(Walk {
                st: &mut *st,
                path: &path,
                field,
            });
            st.stopped_in(&path, read.is_err());
            read?;
            let span = start..st.out.len();
            st.members.push(Member { key, span, ordinal });
        }
        self.st.sort_members(mark, body, self.path);
        self.st.members.truncate(mark);
        self.st.keys.truncate(keys_mark);
        self.st.out.push(b'}');
        Ok(true)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<bool, A::Error> {
        self.note(|| Field::Other("an array"));
        self.st.out.push(b'[');
        for i in 0.. {
            let open = self.st.out.len();
            if i > 0 {
                self.st.out.push(b',');
            }
            let path = Path::Index(self.path, i);
            let walk = Walk {
                st: &mut *self.st,
                path: &path,
                field: None,
            };
            let read = seq.next_element_seed(walk);
            if read.is_err() {
                // An element begun (an object or array, written in part) is
                // where reading stopped; else the array is (a separator, or
                // a scalar that did not read: no element to name).
                let begun = self.st.out.len() > open + usize::from(i > 0);
                let at = if begun { &path } else { self.path };
                self.st.stopped_in(at, !matches!(at, Path::Root));
            }
            if read?.is_none() {
                self.st.out.truncate(open);
                break;
            }
        }
        self.st.out.push(b']');
        Ok(false)
    }
}

/// The message for an integer beyond [`MAX_EXACT`], at `at`.
fn inexact_message(at: &str, n: i128) -> String {
    format!(
        "{at}: {n} is beyond ±{MAX_EXACT}, the largest integer every JSON reader keeps \
         exact (RFC 8785 hashes numbers as doubles); an identifier this large is written \
         as a string"
    )
}

/// The message for a number serde_json read as a float, at `at`. A
/// negative zero (`-0`, `-0.0`) is told to write `0`; a whole number at or
/// beyond 2^64, or at or below -2^63 (where an integer literal out of 64
/// bits lands, rounded), is out of range, however it was written (`2e19`
/// too), and the range said is [`MAX_EXACT`]'s; anything else was written
/// as a float (`1.5`, `1e19`).
fn float_message(at: &str, f: f64) -> String {
    if f == 0.0 && f.is_sign_negative() {
        return format!("{at}: -0 is read as a floating-point number; write 0");
    }
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (f >= 2.0 * TWO_63 || f <= -TWO_63) {
        return format!(
            "{at}: integer out of range (about {f:e}); integers must lie between -{MAX_EXACT} \
             and {MAX_EXACT}"
        );
    }
    let n = serde_json::Number::from_f64(f).map_or_else(|| f.to_string(), |n| n.to_string());
    format!(
        "{at}: {n} is a floating-point number; laurel accepts only integers \
         (write fractions as decimal strings, e.g. \"0.98\")"
    )
}

/// A key, appended unescaped to the open objects' keys; its start there.
struct KeySeed<'k>(&'k mut String);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<usize, E> {
        let start = self.0.len();
        self.0.push_str(s);
        Ok(start)
    }
}
