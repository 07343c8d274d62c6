//! Opening a ledger: the writer's (its lock file, sled and its trees, the
//! format marker, the published view brought in line with sled) and a
//! reader's (the published view alone); and making an append durable
//! (fsync).

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use super::{published, storage, Handles, Head, Ledger};
use crate::error::{Error, Result};

/// sled's page cache; the default (1 GiB) would dominate memory use.
const CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// Remove the snapshot sled was writing when a process died: `snap.<lsn>.generating`.
///
/// Why: sled 0.34.7 writes its snapshot to that name and renames it when complete,
/// but when it opens it takes the highest-named `snap.*` file without skipping
/// `.generating` ones (`Config::get_snapshot_files` filters only the older
/// `.in___motion` suffix), so a kill mid-snapshot left a ledger that no later open
/// could read ("Read corrupted data at file offset None").
/// An unfinished snapshot was never the one in force: recovery uses the last
/// complete snapshot plus the log, which is what opening without it does. Called
/// only with `laurel.lock` held and before this process opens sled, so no live sled
/// instance can be writing the file.
fn remove_unfinished_snapshots(path: &Path) -> Result<()> {
    remove_files(path, |n| {
        n.starts_with("snap.") && n.ends_with(".generating")
    })
}

/// Delete the files directly in `dir` whose names `doomed` picks; nothing if
/// `dir` does not exist.
pub(super) fn remove_files(dir: &Path, doomed: impl Fn(&str) -> bool) -> Result<()> {
    let io = |e| Error::io(dir.display().to_string(), e);
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other.map_err(io)?,
    };
    for entry in entries {
        let entry = entry.map_err(io)?;
        if doomed(&entry.file_name().to_string_lossy()) {
            std::fs::remove_file(entry.path()).map_err(io)?;
        }
    }
    Ok(())
}

fn open_db(path: &Path) -> Result<sled::Db> {
    open_sled(path).map_err(|e| match e {
        sled::Error::Io(io) if io.to_string().contains("could not acquire lock") => {
            Error::Locked(path.to_path_buf())
        }
        sled::Error::Io(io) => Error::io(path.display().to_string(), io),
        other => Error::Corrupt(format!(
            "{}; the ledger cannot be opened: {RESTORE}",
            sled_damage(path, &other)
        )),
    })
}

/// sled's database at `path`, as sled opens it.
fn open_sled(path: &Path) -> sled::Result<sled::Db> {
    sled::Config::new()
        .path(path)
        .cache_capacity(CACHE_BYTES)
        .open()
}

/// What to tell the operator when sled refuses its own files at `path`:
/// which one fails its checksum, if one does. sled's message alone ("Read
/// corrupted data at file offset None") names none.
///
/// sled 0.34.7 ends `conf` with a CRC-32 of the bytes before it, and each
/// `snap.*` with its length and a CRC-32 of the bytes before those 12.
fn sled_damage(path: &Path, err: &sled::Error) -> String {
    // sled's own words for corruption hold its internal state (file offsets
    // as Rust debug text, an empty backtrace): not for the operator.
    let said = match err {
        sled::Error::Corruption { .. } => "it reads corrupted data".to_string(),
        other => other.to_string(),
    };
    sled_files_damage(path)
        .unwrap_or_else(|| format!("sled cannot read its files in {} ({said})", path.display()))
}

/// What to do about a damaged ledger directory.
const RESTORE: &str = "restore its directory from a backup (or make a new ledger of an \
    export with `laurel restore FILE`), then check it with `laurel verify --expect` and the \
    head you last published";

