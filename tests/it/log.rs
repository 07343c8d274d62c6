//! `laurel log` through the built binary: its fixed columns, what names a
//! record, `--from` and `--type`.

use crate::common;

use common::{ledger_with, run};
use serde_json::Value;

/// `log`'s fixed columns come first: names of wide characters and a void's
/// reason, after them, never push the hash or the recording time out of line.
#[test]
fn log_keeps_its_columns_beside_wide_names_and_voids() {
    use unicode_width::UnicodeWidthStr;
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    for name in ["Ann Lee", "名字"] {
        let (code, _, err) = run(d, &["players", "add", name, "--at", "2024-01-01"]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = run(
        d,
        &["void", "4", "--reason", "a long reason, entered twice"],
    );
    assert_eq!(code, 0, "{err}");
    let (_, log, _) = run(d, &["log"]);
    // seq, date, type, hash, "recorded", recorded_at: no space inside any.
    let columns: Vec<(usize, usize)> = (log.lines())
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let at = |w: &str| l[..l.find(w).unwrap()].width();
            (at(words[3]), at(words[5]))
        })
        .collect();
    assert!(columns.len() > 10, "{log}");
    assert!(columns.iter().all(|c| *c == columns[0]), "{log}");
    assert!(log.lines().any(|l| l.ends_with("  \"名字\"")), "{log}");
}

/// A record is named in `log` by its event's
/// fields that hold a string, a number or a list (after its id, if it has
/// one), so `correct SEQ` can be aimed at it and a correction shows what it
/// changed: a card league's round and match (its scores), a Space Base Race
/// game (its number told, its seats), a Middle-earth seed (a name with a
/// space quoted) and monthly tick.
#[test]
fn log_names_a_record_by_its_id_and_its_fields() {
    let dir = ledger_with(&[]);
    let d = dir.path();
    let lines = |file: &str, n: usize| -> Vec<String> {
        let text = std::fs::read_to_string(common::events_dir().join(file)).unwrap();
        text.lines().take(n).map(String::from).collect()
    };
    let mut all = lines("cards_league.jsonl", 4);
    all.extend(lines("sbr_mars_2014.jsonl", 2));
    all.extend(lines("mepbm_monthly.jsonl", 1));
    let mut without: Vec<String> = (all.iter())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("id");
            v.to_string()
        })
        .collect();
    // One with an id: the id, then the same fields.
    without.push(
        r#"{"type":"mepbm.monthly_tick","id":"tick-jan","at":"2004-02-01","month":"2004-01"}"#
            .into(),
    );
    let out = common::append_text(d, &without.join("\n"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, log, _) = run(d, &["log"]);
    let ends: Vec<&str> = (log.lines())
        .map(|l| l.rsplit("Z  ").next().unwrap())
        .collect();
    assert_eq!(
        ends,
        [
            "ends=2013-12-31 point_system=1 starts=2013-01-01 tournament=cards-2013-league",
            "ends=2013-01-20 matches=[A:[Ana,Boris,Cleo],B:[Dario,Edith,Farid],C:[Greta,Hugo,\
             Ines]] round=1 starts=2013-01-07 tournament=cards-2013-league",
            "ends=2013-02-17 matches=[A:[Ana,Dario,Greta],B:[Boris,Edith,Hugo],C:[Cleo,Farid,\
             Ines]] round=2 starts=2013-02-04 tournament=cards-2013-league",
            "match=A round=1 scores=[Ana:60,Boris:-20,Cleo:-40] tournament=cards-2013-league",
            "tournament=mars-2014",
            "game=1 match=seed-01 seats=[[true:F,true:I5,false:L5,false:N,false:P,false:T5,\
             false:U,false:V5,false:I2]:Curiosity:red,-:30:yellow,-:41:green,-:52:blue] \
             stage=seeding tournament=mars-2014",
            "player=\"Moira Finch\" system=valar value=1850",
            "tick-jan month=2004-01",
        ],
        "{log}"
    );
}

