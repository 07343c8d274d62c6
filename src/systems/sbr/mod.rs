//! `sbr`: the Space Base Race tournament.
//!
//! # Events
//! - `sbr.tournament_created {tournament}`.
//! - `sbr.game_played {tournament, stage: seeding|group|bracket, match, game, group?,
//!   seats: [{seat: red|yellow|green|blue, player (null: a bot), bases?: [{piece, bonus}],
//!   score?}]}`: one game of a match; `group` names a group-stage match's group (its
//!   number as formed from the seeding), optional.
//!
//! # Ranges
//! Checked at append, naming the field and the values allowed: `game` 1 to
//! `games_per_match` (a seeding game is game 1); `score` 0 to the 21 bases' 89
//! squares all on bonus tiles, `89 * bonus_multiplier` ([`events::score_bounds`]).
//!
//! # Rules
//! - **Game score**: the sum of the sizes of the bases a player built, times
//!   `bonus_multiplier` (3) for a base on a bonus tile. The bases are the 21 Blokus
//!   polyominoes ([`math::PIECES`]: I1, I2, I3, V3, I4, L4, O4, T4, Z4, F, I5, L5, N, P,
//!   T5, U, V5, W, X, Y, Z5), each at most once per player per game. Given both `bases`
//!   and `score`, they must agree.
//! - **Seeding**: each player plays one game (game 1) in the red seat against three bots;
//!   its score gives the seed rank (equal scores share a seed rank).
//! - **Groups** of `group_size` (16) are formed from the seeding: `ceil(n / 16)` groups,
//!   the seeding order dealt in snake order (1, 2, …, k, k, …, 1, 1, 2, …), the last
//!   group passed over once it holds its `n - 16 (k - 1)` players; bots fill its seats
//!   ([`math::snake_groups`]). 20 players: group 1 seeds 1, 4, 5, 8, 9–20, group 2
//!   seeds 2, 3, 6, 7 and bots. A group match's players are of one group; its `group`,
//!   when given, names it (`"1"`, `"2"`, …), game by game: one game may give it and
//!   the next not, and a player's matches need not agree. A seeding or bracket game
//!   names none.
//! - **Group and bracket**: a match is `games_per_match` (4) games between the same
//!   players, each once in each seat; the match score is the sum of its games. Ties are
//!   broken by the highest single game of the match, then by seed rank; the top
//!   `advance` (2) advance. Scores reset at each stage. Only seeded players play the
//!   group stage; only the 1st and 2nd of a group (the top `advance` of the match the
//!   group was played down to) enter the bracket. The bracket's final match gives places
//!   1 to `podium` (3), as many as it has players.
//! - The projection shows each match's table, who advanced, and the final podium.
//!
//! # Decisions (each one is tested)
//! - **Rounds.** A match's round within its stage is 1 + the most matches any of its
//!   players already played in that stage. The ledger does not impose the draw (the
//!   published rules give their sample bracket as a figure only): it checks that every
//!   player of a new match is entitled to it: seeded (group stage) or qualified
//!   (bracket), not in another unfinished match of the stage, and not eliminated in it.
//! - **Seeding order** for the groups: seeding score, highest first; equal scores by
//!   player name (byte order), which anyone can redo from the table, unlike the order
//!   games were entered in.
//! - **Qualifiers** for the bracket are the 1st and 2nd of each group: a player who
//!   advanced from a complete group match that every player of their group not yet
//!   eliminated played. A group still playing more than one match sends nobody; a
//!   bracket game of anyone else is refused. The bundled 16-player tournament is one
//!   group played down in three rounds (A–D, E–F, G), so its bracket final is G's 1st
//!   and 2nd against two bots. Once a stage has begun, no game of an earlier stage is
//!   accepted.
//! - **Bracket seeds** ("seeded by score in final match before brackets") rank the
//!   qualifiers by their score in their last group match, then by their best game in
//!   it, then by seed rank: a match's own tie-breaks, so the 1st of a group match is
//!   never seeded below its 2nd, and across groups the same order holds. In the
//!   bracket, that bracket seed is the seed tie-break; in the group stage it is the
//!   seeding rank. Equal seeding scores share a seed rank. The two are two
//!   columns: `seed` ("Seeding rank") is the seeding rank wherever it is shown
//!   (the final ranking, the bracket seeds, a group match), `bracket_seed`
//!   ("Bracket seed") a bracket match's tie-break.
//! - **The final** is the completed bracket match that holds every qualifier not
//!   eliminated in another bracket match. Once it is complete the tournament is over
//!   and further games are rejected.
//! - **Bots** (`player: null`) fill seats; they never take a place, advance or need a
//!   score. A named player's seat needs `bases` or `score` (or both, agreeing).
//! - **Unbreakable ties** (equal score, best game and seed rank) share a place; a tie at
//!   the advancement cut lets every tied player through.
//! - **Final ranking** (the main table): podium first (its title says how many
//!   places the final gave: as many as it had players, up to `podium`), then everyone
//!   else by how far they got: the bracket (by round), then a group's qualifiers not
//!   yet in it, then the group stage by how near their group's last match so far they
//!   got (a group played down in fewer rounds is as far on at each), then the
//!   seeding; then place in their last match, score in it, best game in it and seed
//!   rank. `score` is the player's score in their last match (the
//!   seeding score for a player who only seeded).
//! - **The seeding table** gives each seeded player's group as the seeding stands:
//!   the draw a director schedules group matches by, settled once the group stage
//!   begins (no seeding game comes after it). The bracket seeds table shows once
//!   every group has sent its qualifiers, before the first bracket game: the draw
//!   of the bracket. A match's `advanced` column is blank
//!   until the match is complete, and in the final, from which nobody advances.
//! - **The list of tournaments** (`standings sbr` without `--tournament`, table
//!   `tournaments`): `player` and `score` are the champion (shown as "First
//!   place") and their score in the final, named as every table's player and
//!   score are; none before the final is played. No `rank`: tournaments are
//!   listed by id, not ranked.

