//! The on-disk byte layout of records.
//!
//! sled costs tens of microseconds per key, so records are not one key each:
//! an append packs its records into *chunks* of up to [`MAX_RECORDS`] records,
//! closed at the first record that takes one to [`MAX_BYTES`] bytes or more,
//! one sled key each, keyed by the chunk's first seq. The
//! key's value is a pointer into the append's segment file, where the chunk's
//! stored bytes are ([`super::segment`]).
//!
//! ```text
//! tree "chunks": key = first_seq as u64 big-endian (keys sort by seq)
//! a chunk's bytes (all integers little-endian):
//!   0   4   magic        b"LRC1"
//!   4   8   first_seq    u64
//!   12  4   count        u32, >= 1
//!   16  32  prev         hash of record first_seq - 1 (32 zero bytes for seq 1)
//!   48  8   recorded_at  i64 microseconds UTC (every record of an append shares it)
//!   56  2   ra_len       u16
//!   58  ..  recorded_at  RFC 3339 text, exactly as hashed
//!   then `count` records, each:
//!     32  hash      BLAKE3 of the record's canonical form (see canonical.rs)
//!     8   at        i64 microseconds UTC (domain time, for the fold order)
//!     8   void      u64 target seq of a ledger.voided, else 0
//!     16  idem      idempotency key: BLAKE3("id\0" + id)[..16], or content[..16]
//!     16  content   BLAKE3(event canonical bytes)[..16]
//!     4   len       u32
//!     len event     the event's canonical JSON
//! ```
//!
//! The record's `prev` is not stored per record: it is the previous record's hash
//! (the chunk's `prev` for the first). `verify` recomputes every `hash` from the
//! bytes, so changing any byte of an event, a hash or a header is detected.
//!
//! What is stored in the segment is that layout compressed ([`pack_into`]):
//!
//! ```text
//!   0   4   magic        b"LRZ2"
//!   4   4   raw_len      u32, the length of the LRC1 bytes, <= MAX_RAW
//!   8   4   checksum     u32, CRC-32 (ISO-HDLC) of raw_len and the LZ4 block
//!   12  ..  lz4 block    the LRC1 bytes above, LZ4 block format (no frame)
//! ```
//!
//! Why LZ4: an import waits on its writes, and LZ4 shrinks chunks severalfold
//! while it unpacks faster than anything that shrinks them more (zstd unpacks
//! more slowly, which `verify` and every query would feel).
//!
//! Why a checksum: every command reads records through [`unpack`], and only
//! `verify` recomputes their hashes. The checksum makes every reader refuse a
//! damaged chunk (exit 1, naming the seq it starts at) instead of folding
//! changed bytes into a table; CRC-32 runs at several GB/s, a few
//! milliseconds for all the chunks of a million events. It detects damage, not
//! forgery: whoever rewrites a chunk can rewrite its checksum, and only the
//! hash chain, checked by `verify` against a published head, shows that.

use blake3::platform::Platform;

use super::canonical;
use super::lanes::Midstate;
use crate::error::Error;

pub const MAGIC: &[u8; 4] = b"LRC1";
/// The magic of a packed (compressed) chunk value.
pub const PACKED: &[u8; 4] = b"LRZ2";
/// The bytes before a packed chunk's LZ4 block: magic, `raw_len`, checksum.
pub const PACKED_HEADER: usize = 12;
/// The largest `raw_len` [`unpack`] accepts: a chunk is at most [`MAX_BYTES`]
/// plus one record of at most 64 KiB of event (`input::MAX_EVENT_BYTES`), so a
/// larger length is damage, and must not allocate.
pub const MAX_RAW: usize = 1024 * 1024;
pub const MAX_RECORDS: usize = 1024;
/// The raw bytes at which a chunk is full. A chunk's sled key (its pointer)
/// and index entry are paid once for all its records.
pub const MAX_BYTES: usize = 256 * 1024;
const HEADER: usize = 58;

const REC_HEADER: usize = 32 + 8 + 8 + 16 + 16 + 4;

