//! `laurel standings sbr [--tournament T]`: the list of tournaments, or one
//! tournament's final ranking (podium first) with its seeding, bracket seeds
//! and every match's table.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::systems::ranks;
use crate::systems::sbr::events::Stage;
use crate::systems::table::{ordinal, Report, Table};

use super::math::advances;
use super::params::Sbr;
use super::{stage_name, Cx, Match, Names, Selector, Standing, Tournaments, View, SYS};

pub(super) fn standings(
    ts: &Tournaments,
    names: &Names,
    table: &str,
    sel: &Selector,
    cx: &Cx,
) -> Result<Report, String> {
    if table != SYS {
        return Err(format!("unknown sbr table {table:?}"));
    }
    let Some(id) = &sel.tournament else {
        return Ok(listing(ts, names, sel, cx));
    };
    let t = ts.get(id).ok_or_else(|| {
        format!(
            "unknown sbr tournament {id:?} (known: {})",
            ts.keys().cloned().collect::<Vec<_>>().join(", ")
        )
    })?;
    let v = View::new(t, names, cx);
    let mut extra = vec![seeding_table(&v)];
    if t.stage == Some(Stage::Bracket) || v.every_group_qualified() {
        extra.push(bracket_seeds_table(&v));
    }
    let fin = v.final_match().map(|m| m.id);
    extra.extend(
        t.matches
            .iter()
            .map(|m| match_table(&v, m, fin == Some(m.id), cx)),
    );
    Ok(Report {
        system: SYS.into(),
        main: ranking(&v, cx),
        extra,
    })
}

/// Without `--tournament`: one row per tournament, with its champion
/// (`player`, `score`: see the module docs).
fn listing(ts: &Tournaments, names: &Names, sel: &Selector, cx: &Cx) -> Report {
    let mut main = Table::new(
        "tournaments",
        "Space Base Race tournaments (show one with --tournament T)",
        &[
            "tournament",
            "created",
            "stage",
            "players",
            "matches",
            "player",
            "score",
        ],
    )
    .keep(sel);
    for t in ts.values() {
        main.push_with(|| {
            let v = View::new(t, names, cx);
            let champion = v.final_match().and_then(|m| {
                v.ranked(m)
                    .into_iter()
                    .find(|(p, _)| *p == 1)
                    .map(|(_, l)| (l.player.0, l.total))
            });
            vec![
                json!(t.id),
                json!(crate::time::format_short(t.created)),
                json!(t.stage.map_or("created", stage_name)),
                json!(t.people.len()),
                json!(t.matches.len()),
                champion.map_or(Value::Null, |(p, _)| json!(p)),
                champion.map_or(Value::Null, |(_, score)| json!(score)),
            ]
        });
    }
    Report {
        system: SYS.into(),
        main,
        extra: vec![],
    }
}

/// One row of the final ranking, with its sort key.
struct Entry {
    /// (how far: seeding 0, group stage 1, a group's qualifier 2, bracket 3;
    /// how near the end of that stage: the bracket's round, a group's rounds
    /// still to play after the match reversed; place, score, best game,
    /// tie-break seed): larger is better, so places and seeds are reversed.
    key: (u8, Reverse<u32>, Reverse<u32>, i64, i64, Reverse<u32>),
    cells: Vec<Value>,
}

/// How many rounds of the group stage each group (by [`View::group_of`] of
/// its players) has played so far: its last match's round.
fn group_rounds(v: &View) -> BTreeMap<u32, u32> {
    let mut rounds = BTreeMap::new();
    let group_matches = v.t.matches.iter().filter(|m| m.stage == Stage::Group);
    for m in group_matches {
        if let Some(g) = m.players.first().and_then(|&p| v.group_of(p)) {
            let r = rounds.entry(g).or_insert(0);
            *r = m.round.max(*r);
        }
    }
    rounds
}

