//! What the measurements stand on: the generated stream (fsynced before
//! anything is timed), the floor, the stream's date range, and the file-system
//! helpers (a directory's bytes and largest file, a synced copy of a ledger).

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::io;
use crate::error::{Error, Result};
use crate::ledger::canonical;
use crate::ledger::lanes::Midstate;
use crate::systems::gen;

/// Generate `events` events of `seed` into `path` and fsync it: left dirty, the
/// kernel writes it back about 30 s later (`vm.dirty_expire_centisecs`), during
/// the import.
pub(super) fn generate(path: &Path, events: u64, seed: u64) -> Result<()> {
    let f = std::fs::File::create(path).map_err(io("events file"))?;
    let mut bw = BufWriter::with_capacity(256 * 1024, f);
    gen::generate(
        &gen::Options {
            events,
            seed,
            systems: vec![],
        },
        &mut bw,
    )
    .map_err(io("events file"))?;
    let f = bw
        .into_inner()
        .map_err(|e| Error::io("events file", e.into_error()))?;
    f.sync_all().map_err(io("events file"))
}

/// The floor: parse, canonicalise, chain and write to a plain file with fsync.
pub(super) fn floor(jsonl: &Path, out: &Path) -> Result<Duration> {
    let t = Instant::now();
    let r = BufReader::with_capacity(
        256 * 1024,
        std::fs::File::open(jsonl).map_err(io("events file"))?,
    );
    let f = std::fs::File::create(out).map_err(io("floor file"))?;
    let mut w = BufWriter::with_capacity(256 * 1024, f);
    let mut prev = [0u8; 32];
    let recorded_at = crate::time::format(crate::time::now());
    let (platform, mut record) = (blake3::platform::Platform::detect(), Vec::new());
    // The canonical form as `append` makes it (without its typed validation).
    let mut parser = crate::systems::LineParser::default();
    for (i, line) in r.split(b'\n').enumerate() {
        let line = line.map_err(io("events file"))?;
        if line.is_empty() {
            continue;
        }
        let c = parser
            .canonical(&line)
            .map_err(|e| Error::Usage(format!("line {}: {e}", i + 1)))?;
        let (ev, at) = ((c.as_slice(), &prev), (recorded_at.as_str(), i as u64 + 1));
        let h = canonical::record_hash(&Midstate::default(), &platform, ev, at, &mut record);
        w.write_all(&h).map_err(io("floor file"))?;
        w.write_all(&c).map_err(io("floor file"))?;
        prev = h;
    }
    let f = w
        .into_inner()
        .map_err(|e| Error::io("floor file", e.into_error()))?;
    f.sync_all().map_err(io("floor file"))?;
    Ok(t.elapsed())
}

/// Every file under `dir` (recursively), with its size.
fn files(dir: &Path, out: &mut Vec<(PathBuf, u64)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.filter_map(|e| e.ok()) {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            out.push((p, len));
        }
    }
}

/// The total bytes of the files under `dir`.
pub(super) fn dir_bytes(dir: &Path) -> u64 {
    let mut all = Vec::new();
    files(dir, &mut all);
    all.iter().map(|f| f.1).sum()
}

/// What [`dir_summary`] finds under a directory.
pub(super) struct DirSummary {
    pub(super) files: usize,
    pub(super) bytes: u64,
    /// The largest file and the largest `.html` page: path relative to the directory, bytes.
    pub(super) largest: (String, u64),
    pub(super) largest_page: (String, u64),
}

/// The files under `dir`: count, total bytes, largest file, largest page.
pub(super) fn dir_summary(dir: &Path) -> DirSummary {
    let mut all = Vec::new();
    files(dir, &mut all);
    let largest = |page: bool| {
        all.iter()
            .filter(|f| !page || f.0.extension().is_some_and(|e| e == "html"))
            .max_by_key(|f| f.1)
            .map_or((String::new(), 0), |(p, b)| {
                let rel = p.strip_prefix(dir).unwrap_or(p);
                (rel.display().to_string(), *b)
            })
    };
    DirSummary {
        files: all.len(),
        bytes: all.iter().map(|f| f.1).sum(),
        largest: largest(false),
        largest_page: largest(true),
    }
}

/// Copy the directory `from` to `to` file by file and fsync each copy, so that
/// a command timed on the copy does not pay for writing the copy back.
pub(super) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).map_err(io("ledger copy"))?;
    for e in std::fs::read_dir(from).map_err(io("ledger copy"))? {
        let e = e.map_err(io("ledger copy"))?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(io("ledger copy"))?;
            std::fs::File::open(&dst)
                .and_then(|f| f.sync_all())
                .map_err(io("ledger copy"))?;
        }
    }
    Ok(())
}

/// The first and last `at` (seconds) of the stream, read from its lines.
pub(super) fn at_range(jsonl: &Path) -> Result<(i64, i64)> {
    #[derive(serde::Deserialize)]
    struct At {
        at: String,
    }
    let r = BufReader::new(std::fs::File::open(jsonl).map_err(io("events file"))?);
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for line in r.lines() {
        let line = line.map_err(io("events file"))?;
        if let Ok(a) = serde_json::from_str::<At>(&line) {
            if let Some(t) = crate::time::parse(&a.at) {
                lo = lo.min(t / 1_000_000);
                hi = hi.max(t / 1_000_000);
            }
        }
    }
    Ok((lo, hi))
}

/// The first line of the stream whose `type` is `kind`, as JSON.
pub(super) fn first_of_type(jsonl: &Path, kind: &str) -> Result<Option<serde_json::Value>> {
    let r = BufReader::new(std::fs::File::open(jsonl).map_err(io("events file"))?);
    for line in r.lines() {
        let line = line.map_err(io("events file"))?;
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if v["type"] == kind {
            return Ok(Some(v));
        }
    }
    Ok(None)
}