mod check;
pub mod events;
pub(crate) mod gen;
pub mod math;
pub mod params;
mod report;
mod system;
mod view;

use serde::{Deserialize, Serialize};

use crate::systems::compact;
use crate::systems::twins::ById;

use crate::systems::sbr::events::{Color, Event, GamePlayed, Stage};
use crate::systems::{Event as AnyEvent, Record};
use crate::time::Micros;

use super::{Change, Cx, Projection, Selector};
use math::advances;
use params::Sbr;
pub(crate) use view::View;

/// Standings tables this module produces.
pub const TABLES: &[&str] = &["sbr"];

const SYS: &str = "sbr";

/// "None" for an interned id or an index.
const NONE: u32 = u32::MAX;

/// Interned strings (player names, match and group ids): each a `u32`, so the
/// per-game state holds no string.
pub(crate) type Names = crate::systems::compact::Interner;

/// A player's matches in one stage: how many, and the latest (an index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Track {
    pub count: u32,
    pub last: u32,
}

impl Default for Track {
    fn default() -> Self {
        Track {
            count: 0,
            last: NONE,
        }
    }
}

/// Everyone who seeded or played a match in a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Person {
    pub name: u32,
    /// The seeding game's match id (NONE: not seeded) and its score.
    pub seed_match: u32,
    pub seed_score: i64,
    /// Group and bracket matches.
    pub tracks: [Track; 2],
}

impl Person {
    fn seeded(&self) -> bool {
        self.seed_match != NONE
    }

    fn track(&self, stage: Stage) -> Option<Track> {
        match stage {
            Stage::Seeding => None,
            Stage::Group => Some(self.tracks[0]),
            Stage::Bracket => Some(self.tracks[1]),
        }
    }
}

/// A seat's byte: the color (0..=3), [`HAS_SCORE`], or [`NO_SEAT`].
const HAS_SCORE: u8 = 0x80;
const NO_SEAT: u8 = 0x40;

fn color_code(c: Color) -> u8 {
    c as u8
}

/// A group or bracket match (seeding games are kept on [`Person`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Match {
    pub id: u32,
    pub group: u32,
    pub stage: Stage,
    /// Round within the stage (see the module docs).
    pub round: u32,
    /// The named players (person indices, by name; bots are not listed).
    pub players: Box<[u32]>,
    /// Game numbers, in fold order.
    pub nums: Vec<i64>,
    /// Per game, per player (row-major): score, and seat byte.
    scores: Vec<i64>,
    #[serde(with = "crate::systems::compact::bytes")]
    seats: Vec<u8>,
}

