//! Tournament standings (`standings <table> --tournament T`): one system's
//! scores of the tournament's games, a player's best game of each round, the
//! best `diplomacy_tournament.best_rounds` rounds counted, a column per round.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::math::Score;
use super::report::{number, Scored};
use super::{State, System};
use crate::systems::ranks;
use crate::systems::table::Table;

/// One player's tournament: their best score of each round played.
#[derive(Default)]
struct Line {
    /// Round (its column) → the player's best score of the round.
    rounds: BTreeMap<usize, Score>,
}

impl Line {
    /// The rounds counted: the `best` highest scores (0: all), an equal score
    /// counting the earlier round first.
    fn counted(&self, best: usize) -> Vec<usize> {
        let mut order: Vec<(&usize, &Score)> = self.rounds.iter().collect();
        order.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let keep = if best == 0 { order.len() } else { best };
        order.into_iter().take(keep).map(|(r, _)| *r).collect()
    }
}

impl State {
    /// The rounds of tournament `t` in the order they were first played, and
    /// the `best_rounds` in force at its latest game.
    fn rounds_of(&self, t: u32) -> (Vec<u32>, i64) {
        let st = &self.store;
        let mut rounds: Vec<u32> = Vec::new();
        let mut best = 0;
        for i in 0..st.len() {
            let g = st.game(i);
            if g.tournament != Some(t) {
                continue;
            }
            best = g.rules.best_rounds;
            if let Some(r) = g.round.filter(|r| !rounds.contains(r)) {
                rounds.push(r);
            }
        }
        (rounds, best)
    }

    /// The tournament's standings in `sys`: total of the counted rounds, then
    /// more rounds played, then player; its scores shown with `places` decimals.
    pub(super) fn tournament_table(
        &self,
        sys: System,
        t: &str,
        scored: &[Scored],
        places: u32,
    ) -> Table {
        let st = &self.store;
        let id = st.tournaments.get(t).unwrap_or(u32::MAX);
        let (rounds, best) = self.rounds_of(id);
        let lines = self.lines(scored, &rounds);
        let best = usize::try_from(best).unwrap_or(0);
        let rows = ranked(&lines, best);
        let names: Vec<&str> = rounds.iter().map(|&r| st.labels.name(r)).collect();
        let mut tab = head(sys, t, &names, best, places);
        let keys: Vec<_> = rows.iter().map(|r| (&r.1, r.3.rounds.len())).collect();
        for (rank, (player, total, counted, line)) in ranks(&keys).into_iter().zip(&rows) {
            let mut cells = vec![
                json!(rank),
                json!(player),
                number(total, sys.places()),
                json!(line.rounds.len()),
            ];
            cells.extend((0..rounds.len()).map(|r| {
                line.rounds
                    .get(&r)
                    .map_or(Value::Null, |s| number(s, sys.places()))
            }));
            let dropped: Vec<&str> = (line.rounds.keys())
                .filter(|r| !counted.contains(r))
                .map(|&r| names[r])
                .collect();
            cells.push(json!(dropped.join(", ")));
            tab.push(cells);
        }
        tab
    }

    /// Each player's line: their best score of each round (`rounds`, in
    /// column order) among the `scored` games.
    fn lines<'a>(&'a self, scored: &[Scored], rounds: &[u32]) -> BTreeMap<&'a str, Line> {
        let column = |r: u32| rounds.iter().position(|&x| x == r).unwrap_or(0);
        let mut lines: BTreeMap<&str, Line> = BTreeMap::new();
        for game in scored {
            for (player, score) in &game.scores {
                let line = lines.entry(self.store.players.name(*player)).or_default();
                let kept = line.rounds.entry(column(game.round));
                let kept = kept.or_insert_with(|| score.clone());
                if score > kept {
                    *kept = score.clone();
                }
            }
        }
        lines
    }
}

/// A tournament row: player, total of the counted rounds, those rounds, line.
type Row<'a> = (&'a str, Score, Vec<usize>, &'a Line);

/// The rows in standing order: total of the `best` counted rounds (0: all),
/// then more rounds played, then player.
fn ranked<'a>(lines: &'a BTreeMap<&'a str, Line>, best: usize) -> Vec<Row<'a>> {
    let mut rows: Vec<Row> = (lines.iter())
        .map(|(p, l)| {
            let counted = l.counted(best);
            let total = counted.iter().map(|r| &l.rounds[r]).sum();
            (*p, total, counted, l)
        })
        .collect();
    rows.sort_by(|a, b| {
        (b.1.cmp(&a.1))
            .then(b.3.rounds.len().cmp(&a.3.rounds.len()))
            .then(a.0.cmp(b.0))
    });
    rows
}

/// The table's title and columns (a column per round, by its label), its
/// scores shown with `places` decimals.
fn head(sys: System, t: &str, rounds: &[&str], best: usize, places: u32) -> Table {
    let names: Vec<String> = rounds.iter().map(|r| format!("round {r}")).collect();
    let mut columns = vec!["rank", "player", "score", "rounds"];
    columns.extend(names.iter().map(String::as_str));
    columns.push("dropped");
    let counting = match best {
        0 => "every round".to_string(),
        n => format!("best {n} rounds"),
    };
    let title = format!(
        "{} standings of tournament {t} ({counting} of {}; a player's best game of a round)",
        sys.title(),
        rounds.len()
    );
    let tab = Table::new(sys.name(), &title, &columns);
    let mut scores = vec!["score"];
    scores.extend(names.iter().map(String::as_str));
    tab.with_places(&scores, places)
}
