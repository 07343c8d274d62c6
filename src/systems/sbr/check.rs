//! Validation of `sbr.game_played` against the tournament folded so far.
//! Every message names the tournament, match, game, player or seat and the rule.

use crate::systems::sbr::events::{GamePlayed, Seat, Stage};
use crate::time::{format_short, Micros};

use super::math::{self, BaseRef};
use super::params::Sbr;
use super::{color_code, color_name, stage_name, Cx, Match, Standing, View};

/// The refusal of a game, dated `at`, of a tournament not created by then
/// (`hint`: a "did you mean" of the tournaments created, or empty).
pub(super) fn not_created(g: &GamePlayed, at: Micros, hint: &str) -> String {
    format!(
        "tournament {} is not created at {}, the game's date{hint} (an sbr.tournament_created \
         dated no later creates it; if one is dated after it, correct its date: \
         `laurel correct SEQ FILE --reason TEXT`, its SEQ in `laurel log`)",
        g.tournament,
        format_short(at)
    )
}

/// Check one game of tournament `t`.
pub(super) fn game(t: View, g: &GamePlayed, cx: &Cx) -> Result<(), String> {
    let inner = || -> Result<(), String> {
        seats(g, cx)?;
        stage_order(&t, g)?;
        if let Some(fin) = t.final_match() {
            return Err(format!(
                "the tournament is over: its final match {} is complete",
                t.names.name(fin.id)
            ));
        }
        match g.stage {
            Stage::Seeding => seeding(&t, g),
            _ => match_game(&t, g, cx),
        }
    };
    inner().map_err(|e| {
        format!(
            "tournament {}, {} match {}, game {}: {e}",
            t.t.id,
            stage_name(g.stage),
            g.match_,
            g.game
        )
    })
}

/// Seats red, yellow, green and blue each once; a player in one seat at most;
/// each named player's score given or computable, and agreeing with the bases.
fn seats(g: &GamePlayed, cx: &Cx) -> Result<(), String> {
    let colors = g
        .seats
        .iter()
        .fold(0u8, |acc, s| acc | 1 << color_code(s.seat));
    if g.seats.len() != 4 || colors != 0b1111 {
        let got: Vec<&str> = g.seats.iter().map(|s| color_name(s.seat)).collect();
        return Err(format!(
            "seats must be red, yellow, green and blue, each once (got {})",
            if got.is_empty() {
                "none".to_string()
            } else {
                got.join(", ")
            }
        ));
    }
    let mut players: Vec<&str> = Vec::with_capacity(4);
    let mult = cx.params.get::<Sbr>().bonus_multiplier;
    for s in &g.seats {
        if let Some(p) = &s.player {
            if p.is_empty() {
                return Err(format!(
                    "{} seat: a player name must not be empty",
                    color_name(s.seat)
                ));
            }
            if players.contains(&p.as_str()) {
                return Err(format!(
                    "player {p} holds two seats (one seat per player per game)"
                ));
            }
            players.push(p);
        }
        seat_score(s, mult)?;
    }
    Ok(())
}

/// `mult`: the `bonus_multiplier` in force, looked up once per game.
fn seat_score(s: &Seat, mult: i64) -> Result<(), String> {
    let who = || match &s.player {
        Some(p) => format!("player {p} ({} seat)", color_name(s.seat)),
        None => format!("bot ({} seat)", color_name(s.seat)),
    };
    if let Some(x) = s.score {
        if x < 0 {
            return Err(format!("{}: a score cannot be negative", who()));
        }
        super::events::score_bounds(mult)
            .check(x)
            .map_err(|m| format!("{}: {m}", who()))?;
    }
    let Some(bases) = &s.bases else {
        if s.player.is_some() && s.score.is_none() {
            return Err(format!("{}: needs `bases` or `score`", who()));
        }
        return Ok(());
    };
    let refs = || bases.iter().map(|b| (b.piece.as_str(), b.bonus));
    let computed = math::game_score_of(refs(), mult).map_err(|e| format!("{}: {e}", who()))?;
    match s.score {
        Some(given) if given != computed => Err(format!(
            "{}: score {given} does not agree with its bases ({} = {computed})",
            who(),
            math::score_formula(&refs().collect::<Vec<BaseRef>>(), mult)
        )),
        _ => Ok(()),
    }
}

