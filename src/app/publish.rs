//! The commands that make more than one table's output: `demo`, `site`, `gen` and
//! `bench`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{fold_stamped, folded_only, selectors, QueryArgs};
use crate::error::{Error, Result};
use crate::fold;
use crate::ledger::{canonical, Input, Ledger};
use crate::output::{self, Format};
use crate::site::TableView;
use crate::spill::{self, Spill};
use crate::systems::{self, Change};

/// `laurel demo`: the bundled events in a temporary ledger, and every table.
pub fn demo(w: &mut dyn Write) -> Result<()> {
    let dir = tempfile::tempdir().map_err(|e| Error::io("temporary directory", e))?;
    let path = dir.path().join("laurel.db");
    let ledger = Ledger::init(&path)?;
    let inputs = crate::demo::BUNDLED
        .iter()
        .map(|(name, text)| Input {
            name: format!("events/{name}"),
            reader: Box::new(text.as_bytes()),
        })
        .collect();
    let report = ledger.append(inputs)?;
    let mut out = format!(
        "laurel demo: {} bundled file(s), {} events in a temporary ledger\nhead {}\n\n",
        crate::demo::BUNDLED.len(),
        report.appended,
        report.head
    );
    let (f, stamp) = folded_only(&ledger, &QueryArgs::default(), None)?;
    for (table, _) in systems::tables() {
        for sel in selectors(&f.state, table) {
            out.push_str(&format!(
                "== standings {table}{} ==\n",
                sel.tournament
                    .as_ref()
                    .map(|t| format!(" --tournament {t}"))
                    .unwrap_or_default()
            ));
            match f.state.standings(table, &sel, &f.cx) {
                Ok(r) => out.push_str(&output::render(&r, &stamp, Format::Table)),
                Err(e) => out.push_str(&format!("({e})\n")),
            }
            out.push('\n');
        }
    }
    out.push_str(
        "Verify it yourself: `laurel export` prints every record; recompute each BLAKE3 hash\n",
    );
    out.push_str("as README.md shows and compare the last with the head above.\n");
    out.push_str("Publish it as a static website: `laurel init && laurel import events && laurel site site/`.\n");
    w.write_all(out.as_bytes())
        .map_err(|e| Error::io("stdout", e))
}

/// `laurel site DIR`: a static website of every table and player, with the
/// export and the head to verify it by (see [`crate::site`]).
pub fn site(path: &Path, dir: &Path, args: &QueryArgs) -> Result<String> {
    let ledger = Ledger::read(path)?;
    let mut q = args.query()?;
    // Every player's trail (a page each), spilled to disk by subject as the fold
    // goes and read back a bucket at a time (bounded memory, see `spill`).
    q.audit = true;
    let spill = Arc::new(Mutex::new(Spill::new()?));
    q.trail = Some(fold::Trail(spill.clone()));
    let (mut f, stamp) = fold_stamped(&ledger, args, q)?;
    let head = ledger.head()?;
    let spill = Arc::into_inner(spill)
        .and_then(|m| m.into_inner().ok())
        .ok_or_else(|| Error::Storage("the audit trail's sink failed".into()))?;
    let mut buckets = spill.finish(f.cx.take_changes())?;
    // This fold was for the trail: the tables are made from folds of their own.
    drop(f);
    let site = crate::site::Site {
        head_seq: head.seq,
        head_hash: canonical::hex(&head.hash),
        stamp,
        spilled_subjects: std::mem::take(&mut buckets.subjects),
    };
    let views = |each: &mut dyn FnMut(&TableView) -> Result<()>| table_views(&ledger, args, each);
    let export_path = dir.join("export.jsonl").display().to_string();
    let mut export = |w: &mut dyn Write| ledger.export_to(w, &export_path);
    let mut groups = |page: &mut dyn FnMut(&[Change]) -> Result<()>| {
        (0..spill::BUCKETS).try_for_each(|i| page(&buckets.read(i)?))
    };
    let pages = crate::site::write_staged(dir, &site, views, &mut groups, &mut export)?;
    Ok(format!(
        "wrote {pages} page(s) and export.jsonl to {}\nhead {head}\nopen {}\n",
        dir.display(),
        dir.join("index.html").display()
    ))
}

