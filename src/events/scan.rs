//! A strict, allocation-light scanner over the bytes of a stored event (laid
//! out canonical: one object, keys sorted, each once, no whitespace): the
//! check that a stored event's `type` was found at its end
//! ([`super::guess_stored_kind`]), and `verify`'s read of a stored event's
//! header ([`super::stored_header`], which refuses what is not laid out as
//! laurel stores events). It reads only what those need; it never decides
//! that a value is valid (the decode does), only that bytes are laid out so.

/// Nesting the scanner follows; deeper bytes are not laid out as laurel
/// stores events (serde_json refuses input nested over 127 deep).
const MAX_DEPTH: usize = 128;

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
        Some(Str { raw, escaped })
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

/// The text of a JSON string token (`"..."`, escapes resolved), borrowed
/// from `b` when it has no escapes; `None` if `b` is not exactly one valid string.
pub(crate) fn str_at(b: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let mut s = Scanner::new(b);
    let text = s.string()?.text()?;
    s.at_end().then_some(text)
}

#[cfg(test)]
mod tests {
    use super::plain_run;

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