/// One record as stored.
#[derive(Debug, Clone, Copy)]
pub struct RecordView<'a> {
    pub seq: u64,
    pub hash: [u8; 32],
    pub prev: [u8; 32],
    pub at: i64,
    pub void_target: Option<u64>,
    pub idem: [u8; 16],
    pub content: [u8; 16],
    pub event: &'a [u8],
}

/// The keys of an event: its idempotency and content keys, and the
/// midstate of its record's hash (made of this very event: another one's
/// gives a wrong hash).
#[derive(Clone, Copy, Debug)]
pub struct Keys {
    pub idem: [u8; 16],
    pub content: [u8; 16],
    pub head: Midstate,
}

/// A chunk being filled by an append.
#[derive(Debug)]
pub struct ChunkWriter {
    pub first_seq: u64,
    pub count: u32,
    pub last_hash: [u8; 32],
    buf: Vec<u8>,
    recorded_at: String,
    recorded_at_micros: i64,
    /// Where each record's canonical bytes are built to be hashed, and the
    /// instruction set that finishes its hash.
    record: Vec<u8>,
    platform: Platform,
}

impl ChunkWriter {
    pub fn new(first_seq: u64, prev: [u8; 32], recorded_at_micros: i64, recorded_at: &str) -> Self {
        let mut buf = Vec::with_capacity(MAX_BYTES + 4096);
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&first_seq.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes()); // count, patched in finish()
        buf.extend_from_slice(&prev);
        buf.extend_from_slice(&recorded_at_micros.to_le_bytes());
        buf.extend_from_slice(&(recorded_at.len() as u16).to_le_bytes());
        buf.extend_from_slice(recorded_at.as_bytes());
        ChunkWriter {
            first_seq,
            count: 0,
            last_hash: prev,
            buf,
            recorded_at: recorded_at.to_string(),
            recorded_at_micros,
            record: Vec::with_capacity(1024),
            platform: Platform::detect(),
        }
    }

    /// The `recorded_at` of the records it chains, microseconds UTC.
    pub fn recorded_at(&self) -> i64 {
        self.recorded_at_micros
    }

    /// Add the next record, `head` the midstate of its canonical bytes
    /// ([`canonical::record_heads`], or `Midstate::default()`); returns its hash.
    pub fn push(
        &mut self,
        (at, void_target): (i64, Option<u64>),
        keys: Keys,
        event: &[u8],
    ) -> [u8; 32] {
        let Keys {
            idem,
            content,
            head,
        } = keys;
        let seq = self.first_seq + u64::from(self.count);
        let hash = canonical::record_hash(
            &head,
            &self.platform,
            (event, &self.last_hash),
            (&self.recorded_at, seq),
            &mut self.record,
        );
        self.buf.extend_from_slice(&hash);
        self.buf.extend_from_slice(&at.to_le_bytes());
        self.buf
            .extend_from_slice(&void_target.unwrap_or(0).to_le_bytes());
        self.buf.extend_from_slice(&idem);
        self.buf.extend_from_slice(&content);
        self.buf
            .extend_from_slice(&(event.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(event);
        self.count += 1;
        self.last_hash = hash;
        hash
    }

    pub fn is_full(&self) -> bool {
        self.count as usize >= MAX_RECORDS || self.buf.len() >= MAX_BYTES
    }

    /// The writer of the chunk after this one: the same append's.
    pub fn next(&self) -> ChunkWriter {
        let (at_micros, at) = (self.recorded_at_micros, &self.recorded_at);
        ChunkWriter::new(self.next_seq(), self.last_hash, at_micros, at)
    }

    pub fn next_seq(&self) -> u64 {
        self.first_seq + u64::from(self.count)
    }

    /// The finished value bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf[12..16].copy_from_slice(&self.count.to_le_bytes());
        self.buf
    }
}