impl Match {
    /// Its group's id, if it has one.
    pub fn group_name<'a>(&self, names: &'a Names) -> Option<&'a str> {
        (self.group != NONE).then(|| names.name(self.group))
    }

    pub fn games(&self) -> usize {
        self.nums.len()
    }

    fn slot(&self, person: u32) -> Option<usize> {
        self.players.iter().position(|&p| p == person)
    }

    /// A player's score in game `k` (by position), None when not given.
    fn score_at(&self, k: usize, j: usize) -> Option<i64> {
        let i = k * self.players.len() + j;
        (self.seats[i] & HAS_SCORE != 0).then(|| self.scores[i])
    }

    /// The (total, best game) of the player in slot `j`.
    fn totals_at(&self, j: usize) -> (i64, i64) {
        let mut total = 0;
        let mut best = None;
        for k in 0..self.nums.len() {
            let s = self.score_at(k, j).unwrap_or(0);
            total += s;
            best = best.max(Some(s));
        }
        (total, best.unwrap_or(0))
    }

    /// A player's (total, best game) over the games recorded so far.
    pub fn totals(&self, person: u32) -> (i64, i64) {
        self.slot(person).map_or((0, 0), |j| self.totals_at(j))
    }

    /// A player's score in the game numbered `game` (None: no such game or score).
    pub fn game_score(&self, game: i64, person: u32) -> Option<i64> {
        let k = self.nums.iter().position(|&n| n == game)?;
        self.score_at(k, self.slot(person)?)
    }

    /// How many recorded games had `person` in seat `c`.
    fn seat_count(&self, person: u32, c: Color) -> usize {
        let Some(j) = self.slot(person) else {
            return 0;
        };
        let n = self.players.len();
        (0..self.nums.len())
            .filter(|k| self.seats[k * n + j] & !HAS_SCORE == color_code(c))
            .count()
    }

    fn complete(&self, gpm: i64) -> bool {
        self.nums.len() as i64 >= gpm
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Tournament {
    pub id: String,
    pub created: Micros,
    /// The latest stage with a game (stages only move forward).
    pub stage: Option<Stage>,
    pub people: Vec<Person>,
    /// (name id, person index), by name id.
    by_name: Vec<(u32, u32)>,
    /// Every seeding score, highest first (seed rank = 1 + how many are higher).
    seed_scores: Vec<i64>,
    /// Seeding games' match ids, sorted.
    seed_ids: Vec<u32>,
    /// Group and bracket matches, in order of their first game.
    pub matches: Vec<Match>,
    /// (match id, index), by match id.
    match_ids: Vec<(u32, u32)>,
}

/// How a player's part in one stage stands after their last match of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    Playing,
    Advanced,
    Eliminated,
}

fn lookup(v: &[(u32, u32)], key: u32) -> Option<u32> {
    v.binary_search_by_key(&key, |e| e.0).ok().map(|i| v[i].1)
}

impl Tournament {
    pub fn person(&self, name: u32) -> Option<u32> {
        lookup(&self.by_name, name)
    }

    fn person_mut(&mut self, name: u32) -> u32 {
        match self.by_name.binary_search_by_key(&name, |e| e.0) {
            Ok(i) => self.by_name[i].1,
            Err(i) => {
                let ix = self.people.len() as u32;
                self.people.push(Person {
                    name,
                    seed_match: NONE,
                    seed_score: 0,
                    tracks: [Track::default(); 2],
                });
                self.by_name.insert(i, (name, ix));
                ix
            }
        }
    }

    pub fn match_ix(&self, id: u32) -> Option<u32> {
        lookup(&self.match_ids, id)
    }

    fn seed_match_used(&self, id: u32) -> bool {
        self.seed_ids.binary_search(&id).is_ok()
    }

