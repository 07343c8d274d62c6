//! The bad-input corpus: every file under `tests/corpus/` is one invalid
//! append. Each must exit 2 with a message naming the file, the line and the rule,
//! leave the head unchanged and never panic.
//!
//! A case is `<name>.jsonl` plus `<name>.expect`: first line `line N`, second line
//! a fragment of the message. `<name>.setup.jsonl`, when present, is appended first
//! (a valid prefix the case breaks a rule against). Cases of the rating systems
//! live in `tests/corpus/systems/`, named `<namespace>_<rule>`: each
//! validation rule of each system's `check` code is broken by one case, and each
//! namespace runs as its own test (so they run in parallel).
//!
//! Cases too big for the repository (a 1 MiB string, a 200 MB line) are generated here.
//!
//! When the bad line gives a known `type` or an `id`, the message names them
//! too, after the place: `FILE:LINE, TYPE, id "ID": …`.
//!
//! `laurel check` runs on every case first: it must exit with the same code and print
//! the same stderr as the `append` that follows.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{empty_ledger, head, laurel_std, output_within, peak_rss};

struct Case {
    name: String,
    file: PathBuf,
    setup: Option<PathBuf>,
    line: u64,
    fragment: String,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn cases_in(dir: &Path) -> Vec<Case> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl") && !n.ends_with(".setup.jsonl"))
        .map(|n| n.trim_end_matches(".jsonl").to_string())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let expect = dir.join(format!("{name}.expect"));
            let text = std::fs::read_to_string(&expect)
                .unwrap_or_else(|e| panic!("{}: {e}", expect.display()));
            let mut lines = text.lines();
            let line = lines
                .next()
                .and_then(|l| l.strip_prefix("line "))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("{name}.expect: first line must be `line N`"));
            let fragment = lines.next().unwrap_or_default().to_string();
            assert!(!fragment.is_empty(), "{name}.expect: no message fragment");
            let setup = dir.join(format!("{name}.setup.jsonl"));
            Case {
                file: dir.join(format!("{name}.jsonl")),
                setup: setup.exists().then_some(setup),
                name,
                line,
                fragment,
            }
        })
        .collect()
}

/// Append `file` (path or stdin bytes) with a time limit.
fn append(dir: &Path, file: &Path) -> std::process::Output {
    let f = file.to_str().unwrap();
    output_within(
        laurel_std(dir, &["append", f]),
        b"",
        Duration::from_secs(30),
    )
}

/// `laurel check` of `file` with the same time limit as [`append`].
fn check(dir: &Path, file: &Path) -> std::process::Output {
    let f = file.to_str().unwrap();
    output_within(laurel_std(dir, &["check", f]), b"", Duration::from_secs(30))
}

/// What differs between a `check` and the `append` of the same input: exit
/// code and stderr must be the same.
fn check_differs(
    checked: &std::process::Output,
    appended: &std::process::Output,
) -> Option<String> {
    let same = checked.status.code() == appended.status.code() && checked.stderr == appended.stderr;
    (!same).then(|| {
        format!(
            "check said {:?} {:?}, append {:?} {:?}",
            checked.status.code(),
            String::from_utf8_lossy(&checked.stderr).trim(),
            appended.status.code(),
            String::from_utf8_lossy(&appended.stderr).trim()
        )
    })
}

