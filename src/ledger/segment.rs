//! Segment files: where an append's packed chunks are stored, outside sled.
//!
//! sled (and the chunk's index entry, [`super::published`]) stores each
//! chunk's *place* (a 24-byte pointer, below) under the chunk's key; the
//! packed bytes ([`super::chunk::pack_into`]) go, one after
//! another, into one plain file per append. Why: given the chunks' values
//! themselves (tens of KiB each), sled would copy each twice on the writing thread (into its
//! `Arc`, then into its log buffer), write it again as its leaves split and
//! consolidate, and keep it in a cache it does not bound. A plain file is
//! written once.
//!
//! ```text
//! file "segments/<20 decimal digits>.lseg" in the ledger directory: the
//!   name is the first seq of the append that wrote it; its content is the
//!   append's stored (packed) chunk values back to back, nothing else
//! pointer to a chunk in a segment, the value of tree "chunks" (integers
//! little-endian):
//!   0   4   magic    b"LRS1"
//!   4   8   segment  u64, the segment's name
//!   12  8   offset   u64, where the chunk's stored bytes start in it
//!   20  4   len      u32, their length (at most MAX_STORED)
//! ```
//!
//! Invariants:
//! - **A segment belongs to one append.** Its name is the append's first seq,
//!   so a segment named after the head is a leftover of an append that
//!   failed or was killed: [`drop_beyond`] deletes it with the chunk keys
//!   beyond the head, and a committed segment is never written again.
//! - **Damage is corruption, not a panic.** A pointer that names a missing
//!   file, bytes past its end or a length over [`MAX_STORED`] is reported as
//!   a damaged chunk, before anything is allocated for it; damaged bytes fail
//!   to unpack or to hash.
//! - **Durable before the head** (the crate's [invariants](crate#invariants)):
//!   [`Writer::sync`] fsyncs the segment and the directories that name it. (A
//!   killed process loses no written page: `tests/it/crash.rs` cannot see this.)
//! - **A dry run writes aside.** The segment of a dry run (`laurel check`,
//!   [`Writer::aside`]) is an unnamed temporary file outside the ledger (in
//!   the system's temporary directory, gone when closed), which the
//!   [`Reader`] reads in place of the segment of that name.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::chunk::corrupt as damaged;
use crate::error::{Error, Result};

/// The magic of a pointer value.
pub const POINTER: &[u8; 4] = b"LRS1";
/// A pointer's length.
pub const POINTER_LEN: usize = 24;
/// The largest stored chunk a pointer may give: LZ4's worst case for the
/// largest raw chunk ([`super::chunk::MAX_RAW`]) plus the packed header.
pub const MAX_STORED: usize =
    super::chunk::MAX_RAW + super::chunk::MAX_RAW / 255 + 16 + super::chunk::PACKED_HEADER;

/// The directory of a ledger's segments.
pub fn dir(ledger: &Path) -> PathBuf {
    ledger.join("segments")
}

/// The file of the segment named `name`.
pub fn file_of(ledger: &Path, name: u64) -> PathBuf {
    dir(ledger).join(format!("{name:020}.lseg"))
}

