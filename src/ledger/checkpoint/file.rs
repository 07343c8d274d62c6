//! The checkpoint thread of a check fold: each checkpoint made whole or a
//! delta, its file written and synced; and a section read back from its file.

use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender};

use super::frames::compress;
use super::{encode_header, header_len, key, link, small, Header, Parent, Pos, Section, PREFIX};
use super::{FILE_EXT, WHOLE_AT, WHOLE_EVERY};
use crate::error::{Error, Result};
use crate::ledger::Head;

/// A checkpoint for the checkpoint thread: `(pos, folded, raw sections by
/// name)`, and with the first one, what it is a delta from.
pub(super) type Job = (Pos, u64, Vec<(String, Vec<u8>)>, Option<Parent>);
/// The check fold's checkpoint thread: compresses each checkpoint (a delta
/// from the previous one, see [`next_checkpoint`]), writes its file into `dir`
/// and sends its header back for the fold's thread to note. Why a thread: on
/// the thread that reads the records for the fold workers, zstd would keep
/// them waiting. Stops at its first failure, after sending it.
pub(super) fn compressor(
    jobs: Receiver<Job>,
    made: Sender<Result<Header>>,
    new: Head,
    (dir, every): (&Path, u64),
) {
    let mut parent = None;
    for (pos, folded, raw, first) in jobs {
        parent = first.or(parent);
        let next = next_checkpoint(new, (pos, folded), raw, parent.take(), every).and_then(
            |(h, stored, next)| {
                write_unfinished(dir, &h, &stored)?;
                parent = next;
                Ok(h)
            },
        );
        let failed = next.is_err();
        if made.send(next).is_err() || failed {
            return;
        }
    }
}

/// The name of the file of the checkpoint at `pos`, in [`super::DIR`].
pub(super) fn file_name(pos: Pos) -> String {
    name_of_key(&key(pos))
}

/// The name of the file of the checkpoint whose key is `k`.
pub(super) fn name_of_key(k: &[u8; 16]) -> String {
    format!("{:032x}.{FILE_EXT}", u128::from_be_bytes(*k))
}

/// The suffix of a checkpoint file being written: renamed away once complete.
const UNFINISHED: &str = ".tmp";

/// The header bytes (prefix and value) of every checkpoint file in `dir`, by
/// the key its name gives (those of a file too short or of another format
/// are what the file starts with, and read as no header). Files of other
/// names are not laurel's checkpoints. Checkpoints are a cache: a `dir` that
/// does not exist, is no directory or cannot be listed holds none, and a file
/// that cannot be read is not there, so a fold starts from nothing rather than
/// fail (a writer then fails creating its checkpoints, naming `dir`).
pub(super) fn list(dir: &Path) -> super::Headers {
    let mut all = super::Headers::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return all;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(k) = name.to_str().and_then(key_of_file) else {
            continue;
        };
        // Gone since listed (a writer dropped it), or not a regular file:
        // not there.
        let file = crate::ledger::published::open_regular(&entry.path());
        if let Some(header) = file.ok().and_then(|f| read_header_bytes(f).ok()) {
            all.insert(k, header);
        }
    }
    all
}

/// The header bytes a checkpoint file starts with: its prefix, then as many
/// bytes as the prefix says (or what there is, if the file is shorter or
/// the prefix is not one).
fn read_header_bytes(f: std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut f = f.take(PREFIX as u64);
    let mut head = Vec::with_capacity(PREFIX);
    f.read_to_end(&mut head)?;
    if let Some(len) = header_len(&head) {
        let mut f = f.into_inner().take(len as u64);
        f.read_to_end(&mut head)?;
    }
    Ok(head)
}

/// Delete the unfinished checkpoint files in `dir`.
pub(super) fn remove_unfinished(dir: &Path) -> Result<()> {
    let unfinished = |n: &str| n.strip_suffix(UNFINISHED).and_then(key_of_file).is_some();
    crate::ledger::remove_files(dir, unfinished)
}

/// The key a checkpoint file's name gives ([`file_name`], hex digits of
/// either case), if it is one.
pub(super) fn key_of_file(name: &str) -> Option<[u8; 16]> {
    let hex = name.strip_suffix(FILE_EXT)?.strip_suffix('.')?;
    let digits = hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit());
    digits.then(|| Some(u128::from_str_radix(hex, 16).ok()?.to_be_bytes()))?
}

/// Write the file of the checkpoint `h`: its header's bytes, then its stored
/// sections in order (layout in the module doc), under its unfinished name
/// ([`finish`] renames it into place once the append's checks pass, so a
/// reader never sees a file half written or rewritten; the next append that
/// drops checkpoints deletes it if nothing does). Synced here, on the
/// checkpoint thread, while the fold goes on, and only here (the append's
/// final `durable` fsyncs only their directory): at the end, an import's
/// checkpoints would be written after the fold, in its wall time.
pub(super) fn write_unfinished(dir: &Path, h: &Header, stored: &[Vec<u8>]) -> Result<()> {
    let path = dir.join(file_name(h.pos) + UNFINISHED);
    let io = |e| Error::io(path.display().to_string(), e);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io)?);
    f.write_all(&encode_header(h)).map_err(io)?;
    for s in stored {
        f.write_all(s).map_err(io)?;
    }
    let f = f.into_inner().map_err(|e| io(e.into_error()))?;
    f.sync_data().map_err(io)
}