/// What is wrong with sled's files in the ledger at `path`, as far as can be
/// told without opening sled (which writes): `db` (its log) missing, empty
/// or not a file; `conf` not a file; `conf` or a `snap.*` failing its
/// checksum. A `conf` missing or of 8 bytes or fewer is none: sled 0.34.7
/// writes it anew.
fn sled_files_damage(path: &Path) -> Option<String> {
    let ends_with_crc = |b: &[u8], tail: usize| {
        b.len() > tail && {
            let (body, rest) = b.split_at(b.len() - tail);
            crc32fast::hash(body).to_le_bytes() == rest[rest.len() - 4..]
        }
    };
    let shown = |name: &str| path.join(name).display().to_string();
    match std::fs::metadata(path.join("db")) {
        Err(_) => return Some(format!("sled's file {} is missing", shown("db"))),
        Ok(m) if !m.is_file() => return Some(format!("sled's {} is not a file", shown("db"))),
        Ok(m) if m.len() == 0 => return Some(format!("sled's file {} is empty", shown("db"))),
        Ok(_) => {}
    }
    let conf = std::fs::metadata(path.join("conf"));
    if conf.as_ref().is_ok_and(|m| !m.is_file()) {
        return Some(format!("sled's {} is not a file", shown("conf")));
    }
    let mut files = Vec::new();
    if conf.is_ok_and(|m| m.len() > 8) {
        files.push((path.join("conf"), 4));
    }
    files.extend(sled_files(path).into_iter().skip(2).map(|p| (p, 12)));
    let bad = files
        .iter()
        .find(|(f, tail)| std::fs::read(f).is_ok_and(|b| !ends_with_crc(&b, *tail)));
    bad.map(|(f, _)| format!("sled's file {} fails its checksum", f.display()))
}

/// sled's head (meta "head": seq u64 LE, then the hash), of the writer's
/// store or of a copy of its files.
fn head_in(meta: &sled::Tree) -> Result<Head> {
    match meta.get("head").map_err(storage)? {
        None => Ok(Head::default()),
        Some(v) if v.len() == 40 => Ok(Head {
            seq: u64::from_le_bytes(v[..8].try_into().expect("8")),
            hash: v[8..].try_into().expect("32"),
        }),
        Some(_) => Err(Error::Corrupt("head record has the wrong size".into())),
    }
}

/// The seq `HEAD` durably named, as sled notes it (meta "published").
fn mark_in(meta: &sled::Tree) -> Result<u64> {
    let v = meta.get("published").map_err(storage)?;
    Ok(v.and_then(|v| v.as_ref().try_into().ok())
        .map_or(0, u64::from_le_bytes))
}

/// sled's files in the ledger directory: `db`, `conf`, then its snapshots.
fn sled_files(path: &Path) -> Vec<PathBuf> {
    let mut files = vec![path.join("db"), path.join("conf")];
    if let Ok(dir) = std::fs::read_dir(path) {
        let snaps = dir.flatten().map(|e| e.path()).filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("snap.") && !n.ends_with(".generating"))
        });
        files.extend(snaps);
    }
    files
}

impl Handles {
    fn of(db: sled::Db) -> Result<Handles> {
        Ok(Handles {
            chunks: db.open_tree("chunks").map_err(storage)?,
            meta: db.open_tree("meta").map_err(storage)?,
            db,
        })
    }
}

/// The writer's lock file in the ledger directory.
const LOCK: &str = "laurel.lock";

