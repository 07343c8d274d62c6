//! A directory built beside its place, then put in it whole: how `laurel
//! site` publishes and `laurel restore` makes a ledger, so that readers of
//! the place see what was there or the finished new one, never a mix of the
//! two (where something is replaced, for the moment between two renames,
//! nothing), and a failed build leaves nothing.
//!
//! The build goes into `.NAME.building-PID` in the same parent (a rename
//! then moves it), named after its process so that two builds beside one
//! place never share a directory; one a killed build left is removed by the
//! next build beside the same place, once its process is gone. What the place
//! may hold is the caller's to say (a site replaces an earlier site; a ledger
//! is made only where there is none): it is checked before the build and
//! again just before the swap, so that what another process put there
//! meanwhile stays. A place that is a symbolic link stays one: the build goes
//! where it leads ([`followed`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// `dir`, or where it leads when it is a symbolic link (a web server's
/// document root often is one): the build replaces the directory the link
/// names, and the link stays. A link that leads nowhere is refused, naming
/// `command`.
pub fn followed(dir: &Path, command: &str) -> Result<PathBuf> {
    let link = std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
    if !link {
        return Ok(dir.to_path_buf());
    }
    std::fs::canonicalize(dir).map_err(|_| {
        Error::Usage(format!(
            "{command}: {} is a symbolic link to nothing; give a directory, or link to one",
            dir.display()
        ))
    })
}

/// Run `build` on a new directory beside `dir` (see the module docs), then
/// put it in `dir`'s place, what was there moved aside and removed; an
/// existing `dir`'s permissions are the new one's. `accept` says whether
/// `dir` may be replaced, before the build and again before the swap (its
/// name is checked first: a directory's, not `.`). A failed build removes its
/// directory. `command` names the command in messages.
pub fn build_beside<T>(
    dir: &Path,
    command: &str,
    accept: &dyn Fn(&Path) -> Result<()>,
    build: impl FnOnce(&Path) -> Result<T>,
) -> Result<T> {
    let (parent, name) = parts(dir, command)?;
    accept(dir)?;
    remove_stale(&parent, &name);
    let pid = std::process::id();
    let stage = parent.join(format!(".{name}.building-{pid}"));
    if stage.exists() {
        std::fs::remove_dir_all(&stage).map_err(io(&stage))?;
    }
    std::fs::create_dir_all(&stage).map_err(io(&stage))?;
    let built = build(&stage).and_then(|built| {
        accept(dir)?;
        if let Ok(m) = std::fs::metadata(dir) {
            std::fs::set_permissions(&stage, m.permissions()).map_err(io(&stage))?;
        }
        swap_in(&stage, dir, &parent.join(format!(".{name}.old-{pid}")))?;
        Ok(built)
    });
    if built.is_err() {
        let _ = std::fs::remove_dir_all(&stage);
    }
    built
}

/// An I/O error's conversion naming `p`.
fn io(p: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let shown = p.display().to_string();
    move |e| Error::io(shown, e)
}

/// Put the built `stage` in `dir`'s place: at once where `dir` is new or an
/// empty directory (one rename replaces it); else what is there is moved to
/// `old`, the new one put in, and `old` removed (left to the next build if
/// that fails: the new one is in place). If the new one cannot go in, the
/// old one is put back.
fn swap_in(stage: &Path, dir: &Path, old: &Path) -> Result<()> {
    if std::fs::rename(stage, dir).is_ok() {
        return Ok(());
    }
    std::fs::rename(dir, old).map_err(io(dir))?;
    if let Err(e) = std::fs::rename(stage, dir) {
        let _ = std::fs::rename(old, dir);
        return Err(io(dir)(e));
    }
    let _ = std::fs::remove_dir_all(old);
    Ok(())
}

/// `dir`'s parent and name.
fn parts(dir: &Path, command: &str) -> Result<(PathBuf, String)> {
    let name = dir.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let Some(name) = name.filter(|n| n != "." && n != "..") else {
        return Err(Error::Usage(format!(
            "{command}: {} is not a directory name; give the directory by its name",
            dir.display()
        )));
    };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
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