/// Rename the unfinished file of the checkpoint at `pos` into place.
pub(super) fn finish(dir: &Path, pos: Pos) -> Result<()> {
    let path = dir.join(file_name(pos) + UNFINISHED);
    std::fs::rename(&path, dir.join(file_name(pos)))
        .map_err(|e| Error::io(path.display().to_string(), e))
}

/// Delete the unfinished file of the checkpoint at `pos`, if there is one.
pub(super) fn forget(dir: &Path, pos: Pos) {
    // Left behind, it is deleted by the next append that drops checkpoints.
    let _ = std::fs::remove_file(dir.join(file_name(pos) + UNFINISHED));
}

/// The file of checkpoint `h`, positioned after its header: `None` unless
/// it starts with `h`'s very header and is exactly as long as its sections
/// add up to (a missing, cut or stale file is an absent checkpoint).
fn open_checked(dir: &Path, h: &Header) -> Option<std::fs::File> {
    use std::io::Read;
    let mut f = crate::ledger::published::open_regular(&dir.join(file_name(h.pos))).ok()?;
    let want = encode_header(h);
    let total = h.stored_len()?.checked_add(want.len() as u64)?;
    if f.metadata().ok()?.len() != total {
        return None;
    }
    let mut head = vec![0u8; want.len()];
    f.read_exact(&mut head).ok()?;
    (head == want).then_some(f)
}

/// Section `i` of the file of checkpoint `h` ([`open_checked`]).
pub(super) fn read_file_section(dir: &Path, h: &Header, i: usize) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = open_checked(dir, h)?;
    let before: u64 = h.sections.get(..i)?.iter().map(|s| s.stored).sum();
    f.seek(SeekFrom::Current(i64::try_from(before).ok()?))
        .ok()?;
    let mut out = vec![0u8; usize::try_from(h.sections.get(i)?.stored).ok()?];
    f.read_exact(&mut out).ok()?;
    Some(out)
}

/// Every section of the file of checkpoint `h`, as stored, in order
/// ([`open_checked`]).
pub(super) fn read_file_sections(dir: &Path, h: &Header) -> Option<Vec<Vec<u8>>> {
    use std::io::Read;
    let mut f = open_checked(dir, h)?;
    let mut out = Vec::with_capacity(h.sections.len());
    for s in &h.sections {
        let mut b = vec![0u8; usize::try_from(s.stored).ok()?];
        f.read_exact(&mut b).ok()?;
        out.push(b);
    }
    Some(out)
}

/// The check fold's checkpoint of `raw` (uncompressed sections) at
/// `(pos, folded)`, bound to the head `new`: a delta from `root`, a whole
/// checkpoint, or whole itself at every WHOLE_EVERY-th (and when `root` has
/// had WHOLE_EVERY - 1 deltas: the spacing grows with the ledger). Also
/// gives what the next one is a delta from: `root`, or this one if it is
/// whole; nothing if the next is whole anyway (a state's bytes are the
/// largest buffers an append holds).
pub(super) fn next_checkpoint(
    new: Head,
    (pos, folded): (Pos, u64),
    raw: Vec<(String, Vec<u8>)>,
    root: Option<Parent>,
    every: u64,
) -> Result<(Header, Vec<Vec<u8>>, Option<Parent>)> {
    let whole = |n: u64| n / every % WHOLE_EVERY == WHOLE_AT;
    let same_names = |p: &Parent| {
        let names = p.header.sections.iter().map(|s| &s.name);
        names.eq(raw.iter().map(|(n, _)| n))
    };
    let root =
        root.filter(|p| !whole(folded) && p.deltas + 1 < WHOLE_EVERY as usize && same_names(p));
    let mut stored = Vec::with_capacity(raw.len());
    for (i, (_, bytes)) in raw.iter().enumerate() {
        stored.push(compress(bytes, root.as_ref().map(|p| p.raw[i].as_slice()))?);
    }
    let sections = raw.iter().zip(&stored).map(|((name, bytes), s)| Section {
        name: name.clone(),
        stored: s.len() as u64,
        raw: bytes.len() as u64,
    });
    let h = Header {
        head: new,
        pos,
        folded,
        parent: root.as_ref().map(|p| link(&p.header)),
        sections: sections.collect(),
    };
    // A delta's own sections are dropped here: the next delta's prefix is
    // the root's.
    let next = match root {
        Some(p) => Parent {
            deltas: p.deltas + 1,
            ..p
        },
        None => Parent {
            header: h.clone(),
            raw: raw.into_iter().map(|(_, bytes)| bytes).collect(),
            deltas: 0,
        },
    };
    Ok((
        h,
        stored,
        (!whole(folded + every) && small(&next)).then_some(next),
    ))
}
