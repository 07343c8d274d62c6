//! The fold: how each event changes the ratings. Nothing here fails; whatever
//! does not fit (an unknown game, a nation not in it) is ignored, since the
//! checks rejected it at append.

use std::collections::{BTreeMap, BTreeSet};

use crate::events::mepbm::{
    Aligned, AllegianceChanged, GameEnded, GameStarted, GrudgeRosterChanged, GrudgeTeamRegistered,
    MonthlyTick, NationTakenOver, Rated, RatingSeeded, Side, VoteCast, Winner,
};
use crate::events::Record;
use crate::num::{ratio, Rational};

use super::check::side_name;
use super::math::{self, exact};
use super::{Council, Cx, Game, Pos, Rating, State, Team};
use crate::systems::Change;

pub(super) fn aligned(a: Aligned) -> Side {
    match a {
        Aligned::Fp => Side::Fp,
        Aligned::Ds => Side::Ds,
    }
}

fn winner_side(w: Winner) -> Option<Side> {
    match w {
        Winner::Fp => Some(Side::Fp),
        Winner::Ds => Some(Side::Ds),
        Winner::Draw => None,
    }
}

fn opposite(s: Side) -> Side {
    match s {
        Side::Fp => Side::Ds,
        Side::Ds => Side::Fp,
        Side::Neutral => Side::Neutral,
    }
}

/// One game's end, as the rating rules see it.
struct Ending<'a> {
    rec: &'a Record,
    /// (nation, controller, side at end), in nation order.
    positions: Vec<(&'a str, &'a str, Side)>,
    /// Each counted player once, with his side.
    players: BTreeMap<&'a str, Side>,
    winner: Option<Side>,
    /// 1, or `small_game.factor` for a game that started small.
    factor: Rational,
    /// The small-game factor as written in the rules (`0.5`), for a small game.
    small: Option<String>,
    note: String,
}

impl Ending<'_> {
    /// `round(x)`, or `round(0.5 * (x))` in a small game.
    fn wrap(&self, x: &str) -> String {
        match &self.small {
            Some(f) => format!("round({f} * ({x}))"),
            None => format!("round({x})"),
        }
    }

    fn change(&self, system: &str, who: &str, old: i64, new: i64, formula: String) -> Change {
        Change {
            seq: self.rec.seq,
            at: self.rec.at,
            system: system.into(),
            subject: who.into(),
            old: Some(old.to_string()),
            new: new.to_string(),
            formula: format!("{formula}  [{}]", self.note),
        }
    }

    /// The sum of `ratings` (start value when unrated) over the positions on `side`.
    fn total(&self, side: Side, ratings: &BTreeMap<String, Rating>, start: i64) -> (i64, usize) {
        let on: Vec<i64> = self
            .positions
            .iter()
            .filter(|p| p.2 == side)
            .map(|p| ratings.get(p.1).map_or(start, |r| r.value))
            .collect();
        (on.iter().sum(), on.len())
    }
}

/// Add `delta` to `who`'s rating (created at `start`) and count a game.
fn bump(
    map: &mut BTreeMap<String, Rating>,
    who: &str,
    start: i64,
    delta: i64,
    game: bool,
) -> (i64, i64) {
    let r = map.entry(who.to_string()).or_insert(Rating {
        value: start,
        games: 0,
    });
    let old = r.value;
    r.value = old.saturating_add(delta);
    if game {
        r.games += 1;
    }
    (old, r.value)
}

impl State {
    pub(super) fn apply_seeded(&mut self, e: &RatingSeeded, rec: &Record, cx: &mut Cx) {
        let (name, map) = match e.system {
            Rated::Valar => ("valar", &mut self.valar),
            Rated::Maia => ("maia", &mut self.maia),
            Rated::Istari => ("istari", &mut self.istari),
            Rated::Ainur => ("ainur", &mut self.ainur),
        };
        if map.contains_key(&e.player) {
            return;
        }
        map.insert(
            e.player.clone(),
            Rating {
                value: e.value,
                games: 0,
            },
        );
        cx.audit(|| Change {
            seq: rec.seq,
            at: rec.at,
            system: name.into(),
            subject: e.player.clone(),
            old: None,
            new: e.value.to_string(),
            formula: format!("seeded at {} (approximate starting rating)", e.value),
        });
    }

    pub(super) fn apply_started(&mut self, e: &GameStarted) {
        if self.games.contains_key(&e.game.0) {
            return;
        }
        let positions = e
            .positions
            .iter()
            .map(|p| {
                let pos = Pos {
                    controller: p.player.clone(),
                    side: p.side,
                    start_side: p.side,
                };
                (p.nation.clone(), pos)
            })
            .collect();
        let game = Game {
            scenario: e.scenario.clone(),
            positions,
            grudge: e.grudge.as_ref().map(|g| (g.fp.clone(), g.ds.clone())),
            ended: None,
            voters: BTreeSet::new(),
        };
        self.games.insert(e.game.0.clone(), game);
    }

