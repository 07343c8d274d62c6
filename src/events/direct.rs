//! Direct decoding of stored events: canonical bytes to the typed event in one
//! pass over the bytes, without serde, for the event types a fold meets most
//! (every fold decodes each stored record; serde's visitors, field matching and
//! the envelope adaptor were about a third of a full replay's CPU).
//!
//! It never decides that a record is *invalid*: whenever it meets anything it
//! does not handle exactly like the serde path (`Stored` / `Capturing` with the
//! payload types' `Deserialize`), such as escapes in a string, whitespace, a
//! repeated, unknown or missing field, `-0`, a fraction, an integer out of
//! range, an empty identifier, an unknown enum name or trailing bytes, it
//! returns `None` and the caller decodes the serde way, which gives its result
//! or its message. So where it answers, it answers as serde does; the tests
//! compare both on generated events and on mutations of them.
//!
//! Invariant: the whole record is checked to be UTF-8 first, and every string
//! returned is the text between two ASCII quotes of it with no `\` or control
//! character inside, so it is what serde_json reads there.

use super::{Event, Ident, Place, When};
use crate::time;

/// The envelope and payload of a stored event of type `kind`: `(id, event)`,
/// or `None` to decode it the serde way.
pub(crate) fn decode(kind: &str, bytes: &[u8]) -> Option<(Option<String>, Event)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut c = Cur {
        text,
        b: text.as_bytes(),
        pos: 0,
    };
    let mut env = Envelope::default();
    let event = crate::systems::decode_direct(kind, &mut c, &mut env)?;
    let whole = c.pos == c.b.len();
    let typed = env.kind == Some(kind) && env.at;
    (whole && typed).then(|| (env.id.flatten().map(str::to_owned), event))
}

/// The top-level fields the serde path reads apart from the payload: `type`,
/// `at` (seen; its value is the record header's) and `id` (`Some(None)`: null).
#[derive(Default)]
pub(crate) struct Envelope<'a> {
    kind: Option<&'a str>,
    at: bool,
    id: Option<Option<&'a str>>,
}

/// A cursor over the record's bytes (UTF-8, see the module docs).
pub(crate) struct Cur<'a> {
    text: &'a str,
    /// `text`'s bytes.
    b: &'a [u8],
    pos: usize,
}

/// Fill a field once: a repeated field goes the serde way (its error).
pub(crate) fn put<T>(slot: &mut Option<T>, v: T) -> Option<()> {
    slot.replace(v).is_none().then_some(())
}

impl<'a> Cur<'a> {
    pub(crate) fn eat(&mut self, c: u8) -> Option<()> {
        (self.b.get(self.pos) == Some(&c)).then(|| self.pos += 1)
    }

    pub(crate) fn word(&mut self, w: &[u8]) -> Option<()> {
        let end = self.pos + w.len();
        (self.b.get(self.pos..end) == Some(w)).then(|| self.pos = end)
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// A string without escapes or control characters.
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.pos;
        // Up to the first quote, backslash or control byte (the end, if none:
        // then the quote below is missing).
        let len = super::scan::plain_run(self.b.get(start..)?);
        self.pos = start + len;
        self.eat(b'"')?;
        // Between two ASCII quotes of the text: on char boundaries, so `get`
        // slices without scanning (it cannot fail).
        self.text.get(start..start + len)
    }

    pub(crate) fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    /// `null` (`Some(None)`) or what `f` reads.
    pub(crate) fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.word(b"null").is_some() {
            return Some(None);
        }
        f(self).map(Some)
    }

    pub(crate) fn boolean(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.word(b"true").map(|_| true),
            _ => self.word(b"false").map(|_| false),
        }
    }

    /// An integer as serde_json reads one: no leading zero, no fraction or
    /// exponent (a float), not `-0` (a float too); `(negative, magnitude)`.
    pub(crate) fn integer(&mut self) -> Option<(bool, u64)> {
        let neg = self.eat(b'-').is_some();
        let start = self.pos;
        let mut n: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.pos += 1;
        }
        let digits = &self.b[start..self.pos];
        let plain = !digits.is_empty() && (digits[0] != b'0' || digits.len() == 1);
        let float = matches!(self.peek(), Some(b'.' | b'e' | b'E')) || (neg && n == 0);
        (plain && !float).then_some((neg, n))
    }

    pub(crate) fn i64(&mut self) -> Option<i64> {
        match self.integer()? {
            (false, n) => i64::try_from(n).ok(),
            (true, n) => 0i64.checked_sub_unsigned(n),
        }
    }

    /// An [`Ident`]: a non-empty string or a non-negative integer.
    pub(crate) fn ident(&mut self) -> Option<Ident> {
        if self.peek()? == b'"' {
            let s = self.str()?;
            return (!s.is_empty()).then(|| Ident(s.to_owned()));
        }
        match self.integer()? {
            (false, n) => Some(Ident(n.to_string())),
            (true, _) => None,
        }
    }

    pub(crate) fn when(&mut self) -> Option<When> {
        time::parse(self.str()?).map(When)
    }

    pub(crate) fn place(&mut self) -> Option<Place> {
        if self.peek()? == b'"' {
            return (self.str()? == "dnf").then_some(Place::Dnf);
        }
        match self.integer()? {
            (false, n) if n >= 1 => u32::try_from(n).ok().map(Place::At),
            _ => None,
        }
    }

    pub(crate) fn array<T>(&mut self, mut f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        if self.eat(b']').is_some() {
            return Some(out);
        }
        loop {
            out.push(f(self)?);
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(out);
                }
                _ => return None,
            }
        }
    }

    pub(crate) fn strings(&mut self) -> Option<Vec<String>> {
        self.array(Cur::string)
    }

    /// `{"key":value,...}`, `f` reading each value; keys without escapes.
    pub(crate) fn object(
        &mut self,
        mut f: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            let key = self.str()?;
            self.eat(b':')?;
            f(self, key)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The event object: the envelope fields into `env`, the others to `f`.
    pub(crate) fn event(
        &mut self,
        env: &mut Envelope<'a>,
        mut f: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.object(|c, key| match key {
            "type" => put(&mut env.kind, c.str()?),
            "at" => {
                c.str()?;
                (!std::mem::replace(&mut env.at, true)).then_some(())
            }
            "id" => put(&mut env.id, c.opt(Cur::str)?),
            _ => f(c, key),
        })
    }
}
