//! The everyday operations of a community's users, each against its target:
//! every standings table and `history` of a busy player (now, `--as-of` the
//! middle of the history and `--known-at` the middle seq), `replay --rules
//! --diff`, appending one event (dated after everything, and early in the
//! history) and one player registered early, and `site`.
//!
//! The tables are the fourteen of `laurel standings` plus one tournament each
//! of `cards`, `sbr` and `carnage` (a diplomacy table), the first tournament
//! the plain table's JSON names (one row of each of its tables); a stream without one skips it with a note
//! (the generated stream has no Diplomacy tournaments). The player is the one
//! with the most games in `valar` (the first of them on a tie), and, now only,
//! the one the events of the most systems name. The appended
//! event is a copy of the stream's first `diplomacy.game_ended` under a new id,
//! dated a day after the last event or 1% into the history, and a
//! `ledger.player_registered` dated 1% into the history; each append runs
//! on its own synced copy of the ledger, made and removed outside the timing.
//! Queries and appends are medians of [`RUNS`] runs; `site` runs once (at a
//! million events it takes minutes and gigabytes) and its directory is removed
//! after it is measured. A site's page is an `.html` file: `export.jsonl` is
//! the whole ledger's export, as large as the ledger, and is counted in the
//! site's total but not held to the page bound (the note names the largest file).

use std::path::Path;

use serde_json::Value;

use super::child::{Probe, Timing, RUNS};
use super::io;
use super::report::{ms, Row, Verdict};
use super::setup::{copy_dir, dir_summary, first_of_type};
use crate::error::Result;
use crate::systems::gen;

// The targets' bounds, in milliseconds.
const STANDINGS_MS: u64 = 200;
const HISTORY_MS: u64 = 300;
const REPLAY_MS: u64 = 4_000;
const APPEND_MS: u64 = 1_000;
const SITE_MS: u64 = 90_000;
/// `site`: the whole directory ≤ 3 GB, each page ≤ 5 MB (decimal units).
const SITE_MB: u64 = 3_000;
const PAGE_MB: u64 = 5;

/// Where the operations run: the bench's directory, stream and clocks.
pub(super) struct Ctx<'a> {
    pub(super) dir: &'a Path,
    pub(super) jsonl: &'a Path,
    /// The first and last `at` of the stream, in seconds.
    pub(super) range: (i64, i64),
    pub(super) events: u64,
    pub(super) skip_site: bool,
}

/// One standings table: its arguments and its name in the report.
struct Table {
    args: Vec<String>,
    name: String,
}

/// The first string under a `"tournament"` key anywhere in `v`.
fn first_tournament(v: &Value) -> Option<String> {
    match v {
        Value::Object(m) => m
            .get("tournament")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| m.values().find_map(first_tournament)),
        Value::Array(a) => a.iter().find_map(first_tournament),
        _ => None,
    }
}

/// A command's JSON output (`--format json`), `Null` if it fails.
fn json(probe: &mut Probe, command: &str, args: &[&str]) -> Result<Value> {
    let r = probe.once(command, args)?;
    Ok(serde_json::from_slice(&r.stdout).unwrap_or(Value::Null))
}

/// The fourteen tables, then a tournament of cards, sbr and carnage; the notes
/// say which tournament table was skipped.
fn tables(probe: &mut Probe) -> Result<(Vec<Table>, Vec<String>)> {
    let mut out: Vec<Table> = crate::systems::tables()
        .into_iter()
        .map(|(t, _)| Table {
            args: vec![t.to_string()],
            name: t.to_string(),
        })
        .collect();
    let mut notes = Vec::new();
    for t in ["cards", "sbr", "carnage"] {
        // One row of each of the table's tables names a tournament: the
        // whole of carnage's JSON is hundreds of megabytes at 1M events.
        let args = ["standings", t, "--format", "json", "--limit", "1"];
        let v = json(probe, "standings", &args)?;
        match first_tournament(&v) {
            Some(x) => out.push(Table {
                name: format!("{t} --tournament {x}"),
                args: vec![t.to_string(), "--tournament".into(), x],
            }),
            None => notes.push(format!(
                "{t} --tournament: skipped, the stream has no {t} tournament"
            )),
        }
    }
    Ok((out, notes))
}

/// Each table's median under `clock` (`[]`, `--as-of D` or `--known-at S`).
fn standings(probe: &mut Probe, tables: &[Table], clock: &[&str]) -> Result<Vec<Timing>> {
    let command = match clock.first() {
        Some(c) => format!("standings {c}"),
        None => "standings".to_string(),
    };
    tables
        .iter()
        .map(|t| {
            let mut args = vec!["standings"];
            args.extend(t.args.iter().map(String::as_str));
            args.extend_from_slice(clock);
            probe.median(&command, &args)
        })
        .collect()
}

