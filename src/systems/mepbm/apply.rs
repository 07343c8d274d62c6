//! The fold: how each event changes the ratings. Nothing here fails; whatever
//! does not fit (an unknown game, a nation not in it) is ignored, since the
//! checks rejected it at append.
//!
//! The hot path allocates little: names are interned once, the rules are read
//! from the typed parameter groups in force, and every audit formula is built
//! inside the `cx.audit` closure, so only `history` pays for text.

use crate::num::{decimal_string, Rational};
use crate::systems::mepbm::events::{
    Aligned, AllegianceChanged, GameEnded, GameStarted, GrudgeRosterChanged, GrudgeTeamRegistered,
    MonthlyTick, NationTakenOver, Rated, RatingSeeded, Side, VoteCast, Winner,
};
use crate::systems::params::Decimal;
use crate::systems::Record;

use super::check::side_name;
use super::math::{self, exact};
use super::params::{self, Ainur, Maia, Monthly, SmallGame, Valar};
use super::store::{Header, Interner, Rating, Ratings, Slot};
use super::{Council, Cx, State, Tally, Team};
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
    e: &'a GameEnded,
    /// The game's positions at the end, in nation-name order.
    slots: Vec<Slot>,
    /// Each counted player once, with his side; in name order when auditing.
    players: Vec<(u32, Side)>,
    winner: Option<Side>,
    /// 1, or `small_game.factor` for a game that started small.
    factor: Rational,
    /// `small_game.factor` for a game that started small.
    small: Option<&'a Decimal>,
}

impl Ending<'_> {
    /// `round(x)`, or `round(0.5 * (x))` in a small game.
    fn wrap(&self, x: &str) -> String {
        if let Some(f) = self.small {
            format!("round({} * ({x}))", f.text())
        } else {
            format!("round({x})")
        }
    }

    /// The reason every change of this game names.
    fn note(&self) -> String {
        let result = match self.winner {
            Some(w) => format!("{} won", side_name(w)),
            None => "draw".into(),
        };
        let size = if self.small.is_some() {
            format!(", small game of {} positions", self.slots.len())
        } else {
            String::new()
        };
        format!(
            "game {}: {result}, turn {}{size}",
            self.e.game.0, self.e.turn
        )
    }

    fn change(&self, system: &str, who: &str, old: i64, new: i64, formula: String) -> Change {
        Change {
            seq: self.rec.seq,
            at: self.rec.at,
            system: system.into(),
            subject: who.into(),
            old: Some(old.to_string()),
            new: new.to_string(),
            formula: format!("{formula}  [{}]", self.note()),
        }
    }

    /// The sum of `ratings` (start value when unrated) over the positions on
    /// `side`, and their number. `i128`:
    /// fewer than 2^63 ratings of magnitude at most 2^63 cannot pass it.
    fn total(&self, side: Side, ratings: &Ratings, start: i64) -> (i128, usize) {
        let mut sum = 0i128;
        let mut n = 0usize;
        for s in self.slots.iter().filter(|s| s.side() == side) {
            sum += i128::from(ratings.get(s.player).map_or(start, |r| r.value));
            n += 1;
        }
        (sum, n)
    }
}

/// Add `delta` to `who`'s rating (created at `start`) and count a game.
fn bump(map: &mut Ratings, who: u32, start: i64, delta: i64, game: bool) -> (i64, i64) {
    let r = map.entry(
        who,
        Rating {
            value: start,
            games: 0,
        },
    );
    let old = r.value;
    r.value = old.saturating_add(delta);
    if game {
        r.games = r.games.saturating_add(1);
    }
    (old, r.value)
}