/// The value stored for the LRC1 bytes `raw` (`LRZ2`, `raw_len`, checksum,
/// LZ4 block: layout in the module docs), written into `out`, whose first
/// bytes (the count returned) it is. Invariant: [`unpack`] gives `raw` back.
/// `out` keeps its length and bytes past the value, so a buffer used again is
/// not zeroed again (LZ4 needs its maximum output size, about 257 KiB for a
/// full chunk, and zeroing that for every chunk is a visible part of an
/// import's CPU).
///
/// # Panics
/// If `raw` is over [`MAX_RAW`]: a [`ChunkWriter`] never makes such a chunk.
pub fn pack_into(raw: &[u8], out: &mut Vec<u8>) -> usize {
    assert!(raw.len() <= MAX_RAW, "a chunk of {} bytes", raw.len());
    let need = PACKED_HEADER + lz4_flex::block::get_maximum_output_size(raw.len());
    if out.len() < need {
        out.resize(need, 0);
    }
    out[..4].copy_from_slice(PACKED);
    out[4..8].copy_from_slice(&(raw.len() as u32).to_le_bytes());
    let n = lz4_flex::block::compress_into(raw, &mut out[PACKED_HEADER..])
        .expect("LZ4's maximum output size holds any input");
    let end = PACKED_HEADER + n;
    let sum = checksum(&out[4..8], &out[PACKED_HEADER..end]);
    out[8..PACKED_HEADER].copy_from_slice(&sum.to_le_bytes());
    end
}

/// The checksum of a packed value: CRC-32 of its `raw_len` bytes and its block.
fn checksum(raw_len: &[u8], block: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(raw_len);
    h.update(block);
    h.finalize()
}

/// The LRC1 bytes of a stored (packed) value.
pub fn unpack(stored: &[u8], key_seq: u64) -> Result<Vec<u8>, Error> {
    if stored.get(..4) != Some(PACKED.as_slice()) {
        return Err(corrupt(key_seq, "not a packed chunk"));
    }
    if stored.len() < PACKED_HEADER {
        return Err(corrupt(key_seq, "packed value truncated"));
    }
    let len = u32::from_le_bytes(arr(&stored[4..8])) as usize;
    if len > MAX_RAW {
        return Err(corrupt(
            key_seq,
            &format!("packed length {len} is over the limit"),
        ));
    }
    let block = &stored[PACKED_HEADER..];
    if checksum(&stored[4..8], block) != u32::from_le_bytes(arr(&stored[8..PACKED_HEADER])) {
        return Err(corrupt(
            key_seq,
            "packed value is damaged (its checksum does not match)",
        ));
    }
    let mut raw = vec![0u8; len];
    match lz4_flex::block::decompress_into(block, &mut raw) {
        Ok(n) if n == len => Ok(raw),
        Ok(n) => Err(corrupt(
            key_seq,
            &format!("packed value is damaged (unpacks to {n} bytes, not {len})"),
        )),
        Err(e) => Err(corrupt(key_seq, &format!("packed value is damaged ({e})"))),
    }
}

/// The key of the chunk whose first record is `seq`.
pub fn key(seq: u64) -> [u8; 8] {
    seq.to_be_bytes()
}

/// A damaged chunk (or its place), named by the seq it starts at.
pub(super) fn corrupt(first: u64, what: &str) -> Error {
    Error::Corrupt(format!("chunk starting at seq {first}: {what}"))
}

fn take<'a>(b: &'a [u8], pos: &mut usize, n: usize, first: u64) -> Result<&'a [u8], Error> {
    let s = b
        .get(*pos..*pos + n)
        .ok_or_else(|| corrupt(first, "truncated"))?;
    *pos += n;
    Ok(s)
}

fn arr<const N: usize>(s: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(s);
    a
}

/// A decoded chunk header plus its records.
#[derive(Debug)]
pub struct ChunkView<'a> {
    pub first_seq: u64,
    pub prev: [u8; 32],
    pub recorded_at_micros: i64,
    pub recorded_at: &'a str,
    pub records: Vec<RecordView<'a>>,
}

