//! `laurel site`'s audit trail on disk, in buckets by subject, so the site of a
//! large ledger is written in bounded memory.
//!
//! A site needs every player's whole trail, grouped by player, and the fold
//! makes it in fold order, every player's interleaved (each monthly tick changes
//! every rating). Kept whole, the trail grows far past memory. Instead the
//! fold's workers hand their changes to a [`Spill`] (a [`TrailSink`]) batch by
//! batch, each change with the fold-order index of the record that made it;
//! each change goes to one of [`BUCKETS`] buckets picked by a hash of its
//! subject, so a subject's changes all land in one bucket. The site then reads
//! one bucket at a time, sorted by index (stably: a record's changes are one
//! worker's, in one batch, in the order made), which is fold order: memory
//! holds about 1/[`BUCKETS`] of the trail.
//!
//! # Threads
//!
//! A [`Spill`] encodes, compresses and writes on a thread of its own, so the
//! fold that makes the changes goes on meanwhile: [`Spill::take`] only sends
//! the batch down a channel, and waits while [`QUEUED`] batches are before
//! it (the memory held is those batches, the one being written and the
//! buckets' blocks). One thread writes every bucket, taking the batches in
//! the order they were sent; which worker's batch comes first changes the
//! bytes of a bucket, not what [`Buckets::read`] returns. An error of the
//! writer (a full disk) stops it; the next [`Spill::take`] or
//! [`Spill::finish`] returns it.
//!
//! # Layout (anonymous temporary files, gone when the [`Buckets`] are dropped
//! or the process ends, killed or not)
//!
//! Each bucket: zstd frames, each preceded by its compressed length (u32 LE).
//! A frame holds whole changes back to back, each its record's index and the
//! [`Change`] in bincode (its default options: varint integers and lengths). A bucket buffers up
//! to [`BLOCK`] bytes before it compresses and writes them.

use std::collections::{BTreeSet, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

use bincode::Options;

use crate::error::{Error, Result};
use crate::fold::{Placed, TrailSink};
use crate::systems::Change;

/// Buckets a trail is spread over: memory holds one of them when reading.
pub const BUCKETS: usize = 256;
/// Bytes a bucket buffers before writing them as one compressed frame.
pub const BLOCK: usize = 128 * 1024;

/// Changes being written out (see the module docs): handed to the writer
/// thread, which encodes, compresses and writes them.
pub struct Spill {
    /// Batches of changes, in fold order, to the writer thread.
    tx: Option<SyncSender<Vec<Placed>>>,
    writer: Option<JoinHandle<Result<Writer>>>,
    /// The writer thread's error once it has been collected: every later
    /// [`TrailSink::take`], and [`Spill::finish`], reports it too (several
    /// fold workers hand changes on, and the fold reports one of their errors).
    failed: Option<Error>,
}

/// Batches a [`Spill`] holds on their way to its writer thread, beside the
/// one the thread is writing.
const QUEUED: usize = 2;

/// The writer thread's side of a [`Spill`]: the buckets' files and blocks.
struct Writer {
    /// Anonymous temporary files (unlinked from the start where the system
    /// allows it): a killed run leaves nothing behind.
    files: Vec<BufWriter<File>>,
    blocks: Vec<Vec<u8>>,
    /// Every subject so far: a hash set, as it is asked once a change (tens of
    /// millions of times at 1M events); sorted once, by [`Spill::finish`].
    subjects: HashSet<String>,
    /// One compression context for every block.
    zstd: zstd::bulk::Compressor<'static>,
}

/// How messages name bucket `i`'s file (it has no name on disk).
fn bucket_name(i: usize) -> String {
    format!("the audit trail's temporary file {i}")
}

/// The bucket of `subject`: FNV-1a, so the same subject always lands in one.
fn bucket_of(subject: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in subject.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h % BUCKETS as u64) as usize
}

/// The bincode options of a spilled change (see the module docs).
fn options() -> impl Options {
    bincode::DefaultOptions::new()
}

fn encode(place: u64, c: &Change, out: &mut Vec<u8>) {
    // Serializing into a Vec cannot fail (no I/O, no size limit).
    let _ = options().serialize_into(out, &(place, c));
}

impl Spill {
    /// Empty buckets in anonymous temporary files, and the thread that
    /// writes them.
    pub fn new() -> Result<Self> {
        let files = (0..BUCKETS).map(|i| tempfile::tempfile().map_err(|e| io(i, e)));
        Spill::over(files.collect::<Result<_>>()?)
    }

    /// A spill writing bucket `i` into `files[i]`.
    fn over(files: Vec<File>) -> Result<Self> {
        debug_assert_eq!(files.len(), BUCKETS);
        let mut w = Writer::new(files)?;
        let (tx, rx) = sync_channel::<Vec<Placed>>(QUEUED);
        let writer = std::thread::Builder::new()
            .name("spill".into())
            .spawn(move || -> Result<Writer> {
                for changes in rx {
                    w.take(changes)?;
                }
                Ok(w)
            })
            .map_err(|e| Error::io("the audit trail's writer thread", e))?;
        Ok(Spill {
            tx: Some(tx),
            writer: Some(writer),
            failed: None,
        })
    }