fn entry(v: &View, p: u32, fin: Option<&Match>, rounds: &BTreeMap<u32, u32>, cx: &Cx) -> Entry {
    let t = v.t;
    let seed = t.seed_rank(p);
    let last = [Stage::Bracket, Stage::Group]
        .into_iter()
        .find_map(|s| t.last_match(s, p));
    let Some(m) = last else {
        let person = &t.people[p as usize];
        let score = if person.seeded() {
            person.seed_score
        } else {
            0
        };
        return Entry {
            key: (
                0,
                Reverse(0),
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
    let (place, total, best, line_seed) = v
        .ranked(m)
        .into_iter()
        .find(|(_, l)| l.player.1 == p)
        .map_or((0, 0, 0, None), |(place, l)| {
            (place, l.total, l.best, l.seed)
        });
    let result = result_text(v, m, p, place, fin.is_some_and(|f| f.id == m.id), cx);
    // A bracket's rounds are everyone's; a group's are its own, so a group
    // played down in fewer rounds is as far on at each.
    let (level, to_play) = match m.stage {
        Stage::Bracket => (3, u32::MAX - m.round),
        _ if v.is_qualifier(p) => (2, 0),
        _ => {
            let last = v.group_of(p).and_then(|g| rounds.get(&g).copied());
            (1, last.unwrap_or(m.round).saturating_sub(m.round))
        }
    };
    Entry {
        key: (
            level,
            Reverse(to_play),
            Reverse(place),
            total,
            best,
            Reverse(line_seed.unwrap_or(u32::MAX)),
        ),
        cells: vec![
            json!(total),
            json!(best),
            json!(stage_name(m.stage)),
            json!(m.round),
            json!(v.names.name(m.id)),
            json!(place),
            json!(seed),
            json!(result),
        ],
    }
}

fn result_text(v: &View, m: &Match, p: u32, place: u32, is_final: bool, cx: &Cx) -> String {
    if is_final {
        return if i64::from(place) <= cx.params.get::<Sbr>().podium {
            format!("{} place", ordinal(u64::from(place)))
        } else {
            format!("{} in the final", ordinal(u64::from(place)))
        };
    }
    match v.standing_in(m, p) {
        Standing::Playing => "playing".into(),
        Standing::Advanced => "advanced".into(),
        Standing::Eliminated => "eliminated".into(),
    }
}

/// The final ranking: podium first (see the module docs for the order).
fn ranking(v: &View, cx: &Cx) -> Table {
    let t = v.t;
    let fin = v.final_match();
    let rounds = group_rounds(v);
    let mut entries: Vec<(&str, Entry)> = (0..t.people.len() as u32)
        .map(|p| (v.player(p), entry(v, p, fin, &rounds, cx)))
        .collect();
    entries.sort_by(|a, b| b.1.key.cmp(&a.1.key).then_with(|| a.0.cmp(b.0)));
    let keys: Vec<_> = entries.iter().map(|(_, e)| e.key).collect();
    let title = match fin {
        Some(f) => {
            let places = match (f.players.len() as i64).min(cx.params.get::<Sbr>().podium) {
                0 => "no podium".to_string(),
                n => format!(
                    "podium from final match {}: places 1 to {n}",
                    v.names.name(f.id)
                ),
            };
            format!("Tournament {}: final ranking ({places})", t.id)
        }
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
    for (rank, (p, e)) in ranks(&keys).into_iter().zip(entries) {
        let mut row = vec![json!(rank), json!(p)];
        row.extend(e.cells);
        table.push(row);
    }
    table
}

fn seeding_table(v: &View) -> Table {
    let t = v.t;
    let mut rows: Vec<(u32, &str, u32)> = (0..t.people.len() as u32)
        .filter_map(|p| Some((t.seed_rank(p)?, v.player(p), p)))
        .collect();
    rows.sort();
    let mut table = Table::new(
        "seeding",
        &format!(
            "Tournament {}: seeding (one game in red against three bots; groups as the seeding stands)",
            t.id
        ),
        &["rank", "player", "score", "group", "match"],
    );
    for (r, name, p) in rows {
        let s = &t.people[p as usize];
        table.push(vec![
            json!(r),
            json!(name),
            json!(s.seed_score),
            json!(v.group_of(p)),
            json!(v.names.name(s.seed_match)),
        ]);
    }
    table
}

fn bracket_seeds_table(v: &View) -> Table {
    let t = v.t;
    let mut rows: Vec<(u32, &str, u32)> = v
        .qualifiers()
        .iter()
        .filter_map(|&p| Some((v.bracket_seed(p)?, v.player(p), p)))
        .collect();
    rows.sort();
    let mut table = Table::new(
        "bracket_seeding",
        &format!(
            "Tournament {}: bracket seeds (score in last group match, then best game, then seed)",
            t.id
        ),
        &[
            "rank",
            "player",
            "score",
            "best_game",
            "group_match",
            "seed",
        ],
    );
    for (r, name, p) in rows {
        let last = t.last_match(Stage::Group, p).map(|m| v.names.name(m.id));
        let (score, best) = t.last_group_totals(p);
        table.push(vec![
            json!(r),
            json!(name),
            json!(score),
            json!(best),
            json!(last),
            json!(t.seed_rank(p)),
        ]);
    }
    table
}

fn match_table(v: &View, m: &Match, is_final: bool, cx: &Cx) -> Table {
    let games = cx.params.get::<Sbr>().games_per_match;
    // The seed that breaks ties in the match: the seeding rank in a group,
    // the bracket seed in the bracket (see the module docs).
    let seed = match m.stage {
        Stage::Bracket => "bracket_seed",
        _ => "seed",
    };
    let mut columns: Vec<String> = ["rank", "player", "score", "best_game", seed]
        .map(String::from)
        .to_vec();
    columns.extend((1..=games).map(|g| format!("game_{g}")));
    columns.extend(["result", "advanced"].map(String::from));
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    let group = m
        .group_name(v.names)
        .map(|g| format!(" {g}"))
        .unwrap_or_default();
    let id = v.names.name(m.id);
    let title = format!(
        "Match {id}: {}{group}, round {}, {} of {games} games{}",
        stage_name(m.stage),
        m.round,
        m.games(),
        if is_final { ", FINAL" } else { "" }
    );
    let mut table = Table::new(&format!("match_{id}"), &title, &cols);
    let advance = cx.params.get::<Sbr>().advance;
    for (place, l) in v.ranked(m) {
        let (name, p) = l.player;
        let mut row = vec![
            json!(place),
            json!(name),
            json!(l.total),
            json!(l.best),
            json!(l.seed),
        ];
        row.extend((1..=games).map(|g| m.game_score(g, p).map_or(Value::Null, Value::from)));
        let result = result_text(v, m, p, place, is_final, cx);
        // Blank until the match is complete, and in the final, from which
        // nobody advances.
        let advanced = (!is_final && v.complete(m)).then(|| advances(place, advance));
        row.extend([json!(result), json!(advanced)]);
        table.push(row);
    }
    table
}