/// Decode a chunk; `key_seq` is the seq its key says it starts at.
pub fn decode(bytes: &[u8], key_seq: u64) -> Result<ChunkView<'_>, Error> {
    let mut pos = 0;
    if take(bytes, &mut pos, 4, key_seq)? != MAGIC {
        return Err(corrupt(key_seq, "bad magic"));
    }
    let first_seq = u64::from_le_bytes(arr(take(bytes, &mut pos, 8, key_seq)?));
    if first_seq != key_seq {
        return Err(corrupt(
            key_seq,
            &format!("header says it starts at seq {first_seq}"),
        ));
    }
    let count = u32::from_le_bytes(arr(take(bytes, &mut pos, 4, key_seq)?));
    let prev = arr(take(bytes, &mut pos, 32, key_seq)?);
    let recorded_at_micros = i64::from_le_bytes(arr(take(bytes, &mut pos, 8, key_seq)?));
    let ra_len = u16::from_le_bytes(arr(take(bytes, &mut pos, 2, key_seq)?)) as usize;
    let recorded_at = std::str::from_utf8(take(bytes, &mut pos, ra_len, key_seq)?)
        .map_err(|_| corrupt(key_seq, "recorded_at is not UTF-8"))?;
    // Reads compare the microseconds (a known-at time, `verify`'s order of
    // appends); the hash covers the text: the two must say one time.
    if crate::time::parse(recorded_at) != Some(recorded_at_micros) {
        return Err(corrupt(
            key_seq,
            "recorded_at's microseconds do not match its text",
        ));
    }
    debug_assert!(pos == HEADER + ra_len);
    // A damaged count must not allocate: no more records than the bytes can hold.
    let mut records = Vec::with_capacity((count as usize).min(bytes.len() / REC_HEADER));
    let mut last = prev;
    for i in 0..u64::from(count) {
        let h = take(bytes, &mut pos, REC_HEADER, key_seq)?;
        let len = u32::from_le_bytes(arr(&h[80..84])) as usize;
        let event = take(bytes, &mut pos, len, key_seq)?;
        let void = u64::from_le_bytes(arr(&h[40..48]));
        let rec = RecordView {
            seq: first_seq + i,
            hash: arr(&h[0..32]),
            prev: last,
            at: i64::from_le_bytes(arr(&h[32..40])),
            void_target: (void != 0).then_some(void),
            idem: arr(&h[48..64]),
            content: arr(&h[64..80]),
            event,
        };
        last = rec.hash;
        records.push(rec);
    }
    if pos != bytes.len() {
        return Err(corrupt(key_seq, "trailing bytes"));
    }
    if count == 0 {
        return Err(corrupt(key_seq, "no records"));
    }
    Ok(ChunkView {
        first_seq,
        prev,
        recorded_at_micros,
        recorded_at,
        records,
    })
}

/// The idempotency key for an event with this id.
pub fn idem_of_id(id: &str) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    h.update(b"id\0");
    h.update(id.as_bytes());
    arr(&h.finalize().as_bytes()[..16])
}

