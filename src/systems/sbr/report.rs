//! `laurel standings sbr [--tournament T]`: the list of tournaments, or one
//! tournament's final ranking (podium first) with its seeding, bracket seeds
//! and every match's table.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::events::sbr::Stage;
use crate::output::{Report, Table};

use super::math::{advances, competition_ranks};
use super::{stage_name, Cx, Match, Selector, Standing, Tournament, SYS};

pub(super) fn standings(
    ts: &BTreeMap<String, Tournament>,
    table: &str,
    sel: &Selector,
    cx: &Cx,
) -> Result<Report, String> {
    if table != SYS {
        return Err(format!("unknown sbr table {table:?}"));
    }
    let Some(id) = &sel.tournament else {
        return Ok(listing(ts, cx));
    };
    let t = ts.get(id).ok_or_else(|| {
        format!(
            "unknown sbr tournament {id:?} (known: {})",
            ts.keys().cloned().collect::<Vec<_>>().join(", ")
        )
    })?;
    let mut extra = vec![seeding_table(t)];
    if t.stage == Some(Stage::Bracket) {
        extra.push(bracket_seeds_table(t, cx));
    }
    let mut matches: Vec<&Match> = t.matches.values().collect();
    matches.sort_by_key(|m| m.order);
    let fin = t.final_match(cx).map(|m| m.id.clone());
    extra.extend(
        matches
            .into_iter()
            .map(|m| match_table(t, m, fin.as_deref() == Some(&m.id), cx)),
    );
    Ok(Report {
        system: SYS.into(),
        main: ranking(t, cx),
        extra,
    })
}

/// Without `--tournament`: one row per tournament.
fn listing(ts: &BTreeMap<String, Tournament>, cx: &Cx) -> Report {
    let mut main = Table::new(
        SYS,
        "Space Base Race tournaments (show one with --tournament T)",
        &[
            "tournament",
            "created",
            "stage",
            "players",
            "matches",
            "champion",
        ],
    );
    for t in ts.values() {
        let champion = t.final_match(cx).and_then(|m| {
            t.ranked(m, cx)
                .into_iter()
                .find(|(p, _)| *p == 1)
                .map(|(_, l)| l.player)
        });
        main.push(vec![
            json!(t.id),
            json!(crate::time::format_short(t.created)),
            json!(t.stage.map_or("created", stage_name)),
            json!(players(t).len()),
            json!(t.matches.len()),
            champion.map_or(Value::Null, Value::from),
        ]);
    }
    Report {
        system: SYS.into(),
        main,
        extra: vec![],
    }
}

/// Everyone who seeded or played a match.
fn players(t: &Tournament) -> BTreeSet<String> {
    t.seeds
        .keys()
        .cloned()
        .chain(t.matches.values().flat_map(|m| m.players.iter().cloned()))
        .collect()
}

/// One row of the final ranking, with its sort key.
struct Entry {
    /// (stage reached, round reached, place, score, best game, tie-break seed):
    /// larger is better, so places and seeds are reversed.
    key: (u8, u32, Reverse<u32>, i64, i64, Reverse<u32>),
    cells: Vec<Value>,
}

fn entry(t: &Tournament, p: &str, fin: Option<&Match>, cx: &Cx) -> Entry {
    let seeds = t.seed_ranks();
    let seed = seeds.get(p).copied();
    let last = [Stage::Bracket, Stage::Group]
        .into_iter()
        .find_map(|s| t.matches_of(s, p).last().copied());
    let Some(m) = last else {
        let score = t.seeds.get(p).map_or(0, |s| s.score);
        return Entry {
            key: (
                0,
                0,
                Reverse(0),
                score,
                score,
                Reverse(seed.unwrap_or(u32::MAX)),
            ),
            cells: vec![
                json!(score),
                Value::Null,
                json!("seeding"),
                Value::Null,
                Value::Null,
                Value::Null,
                json!(seed),
                json!("seeded"),
            ],
        };
    };
    let ranked = t.ranked(m, cx);
    let (place, line) = ranked
        .into_iter()
        .find(|(_, l)| l.player == p)
        .unwrap_or_default();
    let result = result_text(t, m, p, place, fin.is_some_and(|f| f.id == m.id), cx);
    let level = if m.stage == Stage::Bracket { 2 } else { 1 };
    Entry {
        key: (
            level,
            m.round,
            Reverse(place),
            line.total,
            line.best,
            Reverse(line.seed.unwrap_or(u32::MAX)),
        ),
        cells: vec![
            json!(line.total),
            json!(line.best),
            json!(stage_name(m.stage)),
            json!(m.round),
            json!(m.id),
            json!(place),
            json!(seed),
            json!(result),
        ],
    }
}

