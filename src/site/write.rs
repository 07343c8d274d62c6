//! Writing a site into its directory: built beside it and swapped in whole,
//! pages whose bytes did not change kept as they were.

use std::io::Write as _;
use std::path::Path;
use std::sync::mpsc::sync_channel;

use super::{Groups, Put, Site, TableView};
use crate::error::{Error, Result};

/// What [`write_staged`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Pages of the new site.
    pub pages: usize,
    /// Of those, pages written: new ones, and those whose bytes differ from the
    /// same file of the site replaced. The others are that file itself.
    pub changed: usize,
    /// Files of the site replaced that the new one no longer has.
    pub removed: usize,
}

/// Write every page (see [`Site::pages_staged`]) and `export.jsonl` (what
/// `export` writes to it: the bytes of `laurel export`) into `dir` (see
/// [`build_beside`]). Each page is written, on a thread of its own
/// ([`on_writer`]), as soon as it is rendered and the pages before it are written; one whose
/// bytes equal those of the same file of the site in `dir` is not written but
/// hard-linked from it: it keeps its modification time (and inode), so a
/// mirror or `rsync` copies only what changed. `export.jsonl` is always
/// written.
pub fn write_staged(
    dir: &Path,
    site: &Site,
    views: impl FnMut(&mut dyn FnMut(&TableView) -> Result<()>) -> Result<()>,
    groups: &mut Groups<'_>,
    export: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
) -> Result<Written> {
    let old = dir.join("index.html").is_file().then_some(dir);
    build_beside(dir, |stage| {
        let stage = Stage {
            dir: stage,
            old,
            changed: 0,
        };
        let (pages, stage) = on_writer(stage, |put| site.pages_staged(views, put, groups))?;
        write_export(stage.dir, export)?;
        let removed = old.map_or(0, |old| gone(old, stage.dir));
        Ok(Written {
            pages,
            changed: stage.changed,
            removed,
        })
    })
}

/// Pages a [`Stage`]'s writer thread holds before it writes them.
const QUEUED: usize = 8;

/// Run `make` with a `put` that hands each page to a thread of its own, which
/// writes it into `stage` (or links it, see [`Stage::put`]), in the order
/// handed: `make` goes on rendering while the file system works. A failed
/// write stops the writer, and its error is the one returned (`make` then
/// fails too, at its next page); otherwise `make`'s.
fn on_writer<'s, T>(
    mut stage: Stage<'s>,
    make: impl FnOnce(&mut Put<'_>) -> Result<T>,
) -> Result<(T, Stage<'s>)> {
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<(String, String)>(QUEUED);
        let writer = scope.spawn(move || -> Result<Stage<'s>> {
            for (name, html) in rx {
                stage.put(&name, &html)?;
            }
            Ok(stage)
        });
        let stopped = || Error::Storage("the site's writing thread stopped".into());
        let made = make(&mut |name, html| tx.send((name, html)).map_err(|_| stopped()));
        drop(tx);
        let stage = writer.join().map_err(|_| stopped())??;
        Ok((made?, stage))
    })
}

/// The directory a site is built in, beside the site it replaces (if any).
struct Stage<'a> {
    dir: &'a Path,
    old: Option<&'a Path>,
    /// Pages written (not linked).
    changed: usize,
}

impl Stage<'_> {
    /// Page `name`: linked from the old site if its bytes are `html`'s
    /// (written where the link fails), else written.
    fn put(&mut self, name: &str, html: &str) -> Result<()> {
        let p = self.dir.join(name);
        if let Some(old) = self.old.map(|o| o.join(name)) {
            if same_bytes(&old, html.as_bytes()) && std::fs::hard_link(&old, &p).is_ok() {
                return Ok(());
            }
        }
        self.changed += 1;
        std::fs::write(&p, html).map_err(|e| Error::io(p.display().to_string(), e))
    }
}

