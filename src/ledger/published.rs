//! The published read view: what every reading command reads, without a
//! lock, without sled, and without writing anything.
//!
//! The writer puts each new chunk's entry into `index` and its records' key
//! fingerprints into `fps` beyond what `HEAD` commits; the rename of `HEAD`
//! ([`write_head`]) publishes them, the commit point of an append (the order of
//! its writes: the crate's [invariants](crate#invariants) and `HEAD` below).
//!
//! ```text
//! file "HEAD" (integers little-endian):
//!   0   15  format      b"laurel-ledger-6"
//!   15  8   seq         the head
//!   23  32  hash        the hash of record seq
//!   55  8   index_len   bytes of "index" this head commits
//!   63  4   fps_crc     CRC-32 of the 8·seq bytes of "fps" this head commits
//!   67  16  check       BLAKE3 of bytes 0..67, first 16 bytes
//! file "index": one entry per chunk, in seq order, back to back:
//!   0   4   len         u32, the length of the body
//!   4   len body        first seq u64, the chunk's 24-byte segment pointer
//!                       ([`super::segment`]), its summary ([`super::summary`])
//!   4+len 16 check      BLAKE3 of bytes 0..4+len, first 16 bytes
//! file "fps": the key fingerprint ([`super::idem`]) of record s at 8·(s−1),
//!   u64 little-endian; HEAD commits its first 8·seq bytes
//! ```
//!
//! A reader reads `HEAD` once (its head is pinned for the whole command),
//! then the first `index_len` bytes of `index`; bytes beyond them belong to
//! an append not yet published, or to one that failed or was killed, and the
//! next writer truncates them. Committed segments and checkpoint files are
//! never written in place (checkpoints are written beside and renamed in), so
//! what a pinned head points to stays readable while a writer runs. `verify`
//! checks every entry's summary and every fingerprint against its chunk; a
//! damaged `HEAD` or entry is corruption naming the file. A writer, which
//! reads `fps` whole to build its idempotency index, checks it against
//! `fps_crc`: a lost fingerprint could let an event be recorded twice.

use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::summary::Summary;
use super::{segment, Head};
use crate::error::{Error, Result};

/// The format marker `HEAD` starts with, and sled's "meta" tree holds: chunks
/// are stored packed ([`super::chunk::pack_into`]) in segment files, sled holds
/// the head and their places ([`super::segment`]), and the published view
/// holds every chunk's place, summary and key fingerprints for readers. A
/// ledger with any other marker is refused as an unknown format.
pub(crate) const FORMAT: &[u8; 15] = b"laurel-ledger-6";
const HEAD_LEN: usize = 83;
const CHECK: usize = 16;

pub(crate) fn head_file(dir: &Path) -> PathBuf {
    dir.join("HEAD")
}

pub(crate) fn index_file(dir: &Path) -> PathBuf {
    dir.join("index")
}

pub(crate) fn fps_file(dir: &Path) -> PathBuf {
    dir.join("fps")
}

fn check(b: &[u8]) -> [u8; CHECK] {
    blake3::hash(b).as_bytes()[..CHECK]
        .try_into()
        .expect("16 bytes")
}

fn damaged(file: &Path, what: &str) -> Error {
    Error::Corrupt(format!("{}: {what}", file.display()))
}

/// Open `file` for reading if it is a regular file. A missing file, or a
/// FIFO, a device or a directory in the place of a ledger file, is damage:
/// it is refused before it is opened (opening a FIFO waits for a writer; a
/// device never ends).
pub(crate) fn open_regular(file: &Path) -> Result<std::fs::File> {
    let io = |e| Error::io(file.display().to_string(), e);
    let meta = match std::fs::metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(damaged(file, "is missing"));
        }
        other => other.map_err(io)?,
    };
    if !meta.is_file() {
        return Err(damaged(file, "is not a regular file"));
    }
    std::fs::File::open(file).map_err(io)
}

/// One chunk's entry: where it is stored and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub pointer: [u8; segment::POINTER_LEN],
    pub summary: Summary,
}

impl Entry {
    pub(crate) fn first(&self) -> u64 {
        self.summary.first_seq
    }

    /// Its bytes in `index`, checksum included.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let summary = self.summary.encode();
        let len = 8 + segment::POINTER_LEN + summary.len();
        let mut b = Vec::with_capacity(4 + len + CHECK);
        b.extend_from_slice(&(len as u32).to_le_bytes());
        b.extend_from_slice(&self.first().to_le_bytes());
        b.extend_from_slice(&self.pointer);
        b.extend_from_slice(&summary);
        let c = check(&b);
        b.extend_from_slice(&c);
        b
    }
}

