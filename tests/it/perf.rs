//! `laurel gen` is deterministic per seed, and its stream is valid against the real
//! rating systems: it appends cleanly into a fresh ledger, re-appending adds nothing,
//! verify passes and every standings table answers.

use crate::common;

use common::{empty_ledger, gen, laurel};

#[test]
fn gen_is_deterministic_per_seed() {
    let a = gen(2000, 11);
    assert_eq!(a, gen(2000, 11), "same seed, same bytes");
    assert_ne!(a, gen(2000, 12), "another seed, another stream");
    assert_eq!(a.lines().count(), 2000);
}

/// Every table `laurel standings` offers, with a tournament for the per-tournament ones.
fn tables(text: &str) -> Vec<Vec<String>> {
    let first = |prefix: &str| -> String {
        let key = format!("\"tournament\":\"{prefix}");
        let at = text.find(&key).expect("a tournament") + key.len() - prefix.len();
        let rest = &text[at..];
        rest[..rest.find('"').unwrap()].to_string()
    };
    let mut out: Vec<Vec<String>> = (laurel::systems::tables().into_iter())
        .filter(|(t, _)| *t != "sbr")
        .map(|(t, _)| vec![t.to_string()])
        .collect();
    out.push(vec![
        "cards".into(),
        "--tournament".into(),
        first("league-"),
    ]);
    out.push(vec!["sbr".into(), "--tournament".into(), first("sbr-")]);
    out
}

#[test]
fn gen_output_appends_cleanly_verifies_and_every_table_answers() {
    for seed in [1, 2] {
        let text = gen(5000, seed);
        for ns in ["mepbm.", "cfr.", "cards.", "diplomacy.", "sbr."] {
            assert!(text.contains(&format!("\"type\":\"{ns}")), "{ns} missing");
        }
        for kind in [
            "nation_taken_over",
            "allegiance_changed",
            "vote_cast",
            "monthly_tick",
            "grudge_team_registered",
        ] {
            assert!(text.contains(&format!("mepbm.{kind}")), "{kind} missing");
        }
        let dir = empty_ledger();
        let out = common::append_text(dir.path(), &text);
        assert!(
            out.status.success(),
            "seed {seed}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("appended 5000 event(s)"));
        assert_eq!(common::head(dir.path()).0, 5000);

        // Re-appending the same stream adds nothing.
        let again = common::append_text(dir.path(), &text);
        assert!(again.status.success());
        let said = String::from_utf8_lossy(&again.stdout).to_string();
        assert!(
            said.contains("appended 0 event(s)") && said.contains("5000 already recorded"),
            "{said}"
        );
        assert_eq!(common::head(dir.path()).0, 5000);

        laurel(dir.path()).arg("verify").assert().success();

        for args in tables(&text) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let v = common::standings(dir.path(), &args);
            let rows = v["rows"].as_array().map_or(0, Vec::len);
            // Every table but Ainur (few grudge games at this size) has rows.
            if args[0] != "ainur" {
                assert!(rows > 0, "seed {seed}: standings {args:?} is empty: {v}");
            }
            // And a point-in-time query answers too.
            let mut past = args.clone();
            past.extend_from_slice(&["--as-of", "2001-01-01"]);
            common::standings(dir.path(), &past);
        }
    }
}

/// `laurel bench ARGS…` through the built binary: its report.
fn bench(args: &[&str]) -> String {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("laurel"))
        .arg("bench")
        .args(args)
        .env_remove("LAUREL_LEDGER")
        .output()
        .expect("bench ran");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

/// Every figure of the performance targets and its target, as the report names
/// them; `*` stands for the clock the bench picked (a date, a seq).
const FIGURES: [(&str, &str); 20] = [
    ("standings, every table", "≤ 200 ms"),
    ("standings --as-of *, every table", "≤ 200 ms"),
    ("standings --known-at *, every table", "≤ 200 ms"),
    ("history PLAYER", "≤ 300 ms"),
    ("history PLAYER --as-of *", "≤ 300 ms"),
    ("history PLAYER --known-at *", "≤ 300 ms"),
    ("history PLAYER of the most systems", "≤ 300 ms"),
    ("replay --rules FILE --diff", "≤ 4 s"),
    ("append one event dated last", "≤ 1 s"),
    ("append one event dated early", "≤ 1 s"),
    ("append one player registered early", "≤ 1 s"),
    ("site DIR: wall time", "≤ 90 s"),
    ("site DIR: total size", "≤ 3 GB"),
    ("site DIR: largest page", "≤ 5 MB"),
    ("import", "≥ 200000 ev/s, ≤ 3× floor"),
    ("verify", "≥ 1000000 ev/s"),
    ("peak RSS, every command", "≤ 512 MiB"),
    ("full replay", "≥ 500000 ev/s"),
    ("standings valar --as-of, 20 dates", "≤ 100 ms"),
    ("disk", "≤ 2× JSONL (*)"),
];

