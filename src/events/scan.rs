//! A strict, allocation-light JSON scanner over bytes: the fast path of
//! [`super::LineParser::parse`] (input line → canonical bytes), the check
//! that a stored event's `type` was found at its end ([`super::guess_stored_kind`]),
//! and `verify`'s read of a stored event's header ([`super::stored_header`],
//! which refuses what is not laid out as laurel stores events).
//!
//! For input lines it never decides that an input is *invalid*: whenever it meets anything it
//! does not handle exactly like `serde_json` + [`super::parse_event`] (escaped
//! keys, duplicate keys, floats, `-0`, integers out of range, over-long
//! strings, deep nesting, malformed JSON, invalid UTF-8), it returns `None` and
//! the caller takes the slow, `serde_json::Value` path, which accepts or refuses
//! with its usual message. So the fast path can only ever agree with the slow
//! one; tests compare the two on generated and hand-made inputs.
//!
//! Canonical output is the form of `canonical::to_vec`: object keys sorted by
//! their UTF-8 bytes, no whitespace, strings re-escaped as serde_json does.

use super::MAX_STRING;
use crate::ledger::canonical;

/// Nesting the fast path handles; deeper input goes the slow way (which allows 127).
const MAX_DEPTH: usize = 64;

/// A cursor over JSON bytes.
pub(crate) struct Scanner<'a> {
    b: &'a [u8],
    pos: usize,
    /// No whitespace allowed anywhere (a stored event's layout).
    compact: bool,
}

/// A string token: its bytes between the quotes, and whether it has escapes.
#[derive(Clone, Copy)]
pub(crate) struct Str<'a> {
    pub raw: &'a [u8],
    pub escaped: bool,
    /// Where `raw` starts in the scanned bytes.
    start: usize,
}

impl<'a> Str<'a> {
    /// The decoded text (escapes resolved); `None` if it is not valid.
    pub fn text(&self) -> Option<std::borrow::Cow<'a, str>> {
        if !self.escaped {
            return std::str::from_utf8(self.raw).ok().map(Into::into);
        }
        let mut quoted = Vec::with_capacity(self.raw.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(self.raw);
        quoted.push(b'"');
        serde_json::from_slice::<String>(&quoted)
            .ok()
            .map(Into::into)
    }
}

