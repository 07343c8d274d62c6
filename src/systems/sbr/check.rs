//! Validation of `sbr.game_played` against the tournament folded so far.
//! Every message names the tournament, match, game, player or seat and the rule.

use std::collections::BTreeSet;

use crate::events::sbr::{GamePlayed, Seat, Stage};

use super::math::{self, BaseRef};
use super::{color_name, stage_name, Cx, Standing, Tournament, SYS};

/// Check one game of tournament `t` (None: not created yet).
pub(super) fn game(t: Option<&Tournament>, g: &GamePlayed, cx: &Cx) -> Result<(), String> {
    let t = t.ok_or_else(|| {
        format!(
            "tournament {} is not created (no sbr.tournament_created at or before this game)",
            g.tournament
        )
    })?;
    let what = format!(
        "tournament {}, {} match {}, game {}",
        t.id,
        stage_name(g.stage),
        g.match_,
        g.game
    );
    let inner = || -> Result<(), String> {
        seats(g, cx)?;
        stage_order(t, g)?;
        if let Some(fin) = t.final_match(cx) {
            return Err(format!(
                "the tournament is over: its final match {} is complete",
                fin.id
            ));
        }
        match g.stage {
            Stage::Seeding => seeding(t, g),
            _ => match_game(t, g, cx),
        }
    };
    inner().map_err(|e| format!("{what}: {e}"))
}

