//! A corpus-driven fuzz run of the event parser and the append path.
//!
//! Inputs are the lines of `events/*.jsonl` and `tests/corpus/`, mutated a few
//! times each: bytes flipped, inserted (JSON punctuation, escapes, control and
//! bidi characters, bytes that are not UTF-8), deleted or duplicated, numbers
//! replaced by extreme ones, pieces of other lines spliced in. What must hold
//! for every input:
//!
//! - parsing never panics, and a parser that has read other lines answers
//!   (the event and its canonical bytes, or the refusal's message) as a
//!   fresh one (`parse_line`) does;
//! - an accepted event's canonical bytes hold the line's JSON, in the form
//!   serde_json writes a `Value` (keys sorted, no whitespace), and parse to
//!   the same event and bytes;
//! - an append of a batch of such lines never panics; refused, it leaves the
//!   head where it was; accepted, `verify` passes.
//!
//! It runs `LAUREL_FUZZ_SECS` seconds (default 10, what CI spends) from the
//! seed `LAUREL_FUZZ_SEED` (default: the clock, printed so a failure can be
//! run again), and prints how many inputs it tried.

use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use laurel::events::LineError;
use laurel::ledger::{Input, Ledger};
use laurel::systems::{Event, LineParser, Screened};

/// xorshift64*: a small deterministic generator, so a seed replays a run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// The sample streams (`events/*.jsonl`, each a list of lines, in order) and
/// every non-empty line of them and of the bad-input corpus.
fn corpus() -> (Vec<Vec<Vec<u8>>>, Vec<Vec<u8>>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut streams, mut lines) = (Vec::new(), Vec::new());
    for dir in ["events", "tests/corpus", "tests/corpus/systems"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read(&path).unwrap();
                let file: Vec<Vec<u8>> = text
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec)
                    .collect();
                lines.extend(file.iter().cloned());
                if dir == "events" {
                    streams.push(file);
                }
            }
        }
    }
    assert!(streams.len() > 10, "{} streams", streams.len());
    assert!(lines.len() > 500, "corpus of {} lines", lines.len());
    (streams, lines)
}

/// Bytes worth inserting: JSON's punctuation, escapes, digits, a control
/// character, a bidi override, bytes that are never UTF-8.
const PIECES: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"\\",
    b"\\u0000",
    b"\\ud800",
    b"-",
    b"0",
    b"9",
    b"e",
    b".",
    b" ",
    b"\x1b",
    b"\xe2\x80\xae",
    b"\xff",
    b"\xc0\x80",
    b"null",
    b"true",
];

/// Numbers at and beyond every range: what a hostile file gives.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1e3",
    "0.5",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "99999999999999999999",
    "4000000000000000000",
    "1e308",
    "2147483648",
];

fn mutate(line: &[u8], corpus: &[Vec<u8>], rng: &mut Rng) -> Vec<u8> {
    let mut b = line.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(7) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << rng.below(8);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                b.splice(at..at, piece.iter().copied());
            }
            2 => {
                let end = (at + 1 + rng.below(8)).min(b.len());
                b.drain(at.min(end)..end);
            }
            3 => {
                let end = (at + 1 + rng.below(16)).min(b.len());
                let copy = b[at.min(end)..end].to_vec();
                b.splice(at..at, copy);
            }
            4 => replace_number(&mut b, rng),
            5 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len());
                let end = (from + 1 + rng.below(24)).min(other.len());
                b.splice(at..at, other[from..end].iter().copied());
            }
            _ => {
                let end = (at + rng.below(6)).min(b.len());
                let name = ["\"Ada Lovelace\"", "\"\"", "\"a\\nb\""][rng.below(3)];
                b.splice(at..end, name.bytes());
            }
        }
    }
    b
}

/// Replace one run of digits with one of [`NUMBERS`].
fn replace_number(b: &mut Vec<u8>, rng: &mut Rng) {
    let starts: Vec<usize> = (0..b.len())
        .filter(|&i| b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()))
        .collect();
    if starts.is_empty() {
        return;
    }
    let s = starts[rng.below(starts.len())];
    let e = (s..b.len())
        .find(|&i| !b[i].is_ascii_digit())
        .unwrap_or(b.len());
    let n = NUMBERS[rng.below(NUMBERS.len())];
    b.splice(s..e, n.bytes());
}

/// Up to 20 consecutive lines of one sample stream, one of them mutated half
/// of the time: batches an append may accept, or refuse for one flaw.
fn window(streams: &[Vec<Vec<u8>>], corpus: &[Vec<u8>], rng: &mut Rng) -> Vec<Vec<u8>> {
    let stream = &streams[rng.below(streams.len())];
    let from = rng.below(stream.len());
    let to = (from + 1 + rng.below(20)).min(stream.len());
    let mut batch = stream[from..to].to_vec();
    if rng.below(2) == 0 {
        let i = rng.below(batch.len());
        batch[i] = mutate(&batch[i], corpus, rng);
    }
    batch
}

