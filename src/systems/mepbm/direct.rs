//! Direct decoders of the `mepbm.*` payloads a fold meets most: canonical
//! bytes to the typed payload in one pass, on the cursor of
//! [`crate::events::direct`] (its module docs say when they decline).

use super::events::{self as ev, Event};
use crate::events::direct::{put, Cur, Envelope};

/// The types decoded here (the others always go the serde way).
#[cfg(test)]
pub(crate) const TYPES: &[&str] = &[
    "mepbm.vote_cast",
    "mepbm.allegiance_changed",
    "mepbm.nation_taken_over",
    "mepbm.game_started",
    "mepbm.game_ended",
];

/// The payload of `mepbm.<name>`; `None` for a type not handled here.
pub(crate) fn decode<'a>(name: &str, c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<Event> {
    Some(match name {
        "vote_cast" => Event::VoteCast(vote(c, env)?),
        "allegiance_changed" => Event::AllegianceChanged(allegiance(c, env)?),
        "nation_taken_over" => Event::NationTakenOver(takeover(c, env)?),
        "game_started" => Event::GameStarted(started(c, env)?),
        "game_ended" => Event::GameEnded(ended(c, env)?),
        _ => return None,
    })
}

fn vote<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::VoteCast> {
    let (mut game, mut voter, mut team, mut played) = (None, None, None, None);
    let mut enemy = None;
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "voter" => put(&mut voter, c.string()?),
        "best_team_player" => put(&mut team, c.strings()?),
        "best_played_nation" => put(&mut played, c.strings()?),
        "best_enemy_nation" => put(&mut enemy, c.opt(Cur::string)?),
        _ => None,
    })?;
    Some(ev::VoteCast {
        game: game?,
        voter: voter?,
        best_team_player: team?,
        best_played_nation: played?,
        best_enemy_nation: enemy.flatten(),
    })
}

fn side_of(s: &str) -> Option<ev::Side> {
    Some(match s {
        "FP" => ev::Side::Fp,
        "DS" => ev::Side::Ds,
        "neutral" => ev::Side::Neutral,
        _ => return None,
    })
}

fn allegiance<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::AllegianceChanged> {
    let (mut game, mut nation, mut side) = (None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "nation" => put(&mut nation, c.string()?),
        "side" => put(
            &mut side,
            match c.str()? {
                "FP" => ev::Aligned::Fp,
                "DS" => ev::Aligned::Ds,
                _ => return None,
            },
        ),
        _ => None,
    })?;
    Some(ev::AllegianceChanged {
        game: game?,
        nation: nation?,
        side: side?,
    })
}

fn takeover<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::NationTakenOver> {
    let (mut game, mut nation, mut player) = (None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "nation" => put(&mut nation, c.string()?),
        "player" => put(&mut player, c.string()?),
        _ => None,
    })?;
    Some(ev::NationTakenOver {
        game: game?,
        nation: nation?,
        player: player?,
    })
}

fn started<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::GameStarted> {
    let (mut game, mut scenario, mut positions, mut grudge) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "scenario" => put(&mut scenario, c.string()?),
        "positions" => put(&mut positions, c.array(position)?),
        "grudge" => put(&mut grudge, c.opt(grudge_of)?),
        _ => None,
    })?;
    Some(ev::GameStarted {
        game: game?,
        scenario: scenario?,
        positions: positions?,
        grudge: grudge.flatten(),
    })
}

fn position(c: &mut Cur<'_>) -> Option<ev::Position> {
    let (mut nation, mut player, mut side) = (None, None, None);
    c.object(|c, key| match key {
        "nation" => put(&mut nation, c.string()?),
        "player" => put(&mut player, c.string()?),
        "side" => put(&mut side, side_of(c.str()?)?),
        _ => None,
    })?;
    Some(ev::Position {
        nation: nation?,
        player: player?,
        side: side?,
    })
}

fn grudge_of(c: &mut Cur<'_>) -> Option<ev::Grudge> {
    let (mut fp, mut ds) = (None, None);
    c.object(|c, key| match key {
        "FP" => put(&mut fp, c.string()?),
        "DS" => put(&mut ds, c.string()?),
        _ => None,
    })?;
    Some(ev::Grudge { fp: fp?, ds: ds? })
}

fn ended<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::GameEnded> {
    let (mut game, mut turn, mut winner, mut nations) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "turn" => put(&mut turn, c.i64()?),
        "winner" => put(
            &mut winner,
            match c.str()? {
                "FP" => ev::Winner::Fp,
                "DS" => ev::Winner::Ds,
                "draw" => ev::Winner::Draw,
                _ => return None,
            },
        ),
        "nations" => put(&mut nations, c.array(nation_result)?),
        _ => None,
    })?;
    Some(ev::GameEnded {
        game: game?,
        turn: turn?,
        winner: winner?,
        nations: nations?,
    })
}

fn nation_result(c: &mut Cur<'_>) -> Option<ev::NationResult> {
    let (mut nation, mut points, mut eliminated) = (None, None, None);
    c.object(|c, key| match key {
        "nation" => put(&mut nation, c.string()?),
        "victory_points" => put(&mut points, c.i64()?),
        "eliminated" => put(&mut eliminated, c.boolean()?),
        _ => None,
    })?;
    Some(ev::NationResult {
        nation: nation?,
        victory_points: points?,
        eliminated: eliminated?,
    })
}