/// Stages run seeding, group, bracket: none comes back once a later one began.
fn stage_order(t: &View, g: &GamePlayed) -> Result<(), String> {
    match t.t.stage {
        Some(now) if now > g.stage => Err(format!(
            "the tournament is already in its {} stage; a {} game comes too late \
             (stages run seeding, group, bracket)",
            stage_name(now),
            stage_name(g.stage)
        )),
        _ => Ok(()),
    }
}

/// A seeding game: game 1, the player in red against three bots, once per player.
fn seeding(t: &View, g: &GamePlayed) -> Result<(), String> {
    if g.game != 1 {
        return Err("a seeding game is game 1 (one seeding game per player)".into());
    }
    if g.group.is_some() {
        return Err("`group` belongs to group-stage games only".into());
    }
    let mut named = g.seats.iter().filter(|s| s.player.is_some());
    let player =
        match (named.next(), named.next()) {
            (Some(s), None) if s.seat == crate::systems::sbr::events::Color::Red => {
                s.player.as_deref().unwrap_or_default()
            }
            _ => return Err(
                "a seeding game has one player, in the red seat, against three bots (player: null)"
                    .into(),
            ),
        };
    let names = t.names;
    let person = names.get(player).and_then(|n| t.t.person(n));
    if let Some(prev) = person
        .map(|p| &t.t.people[p as usize])
        .filter(|p| p.seeded())
    {
        return Err(format!(
            "player {player} is already seeded (seeding game {}); one seeding game per player",
            names.name(prev.seed_match)
        ));
    }
    if names
        .get(&g.match_.0)
        .is_some_and(|id| t.t.match_ix(id).is_some() || t.t.seed_match_used(id))
    {
        return Err(format!(
            "match id {} is already used in this tournament",
            g.match_
        ));
    }
    Ok(())
}

/// A group or bracket game.
fn match_game(t: &View, g: &GamePlayed, cx: &Cx) -> Result<(), String> {
    let games = cx.params.get::<Sbr>().games_per_match;
    if g.game < 1 || g.game > games {
        return Err(format!(
            "game must be 1 to {games} (a match is {games} games)"
        ));
    }
    if g.group.is_some() && g.stage != Stage::Group {
        return Err("`group` belongs to group-stage games only".into());
    }
    let id = t.names.get(&g.match_.0);
    if id.is_some_and(|id| t.t.seed_match_used(id)) {
        return Err(format!("match id {} is already a seeding game", g.match_));
    }
    let mut players: Vec<&str> = g.seats.iter().filter_map(|s| s.player.as_deref()).collect();
    players.sort_unstable();
    players.dedup();
    match id.and_then(|id| t.t.match_ix(id)) {
        Some(ix) => next_game(t, &t.t.matches[ix as usize], g, &players, games),
        None => new_match(t, g, &players),
    }
}

/// A later game of a known match: same stage, group and players; a new game
/// number; nobody in a seat they already played more often than the rule allows.
fn next_game(
    t: &View,
    m: &Match,
    g: &GamePlayed,
    players: &[&str],
    games: i64,
) -> Result<(), String> {
    let names = t.names;
    let id = names.name(m.id);
    if m.stage != g.stage {
        return Err(format!("match {id} is a {} match", stage_name(m.stage)));
    }
    // `group` is optional: one game of the match may give it, another not;
    // given, it is the match's (or, the match's first games having left it
    // out, the players' group).
    match (m.group_name(names), g.group.as_ref().map(|x| x.0.as_str())) {
        (Some(mine), Some(given)) if mine != given => {
            return Err(format!("match {id} is in group {mine}, not {given}"));
        }
        (None, Some(given)) if g.stage != Stage::Group => {
            return Err(format!(
                "match {id} is a {} match, in no group (not {given})",
                stage_name(m.stage)
            ));
        }
        (None, Some(_)) => same_group(t, g, players)?,
        _ => {}
    }
    if m.nums.contains(&g.game) {
        return Err(format!(
            "game {} of match {id} is already recorded (a game is recorded once; to change \
             it: `laurel correct SEQ FILE --reason TEXT`, its SEQ in `laurel log`)",
            g.game
        ));
    }
    let mut theirs: Vec<&str> = m.players.iter().map(|&p| t.player(p)).collect();
    theirs.sort_unstable();
    if theirs != players {
        return Err(format!(
            "match {id} is played by {}; this game has {} (a match keeps the same players)",
            list(&theirs),
            list(players)
        ));
    }
    // Each player once in each seat over 4 games (ceil(games/4) times in general).
    let per_seat = (games + 3) / 4;
    for s in g.seats.iter() {
        let Some(name) = s.player.as_deref() else {
            continue;
        };
        let person = names.get(name).and_then(|n| t.t.person(n));
        let before = person.map_or(0, |p| m.seat_count(p, s.seat)) as i64;
        if before >= per_seat {
            return Err(format!(
                "player {name} already played the {} seat in match {id} \
                 (each player plays each seat once)",
                color_name(s.seat),
            ));
        }
    }
    Ok(())
}

