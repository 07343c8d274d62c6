//! `laurel restore FILE`: a new ledger rebuilt from an export, record for
//! record, or refused with nothing written.

use crate::common;

use std::path::Path;

use common::{append_ok, append_refused, empty_ledger, events_dir, head, laurel, ok};
use serde_json::Value;

/// A ledger of several appends: every bundled file in turn, a void, a
/// registration and a rule change (the tour's).
fn many_appends() -> tempfile::TempDir {
    let dir = empty_ledger();
    let mut files: Vec<_> = std::fs::read_dir(events_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        laurel(dir.path()).arg("append").arg(f).assert().success();
    }
    ok(dir.path(), &["void", "5", "--reason", "entered twice"]);
    ok(
        dir.path(),
        &["players", "add", "Zed Quill", "--at", "2010-01-01"],
    );
    dir
}

/// A ledger of [`many_appends`] and its export, `export.jsonl` beside it.
fn exported() -> (tempfile::TempDir, std::path::PathBuf) {
    let first = many_appends();
    let file = first.path().join("export.jsonl");
    std::fs::write(&file, export_of(first.path())).unwrap();
    (first, file)
}

/// `laurel restore FILE` into the ledger of `dir`.
fn restore(dir: &Path, file: &Path) -> std::process::Output {
    laurel(dir).arg("restore").arg(file).output().unwrap()
}

fn export_of(dir: &Path) -> String {
    ok(dir, &["export"])
}

/// The lines of `export`, hashed again from the first changed one on as an
/// outside tool would (serde_json's map is sorted and compact: canonical
/// JSON here), so that only what laurel checks beyond the hashes can refuse them.
fn rechained(export: &str, change: &dyn Fn(usize, &mut Value)) -> String {
    let mut prev = "0".repeat(64);
    let mut out = String::new();
    for (i, line) in export.lines().enumerate() {
        let mut rec: Value = serde_json::from_str(line).unwrap();
        rec.as_object_mut().unwrap().remove("hash");
        rec["prev"] = Value::String(prev.clone());
        change(i + 1, &mut rec);
        let hash = blake3::hash(serde_json::to_string(&rec).unwrap().as_bytes());
        prev = hash.to_hex().to_string();
        rec["hash"] = Value::String(prev.clone());
        out.push_str(&serde_json::to_string(&rec).unwrap());
        out.push('\n');
    }
    out
}

/// Restoring `text` into a new ledger fails with exit 2 and every needle,
/// leaving neither the ledger nor its work directory.
fn refused(text: &str, needles: &[&str]) {
    refused_with(2, text, needles);
}

/// [`refused`] of an export whose chain breaks: exit 1, as `verify` of it.
fn broken(text: &str, needles: &[&str]) {
    refused_with(1, text, needles);
}

/// `text` restored as export.jsonl: exit `code`, stderr holding each of
/// `needles`, nothing left in the directory but the export.
fn refused_with(code: i32, text: &str, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, text).unwrap();
    let out = restore(dir.path(), &file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} lacks {n:?}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec!["export.jsonl"],
        "a refused restore wrote {left:?}"
    );
}

#[test]
fn restore_gives_back_every_record_its_time_recorded_and_the_head() {
    let first = many_appends();
    let export = export_of(first.path());
    let file = first.path().join("export.jsonl");
    std::fs::write(&file, &export).unwrap();
    let again = tempfile::tempdir().unwrap();
    let out = restore(again.path(), &file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    let (seq, hash) = head(first.path());
    assert!(said.contains(&format!("head {seq} {hash}")), "{said}");
    assert!(said.contains("20 append(s)"), "{said}");
    assert_eq!(head(again.path()), (seq, hash));
    assert_eq!(export_of(again.path()), export, "byte for byte");
    laurel(again.path()).arg("verify").assert().success();
    for args in [
        &["log"][..],
        &["players"],
        &["history", "Ana"],
        &["standings", "valar"],
    ] {
        assert_eq!(ok(again.path(), args), ok(first.path(), args), "{args:?}");
    }
    // A known-at time cuts the restored ledger where it cut the first: its
    // appends kept their times.
    let second_append = export.lines().nth(5).unwrap();
    let at: Value = serde_json::from_str(second_append).unwrap();
    let at = at["recorded_at"].as_str().unwrap();
    let args = ["standings", "cards", "--known-at", at];
    assert_eq!(ok(again.path(), &args), ok(first.path(), &args));
    // The restored ledger takes appends as any other.
    append_ok(
        again.path(),
        r#"{"type":"mepbm.monthly_tick","at":"2020-02-01","month":"2020-01"}"#,
    );
}

#[test]
fn restore_of_an_empty_export_is_an_empty_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, "").unwrap();
    let out = restore(dir.path(), &file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(head(dir.path()).0, 0);
}