fn result_text(t: &Tournament, m: &Match, p: &str, place: u32, is_final: bool, cx: &Cx) -> String {
    if is_final {
        return if i64::from(place) <= cx.params.int(SYS, "podium") {
            format!("{} place", crate::output::ordinal(u64::from(place)))
        } else {
            format!("{} in the final", crate::output::ordinal(u64::from(place)))
        };
    }
    match t.standing_in(m, p, cx) {
        Standing::Playing => "playing".into(),
        Standing::Advanced => "advanced".into(),
        Standing::Eliminated => "eliminated".into(),
    }
}

/// The final ranking: podium first (see the module docs for the order).
fn ranking(t: &Tournament, cx: &Cx) -> Table {
    let fin = t.final_match(cx);
    let mut entries: Vec<(String, Entry)> = players(t)
        .into_iter()
        .map(|p| {
            let e = entry(t, &p, fin, cx);
            (p, e)
        })
        .collect();
    let keys: Vec<(String, _)> = entries.iter().map(|(p, e)| (p.clone(), e.key)).collect();
    let ranks = competition_ranks(&keys);
    entries.sort_by(|a, b| b.1.key.cmp(&a.1.key).then_with(|| a.0.cmp(&b.0)));
    let title = match fin {
        Some(f) => format!(
            "Tournament {}: final ranking (podium from final match {})",
            t.id, f.id
        ),
        None => format!("Tournament {}: ranking so far (no final yet)", t.id),
    };
    let mut table = Table::new(
        SYS,
        &title,
        &[
            "rank",
            "player",
            "score",
            "best_game",
            "stage",
            "round",
            "match",
            "place",
            "seed",
            "result",
        ],
    );
    for (p, e) in entries {
        let mut row = vec![json!(ranks.get(&p).copied().unwrap_or(0)), json!(p)];
        row.extend(e.cells);
        table.push(row);
    }
    table
}

fn seeding_table(t: &Tournament) -> Table {
    let ranks = t.seed_ranks();
    let mut rows: Vec<(u32, &String)> = ranks.iter().map(|(p, r)| (*r, p)).collect();
    rows.sort();
    let mut table = Table::new(
        "seeding",
        &format!(
            "Tournament {}: seeding (one game in red against three bots)",
            t.id
        ),
        &["rank", "player", "score", "match"],
    );
    for (r, p) in rows {
        let s = &t.seeds[p];
        table.push(vec![json!(r), json!(p), json!(s.score), json!(s.match_id)]);
    }
    table
}

fn bracket_seeds_table(t: &Tournament, cx: &Cx) -> Table {
    let seeds = t.bracket_seeds(cx);
    let original = t.seed_ranks();
    let mut rows: Vec<(u32, &String)> = seeds.iter().map(|(p, r)| (*r, p)).collect();
    rows.sort();
    let mut table = Table::new(
        "bracket_seeding",
        &format!(
            "Tournament {}: bracket seeds (score in last group match, then seed)",
            t.id
        ),
        &["rank", "player", "score", "group_match", "seed"],
    );
    for (r, p) in rows {
        let last = t.matches_of(Stage::Group, p).last().map(|m| m.id.clone());
        table.push(vec![
            json!(r),
            json!(p),
            json!(t.last_group_score(p)),
            json!(last),
            json!(original.get(p)),
        ]);
    }
    table
}

fn match_table(t: &Tournament, m: &Match, is_final: bool, cx: &Cx) -> Table {
    let games = cx.params.int(SYS, "games_per_match").max(1);
    let mut columns: Vec<String> = ["rank", "player", "score", "best_game", "seed"]
        .map(String::from)
        .to_vec();
    columns.extend((1..=games).map(|g| format!("game_{g}")));
    columns.extend(["result", "advanced"].map(String::from));
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    let group = m
        .group
        .as_ref()
        .map(|g| format!(" {g}"))
        .unwrap_or_default();
    let title = format!(
        "Match {}: {}{group}, round {}, {} of {games} games{}",
        m.id,
        stage_name(m.stage),
        m.round,
        m.games.len(),
        if is_final { ", FINAL" } else { "" }
    );
    let mut table = Table::new(&format!("match_{}", m.id), &title, &cols);
    let advance = cx.params.int(SYS, "advance");
    for (place, l) in t.ranked(m, cx) {
        let mut row = vec![
            json!(place),
            json!(l.player),
            json!(l.total),
            json!(l.best),
            json!(l.seed),
        ];
        row.extend((1..=games).map(|g| game_score(m, g, &l.player)));
        let result = result_text(t, m, &l.player, place, is_final, cx);
        let advanced = !is_final && m.complete(cx) && advances(place, advance);
        row.extend([json!(result), json!(advanced)]);
        table.push(row);
    }
    table
}

fn game_score(m: &Match, game: i64, player: &str) -> Value {
    m.games
        .get(&game)
        .and_then(|seats| seats.iter().find(|s| s.player.as_deref() == Some(player)))
        .and_then(|s| s.score)
        .map_or(Value::Null, Value::from)
}
