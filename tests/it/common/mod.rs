//! Shared helpers for the integration tests: run the built `laurel` binary against
//! temporary ledgers made from files under `events/`.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

pub mod ckpt;
pub mod packed;
pub mod sbr;

/// The repository's `events/` folder.
pub fn events_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("events")
}

/// A `laurel` command on the ledger in `dir`.
pub fn laurel(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("laurel").expect("binary built");
    cmd.env_remove("LAUREL_LEDGER")
        .arg("--ledger")
        .arg(dir.join("laurel.db"));
    cmd
}

/// Run laurel; (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = laurel(dir).args(args).output().expect("ran");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf8");
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

/// A fresh, initialised ledger in a temporary directory.
pub fn empty_ledger() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    laurel(dir.path()).arg("init").assert().success();
    dir
}

/// A ledger holding the given `events/` files, appended one after another.
/// A ledger holding every bundled events/ file, as `laurel import events` makes it.
pub fn bundled() -> tempfile::TempDir {
    let dir = empty_ledger();
    laurel(dir.path())
        .arg("import")
        .arg(events_dir())
        .assert()
        .success();
    dir
}

pub fn ledger_with(files: &[&str]) -> tempfile::TempDir {
    let dir = empty_ledger();
    for f in files {
        laurel(dir.path())
            .arg("append")
            .arg(events_dir().join(f))
            .assert()
            .success();
    }
    dir
}

/// A fresh ledger holding `text` (JSON Lines); panics with laurel's message
/// if the append fails.
pub fn ledger_of(text: &str) -> tempfile::TempDir {
    let dir = empty_ledger();
    append_ok(dir.path(), text);
    dir
}

/// Run laurel with `args` on the ledger in `dir`: its stdout; panics with
/// laurel's message if it fails.
pub fn ok(dir: &Path, args: &[&str]) -> String {
    let out = laurel(dir).args(args).output().expect("ran");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "laurel {args:?} failed: {err}");
    String::from_utf8(out.stdout).expect("utf8")
}

/// Append `text` (JSON Lines); panics with laurel's message if it fails.
pub fn append_ok(dir: &Path, text: &str) {
    let out = append_text(dir, text);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "append failed: {err}");
}

/// Appending `text` fails with exit 2, a message holding every needle, and
/// nothing written (the head unchanged).
pub fn append_refused(dir: &Path, text: &str, needles: &[&str]) {
    let before = head(dir);
    let out = append_text(dir, text);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit 2 for {text}: {err}");
    for n in needles {
        assert!(err.contains(n), "message {err:?} lacks {n:?}");
    }
    assert_eq!(head(dir), before, "head moved after a refused append");
}

/// Append `text` (JSON Lines) through stdin; returns the process output.
pub fn append_text(dir: &Path, text: &str) -> Output {
    laurel(dir)
        .args(["append", "-"])
        .write_stdin(text.to_string())
        .output()
        .expect("ran")
}

/// Run laurel with `args` and parse stdout as JSON; panics on failure.
pub fn json(dir: &Path, args: &[&str]) -> Value {
    let out = laurel(dir).args(args).output().expect("ran");
    assert!(
        out.status.success(),
        "laurel {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// `standings ... --format json` with `head` blanked: record hashes depend on the
/// wall clock at append (`recorded_at`), so snapshots must not contain them.
pub fn standings(dir: &Path, args: &[&str]) -> Value {
    let mut full = vec!["standings"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--format", "json"]);
    let mut v = json(dir, &full);
    v["head"] = Value::String("<head>".into());
    v
}

/// The current head as (seq, hash).
pub fn head(dir: &Path) -> (u64, String) {
    let out = laurel(dir).arg("head").output().expect("ran");
    let text = String::from_utf8(out.stdout).expect("utf8");
    let (seq, hash) = text.trim().split_once(' ').expect("SEQ HASH");
    (seq.parse().expect("seq"), hash.to_string())
}

/// insta settings that keep snapshots in the top-level `snapshots/` folder.
pub fn insta_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(true);
    s
}

/// Find the row whose `player` is `name` in a standings JSON.
pub fn row<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["player"] == name))
        .unwrap_or_else(|| panic!("no row for {name} in {v}"))
}

// ---- shared by the reliability tests (crash, corrupt, corpus, props, streaming) ----

/// The ledger directory inside a test's temporary directory.
pub fn db_path(dir: &Path) -> PathBuf {
    dir.join("laurel.db")
}

