//! Rule parameters through the binary: a `ledger.rules_changed` or a `--rules`
//! file with a value out of its range, or a misspelt parameter, exits 2 naming
//! `group.name` (and the values allowed) and appends nothing; `laurel rules`
//! lists every parameter's range, and `rules --template` writes the values in
//! force as a rules file.

use crate::common;

use common::{append_text, empty_ledger, head, json, laurel, ledger_with};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Append `params` for `group` to a ledger holding one event; it must be
/// refused with exit 2, leave the head alone and say `want`.
fn refused(group: &str, params: &str, want: &str) {
    let dir = empty_ledger();
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2003-02-01","month":"2003-01"}"#;
    assert!(append_text(dir.path(), tick).status.success());
    let before = head(dir.path());
    let line = format!(
        r#"{{"type":"ledger.rules_changed","at":"2003-03-02","system":"{group}","params":{params}}}"#
    );
    let out = append_text(dir.path(), &line);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(want), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-:1, ledger.rules_changed: "),
        "{}",
        stderr(&out)
    );
    assert_eq!(head(dir.path()), before);
}

#[test]
fn an_out_of_range_value_exits_2_naming_the_parameter_and_its_range() {
    refused(
        "valar",
        r#"{"divisor":0}"#,
        "valar.divisor: 0 is out of range; allowed: an integer from 1 to 1000000",
    );
    refused(
        "maia",
        r#"{"win":1000000000000}"#,
        "maia.win: 1000000000000 is out of range; allowed: an integer from 0 to 1000",
    );
    refused(
        "cfr",
        r#"{"counted_events":0}"#,
        "cfr.counted_events: 0 is out of range; allowed: an integer from 1 to 1000",
    );
    refused(
        "monthly",
        r#"{"factor":"0.9876543"}"#,
        "monthly.factor: \"0.9876543\" is out of range; allowed: a decimal string from \"0\" \
         to \"1\" with at most 6 decimal places",
    );
    refused(
        "council",
        r#"{"points":[]}"#,
        "council.points: [] is out of range; allowed: an array of 1 to 3 integers",
    );
}

