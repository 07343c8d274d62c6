//! `laurel bench`: generate a stream, then measure every figure of the
//! performance targets on a temporary ledger, each beside its target with a
//! verdict (PASS, MISS, FAIL when its command failed, skipped), next to the same
//! run's floor.
//!
//! Each measured command runs as a child process of the current executable
//! ([`child`]), so its wall time includes process start and ledger open and its
//! peak RSS is its own; the report's peak RSS is the largest of every command.
//! The floor is measured in process: parse every line, canonicalise it, chain
//! it with BLAKE3 and write the canonical records to a plain file, then fsync —
//! the least any ledger must do. It canonicalises with the code `append` uses
//! (`events::LineParser`), so a faster parser speeds up both and the ratio stays
//! honest. The generated input is fsynced before the floor, so that neither the
//! floor nor the import pays for the kernel writing it back.
//!
//! The figures: the everyday operations ([`daily`]: standings, history, replay
//! `--diff`, one appended event, site), import, verify and peak RSS; then full
//! replay (`laurel fold`), `standings valar --as-of` at 20 random dates (median
//! and p95), and disk. Import, verify and full replay run once each.

mod child;
mod daily;
mod report;
mod setup;

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::systems::gen::{self, Rng};
use child::{Probe, Run};
use report::{Row, Verdict};

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    pub events: u64,
    pub seed: u64,
    /// The `laurel` executable to run the commands with.
    pub exe: PathBuf,
    /// Keep the temporary directory (its path is printed).
    pub keep: bool,
    /// Leave `site` out (its rows say so): at a million events it takes minutes.
    pub skip_site: bool,
}

fn io(what: &str) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(what, e)
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn out(w: &mut dyn Write, s: &str) -> Result<()> {
    w.write_all(s.as_bytes()).map_err(io("stdout"))?;
    w.flush().map_err(io("stdout"))
}

/// The runs every rate figure is relative to.
struct Base {
    events: u64,
    floor: Duration,
    import: Run,
    verify: Run,
    replay: Run,
}

impl Base {
    fn rate(&self, d: Duration) -> f64 {
        self.events as f64 / d.as_secs_f64()
    }

    /// A rate row: events/s of `r` against `min` events/s (and `max_floor` × the floor).
    fn rate_row(&self, figure: &str, r: &Run, min: f64, max_floor: Option<f64>) -> Row {
        let ratio = r.time.as_secs_f64() / self.floor.as_secs_f64();
        let met = self.rate(r.time) >= min && max_floor.is_none_or(|m| ratio <= m);
        let (verdict, note) = match r.failure() {
            Some(e) => (Verdict::Fail, format!("FAILED {e}")),
            None => (
                Verdict::of(met),
                format!("{:.2} s, {ratio:.2}× floor", r.time.as_secs_f64()),
            ),
        };
        Row {
            figure: figure.into(),
            measured: format!("{:.0} ev/s", self.rate(r.time)),
            target: match max_floor {
                Some(m) => format!("≥ {min:.0} ev/s, ≤ {m}× floor"),
                None => format!("≥ {min:.0} ev/s"),
            },
            verdict,
            note,
        }
    }
}

/// `standings valar --as-of` at 20 random dates: the median and p95 rows.
fn valar_dates(probe: &mut Probe, range: (i64, i64), seed: u64) -> Result<Vec<Row>> {
    let (lo, hi) = range;
    let mut rng = Rng::new(seed ^ 0xA5A5);
    let mut times = Vec::new();
    let mut failed = None;
    for _ in 0..20 {
        let at = rng.range(lo, hi.max(lo));
        let date = gen::stamp(at - at.rem_euclid(86_400));
        let r = probe.once(
            "standings --as-of",
            &["standings", "valar", "--as-of", &date, "--format", "json"],
        )?;
        failed = failed.or(r.failure());
        times.push(r.time);
    }
    times.sort();
    let p95 = times[(times.len() * 95).div_ceil(100).min(times.len()) - 1];
    let median = child::Timing {
        median: times[times.len() / 2],
        failed,
    };
    let note = format!("p95 {}", report::ms_or_s(p95));
    Ok(vec![Row::timing(
        "standings valar --as-of, 20 dates",
        &median,
        100,
        note,
    )])
}