/// Seats red, yellow, green and blue each once; a player in one seat at most;
/// each named player's score given or computable, and agreeing with the bases.
fn seats(g: &GamePlayed, cx: &Cx) -> Result<(), String> {
    let colors: BTreeSet<_> = g.seats.iter().map(|s| s.seat).collect();
    if g.seats.len() != 4 || colors.len() != 4 {
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
    let mut players = BTreeSet::new();
    for s in &g.seats {
        if let Some(p) = &s.player {
            if p.is_empty() {
                return Err(format!(
                    "{} seat: a player name must not be empty",
                    color_name(s.seat)
                ));
            }
            if !players.insert(p) {
                return Err(format!(
                    "player {p} holds two seats (one seat per player per game)"
                ));
            }
        }
        seat_score(s, cx)?;
    }
    Ok(())
}

fn seat_score(s: &Seat, cx: &Cx) -> Result<(), String> {
    let who = match &s.player {
        Some(p) => format!("player {p} ({} seat)", color_name(s.seat)),
        None => format!("bot ({} seat)", color_name(s.seat)),
    };
    if s.score.is_some_and(|x| x < 0) {
        return Err(format!("{who}: a score cannot be negative"));
    }
    let Some(bases) = &s.bases else {
        if s.player.is_some() && s.score.is_none() {
            return Err(format!("{who}: needs `bases` or `score`"));
        }
        return Ok(());
    };
    let refs: Vec<BaseRef> = bases.iter().map(|b| (b.piece.as_str(), b.bonus)).collect();
    let mult = cx.params.int(SYS, "bonus_multiplier");
    let computed = math::game_score(&refs, mult).map_err(|e| format!("{who}: {e}"))?;
    match s.score {
        Some(given) if given != computed => Err(format!(
            "{who}: score {given} does not agree with its bases ({} = {computed})",
            math::score_formula(&refs, mult)
        )),
        _ => Ok(()),
    }
}

/// Stages run seeding, group, bracket: none comes back once a later one began.
fn stage_order(t: &Tournament, g: &GamePlayed) -> Result<(), String> {
    match t.stage {
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
fn seeding(t: &Tournament, g: &GamePlayed) -> Result<(), String> {
    if g.game != 1 {
        return Err("a seeding game is game 1 (one seeding game per player)".into());
    }
    if g.group.is_some() {
        return Err("`group` belongs to group-stage games only".into());
    }
    let named: Vec<&Seat> = g.seats.iter().filter(|s| s.player.is_some()).collect();
    let player =
        match named.as_slice() {
            [s] if s.seat == crate::events::sbr::Color::Red => s.player.clone().unwrap_or_default(),
            _ => return Err(
                "a seeding game has one player, in the red seat, against three bots (player: null)"
                    .into(),
            ),
        };
    if let Some(prev) = t.seeds.get(&player) {
        return Err(format!(
            "player {player} is already seeded (seeding game {}); one seeding game per player",
            prev.match_id
        ));
    }
    if t.matches.contains_key(&g.match_.0) || t.seeds.values().any(|s| s.match_id == g.match_.0) {
        return Err(format!(
            "match id {} is already used in this tournament",
            g.match_
        ));
    }
    Ok(())
}

/// A group or bracket game.
fn match_game(t: &Tournament, g: &GamePlayed, cx: &Cx) -> Result<(), String> {
    let games = cx.params.int(SYS, "games_per_match");
    if g.game < 1 || g.game > games {
        return Err(format!(
            "game must be 1 to {games} (a match is {games} games)"
        ));
    }
    if g.group.is_some() && g.stage != Stage::Group {
        return Err("`group` belongs to group-stage games only".into());
    }
    if t.seeds.values().any(|s| s.match_id == g.match_.0) {
        return Err(format!("match id {} is already a seeding game", g.match_));
    }
    let players: BTreeSet<String> = g.seats.iter().filter_map(|s| s.player.clone()).collect();
    match t.matches.get(&g.match_.0) {
        Some(m) => next_game(m, g, &players, games),
        None => new_match(t, g, &players, cx),
    }
}

/// A later game of a known match: same stage, group and players; a new game
/// number; nobody in a seat they already played more often than the rule allows.
fn next_game(
    m: &super::Match,
    g: &GamePlayed,
    players: &BTreeSet<String>,
    games: i64,
) -> Result<(), String> {
    if m.stage != g.stage {
        return Err(format!("match {} is a {} match", m.id, stage_name(m.stage)));
    }
    let group = g.group.as_ref().map(|x| x.0.clone());
    if m.group != group {
        return Err(format!(
            "match {} is in group {}, not {}",
            m.id,
            m.group.as_deref().unwrap_or("(none)"),
            group.as_deref().unwrap_or("(none)")
        ));
    }
    if m.games.contains_key(&g.game) {
        return Err(format!(
            "game {} of match {} is already recorded",
            g.game, m.id
        ));
    }
    if &m.players != players {
        return Err(format!(
            "match {} is played by {}; this game has {} (a match keeps the same players)",
            m.id,
            list(&m.players),
            list(players)
        ));
    }
    // Each player once in each seat over 4 games (ceil(games/4) times in general).
    let per_seat = (games + 3) / 4;
    for s in g.seats.iter().filter(|s| s.player.is_some()) {
        let before = m
            .games
            .values()
            .flatten()
            .filter(|r| r.seat == s.seat && r.player == s.player)
            .count() as i64;
        if before >= per_seat {
            return Err(format!(
                "player {} already played the {} seat in match {} \
                 (each player plays each seat once)",
                s.player.as_deref().unwrap_or_default(),
                color_name(s.seat),
                m.id
            ));
        }
    }
    Ok(())
}

/// The first game of a match: every player entitled to play it.
fn new_match(
    t: &Tournament,
    g: &GamePlayed,
    players: &BTreeSet<String>,
    cx: &Cx,
) -> Result<(), String> {
    if players.is_empty() {
        return Err("a match needs at least one player (bots only fill seats)".into());
    }
    let qualifiers = match g.stage {
        Stage::Bracket => t.qualifiers(cx),
        _ => Vec::new(),
    };
    for p in players {
        entitled(t, g, p, &qualifiers, cx)?;
    }
    Ok(())
}

fn entitled(
    t: &Tournament,
    g: &GamePlayed,
    p: &str,
    qualifiers: &[String],
    cx: &Cx,
) -> Result<(), String> {
    match g.stage {
        Stage::Group if !t.seeds.contains_key(p) => {
            return Err(format!(
                "player {p} has no seeding game; only seeded players play the group stage"
            ))
        }
        Stage::Bracket if !qualifiers.iter().any(|q| q == p) => {
            return Err(format!(
                "player {p} did not advance from the group stage; the bracket is for \
                 the players who advanced from their last group match"
            ))
        }
        _ => {}
    }
    let earlier = t.matches_of(g.stage, p);
    let group = g.group.as_ref().map(|x| x.0.as_str());
    if let Some(m) = earlier.last().filter(|m| m.group.as_deref() != group) {
        return Err(format!(
            "player {p} plays in group {}, not {} (a player stays in one group)",
            m.group.as_deref().unwrap_or("(none)"),
            group.unwrap_or("(none)")
        ));
    }
    match (earlier.last(), t.standing(g.stage, p, cx)) {
        (Some(m), Some(Standing::Playing)) => Err(format!(
            "player {p} is still playing match {} ({} of {} games recorded)",
            m.id,
            m.games.len(),
            cx.params.int(SYS, "games_per_match")
        )),
        (Some(m), Some(Standing::Eliminated)) => Err(format!(
            "player {p} was eliminated in match {} (place {}; the top {} advance)",
            m.id,
            t.place_in(m, p, cx).unwrap_or(0),
            cx.params.int(SYS, "advance")
        )),
        _ => Ok(()),
    }
}

fn list(players: &BTreeSet<String>) -> String {
    if players.is_empty() {
        "bots only".into()
    } else {
        players.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}