/// The names in directory `d`.
fn entries(d: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn restore_refuses_an_existing_ledger_a_file_and_a_directory_not_empty() {
    let (first, file) = exported();
    let before = head(first.path());
    let out = restore(first.path(), &file);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    assert_eq!(head(first.path()), before);
    let other = tempfile::tempdir().unwrap();
    let ledger = other.path().join("laurel.db");
    std::fs::write(&ledger, "x").unwrap();
    let out = restore(other.path(), &file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("is a file: `laurel restore` makes a ledger in a new or empty directory"),
        "{err}"
    );
    std::fs::remove_file(&ledger).unwrap();
    std::fs::create_dir(&ledger).unwrap();
    std::fs::write(ledger.join("notes.txt"), "x").unwrap();
    let out = restore(other.path(), &file);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not empty"));
    assert_eq!(
        entries(other.path()),
        ["laurel.db"],
        "nothing built beside it"
    );
    assert_eq!(entries(&ledger), ["notes.txt"]);
}

/// An empty directory (its permissions kept), one holding only the lock a
/// killed `init` left, and a symbolic link to an empty directory (the link
/// stays, the ledger goes where it leads) take a restore, as they take an
/// `init`. A build directory a killed restore left goes; a live one's stays.
#[cfg(unix)]
#[test]
fn restore_takes_the_places_init_takes_and_clears_what_a_killed_one_left() {
    use std::os::unix::fs::PermissionsExt;
    let (first, file) = exported();
    let before = head(first.path());
    let other = tempfile::tempdir().unwrap();
    let ledger = other.path().join("laurel.db");
    std::fs::create_dir(&ledger).unwrap();
    std::fs::set_permissions(&ledger, std::fs::Permissions::from_mode(0o700)).unwrap();
    let dead = other.path().join(".laurel.db.building-4000000");
    let live = other
        .path()
        .join(format!(".laurel.db.building-{}", std::process::id()));
    for d in [&dead, &live] {
        std::fs::create_dir(d).unwrap();
    }
    assert!(restore(other.path(), &file).status.success());
    assert_eq!(head(other.path()), before);
    let mode = std::fs::metadata(&ledger).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    assert!(!dead.exists() && live.exists());

    let locked = tempfile::tempdir().unwrap();
    std::fs::create_dir(locked.path().join("laurel.db")).unwrap();
    std::fs::write(locked.path().join("laurel.db/laurel.lock"), "").unwrap();
    assert!(restore(locked.path(), &file).status.success());
    assert_eq!(head(locked.path()), before);

    let linked = tempfile::tempdir().unwrap();
    let target = linked.path().join("real");
    std::fs::create_dir(&target).unwrap();
    std::os::unix::fs::symlink(&target, linked.path().join("laurel.db")).unwrap();
    assert!(restore(linked.path(), &file).status.success());
    assert!(std::fs::symlink_metadata(linked.path().join("laurel.db"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(target.join("HEAD").exists());
    assert_eq!(head(linked.path()), before);
}

/// A changed or missing record breaks the chain: exit 1, as `verify` of it;
/// a line that is no export's is bad input: exit 2.
#[test]
fn restore_refuses_a_changed_missing_or_foreign_line_naming_it() {
    let export = export_of(many_appends().path());
    let changed = export.replacen("\"Ana\"", "\"Anna\"", 1);
    let line = export.lines().position(|l| l.contains("\"Ana\"")).unwrap() + 1;
    let at =
        format!("export.jsonl:{line}: record {line}: its hash is not the hash of its contents");
    broken(&changed, &[&at]);
    let missing: Vec<&str> = export
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 2)
        .map(|(_, l)| l)
        .collect();
    broken(
        &(missing.join("\n") + "\n"),
        &["export.jsonl:3: record 4 where record 3 comes"],
    );
    let events = std::fs::read_to_string(events_dir().join("cards_league.jsonl")).unwrap();
    refused(&events, &["export.jsonl:1: not a line of `laurel export`"]);
    // Cut mid-record, as an interrupted copy leaves it: cut short, exit 1,
    // with a line end after or not; a file of one broken line is no export.
    let n = export.lines().count();
    broken(
        &format!("{}\n", &export[..export.len() - 20]),
        &[&format!(
            "export.jsonl:{n}: the export ends inside record {n}"
        )],
    );
    refused("{", &["export.jsonl:1: not a line of `laurel export`"]);
    // A hash in capitals is the same number, but not the line an export
    // writes nor one an outside verifier hashing the line would accept.
    let first: Value = serde_json::from_str(export.lines().next().unwrap()).unwrap();
    let hash = first["hash"].as_str().unwrap();
    let upper = export.replacen(hash, &hash.to_uppercase(), 1);
    refused(
        &upper,
        &[
            "export.jsonl:1: ",
            "hash is \"",
            "not 64 lowercase hex digits",
        ],
    );
    broken(
        &export[..export.len() - 20],
        &[&format!(
            "export.jsonl:{n}: the export ends inside record {n}: an export cut short?"
        )],
    );
}

#[test]
fn restore_refuses_a_rechained_export_whose_chain_laurel_would_not_make() {
    let export = export_of(many_appends().path());
    let n = export.lines().count();
    // Times recorded out of order, or not in laurel's form.
    let early = rechained(&export, &|i, r| {
        if i == n {
            r["recorded_at"] = "2001-01-01T00:00:00.000000Z".into();
        }
    });
    refused(&early, &[&format!("export.jsonl:{n}, seq {n}: recorded_at 2001-01-01T00:00:00.000000Z is before the line above's")]);
    let loose = rechained(&export, &|i, r| {
        if i == 1 {
            r["recorded_at"] = "2001-01-01T00:00:00Z".into();
        }
    });
    refused(
        &loose,
        &["export.jsonl:1, seq 1: recorded_at \"2001-01-01T00:00:00Z\" is not in laurel's form"],
    );
    // An event today's rules refuse, in a later append: refused as an
    // append refuses it, at the export's line.
    // The last of the last file's (the void and the registration follow).
    let line = n - 2;
    let bad = rechained(&export, &|i, r| {
        if i == line {
            r["event"]["at"] = "not a date".into();
        }
    });
    refused(
        &bad,
        &[
            &format!("export.jsonl:{line}, "),
            "\"not a date\" is not a date",
            "(the export has it recorded at 20",
            "so the export was edited, or written by a release that reads its events otherwise",
        ],
    );
    // An event hashed in another form than its canonical one (keys out of
    // order): refused at its line.
    let first: Value = serde_json::from_str(export.lines().next().unwrap()).unwrap();
    let event = first["event"].as_object().unwrap();
    let fields: Vec<String> = (event.iter().rev())
        .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
        .collect();
    let event = format!("{{{}}}", fields.join(","));
    let (prev, at) = ("0".repeat(64), first["recorded_at"].as_str().unwrap());
    let record = format!(r#"{{"event":{event},"prev":"{prev}","recorded_at":"{at}","seq":1}}"#);
    let hash = blake3::hash(record.as_bytes()).to_hex();
    let line = format!(
        r#"{{"event":{event},"hash":"{hash}","prev":"{prev}","recorded_at":"{at}","seq":1}}"#
    );
    broken(
        &line,
        &["export.jsonl:1: record 1: its hash is not the hash of its contents"],
    );
    // The hash is of the event's canonical form, whatever form the line
    // writes it in (the outside verifier's rule): one with a space restores.
    let spaced = export.replace("{\"event\":{", "{\"event\": { ");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, &spaced).unwrap();
    let out = restore(dir.path(), &file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(export_of(dir.path()), export);
}

/// The rules of input judge new input, not an export's records, which were
/// accepted once: a name written near a known one (refused today as a
/// likely typo, as a release before that rule accepted it) restores, and
/// the restored ledger still refuses such a name as new input.
#[test]
fn restore_takes_records_only_todays_rules_of_input_refuse() {
    let first = empty_ledger();
    let games = std::fs::read_to_string(events_dir().join("diplomacy_draws.jsonl")).unwrap();
    append_ok(first.path(), &games);
    // The second game's Dmitri Volkov, written one letter off.
    let near = rechained(&export_of(first.path()), &|i, r| {
        if i == 2 {
            let line = r["event"]
                .to_string()
                .replace("Dmitri Volkov", "Dmitri Volkow");
            r["event"] = serde_json::from_str(&line).unwrap();
        }
    });
    assert!(near.contains("Dmitri Volkow"));
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("export.jsonl");
    std::fs::write(&export, &near).unwrap();
    let place = dir.path().join("ledger");
    let out = laurel(&place).arg("restore").arg(&export).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(export_of(&place), near);
    let players = ok(&place, &["players"]);
    assert!(players.contains("Dmitri Volkow"), "{players}");
    // As new input, such a spelling is refused naming the known player.
    let third = (games.lines().nth(1).unwrap())
        .replace("2024-r2", "2024-r3")
        .replace("2024-03-10", "2024-03-11")
        .replace("Dmitri Volkov", "Dmitri Volkof");
    append_refused(&place, &third, &["Dmitri Volkof", "Dmitri Volkov"]);
}

/// Messages name the export's lines, those an append writes in its text
/// too; a time recorded after now is refused (every later append would be
/// recorded at it); blank lines are skipped and counted.
#[test]
fn restore_names_the_exports_lines_refuses_a_future_time_and_skips_blank_lines() {
    let export = export_of(many_appends().path());
    let n = export.lines().count();
    // The last file's last two records: one append; the second given the
    // first's id.
    let (a, b) = (n - 3, n - 2);
    let first_id = {
        let v: Value = serde_json::from_str(export.lines().nth(a - 1).unwrap()).unwrap();
        v["event"]["id"].as_str().unwrap().to_string()
    };
    let twice = rechained(&export, &|i, r| {
        if i == b {
            r["event"]["id"] = first_id.clone().into();
        }
    });
    refused(&twice, &[&format!("export.jsonl:{b}, "), "(first at "]);
    let said = {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("export.jsonl");
        std::fs::write(&file, &twice).unwrap();
        String::from_utf8_lossy(&restore(dir.path(), &file).stderr).into_owned()
    };
    assert!(said.contains(&format!("export.jsonl:{a})")), "{said}");
    let future = rechained(&export, &|i, r| {
        if i == n {
            r["recorded_at"] = "2999-01-01T00:00:00.000000Z".into();
        }
    });
    refused(
        &future,
        &[&format!(
            "export.jsonl:{n}, seq {n}: recorded_at 2999-01-01T00:00:00.000000Z is after now"
        )],
    );
    // Blank lines, one inside an append and one at the end, and an error
    // after them at its own line.
    let mut lines: Vec<&str> = export.lines().collect();
    lines.insert(b - 1, "");
    let blank = lines.join("\n") + "\n\n";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, &blank).unwrap();
    assert!(restore(dir.path(), &file).status.success());
    assert_eq!(export_of(dir.path()), export);
    let mut lines: Vec<String> = twice.lines().map(str::to_string).collect();
    lines.insert(b - 1, String::new());
    refused(
        &(lines.join("\n") + "\n"),
        &[&format!("export.jsonl:{}, ", b + 1)],
    );
}

/// A file that is no export of a ledger is refused as `append` refuses it,
/// or saying what restore needs.
#[test]
fn restore_refuses_a_bom_stdin_and_a_directory_saying_what_it_needs() {
    let export = export_of(many_appends().path());
    refused(
        &format!("\u{feff}{export}"),
        &["export.jsonl:1: invalid JSON: the input starts with a UTF-8 byte-order mark"],
    );
    let dir = tempfile::tempdir().unwrap();
    for (file, said) in [
        ("-", "is stdin: restore reads its file twice"),
        (".", "is a directory"),
        ("/dev/null", "is not a regular file"),
    ] {
        let out = laurel(dir.path())
            .arg("restore")
            .arg(file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(said),
            "{file}"
        );
    }
    assert!(entries(dir.path()).is_empty());
}

/// `--expect HEAD`: an export that holds the published head (the last
/// record, or an earlier one) restores; one cut short or of another ledger
/// is refused, exit 1 as `verify --expect`, with nothing built.
#[test]
fn restore_expect_refuses_an_export_without_the_published_head() {
    let first = many_appends();
    let export = export_of(first.path());
    let (seq, hash) = head(first.path());
    let published = format!("{seq} {hash}");
    let record_10: Value = serde_json::from_str(export.lines().nth(9).unwrap()).unwrap();
    let earlier = format!("10:{}", record_10["hash"].as_str().unwrap());
    let cut: String = export.lines().take(100).map(|l| format!("{l}\n")).collect();
    let other = format!("{seq}:{}", "0".repeat(64));
    let genesis = format!("0:{}", "0".repeat(64));
    for (text, expect, said) in [
        (&export, &genesis, None),
        (&export, &published, None),
        (&export, &earlier, None),
        (
            &cut,
            &published,
            Some(format!(
                "the export ends at record 100: the published head {seq} is not in it"
            )),
        ),
        (
            &export,
            &other,
            Some(format!(
                "the export's record {seq} has hash {hash}, not the published"
            )),
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("export.jsonl");
        std::fs::write(&file, text).unwrap();
        let out = laurel(dir.path())
            .args(["restore", "--expect", expect])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        match said {
            None => {
                assert!(out.status.success(), "{expect}: {err}");
                assert_eq!(head(dir.path()), (seq, hash.clone()));
            }
            Some(said) => {
                assert_eq!(out.status.code(), Some(1), "{expect}: {err}");
                assert!(err.contains(&said), "{err}");
                assert_eq!(entries(dir.path()), ["export.jsonl"]);
            }
        }
    }
}