/// Generate, floor, init, import, verify and full replay.
fn base(
    opts: &Options,
    probe: &mut Probe,
    dir: &std::path::Path,
    w: &mut dyn Write,
) -> Result<Base> {
    let jsonl = dir.join("events.jsonl");
    let n = opts.events;
    let t = Instant::now();
    setup::generate(&jsonl, n, opts.seed)?;
    let jsonl_bytes = std::fs::metadata(&jsonl).map(|m| m.len()).unwrap_or(0);
    out(
        w,
        &format!(
            "laurel bench: {n} events (seed {}), {:.1} MiB of JSON Lines ({:.0} B/event), generated in {:.2} s\n",
            opts.seed,
            mib(jsonl_bytes),
            jsonl_bytes as f64 / n.max(1) as f64,
            t.elapsed().as_secs_f64()
        ),
    )?;
    let floor = setup::floor(&jsonl, &dir.join("floor.bin"))?;
    out(
        w,
        &format!(
            "floor (parse + canonicalise + BLAKE3 chain + write + fsync, one core): {:.2} s, {:.0} events/s\n",
            floor.as_secs_f64(),
            n as f64 / floor.as_secs_f64()
        ),
    )?;
    probe.once_ok("init", &["init"])?;
    let import = probe.once_ok("import", &["append", &jsonl.display().to_string()])?;
    let verify = probe.once("verify", &["verify"])?;
    // Full replay: a fold of every projection from scratch (`laurel fold`; a
    // `standings` query folds only its own namespace; `{}` pins nothing).
    let rules = dir.join("rules.json");
    std::fs::write(&rules, "{}").map_err(io("rules file"))?;
    let replay = probe.once("fold", &["fold", "--rules", &rules.display().to_string()])?;
    Ok(Base {
        events: n,
        floor,
        import,
        verify,
        replay,
    })
}

/// The disk row: the ledger's bytes against twice the input's.
fn disk_row(events: u64, disk: u64, jsonl_bytes: u64) -> Row {
    let ratio = disk as f64 / jsonl_bytes.max(1) as f64;
    let per = |b: u64| b as f64 / events.max(1) as f64;
    Row {
        figure: "disk".into(),
        measured: format!("{:.0} B/ev", per(disk)),
        target: format!("≤ 2× JSONL ({:.0} B/ev)", per(jsonl_bytes)),
        verdict: Verdict::of(ratio <= 2.0),
        note: format!("{:.1} MiB, {ratio:.2}× JSONL", mib(disk)),
    }
}

/// Run the benchmark, printing the report to `w`: the stream and floor first,
/// then the figures' table, the per-table detail and peak RSS by command.
pub fn run_bench(opts: &Options, w: &mut dyn Write) -> Result<()> {
    let dir = tempfile::tempdir().map_err(io("temporary directory"))?;
    let jsonl = dir.path().join("events.jsonl");
    let ledger = dir.path().join("laurel.db");
    let mut probe = Probe::new(&opts.exe, &ledger);
    let b = base(opts, &mut probe, dir.path(), w)?;
    let disk = setup::dir_bytes(&ledger);
    let jsonl_bytes = std::fs::metadata(&jsonl).map(|m| m.len()).unwrap_or(0);

    let cx = daily::Ctx {
        dir: dir.path(),
        jsonl: &jsonl,
        range: setup::at_range(&jsonl)?,
        events: opts.events,
        skip_site: opts.skip_site,
    };
    let (mut rows, detail) = daily::queries(&mut probe, &cx)?;
    rows.push(daily::replay(&mut probe, &cx)?);
    rows.extend(daily::appends(&mut probe, &cx)?);
    rows.extend(daily::site(&mut probe, &cx)?);
    rows.push(b.rate_row("import", &b.import, 200_000.0, Some(3.0)));
    rows.push(b.rate_row("verify", &b.verify, 1_000_000.0, None));
    let older = valar_dates(&mut probe, cx.range, opts.seed)?;
    let (command, peak) = probe.largest_rss();
    rows.push(Row {
        figure: "peak RSS, every command".into(),
        measured: format!("{:.1} MiB", mib(peak)),
        target: "≤ 512 MiB".into(),
        verdict: Verdict::of(peak <= 512 * 1024 * 1024),
        note: format!("largest: {command}"),
    });
    rows.push(b.rate_row("full replay", &b.replay, 500_000.0, None));
    rows.extend(older);
    rows.push(disk_row(opts.events, disk, jsonl_bytes));

    let mut s = format!(
        "\n{}\n{detail}\npeak RSS by command (MiB):",
        report::table(&rows)
    );
    for (c, bytes) in &probe.rss {
        s.push_str(&format!(" {c} {:.1};", mib(*bytes)));
    }
    s.pop();
    let cpu = |r: &Run| (r.cpu, opts.events as f64 / r.cpu.max(0.01));
    let ((ic, ir), (vc, vr), (rc, rr)) = (cpu(&b.import), cpu(&b.verify), cpu(&b.replay));
    s.push_str(&format!(
        "\n\nCPU time (user + system) of the same runs — steadier than wall time on a shared machine:\n  import {ic:.2} s ({ir:.0} ev/s), verify {vc:.2} s ({vr:.0} ev/s, both cores), full replay {rc:.2} s ({rr:.0} ev/s), floor wall {:.2} s\n",
        b.floor.as_secs_f64(),
    ));
    out(w, &s)?;
    if opts.keep {
        let kept = dir.keep();
        out(w, &format!("kept {}\n", kept.display()))?;
    }
    Ok(())
}
