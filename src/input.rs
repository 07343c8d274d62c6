//! Reading events from files and stdin: JSON Lines or one JSON array, streamed.
//!
//! Limits (documented in the README): one event is at most [`MAX_EVENT_BYTES`]
//! bytes (a JSON Lines line, or an array element), nested at most 127 deep, itself one
//! (serde_json's limit). An over-long line is refused as soon as the limit is
//! passed, without buffering the rest of it, so memory stays bounded whatever
//! the input.
//!
//! A UTF-8 byte-order mark at the start of an events file or a `--rules`
//! file is skipped ([`without_bom`]): some editors save one, it says only that
//! the text is UTF-8, and RFC 8259 lets a reader ignore it. One anywhere else
//! is a stray character, refused where it stands. (`laurel restore` refuses
//! one: an export is read as `laurel export` wrote it, byte for byte.)
//! A file starting with a UTF-16 byte-order mark (what some editors save as
//! "Unicode") is told that laurel reads UTF-8 ([`UTF16_REFUSED`]), where it
//! would otherwise hear of a stray byte at column 1 ([`marked`] says which); so
//! is UTF-32, and UTF-16 without a mark, told by the NUL bytes beside its
//! first character.

use std::cell::Cell;
use std::io::{BufRead, Read};
use std::rc::Rc;

use serde::de::{Deserializer as _, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// Largest accepted event, in bytes.
pub const MAX_EVENT_BYTES: usize = 64 * 1024;

/// A problem in the input, with the 1-based line it was found on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub line: u64,
    pub msg: String,
}

/// What the callback may return: stop with an error of its own.
pub type Stop = crate::error::Error;

/// The callback [`read_events`] calls with each event's bytes (a JSON Lines
/// line, or an array element's text as written) and the 1-based line it
/// starts on (an element written over several lines is named by its first). Both
/// reach the same parser (`events::LineParser`), so an array element is refused
/// for exactly what a line is, a key given twice included.
pub type OnEvent<'f> = dyn FnMut(u64, &[u8]) -> Result<(), Stop> + 'f;

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What an export starting with the UTF-8 byte-order mark is told by
/// `laurel restore`, which reads an export as written (see the module docs).
pub const BOM_REFUSED: &str = "invalid JSON: the input starts with a UTF-8 byte-order mark, \
     which `laurel export` never writes: give the export as it was written";

/// `bytes` without the UTF-8 byte-order mark it starts with, if any.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// What a file starting with a UTF-16 byte-order mark is told.
pub const UTF16_REFUSED: &str = "invalid JSON: the input is UTF-16 (it starts with its \
     byte-order mark); laurel reads UTF-8: save it as UTF-8";

/// What a file in UTF-32, or in UTF-16 without a byte-order mark, is told:
/// its first character is one byte beside NUL bytes, which UTF-8 JSON never
/// holds.
const WIDE_REFUSED: &str = "invalid JSON: the input is UTF-16 or UTF-32 (NUL bytes beside \
     its first character); laurel reads UTF-8: save it as UTF-8";

/// The refusal of input starting with `start`, when that is UTF-16's
/// byte-order mark ([`UTF16_REFUSED`]) or the first character of UTF-16 or
/// UTF-32 text ([`WIDE_REFUSED`]: a NUL byte before or after it, as RFC
/// 4627 tells the encodings apart). A UTF-8 mark is skipped once
/// ([`without_bom`]); a second is a stray character.
pub fn marked(start: &[u8]) -> Option<&'static str> {
    match start {
        [0xFF, 0xFE, 0, 0, ..] | [0, 0, 0xFE, 0xFF, ..] => Some(WIDE_REFUSED),
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => Some(UTF16_REFUSED),
        [0, a, ..] | [a, 0, ..] if *a != 0 => Some(WIDE_REFUSED),
        [0, 0, 0, a, ..] if *a != 0 => Some(WIDE_REFUSED),
        _ => None,
    }
}

