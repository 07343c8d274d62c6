//! Helpers of the checkpoint tests: commands with checkpoints every
//! [`EVERY`] records and a trace of the fold's path, the full fold to compare
//! with, and the checkpoint files and headers of a ledger.

use std::path::{Path, PathBuf};
use std::process::Output;

use laurel::ledger::checkpoint::Header;

use super::laurel;

pub const EVERY: &str = "150";

pub const DATES: &[Option<&str>] = &[
    None,
    Some("1999-12-31"),
    Some("2000-02-10"),
    Some("2000-06-01"),
    Some("2000-09-15"),
    Some("2001-01-01"),
    Some("2001-05-20"),
    Some("2001-08-03"),
    Some("2002-01-01"),
    Some("2002-07-15"),
    Some("2003-01-31"),
    Some("2003-06-01"),
    Some("2010-01-01"),
];

pub fn cmd(dir: &Path, args: &[&str], full: bool) -> Output {
    cmd_in(dir, args, full, "")
}

/// [`cmd`] with `stdin` as its input.
pub fn cmd_in(dir: &Path, args: &[&str], full: bool, stdin: &str) -> Output {
    let mut c = laurel(dir);
    c.args(args)
        .env("LAUREL_CHECKPOINT_EVERY", EVERY)
        .env("LAUREL_CHECKPOINT_TRACE", "1")
        .write_stdin(stdin.to_string());
    if full {
        c.env("LAUREL_NO_CHECKPOINTS", "1");
    } else {
        c.env_remove("LAUREL_NO_CHECKPOINTS");
    }
    c.output().expect("ran")
}

pub fn append(dir: &Path, text: &str) {
    run_ok(dir, &["append", "-"], text);
}

/// Run `laurel ARGS` (checkpoints every [`EVERY`] records) and require success.
pub fn run_ok(dir: &Path, args: &[&str], stdin: &str) {
    let out = laurel(dir)
        .args(args)
        .env("LAUREL_CHECKPOINT_EVERY", EVERY)
        .write_stdin(stdin.to_string())
        .output()
        .expect("ran");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every table at every date, from checkpoints and in full: identical output.
/// Returns how many answers started from a checkpoint.
pub fn assert_same_answers(dir: &Path, when: &str) -> usize {
    let mut resumed = 0;
    for date in DATES {
        let mut queries: Vec<Vec<String>> = laurel::systems::tables()
            .iter()
            .map(|(t, _)| {
                vec![
                    "standings".into(),
                    t.to_string(),
                    "--format".into(),
                    "json".into(),
                ]
            })
            .collect();
        queries.push(vec!["fold".into()]);
        queries.push(vec!["rules".into(), "--format".into(), "json".into()]);
        for mut args in queries {
            if let Some(d) = date {
                args.extend(["--as-of".to_string(), d.to_string()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (fast, full) = (cmd(dir, &args, false), cmd(dir, &args, true));
            assert_eq!(fast.status.code(), full.status.code(), "{when}: {args:?}");
            assert!(
                fast.stdout == full.stdout,
                "{when}: laurel {args:?} differs from the full replay:\n{}\n---\n{}",
                String::from_utf8_lossy(&fast.stdout),
                String::from_utf8_lossy(&full.stdout)
            );
            let trace = String::from_utf8_lossy(&fast.stderr);
            resumed += usize::from(trace.contains("checkpoint: resumed after"));
            assert!(
                String::from_utf8_lossy(&full.stderr).contains("checkpoint: none"),
                "{when}: the full fold starts from nothing"
            );
        }
    }
    resumed
}

/// The length of a checkpoint file's header (magic, value length, value,
/// 16 bytes of check).
pub fn header_len(bytes: &[u8]) -> usize {
    8 + u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize + 16
}

/// The file of the checkpoint whose header is under `key` in ledger `d`.
pub fn checkpoint_file(d: &Path, key: &[u8]) -> PathBuf {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    super::db_path(d)
        .join("checkpoints")
        .join(format!("{hex}.lcp"))
}

/// (key, header) of every checkpoint of ledger `d`: the key from the file's
/// name, the header from its first bytes.
pub fn headers(d: &Path) -> Vec<(Vec<u8>, Header)> {
    let dir = super::db_path(d).join("checkpoints");
    let mut all: Vec<(Vec<u8>, Header)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lcp"))
        .map(|p| {
            let hex = p.file_stem().unwrap().to_str().unwrap().to_string();
            let key = (0..16)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            let bytes = std::fs::read(&p).unwrap();
            (key, Header::read(&bytes[..header_len(&bytes)]).unwrap())
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

/// Every checkpoint file of ledger `d`: its name and bytes.
pub fn checkpoint_files(d: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = super::db_path(d).join("checkpoints");
    let mut all: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    all.sort();
    all
}

/// The stored bytes of each section of checkpoint `key` of ledger `d`, by name.
pub fn stored_sections(d: &Path, key: &[u8], h: &Header) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(checkpoint_file(d, key)).unwrap();
    let mut at = header_len(&bytes);
    let mut out = Vec::new();
    for s in &h.sections {
        let end = at + s.stored as usize;
        out.push((s.name.clone(), bytes[at..end].to_vec()));
        at = end;
    }
    out
}

/// [`stored_sections`] of every checkpoint of `hs`, in order.
pub fn every_stored_section(d: &Path, hs: &[(Vec<u8>, Header)]) -> Vec<Vec<(String, Vec<u8>)>> {
    hs.iter().map(|(k, h)| stored_sections(d, k, h)).collect()
}

/// The checkpoints' keys, in order.
pub fn keys(hs: &[(Vec<u8>, Header)]) -> Vec<Vec<u8>> {
    hs.iter().map(|(k, _)| k.clone()).collect()
}

/// `out`, which must have succeeded.
pub fn ok(out: Output) -> Output {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    out
}

/// Did the check fold of system `ns` alone run (the trace says so)?
pub fn alone(out: &Output, ns: &str) -> bool {
    let trace = format!("checkpoint: check fold of {ns} alone");
    String::from_utf8_lossy(&out.stderr).contains(&trace)
}

/// What a command said on stderr, but for the trace.
pub fn said(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stderr);
    let lines = text.lines().filter(|l| !l.starts_with("checkpoint: "));
    lines.collect::<Vec<_>>().join("\n")
}

/// A ledger of `laurel gen --events 3000 --seed 5`, with a checkpoint every
/// [`EVERY`] records.
pub fn generated() -> tempfile::TempDir {
    let dir = super::empty_ledger();
    append(dir.path(), &super::gen(3000, 5));
    dir
}