/// What `HEAD` says: the head, the bytes of `index` it commits and the
/// checksum of the `fps` bytes it commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Published {
    pub head: Head,
    pub index_len: u64,
    pub fps_crc: u32,
}

/// All that `HEAD` says.
pub(crate) fn read_published(dir: &Path) -> Result<Published> {
    let file = head_file(dir);
    if !file.exists() {
        return Err(Error::Corrupt(format!(
            "not a laurel ledger (no {})",
            file.display()
        )));
    }
    // One byte more than a head record: enough to tell one too long.
    let mut b = Vec::with_capacity(HEAD_LEN + 1);
    (open_regular(&file)?.take(HEAD_LEN as u64 + 1))
        .read_to_end(&mut b)
        .map_err(|e| Error::io(file.display().to_string(), e))?;
    if !b.starts_with(b"laurel-ledger-") {
        return Err(Error::Corrupt(format!(
            "not a laurel ledger (no format marker in {})",
            file.display()
        )));
    }
    if b.get(..FORMAT.len()) != Some(FORMAT.as_slice()) {
        let marker = b.get(..FORMAT.len()).unwrap_or(&b);
        return Err(Error::Corrupt(format!(
            "unknown ledger format {:?}",
            String::from_utf8_lossy(marker)
        )));
    }
    if b.len() != HEAD_LEN {
        return Err(damaged(&file, "head record has the wrong size"));
    }
    if check(&b[..67]) != b[67..] {
        return Err(damaged(&file, "head record is damaged (checksum)"));
    }
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8"));
    let head = Head {
        seq: word(15),
        hash: b[23..55].try_into().expect("32"),
    };
    Ok(Published {
        head,
        index_len: word(55),
        fps_crc: u32::from_le_bytes(b[63..67].try_into().expect("4")),
    })
}

/// Replace `HEAD`: write `HEAD.tmp`, fsync it, rename it over `HEAD`, fsync
/// the directory.
pub(crate) fn write_head(dir: &Path, p: Published) -> Result<()> {
    let mut b = Vec::with_capacity(HEAD_LEN);
    b.extend_from_slice(FORMAT);
    b.extend_from_slice(&p.head.seq.to_le_bytes());
    b.extend_from_slice(&p.head.hash);
    b.extend_from_slice(&p.index_len.to_le_bytes());
    b.extend_from_slice(&p.fps_crc.to_le_bytes());
    let c = check(&b);
    b.extend_from_slice(&c);
    let tmp = dir.join("HEAD.tmp");
    let io = |e| Error::io(tmp.display().to_string(), e);
    let mut f = std::fs::File::create(&tmp).map_err(io)?;
    f.write_all(&b).map_err(io)?;
    f.sync_all().map_err(io)?;
    std::fs::rename(&tmp, head_file(dir)).map_err(io)?;
    super::fsync_path(dir, false)
}

/// The bytes of `index` that `p` commits, as entries: they must cover
/// records `1 ..= p.head.seq` without a gap or an overlap.
pub(crate) fn read_index(dir: &Path, p: Published) -> Result<Vec<Entry>> {
    let (len, head) = (p.index_len, p.head.seq);
    let file = index_file(dir);
    let mut b = Vec::new();
    let f = open_regular(&file)?;
    f.take(len)
        .read_to_end(&mut b)
        .map_err(|e| Error::io(file.display().to_string(), e))?;
    if (b.len() as u64) < len {
        return Err(damaged(&file, "shorter than HEAD says"));
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let bad = |what: &str| damaged(&file, &format!("entry at byte {at} {what}"));
        let n = b
            .get(at..at + 4)
            .map(|w| u32::from_le_bytes(w.try_into().expect("4")) as usize)
            .ok_or_else(|| bad("is cut short"))?;
        let end = at + 4 + n;
        let whole = b.get(at..end + CHECK).ok_or_else(|| bad("is cut short"))?;
        if check(&whole[..4 + n]) != whole[4 + n..] {
            return Err(bad("is damaged (checksum)"));
        }
        if n < 8 + segment::POINTER_LEN {
            return Err(bad(&format!(
                "holds {n} bytes, too few for a seq and a pointer"
            )));
        }
        let first = u64::from_le_bytes(whole[4..12].try_into().expect("8"));
        let pointer = whole[12..12 + segment::POINTER_LEN].try_into().expect("24");
        let summary = Summary::decode(first, &whole[12 + segment::POINTER_LEN..4 + n])?;
        let next = entries.last().map_or(1, |e| e.summary.last_seq + 1);
        if first != next {
            return Err(bad(&format!("starts at seq {first}, not {next}")));
        }
        if summary.last_seq < first {
            let last = summary.last_seq;
            return Err(bad(&format!(
                "ends at seq {last}, before it starts ({first})"
            )));
        }
        entries.push(Entry { pointer, summary });
        at = end + CHECK;
    }
    let covered = entries.last().map_or(0, |e| e.summary.last_seq);
    if covered != head {
        return Err(damaged(
            &file,
            &format!("covers records up to {covered}, but HEAD says {head}"),
        ));
    }
    Ok(entries)
}

