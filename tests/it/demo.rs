//! `laurel demo`: a short tour of the bundled events by default, every table
//! with `--all`, through the built binary.

use crate::common;

use std::path::Path;

use common::laurel;

fn demo(args: &[&str]) -> String {
    let out = laurel(Path::new("/nonexistent"))
        .arg("demo")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// At most 150 lines: each community's table (top 5 rows under readable
/// titles, a sentence on what it means), then the commands to go further.
#[test]
fn the_tour_is_short_and_visits_every_community() {
    let text = demo(&[]);
    let lines = text.lines().count();
    assert!(lines <= 150, "{lines} lines:\n{text}");
    let stops = laurel::demo::stops();
    assert_eq!(stops.len(), laurel::systems::NAMESPACES.len());
    for stop in &stops {
        let heading = format!("== {} ==\n", stop.community);
        let at = text
            .find(&heading)
            .unwrap_or_else(|| panic!("{heading}{text}"));
        let body = &text[at + heading.len()..];
        let stop_text = &body[..body.find("\n\n").unwrap()];
        let first = stop.meaning.split_whitespace().take(4).collect::<Vec<_>>();
        assert!(
            stop_text.contains(&first.join(" ")),
            "{}: its sentence",
            stop.community
        );
        // A header of titles, then at most 5 ranked rows.
        let header = stop_text
            .lines()
            .find(|l| l.starts_with("Rank  "))
            .unwrap_or_else(|| panic!("{stop_text}"));
        assert!(header.contains("Player"), "{header}");
        let rows = stop_text
            .lines()
            .skip_while(|l| !l.starts_with("Rank  "))
            .skip(1)
            .take_while(|l| l.starts_with(' '))
            .count();
        assert!((1..=5).contains(&rows), "{}: {rows} rows", stop.community);
        assert!(stop_text.contains(&format!("laurel standings {}", stop.table)));
    }
    // Internal keys do not show; readable titles do.
    for key in ["per_game", "best_finish", "total_score", "rank  player"] {
        assert!(!text.contains(key), "{key} in the tour");
    }
    assert!(text.contains("Best finish") && text.contains("Rating"));
    // A table's scores keep the decimals it fixes (Fibonacci: 4) in the tour.
    assert!(text.contains("1.3000") && text.contains("1.0071"), "{text}");
    for next in [
        "laurel history 'Ivy Jones'",
        "--as-of ",
        "laurel replay --rules",
        "laurel site site/ --title",
        "laurel events",
        "laurel demo --all",
    ] {
        assert!(text.contains(next), "{next}: {text}");
    }
}

/// `demo --all` prints every table (each tournament of those shown per
/// tournament), under its `== standings ... ==` line.
#[test]
fn demo_all_prints_every_table() {
    let text = demo(&["--all"]);
    for (table, _) in laurel::systems::tables() {
        assert!(
            text.contains(&format!("== standings {table} ==\n"))
                || text.contains(&format!("== standings {table} --tournament ")),
            "{table}"
        );
    }
    assert!(text.contains("== standings cards --tournament cards-2013-masters ==\n"));
    assert!(text.lines().count() > 500, "every row of every table");
}

/// `demo --write DIR` writes the tour's event files byte for byte (so the
/// tour runs outside a clone); run again, it writes nothing and says so; a
/// file there with other contents is refused (exit 2) before anything is
/// written.
#[test]
fn demo_write_puts_the_tours_event_files_in_a_directory_and_overwrites_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("samples");
    let write = || {
        laurel(tmp.path())
            .args(["demo", "--write"])
            .arg(&dir)
            .output()
            .unwrap()
    };
    let out = write();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<_> = std::fs::read_dir(common::events_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(names.len() > 10, "{names:?}");
    for name in &names {
        let want = std::fs::read(common::events_dir().join(name)).unwrap();
        assert_eq!(std::fs::read(dir.join(name)).unwrap(), want, "{name:?}");
    }
    let n = names.len();
    let again = String::from_utf8(write().stdout).unwrap();
    assert!(
        again.starts_with(&format!("wrote 0 of the {n} sample file(s)")),
        "{again}"
    );
    assert!(again.contains(&format!("({n} already there)")), "{again}");

    std::fs::write(dir.join("mepbm_valar.jsonl"), "mine\n").unwrap();
    std::fs::remove_file(dir.join("cards_league.jsonl")).unwrap();
    let refused = write();
    assert_eq!(refused.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&refused.stderr);
    assert!(
        msg.contains("mepbm_valar.jsonl: already there, with other contents"),
        "{msg}"
    );
    assert!(!dir.join("cards_league.jsonl").exists(), "nothing written");
    assert_eq!(
        std::fs::read_to_string(dir.join("mepbm_valar.jsonl")).unwrap(),
        "mine\n"
    );

    laurel(tmp.path()).arg("init").assert().success();
    let maia = dir.join("mepbm_maia.jsonl");
    laurel(tmp.path())
        .arg("append")
        .arg(&maia)
        .assert()
        .success();

    // A file where the directory should be is named as such.
    let out = (laurel(tmp.path()).args(["demo", "--write"]).arg(&maia))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(msg.contains("mepbm_maia.jsonl: not a directory"), "{msg}");
}