/// The row of every table's median: the slowest, named, or the first failure.
fn slowest_row(figure: &str, tables: &[Table], times: &[Timing]) -> Row {
    let failed = times.iter().zip(tables).find(|(t, _)| t.failed.is_some());
    let (t, table) = match failed {
        Some(f) => f,
        None => match times.iter().zip(tables).max_by_key(|(t, _)| t.median) {
            Some(s) => s,
            None => return Row::skipped(figure, "≤ 200 ms", "no table"),
        },
    };
    let note = format!("slowest: {} ({} tables)", table.name, tables.len());
    let mut row = Row::timing(figure, t, STANDINGS_MS, note);
    if row.verdict == Verdict::Fail {
        row.note = format!("{}: {}", table.name, row.note);
    }
    row
}

/// The player with the most games in `valar`.
fn busy_player(probe: &mut Probe) -> Result<Option<String>> {
    let v = json(
        probe,
        "standings",
        &["standings", "valar", "--format", "json"],
    )?;
    Ok(best_player(&v, |r| r["games"].as_u64()).map(|(_, p)| p))
}

/// The first of `v`'s rows with the greatest `score`: the score and the
/// row's `player`.
fn best_player(v: &Value, score: impl Fn(&Value) -> Option<u64>) -> Option<(u64, String)> {
    let mut best: Option<(u64, String)> = None;
    for r in v["rows"].as_array().into_iter().flatten() {
        let (Some(g), Some(p)) = (score(r), r["player"].as_str()) else {
            continue;
        };
        if best.as_ref().is_none_or(|b| g > b.0) {
            best = Some((g, p.to_string()));
        }
    }
    best
}

/// The standings and history figures, and the per-table detail.
pub(super) fn queries(probe: &mut Probe, cx: &Ctx) -> Result<(Vec<Row>, String)> {
    let (lo, hi) = cx.range;
    let mid = lo + (hi - lo) / 2;
    let date = gen::stamp(mid - mid.rem_euclid(86_400));
    let seq = (cx.events / 2).max(1).to_string();
    let clocks: [Vec<&str>; 3] = [vec![], vec!["--as-of", &date], vec!["--known-at", &seq]];

    let (tables, notes) = tables(probe)?;
    let mut rows = Vec::new();
    let mut times = Vec::new();
    for clock in &clocks {
        let t = standings(probe, &tables, clock)?;
        let figure = match clock.is_empty() {
            true => "standings, every table".to_string(),
            false => format!("standings {}, every table", clock.join(" ")),
        };
        rows.push(slowest_row(&figure, &tables, &t));
        times.push(t);
    }
    let mut detail = format!(
        "standings by table, median of {RUNS} runs (ms):\n{:<32} {:>9} {:>22} {:>22}\n",
        "table",
        "now",
        format!("--as-of {date}"),
        format!("--known-at {seq}")
    );
    for (i, t) in tables.iter().enumerate() {
        detail.push_str(&format!(
            "{:<32} {:>9} {:>22} {:>22}\n",
            t.name,
            ms(times[0][i].median),
            ms(times[1][i].median),
            ms(times[2][i].median)
        ));
    }
    for n in notes {
        detail.push_str(&format!("{n}\n"));
    }

    let player = busy_player(probe)?;
    for clock in &clocks {
        let figure = match clock.is_empty() {
            true => "history PLAYER".to_string(),
            false => format!("history PLAYER {}", clock.join(" ")),
        };
        let Some(p) = &player else {
            rows.push(Row::skipped(&figure, "≤ 300 ms", "no player in valar"));
            continue;
        };
        let mut args = vec!["history", p.as_str()];
        args.extend_from_slice(clock);
        let command = format!("history {}", clock.first().unwrap_or(&""))
            .trim()
            .to_string();
        let t = probe.median(&command, &args)?;
        rows.push(Row::timing(
            &figure,
            &t,
            HISTORY_MS,
            format!("PLAYER = {p}"),
        ));
    }
    rows.push(widest_history(probe)?);
    Ok((rows, detail))
}

/// `history` of the player named by the events of the most systems (the
/// first by name of them): a player of one community folds only that
/// community when it is Middle-earth, and this one folds every namespace.
fn widest_history(probe: &mut Probe) -> Result<Row> {
    const FIGURE: &str = "history PLAYER of the most systems";
    let v = json(
        probe,
        "players",
        &["players", "--format", "json", "--limit", "all"],
    )?;
    let widest = best_player(&v, |r| Some(r["systems"].as_array()?.len() as u64));
    let Some((n, p)) = widest else {
        return Ok(Row::skipped(FIGURE, "≤ 300 ms", "no player"));
    };
    let t = probe.median("history", &["history", &p])?;
    Ok(Row::timing(
        FIGURE,
        &t,
        HISTORY_MS,
        format!("PLAYER = {p}, {n} systems"),
    ))
}