/// Take `laurel.lock` in the ledger directory, exclusively, without waiting.
fn lock(path: &Path) -> Result<std::fs::File> {
    std::fs::create_dir_all(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let file = path.join(LOCK);
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&file)
        .map_err(|e| Error::io(file.display().to_string(), e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Locked(path.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(file.display().to_string(), e)),
    }
}

fn exists(path: &Path) -> bool {
    ["conf", "db", "HEAD"].iter().any(|f| path.join(f).exists())
}

/// Why there is no ledger at `path`: none made yet ([`Error::NoLedger`]),
/// or a file where the ledger's directory should be (a mistyped
/// `--ledger`; one of a ledger's own files, when its directory is named;
/// a path under a file).
fn missing(path: &Path) -> Error {
    let Some(file) = path.ancestors().find(|a| a.is_file()) else {
        return Error::NoLedger(path.to_path_buf());
    };
    let dir = file.parent().filter(|d| exists(d));
    let pass = dir.map_or("DIR".to_string(), |d| d.display().to_string());
    Error::Usage(format!(
        "{} is a file, not a ledger: a ledger is the directory `laurel init` made \
         (pass --ledger {pass})",
        file.display()
    ))
}

impl Ledger {
    /// Whether `path` may take a new ledger (`laurel COMMAND` makes one
    /// there): a new or empty directory, no ledger nor file. A ledger gets a
    /// directory of its own: one made among other files (another ledger's
    /// `segments/`, a home directory) would leave them beside files laurel
    /// writes and removes. The lock an `init` killed before it wrote
    /// anything left is no file of another's.
    pub fn check_new_place(path: &Path, command: &str) -> Result<()> {
        if exists(path) {
            return Err(Error::Exists(path.to_path_buf()));
        }
        let refused = |what: &str| {
            Err(Error::Usage(format!(
                "{} {what}: `laurel {command}` makes a ledger in a new or empty directory",
                path.display()
            )))
        };
        if path.exists() && !path.is_dir() {
            return refused("is a file");
        }
        if let Ok(entries) = std::fs::read_dir(path) {
            let mut others = entries.filter(|e| e.as_ref().map_or(true, |e| e.file_name() != LOCK));
            if others.next().is_some() {
                return refused("is not empty");
            }
        }
        Ok(())
    }

    /// Create a new, empty ledger at `path` (a new or empty directory), ready
    /// for appends.
    pub fn init(path: &Path) -> Result<Ledger> {
        Ledger::check_new_place(path, "init")?;
        let lock = lock(path)?;
        // Again under the lock: another `init` may have won the race.
        if exists(path) {
            return Err(Error::Exists(path.to_path_buf()));
        }
        let ledger = Self::writer(path, lock, open_db(path)?)?;
        ledger
            .meta()?
            .insert("format", published::FORMAT.as_slice())
            .map_err(storage)?;
        ledger.durable()?;
        *ledger.out.borrow_mut() =
            Some(published::Out::open(path, published::Published::default())?);
        published::write_head(path, published::Published::default())?;
        Ok(ledger)
    }

    /// Open an existing ledger for appends: take `laurel.lock` (a second
    /// writer gets [`Error::Locked`] at once) and sled. The published head
    /// is the one in force: sled's is set back to it if an append was killed
    /// after sled's commit and before its publication (it was never
    /// acknowledged; more than one append beyond `HEAD` is refused), and
    /// bytes of `index` and `fps` beyond it are cut off.
    pub fn open(path: &Path) -> Result<Ledger> {
        if !exists(path) {
            return Err(missing(path));
        }
        let lock = lock(path)?;
        remove_unfinished_snapshots(path)?;
        // sled would make a missing `db` anew, empty, and then refuse it.
        if let Some(what) = sled_files_damage(path) {
            return Err(Error::Corrupt(format!(
                "{what}; the ledger cannot be opened: {RESTORE}"
            )));
        }
        let ledger = Self::writer(path, lock, open_db(path)?)?;
        match ledger.meta()?.get("format").map_err(storage)? {
            Some(f) if f.as_ref() == published::FORMAT => {}
            Some(f) => {
                return Err(Error::Corrupt(format!(
                    "unknown ledger format {:?}",
                    String::from_utf8_lossy(&f)
                )))
            }
            None => {
                return Err(Error::Corrupt(
                    "not a laurel ledger (no format marker)".into(),
                ))
            }
        }
        let published = published::read_published(path)?;
        let head = published.head;
        *ledger.index.borrow_mut() = published::read_index(path, published)?;
        let kept = ledger.sled_head()?;
        if kept.seq < head.seq || (kept.seq == head.seq && kept != head) {
            return Err(Error::Corrupt(format!(
                "{} says {head} but the ledger's head is {kept}",
                published::head_file(path).display()
            )));
        }
        if kept != head {
            ledger.one_unpublished_append(head.seq)?;
            ledger.set_sled_head(head)?;
            ledger.durable()?;
        }
        ledger.published.set(published);
        *ledger.out.borrow_mut() = Some(published::Out::open(path, published)?);
        Ok(ledger)
    }

    /// Check that what sled holds beyond the published head `seq` is one
    /// append's, all in segment `seq + 1`, never published: an append killed
    /// between sled's commit and `HEAD`'s rename, which the caller then sets
    /// back. More than that, or an append sled marks published, means `HEAD`
    /// is older than the ledger (restored from a copy, say), and setting
    /// sled back would drop acknowledged appends: refused.
    fn one_unpublished_append(&self, seq: u64) -> Result<()> {
        let mark = self.published_mark()?;
        if mark > seq {
            return Err(Error::Corrupt(format!(
                "{} says {seq}, but the ledger published seq {mark} after it: \
                 restore HEAD, index and fps with the rest of the directory",
                published::head_file(&self.path).display()
            )));
        }
        for item in self.chunks()?.range(super::chunk::key(seq + 1)..) {
            let (k, v) = item.map_err(storage)?;
            let first = k.as_ref().try_into().map_or(0, u64::from_be_bytes);
            let (segment, _, _) = super::segment::parse(&v, first)?;
            if segment != seq + 1 {
                return Err(Error::Corrupt(format!(
                    "{} says {seq}, but the ledger holds later appends (from seq {segment}): \
                     restore HEAD, index and fps with the rest of the directory",
                    published::head_file(&self.path).display()
                )));
            }
        }
        Ok(())
    }

    /// What is wrong with the writer's store (sled's files), as far as a
    /// reader can tell without opening it: a ledger whose chain verifies but
    /// whose next append would fail to open it is damaged all the same.
    pub fn writer_store_damage(&self) -> Option<String> {
        let damage = sled_files_damage(&self.path)
            .map(|what| format!("{what}: the next append cannot open the ledger; {RESTORE}"));
        damage.or_else(|| self.store_copy_damage())
    }

    /// What the next append's open would refuse in sled's files, found by
    /// opening a copy of them (in a temporary directory: a reader writes
    /// nothing in the ledger, and sled rewrites files it opens): files that
    /// do not read, or a head that is not `HEAD`'s (sled's files put back
    /// from an older copy). `None` when the files changed while they were
    /// copied (an append ran: its own open judges them) or could not be
    /// copied.
    fn store_copy_damage(&self) -> Option<String> {
        let copy = self.sled_files_copied()?;
        let head = self.head().ok()?;
        let fail = |what: String| Some(format!("{what}; {RESTORE}"));
        // The copy holds the same bytes: its damage is named as the ledger's.
        let db = match open_sled(copy.path()) {
            Ok(db) => db,
            Err(e) => {
                let what = sled_damage(&self.path, &e);
                return fail(format!("{what}: the next append cannot open the ledger"));
            }
        };
        let read =
            Handles::of(db).and_then(|store| Ok((head_in(&store.meta)?, mark_in(&store.meta)?)));
        let (kept, mark) = match read {
            Ok(read) => read,
            Err(e) => return fail(format!("{e}: the next append cannot open the ledger")),
        };
        let behind = kept.seq < head.seq || (kept.seq == head.seq && kept != head);
        match behind || mark > head.seq {
            true => fail(format!(
                "{} says {head} while sled's files say the head is {kept} (published up to \
                 seq {mark}): sled's files and HEAD are of two copies, and the next append \
                 refuses the directory",
                published::head_file(&self.path).display()
            )),
            false => None,
        }
    }

    /// sled's files, copied into a temporary directory (writable there, as
    /// sled opens them); `None` when they changed while they were copied or
    /// `HEAD` moved (an append ran), or could not be copied.
    fn sled_files_copied(&self) -> Option<tempfile::TempDir> {
        let files: Vec<PathBuf> = (sled_files(&self.path).into_iter())
            .filter(|f| f.is_file())
            .collect();
        let stamp = |files: &[PathBuf]| -> Option<Vec<(u64, std::time::SystemTime)>> {
            let meta = files.iter().map(|f| std::fs::metadata(f).ok());
            meta.map(|m| m.and_then(|m| Some((m.len(), m.modified().ok()?))))
                .collect()
        };
        let before = stamp(&files)?;
        // Where no file may grow that large, a copy would end the process.
        let bytes: u64 = before.iter().map(|(len, _)| len).sum();
        let limit = rustix::process::getrlimit(rustix::process::Resource::Fsize);
        if limit.current.is_some_and(|most| most <= bytes) {
            return None;
        }
        let copy = tempfile::tempdir().ok()?;
        for f in &files {
            let to = copy.path().join(f.file_name()?);
            std::fs::copy(f, &to).ok()?;
            let owner_only = std::os::unix::fs::PermissionsExt::from_mode(0o600);
            std::fs::set_permissions(&to, owner_only).ok()?;
        }
        (stamp(&files)? == before && !self.head_moved()).then_some(copy)
    }

    /// Has `HEAD` moved past the head this reader pinned (an append ran)?
    fn head_moved(&self) -> bool {
        let now = published::read_published(&self.path).map(|p| p.head);
        now.map_or(true, |now| self.head().map_or(true, |h| h != now))
    }

    /// Open an existing ledger for reading: its published head, pinned, and
    /// the index up to it. Takes no lock, never opens sled, opens every file
    /// read-only and writes nothing, so it works beside a writer and other
    /// readers, on a read-only copy and on a full disk.
    pub fn read(path: &Path) -> Result<Ledger> {
        if !exists(path) {
            return Err(missing(path));
        }
        let published = published::read_published(path)?;
        let index = published::read_index(path, published)?;
        let ledger = Self::new(path, None, None);
        *ledger.index.borrow_mut() = index;
        ledger.published.set(published);
        Ok(ledger)
    }

    fn writer(path: &Path, lock: std::fs::File, db: sled::Db) -> Result<Ledger> {
        Ok(Self::new(path, Some(lock), Some(Handles::of(db)?)))
    }

    fn new(path: &Path, lock: Option<std::fs::File>, handles: Option<Handles>) -> Ledger {
        Ledger {
            handles: RefCell::new(handles),
            published: Cell::default(),
            index: RefCell::default(),
            checkpoints: RefCell::default(),
            unfinished: RefCell::default(),
            segments: RefCell::default(),
            out: RefCell::default(),
            _lock: lock,
            path: path.to_path_buf(),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&Handles) -> T) -> Result<T> {
        let h = self.handles.borrow();
        let h = h
            .as_ref()
            .ok_or_else(|| Error::Storage("the ledger is open for reading".into()))?;
        Ok(f(h))
    }

    pub(super) fn chunks(&self) -> Result<sled::Tree> {
        self.with(|h| h.chunks.clone())
    }

    pub(super) fn meta(&self) -> Result<sled::Tree> {
        self.with(|h| h.meta.clone())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The head: the published head when the ledger was opened, or the
    /// head of the last append this writer made.
    pub fn head(&self) -> Result<Head> {
        Ok(self.published.get().head)
    }

    /// sled's head (meta "head" = seq u64 LE (8) + hash (32); absent for an
    /// empty ledger).
    fn sled_head(&self) -> Result<Head> {
        head_in(&self.meta()?)
    }

    /// Note in sled (meta "published" = seq u64 LE) that `HEAD` durably named
    /// `seq`: a `HEAD` below this mark is an older copy put back, not one
    /// left behind by an append killed before its publication
    /// ([`Ledger::open`]).
    pub(super) fn mark_published(&self, seq: u64) -> Result<()> {
        self.meta()?
            .insert("published", &seq.to_le_bytes())
            .map_err(storage)?;
        self.with(|h| h.db.flush())?.map_err(storage)?;
        Ok(())
    }

    /// The last seq [`Ledger::mark_published`] noted (0 for none).
    fn published_mark(&self) -> Result<u64> {
        mark_in(&self.meta()?)
    }

    /// Write sled's head.
    pub(super) fn set_sled_head(&self, head: Head) -> Result<()> {
        let mut v = head.seq.to_le_bytes().to_vec();
        v.extend_from_slice(&head.hash);
        self.meta()?.insert("head", v).map_err(storage)?;
        Ok(())
    }

    /// Flush sled, then fsync sled's files (its `flush` is not a full fsync
    /// on Linux) and the directories that name laurel's files ([`to_fsync`]). A segment is fsynced by the append that
    /// writes it ([`super::segment::Writer::sync`]), a checkpoint file by its
    /// writer and the published view by [`published::Out::sync`], so this
    /// does not grow with their count.
    pub(super) fn durable(&self) -> Result<()> {
        self.with(|h| h.db.flush())?.map_err(storage)?;
        fsync_all(&self.path, &self.files_dir())
    }
}

/// Threads that fsync the ledger's files at the end of an append.
///
/// Why: ext4 commits concurrent fsyncs to its journal together, so eight at
/// once take about half the wall time of one after another; `syncfs` would
/// also wait for every other dirty file of the file system.
const FSYNC_THREADS: usize = 8;

/// fsync what [`to_fsync`] lists for the ledger at `dir`: the files
/// ([`FSYNC_THREADS`] at a time), then the directories, each after the files it
/// names, so a new file's entry is durable too.
///
/// A file gone by the time it is opened is skipped: sled deletes blob files
/// it no longer needs, and their deletion is made durable by the fsync of
/// their directory, which comes after.
pub(super) fn fsync_all(dir: &Path, checkpoints: &Path) -> Result<()> {
    let (files, dirs) = to_fsync(dir, checkpoints)?;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match files.get(i) {
            Some(p) => fsync_path(p, true)?,
            None => return Ok(()),
        }
    };
    let threads = FSYNC_THREADS.min(files.len());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        let gone = || Err(Error::Storage("an fsync thread panicked".into()));
        workers
            .into_iter()
            .try_for_each(|w| w.join().unwrap_or_else(|_| gone()))
    })?;
    dirs.iter().try_for_each(|d| fsync_path(d, false))
}