    /// The writer thread's result once it has stopped: its error, if it
    /// failed.
    fn join(&mut self) -> Result<Writer> {
        self.tx = None;
        let failed = || Error::Storage("the audit trail's writer thread failed".into());
        let writer = self.writer.take().ok_or_else(failed)?;
        writer.join().map_err(|_| failed())?
    }

    /// Write what is buffered and close the files for reading.
    pub fn finish(mut self) -> Result<Buckets> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.join()?.finish()
    }
}

impl TrailSink for Spill {
    /// Hand `changes` to the writer thread (waiting while [`QUEUED`] batches
    /// are before them); a writer that stopped on an error returns it here.
    fn take(&mut self, changes: Vec<Placed>) -> Result<()> {
        let sent = self.tx.as_ref().map(|tx| tx.send(changes));
        if matches!(sent, Some(Ok(()))) {
            return Ok(());
        }
        if let Some(e) = &self.failed {
            return Err(again(e));
        }
        let joined = self.join().map(drop);
        if let Err(e) = &joined {
            self.failed = Some(again(e));
        }
        joined
    }
}

/// The writer's error once more, for every later [`TrailSink::take`] and
/// [`Spill::finish`]: an I/O error (the writer's own) keeps its file, kind
/// and message, a storage error its message (a failed join); no other kind
/// comes from the writer.
fn again(e: &Error) -> Error {
    match e {
        Error::Io { path, source } => {
            Error::io(path, std::io::Error::new(source.kind(), source.to_string()))
        }
        Error::Storage(msg) => Error::Storage(msg.clone()),
        other => Error::Storage(other.to_string()),
    }
}

impl Writer {
    fn new(files: Vec<File>) -> Result<Self> {
        let zstd = zstd::bulk::Compressor::new(1).map_err(|e| io(0, e))?;
        Ok(Writer {
            files: files.into_iter().map(BufWriter::new).collect(),
            blocks: vec![Vec::new(); BUCKETS],
            subjects: HashSet::new(),
            zstd,
        })
    }

    fn take(&mut self, changes: Vec<Placed>) -> Result<()> {
        for (place, c) in changes {
            let i = bucket_of(&c.subject);
            encode(place, &c, &mut self.blocks[i]);
            if !self.subjects.contains(&c.subject) {
                self.subjects.insert(c.subject);
            }
            if self.blocks[i].len() >= BLOCK {
                self.write_block(i)?;
            }
        }
        Ok(())
    }

    fn write_block(&mut self, i: usize) -> Result<()> {
        let block = std::mem::take(&mut self.blocks[i]);
        if block.is_empty() {
            return Ok(());
        }
        let frame = self.zstd.compress(&block).map_err(|e| io(i, e))?;
        let f = &mut self.files[i];
        let w = f
            .write_all(&(frame.len() as u32).to_le_bytes())
            .and_then(|()| f.write_all(&frame));
        w.map_err(|e| io(i, e))?;
        // The buffer is reused (its capacity kept) for the next block.
        self.blocks[i] = block;
        self.blocks[i].clear();
        Ok(())
    }

    /// Write what is buffered and close the files for reading.
    fn finish(mut self) -> Result<Buckets> {
        for i in 0..BUCKETS {
            self.write_block(i)?;
        }
        let mut files = Vec::with_capacity(BUCKETS);
        for (i, w) in self.files.into_iter().enumerate() {
            files.push(
                w.into_inner()
                    .map_err(|e| Error::io(bucket_name(i), e.into_error()))?,
            );
        }
        Ok(Buckets {
            files,
            subjects: self.subjects.into_iter().collect(),
        })
    }
}

fn io(i: usize, e: std::io::Error) -> Error {
    Error::io(bucket_name(i), e)
}

/// A finished spill, read a bucket at a time.
pub struct Buckets {
    files: Vec<File>,
    /// Every subject with a change.
    pub subjects: BTreeSet<String>,
}

impl Buckets {
    /// The changes of bucket `i` (every change of its subjects), in fold
    /// order: sorted by their records' indexes, stably (see [`TrailSink`]).
    pub fn read(&self, i: usize) -> Result<Vec<Change>> {
        use std::io::{Seek, SeekFrom};
        let io = |e| Error::io(bucket_name(i), e);
        let mut f = self
            .files
            .get(i)
            .ok_or_else(|| Error::Storage(format!("no bucket {i}")))?;
        f.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut r = BufReader::new(f);
        let mut out = (Vec::new(), Vec::new());
        let mut len = [0u8; 4];
        loop {
            match r.read_exact(&mut len) {
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                other => other.map_err(io)?,
            }
            let mut frame = vec![0u8; u32::from_le_bytes(len) as usize];
            r.read_exact(&mut frame).map_err(io)?;
            let block = zstd::stream::decode_all(&frame[..]).map_err(io)?;
            decode_block(&block, &mut out)
                .ok_or_else(|| Error::Storage(format!("{}: a damaged change", bucket_name(i))))?;
        }
        // Sorted by index and position (each change moved once, not along
        // a sort's merges: a bucket holds about a hundred thousand changes at
        // 1M events), which is the stable order by index.
        let (places, changes) = out;
        let mut order: Vec<(u64, usize)> = places.into_iter().zip(0..).collect();
        order.sort_unstable();
        let mut slots: Vec<Option<Change>> = changes.into_iter().map(Some).collect();
        Ok(order.iter().filter_map(|&(_, i)| slots[i].take()).collect())
    }
}

