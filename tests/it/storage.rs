//! What the ledger's files promise an operator: a damaged byte in a stored
//! chunk makes every command that reads it fail naming the seq, never print a
//! table built from it; an append makes durable exactly the files laurel
//! writes, whatever else sits in the ledger's directory.

use crate::common;

use common::{append_text, db_path, empty_ledger, head, laurel};

/// Seeded Valar ratings of 1450 for `n` players.
fn seeds(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                r#"{{"type":"mepbm.rating_seeded","at":"2003-01-01","player":"Player {i:02}","system":"valar","value":1450}}"#
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ledger's only segment file.
fn segment(dir: &std::path::Path) -> std::path::PathBuf {
    let mut files: Vec<_> = std::fs::read_dir(db_path(dir).join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.pop().unwrap()
}

#[test]
fn a_changed_digit_in_a_segment_makes_every_reader_exit_1_naming_the_seq() {
    let dir = empty_ledger();
    let out = append_text(dir.path(), &seeds(24));
    assert!(out.status.success());
    let before = laurel(dir.path())
        .args(["standings", "valar"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&before.stdout).contains("1450"));
    // The first "1450" of a chunk is an LZ4 literal: the digit as written.
    let (seq, hash) = head(dir.path());
    let file = segment(dir.path());
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.windows(4).position(|w| w == b"1450").unwrap();
    bytes[at] = b'9';
    std::fs::write(&file, bytes).unwrap();
    for args in [
        &["standings", "valar"][..],
        &["history", "Player 00"],
        &["export"],
        &["verify"],
        &["head"],
    ] {
        let out = laurel(dir.path()).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("chunk starting at seq 1: packed value is damaged"),
            "{args:?}: {stderr}"
        );
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("9450"),
            "{args:?}"
        );
    }
    // The head's record is in that chunk: verify says it went unchecked.
    let out = laurel(dir.path()).arg("verify").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "seq {seq}: head {seq} {hash} not checked: its record is in the chunk from seq 1, \
             which could not be read"
        )),
        "{stderr}"
    );
}

/// A ledger directory holding what an operator's tools might leave in it:
/// a symlink to `/proc/self`, a symlink loop, a fifo and an unreadable
/// directory.
fn clutter(ledger: &std::path::Path) {
    std::os::unix::fs::symlink("/proc/self", ledger.join("proc")).unwrap();
    std::os::unix::fs::symlink(".", ledger.join("loop")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(ledger.join("fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let locked = ledger.join("lost+found");
    std::fs::create_dir(&locked).unwrap();
    std::fs::write(locked.join("x"), b"x").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
}

#[test]
fn an_append_ignores_entries_of_the_ledger_directory_it_did_not_write() {
    let dir = empty_ledger();
    clutter(&db_path(dir.path()));
    let out = append_text(dir.path(), &seeds(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(head(dir.path()).0, 3);
    let void = laurel(dir.path())
        .args(["void", "2", "--reason", "typo"])
        .output()
        .unwrap();
    assert!(
        void.status.success(),
        "{}",
        String::from_utf8_lossy(&void.stderr)
    );
    assert_eq!(head(dir.path()).0, 4);
    laurel(dir.path()).arg("verify").assert().success();
    // The clutter is left as it was.
    let fifo = std::fs::symlink_metadata(db_path(dir.path()).join("fifo")).unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&fifo.file_type()));
}

#[test]
fn a_damaged_sled_file_is_named_with_what_to_do() {
    let dir = empty_ledger();
    assert!(append_text(dir.path(), &seeds(3)).status.success());
    let ledger = db_path(dir.path());
    let snap = std::fs::read_dir(&ledger)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("snap."))
        .expect("sled wrote a snapshot");
    for name in ["conf", snap.as_str()] {
        let work = tempfile::tempdir().unwrap();
        let copy = db_path(work.path());
        let cp = std::process::Command::new("cp")
            .arg("-a")
            .arg(&ledger)
            .arg(&copy)
            .status()
            .unwrap();
        assert!(cp.success());
        let file = copy.join(name);
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[10] ^= 0x5a;
        std::fs::write(&file, bytes).unwrap();
        // Readers never open sled: only a writer meets the damage.
        laurel(work.path()).arg("head").assert().success();
        let out = append_text(work.path(), &seeds(4));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "sled's file {} fails its checksum",
                file.display()
            )),
            "{name}: {stderr}"
        );
        assert!(
            stderr.contains("restore its directory from a backup"),
            "{stderr}"
        );
        assert!(!stderr.contains("offset None"), "{stderr}");
    }
}