/// The first game of a match: every player entitled to play it.
fn new_match(t: &View, g: &GamePlayed, players: &[&str]) -> Result<(), String> {
    if players.is_empty() {
        return Err("a match needs at least one player (bots only fill seats)".into());
    }
    for p in players {
        entitled(t, g, p)?;
    }
    if g.stage == Stage::Group {
        same_group(t, g, players)?;
    }
    Ok(())
}

/// A group match's players are of one group formed from the seeding, the
/// one its `group` names when given.
fn same_group(t: &View, g: &GamePlayed, players: &[&str]) -> Result<(), String> {
    let group_of = |p: &str| {
        let person = t.names.get(p).and_then(|n| t.t.person(n));
        person.and_then(|x| t.group_of(x)).unwrap_or(0)
    };
    let first = group_of(players[0]);
    if let Some(p) = players.iter().find(|&&p| group_of(p) != first) {
        return Err(format!(
            "players {} (group {first}) and {p} (group {}) are in different groups \
             (groups of {} are formed from the seeding)",
            players[0],
            group_of(p),
            t.group_size()
        ));
    }
    match &g.group {
        Some(named) if named.0 != first.to_string() => Err(format!(
            "group {named} is not the players' group: {} is in group {first} \
             (groups are numbered 1, 2, … as formed from the seeding)",
            players[0]
        )),
        _ => Ok(()),
    }
}

fn entitled(t: &View, g: &GamePlayed, p: &str) -> Result<(), String> {
    let names = t.names;
    let person = names.get(p).and_then(|n| t.t.person(n));
    match g.stage {
        Stage::Group if !person.is_some_and(|x| t.t.people[x as usize].seeded()) => {
            let seeded = (0..t.t.people.len() as u32)
                .filter(|&x| t.t.people[x as usize].seeded())
                .map(|x| t.player(x));
            return Err(format!(
                "player {p} has no seeding game; only seeded players play the group stage{}",
                crate::events::did_you_mean(p, seeded)
            ));
        }
        Stage::Bracket if !person.is_some_and(|x| t.is_qualifier(x)) => {
            let group = person.and_then(|x| t.group_of(x));
            return Err(format!(
                "player {p} was not 1st or 2nd of group {} (the top {} of a group played \
                 down to one match); only they reach the bracket",
                group.map_or_else(|| "(none: not seeded)".into(), |g| g.to_string()),
                t.advance()
            ));
        }
        _ => {}
    }
    let Some(person) = person else {
        return Ok(());
    };
    let Some(last) = t.t.last_match(g.stage, person) else {
        return Ok(());
    };
    match t.standing_in(last, person) {
        Standing::Playing => Err(format!(
            "player {p} is still playing match {} ({} of {} games recorded at or before \
             this game's `at`)",
            names.name(last.id),
            last.games(),
            t.games_per_match()
        )),
        Standing::Eliminated => Err(format!(
            "player {p} was eliminated in match {} (place {}; the top {} advance)",
            names.name(last.id),
            t.place_in(last, person).unwrap_or(0),
            t.advance()
        )),
        Standing::Advanced => Ok(()),
    }
}

fn list(players: &[&str]) -> String {
    if players.is_empty() {
        "bots only".into()
    } else {
        players.join(", ")
    }
}