/// Read every event of `r`, calling `f(line, item)` for each, in order. A
/// UTF-8 byte-order mark at the very start is skipped; another encoding's
/// mark or its NUL bytes are refused, saying so ([`marked`]).
pub fn read_events<R: BufRead>(
    mut r: R,
    f: &mut OnEvent<'_>,
) -> Result<Result<(), InputError>, Stop> {
    // The first 4 bytes after a UTF-8 mark whole (a pipe may hand over
    // fewer at first), then read again ahead of the rest.
    let mut start = Vec::with_capacity(7);
    let mut read = |n: u64, start: &mut Vec<u8>| {
        (&mut r)
            .take(n)
            .read_to_end(start)
            .map_err(|e| Stop::io("input", e))
    };
    read(4, &mut start)?;
    if start.starts_with(BOM) {
        start.drain(..BOM.len());
        read(3, &mut start)?;
    }
    if let Some(msg) = marked(&start) {
        return Ok(Err(InputError {
            line: 1,
            msg: msg.into(),
        }));
    }
    let mut r = std::io::Cursor::new(start).chain(r);
    let first = loop {
        let buf = r.fill_buf().map_err(|e| Stop::io("input", e))?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => break Some(buf[i]),
            None if buf.is_empty() => break None,
            None => {
                let n = buf.len();
                r.consume(n);
            }
        }
    };
    match first {
        None => Ok(Ok(())),
        Some(b'[') => read_array(r, f),
        Some(_) => read_lines(r, f),
    }
}

