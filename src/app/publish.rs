//! The commands that make more than one table's output: `site`, `gen` and
//! `bench` (`demo` is in [`super::demo`](mod@super::demo)).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::{fold_stamped, folded_only, selectors, QueryArgs};
use crate::error::{Error, Result};
use crate::fold::{self, Placed};
use crate::ledger::{canonical, Head, Ledger};
use crate::output;
use crate::players::Players;
use crate::site::TableView;
use crate::spill::{self, Spill};
use crate::systems::{self, Change, Selector};

/// What `laurel site` publishes beyond the clocks.
#[derive(Debug, Clone, Default)]
pub struct SiteArgs {
    /// The site's name, on every page; [`DEFAULT_TITLE`] when not given.
    pub title: Option<String>,
    /// Only these systems' tables and players: namespaces (`mepbm`, every
    /// one of its tables) or table names (`valar`); empty: every table.
    pub systems: Vec<String>,
}

/// The site's title when `--title` is not given.
pub const DEFAULT_TITLE: &str = "Ratings ledger";

/// The tables `--systems` names (see [`SiteArgs::systems`]), in display
/// order; every table when it names none. An unknown name is a usage error
/// with the nearest known one.
fn chosen_tables(systems: &[String]) -> Result<Vec<&'static str>> {
    let all = systems::tables();
    for name in systems {
        let known = all.iter().any(|(t, ns)| t == name || ns == name);
        if !known {
            let mut names: Vec<&str> = systems::NAMESPACES.to_vec();
            for (t, _) in &all {
                if !names.contains(t) {
                    names.push(t);
                }
            }
            let hint = crate::events::did_you_mean(name, names.iter().copied());
            return Err(Error::Usage(format!(
                "--systems: unknown system or table {:?}{hint} (known: {})",
                output::printable(name, &[]),
                names.join(", ")
            )));
        }
    }
    let chosen =
        |(t, ns): &(&str, &str)| systems.is_empty() || systems.iter().any(|n| n == t || n == ns);
    Ok(all.iter().filter(|t| chosen(t)).map(|(t, _)| *t).collect())
}

/// The site's audit trail: the [`Spill`] of the changes to the chosen tables.
struct Chosen {
    spill: Spill,
    /// `None`: every table.
    tables: Option<BTreeSet<&'static str>>,
}

impl Chosen {
    fn keep(&self, mut changes: Vec<Placed>) -> Vec<Placed> {
        if let Some(t) = &self.tables {
            changes.retain(|(_, c)| t.contains(c.system.as_str()));
        }
        changes
    }
}

impl fold::TrailSink for Chosen {
    fn take(&mut self, changes: Vec<Placed>) -> Result<()> {
        let kept = self.keep(changes);
        self.spill.take(kept)
    }
}

/// Every name a player of `indexes` went by ([`crate::site::Site::players`]),
/// and each renamed player's earlier names ([`crate::site::Site::earlier`]).
type Names = (BTreeSet<String>, BTreeMap<String, Vec<String>>);

fn player_names(indexes: &crate::systems::players::PerNamespace) -> Names {
    let (mut all, mut earlier) = (BTreeSet::new(), BTreeMap::new());
    for l in Players::merge(indexes).list() {
        all.extend(l.earlier.iter().cloned());
        if !l.earlier.is_empty() {
            earlier.insert(l.name.clone(), l.earlier);
        }
        all.insert(l.name);
    }
    (all, earlier)
}