/// `log --from SEQ` shows the records from SEQ on (a void of an earlier
/// record still names it), `--type` those of a type or namespace; a seq
/// past the head and an unknown type are refused, exit 2.
#[test]
fn log_from_a_seq_and_of_a_type_shows_only_those_records() {
    let dir = common::bundled();
    let d = dir.path();
    let (head, _) = common::head(d);
    common::ok(d, &["void", "5", "--reason", "entered twice"]);
    let seqs = |args: &[&str]| -> Vec<u64> {
        let (code, out, err) = run(d, args);
        assert_eq!(code, 0, "{err}");
        (out.lines())
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect()
    };
    let from = head.to_string();
    assert_eq!(seqs(&["log", "--from", &from]), [head, head + 1]);
    let (_, out, _) = run(d, &["log", "--from", &from]);
    let all = run(d, &["log"]).1;
    let fifth: Vec<&str> = all.lines().nth(4).unwrap().split_whitespace().collect();
    let (kind, id) = (fifth[2], fifth[6]);
    assert!(out.contains(&format!("#5 ({kind} {id}): reason")), "{out}");
    let cards = seqs(&["log", "--type", "cards"]);
    assert!(!cards.is_empty());
    let (_, out, _) = run(d, &["log", "--type", "cards"]);
    assert!(out.lines().all(|l| l.contains(" cards.")), "{out}");
    assert_eq!(seqs(&["log", "--type", "ledger.voided"]), [head + 1]);
    assert_eq!(
        seqs(&["log", "--type", "cards.match_result", "--from", &from]),
        Vec::<u64>::new()
    );
    // A ledger of several appends (a chunk each at least): from any seq, in
    // the first chunk, inside one, at one's start, at the last record.
    let files = [
        "cards_league.jsonl",
        "cfr_pbem.jsonl",
        "sbr_mars_2014.jsonl",
    ];
    let several = ledger_with(&files);
    let last = common::head(several.path()).0;
    for from in [1, 2, last / 2, last - 48, last] {
        let (code, out, _) = run(several.path(), &["log", "--from", &from.to_string()]);
        assert_eq!(code, 0);
        let got: Vec<u64> = (out.lines())
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(got, (from..=last).collect::<Vec<_>>(), "--from {from}");
    }
    for (args, said) in [
        (
            vec!["log", "--from", "99999"],
            format!("--from 99999: the ledger's last record is seq {}", head + 1),
        ),
        (
            vec!["log", "--type", "cardz"],
            "--type \"cardz\": no event type or namespace; did you mean \"cards\"?".to_string(),
        ),
    ] {
        let (code, _, err) = run(d, &args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(&said), "{err}");
    }
}