    fn set_seed(&mut self, p: u32, score: i64, match_id: u32) {
        let old = &self.people[p as usize];
        if old.seeded() {
            let (s, m) = (old.seed_score, old.seed_match);
            if let Some(i) = self.seed_scores.iter().position(|&x| x == s) {
                self.seed_scores.remove(i);
            }
            if let Ok(i) = self.seed_ids.binary_search(&m) {
                self.seed_ids.remove(i);
            }
        }
        let i = self.seed_scores.partition_point(|&x| x > score);
        self.seed_scores.insert(i, score);
        if let Err(i) = self.seed_ids.binary_search(&match_id) {
            self.seed_ids.insert(i, match_id);
        }
        let person = &mut self.people[p as usize];
        person.seed_score = score;
        person.seed_match = match_id;
    }

    /// A seeded player's seed rank (equal scores share a rank).
    pub fn seed_rank(&self, p: u32) -> Option<u32> {
        let person = &self.people[p as usize];
        person
            .seeded()
            .then(|| 1 + self.seed_scores.partition_point(|&x| x > person.seed_score) as u32)
    }

    /// A player's latest match of a stage.
    pub fn last_match(&self, stage: Stage, p: u32) -> Option<&Match> {
        let t = self.people[p as usize].track(stage)?;
        self.matches.get(t.last as usize)
    }

    /// `p`'s score and best game in their last group match ("the final match
    /// before brackets"; 0, 0 for none).
    pub fn last_group_totals(&self, p: u32) -> (i64, i64) {
        self.last_match(Stage::Group, p)
            .map_or((0, 0), |m| m.totals(p))
    }
}

/// The Space Base Race projection: every tournament, by id.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    names: Names,
    tournaments: Tournaments,
}

/// Tournaments by id, each with its checkpoint bytes kept while it does not
/// change ([`compact::Kept`]).
pub(crate) type Tournaments = ById<compact::Kept<Tournament>>;

impl State {
    /// The checkpoint section: the bincode of the state (as serde writes it),
    /// with each unchanged tournament's bytes reused ([`compact::Kept`]).
    pub fn checkpoint_bytes(&self) -> bincode::Result<Vec<u8>> {
        use bincode::Options;
        let mut out = bincode::DefaultOptions::new().serialize(&self.names)?;
        compact::encode_map(&mut out, &self.tournaments, 0)?;
        Ok(out)
    }
}

fn sbr_event(rec: &Record) -> Option<&Event> {
    match &rec.event {
        AnyEvent::Sbr(e) => Some(e),
        _ => None,
    }
}

/// A seat's score: from its bases when given (the rule), else as reported.
fn seat_score(seat: &crate::systems::sbr::events::Seat, cx: &Cx) -> Option<i64> {
    match &seat.bases {
        Some(bases) => math::game_score_of(
            bases.iter().map(|b| (b.piece.as_str(), b.bonus)),
            cx.params.get::<Sbr>().bonus_multiplier,
        )
        .ok()
        .or(seat.score),
        None => seat.score,
    }
}

impl Projection for State {
    fn check(&self, rec: &Record, cx: &Cx) -> Result<(), String> {
        match sbr_event(rec) {
            Some(Event::TournamentCreated(t)) => {
                let id = &t.tournament.0;
                if self.tournaments.contains_key(id) {
                    return Err(format!(
                        "tournament {id} is already created (a tournament is created once)"
                    ));
                }
                (self.tournaments).check_twin((id, rec.seq), |s| cx.brings(s))
            }
            Some(Event::GamePlayed(g)) => match self.tournaments.get(&g.tournament.0) {
                Some(t) => check::game(View::new(t, &self.names, cx), g, cx),
                None => {
                    let known = self.tournaments.keys().map(String::as_str);
                    let hint = crate::events::did_you_mean(&g.tournament.0, known);
                    Err(check::not_created(g, rec.at, &hint))
                }
            },
            None => Ok(()),
        }
    }

    fn apply(&mut self, rec: &Record, cx: &mut Cx) {
        match sbr_event(rec) {
            Some(Event::TournamentCreated(t)) => {
                self.tournaments.insert(&t.tournament.0, rec.seq, || {
                    Tournament {
                        id: t.tournament.0.clone(),
                        created: rec.at,
                        ..Tournament::default()
                    }
                    .into()
                });
            }
            Some(Event::GamePlayed(g)) => {
                if let Some(t) = self.tournaments.get_mut(&g.tournament.0) {
                    apply_game(t, &mut self.names, g, rec, cx);
                }
            }
            None => {}
        }
    }
}

