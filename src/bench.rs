//! `laurel bench`: generate a stream, then measure every figure of the
//! performance table on a temporary ledger, next to the same run's floor.
//!
//! Each measured command runs as a child process of the current executable with
//! `LAUREL_PEAK_RSS=1`, so its wall time includes process start and ledger open
//! (what a user waits for) and its peak RSS is its own. The floor is measured in
//! process: parse every line, canonicalise it, chain it with BLAKE3 and write the
//! canonical records to a plain file, then fsync — the least any ledger must do.
//! It canonicalises with the code `append` uses (`events::LineParser`), so a
//! faster parser speeds up both and the ratio stays honest. The generated input
//! is fsynced before the floor, so that neither the floor nor the import pays
//! for the kernel writing it back.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::gen::{self, Rng};
use crate::ledger::canonical;

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    pub events: u64,
    pub seed: u64,
    /// The `laurel` executable to run the commands with.
    pub exe: PathBuf,
    /// Keep the temporary directory (its path is printed).
    pub keep: bool,
}

/// One child run.
struct Run {
    time: Duration,
    /// CPU seconds (user + system): on a shared machine, a steadier figure than wall time.
    cpu: f64,
    peak_rss: u64,
    ok: bool,
    stderr: String,
}

/// [`run`], failing the bench with the command's stderr if it fails.
fn run_ok(exe: &Path, ledger: &Path, args: &[&str], what: &str) -> Result<Run> {
    let r = run(exe, ledger, args)?;
    match r.ok {
        true => Ok(r),
        false => Err(Error::Usage(format!("bench: {what} failed: {}", r.stderr))),
    }
}

fn io(what: &str) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(what, e)
}

/// CPU seconds (user + system) of this process's waited-for children, from
/// /proc/self/stat (clock ticks of 1/100 s); 0 where /proc is not available.
fn children_cpu() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let rest = stat.rsplit_once(") ").map_or("", |r| r.1);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    (f.get(13).copied().unwrap_or(0.0) + f.get(14).copied().unwrap_or(0.0)) / 100.0
}

fn run(exe: &Path, ledger: &Path, args: &[&str]) -> Result<Run> {
    let cpu0 = children_cpu();
    let t = Instant::now();
    let out = Command::new(exe)
        .env("LAUREL_PEAK_RSS", "1")
        .env_remove("LAUREL_LEDGER")
        .arg("--ledger")
        .arg(ledger)
        .args(args)
        .output()
        .map_err(io("laurel child process"))?;
    let time = t.elapsed();
    let cpu = children_cpu() - cpu0;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let peak_rss = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak_rss_bytes "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    Ok(Run {
        time,
        cpu,
        peak_rss,
        ok: out.status.success(),
        stderr,
    })
}

/// The floor: parse, canonicalise, chain and write to a plain file with fsync.
fn floor(jsonl: &Path, out: &Path) -> Result<Duration> {
    let t = Instant::now();
    let r = BufReader::with_capacity(
        256 * 1024,
        std::fs::File::open(jsonl).map_err(io("events file"))?,
    );
    let f = std::fs::File::create(out).map_err(io("floor file"))?;
    let mut w = BufWriter::with_capacity(256 * 1024, f);
    let mut prev = [0u8; 32];
    let recorded_at = crate::time::format(crate::time::now());
    // The canonical form as `append` makes it (without its typed validation).
    let mut parser = crate::events::LineParser::default();
    for (i, line) in r.split(b'\n').enumerate() {
        let line = line.map_err(io("events file"))?;
        if line.is_empty() {
            continue;
        }
        let c = parser
            .canonical(&line)
            .map_err(|e| Error::Usage(format!("line {}: {e}", i + 1)))?;
        let h = canonical::record_hash(&c, &prev, &recorded_at, i as u64 + 1);
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

fn dir_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.filter_map(|e| e.ok())
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                dir_bytes(&p)
            } else {
                e.metadata().map(|m| m.len()).unwrap_or(0)
            }
        })
        .sum()
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