/// Does file `p` hold exactly `bytes`? (No, if it cannot be read.)
fn same_bytes(p: &Path, bytes: &[u8]) -> bool {
    let len = std::fs::metadata(p).map(|m| m.len());
    len.is_ok_and(|l| l == bytes.len() as u64) && std::fs::read(p).is_ok_and(|b| b == bytes)
}

/// How many files of `old` `new` does not have.
fn gone(old: &Path, new: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(old) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| !new.join(e.file_name()).exists())
        .count()
}

/// Run `build` on a new directory beside `dir` (`.NAME.building-PID` in the
/// same parent, so a rename moves it), then put that directory in `dir`'s
/// place: readers of `dir` see the old site or the new one, never a mix, and
/// no file of the old one survives but those `build` links into the new one. A
/// failed build removes its directory;
/// a killed one's is removed by the next build beside the same `dir`.
///
/// `dir` must be new, empty, or a site (it holds `index.html` and
/// `export.jsonl`): any other directory is refused, not replaced.
fn build_beside<T>(dir: &Path, build: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let (parent, name) = target_parts(dir)?;
    remove_stale(&parent, &name);
    let pid = std::process::id();
    let stage = parent.join(format!(".{name}.building-{pid}"));
    let io = |p: &Path| {
        let shown = p.display().to_string();
        move |e| Error::io(shown, e)
    };
    if stage.exists() {
        std::fs::remove_dir_all(&stage).map_err(io(&stage))?;
    }
    std::fs::create_dir_all(&stage).map_err(io(&stage))?;
    let built = match build(&stage) {
        Ok(t) => t,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&stage);
            return Err(e);
        }
    };
    if !dir.exists() {
        std::fs::rename(&stage, dir).map_err(io(dir))?;
        return Ok(built);
    }
    let old = parent.join(format!(".{name}.old-{pid}"));
    std::fs::rename(dir, &old).map_err(io(dir))?;
    if let Err(e) = std::fs::rename(&stage, dir) {
        let _ = std::fs::rename(&old, dir);
        return Err(io(dir)(e));
    }
    std::fs::remove_dir_all(&old).map_err(io(&old))?;
    Ok(built)
}

/// `dir`'s parent and name, once `dir` is known to be new, empty or a site.
fn target_parts(dir: &Path) -> Result<(std::path::PathBuf, String)> {
    let name = dir.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let Some(name) = name.filter(|n| n != "." && n != "..") else {
        return Err(Error::Usage(format!(
            "site: {} is not a directory name; give one, e.g. `laurel site public`",
            dir.display()
        )));
    };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        let is_site = dir.join("index.html").is_file() && dir.join("export.jsonl").is_file();
        if entries.next().is_some() && !is_site {
            return Err(Error::Usage(format!(
                "site: {} holds files and is not a laurel site (no index.html and \
                 export.jsonl); give a new or empty directory",
                dir.display()
            )));
        }
    } else if dir.exists() {
        return Err(Error::Usage(format!(
            "site: {} is not a directory",
            dir.display()
        )));
    }
    Ok((parent, name))
}

/// Remove what killed builds beside `parent/name` left: `.NAME.building-PID`
/// and `.NAME.old-PID` directories whose process is gone (on systems without
/// `/proc` nothing is removed: a live build's directory must not be).
fn remove_stale(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let proc_fs = Path::new("/proc/self").exists();
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&format!(".{name}.")))
        else {
            continue;
        };
        let pid = rest
            .strip_prefix("building-")
            .or_else(|| rest.strip_prefix("old-"))
            .and_then(|p| p.parse::<u32>().ok());
        let gone = pid.is_some_and(|p| {
            proc_fs && p != std::process::id() && !Path::new(&format!("/proc/{p}")).exists()
        });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn write_export(
    dir: &Path,
    export: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    let p = dir.join("export.jsonl");
    let io = |e| Error::io(p.display().to_string(), e);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&p).map_err(io)?);
    export(&mut w)?;
    w.flush().map_err(io)
}