    pub(super) fn apply_takeover(&mut self, e: &NationTakenOver) {
        if let Some(p) = self
            .games
            .get_mut(&e.game.0)
            .and_then(|g| g.positions.get_mut(&e.nation))
        {
            p.controller = e.player.clone();
        }
    }

    pub(super) fn apply_allegiance(&mut self, e: &AllegianceChanged) {
        if let Some(p) = self
            .games
            .get_mut(&e.game.0)
            .and_then(|g| g.positions.get_mut(&e.nation))
        {
            p.side = aligned(e.side);
        }
    }

    pub(super) fn apply_ended(&mut self, e: &GameEnded, rec: &Record, cx: &mut Cx) {
        let Some(game) = self.games.get(&e.game.0).filter(|g| g.ended.is_none()) else {
            return;
        };
        let game = game.clone();
        let ending = ending(&game, e, rec, cx);
        self.valar_game(&ending, cx);
        self.maia_game(&ending, e.turn, cx);
        self.istari_game(&game, &ending, e, cx);
        self.ainur_game(&game, &ending, e, cx);
        self.nazgul_game(&game, &ending);
        if let Some(g) = self.games.get_mut(&e.game.0) {
            g.ended = Some(rec.at);
        }
    }

    fn valar_game(&mut self, end: &Ending, cx: &mut Cx) {
        let start = cx.params.int("valar", "start");
        let Some(w) = end.winner else {
            for p in end.players.keys() {
                bump(&mut self.valar, p, start, 0, true);
            }
            return;
        };
        let (tw, _) = end.total(w, &self.valar, start);
        let (tl, _) = end.total(opposite(w), &self.valar, start);
        let (base, div) = (
            cx.params.int("valar", "base"),
            cx.params.int("valar", "divisor"),
        );
        let change = math::valar_change(base, div, tw, tl, end.factor);
        let core = end.wrap(&format!("{base} + ({tl} - {tw}) / {div}"));
        for (&p, &side) in &end.players {
            let (delta, formula) = match (change, side == w) {
                (None, _) => (0, format!("0: valar.divisor is {div}")),
                (Some(c), true) => (c, format!("{c:+} = {core}")),
                (Some(c), false) => (-c, format!("{:+} = -{core}", -c)),
            };
            let (old, new) = bump(&mut self.valar, p, start, delta, true);
            cx.audit(|| end.change("valar", p, old, new, formula));
        }
    }

    fn maia_game(&mut self, end: &Ending, turn: i64, cx: &mut Cx) {
        let start = cx.params.int("maia", "start");
        let (fp, fp_n) = end.total(Side::Fp, &self.maia, start);
        let (ds, ds_n) = end.total(Side::Ds, &self.maia, start);
        // TmAv per side, as (sum, count): the team average of the positions.
        let tm_of = |side: Side| -> (i64, usize) {
            match (side, end.winner) {
                (Side::Fp, _) => (fp, fp_n),
                (Side::Ds, _) => (ds, ds_n),
                (Side::Neutral, Some(w)) => end.total(opposite(w), &self.maia, start),
                (Side::Neutral, None) => (fp + ds, fp_n + ds_n),
            }
        };
        let s_of = |side: Side| -> i64 {
            match end.winner {
                Some(w) if side == w => cx.params.int("maia", "win"),
                None if side != Side::Neutral => cx.params.int("maia", "draw"),
                _ => cx.params.int("maia", "loss"),
            }
        };
        let mut changes = Vec::new();
        for (&p, &side) in &end.players {
            let old = self.maia.get(p).map_or(start, |r| r.value);
            let (sum, n) = tm_of(side);
            let s = s_of(side);
            let delta =
                math::mean(sum, n).and_then(|tm| math::maia_change(tm, old, s, turn, end.factor));
            let tm_text = match math::mean(sum, n) {
                Some(tm) if tm.is_integer() => exact(tm),
                _ => format!("{sum}/{n}"),
            };
            let formula = match delta {
                Some(d) => format!(
                    "{d:+} = {}",
                    end.wrap(&format!("{tm_text} / {old} * {s} * sqrt({turn})"))
                ),
                None => format!("0: no change possible (rating {old}, turn {turn})"),
            };
            changes.push((p, delta.unwrap_or(0), formula));
        }
        for (p, delta, formula) in changes {
            let (old, new) = bump(&mut self.maia, p, start, delta, true);
            cx.audit(|| end.change("maia", p, old, new, formula));
        }
    }

