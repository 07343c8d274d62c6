//! Checkpoints made again in place: after records that change only some of
//! their sections (late records of one rating system, or about players),
//! each checkpoint at or after their cut keeps its position, its parent and
//! every other section's stored bytes, and takes the new bytes of the
//! sections that changed.
//!
//! A kept section is still exactly what it was: a whole checkpoint's frame
//! stands alone, and a delta's was compressed with its parent's section of
//! the same name, which is kept too. A new section is a frame that stands
//! alone, even in a delta: read back, it decompresses with the parent's
//! section as prefix like any other and copies nothing from it. The parent
//! link of a delta whose parent is made again names the parent's new header.
//! A delta whose parent, at or after the cut too, is not made again (its
//! file no longer reads) is not made again either. Each file is written
//! under a name of its own, and renamed over the old one only once the fold
//! has checked every record (records it refuses leave the checkpoints as
//! they were): a reader finds the old checkpoint (bound to the old head,
//! which it may still be reading) or the new one (bound to a head it does
//! not hold until the append publishes it), never a mix.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, Sender};

use super::file::{read_file_sections, write_unfinished};
use super::frames::compress;
use super::{key, link, on_checkpoint_thread, Header, Pos, Section};
use crate::error::Result;
use crate::ledger::{Head, Ledger};

/// A checkpoint to make again: its position, the records folded up to it,
/// and the new bytes (uncompressed) of the sections that changed, by name.
type Again = (Pos, u64, Vec<(String, Vec<u8>)>);

impl Ledger {
    /// The headers of the checkpoints at or after `cut`, in fold order
    /// (those whose header does not read are left out).
    pub(crate) fn checkpoints_from(&self, cut: Pos) -> Result<Vec<Header>> {
        self.with_headers(|all| {
            let read = |(k, v): (&[u8; 16], &Vec<u8>)| Header::read(v).filter(|h| key(h.pos) == *k);
            all.range(key(cut)..).filter_map(read).collect()
        })
    }

    /// Run `fold` with a `put` that makes each checkpoint of `olds` again at
    /// its position, bound to the head `new`, with the sections `put` is
    /// given and every other one kept (see the module docs), on a thread of
    /// its own; a checkpoint whose file no longer reads is not made again.
    /// Returns what `fold` does once every file is written.
    pub(crate) fn making_again<T>(
        &self,
        olds: &[Header],
        new: Head,
        fold: impl FnOnce(&mut dyn FnMut(Pos, u64, Vec<(String, Vec<u8>)>) -> Result<()>) -> Result<T>,
    ) -> Result<T> {
        let dir = self.files_dir();
        let by_key: BTreeMap<[u8; 16], &Header> = olds.iter().map(|h| (key(h.pos), h)).collect();
        let (dir_ref, by_key) = (&dir, &by_key);
        let work = move |jobs, made| {
            writer(jobs, made, |job, relinked| {
                // A delta whose parent is one of `olds` but was not made
                // again: its parent is about to go.
                let orphan = |h: &&Header| {
                    let gone =
                        |pk: &[u8; 16]| by_key.contains_key(pk) && !relinked.contains_key(pk);
                    h.parent.is_some_and(|(pk, _)| gone(&pk))
                };
                match by_key.get(&key(job.0)).filter(|h| !orphan(h)) {
                    Some(old) => again(dir_ref, old, new, job, relinked),
                    None => Ok(None),
                }
            })
        };
        // Each checkpoint made again waits for the append's checks.
        let mut made = |h| {
            self.unfinished.borrow_mut().push(h);
            Ok(())
        };
        on_checkpoint_thread(work, &mut made, |send| {
            fold(&mut |pos, folded, fresh| send((pos, folded, fresh)))
        })
    }
}

/// The checkpoint thread: makes each job's checkpoint (`make`, which is
/// given the new header of every checkpoint made so far, by its key) and
/// sends its header back; stops at its first failure, after sending it.
fn writer(
    jobs: Receiver<Again>,
    made: Sender<Result<Header>>,
    make: impl Fn(Again, &BTreeMap<[u8; 16], Header>) -> Result<Option<Header>>,
) {
    let mut relinked = BTreeMap::new();
    for job in jobs {
        let h = match make(job, &relinked) {
            Ok(None) => continue,
            Ok(Some(h)) => h,
            Err(e) => {
                let _ = made.send(Err(e));
                return;
            }
        };
        relinked.insert(key(h.pos), h.clone());
        if made.send(Ok(h)).is_err() {
            return;
        }
    }
}

/// Make checkpoint `old` again at the job's position (see
/// [`Ledger::making_again`]); `None` if its file no longer reads.
fn again(
    dir: &std::path::Path,
    old: &Header,
    new: Head,
    (pos, folded, fresh): Again,
    relinked: &BTreeMap<[u8; 16], Header>,
) -> Result<Option<Header>> {
    let Some(mut stored) = read_file_sections(dir, old) else {
        return Ok(None);
    };
    let mut sections = old.sections.clone();
    for (name, bytes) in &fresh {
        let Some(i) = old.index(name) else {
            return Ok(None);
        };
        stored[i] = compress(bytes, None)?;
        sections[i] = Section {
            name: name.clone(),
            stored: stored[i].len() as u64,
            raw: bytes.len() as u64,
        };
    }
    let parent = old.parent.map(|(pk, digest)| match relinked.get(&pk) {
        Some(p) => link(p),
        None => (pk, digest),
    });
    let h = Header {
        head: new,
        pos,
        folded,
        parent,
        sections,
    };
    write_unfinished(dir, &h, &stored)?;
    Ok(Some(h))
}