/// The key fingerprints of records `first ..= last`, as stored in `fps`;
/// `None` where the file ends before them.
pub(crate) fn read_fps(dir: &Path, first: u64, last: u64) -> Result<Option<Vec<u8>>> {
    let file = fps_file(dir);
    let f = open_regular(&file)?;
    let mut b = vec![0u8; (8 * (last + 1).saturating_sub(first)) as usize];
    match f.read_exact_at(&mut b, 8 * first.saturating_sub(1)) {
        Ok(()) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(Error::io(file.display().to_string(), e)),
    }
}

/// Where a writer appends an append's entries and fingerprints: beyond what
/// `HEAD` commits, made durable by [`Out::sync`] before `HEAD` names them.
pub(crate) struct Out {
    index: std::io::BufWriter<std::fs::File>,
    fps: std::io::BufWriter<std::fs::File>,
    /// Bytes of `index` committed, plus those written since.
    index_len: u64,
    /// The CRC-32 of `fps` committed, plus the fingerprints written since.
    fps_crc: crc32fast::Hasher,
}

impl Out {
    /// Truncate `index` to `index_len` and `fps` to `8 · seq` (the tail of an
    /// append that failed or was killed), and append from there. A file
    /// shorter than that is damage, never filled in.
    pub(crate) fn open(dir: &Path, p: Published) -> Result<Out> {
        let (seq, index_len, fps_crc) = (p.head.seq, p.index_len, p.fps_crc);
        let open = |file: PathBuf, len: u64| -> Result<std::io::BufWriter<std::fs::File>> {
            let io = |e| Error::io(file.display().to_string(), e);
            let f = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .open(&file)
                .map_err(io)?;
            let have = f.metadata().map_err(io)?.len();
            if have < len {
                return Err(damaged(&file, "shorter than HEAD says"));
            }
            if have > len {
                f.set_len(len).map_err(io)?;
            }
            let mut f = f;
            std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(len)).map_err(io)?;
            Ok(std::io::BufWriter::with_capacity(1 << 16, f))
        };
        Ok(Out {
            index: open(index_file(dir), index_len)?,
            fps: open(fps_file(dir), 8 * seq)?,
            index_len,
            fps_crc: crc32fast::Hasher::new_with_initial(fps_crc),
        })
    }

    /// Add a chunk's entry and its records' fingerprints (`fps`, as
    /// [`super::idem::encode`] gives them).
    pub(crate) fn put(&mut self, dir: &Path, entry: &Entry, fps: &[u8]) -> Result<()> {
        let b = entry.encode();
        self.index
            .write_all(&b)
            .map_err(|e| Error::io(index_file(dir).display().to_string(), e))?;
        self.fps
            .write_all(fps)
            .map_err(|e| Error::io(fps_file(dir).display().to_string(), e))?;
        self.index_len += b.len() as u64;
        self.fps_crc.update(fps);
        Ok(())
    }

    /// Drop what was put and not yet written, without writing it: the
    /// writer's files are then cut back by the next [`Out::open`].
    pub(crate) fn discard(self) {
        let _ = self.index.into_parts();
        let _ = self.fps.into_parts();
    }

    /// What `HEAD` says once `head` (whose entries and fingerprints were
    /// put) is published.
    pub(crate) fn published(&self, head: Head) -> Published {
        Published {
            head,
            index_len: self.index_len,
            fps_crc: self.fps_crc.clone().finalize(),
        }
    }

    /// Write what was put and fsync `index` and `fps`: before `HEAD` names it.
    pub(crate) fn sync(&mut self, dir: &Path) -> Result<()> {
        for (w, file) in [
            (&mut self.index, index_file(dir)),
            (&mut self.fps, fps_file(dir)),
        ] {
            let io = |e| Error::io(file.display().to_string(), e);
            w.flush().map_err(io)?;
            w.get_ref().sync_data().map_err(io)?;
        }
        Ok(())
    }
}