/// The content key: the first 16 bytes of BLAKE3 of the event's canonical
/// bytes (the append hashes a batch's events together).
pub fn content_key(event_hash: &[u8; 32]) -> [u8; 16] {
    arr(&event_hash[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys without a midstate: the record's hash is computed whole.
    fn keys(idem: [u8; 16], content: [u8; 16]) -> Keys {
        let head = Midstate::default();
        Keys {
            idem,
            content,
            head,
        }
    }

    /// The stored value of `raw`, packed alone.
    fn pack(raw: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let n = pack_into(raw, &mut out);
        out.truncate(n);
        out
    }

    #[test]
    fn round_trips_and_links_prev() {
        let at = "2026-01-01T00:00:00.000042Z";
        let mut w = ChunkWriter::new(5, [1; 32], crate::time::parse(at).unwrap(), at);
        let h5 = w.push((10, None), keys([2; 16], [3; 16]), b"{\"a\":1}");
        let h6 = w.push((11, Some(2)), keys([4; 16], [5; 16]), b"{}");
        let bytes = w.finish();
        let c = decode(&bytes, 5).unwrap();
        assert_eq!(c.records.len(), 2);
        assert_eq!(c.records[0].hash, h5);
        assert_eq!(c.records[1].prev, h5);
        assert_eq!(c.records[1].hash, h6);
        assert_eq!(c.records[1].void_target, Some(2));
        assert_eq!(c.records[1].event, b"{}");
        assert!(decode(&bytes[..bytes.len() - 1], 5).is_err());
        assert!(decode(&bytes, 6).is_err());
        // The microseconds must say the time the hashed text says.
        let mut moved = bytes.clone();
        moved[48] ^= 1;
        let e = decode(&moved, 5).unwrap_err().to_string();
        assert!(e.contains("microseconds do not match its text"), "{e}");
    }

    /// A full chunk of JSON events, as an append writes it.
    fn full_chunk() -> Vec<u8> {
        let at = "2026-11-22T00:00:00.000007Z";
        let mut w = ChunkWriter::new(1, [0; 32], crate::time::parse(at).unwrap(), at);
        while !w.is_full() {
            let n = w.next_seq();
            let event = format!(r#"{{"at":"2001-01-01","id":"e{n}","type":"mepbm.monthly_tick"}}"#);
            w.push(
                (n as i64, None),
                keys([n as u8; 16], [1; 16]),
                event.as_bytes(),
            );
        }
        w.finish()
    }

    #[test]
    fn a_packed_chunk_unpacks_to_its_bytes_and_is_smaller() {
        let raw = full_chunk();
        let packed = pack(&raw);
        assert_eq!(&packed[..4], PACKED);
        assert_eq!(packed[4..8], (raw.len() as u32).to_le_bytes());
        assert!(
            packed.len() * 2 < raw.len(),
            "{} of {}",
            packed.len(),
            raw.len()
        );
        let back = unpack(&packed, 1).unwrap();
        assert_eq!(back, raw);
        let records = decode(&back, 1).unwrap().records.len();
        assert_eq!(records, decode(&raw, 1).unwrap().records.len());
        assert!(records > 400, "{records}");
    }

    #[test]
    fn a_pack_buffer_used_again_gives_each_value_as_packed_alone() {
        let full = full_chunk();
        let small = full[..HEADER + 40].to_vec();
        let mut buf = Vec::new();
        // Large then small (stale bytes after the value), then large again.
        for raw in [&full, &small, &full] {
            let n = pack_into(raw, &mut buf);
            assert_eq!(&buf[..n], pack(raw).as_slice(), "{} bytes", raw.len());
            assert_eq!(&unpack(&buf[..n], 1).unwrap(), raw);
        }
    }

    #[test]
    fn an_unpacked_chunk_is_not_a_stored_value() {
        let err = unpack(&full_chunk(), 1).unwrap_err().to_string();
        assert!(err.contains("seq 1: not a packed chunk"), "{err}");
    }

    #[test]
    fn a_damaged_packed_chunk_is_an_error_naming_it_not_a_panic() {
        let packed = pack(&full_chunk());
        let err = |b: &[u8]| unpack(b, 9).unwrap_err().to_string();
        assert!(err(&packed[..7]).contains("seq 9: packed value truncated"));
        let cut = &packed[..packed.len() - 9];
        assert!(err(cut).contains("packed value is damaged"), "{}", err(cut));
        let mut long = packed.clone();
        long[4..8].copy_from_slice(&(MAX_RAW as u32 + 1).to_le_bytes());
        assert!(err(&long).contains("is over the limit"));
        let mut short = packed.clone();
        let n = u32::from_le_bytes(arr(&short[4..8]));
        short[4..8].copy_from_slice(&(n - 1).to_le_bytes());
        assert!(
            err(&short).contains("packed value is damaged"),
            "{}",
            err(&short)
        );
        let mut over = packed.clone();
        over[4..8].copy_from_slice(&(n + 1).to_le_bytes());
        assert!(err(&over).contains("its checksum does not match"));
        // A stated length one too long with its checksum made to match
        // unpacks cleanly to fewer bytes, as a value cut at an LZ4 sequence
        // boundary does: named as damage too.
        let sum = checksum(&over[4..8], &over[PACKED_HEADER..]);
        over[8..PACKED_HEADER].copy_from_slice(&sum.to_le_bytes());
        assert!(err(&over).contains(&format!(
            "packed value is damaged (unpacks to {n} bytes, not {})",
            n + 1
        )));
        // Every single-byte change of the stored value is refused.
        for i in 0..packed.len() {
            let mut b = packed.clone();
            b[i] ^= 0xa5;
            assert!(unpack(&b, 9).is_err(), "byte {i}");
        }
    }
}