/// The stored (packed) bytes of the chunk whose segment pointer is `v`, in
/// the ledger at `db`: read from the segment file `v` points into
/// (`src/ledger/segment.rs`).
pub fn stored_chunk(db: &Path, v: &[u8]) -> Vec<u8> {
    use laurel::ledger::segment;
    let (name, offset, len) = segment::parse(v, 0).unwrap();
    let all = std::fs::read(segment::file_of(db, name)).unwrap();
    all[offset as usize..offset as usize + len].to_vec()
}

/// BLAKE3 of `b`, first 16 bytes: the checksum of `HEAD` and of an index entry.
fn check16(b: &[u8]) -> Vec<u8> {
    blake3::hash(b).as_bytes()[..16].to_vec()
}

/// The published read view of the ledger at `db` (`HEAD`, `index`; layout in
/// src/ledger/published.rs), to edit behind laurel's back and write back
/// with valid checksums, as a careful forger would.
pub struct View {
    pub db: PathBuf,
    /// The format marker `HEAD` starts with.
    pub format: Vec<u8>,
    pub seq: u64,
    pub hash: [u8; 32],
    /// Per chunk: (first seq, segment pointer, summary bytes).
    pub entries: Vec<(u64, Vec<u8>, Vec<u8>)>,
}

impl View {
    pub fn load(db: &Path) -> View {
        let h = std::fs::read(db.join("HEAD")).unwrap();
        let word = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let index_len = word(&h, 55) as usize;
        let index = std::fs::read(db.join("index")).unwrap();
        let (mut entries, mut at) = (Vec::new(), 0);
        while at < index_len {
            let n = u32::from_le_bytes(index[at..at + 4].try_into().unwrap()) as usize;
            let body = &index[at + 4..at + 4 + n];
            entries.push((word(body, 0), body[8..32].to_vec(), body[32..].to_vec()));
            at += 4 + n + 16;
        }
        View {
            db: db.to_path_buf(),
            format: h[..15].to_vec(),
            seq: word(&h, 15),
            hash: h[23..55].try_into().unwrap(),
            entries,
        }
    }

    /// Write `index` (every entry) and `HEAD` back, with the checksum of the
    /// `fps` bytes it commits as they now are.
    pub fn save(&self) {
        let mut index = Vec::new();
        for (first, pointer, summary) in &self.entries {
            let mut e = ((8 + pointer.len() + summary.len()) as u32)
                .to_le_bytes()
                .to_vec();
            e.extend_from_slice(&first.to_le_bytes());
            e.extend_from_slice(pointer);
            e.extend_from_slice(summary);
            let c = check16(&e);
            e.extend_from_slice(&c);
            index.extend_from_slice(&e);
        }
        let mut h = self.format.clone();
        h.extend_from_slice(&self.seq.to_le_bytes());
        h.extend_from_slice(&self.hash);
        h.extend_from_slice(&(index.len() as u64).to_le_bytes());
        let fps = std::fs::read(self.db.join("fps")).unwrap();
        let committed = &fps[..(8 * self.seq as usize).min(fps.len())];
        h.extend_from_slice(&crc32fast::hash(committed).to_le_bytes());
        let c = check16(&h);
        h.extend_from_slice(&c);
        std::fs::write(self.db.join("index"), index).unwrap();
        std::fs::write(self.db.join("HEAD"), h).unwrap();
    }

    /// The stored (packed) bytes of the `i`-th chunk.
    pub fn stored(&self, i: usize) -> Vec<u8> {
        stored_chunk(&self.db, &self.entries[i].1)
    }

    /// Store `bytes` as the `i`-th chunk where laurel stores chunks: at the
    /// end of its segment, its pointer moved there.
    pub fn restore(&mut self, i: usize, bytes: &[u8]) {
        self.entries[i].1 = self.append_to_segment(&self.entries[i].1.clone(), bytes);
    }

    /// Append `bytes` to the segment `pointer` points into; their pointer.
    pub fn append_to_segment(&self, pointer: &[u8], bytes: &[u8]) -> Vec<u8> {
        use laurel::ledger::segment;
        let (name, _, _) = segment::parse(pointer, 0).expect("a pointer");
        let file = segment::file_of(&self.db, name);
        let mut all = std::fs::read(&file).unwrap();
        let end = all.len();
        all.extend_from_slice(bytes);
        std::fs::write(&file, all).unwrap();
        segment::pointer(name, end as u64, bytes.len()).to_vec()
    }