/// How many bytes at the start of `b` are plain string bytes: not `"`, not `\\`,
/// not a control character (below 0x20). Strings are most of an event's bytes,
/// so this looks at eight bytes a step (SWAR): a byte equal to `c` is a zero byte
/// of `x ^ c…c`, and `(v - 0x01…01) & !v & 0x80…80` flags zero bytes (bytes below
/// 0x20 likewise, with `0x20…20`); a borrow can only flag bytes *above* a true
/// hit, so the lowest flag is the first match.
fn plain_run(b: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(LO) & !v;
    let mut words = b.chunks_exact(8);
    let mut n = 0;
    for w in words.by_ref() {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let x = u64::from_le_bytes(a);
        let below = x.wrapping_sub(LO * 0x20) & !x;
        let hit =
            (zero(x ^ (LO * u64::from(b'"'))) | zero(x ^ (LO * u64::from(b'\\'))) | below) & HI;
        if hit != 0 {
            return n + (hit.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    let rest = words.remainder();
    n + rest
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .unwrap_or(rest.len())
}

impl<'a> Scanner<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Scanner {
            b,
            pos: 0,
            compact: false,
        }
    }

    fn ws(&mut self) {
        if self.compact {
            return;
        }
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.pos += 1)
    }

    /// Only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// A string token at the cursor. Raw control characters are refused (as JSON
    /// requires); escapes are only located here, [`Str::text`] checks them.
    fn string(&mut self) -> Option<Str<'a>> {
        self.eat(b'"')?;
        let start = self.pos;
        let mut escaped = false;
        loop {
            self.pos += plain_run(self.b.get(self.pos..)?);
            match *self.b.get(self.pos)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.pos += 2;
                }
                _ => return None, // a raw control character
            }
        }
        let raw = self.b.get(start..self.pos)?;
        self.pos += 1;
        Some(Str {
            raw,
            escaped,
            start,
        })
    }

    /// An integer serde_json reads as `u64` or `i64` (not `-0`, which it reads as
    /// a float); its bytes are already canonical. Fractions and exponents: `None`.
    fn integer(&mut self) -> Option<&'a [u8]> {
        let start = self.pos;
        let neg = self.b.get(self.pos) == Some(&b'-');
        self.pos += usize::from(neg);
        let digits = self.pos;
        while self.b.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        let d = &self.b[digits..self.pos];
        if d.is_empty() || (d[0] == b'0' && d.len() > 1) {
            return None;
        }
        if matches!(self.b.get(self.pos), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        // Up to 18 digits always fit; only `-0` does not (serde_json reads a float).
        if d.len() <= 18 {
            return (!(neg && d == b"0")).then_some(&self.b[start..self.pos]);
        }
        let text = std::str::from_utf8(&self.b[start..self.pos]).ok()?;
        let fits = if neg {
            text.parse::<i64>().is_ok_and(|n| n != 0)
        } else {
            text.parse::<u64>().is_ok()
        };
        fits.then_some(&self.b[start..self.pos])
    }

    fn literal(&mut self) -> Option<&'a [u8]> {
        let rest = &self.b[self.pos..];
        let word: &[u8] = [&b"true"[..], b"false", b"null"]
            .into_iter()
            .find(|w| rest.starts_with(w))?;
        self.pos += word.len();
        Some(&self.b[self.pos - word.len()..self.pos])
    }

    /// Skip one value, checking its structure; returns its bytes.
    pub fn skip(&mut self, depth: usize) -> Option<&'a [u8]> {
        let c = self.peek()?;
        let start = self.pos;
        match c {
            b'{' | b'[' if depth >= MAX_DEPTH => return None,
            b'{' => self.members(|s, _| s.skip(depth + 1).map(|_| ()))?,
            b'[' => self.elements(|s| s.skip(depth + 1).map(|_| ()))?,
            b'"' => self.string().map(|_| ())?,
            b't' | b'f' | b'n' => self.literal().map(|_| ())?,
            _ => self.integer().map(|_| ())?,
        }
        Some(&self.b[start..self.pos])
    }

    /// `{ key: value, ... }`, calling `f` with the cursor on each value.
    fn members(&mut self, mut f: impl FnMut(&mut Self, Str<'a>) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
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

    /// `[ value, ... ]`, calling `f` with the cursor on each element.
    fn elements(&mut self, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            f(self)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// The leading members of a whitespace-free object whose keys rise strictly
/// (as a canonical, JCS, object's do), up to and including key `last`: the
/// scan stops at the first key above it without reading that member or any
/// after it. `None` on anything else: an escaped key, a
/// key not above the one before, malformed bytes.
pub(crate) fn sorted_members_through<'a>(
    b: &'a [u8],
    last: &[u8],
    mut f: impl FnMut(Str<'a>, &'a [u8]),
) -> Option<()> {
    let mut s = Scanner::new(b);
    s.compact = true;
    s.byte(b'{')?;
    if s.byte(b'}').is_some() {
        return (s.pos == b.len()).then_some(());
    }
    let mut prev: &[u8] = &[];
    loop {
        if s.b.get(s.pos) != Some(&b'"') {
            return None;
        }
        let key = s.string()?;
        if key.escaped || (!prev.is_empty() && key.raw <= prev) {
            return None;
        }
        if key.raw > last {
            return Some(());
        }
        prev = key.raw;
        s.byte(b':')?;
        f(key, s.skip(1)?);
        match *s.b.get(s.pos)? {
            b',' => s.pos += 1,
            b'}' => return (s.pos + 1 == b.len()).then_some(()),
            _ => return None,
        }
    }
}

impl<'a> Scanner<'a> {
    /// The byte `c` exactly at the cursor (no whitespace before it).
    fn byte(&mut self, c: u8) -> Option<()> {
        (*self.b.get(self.pos)? == c).then(|| self.pos += 1)
    }
}

/// Is `b` the rest of an object after one of its values: `,` and further
/// members any number of times, then its `}` and nothing else?
pub(crate) fn members_to_end(b: &[u8]) -> bool {
    let mut s = Scanner::new(b);
    while s.eat(b',').is_some() {
        let member = s.string().and_then(|_| s.eat(b':')).and_then(|_| s.skip(1));
        if member.is_none() {
            return false;
        }
    }
    s.eat(b'}').is_some() && s.at_end()
}

/// The top-level fields an event's envelope needs, as canonical value bytes.
#[derive(Default)]
pub(crate) struct Envelope {
    pub kind: Option<std::ops::Range<usize>>,
    pub at: Option<std::ops::Range<usize>>,
    pub id: Option<std::ops::Range<usize>>,
}

/// A member of an object being canonicalised: its key's range in the input and
/// the range of `"key":value` in the output.
struct Member {
    key: std::ops::Range<usize>,
    span: std::ops::Range<usize>,
}

/// Canonicalises input bytes, reusing its scratch space between objects.
#[derive(Default)]
pub(crate) struct Canon {
    members: Vec<Member>,
    scratch: Vec<u8>,
}

impl Canon {
    /// The canonical form of the JSON object `line` into `out` (cleared first),
    /// with where its envelope fields are; `None`: use the slow path.
    pub fn object(&mut self, line: &[u8], out: &mut Vec<u8>) -> Option<Envelope> {
        std::str::from_utf8(line).ok()?;
        out.clear();
        let mut s = Scanner::new(line);
        if s.peek()? != b'{' {
            return None;
        }
        let mut env = Envelope::default();
        self.obj(&mut s, out, 0, Some(&mut env))?;
        if !s.at_end() {
            return None;
        }
        Some(env)
    }

    fn value(&mut self, s: &mut Scanner<'_>, out: &mut Vec<u8>, depth: usize) -> Option<()> {
        match s.peek()? {
            b'{' | b'[' if depth >= MAX_DEPTH => None,
            b'{' => self.obj(s, out, depth, None),
            b'[' => {
                out.push(b'[');
                let mut first = true;
                s.elements(|s| {
                    if !std::mem::take(&mut first) {
                        out.push(b',');
                    }
                    self.value(s, out, depth + 1)
                })?;
                out.push(b']');
                Some(())
            }
            b'"' => string(s.string()?, out),
            b't' | b'f' | b'n' => {
                out.extend_from_slice(s.literal()?);
                Some(())
            }
            _ => {
                out.extend_from_slice(s.integer()?);
                Some(())
            }
        }
    }

    /// Members are written in input order, then re-ordered in place if needed.
    /// `env` (the top level's) gets where its envelope fields' values lie in
    /// `out`, found as the members are placed, so the output is not scanned
    /// a second time for them.
    fn obj(
        &mut self,
        s: &mut Scanner<'_>,
        out: &mut Vec<u8>,
        depth: usize,
        env: Option<&mut Envelope>,
    ) -> Option<()> {
        out.push(b'{');
        let mark = self.members.len();
        let body = out.len();
        s.members(|s, key| {
            if key.escaped || key.raw.len() > MAX_STRING {
                return None;
            }
            if self.members.len() > mark {
                out.push(b',');
            }
            let start = out.len();
            string(key, out)?;
            out.push(b':');
            self.value(s, out, depth + 1)?;
            self.members.push(Member {
                key: key.start..key.start + key.raw.len(),
                span: start..out.len(),
            });
            Some(())
        })?;
        let line = s.b;
        let key = |m: &Member| &line[m.key.clone()];
        let mine = &mut self.members[mark..];
        if !mine.windows(2).all(|w| key(&w[0]) < key(&w[1])) {
            mine.sort_unstable_by(|a, b| key(a).cmp(key(b)));
            if mine.windows(2).any(|w| key(&w[0]) == key(&w[1])) {
                return None; // duplicate keys: serde_json keeps the last; go slow
            }
            self.scratch.clear();
            self.scratch.extend_from_slice(&out[body..]);
            out.truncate(body);
            for (i, m) in mine.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let span = m.span.start - body..m.span.end - body;
                out.extend_from_slice(&self.scratch[span]);
            }
        }
        if let Some(env) = env {
            envelope(&self.members[mark..], line, body, env);
        }
        self.members.truncate(mark);
        out.push(b'}');
        Some(())
    }
}

/// Where the values of `type`, `at` and `id` lie in the output, given an
/// object's `members` in output order, written from `body` on with a comma
/// between two. A key is unescaped (else the slow path), so it is written as
/// its input bytes in quotes, then a colon: its value starts `len + 3` bytes
/// into its member.
fn envelope(members: &[Member], line: &[u8], body: usize, env: &mut Envelope) {
    let mut at = body;
    for m in members {
        let key = &line[m.key.clone()];
        let len = m.span.len();
        let value = Some(at + key.len() + 3..at + len);
        match key {
            b"type" => env.kind = value,
            b"at" => env.at = value,
            b"id" => env.id = value,
            _ => {}
        }
        at += len + 1;
    }
}

/// A string in canonical form, refusing (to the slow path) one over the limit
/// or holding a [`super::forbidden_char`].
fn string(s: Str<'_>, out: &mut Vec<u8>) -> Option<()> {
    if !s.escaped {
        if s.raw.len() > MAX_STRING || (maybe_forbidden(s.raw) && !printable(s.raw)) {
            return None;
        }
        out.push(b'"');
        out.extend_from_slice(s.raw);
        out.push(b'"');
        return Some(());
    }
    let text = s.text()?;
    if text.len() > MAX_STRING || super::forbidden_char(&text).is_some() {
        return None;
    }
    canonical::write_str(&text, out);
    Some(())
}

/// Could unescaped string bytes hold a [`super::forbidden_char`]? Only if they
/// hold DEL or the lead byte of one: a C1 control or U+00AD (0xC2), U+034F
/// (0xCD), U+061C and the number marks (0xD8, 0xDB, 0xDC), and those of the
/// blocks of the other invisible characters, marks, noncharacters and
/// private-use characters (0xE0 to 0xE3, 0xEE, 0xEF, 0xF0 to 0xF4).
fn maybe_forbidden(raw: &[u8]) -> bool {
    raw.iter().any(|&b| {
        matches!(
            b,
            0x7F | 0xC2
                | 0xCD
                | 0xD8
                | 0xDB
                | 0xDC
                | 0xE0..=0xE3
                | 0xEE
                | 0xEF
                | 0xF0..=0xF4
        )
    })
}

/// Are unescaped string bytes UTF-8 without a [`super::forbidden_char`]?
/// (Not: the slow path words the refusal.)
fn printable(raw: &[u8]) -> bool {
    std::str::from_utf8(raw).is_ok_and(|t| super::forbidden_char(t).is_none())
}

/// The text of a JSON string token (`"..."`, escapes resolved); `None` if `b`
/// is not exactly one valid string.
pub(crate) fn string_at(b: &[u8]) -> Option<String> {
    str_at(b).map(std::borrow::Cow::into_owned)
}

/// [`string_at`], borrowed from `b` when the string has no escapes.
pub(crate) fn str_at(b: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let mut s = Scanner::new(b);
    let text = s.string()?.text()?;
    s.at_end().then_some(text)
}

#[cfg(test)]
mod tests {
    use super::plain_run;

    /// The fast path looks closer only at strings holding one of
    /// `maybe_forbidden`'s bytes: every forbidden character's UTF-8 starts
    /// with one of them (but the C0 controls, which no JSON string holds
    /// unescaped: the scanner refuses them).
    #[test]
    fn every_forbidden_character_starts_with_a_byte_the_fast_path_checks() {
        let mut buf = [0u8; 4];
        let forbidden = (0x20..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| crate::events::forbidden(c));
        for c in forbidden {
            let lead = c.encode_utf8(&mut buf).as_bytes()[0];
            assert!(super::maybe_forbidden(&[lead]), "U+{:04X}", c as u32);
        }
    }

    fn naive(b: &[u8]) -> usize {
        b.iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            .unwrap_or(b.len())
    }

    /// Every byte value at every place of runs up to 24 long, over fillers that
    /// sit next to the special bytes (0x1f/0x20/0x21/0x23/0x5b/0x5d, UTF-8 bytes),
    /// with a second special byte after the first (a borrow must not win).
    #[test]
    fn the_word_at_a_time_scan_finds_the_first_special_byte_exactly() {
        let fillers = [b'a', 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff];
        for len in 0..24 {
            for &fill in &fillers {
                for at in 0..len {
                    for c in 0..=255u8 {
                        let mut b = vec![fill; len];
                        b[at] = c;
                        assert_eq!(plain_run(&b), naive(&b), "{b:?}");
                        if at + 1 < len {
                            b[at + 1] = 0;
                            assert_eq!(plain_run(&b), naive(&b), "{b:?}");
                        }
                    }
                }
                assert_eq!(plain_run(&vec![fill; len]), naive(&vec![fill; len]));
            }
        }
    }
}