    fn istari_game(&mut self, game: &Game, end: &Ending, e: &GameEnded, cx: &mut Cx) {
        let start = cx.params.int("istari", "start");
        let mut scored: BTreeSet<&str> = BTreeSet::new();
        for n in &e.nations {
            let Some(pos) = game.positions.get(&n.nation) else {
                continue;
            };
            let p = pos.controller.as_str();
            let key = (game.scenario.clone(), n.nation.clone());
            let par = self.pars.get(&key).copied().unwrap_or_default();
            let (delta, formula) = if par.games == 0 {
                (
                    0,
                    format!(
                        "+0: first {} game of {} sets its par ({} VP)",
                        game.scenario, n.nation, n.victory_points
                    ),
                )
            } else {
                let par_r = ratio(par.sum.into(), par.games.into());
                let d = math::istari_change(n.victory_points, par_r, end.factor);
                let x = format!("{} - {}", n.victory_points, exact(par_r));
                (
                    d,
                    format!("{d:+} = {} ({}: VP - par)", end.wrap(&x), n.nation),
                )
            };
            let counted = scored.insert(p);
            let (old, new) = bump(&mut self.istari, p, start, delta, counted);
            cx.audit(|| end.change("istari", p, old, new, formula));
        }
        for n in &e.nations {
            if game.positions.contains_key(&n.nation) {
                let par = self
                    .pars
                    .entry((game.scenario.clone(), n.nation.clone()))
                    .or_default();
                par.sum = par.sum.saturating_add(n.victory_points);
                par.games += 1;
            }
        }
    }

    fn ainur_game(&mut self, game: &Game, end: &Ending, e: &GameEnded, cx: &mut Cx) {
        let (Some((fp, ds)), Some(w)) = (&game.grudge, end.winner) else {
            if let Some((fp, ds)) = &game.grudge {
                let start = cx.params.int("ainur", "start");
                bump(&mut self.ainur, fp, start, 0, true);
                bump(&mut self.ainur, ds, start, 0, true);
            }
            return;
        };
        let (win, lose) = if w == Side::Fp { (fp, ds) } else { (ds, fp) };
        let start = cx.params.int("ainur", "start");
        let value = |t: &str| self.ainur.get(t).map_or(start, |r| r.value);
        let (wo, lo) = (value(win), value(lose));
        let eliminated: BTreeSet<&str> = e
            .nations
            .iter()
            .filter(|n| n.eliminated)
            .map(|n| n.nation.as_str())
            .collect();
        let at_start: Vec<&String> = game
            .positions
            .iter()
            .filter(|(_, p)| p.start_side == w)
            .map(|(n, _)| n)
            .collect();
        let n = at_start.len() as i64;
        let active = at_start
            .iter()
            .filter(|x| !eliminated.contains(x.as_str()))
            .count() as i64;
        let base = cx.params.int("ainur", "base");
        let change = math::ainur_change(base, lo, wo, active, n, end.factor).unwrap_or(0);
        let core = end.wrap(&format!("{base} * ({lo} / {wo}) * ({active} / {n})"));
        for (team, delta, formula) in [
            (win, change, format!("{change:+} = {core}")),
            (lose, -change, format!("{:+} = -{core}", -change)),
        ] {
            let (old, new) = bump(&mut self.ainur, team, start, delta, true);
            cx.audit(|| end.change("ainur", team, old, new, formula));
        }
    }

    fn nazgul_game(&mut self, game: &Game, end: &Ending) {
        if game.scenario.eq_ignore_ascii_case("bofa") {
            return;
        }
        for (&p, &side) in &end.players {
            let t = self.nazgul.entry(p.to_string()).or_default();
            t.played += 1;
            if end.winner == Some(side) {
                t.won += 1;
            }
        }
    }

    pub(super) fn apply_vote(&mut self, e: &VoteCast, cx: &mut Cx) {
        let Some(g) = self.games.get_mut(&e.game.0) else {
            return;
        };
        if !g.voters.insert(e.voter.clone()) {
            return;
        }
        let points = cx.params.ints("council", "points");
        let enemy = cx.params.int("council", "enemy");
        let mut credit: Vec<(String, i64, usize)> = Vec::new();
        for (i, p) in e.best_team_player.iter().enumerate() {
            credit.push((p.clone(), math::ballot_points(&points, i), 0));
        }
        for (i, n) in e.best_played_nation.iter().enumerate() {
            if let Some(pos) = g.positions.get(n) {
                credit.push((pos.controller.clone(), math::ballot_points(&points, i), 1));
            }
        }
        if let Some(pos) = e
            .best_enemy_nation
            .as_ref()
            .and_then(|n| g.positions.get(n))
        {
            credit.push((pos.controller.clone(), enemy, 2));
        }
        for (player, pts, category) in credit {
            let c: &mut Council = self.council.entry(player).or_default();
            match category {
                0 => c.team_player += pts,
                1 => c.played_nation += pts,
                _ => c.enemy_nation += pts,
            }
        }
    }

