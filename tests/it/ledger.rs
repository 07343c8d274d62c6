//! The ledger core's promises, tested through the built binary.

use crate::common;

use std::io::Write;
use std::process::Command as Std;
use std::time::{Duration, Instant};

use common::{append_text, empty_ledger, head, laurel};
use serde_json::Value;

const TICKS: &str = r#"{"type":"mepbm.monthly_tick","id":"t1","at":"2003-02-01","month":"2003-01"}
{"type":"mepbm.monthly_tick","id":"t2","at":"2003-03-01","month":"2003-02"}
{"type":"ledger.rules_changed","at":"2003-03-02","system":"valar","params":{"base":50}}
{"type":"mepbm.monthly_tick","at":"2003-04-01","month":"2003-03"}
"#;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Recompute every hash of `laurel export` with serde_json and blake3 only, as a
/// short script in any language can, independent of laurel's code.
fn outside_verify(export: &str) -> (u64, String) {
    let mut prev = "0".repeat(64);
    let mut last = (0, String::new());
    for line in export.lines() {
        let mut rec: Value = serde_json::from_str(line).unwrap();
        let stored = rec["hash"].as_str().unwrap().to_string();
        rec.as_object_mut().unwrap().remove("hash");
        assert_eq!(
            rec["prev"],
            Value::String(prev.clone()),
            "prev links the chain"
        );
        // serde_json::Value's map is sorted (no preserve_order) and compact: JCS here.
        let canonical = serde_json::to_string(&rec).unwrap();
        let hash = blake3::hash(canonical.as_bytes()).to_hex().to_string();
        assert_eq!(hash, stored, "hash of {canonical}");
        prev = hash;
        last = (rec["seq"].as_u64().unwrap(), stored);
    }
    last
}

#[test]
fn export_rehashed_from_scratch_arrives_at_head() {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), TICKS).status.success());
    let text =
        r#"{"type":"mepbm.monthly_tick","at":"2003-05-01","month":"2003-04","note_free":null}"#;
    assert!(
        !append_text(dir.path(), text).status.success(),
        "unknown field is refused"
    );
    // Escapes and non-ASCII text must hash the same outside laurel.
    let text = "{\"type\":\"cfr.series_defined\",\"at\":\"2003-05-01\",\"series\":\"Grand Prix é \\u00e9\\/\\\"q\\\" \\\\ \\u20ac\",\"format\":\"points\"}\n";
    assert!(append_text(dir.path(), text).status.success());
    // Control characters are refused (`tests/it/trust.rs`), so the chain holds none.
    let control = text.replace("\\u20ac", "\\n \\u0001");
    assert!(!append_text(dir.path(), &control).status.success());
    let export = stdout(&laurel(dir.path()).arg("export").output().unwrap());
    assert_eq!(export.lines().count(), 5);
    assert_eq!(outside_verify(&export), head(dir.path()));
}

#[test]
fn changed_byte_behind_laurels_back_fails_verify_naming_the_seq() {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), TICKS).status.success());
    laurel(dir.path()).arg("verify").assert().success();
    tamper(&dir.path().join("laurel.db"), |chunk| {
        let at = find(chunk, br#""month":"2003-02""#).expect("month of record 2 stored");
        chunk[at + 15] = b'9'; // "2003-02" -> "2003-09" in record 2's event
    });
    let out = laurel(dir.path()).arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("seq 2: stored hash does not match"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("seq 1:") && !stderr(&out).contains("seq 3:"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn removed_last_record_fails_verify_expect_of_the_old_head() {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), TICKS).status.success());
    let (seq, hash) = head(dir.path());
    let expect = format!("{seq}:{hash}");
    laurel(dir.path())
        .args(["verify", "--expect", &expect])
        .assert()
        .success();
    drop_last_record(&dir.path().join("laurel.db"));
    assert_eq!(head(dir.path()).0, seq - 1);
    // A consistent shorter chain, but sled's files still hold the record
    // cut (the next append's open would refuse the directory)...
    let out = laurel(dir.path()).arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let sled = format!("while sled's files say the head is {seq} ");
    assert!(stderr(&out).contains(&sled), "{}", stderr(&out));
    let out = laurel(dir.path())
        .args(["verify", "--expect", &expect])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1)); // ...but the published head is gone
    let held = seq - 1;
    let want = format!(
        "verification failed: seq {seq}: published head {seq}:{hash} is not in this ledger: \
         it holds {held} record(s): cut back since, or the head is another ledger's"
    );
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));
}