/// `replay --rules FILE --diff` with one Valar parameter changed.
pub(super) fn replay(probe: &mut Probe, cx: &Ctx) -> Result<Row> {
    let rules = cx.dir.join("what-if.json");
    std::fs::write(&rules, r#"{"valar": {"base": 46}}"#).map_err(io("rules file"))?;
    let rules = rules.display().to_string();
    let t = probe.median("replay --diff", &["replay", "--rules", &rules, "--diff"])?;
    Ok(Row::timing(
        "replay --rules FILE --diff",
        &t,
        REPLAY_MS,
        "FILE: valar.base 45 -> 46".into(),
    ))
}

/// Appending one event, dated after everything and early in the history,
/// and one player registered early (records about players take a path of
/// their own).
pub(super) fn appends(probe: &mut Probe, cx: &Ctx) -> Result<Vec<Row>> {
    let (lo, hi) = cx.range;
    let early = lo + (hi - lo) / 100;
    let cases = [
        ("append one event dated last", "late", hi + 86_400),
        ("append one event dated early", "early", early),
    ];
    let game = first_of_type(cx.jsonl, "diplomacy.game_ended")?;
    let mut rows = Vec::new();
    for (figure, tag, at) in cases {
        let Some(game) = &game else {
            rows.push(Row::skipped(
                figure,
                "≤ 1 s",
                "the stream has no diplomacy game",
            ));
            continue;
        };
        let mut ev = game.clone();
        let id = format!("bench-{tag}");
        ev["id"] = id.clone().into();
        ev["game"] = id.into();
        ev["at"] = gen::stamp(at).into();
        let note = format!("diplomacy.game_ended at {}", gen::stamp(at));
        rows.push(append_row(probe, cx, (figure, tag), &ev, note)?);
    }
    let named = serde_json::json!({
        "type": "ledger.player_registered",
        "id": "bench-named",
        "at": gen::stamp(early),
        "player": "Bench Newcomer",
    });
    let note = format!("ledger.player_registered at {}", gen::stamp(early));
    let figure = ("append one player registered early", "named");
    rows.push(append_row(probe, cx, figure, &named, note)?);
    Ok(rows)
}

/// The median time of appending `ev` alone to a copy of the ledger.
fn append_row(
    probe: &mut Probe,
    cx: &Ctx,
    (figure, tag): (&str, &str),
    ev: &serde_json::Value,
    note: String,
) -> Result<Row> {
    let file = cx.dir.join(format!("append-{tag}.jsonl"));
    std::fs::write(&file, format!("{ev}\n")).map_err(io("events file"))?;
    let file = file.display().to_string();
    let copy = cx.dir.join(format!("copy-{tag}"));
    let command = format!("append ({tag})");
    let t = probe.median_of(&command, |p| {
        copy_dir(&p.ledger, &copy)?;
        let r = p.once_on(&copy, &command, &["append", &file]);
        std::fs::remove_dir_all(&copy).map_err(io("ledger copy"))?;
        r
    })?;
    Ok(Row::timing(figure, &t, APPEND_MS, note))
}

/// A site row: `bytes` in MB against `bound` MB.
fn site_size_row(figure: &str, bytes: u64, bound_mb: u64, failed: bool, note: String) -> Row {
    let verdict = match failed {
        true => Verdict::Fail,
        false => Verdict::of(bytes <= bound_mb * 1_000_000),
    };
    Row {
        figure: figure.into(),
        measured: format!("{:.2} MB", bytes as f64 / 1e6),
        target: match bound_mb {
            b if b % 1000 == 0 => format!("≤ {} GB", b / 1000),
            b => format!("≤ {b} MB"),
        },
        verdict,
        note,
    }
}

/// `site DIR`: its wall time, total size and largest page.
pub(super) fn site(probe: &mut Probe, cx: &Ctx) -> Result<Vec<Row>> {
    let figures = [
        ("site DIR: wall time", "≤ 90 s"),
        ("site DIR: total size", "≤ 3 GB"),
        ("site DIR: largest page", "≤ 5 MB"),
    ];
    if cx.skip_site {
        return Ok(figures
            .iter()
            .map(|f| Row::skipped(f.0, f.1, "--skip-site"))
            .collect());
    }
    let dir = cx.dir.join("site");
    let d = dir.display().to_string();
    let r = probe.once("site", &["site", &d])?;
    let s = dir_summary(&dir);
    // The site can be gigabytes: gone before anything else is measured.
    let _ = std::fs::remove_dir_all(&dir);
    let t = Timing {
        median: r.time,
        failed: r.failure().map(|e| format!("site: {e}")),
    };
    let failed = t.failed.is_some();
    let (page, file) = (&s.largest_page, &s.largest);
    Ok(vec![
        Row::timing(
            figures[0].0,
            &t,
            SITE_MS,
            format!("one run, {} files", s.files),
        ),
        site_size_row(
            figures[1].0,
            s.bytes,
            SITE_MB,
            failed,
            format!("{} files", s.files),
        ),
        site_size_row(
            figures[2].0,
            page.1,
            PAGE_MB,
            failed,
            format!(
                "{}; largest file {} {:.2} MB",
                page.0,
                file.0,
                file.1 as f64 / 1e6
            ),
        ),
    ])
}