/// A parse's answer in a form two answers can be compared by.
fn answer(r: Result<Screened, LineError>) -> Result<Screened, String> {
    r.map_err(|e| match e {
        LineError::Json(e, _) => format!("json: {e}"),
        LineError::Event(m) => format!("event: {m}"),
    })
}

/// Check one line against the parser's promises; `Err` says what broke.
fn check_line(parser: &mut LineParser, line: &[u8]) -> Result<(), String> {
    let got = catch_unwind(AssertUnwindSafe(|| answer(parser.parse(line))))
        .map_err(|_| "the parser panicked".to_string())?;
    let fresh = catch_unwind(|| answer(laurel::events::parse_line::<Event>(line)))
        .map_err(|_| "parse_line panicked".to_string())?;
    if got != fresh {
        return Err(format!("parse gave {got:?}, a fresh parser {fresh:?}"));
    }
    if let Ok(p) = got {
        let value: serde_json::Value = serde_json::from_slice(line)
            .map_err(|e| format!("an accepted line is not JSON to serde_json: {e}"))?;
        let sorted = serde_json::to_vec(&value).map_err(|e| e.to_string())?;
        if sorted != p.canonical {
            let c = String::from_utf8_lossy(&p.canonical);
            return Err(format!(
                "canonical {c}, serde_json {}",
                String::from_utf8_lossy(&sorted)
            ));
        }
        let again = answer(parser.parse(&p.canonical))?;
        if again != p {
            return Err(format!("its canonical form parses to {again:?}"));
        }
    }
    Ok(())
}

/// Append `lines` to `ledger`: whether it was accepted, or `Err` saying what
/// broke. (One `Ledger` serves many appends: sled lets go of its files a
/// moment after a drop, so reopening at once in one process can find them
/// still locked.)
fn check_append(ledger: &Ledger, lines: &[Vec<u8>]) -> Result<bool, String> {
    let text = lines.join(&b'\n');
    let before = ledger.head().map_err(|e| format!("head: {e}"))?;
    let input = Input {
        name: "fuzz".into(),
        reader: Box::new(Cursor::new(text)),
        first_line: 1,
    };
    let result = catch_unwind(AssertUnwindSafe(|| ledger.append(vec![input])))
        .map_err(|_| "the append panicked".to_string())?;
    let after = ledger.head().map_err(|e| format!("head: {e}"))?;
    match result {
        Err(_) if after != before => Err(format!("a refused append moved the head to {after:?}")),
        Err(_) => Ok(false),
        Ok(_) => match ledger.verify(None) {
            Ok(report) if report.problems.is_empty() => Ok(true),
            Ok(report) => Err(format!(
                "verify after an accepted append: {:?}",
                report.problems
            )),
            Err(e) => Err(format!("verify after an accepted append: {e}")),
        },
    }
}

#[test]
fn fuzzed_event_lines_never_panic_and_parse_and_append_as_promised() {
    let secs = env_u64("LAUREL_FUZZ_SECS").unwrap_or(10);
    let seed = env_u64("LAUREL_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1
    });
    eprintln!("fuzz: {secs} s from LAUREL_FUZZ_SEED={seed}");
    let (streams, corpus) = corpus();
    let mut rng = Rng(seed);
    let mut parser = LineParser::default();
    let tmp = tempfile::tempdir().unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let (mut lines, mut appends, mut accepted, mut ledgers) = (0u64, 0u64, 0u64, 0u64);
    let mut ledger = Ledger::init(&tmp.path().join("0")).unwrap();
    while Instant::now() < deadline {
        let batch = if rng.below(2) == 0 {
            window(&streams, &corpus, &mut rng)
        } else {
            (0..1 + rng.below(8))
                .map(|_| mutate(&corpus[rng.below(corpus.len())], &corpus, &mut rng))
                .collect()
        };
        for line in &batch {
            if let Err(what) = check_line(&mut parser, line) {
                panic!("{what}\nline: {}", String::from_utf8_lossy(line));
            }
            lines += 1;
        }
        match check_append(&ledger, &batch) {
            Ok(ok) => accepted += u64::from(ok),
            Err(what) => {
                let text: Vec<_> = batch.iter().map(|l| String::from_utf8_lossy(l)).collect();
                panic!("{what}\nbatch:\n{}", text.join("\n"));
            }
        }
        appends += 1;
        // A fresh ledger now and then, so early-history appends keep coming.
        if appends % 200 == 0 {
            ledgers += 1;
            ledger = Ledger::init(&tmp.path().join(ledgers.to_string())).unwrap();
        }
    }
    eprintln!(
        "fuzz: {lines} lines parsed, {appends} appends ({accepted} accepted), \
         {} ledgers; nothing found",
        ledgers + 1
    );
    assert!(lines > 0 && appends > 0);
}