#[test]
fn invalid_third_event_appends_nothing_and_names_file_line_and_rule() {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), TICKS).status.success());
    let before = head(dir.path());
    let file = dir.path().join("bad.jsonl");
    let mut f = std::fs::File::create(&file).unwrap();
    writeln!(
        f,
        r#"{{"type":"mepbm.monthly_tick","at":"2004-02-01","month":"2004-01"}}"#
    )
    .unwrap();
    writeln!(
        f,
        r#"{{"type":"mepbm.monthly_tick","at":"2004-03-01","month":"2004-02"}}"#
    )
    .unwrap();
    writeln!(
        f,
        r#"{{"type":"mepbm.monthly_tick","at":"2004-04-01","month":"2004-03","factor":"0.9"}}"#
    )
    .unwrap();
    drop(f);
    let out = laurel(dir.path())
        .arg("append")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("bad.jsonl:3"), "{err}");
    assert!(err.contains("unknown field `factor`"), "{err}");
    assert_eq!(head(dir.path()), before);
    laurel(dir.path()).arg("verify").assert().success();
}

/// Append `text` to a ledger holding TICKS; it must be refused at `place`
/// (file:line) for the unknown field `factor`, and change nothing.
fn refused_for_factor(text: &str, place: &str) {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), TICKS).status.success());
    let before = head(dir.path());
    let out = append_text(dir.path(), text);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains(place), "{err}");
    assert!(err.contains("unknown field `factor`"), "{err}");
    assert_eq!(head(dir.path()), before);
    laurel(dir.path()).arg("verify").assert().success();
}

const BAD_TICK: &str =
    r#"{"type":"mepbm.monthly_tick","at":"2004-03-01","month":"2004-02","factor":"0.9"}"#;

/// The parser thread leaves payloads to the check fold (`events::deferred`):
/// a bad payload must still be the problem reported when a later line is
/// wrong too, whether the later problem is found while reading or by the fold.
#[test]
fn a_bad_payload_is_reported_before_later_problems_of_either_kind() {
    let good = r#"{"type":"mepbm.monthly_tick","at":"2004-02-01","month":"2004-01"}"#;
    // An earlier `at`, so the fold meets it before the bad payload.
    let void = r#"{"type":"ledger.voided","at":"2003-01-01","target":999,"reason":"r"}"#;
    for third in [
        void,
        r#"{"type":"#,
        r#"{"type":"nope.x","at":"2003-01-01"}"#,
    ] {
        refused_for_factor(&format!("{good}\n{BAD_TICK}\n{third}\n"), ":2");
    }
}

/// The check fold skips voided records, so it does not decode them: the
/// append must, for records voided in the same append.
#[test]
fn a_bad_payload_voided_in_the_same_append_is_refused() {
    let void = r#"{"type":"ledger.voided","at":"2004-04-01","target":5,"reason":"r"}"#;
    refused_for_factor(&format!("{BAD_TICK}\n{void}\n"), ":1");
}