fn apply_game(t: &mut Tournament, names: &mut Names, g: &GamePlayed, rec: &Record, cx: &mut Cx) {
    t.stage = t.stage.max(Some(g.stage));
    if g.stage == Stage::Seeding {
        apply_seeding(t, names, g, rec, cx);
    } else {
        apply_match_game(t, names, g, rec, cx);
    }
}

fn apply_seeding(t: &mut Tournament, names: &mut Names, g: &GamePlayed, rec: &Record, cx: &mut Cx) {
    let Some(seat) = g.seats.iter().find(|s| s.player.is_some()) else {
        return;
    };
    let (Some(player), Some(score)) = (seat.player.as_deref(), seat_score(seat, cx)) else {
        return;
    };
    let name = names.intern(player);
    let match_id = names.intern(&g.match_.0);
    let p = t.person_mut(name);
    let person = &t.people[p as usize];
    let old = person.seeded().then_some(person.seed_score);
    t.set_seed(p, score, match_id);
    if cx.auditing() {
        let formula = format!(
            "seeding score {score} = {} (tournament {}, seeding game {})",
            seat_formula(seat, cx),
            t.id,
            g.match_
        );
        cx.audit(player, || Change {
            seq: rec.seq,
            at: rec.at,
            system: SYS.into(),
            subject: player.to_string(),
            old: old.map(|s| s.to_string()),
            new: score.to_string(),
            formula,
        });
    }
}

fn seat_formula(seat: &crate::systems::sbr::events::Seat, cx: &Cx) -> String {
    match &seat.bases {
        Some(bases) => {
            let refs: Vec<math::BaseRef> =
                bases.iter().map(|b| (b.piece.as_str(), b.bonus)).collect();
            math::score_formula(&refs, cx.params.get::<Sbr>().bonus_multiplier)
        }
        None => "score as reported (no bases given)".into(),
    }
}

fn apply_match_game(
    t: &mut Tournament,
    names: &mut Names,
    g: &GamePlayed,
    rec: &Record,
    cx: &mut Cx,
) {
    let id = names.intern(&g.match_.0);
    let ix = match t.match_ids.binary_search_by_key(&id, |e| e.0) {
        Ok(i) => t.match_ids[i].1,
        Err(i) => {
            let ix = t.matches.len() as u32;
            let m = new_match(t, names, g, id, ix);
            t.matches.push(m);
            t.match_ids.insert(i, (id, ix));
            ix
        }
    };
    let m = &t.matches[ix as usize];
    if m.nums.contains(&g.game) {
        return;
    }
    let before: Vec<i64> = if cx.auditing() {
        (0..m.players.len()).map(|j| m.totals_at(j).0).collect()
    } else {
        Vec::new()
    };
    let row: Vec<(i64, u8)> = m
        .players
        .iter()
        .map(|&p| {
            let name = names.name(t.people[p as usize].name);
            match g.seats.iter().find(|s| s.player.as_deref() == Some(name)) {
                Some(s) => match seat_score(s, cx) {
                    Some(x) => (x, color_code(s.seat) | HAS_SCORE),
                    None => (0, color_code(s.seat)),
                },
                None => (0, NO_SEAT),
            }
        })
        .collect();
    let m = &mut t.matches[ix as usize];
    m.nums.push(g.game);
    for (score, seat) in row {
        m.scores.push(score);
        m.seats.push(seat);
    }
    if cx.auditing() {
        audit_game(t, names, ix, g, &before, rec, cx);
    }
}

/// A match opened by its first game: its players and round.
fn new_match(t: &mut Tournament, names: &mut Names, g: &GamePlayed, id: u32, ix: u32) -> Match {
    let mut named: Vec<&str> = g.seats.iter().filter_map(|s| s.player.as_deref()).collect();
    named.sort_unstable();
    named.dedup();
    let players: Vec<u32> = named
        .iter()
        .map(|p| {
            let name = names.intern(p);
            t.person_mut(name)
        })
        .collect();
    let slot = if g.stage == Stage::Bracket { 1 } else { 0 };
    let round = 1 + players
        .iter()
        .map(|&p| t.people[p as usize].tracks[slot].count)
        .max()
        .unwrap_or(0);
    for &p in &players {
        let track = &mut t.people[p as usize].tracks[slot];
        track.count += 1;
        track.last = ix;
    }
    Match {
        id,
        group: g.group.as_ref().map_or(NONE, |x| names.intern(&x.0)),
        stage: g.stage,
        round,
        players: players.into(),
        nums: Vec::new(),
        scores: Vec::new(),
        seats: Vec::new(),
    }
}

