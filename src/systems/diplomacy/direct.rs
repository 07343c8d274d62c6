//! Direct decoders of the `diplomacy.*` payloads a fold meets most: canonical
//! bytes to the typed payload in one pass, on the cursor of
//! [`crate::events::direct`] (its module docs say when they decline).

use super::events::{self as ev, Event};
use crate::events::direct::{put, Cur, Envelope};

/// The types decoded here (the others always go the serde way).
#[cfg(test)]
pub(crate) const TYPES: &[&str] = &["diplomacy.game_ended"];

/// The payload of `diplomacy.<name>`; `None` for a type not handled here.
pub(crate) fn decode<'a>(name: &str, c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<Event> {
    Some(match name {
        "game_ended" => Event::GameEnded(dip(c, env)?),
        _ => return None,
    })
}

fn dip<'a>(c: &mut Cur<'a>, env: &mut Envelope<'a>) -> Option<ev::GameEnded> {
    let (mut game, mut result, mut winner, mut powers) = (None, None, None, None);
    c.event(env, |c, key| match key {
        "game" => put(&mut game, c.ident()?),
        "result" => put(
            &mut result,
            match c.str()? {
                "solo" => ev::Outcome::Solo,
                "draw" => ev::Outcome::Draw,
                _ => return None,
            },
        ),
        "winner" => put(&mut winner, c.opt(Cur::string)?),
        "powers" => put(&mut powers, c.array(power)?),
        _ => None,
    })?;
    Some(ev::GameEnded {
        game: game?,
        result: result?,
        winner: winner.flatten(),
        powers: powers?,
    })
}

/// A power; its `player` must be there (`null`: never replaced).
fn power(c: &mut Cur<'_>) -> Option<ev::PowerResult> {
    let (mut name, mut player, mut centers, mut eliminated) = (None, None, None, None);
    c.object(|c, key| match key {
        "power" => put(&mut name, c.string()?),
        "player" => put(&mut player, c.opt(Cur::string)?),
        "centers" => put(&mut centers, c.i64()?),
        "eliminated" => put(&mut eliminated, c.opt(Cur::i64)?),
        _ => None,
    })?;
    Some(ev::PowerResult {
        power: name?,
        player: player?,
        centers: centers?,
        eliminated: eliminated.flatten(),
    })
}