/// The first and last `at` (seconds) of the stream, read from its lines.
fn at_range(jsonl: &Path) -> Result<(i64, i64)> {
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

fn check(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "MISS"
    }
}

/// Run the benchmark, printing the report to `w` as it goes.
pub fn run_bench(opts: &Options, w: &mut dyn Write) -> Result<()> {
    let out = |w: &mut dyn Write, s: String| -> Result<()> {
        w.write_all(s.as_bytes()).map_err(io("stdout"))?;
        w.flush().map_err(io("stdout"))
    };
    let dir = tempfile::tempdir().map_err(io("temporary directory"))?;
    let jsonl = dir.path().join("events.jsonl");
    let ledger = dir.path().join("laurel.db");
    let n = opts.events;

    let t = Instant::now();
    {
        let f = std::fs::File::create(&jsonl).map_err(io("events file"))?;
        let mut bw = BufWriter::with_capacity(256 * 1024, f);
        gen::generate(
            &gen::Options {
                events: n,
                seed: opts.seed,
                systems: vec![],
            },
            &mut bw,
        )
        .map_err(io("events file"))?;
        // On disk before anything is timed: left dirty, the kernel writes it
        // back about 30 s later (`vm.dirty_expire_centisecs`), during the import.
        let f = bw
            .into_inner()
            .map_err(|e| Error::io("events file", e.into_error()))?;
        f.sync_all().map_err(io("events file"))?;
    }
    let jsonl_bytes = std::fs::metadata(&jsonl).map(|m| m.len()).unwrap_or(0);
    out(
        w,
        format!(
            "laurel bench: {n} events (seed {}), {:.1} MiB of JSON Lines ({:.0} B/event), generated in {:.2} s\n",
            opts.seed,
            mib(jsonl_bytes),
            jsonl_bytes as f64 / n.max(1) as f64,
            t.elapsed().as_secs_f64()
        ),
    )?;

    let fl = floor(&jsonl, &dir.path().join("floor.bin"))?;
    let floor_rate = n as f64 / fl.as_secs_f64();
    out(
        w,
        format!(
            "floor (parse + canonicalise + BLAKE3 chain + write + fsync, one core): {:.2} s, {:.0} events/s\n\n",
            fl.as_secs_f64(),
            floor_rate
        ),
    )?;

    run_ok(&opts.exe, &ledger, &["init"], "init")?;
    let jsonl_s = jsonl.display().to_string();
    let import = run_ok(&opts.exe, &ledger, &["append", &jsonl_s], "import")?;
    let disk = dir_bytes(&ledger);
    let verify = run_ok(&opts.exe, &ledger, &["verify"], "verify")?;
    // Full replay: a fold of every projection from scratch (`laurel fold`; a
    // `standings` query folds only its own namespace; `{}` pins nothing).
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, "{}").map_err(io("rules file"))?;
    let rules_s = rules.display().to_string();
    let replay = run(&opts.exe, &ledger, &["fold", "--rules", &rules_s])?;
    let table_note = |r: &Run| {
        if r.ok {
            String::new()
        } else {
            format!(" (FAILED: {})", r.stderr.lines().next().unwrap_or(""))
        }
    };

    // Point-in-time standings at 20 random dates.
    let (lo, hi) = at_range(&jsonl)?;
    let mut rng = Rng::new(opts.seed ^ 0xA5A5);
    let mut times = Vec::new();
    let mut pit_rss = 0;
    let mut pit_note = String::new();
    for _ in 0..20 {
        let at = rng.range(lo, hi.max(lo));
        let date = gen::stamp(at - at.rem_euclid(86_400));
        let r = run(
            &opts.exe,
            &ledger,
            &["standings", "valar", "--as-of", &date, "--format", "json"],
        )?;
        pit_rss = pit_rss.max(r.peak_rss);
        if pit_note.is_empty() {
            pit_note = table_note(&r);
        }
        times.push(r.time);
    }
    times.sort();
    let median = times[times.len() / 2];
    let p95 = times[(times.len() * 95).div_ceil(100).min(times.len()) - 1];

    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    let ratio = |d: Duration| d.as_secs_f64() / fl.as_secs_f64();
    let peak = [
        ("import", import.peak_rss),
        ("verify", verify.peak_rss),
        ("replay", replay.peak_rss),
        ("standings --as-of", pit_rss),
    ];
    let max_rss = peak.iter().map(|p| p.1).max().unwrap_or(0);
    let mut s = String::new();
    s.push_str(&format!(
        "{:<36} {:>16} {:>26} {:>12} {}\n",
        "figure", "measured", "target", "× floor", ""
    ));
    let import_ok = rate(import.time) >= 200_000.0 && ratio(import.time) <= 3.0;
    s.push_str(&format!(
        "{:<36} {:>10.0} ev/s {:>26} {:>11.2}× {}\n",
        format!("import ({:.2} s)", import.time.as_secs_f64()),
        rate(import.time),
        "≥ 200000 ev/s, ≤ 3× floor",
        ratio(import.time),
        check(import_ok)
    ));
    s.push_str(&format!(
        "{:<36} {:>10.0} ev/s {:>26} {:>11.2}× {}\n",
        format!("verify ({:.2} s)", verify.time.as_secs_f64()),
        rate(verify.time),
        "≥ 1000000 ev/s",
        ratio(verify.time),
        check(rate(verify.time) >= 1_000_000.0)
    ));
    s.push_str(&format!(
        "{:<36} {:>10.0} ev/s {:>26} {:>11.2}× {}{}\n",
        format!("full replay ({:.2} s)", replay.time.as_secs_f64()),
        rate(replay.time),
        "≥ 500000 ev/s",
        ratio(replay.time),
        check(rate(replay.time) >= 500_000.0),
        table_note(&replay)
    ));
    s.push_str(&format!(
        "{:<36} {:>13.1} ms {:>26} {:>11.3}× {}{}\n",
        "standings --as-of: median of 20",
        median.as_secs_f64() * 1e3,
        "≤ 100 ms",
        ratio(median),
        check(median <= Duration::from_millis(100)),
        pit_note
    ));
    s.push_str(&format!(
        "{:<36} {:>13.1} ms {:>26} {:>11.3}×\n",
        "standings --as-of: p95 of 20",
        p95.as_secs_f64() * 1e3,
        "",
        ratio(p95),
    ));
    for (name, b) in peak.into_iter().chain([("any command", max_rss)]) {
        s.push_str(&format!(
            "{:<36} {:>12.1} MiB {:>26} {:>12} {}\n",
            format!("peak RSS: {name}"),
            mib(b),
            "≤ 512 MiB",
            "",
            check(b <= 512 * 1024 * 1024)
        ));
    }
    let disk_ratio = disk as f64 / jsonl_bytes.max(1) as f64;
    s.push_str(&format!(
        "{:<36} {:>10.0} B/ev {:>26} {:>12} {}\n",
        format!("disk ({:.1} MiB, {:.2}× JSONL)", mib(disk), disk_ratio),
        disk as f64 / n.max(1) as f64,
        format!(
            "≤ 2× JSONL ({:.0} B/ev)",
            jsonl_bytes as f64 / n.max(1) as f64
        ),
        "",
        check(disk_ratio <= 2.0)
    ));
    s.push_str(&format!(
        "\nCPU time (user + system) of the same runs — steadier than wall time on a shared machine:\n  import {:.2} s ({:.0} ev/s), verify {:.2} s ({:.0} ev/s, both cores), full replay {:.2} s ({:.0} ev/s), floor wall {:.2} s\n",
        import.cpu,
        n as f64 / import.cpu.max(0.01),
        verify.cpu,
        n as f64 / verify.cpu.max(0.01),
        replay.cpu,
        n as f64 / replay.cpu.max(0.01),
        fl.as_secs_f64(),
    ));
    out(w, s)?;
    if opts.keep {
        let kept = dir.keep();
        out(w, format!("kept {}\n", kept.display()))?;
    }
    Ok(())
}
