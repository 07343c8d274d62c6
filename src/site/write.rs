//! Writing a site into its directory: built beside it and swapped in whole,
//! pages whose bytes did not change kept as they were.
//!
//! A site lists what it holds in [`MANIFEST`], one file name a line. A
//! directory is replaced only if it is new, empty, or a site holding nothing
//! but the files its manifest lists: anything else in it (a ledger, a page of
//! one's own, a subdirectory) makes `site` refuse and name it, so publishing
//! never deletes what laurel did not write. The site is built beside `DIR`
//! and swapped in whole ([`crate::beside`]): a `DIR` that is a symbolic link
//! stays one, and a failed build leaves nothing beside it.

use std::io::Write as _;
use std::path::Path;
use std::sync::mpsc::sync_channel;

use super::{Groups, Put, Site, TableView};
use crate::error::{Error, Result};

/// The file of a site listing the files it holds, one name a line.
pub const MANIFEST: &str = ".laurel-site";

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
/// [`crate::beside::build_beside`]). Each page is written, on a thread of its own
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
    let dir = &crate::beside::followed(dir, "site")?;
    let old = dir.join(MANIFEST).is_file().then_some(dir.as_path());
    crate::beside::build_beside(dir, "site", &only_a_site_or_nothing, |stage| {
        let stage = Stage {
            dir: stage,
            old,
            changed: 0,
            names: Vec::new(),
        };
        let (pages, mut stage) = on_writer(stage, |put| site.pages_staged(views, put, groups))?;
        write_export(stage.dir, export)?;
        stage.names.push("export.jsonl".into());
        // Sorted: the same site, the same bytes, however its pages were put.
        stage.names.sort_unstable();
        let mut manifest = stage.names.join("\n");
        manifest.push('\n');
        stage.keep_or_write(MANIFEST, manifest.as_bytes())?;
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
    /// Every page put, in order.
    names: Vec<String>,
}

impl Stage<'_> {
    /// Page `name`: linked from the old site if its bytes are `html`'s
    /// (written where the link fails), else written.
    fn put(&mut self, name: &str, html: &str) -> Result<()> {
        self.names.push(name.to_string());
        if self.keep_or_write(name, html.as_bytes())? {
            self.changed += 1;
        }
        Ok(())
    }

    /// File `name`: linked from the old site if its bytes are `bytes`
    /// (written where the link fails), else written; whether it was written.
    fn keep_or_write(&self, name: &str, bytes: &[u8]) -> Result<bool> {
        let p = self.dir.join(name);
        if let Some(old) = self.old.map(|o| o.join(name)) {
            if same_bytes(&old, bytes) && std::fs::hard_link(&old, &p).is_ok() {
                return Ok(false);
            }
        }
        std::fs::write(&p, bytes).map_err(|e| Error::io(p.display().to_string(), e))?;
        Ok(true)
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

/// What a site may replace: nothing, an empty directory, or a site holding
/// only what its [`MANIFEST`] lists.
fn only_a_site_or_nothing(dir: &Path) -> Result<()> {
    if let Ok(entries) = std::fs::read_dir(dir) {
        return only_a_site(dir, entries);
    }
    if dir.exists() {
        return Err(Error::Usage(format!(
            "site: {} is not a directory",
            dir.display()
        )));
    }
    Ok(())
}

/// Refuse `dir` (whose `entries` these are) unless it is empty or holds
/// nothing but [`MANIFEST`] and the regular files it lists.
fn only_a_site(dir: &Path, entries: std::fs::ReadDir) -> Result<()> {
    let refused = |what: String| {
        Error::Usage(format!(
            "site: {} {what}; give a new or empty directory, or an earlier site",
            dir.display()
        ))
    };
    let mut entries = entries.peekable();
    if entries.peek().is_none() {
        return Ok(());
    }
    let listed = std::fs::read_to_string(dir.join(MANIFEST)).map_err(|_| {
        refused(format!(
            "holds files and no {MANIFEST} listing what laurel wrote there (not a site, or \
             one written before laurel listed its files: remove it)"
        ))
    })?;
    let listed: std::collections::BTreeSet<&str> = listed.lines().collect();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir.display().to_string(), e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let file = entry.file_type().is_ok_and(|t| t.is_file());
        if name != MANIFEST && !(file && listed.contains(name.as_ref())) {
            return Err(refused(format!(
                "holds {name:?}, which laurel did not write there (move it away)"
            )));
        }
    }
    Ok(())
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