/// Each line is handed over from the reader's own buffer when it lies whole
/// in it (most lines: the file reader's buffer is 256 KiB, an event at most
/// 64 KiB), and copied only when it spans a refill. Why: the append's parser
/// thread reads the input and bounds its writing phase, so the line end is
/// found with `memchr`, not a byte at a time, and a line is not copied.
fn read_lines<R: BufRead>(mut r: R, f: &mut OnEvent<'_>) -> Result<Result<(), InputError>, Stop> {
    let mut line_no = 0u64;
    let mut buf = Vec::new();
    loop {
        line_no += 1;
        let avail = r.fill_buf().map_err(|e| Stop::io("input", e))?;
        if let Some(end) = memchr::memchr(b'\n', avail) {
            // The same limit as `read_line_limited`: the line before its
            // `\n` or `\r\n` at most `MAX_EVENT_BYTES` bytes.
            let cr = end > 0 && avail[end - 1] == b'\r';
            if end - usize::from(cr) > MAX_EVENT_BYTES {
                return Ok(Err(too_long(line_no)));
            }
            let line = &avail[..=end];
            if !line.iter().all(u8::is_ascii_whitespace) {
                f(line_no, line)?;
            }
            r.consume(end + 1);
            continue;
        }
        buf.clear();
        match read_line_limited(&mut r, &mut buf, MAX_EVENT_BYTES)
            .map_err(|e| Stop::io("input", e))?
        {
            LineRead::Eof => return Ok(Ok(())),
            LineRead::TooLong => return Ok(Err(too_long(line_no))),
            LineRead::Line => {}
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        f(line_no, &buf)?;
    }
}

fn too_long(line: u64) -> InputError {
    InputError {
        line,
        msg: format!("line is longer than the limit of {MAX_EVENT_BYTES} bytes"),
    }
}

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Read up to and including `\n`, refusing (without reading on) a line whose
/// bytes before its `\n` or `\r\n` pass `limit`.
fn read_line_limited<R: BufRead>(
    r: &mut R,
    out: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<LineRead> {
    loop {
        let avail = r.fill_buf()?;
        if avail.is_empty() {
            return Ok(match out.len() {
                0 => LineRead::Eof,
                n if n > limit => LineRead::TooLong,
                _ => LineRead::Line,
            });
        }
        let (n, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        out.extend_from_slice(&avail[..n]);
        r.consume(n);
        let ending = match (done, out.ends_with(b"\r\n")) {
            (true, true) => 2,
            (true, false) => 1,
            (false, _) => 0,
        };
        // Not yet at its end, a line may still end in `\r\n`.
        if out.len() > limit + ending.max(2 * usize::from(!done)) {
            return Ok(LineRead::TooLong);
        }
        if done {
            return Ok(LineRead::Line);
        }
    }
}

/// The message for a line that is not JSON, naming the member or element
/// the parser stopped in (`place`, ``field `players[2]` ``) unless the line
/// ended first. A line that ends inside its value (an event written over
/// several lines) or is not JSON from its first characters (a CSV file, a
/// YAML file) is told what laurel reads.
pub fn invalid_json(e: &serde_json::Error, place: Option<&str>) -> String {
    let hint = match e.is_eof() || e.column() <= 2 {
        true => {
            "; laurel reads JSON Lines (one event a line) or one JSON array of events \
             (an event written over several lines belongs in an array)"
        }
        false => "",
    };
    let place = match place {
        Some(p) if !e.is_eof() => format!(" in {p}"),
        _ => String::new(),
    };
    format!("invalid JSON{place}: {}{hint}", strip_position(e))
}

/// The largest integer input may hold, either sign: 2^53 − 1, the largest
/// every JSON reader keeps exact (RFC 7493, I-JSON). RFC 8785's canonical
/// form writes numbers as doubles, so a verifier of the chain in another
/// language would rewrite a larger one and find every hash after it wrong.
pub const MAX_EXACT: u64 = (1 << 53) - 1;

/// serde_json's message without its line (the caller names the line), the
/// column kept; its words for a lone UTF-16 surrogate escape (`"\ud800"`)
/// and a number beyond every integer say what is wrong.
fn strip_position(e: &serde_json::Error) -> String {
    let mut s = e.to_string();
    let out_of_range =
        format!("number out of range; integers must lie between -{MAX_EXACT} and {MAX_EXACT}");
    for (theirs, ours) in [
        ("unexpected end of hex escape", LONE_SURROGATE),
        ("lone leading surrogate in hex escape", LONE_SURROGATE),
        ("number out of range", out_of_range.as_str()),
    ] {
        if s.starts_with(theirs) {
            s = s.replacen(theirs, ours, 1);
        }
    }
    match s.rfind(" at line ") {
        // The end of the input has no column worth giving.
        Some(i) if e.is_eof() => s[..i].to_string(),
        Some(i) => format!("{} (column {})", &s[..i], e.column()),
        None => s,
    }
}

/// What a `\uD800`-`\uDBFF` escape not followed by a `\uDC00`-`\uDFFF`
/// one is told.
const LONE_SURROGATE: &str = "a lone UTF-16 surrogate escape: a high one (\\uD800 to \\uDBFF) \
    must be followed by a low one (\\uDC00 to \\uDFFF), the two writing one character";

fn element_too_long() -> String {
    format!("array element is longer than the limit of {MAX_EVENT_BYTES} bytes")
}

/// Counts lines and the bytes of the current array element as serde_json reads.
struct Counting<R> {
    inner: R,
    state: Rc<Counter>,
}

#[derive(Default)]
struct Counter {
    line: Cell<u64>,
    since: Cell<usize>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let lines = buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        self.state.line.set(self.state.line.get() + lines);
        self.state.since.set(self.state.since.get() + n);
        // Stop reading an element that cannot be short enough (the exact
        // limit, on the element's own bytes, is [`Each`]'s); the slack, as
        // much again, is the commas and whitespace between elements, which
        // serde_json skips without keeping (so memory stays bounded).
        if self.state.since.get() > 2 * MAX_EVENT_BYTES {
            return Err(std::io::Error::other(element_too_long()));
        }
        Ok(n)
    }
}

struct Each<'a, 'f> {
    f: &'a mut OnEvent<'f>,
    counter: Rc<Counter>,
    stopped: &'a mut Option<Stop>,
}

impl<'de> Visitor<'de> for Each<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.counter.since.set(0);
        while let Some(v) = seq.next_element::<Box<RawValue>>()? {
            // The element has just been read to its last byte: it starts as
            // many lines up as it holds line breaks.
            if v.get().len() > MAX_EVENT_BYTES {
                return Err(serde::de::Error::custom(element_too_long()));
            }
            let breaks = v.get().bytes().filter(|&b| b == b'\n').count() as u64;
            let line = self.counter.line.get() + 1 - breaks;
            self.counter.since.set(0);
            if let Err(e) = (self.f)(line, v.get().as_bytes()) {
                *self.stopped = Some(e);
                return Err(serde::de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

fn read_array<R: BufRead>(r: R, f: &mut OnEvent<'_>) -> Result<Result<(), InputError>, Stop> {
    let counter = Rc::new(Counter::default());
    let reader = Counting {
        inner: r,
        state: counter.clone(),
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut stopped = None;
    let each = Each {
        f,
        counter: counter.clone(),
        stopped: &mut stopped,
    };
    let res = de.deserialize_seq(each).and_then(|_| de.end());
    if let Some(stop) = stopped {
        return Err(stop);
    }
    Ok(res.map_err(|e| InputError {
        line: counter.line.get() + 1,
        msg: format!("invalid JSON array: {}", strip_position(&e)),
    }))
}

/// A file read once from start to end that tells the kernel to drop each part
/// from its page cache once it has been read (`posix_fadvise(DONTNEED)`, in
/// steps of at least [`DropBehind::STEP`] bytes): an append reads its input
/// once, so keeping it cached only takes memory, and the pages it frees are
/// the ones the append's own writes and state then take.
///
/// Why: on virtual machines that hand memory back to the host when idle, a
/// page the system has not used lately costs system CPU the first time it is
/// written; a large input dropped as it is read frees pages the append's own
/// writes then reuse.
///
/// Invariants: only whole pages already read are advised ([`drop_range`]),
/// so nothing is read twice; the bytes are the file's, whatever the advice
/// does. On a pipe or anything else that refuses the advice it is a plain
/// reader: the advice's errors are ignored (it is only advice).
pub struct DropBehind {
    file: std::fs::File,
    read: u64,
    dropped: u64,
}

impl DropBehind {
    /// The least span advised at once: one call per 8 MiB read.
    pub const STEP: u64 = 8 << 20;

    pub fn new(file: std::fs::File) -> DropBehind {
        DropBehind {
            file,
            read: 0,
            dropped: 0,
        }
    }
}

/// The page size the advice is aligned to (a multiple of it works as well).
const PAGE: u64 = 4096;

/// What to advise after `read` bytes when `0..dropped` were advised before
/// (`dropped` a multiple of [`PAGE`]): `dropped..to`, the whole pages read
/// since, once they make at least [`DropBehind::STEP`] bytes.
fn drop_range(read: u64, dropped: u64) -> Option<std::ops::Range<u64>> {
    let to = read / PAGE * PAGE;
    (to >= dropped + DropBehind::STEP).then_some(dropped..to)
}

impl Read for DropBehind {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read += n as u64;
        if let Some(r) = drop_range(self.read, self.dropped) {
            let len = std::num::NonZeroU64::new(r.end - r.start);
            let advice = rustix::fs::Advice::DontNeed;
            let _ = rustix::fs::fadvise(&self.file, r.start, len, advice);
            self.dropped = r.end;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Every event as a Value (lines parsed here as the ledger's parser would).
    fn collect(text: &str) -> (Vec<(u64, Value)>, Result<(), InputError>) {
        let mut got = Vec::new();
        let mut bad = None;
        let res = read_events(text.as_bytes(), &mut |l, b| {
            match serde_json::from_slice(b) {
                Ok(v) => got.push((l, v)),
                Err(e) => {
                    bad.get_or_insert(InputError {
                        line: l,
                        msg: invalid_json(&e, None),
                    });
                }
            }
            Ok(())
        })
        .unwrap();
        (got, bad.map_or(res, Err))
    }

    /// A reader handing over one byte at a time (a slow pipe) is told of
    /// its UTF-16 as a whole file is, and UTF-8 from it reads whole.
    #[test]
    fn the_first_bytes_are_judged_whole_however_the_reader_hands_them_over() {
        let utf16: Vec<u8> = "{\"a\":1}\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let slow = std::io::BufReader::with_capacity(1, utf16.as_slice());
        let said = read_events(slow, &mut |_, _| Ok(())).unwrap();
        assert_eq!(said.unwrap_err().msg, WIDE_REFUSED);
        let mut lines = Vec::new();
        let text = "{\"a\":1}\n{\"a\":2}\n";
        let slow = std::io::BufReader::with_capacity(1, text.as_bytes());
        read_events(slow, &mut |l, b| {
            lines.push((l, b.to_vec()));
            Ok(())
        })
        .unwrap()
        .unwrap();
        let want = [(1, b"{\"a\":1}\n".to_vec()), (2, b"{\"a\":2}\n".to_vec())];
        assert_eq!(lines, want);
    }

    #[test]
    fn json_lines_skip_blanks_and_count_lines() {
        let (got, res) = collect("{\"a\":1}\n\n{\"a\":2}\n");
        assert!(res.is_ok());
        assert_eq!(got.iter().map(|(l, _)| *l).collect::<Vec<_>>(), vec![1, 3]);
        let (_, res) = collect("{\"a\":1}\n{oops\n");
        assert_eq!(res.unwrap_err().line, 2);
    }

    #[test]
    fn arrays_stream_elements_with_their_lines() {
        let (got, res) = collect("[\n{\"a\":1},\n{\"a\":2}\n]\n");
        assert!(res.is_ok(), "{res:?}");
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].0, 3);
        let (got, res) = collect("[\n  {\n    \"a\": 1\n  },\n  {\"a\": 2},\n  {\n\"a\":\n3}\n]\n");
        assert!(res.is_ok(), "{res:?}");
        assert_eq!(
            got.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
            vec![2, 5, 6]
        );
        let (_, res) = collect("[{\"a\":1}] x");
        assert!(res.is_err());
    }

    type Lines = Vec<(u64, Vec<u8>)>;

    /// Every line of `text` as `read_events` hands it over through a reader
    /// buffer of `cap` bytes, with the problem that stopped it.
    fn lines_through(text: &[u8], cap: usize) -> (Lines, Result<(), InputError>) {
        let mut got = Vec::new();
        let r = std::io::BufReader::with_capacity(cap, text);
        let res = read_events(r, &mut |l, b| {
            got.push((l, b.to_vec()));
            Ok(())
        })
        .unwrap();
        (got, res)
    }

    /// Lines whole in the reader's buffer are handed over from it, the others
    /// copied across refills: both give the same lines, blanks, last line
    /// without `\n` and limit, whatever the buffer's size.
    #[test]
    fn lines_read_in_place_or_across_refills_are_the_same() {
        let at_limit = format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_EVENT_BYTES - 8));
        assert_eq!(at_limit.len(), MAX_EVENT_BYTES);
        let mut text = format!("{{\"a\":1}}\n \n\r\n{at_limit}\n{at_limit}\r\n").into_bytes();
        for i in 0..50 {
            text.extend_from_slice(format!("{{\"n\":{}}}\r\n", "7".repeat(i)).as_bytes());
        }
        text.extend_from_slice(b"{\"last\":true}");
        let (whole, res) = lines_through(&text, 1 << 20);
        assert!(res.is_ok(), "{res:?}");
        assert_eq!(whole.len(), 54);
        assert_eq!(whole[1], (4, format!("{at_limit}\n").into_bytes()));
        assert_eq!(whole[2], (5, format!("{at_limit}\r\n").into_bytes()));
        assert_eq!(whole[53].1, b"{\"last\":true}");
        for cap in [1, 7, 64, 4096, MAX_EVENT_BYTES, MAX_EVENT_BYTES + 1] {
            assert_eq!(lines_through(&text, cap), (whole.clone(), Ok(())), "{cap}");
        }
        for over in [
            format!("{{}}\n{at_limit}x\n{{}}\n"),
            format!("{{}}\n{at_limit}x\r\n{{}}\n"),
            format!("{{}}\n{at_limit}x"),
        ] {
            for cap in [16, 1 << 20] {
                let (got, res) = lines_through(over.as_bytes(), cap);
                assert_eq!((got.len(), res.unwrap_err().line), (1, 2), "{cap}");
            }
        }
    }

    /// An array element has the limit of a line: its own bytes, exactly.
    #[test]
    fn an_array_element_over_the_limit_is_refused_as_a_line_is() {
        let event =
            |extra: usize| format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_EVENT_BYTES - 8 + extra));
        let (got, res) = collect(&format!("[\n{},\n{{}}]", event(0)));
        assert!(res.is_ok(), "{res:?}");
        assert_eq!(got.len(), 2);
        // Blank lines between elements are not the element's bytes.
        let spaced = format!("[{{}},{}{}]", "\n".repeat(200), event(0));
        let (got, res) = collect(&spaced);
        assert!(res.is_ok() && got.len() == 2, "{res:?}");
        for extra in [1, 40] {
            let (_, res) = collect(&format!("[\n{{}},\n{}\n]", event(extra)));
            assert!(res
                .unwrap_err()
                .msg
                .contains("array element is longer than the limit"));
        }
    }

    #[test]
    fn over_long_lines_and_deep_nesting_are_refused() {
        let long = format!("{{\"a\":\"{}\"}}\n", "x".repeat(MAX_EVENT_BYTES + 10));
        let (_, res) = collect(&long);
        assert!(res.unwrap_err().msg.contains("longer than the limit"));
        let deep = format!("{}{}\n", "[".repeat(10_000), "]".repeat(10_000));
        let (_, res) = collect(&format!("{{\"a\":{deep}}}"));
        assert!(res.unwrap_err().msg.contains("recursion limit"));
    }

    /// The advised ranges follow each other from 0 without a gap, each whole
    /// pages already read and at least a step long, and what is left unadvised
    /// is less than a step and a page, whatever the sizes of the reads.
    #[test]
    fn drop_behind_advises_only_whole_pages_already_read_in_order() {
        let step = DropBehind::STEP;
        for sizes in [
            vec![1u64],
            vec![4095, 1, 8191],
            vec![step - 1, 2, 5000],
            vec![777_777],
        ] {
            let (mut read, mut dropped, mut calls) = (0u64, 0u64, 0);
            while read < 5 * step + 12_345 {
                for &n in &sizes {
                    read += n;
                    if let Some(r) = drop_range(read, dropped) {
                        assert_eq!(r.start, dropped, "no gap, no overlap");
                        assert!(r.end <= read && r.end % PAGE == 0, "{r:?} after {read}");
                        assert!(r.end - r.start >= step, "{r:?}");
                        dropped = r.end;
                        calls += 1;
                    }
                }
            }
            assert!(
                read - dropped < step + PAGE,
                "{read} read, {dropped} advised"
            );
            assert!(calls >= 4, "{calls} calls for {read} bytes");
        }
    }

    /// Reading through the drop-behind reader gives the file's bytes, across
    /// several advised steps and reads of odd sizes.
    #[test]
    fn drop_behind_reads_the_files_bytes() {
        let mut f = tempfile::tempfile().unwrap();
        let len = 2 * DropBehind::STEP as usize + 12_345;
        let text: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        std::io::Write::write_all(&mut f, &text).unwrap();
        std::io::Seek::rewind(&mut f).unwrap();
        let mut r = std::io::BufReader::with_capacity(100_003, DropBehind::new(f));
        let mut got = Vec::new();
        r.read_to_end(&mut got).unwrap();
        assert_eq!(got.len(), text.len());
        assert!(got == text, "the bytes read differ from the file's");
    }
}