/// `laurel site DIR [--title T] [--systems LIST]`: a static website of the
/// chosen tables and their players, with the export and the head to verify
/// it by (see [`crate::site`]).
pub fn site(path: &Path, dir: &Path, args: &QueryArgs, opts: &SiteArgs) -> Result<String> {
    check_title(opts.title.as_deref())?;
    let tables = chosen_tables(&opts.systems)?;
    let ledger = Ledger::read(path)?;
    outside_ledger(path, dir)?;
    // A site publishes a head: only that of a chain that verifies. Queries
    // trust each chunk's checksum; a record forged with its checksum made
    // again is the chain's to find.
    super::no_problem(
        &ledger.verify_chain()?,
        Some("site: nothing written: the chain does not verify (`laurel verify` says more)"),
    )?;
    let (f, stamp, mut buckets) = trail(&ledger, args, &tables)?;
    let head = ledger.head()?;
    // The trail knows a renamed player by their first name, the tables by
    // their name now: the site, like the tables, gives them their name now.
    // Not where a grudge team bears either name (an append refuses that
    // now; a ledger may hold it from before): whose change is whose would
    // then be a guess, and the trail's subjects are left as they are.
    let mut shown = f.state.players.shown();
    shown.retain(|root, now| !f.state.rates_non_player(root) && !f.state.rates_non_player(now));
    let (players, earlier) = player_names(&f.state.players);
    // This fold was for the trail: the tables are made from folds of their own.
    drop(f);
    let now = |subject: &str| shown.get(subject).cloned();
    // Rule changes and voids of the systems whose tables are published.
    let namespaces: BTreeSet<&str> = tables
        .iter()
        .filter_map(|t| systems::namespace_of(t))
        .collect();
    let published = |ns: &str| namespaces.contains(ns);
    let amendments = super::log::amendments(&ledger, stamp.known_at, &published)?;
    let site = crate::site::Site {
        title: opts.title.clone().unwrap_or_else(|| DEFAULT_TITLE.into()),
        updated: ledger.recorded_at(stamp.known_at)?,
        head_seq: head.seq,
        head_hash: canonical::hex(&head.hash),
        stamp,
        spilled_subjects: (std::mem::take(&mut buckets.subjects).into_iter())
            .map(|s| now(&s).unwrap_or(s))
            .collect(),
        players,
        earlier,
        amendments,
    };
    let views =
        |each: &mut dyn FnMut(&TableView) -> Result<()>| table_views(&ledger, args, &tables, each);
    let export_path = dir.join("export.jsonl").display().to_string();
    let mut export = |w: &mut dyn Write| ledger.export_to(w, &export_path);
    let mut groups = |page: &mut dyn FnMut(&[Change]) -> Result<()>| {
        read_ahead(&buckets, &mut |changes: &mut [Change]| {
            // A rename gives a name no player had, and `shown` leaves out
            // teams' names: subjects stay distinct, each in one group.
            if !shown.is_empty() {
                for c in changes.iter_mut() {
                    if let Some(name) = now(&c.subject) {
                        c.subject = name;
                    }
                }
            }
            page(changes)
        })
    };
    let w = crate::site::write_staged(dir, &site, views, &mut groups, &mut export)?;
    Ok(wrote(&w, dir, &head))
}

/// A site's title is on every page: printable, as every event string must be.
fn check_title(title: Option<&str>) -> Result<()> {
    let Some(title) = title else {
        return Ok(());
    };
    if let Some(c) = crate::events::forbidden_char(title) {
        return Err(Error::Usage(format!(
            "site: --title holds the character U+{:04X}, which is not printable; \
             a title is printable text",
            c as u32
        )));
    }
    let chars = title.chars().count();
    if chars > TITLE_MAX_CHARS {
        return Err(Error::Usage(format!(
            "site: --title has {chars} characters; a title has at most {TITLE_MAX_CHARS} \
             (every page repeats it)"
        )));
    }
    Ok(())
}

/// The longest `--title`, in characters: every page repeats it.
const TITLE_MAX_CHARS: usize = 200;

/// Refuse a site `dir` inside the ledger directory at `ledger`: its
/// `segments/` and `checkpoints/` may be empty, which a site would
/// otherwise take for its own and replace. `dir` need not exist yet: its
/// nearest existing ancestor says where it would be.
fn outside_ledger(ledger: &Path, dir: &Path) -> Result<()> {
    let Ok(ledger) = ledger.canonicalize() else {
        return Ok(());
    };
    let existing = dir.ancestors().find_map(|p| {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        p.canonicalize().ok()
    });
    match existing {
        Some(real) if real.starts_with(&ledger) => Err(Error::Usage(format!(
            "site: {} is inside the ledger directory {}; give a directory outside it",
            dir.display(),
            ledger.display()
        ))),
        _ => Ok(()),
    }
}

/// The audit trail of `tables`' systems at `args`' clocks, spilled to disk
/// by subject as the fold goes, with the fold and its stamp.
fn trail(
    ledger: &Ledger,
    args: &QueryArgs,
    tables: &[&'static str],
) -> Result<(fold::Folded, output::Stamp, spill::Buckets)> {
    let mut q = args.query(ledger)?;
    // Every player's trail (a page each), spilled to disk by subject as the fold
    // goes and read back a bucket at a time (bounded memory, see `spill`).
    q.audit = true;
    // The trail of one system's tables needs only its projection folded.
    let namespaces: BTreeSet<&'static str> = tables
        .iter()
        .filter_map(|t| systems::namespace_of(t))
        .collect();
    if namespaces.len() == 1 {
        q.only = namespaces.first().copied();
    }
    let every = tables.len() == systems::tables().len();
    let sink = Chosen {
        spill: Spill::new()?,
        tables: (!every).then(|| tables.iter().copied().collect()),
    };
    let sink = Arc::new(Mutex::new(sink));
    q.trail = Some(fold::Trail(sink.clone()));
    let (f, stamp) = fold_stamped(ledger, args, q)?;
    let sink = Arc::into_inner(sink)
        .and_then(|m| m.into_inner().ok())
        .ok_or_else(|| Error::Internal("the audit trail's sink failed".into()))?;
    Ok((f, stamp, sink.spill.finish()?))
}

/// What `laurel site` says it did.
fn wrote(w: &crate::site::Written, dir: &Path, head: &Head) -> String {
    format!(
        "wrote {} page(s) and export.jsonl to {}: {} new or changed, {} unchanged, \
         {} removed\nhead {head}\nopen {}\n",
        w.pages,
        dir.display(),
        w.changed,
        w.pages - w.changed,
        w.removed,
        dir.join("index.html").display()
    )
}

/// Every bucket of `buckets` to `page`, in order, each read (decompressed and
/// decoded) on a thread of its own while `page` takes the one before: at most
/// three buckets are held at once.
fn read_ahead(
    buckets: &spill::Buckets,
    page: &mut dyn FnMut(&mut [Change]) -> Result<()>,
) -> Result<()> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || {
            for i in 0..spill::BUCKETS {
                let bucket = buckets.read(i);
                let failed = bucket.is_err();
                // A send fails once `page` has failed: nothing more is wanted.
                if tx.send(bucket).is_err() || failed {
                    return;
                }
            }
        });
        let mut read = 0;
        for bucket in rx {
            page(&mut bucket?)?;
            read += 1;
        }
        if read < spill::BUCKETS {
            return Err(Error::Storage(
                "the audit trail's reading thread failed".into(),
            ));
        }
        Ok(())
    })
}