/// sled's files put back from an older copy (the chain, `HEAD` and the
/// segments newer): `verify` says so, naming both heads, as the next
/// append's open refuses the directory; files that read are not judged.
#[test]
fn sled_files_put_back_from_an_older_copy_fail_verify_naming_both_heads() {
    let dir = empty_ledger();
    let d = db_path(dir.path());
    assert!(append_text(dir.path(), &seeds(3)).status.success());
    let sled_files = |at: &std::path::Path| -> Vec<std::path::PathBuf> {
        (std::fs::read_dir(at).unwrap().map(|e| e.unwrap().path()))
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy().to_string();
                n == "db" || n == "conf" || n.starts_with("snap.")
            })
            .collect()
    };
    let old = tempfile::tempdir().unwrap();
    for f in sled_files(&d) {
        std::fs::copy(&f, old.path().join(f.file_name().unwrap())).unwrap();
    }
    let tick = r#"{"type":"mepbm.monthly_tick","at":"2003-02-01","month":"2003-01"}"#;
    assert!(append_text(dir.path(), tick).status.success());
    laurel(dir.path()).arg("verify").assert().success();
    for f in sled_files(&d) {
        std::fs::remove_file(f).unwrap();
    }
    for f in sled_files(old.path()) {
        std::fs::copy(&f, d.join(f.file_name().unwrap())).unwrap();
    }
    let out = laurel(dir.path()).arg("verify").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for want in [
        "the chain verifies (4 record(s)",
        "says 4 ",
        "while sled's files say the head is 3 ",
        "the next append refuses the directory",
    ] {
        assert!(stderr.contains(want), "{want}: {stderr}");
    }
    // Without `conf` (which an append's open does without), the same.
    std::fs::remove_file(d.join("conf")).unwrap();
    let out = laurel(dir.path()).arg("verify").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("while sled's files say the head is 3 "),
        "{stderr}"
    );
    let out = append_text(dir.path(), &seeds(5));
    assert_eq!(out.status.code(), Some(1));
}

/// Run `script` with `sh` in a new mount namespace, after mounting a 16 MiB
/// tmpfs on `$1` and making the ledger `$D` there (`$L`, the laurel binary,
/// appended the Valar sample stream `$4` to it; `$3` is a generated stream
/// of 3,000 events): its output, or `None` (after saying why) where this
/// machine does not allow the mount.
fn in_a_small_file_system(script: &str) -> Option<String> {
    let script = format!(
        r#"
        mount -t tmpfs -o size=16m tmpfs "$1" 2>/dev/null || exit 77
        L="$2"; D="$1/l"
        "$L" --ledger "$D" init >/dev/null && "$L" --ledger "$D" append "$4" >/dev/null || exit 1
        {script}"#
    );
    let work = tempfile::tempdir().unwrap();
    let mnt = work.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let stream = work.path().join("gen.jsonl");
    std::fs::write(&stream, common::gen(3000, 3)).unwrap();
    let out = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", &script, "sh"])
        .arg(&mnt)
        .arg(assert_cmd::cargo::cargo_bin("laurel"))
        .arg(&stream)
        .arg(common::events_dir().join("mepbm_valar.jsonl"))
        .output();
    match out {
        Ok(out) if out.status.code() != Some(77) => {
            Some(String::from_utf8_lossy(&out.stdout).into_owned())
        }
        _ => {
            common::skip("no mount namespace with a tmpfs on this machine");
            None
        }
    }
}

#[test]
fn on_a_full_disk_readers_work_and_a_failed_append_gives_back_what_it_wrote() {
    // More free space each time, from 256 KiB in 16 KiB steps, until the append fits: it
    // fails at every step of its way, from its first segment write to sled's.
    let script = r#"
        own() { du -sk "$D/segments" "$D/checkpoints" | awk '{s += $1} END {print s}'; }
        own=$(own); all=$(du -sk "$D" | cut -f1)
        head=$("$L" --ledger "$D" head)
        dd if=/dev/zero of="$1/filler" bs=64k 2>/dev/null
        for c in head verify export "standings valar"; do
            "$L" --ledger "$D" $c >/dev/null 2>&1; echo "read=$? $c"
        done
        "$L" --ledger "$D" history "Bea Carr" >/dev/null 2>&1; echo "read=$? history"
        [ "$("$L" --ledger "$D" head)" = "$head" ] && echo "same_head=yes"
        rm "$1/filler"
        free=256
        while [ $free -lt 4096 ]; do
            avail=$(df -k --output=avail "$1" | tail -1)
            dd if=/dev/zero of="$1/filler" bs=1k count=$((avail - free)) 2>/dev/null
            "$L" --ledger "$D" append "$3" >/dev/null 2>"$1/../err"; code=$?
            rm "$1/filler"
            [ $code = 0 ] && break
            echo "full=$code $(own) $own $(du -sk "$D" | cut -f1) $all $(cat "$1/../err")"
            free=$((free + 16))
        done
        echo "fits=$free"
        "$L" --ledger "$D" verify >/dev/null; echo "verify=$?"
    "#;
    let Some(out) = in_a_small_file_system(script) else {
        return;
    };
    let fulls: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("full="))
        .collect();
    assert!(fulls.len() > 5, "{out}");
    for line in &fulls {
        let f: Vec<&str> = line.splitn(6, ' ').collect();
        let kib = |i: usize| f[i].parse::<u64>().unwrap();
        assert_eq!(f[0], "2", "{line}\n{out}");
        assert!(f[5].contains("No space left on device"), "{line}");
        assert!(
            f[5].contains("/l/") || f[5].contains("/l:"),
            "the path: {line}"
        );
        // laurel's own files are as they were; sled's log may have grown by
        // one of its 512 KiB segments, which later writes reuse.
        assert_eq!(
            kib(1),
            kib(2),
            "segments and checkpoints given back: {line}"
        );
        assert!(kib(3) <= kib(4) + 512 + 64, "{line}\n{out}");
    }
    assert!(out.contains("fits="), "{out}");
    assert!(out.contains("verify=0"), "{out}");
    // Reading commands work on the full disk: they write nothing.
    let reads: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("read="))
        .collect();
    assert_eq!(reads.len(), 5, "{out}");
    for r in reads {
        assert!(r.starts_with("0 "), "{r} on a full disk\n{out}");
    }
    assert!(out.contains("same_head=yes"), "{out}");
}

