//! The record's canonical form and its hash. An event reaches storage as
//! its canonical bytes (RFC 8785 JCS for float-free JSON: keys sorted by
//! their UTF-8 bytes, no whitespace, strings escaped as [`write_str`]
//! escapes them), made by the event layer (`events/canon.rs`).
//!
//! A record's canonical form is
//! `{"event":E,"prev":"<hex>","recorded_at":"<rfc3339>","seq":N}` with `E` the
//! event's canonical form; its hash is BLAKE3 of those bytes.

use blake3::platform::Platform;

use super::lanes::{Lanes, Midstate};

/// Whether JSON needs an escape for some byte of `s`.
fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

/// serde_json's string escaping is JCS's: `\"`, `\\`, `\b \f \n \r \t`, other
/// control characters as lowercase `\u00xx`, everything else as UTF-8. A string
/// with none of those is copied as is.
pub(crate) fn write_str(s: &str, out: &mut Vec<u8>) {
    if !needs_escape(s) {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        return;
    }
    // Writing a &str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// The [`Midstate`] of each event's record, through the whole blocks of the
/// bytes it knows before the chain does (`{"event":E,"prev":"`): the parser
/// thread hashes them for many records at once across SIMD lanes, so the
/// chaining thread, which alone knows `prev`, compresses only the rest
/// ([`record_hash`]). A record longer than one chunk is hashed whole, so its
/// event gets `Midstate::default()` without a byte copied. `scratch` holds
/// the bytes hashed.
pub(crate) fn record_heads(
    lanes: &mut Lanes,
    events: &[&[u8]],
    scratch: &mut Vec<u8>,
    heads: &mut Vec<Midstate>,
) {
    scratch.clear();
    let mut ends = Vec::with_capacity(events.len());
    for event in events {
        let start = scratch.len();
        if RECORD_HEAD.len() + event.len() + RECORD_MID.len() + SUFFIX_MIN > CHUNK {
            ends.push(start);
            continue;
        }
        scratch.extend_from_slice(RECORD_HEAD);
        scratch.extend_from_slice(event);
        scratch.extend_from_slice(RECORD_MID);
        ends.push(scratch.len());
    }
    let starts = std::iter::once(0).chain(ends.iter().copied());
    let prefixes: Vec<&[u8]> = starts.zip(&ends).map(|(a, &b)| &scratch[a..b]).collect();
    lanes.heads(&prefixes, heads);
}

/// hash(n) = BLAKE3(JCS(record n)), from the record's [`Midstate`]
/// ([`record_heads`]; `Midstate::default()` hashes it all): its bytes are
/// built in `buf` ([`push_record`]) and only the blocks after the midstate's
/// are compressed (all of them for a record longer than one chunk).
/// `verify` hashes many records at once across SIMD lanes
/// (`ledger::lanes`), whose tests compare them with `blake3::hash`.
pub(crate) fn record_hash(
    head: &Midstate,
    platform: &Platform,
    (event, prev): (&[u8], &[u8; 32]),
    (recorded_at, seq): (&str, u64),
    buf: &mut Vec<u8>,
) -> [u8; 32] {
    buf.clear();
    push_record(buf, event, None, prev, recorded_at, seq);
    head.hash(platform, buf)
}

/// The hash of one record, its canonical bytes built in `buf`: [`record_hash`]
/// from the start, for a caller hashing records one at a time (`restore`
/// checking an export's lines).
pub fn hash_of_record(
    (event, prev): (&[u8], &[u8; 32]),
    (recorded_at, seq): (&str, u64),
    buf: &mut Vec<u8>,
) -> [u8; 32] {
    let platform = Platform::detect();
    record_hash(
        &Midstate::default(),
        &platform,
        (event, prev),
        (recorded_at, seq),
        buf,
    )
}

/// The bytes of a BLAKE3 chunk: a record longer than one is hashed whole.
const CHUNK: usize = 1024;
/// The fewest bytes a record holds after [`RECORD_MID`]: the hex of `prev`,
/// `","recorded_at":""`, `,"seq":0` and `}`.
const SUFFIX_MIN: usize = 64 + 18 + 8 + 1;

/// What a record's canonical bytes hold before its event.
const RECORD_HEAD: &[u8] = b"{\"event\":";
/// What comes between a record's event and the hex of its `prev`.
const RECORD_MID: &[u8] = b",\"prev\":\"";

/// The decimal digits of `n`, written at the end of `buf`.
fn itoa(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// Append a record's canonical bytes to `out` (`verify` builds many in one
/// buffer); with its `hash`, a `laurel export` line. Keys in sorted order
/// (event < hash < prev < recorded_at < seq), so the bytes are canonical:
/// `{"event":E[,"hash":H],"prev":P,"recorded_at":R,"seq":N}`.
pub fn push_record(
    out: &mut Vec<u8>,
    event: &[u8],
    hash: Option<&[u8; 32]>,
    prev: &[u8; 32],
    recorded_at: &str,
    seq: u64,
) {
    out.extend_from_slice(RECORD_HEAD);
    out.extend_from_slice(event);
    if let Some(h) = hash {
        out.extend_from_slice(b",\"hash\":\"");
        out.extend_from_slice(blake3::Hash::from(*h).to_hex().as_bytes());
        out.push(b'"');
    }
    out.extend_from_slice(RECORD_MID);
    out.extend_from_slice(blake3::Hash::from(*prev).to_hex().as_bytes());
    out.extend_from_slice(b"\",\"recorded_at\":");
    write_str(recorded_at, out);
    out.extend_from_slice(b",\"seq\":");
    out.extend_from_slice(itoa(seq, &mut [0u8; 20]));
    out.push(b'}');
}

/// Lowercase hex of a hash.
pub fn hex(h: &[u8; 32]) -> String {
    blake3::Hash::from(*h).to_hex().to_string()
}

/// Parse 64 hex digits.
pub fn parse_hex(s: &str) -> Option<[u8; 32]> {
    blake3::Hash::from_hex(s).ok().map(|h| *h.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The canonical bytes of a record, built around the event's canonical bytes.
    fn record_bytes(event: &[u8], prev: &[u8; 32], recorded_at: &str, seq: u64) -> Vec<u8> {
        let mut out = Vec::new();
        push_record(&mut out, event, None, prev, recorded_at, seq);
        out
    }

    #[test]
    fn record_bytes_equal_the_generic_canonical_form() {
        let ev = json!({"type": "t", "at": "2003-01-01"});
        let prev = [7u8; 32];
        let rec = json!({"event": ev, "prev": hex(&prev), "recorded_at": "2026-01-01T00:00:00.000000Z", "seq": 3});
        assert_eq!(
            record_bytes(
                &serde_json::to_vec(&ev).unwrap(),
                &prev,
                "2026-01-01T00:00:00.000000Z",
                3
            ),
            serde_json::to_vec(&rec).unwrap()
        );
    }

    /// Events of every length from empty to past one chunk: a midstate holds
    /// from none to every block of the first chunk but its last, and a record
    /// longer than a chunk is hashed whole.
    #[test]
    fn a_record_hash_finished_from_its_midstate_equals_blake3_of_the_record() {
        let events: Vec<Vec<u8>> = (0..=1100)
            .map(|n| format!("\"{}\"", "e".repeat(n)).into_bytes())
            .collect();
        let refs: Vec<&[u8]> = events.iter().map(Vec::as_slice).collect();
        let mut lanes = Lanes::default();
        let (mut scratch, mut heads, mut buf) = (Vec::new(), Vec::new(), Vec::new());
        record_heads(&mut lanes, &refs, &mut scratch, &mut heads);
        assert_eq!(heads.len(), refs.len());
        assert!(heads.iter().any(|h| *h != Midstate::default()));
        let platform = lanes.platform();
        for (ev, head) in refs.iter().zip(&heads) {
            for (ra, seq) in [("2026-01-01T00:00:00.000000Z", 1), ("odd \"\n", u64::MAX)] {
                let want = *blake3::hash(&record_bytes(ev, &[9; 32], ra, seq)).as_bytes();
                let got = record_hash(head, &platform, (ev, &[9; 32]), (ra, seq), &mut buf);
                assert_eq!(got, want, "event of {} bytes, {ra:?} {seq}", ev.len());
                let whole = Midstate::default();
                let got = record_hash(&whole, &platform, (ev, &[9; 32]), (ra, seq), &mut buf);
                assert_eq!(got, want, "event of {} bytes hashed whole", ev.len());
            }
        }
    }

    #[test]
    fn record_bytes_escape_recorded_at_and_hash_to_blake3_of_them() {
        let ev =
            serde_json::to_vec(&json!({"type": "t", "at": "2003-01-01", "s": "a\"b"})).unwrap();
        for (ra, seq) in [
            ("2026-01-01T00:00:00.000000Z", 1),
            ("odd \"\n", u64::MAX),
            ("", 0),
        ] {
            let bytes = record_bytes(&ev, &[9; 32], ra, seq);
            let event: serde_json::Value = serde_json::from_slice(&ev).unwrap();
            let rec = json!({"event": event, "prev": hex(&[9; 32]), "recorded_at": ra, "seq": seq});
            assert_eq!(bytes, serde_json::to_vec(&rec).unwrap(), "{ra:?} {seq}");
            let want = *blake3::hash(&bytes).as_bytes();
            let (whole, p) = (Midstate::default(), Platform::detect());
            let got = record_hash(&whole, &p, (&ev, &[9; 32]), (ra, seq), &mut Vec::new());
            assert_eq!(got, want, "{ra:?} {seq}");
        }
    }
}