/// Decode every change of `block` onto `out` (their records' indexes and
/// the changes); None if it is not whole changes.
fn decode_block(mut b: &[u8], out: &mut (Vec<u64>, Vec<Change>)) -> Option<()> {
    while !b.is_empty() {
        // The limit keeps a damaged length from asking for more than is left.
        let c: std::result::Result<Placed, _> = options()
            .with_limit(b.len() as u64)
            .deserialize_from(&mut b);
        let (place, c) = c.ok()?;
        out.0.push(place);
        out.1.push(c);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(seq: u64, subject: &str, old: Option<&str>) -> Change {
        Change {
            seq,
            at: seq as i64 * 1_000 - 5,
            system: "valar".into(),
            subject: subject.into(),
            old: old.map(str::to_string),
            new: format!("{seq}"),
            formula: format!("+{seq} = round(é {seq})"),
        }
    }

    /// Every change comes back, in its subject's bucket, in fold order, through
    /// several compressed blocks per bucket, though two workers (each folding
    /// every other record, three changes a record) handed their batches on in
    /// turns, the later records' worker first.
    #[test]
    fn a_spilled_trail_reads_back_by_bucket_in_fold_order() {
        let subjects: Vec<String> = (0..600).map(|i| format!("p{i}")).collect();
        let all: Vec<Change> = (0..60_000u64)
            .map(|n| {
                let s = &subjects[(n * 7 % 600) as usize];
                change(n, s, (n % 3 != 0).then_some("old"))
            })
            .collect();
        let placed = |worker: u64| -> Vec<Placed> {
            let record = |c: &Change| c.seq / 3;
            let mine = all.iter().filter(|c| record(c) % 2 == worker);
            mine.map(|c| (record(c), c.clone())).collect()
        };
        let (even, odd) = (placed(0), placed(1));
        let mut spill = Spill::new().unwrap();
        for (a, b) in odd.chunks(3_000).zip(even.chunks(3_000)) {
            spill.take(a.to_vec()).unwrap();
            spill.take(b.to_vec()).unwrap();
        }
        let buckets = spill.finish().unwrap();
        assert_eq!(buckets.subjects.len(), 600);
        let mut back = Vec::new();
        for i in 0..BUCKETS {
            let got = buckets.read(i).unwrap();
            assert!(got.iter().all(|c| bucket_of(&c.subject) == i));
            assert!(got.windows(2).all(|w| w[0].seq < w[1].seq), "fold order");
            back.extend(got);
        }
        back.sort_by_key(|c| c.seq);
        assert_eq!(back, all);
    }

    /// A writer whose files refuse every byte (`/dev/full`: "no space left")
    /// stops at its first write; the fold's next hand-over gets its error,
    /// and so does every later one, naming the bucket's file.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_stops_the_spill_with_an_error_every_later_take_returns() {
        let full = || File::options().write(true).open("/dev/full").unwrap();
        let mut spill = Spill::over((0..BUCKETS).map(|_| full()).collect()).unwrap();
        // One subject, so one bucket fills a block and writes it: more than
        // [`BLOCK`] bytes of changes whose formulas do not compress below the
        // file buffer's 8 KiB.
        let batch = |from: u64| -> Vec<Placed> {
            let one = |n: u64| {
                let mut c = change(n, "p", None);
                c.formula = format!("{}", blake3::hash(&n.to_le_bytes()));
                (n, c)
            };
            (from..from + 4_000).map(one).collect()
        };
        let mut errors = Vec::new();
        for k in 0..QUEUED as u64 + 8 {
            if let Err(e) = spill.take(batch(k * 4_000)) {
                errors.push(e.to_string());
            }
        }
        assert!(errors.len() >= 2, "{errors:?}");
        assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
        assert!(errors[0].contains("temporary file"), "{}", errors[0]);
        let last = spill.finish().err().map(|e| e.to_string());
        assert_eq!(last.as_ref(), Some(&errors[0]));
    }

    #[test]
    fn a_damaged_block_is_an_error_not_a_panic() {
        let mut b = Vec::new();
        encode(7, &change(1, "p", None), &mut b);
        for cut in 0..b.len() {
            assert!(decode_block(&b[..cut], &mut Default::default()).is_none() || cut == 0);
        }
        assert!(decode_block(&b, &mut Default::default()).is_some());
    }
}