/// One change per player of the game (their match total) and, when the game
/// completes the match, one per player with their place and whether they advance.
fn audit_game(
    t: &Tournament,
    names: &Names,
    ix: u32,
    g: &GamePlayed,
    before: &[i64],
    rec: &Record,
    cx: &mut Cx,
) {
    let m = &t.matches[ix as usize];
    // One subject's history: a game of a match they are not in changes
    // nothing of theirs.
    if let Some(subject) = cx.audit_subject() {
        let seated = g.seats.iter().any(|s| s.player.as_deref() == Some(subject));
        let in_match = (names.get(subject))
            .and_then(|n| t.person(n))
            .and_then(|person| m.slot(person))
            .is_some();
        if !seated && !in_match {
            return;
        }
    }
    let v = View::new(t, names, cx);
    let mut changes = Vec::new();
    for seat in &g.seats {
        let Some(p) = &seat.player else { continue };
        let slot = names
            .get(p)
            .and_then(|n| t.person(n))
            .and_then(|person| m.slot(person));
        let old = slot.map_or(0, |j| before[j]);
        let new = slot.map_or(0, |j| m.totals_at(j).0);
        changes.push(Change {
            seq: rec.seq,
            at: rec.at,
            system: SYS.into(),
            subject: p.clone(),
            old: (g.game != 1 || old != 0).then(|| old.to_string()),
            new: new.to_string(),
            formula: format!(
                "{:+} = {} (tournament {}, {} match {}, game {}, {} seat)",
                new - old,
                seat_formula(seat, cx),
                t.id,
                stage_name(m.stage),
                names.name(m.id),
                g.game,
                color_name(seat.seat)
            ),
        });
    }
    if v.complete(m) {
        changes.extend(completion_changes(&v, m, rec, cx));
    }
    for c in changes {
        let subject = c.subject.clone();
        cx.audit(&subject, || c);
    }
}

fn completion_changes(v: &View, m: &Match, rec: &Record, cx: &Cx) -> Vec<Change> {
    let advance = cx.params.get::<Sbr>().advance;
    let is_final = v.final_match().is_some_and(|f| f.id == m.id);
    let id = v.names.name(m.id);
    v.ranked(m)
        .into_iter()
        .map(|(place, l)| {
            let verdict = if is_final {
                "final place".to_string()
            } else if advances(place, advance) {
                format!("top {advance} advance: advances")
            } else {
                format!("top {advance} advance: eliminated")
            };
            Change {
                seq: rec.seq,
                at: rec.at,
                system: SYS.into(),
                subject: l.player.0.to_string(),
                old: Some(l.total.to_string()),
                new: l.total.to_string(),
                formula: format!(
                    "match {id} complete: place {place} (score {}, best game {}, seed {}); {verdict}",
                    l.total,
                    l.best,
                    l.seed.map_or("-".into(), |s| s.to_string())
                ),
            }
        })
        .collect()
}

pub(crate) fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::Seeding => "seeding",
        Stage::Group => "group",
        Stage::Bracket => "bracket",
    }
}

pub(crate) fn color_name(c: Color) -> &'static str {
    match c {
        Color::Red => "red",
        Color::Yellow => "yellow",
        Color::Green => "green",
        Color::Blue => "blue",
    }
}

impl State {
    /// Tournament ids, in id order.
    pub fn tournaments(&self) -> Vec<String> {
        self.tournaments.keys().cloned().collect()
    }

    pub fn standings(
        &self,
        table: &str,
        sel: &Selector,
        cx: &Cx,
    ) -> Result<crate::systems::table::Report, String> {
        report::standings(&self.tournaments, &self.names, table, sel, cx)
    }
}

#[cfg(test)]
mod tests;