    pub(super) fn apply_registered(&mut self, e: &GrudgeTeamRegistered) {
        if self.teams.contains_key(&e.team) {
            return;
        }
        let members: BTreeSet<String> = e.members.iter().cloned().collect();
        let team = Team {
            coordinator: e.coordinator.clone(),
            original: members.clone(),
            members,
        };
        self.teams.insert(e.team.clone(), team);
    }

    pub(super) fn apply_roster(&mut self, e: &GrudgeRosterChanged, rec: &Record, cx: &mut Cx) {
        let Some(t) = self.teams.get_mut(&e.team) else {
            return;
        };
        for p in &e.removed {
            t.members.remove(p);
        }
        t.members.extend(e.added.iter().cloned());
        let cost = math::roster_cost(e.added.len(), e.removed.len());
        let start = cx.params.int("ainur", "start");
        let (old, new) = bump(&mut self.ainur, &e.team, start, -cost, false);
        let c = e.added.len().max(e.removed.len());
        cx.audit(|| Change {
            seq: rec.seq,
            at: rec.at,
            system: "ainur".into(),
            subject: e.team.clone(),
            old: Some(old.to_string()),
            new: new.to_string(),
            formula: format!(
                "-{cost} = -({c} * {c})  [roster change: added {:?}, removed {:?}]",
                e.added, e.removed
            ),
        });
    }

    pub(super) fn apply_tick(&mut self, e: &MonthlyTick, rec: &Record, cx: &mut Cx) {
        if !self.months.insert(e.month.clone()) {
            return;
        }
        let factor = cx.params.decimal("monthly", "factor");
        let mean = cx.params.int("monthly", "mean");
        let f_text = crate::num::decimal_string(factor, 2);
        let f_text = cx
            .params
            .value("monthly", "factor")
            .as_str()
            .map_or(f_text, str::to_string);
        for (name, map) in [
            ("valar", &mut self.valar),
            ("maia", &mut self.maia),
            ("istari", &mut self.istari),
            ("ainur", &mut self.ainur),
        ] {
            for (who, r) in map.iter_mut() {
                let old = r.value;
                r.value = math::monthly(old, factor, mean);
                if r.value != old {
                    let new = r.value;
                    cx.audit(|| Change {
                        seq: rec.seq,
                        at: rec.at,
                        system: name.into(),
                        subject: who.clone(),
                        old: Some(old.to_string()),
                        new: new.to_string(),
                        formula: format!(
                            "{:+} = round({f_text} * ({old} - {mean}) + {mean}) - {old}  [monthly adjustment {}]",
                            new - old,
                            e.month
                        ),
                    });
                }
            }
        }
    }
}

/// Who counts in a game at its end, on which side, and how much it earns.
fn ending<'a>(game: &'a Game, e: &'a GameEnded, rec: &'a Record, cx: &Cx) -> Ending<'a> {
    let positions: Vec<(&str, &str, Side)> = game
        .positions
        .iter()
        .map(|(n, p)| (n.as_str(), p.controller.as_str(), p.side))
        .collect();
    let mut players = BTreeMap::new();
    for &(_, p, s) in &positions {
        players.entry(p).or_insert(s);
    }
    let min = cx.params.int("small_game", "min_positions");
    let small = (game.positions.len() as i64) < min;
    let (factor, small_text) = if small {
        let f = cx.params.decimal("small_game", "factor");
        (f, Some(exact_decimal(cx, f)))
    } else {
        (Rational::from_integer(1), None)
    };
    let result = match winner_side(e.winner) {
        Some(w) => format!("{} won", side_name(w)),
        None => "draw".into(),
    };
    let size = if small {
        format!(", small game of {} positions", game.positions.len())
    } else {
        String::new()
    };
    Ending {
        rec,
        positions,
        players,
        winner: winner_side(e.winner),
        factor,
        small: small_text,
        note: format!("game {}: {result}, turn {}{size}", e.game.0, e.turn),
    }
}

/// The small-game factor as written in the rules (`0.5`).
fn exact_decimal(cx: &Cx, f: Rational) -> String {
    cx.params
        .value("small_game", "factor")
        .as_str()
        .map_or_else(|| exact(f), str::to_string)
}