/// A decimal written otherwise than `-?(0|[1-9][0-9]*)(\.[0-9]+)?` is told
/// what is wrong with it and how to write it, never that it is out of
/// range: in a rules change, a `--rules` file and a series' `heat_decay`.
/// Trailing zeros (`"0.50"`) are how a decimal may be written.
#[test]
fn a_misspelt_decimal_exits_2_saying_what_is_wrong_and_how_to_write_it() {
    let form = "write digits, at most one \".\" between digits and an optional leading \"-\"";
    let cases = [
        (
            "00.5",
            "leading zeros are not allowed; write \"0.5\"".to_string(),
        ),
        ("+1", "a plus sign is not allowed; write \"1\"".into()),
        (
            ".5",
            "a digit is needed before the \".\"; write \"0.5\"".into(),
        ),
        (
            "1.",
            "a digit is needed after the \".\"; write \"1\"".into(),
        ),
        ("1e3", format!("an exponent is not allowed; {form}")),
        (" 1", "spaces are not allowed; write \"1\"".into()),
        ("-0", "zero takes no minus sign; write \"0\"".into()),
    ];
    let dir = ledger_with(&[]);
    let rules = dir.path().join("r.json");
    for (text, why) in &cases {
        let want = format!("monthly.factor: \"{text}\" is not a decimal string: {why}");
        refused("monthly", &format!(r#"{{"factor":"{text}"}}"#), &want);
        std::fs::write(&rules, format!(r#"{{"monthly": {{"factor": "{text}"}}}}"#)).unwrap();
        let out = laurel(dir.path())
            .args(["replay", "--rules", rules.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        assert!(
            stderr(&out).contains(&format!("r.json: {want}")),
            "{}",
            stderr(&out)
        );
        let series = format!(
            r#"{{"type":"cfr.series_defined","at":"2012-01-01","series":"s","format":"elimination","heat_decay":"{text}"}}"#
        );
        let out = append_text(dir.path(), &series);
        let want = format!("`heat_decay` \"{text}\" is not a decimal string: {why}");
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        assert!(stderr(&out).contains(&want), "{}", stderr(&out));
    }
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2003-02-01","month":"2003-01"}"#;
    let fine = r#"{"type":"ledger.rules_changed","at":"2003-03-02","system":"monthly","params":{"factor":"0.50"}}"#;
    let series = r#"{"type":"cfr.series_defined","at":"2012-01-01","series":"s","format":"elimination","heat_decay":"0.50"}"#;
    let out = append_text(dir.path(), &format!("{tick}\n{fine}\n{series}\n"));
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_points_table_rising_with_place_or_without_a_positive_win_exits_2() {
    // What a `cfr.series_defined` table may not be, a parameter may not either.
    refused(
        "cfr",
        r#"{"race_points":[10,20]}"#,
        "cfr.race_points: [10,20] is out of range; allowed: an array of 1 to 100 integers, \
         each from 0 to 1000000, never rising from one place to the next, the first above 0",
    );
    refused(
        "cfr",
        r#"{"final_points":[0]}"#,
        "cfr.final_points: [0] is out of range",
    );
    refused(
        "cards",
        r#"{"system1_one_positive":[0,1,5]}"#,
        "cards.system1_one_positive: [0,1,5] is out of range",
    );
}

#[test]
fn a_misspelt_parameter_or_group_exits_2() {
    refused(
        "cfr",
        r#"{"counted_event":4}"#,
        "unknown parameter cfr.counted_event; did you mean \"counted_events\"? (see `laurel rules` for the names)",
    );
    refused(
        "sbrr",
        r#"{"advance":1}"#,
        "unknown rule system \"sbrr\"; did you mean \"sbr\"?",
    );
    refused(
        "sbr",
        r#"{"advance":"1"}"#,
        "sbr.advance: expected an integer, got \"1\"",
    );
}

#[test]
fn a_rules_file_is_checked_against_the_ranges() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rules = dir.path().join("r.json");
    std::fs::write(&rules, r#"{"valar": {"divisor": 0}}"#).unwrap();
    let out = laurel(dir.path())
        .args(["standings", "valar", "--rules", rules.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("r.json: valar.divisor: 0 is out of range; allowed: an integer"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_rules_file_giving_a_system_or_parameter_twice_exits_2_naming_it() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rules = dir.path().join("r.json");
    for (text, key) in [
        (r#"{"valar": {"base": 1, "base": 200}}"#, "valar.base"),
        (
            r#"{"valar": {"base": 200}, "valar": {"divisor": 150}}"#,
            "valar",
        ),
    ] {
        std::fs::write(&rules, text).unwrap();
        let out = laurel(dir.path())
            .args(["replay", "--rules", rules.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        let want = format!("r.json: `{key}` appears twice");
        assert!(stderr(&out).contains(&want), "{}", stderr(&out));
    }
}

#[test]
fn a_rules_file_value_no_event_may_hold_is_refused_in_the_events_words() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rules = dir.path().join("r.json");
    let long = "1".repeat(5000);
    let many: Vec<u32> = (0..101).collect();
    let name = "x".repeat(300);
    let cases = [
        (
            r#"{"valar": {"base": 15e2}}"#.to_string(),
            "r.json: field `valar.base`: 1500.0 is a floating-point number; laurel accepts \
             only integers",
        ),
        (
            r#"{"valar": {"base": -0}}"#.to_string(),
            "r.json: field `valar.base`: -0 is read as a floating-point number; write 0",
        ),
        (
            format!(r#"{{"valar": {{"base": "{long}"}}}}"#),
            "r.json: field `valar.base`: string of 5000 bytes is longer than the limit of 4096",
        ),
        (
            format!(r#"{{"valar": {{"base": {many:?}}}}}"#),
            "r.json: valar.base: expected an integer, got [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,\
             16,17,18,19,20,21,22,…\n",
        ),
        (
            format!(r#"{{"{name}": {{"base": 1}}}}"#),
            "r.json: unknown rule system \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"…",
        ),
        (
            format!(r#"{{"valar": {{"{name}": 1}}}}"#),
            "r.json: unknown parameter valar.\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"…",
        ),
    ];
    for (text, want) in cases {
        std::fs::write(&rules, &text).unwrap();
        let out = laurel(dir.path())
            .args(["replay", "--rules", rules.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(stderr(&out).contains(want), "{}", stderr(&out));
        assert!(stderr(&out).len() < 400, "{}", stderr(&out));
    }
}

#[test]
fn rules_lists_the_values_each_parameter_may_take() {
    let dir = empty_ledger();
    let v = json(dir.path(), &["rules", "--format", "json"]);
    let rows = v["rows"].as_array().unwrap();
    let base = rows
        .iter()
        .find(|r| r["system"] == "fibonacci" && r["param"] == "base")
        .unwrap();
    assert_eq!(base["allowed"], "an integer from 0 to 1");
    assert!(rows.iter().all(|r| r["allowed"].as_str().is_some()));
}

/// `rules --template` as a file: what `laurel rules` lists as in force, but
/// for `changed` (`group.name`, set by a recorded rule change), left out and
/// named on stderr.
fn template(dir: &std::path::Path, changed: &[&str]) -> serde_json::Value {
    let out = laurel(dir).args(["rules", "--template"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let file: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = json(dir, &["rules", "--format", "json"]);
    for row in listed["rows"].as_array().unwrap() {
        let (system, param) = (row["system"].as_str(), row["param"].as_str());
        let (system, param) = (system.unwrap(), param.unwrap());
        match changed.contains(&format!("{system}.{param}").as_str()) {
            true => assert!(file[system].get(param).is_none(), "{system}.{param}"),
            false => assert_eq!(file[system][param], row["in_force"], "{system}.{param}"),
        }
    }
    let note = match changed {
        [] => String::new(),
        names => format!(
            "note: left out {}, which recorded rule changes set",
            names.join(", ")
        ),
    };
    assert!(stderr(&out).contains(&note), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).is_empty(),
        changed.is_empty(),
        "{}",
        stderr(&out)
    );
    file
}

/// `replay --rules FILE --diff --format json` of `dir`: every table
/// unchanged, and what it said on stderr (nothing).
fn replays_to_no_change(dir: &std::path::Path, file: &std::path::Path) -> String {
    let args = ["replay", "--rules", file.to_str().unwrap(), "--diff"];
    let out = laurel(dir)
        .args([&args[..], &["--format", "json"]].concat())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let diff: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for t in diff["tables"].as_array().unwrap() {
        assert_eq!(t["unchanged"], true, "{t}");
    }
    stderr(&out)
}

/// In a ledger whose rules never changed, replaying the template moves
/// nothing; after a change, it holds the value in force, not the default.
#[test]
fn rules_template_holds_every_value_in_force_and_replays_unchanged_rules_to_no_change() {
    let dir = ledger_with(&[
        "mepbm_valar.jsonl",
        "cfr_wbc.jsonl",
        "diplomacy_draws.jsonl",
    ]);
    let file = dir.path().join("template.json");
    std::fs::write(&file, template(dir.path(), &[]).to_string()).unwrap();
    let args = ["replay", "--rules", file.to_str().unwrap(), "--diff"];
    let diff = json(dir.path(), &[&args[..], &["--format", "json"]].concat());
    // Every table refolded (the template sets every system's parameters),
    // and every one reported unchanged: no row moves.
    let tables = diff["tables"].as_array().unwrap();
    // Every table once, those shown per tournament of none (no card league
    // or Space Base Race here) included.
    assert_eq!(tables.len(), laurel::systems::tables().len());
    for t in tables {
        assert_eq!(t["unchanged"], true, "{t}");
    }
    let text = laurel(dir.path()).args(args).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let said = "unchanged: no row moves under the rules file";
    assert_eq!(text.matches(said).count(), tables.len(), "{text}");
    assert_eq!(replays_to_no_change(dir.path(), &file), "");
    // A rule change dated between games: pinned over the whole history, its
    // value would rescore the games before it, so the template leaves it out
    // and still replays to no change; given by hand, it is a what-if, and
    // the replay says what it pins over.
    let change = r#"{"type":"ledger.rules_changed","at":"2003-03-02","system":"valar","params":{"base":46}}"#;
    assert!(append_text(dir.path(), change).status.success());
    let left = template(dir.path(), &["valar.base"]);
    assert_eq!(left["valar"]["divisor"], 150);
    std::fs::write(&file, left.to_string()).unwrap();
    assert_eq!(replays_to_no_change(dir.path(), &file), "");
    std::fs::write(&file, r#"{"valar": {"base": 50}}"#).unwrap();
    let args = ["replay", "--rules", file.to_str().unwrap(), "--diff"];
    let out = laurel(dir.path())
        .args([&args[..], &["--format", "json"]].concat())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let diff: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(diff["tables"][0]["system"], "valar", "{diff}");
    assert!(diff["tables"][0]["unchanged"].is_null(), "{diff}");
    assert_eq!(
        diff["tables"][0]["rules_over_changes"],
        serde_json::json!(["valar.base"])
    );
    let text = laurel(dir.path()).args(args).output().unwrap();
    let said = "template.json, not the ledger's, whose valar.base holds over \
                the whole history, before the rule changes that set it too\n";
    assert!(String::from_utf8_lossy(&text.stdout).contains(said));
}

#[test]
fn rules_json_output_given_as_a_rules_file_is_refused_naming_the_template() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let out = laurel(dir.path())
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    let file = dir.path().join("listing.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let out = laurel(dir.path())
        .args(["replay", "--rules", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("as `laurel rules --template` prints"),
        "{}",
        stderr(&out)
    );
}

/// Before `laurel init`, `rules` lists the defaults (what an empty ledger
/// has in force), saying there is no ledger yet; it creates nothing.
#[test]
fn rules_without_a_ledger_lists_the_defaults_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none");
    let rules = |format: &str| {
        let args = ["rules", "--format", format];
        let out = laurel(&none).args(args).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = rules("table");
    let first = format!(
        "no ledger at {} yet: every parameter at its default, in force until a rule change sets it\n",
        none.join("laurel.db").display()
    );
    assert!(text.starts_with(&first), "{text}");
    let v: serde_json::Value = serde_json::from_str(&rules("json")).unwrap();
    let listed = json(
        common::empty_ledger().path(),
        &["rules", "--format", "json"],
    );
    assert_eq!(v["rows"], listed["rows"]);
    assert!(!none.join("laurel.db").exists());
}

/// A formula names the rules given that it reads: under a Valar rule
/// change, a Valar change says `[rules given: valar.base=60]` and a Maia
/// change of the same game says nothing of it.
#[test]
fn a_formula_names_the_rules_given_of_its_own_table_only() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let rule = r#"{"type":"ledger.rules_changed","at":"2002-09-02","system":"valar","params":{"base":60}}"#;
    assert!(append_text(dir.path(), rule).status.success());
    let v = json(dir.path(), &["history", "Alan Birch", "--format", "json"]);
    let rows = v["rows"].as_array().expect("rows");
    let formulas = |table: &str| -> Vec<String> {
        (rows.iter())
            .filter(|r| r["system"] == table && r["at"].as_str() > Some("2002-09-02"))
            .map(|r| r["formula"].as_str().unwrap().to_string())
            .collect()
    };
    let (valar, maia) = (formulas("valar"), formulas("maia"));
    assert!(!valar.is_empty() && !maia.is_empty(), "{v}");
    let given = " [rules given: valar.base=60]";
    assert!(valar.iter().all(|f| f.ends_with(given)), "{valar:?}");
    assert!(maia.iter().all(|f| !f.contains("rules given")), "{maia:?}");
}

/// A rules file without end (a device, a pipe that never closes) is not
/// read into memory whole: past 1 MiB it is refused, exit 2.
#[test]
fn a_rules_file_without_end_is_refused_past_one_mebibyte() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    for command in [
        &["replay", "--rules"][..],
        &["standings", "valar", "--rules"],
    ] {
        let out = laurel(dir.path())
            .args(command)
            .arg("/dev/zero")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("--rules /dev/zero: longer than 1048576 bytes"),
            "{}",
            stderr(&out)
        );
    }
}