#[test]
fn on_a_read_only_mount_every_reading_command_answers() {
    let script = r#"
        before=$("$L" --ledger "$D" standings valar)
        head=$("$L" --ledger "$D" head)
        mount -o remount,ro "$1" || exit 77
        for c in head verify export log "standings valar" rules; do
            "$L" --ledger "$D" $c >/dev/null 2>"$1/../err"; echo "read=$? $c $(cat "$1/../err")"
        done
        [ "$("$L" --ledger "$D" standings valar)" = "$before" ] && echo "same_table=yes"
        [ "$("$L" --ledger "$D" head)" = "$head" ] && echo "same_head=yes"
        "$L" --ledger "$D" append "$4" >/dev/null 2>"$1/../err"; echo "write=$? $(cat "$1/../err")"
    "#;
    let Some(out) = in_a_small_file_system(script) else {
        return;
    };
    let reads: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("read="))
        .collect();
    assert_eq!(reads.len(), 6, "{out}");
    for r in reads {
        assert!(r.starts_with("0 "), "{r} on a read-only mount\n{out}");
    }
    assert!(
        out.contains("same_table=yes") && out.contains("same_head=yes"),
        "{out}"
    );
    let write = out.lines().find_map(|l| l.strip_prefix("write=")).unwrap();
    assert!(write.starts_with("2 "), "a writer is refused: {out}");
    assert!(write.contains("Read-only file system"), "{out}");
}

/// A published view put back from an older copy, one append behind or more,
/// is refused: setting sled back would drop acknowledged appends. (An append
/// killed before its publication, never acknowledged, is set back: crash.rs.)
/// `verify` finds it too: from two appends behind, by a segment past the
/// one after the head; one append behind (whose segment past the head is
/// also what a killed append leaves), by sled's published mark, read from a
/// copy of sled's files.
#[test]
fn a_writer_refuses_a_published_view_older_than_its_appends_and_verify_names_it() {
    let dir = empty_ledger();
    let ledger = db_path(dir.path());
    let view = || -> Vec<(String, Vec<u8>)> {
        ["HEAD", "index", "fps"]
            .iter()
            .map(|f| (f.to_string(), std::fs::read(ledger.join(f)).unwrap()))
            .collect()
    };
    assert!(append_text(dir.path(), &seeds(3)).status.success());
    let three = view();
    let tick = |m: u32| {
        format!(
            r#"{{"type":"mepbm.monthly_tick","at":"2003-{:02}-02","month":"2003-{m:02}"}}"#,
            m + 1
        )
    };
    assert!(append_text(dir.path(), &tick(1)).status.success());
    let four = view();
    assert!(append_text(dir.path(), &tick(2)).status.success());
    let (seq, _) = head(dir.path());
    assert_eq!(seq, 5);
    // The view put back as it was one, then two appends ago, the rest left as it is.
    for (saved, said) in [(four, "HEAD says 4"), (three, "HEAD says 3")] {
        for (f, bytes) in &saved {
            std::fs::write(ledger.join(f), bytes).unwrap();
        }
        let verify = laurel(dir.path()).arg("verify").output().unwrap();
        let stderr = String::from_utf8_lossy(&verify.stderr);
        match said {
            "HEAD says 4" => {
                assert_eq!(verify.status.code(), Some(1), "{stderr}");
                let named = "while sled's files say the head is 5 ";
                assert!(stderr.contains(named), "{stderr}");
                assert!(stderr.contains("(published up to seq 5)"), "{stderr}");
            }
            _ => {
                assert_eq!(verify.status.code(), Some(1), "{stderr}");
                let named = "HEAD says the head is record 3, but 2 appends follow it";
                assert!(stderr.contains(named), "{stderr}");
            }
        }
        let out = append_text(dir.path(), &tick(3));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let want = format!("{said}, but the ledger published seq 5 after it");
        assert!(stderr.contains(&want), "{stderr}");
        // Nothing was dropped.
        assert!(std::fs::read_dir(ledger.join("segments")).unwrap().count() >= 3);
    }
}