/// Voided records of the same append are decoded in one walk over their
/// chunks: with targets in several chunks, named out of order, the first bad
/// payload in line order is still the one reported. Chunks hold 1,024
/// records, so the bad 3073 is the first record of the fourth chunk, right
/// after the third, which holds the target 2500.
#[test]
fn the_first_of_many_voided_bad_payloads_across_chunks_is_refused() {
    // The seqs below are placed for this chunk size: a change of it must
    // move them (the build fails), not leave the test walking fewer chunk
    // boundaries.
    // (Chunks are cut at 1,024 records: 1,024 ticks of under 200 bytes
    // each stay below the byte bound.)
    const { assert!(laurel::ledger::chunk::MAX_RECORDS == 1024) };
    const { assert!(laurel::ledger::chunk::MAX_BYTES >= 1024 * 200) };
    let tick = |i: u32, extra: &str| {
        // Month i is ticked on the 2nd of month i + 1.
        let (y, m) = (1500 + i / 12, 1 + i % 12);
        let (ny, nm) = (1500 + (i + 1) / 12, 1 + (i + 1) % 12);
        format!(
            r#"{{"type":"mepbm.monthly_tick","at":"{ny}-{nm:02}-02","month":"{y}-{m:02}"{extra}}}"#
        )
    };
    let mut text = String::new();
    for i in 1..=5000 {
        let bad = [3073, 4500].contains(&i);
        text += &tick(i, if bad { r#","factor":"0.9""# } else { "" });
        text.push('\n');
    }
    for target in [4500, 10, 3073, 2500, 2000] {
        text += &format!(
            r#"{{"type":"ledger.voided","at":"2000-01-01","target":{target},"reason":"r"}}"#
        );
        text.push('\n');
    }
    let dir = empty_ledger();
    let out = append_text(dir.path(), &text);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains(":3073"), "{err}");
    assert!(err.contains("unknown field `factor`"), "{err}");
    assert_eq!(head(dir.path()).0, 0);
    let fixed = text.replace(r#","factor":"0.9""#, "");
    assert!(append_text(dir.path(), &fixed).status.success());
    assert_eq!(head(dir.path()).0, 5005);
}

/// A line whose id is recorded with other content is refused for its
/// payload first: though the check fold decodes it, the payload is the
/// line's first problem.
#[test]
fn a_bad_payload_under_a_recorded_id_is_refused_for_the_payload() {
    let clash = BAD_TICK.replace(r#""at""#, r#""id":"t1","at""#);
    refused_for_factor(&clash, ":1");
}

#[test]
fn same_file_twice_adds_nothing_and_same_id_other_content_is_an_error() {
    let dir = empty_ledger();
    let first = append_text(dir.path(), TICKS);
    assert!(
        stdout(&first).contains("appended 4 event(s)"),
        "{}",
        stdout(&first)
    );
    let before = head(dir.path());
    let again = append_text(dir.path(), TICKS);
    assert!(again.status.success());
    assert!(
        stdout(&again).contains("appended 0 event(s); 4 already recorded"),
        "{}",
        stdout(&again)
    );
    assert_eq!(head(dir.path()), before);
    let clash = r#"{"type":"mepbm.monthly_tick","id":"t1","at":"2003-02-01","month":"2003-12"}"#;
    let out = append_text(dir.path(), clash);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "id \"t1\" is already recorded at seq 1 with different content: field month is \
             \"2003-01\" there, \"2003-12\" here (to replace that record"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(head(dir.path()), before);
}

/// The append keeps only 8-byte key fingerprints in memory (src/ledger/idem.rs):
/// a fingerprint shared with a recorded key must be told apart by the record.
/// Forging record 1's stored fingerprint into t9's makes that case happen.
#[test]
fn a_fingerprint_shared_with_a_recorded_key_is_not_taken_for_it() {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), TICKS).status.success());
    let fp = laurel::ledger::idem::fingerprint(&laurel::ledger::chunk::idem_of_id("t9"));
    common::View::load(&dir.path().join("laurel.db")).write_fps(1, &fp.to_le_bytes());
    let t9 = r#"{"type":"mepbm.monthly_tick","id":"t9","at":"2003-05-01","month":"2003-04"}"#;
    for (i, expected) in [
        "appended 1 event(s)",
        "appended 0 event(s); 1 already recorded",
    ]
    .iter()
    .enumerate()
    {
        let out = append_text(dir.path(), t9);
        assert!(
            stdout(&out).contains(expected),
            "append {i}: {}",
            stdout(&out)
        );
    }
    assert_eq!(head(dir.path()).0, 5);
    let clash = t9.replace("2003-04\"", "2003-06\"");
    let out = append_text(dir.path(), &clash);
    assert!(
        stderr(&out).contains("id \"t9\" is already recorded at seq 5 with different content"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_array_input_and_json_floats() {
    let dir = empty_ledger();
    let arr = r#"[{"type":"mepbm.monthly_tick","at":"2003-02-01","month":"2003-01"},
 {"type":"mepbm.monthly_tick","at":"2003-03-01","month":"2003-02"}]"#;
    let out = append_text(dir.path(), arr);
    assert!(stdout(&out).contains("appended 2"), "{}", stderr(&out));
    let pretty = "[\n  {\"type\": \"ledger.player_registered\", \"at\": \"2003-03-01\", \"player\": \"Ann\"},\n  {\n    \"type\": \"ledger.player_registered\",\n    \"at\": \"2003-03-01\",\n    \"player\": 5\n  }\n]\n";
    let out = append_text(dir.path(), pretty);
    assert!(
        stderr(&out).contains(":3, ledger.player_registered: field `player`"),
        "an element over several lines is named by its first: {}",
        stderr(&out)
    );
    for nothing in ["", "\n \r\n", "[]"] {
        let out = append_text(dir.path(), nothing);
        assert!(
            stdout(&out).contains("appended 0 event(s): the input holds no event\n"),
            "{nothing:?}: {}",
            stdout(&out)
        );
    }
    let float = r#"{"type":"ledger.rules_changed","at":"2003-03-02","system":"valar","params":{"base":45.0}}"#;
    let out = append_text(dir.path(), float);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("params.base") && stderr(&out).contains("floating-point"),
        "{}",
        stderr(&out)
    );
}

/// One writer at a time: a second writer gets exit 2 "in use" at once, while
/// readers run beside the writer and see the head before its append.
#[test]
fn a_second_writer_gets_ledger_in_use_within_a_second_and_readers_do_not() {
    let dir = empty_ledger();
    let (writer, stdin) = common::held_append(dir.path(), TICKS);
    for args in [vec!["head"], vec!["append", "-"], vec!["verify"]] {
        let started = Instant::now();
        let out = laurel(dir.path())
            .args(&args)
            .write_stdin("")
            .output()
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{args:?} took {:?}",
            started.elapsed()
        );
        if args[0] == "append" {
            assert_eq!(out.status.code(), Some(2));
            assert!(
                stderr(&out).contains("ledger is in use by another process"),
                "{}",
                stderr(&out)
            );
        } else {
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            assert!(stdout(&out).contains(&format!("0 {}", "0".repeat(64))));
        }
    }
    drop(stdin); // end of input: the first append completes
    let out = writer.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(head(dir.path()).0, 4);
    laurel(dir.path()).arg("verify").assert().success();
}