/// The site's standings tables (`chosen`, in display order), handed to `each`
/// one at a time (`Site::pages_staged` asks once). Each namespace's projection
/// is folded on its own, from the latest checkpoint that serves (as
/// `standings` does), and dropped once its tables are made: one projection and
/// one report are held at a time (CFR's report alone has a row per event score).
fn table_views(
    ledger: &Ledger,
    args: &QueryArgs,
    chosen: &[&str],
    each: &mut dyn FnMut(&TableView) -> Result<()>,
) -> Result<()> {
    let tables: Vec<(&str, &str)> = (systems::tables().into_iter())
        .filter(|(t, _)| chosen.contains(t))
        .collect();
    for tables in tables.chunk_by(|a, b| a.1 == b.1) {
        let (f, _) = folded_only(ledger, args, Some(tables[0].1))?;
        for &(table, _) in tables {
            views_of(&f, table, each)?;
        }
    }
    Ok(())
}

/// `table` from `f`, or one per tournament for the tables shown per tournament
/// (a table without any tournament yet is listed with that error); a table
/// shown whole that also has tournaments (Diplomacy's scoring tables) is
/// followed by a view per tournament, so each has its page.
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
    let whole = sels.len() == 1 && sels[0].tournament.is_none();
    let also = match whole {
        true => f.state.tournaments(table).unwrap_or_default(),
        false => Vec::new(),
    };
    let also = also.into_iter().map(|t| Selector::of(Some(t)));
    for sel in sels.into_iter().chain(also) {
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
            crate::systems::gen::System::parse(s).ok_or_else(|| {
                let known = crate::systems::NAMESPACES.join(", ");
                Error::Usage(format!("--systems: unknown system {s:?} (known: {known})"))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let opts = crate::systems::gen::Options {
        events,
        seed,
        systems,
    };
    let mut bw = std::io::BufWriter::with_capacity(256 * 1024, w);
    crate::systems::gen::generate(&opts, &mut bw).map_err(|e| Error::io("stdout", e))?;
    bw.flush().map_err(|e| Error::io("stdout", e))
}

/// `laurel bench`: measure the performance figures against the floor.
pub fn bench(opts: &crate::bench::Options, w: &mut dyn Write) -> Result<()> {
    crate::bench::run_bench(opts, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Input;
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

    /// `laurel site` (tables made once, one at a time, each namespace folded on
    /// its own; the trail spilled) writes the files that every table and change
    /// of one audited fold, held in memory, make. 12,000 events: the tables' folds
    /// start from the checkpoint at 10,000.
    #[test]
    fn the_staged_site_is_the_site_from_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("ledger");
        let text = crate::systems::gen::stream(12_000, 11);
        let ledger = Ledger::init(&path).unwrap();
        let input = Input {
            name: "gen".into(),
            reader: Box::new(text.as_bytes()),
            first_line: 1,
        };
        ledger.append(vec![input]).unwrap();
        drop(ledger);
        let args = QueryArgs::default();
        site(
            &path,
            &tmp.path().join("staged"),
            &args,
            &SiteArgs::default(),
        )
        .unwrap();

        let ledger = Ledger::read(&path).unwrap();
        let mut q = args.query(&ledger).unwrap();
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
            title: DEFAULT_TITLE.into(),
            updated: ledger.recorded_at(stamp.known_at).unwrap(),
            head_seq: head.seq,
            head_hash: canonical::hex(&head.hash),
            stamp,
            spilled_subjects: changes.iter().map(|c| c.subject.clone()).collect(),
            players: player_names(&f.state.players).0,
            earlier: BTreeMap::new(),
            amendments: crate::app::log::amendments(&ledger, u64::MAX, &|_| true).unwrap(),
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
