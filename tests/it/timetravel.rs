//! Time travel and audit: both clocks, late results, voids and corrections, rule
//! changes, replay and history, on the bundled streams.

use crate::common;

use common::{append_text, events_dir, head, json, laurel, ledger_with, row, standings};
use serde_json::{json, Value};

/// `mepbm_late_1.jsonl` holds games 301 and 302 and 302's result; game 301's result
/// (`mepbm_late_2.jsonl`, dated before 302's) comes in a later append.
const LATE: [&str; 2] = ["mepbm_late_1.jsonl", "mepbm_late_2.jsonl"];

fn valar(v: &Value, player: &str) -> Value {
    row(v, player)["score"].clone()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn as_of_between_two_games_shows_the_ratings_between_them() {
    let dir = ledger_with(&LATE);
    let between = standings(dir.path(), &["valar", "--as-of", "2005-05-31"]);
    assert_eq!(valar(&between, "Petra Lind"), json!(1523)); // 301 (FP won) only
    assert_eq!(valar(&between, "Quentin Vale"), json!(1477));
    assert_eq!(between["as_of"], json!("2005-05-31"));
    let before = standings(dir.path(), &["valar", "--as-of", "2005-05-06"]);
    assert_eq!(before["rows"], json!([]), "no game had ended yet");
    let after = standings(dir.path(), &["valar"]);
    assert_eq!(valar(&after, "Petra Lind"), json!(1500)); // then 302 (DS won): -23
}

#[test]
fn known_at_before_a_late_result_shows_the_older_ranking() {
    let dir = ledger_with(&LATE);
    let published = standings(dir.path(), &["valar", "--known-at", "3"]);
    assert_eq!(published["known_at"], json!(3));
    assert_eq!(valar(&published, "Petra Lind"), json!(1477)); // 302 alone
    assert_eq!(valar(&published, "Quentin Vale"), json!(1523));
    // The late result takes its place in history: 302 is recomputed after 301.
    let corrected = standings(dir.path(), &["valar", "--as-of", "2005-12-31"]);
    assert_eq!(corrected["known_at"], json!(4));
    assert_eq!(valar(&corrected, "Petra Lind"), json!(1500));
    assert_eq!(valar(&corrected, "Quentin Vale"), json!(1500));
    // Both clocks: what the ledger knew at seq 3 about the end of May.
    let both = standings(
        dir.path(),
        &["valar", "--as-of", "2005-05-31", "--known-at", "3"],
    );
    assert_eq!(both["rows"], json!([]));
}

#[test]
fn json_echoes_both_clocks_and_the_head_it_was_computed_at() {
    let dir = ledger_with(&LATE);
    let v = json(
        dir.path(),
        &["standings", "valar", "--known-at", "3", "--format", "json"],
    );
    let export = laurel(dir.path()).arg("export").output().unwrap().stdout;
    let third: Value =
        serde_json::from_slice(export.split(|b| *b == b'\n').nth(2).unwrap()).unwrap();
    assert_eq!(v["head"], third["hash"]);
    assert_eq!(v["known_at"], json!(3));
    assert_eq!(v["as_of"], Value::Null);
    let now = json(dir.path(), &["standings", "valar", "--format", "json"]);
    assert_eq!(now["head"], json!(head(dir.path()).1));
}

#[test]
fn known_at_a_time_uses_recorded_at() {
    let dir = ledger_with(&LATE);
    let v = standings(dir.path(), &["valar", "--known-at", "2000-01-01"]);
    assert_eq!(
        (v["known_at"].clone(), v["rows"].clone()),
        (json!(0), json!([]))
    );
    let v = standings(dir.path(), &["valar", "--known-at", "2999-01-01T00:00:00Z"]);
    assert_eq!(v["known_at"], json!(4));
    // In text, a time before the first record says that nothing was
    // recorded by then, and when record 1 was.
    let text = laurel(dir.path())
        .args(["standings", "valar", "--known-at", "2000-01-01"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(
        first.contains(
            " · known at seq 0 (00000000…), recorded by 2000-01-01 (end of day, UTC) · nothing \
             was recorded by then (record 1 was recorded at 20"
        ),
        "{first}"
    );
    assert!(
        first.ends_with("--as-of cuts by when events happened)"),
        "{first}"
    );
}

/// A known-at time is the last record recorded by then: the time an append
/// recorded its records at takes them and every record before, and no later
/// one, whichever chunk it falls in.
#[test]
fn known_at_the_time_of_each_append_is_the_seq_of_its_last_record() {
    let dir = common::empty_ledger();
    let d = dir.path();
    for month in 1..=6 {
        let tick = format!(
            r#"{{"type":"mepbm.monthly_tick","at":"2003-{:02}-02","month":"2003-{month:02}"}}"#,
            month + 1
        );
        assert!(append_text(d, &tick).status.success());
    }
    let export = laurel(d).arg("export").output().unwrap().stdout;
    let recorded: Vec<String> = (String::from_utf8(export).unwrap().lines())
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["recorded_at"].to_string())
        .collect();
    assert_eq!(recorded.len(), 6);
    for (k, at) in recorded.iter().enumerate() {
        let at = at.trim_matches('"');
        let v = json(
            d,
            &["standings", "valar", "--known-at", at, "--format", "json"],
        );
        assert_eq!(v["known_at"], json!(k + 1), "--known-at {at}");
        let by_seq = (k + 1).to_string();
        let w = json(
            d,
            &[
                "standings",
                "valar",
                "--known-at",
                &by_seq,
                "--format",
                "json",
            ],
        );
        assert_eq!(v, w, "--known-at {at} and {by_seq}");
    }
}

/// `--known-at SEQ` inside an append answers at SEQ, and says that no
/// reader saw that state (an append is all or nothing) and which seqs show
/// one that was; the last record of an append gets no such word.
#[test]
fn known_at_a_seq_inside_an_append_says_no_reader_saw_it() {
    let dir = common::empty_ledger();
    let d = dir.path();
    let ticks: String = (1..=3)
        .map(|m| {
            format!(
                "{{\"type\":\"mepbm.monthly_tick\",\"at\":\"2003-{:02}-02\",\"month\":\"2003-{m:02}\"}}\n",
                m + 1
            )
        })
        .collect();
    assert!(append_text(d, &ticks).status.success());
    let last = r#"{"type":"mepbm.monthly_tick","at":"2003-05-02","month":"2003-04"}"#;
    assert!(append_text(d, last).status.success());
    let line = |seq: &str| {
        let out = laurel(d)
            .args(["standings", "valar", "--known-at", seq])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let two = line("2");
    let want = "record 2 came in one append with records 1 to 3 (all or nothing): no reader \
                saw the ledger at 2; --known-at 0 or 3 shows a state one did";
    assert!(
        two.contains(" · known at seq 2 (") && two.ends_with(want),
        "{two}"
    );
    for seq in ["3", "4"] {
        assert!(!line(seq).contains("came in one append"), "{}", line(seq));
    }
}

#[test]
fn known_at_past_the_head_is_refused_naming_the_head_by_every_command() {
    let dir = ledger_with(&LATE);
    let rules = dir.path().join("r.json");
    std::fs::write(&rules, r#"{"valar": {"base": 50}}"#).unwrap();
    let r = rules.to_str().unwrap();
    let site = dir.path().join("site");
    let s = site.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["standings", "valar"],
        &["history", "Petra Lind"],
        &["players"],
        &["rules"],
        &["replay", "--rules", r],
        &["replay", "--rules", r, "--diff", "--system", "valar"],
        &["site", s],
    ];
    for args in commands {
        let out = laurel(dir.path())
            .args(args)
            .args(["--known-at", "999999999"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("--known-at 999999999: the ledger's last record is seq 4"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(!site.exists(), "nothing written");
    // The head itself is a state the ledger was in.
    assert_eq!(
        standings(dir.path(), &["valar", "--known-at", "4"])["known_at"],
        json!(4)
    );
    let empty = common::empty_ledger();
    let out = laurel(empty.path())
        .args(["standings", "valar", "--known-at", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--known-at 1: the ledger holds no record yet"));
}

/// The events of `files` without the records whose id is in `drop`, as JSON Lines.
fn stream_without(files: &[&str], drop: &[&str]) -> String {
    let mut out = String::new();
    for f in files {
        for line in std::fs::read_to_string(events_dir().join(f))
            .unwrap()
            .lines()
        {
            let v: Value = serde_json::from_str(line).unwrap();
            if !drop.contains(&v["id"].as_str().unwrap_or_default()) {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn voiding_a_game_restores_the_ratings_as_if_it_never_happened() {
    let dir = ledger_with(&["mepbm_valar.jsonl", LATE[0], LATE[1]]);
    // seq 35, 36 = games 301 and 302 started; 37 = 302 ended; 38 = 301 ended.
    let out = laurel(dir.path())
        .args(["void", "35", "--reason", "game 301 never happened"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a game with a result cannot lose its start alone"
    );
    let err = stderr(&out);
    assert!(
        err.contains("laurel void, ledger.voided: voiding record 35 is refused"),
        "{err}"
    );
    assert!(
        err.contains("record 38 (mepbm.game_ended) would no longer be valid")
            && err.contains("game 301"),
        "{err}"
    );
    let voids = r#"{"type":"ledger.voided","at":"2005-07-01","target":35,"reason":"game 301 never happened"}
{"type":"ledger.voided","at":"2005-07-01","target":38,"reason":"game 301 never happened"}"#;
    let out = append_text(dir.path(), voids);
    assert!(out.status.success(), "{}", stderr(&out));

    let never = common::empty_ledger();
    let text = stream_without(
        &["mepbm_valar.jsonl", LATE[0], LATE[1]],
        &["mepbm-late-301-start", "mepbm-late-301-end"],
    );
    assert!(append_text(never.path(), &text).status.success());
    for table in ["valar", "maia", "istari", "nations", "council", "nazgul"] {
        let (a, b) = (
            standings(dir.path(), &[table]),
            standings(never.path(), &[table]),
        );
        assert_eq!(a["rows"], b["rows"], "{table}");
        assert_eq!(a.get("tables"), b.get("tables"), "{table}");
    }
    // What the ledger said before the voids is still there by known-at.
    let before = standings(dir.path(), &["valar", "--known-at", "38"]);
    assert_eq!(valar(&before, "Petra Lind"), json!(1500));
}

#[test]
fn a_correction_is_a_void_and_a_new_event_and_history_shows_both() {
    let dir = ledger_with(&LATE);
    let out = laurel(dir.path())
        .args(["void", "4", "--reason", "winner was DS, not FP"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let fixed = r#"{"type":"mepbm.game_ended","id":"mepbm-late-301-end-fixed","at":"2005-05-07","game":"301","turn":24,"winner":"DS","nations":[]}"#;
    assert!(append_text(dir.path(), fixed).status.success());
    let v = standings(dir.path(), &["valar"]);
    // 301 now DS won: 1500 - 23 = 1477; then 302: -round(0.5 * (45 + (1477 - 1523) / 150)) = -22.
    assert_eq!(valar(&v, "Petra Lind"), json!(1455));
    let h = json(
        dir.path(),
        &[
            "history",
            "Petra Lind",
            "--system",
            "valar",
            "--format",
            "json",
        ],
    );
    let rows = h["rows"].as_array().unwrap();
    let voided: Vec<&Value> = rows.iter().filter(|r| !r["voided"].is_null()).collect();
    assert_eq!(voided.len(), 1, "{h:#}");
    assert_eq!(
        (voided[0]["seq"].clone(), voided[0]["new"].clone()),
        (json!(4), json!("1523"))
    );
    assert!(voided[0]["voided"]
        .as_str()
        .unwrap()
        .contains("voided by #5: reason \"winner was DS"));
    let live: Vec<(Value, Value)> = rows
        .iter()
        .filter(|r| r["voided"].is_null())
        .map(|r| (r["seq"].clone(), r["new"].clone()))
        .collect();
    assert_eq!(
        live,
        vec![(json!(6), json!("1477")), (json!(3), json!("1455"))]
    );
}

#[test]
fn rules_changed_applies_from_its_at_and_rules_lists_what_is_in_force() {
    let dir = ledger_with(&[LATE[0]]);
    let change = r#"{"type":"ledger.rules_changed","at":"2005-03-01","system":"valar","params":{"base":50}}"#;
    assert!(append_text(dir.path(), change).status.success());
    let rules = |args: &[&str]| {
        let mut full = vec!["rules", "--format", "json"];
        full.extend_from_slice(args);
        let v = json(dir.path(), &full);
        let base = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["system"] == "valar" && r["param"] == "base")
            .cloned()
            .unwrap();
        (base["default"].clone(), base["in_force"].clone())
    };
    assert_eq!(rules(&["--as-of", "2005-02-28"]), (json!(45), json!(45)));
    assert_eq!(rules(&[]), (json!(45), json!(50)));
    // Game 302 ends after the change: round(0.5 * 50) = 25.
    assert_eq!(
        valar(&standings(dir.path(), &["valar"]), "Quentin Vale"),
        json!(1525)
    );
    let bad =
        r#"{"type":"ledger.rules_changed","at":"2005-03-01","system":"valar","params":{"bas":50}}"#;
    let out = append_text(dir.path(), bad);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown parameter valar.bas"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn replay_under_default_rules_reproduces_live_standings_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    laurel(dir.path()).arg("init").assert().success();
    laurel(dir.path())
        .arg("import")
        .arg(events_dir())
        .assert()
        .success();
    let rules = dir.path().join("defaults.json");
    std::fs::write(&rules, "{}").unwrap();
    let run = |args: &[&str]| laurel(dir.path()).args(args).output().unwrap().stdout;
    // A rules file that sets nothing marks no answer a what-if (the mark is
    // once in text and JSON; CSV has no stamp), neither `replay`'s nor
    // `standings`': each is the ledger's own, byte for byte.
    let path = rules.to_str().unwrap();
    let text_mark = format!(" · what-if: rules of {path}, not the ledger's");
    let json_mark = format!("\n  \"rules\": \"{path}\",");
    let marked = |fmt: &str, marks: usize, out: Vec<u8>| {
        let out = String::from_utf8(out).unwrap();
        let mark = match fmt {
            "json" => &json_mark,
            "table" => &text_mark,
            _ => return out,
        };
        assert_eq!(out.matches(mark.as_str()).count(), marks, "{out}");
        out.replacen(mark.as_str(), "", 1)
    };
    let mut compared = 0;
    // Every table that needs no --tournament (those are covered by the cards/sbr tests).
    let tables = laurel::systems::tables();
    let plain = tables
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| !matches!(*t, "cards" | "sbr"));
    for table in plain {
        for fmt in ["json", "table", "csv"] {
            let live = String::from_utf8(run(&["standings", table, "--format", fmt])).unwrap();
            assert!(!live.is_empty());
            assert_eq!(
                marked(
                    fmt,
                    0,
                    run(&[
                        "replay",
                        "--rules",
                        rules.to_str().unwrap(),
                        "--system",
                        table,
                        "--format",
                        fmt
                    ])
                ),
                live,
                "{table} {fmt}"
            );
            assert_eq!(
                marked(
                    fmt,
                    0,
                    run(&[
                        "standings",
                        table,
                        "--rules",
                        rules.to_str().unwrap(),
                        "--format",
                        fmt
                    ])
                ),
                live,
                "{table} {fmt}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 36, "12 tables x 3 formats");
}

#[test]
fn replay_with_valar_base_50_gives_76_instead_of_71_and_diff_says_so() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rules = dir.path().join("r.json");
    std::fs::write(&rules, r#"{"valar": {"base": 50}}"#).unwrap();
    let r = rules.to_str().unwrap();
    let d = json(
        dir.path(),
        &[
            "replay", "--rules", r, "--diff", "--system", "valar", "--format", "json",
        ],
    );
    let hal = row(&d, "Hal Irwin");
    assert_eq!(
        (
            hal["old_score"].clone(),
            hal["score"].clone(),
            hal["delta"].clone()
        ),
        (json!(1771), json!(1776), json!(5))
    );
    let ray = row(&d, "Ray Stone"); // the Blind Sorcerer: 1784 - 71 vs 1784 - 76
    assert_eq!(
        (ray["old_score"].clone(), ray["score"].clone()),
        (json!(1713), json!(1708))
    );
    // Nothing was appended by the what-if.
    assert_eq!(head(dir.path()).0, 34);
    let all = json(
        dir.path(),
        &["replay", "--rules", r, "--diff", "--format", "json"],
    );
    assert!(all["tables"].as_array().unwrap().len() >= 12);
    let text = String::from_utf8(
        laurel(dir.path())
            .args(["replay", "--rules", r, "--diff", "--system", "valar"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        text.contains("Hal Irwin") && text.contains("1771") && text.contains("1776"),
        "{text}"
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"valor": {"base": 50}}"#).unwrap();
    let out = laurel(dir.path())
        .args(["replay", "--rules", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown rule system \"valor\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn history_of_the_dwarfs_player_shows_the_valar_formula_inputs() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let h = json(dir.path(), &["history", "Hal Irwin", "--format", "json"]);
    let valar: Vec<&Value> = h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["system"] == "valar" && r["seq"] == 30)
        .collect();
    assert_eq!(valar.len(), 1, "{h:#}");
    let f = valar[0]["formula"].as_str().unwrap();
    assert!(f.starts_with("+71"), "{f}");
    for input in ["45", "150", "19665", "15768"] {
        assert!(f.contains(input), "{input} missing in {f}");
    }
    assert_eq!(
        (valar[0]["old"].clone(), valar[0]["new"].clone()),
        (json!("1700"), json!("1771"))
    );
    // The clocks apply to history too.
    let early = json(
        dir.path(),
        &[
            "history",
            "Hal Irwin",
            "--as-of",
            "2003-03-14",
            "--format",
            "json",
        ],
    );
    assert!(early["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["seq"] != 30));
}

/// Teams A and B (2003-01-01), their grudge game (FP won, 2003-06-01), five
/// monthly ticks; then, in 2010, a player registered as "Team A" and a game
/// of new players `g2-fp1`..`g2-ds10`, won by DS.
fn team_then_late_players() -> String {
    let members = |t: &str| (1..=8).map(|i| format!("{t}{i}")).collect::<Vec<_>>();
    let mut lines: Vec<Value> = [("Team A", "a"), ("Team B", "b")]
        .iter()
        .map(|(team, t)| {
            json!({"type": "mepbm.grudge_team_registered", "at": "2003-01-01", "team": team,
                "coordinator": format!("{t}1"), "members": members(t)})
        })
        .collect();
    let positions = |game: &str, named: bool| {
        let mut pos = Vec::new();
        for (side, t) in [("FP", "a"), ("DS", "b")] {
            for i in 1..=10 {
                let player = match (named, i <= 7) {
                    (true, true) => format!("{t}{i}"),
                    (true, false) => format!("{t}x{i}"),
                    (false, _) => format!("{game}-{}{i}", side.to_lowercase()),
                };
                pos.push(json!({"nation": format!("{side}{i}"), "player": player, "side": side}));
            }
        }
        pos
    };
    let grudge = json!({"FP": "Team A", "DS": "Team B"});
    lines.push(
        json!({"type": "mepbm.game_started", "at": "2003-03-01", "game": "gg",
        "scenario": "1650", "positions": positions("gg", true), "grudge": grudge}),
    );
    let end = |game: &str, at: &str, winner: &str| {
        json!({"type": "mepbm.game_ended", "at": at, "game": game, "turn": 30,
            "winner": winner, "nations": []})
    };
    lines.push(end("gg", "2003-06-01", "FP"));
    for m in 6..=10 {
        lines.push(
            json!({"type": "mepbm.monthly_tick", "at": format!("2003-{:02}-01", m + 1),
            "month": format!("2003-{m:02}")}),
        );
    }
    lines.push(
        json!({"type": "mepbm.game_started", "at": "2010-02-01", "game": "g2",
        "scenario": "1650", "positions": positions("g2", false)}),
    );
    lines.push(end("g2", "2010-05-01", "DS"));
    (lines.iter().map(Value::to_string))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `laurel history NAME --format json` on ledger `d` (from the checkpoints,
/// or from nothing with `full`), and what the checkpoint trace said.
fn history_traced(d: &std::path::Path, name: &str, full: bool) -> (Value, String) {
    let mut c = laurel(d);
    c.args(["history", name, "--format", "json"])
        .env("LAUREL_CHECKPOINT_TRACE", "1");
    if full {
        c.env("LAUREL_NO_CHECKPOINTS", "1");
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (v, stderr(&out))
}

/// A player's values change only from their first record on, so their
/// history folds from a checkpoint before it; a grudge team's is folded
/// from the first record, its changes having no player's first date to
/// start from. Both equal the fold from nothing.
#[test]
fn history_starts_from_a_checkpoint_before_the_players_first_record() {
    let dir = common::empty_ledger();
    let d = dir.path();
    laurel(d)
        .args(["append", "-"])
        .env("LAUREL_CHECKPOINT_EVERY", "2")
        .write_stdin(team_then_late_players())
        .assert()
        .success();
    let (late, trace) = history_traced(d, "g2-ds3", false);
    assert_eq!(late, history_traced(d, "g2-ds3", true).0);
    assert!(
        late["rows"].as_array().is_some_and(|r| !r.is_empty()),
        "{late}"
    );
    // The players fold, then the audit fold: both from a checkpoint.
    assert_eq!(trace.matches("resumed after").count(), 2, "{trace}");
    assert!(!trace.contains("from the start"), "{trace}");
    let (team, trace) = history_traced(d, "Team A", false);
    assert_eq!(team, history_traced(d, "Team A", true).0);
    let ainur_2003 = |r: &Value| {
        r["system"] == "ainur"
            && r["at"]
                .as_str()
                .is_some_and(|a| a.starts_with("2003-06-01"))
    };
    assert!(
        team["rows"]
            .as_array()
            .is_some_and(|r| r.iter().any(ainur_2003)),
        "{team}"
    );
    assert!(trace.contains("none, folded from the start"), "{trace}");
}
