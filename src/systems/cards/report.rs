//! `standings cards`: the list of tournaments, or one tournament's standings
//! (points, then total score, then player) with its matches and rounds.

use serde_json::{json, Value};

use crate::systems::table::{Report, Table};
use crate::time::format_short;

use super::super::{ranks, Cx, Selector};
use super::compact::Interner;
use super::{points, AwardRow, Line, State, Tournament};

impl State {
    pub fn standings(&self, table: &str, sel: &Selector, _cx: &Cx) -> Result<Report, String> {
        if table != "cards" {
            return Err(format!("unknown cards table {table:?}"));
        }
        let main = match &sel.tournament {
            None => return Ok(self.listing(sel)),
            Some(id) => id,
        };
        let t = self.tournaments.get(main).ok_or_else(|| {
            let known = self.tournaments();
            format!(
                "cards: unknown tournament {main:?} (known: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        })?;
        Ok(Report {
            system: "cards".into(),
            main: ranking(&self.names, main, t),
            extra: vec![matches_table(&self.names, t), rounds_table(&self.names, t)],
        })
    }

    /// One row per tournament: `standings cards` without `--tournament`, with
    /// its first place (`player`, `score`: its standings' first row) and how
    /// many share that place (`sharing_first`).
    fn listing(&self, sel: &Selector) -> Report {
        let mut tab = Table::new(
            "tournaments",
            "Card-game tournaments (standings: laurel standings cards --tournament T)",
            &[
                "tournament",
                "point_system",
                "starts",
                "ends",
                "rounds",
                "matches",
                "results",
                "players",
                "player",
                "score",
                "sharing_first",
            ],
        )
        .keep(sel);
        for (id, t) in self.tournaments.iter() {
            tab.push_with(|| {
                let scheduled: usize = t.rounds.values().map(|r| r.matches.len()).sum();
                let played: usize = t
                    .rounds
                    .values()
                    .map(|r| r.matches.iter().filter(|m| m.played()).count())
                    .sum();
                let rows = order(&self.names, t);
                let leader = rows.first().copied();
                let best = |l: &Line| (l.points, l.total_score);
                let sharing = leader.map(|(_, first)| {
                    rows.iter()
                        .take_while(|(_, l)| best(l) == best(first))
                        .count()
                });
                vec![
                    json!(id),
                    json!(t.system),
                    json!(format_short(t.starts)),
                    json!(format_short(t.ends)),
                    json!(t.rounds.len()),
                    json!(scheduled),
                    json!(played),
                    json!(t.lines.len()),
                    leader.map_or(Value::Null, |(p, _)| json!(p)),
                    leader.map_or(Value::Null, |(_, l)| json!(l.points)),
                    sharing.map_or(Value::Null, |n| json!(n)),
                ]
            });
        }
        Report {
            system: "cards".into(),
            main: tab,
            extra: vec![],
        }
    }
}

/// Players best first: points, then total score (both descending), then player id.
fn order<'a>(names: &'a Interner, t: &'a Tournament) -> Vec<(&'a str, &'a Line)> {
    let mut rows: Vec<(&str, &Line)> = t.lines.iter().map(|(&p, l)| (names.name(p), l)).collect();
    rows.sort_by(|a, b| {
        (b.1.points, b.1.total_score)
            .cmp(&(a.1.points, a.1.total_score))
            .then_with(|| a.0.cmp(b.0))
    });
    rows
}

/// The main table. Players equal on points and total score share a rank.
fn ranking(names: &Interner, id: &str, t: &Tournament) -> Table {
    let mut tab = Table::new(
        "cards",
        &format!(
            "Tournament {id} (point system {}): score = points; ties by total score",
            t.system
        ),
        &["rank", "player", "score", "total_score", "matches"],
    );
    let rows = order(names, t);
    let keys: Vec<_> = rows
        .iter()
        .map(|(_, l)| (l.points, l.total_score))
        .collect();
    for (rank, (player, line)) in ranks(&keys).into_iter().zip(&rows) {
        tab.push(vec![
            json!(rank),
            json!(player),
            json!(line.points),
            json!(line.total_score),
            json!(line.matches),
        ]);
    }
    tab
}

/// Every award, in the order the results were folded; system 2's rows show
/// the three parts of their points.
fn matches_table(names: &Interner, t: &Tournament) -> Table {
    let parts = t.system != 1;
    let (title, columns): (&str, &[&str]) = match parts {
        false => (
            "Match results",
            &["round", "match", "player", "score", "place", "points"],
        ),
        true => (
            "Match results: points = placement + table strength + score points",
            &[
                "round",
                "match",
                "player",
                "score",
                "place",
                "placement",
                "table_strength",
                "score_points",
                "points",
            ],
        ),
    };
    let mut tab = Table::new("matches", title, columns);
    for a in &AwardRow::all(&t.awards) {
        let mut row = vec![
            json!(names.name(a.round)),
            json!(names.name(a.match_)),
            json!(names.name(a.player)),
            json!(a.score),
            json!(points::place_text(a.award.places)),
        ];
        if parts {
            let award = &a.award;
            row.extend([award.placement, award.strength, award.score_points].map(|x| json!(x)));
        }
        row.push(json!(a.award.total()));
        tab.push(row);
    }
    tab
}

/// The schedule: rounds by start, then id.
fn rounds_table(names: &Interner, t: &Tournament) -> Table {
    let mut tab = Table::new(
        "rounds",
        "Rounds",
        &["round", "starts", "ends", "matches", "results"],
    );
    let mut rounds: Vec<_> = t
        .rounds
        .iter()
        .map(|(&id, r)| (names.name(id), r))
        .collect();
    rounds.sort_by(|a, b| (a.1.starts, a.0).cmp(&(b.1.starts, b.0)));
    for (id, r) in rounds {
        tab.push(vec![
            json!(id),
            json!(format_short(r.starts)),
            json!(format_short(r.ends)),
            json!(r.matches.len()),
            json!(r.matches.iter().filter(|m| m.played()).count()),
        ]);
    }
    tab
}