/// The name of a segment file, if `file` is one.
fn name_of(file: &str) -> Option<u64> {
    let digits = file.strip_suffix(".lseg")?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The segment of one append, created at its first chunk.
pub struct Writer {
    name: u64,
    file: Option<File>,
    end: u64,
    /// A dry run's: an unnamed temporary file, not `segments/<name>.lseg`.
    aside: bool,
}

impl Writer {
    /// The segment of the append whose first record is `name`.
    pub fn new(name: u64) -> Writer {
        Writer {
            name,
            file: None,
            end: 0,
            aside: false,
        }
    }

    /// The segment of a dry run whose first record would be `name`: an
    /// unnamed temporary file outside the ledger, which [`Reader::set_aside`]
    /// is given to read.
    pub fn aside(name: u64) -> Writer {
        Writer {
            aside: true,
            ..Writer::new(name)
        }
    }

    /// Is this a dry run's segment ([`Writer::aside`])?
    pub fn is_aside(&self) -> bool {
        self.aside
    }

    /// A second handle on a dry run's file, once created, with the
    /// segment's name: what [`Reader::set_aside`] takes.
    pub fn aside_file(&self) -> Option<Result<(u64, File)>> {
        let file = self.file.as_ref().filter(|_| self.aside)?;
        let clone = file
            .try_clone()
            .map_err(|e| Error::io("a temporary file", e));
        Some(clone.map(|f| (self.name, f)))
    }

    /// Whether the segment's file is yet to be created (by the next [`Writer::put`]).
    pub fn unborn(&self) -> bool {
        self.file.is_none()
    }

    /// Append a chunk's stored bytes; gives the pointer to store in sled.
    pub fn put(&mut self, ledger: &Path, stored: &[u8]) -> Result<[u8; POINTER_LEN]> {
        let path = file_of(ledger, self.name);
        let io = |e| Error::io(path.display().to_string(), e);
        if self.file.is_none() && self.aside {
            let temp = tempfile::tempfile().map_err(|e| Error::io("a temporary file", e))?;
            self.file = Some(temp);
        }
        if self.file.is_none() {
            std::fs::create_dir_all(dir(ledger)).map_err(io)?;
            // Truncate: a leftover of the same name is never reachable (see
            // the module's invariants), whatever `drop_beyond` left.
            self.file = Some(File::create(&path).map_err(io)?);
        }
        let file = self.file.as_mut().expect("created above");
        file.write_all(stored).map_err(|e| match self.aside {
            true => Error::io("a temporary file", e),
            false => io(e),
        })?;
        let p = pointer(self.name, self.end, stored.len());
        self.end += stored.len() as u64;
        Ok(p)
    }

    /// fsync the segment's file, then its directory and the ledger's (which
    /// names the directory), if the file was created.
    /// A dry run's segment is not made durable.
    pub fn sync(&mut self, ledger: &Path) -> Result<()> {
        let Some(file) = self.file.as_ref().filter(|_| !self.aside) else {
            return Ok(());
        };
        let path = file_of(ledger, self.name);
        file.sync_all()
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        super::fsync_path(&dir(ledger), false)?;
        super::fsync_path(ledger, false)
    }
}

/// A pointer's bytes (layout in the module docs).
pub fn pointer(name: u64, offset: u64, len: usize) -> [u8; POINTER_LEN] {
    let mut p = [0u8; POINTER_LEN];
    p[..4].copy_from_slice(POINTER);
    p[4..12].copy_from_slice(&name.to_le_bytes());
    p[12..20].copy_from_slice(&offset.to_le_bytes());
    p[20..24].copy_from_slice(&(len as u32).to_le_bytes());
    p
}

/// A pointer's segment, offset and length; `Err` if `value` is not one.
pub fn parse(value: &[u8], key_seq: u64) -> Result<(u64, u64, usize)> {
    if value.get(..4) != Some(POINTER.as_slice()) {
        return Err(damaged(key_seq, "its value is not a segment pointer"));
    }
    if value.len() != POINTER_LEN {
        return Err(damaged(key_seq, "its pointer has the wrong length"));
    }
    let word = |r: std::ops::Range<usize>| u64::from_le_bytes(value[r].try_into().expect("8"));
    let len = u32::from_le_bytes(value[20..24].try_into().expect("4")) as usize;
    if len > MAX_STORED {
        return Err(damaged(
            key_seq,
            &format!("stored length {len} is over the limit"),
        ));
    }
    Ok((word(4..12), word(12..20), len))
}

/// Reads chunks out of segments, keeping the last file it opened.
///
/// Invariant: [`Reader::forget`] is called whenever a segment file is deleted
/// or created, since a file kept open would still read a deleted file of the
/// same name (a failed append's, read to name its bad line, then replaced by
/// the next append's).
#[derive(Default)]
pub struct Reader {
    open: Option<(u64, File)>,
    /// A dry run's segment ([`Writer::aside`]): its name and file, read in
    /// place of the file of that name.
    aside: Option<(u64, File)>,
}

impl Reader {
    /// Close the file kept open (not a dry run's).
    pub fn forget(&mut self) {
        self.open = None;
    }

    /// Read segment `name` from `file`, a dry run's ([`Writer::aside_file`]).
    pub fn set_aside(&mut self, (name, file): (u64, File)) {
        self.aside = Some((name, file));
    }

    /// Let go of a dry run's segment.
    pub fn drop_aside(&mut self) {
        self.aside = None;
    }

    /// The stored bytes a pointer gives.
    pub fn read(
        &mut self,
        ledger: &Path,
        key_seq: u64,
        (name, offset, len): (u64, u64, usize),
    ) -> Result<Vec<u8>> {
        let file = self.file(ledger, key_seq, name)?;
        let mut bytes = vec![0u8; len];
        match file.read_exact_at(&mut bytes, offset) {
            Ok(()) => Ok(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(damaged(
                key_seq,
                &format!("segment {name:020} ends before its bytes"),
            )),
            // The file opened but does not read (a directory in its place,
            // the disk's own errors): the segment is damaged.
            Err(e) => Err(damaged(
                key_seq,
                &format!("segment {name:020} cannot be read ({e})"),
            )),
        }
    }

    fn file(&mut self, ledger: &Path, key_seq: u64, name: u64) -> Result<&File> {
        if let Some((_, f)) = self.aside.as_ref().filter(|a| a.0 == name) {
            return Ok(f);
        }
        if self.open.as_ref().map(|o| o.0) != Some(name) {
            let path = file_of(ledger, name);
            if !path.exists() {
                return Err(damaged(key_seq, &format!("segment {name:020} is missing")));
            }
            let f = super::published::open_regular(&path)?;
            self.open = Some((name, f));
        }
        Ok(&self.open.as_ref().expect("opened above").1)
    }
}

/// The names of the segments named after `seq`, in order (read from the
/// directory's names, not the files).
pub fn names_beyond(ledger: &Path, seq: u64) -> Result<Vec<u64>> {
    let dir = dir(ledger);
    let io = |e| Error::io(dir.display().to_string(), e);
    let entries = match std::fs::read_dir(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        other => other.map_err(io)?,
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io)?;
        names.extend(name_of(&entry.file_name().to_string_lossy()).filter(|&n| n > seq));
    }
    names.sort_unstable();
    Ok(names)
}

/// Delete the segments of appends that started after `seq` (leftovers of an
/// append that failed or was killed; see the module's invariants).
pub fn drop_beyond(ledger: &Path, seq: u64) -> Result<()> {
    for name in names_beyond(ledger, seq)? {
        let file = file_of(ledger, name);
        std::fs::remove_file(&file).map_err(|e| Error::io(file.display().to_string(), e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_reads_back_its_bytes_and_damage_is_corruption() {
        let t = tempfile::tempdir().unwrap();
        let mut w = Writer::new(7);
        let a = w.put(t.path(), b"first chunk").unwrap();
        let b = w.put(t.path(), b"second").unwrap();
        let mut r = Reader::default();
        let at = |p: &[u8]| parse(p, 7).unwrap();
        assert_eq!(r.read(t.path(), 7, at(&a)).unwrap(), b"first chunk");
        assert_eq!(r.read(t.path(), 9, at(&b)).unwrap(), b"second");
        let e = parse(b"LRZ2....", 7).unwrap_err().to_string();
        assert!(
            e.contains("seq 7: its value is not a segment pointer"),
            "{e}"
        );
        let past_end = (7, 11, 7);
        let e = r.read(t.path(), 9, past_end).unwrap_err().to_string();
        assert!(e.contains("seq 9") && e.contains("ends before"), "{e}");
        let mut long = b;
        long[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&long, 9).is_err());
        assert!(parse(&b[..20], 9).is_err());
        let e = Reader::default().read(t.path(), 3, (8, 0, 1)).unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
    }

    #[test]
    fn a_dry_runs_segment_is_read_from_aside_and_never_in_the_ledger() {
        let t = tempfile::tempdir().unwrap();
        let mut w = Writer::aside(7);
        assert!(w.is_aside() && w.aside_file().is_none());
        let a = w.put(t.path(), b"first chunk").unwrap();
        let mut r = Reader::default();
        r.set_aside(w.aside_file().unwrap().unwrap());
        let b = w.put(t.path(), b"second").unwrap();
        w.sync(t.path()).unwrap();
        let at = |p: &[u8]| parse(p, 7).unwrap();
        assert_eq!(r.read(t.path(), 7, at(&a)).unwrap(), b"first chunk");
        assert_eq!(r.read(t.path(), 9, at(&b)).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
        r.drop_aside();
        let e = r.read(t.path(), 7, at(&a)).unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
    }

    #[test]
    fn dropping_beyond_a_seq_deletes_only_later_segments() {
        let t = tempfile::tempdir().unwrap();
        for name in [1, 5, 6] {
            Writer::new(name).put(t.path(), b"x").unwrap();
        }
        std::fs::write(dir(t.path()).join("notes.txt"), b"kept").unwrap();
        drop_beyond(t.path(), 5).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(dir(t.path()))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "00000000000000000001.lseg",
                "00000000000000000005.lseg",
                "notes.txt"
            ]
        );
        assert!(drop_beyond(&t.path().join("none"), 0).is_ok());
    }
}