    /// Rewrite the stored key fingerprints from record `first` on.
    /// Write `fps` as the fingerprints from record `first` on, and `HEAD`
    /// with their checksum.
    pub fn write_fps(&self, first: u64, fps: &[u8]) {
        let file = self.db.join("fps");
        let mut all = std::fs::read(&file).unwrap();
        let at = 8 * (first as usize - 1);
        all[at..at + fps.len()].copy_from_slice(fps);
        std::fs::write(file, &all).unwrap();
        self.save();
    }
}

/// A small deterministic RNG (SplitMix64): seeded, so every run kills and damages
/// at the same places.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// `n` valid `mepbm.rating_seeded` events for distinct players `{tag}-{i}`, one JSON
/// object per line, each with an id; values are plausible starting ratings.
pub fn seeded_events(tag: &str, n: usize, rng: &mut Rng) -> Vec<Value> {
    const SYSTEMS: [&str; 4] = ["valar", "maia", "istari", "ainur"];
    (0..n)
        .map(|i| {
            serde_json::json!({
                "type": "mepbm.rating_seeded",
                "id": format!("seed-{tag}-{i}"),
                "at": format!("2003-{:02}-{:02}", 1 + i % 12, 1 + i % 28),
                "player": format!("{tag}-player-{i}"),
                "system": SYSTEMS[i % 4],
                "value": 1200 + rng.below(800) as i64,
            })
        })
        .collect()
}

/// Events as JSON Lines text.
pub fn jsonl(events: &[Value]) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&e.to_string());
        s.push('\n');
    }
    s
}

/// The `event` objects of `laurel export`, in seq order, each as its canonical text.
pub fn exported_events(dir: &Path) -> Vec<String> {
    let out = laurel(dir).arg("export").output().expect("ran");
    assert!(
        out.status.success(),
        "export failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|line| {
            // {"event":E,"hash":"…",…}: E is the event's canonical form, as stored.
            let end = line.rfind(",\"hash\":\"").expect("hash key in export line");
            line["{\"event\":".len()..end].to_string()
        })
        .collect()
}

/// Run `cmd` with `stdin` bytes, killing it (and failing the test) after `limit`.
pub fn output_within(
    mut cmd: std::process::Command,
    stdin: &[u8],
    limit: std::time::Duration,
) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawned");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input); // the child may exit before reading it all
    });
    let (out, err) = (
        drain(child.stdout.take().expect("stdout")),
        drain(child.stderr.take().expect("stderr")),
    );
    let started = std::time::Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} hung: killed after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = writer.join();
    let status = child.wait().expect("wait");
    Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

fn drain(mut r: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// A plain `std::process::Command` for `laurel --ledger <dir>/laurel.db ARGS`.
pub fn laurel_std(dir: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("laurel"));
    cmd.env_remove("LAUREL_LEDGER")
        .env_remove("LAUREL_PEAK_RSS")
        .arg("--ledger")
        .arg(db_path(dir))
        .args(args);
    cmd
}

/// The `peak_rss_bytes N` line that `LAUREL_PEAK_RSS=1` adds to stderr.
pub fn peak_rss(stderr: &[u8]) -> u64 {
    String::from_utf8_lossy(stderr)
        .lines()
        .find_map(|l| l.strip_prefix("peak_rss_bytes "))
        .and_then(|n| n.trim().parse().ok())
        .expect("peak_rss_bytes line on stderr")
}

/// The command `laurel gen --events N --seed S` (a file-sized stream goes to a file).
pub fn gen_command(events: u64, seed: u64) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("laurel"));
    cmd.args([
        "gen",
        "--events",
        &events.to_string(),
        "--seed",
        &seed.to_string(),
    ]);
    cmd
}

/// `laurel gen --events N --seed S`: a valid generated stream (JSON Lines).
pub fn gen(events: u64, seed: u64) -> String {
    let out = gen_command(events, seed).output().expect("gen ran");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

/// Start `laurel append -` on `dir`, feed it `text` and keep its stdin open:
/// it holds the writer's lock until stdin is closed.
pub fn held_append(dir: &Path, text: &str) -> (std::process::Child, std::process::ChildStdin) {
    use std::io::Write;
    use std::process::Stdio;
    let mut writer = laurel_std(dir, &["append", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = writer.stdin.take().unwrap();
    stdin.write_all(text.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The writer holds the lock (and has written chunks beyond the head) now.
    std::thread::sleep(std::time::Duration::from_millis(500));
    (writer, stdin)
}

/// A test that cannot run on this machine says why, and is skipped; under
/// CI (`CI` set, as `.ci/run` sets it) that is a failure: CI's machine has
/// what every test needs, so a skip there would pass without checking.
pub fn skip(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but this test cannot run: {why}"
    );
    eprintln!("skipped: {why}");
}