/// A rule change and a rename may say why: `log` shows the reason as it
/// shows a void's; an empty one is refused as new input.
#[test]
fn log_shows_the_reason_of_a_rule_change_and_a_rename() {
    let dir = common::empty_ledger();
    let draws =
        std::fs::read_to_string(common::events_dir().join("diplomacy_draws.jsonl")).unwrap();
    common::append_ok(dir.path(), &draws);
    let said = common::ok(
        dir.path(),
        &[
            "players",
            "rename",
            "Oskar Wendt",
            "Oskar Berg",
            "--at",
            "2024-05-01",
            "--reason",
            "married",
        ],
    );
    let renamed = "renamed \"Oskar Wendt\" to \"Oskar Berg\" from 2024-05-01\n";
    assert!(said.starts_with(renamed), "{said}");
    common::append_ok(
        dir.path(),
        r#"{"type":"ledger.rules_changed","at":"2024-06-01","system":"carnage","params":{"centers_total":34},"reason":"league vote"}"#,
    );
    let log = common::ok(dir.path(), &["log"]);
    assert!(
        log.contains(r#""Oskar Wendt" → "Oskar Berg": reason "married""#),
        "{log}"
    );
    assert!(
        log.contains(r#"carnage {"centers_total":34}: reason "league vote""#),
        "{log}"
    );
    common::append_refused(
        dir.path(),
        r#"{"type":"ledger.rules_changed","at":"2024-06-02","system":"carnage","params":{"centers_total":34},"reason":" "}"#,
        &["-:1, ledger.rules_changed: field `reason`: empty; say why, or leave the field out"],
    );
    let out = common::laurel(dir.path())
        .args([
            "players",
            "rename",
            "Priya Raman",
            "Priya R",
            "--reason",
            "",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--reason is empty or only whitespace"),
        "{err}"
    );
}

/// The site's page of corrections holds what `log` says of every void,
/// rename and rule change (not of registrations), by seq, each with its
/// reason, escaped, a voided one saying by which record; a `--known-at`
/// before the voids leaves them out, and what they voided stands unmarked;
/// one community's site leaves out another system's rule change and its void.
#[test]
fn the_site_lists_every_void_rename_and_rule_change_as_log_names_them() {
    let dir = ledger_with(&["cards_league.jsonl"]);
    let d = dir.path();
    common::ok(d, &["players", "add", "Ann Lee", "--at", "2024-01-01"]);
    common::ok(
        d,
        &[
            "players",
            "rename",
            "Ann Lee",
            "Ann Leigh",
            "--reason",
            "married",
        ],
    );
    common::append_ok(
        d,
        r#"{"type":"ledger.rules_changed","at":"2024-02-01","system":"valar","params":{"base":50},"reason":"a <new> base"}"#,
    );
    let before_void = common::head(d).0;
    common::ok(d, &["void", "4", "--reason", "entered twice & wrong"]);
    // The rule change is the last record before the voids.
    let rules = before_void.to_string();
    common::ok(d, &["void", &rules, "--reason", "too soon"]);
    let site = tempfile::tempdir().unwrap();
    let page = |known_at: Option<u64>| {
        let out = site
            .path()
            .join(known_at.map_or("all".into(), |k| k.to_string()));
        let mut args = vec!["site".to_string(), out.display().to_string()];
        args.extend(known_at.map(|k| format!("--known-at={k}")));
        common::ok(d, &args.iter().map(String::as_str).collect::<Vec<_>>());
        std::fs::read_to_string(out.join("corrections.html")).unwrap()
    };
    let all = page(None);
    let (_, log, _) = run(d, &["log", "--type", "ledger"]);
    let mut listed = 0;
    for line in log.lines() {
        // seq, date, type, hash, "recorded" and its time, then what it says.
        let kind = line.split_whitespace().nth(2).unwrap();
        let after = line.split_once("  recorded ").unwrap().1;
        let what = after.split_once("  ").unwrap().1;
        // The last cell of its row, whole.
        let cell = format!("<td>{}\n", maud::html! { (what) }.into_string());
        let shown = all.contains(&cell);
        assert_eq!(shown, kind != "ledger.player_registered", "{line} in {all}");
        listed += usize::from(shown);
    }
    assert_eq!(listed, 4, "{log}");
    assert!(
        all.contains(&format!("voided by #{}", before_void + 2)),
        "{all}"
    );
    assert!(
        all.contains("reason &quot;entered twice &amp; wrong&quot;"),
        "{all}"
    );
    let index = std::fs::read_to_string(site.path().join("all/index.html")).unwrap();
    assert!(
        index.contains("Corrections, renames and rule changes (4)"),
        "{index}"
    );
    // One community's site: another system's rule change is not its own.
    let cards = site.path().join("cards");
    common::ok(d, &["site", cards.to_str().unwrap(), "--systems", "cards"]);
    let cards = std::fs::read_to_string(cards.join("corrections.html")).unwrap();
    assert!(!cards.contains("a &lt;new&gt; base"), "{cards}");
    // Nor is its void.
    assert!(!cards.contains("too soon"), "{cards}");
    assert!(
        cards.contains("entered twice") && cards.contains("married"),
        "{cards}"
    );
    let before = page(Some(before_void));
    assert!(before.contains("a &lt;new&gt; base"), "{before}");
    assert!(!before.contains("entered twice"), "{before}");
    assert!(!before.contains("voided by"), "{before}");
}