/// Every standings table of the site in display order, handed to `each` one at
/// a time (`Site::pages_staged` asks twice). Each namespace's projection is
/// folded on its own, from the latest checkpoint that serves (as `standings`
/// does), and dropped once its tables are made: one projection and one report
/// are held at a time (CFR's report alone has a row per event score).
fn table_views(
    ledger: &Ledger,
    args: &QueryArgs,
    each: &mut dyn FnMut(&TableView) -> Result<()>,
) -> Result<()> {
    for tables in systems::tables().chunk_by(|a, b| a.1 == b.1) {
        let (f, _) = folded_only(ledger, args, Some(tables[0].1))?;
        for &(table, _) in tables {
            views_of(&f, table, each)?;
        }
    }
    Ok(())
}

/// `table` from `f`, or one per tournament for the tables shown per tournament
/// (a table without any tournament yet is listed with that error).
fn views_of(
    f: &fold::Folded,
    table: &str,
    each: &mut dyn FnMut(&TableView) -> Result<()>,
) -> Result<()> {
    let sels = selectors(&f.state, table);
    if sels.is_empty() {
        each(&TableView {
            table: table.into(),
            tournament: None,
            standings: Err(format!("standings {table}: no tournament recorded yet")),
        })?;
    }
    for sel in sels {
        each(&TableView {
            table: table.into(),
            tournament: sel.tournament.clone(),
            standings: f.state.standings(table, &sel, &f.cx),
        })?;
    }
    Ok(())
}

/// `laurel gen`: a synthetic event stream on `w`.
pub fn gen(events: u64, seed: u64, systems: &[String], w: &mut dyn Write) -> Result<()> {
    let systems = systems
        .iter()
        .map(|s| {
            crate::gen::System::parse(s).ok_or_else(|| {
                let known = crate::systems::NAMESPACES.join(", ");
                Error::Usage(format!("--systems: unknown system {s:?} (known: {known})"))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let opts = crate::gen::Options {
        events,
        seed,
        systems,
    };
    let mut bw = std::io::BufWriter::with_capacity(256 * 1024, w);
    crate::gen::generate(&opts, &mut bw).map_err(|e| Error::io("stdout", e))?;
    bw.flush().map_err(|e| Error::io("stdout", e))
}

/// `laurel bench`: measure the performance figures against the floor.
pub fn bench(events: u64, seed: u64, exe: PathBuf, keep: bool, w: &mut dyn Write) -> Result<()> {
    let opts = crate::bench::Options {
        events,
        seed,
        exe,
        keep,
    };
    crate::bench::run_bench(&opts, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Every file under `dir`, by name.
    fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect()
    }

    /// `laurel site` (tables made twice, one at a time, each namespace folded on
    /// its own; the trail spilled) writes the files that every table and change
    /// of one audited fold, held in memory, make. 12,000 events: the tables' folds
    /// start from the checkpoint at 10,000.
    #[test]
    fn the_staged_site_is_the_site_from_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("ledger");
        let text = crate::gen::stream(12_000, 11);
        let ledger = Ledger::init(&path).unwrap();
        let input = Input {
            name: "gen".into(),
            reader: Box::new(text.as_bytes()),
        };
        ledger.append(vec![input]).unwrap();
        drop(ledger);
        let args = QueryArgs::default();
        site(&path, &tmp.path().join("staged"), &args).unwrap();

        let ledger = Ledger::read(&path).unwrap();
        let mut q = args.query().unwrap();
        q.audit = true;
        let (mut f, stamp) = fold_stamped(&ledger, &args, q).unwrap();
        let mut tables = Vec::new();
        for (table, _) in systems::tables() {
            views_of(&f, table, &mut |v| {
                tables.push(v.clone());
                Ok(())
            })
            .unwrap();
        }
        let head = ledger.head().unwrap();
        let changes = f.cx.take_changes();
        let whole = crate::site::Site {
            head_seq: head.seq,
            head_hash: canonical::hex(&head.hash),
            stamp,
            spilled_subjects: changes.iter().map(|c| c.subject.clone()).collect(),
        };
        let per_tournament = tables.iter().filter(|t| t.tournament.is_some());
        assert!(per_tournament.count() >= 2, "a tournament table or two");
        let memory = tmp.path().join("memory");
        let views =
            |each: &mut dyn FnMut(&TableView) -> Result<()>| tables.iter().try_for_each(each);
        crate::site::write_staged(
            &memory,
            &whole,
            views,
            &mut |page| page(&changes),
            &mut |w| ledger.export_to(w, "export"),
        )
        .unwrap();
        let (staged, memory) = (files(&tmp.path().join("staged")), files(&memory));
        assert!(staged.len() > 50, "{} files", staged.len());
        assert!(staged == memory, "the sites differ");
    }
}
