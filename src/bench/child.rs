//! The measured commands: each runs as a child process of the `laurel`
//! executable with `LAUREL_PEAK_RSS=1`, so its wall time includes process start
//! and ledger open (what a user waits for) and its peak RSS is its own.
//! [`Probe`] runs them and keeps the largest peak RSS of each command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::io;
use crate::error::{Error, Result};

/// How many times a timed query runs; its figure is the median.
pub(super) const RUNS: usize = 3;

/// One child run.
pub(super) struct Run {
    pub(super) time: Duration,
    /// CPU seconds (user + system): on a shared machine, a steadier figure than wall time.
    pub(super) cpu: f64,
    pub(super) peak_rss: u64,
    pub(super) ok: bool,
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: String,
}

impl Run {
    /// The first line of a failed run's stderr; `None` when it succeeded.
    pub(super) fn failure(&self) -> Option<String> {
        match self.ok {
            true => None,
            false => Some(self.stderr.lines().next().unwrap_or("").to_string()),
        }
    }
}

/// The median of [`RUNS`] runs of one command, and the first failure if any.
#[derive(Clone)]
pub(super) struct Timing {
    pub(super) median: Duration,
    pub(super) failed: Option<String>,
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

/// Run `exe --ledger LEDGER ARGS…` and wait for it.
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
        stdout: out.stdout,
        stderr,
    })
}

/// Runs the measured commands on one ledger and keeps each command's largest peak RSS.
pub(super) struct Probe {
    exe: PathBuf,
    pub(super) ledger: PathBuf,
    /// The largest peak RSS (bytes) by command (e.g. `standings --as-of`).
    pub(super) rss: BTreeMap<String, u64>,
}

impl Probe {
    pub(super) fn new(exe: &Path, ledger: &Path) -> Self {
        Probe {
            exe: exe.to_path_buf(),
            ledger: ledger.to_path_buf(),
            rss: BTreeMap::new(),
        }
    }

    /// One run of `args` on `ledger`, its peak RSS kept under `command`.
    pub(super) fn once_on(&mut self, ledger: &Path, command: &str, args: &[&str]) -> Result<Run> {
        let r = run(&self.exe, ledger, args)?;
        let peak = self.rss.entry(command.to_string()).or_default();
        *peak = (*peak).max(r.peak_rss);
        Ok(r)
    }

    /// One run of `args` on the bench ledger.
    pub(super) fn once(&mut self, command: &str, args: &[&str]) -> Result<Run> {
        let ledger = self.ledger.clone();
        self.once_on(&ledger, command, args)
    }

    /// [`Probe::once`], failing the bench with the command's stderr if it fails.
    pub(super) fn once_ok(&mut self, command: &str, args: &[&str]) -> Result<Run> {
        let r = self.once(command, args)?;
        match r.failure() {
            None => Ok(r),
            Some(e) => Err(Error::Usage(format!("bench: {command} failed: {e}"))),
        }
    }

    /// The median wall time of [`RUNS`] runs of `args` on the bench ledger.
    pub(super) fn median(&mut self, command: &str, args: &[&str]) -> Result<Timing> {
        let ledger = self.ledger.clone();
        self.median_of(command, |p| p.once_on(&ledger, command, args))
    }

    /// The median wall time of [`RUNS`] calls of `one` (each one child run).
    pub(super) fn median_of(
        &mut self,
        command: &str,
        mut one: impl FnMut(&mut Self) -> Result<Run>,
    ) -> Result<Timing> {
        let mut times = Vec::with_capacity(RUNS);
        let mut failed = None;
        for _ in 0..RUNS {
            let r = one(self)?;
            if failed.is_none() {
                failed = r.failure().map(|e| format!("{command}: {e}"));
            }
            times.push(r.time);
        }
        times.sort();
        Ok(Timing {
            median: times[times.len() / 2],
            failed,
        })
    }

    /// The command with the largest peak RSS, and that peak.
    pub(super) fn largest_rss(&self) -> (String, u64) {
        self.rss
            .iter()
            .max_by_key(|(_, b)| **b)
            .map_or((String::new(), 0), |(c, b)| (c.clone(), *b))
    }
}