/// `figure` matches `pattern`, where one `*` stands for any text.
fn matches(figure: &str, pattern: &str) -> bool {
    match pattern.split_once('*') {
        Some((a, b)) => {
            figure.len() > a.len() + b.len() && figure.starts_with(a) && figure.ends_with(b)
        }
        None => figure == pattern,
    }
}

/// The report's figure rows: figure, measured, target, verdict, note (columns
/// are two or more spaces apart).
fn figure_rows(report: &str) -> Vec<Vec<String>> {
    report
        .lines()
        .skip_while(|l| !l.starts_with("figure "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// The row of `pattern`'s figure (exactly one).
fn row_of<'a>(rows: &'a [Vec<String>], pattern: &str, report: &str) -> &'a [String] {
    let found: Vec<_> = rows.iter().filter(|r| matches(&r[0], pattern)).collect();
    assert_eq!(found.len(), 1, "one row for {pattern:?}:\n{report}");
    found[0]
}

#[test]
fn bench_reports_every_figure_beside_its_target_with_a_verdict() {
    let report = bench(&["--events", "2000"]);
    let rows = figure_rows(&report);
    assert_eq!(rows.len(), FIGURES.len(), "one row per figure:\n{report}");
    for (figure, target) in FIGURES {
        let row = row_of(&rows, figure, &report);
        assert!(matches(&row[2], target), "{figure}: target {row:?}");
        // Every command succeeded at this size: a measured figure, PASS or MISS.
        assert!(
            ["PASS", "MISS"].contains(&row[3].as_str()),
            "{figure}: {row:?}"
        );
        let number = row[1].split(' ').next().unwrap();
        assert!(number.parse::<f64>().is_ok(), "{figure}: measured {row:?}");
    }
    // 2000 events are far inside the bounds that do not depend on the machine's speed.
    for figure in [
        "site DIR: total size",
        "site DIR: largest page",
        "peak RSS, every command",
        "disk",
    ] {
        assert_eq!(row_of(&rows, figure, &report)[3], "PASS", "{figure}");
    }
    // The slowest table, the player and the largest command are named.
    assert!(row_of(&rows, "standings, every table", &report)[4].starts_with("slowest: "));
    assert!(row_of(&rows, "history PLAYER", &report)[4].starts_with("PLAYER = p"));
    let widest = &row_of(&rows, "history PLAYER of the most systems", &report)[4];
    assert!(widest.ends_with(" systems"), "{widest}");
    assert!(row_of(&rows, "peak RSS, every command", &report)[4].starts_with("largest: "));

    // Each table's three medians, tournaments included; the generated stream
    // has no Diplomacy tournament, which the report says.
    let detail: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("standings by table"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    let tables = laurel::systems::tables();
    for t in (tables.iter().map(|(t, _)| *t))
        .chain(["cards --tournament league-", "sbr --tournament sbr-"])
    {
        let line = detail
            .iter()
            .find(|l| l.starts_with(&format!("{t} ")) || (t.ends_with('-') && l.starts_with(t)))
            .unwrap_or_else(|| panic!("{t} in the detail:\n{report}"));
        let medians: Vec<f64> = line
            .split_whitespace()
            .rev()
            .take(3)
            .map(|x| x.parse().expect("a median in ms"))
            .collect();
        assert!(medians.iter().all(|m| *m > 0.0), "{line}");
    }
    assert!(detail.contains(&"carnage --tournament: skipped, the stream has no carnage tournament"));
}

#[test]
fn bench_skip_site_leaves_only_the_site_figures_out() {
    let report = bench(&["--events", "2000", "--skip-site"]);
    let rows = figure_rows(&report);
    assert_eq!(rows.len(), FIGURES.len(), "{report}");
    for row in &rows {
        let skipped = row[0].starts_with("site DIR: ");
        assert_eq!(row[3] == "skipped", skipped, "{row:?}");
        if skipped {
            assert_eq!((row[1].as_str(), row[4].as_str()), ("-", "--skip-site"));
        }
    }
    let by_command = (report.lines())
        .find(|l| l.starts_with("peak RSS by command"))
        .expect("peak RSS by command");
    assert!(!by_command.contains(" site "), "site ran:\n{report}");
}