/// What an append makes durable after sled's flush, for the ledger at `dir`:
/// the regular files sled writes (`db`, `conf`, `snap.*` and those directly in
/// `blobs/`), then the directories `blobs/` and `checkpoints` (if they exist)
/// and the ledger's own.
///
/// Only these names: anything else in the ledger's directory (a `lost+found`,
/// a symlink, a fifo an operator left) is not laurel's, and is neither opened
/// nor followed.
pub(super) fn to_fsync(dir: &Path, checkpoints: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let sleds = |name: &str| name == "db" || name == "conf" || name.starts_with("snap.");
    let blobs = dir.join("blobs");
    let mut files = regular_files(dir, sleds)?;
    let mut dirs = Vec::new();
    for d in [blobs.as_path(), checkpoints] {
        if is_dir(d) {
            if d == blobs {
                files.extend(regular_files(d, |_| true)?);
            }
            dirs.push(d.to_path_buf());
        }
    }
    dirs.push(dir.to_path_buf());
    Ok((files, dirs))
}

/// The regular files directly in `dir` (symlinks are not followed) whose
/// names pass `wanted`.
fn regular_files(dir: &Path, wanted: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
    let io = |e| Error::io(dir.display().to_string(), e);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if regular && wanted(&entry.file_name().to_string_lossy()) {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// Whether `p` is a directory itself (not a symlink to one).
fn is_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// fsync the file or directory `p`; when `gone_ok`, one that does not exist
/// (any more) is not an error.
pub(super) fn fsync_path(p: &Path, gone_ok: bool) -> Result<()> {
    match std::fs::File::open(p) {
        Err(e) if gone_ok && e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        opened => opened
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(p.display().to_string(), e)),
    }
}