/// A fresh ledger holding `setup` (when given); `Err` if the setup is refused.
fn ledger_with_setup(setup: Option<&PathBuf>) -> Result<tempfile::TempDir, String> {
    let dir = empty_ledger();
    if let Some(setup) = setup {
        let out = append(dir.path(), setup);
        if !out.status.success() {
            return Err(format!(
                "setup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    Ok(dir)
}

/// What the refusal of `case` leaves out of the type and id its bad line
/// gives: a known `type` must follow the place (`FILE:LINE, TYPE`), a string
/// `id` must be named (`id "ID"`). A line that is not JSON (an array's
/// syntax broken around it) is refused as input, not as an event.
fn unnamed(case: &Case, stderr: &str) -> Vec<String> {
    if stderr.contains(": invalid JSON") {
        return vec![];
    }
    let text = std::fs::read_to_string(&case.file).unwrap_or_default();
    let bad = text.lines().nth(case.line as usize - 1).unwrap_or_default();
    let Ok(serde_json::Value::Object(event)) = serde_json::from_str(bad) else {
        return vec![];
    };
    let text_of = |k: &str| {
        event
            .get(k)
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
    };
    let mut wrong = vec![];
    if let Some(kind) = text_of("type").filter(|k| laurel::systems::TYPES.contains(k)) {
        let place = format!("{}.jsonl:{}, {kind}", case.name, case.line);
        if !stderr.contains(&place) {
            wrong.push(format!("no {place:?}"));
        }
    }
    if let Some(id) = text_of("id") {
        let named = format!("id {id:?}");
        if !stderr.contains(&named) {
            wrong.push(format!("no {named:?}"));
        }
    }
    wrong
}

/// Run the cases; return the failures as messages (all are reported at once).
///
/// Cases whose setups have the same bytes share one ledger (each case must leave
/// its head unchanged); a case that moves the head gets the ledger rebuilt, so one
/// wrong case never spoils the cases after it.
fn run(cases: &[Case]) -> Vec<String> {
    let mut groups: std::collections::BTreeMap<Vec<u8>, Vec<&Case>> = Default::default();
    for case in cases {
        let key = case
            .setup
            .as_ref()
            .map(|s| std::fs::read(s).unwrap())
            .unwrap_or_default();
        groups.entry(key).or_default().push(case);
    }
    let mut failures = Vec::new();
    for group in groups.values() {
        let setup = group[0].setup.as_ref();
        let mut ledger = None;
        for case in group {
            let dir = match &ledger {
                Some(d) => d,
                None => match ledger_with_setup(setup) {
                    Ok(d) => ledger.insert(d),
                    Err(e) => {
                        failures.push(format!("{}: {e}", case.name));
                        continue;
                    }
                },
            };
            let dir = dir.path();
            let before = head(dir);
            let checked = check(dir, &case.file);
            let out = append(dir, &case.file);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let place = format!("{}.jsonl:{}", case.name, case.line);
            let mut wrong = Vec::new();
            wrong.extend(check_differs(&checked, &out));
            if out.status.code() != Some(2) {
                wrong.push(format!("exit {:?}, want 2", out.status));
            }
            if stderr.contains("panicked") {
                wrong.push("panicked".into());
            }
            if !stderr.contains(&place) {
                wrong.push(format!("no {place:?}"));
            }
            if !stderr.contains(&case.fragment) {
                wrong.push(format!("no {:?}", case.fragment));
            }
            wrong.extend(unnamed(case, &stderr));
            if head(dir) != before {
                wrong.push("head moved".into());
                ledger = None;
            }
            if !wrong.is_empty() {
                failures.push(format!(
                    "{}: {}\n    got: {}",
                    case.name,
                    wrong.join("; "),
                    stderr.trim()
                ));
            }
        }
    }
    failures
}

fn assert_all_pass(cases: &[Case], what: &str) {
    let failures = run(cases);
    assert!(
        failures.is_empty(),
        "{} of {} {what} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!("corpus: {} {what} cases", cases.len());
}

#[test]
fn every_envelope_and_ledger_case_exits_2_naming_line_and_rule() {
    let cases = cases_in(&corpus_dir());
    assert!(cases.len() >= 60, "corpus has {} cases", cases.len());
    assert_all_pass(&cases, "envelope/ledger");
}

/// The rating systems' namespaces: each has cases, each runs as its own test.
const SYSTEMS: [&str; 5] = ["mepbm", "cfr", "cards", "diplomacy", "sbr"];

fn system_cases(ns: &str) -> Vec<Case> {
    let prefix = format!("{ns}_");
    cases_in(&corpus_dir().join("systems"))
        .into_iter()
        .filter(|c| c.name.starts_with(&prefix))
        .collect()
}

#[test]
fn system_cases_are_well_formed() {
    let cases = cases_in(&corpus_dir().join("systems"));
    for c in &cases {
        assert!(
            SYSTEMS
                .iter()
                .any(|ns| c.name.starts_with(&format!("{ns}_"))),
            "{}: a system case is named after its namespace",
            c.name
        );
        for f in std::iter::once(&c.file).chain(&c.setup) {
            let text = std::fs::read_to_string(f).unwrap();
            for (i, line) in text.lines().enumerate() {
                let v: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{}:{}: {e}", f.display(), i + 1));
                assert!(v.is_object(), "{}:{}", f.display(), i + 1);
            }
        }
    }
    for ns in SYSTEMS {
        assert!(system_cases(ns).len() >= 10, "too few {ns} cases");
    }
}

#[test]
fn every_mepbm_case_exits_2_naming_line_and_rule() {
    assert_all_pass(&system_cases("mepbm"), "mepbm");
}

#[test]
fn every_cfr_case_exits_2_naming_line_and_rule() {
    assert_all_pass(&system_cases("cfr"), "cfr");
}

#[test]
fn every_cards_case_exits_2_naming_line_and_rule() {
    assert_all_pass(&system_cases("cards"), "cards");
}

#[test]
fn every_diplomacy_case_exits_2_naming_line_and_rule() {
    assert_all_pass(&system_cases("diplomacy"), "diplomacy");
}

#[test]
fn every_sbr_case_exits_2_naming_line_and_rule() {
    assert_all_pass(&system_cases("sbr"), "sbr");
}

/// A case generated in a temporary file: `(name, bytes, line, fragment)`.
fn generated_case(name: &str, bytes: &[u8], line: u64, fragment: &str) {
    let dir = empty_ledger();
    let file = dir.path().join(format!("{name}.jsonl"));
    std::fs::write(&file, bytes).unwrap();
    let before = head(dir.path());
    let checked = check(dir.path(), &file);
    let out = append(dir.path(), &file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(check_differs(&checked, &out), None, "{name}");
    assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
    assert!(
        stderr.contains(&format!("{name}.jsonl:{line}")),
        "{name}: {stderr}"
    );
    assert!(stderr.contains(fragment), "{name}: {stderr}");
    assert_eq!(head(dir.path()), before);
}

const TICK: &str = r#"{"type":"mepbm.monthly_tick","at":"2003-02-01","month":"2003-01"}"#;

#[test]
fn a_1_mib_string_is_refused_by_the_event_size_limit() {
    let mib = "x".repeat(1 << 20);
    let line = format!(r#"{{"type":"mepbm.monthly_tick","at":"2003-03-01","month":"{mib}"}}"#);
    generated_case(
        "envelope_string_1_mib",
        format!("{TICK}\n{line}\n").as_bytes(),
        2,
        "line is longer than the limit of 65536 bytes",
    );
    let array = format!("[\n{TICK},\n{line}\n]\n");
    generated_case(
        "array_element_1_mib",
        array.as_bytes(),
        3,
        "array element is longer than the limit of 65536 bytes",
    );
}

#[test]
fn a_line_just_over_64_kib_is_refused_and_one_just_under_is_read() {
    let limit = laurel::input::MAX_EVENT_BYTES;
    // A JSON line whose bytes are exactly `n` plus its newline.
    let line = |n: usize| {
        let pad = n
            - r#"{"type":"mepbm.monthly_tick","at":"2003-03-01","month":"2003-02","pad":""}"#.len();
        format!(
            r#"{{"type":"mepbm.monthly_tick","at":"2003-03-01","month":"2003-02","pad":"{}"}}"#,
            " ".repeat(pad)
        )
    };
    generated_case(
        "envelope_line_over_64_kib",
        format!("{TICK}\n{}\n", line(limit + 1)).as_bytes(),
        2,
        "line is longer than the limit of 65536 bytes",
    );
    // At the limit the line is read, and refused by the next rule (the 4096-byte string).
    generated_case(
        "envelope_line_at_64_kib",
        format!("{TICK}\n{}\n", line(limit)).as_bytes(),
        2,
        "field `pad`: string of",
    );
}

#[test]
fn a_200_mb_line_on_stdin_fails_fast_with_bounded_memory() {
    let dir = empty_ledger();
    let before = head(dir.path());
    // What opening the ledger costs at all (sled, the allocator's huge pages:
    // 45-52 MB, varying too much between runs for a fixed bound).
    let opened = laurel_std(dir.path(), &["head"])
        .env("LAUREL_PEAK_RSS", "1")
        .output()
        .unwrap();
    let baseline = peak_rss(&opened.stderr);
    let mut cmd = laurel_std(dir.path(), &["append", "-"]);
    cmd.env("LAUREL_PEAK_RSS", "1");
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    let writer = std::thread::spawn(move || {
        let block = vec![b'x'; 64 * 1024];
        let mut sent = 0usize;
        let _ = stdin.write_all(br#"{"type":"mepbm.monthly_tick","at":"2003-02-01","month":""#);
        while sent < 200_000_000 {
            if stdin.write_all(&block).is_err() {
                break; // laurel stopped reading: it refused the line
            }
            sent += block.len();
        }
        sent
    });
    let out = child.wait_with_output().unwrap();
    let elapsed = started.elapsed();
    let sent = writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("-:1: line is longer than the limit of 65536 bytes"),
        "{stderr}"
    );
    assert!(
        sent < 10_000_000,
        "laurel read {sent} bytes of a line it must refuse at 64 KiB"
    );
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    let rss = peak_rss(&out.stderr);
    // Buffering the line (or 10 MB of it) would show far above the baseline.
    assert!(
        rss < baseline + (16 << 20),
        "peak RSS {rss} bytes, {baseline} to open the ledger"
    );
    assert_eq!(head(dir.path()), before);
    eprintln!("200 MB line: refused after {sent} bytes sent, {elapsed:?}, peak RSS {rss} bytes ({baseline} to open)");
}
