//! Direct decoders of the `sbr.*` payloads a fold meets most: canonical
//! bytes to the typed payload in one pass, on the cursor of
//! [`crate::events::direct`] (its module docs say when they decline).

use super::events::{self as ev, Event};
use crate::events::direct::{put, Cur, Envelope};

/// The types decoded here (the others always go the serde way).
#[cfg(test)]
pub(crate) const TYPES: &[&str] = &["sbr.game_played"];

/// The payload of `sbr.<name>`; `None` for a type not handled here.
pub(crate) fn decode<'a>(name: &str, c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<Event> {
    Some(match name {
        "game_played" => Event::GamePlayed(sbr_game(c, env)?),
        _ => return None,
    })
}

fn sbr_game<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::GamePlayed> {
    let (mut tournament, mut stage, mut match_, mut game) = (None, None, None, None);
    let (mut seats, mut group) = (None, None);
    c.event(env, |c, key| match key {
        "tournament" => put(&mut tournament, c.ident()?),
        "stage" => put(&mut stage, stage_of(c.str()?)?),
        "match" => put(&mut match_, c.ident()?),
        "game" => put(&mut game, c.i64()?),
        "seats" => put(&mut seats, c.array(seat)?),
        "group" => put(&mut group, c.opt(Cur::ident)?),
        _ => None,
    })?;
    Some(ev::GamePlayed {
        tournament: tournament?,
        stage: stage?,
        match_: match_?,
        game: game?,
        seats: seats?,
        group: group.flatten(),
    })
}

fn stage_of(s: &str) -> Option<ev::Stage> {
    Some(match s {
        "seeding" => ev::Stage::Seeding,
        "group" => ev::Stage::Group,
        "bracket" => ev::Stage::Bracket,
        _ => return None,
    })
}

fn color_of(s: &str) -> Option<ev::Color> {
    Some(match s {
        "red" => ev::Color::Red,
        "yellow" => ev::Color::Yellow,
        "green" => ev::Color::Green,
        "blue" => ev::Color::Blue,
        _ => return None,
    })
}

/// A seat; its `player` must be there (`null` for a bot).
fn seat(c: &mut Cur<'_>) -> Option<ev::Seat> {
    let (mut color, mut player, mut bases, mut score) = (None, None, None, None);
    c.object(|c, key| match key {
        "seat" => put(&mut color, color_of(c.str()?)?),
        "player" => put(&mut player, c.opt(Cur::string)?),
        "bases" => put(&mut bases, c.opt(|c| c.array(base))?),
        "score" => put(&mut score, c.opt(Cur::i64)?),
        _ => None,
    })?;
    Some(ev::Seat {
        seat: color?,
        player: player?,
        bases: bases.flatten(),
        score: score.flatten(),
    })
}

fn base(c: &mut Cur<'_>) -> Option<ev::Base> {
    let (mut piece, mut bonus) = (None, None);
    c.object(|c, key| match key {
        "piece" => put(&mut piece, c.string()?),
        "bonus" => put(&mut bonus, c.boolean()?),
        _ => None,
    })?;
    Some(ev::Base {
        piece: piece?,
        bonus: bonus?,
    })
}