impl State {
    pub(super) fn apply_seeded(&mut self, e: &RatingSeeded, rec: &Record, cx: &mut Cx) {
        let id = self.names.intern(&e.player);
        let (name, map) = match e.system {
            Rated::Valar => ("valar", &mut self.valar),
            Rated::Maia => ("maia", &mut self.maia),
            Rated::Istari => ("istari", &mut self.istari),
            Rated::Ainur => ("ainur", &mut self.ainur),
        };
        if map.contains(id) {
            return;
        }
        map.entry(
            id,
            Rating {
                value: e.value,
                games: 0,
            },
        );
        cx.audit(&e.player, || Change {
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
        // One lookup: a game already started keeps the id it has.
        let known = self.games.len();
        let id = self.games.intern(&e.game.0);
        if (id as usize) < known {
            return;
        }
        debug_assert_eq!(id as usize, self.headers.len());
        self.names
            .prefetch(e.positions.iter().map(|p| p.player.as_str()));
        // Nation-name order, as the rules read a game's positions.
        let mut order: Vec<&crate::systems::mepbm::events::Position> = e.positions.iter().collect();
        order.sort_by(|a, b| a.nation.cmp(&b.nation));
        order.dedup_by(|a, b| a.nation == b.nation);
        for p in order {
            let nation = self.places.intern(&p.nation);
            let slot = Slot::new(nation, self.names.intern(&p.player), p.side);
            self.slots.push(slot);
            if let Some(c) = &p.category {
                let c = self.places.intern(c);
                self.categories.insert((id, nation), c);
            }
        }
        let scenario = self.places.intern(&e.scenario);
        let grudge = e
            .grudge
            .as_ref()
            .map(|g| (self.names.intern(&g.fp), self.names.intern(&g.ds)));
        self.headers.push(Header {
            ended: None,
            scenario,
            grudge,
            slot_end: u32::try_from(self.slots.len()).expect("fewer than 2^32 positions"),
        });
    }

    /// The slot of `nation` in game `game`, for a change.
    fn slot_mut(&mut self, game: &str, nation: &str) -> Option<&mut Slot> {
        let gi = self.game_index(game)?;
        let range = self.slot_range(gi);
        let at = self.find_nation(&self.slots[range.clone()], nation)?;
        Some(&mut self.slots[range.start + at])
    }

    pub(super) fn apply_takeover(&mut self, e: &NationTakenOver) {
        let player = self.names.intern(&e.player);
        if let Some(s) = self.slot_mut(&e.game.0, &e.nation) {
            s.player = player;
        }
    }

    pub(super) fn apply_allegiance(&mut self, e: &AllegianceChanged) {
        if let Some(s) = self.slot_mut(&e.game.0, &e.nation) {
            s.set_side(aligned(e.side));
        }
    }

    pub(super) fn apply_ended(&mut self, e: &GameEnded, rec: &Record, cx: &mut Cx) {
        let Some(gi) = self
            .game_index(&e.game.0)
            .filter(|&i| self.headers[i].ended.is_none())
        else {
            return;
        };
        let small = cx.params.shared::<SmallGame>();
        let by_name = cx.auditing();
        let end = ending(&self.names, self.slots_of(gi), e, rec, &small, by_name);
        let header = self.headers[gi];
        self.valar_game(&end, cx);
        self.maia_game(&end, e.turn, cx);
        self.istari_game(gi as u32, header.scenario, &end, cx);
        self.ainur_game(header.grudge, &end, cx);
        self.nazgul_game(header.scenario, &end, cx);
        self.headers[gi].ended = Some(rec.at);
    }

    fn valar_game(&mut self, end: &Ending, cx: &mut Cx) {
        let &Valar {
            base,
            divisor: div,
            start,
            min_change,
        } = cx.params.get();
        let Some(w) = end.winner else {
            for &(p, _) in &end.players {
                bump(&mut self.valar, p, start, 0, true);
            }
            return;
        };
        let (tw, _) = end.total(w, &self.valar, start);
        let (tl, _) = end.total(opposite(w), &self.valar, start);
        let formula = math::valar_change(base, div, tw, tl, end.factor);
        let change = formula.map(|c| math::floored(c, min_change));
        for &(p, side) in &end.players {
            let won = side == w;
            let delta = match change {
                None => 0,
                Some(c) if won => c,
                Some(c) => -c,
            };
            let (old, new) = bump(&mut self.valar, p, start, delta, true);
            cx.audit_of(
                || self.names.name(p),
                || {
                    let mut core = end.wrap(&format!("{base} + ({tl} - {tw}) / {div}"));
                    if let (Some(m), Some(f)) = (min_change, formula) {
                        core = format!("max({m}, {core} = {f})  [valar.min_change]");
                    }
                    let formula = match change {
                        None if div <= 0 => format!("0: valar.divisor is {div}"),
                        None => format!(
                            "0: {core} passes the range of ratings (64-bit integers); no change"
                        ),
                        Some(_) if won => format!("{delta:+} = {core}"),
                        Some(_) => format!("{delta:+} = -{core}"),
                    };
                    end.change("valar", self.names.name(p), old, new, formula)
                },
            );
        }
    }

    fn maia_game(&mut self, end: &Ending, turn: i64, cx: &mut Cx) {
        let &Maia {
            win,
            draw,
            loss,
            start,
        } = cx.params.get();
        let (fp, fp_n) = end.total(Side::Fp, &self.maia, start);
        let (ds, ds_n) = end.total(Side::Ds, &self.maia, start);
        // TmAv per side, as (sum, count): the team average of the positions.
        let tm_of = |side: Side| -> (i128, usize) {
            match (side, end.winner) {
                (Side::Fp, _) => (fp, fp_n),
                (Side::Ds, _) => (ds, ds_n),
                (Side::Neutral, Some(w)) => end.total(opposite(w), &self.maia, start),
                (Side::Neutral, None) => (fp + ds, fp_n + ds_n),
            }
        };
        let s_of = |side: Side| -> i64 {
            match end.winner {
                Some(w) if side == w => win,
                None if side != Side::Neutral => draw,
                _ => loss,
            }
        };
        // (player, delta, old, TmAv as (sum, count), S): all read before any change.
        let mut changes = Vec::with_capacity(end.players.len());
        for &(p, side) in &end.players {
            let old = self.maia.get(p).map_or(start, |r| r.value);
            let (sum, n) = tm_of(side);
            let s = s_of(side);
            let delta = math::maia_change(sum, n, old, s, turn, end.factor);
            changes.push((p, delta, (sum, n), s));
        }
        for (p, delta, (sum, n), s) in changes {
            let (old, new) = bump(&mut self.maia, p, start, delta.unwrap_or(0), true);
            cx.audit_of(
                || self.names.name(p),
                || {
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
                    end.change("maia", self.names.name(p), old, new, formula)
                },
            );
        }
    }

    fn istari_game(&mut self, gi: u32, scenario: u32, end: &Ending, cx: &mut Cx) {
        let start = cx.params.get::<params::Istari>().start;
        // Each result's slot, found once (None: not a nation of the game).
        let found: Vec<Option<Slot>> = end
            .e
            .nations
            .iter()
            .map(|n| {
                let id = self.places.get(&n.nation)?;
                end.slots.iter().find(|s| s.nation == id).copied()
            })
            .collect();
        let mut scored: Vec<u32> = Vec::new();
        for (n, slot) in end.e.nations.iter().zip(&found) {
            let Some(slot) = slot else {
                continue;
            };
            let p = slot.player;
            let key = self.par_key(gi, slot.nation);
            let par = self.pars.get(&(scenario, key)).copied().unwrap_or_default();
            let delta = match par.games {
                0 => Some(0),
                _ => math::istari_change(n.victory_points, par.sum, par.games, end.factor),
            };
            let counted = !scored.contains(&p);
            if counted {
                scored.push(p);
            }
            let (old, new) = bump(&mut self.istari, p, start, delta.unwrap_or(0), counted);
            cx.audit_of(
                || self.names.name(p),
                || {
                    let of = self.par_name(key, &n.nation);
                    let formula = match par.games {
                        0 => format!(
                            "+0: first {} game of {of} sets its par ({} VP)",
                            self.places.name(scenario),
                            n.victory_points
                        ),
                        _ => {
                            // The par as its sum over its games, not reduced:
                            // the games it is the mean of are counted.
                            let par_text = match par.games {
                                1 => par.sum.to_string(),
                                g => format!("{}/{g}", par.sum),
                            };
                            let x = format!("{} - {par_text}", n.victory_points);
                            match delta {
                                Some(d) => {
                                    format!("{d:+} = {} ({of}: VP - par)", end.wrap(&x))
                                }
                                None => format!("0: no change possible ({x}, {of})"),
                            }
                        }
                    };
                    end.change("istari", self.names.name(p), old, new, formula)
                },
            );
        }
        for (n, slot) in end.e.nations.iter().zip(&found) {
            if let Some(slot) = slot {
                let key = self.par_key(gi, slot.nation);
                let par = self.pars.entry((scenario, key)).or_default();
                par.sum = par.sum.saturating_add(n.victory_points);
                par.games = par.games.saturating_add(1);
            }
        }
    }

    fn ainur_game(&mut self, grudge: Option<(u32, u32)>, end: &Ending, cx: &mut Cx) {
        let &Ainur { base, start, .. } = cx.params.get();
        let (Some((fp, ds)), Some(w)) = (grudge, end.winner) else {
            if let Some((fp, ds)) = grudge {
                bump(&mut self.ainur, fp, start, 0, true);
                bump(&mut self.ainur, ds, start, 0, true);
            }
            return;
        };
        let (win, lose) = if w == Side::Fp { (fp, ds) } else { (ds, fp) };
        let value = |t: u32| self.ainur.get(t).map_or(start, |r| r.value);
        let (wo, lo) = (value(win), value(lose));
        let eliminated: Vec<u32> = end
            .e
            .nations
            .iter()
            .filter(|n| n.eliminated)
            .filter_map(|n| self.places.get(&n.nation))
            .collect();
        let at_start = end.slots.iter().filter(|s| s.start_side() == w);
        let n = at_start.clone().count() as i64;
        let active = at_start.filter(|s| !eliminated.contains(&s.nation)).count() as i64;
        let change = math::ainur_change(base, lo, wo, active, n, end.factor).unwrap_or(0);
        for (team, delta, sign) in [(win, change, ""), (lose, -change, "-")] {
            let (old, new) = bump(&mut self.ainur, team, start, delta, true);
            cx.audit_of(
                || self.names.name(team),
                || {
                    let core = end.wrap(&format!("{base} * ({lo} / {wo}) * ({active} / {n})"));
                    let side = side_name(w);
                    let formula = format!(
                        "{delta:+} = {sign}{core}; {active} of the {n} nations that started on \
                         {side} not eliminated"
                    );
                    end.change("ainur", self.names.name(team), old, new, formula)
                },
            );
        }
    }

    fn nazgul_game(&mut self, scenario: u32, end: &Ending, cx: &mut Cx) {
        if self.places.name(scenario).eq_ignore_ascii_case("bofa") {
            return;
        }
        let shown = |t: Tally| decimal_string(math::nazgul_percent(t.won, t.played), 1);
        for &(p, side) in &end.players {
            let t = self.nazgul.entry_or_default(p);
            let before = *t;
            t.played = t.played.saturating_add(1);
            if end.winner == Some(side) {
                t.won = t.won.saturating_add(1);
            }
            let after = *t;
            cx.audit_of(
                || self.names.name(p),
                || Change {
                    seq: end.rec.seq,
                    at: end.rec.at,
                    system: "nazgul".into(),
                    subject: self.names.name(p).into(),
                    old: (before.played > 0).then(|| shown(before)),
                    new: shown(after),
                    formula: format!(
                        "{} = 100 * {} won / {} played  [{}]",
                        shown(after),
                        after.won,
                        after.played,
                        end.note()
                    ),
                },
            );
        }
    }

    pub(super) fn apply_vote(&mut self, e: &VoteCast, rec: &Record, cx: &mut Cx) {
        self.games.prefetch([e.game.0.as_str()]);
        let named = e.best_team_player.iter().map(String::as_str);
        self.names.prefetch(named.chain([e.voter.as_str()]));
        let Some(gi) = self.game_index(&e.game.0) else {
            return;
        };
        if !self.record_voter(gi, &e.voter) {
            return;
        }
        let rules = cx.params.get::<params::Council>();
        let range = self.slot_range(gi);
        let controller = |s: &State, n: &str| {
            let slots = &s.slots[range.clone()];
            s.find_nation(slots, n).map(|i| slots[i].player)
        };
        // (player, points, category: 0 team player, 1 played nation, 2 enemy
        // nation, the choice's place, the nation)
        let mut credit: Vec<(u32, i64, u8, usize, &str)> = Vec::new();
        for (i, p) in e.best_team_player.iter().enumerate() {
            let id = self.names.intern(p);
            credit.push((id, math::ballot_points(&rules.points, i), 0, i, ""));
        }
        for (i, n) in e.best_played_nation.iter().enumerate() {
            if let Some(p) = controller(self, n) {
                credit.push((p, math::ballot_points(&rules.points, i), 1, i, n));
            }
        }
        if let Some((p, n)) =
            (e.best_enemy_nation.as_ref()).and_then(|n| Some((controller(self, n)?, n.as_str())))
        {
            credit.push((p, rules.enemy, 2, 0, n));
        }
        for (player, pts, category, i, nation) in credit {
            let c: &mut Council = self.council.entry_or_default(player);
            let old = c.total();
            match category {
                0 => c.team_player = c.team_player.saturating_add(pts),
                1 => c.played_nation = c.played_nation.saturating_add(pts),
                _ => c.enemy_nation = c.enemy_nation.saturating_add(pts),
            }
            let new = c.total();
            cx.audit_of(
                || self.names.name(player),
                || {
                    let choice = ["1st", "2nd", "3rd"].get(i).copied().unwrap_or("later");
                    let what = match category {
                        0 => format!("best team player, {choice} choice,"),
                        1 => format!("best played nation ({nation}), {choice} choice,"),
                        _ => format!("best enemy nation ({nation})"),
                    };
                    Change {
                        seq: rec.seq,
                        at: rec.at,
                        system: "council".into(),
                        subject: self.names.name(player).into(),
                        old: Some(old.to_string()),
                        new: new.to_string(),
                        formula: format!(
                            "{pts:+}: {what} on {}'s ballot  [game {}]",
                            e.voter, e.game.0
                        ),
                    }
                },
            );
        }
    }

    /// Count `voter`'s ballot in game `gi`; false if it was already counted.
    fn record_voter(&mut self, gi: usize, voter: &str) -> bool {
        let range = self.slot_range(gi);
        let id = self.names.get(voter);
        let first = id.and_then(|id| {
            self.slots[range.clone()]
                .iter()
                .position(|s| s.player == id)
        });
        if let Some(i) = first {
            let slot = &mut self.slots[range.start + i];
            return !std::mem::replace(&mut slot.voted, true);
        }
        // A voter who controls nothing: refused by the checks, kept apart.
        let id = self.names.intern(voter);
        self.odd_voters.insert((gi as u32, id))
    }

    pub(super) fn apply_registered(&mut self, e: &GrudgeTeamRegistered) {
        let team = self.names.intern(&e.team);
        if self.teams.contains_key(&team) {
            return;
        }
        let mut original: Vec<u32> = e.members.iter().map(|m| self.names.intern(m)).collect();
        original.sort_unstable();
        original.dedup();
        let team_rec = Team {
            coordinator: self.names.intern(&e.coordinator),
            members: original.iter().copied().collect(),
            original,
        };
        self.teams.insert(team, team_rec);
    }

    pub(super) fn apply_roster(&mut self, e: &GrudgeRosterChanged, rec: &Record, cx: &mut Cx) {
        let team = self.names.intern(&e.team);
        if !self.teams.contains_key(&team) {
            return;
        }
        let removed: Vec<u32> = e.removed.iter().filter_map(|p| self.names.get(p)).collect();
        let added: Vec<u32> = e.added.iter().map(|p| self.names.intern(p)).collect();
        if let Some(t) = self.teams.get_mut(&team) {
            for p in &removed {
                t.members.remove(p);
            }
            t.members.extend(added);
        }
        let cost = math::roster_cost(e.added.len(), e.removed.len());
        let start = cx.params.get::<Ainur>().start;
        let (old, new) = bump(&mut self.ainur, team, start, -cost, false);
        let c = e.added.len().max(e.removed.len());
        cx.audit(&e.team, || Change {
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
        let monthly = cx.params.shared::<Monthly>();
        let (factor, mean) = (monthly.factor.value(), monthly.mean);
        let audit = cx.auditing();
        for (name, map) in [
            ("valar", &mut self.valar),
            ("maia", &mut self.maia),
            ("istari", &mut self.istari),
            ("ainur", &mut self.ainur),
        ] {
            if !audit {
                tick_all(map, factor, mean);
                continue;
            }
            tick_audited(&self.names, name, map, rec, e, &monthly, cx);
        }
    }
}

/// The monthly adjustment of every rating in `map`, in storage order.
/// Ratings bunch up near the mean, so each value's adjustment is remembered
/// in a small table indexed by the value's low bits ([`math::monthly`]
/// divides an `i128`, a few times the cost of a look-up).
fn tick_all(map: &mut Ratings, factor: Rational, mean: i64) {
    const SLOTS: usize = 4096;
    let mut seen: Vec<Option<(i64, i64)>> = vec![None; SLOTS];
    for r in map.values_mut() {
        let v = r.value;
        let slot = &mut seen[v as usize % SLOTS];
        r.value = match *slot {
            Some((old, new)) if old == v => new,
            _ => {
                let new = math::monthly(v, factor, mean);
                *slot = Some((v, new));
                new
            }
        };
    }
}

/// The monthly adjustment of one system with its audit trail, in name order.
fn tick_audited(
    names: &Interner,
    system: &str,
    map: &mut Ratings,
    rec: &Record,
    e: &MonthlyTick,
    monthly: &Monthly,
    cx: &mut Cx,
) {
    let (factor, mean, f_text) = (monthly.factor.value(), monthly.mean, monthly.factor.text());
    // One player's history: tick everyone else the fast way, then audit that one.
    let ids: Vec<u32> = match cx.audit_subject() {
        Some(s) => {
            let one = names
                .get(s)
                .and_then(|id| Some((id, map.get_mut(id)?.value)));
            tick_all(map, factor, mean);
            // Put the subject's value back: the loop below ticks it, audited.
            if let Some((id, v)) = one {
                if let Some(r) = map.get_mut(id) {
                    r.value = v;
                }
            }
            one.map(|(id, _)| id).into_iter().collect()
        }
        None => {
            let mut ids: Vec<u32> = map.ids().collect();
            names.sort_by_name(&mut ids);
            ids
        }
    };
    for id in ids {
        let Some(r) = map.get_mut(id) else {
            continue;
        };
        let old = r.value;
        r.value = math::monthly(old, factor, mean);
        if r.value == old {
            continue;
        }
        let new = r.value;
        cx.audit_of(|| names.name(id), || Change {
            seq: rec.seq,
            at: rec.at,
            system: system.into(),
            subject: names.name(id).to_string(),
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

/// Who counts in a game at its end, on which side, and how much it earns.
fn ending<'a>(
    names: &Interner,
    slots: &[Slot],
    e: &'a GameEnded,
    rec: &'a Record,
    small_game: &'a SmallGame,
    by_name: bool,
) -> Ending<'a> {
    let mut players: Vec<(u32, Side)> = Vec::with_capacity(slots.len());
    for s in slots {
        if !players.iter().any(|&(p, _)| p == s.player) {
            players.push((s.player, s.side()));
        }
    }
    // Only the audit trail's order depends on this order (each player's change
    // is computed from values read before any of them changes).
    if by_name {
        players.sort_unstable_by(|a, b| names.name(a.0).cmp(names.name(b.0)));
    }
    let small = ((slots.len() as i64) < small_game.min_positions).then_some(&small_game.factor);
    let factor = small.map_or(Rational::from_integer(1), Decimal::value);
    Ending {
        rec,
        e,
        slots: slots.to_vec(),
        players,
        winner: winner_side(e.winner),
        factor,
        small,
    }
}
