//! `laurel demo`: a short tour of the bundled events by default, every table
//! with `--all`, through the built binary.

mod common;

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