#[test]
fn demo_runs_from_any_directory() {
    let elsewhere = tempfile::tempdir().unwrap();
    let out = Std::new(assert_cmd::cargo::cargo_bin("laurel"))
        .arg("demo")
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("head "));
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "demo leaves nothing behind"
    );
}

#[test]
fn bundled_list_matches_the_events_folder() {
    let mut on_disk: Vec<String> = std::fs::read_dir(common::events_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl") || n.ends_with(".json"))
        .collect();
    on_disk.sort();
    let bundled: Vec<String> = laurel::demo::BUNDLED
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    assert_eq!(bundled, on_disk);
}

#[test]
fn missing_ledger_and_bad_usage_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = laurel(dir.path()).arg("head").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no ledger at"));
    let dir = empty_ledger();
    let out = laurel(dir.path()).arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("a ledger already exists"));
    // A ledger gets a directory of its own, not one holding other files
    // (here: the directory holding the ledger).
    let out = assert_cmd::Command::cargo_bin("laurel")
        .unwrap()
        .env_remove("LAUREL_LEDGER")
        .args(["--ledger", dir.path().to_str().unwrap(), "init"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(
        said.contains("is not empty: `laurel init` makes a ledger in a new or empty directory"),
        "{said}"
    );
    assert!(!dir.path().join("HEAD").exists());
    let out = laurel(dir.path())
        .args(["verify", "--expect", "zz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = laurel(dir.path())
        .args(["standings", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A file given where the ledger's directory should be (a mistyped
/// `--ledger`) is named as a file, to readers, writers and `rules` alike:
/// not "no ledger yet, run init". Exit 2, and the file is left as it was.
#[test]
fn a_file_given_as_the_ledger_is_named_a_file_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("results.jsonl");
    std::fs::write(&file, TICKS).unwrap();
    for args in [
        &["head"][..],
        &["standings", "valar"],
        &["rules"],
        &["append", "-"],
    ] {
        let out = assert_cmd::Command::cargo_bin("laurel")
            .unwrap()
            .env_remove("LAUREL_LEDGER")
            .arg("--ledger")
            .arg(&file)
            .args(args)
            .write_stdin(TICKS)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = stderr(&out);
        assert!(
            said.contains(&format!(
                "{} is a file, not a ledger: a ledger is the directory `laurel init` made",
                file.display()
            )),
            "{args:?}: {said}"
        );
        assert!(!said.contains("run `laurel init` first"), "{said}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), TICKS);
    // A ledger's own file: its directory is the one to pass; a path under
    // a file names the file.
    let ledger = empty_ledger();
    let ledger = ledger.path().join("laurel.db");
    let own = ledger.join("HEAD");
    let under = file.join("sub");
    for (given, file, pass) in [
        (&own, &own, ledger.display().to_string()),
        (&under, &file, "DIR".to_string()),
    ] {
        let out = assert_cmd::Command::cargo_bin("laurel")
            .unwrap()
            .env_remove("LAUREL_LEDGER")
            .arg("--ledger")
            .arg(given)
            .arg("head")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let said = stderr(&out);
        let want = format!(
            "{} is a file, not a ledger: a ledger is the directory `laurel init` made (pass \
             --ledger {pass})",
            file.display()
        );
        assert!(said.contains(&want), "{said}");
    }
}

// ---- going behind laurel's back, with the byte layout of src/ledger/chunk.rs ----

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The LRC1 bytes of a stored chunk value (unpacked: see src/ledger/chunk.rs).
fn unpacked(v: &[u8]) -> Vec<u8> {
    laurel::ledger::chunk::unpack(v, 0).unwrap()
}

/// Rewrite the (only) chunk of the ledger with `f`, which sees and edits its
/// LRC1 bytes; the result is stored packed, as laurel stores it.
fn tamper(path: &std::path::Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut view = common::View::load(path);
    let mut bytes = unpacked(&view.stored(0));
    f(&mut bytes);
    view.restore(0, &common::packed::pack(&bytes));
    view.save();
}

/// Drop the last record of the only chunk and move the head back to it.
fn drop_last_record(path: &std::path::Path) {
    let mut view = common::View::load(path);
    let bytes = unpacked(&view.stored(0));
    let count = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let ra_len = u16::from_le_bytes(bytes[56..58].try_into().unwrap()) as usize;
    let mut pos = 58 + ra_len;
    let (mut last_hash, mut last_start) = ([0u8; 32], pos);
    let mut prev_hash = [0u8; 32];
    for _ in 0..count {
        last_start = pos;
        prev_hash = last_hash;
        last_hash.copy_from_slice(&bytes[pos..pos + 32]);
        let len = u32::from_le_bytes(bytes[pos + 80..pos + 84].try_into().unwrap()) as usize;
        pos += 84 + len;
    }
    let mut cut = bytes[..last_start].to_vec();
    cut[12..16].copy_from_slice(&((count - 1) as u32).to_le_bytes());
    // A careful forger rewrites the chunk's summary and key fingerprints too.
    let first = view.entries[0].0;
    let c = laurel::ledger::chunk::decode(&cut, first).unwrap();
    view.entries[0].2 = laurel::ledger::summary::Summary::of(&c).encode();
    let fps = laurel::ledger::idem::encode(
        c.records
            .iter()
            .map(|r| laurel::ledger::idem::fingerprint(&r.idem)),
    );
    view.write_fps(first, &fps);
    view.restore(0, &common::packed::pack(&cut));
    view.seq = first + count as u64 - 2;
    view.hash = prev_hash;
    view.save();
}

/// An append decodes its first lines whole as it reads them, before it
/// reads the ledger: a line refused at parse is reported even when the key
/// fingerprints, which the append reads next, are damaged (exit 2, the
/// line's message); a good line then meets the damage (exit 1).
#[test]
fn a_line_refused_at_parse_is_refused_before_the_ledger_is_read() {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), TICKS).status.success());
    let fps = dir.path().join("laurel.db").join("fps");
    let zeroed = vec![0u8; std::fs::read(&fps).unwrap().len()];
    std::fs::write(&fps, zeroed).unwrap();
    let out = append_text(dir.path(), BAD_TICK);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unknown field `factor`"),
        "{}",
        stderr(&out)
    );
    let good = r#"{"type":"mepbm.monthly_tick","at":"2004-02-01","month":"2004-01"}"#;
    let out = append_text(dir.path(), good);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("fingerprints"), "{}", stderr(&out));
}

/// An event is recorded once it has happened: an `at` more than 14 hours
/// after the append's time (a mistyped year) is refused, exit 2, nothing
/// written, in `check` as in `append`; today's date, and one 13 hours
/// ahead, are taken.
#[test]
fn an_event_dated_after_the_time_it_is_recorded_is_refused() {
    let seed = |at: &str, player: &str| {
        format!(
            r#"{{"type":"mepbm.rating_seeded","at":"{at}","player":"{player}","system":"valar","value":1500}}"#
        ) + "\n"
    };
    let now = laurel::time::now();
    let hours = |h: i64| laurel::time::format(now + h * 3_600_000_000);
    let dir = empty_ledger();
    let d = dir.path();
    for (at, name) in [
        (hours(15), "Later Lee"),
        ("2062-11-21".to_string(), "Typo Tom"),
    ] {
        let line = seed(&at, name);
        let file = d.join("ahead.jsonl");
        std::fs::write(&file, &line).unwrap();
        let checked = laurel(d).arg("check").arg(&file).output().unwrap();
        let out = append_text(d, &line);
        for o in [&checked, &out] {
            assert_eq!(o.status.code(), Some(2), "{at}: {}", stderr(o));
            assert!(
                stderr(o).contains("is after the time it is recorded")
                    && stderr(o).contains("(is the year right?)"),
                "{}",
                stderr(o)
            );
        }
        assert_eq!(head(d).0, 0, "{at}: nothing written");
    }
    let today = laurel::time::format_short(now / laurel::time::DAY * laurel::time::DAY);
    let out = append_text(
        d,
        &(seed(&today, "Today Tess") + &seed(&hours(13), "Soon Sam")),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(head(d).0, 2);
}
